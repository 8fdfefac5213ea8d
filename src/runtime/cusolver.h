/*
 * cuSOLVER, loaded at first use (dynlib.h's search), never at import: the
 * dense factorizations devarray.linalg is composed of on CUDA.
 *
 * Every routine takes `batch` matrices stored one after the other,
 * COLUMN-major as LAPACK wants them (devarray's row-major arrays are their
 * transposes; devarray/linalg.py arranges which), works on the calling
 * thread's current stream of CUDA device `device`, which is active, with
 * that device's handle and workspaces from devarray's pool, and writes
 * LAPACK's info per matrix into `info` (batch int32 on the device: 0, or
 * the failing step, 1-based).  0, or -1 with an exception: RuntimeError
 * naming what to install when no cuSOLVER is found, devarray.CUDAError
 * when a call fails.  typenum is float32, float64, complex64 or complex128.
 */
#ifndef DEVARRAY_SRC_CUSOLVER_H_
#define DEVARRAY_SRC_CUSOLVER_H_

#include "base/common.h"

#ifdef DEVARRAY_HAVE_CUDA
/* LU with partial pivoting of n x n matrices in place; pivots (batch x n
   int64, 1-based rows as LAPACK's). */
int cusolver_getrf(int device, int typenum, int64_t n, int64_t batch, void *a, int64_t *pivots,
                   int32_t *info);

/* Solves op(A) X = B in place of b (n x nrhs each) from getrf's factors;
   op is the transpose when `transpose` (not conjugated).  No info: only
   getrf's reports the matrix. */
int cusolver_getrs(int device, int typenum, int64_t n, int64_t nrhs, int64_t batch,
                   int transpose, const void *lu, const int64_t *pivots, void *b);

/* Cholesky A = L L^H of Hermitian positive-definite matrices in place,
   reading and writing the lower triangle (the upper is left as it was:
   cuSOLVER's lower variant is about twice as fast as its upper one). */
int cusolver_potrf(int device, int typenum, int64_t n, int64_t batch, void *a, int32_t *info);

/* Eigenvalues ascending into w (batch x n, real of typenum's precision)
   of Hermitian matrices whose upper triangle is read; with `vectors`, the
   orthonormal eigenvectors replace a as columns. */
int cusolver_syevd(int device, int typenum, int64_t n, int64_t batch, int vectors, void *a,
                   void *w, int32_t *info);

/* Singular values (descending, real) into s (batch x n) of m x n matrices
   with m >= n, which are destroyed.  job 'A': u m x m and vt n x n; 'S':
   u m x n and vt n x n; 'N': neither (u and vt unused). vt is V^H. */
int cusolver_gesvd(int device, int typenum, int64_t m, int64_t n, int64_t batch, char job,
                   void *a, void *s, void *u, void *vt, int32_t *info);

/* The SVD by Jacobi rotations of m x n matrices (any shape; each
   element count an int), destroying them: singular values into s (batch x
   k, k = min(m, n)) and, with `vectors`, U into u and V (not V^H) into v.
   Matrices of at most 32 x 32 go in one batched call per 2**30 of them and
   give the full u (m x m) and v (n x n) whatever econ says; larger ones
   one call each, u m x k and v n x k where econ, else full.  u and v are
   written even without vectors (cuSOLVER's scratch).  info > 0: no
   convergence within cuSOLVER's default sweeps. */
int cusolver_gesvdj(int device, int typenum, int64_t m, int64_t n, int64_t batch, int vectors,
                    int econ, void *a, void *s, void *u, void *v, int32_t *info);

/* QR of m x n matrices in place: R on and above the diagonal, Householder
   reflectors below, their scalars in tau (batch x min(m, n)). */
int cusolver_geqrf(int device, int typenum, int64_t m, int64_t n, int64_t batch, void *a,
                   void *tau, int32_t *info);

/* The m x n matrices Q (m >= n >= k) with orthonormal columns from the
   first k reflectors geqrf left in a's columns, in place of a. */
int cusolver_orgqr(int device, int typenum, int64_t m, int64_t n, int64_t k, int64_t batch,
                   void *a, const void *tau, int32_t *info);

/* Eigenvalues w (batch x n) and, with `vectors`, right eigenvectors vr
   (batch x n x n, columns of unit norm) of general complex matrices, which
   are destroyed.  typenum complex64 or complex128. */
int cusolver_geev(int device, int typenum, int64_t n, int64_t batch, int vectors, void *a,
                  void *w, void *vr, int32_t *info);
#endif

#endif /* DEVARRAY_SRC_CUSOLVER_H_ */
