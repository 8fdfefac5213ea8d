/*
 * Internal to kernels/: the reduction engine behind da_cuda_reduce
 * (kernels/launch.h, da_reduce), as templates over the input dtype and the
 * op.  Each op is instantiated in its own unit (reduce_sum.cu,
 * reduce_prod.cu, reduce_minmax.cu), so the units compile in parallel;
 * reduce.cu dispatches to them.
 *
 * Each element is converted to the accumulator class on the fly by
 * class_traits<Cls>::load (dtypes.h) and combined by reduce_op<Op, Cls>
 * (the element functions of ops.h / optable.h: integers wrap, max and min
 * propagate NaN), so nothing is staged in memory.  The route follows the
 * shape (outer, len, inner):
 *   inner == 1 (segments of len contiguous elements):
 *   - one segment of a float sum or product (da_reduce_in_order): the
 *     fixed order of reduce_ordered.cuh, which fused reductions share;
 *   - one segment otherwise: cub::DeviceReduce::TransformReduce on the raw
 *     pointer, which keeps CUB's vectorised loads (a transform iterator
 *     would not);
 *   - a few long segments: the same, once per segment, since a segmented
 *     reduction gives each segment a single block;
 *   - short segments: one thread per segment up to kThreadSegment
 *     elements, one warp per segment up to kWarpSegment (CUB's block per
 *     segment does too little per block there: 2^24 segments of 16 floats
 *     took 15 ms on an H200, 0.6 ms this way);
 *   - otherwise cub::DeviceSegmentedReduce over a transform iterator, with
 *     offsets i * len computed from a counting iterator (no offset arrays).
 *   (CUB's routes only where use_cub says; other ops and dtypes take the
 *   short-segment kernels or the columns route below);
 *   inner > 1 (leading or middle axes, read in place): the columns route.
 *   A block of 256 threads is bx threads along inner (each loading Vec
 *   adjacent elements, 16 bytes when aligned) by 256 / bx along len; a warp
 *   reads whole rows of bx * Vec elements, so every load is coalesced.
 *   Each thread combines its rows (four loads in flight), the block
 *   combines its rows in shared memory.  When outer * inner alone gives
 *   too few blocks to fill the device, len is split over blockIdx.y; each
 *   split writes its partial results to temporary storage and a second
 *   kernel combines the splits (a thread per output, or a block per output
 *   when there are many splits; no atomics, deterministic).
 * The route depends only on the shape, the pointer's alignment and the
 * device's SM count, so the sizing call (temp == NULL) and the computing
 * call agree.  Element counts are 64-bit throughout.
 */
#ifndef DEVARRAY_KERNELS_REDUCE_CUH_
#define DEVARRAY_KERNELS_REDUCE_CUH_

#include <stdint.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"
#include "reduce_ordered.cuh"

namespace da {

/* The per-op launchers of the units (reduce_<op>.cu). */
cudaError_t reduce_run_sum(void *temp, size_t *temp_bytes, const da_reduce *r,
                           cudaStream_t stream);
cudaError_t reduce_run_prod(void *temp, size_t *temp_bytes, const da_reduce *r,
                            cudaStream_t stream);
cudaError_t reduce_run_minmax(void *temp, size_t *temp_bytes, const da_reduce *r,
                              cudaStream_t stream);

/* Up to kMaxLoopedSegments segments of at least nsegments * kLongSegment
   elements each, one whole-device reduction per segment beats CUB's one
   block per segment (on an H200, 64 x 2^22 floats: 0.61 ms against
   1.2 ms). */
constexpr int64_t kMaxLoopedSegments = 128;
constexpr int64_t kLongSegment = (int64_t)1 << 15;
/* One thread per segment up to this length, loading kThreadBatch elements
   (one 32-byte sector of float32) at a time; one warp up to kWarpSegment. */
constexpr int kThreadSegment = 32;
constexpr int kThreadBatch = 8;
constexpr int64_t kWarpSegment = 4096;
constexpr int kWarpThreads = 32;
/* independent partial results per lane in the warp kernel, to keep loads
   in flight */
constexpr int kWarpPartials = 4;
/* Columns route: rows each thread loads before combining; the grid aims
   at kWaves waves of kResidentBlocks blocks per SM (256-thread blocks,
   2048 threads per SM), and a split gets at least kMinSplitRows rows per
   thread, so its fixed cost stays small. */
constexpr int kColumnUnroll = 4;
constexpr int64_t kResidentBlocks = 8;
constexpr int64_t kWaves = 4;
constexpr int64_t kMinSplitRows = 16;
constexpr int64_t kMaxSplits = 65535; /* gridDim.y */
/* Splits combined by one thread per output up to this many, else by a
   block per output (a thread looping over thousands of splits would wait
   on each load in turn). */
constexpr int64_t kThreadCombine = 64;

/* ---- ops ----------------------------------------------------------------- */

template <int Op, int Cls>
struct reduce_op;

/* SUM and PROD: add and mul of every class; identity 0 and 1. */
template <int Cls>
struct reduce_op<DA_REDUCE_SUM, Cls> {
    typedef typename class_traits<Cls>::type A;
    static __host__ __device__ __forceinline__ A identity() { return A(); }
    __host__ __device__ __forceinline__ A
    operator()(const A &a, const A &b) const
    {
        return class_traits<Cls>::add(a, b);
    }
};

#define DA_DEFINE_REDUCE_OP(OP, CLS, CT, FN, IDENTITY)                       \
    template <>                                                              \
    struct reduce_op<OP, CLS> {                                              \
        typedef CT A;                                                        \
        static __host__ __device__ __forceinline__ A identity() { return IDENTITY; } \
        __host__ __device__ __forceinline__ A                                \
        operator()(const A &a, const A &b) const                             \
        {                                                                    \
            return FN(a, b);                                                 \
        }                                                                    \
    };

DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_SINT, int64_t, da_sint_mul, 1)
DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_UINT, uint64_t, da_uint_mul, 1)
DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_F32, float, da_f32_mul, 1.0f)
DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_F64, double, da_f64_mul, 1.0)
DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_C64, da_c64, da_c64_mul, da_make_c64(1.0f, 0.0f))
DA_DEFINE_REDUCE_OP(DA_REDUCE_PROD, DA_CLASS_C128, da_c128, da_c128_mul, da_make_c128(1.0, 0.0))
/* max and min: the identity is the bottom (top) of the order, which any
   element, NaN included, replaces */
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_BOOL, uint8_t, da_bool_or, 0)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_SINT, int64_t, da_sint_max, INT64_MIN)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_UINT, uint64_t, da_uint_max, 0)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_F32, float, da_f32_max, -INFINITY)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_F64, double, da_f64_max, -(double)INFINITY)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_C64, da_c64, da_c64_maximum,
                    da_make_c64(-INFINITY, -INFINITY))
DA_DEFINE_REDUCE_OP(DA_REDUCE_MAX, DA_CLASS_C128, da_c128, da_c128_maximum,
                    da_make_c128(-(double)INFINITY, -(double)INFINITY))
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_BOOL, uint8_t, da_bool_and, 1)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_SINT, int64_t, da_sint_min, INT64_MAX)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_UINT, uint64_t, da_uint_min, UINT64_MAX)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_F32, float, da_f32_min, INFINITY)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_F64, double, da_f64_min, (double)INFINITY)
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_C64, da_c64, da_c64_minimum,
                    da_make_c64(INFINITY, INFINITY))
DA_DEFINE_REDUCE_OP(DA_REDUCE_MIN, DA_CLASS_C128, da_c128, da_c128_minimum,
                    da_make_c128((double)INFINITY, (double)INFINITY))
#undef DA_DEFINE_REDUCE_OP

/* An input element (storage of dtype Typenum) as a value of class Cls. */
template <int Typenum, int Cls>
struct to_accumulator {
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;

    __host__ __device__ __forceinline__ A
    operator()(const S &value) const
    {
        return class_traits<Cls>::load(&value, Typenum);
    }
};

struct segment_start {
    int64_t seglen;

    __host__ __device__ __forceinline__ int64_t
    operator()(int64_t segment) const
    {
        return segment * seglen;
    }
};

/* ---- segments (inner == 1) ------------------------------------------------ */

/* One thread per segment of at most kThreadSegment elements, combined in
   order; each batch's loads are issued before its combinations. */
template <int Typenum, int Cls, int Op>
static __global__ void __launch_bounds__(kBlockThreads)
segment_per_thread_kernel(const typename dtype_traits<Typenum>::storage *in,
                          typename class_traits<Cls>::type *out, int64_t nsegments,
                          int seglen)
{
    typedef typename class_traits<Cls>::type A;
    const to_accumulator<Typenum, Cls> convert;
    const reduce_op<Op, Cls> combine;
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t s;

    for (s = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; s < nsegments; s += step) {
        const typename dtype_traits<Typenum>::storage *p = in + s * seglen;
        A acc = reduce_op<Op, Cls>::identity();
        int j0;
        for (j0 = 0; j0 < seglen; j0 += kThreadBatch) {
            A values[kThreadBatch];
#pragma unroll
            for (int j = 0; j < kThreadBatch; j++) {
                values[j] = j0 + j < seglen ? convert(p[j0 + j]) : reduce_op<Op, Cls>::identity();
            }
#pragma unroll
            for (int j = 0; j < kThreadBatch; j++) {
                if (j0 + j < seglen) {
                    acc = combine(acc, values[j]);
                }
            }
        }
        out[s] = acc;
    }
}

/* One warp per segment of at most kWarpSegment elements: coalesced loads
   into kWarpPartials results per lane, then a tree across the warp. */
template <int Typenum, int Cls, int Op>
static __global__ void __launch_bounds__(kBlockThreads)
segment_per_warp_kernel(const typename dtype_traits<Typenum>::storage *in,
                        typename class_traits<Cls>::type *out, int64_t nsegments,
                        int64_t seglen)
{
    typedef typename class_traits<Cls>::type A;
    typedef cub::WarpReduce<A> warp_reduce;
    constexpr int kWarps = kBlockThreads / kWarpThreads;
    constexpr int64_t kStride = (int64_t)kWarpThreads * kWarpPartials;
    __shared__ typename warp_reduce::TempStorage scratch[kWarps];
    const to_accumulator<Typenum, Cls> convert;
    const reduce_op<Op, Cls> combine;
    const int warp = threadIdx.x / kWarpThreads;
    const int lane = threadIdx.x % kWarpThreads;
    const int64_t step = (int64_t)gridDim.x * kWarps;
    int64_t s;

    /* s is the same for the whole warp, so the warp stays converged */
    for (s = (int64_t)blockIdx.x * kWarps + warp; s < nsegments; s += step) {
        const typename dtype_traits<Typenum>::storage *p = in + s * seglen;
        A partial[kWarpPartials];
        A acc;
        int64_t j;
#pragma unroll
        for (int k = 0; k < kWarpPartials; k++) {
            partial[k] = reduce_op<Op, Cls>::identity();
        }
        for (j = lane; j + (kWarpPartials - 1) * kWarpThreads < seglen; j += kStride) {
#pragma unroll
            for (int k = 0; k < kWarpPartials; k++) {
                partial[k] = combine(partial[k], convert(p[j + k * kWarpThreads]));
            }
        }
        for (; j < seglen; j += kWarpThreads) {
            partial[0] = combine(partial[0], convert(p[j]));
        }
        acc = partial[0];
#pragma unroll
        for (int k = 1; k < kWarpPartials; k++) {
            acc = combine(acc, partial[k]);
        }
        acc = warp_reduce(scratch[warp]).Reduce(acc, combine);
        if (lane == 0) {
            out[s] = acc;
        }
    }
}

template <int Typenum, int Cls, int Op>
static cudaError_t
launch_short_segments(const typename dtype_traits<Typenum>::storage *in,
                      typename class_traits<Cls>::type *out, int64_t nsegments,
                      int64_t seglen, cudaStream_t stream)
{
    unsigned int blocks;
    cudaError_t err;

    if (seglen <= kThreadSegment) {
        err = grid_blocks(nsegments, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        segment_per_thread_kernel<Typenum, Cls, Op>
            <<<blocks, kBlockThreads, 0, stream>>>(in, out, nsegments, (int)seglen);
    }
    else {
        err = grid_blocks(nsegments * kWarpThreads, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        segment_per_warp_kernel<Typenum, Cls, Op>
            <<<blocks, kBlockThreads, 0, stream>>>(in, out, nsegments, seglen);
    }
    return cudaGetLastError();
}

template <int Typenum, int Cls, int Op>
static cudaError_t
reduce_segments(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;
    const S *src = static_cast<const S *>(r->in);
    A *dst = static_cast<A *>(r->out);
    const int64_t nsegments = r->outer, seglen = r->len;
    cudaError_t err = cudaSuccess;

    if (nsegments == 1 ||
        (nsegments <= kMaxLoopedSegments && seglen >= nsegments * kLongSegment)) {
        int64_t s;
        size_t bytes = *temp_bytes;
        for (s = 0; s < nsegments && err == cudaSuccess; s++) {
            err = cub::DeviceReduce::TransformReduce(
                temp, bytes, src + s * seglen, dst + s, seglen, reduce_op<Op, Cls>(),
                to_accumulator<Typenum, Cls>(), reduce_op<Op, Cls>::identity(), stream);
            if (temp == nullptr) {
                *temp_bytes = bytes;
                break;
            }
        }
    }
    else if (seglen <= kWarpSegment) {
        if (temp == nullptr) {
            *temp_bytes = 1; /* none needed, but a size of 0 invites a NULL */
        }
        else {
            err = launch_short_segments<Typenum, Cls, Op>(src, dst, nsegments, seglen, stream);
        }
    }
    else {
        auto values = thrust::make_transform_iterator(src, to_accumulator<Typenum, Cls>());
        auto starts = thrust::make_transform_iterator(
            thrust::counting_iterator<int64_t>(0), segment_start{seglen});
        err = cub::DeviceSegmentedReduce::Reduce(temp, *temp_bytes, values, dst, nsegments,
                                                 starts, starts + 1, reduce_op<Op, Cls>(),
                                                 reduce_op<Op, Cls>::identity(), stream);
    }
    return err;
}

/* ---- one float segment in devarray's order (reduce_ordered.cuh) ----------- */

template <int Typenum, int Cls, int Op>
static cudaError_t
reduce_in_order(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;
    const int64_t blocks = ordered_blocks(r->len);
    A *partials = static_cast<A *>(temp);
    const ordered_store<A> store = {static_cast<A *>(r->out)};

    if (temp == nullptr) {
        *temp_bytes = (size_t)blocks * sizeof(A);
        return cudaSuccess;
    }
    ordered_segment_kernel<S, A, reduce_op<Op, Cls>, to_accumulator<Typenum, Cls>>
        <<<(unsigned int)blocks, kOrderedThreads, 0, stream>>>(
            static_cast<const S *>(r->in), r->len,
            (uintptr_t)r->in % sizeof(ordered_quad<S>) == 0, reduce_op<Op, Cls>(),
            to_accumulator<Typenum, Cls>(), partials, store);
    return ordered_finish(partials, blocks, reduce_op<Op, Cls>(), store, stream);
}

/* ---- columns (inner > 1) --------------------------------------------------- */

/* Vec adjacent elements, loaded as one aligned access. */
template <typename S, int Vec>
struct alignas(sizeof(S) * Vec) column_chunk {
    S v[Vec];
};

/* Elements per access when the row is aligned: 16 bytes, at most 4. */
template <typename S>
struct column_vec {
    static constexpr int value = sizeof(S) >= 16 ? 1 : (sizeof(S) == 8 ? 2 : 4);
};

/* The columns route's geometry for one problem. */
struct column_plan {
    int vec;            /* elements per thread access: 1 or the dtype's */
    int bx;             /* threads along inner (a power of 2, <= 32) */
    int64_t tiles;      /* blocks along inner per outer index */
    int64_t splits;     /* blocks along len */
    int64_t split_rows; /* rows per split (the last may have fewer) */
};

/* Block (tile + o * tiles, split): rows [split * split_rows, +split_rows)
   of columns [tile * bx * Vec, +bx * Vec) of outer index o.  With one
   split the results go to out, else to partial[split][o * inner + c]. */
template <int Typenum, int Cls, int Op, int Vec>
static __global__ void __launch_bounds__(kBlockThreads)
columns_kernel(const typename dtype_traits<Typenum>::storage *in,
               typename class_traits<Cls>::type *out, int64_t len, int64_t inner,
               int64_t tiles, int64_t split_rows, int bx)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;
    __shared__ A rows[kBlockThreads * Vec];
    const to_accumulator<Typenum, Cls> convert;
    const reduce_op<Op, Cls> combine;
    const int by = kBlockThreads / bx;
    const int tx = threadIdx.x % bx, ty = threadIdx.x / bx;
    const int64_t o = blockIdx.x / tiles;
    const int64_t c = (blockIdx.x % tiles) * bx * Vec + (int64_t)tx * Vec;
    const int64_t r0 = (int64_t)blockIdx.y * split_rows;
    const int64_t r1 = r0 + split_rows < len ? r0 + split_rows : len;
    const int64_t step = (int64_t)by * inner;
    A acc[Vec];
    int64_t r;

#pragma unroll
    for (int v = 0; v < Vec; v++) {
        acc[v] = reduce_op<Op, Cls>::identity();
    }
    if (c < inner) {
        const S *p = in + (o * len + r0 + ty) * inner + c;
        r = r0 + ty;
        if (Vec > 1) {
            /* c is a multiple of Vec and inner too (the launcher checks),
               so the whole chunk is in the row */
            for (; r + (kColumnUnroll - 1) * by < r1; r += kColumnUnroll * by) {
                column_chunk<S, Vec> chunk[kColumnUnroll];
#pragma unroll
                for (int u = 0; u < kColumnUnroll; u++) {
                    chunk[u] = *reinterpret_cast<const column_chunk<S, Vec> *>(p + u * step);
                }
#pragma unroll
                for (int u = 0; u < kColumnUnroll; u++) {
#pragma unroll
                    for (int v = 0; v < Vec; v++) {
                        acc[v] = combine(acc[v], convert(chunk[u].v[v]));
                    }
                }
                p += kColumnUnroll * step;
            }
            for (; r < r1; r += by) {
                column_chunk<S, Vec> chunk = *reinterpret_cast<const column_chunk<S, Vec> *>(p);
#pragma unroll
                for (int v = 0; v < Vec; v++) {
                    acc[v] = combine(acc[v], convert(chunk.v[v]));
                }
                p += step;
            }
        }
        else {
            for (; r + (kColumnUnroll - 1) * by < r1; r += kColumnUnroll * by) {
                S values[kColumnUnroll];
#pragma unroll
                for (int u = 0; u < kColumnUnroll; u++) {
                    values[u] = p[u * step];
                }
#pragma unroll
                for (int u = 0; u < kColumnUnroll; u++) {
                    acc[0] = combine(acc[0], convert(values[u]));
                }
                p += kColumnUnroll * step;
            }
            for (; r < r1; r += by) {
                acc[0] = combine(acc[0], convert(*p));
                p += step;
            }
        }
    }
#pragma unroll
    for (int v = 0; v < Vec; v++) {
        rows[(ty * bx + tx) * Vec + v] = acc[v];
    }
    __syncthreads();
    for (int half = by / 2; half > 0; half /= 2) {
        if (ty < half) {
#pragma unroll
            for (int v = 0; v < Vec; v++) {
                const int k = (ty * bx + tx) * Vec + v;
                rows[k] = combine(rows[k], rows[k + half * bx * Vec]);
            }
        }
        __syncthreads();
    }
    if (ty == 0 && c < inner) {
        /* split s's partial results start at s * outer * inner */
        A *dst = out + ((int64_t)blockIdx.y * (gridDim.x / tiles) + o) * inner + c;
#pragma unroll
        for (int v = 0; v < Vec; v++) {
            if (Vec == 1 || c + v < inner) {
                dst[v] = rows[tx * Vec + v];
            }
        }
    }
}

/* out[j] = the splits' partial results for output j, combined in order,
   one thread per output (loads coalesced across j); for up to
   kThreadCombine splits. */
template <int Cls, int Op>
static __global__ void __launch_bounds__(kBlockThreads)
combine_splits_kernel(const typename class_traits<Cls>::type *partial,
                      typename class_traits<Cls>::type *out, int64_t n, int64_t splits)
{
    typedef typename class_traits<Cls>::type A;
    const reduce_op<Op, Cls> combine;
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t j, s;

    for (j = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; j < n; j += step) {
        A acc = partial[j];
#pragma unroll 8
        for (s = 1; s < splits; s++) {
            acc = combine(acc, partial[s * n + j]);
        }
        out[j] = acc;
    }
}

/* The same with a block per output, for many splits (then there are few
   outputs: splits * blocks stays near a few waves). */
template <int Cls, int Op>
static __global__ void __launch_bounds__(kBlockThreads)
combine_splits_block_kernel(const typename class_traits<Cls>::type *partial,
                            typename class_traits<Cls>::type *out, int64_t n,
                            int64_t splits)
{
    typedef typename class_traits<Cls>::type A;
    typedef cub::BlockReduce<A, kBlockThreads> block_reduce;
    __shared__ typename block_reduce::TempStorage scratch;
    const reduce_op<Op, Cls> combine;
    int64_t j, s;

    for (j = blockIdx.x; j < n; j += gridDim.x) {
        A acc = reduce_op<Op, Cls>::identity();
        for (s = threadIdx.x; s < splits; s += kBlockThreads) {
            acc = combine(acc, partial[s * n + j]);
        }
        acc = block_reduce(scratch).Reduce(acc, combine);
        if (threadIdx.x == 0) {
            out[j] = acc;
        }
        __syncthreads(); /* scratch is reused by the next j */
    }
}

/* The columns route's geometry (see column_plan). */
template <typename S>
static cudaError_t
plan_columns(const da_reduce *r, column_plan *plan)
{
    const int vec = column_vec<S>::value;
    int device, sms, by;
    int64_t per_thread, want, blocks_xy, max_splits;
    cudaError_t err;

    plan->vec = vec > 1 && r->inner % vec == 0 &&
                        (uintptr_t)r->in % (sizeof(S) * (size_t)vec) == 0
                    ? vec
                    : 1;
    per_thread = (r->inner + plan->vec - 1) / plan->vec;
    plan->bx = 1;
    while (plan->bx < kWarpThreads && plan->bx < per_thread) {
        plan->bx *= 2;
    }
    by = kBlockThreads / plan->bx;
    plan->tiles = (per_thread + plan->bx - 1) / plan->bx;
    blocks_xy = r->outer * plan->tiles;
    if (blocks_xy > kMaxBlocks) {
        return cudaErrorInvalidConfiguration;
    }
    err = cudaGetDevice(&device);
    if (err == cudaSuccess) {
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    if (err != cudaSuccess) {
        return err;
    }
    want = ((int64_t)sms * kResidentBlocks * kWaves + blocks_xy - 1) / blocks_xy;
    max_splits = r->len / ((int64_t)by * kMinSplitRows);
    if (want > max_splits) {
        want = max_splits;
    }
    if (want > kMaxSplits) {
        want = kMaxSplits;
    }
    if (want < 1) {
        want = 1;
    }
    plan->split_rows = (r->len + want - 1) / want;
    plan->splits = (r->len + plan->split_rows - 1) / plan->split_rows;
    return cudaSuccess;
}

template <int Typenum, int Cls, int Op>
static cudaError_t
reduce_columns(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;
    constexpr int kVec = column_vec<S>::value;
    const int64_t n = r->outer * r->inner;
    const S *src = static_cast<const S *>(r->in);
    A *dst = static_cast<A *>(r->out);
    A *target;
    column_plan plan;
    dim3 grid;
    cudaError_t err = plan_columns<S>(r, &plan);

    if (err != cudaSuccess) {
        return err;
    }
    if (temp == nullptr) {
        *temp_bytes = plan.splits > 1 ? (size_t)(plan.splits * n) * sizeof(A) : 1;
        return cudaSuccess;
    }
    target = plan.splits > 1 ? static_cast<A *>(temp) : dst;
    grid = dim3((unsigned int)(r->outer * plan.tiles), (unsigned int)plan.splits, 1);
    if (plan.vec > 1) {
        columns_kernel<Typenum, Cls, Op, kVec><<<grid, kBlockThreads, 0, stream>>>(
            src, target, r->len, r->inner, plan.tiles, plan.split_rows, plan.bx);
    }
    else {
        columns_kernel<Typenum, Cls, Op, 1><<<grid, kBlockThreads, 0, stream>>>(
            src, target, r->len, r->inner, plan.tiles, plan.split_rows, plan.bx);
    }
    err = cudaGetLastError();
    if (err == cudaSuccess && plan.splits > kThreadCombine) {
        combine_splits_block_kernel<Cls, Op>
            <<<(unsigned int)(n < kMaxBlocks ? n : kMaxBlocks), kBlockThreads, 0, stream>>>(
                target, dst, n, plan.splits);
        err = cudaGetLastError();
    }
    else if (err == cudaSuccess && plan.splits > 1) {
        unsigned int blocks;
        err = grid_blocks(n, &blocks);
        if (err == cudaSuccess) {
            combine_splits_kernel<Cls, Op>
                <<<blocks, kBlockThreads, 0, stream>>>(target, dst, n, plan.splits);
            err = cudaGetLastError();
        }
    }
    return err;
}

/* ---- dispatch ---------------------------------------------------------------- */

/* Whether (op, dtype) takes CUB's routes for long segments: sums (as
   before this engine) and the float32 / float64 products, maxima and
   minima, the cases that are measured against CuPy and PyTorch.  The
   others take the columns route with inner == 1 (bx == 1: a warp reads
   32 consecutive elements), which is coalesced too and keeps CUB's many
   kernels per instantiation out of the library (.so size). */
template <int Typenum, int Op>
struct use_cub {
    static constexpr bool value =
        Op == DA_REDUCE_SUM || Typenum == DA_FLOAT32 || Typenum == DA_FLOAT64;
};

template <int Typenum, int Cls, int Op>
static cudaError_t
reduce_typed(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    cudaError_t err;

    if constexpr ((Op == DA_REDUCE_SUM || Op == DA_REDUCE_PROD) &&
                  (Cls == DA_CLASS_F32 || Cls == DA_CLASS_F64)) {
        /* da_reduce_in_order: fuse.cu's one-pass float reductions match it */
        if (r->outer == 1 && r->inner == 1) {
            return reduce_in_order<Typenum, Cls, Op>(temp, temp_bytes, r, stream);
        }
    }
    if constexpr (use_cub<Typenum, Op>::value) {
        err = r->inner == 1 ? reduce_segments<Typenum, Cls, Op>(temp, temp_bytes, r, stream)
                            : reduce_columns<Typenum, Cls, Op>(temp, temp_bytes, r, stream);
    }
    else if (r->inner == 1 && r->outer > 1 && r->len <= kWarpSegment) {
        err = temp == nullptr ? (*temp_bytes = 1, cudaSuccess)
                              : launch_short_segments<Typenum, Cls, Op>(
                                    static_cast<const typename dtype_traits<Typenum>::storage *>(r->in),
                                    static_cast<typename class_traits<Cls>::type *>(r->out),
                                    r->outer, r->len, stream);
    }
    else {
        err = reduce_columns<Typenum, Cls, Op>(temp, temp_bytes, r, stream);
    }
    if (temp != nullptr) {
        /* CUB peeks at launch errors; take any pending one so it is
           reported here and not by an unrelated later launch */
        cudaError_t last = cudaGetLastError();
        if (err == cudaSuccess) {
            err = last;
        }
    }
    return err;
}

/* run<typenum>() for the input dtype and op Op (or Op2 when r->op says
   so); the accumulator class follows from the input (da_reduce_supported
   has checked the triple, so a bool max or min never comes). */
template <int Op, int Op2 = Op>
struct reduce_launcher {
    void *temp;
    size_t *temp_bytes;
    const da_reduce *r;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        constexpr int in_cls = dtype_traits<Typenum>::cls;
        constexpr bool sums = Op == DA_REDUCE_SUM || Op == DA_REDUCE_PROD;
        constexpr int acc_cls = in_cls == DA_CLASS_BOOL && sums ? DA_CLASS_SINT : in_cls;
        if constexpr (acc_cls == DA_CLASS_BOOL) {
            /* da_reduce_supported refused it: bool max and min are any()
               and all() (nonzero_reduce.cu) */
            return cudaErrorInvalidValue;
        }
        else {
            if (Op2 != Op && r->op == Op2) {
                return reduce_typed<Typenum, acc_cls, Op2>(temp, temp_bytes, r, stream);
            }
            return reduce_typed<Typenum, acc_cls, Op>(temp, temp_bytes, r, stream);
        }
    }
};

}  // namespace da

#endif /* DEVARRAY_KERNELS_REDUCE_CUH_ */
