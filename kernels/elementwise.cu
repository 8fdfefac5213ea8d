/*
 * da_cuda_elementwise (kernels/launch.h): elementwise ops on the GPU.
 *
 * Three routes, all computing through ops.h:
 *   - move (here): COPY between arrays of one dtype moves the bits
 *     (NumPy's copy: bool bytes and NaN payloads kept), cudaMemcpyAsync
 *     when both are contiguous, a tiled kernel per itemsize when the copy
 *     transposes (transpose.cuh), else a strided kernel per itemsize
 *     (kMovePer loads in flight per thread, offsets stepped along the last
 *     dimension).  COPY of a scalar into a contiguous output is a fill
 *     kernel per itemsize (the scalar is converted once, on the host, by
 *     the same da_store_<class>).
 *   - contiguous (elementwise.cuh): ndim <= 1, every array operand
 *     contiguous and of one dtype of the op's class, the output contiguous
 *     and of the loop's result dtype for it (the operands' own, bool for
 *     comparisons and predicates, float for abs/real/imag of complex);
 *     scalar operands allowed.  A binary op over 2-D rows contiguous in
 *     every array, or broadcast along them (`m + v`, `c[:, None] + m`),
 *     runs the same kernel a grid row per matrix row, a broadcast element
 *     loaded once per row as a scalar.  A kernel per (op, operand dtype) moves
 *     16-byte input vectors (8-byte for float16), and the matching output
 *     elements as one vector, over the body where every array is aligned
 *     at the same element, and single elements for the head before and
 *     the tail after it.  32-bit indices; the launcher cuts problems of
 *     more than 2^30 elements into chunks.
 *   - tiled (transpose.cuh): 2-D or batched 2-D problems where an input
 *     is dense along the output's rows (a + a.T, casts of a.T into C
 *     order), through shared-memory tiles.  A kernel per (op, class).
 *   - strided (elementwise.cuh): everything else (other layouts, mixed
 *     dtypes, casts, outputs of another dtype).  A kernel per (op, class);
 *     COPY's stages a cast between contiguous arrays through shared memory
 *     (16-byte loads) and converts it there;
 *     each operand's dtype is switched per element by da_load_<class> (the
 *     same branch in every thread), byte offsets come from the 64-bit
 *     linear index, divided in 32 bits when the problem fits.  Element for
 *     element it is the host's strided loop (src/host/host_kernels.c).
 * Grids are grid-stride loops (dispatch.cuh sizes them).
 *
 * The instantiation plan (docs/design.md, "Kernels"): the kernels of the
 * op table compile as one translation unit per group of classes,
 * elementwise_<group>.cu, which setup.py compiles in parallel; this file
 * holds the move route and hands every other (op, class) to its group.
 */
#include <stdint.h>

#include "elementwise.cuh"

namespace da {

/* ---- fill ------------------------------------------------------------ */

/* Storage of one element by itemsize, for moving bits. */
template <int Itemsize>
struct bits_of;
template <>
struct bits_of<1> {
    typedef uint8_t type;
};
template <>
struct bits_of<2> {
    typedef uint16_t type;
};
template <>
struct bits_of<4> {
    typedef uint32_t type;
};
template <>
struct bits_of<8> {
    typedef uint64_t type;
};
template <>
struct bits_of<16> {
    typedef da_c128 type; /* 8-byte aligned, like a complex128 array */
};

template <typename S>
static __global__ void __launch_bounds__(kBlockThreads)
fill_kernel(char *out_bytes, const S value, const contiguous_split split)
{
    constexpr int kPerVector = kVectorBytes / sizeof(S);
    typedef vector_of<S, kPerVector> V;
    const uint32_t first = blockIdx.x * kBlockThreads + threadIdx.x;
    const uint32_t step = gridDim.x * kBlockThreads;
    const uint32_t head = (uint32_t)split.head;
    const uint32_t nvec = (uint32_t)split.nvec;
    const uint32_t nrest = (uint32_t)split.nrest;
    const uint32_t body_end = head + nvec * kPerVector;
    S *out = reinterpret_cast<S *>(out_bytes);
    V pattern;
    uint32_t v, j;

#pragma unroll
    for (int k = 0; k < kPerVector; k++) {
        pattern.e[k] = value;
    }
    for (v = first; v < nvec; v += step) {
        *reinterpret_cast<V *>(out + head + v * kPerVector) = pattern;
    }
    for (j = first; j < nrest; j += step) {
        out[j < head ? j : body_end + (j - head)] = value;
    }
}

template <int Itemsize>
static cudaError_t
launch_fill(char *out, const void *value_bytes, int64_t size, cudaStream_t stream)
{
    typedef typename bits_of<Itemsize>::type S;
    const int itemsizes[1] = {Itemsize};
    int64_t start;
    S value;

    memcpy(&value, value_bytes, sizeof value);
    for (start = 0; start < size; start += kChunkElements) {
        const int64_t n = size - start < kChunkElements ? size - start : kChunkElements;
        const char *arrays[1] = {out + start * Itemsize};
        const contiguous_split split =
            split_aligned(arrays, itemsizes, 1, n, kVectorBytes / Itemsize);
        unsigned int blocks;
        cudaError_t err =
            grid_blocks(split.nvec > split.nrest ? split.nvec : split.nrest, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        fill_kernel<S><<<blocks, kBlockThreads, 0, stream>>>(out + start * Itemsize, value,
                                                              split);
        err = cudaGetLastError();
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

/* COPY of a scalar (a value of class cls) into a contiguous output: the
   scalar stored once in the output's dtype, then repeated. */
static cudaError_t
fill_contiguous(int cls, const da_elementwise *e, cudaStream_t stream)
{
    unsigned char value[16];
    const da_scalar &s = e->in[0].scalar;
    const int typenum = e->out.typenum;

    switch (cls) {
        case DA_CLASS_BOOL:
            da_store_bool(value, typenum, s.b);
            break;
        case DA_CLASS_SINT:
            da_store_sint(value, typenum, s.s);
            break;
        case DA_CLASS_UINT:
            da_store_uint(value, typenum, s.u);
            break;
        case DA_CLASS_F32:
            da_store_f32(value, typenum, s.f32);
            break;
        case DA_CLASS_F64:
            da_store_f64(value, typenum, s.f64);
            break;
        case DA_CLASS_C64:
            da_store_c64(value, typenum, s.c64);
            break;
        default:
            da_store_c128(value, typenum, s.c128);
            break;
    }
    switch (da_itemsize(typenum)) {
        case 1:
            return launch_fill<1>(e->out.data, value, e->size, stream);
        case 2:
            return launch_fill<2>(e->out.data, value, e->size, stream);
        case 4:
            return launch_fill<4>(e->out.data, value, e->size, stream);
        case 8:
            return launch_fill<8>(e->out.data, value, e->size, stream);
        default:
            return launch_fill<16>(e->out.data, value, e->size, stream);
    }
}

/* ---- move ------------------------------------------------------------ */

/* Elements each thread of the strided move handles per pass, at
   kBlockThreads apart: their loads are issued before the first store. */
constexpr int kMovePer = 4;

/* operand_offsets for the move kernel, and i's coordinate along the last
   dimension, out of line: its four call sites would otherwise be four
   copies of the divisions in each of the five kernels. */
static __device__ __noinline__ uint64_t
move_offsets(const da_elementwise &e, uint64_t i, uint64_t extent, int64_t off[2])
{
    operand_offsets<1>(e, i, off);
    return i % extent;
}

/* out = in elementwise, bits moved.  Along the last dimension the offsets
   of a thread's next element are its last ones plus kBlockThreads strides,
   so the division by the shape happens once per pass (and again only
   where the row ends).  The offsets come first, in a loop that is not
   unrolled (one call site of move_offsets) and keeps them in registers by
   constant indices; then the loads, all in flight; then the stores. */
template <typename S>
static __global__ void __launch_bounds__(kBlockThreads)
strided_move_kernel(const __grid_constant__ da_elementwise e)
{
    const uint64_t n = (uint64_t)e.size;
    const uint64_t per_block = (uint64_t)kBlockThreads * kMovePer;
    const int last = e.ndim > 0 ? e.ndim - 1 : 0;
    const uint64_t extent = e.ndim > 0 ? (uint64_t)e.shape[last] : 1;
    const int64_t out_step = kBlockThreads * e.out.strides[last];
    const int64_t in_step = kBlockThreads * e.in[0].strides[last];
    uint64_t base;

    for (base = blockIdx.x * per_block; base < n; base += gridDim.x * per_block) {
        int64_t off[2] = {0, 0}, in_off[kMovePer], out_off[kMovePer];
        uint64_t coord = 0;
        S v[kMovePer];
        int k;
#pragma unroll 1
        for (k = 0; k < kMovePer; k++) {
            const uint64_t i = base + k * kBlockThreads + threadIdx.x;
            if (i >= n) {
                break;
            }
            if (k > 0 && coord + kBlockThreads < extent) {
                coord += kBlockThreads;
                off[0] += out_step;
                off[1] += in_step;
            }
            else {
                coord = move_offsets(e, i, extent, off);
            }
#pragma unroll
            for (int m = 0; m < kMovePer; m++) {
                if (m == k) {
                    in_off[m] = off[1];
                    out_off[m] = off[0];
                }
            }
        }
#pragma unroll
        for (k = 0; k < kMovePer; k++) {
            if (base + k * kBlockThreads + threadIdx.x < n) {
                v[k] = *reinterpret_cast<const S *>(e.in[0].data + in_off[k]);
            }
        }
#pragma unroll
        for (k = 0; k < kMovePer; k++) {
            if (base + k * kBlockThreads + threadIdx.x < n) {
                *reinterpret_cast<S *>(e.out.data + out_off[k]) = v[k];
            }
        }
    }
}

/* The tiled move when e transposes, else the strided one. */
template <int Itemsize>
static cudaError_t
launch_strided_move(const da_elementwise *e, cudaStream_t stream)
{
    typedef typename bits_of<Itemsize>::type S;
    unsigned int blocks;
    bool tiled;
    cudaError_t err = launch_tiled_move<S>(e, stream, &tiled);
    if (err != cudaSuccess || tiled) {
        return err;
    }
    err = grid_blocks((e->size + kMovePer - 1) / kMovePer, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    strided_move_kernel<S><<<blocks, kBlockThreads, 0, stream>>>(*e);
    return cudaGetLastError();
}

/* COPY between arrays of one dtype. */
static cudaError_t
move(const da_elementwise *e, cudaStream_t stream)
{
    const int itemsize = da_itemsize(e->out.typenum);

    if (e->ndim == 0 ||
        (e->ndim == 1 && e->out.strides[0] == itemsize && e->in[0].strides[0] == itemsize)) {
        if (e->in[0].data == e->out.data) {
            return cudaSuccess;
        }
        return cudaMemcpyAsync(e->out.data, e->in[0].data, (size_t)e->size * (size_t)itemsize,
                               cudaMemcpyDeviceToDevice, stream);
    }
    switch (itemsize) {
        case 1:
            return launch_strided_move<1>(e, stream);
        case 2:
            return launch_strided_move<2>(e, stream);
        case 4:
            return launch_strided_move<4>(e, stream);
        case 8:
            return launch_strided_move<8>(e, stream);
        default:
            return launch_strided_move<16>(e, stream);
    }
}

static bool
is_contiguous_output(const da_elementwise *e)
{
    return e->ndim == 0 ||
           (e->ndim == 1 && e->out.strides[0] == da_itemsize(e->out.typenum));
}

}  // namespace da

extern "C" cudaError_t
da_cuda_elementwise(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    if (e == nullptr || e->ndim < 0 || e->ndim > DA_MAXDIMS || op < 0 ||
        op >= DA_NOPS || cls < 0 || cls >= DA_NCLASSES ||
        e->nin != da_op_nin(op)) {
        return cudaErrorInvalidValue;
    }
    if (e->size <= 0) {
        return cudaSuccess;
    }
    if (op == DA_OP_COPY && e->in[0].data != nullptr && e->in[0].typenum == e->out.typenum) {
        return da::move(e, stream);
    }
    if (op == DA_OP_COPY && e->in[0].data == nullptr && da::is_contiguous_output(e)) {
        return da::fill_contiguous(cls, e, stream);
    }
    switch (cls) {
        case DA_CLASS_BOOL:
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            return da::elementwise_int(op, cls, e, stream);
        case DA_CLASS_F32:
            return da::elementwise_f32(op, cls, e, stream);
        case DA_CLASS_F64:
            return da::elementwise_f64(op, cls, e, stream);
        default:
            return da::elementwise_complex(op, cls, e, stream);
    }
}
