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
 */
#ifndef DEVARRAY_SRC_POOL_H_
#define DEVARRAY_SRC_POOL_H_

#include "base/common.h"
#include "runtime/device.h"

/* Set up the small-block lists and add _memory_in_use() to `module`. */
int pool_module_init(PyObject *module);

/* Allocate `nbytes` (may be 0: returns a non-NULL dummy that must still be
   passed to pool_free) on `backend`.  Device memory comes from the
   stream-ordered pool; on exhaustion the pool is trimmed and the request
   retried once, then MemoryError names the bytes and the free/total memory.
   Alignment is at least 256 bytes on CUDA, 64 on the host. */
void *pool_malloc(int backend, size_t nbytes);

/* Free a temporary: a block used only on the current stream, by the call
   that allocated it. */
void pool_free(int backend, void *ptr);

/* Free an array's block, born at stream_clock() value `birth` on CUDA
   device `device`: on that device (whatever device is active; the active
   one is restored), after every stream that may have used it since
   (stream_order_free), and after the graph capture under way on this thread
   if it is older. */
void pool_free_array(int backend, int device, void *ptr, uint64_t birth);

/* Run the frees deferred while this thread captured a graph. */
void pool_release_deferred(void);

#ifdef DEVARRAY_HAVE_CUDA
/* `stream` is about to be destroyed: its free small blocks go to the legacy
   stream, ordered after its work.  Never raises. */
void pool_forget_stream(cudaStream_t stream);
#endif

#endif /* DEVARRAY_SRC_POOL_H_ */
