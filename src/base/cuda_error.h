/*
 * devarray.CUDAError, and the conversion of a failed CUDA call into it.
 *
 * Every file that calls CUDA reports a failure through cuda_error_raise, so
 * that each message names the call and the CUDA error and says whether the
 * context survived it (a sticky error leaves it unusable).
 */
#ifndef DEVARRAY_SRC_CUDA_ERROR_H_
#define DEVARRAY_SRC_CUDA_ERROR_H_

#include "base/common.h"

/* Create devarray.CUDAError, a RuntimeError subclass, and add it to
   `module` (also in builds without CUDA, so that the name always exists). */
int cuda_error_module_init(PyObject *module);

/* Raise devarray.CUDAError for the cudaError_t `code` returned by `call`
   (also in builds without CUDA, for extensions built against the C API);
   returns -1. */
int cuda_error_set(int code, const char *call);

/* Raise devarray.CUDAError with `message` as it is (a CUDA library's own
   status, e.g. cuBLAS's); returns -1. */
int cuda_error_message(const char *message);

#ifdef DEVARRAY_HAVE_CUDA
/* Turn a failed CUDA call into devarray.CUDAError naming the error, its
   message and `call`; returns -1.  Call only when err != cudaSuccess. */
int cuda_error_raise(cudaError_t err, const char *call);

/* Run `call`; when it fails, raise CUDAError naming its source text and
   goto error. */
#define CUDA_ERROR_CHECK(call)                        \
    do {                                              \
        cudaError_t cuda_check_err_ = (call);         \
        if (cuda_check_err_ != cudaSuccess) {         \
            cuda_error_raise(cuda_check_err_, #call); \
            goto error;                               \
        }                                             \
    } while (0)
#endif

#endif /* DEVARRAY_SRC_CUDA_ERROR_H_ */
