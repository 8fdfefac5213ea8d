/*
 * What the small-matrix kernels share (kernels/linalg_small.cu: solve, lu,
 * cholesky; kernels/linalg_small_eigh.cu: eigh): batched linear algebra on
 * many small matrices, one thread per matrix.
 *
 * Each thread copies its matrix into a local array, computes, and writes
 * the result back.  A local array lives in registers only when every index
 * into it is known at compile time, so the kernels are templates over the
 * order N and every loop over rows and columns is unrolled; pivot rows are
 * swapped with selects over the candidate rows rather than by a computed
 * index, and the eigenvalues are sorted by writing each one (and its
 * vector) to its rank's place in global memory, where a computed address
 * costs nothing.
 *
 * Templating, by what each size can keep in registers (255 a thread):
 *   n = 3, 4, 8  one instantiation each, everything unrolled: an 8x8
 *              float64 matrix is 128 registers, eigh's triangle and
 *              vectors about 250, and nothing spills (dispatch_n says why
 *              only these);
 *   other n    one instantiation with a runtime n and plain loops over
 *              local-memory arrays: past 8 ptxas spills much of an
 *              unrolled matrix anyway (a 16x16 float64 one is 512
 *              registers), and every unrolled size adds to this file's
 *              compile for each target architecture (one capped at 12 ran
 *              2-4x faster at n = 12 but doubled the build, which CI pays).
 * (eigh has two of each: with and without vectors.)  The exact sizes also
 * move their matrices through shared memory, for coalesced loads (see
 * tile below).
 *
 * The arithmetic follows LAPACK's unblocked routines (getf2/getrs, potf2)
 * in the matrix's own precision: a pivot column is scaled by the
 * reciprocal of the pivot (a division when the pivot is so small that its
 * reciprocal overflows), back substitution divides.  The build's
 * --fmad=false keeps every product rounded.
 */
#ifndef DEVARRAY_KERNELS_LINALG_SMALL_CUH_
#define DEVARRAY_KERNELS_LINALG_SMALL_CUH_

#include <float.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "dtypes.h"
#include "linalg_small.h"

namespace {


constexpr int kThreads = 128;
constexpr int64_t kMaxBlocks = 2147483647;
/* the instantiations (see the top of this file): exact ones up to kExactMax,
   one with a runtime n for the rest */
constexpr int kExactMax = 8;

/*
 * The template argument N of the routines names the instantiation:
 *   N > 0   exactly n == N: every loop unrolls, arrays live in registers;
 *   N == 0  n <= DA_SMALL_N_MAX: plain loops over local-memory arrays.
 * cap is the arrays' extent, bound() the unrolled loops' trip count.
 */
template <int N>
struct cap {
    static constexpr int value = N > 0 ? N : DA_SMALL_N_MAX;
};

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

/* The order of a thread's matrix: N when it is exact, so that everything
   bounded by it folds; the runtime n otherwise. */
template <int N>
__device__ __forceinline__ int
order(int n)
{
    return N > 0 ? N : n;
}

template <int N>
__device__ __forceinline__ int
bound(int n)
{
    return N == 0 ? n : cap<N>::value;
}

/* ---- the kernel: staging through shared memory ------------------------ */

/*
 * Thread t reading its own matrix straight from global memory makes each
 * warp-wide load touch 32 different cache lines (the matrices are n * n
 * elements apart), which costs the L1 one pass per line: for 8x8 matrices
 * that, not the arithmetic, bounds the kernels.  So a block first copies
 * its matrices, one contiguous span, into shared memory with coalesced
 * loads, each thread then reads its matrix from there, and results go back
 * the same way.  Each matrix takes an odd number of elements of shared
 * memory (n * n, plus one when that is even) so that the threads of a warp
 * reading element (r, c) of their matrices hit different banks.  A block
 * has 128 threads, or 64 where 128 matrices would not fit the 48 KiB of
 * static shared memory (float64 from n = 7).
 *
 * The runtime-n instantiation works on global memory directly: a
 * runtime n makes the copies' index arithmetic dearer, 128 such matrices of
 * float64 would not fit, and their arithmetic (and, for N == 0, local
 * memory) costs more than the scattered loads.
 */
template <typename T, int N>
struct tile {
    static constexpr int elems = N * N;
    static constexpr int stride = elems % 2 == 0 ? elems + 1 : elems;
    static constexpr int threads =
        N > 0 && 128 * stride * (int)sizeof(T) > 48 * 1024 ? 64 : kThreads;
};

/*
 * Op is one routine (below): op.run<N>(m, i, n) computes matrix i, whose
 * element (r, c) is m[r * n + c] (shared memory when plan::stage, else
 * global memory), leaving its result there; op.writes_a() says whether a
 * is an output.  Every thread of a block takes part in the copies and
 * barriers, so the loop over tiles is uniform across the block.
 */
template <typename T, int N, typename Op>
struct plan {
    /* eigh is bound by its arithmetic, and the shared memory of a 64-thread
       tile (float64, n = 7, 8) would cost it a quarter of its resident
       threads: more than the scattered loads do */
    static constexpr bool stage =
        N > 0 && !(Op::compute_bound && tile<T, N>::threads < kThreads);
    static constexpr int threads = stage ? tile<T, N>::threads : kThreads;
};

template <typename T, int N, typename Op>
__global__ void __launch_bounds__(plan<T, N, Op>::threads)
small_kernel(T *a, int n_rt, int64_t batch, Op op)
{
    constexpr int kT = plan<T, N, Op>::threads;
    if constexpr (plan<T, N, Op>::stage) {
        constexpr int NN = tile<T, N>::elems;
        constexpr int S = tile<T, N>::stride;
        __shared__ T sh[kT * S];
        for (int64_t base = (int64_t)blockIdx.x * kT; base < batch;
             base += (int64_t)gridDim.x * kT) {
            const int count = batch - base < kT ? (int)(batch - base) : kT;
            T *src = a + base * NN;
            for (int e = threadIdx.x; e < count * NN; e += kT) {
                const int t = e / NN;
                sh[t * S + (e - t * NN)] = src[e];
            }
            __syncthreads();
            if ((int)threadIdx.x < count) {
                op.template run<N>(sh + threadIdx.x * S, base + threadIdx.x, N);
            }
            __syncthreads();
            if (op.writes_a()) {
                for (int e = threadIdx.x; e < count * NN; e += kT) {
                    const int t = e / NN;
                    src[e] = sh[t * S + (e - t * NN)];
                }
            }
            /* the next tile's copy must not overwrite sh while it is read */
            __syncthreads();
        }
    }
    else {
        for (int64_t i = (int64_t)blockIdx.x * kT + threadIdx.x; i < batch;
             i += (int64_t)gridDim.x * kT) {
            op.template run<N>(a + i * n_rt * n_rt, i, n_rt);
        }
    }
}

template <typename T, int N>
__device__ __forceinline__ void
load_matrix(T (&m)[cap<N>::value][cap<N>::value], const T *src, int n)
{
    const int lim = bound<N>(n);
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
            m[r][c] = src[r * n + c];
        }
    }
}

template <typename T, int N>
__device__ __forceinline__ void
store_matrix(const T (&m)[cap<N>::value][cap<N>::value], T *dst, int n)
{
    const int lim = bound<N>(n);
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
            dst[r * n + c] = m[r][c];
        }
    }
}

template <typename T, int N, typename Op>
cudaError_t
launch_op(T *a, int n, int64_t batch, const Op &op, cudaStream_t stream)
{
    constexpr int kT = plan<T, N, Op>::threads;
    const int64_t want = (batch + kT - 1) / kT;
    const unsigned int blocks = (unsigned int)(want < kMaxBlocks ? want : kMaxBlocks);
    small_kernel<T, N, Op><<<blocks, kT, 0, stream>>>(a, n, batch, op);
    return cudaGetLastError();
}

/*
 * Launch<T, N>::run(n, args...) for the instantiation of order n: N = n for
 * 3, 4 and 8 (3-vectors, quaternions and homogeneous 4x4 transforms, and
 * the 8x8 blocks issue 28 measures), N = 0 (a runtime n) for the rest.
 * Each exact order costs about 0.5 MB of every wheel's kernels over five
 * architectures; all eight made the wheel outgrow its 15 MB limit.
 */
template <template <typename, int> class Launch, typename T, typename... Args>
cudaError_t
dispatch_n(int n, Args... args)
{
#define SMALL_CASE(N) \
    case N:           \
        return Launch<T, N>::run(n, args...);
    static_assert(kExactMax == 8, "the cases below end at kExactMax");
    switch (n) {
        SMALL_CASE(3)
        SMALL_CASE(4)
        SMALL_CASE(8)
        default:
            return Launch<T, 0>::run(n, args...);
    }
#undef SMALL_CASE
}

/* The launchers' shared check: a dtype and order the kernels take. */
inline bool
small_arguments_valid(int typenum, int64_t n, int64_t batch)
{
    return (typenum == DA_FLOAT32 || typenum == DA_FLOAT64) && n >= 1 && n <= DA_SMALL_N_MAX &&
           batch >= 0;
}

}  // namespace

#endif /* DEVARRAY_KERNELS_LINALG_SMALL_CUH_ */
