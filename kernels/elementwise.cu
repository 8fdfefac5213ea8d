/*
 * da_cuda_elementwise (kernels/launch.h): elementwise ops on the GPU.
 *
 * Three routes, all computing through ops.h:
 *   - move (here): COPY between arrays of one dtype moves the bits
 *     (NumPy's copy: bool bytes and NaN payloads kept), cudaMemcpyAsync
 *     when both are contiguous, a tiled kernel per itemsize when the copy
 *     transposes (transpose.cuh), else a strided kernel per itemsize
 *     (kMovePer loads in flight per thread, offsets stepped along the last
 *     dimension, 32-bit divisions: larger problems go in pieces), rows
 *     contiguous in both moved in elements of up to 16 bytes.  COPY
 *     of a scalar into a contiguous output is a fill kernel per itemsize
 *     (the scalar is converted once, on the host, by the same
 *     da_store_<class>).
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
 *     order), through shared-memory tiles.  A kernel per (op, class), for
 *     COPY and the ops of has_tiled_kernel (the others go strided).
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
 * da_cuda_clip (here too): clip of contiguous int32, int64, float32 and
 * float64 arrays in one pass, its bounds scalars or contiguous arrays of
 * x's dtype and shape; the other cases are the two passes of MAXIMUM and
 * MINIMUM (src/ops/ufunc.c), whose bits the one pass keeps.
 *
 * The instantiation plan (docs/design.md, "Kernels"): the kernels of the
 * op table compile as one translation unit per group of classes,
 * elementwise_<group>.cu, which setup.py compiles in parallel; this file
 * holds the move route and hands every other (op, class) to its group.
 */
#include <stdint.h>
#include <string.h>

#include "elementwise.cuh"

namespace da {

/* ---- fill ------------------------------------------------------------ */

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

/* Elements each thread of the strided move handles, at kBlockThreads
   apart: their loads are issued before the first store. */
constexpr int kMovePer = 4;

/* Byte offsets of element i of e in the output (out_off) and the input
   (in_off), and i's coordinate along the last dimension, in 32-bit
   divisions (launch_move_pieces keeps problems under 2^32 elements).
   Inline on purpose: as an out-of-line call its offsets went through the
   thread's stack, and the local-memory traffic saturated L2 (on an H200,
   m[:, ::-1] copied at 1.0 TB/s against 4.0 TB/s inline). */
static __device__ __forceinline__ uint32_t
move_offsets(const da_elementwise &e, uint32_t i, int64_t &out_off, int64_t &in_off)
{
    uint32_t rest = i, last_coord = 0;
    int d;

    out_off = 0;
    in_off = 0;
#pragma unroll 1
    for (d = e.ndim - 1; d > 0; d--) {
        const uint32_t extent = (uint32_t)e.shape[d];
        const uint32_t q = rest / extent;
        const uint32_t coord = rest - q * extent;
        if (d == e.ndim - 1) {
            last_coord = coord;
        }
        rest = q;
        out_off += (int64_t)coord * e.out.strides[d];
        in_off += (int64_t)coord * e.in[0].strides[d];
    }
    out_off += (int64_t)rest * e.out.strides[0];
    in_off += (int64_t)rest * e.in[0].strides[0];
    return e.ndim > 1 ? last_coord : rest;
}

/* out = in elementwise, bits moved, kMovePer elements per thread (the
   grid covers the problem).  Along the last dimension the offsets of a
   thread's next element are its last ones plus kBlockThreads strides, so
   the divisions happen once per thread (and again only where a row
   ends). */
template <typename S>
static __global__ void __launch_bounds__(kBlockThreads)
strided_move_kernel(const __grid_constant__ da_elementwise e)
{
    const uint32_t n = (uint32_t)e.size;
    const int last = e.ndim > 0 ? e.ndim - 1 : 0;
    const uint32_t extent = e.ndim > 0 ? (uint32_t)e.shape[last] : 1;
    const int64_t out_step = kBlockThreads * e.out.strides[last];
    const int64_t in_step = kBlockThreads * e.in[0].strides[last];
    const uint32_t first = blockIdx.x * (kBlockThreads * kMovePer) + threadIdx.x;
    int64_t out_off[kMovePer], in_off[kMovePer], out_at = 0, in_at = 0;
    uint32_t coord = 0;
    S v[kMovePer];
    int k;

#pragma unroll
    for (k = 0; k < kMovePer; k++) {
        const uint32_t i = first + k * kBlockThreads;
        if (k > 0 && coord + kBlockThreads < extent) {
            coord += kBlockThreads;
            out_at += out_step;
            in_at += in_step;
        }
        else if (i < n) {
            coord = move_offsets(e, i, out_at, in_at);
        }
        out_off[k] = out_at;
        in_off[k] = in_at;
    }
#pragma unroll
    for (k = 0; k < kMovePer; k++) {
        if (first + k * kBlockThreads < n) {
            v[k] = *reinterpret_cast<const S *>(e.in[0].data + in_off[k]);
        }
    }
#pragma unroll
    for (k = 0; k < kMovePer; k++) {
        if (first + k * kBlockThreads < n) {
            *reinterpret_cast<S *>(e.out.data + out_off[k]) = v[k];
        }
    }
}

/* The strided move kernel's largest problem: its indices are 32-bit. */
constexpr int64_t kMoveMaxElements = (int64_t)UINT32_MAX - kBlockThreads * kMovePer;

/* The strided move of e in problems of at most kMoveMaxElements elements:
   whole blocks of the first dimension at a time while one of its entries
   fits, else each entry of the first dimension as a problem of one
   dimension fewer.  A 64-bit kernel was 1.5x the machine code of all the
   32-bit ones. */
template <typename S>
static cudaError_t
launch_move_pieces(const da_elementwise *e, cudaStream_t stream)
{
    const int64_t entries = e->shape[0], entry_size = e->size / e->shape[0];
    da_elementwise piece = *e;
    unsigned int blocks;
    int64_t first, count;
    cudaError_t err;

    if (e->size <= kMoveMaxElements) {
        err = grid_blocks((e->size + kMovePer - 1) / kMovePer, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        strided_move_kernel<S><<<blocks, kBlockThreads, 0, stream>>>(*e);
        return cudaGetLastError();
    }
    if (entry_size > kMoveMaxElements) {
        /* drop the first dimension: e->ndim >= 2 here, since a 1-D
           entry is one element */
        piece.ndim = e->ndim - 1;
        memmove(piece.shape, e->shape + 1, sizeof(int64_t) * (size_t)piece.ndim);
        memmove(piece.out.strides, e->out.strides + 1, sizeof(int64_t) * (size_t)piece.ndim);
        memmove(piece.in[0].strides, e->in[0].strides + 1, sizeof(int64_t) * (size_t)piece.ndim);
        piece.size = entry_size;
        count = 1;
    }
    else {
        count = kMoveMaxElements / entry_size;
    }
    for (first = 0; first < entries; first += count) {
        const int64_t n = entries - first < count ? entries - first : count;
        if (piece.ndim == e->ndim) {
            piece.shape[0] = n;
            piece.size = n * entry_size;
        }
        piece.out.data = e->out.data + first * e->out.strides[0];
        piece.in[0].data = e->in[0].data + first * e->in[0].strides[0];
        err = launch_move_pieces<S>(&piece, stream);
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

/* The tiled move when e transposes, else the strided one. */
template <int Itemsize>
static cudaError_t
launch_strided_move(const da_elementwise *e, cudaStream_t stream)
{
    typedef typename bits_of<Itemsize>::type S;
    bool tiled;
    cudaError_t err = launch_tiled_move<S>(e, stream, &tiled);
    if (err != cudaSuccess || tiled) {
        return err;
    }
    return launch_move_pieces<S>(e, stream);
}

/* The widest element, up to 16 bytes, in which a copy of rows
   contiguous in the output and the input moves them (itemsize itself when
   none is wider): a row of n elements of itemsize bytes is n * itemsize /
   width elements of width bytes when that divides and every row starts
   aligned for them (bits_of: 8 bytes at most).  On an H200 the copy of
   broadcast_to(v, (2^14, 2^14)) float32 took 375 us in 4-byte elements
   and 237 us in 16-byte ones. */
static int
move_width(const da_elementwise *e, int itemsize)
{
    const int last = e->ndim - 1;
    int width, d;

    if (e->ndim < 2 || e->out.strides[last] != itemsize || e->in[0].strides[last] != itemsize) {
        return itemsize;
    }
    for (width = 16; width > itemsize; width /= 2) {
        const int64_t align = width < 8 ? width : 8;
        bool fits = e->shape[last] * itemsize % width == 0 &&
                    (uintptr_t)e->out.data % (uintptr_t)align == 0 &&
                    (uintptr_t)e->in[0].data % (uintptr_t)align == 0;
        for (d = 0; d < last && fits; d++) {
            fits = e->out.strides[d] % align == 0 && e->in[0].strides[d] % align == 0;
        }
        if (fits) {
            return width;
        }
    }
    return itemsize;
}

/* An unsigned (or complex128) dtype of each width, for a widened copy. */
static int
width_typenum(int width)
{
    switch (width) {
        case 2:
            return DA_UINT16;
        case 4:
            return DA_UINT32;
        case 8:
            return DA_UINT64;
        default:
            return DA_COMPLEX128;
    }
}

/* The strided or tiled move of e in elements of `width` bytes. */
static cudaError_t
move_elements(const da_elementwise *e, int width, cudaStream_t stream)
{
    switch (width) {
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

/* COPY between arrays of one dtype. */
static cudaError_t
move(const da_elementwise *e, cudaStream_t stream)
{
    const int itemsize = da_itemsize(e->out.typenum);
    int width;

    if (e->ndim == 0 ||
        (e->ndim == 1 && e->out.strides[0] == itemsize && e->in[0].strides[0] == itemsize)) {
        if (e->in[0].data == e->out.data) {
            return cudaSuccess;
        }
        return cudaMemcpyAsync(e->out.data, e->in[0].data, (size_t)e->size * (size_t)itemsize,
                               cudaMemcpyDeviceToDevice, stream);
    }
    width = move_width(e, itemsize);
    if (width != itemsize) {
        const int last = e->ndim - 1;
        da_elementwise wide = *e;
        wide.out.typenum = wide.in[0].typenum = width_typenum(width);
        wide.shape[last] = e->shape[last] * itemsize / width;
        wide.size = e->size / e->shape[last] * wide.shape[last];
        wide.out.strides[last] = wide.in[0].strides[last] = width;
        return move_elements(&wide, width, stream);
    }
    return move_elements(e, itemsize, stream);
}

static bool
is_contiguous_output(const da_elementwise *e)
{
    return e->ndim == 0 ||
           (e->ndim == 1 && e->out.strides[0] == da_itemsize(e->out.typenum));
}

/* ---- clip -------------------------------------------------------------- */

/* min(max(x, lo), hi) of one element, through the op table's MAXIMUM and
   MINIMUM of the class, so that the one pass gives the two passes' bits
   (NaN propagates from x or a bound). */
template <int Cls>
static __device__ __forceinline__ typename class_traits<Cls>::type
clip_one(typename class_traits<Cls>::type v, typename class_traits<Cls>::type lo,
         typename class_traits<Cls>::type hi, bool has_lo, bool has_hi)
{
    if (has_lo) {
        v = op_fn<DA_OP_MAXIMUM, Cls>::apply(v, lo);
    }
    if (has_hi) {
        v = op_fn<DA_OP_MINIMUM, Cls>::apply(v, hi);
    }
    return v;
}

struct clip_args {
    char *out;
    const char *x;
    const char *bound[2]; /* NULL: scalar[k], when present[k] */
    da_scalar scalar[2];
    bool present[2];
    contiguous_split split;
};

/* One pass over x (and the array bounds) in 16-byte vectors over the
   aligned body, single elements for the head and tail. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
clip_kernel(const clip_args a)
{
    typedef typename dtype_traits<Typenum>::storage S;
    constexpr int kCls = dtype_traits<Typenum>::cls;
    typedef class_traits<kCls> C;
    typedef typename C::type CT;
    constexpr int kPer = kVectorBytes / (int)sizeof(S);
    typedef vector_of<S, kPer> V;
    const S *x = reinterpret_cast<const S *>(a.x);
    const S *lo = reinterpret_cast<const S *>(a.bound[0]);
    const S *hi = reinterpret_cast<const S *>(a.bound[1]);
    S *out = reinterpret_cast<S *>(a.out);
    const CT slo = C::scalar(a.scalar[0]), shi = C::scalar(a.scalar[1]);
    const bool has_lo = a.present[0], has_hi = a.present[1];
    const uint32_t first = blockIdx.x * kBlockThreads + threadIdx.x;
    const uint32_t step = gridDim.x * kBlockThreads;
    const uint32_t head = (uint32_t)a.split.head;
    const uint32_t nvec = (uint32_t)a.split.nvec;
    const uint32_t nrest = (uint32_t)a.split.nrest;
    const uint32_t body_end = head + nvec * kPer;
    uint32_t v, j;

#pragma unroll 1
    for (v = first; v < nvec; v += step) {
        const uint32_t i = head + v * kPer;
        const V vx = *reinterpret_cast<const V *>(x + i);
        V vlo, vhi, r;
        if (lo != nullptr) {
            vlo = *reinterpret_cast<const V *>(lo + i);
        }
        if (hi != nullptr) {
            vhi = *reinterpret_cast<const V *>(hi + i);
        }
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            const CT l = lo != nullptr ? C::load(&vlo.e[k], Typenum) : slo;
            const CT h = hi != nullptr ? C::load(&vhi.e[k], Typenum) : shi;
            store_value(&r.e[k], Typenum,
                        clip_one<kCls>(C::load(&vx.e[k], Typenum), l, h, has_lo, has_hi));
        }
        *reinterpret_cast<V *>(out + i) = r;
    }
#pragma unroll 1
    for (j = first; j < nrest; j += step) {
        const uint32_t i = j < head ? j : body_end + (j - head);
        const CT l = lo != nullptr ? C::load(lo + i, Typenum) : slo;
        const CT h = hi != nullptr ? C::load(hi + i, Typenum) : shi;
        store_value(out + i, Typenum,
                    clip_one<kCls>(C::load(x + i, Typenum), l, h, has_lo, has_hi));
    }
}

template <int Typenum>
static cudaError_t
launch_clip(const da_clip *c, cudaStream_t stream)
{
    constexpr int kSize = (int)sizeof(typename dtype_traits<Typenum>::storage);
    int64_t start;

    for (start = 0; start < c->n; start += kChunkElements) {
        const int64_t n = c->n - start < kChunkElements ? c->n - start : kChunkElements;
        const int64_t offset = start * kSize;
        clip_args a;
        const char *arrays[4];
        int itemsizes[4] = {kSize, kSize, kSize, kSize};
        int narrays = 0, k;
        unsigned int blocks;
        cudaError_t err;

        a.out = c->out + offset;
        a.x = c->x + offset;
        arrays[narrays++] = a.out;
        arrays[narrays++] = a.x;
        for (k = 0; k < 2; k++) {
            a.bound[k] = c->bound[k] != nullptr ? c->bound[k] + offset : nullptr;
            a.scalar[k] = c->scalar[k];
            a.present[k] = c->present[k] != 0;
            if (a.bound[k] != nullptr) {
                arrays[narrays++] = a.bound[k];
            }
        }
        a.split = split_aligned(arrays, itemsizes, narrays, n, kVectorBytes / kSize);
        err = grid_blocks(a.split.nvec > a.split.nrest ? a.split.nvec : a.split.nrest,
                          &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        clip_kernel<Typenum><<<blocks, kBlockThreads, 0, stream>>>(a);
        if ((err = cudaGetLastError()) != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

}  // namespace da

extern "C" cudaError_t
da_cuda_clip(const da_clip *c, cudaStream_t stream)
{
    if (c == nullptr || c->n < 0 || c->x == nullptr || c->out == nullptr) {
        return cudaErrorInvalidValue;
    }
    if (c->n == 0) {
        return cudaSuccess;
    }
    switch (c->typenum) {
        case DA_INT32:
            return da::launch_clip<DA_INT32>(c, stream);
        case DA_INT64:
            return da::launch_clip<DA_INT64>(c, stream);
        case DA_FLOAT32:
            return da::launch_clip<DA_FLOAT32>(c, stream);
        case DA_FLOAT64:
            return da::launch_clip<DA_FLOAT64>(c, stream);
        default:
            return cudaErrorInvalidValue;
    }
}

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
