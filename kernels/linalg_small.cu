/*
 * da_cuda_small_solve, da_cuda_small_lu, da_cuda_small_cholesky
 * (kernels/linalg_small.h): LU with partial pivoting, the solves on it, and
 * Cholesky, one thread per small matrix (kernels/linalg_small.cuh says
 * how).
 */
#include "linalg_small.cuh"

namespace {

/*
 * LU factorisation with partial pivoting of the n x n matrix m, LAPACK
 * getf2's algorithm: piv[k] is the 0-based row swapped with row k at step
 * k; returns info (0, or 1 + the first step with a zero pivot).  A zero
 * pivot leaves its column unscaled, and the trailing update still runs (a
 * no-op for finite values, since the column below is then zero too; it
 * carries a NaN on, as LAPACK's does).
 */
template <typename T, int N>
__device__ __forceinline__ int32_t
lu_factor(T (&m)[cap<N>::value][cap<N>::value], int (&piv)[cap<N>::value], int n)
{
    const int lim = bound<N>(n);
    typedef real<T> R;
    int32_t info = 0;
#pragma unroll
    for (int k = 0; k < lim; ++k) {
        if (k >= n) {
            break;
        }
        /* the first largest |m[j][k]|, j >= k: comparisons with NaN are
           false, so a NaN is never chosen over an earlier element (as the
           reference idamax) */
        int p = k;
        T best = R::abs_(m[k][k]);
#pragma unroll
        for (int j = k + 1; j < lim; ++j) {
            if (j >= n) {
                break;
            }
            const T v = R::abs_(m[j][k]);
            if (v > best) {
                best = v;
                p = j;
            }
        }
        piv[k] = p;
        if (p != k) {
            if constexpr (N != 0) {
                /* swap rows k and p by selects: p is not a compile-time
                   index, and indexing by it would move m to local memory */
#pragma unroll
                for (int c = 0; c < lim; ++c) {
                    if (c >= n) {
                        break;
                    }
                    T top = m[k][c];
#pragma unroll
                    for (int j = k + 1; j < lim; ++j) {
                        if (j >= n) {
                            break;
                        }
                        const T mine = m[j][c];
                        const bool hit = j == p;
                        m[j][c] = hit ? m[k][c] : mine;
                        top = hit ? mine : top;
                    }
                    m[k][c] = top;
                }
            }
            else {
                for (int c = 0; c < n; ++c) {
                    const T t = m[k][c];
                    m[k][c] = m[p][c];
                    m[p][c] = t;
                }
            }
        }
        const T pivot = m[k][k];
        if (pivot != T(0)) {
            if (R::abs_(pivot) >= R::sfmin()) {
                const T r = T(1) / pivot;
#pragma unroll
                for (int j = k + 1; j < lim; ++j) {
                    if (j >= n) {
                        break;
                    }
                    m[j][k] *= r;
                }
            }
            else {
#pragma unroll
                for (int j = k + 1; j < lim; ++j) {
                    if (j >= n) {
                        break;
                    }
                    m[j][k] /= pivot;
                }
            }
        }
        else if (info == 0) {
            info = k + 1;
        }
#pragma unroll
        for (int j = k + 1; j < lim; ++j) {
            if (j >= n) {
                break;
            }
            const T l = m[j][k];
#pragma unroll
            for (int c = k + 1; c < lim; ++c) {
                if (c >= n) {
                    break;
                }
                m[j][c] -= l * m[k][c];
            }
        }
    }
    return info;
}
/* ---- solve -------------------------------------------------------------- */

/*
 * Factor A, then for each right-hand side column: gather it in the pivoted
 * row order (the permutation of all the swaps, computed once, addresses
 * memory rather than registers), solve L y = P b (unit lower) and U x = y,
 * and store it back to the same column.  One column at a time keeps only n
 * values of b live, so nrhs is unbounded; columns are independent, so
 * overwriting b in place is safe.
 */
template <typename T, int N>
__device__ __forceinline__ int32_t
solve_factor(const T *src, T (&m)[cap<N>::value][cap<N>::value],
             int (&perm)[cap<N>::value], int n)
{
    const int lim = bound<N>(n);
    int piv[cap<N>::value];
    load_matrix<T, N>(m, src, n);
    const int32_t info = lu_factor<T, N>(m, piv, n);
    /* perm[r]: the original row that ends in row r after the swaps */
#pragma unroll
    for (int r = 0; r < lim; ++r) {
        if (r >= n) {
            break;
        }
        perm[r] = r;
    }
#pragma unroll
    for (int k = 0; k < lim; ++k) {
        if (k >= n) {
            break;
        }
        const int p = piv[k];
        if constexpr (N != 0) {
            int top = perm[k];
#pragma unroll
            for (int j = k + 1; j < lim; ++j) {
                if (j >= n) {
                    break;
                }
                const int mine = perm[j];
                const bool hit = j == p;
                perm[j] = hit ? perm[k] : mine;
                top = hit ? mine : top;
            }
            perm[k] = top;
        }
        else {
            const int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
    }
    return info;
}

/* X = A^-1 B from solve_factor's m and perm; bi holds B (n x nrhs, row
   stride nrhs) and receives X. */
template <typename T, int N>
__device__ __forceinline__ void
solve_columns(const T (&m)[cap<N>::value][cap<N>::value], const int (&perm)[cap<N>::value],
              T *bi, int64_t nrhs, int n)
{
    const int lim = bound<N>(n);
    for (int64_t c = 0; c < nrhs; ++c) {
        T x[cap<N>::value];
#pragma unroll
        for (int r = 0; r < lim; ++r) {
            if (r >= n) {
                break;
            }
            x[r] = bi[perm[r] * nrhs + c];
        }
#pragma unroll
        for (int k = 0; k < lim; ++k) {
            if (k >= n) {
                break;
            }
#pragma unroll
            for (int j = k + 1; j < lim; ++j) {
                if (j >= n) {
                    break;
                }
                x[j] -= m[j][k] * x[k];
            }
        }
#pragma unroll
        for (int k = lim - 1; k >= 0; --k) {
            if (k >= n) {
                continue;
            }
            x[k] /= m[k][k];
#pragma unroll
            for (int j = 0; j < k; ++j) {
                x[j] -= m[j][k] * x[k];
            }
        }
#pragma unroll
        for (int r = 0; r < lim; ++r) {
            if (r >= n) {
                break;
            }
            bi[r * nrhs + c] = x[r];
        }
    }
}

/* solve through small_kernel: the runtime-n instantiation, with
   b in global memory */
template <typename T>
struct solve_op {
    T *b;
    int64_t nrhs;
    int32_t *info;
    static constexpr bool compute_bound = false;

    __device__ bool writes_a() const { return false; }

    template <int N>
    __device__ __forceinline__ void run(const T *src, int64_t i, int n_rt) const
    {
        constexpr int C = cap<N>::value;
        const int n = order<N>(n_rt);
        T m[C][C];
        int perm[C];
        const int32_t inf = solve_factor<T, N>(src, m, perm, n);
        info[i] = inf;
        if (inf == 0) {
            solve_columns<T, N>(m, perm, b + i * n * nrhs, nrhs, n);
        }
    }
};

/*
 * solve for an exact N: small_kernel's staging of A, and then, once every
 * thread holds its factors in registers, the same shared memory stages the
 * tile's right-hand sides when they fit (nrhs <= N: inv's identity, or a
 * vector), which matters as much as for A since b is read column by column.
 * A wider b is read from global memory.  The tile's b is one contiguous
 * span of count * d elements (d = N * nrhs <= 64), matrix t's part at
 * sh[t * S]; element e's matrix e / d is (e * (2^20 / d + 1)) >> 20,
 * exact while e * d < 2^20 (e < 128 d) and without overflow in 32 bits.
 */
template <typename T, int N>
__global__ void __launch_bounds__(tile<T, N>::threads)
small_solve_kernel(T *a, T *b, int64_t nrhs, int64_t batch, int32_t *info)
{
    constexpr int kT = tile<T, N>::threads;
    constexpr int NN = tile<T, N>::elems;
    constexpr int S = tile<T, N>::stride;
    __shared__ T sh[kT * S];
    const bool stage_b = nrhs <= N;
    const uint32_t d = (uint32_t)(N * nrhs);
    const uint32_t magic = stage_b && d > 0 ? (1u << 20) / d + 1u : 0u;
    for (int64_t base = (int64_t)blockIdx.x * kT; base < batch;
         base += (int64_t)gridDim.x * kT) {
        const int count = batch - base < kT ? (int)(batch - base) : kT;
        const bool active = (int)threadIdx.x < count;
        const int64_t i = base + threadIdx.x;
        const T *src = a + base * NN;
        for (int e = threadIdx.x; e < count * NN; e += kT) {
            const int t = e / NN;
            sh[t * S + (e - t * NN)] = src[e];
        }
        __syncthreads();
        T m[N][N];
        int perm[N];
        int32_t inf = 0;
        if (active) {
            inf = solve_factor<T, N>(sh + threadIdx.x * S, m, perm, N);
            info[i] = inf;
        }
        __syncthreads();
        if (stage_b) {
            T *bt = b + base * d;
            const int span = count * (int)d;
            for (int e = threadIdx.x; e < span; e += kT) {
                const int t = (int)(((uint32_t)e * magic) >> 20);
                sh[t * S + (e - t * (int)d)] = bt[e];
            }
            __syncthreads();
            if (active && inf == 0) {
                solve_columns<T, N>(m, perm, sh + threadIdx.x * S, nrhs, N);
            }
            __syncthreads();
            for (int e = threadIdx.x; e < span; e += kT) {
                const int t = (int)(((uint32_t)e * magic) >> 20);
                bt[e] = sh[t * S + (e - t * (int)d)];
            }
            __syncthreads();
        }
        else if (active && inf == 0) {
            solve_columns<T, N>(m, perm, b + i * N * nrhs, nrhs, N);
        }
    }
}

/* ---- lu ----------------------------------------------------------------- */

template <typename T>
struct lu_op {
    int64_t *pivots;
    int32_t *info;
    static constexpr bool compute_bound = false;

    __device__ bool writes_a() const { return true; }

    template <int N>
    __device__ __forceinline__ void run(T *src, int64_t i, int n_rt) const
    {
        constexpr int C = cap<N>::value;
        const int n = order<N>(n_rt);
        const int lim = bound<N>(n);
        T m[C][C];
        int piv[C];
        load_matrix<T, N>(m, src, n);
        info[i] = lu_factor<T, N>(m, piv, n);
        store_matrix<T, N>(m, src, n);
#pragma unroll
        for (int k = 0; k < lim; ++k) {
            if (k >= n) {
                break;
            }
            pivots[i * n + k] = piv[k] + 1;
        }
    }
};

/* ---- cholesky ----------------------------------------------------------- */

/*
 * LAPACK potf2's lower, left-looking order: column j's diagonal is
 * a_jj - sum_k l_jk^2 (k < j), then each l_ij = (a_ij - sum_k l_ik l_jk)
 * times the reciprocal of l_jj.  Only the lower triangle is read or kept,
 * so the upper half of m is never touched (and, unrolled, takes no
 * registers).
 */
template <typename T>
struct cholesky_op {
    int32_t *info;
    static constexpr bool compute_bound = false;

    __device__ bool writes_a() const { return true; }

    template <int N>
    __device__ __forceinline__ void run(T *src, int64_t i, int n_rt) const
    {
        typedef real<T> R;
        constexpr int C = cap<N>::value;
        const int n = order<N>(n_rt);
        const int lim = bound<N>(n);
        T m[C][C];
#pragma unroll
        for (int r = 0; r < lim; ++r) {
            if (r >= n) {
                break;
            }
#pragma unroll
            for (int c = 0; c <= r; ++c) {
                m[r][c] = src[r * n + c];
            }
        }
        int32_t inf = 0;
#pragma unroll
        for (int j = 0; j < lim; ++j) {
            if (j >= n) {
                break;
            }
            T dot = T(0);
#pragma unroll
            for (int k = 0; k < j; ++k) {
                dot += m[j][k] * m[j][k];
            }
            T d = m[j][j] - dot;
            if (!(d > T(0))) { /* <= 0 or NaN */
                inf = j + 1;
                break;
            }
            d = R::sqrt_(d);
            m[j][j] = d;
            const T r = T(1) / d;
#pragma unroll
            for (int q = j + 1; q < lim; ++q) {
                if (q >= n) {
                    break;
                }
                T s = m[q][j];
#pragma unroll
                for (int k = 0; k < j; ++k) {
                    s -= m[q][k] * m[j][k];
                }
                m[q][j] = s * r;
            }
        }
        info[i] = inf;
        if (inf != 0) {
            return; /* a is unspecified: leave it as it was */
        }
#pragma unroll
        for (int r = 0; r < lim; ++r) {
            if (r >= n) {
                break;
            }
#pragma unroll
            for (int c = 0; c < lim; ++c) {
                if (c >= n) {
                    break;
                }
                src[r * n + c] = c <= r ? m[r][c] : T(0);
            }
        }
    }
};
/* ---- launchers ----------------------------------------------------------- */

template <typename T, int N>
struct solve_launch {
    static cudaError_t
    run(int n, T *a, T *b, int64_t nrhs, int64_t batch, int32_t *info, cudaStream_t stream)
    {
        if constexpr (N > 0) {
            constexpr int kT = tile<T, N>::threads;
            const int64_t want = (batch + kT - 1) / kT;
            const unsigned int blocks = (unsigned int)(want < kMaxBlocks ? want : kMaxBlocks);
            small_solve_kernel<T, N><<<blocks, kT, 0, stream>>>(a, b, nrhs, batch, info);
            return cudaGetLastError();
        }
        else {
            return launch_op<T, N>(a, n, batch, solve_op<T>{b, nrhs, info}, stream);
        }
    }
};

template <typename T, int N>
struct lu_launch {
    static cudaError_t
    run(int n, T *a, int64_t batch, int64_t *pivots, int32_t *info, cudaStream_t stream)
    {
        return launch_op<T, N>(a, n, batch, lu_op<T>{pivots, info}, stream);
    }
};

template <typename T, int N>
struct cholesky_launch {
    static cudaError_t
    run(int n, T *a, int64_t batch, int32_t *info, cudaStream_t stream)
    {
        return launch_op<T, N>(a, n, batch, cholesky_op<T>{info}, stream);
    }
};

}  // namespace

extern "C" cudaError_t
da_cuda_small_solve(int typenum, void *a, void *b, int64_t n, int64_t nrhs, int64_t batch,
                    int32_t *info, cudaStream_t stream)
{
    if (!small_arguments_valid(typenum, n, batch) || nrhs < 0) {
        return cudaErrorInvalidValue;
    }
    if (batch == 0) {
        return cudaSuccess;
    }
    if (typenum == DA_FLOAT32) {
        return dispatch_n<solve_launch, float>((int)n, (float *)a, (float *)b, nrhs, batch, info,
                                               stream);
    }
    return dispatch_n<solve_launch, double>((int)n, (double *)a, (double *)b, nrhs, batch, info,
                                            stream);
}

extern "C" cudaError_t
da_cuda_small_lu(int typenum, void *a, int64_t n, int64_t batch, int64_t *pivots,
                 int32_t *info, cudaStream_t stream)
{
    if (!small_arguments_valid(typenum, n, batch)) {
        return cudaErrorInvalidValue;
    }
    if (batch == 0) {
        return cudaSuccess;
    }
    if (typenum == DA_FLOAT32) {
        return dispatch_n<lu_launch, float>((int)n, (float *)a, batch, pivots, info, stream);
    }
    return dispatch_n<lu_launch, double>((int)n, (double *)a, batch, pivots, info, stream);
}

extern "C" cudaError_t
da_cuda_small_cholesky(int typenum, void *a, int64_t n, int64_t batch, int32_t *info,
                       cudaStream_t stream)
{
    if (!small_arguments_valid(typenum, n, batch)) {
        return cudaErrorInvalidValue;
    }
    if (batch == 0) {
        return cudaSuccess;
    }
    if (typenum == DA_FLOAT32) {
        return dispatch_n<cholesky_launch, float>((int)n, (float *)a, batch, info, stream);
    }
    return dispatch_n<cholesky_launch, double>((int)n, (double *)a, batch, info, stream);
}
