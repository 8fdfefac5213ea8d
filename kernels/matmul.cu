/*
 * da_cuda_matmul (kernels/launch.h): matmul for the dtypes cuBLAS does not
 * multiply (bool, the integers, float16); src/runtime/cublas.c runs the others.
 *
 * A classic shared-memory tiled product: a block of kTile x kTile threads
 * computes a kTile x kTile tile of one output matrix, stepping over the
 * inner dimension kTile at a time; each step loads a tile of a and a tile
 * of b into shared memory (each thread one element of each, converted to
 * the accumulator once), then every thread adds the kTile products of its
 * row and column.  The products of each output element are summed in order
 * p = 0, 1, ..., k - 1, as src/host/host_matmul.c does, so both backends give
 * the same bits (float16 included: it accumulates in float32 and rounds
 * once when stored; the build has --fmad=false).
 *
 * Two instantiations, by accumulator rather than by dtype (the size of the
 * .so): every integer and bool through uint64 (wrapping; bool stores
 * "sum != 0", which is or-of-ands), float16 through float.  Elements are
 * read with dtypes.h's per-dtype switch, the same branch in every thread.
 * Grid: x over column tiles, y over row tiles, z over the batch; each
 * grid-strides in y and z, so any size fits the grid limits.
 */
#include <stdint.h>

#include "dispatch.cuh"

namespace da {
namespace {

constexpr int kTile = 16;
constexpr unsigned kMaxGridY = 65535;
constexpr unsigned kMaxGridZ = 65535;

struct matmul_uint {
    typedef uint64_t acc;
    static __device__ __forceinline__ acc zero() { return 0u; }
    static __device__ __forceinline__ acc load(const char *p, int typenum)
    {
        return da_load_uint(p, typenum);
    }
    static __device__ __forceinline__ void store(char *p, int typenum, acc v)
    {
        da_store_uint(p, typenum, v);
    }
};

struct matmul_half {
    typedef float acc;
    static __device__ __forceinline__ acc zero() { return 0.0f; }
    static __device__ __forceinline__ acc load(const char *p, int typenum)
    {
        return da_load_f32(p, typenum);
    }
    static __device__ __forceinline__ void store(char *p, int typenum, acc v)
    {
        da_store_f32(p, typenum, v);
    }
};

template <typename K>
__global__ void __launch_bounds__(kTile *kTile)
matmul_tiled_kernel(da_matmul g)
{
    typedef typename K::acc acc;
    /* +1 column: the inner loop reads a_tile by row and b_tile by column,
       and the padding keeps those reads free of bank conflicts */
    __shared__ acc a_tile[kTile][kTile + 1];
    __shared__ acc b_tile[kTile][kTile + 1];
    const int64_t size = da_itemsize(g.typenum);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t j = (int64_t)blockIdx.x * kTile + tx;

    for (int64_t t = blockIdx.z; t < g.batch; t += gridDim.z) {
        const char *a = (const char *)g.a + t * g.a_batch * size;
        const char *b = (const char *)g.b + t * g.b_batch * size;
        char *out = (char *)g.out + t * g.m * g.n * size;
        for (int64_t i0 = (int64_t)blockIdx.y * kTile; i0 < g.m;
             i0 += (int64_t)gridDim.y * kTile) {
            const int64_t i = i0 + ty;
            acc sum = K::zero();
            for (int64_t p0 = 0; p0 < g.k; p0 += kTile) {
                const int64_t pa = p0 + tx, pb = p0 + ty;
                a_tile[ty][tx] = i < g.m && pa < g.k
                                     ? K::load(a + (i * g.a_row + pa * g.a_col) * size,
                                               g.typenum)
                                     : K::zero();
                b_tile[ty][tx] = pb < g.k && j < g.n
                                     ? K::load(b + (pb * g.b_row + j * g.b_col) * size,
                                               g.typenum)
                                     : K::zero();
                __syncthreads();
                const int steps = g.k - p0 < kTile ? (int)(g.k - p0) : kTile;
                for (int q = 0; q < steps; q++) {
                    sum += a_tile[ty][q] * b_tile[q][tx];
                }
                __syncthreads();
            }
            if (i < g.m && j < g.n) {
                K::store(out + (i * g.n + j) * size, g.typenum, sum);
            }
        }
    }
}

template <typename K>
cudaError_t
matmul_launch(const da_matmul *g, cudaStream_t stream)
{
    const int64_t col_tiles = (g->n + kTile - 1) / kTile;
    const int64_t row_tiles = (g->m + kTile - 1) / kTile;
    if (col_tiles > INT32_MAX) {
        return cudaErrorInvalidValue;
    }
    dim3 grid((unsigned)col_tiles,
              row_tiles < kMaxGridY ? (unsigned)row_tiles : kMaxGridY,
              g->batch < kMaxGridZ ? (unsigned)g->batch : kMaxGridZ);
    dim3 block(kTile, kTile);
    matmul_tiled_kernel<K><<<grid, block, 0, stream>>>(*g);
    return cudaGetLastError();
}

} // namespace
} // namespace da

extern "C" cudaError_t
da_cuda_matmul(const da_matmul *g, cudaStream_t stream)
{
    if (g->batch < 1 || g->m < 1 || g->n < 1 || g->k < 1) {
        return cudaErrorInvalidValue;
    }
    switch (g->typenum) {
        case DA_FLOAT16:
            return da::matmul_launch<da::matmul_half>(g, stream);
        case DA_FLOAT32:
        case DA_FLOAT64:
        case DA_COMPLEX64:
        case DA_COMPLEX128:
            return cudaErrorInvalidValue; /* cuBLAS's (src/runtime/cublas.c) */
        default:
            return da::matmul_launch<da::matmul_uint>(g, stream);
    }
}
