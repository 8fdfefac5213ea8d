/*
 * Memory for arrays on either backend.
 *
 * CUDA: blocks of at most 4 KiB come from slabs allocated with cudaMalloc,
 * larger ones from the device's stream-ordered pool, and all are freed in
 * stream order.  Host: aligned_alloc, large blocks aligned and advised as
 * huge pages.  A failed CUDA call raises devarray.CUDAError, a failed
 * allocation MemoryError.
 */
#ifndef DEVARRAY_SRC_POOL_H_
#define DEVARRAY_SRC_POOL_H_

#include "common.h"
#include "device.h"

/* Add _memory_in_use() to `module`. */
int pool_module_init(PyObject *module);

/* Allocate `nbytes` (may be 0: returns a non-NULL dummy that must still be
   passed to pool_free) on `backend`.  Device memory comes from the
   stream-ordered pool; on exhaustion the pool is trimmed and the request
   retried once, then MemoryError names the bytes and the free/total memory.
   Alignment is at least 256 bytes on CUDA, 64 on the host. */
void *pool_malloc(int backend, size_t nbytes);
void pool_free(int backend, void *ptr);

#endif /* DEVARRAY_SRC_POOL_H_ */
