/*
 * DLPack in both directions, with stream ordering done on the device (event
 * record + wait), never by blocking the host.
 *
 * Ownership:
 *   - An exported DLPack tensor (one malloc holding the managed struct, the
 *     shape and the strides) owns a strong reference to the DeviceArray it
 *     describes, in manager_ctx.  Its deleter drops that reference (taking
 *     the GIL, since consumers may call it from any thread) and frees the
 *     block.  The capsule's destructor calls the deleter only while the
 *     capsule is unconsumed (still named "dltensor[_versioned]"); a consumer
 *     renames it "used_..." and takes over the duty to call the deleter.
 *   - An imported DLPack tensor is owned by a "devarray.dlpack_owner" capsule
 *     that becomes the DeviceArray's base; its destructor calls the
 *     producer's deleter exactly once.
 */
#include "interop/dlpack.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "interop/deviceobject.h"
#include "runtime/device.h"
#include "runtime/stream.h"
#include "runtime/transfer.h"

static const char capsule_legacy[] = "dltensor";
static const char capsule_versioned[] = "dltensor_versioned";
static const char capsule_used_legacy[] = "used_dltensor";
static const char capsule_used_versioned[] = "used_dltensor_versioned";
static const char capsule_owner[] = "devarray.dlpack_owner";

/* DLPack dtype for each typenum. */
static const DLDataType dlpack_dtypes[DA_NTYPES] = {
    [DA_BOOL] = {kDLBool, 8, 1},       [DA_INT8] = {kDLInt, 8, 1},
    [DA_UINT8] = {kDLUInt, 8, 1},      [DA_INT16] = {kDLInt, 16, 1},
    [DA_UINT16] = {kDLUInt, 16, 1},    [DA_INT32] = {kDLInt, 32, 1},
    [DA_UINT32] = {kDLUInt, 32, 1},    [DA_INT64] = {kDLInt, 64, 1},
    [DA_UINT64] = {kDLUInt, 64, 1},    [DA_FLOAT16] = {kDLFloat, 16, 1},
    [DA_FLOAT32] = {kDLFloat, 32, 1},  [DA_FLOAT64] = {kDLFloat, 64, 1},
    [DA_COMPLEX64] = {kDLComplex, 64, 1},
    [DA_COMPLEX128] = {kDLComplex, 128, 1},
};

int
dlpack_typenum(DLDataType dtype, int *typenum)
{
    int t;
    for (t = 0; t < DA_NTYPES; t++) {
        if (dlpack_dtypes[t].code == dtype.code &&
            dlpack_dtypes[t].bits == dtype.bits && dtype.lanes == 1) {
            *typenum = t;
            return 0;
        }
    }
    PyErr_Format(PyExc_BufferError,
                 "unsupported DLPack dtype (code %d, %d bits, %d lanes)",
                 dtype.code, dtype.bits, dtype.lanes);
    return -1;
}

/* A tuple of two non-negative ints, as max_version, dl_device and
   __dlpack_device__() are; TypeError/ValueError naming `what` otherwise. */
static int
int_pair(PyObject *obj, const char *what, const char *shape, int *first, int *second)
{
    long values[2];
    int i;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(obj, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(obj, 1))) {
        PyErr_Format(PyExc_TypeError, "%s must be a %s tuple of two ints, not %R",
                     what, shape, obj);
        return -1;
    }
    for (i = 0; i < 2; i++) {
        values[i] = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (values[i] == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    if (values[0] < 0 || values[1] < 0 || values[0] > INT32_MAX ||
        values[1] > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s holds an out-of-range number: %R",
                     what, obj);
        return -1;
    }
    *first = (int)values[0];
    *second = (int)values[1];
    return 0;
}

/* ---- producing DLPack ----------------------------------------------------- */

static void
dlpack_versioned_deleter(DLManagedTensorVersioned *managed)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF((PyObject *)managed->manager_ctx);
    PyGILState_Release(gil);
    PyMem_RawFree(managed);
}

static void
dlpack_legacy_deleter(DLManagedTensor *managed)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF((PyObject *)managed->manager_ctx);
    PyGILState_Release(gil);
    PyMem_RawFree(managed);
}

/* An exported capsule nobody consumed frees its tensor. */
static void
dlpack_capsule_destructor(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(capsule, capsule_versioned)) {
        DLManagedTensorVersioned *managed =
            PyCapsule_GetPointer(capsule, capsule_versioned);
        managed->deleter(managed);
    }
    else if (PyCapsule_IsValid(capsule, capsule_legacy)) {
        DLManagedTensor *managed = PyCapsule_GetPointer(capsule, capsule_legacy);
        managed->deleter(managed);
    }
    PyErr_Restore(type, value, traceback);
}

/* Fill a DLTensor describing `a`; shape_strides has room for 2 * ndim. */
static int
dlpack_fill_tensor(DLTensor *tensor, DeviceArrayObject *a, int64_t *shape_strides)
{
    int i, itemsize = DA_ITEMSIZE(a);
    /* an empty array has no memory to point at (the CAI gives 0 too) */
    tensor->data = a->size == 0 ? NULL : a->data;
    tensor->device.device_type = a->backend == DA_BACKEND_CUDA ? kDLCUDA : kDLCPU;
    tensor->device.device_id = a->device;
    tensor->ndim = a->ndim;
    tensor->dtype = dlpack_dtypes[a->typenum];
    tensor->shape = shape_strides;
    tensor->strides = a->ndim > 0 ? shape_strides + a->ndim : NULL;
    tensor->byte_offset = 0;
    for (i = 0; i < a->ndim; i++) {
        if (DA_STRIDES(a)[i] % itemsize != 0) {
            PyErr_SetString(PyExc_BufferError,
                            "DLPack cannot describe strides that are not a "
                            "multiple of the itemsize");
            return -1;
        }
        shape_strides[i] = DA_SHAPE(a)[i];
        shape_strides[a->ndim + i] = DA_STRIDES(a)[i] / itemsize;
    }
    return 0;
}

DLManagedTensorVersioned *
dlpack_managed_new(DeviceArrayObject *source, int is_copy, uint32_t minor)
{
    const size_t dims_bytes = sizeof(int64_t) * 2 * (size_t)source->ndim;
    DLManagedTensorVersioned *managed = PyMem_RawMalloc(sizeof *managed + dims_bytes);
    if (managed == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    managed->version.major = DEVARRAY_DLPACK_MAJOR;
    managed->version.minor = minor;
    managed->flags =
        ((source->flags & DA_FLAG_READONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
        (is_copy ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    if (dlpack_fill_tensor(&managed->dl_tensor, source, (int64_t *)(managed + 1)) < 0) {
        PyMem_RawFree(managed);
        return NULL;
    }
    Py_INCREF(source);
    managed->manager_ctx = source;
    managed->deleter = dlpack_versioned_deleter;
    return managed;
}

PyObject *
dlpack_export_device(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return Py_BuildValue("(ii)", self->backend == DA_BACKEND_CUDA ? kDLCUDA : kDLCPU,
                         self->device);
}

/* Order the consumer's stream after devarray's work on `a`. */
static int
dlpack_synchronize_for(DeviceArrayObject *a, PyObject *stream_obj)
{
    uintptr_t stream;
    if (a->backend != DA_BACKEND_CUDA) {
        if (stream_obj != Py_None) {
            PyErr_SetString(PyExc_BufferError,
                            "stream must be None for an array on the host "
                            "backend (kDLCPU has no streams)");
            return -1;
        }
        return 0;
    }
    if (stream_obj == Py_None) {
        stream = 1; /* the consumer works on the legacy default stream */
    }
    else if (stream_from_python(stream_obj, &stream) < 0) {
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (stream == (uintptr_t)-1) {
        return 0; /* no synchronisation wanted */
    }
    /* the consumer's stream handle is one of a's device */
    if (array_activate(a) < 0) {
        return -1;
    }
    return stream_wait(stream == 1 ? (cudaStream_t)0 : (cudaStream_t)stream,
                       stream_current());
#else
    return 0;
#endif
}

PyObject *
dlpack_export(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None,
             *copy = Py_None, *capsule = NULL;
    DeviceArrayObject *source = NULL;
    int major = 0, minor = 0, versioned, device_type = 0, device_id = 0;
    void *block = NULL;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO:__dlpack__", kwlist,
                                     &stream, &max_version, &dl_device, &copy)) {
        return NULL;
    }
    if (max_version != Py_None &&
        int_pair(max_version, "max_version", "(major, minor)", &major, &minor) < 0) {
        return NULL;
    }
    versioned = max_version != Py_None && major >= 1;
    if (dl_device != Py_None) {
        if (int_pair(dl_device, "dl_device", "(device_type, device_id)",
                     &device_type, &device_id) < 0) {
            return NULL;
        }
        if (device_type != (self->backend == DA_BACKEND_CUDA ? kDLCUDA : kDLCPU) ||
            device_id != self->device) {
            PyErr_Format(PyExc_BufferError,
                         "cannot export to DLPack device (%d, %d): the array "
                         "is on (%d, %d) and devarray does not copy across "
                         "devices in __dlpack__",
                         device_type, device_id,
                         self->backend == DA_BACKEND_CUDA ? kDLCUDA : kDLCPU,
                         self->device);
            return NULL;
        }
    }
    if (copy != Py_None && copy != Py_True && copy != Py_False) {
        PyErr_SetString(PyExc_TypeError, "copy must be True, False or None");
        return NULL;
    }
    if (!versioned && (self->flags & DA_FLAG_READONLY)) {
        PyErr_SetString(PyExc_BufferError,
                        "a read-only array can only be exported as a versioned "
                        "DLPack capsule (the consumer must pass max_version >= "
                        "(1, 0))");
        return NULL;
    }
    if (copy == Py_True) {
        source = copy_contiguous_as(self, self->typenum);
        if (source != NULL && source == self) {
            Py_DECREF(source);
            source = array_new(self->backend, self->typenum, self->ndim,
                               DA_SHAPE(self));
            if (source != NULL &&
                transfer_copy(self->backend, source->data, self->data,
                             (size_t)DA_NBYTES(self), DA_COPY_D2D) < 0) {
                Py_CLEAR(source);
            }
        }
    }
    else {
        source = self;
        Py_INCREF(source);
    }
    if (source == NULL || dlpack_synchronize_for(source, stream) < 0) {
        goto error;
    }

    /* each tensor takes its own reference to source */
    if (versioned) {
        DLManagedTensorVersioned *managed = dlpack_managed_new(
            source, copy == Py_True,
            major > DEVARRAY_DLPACK_MAJOR || minor > DEVARRAY_DLPACK_MINOR
                ? DEVARRAY_DLPACK_MINOR
                : (uint32_t)minor);
        if (managed == NULL) {
            goto error;
        }
        capsule = PyCapsule_New(managed, capsule_versioned, dlpack_capsule_destructor);
        if (capsule == NULL) {
            managed->deleter(managed);
        }
    }
    else {
        DLManagedTensor *managed;
        block = PyMem_RawMalloc(sizeof *managed + sizeof(int64_t) * 2 * (size_t)source->ndim);
        if (block == NULL) {
            PyErr_NoMemory();
            goto error;
        }
        managed = block;
        if (dlpack_fill_tensor(&managed->dl_tensor, source, (int64_t *)(managed + 1)) < 0) {
            goto error;
        }
        Py_INCREF(source);
        managed->manager_ctx = source;
        managed->deleter = dlpack_legacy_deleter;
        block = NULL; /* the deleter frees it */
        capsule = PyCapsule_New(managed, capsule_legacy, dlpack_capsule_destructor);
        if (capsule == NULL) {
            managed->deleter(managed);
        }
    }
error:
    PyMem_RawFree(block);
    Py_XDECREF(source);
    return capsule;
}

/* ---- consuming DLPack ------------------------------------------------------ */

/* Call the producer's deleter of a tensor devarray took over (kind:
   capsule_versioned or capsule_legacy), keeping any pending exception: the
   deleter may run Python code. */
static void
dlpack_release(void *managed, const char *kind)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (kind == capsule_versioned) {
        DLManagedTensorVersioned *versioned = managed;
        if (versioned->deleter != NULL) {
            versioned->deleter(versioned);
        }
    }
    else {
        DLManagedTensor *legacy = managed;
        if (legacy->deleter != NULL) {
            legacy->deleter(legacy);
        }
    }
    PyErr_Restore(type, value, traceback);
}

/* The owner capsule of an imported tensor: calls the producer's deleter. */
static void
dlpack_owner_destructor(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    void *managed;
    PyErr_Fetch(&type, &value, &traceback);
    managed = PyCapsule_GetPointer(capsule, capsule_owner);
    if (managed == NULL) {
        PyErr_Clear();
    }
    else {
        dlpack_release(managed, PyCapsule_GetContext(capsule));
    }
    PyErr_Restore(type, value, traceback);
}

/* What devarray makes of a DLPack tensor it accepts. */
typedef struct {
    int on_device, typenum;
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS]; /* strides in bytes */
} dlpack_layout;

/* 0 when CUDA device `id` can hold a view, else -1 with BufferError (the
   standard's error for a device a library cannot use) naming the count. */
static int
dlpack_check_device(int id)
{
    if (id < 0 || id >= device_count()) {
        PyErr_Format(PyExc_BufferError,
                     "the tensor is on CUDA device %d, but this process sees %d "
                     "CUDA device(s)",
                     id, device_count());
        return -1;
    }
    return device_check_ordinal(id);
}

/* Check that devarray can view `tensor` (device, dtype, ndim, shape, data,
   alignment) and fill `layout`; -1 with BufferError/ValueError otherwise.
   Touches neither the tensor's memory nor its ownership. */
static int
dlpack_layout_of(const DLTensor *tensor, dlpack_layout *layout)
{
    int64_t stride, size;
    int itemsize, i;

    layout->on_device = tensor->device.device_type == kDLCUDA ||
                        tensor->device.device_type == kDLCUDAManaged;
    if (!layout->on_device && tensor->device.device_type != kDLCPU &&
        tensor->device.device_type != kDLCUDAHost) {
        PyErr_Format(PyExc_BufferError,
                     "unsupported DLPack device type %d (devarray reads CPU "
                     "and CUDA memory)",
                     (int)tensor->device.device_type);
        return -1;
    }
    if (layout->on_device && dlpack_check_device((int)tensor->device.device_id) < 0) {
        return -1;
    }
    if (dlpack_typenum(tensor->dtype, &layout->typenum) < 0) {
        return -1;
    }
    if (tensor->ndim < 0 || tensor->ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_BufferError, "unsupported DLPack ndim %d",
                     (int)tensor->ndim);
        return -1;
    }
    itemsize = da_itemsize(layout->typenum);
    for (i = 0; i < tensor->ndim; i++) {
        layout->shape[i] = tensor->shape[i];
    }
    /* before the strides are computed from it */
    size = array_shape_size(tensor->ndim, layout->shape, itemsize);
    if (size < 0) {
        return -1;
    }
    if (size > 0 && tensor->data == NULL) {
        PyErr_SetString(PyExc_BufferError,
                        "the DLPack tensor has a null data pointer but is not empty");
        return -1;
    }
    /* kernels read whole elements: device data must be aligned */
    if (layout->on_device &&
        ((uintptr_t)tensor->data + tensor->byte_offset) % (uintptr_t)itemsize != 0) {
        PyErr_SetString(PyExc_BufferError,
                        "the DLPack tensor's data is not aligned to its itemsize");
        return -1;
    }
    stride = itemsize;
    for (i = tensor->ndim - 1; i >= 0; i--) {
        layout->strides[i] =
            tensor->strides != NULL
                ? (int64_t)((uint64_t)tensor->strides[i] * (uint64_t)itemsize)
                : stride;
        stride *= layout->shape[i] > 0 ? layout->shape[i] : 1;
    }
    return 0;
}

/* A DeviceArray viewing `tensor` of the managed tensor `managed` (of
   `kind`), checked by dlpack_layout_of, which it takes over: its base is an
   owner capsule that calls the deleter when the view dies; on failure the
   deleter is called at once. */
static DeviceArrayObject *
dlpack_wrap(void *managed, const char *kind, const DLTensor *tensor,
            const dlpack_layout *layout, int readonly)
{
    PyObject *owner = PyCapsule_New(managed, capsule_owner, dlpack_owner_destructor);
    DeviceArrayObject *view = NULL;

    if (owner == NULL) {
        goto error;
    }
    if (PyCapsule_SetContext(owner, (void *)kind) < 0) {
        /* not armed yet: release below, not through the capsule */
        PyCapsule_SetDestructor(owner, NULL);
        goto error;
    }
    managed = NULL; /* the owner releases it from here on */
    view = array_new_view(layout->on_device ? DA_BACKEND_CUDA : DA_BACKEND_HOST,
                          layout->on_device ? tensor->device.device_id : 0,
                          layout->typenum, tensor->ndim, layout->shape, layout->strides,
                          (char *)tensor->data + tensor->byte_offset, owner,
                          readonly ? DA_FLAG_READONLY : 0);
error:
    if (managed != NULL) {
        dlpack_release(managed, kind);
    }
    Py_XDECREF(owner);
    return view;
}

DeviceArrayObject *
dlpack_from_managed(DLManagedTensorVersioned *managed)
{
    dlpack_layout layout;
    if (managed->version.major != DEVARRAY_DLPACK_MAJOR) {
        PyErr_Format(PyExc_BufferError, "unsupported DLPack version %u.%u",
                     managed->version.major, managed->version.minor);
        dlpack_release(managed, capsule_versioned);
        return NULL;
    }
    if (dlpack_layout_of(&managed->dl_tensor, &layout) < 0) {
        dlpack_release(managed, capsule_versioned);
        return NULL;
    }
    return dlpack_wrap(managed, capsule_versioned, &managed->dl_tensor, &layout,
                       (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
}

/* Call obj.__dlpack__(**kwargs) asking for a versioned capsule, falling back
   to a plain call for producers that predate max_version. */
static PyObject *
dlpack_call_producer(PyObject *obj, PyObject *stream)
{
    PyObject *method = NULL, *kwargs = NULL, *capsule = NULL, *args = NULL;
    method = PyObject_GetAttrString(obj, "__dlpack__");
    if (method == NULL) {
        return NULL;
    }
    args = PyTuple_New(0);
    kwargs = Py_BuildValue("{s:O,s:(ii)}", "stream", stream, "max_version",
                           DEVARRAY_DLPACK_MAJOR, DEVARRAY_DLPACK_MINOR);
    if (args == NULL || kwargs == NULL) {
        goto done;
    }
    capsule = PyObject_Call(method, args, kwargs);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        if (PyDict_DelItemString(kwargs, "max_version") == 0) {
            capsule = PyObject_Call(method, args, kwargs);
        }
    }
done:
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_DECREF(method);
    return capsule;
}

/* The (device_type, device_id) of a DLPack producer. */
static int
dlpack_producer_device(PyObject *obj, int *device_type, int *device_id)
{
    PyObject *device = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    int status;
    if (device == NULL) {
        return -1;
    }
    status = int_pair(device, "__dlpack_device__()", "(device_type, device_id)",
                      device_type, device_id);
    Py_DECREF(device);
    return status;
}

int
dlpack_is_cuda(PyObject *obj, int *is_cuda)
{
    int device_type, device_id;
    if (dlpack_producer_device(obj, &device_type, &device_id) < 0) {
        return -1;
    }
    *is_cuda = device_type == kDLCUDA || device_type == kDLCUDAManaged;
    return 0;
}

DeviceArrayObject *
dlpack_import(PyObject *obj, int backend, int copy)
{
    PyObject *capsule = NULL, *stream = NULL;
    DeviceArrayObject *view = NULL, *result = NULL;
    DLTensor *tensor;
    dlpack_layout layout;
    void *managed;
    const char *kind;
    int device_type, device_id, on_device, readonly = 0;

    if (dlpack_producer_device(obj, &device_type, &device_id) < 0) {
        return NULL;
    }
    on_device = device_type == kDLCUDA || device_type == kDLCUDAManaged;
    if (!on_device && device_type != kDLCPU && device_type != kDLCUDAHost) {
        PyErr_Format(PyExc_BufferError,
                     "unsupported DLPack device type %d (devarray reads CPU "
                     "and CUDA memory)",
                     device_type);
        return NULL;
    }
    if (on_device && backend != DA_BACKEND_CUDA) {
        PyErr_SetString(PyExc_BufferError,
                        "cannot use a CUDA DLPack tensor on the host backend; "
                        "set_backend('cuda') or copy it to the host first");
        return NULL;
    }
    /* the view keeps the producer's device; the stream handed to the
       producer is that device's current one */
    if (on_device && (dlpack_check_device(device_id) < 0 ||
                      device_activate(DA_BACKEND_CUDA, device_id) < 0)) {
        return NULL;
    }
    if (!on_device && backend == DA_BACKEND_CUDA && copy == 0) {
        PyErr_SetString(PyExc_BufferError,
                        "copy=False, but the tensor is in host memory and "
                        "devarray works on the CUDA device");
        return NULL;
    }
    /* the producer orders its work before devarray's current stream */
#ifdef DEVARRAY_HAVE_CUDA
    stream = on_device ? PyLong_FromSize_t(stream_protocol_value(stream_current()))
                       : Py_NewRef(Py_None);
#else
    stream = on_device ? PyLong_FromLong(1) : Py_NewRef(Py_None);
#endif
    if (stream == NULL) {
        return NULL;
    }
    capsule = dlpack_call_producer(obj, stream);
    Py_DECREF(stream);
    if (capsule == NULL) {
        return NULL;
    }
    if (PyCapsule_IsValid(capsule, capsule_versioned)) {
        DLManagedTensorVersioned *versioned =
            PyCapsule_GetPointer(capsule, capsule_versioned);
        if (versioned->version.major != DEVARRAY_DLPACK_MAJOR) {
            PyErr_Format(PyExc_BufferError,
                         "unsupported DLPack version %u.%u",
                         versioned->version.major, versioned->version.minor);
            goto error;
        }
        managed = versioned;
        tensor = &versioned->dl_tensor;
        readonly = (versioned->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
        kind = capsule_versioned;
    }
    else if (PyCapsule_IsValid(capsule, capsule_legacy)) {
        DLManagedTensor *legacy = PyCapsule_GetPointer(capsule, capsule_legacy);
        managed = legacy;
        tensor = &legacy->dl_tensor;
        kind = capsule_legacy;
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "__dlpack__() must return an unused 'dltensor' or "
                     "'dltensor_versioned' capsule, got %.200s",
                     PyCapsule_CheckExact(capsule)
                         ? (PyCapsule_GetName(capsule) != NULL
                                ? PyCapsule_GetName(capsule)
                                : "an unnamed capsule")
                         : Py_TYPE(capsule)->tp_name);
        goto error;
    }
    if (tensor->device.device_type != device_type ||
        tensor->device.device_id != device_id) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor is on device (%d, %d), but "
                     "__dlpack_device__() said (%d, %d)",
                     (int)tensor->device.device_type,
                     (int)tensor->device.device_id, device_type, device_id);
        goto error;
    }
    /* a refused tensor stays the producer's: checked before it is taken */
    if (dlpack_layout_of(tensor, &layout) < 0) {
        goto error;
    }
    /* from here on the tensor is ours: dlpack_wrap calls its deleter when
       the view dies, or at once if it fails */
    if (PyCapsule_SetName(capsule, kind == capsule_versioned ? capsule_used_versioned
                                                             : capsule_used_legacy) < 0) {
        goto error;
    }
    view = dlpack_wrap(managed, kind, tensor, &layout, readonly);
    if (view == NULL) {
        goto error;
    }
    if (view->backend != backend || copy == 1) {
        result = (DeviceArrayObject *)copy_to_backend(view, -1, backend);
    }
    else {
        result = view;
        Py_INCREF(result);
    }
error:
    Py_XDECREF(view);
    Py_XDECREF(capsule);
    return result;
}

/* from_dlpack's device=: None leaves place->backend -1; a place the
   deviceobject converter takes is used; anything else is a BufferError, as
   the standard asks of devices a library cannot place arrays on. */
static int
dlpack_device_converter(PyObject *obj, void *place)
{
    if (deviceobject_converter_optional(obj, place)) {
        return 1;
    }
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_BufferError,
                     "from_dlpack(device=%R) is not supported: device must be "
                     "None or a devarray.Device",
                     obj);
    }
    return 0;
}

static PyObject *
dlpack_py_from_dlpack(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"x", "device", "copy", NULL};
    PyObject *x, *copy = Py_None, *result;
    DeviceArrayObject *view;
    da_place place = {-1, 0};
    int backend, is_cuda = 0, copy_flag;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O&O:from_dlpack", kwlist, &x,
                                     dlpack_device_converter, &place, &copy)) {
        return NULL;
    }
    if (copy != Py_None && copy != Py_True && copy != Py_False) {
        PyErr_SetString(PyExc_TypeError, "copy must be True, False or None");
        return NULL;
    }
    copy_flag = copy == Py_None ? -1 : copy == Py_True;
    backend = place.backend >= 0 ? place.backend : backend_default();
    if (backend < 0) {
        return NULL;
    }
    /* a CUDA tensor asked for on the host: view it on the device, then copy */
    if (place.backend == DA_BACKEND_HOST && copy_flag != 0 &&
        device_cuda_available() && PyObject_HasAttrString(x, "__dlpack_device__")) {
        if (dlpack_is_cuda(x, &is_cuda) < 0) {
            return NULL;
        }
        if (is_cuda) {
            view = dlpack_import(x, DA_BACKEND_CUDA, -1);
            if (view == NULL) {
                return NULL;
            }
            result = copy_to_backend(view, -1, DA_BACKEND_HOST);
            Py_DECREF(view);
            return result;
        }
    }
    /* host data copied in goes to the device asked for; device data is
       viewed where it is, then copied to another device if asked */
    if (place.backend >= 0 && device_activate(place.backend, place.device) < 0) {
        return NULL;
    }
    view = dlpack_import(x, backend, copy_flag);
    if (view == NULL || place.backend != DA_BACKEND_CUDA || view->device == place.device) {
        return (PyObject *)view;
    }
    result = copy_flag == 0 ? PyErr_Format(PyExc_BufferError,
                                           "from_dlpack(copy=False): the tensor is on "
                                           "CUDA device %d, not %d",
                                           view->device, place.device)
                            : copy_to_place(view, -1, DA_BACKEND_CUDA, place.device);
    Py_DECREF(view);
    return result;
}

static PyMethodDef dlpack_module_methods[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))dlpack_py_from_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\nA DeviceArray "
     "sharing x's memory through DLPack (copied when x is in host memory and "
     "devarray works on the device)."},
    {NULL, NULL, 0, NULL},
};

int
dlpack_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, dlpack_module_methods);
}
