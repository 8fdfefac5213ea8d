/*
 * Batched linear algebra on many small matrices (kernels/linalg_small.cu):
 * solve, the inverse, LU, the determinant, Cholesky and the symmetric
 * eigendecomposition of `batch` dense n x n matrices, n <= DA_SMALL_N_MAX,
 * one GPU thread per matrix.
 * For tens of thousands of 3x3 or 8x8 matrices this is far faster than
 * cuSOLVER's and cuBLAS's batched routines, which are built for larger
 * matrices.
 *
 * Common to every launcher (the contract of launch.h: they never allocate,
 * never print, are asynchronous on `stream` and return cudaGetLastError()
 * after the launch):
 *   - typenum is DA_FLOAT32 or DA_FLOAT64, and the arithmetic is done in
 *     that precision; any other dtype is cudaErrorInvalidValue;
 *   - matrices are C-contiguous and row-major, `batch` of them one after
 *     the other (matrix i starts at element i * n * n);
 *   - 1 <= n <= DA_SMALL_N_MAX, batch >= 0 (batch == 0 launches nothing
 *     and returns cudaSuccess); anything else is cudaErrorInvalidValue;
 *   - info holds `batch` int32 values of device memory, 0 for success.
 */
#ifndef DEVARRAY_KERNELS_LINALG_SMALL_H_
#define DEVARRAY_KERNELS_LINALG_SMALL_H_

#include <stdint.h>

#ifdef DEVARRAY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* The largest n of the small-matrix kernels. */
#define DA_SMALL_N_MAX 16

#ifdef __cplusplus
extern "C" {
#endif

#ifdef DEVARRAY_HAVE_CUDA

/*
 * Solve A_i X_i = B_i for each i by Gaussian elimination with partial
 * pivoting (LAPACK's gesv: the largest |pivot| of the column, the first of
 * equals).  a: batch n x n matrices, overwritten (contents afterwards
 * unspecified); b: batch n x nrhs row-major matrices (nrhs >= 0, any size),
 * overwritten with X.  info[i] = 0, or k + 1 for the first elimination
 * step k whose pivot is exactly 0 (A_i singular; X_i is then unspecified).
 */
cudaError_t da_cuda_small_solve(int typenum, void *a, void *b, int64_t n,
                                int64_t nrhs, int64_t batch, int32_t *info,
                                cudaStream_t stream);

/*
 * The inverse of each matrix in place, by Gauss-Jordan elimination with
 * partial pivoting (pivots chosen as da_cuda_small_solve's).  info[i] = 0,
 * or k + 1 for the first step k whose pivot is exactly 0 (A_i singular;
 * a_i is then unspecified).
 */
cudaError_t da_cuda_small_inv(int typenum, void *a, int64_t n, int64_t batch, int32_t *info,
                              cudaStream_t stream);

/*
 * LU factorisation with partial pivoting in place, LAPACK getrf's
 * conventions on the row-major matrix: on return a holds L (unit diagonal,
 * not stored) below the diagonal and U on and above it, and
 * pivots[i * n + k] is the 1-based row that was swapped with row k at step
 * k (k + 1: no swap).  info[i] = 0, or k + 1 for the first step whose pivot
 * is exactly 0; the factorisation goes on past it, as LAPACK's does, so
 * the diagonal of U is complete (det = (-1)^swaps * prod(diag U)).
 */
cudaError_t da_cuda_small_lu(int typenum, void *a, int64_t n, int64_t batch,
                             int64_t *pivots, int32_t *info, cudaStream_t stream);

/*
 * det[i] = the determinant of matrix i (det: batch values of a's dtype),
 * from the same elimination as da_cuda_small_lu: (-1)^swaps times the
 * product of U's diagonal.  a is read only.
 */
cudaError_t da_cuda_small_det(int typenum, void *a, void *det, int64_t n, int64_t batch,
                              cudaStream_t stream);

/*
 * Cholesky factorisation A = L L^T in place.  Reads the lower triangle
 * (a[r * n + c], c <= r) of each symmetric positive-definite matrix and
 * writes L there, with the strictly upper triangle set to 0.  info[i] = 0,
 * or k + 1 when the leading minor of order k + 1 is not positive definite
 * (the value under the square root is <= 0 or NaN); the matrix is then
 * unspecified.
 */
cudaError_t da_cuda_small_cholesky(int typenum, void *a, int64_t n, int64_t batch,
                                   int32_t *info, cudaStream_t stream);

/*
 * Symmetric eigendecomposition by cyclic Jacobi rotations.  Reads the lower
 * triangle of each matrix (the upper one is taken as its mirror).  w:
 * batch x n eigenvalues, ascending.  vectors != 0: a is overwritten with
 * the orthonormal eigenvectors as columns (a[r * n + c] is component r of
 * the eigenvector of w[c]); vectors == 0: a is unspecified afterwards.
 * Converged means an off-diagonal norm <= eps * the Frobenius norm (eps of
 * the dtype).  info[i] = 0, or 1 when the sweeps did not converge within
 * the sweep limit (the result is then the last iterate), or when the
 * lower triangle holds an Inf or NaN (w and the vectors are then NaN).
 * n == 1: w = a, the vector is [1] and info 0, whatever the value.
 */
cudaError_t da_cuda_small_eigh(int typenum, void *a, void *w, int64_t n,
                               int64_t batch, int vectors, int32_t *info,
                               cudaStream_t stream);

#endif /* DEVARRAY_HAVE_CUDA */

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_LINALG_SMALL_H_ */
