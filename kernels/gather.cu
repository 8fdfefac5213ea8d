/*
 * Indexing by arrays on the GPU (kernels/launch.h): da_cuda_gather,
 * da_cuda_count_true, da_cuda_select_flagged, da_cuda_nonzero.
 *
 * Elements are moved as bits, one kernel family per itemsize (1, 2, 4, 8,
 * 16 bytes), so every dtype of one size shares a kernel.
 *   - gather/scatter: a thread per dense element; the source offset comes
 *     from the coordinates (div/mod per dimension) and the index arrays.
 *     The common `x[i]` / take shape (one dimension, one index array, no
 *     strided part) has its own kernel without divisions, and so has the
 *     rows shape (`m[i]`: one index array selecting whole contiguous rows
 *     of at least 128 bytes), a warp per row moving 16-byte units.  Each kernel has
 *     a 32-bit index variant, used when the problem fits, and a 64-bit one.
 *     Indices out of bounds store k + 1 in *bad, a word the core reads back
 *     (the only store that is not to an element, and only on error: no
 *     atomics anywhere).  A scatter reads that word first and writes
 *     nothing if a check before it in the stream stored there.
 *   - mask selection (x[mask] with mask shaped like x): CUB's
 *     DeviceSelect::Flagged on the bits, after a CUB count of the mask
 *     (TransformReduce) that the core reads back to size the result.
 *   - nonzero: DeviceSelect::Flagged over a counting iterator gives the
 *     linear indices of the true elements, unravelled into one array per
 *     dimension by a small kernel (none for one dimension).
 * src/host/host_gather.c is the reference.
 */
#include <stdint.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "dispatch.cuh"

namespace da {
namespace {

/* The storage of an element of N bytes: moved whole, never interpreted. */
template <int N>
struct gather_bits;
template <>
struct gather_bits<1> {
    typedef uint8_t type;
};
template <>
struct gather_bits<2> {
    typedef uint16_t type;
};
template <>
struct gather_bits<4> {
    typedef uint32_t type;
};
template <>
struct gather_bits<8> {
    typedef uint64_t type;
};
struct gather_u128 {
    uint64_t lo, hi; /* 8-byte aligned, like a complex128 array */
};
template <>
struct gather_bits<16> {
    typedef gather_u128 type;
};

/* CUB's temporary storage starts at this alignment inside ours. */
constexpr size_t kTempAlign = 256;

static size_t
gather_round_up(size_t bytes)
{
    return (bytes + kTempAlign - 1) / kTempAlign * kTempAlign;
}

/* ---- gather / scatter ------------------------------------------------ */

/* Whether dense element i addresses a source element, at byte offset
   *offset (negative with negative strides); false, after storing the
   failing array's number in *bad, when an index is out of bounds. */
template <typename Index>
static __device__ __forceinline__ bool
gather_offset(const da_gather &g, Index i, int64_t *offset)
{
    const Index b = (i / (Index)g.post) % (Index)g.bsize;
    int64_t off = 0;
    Index rest = i;
    int d, k;

    for (d = g.ndim - 1; d >= 0; d--) {
        const Index extent = (Index)g.shape[d];
        const Index q = rest / extent;
        off += (int64_t)(rest - q * extent) * g.src_strides[d];
        rest = q;
    }
    for (k = 0; k < g.nidx; k++) {
        int64_t v = g.idx[k][b];
        /* a uint64 index >= 2^63 stays negative: out of bounds */
        if (v < 0 && !(g.unsigned_mask >> k & 1u)) {
            v += g.extent[k];
        }
        if (v < 0 || v >= g.extent[k]) {
            *g.bad = k + 1;
            return false;
        }
        off += v * g.axis_stride[k];
    }
    *offset = off;
    return true;
}

template <typename S, typename Index, int Mode>
static __global__ void __launch_bounds__(kBlockThreads)
gather_kernel(const __grid_constant__ da_gather g)
{
    const Index n = (Index)g.size;
    const Index step = (Index)gridDim.x * kBlockThreads;
    Index i;

    if (Mode == DA_GATHER_WRITE && *g.bad != 0) {
        return;
    }
    for (i = (Index)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t off;
        if (!gather_offset<Index>(g, i, &off)) {
            continue;
        }
        S *src = reinterpret_cast<S *>(g.src + off);
        S *dense = reinterpret_cast<S *>(g.dense) + i;
        if (Mode == DA_GATHER_READ) {
            *dense = *src;
        }
        else {
            *src = *dense;
        }
    }
}

/* The x[i] / take shape: dense[i] <-> src[idx[i] * stride]. */
struct gather_flat_args {
    char *src;
    char *dense;
    const int64_t *idx;
    int64_t n, extent, stride;
    int32_t *bad;
};

template <typename S, typename Index, int Mode>
static __global__ void __launch_bounds__(kBlockThreads)
gather_flat_kernel(const gather_flat_args a)
{
    const Index n = (Index)a.n;
    const Index step = (Index)gridDim.x * kBlockThreads;
    Index i;

    if (Mode == DA_GATHER_WRITE && *a.bad != 0) {
        return;
    }
    for (i = (Index)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t v = a.idx[i];
        if (v < 0) {
            v += a.extent;
        }
        if (v < 0 || v >= a.extent) {
            *a.bad = 1;
            continue;
        }
        S *src = reinterpret_cast<S *>(a.src + v * a.stride);
        S *dense = reinterpret_cast<S *>(a.dense) + i;
        if (Mode == DA_GATHER_READ) {
            *dense = *src;
        }
        else {
            *src = *dense;
        }
    }
}

/* The rows shape (`m[i]`, `m[i] = q`, take(m, i, axis=0) of a C-ordered
   m): one index array selects whole rows of row_bytes contiguous bytes.
   A warp moves a row in units U (16 bytes when everything is aligned so,
   else 4), four loads in flight per lane; the general kernel spent three divisions
   and an index load on every 4-byte element (m[ri] of 2^14 x 2^14
   float32 on an H200: 1.76 ms, PyTorch 0.53 ms). */
struct gather_rows_args {
    char *src;
    char *dense;
    const int64_t *idx;
    int64_t rows;      /* index values: rows of dense */
    int64_t units;     /* units of U per row */
    int64_t row_bytes; /* dense's row pitch */
    int64_t extent, stride;
    int32_t *bad;
    bool is_unsigned; /* idx holds uint64 values: never wrapped */
};

constexpr int kWarpsPerBlock = kBlockThreads / 32;
constexpr int kRowUnroll = 4;

template <typename U, int Mode>
static __global__ void __launch_bounds__(kBlockThreads)
gather_rows_kernel(const gather_rows_args a)
{
    const int lane = (int)(threadIdx.x % 32);
    const int64_t warps = (int64_t)gridDim.x * kWarpsPerBlock;
    int64_t b;

    if (Mode == DA_GATHER_WRITE && *a.bad != 0) {
        return;
    }
#pragma unroll 1
    for (b = (int64_t)blockIdx.x * kWarpsPerBlock + threadIdx.x / 32; b < a.rows; b += warps) {
        int64_t v = a.idx[b], j = lane;
        if (v < 0 && !a.is_unsigned) {
            v += a.extent;
        }
        if (v < 0 || v >= a.extent) {
            *a.bad = 1;
            continue;
        }
        const U *from = reinterpret_cast<const U *>(Mode == DA_GATHER_READ
                                                        ? a.src + v * a.stride
                                                        : a.dense + b * a.row_bytes);
        U *to = reinterpret_cast<U *>(Mode == DA_GATHER_READ ? a.dense + b * a.row_bytes
                                                             : a.src + v * a.stride);
#pragma unroll 1
        for (; j + (kRowUnroll - 1) * 32 < a.units; j += kRowUnroll * 32) {
            U t[kRowUnroll];
#pragma unroll
            for (int u = 0; u < kRowUnroll; u++) {
                t[u] = from[j + u * 32];
            }
#pragma unroll
            for (int u = 0; u < kRowUnroll; u++) {
                to[j + u * 32] = t[u];
            }
        }
#pragma unroll 1
        for (; j < a.units; j += 32) {
            to[j] = from[j];
        }
    }
}

/* Rows at least this long take the rows kernel: a warp moves 128 bytes
   in a load, so shorter rows leave most lanes idle. */
constexpr int64_t kMinRowBytes = 128;

/* Whether g is the rows shape: one index array for the leading dense
   dimensions, the others contiguous in the source, rows and bases in
   multiples of 4 bytes; *row_bytes is then a row's size. */
static bool
gather_is_rows(const da_gather *g, int64_t *row_bytes)
{
    int64_t bsize = 1, expected = g->itemsize;
    int d;

    if (g->nidx != 1 || g->bfirst != 0 || g->bndim < 1 || g->bndim >= g->ndim) {
        return false;
    }
    for (d = 0; d < g->bndim; d++) {
        if (g->src_strides[d] != 0) {
            return false;
        }
        bsize *= g->shape[d];
    }
    for (d = g->ndim - 1; d >= g->bndim; d--) {
        if (g->src_strides[d] != expected && g->shape[d] != 1) {
            return false;
        }
        expected *= g->shape[d];
    }
    *row_bytes = expected;
    return bsize == g->bsize && expected == g->post * g->itemsize &&
           expected >= kMinRowBytes &&
           ((uint64_t)expected | (uint64_t)(uintptr_t)g->src | (uint64_t)(uintptr_t)g->dense |
            (uint64_t)g->axis_stride[0]) % 4 == 0;
}

template <typename U>
static cudaError_t
gather_rows_launch(int mode, const gather_rows_args &a, cudaStream_t stream)
{
    const int64_t want = (a.rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    const unsigned int blocks = (unsigned int)(want < kMaxBlocks ? want : kMaxBlocks);
    if (mode == DA_GATHER_READ) {
        gather_rows_kernel<U, DA_GATHER_READ><<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    else {
        gather_rows_kernel<U, DA_GATHER_WRITE><<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    return cudaGetLastError();
}

/* The rows kernel in 16-byte units where the row size, the two bases and
   the index stride are all multiples of 16, else in 4-byte units
   (gather_is_rows has checked that they are multiples of 4). */
static cudaError_t
gather_rows(int mode, const da_gather *g, int64_t row_bytes, cudaStream_t stream)
{
    const uint64_t common = (uint64_t)row_bytes | (uint64_t)(uintptr_t)g->src |
                            (uint64_t)(uintptr_t)g->dense | (uint64_t)g->axis_stride[0];
    gather_rows_args a;
    a.src = g->src;
    a.dense = g->dense;
    a.idx = g->idx[0];
    a.rows = g->bsize;
    a.row_bytes = row_bytes;
    a.extent = g->extent[0];
    a.stride = g->axis_stride[0];
    a.bad = g->bad;
    a.is_unsigned = (g->unsigned_mask & 1u) != 0;
    if (common % 16 == 0) {
        a.units = row_bytes / 16;
        return gather_rows_launch<uint4>(mode, a, stream);
    }
    a.units = row_bytes / 4;
    return gather_rows_launch<uint32_t>(mode, a, stream);
}

/* Indices a thread of gather_check_kernel checks at once: one 8-byte load
   a thread left DRAM at 48% of its peak (2^26 indices in 235 us on an
   H200), too few bytes in flight to cover its latency. */
constexpr int kCheckPer = 4;

static __global__ void __launch_bounds__(kBlockThreads)
gather_check_kernel(const __grid_constant__ da_gather g)
{
    const int64_t n = g.bsize;
    const int64_t step = (int64_t)gridDim.x * kBlockThreads * kCheckPer;
    int64_t b;
    int k, u;

    for (b = (int64_t)blockIdx.x * kBlockThreads * kCheckPer + threadIdx.x; b < n; b += step) {
        for (k = 0; k < g.nidx; k++) {
            const int64_t low = (g.unsigned_mask >> k & 1u) ? 0 : -g.extent[k];
            int64_t v[kCheckPer];
#pragma unroll
            for (u = 0; u < kCheckPer; u++) {
                v[u] = b + u * kBlockThreads < n ? g.idx[k][b + u * kBlockThreads] : 0;
            }
#pragma unroll
            for (u = 0; u < kCheckPer; u++) {
                if (b + u * kBlockThreads < n && (v[u] < low || v[u] >= g.extent[k])) {
                    *g.bad = k + 1;
                }
            }
        }
    }
}

template <typename S, int Mode>
static cudaError_t
gather_launch_mode(const da_gather *g, cudaStream_t stream)
{
    unsigned int blocks;
    cudaError_t err = grid_blocks(g->size, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (g->ndim == 1 && g->nidx == 1 && g->src_strides[0] == 0 && g->bsize == g->size &&
        g->unsigned_mask == 0) {
        gather_flat_args a;
        a.src = g->src;
        a.dense = g->dense;
        a.idx = g->idx[0];
        a.n = g->size;
        a.extent = g->extent[0];
        a.stride = g->axis_stride[0];
        a.bad = g->bad;
        if (g->size <= INT32_MAX) {
            gather_flat_kernel<S, uint32_t, Mode><<<blocks, kBlockThreads, 0, stream>>>(a);
        }
        else {
            gather_flat_kernel<S, uint64_t, Mode><<<blocks, kBlockThreads, 0, stream>>>(a);
        }
    }
    else if (g->size <= INT32_MAX) {
        gather_kernel<S, uint32_t, Mode><<<blocks, kBlockThreads, 0, stream>>>(*g);
    }
    else {
        gather_kernel<S, uint64_t, Mode><<<blocks, kBlockThreads, 0, stream>>>(*g);
    }
    return cudaGetLastError();
}

template <int Itemsize>
static cudaError_t
gather_launch(int mode, const da_gather *g, cudaStream_t stream)
{
    typedef typename gather_bits<Itemsize>::type S;
    return mode == DA_GATHER_READ ? gather_launch_mode<S, DA_GATHER_READ>(g, stream)
                                  : gather_launch_mode<S, DA_GATHER_WRITE>(g, stream);
}

/* ---- mask selection and nonzero -------------------------------------- */

struct gather_flag_to_count {
    __host__ __device__ __forceinline__ int64_t operator()(uint8_t f) const
    {
        return f != 0;
    }
};

struct gather_add {
    __host__ __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const
    {
        return a + b;
    }
};

template <int Itemsize>
static cudaError_t
gather_select(void *temp, size_t *temp_bytes, const void *in, const uint8_t *flags,
              int64_t n, void *out, int64_t *selected, cudaStream_t stream)
{
    typedef typename gather_bits<Itemsize>::type S;
    return cub::DeviceSelect::Flagged(temp, *temp_bytes, static_cast<const S *>(in), flags,
                                      static_cast<S *>(out), selected, n, stream);
}

static __global__ void __launch_bounds__(kBlockThreads)
gather_unravel_kernel(const __grid_constant__ da_nonzero z, const int64_t *linear)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t j;

    for (j = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; j < z.count; j += step) {
        int64_t rest = linear[j];
        int d;
        for (d = z.ndim - 1; d > 0; d--) {
            const int64_t q = rest / z.shape[d];
            z.out[d][j] = rest - q * z.shape[d];
            rest = q;
        }
        z.out[0][j] = rest;
    }
}

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_gather(int mode, const da_gather *g, cudaStream_t stream)
{
    if (g->nidx < 1 || g->nidx > DA_MAXDIMS || g->ndim < 0 || g->ndim > DA_MAXDIMS) {
        return cudaErrorInvalidValue;
    }
    if (mode == DA_GATHER_CHECK) {
        unsigned int blocks;
        cudaError_t err;
        if (g->bsize <= 0) {
            return cudaErrorInvalidValue;
        }
        err = da::grid_blocks((g->bsize + da::kCheckPer - 1) / da::kCheckPer, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        da::gather_check_kernel<<<blocks, da::kBlockThreads, 0, stream>>>(*g);
        return cudaGetLastError();
    }
    if ((mode != DA_GATHER_READ && mode != DA_GATHER_WRITE) || g->size <= 0 ||
        g->bsize <= 0 || g->post <= 0) {
        return cudaErrorInvalidValue;
    }
    int64_t row_bytes;
    if (da::gather_is_rows(g, &row_bytes)) {
        return da::gather_rows(mode, g, row_bytes, stream);
    }
    switch (g->itemsize) {
        case 1:
            return da::gather_launch<1>(mode, g, stream);
        case 2:
            return da::gather_launch<2>(mode, g, stream);
        case 4:
            return da::gather_launch<4>(mode, g, stream);
        case 8:
            return da::gather_launch<8>(mode, g, stream);
        case 16:
            return da::gather_launch<16>(mode, g, stream);
        default:
            return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t
da_cuda_count_true(void *temp, size_t *temp_bytes, const uint8_t *flags, int64_t n,
                   int64_t *count, cudaStream_t stream)
{
    if (n <= 0) {
        return cudaErrorInvalidValue;
    }
    return cub::DeviceReduce::TransformReduce(temp, *temp_bytes, flags, count, n,
                                              da::gather_add(), da::gather_flag_to_count(),
                                              (int64_t)0, stream);
}

extern "C" cudaError_t
da_cuda_select_flagged(void *temp, size_t *temp_bytes, const void *in, int itemsize,
                       const uint8_t *flags, int64_t n, void *out, int64_t *selected,
                       cudaStream_t stream)
{
    if (n <= 0) {
        return cudaErrorInvalidValue;
    }
    switch (itemsize) {
        case 1:
            return da::gather_select<1>(temp, temp_bytes, in, flags, n, out, selected, stream);
        case 2:
            return da::gather_select<2>(temp, temp_bytes, in, flags, n, out, selected, stream);
        case 4:
            return da::gather_select<4>(temp, temp_bytes, in, flags, n, out, selected, stream);
        case 8:
            return da::gather_select<8>(temp, temp_bytes, in, flags, n, out, selected, stream);
        case 16:
            return da::gather_select<16>(temp, temp_bytes, in, flags, n, out, selected,
                                         stream);
        default:
            return cudaErrorInvalidValue;
    }
}

/* temp holds, in order: the selected count (one int64), the linear indices
   when ndim > 1 (count int64), then CUB's storage. */
extern "C" cudaError_t
da_cuda_nonzero(void *temp, size_t *temp_bytes, const da_nonzero *z, cudaStream_t stream)
{
    const size_t head = da::gather_round_up(sizeof(int64_t));
    const size_t linear_bytes =
        z->ndim > 1 ? da::gather_round_up((size_t)z->count * sizeof(int64_t)) : 0;
    char *base = static_cast<char *>(temp);
    int64_t *linear = z->ndim > 1 ? reinterpret_cast<int64_t *>(base + head) : z->out[0];
    size_t cub_bytes = 0;
    unsigned int blocks;
    cudaError_t err;

    if (z->n <= 0 || z->count <= 0 || z->ndim < 1 || z->ndim > DA_MAXDIMS) {
        return cudaErrorInvalidValue;
    }
    err = cub::DeviceSelect::Flagged(nullptr, cub_bytes, thrust::counting_iterator<int64_t>(0),
                                     z->flags, linear, static_cast<int64_t *>(nullptr), z->n,
                                     stream);
    if (err != cudaSuccess) {
        return err;
    }
    if (temp == nullptr) {
        *temp_bytes = head + linear_bytes + cub_bytes;
        return cudaSuccess;
    }
    err = cub::DeviceSelect::Flagged(base + head + linear_bytes, cub_bytes,
                                     thrust::counting_iterator<int64_t>(0), z->flags, linear,
                                     reinterpret_cast<int64_t *>(base), z->n, stream);
    if (err != cudaSuccess || z->ndim == 1) {
        return err;
    }
    err = da::grid_blocks(z->count, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    da::gather_unravel_kernel<<<blocks, da::kBlockThreads, 0, stream>>>(*z, linear);
    return cudaGetLastError();
}
