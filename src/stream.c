/*
 * Streams in the exchange protocols: see stream.h.  No state: each wait
 * makes its own event and destroys it once recorded.
 */
#include "stream.h"

#include "cuda_error.h"

#ifdef DEVARRAY_HAVE_CUDA
cudaStream_t
stream_current(void)
{
    return 0;
}

int
stream_check_sync(const char *what)
{
    (void)what;
    return 0;
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
