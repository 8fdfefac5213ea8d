/*
 * Internal to kernels/: the transposing route of the elementwise kernels
 * (which problems take it, and which axes are the batch, the rows and the
 * columns: transpose.h).  A block of 32 x 8 threads owns a DA_TILE x
 * DA_TILE tile of one 2-D problem of the batch; the inputs dense
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
/* Each thread's share of a tile: kPer rows (or columns) kTileRows apart,
   loaded all before any is stored so that kPer loads are in flight. */
constexpr int kPer = DA_TILE / kTileRows;

/* An operand's strides in bytes per batch entry, row and column. */
struct tile_strides {
    int64_t batch, row, col;
};

/* The geometry of a transposing problem: batch x rows x columns, and the
   strides of the output and the inputs along them, taken out of e on the
   host: indexed by dimension in the kernel, each is a parameter load at a
   computed address, and the registers that held them kept fewer blocks
   resident. */
struct tile_shape {
    int64_t batch, rows, cols;
    int64_t row_tiles;
    tile_strides out, in[2];
};

/* The strides of an operand along the batch (axis bd, -1: none), the
   rows (rd) and the columns (the last axis). */
static inline tile_strides
tile_strides_of(const da_operand *op, int ndim, int bd, int rd)
{
    tile_strides s;
    s.batch = bd >= 0 ? op->strides[bd] : 0;
    s.row = op->strides[rd];
    s.col = op->strides[ndim - 1];
    return s;
}

/* The geometry of e with its rows along axis rd (da_tile_rows_axis); in a
   3-D problem the other axis is the batch. */
static inline tile_shape
tile_shape_of(const da_elementwise *e, int rd)
{
    const int bd = e->ndim == 3 ? (rd == 0 ? 1 : 0) : -1;
    tile_shape t;
    int k;
    t.batch = bd >= 0 ? e->shape[bd] : 1;
    t.rows = e->shape[rd];
    t.cols = e->shape[e->ndim - 1];
    t.row_tiles = (t.rows + DA_TILE - 1) / DA_TILE;
    t.out = tile_strides_of(&e->out, e->ndim, bd, rd);
    for (k = 0; k < 2; k++) {
        t.in[k] = tile_strides_of(&e->in[k], e->ndim, bd, rd);
    }
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

/* A thread's first element of tile (b, r0, c0) in an operand at `data`
   (char or const char) with byte strides s, for a thread that walks
   across the tile's rows (across: thread x at row r0 + x, its elements
   kTileRows columns apart) or along them (thread x at column c0 + x, its
   elements kTileRows rows apart). */
template <typename P>
static __device__ __forceinline__ P *
tile_first(P *data, const tile_strides &s, int64_t b, int64_t r0, int64_t c0, bool across)
{
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    return data + b * s.batch + (r0 + (across ? tx : ty)) * s.row +
           (c0 + (across ? ty : tx)) * s.col;
}

/* Bytes between a thread's elements of a tile (see tile_first). */
static __device__ __forceinline__ int64_t
tile_step(const tile_strides &s, bool across)
{
    return kTileRows * (across ? s.col : s.row);
}

/* Whether a thread's element i of a tile at (r0, c0) is inside the
   problem, for a walk across the rows (across) or along them. */
static __device__ __forceinline__ bool
tile_inside(const tile_shape &t, int64_t r0, int64_t c0, int i, bool across)
{
    const int tx = (int)threadIdx.x, j = (int)threadIdx.y + i * kTileRows;
    return across ? r0 + tx < t.rows && c0 + j < t.cols : r0 + j < t.rows && c0 + tx < t.cols;
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

/* v[i] = a thread's element i of a tile, for the elements inside the
   problem: at p, step bytes apart, of dtype typenum, or of the class's own
   dtype when native.  Native loads outside the problem read `safe` (an
   element that exists) instead of branching around the load, so that all
   kPer are issued together; the test of native is outside the loop for
   the same reason (an out-of-line load_element in the other branch). */
template <int Cls>
static __device__ __forceinline__ void
tile_loads(typename class_traits<Cls>::type (&v)[kPer], const char *p, int64_t step,
           int typenum, bool native, const bool (&inside)[kPer], const char *safe)
{
    if (native) {
#pragma unroll
        for (int i = 0; i < kPer; i++) {
            v[i] = class_traits<Cls>::load(inside[i] ? p + i * step : safe,
                                           class_native<Cls>::typenum);
        }
    }
    else {
#pragma unroll
        for (int i = 0; i < kPer; i++) {
            if (inside[i]) {
                v[i] = load_element<Cls>(p + i * step, typenum);
            }
        }
    }
}

struct tile_args {
    tile_shape t;
    bool transposed[2]; /* input k goes through the tile */
    bool native;        /* every array of the class's own dtype */
};

/* Blocks of tiled_kernel resident per multiprocessor for class values of
   `size` bytes: 6 (1536 threads, 40 registers) for 4-byte classes, to keep
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
            /* a whole tile needs no bounds (the same answer in every thread) */
            const bool whole = r0 + DA_TILE <= t.rows && c0 + DA_TILE <= t.cols;
            CT v[kNin][kPer];
            bool inside[kPer];
            /* every load in flight before the first store into the tile: a
               global load after a shared store waits for it (the load's
               generic address might be the tile's), which left one load in
               flight per thread */
#pragma unroll
            for (int k = 0; k < kNin; k++) {
                if (e.in[k].data == nullptr) {
#pragma unroll
                    for (int i = 0; i < kPer; i++) {
                        v[k][i] = C::scalar(e.in[k].scalar);
                    }
                    continue;
                }
                /* a transposed operand is read across the rows (thread tx
                   reads row r0 + tx), the others along them */
                const bool across = a.transposed[k];
#pragma unroll
                for (int i = 0; i < kPer; i++) {
                    inside[i] = whole || tile_inside(t, r0, c0, i, across);
                }
                tile_loads<Cls>(v[k], tile_first(e.in[k].data, t.in[k], b, r0, c0, across),
                                tile_step(t.in[k], across), e.in[k].typenum, a.native, inside,
                                e.in[k].data);
            }
#pragma unroll
            for (int k = 0; k < kNin; k++) {
                if (a.transposed[k]) {
#pragma unroll
                    for (int i = 0; i < kPer; i++) {
                        tile[k][ty + i * kTileRows][tx] = v[k][i];
                    }
                }
            }
            __syncthreads();
            /* along the rows: thread tx writes column c0 + tx */
#pragma unroll
            for (int k = 0; k < kNin; k++) {
                if (a.transposed[k]) {
#pragma unroll
                    for (int i = 0; i < kPer; i++) {
                        v[k][i] = tile[k][tx][ty + i * kTileRows];
                    }
                }
            }
            char *out = tile_first(e.out.data, t.out, b, r0, c0, false);
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                if (whole || tile_inside(t, r0, c0, i, false)) {
                    if (a.native) {
                        store_value(out + i * tile_step(t.out, false), kOutNative,
                                    F::apply(v[0][i], v[kNin - 1][i]));
                    }
                    else {
                        store_element(out + i * tile_step(t.out, false), e.out.typenum,
                                      F::apply(v[0][i], v[kNin - 1][i]));
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
        const int rd = da_tile_rows_axis(e);
        tile_args a;
        int k;

        if (rd < 0) {
            return cudaSuccess;
        }
        a.t = tile_shape_of(e, rd);
        if (!tile_grid_fits(a.t)) {
            return cudaSuccess;
        }
        a.native = e->out.typenum == result_typenum(op_fn<Op, Cls>::result, kNative);
        for (k = 0; k < 2; k++) {
            a.transposed[k] = k < e->nin && da_tile_transposed_input(e, k, rd);
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

/* Blocks of tiled_move_kernel<S> resident per multiprocessor for
   elements of up to 4 bytes: every thread a multiprocessor holds, at 32
   registers each, so that enough loads are in flight (left to the
   compiler, 56-64 registers, the copies of a 1 GiB a.T took 1.2-1.4x as
   long on an H200): 8 blocks where it holds 2048 threads, 6 on sm_120
   (1536) and 4 on Turing (1024).  8- and 16-byte elements are left to the
   compiler: they spilled at 8. */
static __host__ __device__ constexpr int
move_blocks_per_sm(size_t size)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    return size <= 4 ? 4 : 1;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
    return size <= 4 ? 6 : 1;
#else
    return size <= 4 ? 8 : 1;
#endif
}

/* COPY within one dtype: the bits of S through the tile. */
template <typename S>
static __global__ void __launch_bounds__(DA_TILE *kTileRows, move_blocks_per_sm(sizeof(S)))
tiled_move_kernel(const __grid_constant__ da_elementwise e, const tile_shape t)
{
    __shared__ S tile[DA_TILE][DA_TILE + 1];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int64_t c0 = (int64_t)blockIdx.x * DA_TILE;
    int64_t b, rt;

    for (b = blockIdx.z; b < t.batch; b += gridDim.z) {
        for (rt = blockIdx.y; rt < t.row_tiles; rt += gridDim.y) {
            const int64_t r0 = rt * DA_TILE;
            const bool whole = r0 + DA_TILE <= t.rows && c0 + DA_TILE <= t.cols;
            const char *in = tile_first(e.in[0].data, t.in[0], b, r0, c0, true);
            char *out = tile_first(e.out.data, t.out, b, r0, c0, false);
            S v[kPer];
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                if (whole || tile_inside(t, r0, c0, i, true)) {
                    v[i] = *reinterpret_cast<const S *>(in + i * tile_step(t.in[0], true));
                }
            }
            /* into the tile after every load (see tiled_kernel) */
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                tile[ty + i * kTileRows][tx] = v[i];
            }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < kPer; i++) {
                if (whole || tile_inside(t, r0, c0, i, false)) {
                    *reinterpret_cast<S *>(out + i * tile_step(t.out, false)) =
                        tile[tx][ty + i * kTileRows];
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
    const int rd = da_tile_rows_axis(e);
    tile_shape t;

    *taken = false;
    if (rd < 0) {
        return cudaSuccess;
    }
    t = tile_shape_of(e, rd);
    if (!tile_grid_fits(t)) {
        return cudaSuccess;
    }
    *taken = true;
    tiled_move_kernel<S><<<tile_grid(t), dim3(DA_TILE, kTileRows), 0, stream>>>(*e, t);
    return cudaGetLastError();
}

}  // namespace da

#endif /* DEVARRAY_KERNELS_TRANSPOSE_CUH_ */
