/*
 * da_cuda_argreduce and da_cuda_searchsorted (kernels/launch.h).
 *
 * argmax/argmin is a reduction of (value, index) pairs under one total
 * order: NaN first (a NaN in either part, for complex), then the larger
 * (smaller) value, then the lower index, so the pair that wins is NumPy's
 * answer however the work is split.  Values are compared in the dtype's
 * compute class (kernels/order.h), read coalesced with several loads in
 * flight per thread (no atomics); each thread visits its elements in
 * index order, so it keeps a new value only when strictly better.  The
 * route follows the segment shape:
 *   - segments of up to kThreadSegment elements: a thread per segment;
 *   - up to kWarpSegment: a warp per segment;
 *   - longer: each segment is cut into `chunks` pieces of a block each,
 *     so that there are about kTargetBlocks blocks in all (a full argmax
 *     of 2^28 elements uses every multiprocessor; a row argmax of many
 *     rows gets a block per row, chunks == 1, and writes the answer
 *     directly); with chunks > 1 each block writes its pair to temporary
 *     storage and a block per segment merges them.  When the segments
 *     start 16-byte aligned (a whole number of vectors long, from an
 *     aligned pointer) the blocks read 16-byte vectors, up to kMaxVectors
 *     in flight per thread, for the bandwidth of a copy.
 * The route depends only on nsegments and seglen, so the sizing call
 * (temp == NULL) and the computing call agree.
 *
 * da_cuda_argreduce_columns (float32 and float64 only, for the wheel's
 * size) reads an axis that is not the last in place, as (outer, len,
 * inner) with the columns route of kernels/reduce.cuh: a block is bx
 * threads along inner by 256 / bx along len, each thread walks its rows in
 * order keeping (best value, best row), the block merges in shared memory
 * under the same order; when outer * tiles blocks cannot fill the device,
 * len is split over blockIdx.y, the splits' pairs go to temporary storage
 * and a second kernel merges them (deterministic, no atomics).  Its plan
 * depends on the shape and the device's SM count only.
 *
 * searchsorted is a binary search per value, a thread each; isin's mode
 * tests the element found for equality in the same thread, so isin reads
 * its values once and writes one byte each.
 */
#include <stdint.h>

#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include "dispatch.cuh"
#include "order.h"

namespace da {

constexpr int kThreadSegment = 16;
constexpr int64_t kWarpSegment = 2048;
constexpr int kWarpLanes = 32;
constexpr int kUnroll = 8;
/* 16-byte vectors in flight per thread on the aligned block route */
constexpr int kMaxVectors = 4;
constexpr int64_t kTargetBlocks = 4096;
/* a block's piece of a long segment is at least this long */
constexpr int64_t kMinChunk = 8192;

template <typename A>
struct arg_pair {
    A value;
    int64_t index; /* -1: no element yet */
};

/* The winner of two pairs under the order above (op DA_ARG_MAX or
   DA_ARG_MIN). */
template <typename A>
struct arg_merge {
    int op;

    __device__ __forceinline__ arg_pair<A>
    operator()(const arg_pair<A> &a, const arg_pair<A> &b) const
    {
        return take_b(a, b) ? b : a;
    }

    /* whether b wins over a */
    __device__ __forceinline__ bool
    take_b(const arg_pair<A> &a, const arg_pair<A> &b) const
    {
        if (a.index < 0 || b.index < 0) {
            return a.index < 0;
        }
        const int a_nan = da_order_nan(a.value), b_nan = da_order_nan(b.value);
        if (a_nan || b_nan) {
            return a_nan && b_nan ? b.index < a.index : b_nan;
        }
        if (op == DA_ARG_MAX ? da_order_less(a.value, b.value)
                             : da_order_less(b.value, a.value)) {
            return true;
        }
        if (op == DA_ARG_MAX ? da_order_less(b.value, a.value)
                             : da_order_less(a.value, b.value)) {
            return false;
        }
        return b.index < a.index;
    }
};

template <int Typenum>
struct arg_types {
    typedef typename dtype_traits<Typenum>::storage S;
    static constexpr int cls = dtype_traits<Typenum>::cls;
    typedef typename class_traits<cls>::type A;
    typedef arg_pair<A> P;

    /* one element's value: a plain conversion where the class type can
       hold the storage type (no address taken, so vectors stay in
       registers); through dtypes.h's load otherwise (float16, bool) */
    static __device__ __forceinline__ A
    value(S v)
    {
        if constexpr (std::is_arithmetic<S>::value && std::is_arithmetic<A>::value &&
                      Typenum != DA_FLOAT16 && Typenum != DA_BOOL) {
            return static_cast<A>(v);
        }
        else if constexpr (std::is_same<S, A>::value) {
            return v;
        }
        else {
            return class_traits<cls>::load(&v, Typenum);
        }
    }

    static __device__ __forceinline__ A
    load(const S *p)
    {
        return value(*p);
    }
};

/* best updated with element `at` of value v, where every index best has
   seen is lower than `at` (a thread visits its elements in order): v
   replaces it only when strictly better, or a first NaN. */
template <typename A>
static __device__ __forceinline__ void
arg_take(arg_pair<A> &best, const A &v, int64_t at, int op)
{
    if (best.index < 0 ||
        (!da_order_nan(best.value) &&
         (da_order_nan(v) || (op == DA_ARG_MAX ? da_order_less(best.value, v)
                                               : da_order_less(v, best.value))))) {
        best.value = v;
        best.index = at;
    }
}

/* The best pair of p[begin, end), visited from `first` in steps of
   `stride`, kUnroll loads issued before they are compared. */
template <int Typenum>
static __device__ __forceinline__ typename arg_types<Typenum>::P
arg_scan_range(const typename arg_types<Typenum>::S *p, int64_t first, int64_t end,
               int64_t stride, int op)
{
    typedef arg_types<Typenum> T;
    typename T::P best;
    int64_t j;

    best.value = typename T::A();
    best.index = -1;
    for (j = first; j < end; j += stride * kUnroll) {
        typename T::A values[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; k++) {
            const int64_t at = j + k * stride;
            values[k] = at < end ? T::load(p + at) : typename T::A();
        }
#pragma unroll
        for (int k = 0; k < kUnroll; k++) {
            const int64_t at = j + k * stride;
            if (at < end) {
                arg_take(best, values[k], at, op);
            }
        }
    }
    return best;
}

/* The same over p[begin, end) for a block whose p + begin is 16-byte
   aligned: thread t reads 16-byte vectors t, t + kBlockThreads, ...
   (kVectors in flight: fewer for narrow dtypes), then the elements past the last whole vector one
   at a time, so each thread still visits its indices in order. */
template <int Typenum>
static __device__ __forceinline__ typename arg_types<Typenum>::P
arg_scan_vectors(const typename arg_types<Typenum>::S *p, int64_t begin, int64_t end, int op)
{
    typedef arg_types<Typenum> T;
    constexpr int kLanes = 16 / sizeof(typename T::S);
    /* narrow dtypes hold more elements a vector: fewer vectors in flight
       keep the unrolled comparisons within the registers */
    constexpr int kVectors = kLanes > 4 ? kMaxVectors * 4 / kLanes : kMaxVectors;
    struct alignas(16) vec {
        typename T::S lane[kLanes];
    };
    const vec *pv = reinterpret_cast<const vec *>(p + begin);
    const int64_t nvec = (end - begin) / kLanes;
    typename T::P best;
    int64_t g, j;

    best.value = typename T::A();
    best.index = -1;
    for (g = threadIdx.x; g < nvec; g += (int64_t)kBlockThreads * kVectors) {
        vec v[kVectors];
#pragma unroll
        for (int k = 0; k < kVectors; k++) {
            const int64_t at = g + (int64_t)k * kBlockThreads;
            if (at < nvec) {
                v[k] = pv[at];
            }
        }
#pragma unroll
        for (int k = 0; k < kVectors; k++) {
            const int64_t at = g + (int64_t)k * kBlockThreads;
            if (at < nvec) {
#pragma unroll
                for (int l = 0; l < kLanes; l++) {
                    arg_take(best, T::value(v[k].lane[l]), begin + at * kLanes + l, op);
                }
            }
        }
    }
    for (j = begin + nvec * kLanes + threadIdx.x; j < end; j += kBlockThreads) {
        arg_take(best, T::load(p + j), j, op);
    }
    return best;
}

template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
arg_thread_kernel(const typename arg_types<Typenum>::S *in, int64_t *out, int64_t nsegments,
                  int64_t seglen, int op)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t s;

    for (s = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; s < nsegments; s += step) {
        out[s] = arg_scan_range<Typenum>(in + s * seglen, 0, seglen, 1, op).index;
    }
}

template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
arg_warp_kernel(const typename arg_types<Typenum>::S *in, int64_t *out, int64_t nsegments,
                int64_t seglen, int op)
{
    typedef arg_types<Typenum> T;
    typedef cub::WarpReduce<typename T::P> warp_reduce;
    constexpr int kWarps = kBlockThreads / kWarpLanes;
    __shared__ typename warp_reduce::TempStorage scratch[kWarps];
    const arg_merge<typename T::A> merge = {op};
    const int warp = threadIdx.x / kWarpLanes;
    const int lane = threadIdx.x % kWarpLanes;
    const int64_t step = (int64_t)gridDim.x * kWarps;
    int64_t s;

    /* s is the same for the whole warp, so the warp stays converged */
    for (s = (int64_t)blockIdx.x * kWarps + warp; s < nsegments; s += step) {
        typename T::P best =
            arg_scan_range<Typenum>(in + s * seglen, lane, seglen, kWarpLanes, op);
        best = warp_reduce(scratch[warp]).Reduce(best, merge);
        if (lane == 0) {
            out[s] = best.index;
        }
    }
}

/* Block b takes piece b % chunks of segment b / chunks; with Vectors
   every piece starts 16-byte aligned. */
template <int Typenum, bool Vectors>
static __global__ void __launch_bounds__(kBlockThreads)
arg_block_kernel(const typename arg_types<Typenum>::S *in, int64_t *out,
                 typename arg_types<Typenum>::P *partial, int64_t nsegments, int64_t seglen,
                 int64_t chunks, int64_t chunk_len, int op)
{
    typedef arg_types<Typenum> T;
    typedef cub::BlockReduce<typename T::P, kBlockThreads> block_reduce;
    __shared__ typename block_reduce::TempStorage scratch;
    const arg_merge<typename T::A> merge = {op};
    int64_t b;

    for (b = blockIdx.x; b < nsegments * chunks; b += gridDim.x) {
        const int64_t s = b / chunks, begin = (b % chunks) * chunk_len;
        /* the last pieces may be empty: lengths are rounded up to vectors */
        const int64_t end = begin + chunk_len < seglen ? begin + chunk_len
                                                       : (begin < seglen ? seglen : begin);
        typename T::P best;
        if constexpr (Vectors) {
            best = arg_scan_vectors<Typenum>(in + s * seglen, begin, end, op);
        }
        else {
            best = arg_scan_range<Typenum>(in + s * seglen, begin + threadIdx.x, end,
                                           kBlockThreads, op);
        }
        best = block_reduce(scratch).Reduce(best, merge);
        if (threadIdx.x == 0) {
            if (chunks == 1) {
                out[s] = best.index;
            }
            else {
                partial[b] = best;
            }
        }
        __syncthreads(); /* scratch is reused by the next piece */
    }
}

/* A block per segment merges its `chunks` pieces (a full argmax has
   thousands: a warp walking them one load at a time took ~50 us of a
   2^28 argmax on an H100). */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
arg_merge_kernel(const typename arg_types<Typenum>::P *partial, int64_t *out,
                 int64_t nsegments, int64_t chunks, int op)
{
    typedef arg_types<Typenum> T;
    typedef cub::BlockReduce<typename T::P, kBlockThreads> block_reduce;
    __shared__ typename block_reduce::TempStorage scratch;
    const arg_merge<typename T::A> merge = {op};
    int64_t s, c;

    for (s = blockIdx.x; s < nsegments; s += gridDim.x) {
        typename T::P best;
        best.value = typename T::A();
        best.index = -1;
        for (c = threadIdx.x; c < chunks; c += kBlockThreads) {
            best = merge(best, partial[s * chunks + c]);
        }
        best = block_reduce(scratch).Reduce(best, merge);
        if (threadIdx.x == 0) {
            out[s] = best.index;
        }
        __syncthreads(); /* scratch is reused by the next segment */
    }
}

/* Pieces per segment for the block route. */
static inline int64_t
arg_chunks(int64_t nsegments, int64_t seglen)
{
    int64_t want = (kTargetBlocks + nsegments - 1) / nsegments;
    int64_t most = (seglen + kMinChunk - 1) / kMinChunk;
    want = want < most ? want : most;
    return want < 1 ? 1 : want;
}

struct arg_launcher {
    void *temp;
    size_t *temp_bytes;
    int op;
    const void *in;
    int64_t *out;
    int64_t nsegments, seglen;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        typedef arg_types<Typenum> T;
        const typename T::S *src = static_cast<const typename T::S *>(in);
        const int64_t chunks = seglen > kWarpSegment ? arg_chunks(nsegments, seglen) : 1;
        unsigned int blocks;
        cudaError_t err;

        if (temp == nullptr) {
            /* a size of 0 invites a NULL */
            *temp_bytes = chunks > 1 ? sizeof(typename T::P) * (size_t)(nsegments * chunks) : 1;
            return cudaSuccess;
        }
        if (seglen <= kThreadSegment) {
            err = grid_blocks(nsegments, &blocks);
            if (err == cudaSuccess) {
                arg_thread_kernel<Typenum>
                    <<<blocks, kBlockThreads, 0, stream>>>(src, out, nsegments, seglen, op);
            }
        }
        else if (seglen <= kWarpSegment) {
            err = grid_blocks(nsegments * kWarpLanes, &blocks);
            if (err == cudaSuccess) {
                arg_warp_kernel<Typenum>
                    <<<blocks, kBlockThreads, 0, stream>>>(src, out, nsegments, seglen, op);
            }
        }
        else {
            typename T::P *partial = static_cast<typename T::P *>(temp);
            /* pieces a whole number of vectors long, so that each starts
               aligned when the segments do */
            constexpr int64_t kLanes = 16 / sizeof(typename T::S);
            const int64_t piece = (seglen + chunks - 1) / chunks;
            const int64_t chunk_len = (piece + kLanes - 1) / kLanes * kLanes;
            const int64_t total = nsegments * chunks;
            blocks = (unsigned int)(total < kMaxBlocks ? total : kMaxBlocks);
            if (sizeof(typename T::S) < 16 && reinterpret_cast<uintptr_t>(src) % 16 == 0 &&
                seglen % kLanes == 0) {
                arg_block_kernel<Typenum, true><<<blocks, kBlockThreads, 0, stream>>>(
                    src, out, partial, nsegments, seglen, chunks, chunk_len, op);
            }
            else {
                arg_block_kernel<Typenum, false><<<blocks, kBlockThreads, 0, stream>>>(
                    src, out, partial, nsegments, seglen, chunks, chunk_len, op);
            }
            err = cudaGetLastError();
            if (err == cudaSuccess && chunks > 1) {
                blocks = (unsigned int)(nsegments < kMaxBlocks ? nsegments : kMaxBlocks);
                arg_merge_kernel<Typenum><<<blocks, kBlockThreads, 0, stream>>>(
                    partial, out, nsegments, chunks, op);
            }
            else {
                return err;
            }
        }
        return err == cudaSuccess ? cudaGetLastError() : err;
    }
};

/* ---- columns: an axis that is not the last, read in place ---------------- */

/* The columns route (as kernels/reduce.cuh's for sums): the grid aims at
   kColumnWaves waves of kColumnResident blocks per SM; a split of the
   axis gets at least kColumnMinRows rows per thread; up to kThreadCombine
   splits are merged by a thread per output, more by a block per output
   (arg_merge_kernel). */
constexpr int64_t kColumnResident = 8;
constexpr int64_t kColumnWaves = 4;
constexpr int64_t kColumnMinRows = 16;
constexpr int64_t kMaxSplits = 65535; /* gridDim.y */
constexpr int64_t kThreadCombine = 64;

/* The columns route's geometry for one (outer, len, inner). */
struct arg_column_plan {
    int bx;             /* threads along inner (a power of 2, <= 32) */
    int64_t tiles;      /* blocks along inner per outer index */
    int64_t splits;     /* blocks along len (gridDim.y) */
    int64_t split_rows; /* rows per split (the last may have fewer) */
};

/* Depends only on the shape and the device's SM count, so the sizing and
   the computing call agree. */
static cudaError_t
arg_plan_columns(int64_t outer, int64_t len, int64_t inner, arg_column_plan *plan)
{
    int device, sms;
    int64_t by, want, most;
    cudaError_t err = cudaGetDevice(&device);

    if (err == cudaSuccess) {
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    if (err != cudaSuccess) {
        return err;
    }
    plan->bx = 1;
    while (plan->bx < kWarpLanes && plan->bx < inner) {
        plan->bx *= 2;
    }
    by = kBlockThreads / plan->bx;
    plan->tiles = (inner + plan->bx - 1) / plan->bx;
    want = ((int64_t)sms * kColumnResident * kColumnWaves + outer * plan->tiles - 1) /
           (outer * plan->tiles);
    most = len / (by * kColumnMinRows);
    want = want < most ? want : most;
    want = want < kMaxSplits ? want : kMaxSplits;
    want = want < 1 ? 1 : want;
    plan->split_rows = (len + want - 1) / want;
    plan->splits = (len + plan->split_rows - 1) / plan->split_rows;
    return cudaSuccess;
}

/* Element (o, r, i) of the input is in[(o * len + r) * inner + i].  Block
   b (blockIdx.x, then + gridDim.x while below outer * tiles) and split
   blockIdx.y: thread (tx, ty) = (t % bx, t / bx) walks rows r0 + ty,
   r0 + ty + by, ... below r1 of column c = (b % tiles) * bx + tx of
   o = b / tiles in order (arg_take), kUnroll loads in flight, so a warp
   reads whole row pieces (coalesced); the block merges the by pairs of
   each column in shared memory.  One split: the index goes to
   out[j], j = o * inner + c; else the pair to partial[j * j_stride +
   split * split_stride]. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
arg_columns_kernel(const typename arg_types<Typenum>::S *in, int64_t *out,
                   typename arg_types<Typenum>::P *partial, int64_t outer, int64_t len,
                   int64_t inner, int64_t tiles, int64_t split_rows, int64_t j_stride,
                   int64_t split_stride, int bx, int op)
{
    typedef arg_types<Typenum> T;
    __shared__ typename T::P rows[kBlockThreads];
    const arg_merge<typename T::A> merge = {op};
    const int by = kBlockThreads / bx;
    const int tx = threadIdx.x % bx, ty = threadIdx.x / bx;
    const int64_t r0 = (int64_t)blockIdx.y * split_rows;
    const int64_t r1 = r0 + split_rows < len ? r0 + split_rows : len;
    const int64_t step = (int64_t)by * inner;
    int64_t b;

#pragma unroll 1
    for (b = blockIdx.x; b < outer * tiles; b += gridDim.x) {
        const int64_t o = b / tiles;
        const int64_t c = (b % tiles) * bx + tx;
        typename T::P best;
        best.value = typename T::A();
        best.index = -1;
        if (c < inner) {
            int64_t r = r0 + ty;
            const typename T::S *p = in + (o * len + r) * inner + c;
            for (; r + (int64_t)(kUnroll - 1) * by < r1; r += (int64_t)kUnroll * by) {
                typename T::A values[kUnroll];
#pragma unroll
                for (int u = 0; u < kUnroll; u++) {
                    values[u] = T::load(p + u * step);
                }
#pragma unroll
                for (int u = 0; u < kUnroll; u++) {
                    arg_take(best, values[u], r + (int64_t)u * by, op);
                }
                p += kUnroll * step;
            }
#pragma unroll 1
            for (; r < r1; r += by) {
                arg_take(best, T::load(p), r, op);
                p += step;
            }
        }
        rows[threadIdx.x] = best;
        __syncthreads();
        for (int half = by / 2; half > 0; half /= 2) {
            if (ty < half) {
                const int k = threadIdx.x;
                rows[k] = merge(rows[k], rows[k + half * bx]);
            }
            __syncthreads();
        }
        if (ty == 0 && c < inner) {
            const int64_t j = o * inner + c;
            if (gridDim.y == 1) {
                out[j] = rows[tx].index;
            }
            else {
                partial[j * j_stride + (int64_t)blockIdx.y * split_stride] = rows[tx];
            }
        }
        __syncthreads(); /* rows is reused by the next block */
    }
}

/* out[j] = the index of the splits' pairs partial[s * n + j] merged in
   split order, a thread per output (loads coalesced across j).  Each
   split's pair is a row of that split (never -1) and later splits hold
   later rows, so arg_take's rule is the merge. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
arg_combine_splits_kernel(const typename arg_types<Typenum>::P *partial, int64_t *out,
                          int64_t n, int64_t splits, int op)
{
    typedef arg_types<Typenum> T;
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t j, s;

    for (j = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; j < n; j += step) {
        typename T::P best = partial[j];
#pragma unroll 1
        for (s = 1; s < splits; s++) {
            const typename T::P next = partial[s * n + j];
            arg_take(best, next.value, next.index, op);
        }
        out[j] = best.index;
    }
}

template <int Typenum>
static cudaError_t
arg_columns(void *temp, size_t *temp_bytes, int op, const void *in, int64_t *out,
            int64_t outer, int64_t len, int64_t inner, cudaStream_t stream)
{
    typedef arg_types<Typenum> T;
    const int64_t n = outer * inner;
    typename T::P *partial = static_cast<typename T::P *>(temp);
    arg_column_plan plan;
    unsigned int blocks;
    cudaError_t err = arg_plan_columns(outer, len, inner, &plan);

    if (err != cudaSuccess) {
        return err;
    }
    if (temp == nullptr) {
        /* a size of 0 invites a NULL */
        *temp_bytes =
            plan.splits > 1 ? sizeof(typename T::P) * (size_t)(plan.splits * n) : 1;
        return cudaSuccess;
    }
    /* many splits (then few outputs): output j's pairs side by side for a
       block per output (arg_merge_kernel's layout); else split s's pairs
       side by side for a thread per output */
    const bool by_block = plan.splits > kThreadCombine;
    const int64_t tiled = outer * plan.tiles;
    const dim3 grid((unsigned int)(tiled < kMaxBlocks ? tiled : kMaxBlocks),
                    (unsigned int)plan.splits, 1);
    arg_columns_kernel<Typenum><<<grid, kBlockThreads, 0, stream>>>(
        static_cast<const typename T::S *>(in), out, partial, outer, len, inner,
        plan.tiles, plan.split_rows, by_block ? plan.splits : 1, by_block ? 1 : n, plan.bx,
        op);
    err = cudaGetLastError();
    if (err != cudaSuccess || plan.splits == 1) {
        return err;
    }
    if (by_block) {
        blocks = (unsigned int)(n < kMaxBlocks ? n : kMaxBlocks);
        arg_merge_kernel<Typenum>
            <<<blocks, kBlockThreads, 0, stream>>>(partial, out, n, plan.splits, op);
    }
    else {
        err = grid_blocks(n, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        arg_combine_splits_kernel<Typenum>
            <<<blocks, kBlockThreads, 0, stream>>>(partial, out, n, plan.splits, op);
    }
    return cudaGetLastError();
}

/* One thread per value: the insertion point by binary search. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
search_kernel(da_searchsorted s)
{
    typedef arg_types<Typenum> T;
    const typename T::S *sorted = static_cast<const typename T::S *>(s.sorted);
    const typename T::S *values = static_cast<const typename T::S *>(s.values);
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t k;

    for (k = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; k < s.nvalues; k += step) {
        const typename T::A v = T::load(values + k);
        int64_t lo = 0, hi = s.n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            int64_t at = mid;
            if (s.sorter != nullptr) {
                at = s.sorter[mid];
                if (at < 0 || at >= s.n) {
                    *s.bad = 1; /* every writer stores the same value */
                    break;
                }
            }
            const typename T::A m = T::load(sorted + at);
            if (s.right ? !da_sort_lt(v, m) : da_sort_lt(m, v)) {
                lo = mid + 1;
            }
            else {
                hi = mid;
            }
        }
        if (s.found != nullptr) {
            const int hit = lo < s.n && da_order_eq(T::load(sorted + lo), v);
            s.found[k] = (uint8_t)(hit != s.invert);
        }
        else {
            s.out[k] = lo;
        }
    }
}

struct search_launcher {
    const da_searchsorted *s;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        unsigned int blocks;
        cudaError_t err = grid_blocks(s->nvalues, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        search_kernel<Typenum><<<blocks, kBlockThreads, 0, stream>>>(*s);
        return cudaGetLastError();
    }
};

}  // namespace da

extern "C" cudaError_t
da_cuda_argreduce(void *temp, size_t *temp_bytes, int op, int typenum, const void *in,
                  int64_t *out, int64_t nsegments, int64_t seglen, cudaStream_t stream)
{
    if (temp_bytes == nullptr || (op != DA_ARG_MAX && op != DA_ARG_MIN) || nsegments < 1 ||
        seglen < 1) {
        return cudaErrorInvalidValue;
    }
    da::arg_launcher launcher = {temp, temp_bytes, op, in, out, nsegments, seglen, stream};
    return da::dispatch_dtype(typenum, launcher);
}

extern "C" cudaError_t
da_cuda_argreduce_columns(void *temp, size_t *temp_bytes, int op, int typenum,
                          const void *in, int64_t *out, int64_t outer, int64_t len,
                          int64_t inner, cudaStream_t stream)
{
    if (temp_bytes == nullptr || (op != DA_ARG_MAX && op != DA_ARG_MIN) || outer < 1 ||
        len < 1 || inner < 1) {
        return cudaErrorInvalidValue;
    }
    /* instantiated for the measured dtypes only (wheel size) */
    switch (typenum) {
        case DA_FLOAT32:
            return da::arg_columns<DA_FLOAT32>(temp, temp_bytes, op, in, out, outer, len,
                                               inner, stream);
        case DA_FLOAT64:
            return da::arg_columns<DA_FLOAT64>(temp, temp_bytes, op, in, out, outer, len,
                                               inner, stream);
        default:
            return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t
da_cuda_searchsorted(const da_searchsorted *s, cudaStream_t stream)
{
    if (s == nullptr || s->n < 0 || s->nvalues < 1 || s->bad == nullptr ||
        (s->found != nullptr && (s->sorter != nullptr || s->right))) {
        return cudaErrorInvalidValue;
    }
    da::search_launcher launcher = {s, stream};
    return da::dispatch_dtype(s->typenum, launcher);
}
