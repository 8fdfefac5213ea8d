/*
 * Memory for arrays on either backend.
 *
 * CUDA: blocks of at most 4 KiB come from slabs of the active device
 * allocated with cudaMalloc (on the legacy stream and devarray.Streams),
 * others from the active device's stream-ordered pool on the current
 * stream; all are freed on their own device in stream order, after every
 * stream that may have used them.  Host: aligned_alloc, large blocks
 * aligned and advised as huge pages.  A failed CUDA call raises devarray.CUDAError, a failed
 * allocation MemoryError.
 *
 * Every place (each CUDA device, and the host) counts the bytes its blocks
 * from pool_malloc hold now and at most, and may have a limit past which
 * pool_malloc raises MemoryError (devarray.memory_stats and friends).
 */
#ifndef DEVARRAY_SRC_POOL_H_
#define DEVARRAY_SRC_POOL_H_

#include "base/common.h"
#include "runtime/device.h"

/* Set up the small-block lists, and every place without a memory limit. */
void pool_init(void);

/* Allocate `nbytes` (may be 0: returns a non-NULL dummy that must still be
   passed to pool_free) on `backend`.  Device memory comes from the
   stream-ordered pool; on exhaustion the pool is trimmed and the request
   retried once, then MemoryError names the bytes and the free/total memory.
   Alignment is at least 256 bytes on CUDA, 64 on the host.  A request that
   would take the place's bytes in use past its limit raises MemoryError
   naming the limit. */
void *pool_malloc(int backend, size_t nbytes);

/* Free a temporary of `nbytes` (as allocated): a block used only on the
   current stream, by the call that allocated it. */
void pool_free(int backend, void *ptr, size_t nbytes);

/* Free an array's block of `nbytes`, born at stream_clock() value `birth` on
   CUDA device `device`: on that device (whatever device is active; the
   active one is restored), after every stream that may have used it since
   (stream_order_free), and after the graph capture under way on this thread
   if it is older. */
void pool_free_array(int backend, int device, void *ptr, size_t nbytes,
                     uint64_t birth);

/* What a place's memory looks like (bytes). */
typedef struct {
    uint64_t in_use; /* blocks handed out by pool_malloc and not freed */
    uint64_t peak;   /* the most in_use since start or pool_reset_peak */
    uint64_t held;   /* taken from the driver or the OS: in use or cached */
    uint64_t limit;  /* UINT64_MAX: none */
} pool_usage;

/* The usage of CUDA device `device` (a valid ordinal, set up) or of the
   host.  0, or -1 with CUDAError. */
int pool_usage_of(int backend, int device, pool_usage *usage);

/* Peak := bytes in use now. */
void pool_reset_peak(int backend, int device);

/* Refuse allocations past `limit` bytes in use (UINT64_MAX: no limit). */
void pool_set_limit(int backend, int device, uint64_t limit);

/* Give cached device memory of `device` back to the driver: wait for the
   device, trim its stream-ordered pool, free the small-block slabs none of
   whose blocks is in use.  Nothing to do on the host.  Refused during a
   graph capture.  0, or -1 with an exception. */
int pool_release(int backend, int device);

/* Run the frees deferred while this thread captured a graph. */
void pool_release_deferred(void);

#ifdef DEVARRAY_HAVE_CUDA
/* `stream` is about to be destroyed: its free small blocks go to the legacy
   stream, ordered after its work.  Never raises. */
void pool_forget_stream(cudaStream_t stream);
#endif

#endif /* DEVARRAY_SRC_POOL_H_ */
