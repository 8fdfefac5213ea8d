/*
 * Internal to kernels/: the transposing route of the elementwise kernels
 * (which problems take it: transpose.h).  A block of 32 x 8 threads owns a
 * DA_TILE x DA_TILE tile of one 2-D problem of the batch; the inputs dense
 * along the rows are read along the rows (consecutive threads, consecutive
 * addresses) into shared memory, padded by one column so that reading it
 * back across is free of bank conflicts, and the output is written along
 * its columns, so every global access of a warp is one run of 32
 * consecutive elements.  Other inputs are read in place.
 *
 *   - tiled_kernel<Op, Cls>: an op of the table, one kernel per (op, class)
 *     like the strided route.  Each element is loaded converted to the
 *     class (the tile holds class values); when every array is of the
 *     class's own dtype (float32 for F32, ...) the loads and the store are
 *     plain typed accesses, else the strided route's per-element switch.
 *   - tiled_move_kernel<S>: COPY within one dtype, the bits of S moved.
 * Grids: x over column tiles, y over row tiles and z over the batch, the
 * last two as grid-stride loops (CUDA caps them at 65535).
 *
 * Included by elementwise.cuh after its strided route, whose out-of-line
 * load_element and store_element the generic loads here share.
 */
#ifndef DEVARRAY_KERNELS_TRANSPOSE_CUH_
#define DEVARRAY_KERNELS_TRANSPOSE_CUH_

#include <stdint.h>

#include "dispatch.cuh"
#include "transpose.h"

namespace da {

constexpr int kTileRows = 8; /* threads along y; each does DA_TILE / 8 rows */
constexpr unsigned int kMaxGridYZ = 65535;

/* The geometry of a transposing problem: batch x rows x columns. */
struct tile_shape {
    int64_t batch, rows, cols;
    int64_t row_tiles;
    int bd, rd, cd; /* dimension of the batch (-1: none), rows, columns */
};

static inline tile_shape
tile_shape_of(const da_elementwise *e)
{
    tile_shape t;
    t.bd = e->ndim == 3 ? 0 : -1;
    t.rd = e->ndim - 2;
    t.cd = e->ndim - 1;
    t.batch = t.bd >= 0 ? e->shape[0] : 1;
    t.rows = e->shape[t.rd];
    t.cols = e->shape[t.cd];
    t.row_tiles = (t.rows + DA_TILE - 1) / DA_TILE;
    return t;
}

static inline dim3
tile_grid(const tile_shape &t)
{
    const int64_t col_tiles = (t.cols + DA_TILE - 1) / DA_TILE;
    return dim3((unsigned int)col_tiles,
                (unsigned int)(t.row_tiles < kMaxGridYZ ? t.row_tiles : kMaxGridYZ),
                (unsigned int)(t.batch < kMaxGridYZ ? t.batch : kMaxGridYZ));
}

/* Whether the column tiles fit gridDim.x (2^31 - 1 of them: always, for
   any array that fits a GPU, but checked rather than assumed). */
static inline bool
tile_grid_fits(const tile_shape &t)
{
    return (t.cols + DA_TILE - 1) / DA_TILE <= kMaxBlocks;
}

/* Byte offset of element (b, r, c) of an operand. */
static __device__ __forceinline__ int64_t
tile_offset(const int64_t *strides, const tile_shape &t, int64_t b, int64_t r, int64_t c)
{
    return (t.bd >= 0 ? b * strides[t.bd] : 0) + r * strides[t.rd] + c * strides[t.cd];
}

/* The dtype of a class whose loads need no conversion. */
template <int Cls>
struct class_native;
template <>
struct class_native<DA_CLASS_BOOL> {
    static constexpr int typenum = DA_BOOL;
};
template <>
struct class_native<DA_CLASS_SINT> {
    static constexpr int typenum = DA_INT64;
};
template <>
struct class_native<DA_CLASS_UINT> {
    static constexpr int typenum = DA_UINT64;
};
template <>
struct class_native<DA_CLASS_F32> {
    static constexpr int typenum = DA_FLOAT32;
};
template <>
struct class_native<DA_CLASS_F64> {
    static constexpr int typenum = DA_FLOAT64;
};
template <>
struct class_native<DA_CLASS_C64> {
    static constexpr int typenum = DA_COMPLEX64;
};
template <>
struct class_native<DA_CLASS_C128> {
    static constexpr int typenum = DA_COMPLEX128;
};

template <int Cls>
static __device__ __forceinline__ typename class_traits<Cls>::type
tile_load(const char *p, int typenum, bool native)
{
    return native ? class_traits<Cls>::load(p, class_native<Cls>::typenum)
                  : load_element<Cls>(p, typenum);
}

struct tile_args {
    tile_shape t;
    bool transposed[2]; /* input k goes through the tile */
    bool native;        /* every array of the class's own dtype */
};

/* Each thread's share of a tile: kPer rows (or columns) kTileRows apart,
   loaded all before any is stored so that kPer loads are in flight. */
constexpr int kPer = DA_TILE / kTileRows;
/* Blocks of tiled_kernel resident per multiprocessor for class values of
   `size` bytes: 6 (1536 threads, 42 registers) for 4-byte classes, to keep
   enough loads in flight (left to itself the compiler took 52-56
   registers, 4 blocks; at 8 blocks, 32 registers, the float32 binary ops
   spilled); 4 for wider ones, which would spill.  Turing holds 1024
   threads per multiprocessor: 4 blocks there. */
static __host__ __device__ constexpr int
tile_blocks_per_sm(size_t size)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    static_cast<void>(size);
    return 4;
#else
    return size <= 4 ? 6 : 4;
#endif
}

template <int Op, int Cls>
static __global__ void __launch_bounds__(DA_TILE *kTileRows,
                                          tile_blocks_per_sm(sizeof(typename class_traits<Cls>::type)))
tiled_kernel(const __grid_constant__ da_elementwise e, const tile_args a)
{
    typedef class_traits<Cls> C;
    typedef typename C::type CT;
    typedef op_fn<Op, Cls> F;
    constexpr int kNin = da_op_nin(Op);
    constexpr int kOutNative = result_typenum(F::result, class_native<Cls>::typenum);
    __shared__ CT tile[kNin][DA_TILE][DA_TILE + 1];
    const tile_shape &t = a.t;
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int64_t c0 = (int64_t)blockIdx.x * DA_TILE;
    int64_t b, rt;

    for (b = blockIdx.z; b < t.batch; b += gridDim.z) {
        for (rt = blockIdx.y; rt < t.row_tiles; rt += gridDim.y) {
            const int64_t r0 = rt * DA_TILE;
            CT v[kPer][kNin];
            /* the operands read in place first, so that their loads are in
               flight with the tile's */
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                const int64_t r = r0 + ty + i * kTileRows, c = c0 + tx;
#pragma unroll
                for (int k = 0; k < kNin; k++) {
                    if (a.transposed[k]) {
                        continue;
                    }
                    if (e.in[k].data == nullptr) {
                        v[i][k] = C::scalar(e.in[k].scalar);
                    }
                    else if (r < t.rows && c < t.cols) {
                        v[i][k] = tile_load<Cls>(
                            e.in[k].data + tile_offset(e.in[k].strides, t, b, r, c),
                            e.in[k].typenum, a.native);
                    }
                }
            }
#pragma unroll
            for (int k = 0; k < kNin; k++) {
                if (!a.transposed[k]) {
                    continue;
                }
                /* along the rows: thread tx reads row r0 + tx */
#pragma unroll
                for (int i = 0; i < kPer; i++) {
                    const int j = ty + i * kTileRows;
                    const int64_t r = r0 + tx, c = c0 + j;
                    if (r < t.rows && c < t.cols) {
                        tile[k][j][tx] = tile_load<Cls>(
                            e.in[k].data + tile_offset(e.in[k].strides, t, b, r, c),
                            e.in[k].typenum, a.native);
                    }
                }
            }
            __syncthreads();
            /* along the columns: thread tx writes column c0 + tx */
#pragma unroll
            for (int i = 0; i < kPer; i++) {
#pragma unroll
                for (int k = 0; k < kNin; k++) {
                    if (a.transposed[k]) {
                        v[i][k] = tile[k][tx][ty + i * kTileRows];
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                const int64_t r = r0 + ty + i * kTileRows, c = c0 + tx;
                if (r < t.rows && c < t.cols) {
                    char *out = e.out.data + tile_offset(e.out.strides, t, b, r, c);
                    if (a.native) {
                        store_value(out, kOutNative, F::apply(v[i][0], v[i][kNin - 1]));
                    }
                    else {
                        store_element(out, e.out.typenum, F::apply(v[i][0], v[i][kNin - 1]));
                    }
                }
            }
            __syncthreads();
        }
    }
}

/* Whether op has a tiled kernel: COPY (copies and casts) and the frequent
   binary ops (elementwise.cuh).  The other binary ops take the strided
   route when they transpose: their tiled kernels were half of the tiled
   machine code (270 KB of the float32 unit's for sm_90).  A unary op's
   result takes its input's layout (src/core/elementwise.c), so it only
   transposes when it writes in place into another layout; those stay on
   the strided route too. */
static __host__ __device__ constexpr bool
has_tiled_kernel(int op)
{
    return op == DA_OP_COPY || is_frequent_binary_op(op);
}

/* Launch the tiled kernel of (Op, Cls) when e transposes; *taken says
   whether it did. */
template <int Op, int Cls>
static cudaError_t
launch_tiled(const da_elementwise *e, cudaStream_t stream, bool *taken)
{
    *taken = false;
    if constexpr (has_tiled_kernel(Op)) {
        constexpr int kNative = class_native<Cls>::typenum;
        tile_args a;
        int k;

        if (!da_tile_route(e)) {
            return cudaSuccess;
        }
        a.t = tile_shape_of(e);
        if (!tile_grid_fits(a.t)) {
            return cudaSuccess;
        }
        a.native = e->out.typenum == result_typenum(op_fn<Op, Cls>::result, kNative);
        for (k = 0; k < 2; k++) {
            a.transposed[k] = k < e->nin && da_tile_transposed_input(e, k);
            if (k < e->nin && e->in[k].data != nullptr && e->in[k].typenum != kNative) {
                a.native = false;
            }
        }
        *taken = true;
        tiled_kernel<Op, Cls>
            <<<tile_grid(a.t), dim3(DA_TILE, kTileRows), 0, stream>>>(*e, a);
        return cudaGetLastError();
    }
    else {
        (void)e;
        (void)stream;
        return cudaSuccess;
    }
}

/* COPY within one dtype: the bits of S through the tile. */
template <typename S>
static __global__ void __launch_bounds__(DA_TILE *kTileRows)
tiled_move_kernel(const __grid_constant__ da_elementwise e, const tile_shape t)
{
    __shared__ S tile[DA_TILE][DA_TILE + 1];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int64_t c0 = (int64_t)blockIdx.x * DA_TILE;
    int64_t b, rt;

    for (b = blockIdx.z; b < t.batch; b += gridDim.z) {
        for (rt = blockIdx.y; rt < t.row_tiles; rt += gridDim.y) {
            const int64_t r0 = rt * DA_TILE;
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                const int j = ty + i * kTileRows;
                const int64_t r = r0 + tx, c = c0 + j;
                if (r < t.rows && c < t.cols) {
                    tile[j][tx] = *reinterpret_cast<const S *>(
                        e.in[0].data + tile_offset(e.in[0].strides, t, b, r, c));
                }
            }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                const int j = ty + i * kTileRows;
                const int64_t r = r0 + j, c = c0 + tx;
                if (r < t.rows && c < t.cols) {
                    *reinterpret_cast<S *>(e.out.data + tile_offset(e.out.strides, t, b, r, c)) =
                        tile[tx][j];
                }
            }
            __syncthreads();
        }
    }
}

/* Launch tiled_move_kernel<S> when e transposes; *taken says whether it
   did. */
template <typename S>
static cudaError_t
launch_tiled_move(const da_elementwise *e, cudaStream_t stream, bool *taken)
{
    tile_shape t;

    *taken = false;
    if (!da_tile_route(e)) {
        return cudaSuccess;
    }
    t = tile_shape_of(e);
    if (!tile_grid_fits(t)) {
        return cudaSuccess;
    }
    *taken = true;
    tiled_move_kernel<S><<<tile_grid(t), dim3(DA_TILE, kTileRows), 0, stream>>>(*e, t);
    return cudaGetLastError();
}

}  // namespace da

#endif /* DEVARRAY_KERNELS_TRANSPOSE_CUH_ */
