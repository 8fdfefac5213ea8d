/*
 * _fft_last_axes(x, kind, dims): see fft.h.
 *
 * x, a CUDA array, is made C-contiguous (a copy only where it is not, and
 * always for the complex-to-real kind, whose execution overwrites its
 * input), and each of its blocks over the last len(dims) axes is
 * transformed into a new C-contiguous array (runtime/cufft.c).  Everything
 * else devarray.fft offers (other axes, n and s by padding or cropping,
 * norm, more than three axes, the host backend through NumPy) is composed
 * in devarray/fft.py.
 *
 * Ownership: the contiguous input is a new reference released at the one
 * exit; the result is new.
 */
#include "ops/fft.h"

#include "base/dtype.h"
#include "core/array.h"
#include "core/copy.h"
#include "runtime/cufft.h"
#include "runtime/device.h"

/* The dtype a kind reads (its precision given) and writes. */
static int
fft_in_typenum(int kind, int is_double)
{
    if (kind == CUFFT_KIND_R2C) {
        return is_double ? DA_FLOAT64 : DA_FLOAT32;
    }
    return is_double ? DA_COMPLEX128 : DA_COMPLEX64;
}

#ifdef DEVARRAY_HAVE_CUDA
static int
fft_out_typenum(int kind, int is_double)
{
    if (kind == CUFFT_KIND_C2R) {
        return is_double ? DA_FLOAT64 : DA_FLOAT32;
    }
    return is_double ? DA_COMPLEX128 : DA_COMPLEX64;
}
#endif

static PyObject *
fft_last_axes(PyObject *Py_UNUSED(module), PyObject *args)
{
    static const char *const kind_names[CUFFT_KIND_COUNT] = {"forward", "inverse", "r2c", "c2r"};
    DeviceArrayObject *x, *in = NULL, *out = NULL;
    PyObject *dims_obj;
    int64_t dims[CUFFT_RANK_MAX], shape[DA_MAXDIMS], in_last, in_block = 1;
    Py_ssize_t rank = 0;
    int kind, is_double, d;

    if (!PyArg_ParseTuple(args, "O!iO!:_fft_last_axes", &DeviceArray_Type, &x, &kind,
                          &PyTuple_Type, &dims_obj)) {
        return NULL;
    }
    rank = PyTuple_GET_SIZE(dims_obj);
    if (kind < 0 || kind >= CUFFT_KIND_COUNT || rank < 1 || rank > CUFFT_RANK_MAX ||
        rank > x->ndim) {
        return PyErr_Format(PyExc_ValueError,
                            "_fft_last_axes: kind must be 0 to %d and dims 1 to %d extents, "
                            "no more than x has axes, not kind=%d, %zd extents, %d-d",
                            CUFFT_KIND_COUNT - 1, CUFFT_RANK_MAX, kind, rank, x->ndim);
    }
    for (d = 0; d < rank; d++) {
        long long extent = PyLong_AsLongLong(PyTuple_GET_ITEM(dims_obj, d));
        if (extent == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (extent < 1) {
            return PyErr_Format(PyExc_ValueError,
                                "_fft_last_axes: extents must be positive, not %lld", extent);
        }
        dims[d] = (int64_t)extent;
    }
    is_double = x->typenum == DA_FLOAT64 || x->typenum == DA_COMPLEX128;
    if (x->typenum != fft_in_typenum(kind, is_double)) {
        return PyErr_Format(PyExc_TypeError, "_fft_last_axes: the %s transform reads %s, not %s",
                            kind_names[kind], dtype_table[fft_in_typenum(kind, is_double)].name,
                            dtype_table[x->typenum].name);
    }
    in_last = kind == CUFFT_KIND_C2R ? dims[rank - 1] / 2 + 1 : dims[rank - 1];
    for (d = 0; d < rank; d++) {
        int64_t expected = d == rank - 1 ? in_last : dims[d];
        if (DA_SHAPE(x)[x->ndim - rank + d] != expected) {
            return PyErr_Format(PyExc_ValueError,
                                "_fft_last_axes: the %s transform reads %lld along axis %d, "
                                "not %lld",
                                kind_names[kind], (long long)expected, x->ndim - rank + d,
                                (long long)DA_SHAPE(x)[x->ndim - rank + d]);
        }
        in_block *= expected;
    }
    if (x->backend != DA_BACKEND_CUDA) {
        return PyErr_Format(PyExc_ValueError,
                            "_fft_last_axes runs on CUDA arrays; devarray.fft takes host "
                            "arrays through NumPy");
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (array_activate(x) < 0) {
        return NULL;
    }
    for (d = 0; d < x->ndim; d++) {
        shape[d] = DA_SHAPE(x)[d];
    }
    shape[x->ndim - 1] = kind == CUFFT_KIND_R2C ? dims[rank - 1] / 2 + 1 : dims[rank - 1];
    out = array_new(DA_BACKEND_CUDA, fft_out_typenum(kind, is_double), x->ndim, shape);
    if (out == NULL || out->size == 0) {
        return (PyObject *)out;
    }
    in = kind == CUFFT_KIND_C2R ? copy_cast(x, x->typenum) : copy_contiguous_as(x, x->typenum);
    if (in == NULL) {
        goto error;
    }
    if (cufft_exec(x->device, kind, is_double, (int)rank, dims, in->size / in_block, in->data,
                   out->data) < 0) {
        goto error;
    }
    Py_DECREF(in);
    return (PyObject *)out;

error:
    Py_XDECREF(in);
    Py_XDECREF(out);
    return NULL;
#else
    (void)shape;
    (void)in;
    (void)out;
    return PyErr_Format(PyExc_RuntimeError, "_fft_last_axes: devarray was built without CUDA");
#endif
}

static PyMethodDef fft_functions[] = {
    {"_fft_last_axes", fft_last_axes, METH_VARARGS,
     "_fft_last_axes(x, kind, dims)\n--\n\ndevarray.fft's primitive on CUDA: the "
     "transforms of extents dims (1 to 3, over x's last axes; kind 0 forward, 1 inverse "
     "unscaled, 2 real to complex, 3 complex to real unscaled, dims the real side's) of "
     "each block of x, a new C-contiguous array."},
    {NULL, NULL, 0, NULL},
};

int
fft_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, fft_functions);
}
