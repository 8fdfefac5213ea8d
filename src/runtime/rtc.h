/*
 * NVRTC, CUDA's run-time compiler, for src/runtime/jit.c: found at first use
 * ($DEVARRAY_NVRTC, then dynlib.h's search: the loader, the
 * nvidia-cuda-nvrtc wheel, the toolkits), never at import; accepted only
 * when it is the CUDA release devarray was built with (the device math
 * library comes with it: another release could round a transcendental
 * function differently from the build's kernels).  Sources are compiled
 * with the op table's headers (kernels/dtypes.h, ops.h, ops_int.h,
 * ops_math.h, optable.h, embedded by setup.py; their complex rows left
 * out), --fmad=false as the build's kernels are, and small stand-ins for
 * the toolkit headers they include, so no toolkit need be installed.
 */
#ifndef DEVARRAY_SRC_RTC_H_
#define DEVARRAY_SRC_RTC_H_

#include "base/common.h"

#ifdef DEVARRAY_HAVE_CUDA

#define RTC_HASH_SEED UINT64_C(0xcbf29ce484222325)

/* FNV-1a of len bytes at data, continuing from h (RTC_HASH_SEED first). */
uint64_t rtc_hash(const void *data, size_t len, uint64_t h);

/* Find NVRTC (the first call looks, later ones repeat its answer): 1 when
   usable, 0 when not, with why.  Sets no exception. */
int rtc_load(char *why, size_t why_bytes);

/* The oldest architecture NVRTC compiles for (sm_<arch>), 0 if unknown. */
int rtc_oldest_arch(void);

/* The cubin of `source` for sm_<arch>, from the disk cache when use_cache
   and it is there, else compiled (and stored).  1 with a PyMem buffer in
   *cubin; 0 when NVRTC fails (its log in why); -1 with an exception. */
int rtc_cubin(const char *source, int arch, int use_cache, char **cubin, size_t *bytes,
                char *why, size_t why_bytes);

#endif

#endif /* DEVARRAY_SRC_RTC_H_ */
