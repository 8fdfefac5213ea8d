/*
 * Streams: which CUDA stream devarray queues work on, and ordering between
 * streams on the device (event record + wait), never by blocking the host.
 *
 * Each thread has a current stream on each device: that device's default
 * stream (the legacy one, or the per-thread one when that mode is chosen)
 * unless a devarray.Stream made on that device is entered with `with`.
 * Work runs on the current stream of the active device (device.h).  Every launch, copy, allocation and free asks
 * stream_current(), which also stamps the stream with a global sequence
 * number: the registry of every stream devarray has used, with the last
 * stamp of each, is what makes frees safe across streams (see stream.c).
 *
 * The Python types (Stream, ExternalStream, Event, Graph) are in
 * streamobject.c; this file holds the state they and the pool share.
 */
#ifndef DEVARRAY_SRC_STREAM_H_
#define DEVARRAY_SRC_STREAM_H_

#include "base/common.h"

/* The stream a Python integer names, per the interfaces; -1 with ValueError
   for 0 (ambiguous, and disallowed by both specifications). */
int stream_from_python(PyObject *obj, uintptr_t *stream);

/* The sequence number of the latest stamp: an array records it when its
   memory is allocated. */
uint64_t stream_clock(void);

/* Add _set_cross_stream_frees() to `module`; read DEVARRAY_DEFAULT_STREAM
   (-1 with ValueError for a bad value). */
int stream_module_init(PyObject *module);

/* Choose the per-thread default stream (1) or the legacy one (0) as the
   default; read DEVARRAY_DEFAULT_STREAM ("legacy" or "per-thread") on first
   use.  -1 with ValueError for a bad environment value. */
int stream_set_per_thread_default(int per_thread);
int stream_per_thread_default(void);


#ifdef DEVARRAY_HAVE_CUDA
/* A stream devarray knows.  Entries live in the registry from creation
   until their last work is known complete after they were retired; they
   are touched with the GIL held. */
typedef struct stream_entry {
    cudaStream_t handle;
    /* where an event is recorded to order after this stream's work: the
       handle itself, or the legacy stream for the per-thread default
       stream, whose handle names a different stream in each thread */
    cudaStream_t record_on;
    uint64_t last_use;
    cudaEvent_t event;
    uint64_t event_seq;     /* last_use when `event` was recorded (0: never) */
    cudaStream_t waited_by; /* the last stream made to wait on `event` */
    uint64_t waited_seq;
    int owned;     /* devarray created the handle and destroys it */
    int retired;   /* the handle is gone; `event` marks its last work */
    int capturing; /* a CUDA graph is being captured on it */
    int device;
} stream_entry;

/* The calling thread's current stream on the active CUDA device: its legacy
   default stream (handle 0) unless a devarray.Stream of that device is
   current.  Every launch, copy,
   allocation and free asks here, and the stream is marked as having devarray
   work queued from now on (what makes frees safe across streams). */
cudaStream_t stream_current(void);

/* The current stream's entry (the default stream's when none is entered). */
stream_entry *stream_current_entry(void);

/* stream_current and its entry for device `device` (an ordinal set up
   before), whichever device is active. */
cudaStream_t stream_current_on(int device);
stream_entry *stream_current_entry_on(int device);

/* The active device's default stream's entry: legacy, or per-thread when
   chosen. */
stream_entry *stream_default_entry(void);

/* Device 0's legacy default stream's entry (0) or per-thread one's (1). */
stream_entry *stream_builtin_entry(int per_thread);

/* A new registry entry for `handle` (owned: destroyed by stream_retire);
   NULL with MemoryError. */
stream_entry *stream_register(cudaStream_t handle, int owned);

/* Forget `entry`'s handle: record where its work ends (so later frees still
   wait for it), destroy the handle if owned.  The entry itself is freed once
   that work is complete.  Never raises (a broken context has raised
   elsewhere already). */
void stream_retire(stream_entry *entry);

/* Make `entry` the calling thread's current stream, remembering the previous
   one; stream_pop restores it.  -1 with RuntimeError when nested past the
   limit, or when popping anything but the innermost. */
int stream_push(stream_entry *entry);
int stream_pop(stream_entry *entry);

/* Graph capture on the calling thread: between begin and end, frees of
   memory born before the capture are deferred (stream_free_deferred says
   so) and synchronisations are refused (stream_check_sync). */
void stream_capture_begin(stream_entry *entry);
void stream_capture_end(stream_entry *entry);
/* Whether a free of memory born at `birth` must wait for the end of this
   thread's capture. */
int stream_free_deferred(uint64_t birth);

/* 0 when the calling thread may wait for the device; -1 with RuntimeError
   naming `what` while it captures a CUDA graph, where a synchronisation
   would invalidate the capture. */
int stream_check_sync(const char *what);

/* Order `free_stream` after the work queued since `birth` on every other
   stream, so that memory born then and freed on `free_stream` is reused only
   after every stream that may have used it is done.  Returns the CUDA error
   (the caller cannot raise: frees run in deallocators). */
cudaError_t stream_order_free(cudaStream_t free_stream, uint64_t birth);

/* Make `waiter` wait, on the device, for the work queued so far on
   `producer` (raw handles: 0 the legacy stream).  0, or -1 with
   devarray.CUDAError. */
int stream_wait(cudaStream_t waiter, cudaStream_t producer);

/* The integer the exchange protocols use for `handle`: 1 for the legacy
   default stream, 2 for the per-thread one, else the handle. */
uintptr_t stream_protocol_value(cudaStream_t handle);
#endif

#endif /* DEVARRAY_SRC_STREAM_H_ */
