/*
 * Backends: which one new arrays get, and running ops on either.
 *
 * Two backends run devarray's ops: CUDA (device memory from the stream-ordered
 * pool, kernels in the kernels/ .cu files, everything on the legacy default stream) and
 * host (malloc'd memory, the C loops of host_kernels.c).  Every array records
 * the backend that owns its memory, so both can live in one process (the tests
 * run each case on both); the default for new arrays is chosen lazily on
 * first use from DEVARRAY_BACKEND, and changed by devarray.set_backend().
 * Memory is pool.h's, copies transfer.h's, the device device.h's.
 *
 * Every function here that can fail returns -1 with a Python exception set:
 * CUDA failures raise devarray.CUDAError, a failed allocation raises
 * MemoryError.
 */
#ifndef DEVARRAY_SRC_BACKEND_H_
#define DEVARRAY_SRC_BACKEND_H_

#include "base/common.h"
#include "runtime/device.h"

/* Add backend(), set_backend() and synchronize() to `module`. */
int backend_module_init(PyObject *module);

/* A backend's name as Python sees it: "cuda" or "host". */
const char *backend_name(int backend);

/* The backend new arrays get, selecting it on first use: DEVARRAY_BACKEND
   = "host" | "cuda" | unset (CUDA when a device is present, else host with
   one RuntimeWarning).  -1 with an exception (e.g. "cuda" without a GPU). */
int backend_default(void);

/* Run one elementwise op (see kernels/launch.h) on `backend`. */
int backend_elementwise(int backend, int op, int cls, const da_elementwise *e);

/* out = cond ? x1 : x2 per element (see kernels/launch.h) on `backend`. */
int backend_where(int backend, const da_where *w);

/* clip in one pass (see kernels/launch.h, da_clip) where `backend` has a
   kernel for it: 1 when done, 0 when it has none (the caller clips in two
   passes of maximum and minimum), -1 with an exception. */
int backend_clip(int backend, const da_clip *c);

/* The creation kernels (see kernels/launch.h: da_range, da_linspace,
   da_tri) on `backend`. */
int backend_range(int backend, const da_range *r);
int backend_linspace(int backend, const da_linspace *l);
int backend_tri(int backend, const da_tri *t);

/* A random draw (see kernels/launch.h: da_random) on `backend`, on the
   current stream. */
int backend_random(int backend, const da_random *r);

/* scan: cumulative sums/products and argmax/argmin of contiguous segments,
   searchsorted (see kernels/launch.h); temporary storage from the pool.
   backend_searchsorted sets s->bad itself and returns 1 (no exception)
   when a sorter index it read is out of range, else 0 or -1. */
int backend_scan(int backend, int op, int typenum, const void *in, void *out,
                 int64_t nsegments, int64_t seglen);
int backend_argreduce(int backend, int op, int typenum, const void *in, int64_t *out,
                      int64_t nsegments, int64_t seglen);
/* argmax/argmin over the middle axis of (outer, len, inner) contiguous
   elements, read in place (launch.h: da_cuda_argreduce_columns), where
   `backend` has a kernel for it (CUDA, da_argreduce_has_columns): 1 when
   done, 0 when it has none (the caller moves the axis last and calls
   backend_argreduce), -1 with an exception. */
int backend_argreduce_columns(int backend, int op, int typenum, const void *in,
                              int64_t *out, int64_t outer, int64_t len, int64_t inner);
int backend_searchsorted(int backend, da_searchsorted *s);


/* ---- sort and sets (sort.c, sets.c) ---- */
/* Sort (see kernels/launch.h: da_sort); temporary storage from the pool. */
int backend_sort(int backend, const da_sort *s);
/* unique's two steps (launch.h: da_unique); the groups step's temporary
   storage from the pool. */
int backend_unique_groups(int backend, const da_unique *u);
/* The elements of sorted per entry of da_unique's groups on `backend`. */
int64_t backend_unique_chunk(int backend);
int backend_unique_scatter(int backend, const da_unique *u);


/* reduce: a reduction (see kernels/launch.h, da_reduce); temporary storage
   from the pool. */
int backend_reduce(int backend, const da_reduce *r);

/* count_nonzero, any() or all() (kernels/launch.h, da_nonzero_reduce) on
   `backend`. */
int backend_nonzero_reduce(int backend, const da_nonzero_reduce *r);

/* The variances of kernels/launch.h's da_moments on `backend` (CUDA only:
   the host composes var of reductions); temporary storage from the pool. */
int backend_moments(int backend, const da_moments *m);

/* Wait for all queued work on `backend` (releases the GIL). */
int backend_synchronize(int backend);

/* ---- indexing by arrays (index) ---- */

/* One da_gather (kernels/launch.h) in `mode` on `backend`; g->bad is set
   here to a word this function owns, and *bad receives its value after the
   launch (0, or k + 1 for an index array k with a value out of bounds):
   on CUDA that read-back synchronises.  WRITE checks every index first
   (CHECK, g->bsize >= 1) and writes nothing when one is out of bounds. */
int backend_gather(int backend, int mode, da_gather *g, int32_t *bad);

/* *count = the number of nonzero bytes of flags[0..n), n >= 1 (read back
   to the host: synchronises on CUDA). */
int backend_count_true(int backend, const uint8_t *flags, int64_t n, int64_t *count);

/* out = the elements of `in` whose flag is nonzero (see kernels/launch.h). */
int backend_select_flagged(int backend, const void *in, int itemsize,
                           const uint8_t *flags, int64_t n, void *out);

/* The coordinates of the true elements (see da_nonzero). */
int backend_nonzero(int backend, const da_nonzero *z);


/* linalg: the batched product of kernels/launch.h's da_matmul on `backend`
   (CUDA device `device`): cuBLAS (cublas.h) for float32, float64,
   complex64 and complex128, kernels/matmul.cu for the other dtypes. */
int backend_matmul(int backend, int device, const da_matmul *g);

/* ---- fusion (fuse) ---- */

/* Run a fused program (kernels/launch.h: da_fuse) on `backend`, on the
   current stream. */
int backend_fuse(int backend, const da_fuse *f);
/* Whether backend_fuse compiles programs at run time there (jit.h), so
   an interpreter pass is not the fastest way to reduce their results. */
int backend_fuse_compiles(int backend);

/* The full reduction op of f's results into the accumulator at out (see
   kernels/launch.h: da_cuda_fuse_reduce), in one pass; CUDA only. */
int backend_fuse_reduce(int backend, const da_fuse *f, int op, int acc_typenum, void *out);

#endif /* DEVARRAY_SRC_BACKEND_H_ */
