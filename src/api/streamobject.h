/*
 * devarray.Stream and devarray.ExternalStream, the thread's current stream
 * as Python sees it (current_stream(), `with stream:`), and the choice of the
 * default stream (set_default_stream, DEVARRAY_DEFAULT_STREAM).
 *
 * Without a usable CUDA device the same API exists and does nothing: a
 * Stream has handle 0, synchronize() returns at once, query() is True.
 */
#ifndef DEVARRAY_SRC_STREAMOBJECT_H_
#define DEVARRAY_SRC_STREAMOBJECT_H_

#include "base/common.h"

/* The types' Python layout, shared with graphobject.c and eventobject.c. */
typedef struct {
    PyObject_HEAD
#ifdef DEVARRAY_HAVE_CUDA
    struct stream_entry *entry; /* NULL: closed, or no CUDA device */
#endif
    uintptr_t handle;
    int priority;
    int flags;
    int entered; /* `with` blocks (in any thread) that have it current */
    PyObject *owner; /* ExternalStream: the object whose stream it is */
} StreamObject;

enum {
    STREAMOBJECT_DEFAULT = 1,  /* a default stream: never closed */
    STREAMOBJECT_EXTERNAL = 2, /* not owned: close() only forgets it */
    STREAMOBJECT_CLOSED = 4,
    STREAMOBJECT_NON_BLOCKING = 8,
};

extern PyTypeObject Stream_Type;

#define StreamObject_Check(op) PyObject_TypeCheck(op, &Stream_Type)

/* Add Stream, ExternalStream, current_stream and set_default_stream. */
int streamobject_module_init(PyObject *module);

/* 0 when `self` is usable, else -1 with RuntimeError (closed). */
int streamobject_check_open(StreamObject *self);

/* The raw handle and CUDA device of a stream-like, that device made
   active: None is `default_device`'s current stream; a Stream is on its
   own device, except a default stream (whose handle names each device's)
   and a foreign object with __cuda_stream__ (whose device devarray cannot
   tell), which are taken as `default_device`'s.  0, or -1 with TypeError,
   ValueError, RuntimeError (a closed stream) or devarray.CUDAError. */
int streamobject_resolve(PyObject *obj, int default_device, uintptr_t *handle, int *device);

/* Make `self` the calling thread's current stream until streamobject_exit;
   -1 with an exception. */
int streamobject_enter(StreamObject *self);
int streamobject_exit(StreamObject *self);

#endif /* DEVARRAY_SRC_STREAMOBJECT_H_ */
