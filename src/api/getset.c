/*
 * The attributes of DeviceArray (its getset table): shape, strides, dtype,
 * device (a devarray.Device), ptr, T, mT, and the array interfaces (CUDA
 * Array Interface v3 on the CUDA backend, NumPy's __array_interface__ on
 * the host backend).
 */
#include "api/getset.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "runtime/device.h"
#include "runtime/stream.h"
#include "interop/deviceobject.h"

static PyObject *
array_get_shape(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return array_int64_tuple(self->ndim, DA_SHAPE(self));
}

static PyObject *
array_get_strides(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return array_int64_tuple(self->ndim, DA_STRIDES(self));
}

static PyObject *
array_get_ndim(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(self->ndim);
}

static PyObject *
array_get_size(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->size);
}

static PyObject *
array_get_nbytes(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(DA_NBYTES(self));
}

static PyObject *
array_get_itemsize(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(DA_ITEMSIZE(self));
}

static PyObject *
array_get_dtype(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    PyObject *dtype = dtypeobject_singleton(self->typenum);
    Py_INCREF(dtype);
    return dtype;
}

static PyObject *
array_get_device(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return deviceobject_new(self->backend, self->device);
}

/* The address of the first element; 0 for an empty array, as the CUDA Array
   Interface asks. */
static uintptr_t
array_address(const DeviceArrayObject *self)
{
    return self->size == 0 ? 0 : (uintptr_t)self->data;
}

static PyObject *
array_get_ptr(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLongLong(array_address(self));
}

static PyObject *
array_get_base(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    PyObject *base = self->base != NULL ? self->base : Py_None;
    Py_INCREF(base);
    return base;
}

static PyObject *
array_get_readonly(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(self->flags & DA_FLAG_READONLY);
}

static PyObject *
array_get_T(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return (PyObject *)array_transposed(self, NULL);
}

/* The array API's matrix transpose: the last two axes swapped. */
static PyObject *
array_get_mT(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    int axes[DA_MAXDIMS], i;

    if (self->ndim < 2) {
        PyErr_Format(PyExc_ValueError,
                     "mT needs an array of at least 2 dimensions, not %d",
                     self->ndim);
        return NULL;
    }
    for (i = 0; i < self->ndim; i++) {
        axes[i] = i;
    }
    axes[self->ndim - 2] = self->ndim - 1;
    axes[self->ndim - 1] = self->ndim - 2;
    return (PyObject *)array_transposed(self, axes);
}

/* The dict shared by both interfaces; `with_stream` adds the CUDA one's
   stream key. */
static PyObject *
array_interface_dict(DeviceArrayObject *self, int with_stream)
{
    PyObject *dict = NULL, *shape = NULL, *strides = NULL;

    shape = array_int64_tuple(self->ndim, DA_SHAPE(self));
    if (shape == NULL) {
        goto error;
    }
    if (array_is_c_contiguous(self)) {
        strides = Py_None;
        Py_INCREF(strides);
    }
    else {
        strides = array_int64_tuple(self->ndim, DA_STRIDES(self));
        if (strides == NULL) {
            goto error;
        }
    }
    dict = Py_BuildValue("{s:O,s:s,s:(KO),s:i,s:O}", "shape", shape,
                         "typestr", dtype_table[self->typenum].typestr, "data",
                         (unsigned long long)array_address(self),
                         (self->flags & DA_FLAG_READONLY) ? Py_True : Py_False,
                         "version", 3, "strides", strides);
    if (dict == NULL) {
        goto error;
    }
    if (with_stream) {
        /* the current stream: the interface's producer rule is that it is
           ordered after all pending work on the array */
#ifdef DEVARRAY_HAVE_CUDA
        PyObject *stream = array_activate(self) < 0
                               ? NULL
                               : PyLong_FromSize_t(stream_protocol_value(stream_current()));
#else
        PyObject *stream = PyLong_FromLong(1);
#endif
        if (stream == NULL || PyDict_SetItemString(dict, "stream", stream) < 0) {
            Py_XDECREF(stream);
            goto error;
        }
        Py_DECREF(stream);
    }
    Py_DECREF(shape);
    Py_DECREF(strides);
    return dict;
error:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(dict);
    return NULL;
}

static PyObject *
array_get_cuda_array_interface(DeviceArrayObject *self,
                               void *Py_UNUSED(closure))
{
    if (self->backend != DA_BACKEND_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__cuda_array_interface__ is only defined for arrays "
                        "on the CUDA backend (this one is on the host "
                        "backend; use __array_interface__)");
        return NULL;
    }
    return array_interface_dict(self, 1);
}

static PyObject *
array_get_array_interface(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    if (self->backend != DA_BACKEND_HOST) {
        PyErr_SetString(PyExc_AttributeError,
                        "__array_interface__ is only defined for arrays on "
                        "the host backend: device memory is not host memory "
                        "(use __cuda_array_interface__ or to_host())");
        return NULL;
    }
    return array_interface_dict(self, 0);
}

PyGetSetDef getset_table[] = {
    {"shape", (getter)array_get_shape, NULL, "Tuple of array dimensions.", NULL},
    {"strides", (getter)array_get_strides, NULL,
     "Tuple of bytes to step in each dimension.", NULL},
    {"ndim", (getter)array_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)array_get_size, NULL, "Number of elements.", NULL},
    {"nbytes", (getter)array_get_nbytes, NULL, "Bytes of the elements.", NULL},
    {"itemsize", (getter)array_get_itemsize, NULL, "Bytes per element.", NULL},
    {"dtype", (getter)array_get_dtype, NULL, "The element type.", NULL},
    {"device", (getter)array_get_device, NULL,
     "The devarray.Device that holds the array: Device('cuda', N) or "
     "Device('host').", NULL},
    {"ptr", (getter)array_get_ptr, NULL,
     "Address of the first element (0 when empty).", NULL},
    {"base", (getter)array_get_base, NULL,
     "The object whose memory this array borrows, or None.", NULL},
    {"readonly", (getter)array_get_readonly, NULL,
     "Whether writes into the array are refused.", NULL},
    {"T", (getter)array_get_T, NULL, "The transposed view.", NULL},
    {"mT", (getter)array_get_mT, NULL,
     "The view with the last two axes swapped (ndim >= 2).", NULL},
    {"__cuda_array_interface__", (getter)array_get_cuda_array_interface, NULL,
     "CUDA Array Interface, version 3 (CUDA backend only).", NULL},
    {"__array_interface__", (getter)array_get_array_interface, NULL,
     "NumPy array interface, version 3 (host backend only).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

