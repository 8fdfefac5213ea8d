/*
 * DLPack 1.3's C exchange API, both ways: see exchange.h.
 *
 * Ownership: every tensor handed out (from_py_object, the allocator) is a
 * versioned DLPack tensor from dlpack_managed_new, holding a reference to
 * its DeviceArray until the consumer calls its deleter; a tensor handed in
 * (to_py_object, or taken from a foreign producer) is owned by the
 * DeviceArray viewing it (dlpack_from_managed), whose death calls the
 * producer's deleter.
 */
#include "interop/exchange.h"

#include "runtime/device.h"
#include "interop/dlpack.h"
#include "runtime/stream.h"

/* ---- producer: DeviceArray.__dlpack_c_exchange_api__ ------------------ */

static int
exchange_from_py_object(void *py_object, DLManagedTensorVersioned **out)
{
    PyObject *obj = py_object;
    if (!DeviceArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "devarray's DLPack exchange API takes a DeviceArray, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = dlpack_managed_new((DeviceArrayObject *)obj, 0, DEVARRAY_DLPACK_MINOR);
    return *out == NULL ? -1 : 0;
}

static int
exchange_to_py_object(DLManagedTensorVersioned *tensor, void **out_py_object)
{
    DeviceArrayObject *view = dlpack_from_managed(tensor);
    *out_py_object = view;
    return view == NULL ? -1 : 0;
}

/* A new array shaped like `prototype`, as a DLPack tensor.  The caller may
   not hold the GIL, and errors go through set_error, not a Python
   exception. */
static int
exchange_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                   void (*set_error)(void *error_ctx, const char *kind, const char *message))
{
    PyGILState_STATE gil = PyGILState_Ensure();
    DeviceArrayObject *array = NULL;
    int typenum, backend, status = -1;

    *out = NULL;
    if (prototype->device.device_type == kDLCUDA) {
        backend = DA_BACKEND_CUDA;
        if (!device_cuda_available()) {
            PyErr_Format(PyExc_BufferError,
                         "devarray cannot allocate on CUDA device %d: %s",
                         (int)prototype->device.device_id,
                         device_cuda_unavailable_reason());
            goto error;
        }
        /* on the prototype's device, which array_new places on once active */
        if (device_check_ordinal((int)prototype->device.device_id) < 0 ||
            device_activate(backend, (int)prototype->device.device_id) < 0) {
            goto error;
        }
    }
    else if (prototype->device.device_type == kDLCPU) {
        backend = DA_BACKEND_HOST;
    }
    else {
        PyErr_Format(PyExc_BufferError, "devarray cannot allocate on DLPack device type %d",
                     (int)prototype->device.device_type);
        goto error;
    }
    if (dlpack_typenum(prototype->dtype, &typenum) < 0) {
        goto error;
    }
    if (prototype->ndim < 0 || prototype->ndim > DA_MAXDIMS ||
        (prototype->ndim > 0 && prototype->shape == NULL)) {
        PyErr_Format(PyExc_BufferError, "unsupported DLPack ndim %d", (int)prototype->ndim);
        goto error;
    }
    array = array_new(backend, typenum, prototype->ndim, prototype->shape);
    if (array == NULL) {
        goto error;
    }
    *out = dlpack_managed_new(array, 0, DEVARRAY_DLPACK_MINOR);
    status = *out == NULL ? -1 : 0;
error:
    Py_XDECREF(array);
    if (status < 0) {
        /* hand the Python exception over as set_error's kind and message */
        PyObject *type, *value, *traceback, *text = NULL;
        PyErr_Fetch(&type, &value, &traceback);
        PyErr_NormalizeException(&type, &value, &traceback);
        text = value != NULL ? PyObject_Str(value) : NULL;
        set_error(error_ctx, type != NULL ? ((PyTypeObject *)type)->tp_name : "RuntimeError",
                  text != NULL ? PyUnicode_AsUTF8(text) : "devarray could not allocate");
        Py_XDECREF(text);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        PyErr_Clear();
    }
    PyGILState_Release(gil);
    return status;
}

/* The calling thread's current stream on device_id (NULL: the legacy
   default one, and for the host, as the specification asks).  Nothing is
   activated: this may run without the GIL. */
static int
exchange_current_work_stream(int32_t device_type, int32_t device_id, void **out_current_stream)
{
    *out_current_stream = NULL;
#ifdef DEVARRAY_HAVE_CUDA
    /* a device devarray does not use has no devarray stream but the
       legacy default one */
    if (device_type == kDLCUDA && device_id >= 0 && device_id < DA_DEVICE_MAX) {
        *out_current_stream = (void *)stream_current_on(device_id);
    }
#else
    (void)device_type;
    (void)device_id;
#endif
    return 0;
}

static DLPackExchangeAPI exchange_api = {
    .header = {.version = {1, 3}, .prev_api = NULL},
    .managed_tensor_allocator = exchange_allocator,
    .managed_tensor_from_py_object_no_sync = exchange_from_py_object,
    .managed_tensor_to_py_object_no_sync = exchange_to_py_object,
    /* optional, and impossible without a temporary: devarray keeps strides
       in bytes, DLPack in elements */
    .dltensor_from_py_object_no_sync = NULL,
    .current_work_stream = exchange_current_work_stream,
};

PyObject *
exchange_capsule(void)
{
    return PyCapsule_New(&exchange_api, DLPACK_EXCHANGE_API_CAPSULE, NULL);
}

/* ---- consumer ------------------------------------------------------------ */

/* The version-1 table of a published exchange API, walking to older ones
   as the specification allows; NULL without an exception when there is
   none devarray can use. */
static const DLPackExchangeAPI *
exchange_usable(const DLPackExchangeAPI *api)
{
    const DLPackExchangeAPIHeader *header = &api->header;
    while (header != NULL && header->version.major != 1) {
        header = header->prev_api;
    }
    api = (const DLPackExchangeAPI *)header;
    if (api == NULL || header->version.minor < 3 ||
        api->managed_tensor_from_py_object_no_sync == NULL ||
        api->current_work_stream == NULL) {
        return NULL;
    }
    return api;
}

int
exchange_import(PyObject *obj, DeviceArrayObject **out)
{
    PyObject *capsule;
    const DLPackExchangeAPI *api;
    DLManagedTensorVersioned *managed = NULL;

    *out = NULL;
    capsule = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__dlpack_c_exchange_api__");
    if (capsule == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    api = PyCapsule_GetPointer(capsule, DLPACK_EXCHANGE_API_CAPSULE);
    Py_DECREF(capsule);
    if (api == NULL) {
        return -1;
    }
    api = exchange_usable(api);
    if (api == NULL) {
        return 0;
    }
    if (api->managed_tensor_from_py_object_no_sync(obj, &managed) < 0) {
        return -1;
    }
    /* the view owns the tensor from here on, also on failure */
    *out = dlpack_from_managed(managed);
    if (*out == NULL) {
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if ((*out)->backend == DA_BACKEND_CUDA) {
        /* the producer's current stream (NULL is the legacy default one)
           before devarray's, on the device */
        void *producer = NULL;
        if (array_activate(*out) < 0 ||
            api->current_work_stream(kDLCUDA, (*out)->device, &producer) < 0 ||
            stream_wait(stream_current(), (cudaStream_t)producer) < 0) {
            Py_CLEAR(*out);
            return -1;
        }
    }
#endif
    return 1;
}
