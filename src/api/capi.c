/*
 * devarray's C API: the table behind the capsule devarray._core._C_API,
 * declared in devarray/include/devarray.h (docs/c-api.md).
 *
 * Ownership: a view holds one strong reference, in view->obj, to a
 * DeviceArray: the argument itself, or the view devarray made of a foreign
 * array (which keeps the producer alive through its base, or owns the
 * producer's DLPack tensor).  shape and strides point into that array, so
 * they live exactly as long as the view.  DevArray_ReleaseView drops the
 * reference and clears the view, so a second release does nothing.
 */
#include "api/capi.h"

#define DEVARRAY_NO_IMPORT
#include "../../devarray/include/devarray.h"

#include "interop/cai.h"
#include "base/cuda_error.h"
#include "runtime/device.h"
#include "interop/deviceobject.h"
#include "runtime/stream.h"
#include "interop/dlpack.h"
#include "interop/exchange.h"

_Static_assert((int)DEVARRAY_NTYPES == (int)DA_NTYPES &&
                   (int)DEVARRAY_COMPLEX128 == (int)DA_COMPLEX128 &&
                   (int)DEVARRAY_FLOAT16 == (int)DA_FLOAT16 && DEVARRAY_MAXDIMS == DA_MAXDIMS,
               "devarray.h's dtype numbers are devarray's");

static const int capi_view_flags = DEVARRAY_VIEW_WRITABLE | DEVARRAY_VIEW_C_CONTIGUOUS;

static void
capi_release_view(DevArray_View *view)
{
    if (view != NULL) {
        PyObject *obj = view->obj;
        memset(view, 0, sizeof *view);
        Py_XDECREF(obj);
    }
}

/* A DeviceArray viewing a foreign GPU array: through the CUDA Array
   Interface, else DLPack; TypeError for anything else. */
static DeviceArrayObject *
capi_import(PyObject *obj)
{
    DeviceArrayObject *array;
    int is_cuda;

    if (cai_import_attribute(obj, DA_BACKEND_CUDA, &array) != 0) {
        return array;
    }
    if (PyObject_HasAttrString(obj, "__dlpack__")) {
        if (dlpack_is_cuda(obj, &is_cuda) < 0) {
            return NULL;
        }
        return dlpack_import(obj, is_cuda ? DA_BACKEND_CUDA : DA_BACKEND_HOST, 0);
    }
    PyErr_Format(PyExc_TypeError,
                 "DevArray_GetView: expected a GPU array (a DeviceArray, or an object "
                 "with __cuda_array_interface__ or __dlpack__), not %.200s",
                 Py_TYPE(obj)->tp_name);
    return NULL;
}

static int
capi_get_view(PyObject *obj, DevArray_View *view, int flags)
{
    DeviceArrayObject *array = NULL;

    if (view == NULL) {
        PyErr_SetString(PyExc_ValueError, "DevArray_GetView: view is NULL");
        return -1;
    }
    memset(view, 0, sizeof *view);
    if (obj == NULL) {
        PyErr_SetString(PyExc_ValueError, "DevArray_GetView: obj is NULL");
        return -1;
    }
    if (flags & ~capi_view_flags) {
        PyErr_Format(PyExc_ValueError, "DevArray_GetView: unknown flags 0x%x",
                     (unsigned)(flags & ~capi_view_flags));
        return -1;
    }
    if (DeviceArray_Check(obj)) {
        array = (DeviceArrayObject *)obj;
        Py_INCREF(array);
    }
    else if (exchange_import(obj, &array) == 0) {
        array = capi_import(obj);
    }
    if (array == NULL) {
        return -1;
    }
    if ((flags & DEVARRAY_VIEW_WRITABLE) && (array->flags & DA_FLAG_READONLY)) {
        PyErr_SetString(PyExc_ValueError,
                        "DevArray_GetView: the array is read-only, and "
                        "DEVARRAY_VIEW_WRITABLE asks to write into it");
        goto error;
    }
    if ((flags & DEVARRAY_VIEW_C_CONTIGUOUS) && !array_is_c_contiguous(array)) {
        PyErr_SetString(PyExc_ValueError,
                        "DevArray_GetView: the array is not C-contiguous, and "
                        "DEVARRAY_VIEW_C_CONTIGUOUS asks for it (copy it first)");
        goto error;
    }
    /* the array's device becomes the thread's active one, so view->stream,
       DevArray_CurrentStream() and the caller's launches are that device's */
    if (array_activate(array) < 0) {
        goto error;
    }
    view->data = array->data;
    view->ndim = array->ndim;
    view->shape = DA_SHAPE(array);
    view->strides = DA_STRIDES(array);
    view->dtype = array->typenum;
    view->itemsize = DA_ITEMSIZE(array);
    view->size = array->size;
    view->device = array->backend == DA_BACKEND_CUDA ? array->device : -1;
    /* the current stream, ordered after foreign producers by the imports */
#ifdef DEVARRAY_HAVE_CUDA
    view->stream = array->backend == DA_BACKEND_CUDA ? (void *)stream_current() : NULL;
#else
    view->stream = NULL;
#endif
    view->readonly = (array->flags & DA_FLAG_READONLY) != 0;
    view->obj = (PyObject *)array;
    return 0;
error:
    Py_DECREF(array);
    return -1;
}

/* The checks shared by Empty and Wrap: ndim, shape and dtype. */
static int
capi_check_layout(const char *who, int ndim, const int64_t *shape, int dtype)
{
    if (ndim < 0 || ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "%s: ndim %d is outside 0..%d", who, ndim,
                     DA_MAXDIMS);
        return -1;
    }
    if (ndim > 0 && shape == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: shape is NULL", who);
        return -1;
    }
    if (dtype < 0 || dtype >= DA_NTYPES) {
        PyErr_Format(PyExc_ValueError, "%s: unknown dtype %d (DEVARRAY_BOOL .. "
                     "DEVARRAY_COMPLEX128)", who, dtype);
        return -1;
    }
    return 0;
}

static PyObject *
capi_empty(int ndim, const int64_t *shape, int dtype)
{
    da_place place;
    if (capi_check_layout("DevArray_Empty", ndim, shape, dtype) < 0) {
        return NULL;
    }
    /* where devarray.empty puts it: the default backend and the thread's
       current device, made active */
    if (deviceobject_default_place(&place) < 0) {
        return NULL;
    }
    return (PyObject *)array_new(place.backend, dtype, ndim, shape);
}

static PyObject *
capi_empty_on(int ndim, const int64_t *shape, int dtype, int device)
{
    if (capi_check_layout("DevArray_EmptyOn", ndim, shape, dtype) < 0) {
        return NULL;
    }
    if (device < 0) {
        return (PyObject *)array_new(DA_BACKEND_HOST, dtype, ndim, shape);
    }
    if (!device_cuda_available()) {
        PyErr_Format(PyExc_ValueError,
                     "DevArray_EmptyOn: devarray works on the host here, not CUDA "
                     "device %d", device);
        return NULL;
    }
    /* active afterwards, as after DevArray_GetView: the caller's launches
       and DevArray_CurrentStream() are that device's (device_activate
       checks the ordinal) */
    if (device_activate(DA_BACKEND_CUDA, device) < 0) {
        return NULL;
    }
    return (PyObject *)array_new(DA_BACKEND_CUDA, dtype, ndim, shape);
}

static int
capi_check(PyObject *obj)
{
    return obj != NULL && DeviceArray_Check(obj);
}

static void *
capi_current_stream(void)
{
    /* NULL is the legacy default stream */
#ifdef DEVARRAY_HAVE_CUDA
    return device_cuda_available() ? (void *)stream_current() : NULL;
#else
    return NULL;
#endif
}

static PyObject *
capi_wrap(void *data, int ndim, const int64_t *shape, const int64_t *strides, int dtype,
          int device, PyObject *owner, int readonly)
{
    int backend = device < 0 ? DA_BACKEND_HOST : DA_BACKEND_CUDA;

    if (capi_check_layout("DevArray_Wrap", ndim, shape, dtype) < 0) {
        return NULL;
    }
    if (owner == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "DevArray_Wrap: owner is NULL (it must keep the memory alive)");
        return NULL;
    }
    if (backend == DA_BACKEND_CUDA && !device_cuda_available()) {
        PyErr_Format(PyExc_ValueError,
                     "DevArray_Wrap: devarray works on the host here, not CUDA "
                     "device %d", device);
        return NULL;
    }
    if (backend == DA_BACKEND_CUDA && device_check_ordinal(device) < 0) {
        return NULL;
    }
    /* kernels read whole elements */
    if (backend == DA_BACKEND_CUDA && (uintptr_t)data % (uintptr_t)da_itemsize(dtype) != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "DevArray_Wrap: data is not aligned to the dtype's itemsize");
        return NULL;
    }
    return (PyObject *)array_new_view(backend, backend == DA_BACKEND_CUDA ? device : 0,
                                      dtype, ndim, shape, strides, data, owner,
                                      readonly ? DA_FLAG_READONLY : 0);
}

static PyObject *
capi_set_cuda_error(int error, const char *call)
{
    cuda_error_set(error, call != NULL ? call : "a CUDA call");
    return NULL;
}

static const DevArray_CAPI capi_table = {
    .version = DEVARRAY_C_API_CURRENT,
    .size = sizeof(DevArray_CAPI),
    .GetView = capi_get_view,
    .ReleaseView = capi_release_view,
    .Empty = capi_empty,
    .Check = capi_check,
    .CurrentStream = capi_current_stream,
    .Wrap = capi_wrap,
    .SetCUDAError = capi_set_cuda_error,
    .DeviceArrayType = &DeviceArray_Type,
    .EmptyOn = capi_empty_on,
};

int
capi_module_init(PyObject *module)
{
    PyObject *capsule = PyCapsule_New((void *)&capi_table, "devarray._core._C_API", NULL);
    int status;
    if (capsule == NULL) {
        return -1;
    }
    status = PyModule_AddObjectRef(module, "_C_API", capsule);
    Py_DECREF(capsule);
    return status;
}
