/*
 * The DeviceArray type: construction, attributes, views, interfaces.
 * The ownership rules are at the top of array.h.
 *
 * The type is static and not subclassable: the number slots identify their
 * operands with one pointer comparison and the per-op path never searches
 * a module state (see module.c for why the module is single-phase).
 */
#include "array.h"

#include <stddef.h>

#include "convert.h"
#include "device.h"
#include "dlpack.h"
#include "dtype.h"
#include "elementwise.h"
#include "number.h"
#include "pool.h"
#include "reduce.h"
#include "transfer.h"

PyObject *array_AxisError = NULL;

/* ---- construction ------------------------------------------------------ */

int64_t
array_shape_size(int ndim, const int64_t *shape, int itemsize)
{
    int64_t size = 1, nbytes = itemsize;
    int i, empty = 0;

    if (ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d, found %d",
                     DA_MAXDIMS, ndim);
        return -1;
    }
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            PyErr_Format(PyExc_ValueError,
                         "negative dimensions are not allowed (dimension %d "
                         "is %lld)",
                         i, (long long)shape[i]);
            return -1;
        }
        /* as NumPy: the non-zero extents must fit even when another is
           zero, so that strides computed from them cannot overflow */
        if (shape[i] == 0) {
            empty = 1;
            continue;
        }
        if (nbytes > INT64_MAX / shape[i]) {
            PyErr_SetString(PyExc_ValueError,
                            "array is too big; `arr.size * arr.dtype.itemsize` "
                            "is larger than the maximum possible size");
            return -1;
        }
        nbytes *= shape[i];
        size *= shape[i];
    }
    return empty ? 0 : size;
}

static DeviceArrayObject *
array_alloc(int ndim)
{
    DeviceArrayObject *a =
        PyObject_NewVar(DeviceArrayObject, &DeviceArray_Type, 2 * ndim);
    if (a == NULL) {
        return NULL;
    }
    a->data = NULL;
    a->alloc = NULL;
    a->base = NULL;
    a->weakreflist = NULL;
    a->ndim = ndim;
    a->flags = 0;
    return a;
}

static void
array_set_c_strides(DeviceArrayObject *a)
{
    int64_t stride = DA_ITEMSIZE(a);
    int i;
    for (i = a->ndim - 1; i >= 0; i--) {
        DA_STRIDES(a)[i] = stride;
        stride *= DA_SHAPE(a)[i] > 0 ? DA_SHAPE(a)[i] : 1;
    }
}

DeviceArrayObject *
array_new(int backend, int typenum, int ndim, const int64_t *shape)
{
    DeviceArrayObject *a = array_new_view(backend, device_current(backend), typenum,
                                          ndim, shape, NULL, NULL, NULL, 0);
    if (a == NULL) {
        return NULL;
    }
    a->alloc = pool_malloc(backend, (size_t)DA_NBYTES(a));
    if (a->alloc == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    a->data = a->alloc;
    return a;
}

DeviceArrayObject *
array_new_view(int backend, int device, int typenum, int ndim,
               const int64_t *shape, const int64_t *strides, char *data,
               PyObject *base, int flags)
{
    DeviceArrayObject *a;
    int64_t size = array_shape_size(ndim, shape, da_itemsize(typenum));

    if (size < 0) {
        return NULL;
    }
    a = array_alloc(ndim);
    if (a == NULL) {
        return NULL;
    }
    a->typenum = typenum;
    a->backend = backend;
    a->device = device;
    a->size = size;
    a->flags = flags;
    a->data = data;
    if (ndim > 0) {
        memcpy(DA_SHAPE(a), shape, sizeof(int64_t) * (size_t)ndim);
    }
    if (strides == NULL) {
        array_set_c_strides(a);
    }
    else if (ndim > 0) {
        memcpy(DA_STRIDES(a), strides, sizeof(int64_t) * (size_t)ndim);
    }
    Py_XINCREF(base);
    a->base = base;
    return a;
}

/* The object a view of `a` must keep alive: the owner of the memory. */
static PyObject *
array_owner(DeviceArrayObject *a)
{
    return a->alloc != NULL || a->base == NULL ? (PyObject *)a : a->base;
}

static DeviceArrayObject *
array_view_of(DeviceArrayObject *a, int ndim, const int64_t *shape,
              const int64_t *strides, char *data)
{
    return array_new_view(a->backend, a->device, a->typenum, ndim, shape,
                          strides, data, array_owner(a), a->flags);
}

int
array_is_c_contiguous(const DeviceArrayObject *a)
{
    int64_t expected = DA_ITEMSIZE(a);
    int i;
    if (a->size == 0) {
        return 1;
    }
    for (i = a->ndim - 1; i >= 0; i--) {
        if (DA_SHAPE(a)[i] != 1) {
            if (DA_STRIDES(a)[i] != expected) {
                return 0;
            }
            expected *= DA_SHAPE(a)[i];
        }
    }
    return 1;
}

DeviceArrayObject *
array_contiguous_as(DeviceArrayObject *a, int typenum)
{
    DeviceArrayObject *result;
    if (a->typenum == typenum && array_is_c_contiguous(a)) {
        Py_INCREF(a);
        return a;
    }
    result = array_new(a->backend, typenum, a->ndim, DA_SHAPE(a));
    if (result == NULL) {
        return NULL;
    }
    if (elementwise_copy(result, a) < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

DeviceArrayObject *
array_cast(DeviceArrayObject *a, int typenum)
{
    DeviceArrayObject *result = array_new(a->backend, typenum, a->ndim, DA_SHAPE(a));
    if (result != NULL && elementwise_copy(result, a) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

PyObject *
array_to_backend(DeviceArrayObject *a, int typenum, int backend)
{
    DeviceArrayObject *contiguous = NULL, *moved = NULL;
    PyObject *result = NULL;
    void *staging = NULL;
    size_t nbytes;

    if (typenum < 0) {
        typenum = a->typenum;
    }
    if (a->backend == backend) {
        return (PyObject *)array_cast(a, typenum);
    }
    contiguous = array_contiguous_as(a, a->typenum);
    if (contiguous == NULL) {
        goto error;
    }
    moved = array_new(backend, a->typenum, a->ndim, DA_SHAPE(a));
    if (moved == NULL) {
        goto error;
    }
    nbytes = (size_t)DA_NBYTES(a);
    staging = pool_malloc(DA_BACKEND_HOST, nbytes);
    if (staging == NULL ||
        transfer_copy(contiguous->backend, staging, contiguous->data, nbytes,
                      DA_COPY_D2H) < 0 ||
        transfer_copy(backend, moved->data, staging, nbytes, DA_COPY_H2D) < 0) {
        goto error;
    }
    result = typenum == a->typenum ? (PyObject *)moved
                                   : (PyObject *)array_cast(moved, typenum);
    if (result != (PyObject *)moved) {
        Py_DECREF(moved);
    }
    moved = NULL;
error:
    pool_free(DA_BACKEND_HOST, staging);
    Py_XDECREF(moved);
    Py_XDECREF(contiguous);
    return result;
}

static void
array_dealloc(DeviceArrayObject *self)
{
    if (self->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    if (self->alloc != NULL) {
        pool_free(self->backend, self->alloc);
    }
    Py_XDECREF(self->base);
    PyObject_Free(self);
}

/* ---- attributes ---------------------------------------------------------- */

PyObject *
array_int64_tuple(int n, const int64_t *values)
{
    PyObject *tuple = PyTuple_New(n);
    int i;
    if (tuple == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = PyLong_FromLongLong(values[i]);
        if (item == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

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
    PyObject *dtype = dtype_object(self->typenum);
    Py_INCREF(dtype);
    return dtype;
}

static PyObject *
array_get_device(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(self->device);
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
array_transposed(DeviceArrayObject *self, const int *axes)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    int i;
    for (i = 0; i < self->ndim; i++) {
        shape[i] = DA_SHAPE(self)[axes[i]];
        strides[i] = DA_STRIDES(self)[axes[i]];
    }
    return (PyObject *)array_view_of(self, self->ndim, shape, strides,
                                     self->data);
}

static PyObject *
array_get_T(DeviceArrayObject *self, void *Py_UNUSED(closure))
{
    int axes[DA_MAXDIMS], i;
    for (i = 0; i < self->ndim; i++) {
        axes[i] = self->ndim - 1 - i;
    }
    return array_transposed(self, axes);
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
        /* all work is queued on the legacy default stream, which the
           interface names 1 */
        PyObject *stream = PyLong_FromLong(1);
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

static PyGetSetDef array_getset[] = {
    {"shape", (getter)array_get_shape, NULL, "Tuple of array dimensions.", NULL},
    {"strides", (getter)array_get_strides, NULL,
     "Tuple of bytes to step in each dimension.", NULL},
    {"ndim", (getter)array_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)array_get_size, NULL, "Number of elements.", NULL},
    {"nbytes", (getter)array_get_nbytes, NULL, "Bytes of the elements.", NULL},
    {"itemsize", (getter)array_get_itemsize, NULL, "Bytes per element.", NULL},
    {"dtype", (getter)array_get_dtype, NULL, "The element type.", NULL},
    {"device", (getter)array_get_device, NULL,
     "CUDA device id (0 on the host backend).", NULL},
    {"ptr", (getter)array_get_ptr, NULL,
     "Address of the first element (0 when empty).", NULL},
    {"base", (getter)array_get_base, NULL,
     "The object whose memory this array borrows, or None.", NULL},
    {"readonly", (getter)array_get_readonly, NULL,
     "Whether writes into the array are refused.", NULL},
    {"T", (getter)array_get_T, NULL, "The transposed view.", NULL},
    {"__cuda_array_interface__", (getter)array_get_cuda_array_interface, NULL,
     "CUDA Array Interface, version 3 (CUDA backend only).", NULL},
    {"__array_interface__", (getter)array_get_array_interface, NULL,
     "NumPy array interface, version 3 (host backend only).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- indexing ------------------------------------------------------------- */

static Py_ssize_t
array_length(DeviceArrayObject *self)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)DA_SHAPE(self)[0];
}

/* Basic indexing: integers, slices, one Ellipsis and None, as NumPy. */
static PyObject *
array_subscript(DeviceArrayObject *self, PyObject *key)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    char *data = self->data;
    PyObject *items = NULL, *result = NULL;
    Py_ssize_t nitems, i;
    int consumed = 0, ellipses = 0, src = 0, dst = 0;

    if (PyTuple_Check(key)) {
        items = key;
        Py_INCREF(items);
    }
    else {
        items = PyTuple_Pack(1, key);
        if (items == NULL) {
            return NULL;
        }
    }
    nitems = PyTuple_GET_SIZE(items);
    for (i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (item == Py_Ellipsis) {
            ellipses++;
        }
        else if (item != Py_None) {
            consumed++;
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError,
                        "an index can only have a single ellipsis ('...')");
        goto error;
    }
    if (consumed > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, "
                     "but %d were indexed",
                     self->ndim, consumed);
        goto error;
    }
    for (i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (dst >= DA_MAXDIMS && (item == Py_None || PySlice_Check(item))) {
            PyErr_Format(PyExc_IndexError,
                         "indexing would give more than %d dimensions",
                         DA_MAXDIMS);
            goto error;
        }
        if (item == Py_None) {
            shape[dst] = 1;
            strides[dst] = 0;
            dst++;
        }
        else if (item == Py_Ellipsis) {
            int skip = self->ndim - consumed;
            if (dst + skip > DA_MAXDIMS) {
                PyErr_Format(PyExc_IndexError,
                             "indexing would give more than %d dimensions",
                             DA_MAXDIMS);
                goto error;
            }
            for (; skip > 0; skip--, src++, dst++) {
                shape[dst] = DA_SHAPE(self)[src];
                strides[dst] = DA_STRIDES(self)[src];
            }
        }
        else if (PySlice_Check(item)) {
            Py_ssize_t start, stop, step, length;
            if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
                goto error;
            }
            length = PySlice_AdjustIndices((Py_ssize_t)DA_SHAPE(self)[src],
                                           &start, &stop, step);
            if (length > 0) {
                data += start * DA_STRIDES(self)[src];
            }
            shape[dst] = length;
            strides[dst] = (int64_t)((uint64_t)DA_STRIDES(self)[src] * (uint64_t)step);
            src++;
            dst++;
        }
        else if (!PyBool_Check(item) && PyIndex_Check(item)) {
            Py_ssize_t index = PyNumber_AsSsize_t(item, PyExc_IndexError);
            int64_t extent = DA_SHAPE(self)[src];
            if (index == -1 && PyErr_Occurred()) {
                goto error;
            }
            if (index < -extent || index >= extent) {
                PyErr_Format(PyExc_IndexError,
                             "index %zd is out of bounds for axis %d with "
                             "size %lld",
                             index, src, (long long)extent);
                goto error;
            }
            if (index < 0) {
                index += (Py_ssize_t)extent;
            }
            data += index * DA_STRIDES(self)[src];
            src++;
        }
        else {
            PyErr_Format(PyExc_IndexError,
                         "only integers, slices (`:`), ellipsis (`...`) and "
                         "None are valid indices, not %.200s",
                         Py_TYPE(item)->tp_name);
            goto error;
        }
    }
    for (; src < self->ndim; src++, dst++) {
        if (dst >= DA_MAXDIMS) {
            PyErr_Format(PyExc_IndexError,
                         "indexing would give more than %d dimensions",
                         DA_MAXDIMS);
            goto error;
        }
        shape[dst] = DA_SHAPE(self)[src];
        strides[dst] = DA_STRIDES(self)[src];
    }
    result = (PyObject *)array_view_of(self, dst, shape, strides, data);
error:
    Py_DECREF(items);
    return result;
}

/* ---- methods -------------------------------------------------------------- */

static PyObject *
array_to_host(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"out", NULL};
    PyObject *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:to_host", kwlist, &out)) {
        return NULL;
    }
    return convert_to_host(self, out);
}

static PyObject *
array_tolist(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return convert_tolist(self);
}

static PyObject *
array_item(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return convert_item(self);
}

static PyObject *
array_sum(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axis", "dtype", "keepdims", NULL};
    PyObject *axis = Py_None;
    int typenum = -1, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO&p:sum", kwlist, &axis,
                                     dtype_converter_optional, &typenum,
                                     &keepdims)) {
        return NULL;
    }
    return reduce_sum(self, axis, typenum, keepdims);
}

static PyObject *
array_copy(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return (PyObject *)array_cast(self, self->typenum);
}

static PyObject *
array_astype(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    int typenum, copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|p:astype", kwlist,
                                     dtype_converter_optional, &typenum,
                                     &copy)) {
        return NULL;
    }
    if (typenum < 0) {
        PyErr_SetString(PyExc_TypeError, "astype() needs a dtype, not None");
        return NULL;
    }
    if (!copy && typenum == self->typenum) {
        Py_INCREF(self);
        return (PyObject *)self;
    }
    return (PyObject *)array_cast(self, typenum);
}

int
array_parse_shape(PyObject *obj, int64_t *shape)
{
    PyObject *seq;
    Py_ssize_t n, i;
    if (PyIndex_Check(obj)) {
        long long value = PyLong_AsLongLong(obj);
        if (value == -1 && PyErr_Occurred()) {
            return -1;
        }
        shape[0] = value;
        return 1;
    }
    seq = PySequence_Fast(obj, "shape must be an int or a sequence of ints");
    if (seq == NULL) {
        return -1;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    if (n > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d, found %zd",
                     DA_MAXDIMS, n);
        goto error;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        long long value;
        if (!PyIndex_Check(item)) {
            PyErr_Format(PyExc_TypeError,
                         "shape entries must be integers, not %.200s",
                         Py_TYPE(item)->tp_name);
            goto error;
        }
        value = PyLong_AsLongLong(item);
        if (value == -1 && PyErr_Occurred()) {
            goto error;
        }
        shape[i] = value;
    }
    Py_DECREF(seq);
    return (int)n;
error:
    Py_DECREF(seq);
    return -1;
}

static PyObject *
array_reshape(DeviceArrayObject *self, PyObject *args)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS], known = 1, stride;
    int ndim, i, unknown = -1;
    DeviceArrayObject *contiguous = NULL;
    PyObject *result = NULL, *shape_tuple;

    ndim = array_parse_shape(PyTuple_GET_SIZE(args) == 1
                                 ? PyTuple_GET_ITEM(args, 0)
                                 : args,
                             shape);
    if (ndim < 0) {
        return NULL;
    }
    for (i = 0; i < ndim; i++) {
        if (shape[i] == -1 && unknown < 0) {
            unknown = i;
        }
        else if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError,
                            unknown >= 0 && shape[i] == -1
                                ? "can only specify one unknown dimension"
                                : "negative dimensions not allowed");
            return NULL;
        }
        else {
            known = shape[i] != 0 && known > INT64_MAX / shape[i] ? -1
                                                                  : known * shape[i];
        }
    }
    if (unknown >= 0) {
        /* known == 0 leaves the unknown extent undetermined: an error */
        if (known > 0 && self->size % known == 0) {
            shape[unknown] = self->size / known;
            known = self->size;
        }
        else {
            known = -1;
        }
    }
    if (known != self->size) {
        if (unknown >= 0) {
            shape[unknown] = -1;
        }
        shape_tuple = array_int64_tuple(ndim, shape);
        if (shape_tuple != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "cannot reshape array of size %lld into shape %R",
                         (long long)self->size, shape_tuple);
            Py_DECREF(shape_tuple);
        }
        return NULL;
    }
    if (array_shape_size(ndim, shape, DA_ITEMSIZE(self)) < 0) {
        return NULL;
    }
    contiguous = array_contiguous_as(self, self->typenum);
    if (contiguous == NULL) {
        return NULL;
    }
    stride = DA_ITEMSIZE(self);
    for (i = ndim - 1; i >= 0; i--) {
        strides[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
    result = (PyObject *)array_view_of(contiguous, ndim, shape, strides,
                                       contiguous->data);
    Py_DECREF(contiguous);
    return result;
}

/* Normalise axis `value` for `ndim` dimensions, as NumPy: -ndim <= axis < ndim. */
int
array_normalize_axis(PyObject *value, int ndim, int *axis)
{
    long v;
    if (!PyIndex_Check(value) || PyBool_Check(value)) {
        PyErr_Format(PyExc_TypeError, "an axis must be an integer, not %.200s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v < -ndim || v >= ndim) {
        PyErr_Format(array_AxisError,
                     "axis %ld is out of bounds for array of dimension %d", v,
                     ndim);
        return -1;
    }
    *axis = (int)(v < 0 ? v + ndim : v);
    return 0;
}

static PyObject *
array_transpose(DeviceArrayObject *self, PyObject *args)
{
    int axes[DA_MAXDIMS], seen[DA_MAXDIMS] = {0}, i;
    PyObject *seq = args;
    Py_ssize_t n = PyTuple_GET_SIZE(args);

    if (n == 0 || (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None)) {
        return array_get_T(self, NULL);
    }
    if (n == 1 && !PyIndex_Check(PyTuple_GET_ITEM(args, 0))) {
        seq = PyTuple_GET_ITEM(args, 0);
    }
    seq = PySequence_Fast(seq, "axes must be a sequence of ints");
    if (seq == NULL) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(seq) != self->ndim) {
        PyErr_SetString(PyExc_ValueError, "axes don't match array");
        goto error;
    }
    for (i = 0; i < self->ndim; i++) {
        if (array_normalize_axis(PySequence_Fast_GET_ITEM(seq, i), self->ndim,
                                 &axes[i]) < 0) {
            goto error;
        }
        if (seen[axes[i]]++) {
            PyErr_SetString(PyExc_ValueError, "repeated axis in transpose");
            goto error;
        }
    }
    Py_DECREF(seq);
    return array_transposed(self, axes);
error:
    Py_DECREF(seq);
    return NULL;
}

static PyObject *
array_array(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None, *host = NULL, *result;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:__array__", kwlist,
                                     &dtype, &copy)) {
        return NULL;
    }
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "a DeviceArray cannot be exposed to NumPy without a "
                        "copy (its memory is on the device); use copy=None "
                        "or copy=True");
        return NULL;
    }
    host = convert_to_host(self, Py_None);
    if (host == NULL || dtype == Py_None) {
        return host;
    }
    result = PyObject_CallMethod(host, "astype", "O", dtype);
    Py_DECREF(host);
    return result;
}

static PyObject *
array_readonly_view(PyObject *Py_UNUSED(module), PyObject *arg)
{
    DeviceArrayObject *self = (DeviceArrayObject *)arg, *view;
    if (!DeviceArray_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a DeviceArray");
        return NULL;
    }
    view = array_view_of(self, self->ndim, DA_SHAPE(self), DA_STRIDES(self),
                         self->data);
    if (view != NULL) {
        view->flags |= DA_FLAG_READONLY;
    }
    return (PyObject *)view;
}

static PyMethodDef array_methods[] = {
    {"to_host", (PyCFunction)(void (*)(void))array_to_host,
     METH_VARARGS | METH_KEYWORDS,
     "to_host($self, /, out=None)\n--\n\nCopy to host memory: a numpy.ndarray (a "
     "memoryview without NumPy), or into the writable buffer `out`."},
    {"tolist", (PyCFunction)array_tolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nThe values as nested Python lists."},
    {"item", (PyCFunction)array_item, METH_NOARGS,
     "item($self, /)\n--\n\nThe value of a size-1 array as a Python scalar."},
    {"sum", (PyCFunction)(void (*)(void))array_sum,
     METH_VARARGS | METH_KEYWORDS,
     "sum($self, /, axis=None, dtype=None, keepdims=False)\n--\n\nSum of the elements "
     "over the given axes, on the device."},
    {"copy", (PyCFunction)array_copy, METH_NOARGS,
     "copy($self, /)\n--\n\nA C-contiguous copy on the same backend."},
    {"astype", (PyCFunction)(void (*)(void))array_astype,
     METH_VARARGS | METH_KEYWORDS,
     "astype($self, /, dtype, copy=True)\n--\n\nA copy cast to dtype."},
    {"reshape", (PyCFunction)array_reshape, METH_VARARGS,
     "reshape($self, /, *shape)\n--\n\nA view with a new shape (a copy when the array "
     "is not C-contiguous)."},
    {"transpose", (PyCFunction)array_transpose, METH_VARARGS,
     "transpose($self, /, *axes)\n--\n\nA view with the axes permuted."},
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack_export,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, "
     "copy=None)"
     "\n--\n\nExport as a DLPack capsule, ordered before the consumer's "
     "stream."},
    {"__dlpack_device__", (PyCFunction)dlpack_export_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n(device_type, device_id) as DLPack names "
     "them."},
    {"__complex__", (PyCFunction)number_complex, METH_NOARGS,
     "complex(a) for a size-1 array."},
    {"__array__", (PyCFunction)(void (*)(void))array_array,
     METH_VARARGS | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\nA NumPy copy of the array."},
    {NULL, NULL, 0, NULL},
};

/* Private helpers for tests. */
static PyMethodDef array_module_methods[] = {
    {"_readonly_view", array_readonly_view, METH_O,
     "A read-only view of a DeviceArray (for tests)."},
    {NULL, NULL, 0, NULL},
};

static PyObject *
array_repr(DeviceArrayObject *self)
{
    return convert_repr(self, 1);
}

static PyObject *
array_str(DeviceArrayObject *self)
{
    return convert_repr(self, 0);
}

static PyMappingMethods array_as_mapping = {
    .mp_length = (lenfunc)array_length,
    .mp_subscript = (binaryfunc)array_subscript,
};

PyTypeObject DeviceArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.DeviceArray",
    .tp_basicsize = offsetof(DeviceArrayObject, dims),
    .tp_itemsize = sizeof(int64_t),
    .tp_dealloc = (destructor)array_dealloc,
    .tp_repr = (reprfunc)array_repr,
    .tp_str = (reprfunc)array_str,
    /* number */
    .tp_as_number = &number_as_number,
    /* mapping */
    .tp_as_mapping = &array_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An N-dimensional array in device memory (or host memory on the "
              "host backend).\n\nMake one with devarray.to_device, asarray, "
              "empty, zeros, ones or full.",
    .tp_weaklistoffset = offsetof(DeviceArrayObject, weakreflist),
    .tp_methods = array_methods,
    .tp_getset = array_getset,
};

int
array_module_init(PyObject *module)
{
    PyObject *bases;
    if (PyType_Ready(&DeviceArray_Type) < 0) {
        return -1;
    }
    /* NumPy defers binary operators to an operand whose __array_ufunc__ is
       None, so `numpy_array + d` raises TypeError instead of silently copying
       d to the host through __array__. */
    if (PyDict_SetItemString(DeviceArray_Type.tp_dict, "__array_ufunc__",
                             Py_None) < 0) {
        return -1;
    }
    PyType_Modified(&DeviceArray_Type);
    /* NumPy's AxisError is both a ValueError and an IndexError */
    bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_IndexError);
    if (bases == NULL) {
        return -1;
    }
    array_AxisError = PyErr_NewExceptionWithDoc(
        "devarray.AxisError", "An axis argument is out of range.", bases, NULL);
    Py_DECREF(bases);
    if (array_AxisError == NULL ||
        PyModule_AddObjectRef(module, "AxisError", array_AxisError) < 0) {
        return -1;
    }
    if (PyModule_AddObjectRef(module, "DeviceArray",
                              (PyObject *)&DeviceArray_Type) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, array_module_methods);
}
