/*
 * Streams in the exchange protocols (CUDA Array Interface, DLPack): the
 * integers by which both name a stream, and ordering one stream after
 * another on the device (event record + wait), never by blocking the host.
 */
#ifndef DEVARRAY_SRC_STREAM_H_
#define DEVARRAY_SRC_STREAM_H_

#include "common.h"

/* The stream a Python integer names, per the interfaces; -1 with ValueError
   for 0 (ambiguous, and disallowed by both specifications). */
int stream_from_python(PyObject *obj, uintptr_t *stream);

#ifdef DEVARRAY_HAVE_CUDA
/* The calling thread's current stream on the CUDA device: the legacy default
   stream (handle 0) unless a devarray.Stream is current.  Every launch, copy,
   allocation and free asks here, and the stream is marked as having devarray
   work queued from now on (what makes frees safe across streams). */
cudaStream_t stream_current(void);

/* 0 when the calling thread may wait for the device; -1 with RuntimeError
   naming `what` while it captures a CUDA graph, where a synchronisation
   would invalidate the capture. */
int stream_check_sync(const char *what);

/* Make `waiter` wait, on the device, for the work queued so far on
   `producer`.  Streams follow the interface's numbering: 1 is the legacy
   default stream (devarray's own), 2 the per-thread default stream, others
   are cudaStream_t handles.  0, or -1 with devarray.CUDAError. */
int stream_wait(cudaStream_t waiter, cudaStream_t producer);
#endif

#endif /* DEVARRAY_SRC_STREAM_H_ */
