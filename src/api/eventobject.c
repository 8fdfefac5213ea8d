/*
 * devarray.Event: see eventobject.h.
 *
 * Ownership: each Event owns its cudaEvent_t (created in the constructor,
 * destroyed in the deallocator; destroying an event that work still waits
 * on is safe, the driver keeps what the wait needs).
 */
#include "api/eventobject.h"

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/stream.h"
#include "api/streamobject.h"

#include <time.h>

typedef struct {
    PyObject_HEAD
#ifdef DEVARRAY_HAVE_CUDA
    cudaEvent_t event; /* NULL without a CUDA device */
#endif
    int timing;
    int recorded;
    int device;
    double host_ms; /* the host clock at record(), without a device */
} EventObject;

static PyTypeObject Event_Type;

#define EventObject_Check(op) PyObject_TypeCheck(op, &Event_Type)

#ifdef DEVARRAY_HAVE_CUDA
static int
eventobject_has_device(EventObject *self)
{
    return self->event != NULL;
}
#endif

static PyObject *
event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"timing", NULL};
    int timing = 1;
    EventObject *self;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:Event", kwlist, &timing)) {
        return NULL;
    }
    self = (EventObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->timing = timing;
    self->recorded = 0;
    self->device = 0;
    self->host_ms = 0.0;
#ifdef DEVARRAY_HAVE_CUDA
    self->event = NULL;
    if (device_cuda_available()) {
        cudaError_t err;
        /* an event belongs to the thread's current device */
        self->device = device_current(DA_BACKEND_CUDA);
        if (device_activate(DA_BACKEND_CUDA, self->device) < 0) {
            Py_DECREF(self);
            return NULL;
        }
        err = cudaEventCreateWithFlags(&self->event,
                                       timing ? cudaEventDefault : cudaEventDisableTiming);
        if (err != cudaSuccess) {
            self->event = NULL;
            Py_DECREF(self);
            cuda_error_raise(err, "cudaEventCreateWithFlags");
            return NULL;
        }
    }
#endif
    return (PyObject *)self;
}

static void
event_dealloc(EventObject *self)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (self->event != NULL) {
        (void)cudaEventDestroy(self->event);
        (void)cudaGetLastError();
    }
#endif
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static double
eventobject_host_clock_ms(void)
{
    struct timespec now;
    (void)clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static PyObject *
event_record(EventObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *stream = Py_None;
    uintptr_t handle = 0;
    int device;

    /* on the event's device: None is that device's current stream */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:record", kwlist, &stream) ||
        streamobject_resolve(stream, self->device, &handle, &device) < 0) {
        return NULL;
    }
    if (device != self->device) {
        PyErr_Format(PyExc_ValueError,
                     "record(): the event is on CUDA device %d, the stream on device %d",
                     self->device, device);
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (eventobject_has_device(self)) {
        cudaError_t err = cudaEventRecord(self->event, (cudaStream_t)handle);
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaEventRecord");
            return NULL;
        }
    }
#endif
    self->host_ms = eventobject_host_clock_ms();
    self->recorded = 1;
    Py_RETURN_NONE;
}

static PyObject *
event_synchronize(EventObject *self, PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    if (eventobject_has_device(self)) {
        cudaError_t err;
        if (stream_check_sync("Event.synchronize()") < 0) {
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        err = cudaEventSynchronize(self->event);
        Py_END_ALLOW_THREADS
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaEventSynchronize");
            return NULL;
        }
    }
#else
    (void)self;
#endif
    Py_RETURN_NONE;
}

static PyObject *
event_query(EventObject *self, PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    if (eventobject_has_device(self)) {
        cudaError_t err = cudaEventQuery(self->event);
        if (err == cudaErrorNotReady) {
            (void)cudaGetLastError();
            Py_RETURN_FALSE;
        }
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaEventQuery");
            return NULL;
        }
    }
#else
    (void)self;
#endif
    Py_RETURN_TRUE;
}

static PyObject *
event_elapsed_time(EventObject *self, PyObject *end_obj)
{
    EventObject *end;
    float ms = 0.0f;

    if (!EventObject_Check(end_obj)) {
        PyErr_Format(PyExc_TypeError, "elapsed_time() takes a devarray.Event, not %.200s",
                     Py_TYPE(end_obj)->tp_name);
        return NULL;
    }
    end = (EventObject *)end_obj;
    if (!self->timing || !end->timing) {
        PyErr_SetString(PyExc_ValueError,
                        "elapsed_time() needs two events made with timing=True");
        return NULL;
    }
    if (!self->recorded || !end->recorded) {
        PyErr_SetString(PyExc_RuntimeError,
                        "elapsed_time() needs both events recorded first");
        return NULL;
    }
    if (self->device != end->device) {
        PyErr_Format(PyExc_ValueError,
                     "elapsed_time(): the events are on devices %d and %d",
                     self->device, end->device);
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (eventobject_has_device(self)) {
        cudaError_t err = cudaEventElapsedTime(&ms, self->event, end->event);
        if (err == cudaErrorNotReady) {
            (void)cudaGetLastError();
            PyErr_SetString(PyExc_RuntimeError,
                            "elapsed_time(): the work before one of the events has "
                            "not finished (synchronize the end event first)");
            return NULL;
        }
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaEventElapsedTime");
            return NULL;
        }
        return PyFloat_FromDouble((double)ms);
    }
#endif
    (void)ms;
    return PyFloat_FromDouble(end->host_ms - self->host_ms);
}

/* Also Stream.wait_event(event), which calls event.wait(stream) as
   PyTorch's does. */
static PyObject *
event_wait_on(EventObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *stream = Py_None;
    uintptr_t handle = 0;
    int device;

    /* None is the current device's current stream */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:wait", kwlist, &stream) ||
        streamobject_resolve(stream, device_current(DA_BACKEND_CUDA), &handle, &device) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (eventobject_has_device(self)) {
        cudaError_t err;
        if (self->device != device) {
            PyErr_Format(PyExc_ValueError,
                         "the event is on CUDA device %d, the stream on device %d",
                         self->device, device);
            return NULL;
        }
        err = cudaStreamWaitEvent((cudaStream_t)handle, self->event, 0);
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaStreamWaitEvent");
            return NULL;
        }
    }
#else
    (void)self;
#endif
    Py_RETURN_NONE;
}

static PyObject *
event_get_timing(EventObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(self->timing);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=None)\n--\n\nMark the point after the work queued so far on "
     "`stream` (the current stream by default)."},
    {"wait", (PyCFunction)(void (*)(void))event_wait_on, METH_VARARGS | METH_KEYWORDS,
     "wait(stream=None)\n--\n\nMake work queued on `stream` (the current one by "
     "default) from now on wait for this event, on the device."},
    {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait until the work before the recorded point has "
     "finished."},
    {"query", (PyCFunction)event_query, METH_NOARGS,
     "query()\n--\n\nWhether the work before the recorded point has finished "
     "(True for an event never recorded)."},
    {"elapsed_time", (PyCFunction)event_elapsed_time, METH_O,
     "elapsed_time(end)\n--\n\nMilliseconds from this event to `end`, both "
     "recorded, made with timing=True and complete."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef event_getset[] = {
    {"timing", (getter)event_get_timing, NULL, "Whether the event can time.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Event_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.Event",
    .tp_basicsize = sizeof(EventObject),
    .tp_dealloc = (destructor)event_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Event(timing=True)\n--\n\nA CUDA event: record it on a stream, "
              "wait for it, make streams wait for it, time work between two.",
    .tp_methods = event_methods,
    .tp_getset = event_getset,
    .tp_new = event_new,
};

int
eventobject_module_init(PyObject *module)
{
    if (PyType_Ready(&Event_Type) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "Event", (PyObject *)&Event_Type);
}
