/*
 * Internal to kernels/: the fixed order in which devarray combines a
 * float sum or product of one contiguous segment (reduce.cuh's ordered
 * route) and a fused full reduction (fuse.cu), so that `fuse` of a float
 * reduction gives the bits of the unfused calls (docs/fusion.md).  The
 * order depends on the element count n alone, not on the GPU, the
 * pointer's alignment or the CUB version:
 *   - the elements form tiles of kOrderedTile; block b of the
 *     G = ordered_blocks(n) blocks takes tiles b, b + G, b + 2G, ... in
 *     turn (one block for up to kOrderedOneBlockTiles tiles);
 *   - in a tile, lane t (of kOrderedThreads) combines element
 *     t + k * kOrderedThreads into its accumulator k (k < kOrderedPer;
 *     each starts at the op's identity): the layout of the fused
 *     interpreter's tiles, and every load of a warp is coalesced;
 *   - a lane's accumulators combine as (a0 . a1) . (a2 . a3), then the
 *     lanes of a block by a shuffle tree within each warp, then the warps
 *     in order (ordered_block_result);
 *   - the blocks' results are the answer when there is one block, else one
 *     block combines them the same way, thread t taking results t,
 *     t + kOrderedThreads, ... in order (ordered_final_kernel).
 * An accumulator combines at most ceil(n / (kOrderedMaxBlocks *
 * kOrderedTile)) elements in sequence (256 of 2^28), about as many as a
 * CUB thread does.
 */
#ifndef DEVARRAY_KERNELS_REDUCE_ORDERED_CUH_
#define DEVARRAY_KERNELS_REDUCE_ORDERED_CUH_

#include <stdint.h>
#include <string.h>

namespace da {

constexpr int kOrderedThreads = 128;
constexpr int kOrderedPer = 4; /* elements of a tile per lane */
constexpr int kOrderedTile = kOrderedThreads * kOrderedPer;
/* 2048 blocks of 128 threads fit an H100's or H200's 132 SMs at once */
constexpr int64_t kOrderedMaxBlocks = 2048;
/* Blocks an SM holds (ordered_segment_kernel's launch bounds): 16 where it
   holds 2048 threads, as many as fit elsewhere. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || \
    __CUDA_ARCH__ == 1000
constexpr int kOrderedBlocksPerSM = 16;
#elif __CUDA_ARCH__ == 750
constexpr int kOrderedBlocksPerSM = 8;
#else
constexpr int kOrderedBlocksPerSM = 12;
#endif

/* Up to this many tiles are one block, which stores the answer itself: a
   second launch cost more than the first block's few loads (float(a.sum())
   of 1,024 float32 took 21.9 us as two blocks and the final step on an
   H200, 15.3 us as one launch). */
constexpr int64_t kOrderedOneBlockTiles = 8;

__host__ __device__ __forceinline__ int64_t
ordered_blocks(int64_t n)
{
    const int64_t tiles = (n + kOrderedTile - 1) / kOrderedTile;
    return tiles <= kOrderedOneBlockTiles ? 1
                                          : (tiles < kOrderedMaxBlocks ? tiles : kOrderedMaxBlocks);
}

/* v of the lane `offset` above, word by word (any trivially copyable A). */
template <typename A>
__device__ __forceinline__ A
ordered_shuffle_down(const A &v, int offset)
{
    constexpr int kWords = (int)((sizeof(A) + 3) / 4);
    uint32_t w[kWords] = {};
    A other;

    memcpy(w, &v, sizeof(A));
#pragma unroll
    for (int j = 0; j < kWords; j++) {
        w[j] = __shfl_down_sync(0xffffffffu, w[j], offset);
    }
    memcpy(&other, w, sizeof(A));
    return other;
}

/* The block's accumulators combined (combine(acc, other) returns the
   combination); the result is thread 0's.  Every thread must call it. */
template <typename A, typename Combine>
__device__ __forceinline__ A
ordered_block_combine(A acc, const Combine &combine)
{
    __shared__ A warps[kOrderedThreads / 32];
    const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;

    for (int offset = 16; offset > 0; offset /= 2) {
        const A other = ordered_shuffle_down(acc, offset);
        if (lane + offset < 32) {
            acc = combine(acc, other);
        }
    }
    if (lane == 0) {
        warps[warp] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < kOrderedThreads / 32; k++) {
            acc = combine(acc, warps[k]);
        }
    }
    return acc;
}

/* A block's lanes (each its kOrderedPer accumulators) combined, then
   stored (store(value)) when the grid is one block, else left in
   partials[blockIdx.x] for ordered_final_kernel. */
template <typename A, typename Combine, typename Store>
__device__ __forceinline__ void
ordered_block_result(const A (&lane)[kOrderedPer], const Combine &combine, A *partials,
                     const Store &store)
{
    static_assert(kOrderedPer == 4, "a lane's accumulators combine as a pair of pairs");
    A acc = combine(combine(lane[0], lane[1]), combine(lane[2], lane[3]));

    acc = ordered_block_combine(acc, combine);
    if (threadIdx.x == 0) {
        if (gridDim.x == 1) {
            store(acc);
        }
        else {
            partials[blockIdx.x] = acc;
        }
    }
}

/* The result stored as the accumulator's type. */
template <typename A>
struct ordered_store {
    A *out;

    __device__ __forceinline__ void
    operator()(const A &v) const
    {
        *out = v;
    }
};

/* Four adjacent elements, one aligned load. */
template <typename S>
struct alignas(sizeof(S) * kOrderedPer) ordered_quad {
    S v[kOrderedPer];
};

/* One segment of n elements of storage S, each read as A by convert() and
   combined by combine() in the order, the loads of kUnroll tiles (64
   bytes a thread for 4- and 8-byte elements) in flight first; at most 32
   registers on an H100 or H200, so all kOrderedMaxBlocks blocks are
   resident at once on its 132 SMs (no second, partial wave).  With quads (2-byte elements, the
   pointer `aligned` to four), a warp's elements of a tile (its 32 columns
   of the tile's kOrderedPer rows of kOrderedThreads, a row per
   accumulator) arrive as one 8-byte load a lane, lane l taking row l / 8,
   columns 4 (l % 8) .. 4 (l % 8) + 3, and go through the warp's shared
   memory to the lane whose column it is (on an H200, float16 157 us for
   2^28 against 185 us an element a load; 4- and 8-byte elements were as
   fast or faster an element a load, coalesced). */
template <typename S, typename A, typename Combine, typename Convert>
__global__ void __launch_bounds__(kOrderedThreads, kOrderedBlocksPerSM)
ordered_segment_kernel(const S *__restrict__ in, int64_t n, bool aligned, Combine combine,
                       Convert convert, A *partials, ordered_store<A> store)
{
    const bool quads = sizeof(S) == 2 && aligned;
    constexpr int kWarps = kOrderedThreads / 32;
    constexpr int kUnroll = 16 / sizeof(S) < 4 ? (int)(16 / sizeof(S)) : 4;
    __shared__ ordered_quad<S> stage[kWarps][32];
    const int64_t stride = gridDim.x, full_tiles = n / kOrderedTile;
    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int64_t quad_at = (lane / 8) * kOrderedThreads + warp * 32 + 4 * (lane % 8);
    A acc[kOrderedPer];
    int64_t tile = blockIdx.x;

#pragma unroll
    for (int k = 0; k < kOrderedPer; k++) {
        acc[k] = combine.identity();
    }
    for (; quads && tile + (kUnroll - 1) * stride < full_tiles; tile += kUnroll * stride) {
        ordered_quad<S> q[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            q[u] = *reinterpret_cast<const ordered_quad<S> *>(
                in + (tile + u * stride) * kOrderedTile + quad_at);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            stage[warp][lane] = q[u];
            __syncwarp();
#pragma unroll
            for (int k = 0; k < kOrderedPer; k++) {
                acc[k] = combine(acc[k], convert(stage[warp][8 * k + lane / 4].v[lane % 4]));
            }
            __syncwarp();
        }
    }
    for (; !quads && tile + (kUnroll - 1) * stride < full_tiles; tile += kUnroll * stride) {
        S v[kUnroll][kOrderedPer];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
#pragma unroll
            for (int k = 0; k < kOrderedPer; k++) {
                v[u][k] = in[(tile + u * stride) * kOrderedTile + k * kOrderedThreads + tid];
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
#pragma unroll
            for (int k = 0; k < kOrderedPer; k++) {
                acc[k] = combine(acc[k], convert(v[u][k]));
            }
        }
    }
    for (; tile * kOrderedTile < n; tile += stride) {
#pragma unroll
        for (int k = 0; k < kOrderedPer; k++) {
            const int64_t i = tile * kOrderedTile + k * kOrderedThreads + tid;
            if (i < n) {
                acc[k] = combine(acc[k], convert(in[i]));
            }
        }
    }
    ordered_block_result(acc, combine, partials, store);
}

/* The nblocks > 1 partial results combined by one block of
   kOrderedThreads, and stored; each thread starts at combine.identity(). */
template <typename A, typename Combine, typename Store>
__global__ void __launch_bounds__(kOrderedThreads)
ordered_final_kernel(const A *partials, int nblocks, Combine combine, Store store)
{
    A acc = combine.identity();

    for (int i = (int)threadIdx.x; i < nblocks; i += kOrderedThreads) {
        acc = combine(acc, partials[i]);
    }
    acc = ordered_block_combine(acc, combine);
    if (threadIdx.x == 0) {
        store(acc);
    }
}

#ifndef __CUDACC_RTC__ /* the run-time compiler's kernels (src/runtime/jit.c) take the above */
/* The second step after a grid of nblocks blocks: none for one block. */
template <typename A, typename Combine, typename Store>
cudaError_t
ordered_finish(const A *partials, int64_t nblocks, const Combine &combine, const Store &store,
               cudaStream_t stream)
{
    cudaError_t err = cudaGetLastError();

    if (err == cudaSuccess && nblocks > 1) {
        ordered_final_kernel<<<1, kOrderedThreads, 0, stream>>>(partials, (int)nblocks, combine,
                                                               store);
        err = cudaGetLastError();
    }
    return err;
}
#endif

}  // namespace da

#endif /* DEVARRAY_KERNELS_REDUCE_ORDERED_CUH_ */
