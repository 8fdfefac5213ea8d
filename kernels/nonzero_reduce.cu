/*
 * da_cuda_nonzero_reduce (kernels/launch.h, da_nonzero_reduce):
 * count_nonzero, any() and all() of every dtype in one pass over the
 * elements' bits.
 *
 * An element is a match when it is nonzero (COUNT, ANY) or zero (ALL), and
 * every op counts matches: COUNT stores the count, ANY whether it is not
 * zero, ALL whether it is.  Elements are read as 16-byte vectors wherever
 * the layout allows (the aligned middle of a row, or 16 bytes of adjacent
 * columns) and tested with a few integer instructions each, so no bool
 * array is written and read again between two passes.  The route follows
 * the shape (outer, len, inner as da_reduce's):
 *   inner == 1, rows of at most kGroupRowVectors vectors: a group of G
 *     lanes of a warp per row, G the power of 2 that gives each lane about
 *     kUnroll vectors (up to 32 lanes), combined by shuffles;
 *   inner == 1, longer rows: blocks of kThreads, `chunks` of them per row
 *     when the rows alone are too few blocks to fill the device;
 *   inner > 1: columns, bx threads across the columns (16 bytes of
 *     adjacent columns each when aligned, 1- and 2-byte ones counted in
 *     packed lanes) by kThreads / bx along len (a warp across, or more
 *     threads when len is short), the block's rows combined in shared
 *     memory; len is split over gridDim.y when the outputs alone give too
 *     few blocks.
 * Where several blocks share an output they combine through it after a
 * memset: int64 atomic adds for COUNT; for ANY a block that found a match
 * stores 1 over zeros, for ALL 0 over ones (the same byte from any number
 * of blocks).  Counts are exact in any order, so the result does not
 * depend on the route.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "dispatch.cuh"

namespace da {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpThreads = 32;
constexpr int kVectorBytes = 16;
/* rows up to this many vectors (4 KiB) take a group of lanes */
constexpr int64_t kGroupRowVectors = 256;
/* a longer row gets more blocks only while each thread keeps this many
   vectors */
constexpr int64_t kMinThreadVectors = 8;
/* the grid aims at kWaves waves of kResidentBlocks blocks per SM */
constexpr int64_t kResidentBlocks = 8;
constexpr int64_t kWaves = 4;
/* columns: each thread keeps at least this many rows, within its block
   and within a split, since a block's end moves its counts through shared
   memory (16 a thread for bool): on an H200, any(axis=0) of 16384 x 16384
   bool took 97 us at 16 rows, 72 us at 128; float32 the same at both */
constexpr int64_t kMinThreadRows = 128;
constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxGridX = 2147483647;
/* loads in flight per thread */
constexpr int kUnroll = 4;

/* Whether the element of W bytes at p (aligned to W, as device arrays
   are to their itemsize) is nonzero. */
template <int W>
__device__ __forceinline__ unsigned
nonzero_at(const unsigned char *p, uint64_t mask)
{
    typedef typename bits_of<W>::type U;
    return (*reinterpret_cast<const U *>(p) & (U)mask) != 0;
}

/* The top bit of each nonzero lane of W bytes (1 or 2) of word w under
   mask, the other bits clear: a lane is nonzero when adding 0x7f (0x7fff)
   to its low bits carries into its top bit, or that bit is set. */
template <int W>
__device__ __forceinline__ uint32_t
nonzero_lane_tops(uint32_t w, uint64_t mask)
{
    constexpr uint32_t kTop = W == 1 ? 0x80808080u : 0x80008000u;
    const uint32_t m = w & (W == 1 ? ~0u : (uint32_t)(mask | mask << 16));
    return (((m & ~kTop) + ~kTop) | m) & kTop;
}

/* The nonzero elements of W bytes among the 16 bytes of v. */
template <int W>
__device__ __forceinline__ unsigned
nonzero_in_vector(uint4 v, uint64_t mask)
{
    if constexpr (W == 8) {
        const uint64_t a = ((uint64_t)v.y << 32) | v.x, b = ((uint64_t)v.w << 32) | v.z;
        return ((a & mask) != 0) + ((b & mask) != 0);
    }
    else {
        const uint32_t words[4] = {v.x, v.y, v.z, v.w};
        /* mask repeated over a word: one element, or two of float16 */
        const uint32_t m = W == 4 ? (uint32_t)mask : W == 2 ? (uint32_t)(mask | mask << 16) : ~0u;
        unsigned n = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const uint32_t w = words[k] & m;
            if constexpr (W == 4) {
                n += w != 0;
            }
            else if constexpr (W == 2) {
                n += ((w & 0xffffu) != 0) + ((w >> 16) != 0);
            }
            else {
                n += __popc(nonzero_lane_tops<1>(w, mask));
            }
        }
        return n;
    }
}

/* Nonzero counts of Vec = 16 / W adjacent columns, from one 16-byte
   vector of them a row.  1- and 2-byte elements count in packed lanes of
   their own width, a vector's flags added by four word operations, and
   move to n every kPackedRows rows, before a lane can overflow. */
constexpr int kPackedRows = 255;

template <int W, int Vec>
struct column_counts {
    unsigned n[Vec];
    uint32_t packed[4];
    int rows;

    __device__ __forceinline__ void
    clear()
    {
#pragma unroll
        for (int k = 0; k < Vec; k++) {
            n[k] = 0;
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            packed[k] = 0;
        }
        rows = 0;
    }

    __device__ __forceinline__ void
    add(const uint4 &v, uint64_t mask)
    {
        if constexpr (W <= 2) {
            const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int k = 0; k < 4; k++) {
                packed[k] += nonzero_lane_tops<W>(words[k], mask) >> (8 * W - 1);
            }
            if (++rows == kPackedRows) {
                settle();
            }
        }
        else {
            typedef typename bits_of<W>::type U;
#pragma unroll
            for (int k = 0; k < Vec; k++) {
                U e;
                memcpy(&e, reinterpret_cast<const unsigned char *>(&v) + k * W, W);
                n[k] += (e & (U)mask) != 0;
            }
        }
    }

    /* move the packed lanes into n */
    __device__ __forceinline__ void
    settle()
    {
        if constexpr (W <= 2) {
            constexpr int kLanes = 4 / W;
#pragma unroll
            for (int k = 0; k < 4; k++) {
#pragma unroll
                for (int j = 0; j < kLanes; j++) {
                    n[k * kLanes + j] += (packed[k] >> (8 * W * j)) & (W == 1 ? 0xffu : 0xffffu);
                }
                packed[k] = 0;
            }
            rows = 0;
        }
    }
};

/* Where the results go: out[j] from the matches of output j, or, when
   several blocks hold parts of output j (`shared`), their part combined
   into out[j] as the top of the file says. */
struct nonzero_sink {
    void *out;
    int op;
    bool shared;

    __device__ __forceinline__ void
    put(int64_t j, unsigned long long matches) const
    {
        if (op == DA_NONZERO_COUNT) {
            if (shared) {
                atomicAdd(static_cast<unsigned long long *>(out) + j, matches);
            }
            else {
                static_cast<int64_t *>(out)[j] = (int64_t)matches;
            }
        }
        else if (!shared) {
            static_cast<uint8_t *>(out)[j] = (matches != 0) == (op == DA_NONZERO_ANY);
        }
        else if (matches != 0) {
            static_cast<uint8_t *>(out)[j] = op == DA_NONZERO_ANY;
        }
    }
};

/* The matches among the len elements at p (a row, aligned to W) that lane
   `lane` of `lanes` reads: elements up to the first 16-byte boundary and
   after the last one singly, the vectors between them kUnroll at a time.
   `zeros` counts zero elements (ALL) rather than nonzero ones. */
template <int W>
__device__ __forceinline__ unsigned long long
count_span(const unsigned char *p, int64_t len, uint64_t mask, bool zeros, int64_t lane,
           int64_t lanes)
{
    constexpr int kPer = kVectorBytes / W;
    const int64_t to_boundary = (int64_t)((kVectorBytes - (uintptr_t)p % kVectorBytes) %
                                          kVectorBytes) / W;
    const int64_t head = to_boundary < len ? to_boundary : len;
    const int64_t vectors = (len - head) / kPer;
    const uint4 *body = reinterpret_cast<const uint4 *>(p + head * W);
    unsigned long long n = 0;
    int64_t i;

    for (i = lane; i < head; i += lanes) {
        n += nonzero_at<W>(p + i * W, mask) ^ zeros;
    }
    for (i = head + vectors * kPer + lane; i < len; i += lanes) {
        n += nonzero_at<W>(p + i * W, mask) ^ zeros;
    }
    for (i = lane; i + (kUnroll - 1) * lanes < vectors; i += kUnroll * lanes) {
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            v[u] = body[i + u * lanes];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const unsigned k = nonzero_in_vector<W>(v[u], mask);
            n += zeros ? kPer - k : k;
        }
    }
    for (; i < vectors; i += lanes) {
        const unsigned k = nonzero_in_vector<W>(body[i], mask);
        n += zeros ? kPer - k : k;
    }
    return n;
}

/* Sum over the block (valid in thread 0); the block waits before
   returning, so the caller may call again. */
__device__ __forceinline__ unsigned long long
block_sum(unsigned long long n, unsigned long long *warp_sums)
{
#pragma unroll
    for (int offset = kWarpThreads / 2; offset > 0; offset /= 2) {
        n += __shfl_down_sync(0xffffffffu, n, offset);
    }
    if (threadIdx.x % kWarpThreads == 0) {
        warp_sums[threadIdx.x / kWarpThreads] = n;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kThreads / kWarpThreads; w++) {
            n += warp_sums[w];
        }
    }
    __syncthreads();
    return n;
}

/* Rows of len elements, a group of `group` lanes (a power of 2 <= 32) per
   row; every lane of a warp takes part in the shuffles, rows or not. */
template <int W>
__global__ void __launch_bounds__(kThreads)
rows_group_kernel(const unsigned char *in, int64_t rows, int64_t len, uint64_t mask,
                  int group, nonzero_sink sink)
{
    const int64_t rows_per_block = kThreads / group;
    const int lane = threadIdx.x % group;
    const bool zeros = sink.op == DA_NONZERO_ALL;

    for (int64_t first = (int64_t)blockIdx.x * rows_per_block; first < rows;
         first += (int64_t)gridDim.x * rows_per_block) {
        const int64_t row = first + threadIdx.x / group;
        unsigned long long n =
            row < rows ? count_span<W>(in + row * len * W, len, mask, zeros, lane, group) : 0;
        for (int offset = group / 2; offset > 0; offset /= 2) {
            n += __shfl_xor_sync(0xffffffffu, n, offset);
        }
        if (lane == 0 && row < rows) {
            sink.put(row, n);
        }
    }
}

/* Rows of len elements, gridDim.x blocks per row (sink.shared when more
   than one), rows over gridDim.y. */
template <int W>
__global__ void __launch_bounds__(kThreads)
rows_block_kernel(const unsigned char *in, int64_t rows, int64_t len, uint64_t mask,
                  nonzero_sink sink)
{
    __shared__ unsigned long long warp_sums[kThreads / kWarpThreads];
    const int64_t lane = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    const int64_t lanes = (int64_t)gridDim.x * kThreads;
    const bool zeros = sink.op == DA_NONZERO_ALL;

    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        const unsigned long long n =
            block_sum(count_span<W>(in + row * len * W, len, mask, zeros, lane, lanes),
                      warp_sums);
        if (threadIdx.x == 0) {
            sink.put(row, n);
        }
    }
}

/* The columns route's geometry for one problem. */
struct column_plan {
    int vec;            /* elements per thread access: 16 / W, or 1 */
    int bx;             /* threads along inner (a power of 2, <= 32) */
    int64_t tiles;      /* blocks along inner per outer index */
    int64_t splits;     /* blocks along len */
    int64_t split_rows; /* rows per split (the last may have fewer) */
};

/* Blocks b = tile + o * tiles (over gridDim.x) and split blockIdx.y: rows
   [split * split_rows, +split_rows) of columns [tile * bx * Vec,
   +bx * Vec) of outer index o.  Each thread counts Vec adjacent columns
   over every by-th row, kUnroll rows in flight. */
template <int W, int Vec>
__global__ void __launch_bounds__(kThreads)
columns_kernel(const unsigned char *in, int64_t outer, int64_t len, int64_t inner,
               int64_t tiles, int64_t split_rows, int bx, uint64_t mask, nonzero_sink sink)
{
    /* count v of thread t at v * kThreads + t: a warp's stores and loads
       fall in distinct banks */
    __shared__ unsigned partial[kThreads * Vec];
    const int by = kThreads / bx;
    const int tx = threadIdx.x % bx, ty = threadIdx.x / bx;
    const int64_t r0 = (int64_t)blockIdx.y * split_rows;
    const int64_t r1 = r0 + split_rows < len ? r0 + split_rows : len;
    const int64_t step = (int64_t)by * inner * W;

    for (int64_t b = blockIdx.x; b < outer * tiles; b += gridDim.x) {
        const int64_t o = b / tiles;
        const int64_t c = (b % tiles) * bx * Vec + (int64_t)tx * Vec;
        column_counts<W, Vec> counts;
        counts.clear();
        if (c < inner) {
            const unsigned char *p = in + ((o * len + r0 + ty) * inner + c) * W;
            int64_t r = r0 + ty;
            /* Vec > 1 only when inner is a multiple of it and rows are
               16-byte aligned, so a chunk never leaves its row */
            for (; r + (kUnroll - 1) * by < r1; r += kUnroll * by) {
                if constexpr (Vec > 1) {
                    uint4 v[kUnroll];
#pragma unroll
                    for (int u = 0; u < kUnroll; u++) {
                        v[u] = *reinterpret_cast<const uint4 *>(p + u * step);
                    }
#pragma unroll
                    for (int u = 0; u < kUnroll; u++) {
                        counts.add(v[u], mask);
                    }
                }
                else {
                    unsigned flags[kUnroll];
#pragma unroll
                    for (int u = 0; u < kUnroll; u++) {
                        flags[u] = nonzero_at<W>(p + u * step, mask);
                    }
#pragma unroll
                    for (int u = 0; u < kUnroll; u++) {
                        counts.n[0] += flags[u];
                    }
                }
                p += kUnroll * step;
            }
            for (; r < r1; r += by) {
                if constexpr (Vec > 1) {
                    counts.add(*reinterpret_cast<const uint4 *>(p), mask);
                }
                else {
                    counts.n[0] += nonzero_at<W>(p, mask);
                }
                p += step;
            }
            if constexpr (Vec > 1) {
                counts.settle();
            }
        }
#pragma unroll
        for (int v = 0; v < Vec; v++) {
            partial[v * kThreads + threadIdx.x] = counts.n[v];
        }
        __syncthreads();
        for (int half = by / 2; half > 0; half /= 2) {
            if (ty < half) {
#pragma unroll
                for (int v = 0; v < Vec; v++) {
                    partial[v * kThreads + threadIdx.x] += partial[v * kThreads + threadIdx.x + half * bx];
                }
            }
            __syncthreads();
        }
        if (ty == 0 && c < inner) {
            const unsigned long long rows_here = (unsigned long long)(r1 - r0);
#pragma unroll
            for (int v = 0; v < Vec; v++) {
                if (Vec == 1 || c + v < inner) {
                    const unsigned nonzero = partial[v * kThreads + tx];
                    sink.put(o * inner + c + v,
                             sink.op == DA_NONZERO_ALL ? rows_here - nonzero : nonzero);
                }
            }
        }
        __syncthreads(); /* partial is reused by the next b */
    }
}

/* Blocks that fill the device: kWaves waves of kResidentBlocks per SM. */
cudaError_t
device_blocks(int64_t *blocks)
{
    int device, sms;
    cudaError_t err = cudaGetDevice(&device);

    if (err == cudaSuccess) {
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    *blocks = err == cudaSuccess ? (int64_t)sms * kResidentBlocks * kWaves : 0;
    return err;
}

/* Zero (COUNT, ANY) or one (ALL) the n outputs that several blocks share. */
cudaError_t
clear_shared(const da_nonzero_reduce *r, int64_t n, cudaStream_t stream)
{
    if (r->op == DA_NONZERO_COUNT) {
        return cudaMemsetAsync(r->out, 0, (size_t)n * sizeof(int64_t), stream);
    }
    return cudaMemsetAsync(r->out, r->op == DA_NONZERO_ALL, (size_t)n, stream);
}

template <int W>
cudaError_t
nonzero_rows(const da_nonzero_reduce *r, int64_t want, cudaStream_t stream)
{
    const unsigned char *in = static_cast<const unsigned char *>(r->in);
    const int64_t vectors = r->len * W / kVectorBytes;
    nonzero_sink sink = {r->out, r->op, false};
    cudaError_t err;

    if (vectors <= kGroupRowVectors) {
        int group = 1;
        int64_t blocks;
        while (group < kWarpThreads && group * kUnroll < vectors) {
            group *= 2;
        }
        blocks = (r->outer + kThreads / group - 1) / (kThreads / group);
        rows_group_kernel<W><<<(unsigned)(blocks < kMaxGridX ? blocks : kMaxGridX), kThreads, 0,
                               stream>>>(in, r->outer, r->len, r->mask, group, sink);
        return cudaGetLastError();
    }
    int64_t chunks = (want + r->outer - 1) / r->outer;
    const int64_t most = (vectors + kThreads * kMinThreadVectors - 1) / (kThreads * kMinThreadVectors);
    chunks = chunks < most ? chunks : most;
    if (chunks > 1) {
        sink.shared = true;
        if ((err = clear_shared(r, r->outer, stream)) != cudaSuccess) {
            return err;
        }
    }
    rows_block_kernel<W><<<dim3((unsigned)chunks, (unsigned)(r->outer < kMaxGridY ? r->outer : kMaxGridY)),
                           kThreads, 0, stream>>>(in, r->outer, r->len, r->mask, sink);
    return cudaGetLastError();
}

template <int W>
cudaError_t
nonzero_columns(const da_nonzero_reduce *r, int64_t want, cudaStream_t stream)
{
    constexpr int kVec = kVectorBytes / W;
    const int64_t n = r->outer * r->inner;
    nonzero_sink sink = {r->out, r->op, false};
    column_plan plan;
    int64_t per_thread, max_splits, blocks_xy;
    int by;
    cudaError_t err;

    plan.vec = kVec > 1 && r->inner % kVec == 0 && (uintptr_t)r->in % kVectorBytes == 0 ? kVec : 1;
    per_thread = (r->inner + plan.vec - 1) / plan.vec;
    /* a warp across the columns where there are that many (its loads
       coalesce), and as many rows a block as leave each thread
       kMinThreadRows of them; then the block's other threads across more
       columns */
    plan.bx = 1;
    while (plan.bx < kWarpThreads && plan.bx < per_thread) {
        plan.bx *= 2;
    }
    by = kThreads / plan.bx;
    while (by > 1 && r->len / by < kMinThreadRows && plan.bx < per_thread) {
        by /= 2;
        plan.bx *= 2;
    }
    plan.tiles = (per_thread + plan.bx - 1) / plan.bx;
    blocks_xy = r->outer * plan.tiles;
    want = (want + blocks_xy - 1) / blocks_xy;
    max_splits = r->len / ((int64_t)by * kMinThreadRows);
    want = want < max_splits ? want : max_splits;
    want = want < kMaxGridY ? want : kMaxGridY;
    want = want > 1 ? want : 1;
    plan.split_rows = (r->len + want - 1) / want;
    plan.splits = (r->len + plan.split_rows - 1) / plan.split_rows;
    if (plan.splits > 1) {
        sink.shared = true;
        if ((err = clear_shared(r, n, stream)) != cudaSuccess) {
            return err;
        }
    }
    const dim3 grid((unsigned)(blocks_xy < kMaxGridX ? blocks_xy : kMaxGridX), (unsigned)plan.splits);
    const unsigned char *in = static_cast<const unsigned char *>(r->in);
    if (plan.vec > 1) {
        columns_kernel<W, kVec><<<grid, kThreads, 0, stream>>>(
            in, r->outer, r->len, r->inner, plan.tiles, plan.split_rows, plan.bx, r->mask, sink);
    }
    else {
        columns_kernel<W, 1><<<grid, kThreads, 0, stream>>>(
            in, r->outer, r->len, r->inner, plan.tiles, plan.split_rows, plan.bx, r->mask, sink);
    }
    return cudaGetLastError();
}

template <int W>
cudaError_t
nonzero_run(const da_nonzero_reduce *r, cudaStream_t stream)
{
    int64_t want;
    cudaError_t err = device_blocks(&want);

    if (err != cudaSuccess) {
        return err;
    }
    return r->inner == 1 ? nonzero_rows<W>(r, want, stream) : nonzero_columns<W>(r, want, stream);
}

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_nonzero_reduce(const da_nonzero_reduce *r, cudaStream_t stream)
{
    if (r == nullptr || r->in == nullptr || r->out == nullptr || r->outer < 1 || r->len < 1 ||
        r->inner < 1 ||
        (r->op != DA_NONZERO_COUNT && r->op != DA_NONZERO_ANY && r->op != DA_NONZERO_ALL) ||
        (r->width != 1 && r->width != 2 && r->width != 4 && r->width != 8) ||
        (uintptr_t)r->in % (unsigned)r->width != 0) {
        return cudaErrorInvalidValue;
    }
    switch (r->width) {
        case 1:
            return da::nonzero_run<1>(r, stream);
        case 2:
            return da::nonzero_run<2>(r, stream);
        case 4:
            return da::nonzero_run<4>(r, stream);
        default:
            return da::nonzero_run<8>(r, stream);
    }
}
