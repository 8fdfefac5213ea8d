/*
 * Backends and memory.
 *
 * Two backends run devarray's ops: CUDA (device memory from the stream-ordered
 * pool, kernels in the kernels/ .cu files, everything on the legacy default stream) and
 * host (malloc'd memory, the C loops of host_kernels.c).  Every array records
 * the backend that owns its memory, so both can live in one process (the tests
 * run each case on both); the default for new arrays is chosen lazily on
 * first use from DEVARRAY_BACKEND, and changed by devarray.set_backend().
 *
 * Every function here that can fail returns -1 (or NULL) with a Python
 * exception set: CUDA failures raise devarray.CUDAError, a failed allocation
 * raises MemoryError.
 */
#ifndef DEVARRAY_SRC_BACKEND_H_
#define DEVARRAY_SRC_BACKEND_H_

#include "common.h"

enum { DA_BACKEND_HOST = 0, DA_BACKEND_CUDA = 1 };

/* devarray.CUDAError, a RuntimeError subclass (created at module init). */
extern PyObject *backend_CUDAError;

int backend_module_init(PyObject *module);

/* The backend new arrays get, selecting it on first use: DEVARRAY_BACKEND
   = "host" | "cuda" | unset (CUDA when a device is present, else host with
   one RuntimeWarning).  -1 with an exception (e.g. "cuda" without a GPU). */
int backend_default(void);

/* Whether this build has the CUDA backend and a usable device (selecting
   nothing, raising nothing). */
int backend_cuda_available(void);

/* The current device id for new arrays on `backend` (0 on the host). */
int backend_device(int backend);

/* Allocate `nbytes` (may be 0: returns a non-NULL dummy that must still be
   passed to backend_free) on `backend`.  Device memory comes from the
   stream-ordered pool; on exhaustion the pool is trimmed and the request
   retried once, then MemoryError names the bytes and the free/total memory.
   Alignment is at least 256 bytes on CUDA, 64 on the host. */
void *backend_malloc(int backend, size_t nbytes);
void backend_free(int backend, void *ptr);

enum { DA_COPY_H2D, DA_COPY_D2H, DA_COPY_D2D };

/* Synchronous copy of nbytes between host memory and `backend` memory (on the
   host backend every kind is a memcpy).  Releases the GIL around blocking
   CUDA calls.  Returns 0 or -1 with an exception. */
int backend_copy(int backend, void *dst, const void *src, size_t nbytes, int kind);

/* Set n bytes of backend memory to zero (asynchronous on CUDA). */
int backend_memset_zero(int backend, void *dst, size_t nbytes);

/* Run one elementwise op (see kernels/launch.h) on `backend`. */
int backend_elementwise(int backend, int op, int cls, const da_elementwise *e);

/* Segmented sum (see kernels/launch.h); temporary storage from the pool. */
int backend_sum(int backend, const void *in, int in_typenum, void *out,
                int acc_typenum, int64_t nsegments, int64_t seglen);

/* Wait for all queued work on `backend` (releases the GIL). */
int backend_synchronize(int backend);

#ifdef DEVARRAY_HAVE_CUDA
/* Turn a failed CUDA call into devarray.CUDAError naming the error, its
   message and `call`; returns -1.  Call only when err != cudaSuccess. */
int backend_cuda_error(cudaError_t err, const char *call);
#endif

#endif /* DEVARRAY_SRC_BACKEND_H_ */
