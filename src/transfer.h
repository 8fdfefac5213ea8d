/*
 * Copies between host memory and backend memory, and zero fills.
 *
 * On CUDA, large copies between pageable host memory and the device go
 * through a ring of pinned staging buffers (see transfer.c), small ones
 * through the driver's pageable path; everything is ordered on the legacy
 * default stream.  On the host backend every kind is a memmove.  Failures
 * raise devarray.CUDAError (or MemoryError while setting up the ring).
 */
#ifndef DEVARRAY_SRC_TRANSFER_H_
#define DEVARRAY_SRC_TRANSFER_H_

#include "common.h"
#include "device.h"

enum { DA_COPY_H2D, DA_COPY_D2H, DA_COPY_D2D };

/* Synchronous copy of nbytes between host memory and `backend` memory (on the
   host backend every kind is a memcpy).  Releases the GIL around blocking
   CUDA calls.  Returns 0 or -1 with an exception. */
int transfer_copy(int backend, void *dst, const void *src, size_t nbytes, int kind);

/* Set n bytes of backend memory to zero (asynchronous on CUDA). */
int transfer_memset_zero(int backend, void *dst, size_t nbytes);

#endif /* DEVARRAY_SRC_TRANSFER_H_ */
