/*
 * _random_fill(out, kind, key, counter, low=0, range=0, loc=0.0,
 * scale=1.0): see random.h.
 *
 * The arguments become one da_random (kernels/launch.h, which says what
 * each kind makes of the words) run on out's backend: on CUDA on the
 * current stream of out's device, made active first; on the host by the
 * C loop of src/host/host_random.c.  The function returns the number of
 * Philox counters the draw used, by which devarray/random.py advances its
 * counter, so that the next draw starts on fresh blocks.  Every check
 * comes before the launch: a refused call changes nothing.
 *
 * Ownership: nothing is allocated here; `out` is borrowed from the
 * arguments.
 */
#include "ops/random.h"

#include "base/dtype.h"
#include "core/array.h"
#include "runtime/backend.h"

/* The kinds' names for messages, in launch.h's order. */
static const char *const random_kind_names[DA_NRANDOM] = {
    "bits32", "bits64", "uniform float32", "uniform float64",
    "integers (range <= 2**32)", "integers (range <= 2**64)",
    "normal float32", "normal float64",
};

/* An unsigned integer of at most `bits` bits from a Python int into *v;
   0, or -1 with OverflowError or TypeError naming what. */
static int
random_unsigned(PyObject *obj, int bits, const char *what, uint64_t *v)
{
    unsigned long long value;

    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "_random_fill: %s must be an int, not %.200s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    value = PyLong_AsUnsignedLongLong(obj);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) {
        goto overflow;
    }
    if (bits < 64 && value >> bits != 0) {
        goto overflow;
    }
    *v = (uint64_t)value;
    return 0;

overflow:
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "_random_fill: %s must be in [0, 2**%d)", what, bits);
    return -1;
}

/* A pair of unsigned words from a 2-tuple of ints. */
static int
random_pair(PyObject *obj, int bits, const char *what, uint64_t *pair)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "_random_fill: %s must be a tuple of 2 ints", what);
        return -1;
    }
    if (random_unsigned(PyTuple_GET_ITEM(obj, 0), bits, what, &pair[0]) < 0 ||
        random_unsigned(PyTuple_GET_ITEM(obj, 1), bits, what, &pair[1]) < 0) {
        return -1;
    }
    return 0;
}

/* low: an int in [-2**63, 2**64), kept modulo 2**64. */
static int
random_low(PyObject *obj, uint64_t *v)
{
    long long s;
    int overflow = 0;

    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "_random_fill: low must be an int, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    s = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (s == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow == 0) {
        *v = (uint64_t)s;
        return 0;
    }
    if (overflow > 0) {
        return random_unsigned(obj, 64, "low", v);
    }
    PyErr_SetString(PyExc_OverflowError, "_random_fill: low must be in [-2**63, 2**64)");
    return -1;
}

static PyObject *
random_fill(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"out", "kind", "key", "counter", "low", "range", "loc", "scale",
                             NULL};
    DeviceArrayObject *out;
    PyObject *key_obj, *counter_obj, *low_obj = NULL, *range_obj = NULL;
    uint64_t key[2], counter[2], low = 0, range = 0;
    double loc = 0.0, scale = 1.0;
    int kind;
    da_random r;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!iOO|OOdd:_random_fill", kwlist,
                                     &DeviceArray_Type, &out, &kind, &key_obj, &counter_obj,
                                     &low_obj, &range_obj, &loc, &scale)) {
        return NULL;
    }
    if (kind < 0 || kind >= DA_NRANDOM) {
        return PyErr_Format(PyExc_ValueError, "_random_fill: kind must be 0 to %d, not %d",
                            DA_NRANDOM - 1, kind);
    }
    if (!da_random_supported(kind, out->typenum)) {
        return PyErr_Format(PyExc_TypeError, "_random_fill: a %s draw cannot fill %s",
                            random_kind_names[kind], dtype_table[out->typenum].name);
    }
    if (random_pair(key_obj, 32, "key", key) < 0 ||
        random_pair(counter_obj, 64, "counter", counter) < 0 ||
        (low_obj != NULL && random_low(low_obj, &low) < 0) ||
        (range_obj != NULL && random_unsigned(range_obj, 64, "range", &range) < 0)) {
        return NULL;
    }
    if (kind == DA_RANDOM_INT_R32 && (range == 0 || range > ((uint64_t)1 << 32))) {
        return PyErr_Format(PyExc_ValueError,
                            "_random_fill: the %s kind needs 1 <= range <= 2**32, not %llu",
                            random_kind_names[kind], (unsigned long long)range);
    }
    if (out->flags & DA_FLAG_READONLY) {
        PyErr_SetString(PyExc_ValueError, "_random_fill: out is read-only");
        return NULL;
    }
    if (!array_is_c_contiguous(out)) {
        PyErr_SetString(PyExc_ValueError, "_random_fill: out must be C-contiguous");
        return NULL;
    }
    r.out = out->data;
    r.n = out->size;
    r.kind = kind;
    r.typenum = out->typenum;
    r.key[0] = (uint32_t)key[0];
    r.key[1] = (uint32_t)key[1];
    r.counter[0] = (uint32_t)counter[0];
    r.counter[1] = (uint32_t)(counter[0] >> 32);
    r.counter[2] = (uint32_t)counter[1];
    r.counter[3] = (uint32_t)(counter[1] >> 32);
    r.low = low;
    r.range = range;
    r.loc = loc;
    r.scale = scale;
    if (r.n > 0 && (array_activate(out) < 0 || backend_random(out->backend, &r) < 0)) {
        return NULL;
    }
    return PyLong_FromLongLong((long long)(r.n > 0 ? da_random_blocks(kind, r.n) : 0));
}

static PyMethodDef random_functions[] = {
    {"_random_fill", (PyCFunction)(void (*)(void))random_fill, METH_VARARGS | METH_KEYWORDS,
     "_random_fill(out, kind, key, counter, low=0, range=0, loc=0.0, scale=1.0)\n--\n\n"
     "devarray.random's primitive: fill out (C-contiguous, writable) with the draw `kind` "
     "(kernels/launch.h's DA_RANDOM_*) of the Philox4x32-10 stream of key (two 32-bit "
     "words) starting at the 128-bit counter (lo, hi) (two 64-bit words); integers are "
     "low + [0, range), floats loc + scale * x.  Returns the number of counters used."},
    {NULL, NULL, 0, NULL},
};

int
random_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, random_functions);
}
