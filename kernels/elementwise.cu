/*
 * da_cuda_elementwise (kernels/launch.h): elementwise ops on the GPU.
 *
 * Three routes, all computing through ops.h:
 *   - contiguous: ndim <= 1, every array operand contiguous and of the
 *     output's dtype, which belongs to the op's class (scalar operands
 *     allowed).  A kernel per (op, dtype) moves 16-byte vectors over the
 *     body where every array is 16-byte aligned at the same element, and
 *     single elements for the head before and the tail after it.
 *   - move: COPY between arrays of one dtype moves the bits (NumPy's
 *     copy: bool bytes and NaN payloads kept), cudaMemcpyAsync when both
 *     are contiguous, else a strided kernel per itemsize.  COPY of a scalar
 *     into a contiguous output is a fill kernel per itemsize (the scalar is
 *     converted once, on the host, by the same da_store_<class>).
 *   - strided: everything else.  A kernel per (op, class); each operand's
 *     dtype is switched per element by da_load_<class> (the same branch in
 *     every thread), byte offsets come from the linear index.  Element for
 *     element it is the host's strided loop (src/host_kernels.c).
 * Each kernel has a 32-bit index variant, used when size < 2^31, and a
 * 64-bit one beyond.  Grids are grid-stride loops (dispatch.cuh sizes
 * them).
 */
#include <stdint.h>

#include "dispatch.cuh"

namespace da {

constexpr int kVectorBytes = 16;

/* ---- contiguous route ------------------------------------------------ */

template <typename S>
struct alignas(kVectorBytes) vector_of {
    S e[kVectorBytes / sizeof(S)];
};

/* A contiguous range of n elements as head + nvec vectors + tail.  The body
   starts where every array is aligned to a whole 128-byte line, when they
   are all misaligned alike (by whole elements), else to 16 bytes; if not
   even that, everything is head. */
struct contiguous_split {
    int64_t head;  /* elements before the first aligned vector */
    int64_t nvec;  /* vectors in the body */
    int64_t nrest; /* head + tail: the elements done one at a time */
};

constexpr int kLineBytes = 128;

static contiguous_split
split_aligned(const char *const *arrays, int narrays, int64_t n, int itemsize)
{
    static const int alignments[2] = {kLineBytes, kVectorBytes};
    const int64_t per_vector = kVectorBytes / itemsize;
    contiguous_split s = {0, 0, n};
    int a, k;

    for (a = 0; a < 2; a++) {
        const uintptr_t align = (uintptr_t)alignments[a];
        const uintptr_t mis = (uintptr_t)arrays[0] % align;
        bool alike = mis % (uintptr_t)itemsize == 0;
        for (k = 1; k < narrays; k++) {
            alike = alike && (uintptr_t)arrays[k] % align == mis;
        }
        if (alike) {
            s.head = (int64_t)((align - mis) % align) / itemsize;
            if (s.head > n) {
                s.head = n;
            }
            s.nvec = (n - s.head) / per_vector;
            s.nrest = n - s.nvec * per_vector;
            break;
        }
    }
    return s;
}

struct contiguous_args {
    char *out;
    const char *in[2]; /* NULL: the operand is scalar[k] */
    da_scalar scalar[2];
    contiguous_split split;
};

/* out = op(in0[, in1]), all of dtype Typenum. */
template <int Op, int Typenum, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
contiguous_kernel(const contiguous_args a)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef class_traits<dtype_traits<Typenum>::cls> C;
    typedef typename C::type CT;
    typedef op_fn<Op, dtype_traits<Typenum>::cls> F;
    typedef vector_of<S> V;
    constexpr int kPerVector = kVectorBytes / sizeof(S);
    constexpr bool kBinary = da_op_nin(Op) == 2;
    const Index first = (Index)blockIdx.x * kBlockThreads + threadIdx.x;
    const Index step = (Index)gridDim.x * kBlockThreads;
    const Index head = (Index)a.split.head;
    const Index nvec = (Index)a.split.nvec;
    const Index nrest = (Index)a.split.nrest;
    const Index body_end = head + nvec * kPerVector;
    const CT s0 = C::scalar(a.scalar[0]);
    const CT s1 = C::scalar(a.scalar[1]);
    const S *in0 = reinterpret_cast<const S *>(a.in[0]);
    const S *in1 = reinterpret_cast<const S *>(a.in[1]);
    S *out = reinterpret_cast<S *>(a.out);
    Index v, j;

    for (v = first; v < nvec; v += step) {
        const Index i = head + v * kPerVector;
        V x, r;
        if (in0 != nullptr) {
            x = *reinterpret_cast<const V *>(in0 + i);
        }
        if constexpr (kBinary) {
            V y;
            if (in1 != nullptr) {
                y = *reinterpret_cast<const V *>(in1 + i);
            }
#pragma unroll
            for (int k = 0; k < kPerVector; k++) {
                CT va = in0 != nullptr ? C::load(&x.e[k], Typenum) : s0;
                CT vb = in1 != nullptr ? C::load(&y.e[k], Typenum) : s1;
                store_value(&r.e[k], Typenum, F::apply(va, vb));
            }
        }
        else {
#pragma unroll
            for (int k = 0; k < kPerVector; k++) {
                CT va = in0 != nullptr ? C::load(&x.e[k], Typenum) : s0;
                store_value(&r.e[k], Typenum, F::apply(va, va));
            }
        }
        *reinterpret_cast<V *>(out + i) = r;
    }
    for (j = first; j < nrest; j += step) {
        const Index i = j < head ? j : body_end + (j - head);
        CT va = in0 != nullptr ? C::load(in0 + i, Typenum) : s0;
        if constexpr (kBinary) {
            CT vb = in1 != nullptr ? C::load(in1 + i, Typenum) : s1;
            store_value(out + i, Typenum, F::apply(va, vb));
        }
        else {
            store_value(out + i, Typenum, F::apply(va, va));
        }
    }
}

template <int Op, int Typenum>
static cudaError_t
launch_contiguous(const da_elementwise *e, cudaStream_t stream)
{
    contiguous_args a;
    const char *arrays[3];
    int narrays = 0, k;
    unsigned int blocks;
    cudaError_t err;

    a.out = e->out.data;
    arrays[narrays++] = e->out.data;
    for (k = 0; k < 2; k++) {
        a.in[k] = k < e->nin ? e->in[k].data : nullptr;
        a.scalar[k] = e->in[k].scalar;
        if (a.in[k] != nullptr) {
            arrays[narrays++] = a.in[k];
        }
    }
    a.split = split_aligned(arrays, narrays, e->size, da_itemsize(Typenum));
    err = grid_blocks(a.split.nvec > a.split.nrest ? a.split.nvec : a.split.nrest,
                      &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (e->size <= INT32_MAX) {
        contiguous_kernel<Op, Typenum, uint32_t>
            <<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    else {
        contiguous_kernel<Op, Typenum, uint64_t>
            <<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    return cudaGetLastError();
}

/* run<typenum>() for the output's dtype, one of the class Cls. */
template <int Op, int Cls>
struct contiguous_typed {
    const da_elementwise *e;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        if constexpr (dtype_traits<Typenum>::cls == Cls) {
            return launch_contiguous<Op, Typenum>(e, stream);
        }
        else {
            return cudaErrorInvalidValue;
        }
    }
};

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

template <typename S, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
fill_kernel(char *out_bytes, const S value, const contiguous_split split)
{
    typedef vector_of<S> V;
    constexpr int kPerVector = kVectorBytes / sizeof(S);
    const Index first = (Index)blockIdx.x * kBlockThreads + threadIdx.x;
    const Index step = (Index)gridDim.x * kBlockThreads;
    const Index head = (Index)split.head;
    const Index nvec = (Index)split.nvec;
    const Index nrest = (Index)split.nrest;
    const Index body_end = head + nvec * kPerVector;
    S *out = reinterpret_cast<S *>(out_bytes);
    V pattern;
    Index v, j;

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
launch_fill(char *out, const void *value_bytes, int64_t n, cudaStream_t stream)
{
    typedef typename bits_of<Itemsize>::type S;
    const char *arrays[1] = {out};
    contiguous_split split = split_aligned(arrays, 1, n, Itemsize);
    unsigned int blocks;
    S value;
    cudaError_t err;

    memcpy(&value, value_bytes, sizeof value);
    err = grid_blocks(split.nvec > split.nrest ? split.nvec : split.nrest, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (n <= INT32_MAX) {
        fill_kernel<S, uint32_t><<<blocks, kBlockThreads, 0, stream>>>(out, value, split);
    }
    else {
        fill_kernel<S, uint64_t><<<blocks, kBlockThreads, 0, stream>>>(out, value, split);
    }
    return cudaGetLastError();
}

/* COPY of a scalar into a contiguous output: the scalar stored once in
   the output's dtype, then repeated. */
template <int Cls>
static cudaError_t
fill_contiguous(const da_elementwise *e, cudaStream_t stream)
{
    unsigned char value[16];

    store_value(value, e->out.typenum, class_traits<Cls>::scalar(e->in[0].scalar));
    switch (da_itemsize(e->out.typenum)) {
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

/* ---- strided route --------------------------------------------------- */

/* Byte offsets of element i in the output (off[0]) and each input. */
template <int Nin, typename Index>
static __device__ __forceinline__ void
operand_offsets(const da_elementwise &e, Index i, int64_t off[1 + Nin])
{
    const da_operand *ops[3] = {&e.out, &e.in[0], &e.in[1]};
    Index rest = i;
    int d, k;

    if (e.ndim <= 1) {
        /* ndim 0 has the single element i == 0 */
#pragma unroll
        for (k = 0; k <= Nin; k++) {
            off[k] = (int64_t)i * ops[k]->strides[0];
        }
        return;
    }
#pragma unroll
    for (k = 0; k <= Nin; k++) {
        off[k] = 0;
    }
    for (d = e.ndim - 1; d > 0; d--) {
        const Index extent = (Index)e.shape[d];
        const Index q = rest / extent;
        const int64_t coord = (int64_t)(rest - q * extent);
        rest = q;
#pragma unroll
        for (k = 0; k <= Nin; k++) {
            off[k] += coord * ops[k]->strides[d];
        }
    }
#pragma unroll
    for (k = 0; k <= Nin; k++) {
        off[k] += (int64_t)rest * ops[k]->strides[0];
    }
}

template <typename C>
static __device__ __forceinline__ typename C::type
load_operand(const da_operand &operand, int64_t offset)
{
    return operand.data != nullptr ? C::load(operand.data + offset, operand.typenum)
                                   : C::scalar(operand.scalar);
}

template <int Op, int Cls, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
strided_kernel(const __grid_constant__ da_elementwise e)
{
    typedef class_traits<Cls> C;
    typedef typename C::type CT;
    typedef op_fn<Op, Cls> F;
    constexpr int kNin = da_op_nin(Op);
    const Index n = (Index)e.size;
    const Index step = (Index)gridDim.x * kBlockThreads;
    Index i;

    for (i = (Index)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t off[1 + kNin];
        operand_offsets<kNin>(e, i, off);
        const CT a = load_operand<C>(e.in[0], off[1]);
        if constexpr (kNin == 2) {
            const CT b = load_operand<C>(e.in[1], off[2]);
            store_value(e.out.data + off[0], e.out.typenum, F::apply(a, b));
        }
        else {
            store_value(e.out.data + off[0], e.out.typenum, F::apply(a, a));
        }
    }
}

struct strided_launcher {
    const da_elementwise *e;
    cudaStream_t stream;

    template <int Op, int Cls>
    cudaError_t
    run() const
    {
        unsigned int blocks;
        cudaError_t err = grid_blocks(e->size, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        if (e->size <= INT32_MAX) {
            strided_kernel<Op, Cls, uint32_t><<<blocks, kBlockThreads, 0, stream>>>(*e);
        }
        else {
            strided_kernel<Op, Cls, uint64_t><<<blocks, kBlockThreads, 0, stream>>>(*e);
        }
        return cudaGetLastError();
    }
};

/* ---- move route ------------------------------------------------------ */

template <typename S, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
strided_move_kernel(const __grid_constant__ da_elementwise e)
{
    const Index n = (Index)e.size;
    const Index step = (Index)gridDim.x * kBlockThreads;
    Index i;

    for (i = (Index)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t off[2];
        operand_offsets<1>(e, i, off);
        *reinterpret_cast<S *>(e.out.data + off[0]) =
            *reinterpret_cast<const S *>(e.in[0].data + off[1]);
    }
}

template <int Itemsize>
static cudaError_t
launch_strided_move(const da_elementwise *e, cudaStream_t stream)
{
    typedef typename bits_of<Itemsize>::type S;
    unsigned int blocks;
    cudaError_t err = grid_blocks(e->size, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (e->size <= INT32_MAX) {
        strided_move_kernel<S, uint32_t><<<blocks, kBlockThreads, 0, stream>>>(*e);
    }
    else {
        strided_move_kernel<S, uint64_t><<<blocks, kBlockThreads, 0, stream>>>(*e);
    }
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

/* ---- route selection ------------------------------------------------- */

/* Whether every array operand is contiguous and of the output's dtype, and
   that dtype is of class cls. */
static bool
is_contiguous_problem(int cls, const da_elementwise *e)
{
    const int typenum = e->out.typenum;
    const int64_t itemsize = da_itemsize(typenum);
    int k;

    if (e->ndim > 1 || (int)da_class_of(typenum) != cls) {
        return false;
    }
    if (e->ndim == 1 && e->out.strides[0] != itemsize) {
        return false;
    }
    for (k = 0; k < e->nin; k++) {
        const da_operand *in = &e->in[k];
        if (in->data == nullptr) {
            continue;
        }
        if (in->typenum != typenum || (e->ndim == 1 && in->strides[0] != itemsize)) {
            return false;
        }
    }
    return true;
}

struct contiguous_launcher {
    const da_elementwise *e;
    cudaStream_t stream;

    template <int Op, int Cls>
    cudaError_t
    run() const
    {
        if constexpr (Op == DA_OP_COPY) {
            /* arrays of the output's dtype took the move route */
            return fill_contiguous<Cls>(e, stream);
        }
        else {
            contiguous_typed<Op, Cls> typed = {e, stream};
            return dispatch_dtype(e->out.typenum, typed);
        }
    }
};

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
    if (da::is_contiguous_problem(cls, e)) {
        da::contiguous_launcher launcher = {e, stream};
        return da::dispatch_op_class(op, cls, launcher);
    }
    da::strided_launcher launcher = {e, stream};
    return da::dispatch_op_class(op, cls, launcher);
}
