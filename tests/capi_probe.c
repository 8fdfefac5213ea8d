/*
 * A test extension over devarray's C API (devarray.h): each function calls
 * one API function and reports what it got, so tests/test_capi.py can check
 * the API from Python.  Plain C, no CUDA: it runs on machines without a GPU.
 */
#include "devarray.h"

#include <time.h>

/* view_info(obj, flags=0): the fields of DevArray_GetView's view, as a dict. */
static PyObject *
probe_view_info(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *obj, *shape = NULL, *strides = NULL, *result = NULL;
    DevArray_View view;
    int flags = 0, i;

    if (!PyArg_ParseTuple(args, "O|i", &obj, &flags)) {
        return NULL;
    }
    if (DevArray_GetView(obj, &view, flags) < 0) {
        return NULL;
    }
    shape = PyTuple_New(view.ndim);
    strides = PyTuple_New(view.ndim);
    if (shape == NULL || strides == NULL) {
        goto error;
    }
    for (i = 0; i < view.ndim; i++) {
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(view.shape[i]));
        PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(view.strides[i]));
    }
    result = Py_BuildValue(
        "{s:K,s:i,s:O,s:O,s:i,s:L,s:L,s:i,s:K,s:O,s:O,s:O}", "data",
        (unsigned long long)(uintptr_t)view.data, "ndim", view.ndim, "shape", shape,
        "strides", strides, "dtype", view.dtype, "itemsize", (long long)view.itemsize,
        "size", (long long)view.size, "device", view.device, "stream",
        (unsigned long long)(uintptr_t)view.stream, "readonly",
        view.readonly ? Py_True : Py_False, "is_obj", view.obj == obj ? Py_True : Py_False,
        "holder", view.obj);
error:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    DevArray_ReleaseView(&view);
    return result;
}

/* release_twice(obj): GetView, then ReleaseView twice (the second must do
   nothing); returns the view's holder refcount change, which must be 0. */
static PyObject *
probe_release_twice(PyObject *Py_UNUSED(module), PyObject *obj)
{
    DevArray_View view;
    Py_ssize_t before = Py_REFCNT(obj);
    if (DevArray_GetView(obj, &view, 0) < 0) {
        return NULL;
    }
    DevArray_ReleaseView(&view);
    DevArray_ReleaseView(&view);
    return PyLong_FromSsize_t(Py_REFCNT(obj) - before);
}

/* null_view(obj): GetView into a NULL view pointer (must raise). */
static PyObject *
probe_null_view(PyObject *Py_UNUSED(module), PyObject *obj)
{
    if (DevArray_GetView(obj, NULL, 0) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The extents of the tuple `shape_obj` into `shape` (room for 40: more than
   DEVARRAY_MAXDIMS, so that the API's own check is what refuses too many);
   the count, or -1 with an exception. */
static int
probe_shape(PyObject *shape_obj, int64_t *shape)
{
    int ndim, i;
    if (!PyTuple_Check(shape_obj) || PyTuple_GET_SIZE(shape_obj) > 40) {
        PyErr_SetString(PyExc_ValueError, "probe: shape must be a tuple of at most 40");
        return -1;
    }
    ndim = (int)PyTuple_GET_SIZE(shape_obj);
    for (i = 0; i < ndim; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, i));
    }
    return PyErr_Occurred() ? -1 : ndim;
}

/* empty(shape, dtype): DevArray_Empty; shape None passes a NULL pointer
   with ndim given by a third argument. */
static PyObject *
probe_empty(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *shape_obj;
    int64_t shape[40];
    int dtype, ndim = 0;
    if (!PyArg_ParseTuple(args, "Oi|i", &shape_obj, &dtype, &ndim)) {
        return NULL;
    }
    if (shape_obj == Py_None) {
        return DevArray_Empty(ndim, NULL, dtype);
    }
    ndim = probe_shape(shape_obj, shape);
    return ndim < 0 ? NULL : DevArray_Empty(ndim, shape, dtype);
}

/* empty_on(shape, dtype, device): DevArray_EmptyOn. */
static PyObject *
probe_empty_on(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *shape_obj;
    int64_t shape[40];
    int dtype, device, ndim;
    if (!PyArg_ParseTuple(args, "Oii", &shape_obj, &dtype, &device)) {
        return NULL;
    }
    ndim = probe_shape(shape_obj, shape);
    return ndim < 0 ? NULL : DevArray_EmptyOn(ndim, shape, dtype, device);
}

/* wrap(owner, data, shape, strides_or_None, dtype, device, readonly). */
static PyObject *
probe_wrap(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *owner, *shape_obj, *strides_obj;
    unsigned long long data;
    int64_t shape[DEVARRAY_MAXDIMS], strides[DEVARRAY_MAXDIMS];
    int dtype, device, readonly, ndim, i;
    if (!PyArg_ParseTuple(args, "OKO!Oiii", &owner, &data, &PyTuple_Type, &shape_obj,
                          &strides_obj, &dtype, &device, &readonly)) {
        return NULL;
    }
    ndim = (int)PyTuple_GET_SIZE(shape_obj);
    if (ndim > DEVARRAY_MAXDIMS) {
        ndim = DEVARRAY_MAXDIMS + 1; /* let the API refuse it */
    }
    for (i = 0; i < ndim && i < DEVARRAY_MAXDIMS; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, i));
        strides[i] = strides_obj == Py_None
                         ? 0
                         : PyLong_AsLongLong(PySequence_Fast_GET_ITEM(strides_obj, i));
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    return DevArray_Wrap((void *)(uintptr_t)data, ndim, shape,
                         strides_obj == Py_None ? NULL : strides, dtype, device,
                         owner == Py_None ? NULL : owner, readonly);
}

static PyObject *
probe_check(PyObject *Py_UNUSED(module), PyObject *obj)
{
    return PyBool_FromLong(DevArray_Check(obj));
}

static PyObject *
probe_current_stream(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    return PyLong_FromVoidPtr(DevArray_CurrentStream());
}

static PyObject *
probe_set_cuda_error(PyObject *Py_UNUSED(module), PyObject *args)
{
    int error;
    const char *call;
    if (!PyArg_ParseTuple(args, "is", &error, &call)) {
        return NULL;
    }
    return DevArray_SetCUDAError(error, call);
}

static PyObject *
probe_type(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    return Py_NewRef((PyObject *)DevArray_API->DeviceArrayType);
}

/* time_views(obj, n): nanoseconds per GetView + ReleaseView pair, timed in
   C over n pairs (for bench/, not for tests). */
static PyObject *
probe_time_views(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *obj;
    long n, i;
    struct timespec start, stop;
    DevArray_View view;
    if (!PyArg_ParseTuple(args, "Ol", &obj, &n) || n <= 0) {
        return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "n must be > 0");
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (i = 0; i < n; i++) {
        if (DevArray_GetView(obj, &view, 0) < 0) {
            return NULL;
        }
        DevArray_ReleaseView(&view);
    }
    clock_gettime(CLOCK_MONOTONIC, &stop);
    return PyFloat_FromDouble(((double)(stop.tv_sec - start.tv_sec) * 1e9 +
                               (double)(stop.tv_nsec - start.tv_nsec)) /
                              (double)n);
}

static PyMethodDef probe_methods[] = {
    {"view_info", probe_view_info, METH_VARARGS, NULL},
    {"release_twice", probe_release_twice, METH_O, NULL},
    {"null_view", probe_null_view, METH_O, NULL},
    {"empty", probe_empty, METH_VARARGS, NULL},
    {"empty_on", probe_empty_on, METH_VARARGS, NULL},
    {"wrap", probe_wrap, METH_VARARGS, NULL},
    {"check", probe_check, METH_O, NULL},
    {"current_stream", probe_current_stream, METH_NOARGS, NULL},
    {"set_cuda_error", probe_set_cuda_error, METH_VARARGS, NULL},
    {"device_array_type", probe_type, METH_NOARGS, NULL},
    {"time_views", probe_time_views, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef probe_module = {
    PyModuleDef_HEAD_INIT, "capi_probe", NULL, -1, probe_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit_capi_probe(void)
{
    if (import_devarray() < 0) {
        return NULL;
    }
    return PyModule_Create(&probe_module);
}
