/*
 * da_cuda_random (kernels/launch.h): the random draws behind
 * devarray.random, one Philox4x32-10 block per thread and iteration.
 *
 * Each block's elements come from kernels/random.h, which the host backend
 * (src/host/host_random.c) runs too, so the launch layout (grid size,
 * block size, the grid-stride loop) never changes a value: element i is a
 * function of the key, the counter and i.  One kernel per kind (8 kernels
 * for every architecture).  A thread whose block is whole stores it as one
 * 16-byte vector (or, for INT_R32 into 4-byte integers, one 8-byte
 * vector) where the output is aligned for it; the block at the end of the
 * draw, other dtypes of the INT kinds and unaligned outputs are stored
 * element by element.
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "random.h"

namespace {

constexpr int kThreads = 256;
/* enough blocks to fill any current GPU several times; the loop is
   grid-stride beyond that */
constexpr int64_t kMaxBlocks = 65536;

unsigned int
blocks_for(int64_t nblocks)
{
    int64_t want = (nblocks + kThreads - 1) / kThreads;
    return (unsigned int)(want < 1 ? 1 : (want < kMaxBlocks ? want : kMaxBlocks));
}

/* How a thread stores a whole block (random_kernel's `vector`). */
enum { kStoreElements = 0, kStoreUnion16, kStoreNarrow8 };

template <int Kind>
__global__ void
random_kernel(da_random r, int64_t nblocks, int vector)
{
    constexpr int per = Kind == DA_RANDOM_BITS32 || Kind == DA_RANDOM_UNIFORM_F32 ||
                                Kind == DA_RANDOM_NORMAL_F32
                            ? 4
                            : Kind == DA_RANDOM_INT_R64 ? 1 : 2;
    const int64_t itemsize = da_itemsize(r.typenum);
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < nblocks;
         j += (int64_t)gridDim.x * blockDim.x) {
        da_random_values v = da_random_block(&r, Kind, (uint64_t)j);
        int64_t first = j * per;
        char *p = (char *)r.out + first * itemsize;
        if (vector == kStoreUnion16 && first + per <= r.n) {
            uint4 q;
            memcpy(&q, &v, sizeof q);
            *(uint4 *)p = q;
        }
        else if (Kind == DA_RANDOM_INT_R32 && vector == kStoreNarrow8 && first + per <= r.n) {
            *(uint2 *)p = make_uint2((uint32_t)v.u64[0], (uint32_t)v.u64[1]);
        }
        else {
            for (int t = 0; t < per && first + t < r.n; t++) {
                da_random_store(&r, Kind, &v, t, p + t * itemsize);
            }
        }
    }
}

template <int Kind>
cudaError_t
launch(const da_random *r, cudaStream_t stream)
{
    int64_t nblocks = da_random_blocks(Kind, r->n);
    int itemsize = da_itemsize(r->typenum);
    uintptr_t address = (uintptr_t)r->out;
    int vector = kStoreElements;
    if (Kind != DA_RANDOM_INT_R32 && Kind != DA_RANDOM_INT_R64) {
        /* the values union is the block's output bytes */
        vector = address % 16 == 0 ? kStoreUnion16 : kStoreElements;
    }
    else if (Kind == DA_RANDOM_INT_R32 && itemsize == 8 && address % 16 == 0) {
        vector = kStoreUnion16;
    }
    else if (Kind == DA_RANDOM_INT_R32 && itemsize == 4 && address % 8 == 0) {
        vector = kStoreNarrow8;
    }
    random_kernel<Kind><<<blocks_for(nblocks), kThreads, 0, stream>>>(*r, nblocks, vector);
    return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t
da_cuda_random(const da_random *r, cudaStream_t stream)
{
    if (r->n <= 0) {
        return cudaSuccess;
    }
    if (!da_random_supported(r->kind, r->typenum) ||
        (r->kind == DA_RANDOM_INT_R32 && (r->range == 0 || r->range > ((uint64_t)1 << 32)))) {
        return cudaErrorInvalidValue;
    }
    switch (r->kind) {
        case DA_RANDOM_BITS32:
            return launch<DA_RANDOM_BITS32>(r, stream);
        case DA_RANDOM_BITS64:
            return launch<DA_RANDOM_BITS64>(r, stream);
        case DA_RANDOM_UNIFORM_F32:
            return launch<DA_RANDOM_UNIFORM_F32>(r, stream);
        case DA_RANDOM_UNIFORM_F64:
            return launch<DA_RANDOM_UNIFORM_F64>(r, stream);
        case DA_RANDOM_INT_R32:
            return launch<DA_RANDOM_INT_R32>(r, stream);
        case DA_RANDOM_INT_R64:
            return launch<DA_RANDOM_INT_R64>(r, stream);
        case DA_RANDOM_NORMAL_F32:
            return launch<DA_RANDOM_NORMAL_F32>(r, stream);
        default:
            return launch<DA_RANDOM_NORMAL_F64>(r, stream);
    }
}
