/*
 * The number protocol of DeviceArray: + - * / (and in place), unary - + abs,
 * and conversion to Python scalars.
 *
 * A binary op: identify the operands (DeviceArray or Python scalar; anything
 * else gives NotImplemented at once so Python can ask the other operand),
 * promote with the tables of dtype.c (Python scalars are weak, NEP 50),
 * broadcast, allocate the result, launch one elementwise kernel.  Nothing is
 * copied to or from the host.
 */
#include "number.h"

#include "array.h"
#include "convert.h"
#include "device.h"
#include "dtype.h"
#include "elementwise.h"

static const char *const op_names[] = {"add", "subtract", "multiply", "divide"};
static const char *const op_symbols[] = {"+", "-", "*", "/"};

/* The kind of a Python scalar operand ('b', 'i', 'f', 'c'), or 0 when `obj`
   is not one. */
static char
python_scalar_kind(PyObject *obj)
{
    if (PyBool_Check(obj)) {
        return 'b';
    }
    if (PyLong_Check(obj)) {
        return 'i';
    }
    if (PyFloat_Check(obj)) {
        return 'f';
    }
    if (PyComplex_Check(obj)) {
        return 'c';
    }
    return 0;
}

/* NEP 50 makes only the exact Python types weak; a subclass (numpy.float64
   is one of float) takes part in promotion as its default dtype. */
static int
python_scalar_is_weak(PyObject *obj)
{
    return PyBool_Check(obj) || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj) ||
           PyComplex_CheckExact(obj);
}

static int
strong_scalar_typenum(char kind)
{
    switch (kind) {
        case 'b':
            return DA_BOOL;
        case 'i':
            return DA_INT64;
        case 'f':
            return DA_FLOAT64;
        default:
            return DA_COMPLEX128;
    }
}

static int
typenum_is_integer(int typenum)
{
    return typenum >= DA_INT8 && typenum <= DA_UINT64;
}

/* Two arrays must live in the same memory space to meet in one kernel. */
static int
check_same_backend(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    if (a->backend != b->backend || a->device != b->device) {
        PyErr_Format(PyExc_ValueError,
                     "operands are on different backends or devices (%s:%d "
                     "and %s:%d); copy one with to_host() and to_device()",
                     a->backend == DA_BACKEND_CUDA ? "cuda" : "host", a->device,
                     b->backend == DA_BACKEND_CUDA ? "cuda" : "host", b->device);
        return -1;
    }
    return 0;
}

/* Whether the memory spans of a and b intersect. */
static int
arrays_overlap(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    const DeviceArrayObject *arrays[2] = {a, b};
    char *lo[2], *hi[2];
    int k, i;
    if (a->size == 0 || b->size == 0) {
        return 0;
    }
    for (k = 0; k < 2; k++) {
        const DeviceArrayObject *x = arrays[k];
        lo[k] = hi[k] = x->data;
        for (i = 0; i < x->ndim; i++) {
            int64_t extent = (DA_SHAPE(x)[i] - 1) * DA_STRIDES(x)[i];
            if (extent < 0) {
                lo[k] += extent;
            }
            else {
                hi[k] += extent;
            }
        }
        hi[k] += DA_ITEMSIZE(x);
    }
    return lo[0] < hi[1] && lo[1] < hi[0];
}

static int
same_layout(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    return a->data == b->data && a->ndim == b->ndim &&
           memcmp(a->dims, b->dims, sizeof(int64_t) * 2 * (size_t)a->ndim) == 0;
}

static PyObject *
number_binary(PyObject *left, PyObject *right, int op, int inplace)
{
    PyObject *operands[2] = {left, right};
    DeviceArrayObject *arrays[2] = {NULL, NULL}, *out = NULL, *first = NULL;
    DeviceArrayObject *copied = NULL;
    da_scalar scalars[2];
    char kinds[2] = {0, 0};
    int64_t shape[DA_MAXDIMS];
    int k, ndim, promoted, result, cls;

    for (k = 0; k < 2; k++) {
        if (DeviceArray_Check(operands[k])) {
            arrays[k] = (DeviceArrayObject *)operands[k];
        }
        else if ((kinds[k] = python_scalar_kind(operands[k])) == 0) {
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    if (arrays[0] == NULL && arrays[1] == NULL) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (inplace && arrays[0] == NULL) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    first = arrays[0] != NULL ? arrays[0] : arrays[1];

    /* result dtype */
    if (arrays[0] != NULL && arrays[1] != NULL) {
        if (check_same_backend(arrays[0], arrays[1]) < 0) {
            return NULL;
        }
        promoted = dtype_promote(arrays[0]->typenum, arrays[1]->typenum);
    }
    else {
        int scalar = arrays[0] == NULL ? 0 : 1;
        promoted = python_scalar_is_weak(operands[scalar])
                       ? dtype_promote_weak(first->typenum, kinds[scalar])
                       : dtype_promote(first->typenum,
                                       strong_scalar_typenum(kinds[scalar]));
    }
    if (op == DA_OP_SUB && promoted == DA_BOOL) {
        PyErr_SetString(PyExc_TypeError,
                        "numpy boolean subtract, the `-` operator, is not "
                        "supported, use the bitwise_xor, the `^` operator, or "
                        "the logical_xor function instead.");
        return NULL;
    }
    result = promoted;
    if (op == DA_OP_DIV && (promoted == DA_BOOL || typenum_is_integer(promoted))) {
        result = DA_FLOAT64;
    }
    cls = da_class_of(result);

    for (k = 0; k < 2; k++) {
        if (arrays[k] != NULL) {
            continue;
        }
        /* range-checked against the dtype the op computes in: int / int
           runs in float64, where NumPy converts a Python int unchecked */
        if (convert_python_scalar(operands[k], result, cls, &scalars[k]) < 0) {
            return NULL;
        }
        /* a weak scalar takes the promoted dtype's precision first, as
           NumPy casts it to that dtype before the loop runs */
        if (promoted == DA_FLOAT16) {
            scalars[k].f32 = da_half_to_float(da_float_to_half(scalars[k].f32));
        }
    }

    if (arrays[0] != NULL && arrays[1] != NULL) {
        ndim = elementwise_broadcast(arrays[0], arrays[1], shape);
        if (ndim < 0) {
            return NULL;
        }
    }
    else {
        ndim = first->ndim;
        memcpy(shape, DA_SHAPE(first), sizeof(int64_t) * (size_t)ndim);
    }

    if (inplace) {
        out = arrays[0];
        if (out->flags & DA_FLAG_READONLY) {
            PyErr_SetString(PyExc_ValueError,
                            "output array is read-only");
            return NULL;
        }
        if (!dtype_can_cast_same_kind(result, out->typenum)) {
            PyErr_Format(PyExc_TypeError,
                         "Cannot cast ufunc '%s' output from dtype('%s') to "
                         "dtype('%s') with casting rule 'same_kind'",
                         op_names[op], dtype_table[result].name,
                         dtype_table[out->typenum].name);
            return NULL;
        }
        if (ndim != out->ndim ||
            memcmp(shape, DA_SHAPE(out), sizeof(int64_t) * (size_t)ndim) != 0) {
            PyObject *out_shape = PyObject_GetAttrString((PyObject *)out, "shape");
            PyErr_Format(PyExc_ValueError,
                         "non-broadcastable output operand with shape %R "
                         "doesn't match the broadcast shape of the operands "
                         "of '%s'",
                         out_shape != NULL ? out_shape : Py_None, op_symbols[op]);
            Py_XDECREF(out_shape);
            return NULL;
        }
        /* out is about to be overwritten while the kernel may still read a
           partially overlapping input: read from a copy, as NumPy does */
        if (arrays[1] != NULL && arrays[1] != out && arrays[1]->size > 0 &&
            arrays_overlap(out, arrays[1]) && !same_layout(out, arrays[1])) {
            copied = array_new(arrays[1]->backend, arrays[1]->typenum,
                               arrays[1]->ndim, DA_SHAPE(arrays[1]));
            if (copied == NULL || elementwise_copy(copied, arrays[1]) < 0) {
                Py_XDECREF(copied);
                return NULL;
            }
            arrays[1] = copied;
        }
        Py_INCREF(out);
    }
    else {
        out = array_new(first->backend, result, ndim, shape);
        if (out == NULL) {
            return NULL;
        }
    }
    if (elementwise_run(op, cls, out, 2, arrays, scalars) < 0) {
        Py_CLEAR(out);
    }
    Py_XDECREF(copied);
    return (PyObject *)out;
}

#define DEFINE_BINARY(name, op)                                      \
    static PyObject *number_##name(PyObject *a, PyObject *b)         \
    {                                                                \
        return number_binary(a, b, op, 0);                           \
    }                                                                \
    static PyObject *number_inplace_##name(PyObject *a, PyObject *b) \
    {                                                                \
        return number_binary(a, b, op, 1);                           \
    }

DEFINE_BINARY(add, DA_OP_ADD)
DEFINE_BINARY(subtract, DA_OP_SUB)
DEFINE_BINARY(multiply, DA_OP_MUL)
DEFINE_BINARY(true_divide, DA_OP_DIV)
#undef DEFINE_BINARY

/* A new array of dtype `result` with op applied to every element of a. */
static PyObject *
number_unary(DeviceArrayObject *a, int op, int cls, int result)
{
    DeviceArrayObject *out = array_new(a->backend, result, a->ndim, DA_SHAPE(a));
    if (out == NULL) {
        return NULL;
    }
    if (elementwise_run(op, cls, out, 1, &a, NULL) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return (PyObject *)out;
}

static PyObject *
number_negative(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->typenum == DA_BOOL) {
        PyErr_SetString(PyExc_TypeError,
                        "The numpy boolean negative, the `-` operator, is not "
                        "supported, use the `~` operator or the logical_not "
                        "function instead.");
        return NULL;
    }
    return number_unary(a, DA_OP_NEG, da_class_of(a->typenum), a->typenum);
}

static PyObject *
number_positive(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->typenum == DA_BOOL) {
        /* NumPy's positive has no bool loop */
        PyErr_SetString(PyExc_TypeError,
                        "ufunc 'positive' did not contain a loop with "
                        "signature matching types bool -> bool");
        return NULL;
    }
    return number_unary(a, DA_OP_COPY, da_class_of(a->typenum), a->typenum);
}

static PyObject *
number_absolute(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    int result = a->typenum == DA_COMPLEX64    ? DA_FLOAT32
                 : a->typenum == DA_COMPLEX128 ? DA_FLOAT64
                                               : a->typenum;
    return number_unary(a, DA_OP_ABS, da_class_of(a->typenum), result);
}

/* ---- conversion to Python scalars --------------------------------------- */

/* The single element of a size-1 array as a Python object, or NULL with
   TypeError naming `what` for other sizes. */
static PyObject *
number_single_item(PyObject *self, const char *what)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->size != 1) {
        PyErr_Format(PyExc_TypeError,
                     "only arrays of size 1 can be converted to Python "
                     "%s (this one has %lld elements)",
                     what, (long long)a->size);
        return NULL;
    }
    return convert_item(a);
}

static int
number_bool(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    PyObject *item;
    int truth;
    if (a->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        a->size == 0
                            ? "The truth value of an empty array is ambiguous. "
                              "Use `array.size > 0` to check that an array is "
                              "not empty."
                            : "The truth value of an array with more than one "
                              "element is ambiguous. Use a.any() or a.all()");
        return -1;
    }
    item = convert_item(a);
    if (item == NULL) {
        return -1;
    }
    truth = PyObject_IsTrue(item);
    Py_DECREF(item);
    return truth;
}

static PyObject *
number_float(PyObject *self)
{
    PyObject *item = number_single_item(self, "floats"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyNumber_Float(item);
    Py_DECREF(item);
    return result;
}

static PyObject *
number_int(PyObject *self)
{
    PyObject *item = number_single_item(self, "ints"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyNumber_Long(item);
    Py_DECREF(item);
    return result;
}

static PyObject *
number_index(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->ndim != 0 || !typenum_is_integer(a->typenum)) {
        PyErr_SetString(PyExc_TypeError,
                        "only integer scalar arrays can be converted to a "
                        "scalar index");
        return NULL;
    }
    return convert_item(a);
}

PyObject *
number_complex(PyObject *self, PyObject *Py_UNUSED(args))
{
    PyObject *item = number_single_item(self, "complex numbers"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyComplex_Check(item)
                 ? item
                 : PyObject_CallOneArg((PyObject *)&PyComplex_Type, item);
    if (result != item) {
        Py_DECREF(item);
    }
    return result;
}

PyNumberMethods number_as_number = {
    .nb_add = number_add,
    .nb_subtract = number_subtract,
    .nb_multiply = number_multiply,
    .nb_true_divide = number_true_divide,
    .nb_inplace_add = number_inplace_add,
    .nb_inplace_subtract = number_inplace_subtract,
    .nb_inplace_multiply = number_inplace_multiply,
    .nb_inplace_true_divide = number_inplace_true_divide,
    .nb_negative = number_negative,
    .nb_positive = number_positive,
    .nb_absolute = number_absolute,
    .nb_bool = number_bool,
    .nb_int = number_int,
    .nb_float = number_float,
    .nb_index = number_index,
};
