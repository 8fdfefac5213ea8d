/*
 * The DeviceArray object, the bottom layer every other file may use:
 * allocation, the constructors of new arrays and of views, contiguity,
 * shape and axis helpers, deallocation.  The ownership rules are at the top
 * of array.h.
 *
 * The type object is defined here with what the object itself needs (size,
 * deallocation, weak references); its protocol, method and attribute tables
 * belong to the layer above and are filled in by arraytype.c before the type
 * is readied, so nothing here calls up into them.
 *
 * The type is static and not subclassable: the number slots identify their
 * operands with one pointer comparison and the per-op path never searches
 * a module state (see module.c for why the module is single-phase).
 */
#include "core/array.h"
#include "runtime/pool.h"
#include "runtime/stream.h"

#include <stddef.h>

#include "runtime/backend.h"
#include "runtime/device.h"

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
    a->birth = 0;
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
    DeviceArrayObject *a = array_new_view(backend, device_active(backend), typenum,
                                          ndim, shape, NULL, NULL, NULL, 0);
    if (a == NULL) {
        return NULL;
    }
    a->alloc = pool_malloc(backend, (size_t)DA_NBYTES(a));
    if (a->alloc == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    a->birth = stream_clock();
    a->data = a->alloc;
    return a;
}

DeviceArrayObject *
array_new_ordered(int backend, int typenum, int ndim, const int64_t *shape,
                  const int *order)
{
    DeviceArrayObject *a = array_new(backend, typenum, ndim, shape);
    int64_t stride;
    int i;

    if (a == NULL || order == NULL) {
        return a;
    }
    /* the same rule as array_set_c_strides, axis by axis in `order` */
    stride = DA_ITEMSIZE(a);
    for (i = ndim - 1; i >= 0; i--) {
        DA_STRIDES(a)[order[i]] = stride;
        stride *= DA_SHAPE(a)[order[i]] > 0 ? DA_SHAPE(a)[order[i]] : 1;
    }
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

DeviceArrayObject *
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


static void
array_dealloc(DeviceArrayObject *self)
{
    if (self->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    if (self->alloc != NULL) {
        pool_free_array(self->backend, self->device, self->alloc,
                        (size_t)DA_NBYTES(self), self->birth);
    }
    Py_XDECREF(self->base);
    PyObject_Free(self);
}

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


DeviceArrayObject *
array_transposed(DeviceArrayObject *a, const int *axes)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    int i;
    for (i = 0; i < a->ndim; i++) {
        const int axis = axes != NULL ? axes[i] : a->ndim - 1 - i;
        shape[i] = DA_SHAPE(a)[axis];
        strides[i] = DA_STRIDES(a)[axis];
    }
    return array_view_of(a, a->ndim, shape, strides, a->data);
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

int
array_normalize_axes(PyObject *seq, int ndim, const char *repeated, int *axes)
{
    int seen[DA_MAXDIMS] = {0}, value;
    PyObject *fast;
    Py_ssize_t n, i;

    fast = PySequence_Fast(seq, "axes must be a sequence of ints");
    if (fast == NULL) {
        return -1;
    }
    n = PySequence_Fast_GET_SIZE(fast);
    /* NumPy's order (normalize_axis_tuple): every axis in range first, so
       an out-of-range axis is an AxisError even after a repeated one */
    for (i = 0; i < n; i++) {
        if (array_normalize_axis(PySequence_Fast_GET_ITEM(fast, i), ndim, &value) < 0) {
            goto error;
        }
    }
    for (i = 0; i < n; i++) {
        if (array_normalize_axis(PySequence_Fast_GET_ITEM(fast, i), ndim, &value) < 0) {
            goto error;
        }
        /* checked before storing: at most ndim <= DA_MAXDIMS are stored */
        if (seen[value]++) {
            PyErr_SetString(PyExc_ValueError, repeated);
            goto error;
        }
        axes[i] = value;
    }
    Py_DECREF(fast);
    return (int)n;
error:
    Py_DECREF(fast);
    return -1;
}

/* ---- memory and place -------------------------------------------------- */

int
array_memory_overlap(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    const DeviceArrayObject *arrays[2] = {a, b};
    const char *lo[2], *hi[2];
    int k, i;

    /* addresses of different backends are in different memory spaces */
    if (a->size == 0 || b->size == 0 || a->backend != b->backend) {
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

/* a's place as str(Device) spells it: 'cuda:1', 'host' */
static void
array_place_name(const DeviceArrayObject *a, char *buf, size_t size)
{
    if (a->backend == DA_BACKEND_CUDA) {
        snprintf(buf, size, "cuda:%d", a->device);
    }
    else {
        snprintf(buf, size, "%s", backend_name(a->backend));
    }
}

int
array_check_same_place(const char *func, const DeviceArrayObject *a,
                       const DeviceArrayObject *b)
{
    if (a->backend != b->backend || a->device != b->device) {
        char pa[32], pb[32];
        array_place_name(a, pa, sizeof pa);
        array_place_name(b, pb, sizeof pb);
        PyErr_Format(PyExc_ValueError,
                     "%s(): operands are on different backends or devices, "
                     "%s and %s: move one with x.to_device(...)",
                     func, pa, pb);
        return -1;
    }
    return array_activate(a);
}

int
array_activate(const DeviceArrayObject *a)
{
    return device_activate(a->backend, a->device);
}

PyTypeObject DeviceArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.DeviceArray",
    .tp_basicsize = offsetof(DeviceArrayObject, dims),
    .tp_itemsize = sizeof(int64_t),
    .tp_dealloc = (destructor)array_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An N-dimensional array in device memory (or host memory on the "
              "host backend).\n\nMake one with devarray.to_device, asarray, "
              "empty, zeros, ones or full.",
    .tp_weaklistoffset = offsetof(DeviceArrayObject, weakreflist),
};

int
array_module_init(PyObject *module)
{
    PyObject *bases;
    /* NumPy's AxisError is both a ValueError and an IndexError */
    bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_IndexError);
    if (bases == NULL) {
        return -1;
    }
    array_AxisError = PyErr_NewExceptionWithDoc(
        "devarray.AxisError", "An axis argument is out of range.", bases, NULL);
    Py_DECREF(bases);
    if (array_AxisError == NULL) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "AxisError", array_AxisError);
}
