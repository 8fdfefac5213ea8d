/*
 * Streams: see stream.h.
 *
 * Ownership: this file owns the registry (an array of entry pointers, each
 * entry allocated here and freed here once retired and complete), the two
 * default entries of each device (static, never freed), and the thread-local
 * current-stream stacks (one stack; each entry knows its device, and the
 * current stream of a device is the innermost entry of that device).  Everything is touched with the GIL held.
 *
 * Frees safe across streams: the memory of an array born (allocated) at
 * sequence number B may have been used by any stream stamped at or after B.
 * Its free is queued on one stream F; before it, F waits on an event recorded
 * on each other stream stamped since B.  That is a superset of the streams
 * that touched the array (no use site can be missed, and no per-use
 * bookkeeping costs anything), and with one stream in play the scan finds
 * nothing to do.  An entry remembers the last event it recorded and which
 * stream waited on it, so dropping many arrays at once records once.
 */
#include "runtime/stream.h"

#include "base/cuda_error.h"
#include "runtime/device.h"

#include <stdlib.h>
#include <string.h>

/* Stamps start at 1; 0 means "never used". */
static uint64_t stream_seq = 1;

uint64_t
stream_clock(void)
{
    return stream_seq;
}

/* -1: DEVARRAY_DEFAULT_STREAM not read yet */
static int stream_default_mode = -1;

/* Cleared only by the test that shows what the ordering prevents. */
static int stream_cross_stream_frees = 1;

int
stream_set_per_thread_default(int per_thread)
{
    stream_default_mode = per_thread != 0;
    return 0;
}

int
stream_per_thread_default(void)
{
    if (stream_default_mode < 0) {
        const char *env = getenv("DEVARRAY_DEFAULT_STREAM");
        if (env == NULL || env[0] == '\0' || strcmp(env, "legacy") == 0) {
            stream_default_mode = 0;
        }
        else if (strcmp(env, "per-thread") == 0) {
            stream_default_mode = 1;
        }
        else {
            PyErr_Format(PyExc_ValueError,
                         "DEVARRAY_DEFAULT_STREAM must be 'legacy' or "
                         "'per-thread', got '%.100s'", env);
            return -1;
        }
    }
    return stream_default_mode;
}

#ifdef DEVARRAY_HAVE_CUDA

/* The default streams of each device, filled in on first use: the legacy
   stream's handle (0) and the per-thread one's name the current device's. */
static stream_entry stream_legacy_entries[DA_DEVICE_MAX];
static stream_entry stream_per_thread_entries[DA_DEVICE_MAX];
static stream_entry **stream_registry = NULL;
static size_t stream_registry_len = 0, stream_registry_cap = 0;

/* `with` blocks nest at most this deep per thread */
#define STREAM_STACK_DEPTH 64
static _Thread_local stream_entry *stream_stack[STREAM_STACK_DEPTH];
static _Thread_local int stream_stack_len = 0;
/* > 0 while this thread captures a graph; memory born before
   stream_capture_start is freed after the capture */
static _Thread_local int stream_capture_depth = 0;
static _Thread_local uint64_t stream_capture_start = 0;

/* Device `device`'s legacy (0) or per-thread (1) default stream. */
static stream_entry *
stream_builtin_on(int per_thread, int device)
{
    stream_entry *entry = per_thread ? &stream_per_thread_entries[device]
                                     : &stream_legacy_entries[device];
    if (per_thread && entry->handle == (cudaStream_t)0) {
        entry->handle = cudaStreamPerThread;
        entry->record_on = cudaStreamLegacy;
    }
    entry->device = device;
    return entry;
}

stream_entry *
stream_builtin_entry(int per_thread)
{
    return stream_builtin_on(per_thread, 0);
}

stream_entry *
stream_default_entry(void)
{
    /* a bad environment value was raised by stream_module_init at import */
    return stream_builtin_on(stream_default_mode == 1, device_active(DA_BACKEND_CUDA));
}

stream_entry *
stream_current_entry_on(int device)
{
    /* the innermost stream entered on `device`: each device has its own
       current stream (one compare when there is one device) */
    int i;
    for (i = stream_stack_len - 1; i >= 0; i--) {
        if (stream_stack[i]->device == device) {
            return stream_stack[i];
        }
    }
    return stream_builtin_on(stream_default_mode == 1, device);
}

stream_entry *
stream_current_entry(void)
{
    return stream_current_entry_on(device_active(DA_BACKEND_CUDA));
}

cudaStream_t
stream_current_on(int device)
{
    stream_entry *entry = stream_current_entry_on(device);
    entry->last_use = ++stream_seq;
    return entry->handle;
}

cudaStream_t
stream_current(void)
{
    return stream_current_on(device_active(DA_BACKEND_CUDA));
}

uintptr_t
stream_protocol_value(cudaStream_t handle)
{
    if (handle == (cudaStream_t)0 || handle == cudaStreamLegacy) {
        return 1;
    }
    return (uintptr_t)handle;
}

stream_entry *
stream_register(cudaStream_t handle, int owned)
{
    stream_entry *entry;
    if (stream_registry_len == stream_registry_cap) {
        size_t cap = stream_registry_cap ? 2 * stream_registry_cap : 16;
        stream_entry **grown =
            PyMem_RawRealloc(stream_registry, cap * sizeof(stream_entry *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        stream_registry = grown;
        stream_registry_cap = cap;
    }
    entry = PyMem_RawCalloc(1, sizeof(stream_entry));
    if (entry == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    entry->handle = handle;
    entry->record_on = handle;
    entry->owned = owned;
    entry->device = device_current(DA_BACKEND_CUDA);
    stream_registry[stream_registry_len++] = entry;
    return entry;
}

/* Free retired entries whose last work is complete. */
static void
stream_prune(void)
{
    size_t i = 0;
    while (i < stream_registry_len) {
        stream_entry *entry = stream_registry[i];
        if (entry->retired &&
            (entry->event == NULL || cudaEventQuery(entry->event) == cudaSuccess)) {
            if (entry->event != NULL) {
                (void)cudaEventDestroy(entry->event);
            }
            PyMem_RawFree(entry);
            stream_registry[i] = stream_registry[--stream_registry_len];
            continue;
        }
        i++;
    }
    (void)cudaGetLastError();
}

/* Record entry->event after the stream's latest work, unless it already
   marks it. */
static cudaError_t
stream_mark(stream_entry *entry)
{
    cudaError_t err;
    if (entry->event_seq == entry->last_use) {
        return cudaSuccess;
    }
    if (entry->event == NULL) {
        err = cudaEventCreateWithFlags(&entry->event, cudaEventDisableTiming);
        if (err != cudaSuccess) {
            entry->event = NULL;
            return err;
        }
    }
    err = cudaEventRecord(entry->event, entry->record_on);
    if (err == cudaSuccess) {
        entry->event_seq = entry->last_use;
    }
    return err;
}

void
stream_retire(stream_entry *entry)
{
    /* its event and handle belong to its device */
    int previous = device_enter_quiet(DA_BACKEND_CUDA, entry->device);
    if (entry->last_use == 0 || stream_mark(entry) != cudaSuccess) {
        /* nothing queued, or the context is broken: no work to wait for */
        entry->last_use = 0;
    }
    if (entry->owned) {
        /* safe with work pending: the driver releases it when done */
        (void)cudaStreamDestroy(entry->handle);
    }
    entry->retired = 1;
    (void)cudaGetLastError();
    device_restore(DA_BACKEND_CUDA, previous);
    stream_prune();
}

int
stream_push(stream_entry *entry)
{
    if (stream_stack_len == STREAM_STACK_DEPTH) {
        PyErr_Format(PyExc_RuntimeError,
                     "streams entered with 'with' nest at most %d deep",
                     STREAM_STACK_DEPTH);
        return -1;
    }
    stream_stack[stream_stack_len++] = entry;
    return 0;
}

int
stream_pop(stream_entry *entry)
{
    if (stream_stack_len == 0 || stream_stack[stream_stack_len - 1] != entry) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this stream is not the innermost current stream of "
                        "this thread: 'with' blocks must exit in order");
        return -1;
    }
    stream_stack_len--;
    return 0;
}

void
stream_capture_begin(stream_entry *entry)
{
    if (stream_capture_depth++ == 0) {
        stream_capture_start = stream_seq;
    }
    entry->capturing = 1;
}

void
stream_capture_end(stream_entry *entry)
{
    stream_capture_depth--;
    entry->capturing = 0;
}

int
stream_free_deferred(uint64_t birth)
{
    return stream_capture_depth > 0 && birth <= stream_capture_start;
}

int
stream_check_sync(const char *what)
{
    if (stream_capture_depth > 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s waits for the device, which is not allowed while "
                     "this thread captures a CUDA graph (it would invalidate "
                     "the capture); move it out of the graph_capture block",
                     what);
        return -1;
    }
    return 0;
}

/* Make `waiter` wait for `entry`'s work as of its last mark. */
static cudaError_t
stream_wait_entry(cudaStream_t waiter, stream_entry *entry)
{
    cudaError_t err;
    if (entry->waited_by == waiter && entry->waited_seq == entry->event_seq) {
        return cudaSuccess;
    }
    err = cudaStreamWaitEvent(waiter, entry->event, 0);
    if (err == cudaSuccess) {
        entry->waited_by = waiter;
        entry->waited_seq = entry->event_seq;
    }
    return err;
}

/* Order `waiter` after `entry` if it has been stamped since `birth`. */
static cudaError_t
stream_order_after(cudaStream_t waiter, stream_entry *entry, uint64_t birth)
{
    cudaError_t err;
    /* memory is used only by streams of its own device (ops refuse
       operands of two devices; peer copies are ordered with both) */
    if (entry->capturing || entry->last_use < birth || entry->last_use == 0 ||
        entry->device != device_active(DA_BACKEND_CUDA)) {
        return cudaSuccess;
    }
    /* the per-thread default stream names the freeing thread's own stream:
       another thread's is reached only through the legacy stream */
    if (entry->handle == waiter && entry->handle != cudaStreamPerThread) {
        return cudaSuccess;
    }
    if (!entry->retired && (err = stream_mark(entry)) != cudaSuccess) {
        return err;
    }
    return stream_wait_entry(waiter, entry);
}

cudaError_t
stream_order_free(cudaStream_t free_stream, uint64_t birth)
{
    cudaError_t err;
    size_t i;
    if (!stream_cross_stream_frees || stream_capture_depth > 0) {
        /* born during this thread's capture: only the captured stream can
           have used it (stream_free_deferred keeps older memory) */
        return cudaSuccess;
    }
    if ((err = stream_order_after(free_stream, stream_builtin_on(0, device_active(DA_BACKEND_CUDA)),
                                  birth)) != cudaSuccess ||
        (err = stream_order_after(free_stream, stream_builtin_on(1, device_active(DA_BACKEND_CUDA)),
                                  birth)) != cudaSuccess) {
        return err;
    }
    for (i = 0; i < stream_registry_len; i++) {
        err = stream_order_after(free_stream, stream_registry[i], birth);
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

int
stream_wait(cudaStream_t waiter, cudaStream_t producer)
{
    cudaEvent_t event = NULL;
    cudaError_t err;
    if (waiter == producer) {
        return 0;
    }
    err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (err != cudaSuccess) {
        return cuda_error_raise(err, "cudaEventCreateWithFlags");
    }
    err = cudaEventRecord(event, producer);
    if (err == cudaSuccess) {
        err = cudaStreamWaitEvent(waiter, event, 0);
    }
    /* destroying a recorded event is safe: the wait keeps what it needs */
    (void)cudaEventDestroy(event);
    return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaStreamWaitEvent");
}
#endif

static PyObject *
stream_py_set_cross_stream_frees(PyObject *Py_UNUSED(module), PyObject *flag)
{
    int value = PyObject_IsTrue(flag);
    if (value < 0) {
        return NULL;
    }
    stream_cross_stream_frees = value;
    Py_RETURN_NONE;
}

static PyMethodDef stream_methods[] = {
    {"_set_cross_stream_frees", stream_py_set_cross_stream_frees, METH_O,
     "_set_cross_stream_frees(flag)\n--\n\nFor tests only: whether frees wait "
     "for the other streams that may have used the memory (on by default)."},
    {NULL, NULL, 0, NULL},
};

int
stream_module_init(PyObject *module)
{
    if (stream_per_thread_default() < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, stream_methods);
}

int
stream_from_python(PyObject *obj, uintptr_t *stream)
{
    long long value;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "a stream must be an int or None, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    value = PyLong_AsLongLong(obj);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (value == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "stream 0 is ambiguous and not allowed: use 1 for the "
                        "legacy default stream or 2 for the per-thread one");
        return -1;
    }
    if (value < -1) {
        PyErr_Format(PyExc_ValueError, "invalid stream %lld", value);
        return -1;
    }
    *stream = (uintptr_t)value;
    return 0;
}
