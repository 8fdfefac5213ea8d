/*
 * Copies between host memory and backend memory, and zero fills.
 *
 * On CUDA, large copies between pageable host memory and the device go
 * through a ring of pinned staging buffers (see transfer.c), small ones
 * through the driver's pageable path, and page-locked host memory is
 * reached by the DMA directly; copies from or into page-locked memory can
 * also be queued without waiting (transfer_copy_async).
 * Everything is ordered on the calling thread's current stream
 * (stream_current()).  On the host backend every kind is a memmove.
 * Failures raise devarray.CUDAError (or MemoryError while setting up the
 * ring or allocating host memory).
 */
#ifndef DEVARRAY_SRC_TRANSFER_H_
#define DEVARRAY_SRC_TRANSFER_H_

#include "base/common.h"
#include "runtime/device.h"

enum { DA_COPY_H2D, DA_COPY_D2H, DA_COPY_D2D };

/* Synchronous copy of nbytes between host memory and `backend` memory (on the
   host backend every kind is a memcpy).  Releases the GIL around blocking
   CUDA calls.  Returns 0 or -1 with an exception. */
int transfer_copy(int backend, void *dst, const void *src, size_t nbytes, int kind);

/* Set n bytes of backend memory to zero (asynchronous on CUDA). */
int transfer_memset_zero(int backend, void *dst, size_t nbytes);

/* Queue a copy of nbytes on the current stream and return without waiting.
   The host side must be page-locked (transfer_is_page_locked), and must
   stay allocated and untouched until the stream has passed the copy.  A
   memmove on the host backend.  0, or -1 with devarray.CUDAError. */
int transfer_copy_async(int backend, void *dst, const void *src, size_t nbytes,
                        int kind);

/* 1 when the nbytes at ptr are host memory that CUDA knows as page-locked
   (cudaHostAlloc, cudaHostRegister), else 0: always 0 without a usable
   CUDA device.  Raises nothing. */
int transfer_is_page_locked(const void *ptr, size_t nbytes);

/* nbytes of host memory (at least one byte): page-locked and portable
   across devices when page_locked (CUDA builds only; needs a usable
   device), else plain memory aligned to 64 bytes.  NULL with MemoryError
   or devarray.CUDAError. */
void *transfer_host_alloc(size_t nbytes, int page_locked);

/* Give back a block of transfer_host_alloc (page_locked as it was
   allocated).  Freeing page-locked memory waits for the device.  0, or -1
   with devarray.CUDAError (the block is lost then). */
int transfer_host_free(void *ptr, int page_locked);

#endif /* DEVARRAY_SRC_TRANSFER_H_ */
