/*
 * da_cuda_small_solve, da_cuda_small_inv, da_cuda_small_lu,
 * da_cuda_small_det, da_cuda_small_cholesky and da_cuda_small_eigh
 * (kernels/linalg_small.h): batched linear algebra on
 * many small matrices, one thread per matrix.
 *
 * Each thread computes on its own matrix in shared memory.  A block first
 * copies its matrices, one contiguous span of global memory, into shared
 * memory with coalesced loads; each thread then factors its copy with
 * plain loops over a runtime n; results go back the same way.  Thread t's
 * matrix starts at element t * S, S = n * n or n * n + 1, whichever is
 * odd, so that the threads of a warp reading element (r, c) of their
 * matrices hit different banks.  An op may take a second region of the
 * same shape per thread (solve's right-hand sides where they fit, eigh's
 * eigenvectors); a block has as many threads, at most 128, as the regions
 * fit in 48 KiB of shared memory.
 *
 * Why not registers: a matrix lives in registers only when every index into
 * it is known at compile time, which takes one instantiation per order with
 * every loop unrolled.  Those for n = 3, 4 and 8 alone were 1.3 MB of the
 * wheel's kernels over its five architectures; shared memory takes any n
 * with one kernel per dtype and routine.
 *
 * The arithmetic follows LAPACK's unblocked routines (getf2/getrs, potf2)
 * in the matrix's own precision: a pivot column is scaled by the
 * reciprocal of the pivot (a division when the pivot is so small that its
 * reciprocal overflows), back substitution divides.  The build's
 * --fmad=false keeps every product rounded.
 */
#include <float.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "dtypes.h"
#include "linalg_small.h"

namespace {

constexpr int kMaxThreads = 128;
constexpr size_t kSharedBytes = 48 * 1024;
constexpr int64_t kMaxBlocks = 2147483647;
/* Jacobi converges quadratically, in a handful of sweeps at these sizes;
   the limit is only a guard */
constexpr int kMaxSweeps = 30;

template <typename T>
struct real;

template <>
struct real<float> {
    static __device__ __forceinline__ float eps() { return FLT_EPSILON; }
    /* the smallest x whose reciprocal does not overflow (LAPACK's sfmin) */
    static __device__ __forceinline__ float sfmin() { return FLT_MIN; }
    static __device__ __forceinline__ float sqrt_(float x) { return sqrtf(x); }
    static __device__ __forceinline__ float abs_(float x) { return fabsf(x); }
    static __device__ __forceinline__ float scalbn_(float x, int e) { return scalbnf(x, e); }
    static __device__ __forceinline__ int ilogb_(float x) { return ilogbf(x); }
    static __device__ __forceinline__ bool finite_(float x) { return isfinite(x); }
    static __device__ __forceinline__ bool nan_(float x) { return isnan(x); }
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
};

template <>
struct real<double> {
    static __device__ __forceinline__ double eps() { return DBL_EPSILON; }
    static __device__ __forceinline__ double sfmin() { return DBL_MIN; }
    static __device__ __forceinline__ double sqrt_(double x) { return sqrt(x); }
    static __device__ __forceinline__ double abs_(double x) { return fabs(x); }
    static __device__ __forceinline__ double scalbn_(double x, int e) { return scalbn(x, e); }
    static __device__ __forceinline__ int ilogb_(double x) { return ilogb(x); }
    static __device__ __forceinline__ bool finite_(double x) { return isfinite(x); }
    static __device__ __forceinline__ bool nan_(double x) { return isnan(x); }
    static __device__ __forceinline__ double nan()
    {
        return __longlong_as_double(0x7ff8000000000000LL);
    }
};

/* ---- the kernel ---------------------------------------------------------- */

/* The elements a thread's region takes in shared memory: odd, for the banks. */
__host__ __device__ __forceinline__ int
region_stride(int n)
{
    return (n * n) | 1;
}

/* Copy `count` spans of `span` elements, one after the other in global
   memory, to (into = true) or from the regions at sh + t * stride. */
template <typename T>
__device__ __forceinline__ void
copy_regions(T *sh, T *global, int count, int span, int stride, bool into)
{
    for (int e = threadIdx.x; e < count * span; e += blockDim.x) {
        const int t = e / span;
        T &mine = sh[t * stride + (e - t * span)];
        if (into) {
            mine = global[e];
        }
        else {
            global[e] = mine;
        }
    }
}

/*
 * Op is one routine (below).  op.run(m, second, i, n) computes matrix i,
 * whose element (r, c) is m[r * n + c] in shared memory, leaving its result
 * there; second is the thread's second region when op.regions() is 2.
 * op.writes_a() says whether a is an output.  b, when staged > 0, holds
 * `staged` elements per matrix that go through the second regions, in and
 * back out.  Every thread of a block takes part in the copies and
 * barriers, so the loop over tiles is uniform across the block.
 */
template <typename T, typename Op>
__global__ void __launch_bounds__(kMaxThreads)
small_kernel(T *a, T *b, int staged, int n, int64_t batch, Op op)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    T *sh = reinterpret_cast<T *>(shared_bytes);
    const int threads = blockDim.x;
    const int nn = n * n;
    const int stride = region_stride(n);
    T *second = sh + threads * stride;
    for (int64_t base = (int64_t)blockIdx.x * threads; base < batch;
         base += (int64_t)gridDim.x * threads) {
        const int count = batch - base < threads ? (int)(batch - base) : threads;
        copy_regions(sh, a + base * nn, count, nn, stride, true);
        if (staged > 0) {
            copy_regions(second, b + base * staged, count, staged, stride, true);
        }
        __syncthreads();
        if ((int)threadIdx.x < count) {
            op.run(sh + threadIdx.x * stride, second + threadIdx.x * stride,
                   base + threadIdx.x, n);
        }
        __syncthreads();
        if (op.writes_a()) {
            copy_regions(sh, a + base * nn, count, nn, stride, false);
        }
        if (staged > 0) {
            copy_regions(second, b + base * staged, count, staged, stride, false);
        }
        /* the next tile's copy must not overwrite sh while it is read */
        __syncthreads();
    }
}

/* staged: elements per matrix of b to stage (0: b is not staged). */
template <typename T, typename Op>
cudaError_t
launch_op(T *a, T *b, int staged, int n, int64_t batch, const Op &op, cudaStream_t stream)
{
    const size_t per_thread = (size_t)region_stride(n) * op.regions() * sizeof(T);
    int threads = (int)(kSharedBytes / per_thread);
    threads = threads > kMaxThreads ? kMaxThreads : threads;
    /* whole warps where the regions allow it (a 16 x 16 float64 matrix with
       its eigenvectors takes 4 KiB: 11 threads a block) */
    threads = threads >= 32 ? threads - threads % 32 : threads;
    const int64_t want = (batch + threads - 1) / threads;
    const unsigned int blocks = (unsigned int)(want < kMaxBlocks ? want : kMaxBlocks);
    small_kernel<T, Op><<<blocks, threads, threads * per_thread, stream>>>(a, b, staged, n,
                                                                           batch, op);
    return cudaGetLastError();
}

/* ---- LU, solve ----------------------------------------------------------- */

/*
 * Gaussian elimination with partial pivoting of the n x n matrix m, LAPACK
 * getf2's algorithm; every row swap and row operation also applies to the
 * n x nrhs matrix b (row-major) when b is not null, which leaves L^-1 P B
 * there as getrs's laswp and unit-lower trsm do, in the same order.  At
 * step k the pivot is the first largest |m[j][k]|, j >= k: comparisons
 * with NaN are false, so a NaN is never chosen over an earlier element (as
 * the reference idamax).  pivots, when not null, receives the 1-based row
 * swapped with row k at step k, and *swaps the number of steps that
 * swapped two rows.  Returns info: 0, or 1 + the first step
 * with a zero pivot; such a pivot leaves its column unscaled and the
 * trailing update still runs (a no-op for finite values, since the column
 * below is then zero too; it carries a NaN on, as LAPACK's does).
 */
template <typename T>
__device__ int32_t
eliminate(T *m, int n, T *b, int64_t nrhs, int64_t *pivots, int *swaps)
{
    typedef real<T> R;
    int32_t info = 0;
    *swaps = 0;
    for (int k = 0; k < n; ++k) {
        int p = k;
        T best = R::abs_(m[k * n + k]);
        for (int j = k + 1; j < n; ++j) {
            const T v = R::abs_(m[j * n + k]);
            if (v > best) {
                best = v;
                p = j;
            }
        }
        if (pivots != nullptr) {
            pivots[k] = p + 1;
        }
        if (p != k) {
            ++*swaps;
            for (int c = 0; c < n; ++c) {
                const T t = m[k * n + c];
                m[k * n + c] = m[p * n + c];
                m[p * n + c] = t;
            }
            for (int64_t c = 0; b != nullptr && c < nrhs; ++c) {
                const T t = b[k * nrhs + c];
                b[k * nrhs + c] = b[p * nrhs + c];
                b[p * nrhs + c] = t;
            }
        }
        const T pivot = m[k * n + k];
        if (pivot != T(0)) {
            const bool reciprocal = R::abs_(pivot) >= R::sfmin();
            const T r = T(1) / pivot;
            for (int j = k + 1; j < n; ++j) {
                m[j * n + k] = reciprocal ? m[j * n + k] * r : m[j * n + k] / pivot;
            }
        }
        else if (info == 0) {
            info = k + 1;
        }
        for (int j = k + 1; j < n; ++j) {
            const T l = m[j * n + k];
            for (int c = k + 1; c < n; ++c) {
                m[j * n + c] -= l * m[k * n + c];
            }
            for (int64_t c = 0; b != nullptr && c < nrhs; ++c) {
                b[j * nrhs + c] -= l * b[k * nrhs + c];
            }
        }
    }
    return info;
}

template <typename T>
struct lu_op {
    int64_t *pivots;
    int32_t *info;

    __device__ bool writes_a() const { return true; }
    __host__ __device__ int regions() const { return 1; }

    __device__ void run(T *m, T *, int64_t i, int n) const
    {
        int swaps;
        info[i] = eliminate<T>(m, n, (T *)nullptr, 0, pivots + i * n, &swaps);
    }
};

/* det = (-1)^swaps times the product of U's diagonal, as NumPy's (0 for a
   zero pivot, NaN where one carried a NaN on); a is left as it was. */
template <typename T>
struct det_op {
    T *det;

    __device__ bool writes_a() const { return false; }
    __host__ __device__ int regions() const { return 1; }

    __device__ void run(T *m, T *, int64_t i, int n) const
    {
        int swaps;
        eliminate<T>(m, n, (T *)nullptr, 0, nullptr, &swaps);
        T product = swaps % 2 == 0 ? T(1) : T(-1);
        for (int k = 0; k < n; ++k) {
            product *= m[k * n + k];
        }
        det[i] = product;
    }
};

/*
 * solve: elimination on [A | B], then back substitution on U, one column
 * of B at a time.  B goes through the second region when it fits there
 * (nrhs <= n: inv's identity, or a vector), else it is read and written in
 * global memory, where the columns, being independent, are safe to
 * overwrite in place.
 */
__host__ __device__ __forceinline__ bool
solve_stages_b(int64_t n, int64_t nrhs)
{
    return nrhs <= n;
}

template <typename T>
struct solve_op {
    T *b;
    int64_t nrhs;
    int32_t *info;

    __device__ bool writes_a() const { return false; }
    __host__ __device__ int regions() const { return 2; }

    __device__ void run(T *m, T *second, int64_t i, int n) const
    {
        T *bi = solve_stages_b(n, nrhs) ? second : b + i * n * nrhs;
        int swaps;
        const int32_t inf = eliminate<T>(m, n, bi, nrhs, nullptr, &swaps);
        info[i] = inf;
        if (inf != 0) {
            return; /* X is unspecified */
        }
        for (int64_t c = 0; c < nrhs; ++c) {
            for (int k = n - 1; k >= 0; --k) {
                const T x = bi[k * nrhs + c] / m[k * n + k];
                bi[k * nrhs + c] = x;
                for (int j = 0; j < k; ++j) {
                    bi[j * nrhs + c] -= m[j * n + k] * x;
                }
            }
        }
    }
};

/*
 * inv: Gauss-Jordan elimination with partial pivoting in place (the
 * inverse overwrites the matrix, column swaps at the end undoing the row
 * swaps): n^3 updates on one region, where solving A X = I would take
 * about 4n^3 / 3 on two, and half the shared memory lets twice the threads
 * run.  Pivots are chosen as in eliminate.
 */
template <typename T>
struct inv_op {
    int32_t *info;

    __device__ bool writes_a() const { return true; }
    __host__ __device__ int regions() const { return 1; }

    __device__ void run(T *m, T *, int64_t i, int n) const
    {
        typedef real<T> R;
        int8_t swapped_with[DA_SMALL_N_MAX];
        for (int k = 0; k < n; ++k) {
            int p = k;
            T best = R::abs_(m[k * n + k]);
            for (int j = k + 1; j < n; ++j) {
                const T v = R::abs_(m[j * n + k]);
                if (v > best) {
                    best = v;
                    p = j;
                }
            }
            swapped_with[k] = (int8_t)p;
            for (int c = 0; p != k && c < n; ++c) {
                const T t = m[k * n + c];
                m[k * n + c] = m[p * n + c];
                m[p * n + c] = t;
            }
            const T pivot = m[k * n + k];
            if (pivot == T(0)) {
                info[i] = k + 1; /* singular: the matrix is then unspecified */
                return;
            }
            const bool reciprocal = R::abs_(pivot) >= R::sfmin();
            const T r = T(1) / pivot;
            m[k * n + k] = T(1);
            for (int c = 0; c < n; ++c) {
                m[k * n + c] = reciprocal ? m[k * n + c] * r : m[k * n + c] / pivot;
            }
            for (int j = 0; j < n; ++j) {
                const T f = m[j * n + k];
                if (j == k || f == T(0)) {
                    continue;
                }
                m[j * n + k] = T(0);
                for (int c = 0; c < n; ++c) {
                    m[j * n + c] -= f * m[k * n + c];
                }
            }
        }
        for (int k = n - 1; k >= 0; --k) {
            const int p = swapped_with[k];
            for (int r = 0; p != k && r < n; ++r) {
                const T t = m[r * n + k];
                m[r * n + k] = m[r * n + p];
                m[r * n + p] = t;
            }
        }
        info[i] = 0;
    }
};

/* ---- cholesky ------------------------------------------------------------ */

/*
 * LAPACK potf2's lower, left-looking order: column j's diagonal is
 * a_jj - sum_k l_jk^2 (k < j), then each l_ij = (a_ij - sum_k l_ik l_jk)
 * times the reciprocal of l_jj.  Only the lower triangle is read; the
 * strictly upper one is set to 0 at the end.
 */
template <typename T>
struct cholesky_op {
    int32_t *info;

    __device__ bool writes_a() const { return true; }
    __host__ __device__ int regions() const { return 1; }

    __device__ void run(T *m, T *, int64_t i, int n) const
    {
        typedef real<T> R;
        for (int j = 0; j < n; ++j) {
            T dot = T(0);
            for (int k = 0; k < j; ++k) {
                dot += m[j * n + k] * m[j * n + k];
            }
            T d = m[j * n + j] - dot;
            if (!(d > T(0))) { /* <= 0 or NaN: the matrix is then unspecified */
                info[i] = j + 1;
                return;
            }
            d = R::sqrt_(d);
            m[j * n + j] = d;
            const T r = T(1) / d;
            for (int q = j + 1; q < n; ++q) {
                T s = m[q * n + j];
                for (int k = 0; k < j; ++k) {
                    s -= m[q * n + k] * m[j * n + k];
                }
                m[q * n + j] = s * r;
            }
        }
        info[i] = 0;
        for (int r = 0; r < n; ++r) {
            for (int c = r + 1; c < n; ++c) {
                m[r * n + c] = T(0);
            }
        }
    }
};

/* ---- eigh ---------------------------------------------------------------- */

/* Element (r, c) of the symmetric matrix kept in the lower triangle of m. */
template <typename T>
__device__ __forceinline__ T &
lower(T *m, int n, int r, int c)
{
    return r >= c ? m[r * n + c] : m[c * n + r];
}

/* NaN-last strict weak order, so that the sort below is well defined. */
template <typename T>
__device__ __forceinline__ bool
before(T x, T y)
{
    return x < y || (!real<T>::nan_(x) && real<T>::nan_(y));
}

/*
 * Cyclic Jacobi (Golub & Van Loan, Algorithm 8.4.3, with the rotations of
 * 8.4.2) on the lower triangle, scaled first by a power of two so that its
 * largest element is in [1, 2): exact (but for elements far below the
 * tolerance that become subnormal), and the sums of squares below can
 * neither overflow nor underflow to nothing.  An Inf or NaN makes the
 * result NaN with info 1 rather than 30 sweeps of NaN.  Converged when
 * the off-diagonal norm off(A) <= eps ||A||_F.  Within a sweep a rotation
 * is skipped when |a_pq| <= eps ||A||_F / n: such elements change the
 * eigenvalues by less than the tolerance, and once they are all that is
 * left, off(A)^2 < n (n - 1) (eps ||A||_F / n)^2 < (eps ||A||_F)^2, so the
 * test passes and skipping can never stall the iteration.  The vectors
 * accumulate in the second region and end in m.
 */
template <typename T>
struct eigh_op {
    T *w;
    int vectors;
    int32_t *info;

    __device__ bool writes_a() const { return vectors != 0; }
    __host__ __device__ int regions() const { return vectors ? 2 : 1; }

    __device__ void run(T *m, T *v, int64_t i, int n) const
    {
        typedef real<T> R;
        T *wi = w + i * n;
        if (n == 1) { /* whatever the value, as LAPACK's */
            wi[0] = m[0];
            m[0] = T(1);
            info[i] = 0;
            return;
        }
        T amax = T(0);
        bool finite = true;
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c <= r; ++c) {
                const T x = m[r * n + c];
                finite = finite && R::finite_(x);
                amax = R::abs_(x) > amax ? R::abs_(x) : amax;
            }
        }
        if (!finite) {
            info[i] = 1;
            for (int r = 0; r < n; ++r) {
                wi[r] = R::nan();
                for (int c = 0; vectors && c < n; ++c) {
                    m[r * n + c] = R::nan();
                }
            }
            return;
        }
        const int scale = amax > T(0) ? R::ilogb_(amax) : 0;
        T norm2 = T(0);
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c <= r; ++c) {
                const T x = R::scalbn_(m[r * n + c], -scale);
                m[r * n + c] = x;
                norm2 += (r == c ? T(1) : T(2)) * x * x;
            }
        }
        for (int e = 0; vectors && e < n * n; ++e) {
            v[e] = e % (n + 1) == 0 ? T(1) : T(0);
        }
        const T tol = R::eps() * R::sqrt_(norm2);
        const T skip = tol / T(n);
        /* beyond this |tau|, 1 + tau^2 rounds to tau^2 (and would overflow
           further on): then t = 1 / (2 tau) */
        const T big = T(1) / R::eps();
        int32_t inf = 1;
        for (int sweep = 0; sweep <= kMaxSweeps; ++sweep) {
            T off2 = T(0);
            for (int r = 1; r < n; ++r) {
                for (int c = 0; c < r; ++c) {
                    off2 += m[r * n + c] * m[r * n + c];
                }
            }
            if (T(2) * off2 <= tol * tol) {
                inf = 0;
                break;
            }
            if (sweep == kMaxSweeps) {
                break;
            }
            for (int p = 0; p < n; ++p) {
                for (int q = p + 1; q < n; ++q) {
                    const T apq = m[q * n + p];
                    if (!(R::abs_(apq) > skip)) {
                        continue;
                    }
                    const T app = m[p * n + p], aqq = m[q * n + q];
                    const T tau = (aqq - app) / (T(2) * apq);
                    const T atau = R::abs_(tau);
                    T t;
                    if (atau < big) {
                        t = T(1) / (atau + R::sqrt_(T(1) + tau * tau));
                        t = tau >= T(0) ? t : -t;
                    }
                    else {
                        t = T(0.5) / tau; /* 0 for an infinite tau */
                    }
                    const T cs = T(1) / R::sqrt_(T(1) + t * t);
                    const T sn = t * cs;
                    m[p * n + p] = app - t * apq;
                    m[q * n + q] = aqq + t * apq;
                    m[q * n + p] = T(0);
                    for (int r = 0; r < n; ++r) {
                        if (r == p || r == q) {
                            continue;
                        }
                        T &xp = lower(m, n, r, p);
                        T &xq = lower(m, n, r, q);
                        const T x = xp, y = xq;
                        xp = cs * x - sn * y;
                        xq = sn * x + cs * y;
                    }
                    for (int r = 0; vectors && r < n; ++r) {
                        const T x = v[r * n + p], y = v[r * n + q];
                        v[r * n + p] = cs * x - sn * y;
                        v[r * n + q] = sn * x + cs * y;
                    }
                }
            }
        }
        info[i] = inf;
        /* ascending by a stable insertion sort of the diagonal, ties kept in
           their order, each vector moving with its value */
        for (int j = 1; j < n; ++j) {
            for (int k = j; k > 0 && before(m[k * n + k], m[(k - 1) * n + k - 1]); --k) {
                const T t = m[k * n + k];
                m[k * n + k] = m[(k - 1) * n + k - 1];
                m[(k - 1) * n + k - 1] = t;
                for (int r = 0; vectors && r < n; ++r) {
                    const T x = v[r * n + k];
                    v[r * n + k] = v[r * n + k - 1];
                    v[r * n + k - 1] = x;
                }
            }
        }
        for (int j = 0; j < n; ++j) {
            wi[j] = R::scalbn_(m[j * n + j], scale);
        }
        for (int e = 0; vectors && e < n * n; ++e) {
            m[e] = v[e];
        }
    }
};

/*
 * The launchers' shared part: a dtype, order and batch the kernels take
 * (cudaErrorInvalidValue otherwise), nothing launched for an empty batch,
 * and the launch of the op make(T()) builds, T float or double by typenum
 * (b and staged as launch_op's).
 */
template <typename Make>
cudaError_t
launch_real(int typenum, void *a, void *b, int staged, int64_t n, int64_t batch,
            cudaStream_t stream, Make make)
{
    if ((typenum != DA_FLOAT32 && typenum != DA_FLOAT64) || n < 1 || n > DA_SMALL_N_MAX ||
        batch < 0) {
        return cudaErrorInvalidValue;
    }
    if (batch == 0) {
        return cudaSuccess;
    }
    if (typenum == DA_FLOAT32) {
        return launch_op((float *)a, (float *)b, staged, (int)n, batch, make(float()), stream);
    }
    return launch_op((double *)a, (double *)b, staged, (int)n, batch, make(double()), stream);
}

}  // namespace

extern "C" cudaError_t
da_cuda_small_solve(int typenum, void *a, void *b, int64_t n, int64_t nrhs, int64_t batch,
                    int32_t *info, cudaStream_t stream)
{
    if (nrhs < 0) {
        return cudaErrorInvalidValue;
    }
    const int staged = n <= DA_SMALL_N_MAX && solve_stages_b(n, nrhs) ? (int)(n * nrhs) : 0;
    return launch_real(typenum, a, b, staged, n, batch, stream, [&](auto zero) {
        typedef decltype(zero) T;
        return solve_op<T>{(T *)b, nrhs, info};
    });
}

extern "C" cudaError_t
da_cuda_small_inv(int typenum, void *a, int64_t n, int64_t batch, int32_t *info,
                  cudaStream_t stream)
{
    return launch_real(typenum, a, nullptr, 0, n, batch, stream, [&](auto zero) {
        return inv_op<decltype(zero)>{info};
    });
}

extern "C" cudaError_t
da_cuda_small_lu(int typenum, void *a, int64_t n, int64_t batch, int64_t *pivots,
                 int32_t *info, cudaStream_t stream)
{
    return launch_real(typenum, a, nullptr, 0, n, batch, stream, [&](auto zero) {
        return lu_op<decltype(zero)>{pivots, info};
    });
}

extern "C" cudaError_t
da_cuda_small_det(int typenum, void *a, void *det, int64_t n, int64_t batch,
                  cudaStream_t stream)
{
    return launch_real(typenum, a, nullptr, 0, n, batch, stream, [&](auto zero) {
        typedef decltype(zero) T;
        return det_op<T>{(T *)det};
    });
}

extern "C" cudaError_t
da_cuda_small_cholesky(int typenum, void *a, int64_t n, int64_t batch, int32_t *info,
                       cudaStream_t stream)
{
    return launch_real(typenum, a, nullptr, 0, n, batch, stream, [&](auto zero) {
        return cholesky_op<decltype(zero)>{info};
    });
}

extern "C" cudaError_t
da_cuda_small_eigh(int typenum, void *a, void *w, int64_t n, int64_t batch, int vectors,
                   int32_t *info, cudaStream_t stream)
{
    return launch_real(typenum, a, nullptr, 0, n, batch, stream, [&](auto zero) {
        typedef decltype(zero) T;
        return eigh_op<T>{(T *)w, vectors, info};
    });
}
