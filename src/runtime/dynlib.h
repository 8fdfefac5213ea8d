/*
 * Optional CUDA libraries (cuBLAS, NVRTC), found and dlopen()ed at first
 * use, never at import.  One search for all of them, in this order:
 *   1. each soname by the dynamic loader's default search
 *      (LD_LIBRARY_PATH, the ld.so cache, ...);
 *   2. the NVIDIA wheels' lib directories under each sys.path entry;
 *   3. lib64 of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
 * A caller's own override ($DEVARRAY_CUBLAS, $DEVARRAY_NVRTC) goes first,
 * through dynlib_try.  Libraries are never dlclose()d once adopted.
 */
#ifndef DEVARRAY_SRC_DYNLIB_H_
#define DEVARRAY_SRC_DYNLIB_H_

#include "base/common.h"

#ifdef DEVARRAY_HAVE_CUDA

/* The places tried and why the last one failed, for the caller's message. */
typedef struct {
    char tried[2048];
    char last_error[512];
} dynlib_log;

/* Take the opened `lib` (found at `path`) when it has every entry point
   needed: 1; else 0 (dynlib closes it). */
typedef int (*dynlib_adopt_fn)(void *lib, const char *path, void *ctx);

/* dlopen `path` and offer it to adopt; noted in log either way.  1 when
   adopted.  Sets no Python exception. */
int dynlib_try(const char *path, dynlib_adopt_fn adopt, void *ctx, dynlib_log *log);

/* The search above over the NULL-terminated `sonames` and `wheel_dirs`
   (relative to a sys.path entry, e.g. "nvidia/cu13/lib"): 1 when one was
   adopted, 0 when none.  Sets no Python exception. */
int dynlib_search(const char *const *sonames, const char *const *wheel_dirs,
                  dynlib_adopt_fn adopt, void *ctx, dynlib_log *log);

#endif

#endif /* DEVARRAY_SRC_DYNLIB_H_ */
