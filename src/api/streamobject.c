/*
 * devarray.Stream and devarray.ExternalStream: see streamobject.h.
 *
 * Ownership:
 *   - A Stream made by Stream() owns its cudaStream_t through its registry
 *     entry (stream.c): close() or the deallocator retires the entry, which
 *     destroys the handle; memory still to be freed after work on it waits
 *     for that work through the entry.
 *   - An ExternalStream owns nothing: it holds a reference to the object it
 *     wraps (if any), and the user keeps the foreign stream alive while the
 *     ExternalStream is used, as with CuPy's and PyTorch's.
 *   - The thread's `with` stack holds a strong reference to each entered
 *     stream, so an entered stream cannot be deallocated.
 *   - The two default streams are module-lifetime objects kept in
 *     streamobject_defaults.
 */
#include "api/streamobject.h"
#include "core/array.h"

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/pool.h"
#include "runtime/stream.h"

#include <stdio.h>
#include <string.h>

static PyTypeObject ExternalStream_Type;

/* [0] the legacy default stream, [1] the per-thread one */
static StreamObject *streamobject_defaults[2];

/* The Python side of the current-stream stack (the entries' side is in
   stream.c); the same depth limit. */
#define STREAMOBJECT_DEPTH 64
static _Thread_local StreamObject *streamobject_stack[STREAMOBJECT_DEPTH];
static _Thread_local int streamobject_depth = 0;

static int
streamobject_per_thread(void)
{
    return stream_per_thread_default() == 1;
}

int
streamobject_check_open(StreamObject *self)
{
    if (self->flags & STREAMOBJECT_CLOSED) {
        PyErr_SetString(PyExc_RuntimeError, "this stream was closed");
        return -1;
    }
    return 0;
}

/* ---- construction ---------------------------------------------------- */

static StreamObject *
streamobject_alloc(PyTypeObject *type, uintptr_t handle, int priority, int flags)
{
    StreamObject *self = (StreamObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    self->entry = NULL;
#endif
    self->handle = handle;
    self->priority = priority;
    self->flags = flags;
    self->entered = 0;
    self->owner = NULL;
    return self;
}

static PyObject *
stream_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"non_blocking", "priority", NULL};
    int non_blocking = 0, priority = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$pi:Stream", kwlist, &non_blocking,
                                     &priority)) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (device_cuda_available()) {
        int least = 0, greatest = 0;
        cudaStream_t handle = NULL;
        StreamObject *self;
        /* a stream belongs to the thread's current device */
        if (device_activate(DA_BACKEND_CUDA, device_current(DA_BACKEND_CUDA)) < 0) {
            return NULL;
        }
        CUDA_ERROR_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        if (priority > least || priority < greatest) {
            PyErr_Format(PyExc_ValueError,
                         "Stream(): priority must be between %d (highest) and %d "
                         "(lowest) on this device, got %d",
                         greatest, least, priority);
            return NULL;
        }
        CUDA_ERROR_CHECK(cudaStreamCreateWithPriority(
            &handle, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault, priority));
        self = streamobject_alloc(type, (uintptr_t)handle, priority,
                                  non_blocking ? STREAMOBJECT_NON_BLOCKING : 0);
        if (self == NULL || (self->entry = stream_register(handle, 1)) == NULL) {
            Py_XDECREF(self);
            (void)cudaStreamDestroy(handle);
            return NULL;
        }
        return (PyObject *)self;
    }
#endif
    if (priority != 0) {
        PyErr_Format(PyExc_ValueError,
                     "Stream(): priority must be 0 without a CUDA device, got %d",
                     priority);
        return NULL;
    }
    return (PyObject *)streamobject_alloc(type, 0, 0,
                                          non_blocking ? STREAMOBJECT_NON_BLOCKING : 0);
#ifdef DEVARRAY_HAVE_CUDA
error:
    return NULL;
#endif
}

/* The handle in a `__cuda_stream__()` result: a (0, int) tuple. */
static int
streamobject_protocol_handle(PyObject *obj, uintptr_t *handle)
{
    PyObject *result = PyObject_CallMethod(obj, "__cuda_stream__", NULL);
    int status = -1;
    if (result == NULL) {
        return -1;
    }
    if (!PyTuple_Check(result) || PyTuple_GET_SIZE(result) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(result, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(result, 1))) {
        PyErr_Format(PyExc_TypeError,
                     "%.200s.__cuda_stream__() must return a (version, handle) "
                     "tuple of ints", Py_TYPE(obj)->tp_name);
        goto done;
    }
    if (PyLong_AsLong(PyTuple_GET_ITEM(result, 0)) != 0) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError,
                         "%.200s.__cuda_stream__() speaks version %R of the "
                         "protocol; devarray knows version 0",
                         Py_TYPE(obj)->tp_name, PyTuple_GET_ITEM(result, 0));
        }
        goto done;
    }
    *handle = (uintptr_t)PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(result, 1));
    status = PyErr_Occurred() ? -1 : 0;
done:
    Py_DECREF(result);
    return status;
}

static PyObject *
external_stream_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *obj;
    uintptr_t handle;
    StreamObject *self;

    if (kwds != NULL && PyDict_GET_SIZE(kwds) > 0) {
        PyErr_SetString(PyExc_TypeError, "ExternalStream() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:ExternalStream", &obj)) {
        return NULL;
    }
    if (PyLong_Check(obj)) {
        handle = (uintptr_t)PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError,
                         "ExternalStream(): a handle is an int from 0 to 2**64 - 1, "
                         "got %R", obj);
            return NULL;
        }
    }
    else if (PyObject_HasAttrString(obj, "__cuda_stream__")) {
        if (streamobject_protocol_handle(obj, &handle) < 0) {
            return NULL;
        }
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "ExternalStream() takes a stream handle (int) or an object "
                     "with __cuda_stream__, not %.200s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    self = streamobject_alloc(type, handle, 0, STREAMOBJECT_EXTERNAL);
    if (self == NULL) {
        return NULL;
    }
    self->owner = PyLong_Check(obj) ? NULL : Py_NewRef(obj);
#ifdef DEVARRAY_HAVE_CUDA
    if (device_cuda_available() &&
        (self->entry = stream_register((cudaStream_t)handle, 0)) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
#endif
    return (PyObject *)self;
}

static void
streamobject_release(StreamObject *self)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (self->entry != NULL && !(self->flags & STREAMOBJECT_DEFAULT)) {
        if (self->entry->owned) {
            pool_forget_stream(self->entry->handle);
        }
        stream_retire(self->entry);
    }
    self->entry = NULL;
#endif
    self->flags |= STREAMOBJECT_CLOSED;
}

static void
stream_dealloc(StreamObject *self)
{
    PyObject *type, *value, *traceback;

    /* a stream dropped while an exception propagates (a 'with' block that
       raised) must not lose it: releasing may clear its own failures */
    PyErr_Fetch(&type, &value, &traceback);
    streamobject_release(self);
    PyErr_Restore(type, value, traceback);
    Py_XDECREF(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- the current stream ---------------------------------------------- */

int
streamobject_enter(StreamObject *self)
{
    if (streamobject_check_open(self) < 0) {
        return -1;
    }
    if (streamobject_depth == STREAMOBJECT_DEPTH) {
        PyErr_Format(PyExc_RuntimeError,
                     "streams entered with 'with' nest at most %d deep",
                     STREAMOBJECT_DEPTH);
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (self->entry != NULL && stream_push(self->entry) < 0) {
        return -1;
    }
#endif
    streamobject_stack[streamobject_depth++] = (StreamObject *)Py_NewRef(self);
    self->entered++;
    return 0;
}

int
streamobject_exit(StreamObject *self)
{
    if (streamobject_depth == 0 || streamobject_stack[streamobject_depth - 1] != self) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this stream is not the innermost current stream of "
                        "this thread: 'with' blocks must exit in order");
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (self->entry != NULL && stream_pop(self->entry) < 0) {
        return -1;
    }
#endif
    streamobject_depth--;
    self->entered--;
    Py_DECREF(self);
    return 0;
}

static PyObject *
stream_enter(StreamObject *self, PyObject *Py_UNUSED(args))
{
    return streamobject_enter(self) < 0 ? NULL : Py_NewRef(self);
}

static PyObject *
stream_exit(StreamObject *self, PyObject *const *Py_UNUSED(args), Py_ssize_t Py_UNUSED(nargs))
{
    if (streamobject_exit(self) < 0) {
        return NULL;
    }
    Py_RETURN_FALSE;
}

/* The innermost stream entered on the thread's current device (each device
   has its own current stream), else the default stream. */
static PyObject *
streamobject_current(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    int i;
#ifdef DEVARRAY_HAVE_CUDA
    const int device = device_current(DA_BACKEND_CUDA);
#endif

    for (i = streamobject_depth - 1; i >= 0; i--) {
#ifdef DEVARRAY_HAVE_CUDA
        const stream_entry *entry = streamobject_stack[i]->entry;
        if (entry != NULL && entry->device != device) {
            continue;
        }
#endif
        return Py_NewRef(streamobject_stack[i]);
    }
    return Py_NewRef(streamobject_defaults[streamobject_per_thread()]);
}

int
streamobject_resolve(PyObject *obj, int default_device, uintptr_t *handle, int *device)
{
    *device = default_device;
    *handle = 0;
    if (StreamObject_Check(obj)) {
        StreamObject *stream = (StreamObject *)obj;
        if (streamobject_check_open(stream) < 0) {
            return -1;
        }
#ifdef DEVARRAY_HAVE_CUDA
        /* a default stream's handle names the default stream of whichever
           device is active: it is default_device's here */
        if (stream->entry != NULL && !(stream->flags & STREAMOBJECT_DEFAULT)) {
            *device = stream->entry->device;
        }
#endif
        *handle = stream->handle;
    }
    else if (obj != Py_None) {
        if (!PyObject_HasAttrString(obj, "__cuda_stream__")) {
            PyErr_Format(PyExc_TypeError,
                         "expected a devarray.Stream or an object with __cuda_stream__, "
                         "not %.200s", Py_TYPE(obj)->tp_name);
            return -1;
        }
        /* a foreign stream's device is not known: the caller's is assumed */
        if (streamobject_protocol_handle(obj, handle) < 0) {
            return -1;
        }
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (!device_cuda_available()) {
        return 0;
    }
    if (device_activate(DA_BACKEND_CUDA, *device) < 0) {
        return -1;
    }
    if (obj == Py_None) {
        *handle = (uintptr_t)stream_current_on(*device);
    }
#endif
    return 0;
}

/* ---- methods ----------------------------------------------------------- */

static PyObject *
stream_synchronize(StreamObject *self, PyObject *Py_UNUSED(args))
{
    if (streamobject_check_open(self) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (device_cuda_available()) {
        cudaError_t err;
        if (stream_check_sync("Stream.synchronize()") < 0) {
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        err = cudaStreamSynchronize((cudaStream_t)self->handle);
        Py_END_ALLOW_THREADS
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaStreamSynchronize");
            return NULL;
        }
    }
#endif
    Py_RETURN_NONE;
}

static PyObject *
stream_query(StreamObject *self, PyObject *Py_UNUSED(args))
{
    if (streamobject_check_open(self) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (device_cuda_available()) {
        cudaError_t err = cudaStreamQuery((cudaStream_t)self->handle);
        if (err == cudaErrorNotReady) {
            (void)cudaGetLastError();
            Py_RETURN_FALSE;
        }
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaStreamQuery");
            return NULL;
        }
    }
#endif
    Py_RETURN_TRUE;
}

static PyObject *
stream_wait_stream(StreamObject *self, PyObject *other)
{
    uintptr_t waiter = 0, producer = 0;
    int waiter_device, producer_device;
    if (streamobject_resolve((PyObject *)self, device_current(DA_BACKEND_CUDA), &waiter,
                             &waiter_device) < 0 ||
        streamobject_resolve(other, waiter_device, &producer, &producer_device) < 0) {
        return NULL;
    }
    if (producer_device != waiter_device) {
        PyErr_Format(PyExc_ValueError,
                     "wait_stream(): this stream is on CUDA device %d, the other on "
                     "device %d; work of two devices is ordered by copies between "
                     "them (to_device) or by synchronizing",
                     waiter_device, producer_device);
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (device_cuda_available() &&
        stream_wait((cudaStream_t)waiter, (cudaStream_t)producer) < 0) {
        return NULL;
    }
#endif
    Py_RETURN_NONE;
}

static PyObject *
stream_wait_event(StreamObject *self, PyObject *event)
{
    if (streamobject_check_open(self) < 0) {
        return NULL;
    }
    if (!PyObject_HasAttrString(event, "wait") || !PyObject_HasAttrString(event, "record")) {
        PyErr_Format(PyExc_TypeError, "wait_event() takes a devarray.Event, not %.200s",
                     Py_TYPE(event)->tp_name);
        return NULL;
    }
    return PyObject_CallMethod(event, "wait", "O", (PyObject *)self);
}

static PyObject *
stream_close(StreamObject *self, PyObject *Py_UNUSED(args))
{
    if (self->flags & STREAMOBJECT_DEFAULT) {
        PyErr_SetString(PyExc_ValueError, "a default stream cannot be closed");
        return NULL;
    }
    if (self->entered > 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this stream is current in a 'with' block and cannot be "
                        "closed there");
        return NULL;
    }
    streamobject_release(self);
    Py_RETURN_NONE;
}

static PyObject *
stream_cuda_stream(StreamObject *self, PyObject *Py_UNUSED(args))
{
    if (streamobject_check_open(self) < 0) {
        return NULL;
    }
    return Py_BuildValue("(iK)", 0, (unsigned long long)self->handle);
}

static PyObject *
stream_get_handle(StreamObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->handle);
}

static PyObject *
stream_get_priority(StreamObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(self->priority);
}

static PyObject *
stream_get_non_blocking(StreamObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong((self->flags & STREAMOBJECT_NON_BLOCKING) != 0);
}

static PyObject *
stream_get_closed(StreamObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong((self->flags & STREAMOBJECT_CLOSED) != 0);
}

static PyObject *
stream_richcompare(PyObject *a, PyObject *b, int op)
{
    int equal;
    if (!StreamObject_Check(b) || (op != Py_EQ && op != Py_NE)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    /* without a device every handle is 0: only identity tells streams apart */
    equal = ((StreamObject *)a)->handle == 0 && ((StreamObject *)b)->handle == 0 &&
                    !(((StreamObject *)a)->flags & STREAMOBJECT_DEFAULT)
                ? a == b
                : ((StreamObject *)a)->handle == ((StreamObject *)b)->handle;
    return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static Py_hash_t
stream_hash(StreamObject *self)
{
    Py_hash_t hash = (Py_hash_t)(self->handle >> 4 | self->handle << 60);
    return hash == -1 ? -2 : hash;
}

static PyObject *
stream_repr(StreamObject *self)
{
    const char *kind = (self->flags & STREAMOBJECT_DEFAULT)    ? "default "
                       : (self->flags & STREAMOBJECT_EXTERNAL) ? "external "
                                                              : "";
    char text[96];
    (void)snprintf(text, sizeof text, "<devarray.Stream %shandle=0x%zx%s>", kind,
                   (size_t)self->handle,
                   (self->flags & STREAMOBJECT_CLOSED) ? " closed" : "");
    return PyUnicode_FromString(text);
}

static PyObject *
streamobject_set_default(PyObject *Py_UNUSED(module), PyObject *kind)
{
    int per_thread;
    if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "legacy") == 0) {
        per_thread = 0;
    }
    else if (PyUnicode_Check(kind) &&
             PyUnicode_CompareWithASCIIString(kind, "per-thread") == 0) {
        per_thread = 1;
    }
    else {
        PyErr_Format(PyExc_ValueError,
                     "set_default_stream() takes 'legacy' or 'per-thread', not %R", kind);
        return NULL;
    }
    (void)stream_set_per_thread_default(per_thread);
    Py_RETURN_NONE;
}

static PyMethodDef stream_methods[] = {
    {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait until all work queued on this stream has finished."},
    {"query", (PyCFunction)stream_query, METH_NOARGS,
     "query()\n--\n\nWhether all work queued on this stream has finished."},
    {"wait_stream", (PyCFunction)stream_wait_stream, METH_O,
     "wait_stream(stream)\n--\n\nMake work queued on this stream from now on "
     "wait for the work queued so far on `stream` (on the device: the host "
     "does not block)."},
    {"wait_event", (PyCFunction)stream_wait_event, METH_O,
     "wait_event(event)\n--\n\nMake work queued on this stream from now on wait "
     "for `event`, on the device."},
    {"close", (PyCFunction)stream_close, METH_NOARGS,
     "close()\n--\n\nDestroy the stream now (an ExternalStream is only "
     "forgotten).  Queued work still completes; using the stream afterwards "
     "raises RuntimeError."},
    {"__cuda_stream__", (PyCFunction)stream_cuda_stream, METH_NOARGS,
     "__cuda_stream__()\n--\n\nThe CUDA stream protocol: (0, handle)."},
    {"__enter__", (PyCFunction)stream_enter, METH_NOARGS,
     "Make this stream the thread's current stream."},
    {"__exit__", (PyCFunction)(void (*)(void))stream_exit, METH_FASTCALL,
     "Restore the previous current stream."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"handle", (getter)stream_get_handle, NULL,
     "The cudaStream_t as an int (0: the legacy default stream, 2: the "
     "per-thread one).", NULL},
    {"priority", (getter)stream_get_priority, NULL, "The stream's priority.", NULL},
    {"non_blocking", (getter)stream_get_non_blocking, NULL,
     "Whether the stream does not synchronise with the legacy default stream.",
     NULL},
    {"closed", (getter)stream_get_closed, NULL, "Whether close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject Stream_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.Stream",
    .tp_basicsize = sizeof(StreamObject),
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_repr = (reprfunc)stream_repr,
    .tp_hash = (hashfunc)stream_hash,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Stream(*, non_blocking=False, priority=0)\n--\n\n"
              "A CUDA stream owned by devarray.  `with stream:` makes it the "
              "thread's current stream, on which every devarray operation, "
              "copy, allocation and free is queued.",
    .tp_richcompare = stream_richcompare,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
    .tp_new = stream_new,
};

static PyTypeObject ExternalStream_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.ExternalStream",
    .tp_basicsize = sizeof(StreamObject),
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ExternalStream(stream)\n--\n\n"
              "A stream devarray did not create: an int cudaStream_t handle or "
              "an object with __cuda_stream__ (a torch.cuda.Stream, a CuPy "
              "stream, ...).  Keep the foreign stream alive while it is used.",
    .tp_base = &Stream_Type,
    .tp_new = external_stream_new,
};

/* _order_after_writers(x): make the current stream of x's device wait, on
   the device, for the work every stream devarray knows has queued since x's
   memory was born (all of it for a view), the ordering a free gets.  What a
   reader of x from another thread needs (distributed's serializers: the
   task that wrote x ran elsewhere, maybe on a stream of its own) without
   blocking the host until the whole device is idle. */
static PyObject *
streamobject_order_after_writers(PyObject *Py_UNUSED(module), PyObject *arg)
{
    DeviceArrayObject *x;
    if (!DeviceArray_Check(arg)) {
        return PyErr_Format(PyExc_TypeError, "_order_after_writers() needs a DeviceArray, not %.100s",
                            Py_TYPE(arg)->tp_name);
    }
    x = (DeviceArrayObject *)arg;
#ifdef DEVARRAY_HAVE_CUDA
    if (x->backend == DA_BACKEND_CUDA) {
        cudaError_t err;
        if (device_activate(DA_BACKEND_CUDA, x->device) < 0) {
            return NULL;
        }
        err = stream_order_free(stream_current(), x->birth);
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaStreamWaitEvent");
            return NULL;
        }
    }
#else
    (void)x;
#endif
    Py_RETURN_NONE;
}

static PyMethodDef streamobject_functions[] = {
    {"_order_after_writers", streamobject_order_after_writers, METH_O,
     "_order_after_writers(x)\n--\n\nMake the current stream of x's device wait, on the "
     "device, for the work any stream devarray knows has queued since x's memory was "
     "born (devarray.dask's serializers)."},
    {"current_stream", streamobject_current, METH_NOARGS,
     "current_stream()\n--\n\nThe calling thread's current stream on its current device."},
    {"set_default_stream", streamobject_set_default, METH_O,
     "set_default_stream(kind)\n--\n\nMake 'legacy' (the default) or "
     "'per-thread' the default stream of every thread.  The environment "
     "variable DEVARRAY_DEFAULT_STREAM sets it at import."},
    {NULL, NULL, 0, NULL},
};

int
streamobject_module_init(PyObject *module)
{
    int i;
    if (stream_module_init(module) < 0) {
        return -1;
    }
    if (PyType_Ready(&Stream_Type) < 0 || PyType_Ready(&ExternalStream_Type) < 0 ||
        PyModule_AddObjectRef(module, "Stream", (PyObject *)&Stream_Type) < 0 ||
        PyModule_AddObjectRef(module, "ExternalStream", (PyObject *)&ExternalStream_Type) < 0 ||
        PyModule_AddFunctions(module, streamobject_functions) < 0) {
        return -1;
    }
    for (i = 0; i < 2; i++) {
        streamobject_defaults[i] =
            streamobject_alloc(&Stream_Type, i == 0 ? 0 : 2, 0, STREAMOBJECT_DEFAULT);
        if (streamobject_defaults[i] == NULL) {
            return -1;
        }
#ifdef DEVARRAY_HAVE_CUDA
        streamobject_defaults[i]->entry = stream_builtin_entry(i);
#endif
    }
    return 0;
}
