/*
 * da_cuda_unique_groups, da_cuda_unique_scatter, da_cuda_unique_chunk
 * (kernels/launch.h: da_unique): unique's steps after the sort.
 *
 * A warp takes a chunk of kUniqueChunk sorted elements.  The groups step
 * counts the runs of equal values that start in each chunk and sums the
 * counts in place (one cub::DeviceScan::InclusiveSum over int64, the only
 * scan instantiation); the scatter step goes over the chunks again and
 * numbers each element's run from the runs before its chunk and a ballot
 * of the run heads in its round of 32, writing the outputs.  So no array
 * of n flags or run numbers is written: this replaced a head flag per
 * element as int64, a scan of all n of them and a scatter that read them
 * twice (int32 unique_values of 2^26: 1.06 ms after the sort, against the
 * 152 us of PyTorch's DeviceSelect, on an H200).
 *
 * Equality is the standard's (NaN never equal, -0.0 == +0.0); bool and
 * the integers compare their bits, so one unsigned dtype of each width
 * serves them: 9 kernels, not 14.
 */
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "dispatch.cuh"

namespace da {

/* Value equality of two elements of a dtype (NaN unequal, -0.0 == +0.0). */
template <int Typenum>
__device__ __forceinline__ bool
same_value(const typename dtype_traits<Typenum>::storage &a,
           const typename dtype_traits<Typenum>::storage &b)
{
    if constexpr (Typenum == DA_FLOAT16) {
        return da_half_to_float(a) == da_half_to_float(b);
    }
    else if constexpr (Typenum == DA_COMPLEX64 || Typenum == DA_COMPLEX128) {
        return a.re == b.re && a.im == b.im;
    }
    else {
        return a == b;
    }
}

/* The dtype whose equality serves Typenum's. */
template <int Typenum>
struct unique_equality {
    static constexpr int itemsize = (int)sizeof(typename dtype_traits<Typenum>::storage);
    static constexpr bool bitwise = dtype_traits<Typenum>::cls == DA_CLASS_BOOL ||
                                    dtype_traits<Typenum>::cls == DA_CLASS_SINT ||
                                    dtype_traits<Typenum>::cls == DA_CLASS_UINT;
    static constexpr int typenum = !bitwise           ? Typenum
                                   : itemsize == 1 ? (int)DA_UINT8
                                   : itemsize == 2 ? (int)DA_UINT16
                                   : itemsize == 4 ? (int)DA_UINT32
                                                   : (int)DA_UINT64;
};

/* A warp's rounds of 32 elements in flight at once (a batch), and the
   batches of a chunk. */
constexpr int kUniqueRounds = 8;
constexpr int kUniqueBatch = 32 * kUniqueRounds;
constexpr int64_t kUniqueChunk = (int64_t)kUniqueBatch * 8;

/* Bit r set where a run starts at the lane's element of round r of the
   batch at p - lane (the batch's first element is element `base` of
   sorted; `count` of its elements are in the chunk). */
template <int Typenum>
__device__ __forceinline__ uint32_t
unique_batch_heads(const typename dtype_traits<Typenum>::storage *p, int64_t base, int count,
                   int lane)
{
    typedef typename dtype_traits<Typenum>::storage S;
    S value[kUniqueRounds], before[kUniqueRounds];
    uint32_t heads = 0;

    /* the previous element: its line is this load's, or the round
       before's (L1 holds it); sorted[0] compares with itself, and is a
       head below */
#pragma unroll
    for (int r = 0; r < kUniqueRounds; r++) {
        if (32 * r + lane < count) {
            value[r] = p[32 * r];
            before[r] = base + 32 * r + lane > 0 ? p[32 * r - 1] : value[r];
        }
    }
#pragma unroll
    for (int r = 0; r < kUniqueRounds; r++) {
        const bool head = 32 * r + lane < count && !same_value<Typenum>(before[r], value[r]);
        heads |= (uint32_t)head << r;
    }
    return base == 0 && lane == 0 ? heads | 1u : heads;
}

/* A warp per chunk.  Counting (the groups step): groups[c] = the runs
   that start in chunk c, before the scan.  Else the scatter step: each
   element's run number g from the runs before its chunk and its rank
   among its round's heads; a round with no head is skipped unless every
   element's number is wanted (inverse).  One kernel does both (a second
   one per dtype cost 4 KB of machine code per architecture).  The rounds
   of the scatter are not unrolled (the outputs' stores are most of the
   kernel), and a head's value is read again, from L1.  The last run's
   end, n, is written by the warp of the last chunk. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
unique_chunks_kernel(const da_unique u, int64_t nchunks, bool counting)
{
    typedef typename dtype_traits<Typenum>::storage S;
    const S *sorted = (const S *)u.sorted;
    S *values = (S *)u.values;
    int64_t *indices = u.indices, *ends = u.ends, *inverse = u.inverse;
    const int64_t *perm = u.perm;
    const int64_t chunk = ((int64_t)blockIdx.x * kBlockThreads + threadIdx.x) / 32;
    const int lane = (int)threadIdx.x % 32;
    const uint32_t at_or_below = 0xffffffffu >> (31 - lane);
    const int64_t start = chunk * kUniqueChunk;
    const int64_t end = start + kUniqueChunk < u.n ? start + kUniqueChunk : u.n;
    int64_t runs = 0;
    int count = 0;

    if (chunk >= nchunks) {
        return;
    }
    if (!counting && chunk > 0) {
        runs = u.groups[chunk - 1];
    }
    for (int64_t base = start; base < end; base += kUniqueBatch) {
        const int in_chunk = end - base < kUniqueBatch ? (int)(end - base) : kUniqueBatch;
        const uint32_t heads =
            unique_batch_heads<Typenum>(sorted + base + lane, base, in_chunk, lane);
        if (counting) {
            count += __popc(heads);
            continue;
        }
#pragma unroll 1
        for (int r = 0; r < kUniqueRounds; r++) {
            const uint32_t round = __ballot_sync(0xffffffffu, (heads >> r) & 1);
            const int64_t g = runs + __popc(round & at_or_below) - 1;
            const int64_t i = base + 32 * r + lane;

            runs += __popc(round);
            if ((round == 0 && inverse == NULL) || 32 * r + lane >= in_chunk) {
                continue;
            }
            if ((heads >> r) & 1) {
                if (values != NULL) {
                    values[g] = sorted[i];
                }
                if (indices != NULL) {
                    indices[g] = perm[i];
                }
                if (ends != NULL && g > 0) {
                    ends[g - 1] = i;
                }
            }
            if (inverse != NULL) {
                inverse[perm[i]] = g;
            }
        }
    }
    if (counting) {
        for (int offset = 16; offset > 0; offset /= 2) {
            count += __shfl_down_sync(0xffffffffu, count, offset);
        }
        if (lane == 0) {
            u.groups[chunk] = count;
        }
    }
    else if (ends != NULL && chunk == nchunks - 1 && lane == 0) {
        ends[u.m - 1] = u.n;
    }
}

static __global__ void __launch_bounds__(kBlockThreads)
unique_counts_kernel(const int64_t *ends, int64_t *counts, int64_t m)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t g;

    for (g = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; g < m; g += step) {
        counts[g] = ends[g] - (g == 0 ? 0 : ends[g - 1]);
    }
}

static inline int64_t
unique_chunks(int64_t n)
{
    return (n + kUniqueChunk - 1) / kUniqueChunk;
}

/* Blocks of kBlockThreads for a warp per chunk. */
static inline unsigned int
unique_blocks(int64_t nchunks)
{
    unsigned int blocks;

    grid_blocks(nchunks * 32, &blocks);
    return blocks;
}

/* The chunks kernel of u's dtype (its equality's), counting (the groups
   step) or not (the scatter step). */
struct unique_chunks_launch {
    const da_unique *u;
    bool counting;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run()
    {
        constexpr int kEq = unique_equality<Typenum>::typenum;
        const int64_t nchunks = unique_chunks(u->n);

        unique_chunks_kernel<kEq><<<unique_blocks(nchunks), kBlockThreads, 0, stream>>>(
            *u, nchunks, counting);
        return cudaGetLastError();
    }
};

}  // namespace da

/* The runs counted in each chunk, then their running sums in place. */
extern "C" cudaError_t
da_cuda_unique_groups(void *temp, size_t *temp_bytes, const da_unique *u,
                      cudaStream_t stream)
{
    const int64_t nchunks = da::unique_chunks(u->n);
    da::unique_chunks_launch launch{u, true, stream};
    cudaError_t err;

    if (temp == NULL) {
        return cub::DeviceScan::InclusiveSum(NULL, *temp_bytes, u->groups, u->groups, nchunks,
                                             stream);
    }
    if ((err = da::dispatch_dtype(u->typenum, launch)) != cudaSuccess) {
        return err;
    }
    return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, u->groups, u->groups, nchunks,
                                         stream);
}

/* The scatter step, then the counts from the runs' ends. */
extern "C" cudaError_t
da_cuda_unique_scatter(const da_unique *u, cudaStream_t stream)
{
    da::unique_chunks_launch launch{u, false, stream};
    unsigned int blocks;
    cudaError_t err;

    if ((err = da::dispatch_dtype(u->typenum, launch)) != cudaSuccess || u->counts == NULL) {
        return err;
    }
    da::grid_blocks(u->m, &blocks);
    da::unique_counts_kernel<<<blocks, da::kBlockThreads, 0, stream>>>(u->ends, u->counts,
                                                                       u->m);
    return cudaGetLastError();
}

extern "C" int64_t
da_cuda_unique_chunk(void)
{
    return da::kUniqueChunk;
}
