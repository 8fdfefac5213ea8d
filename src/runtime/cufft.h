/*
 * cuFFT, loaded at first use (dynlib.h's search), never at import: the
 * transforms over the last one to three axes that devarray.fft builds
 * every other one from.
 */
#ifndef DEVARRAY_SRC_CUFFT_H_
#define DEVARRAY_SRC_CUFFT_H_

#include "base/common.h"

/* The transforms of cufft_exec. */
enum {
    CUFFT_KIND_FORWARD = 0, /* complex to complex, exp(-2 pi i jk/n) */
    CUFFT_KIND_INVERSE = 1, /* complex to complex, exp(+2 pi i jk/n), unscaled */
    CUFFT_KIND_R2C = 2,     /* real to its n/2 + 1 complex coefficients */
    CUFFT_KIND_C2R = 3,     /* n/2 + 1 coefficients to n reals, unscaled */
    CUFFT_KIND_COUNT = 4,
    CUFFT_RANK_MAX = 3,     /* cuFFT's plans cover 1 to 3 dimensions */
};

#ifdef DEVARRAY_HAVE_CUDA
/* `batch` transforms (kind above) of `rank` dimensions of extents `dims`
   (the real side's for R2C and C2R, whose complex side has dims[rank - 1]
   / 2 + 1 in the last), dense one after the other, in double precision or
   single, from `in` to `out` (distinct buffers; C2R overwrites `in`) on
   the calling thread's current stream of CUDA device `device`, which is
   active.  The plan is cached per (device, kind, precision, dims, batch);
   its work area comes from devarray's pool.  0, or -1 with an exception
   (RuntimeError naming what to install when no cuFFT is found,
   devarray.CUDAError when a call fails). */
int cufft_exec(int device, int kind, int is_double, int rank, const int64_t *dims,
               int64_t batch, void *in, void *out);
#endif

#endif /* DEVARRAY_SRC_CUFFT_H_ */
