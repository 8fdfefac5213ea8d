/*
 * Internal to kernels/: the elementwise kernels (elementwise.cu has the
 * routes and the plan; the transposing route is transpose.cuh).  Each elementwise_<group>.cu instantiates them for
 * its share of the compute classes through run_classes<...>(), so the op
 * table's kernels compile as several translation units in parallel;
 * elementwise.cu's da_cuda_elementwise calls the group of the class.
 */
#ifndef DEVARRAY_KERNELS_ELEMENTWISE_CUH_
#define DEVARRAY_KERNELS_ELEMENTWISE_CUH_

#include <stdint.h>

#include "dispatch.cuh"
#include "division.cuh"

namespace da {

/* One per translation unit of the plan; cls must be one of the group's. */
cudaError_t elementwise_int(int op, int cls, const da_elementwise *e, cudaStream_t stream);
cudaError_t elementwise_f32(int op, int cls, const da_elementwise *e, cudaStream_t stream);
cudaError_t elementwise_f64(int op, int cls, const da_elementwise *e, cudaStream_t stream);
cudaError_t elementwise_complex(int op, int cls, const da_elementwise *e,
                                cudaStream_t stream);

constexpr int kVectorBytes = 16;
constexpr int kLineBytes = 128;
/* Contiguous kernels index with 32 bits; launchers cut longer problems into
   chunks of this many elements (a multiple of every alignment unit, so each
   chunk splits like the whole). */
constexpr int64_t kChunkElements = (int64_t)1 << 30;

/* ---- contiguous route ------------------------------------------------ */

/* N elements of S as one aligned access (N * sizeof(S) bytes, at most
   16-byte aligned: a wider one is several 16-byte accesses). */
template <typename S, int N>
struct alignas(N * sizeof(S) < kVectorBytes ? N * sizeof(S) : kVectorBytes) vector_of {
    S e[N];
};

/* A contiguous range of n elements as head + nvec vectors + tail. */
struct contiguous_split {
    int64_t head;  /* elements before the first aligned vector */
    int64_t nvec;  /* vectors in the body */
    int64_t nrest; /* head + tail: the elements done one at a time */
};

/* The body starts at an element index where every array is aligned to a
   whole 128-byte line of the widest itemsize (the same index in each),
   else where each is aligned to its vector (per_vector elements); if the
   arrays are misaligned unalike even for that, everything is head. */
static inline contiguous_split
split_aligned(const char *const *arrays, const int *itemsizes, int narrays, int64_t n,
              int64_t per_vector)
{
    int64_t units[2], widest = 1;
    contiguous_split s = {0, 0, n};
    int a, k;

    for (k = 0; k < narrays; k++) {
        widest = itemsizes[k] > widest ? itemsizes[k] : widest;
    }
    units[0] = kLineBytes / widest > per_vector ? kLineBytes / widest : per_vector;
    units[1] = per_vector;
    for (a = 0; a < 2; a++) {
        const uintptr_t unit = (uintptr_t)units[a];
        bool alike = true;
        uintptr_t phase = 0;
        for (k = 0; k < narrays; k++) {
            const uintptr_t size = (uintptr_t)itemsizes[k];
            const uintptr_t p = (uintptr_t)arrays[k] / size % unit;
            alike = alike && (uintptr_t)arrays[k] % size == 0 && (k == 0 || p == phase);
            phase = p;
        }
        if (alike) {
            s.head = (int64_t)((unit - phase) % unit);
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

/* The dtype an op's loop stores for operands of dtype `typenum` (optable.h:
   SAME, BOOL, REAL), as the core resolves it (src/ops/ufunc.c). */
static __host__ __device__ constexpr int
result_typenum(int result, int typenum)
{
    return result == DA_RESULT_BOOL ? (int)DA_BOOL
           : result != DA_RESULT_REAL ? typenum
           : typenum == DA_COMPLEX64  ? (int)DA_FLOAT32
           : typenum == DA_COMPLEX128 ? (int)DA_FLOAT64
                                      : typenum;
}

/* Whether (op, dtype) has a vectorised contiguous kernel; the others take
   the strided kernel of their class (docs/design.md, "Kernels": which
   dtypes pay for one). */
static __host__ __device__ constexpr bool
has_vector_kernel(int op, int typenum)
{
    return op != DA_OP_COPY && typenum >= 0;
}

/* The binary ops users write most between operands of different layouts
   (`m + v`, `m > v`, `a + a.T`): arithmetic, maximum, minimum and the
   comparisons.  Only they get the 2-D routes' extra kernels (the rows mode
   here, transpose.cuh's tiles): those cost machine code, and the wheel
   has a size limit. */
static __host__ __device__ constexpr bool
is_frequent_binary_op(int op)
{
    return op == DA_OP_ADD || op == DA_OP_SUB || op == DA_OP_MUL || op == DA_OP_DIV ||
           op == DA_OP_MAXIMUM || op == DA_OP_MINIMUM || op == DA_OP_EQUAL ||
           op == DA_OP_NOT_EQUAL || op == DA_OP_LESS || op == DA_OP_LESS_EQUAL ||
           op == DA_OP_GREATER || op == DA_OP_GREATER_EQUAL;
}

/* Whether (op, dtype) has the rows mode of its contiguous kernel: the
   frequent binary ops of float32 and float64.  The rows loop costs about
   1.3 KB of machine code per kernel, so the other pairs keep one row and
   take the strided kernel for 2-D problems. */
static __host__ __device__ constexpr bool
has_rows_kernel(int op, int typenum)
{
    return is_frequent_binary_op(op) && (typenum == DA_FLOAT32 || typenum == DA_FLOAT64);
}

/* float16 kernels of the math functions load 8-byte vectors: each element
   is converted to float and back around its op, and a 16-byte vector's
   eight inlined copies of a function's code made the float16 kernels a
   quarter of the float32 unit's machine code.  (Computing a 16-byte vector
   in passes over parts of it, selected per pass, kept the code small but
   ran at half the speed.)  The ops of a few instructions an element load
   16-byte vectors, as every other dtype does: with 8 bytes a thread in
   flight, float16 `-a` ran at 89% of the copy rate. */
constexpr int kHalfVectorBytes = 8;

static __host__ __device__ constexpr bool
is_short_op(int op)
{
    return op == DA_OP_ADD || op == DA_OP_SUB || op == DA_OP_MUL || op == DA_OP_NEG ||
           op == DA_OP_ABS || op == DA_OP_POSITIVE || op == DA_OP_SQUARE ||
           op == DA_OP_SQRT || op == DA_OP_MAXIMUM || op == DA_OP_MINIMUM ||
           op == DA_OP_EQUAL || op == DA_OP_NOT_EQUAL || op == DA_OP_LESS ||
           op == DA_OP_LESS_EQUAL || op == DA_OP_GREATER || op == DA_OP_GREATER_EQUAL ||
           op == DA_OP_ISNAN || op == DA_OP_ISINF || op == DA_OP_ISFINITE ||
           op == DA_OP_SIGNBIT || op == DA_OP_FLOOR || op == DA_OP_CEIL || op == DA_OP_TRUNC ||
           op == DA_OP_COPYSIGN;
}

/* A kernel whose bool result is narrower than its operands (a comparison's
   or a test's) reads most of the bytes it moves: with one array operand,
   a 16-byte load a thread left float32 `isnan(a)` and `a < 1.0` at 1.06x
   and 1.11x PyTorch's time.  Its threads load this many bytes of each
   operand instead. */
constexpr int kNarrowingReadBytes = 32;

/* The compile-time shape of a contiguous kernel: inputs of dtype Typenum
   (class Cls), the result of dtype OutTypenum; kPer elements per thread,
   enough for a 16-byte input vector (8 bytes of float16 math functions,
   32 bytes for a narrower bool result) and an output vector of >= 4 bytes. */
template <int Op, int Typenum>
struct contiguous_shape {
    typedef typename dtype_traits<Typenum>::storage S;
    static constexpr int cls = dtype_traits<Typenum>::cls;
    static constexpr int out_typenum = result_typenum(op_fn<Op, cls>::result, Typenum);
    typedef typename dtype_traits<out_typenum>::storage SO;
    static constexpr int input_bytes =
        out_typenum == DA_BOOL && sizeof(S) > 1      ? kNarrowingReadBytes
        : Typenum == DA_FLOAT16 && !is_short_op(Op) ? kHalfVectorBytes
                                                     : kVectorBytes;
    static constexpr int by_input = input_bytes / (int)sizeof(S);
    static constexpr int by_output = 4 / (int)sizeof(SO);
    static constexpr int per_vector = by_input > by_output ? by_input : by_output;
    static_assert(sizeof(SO) <= sizeof(S), "a result wider than its operands");
};

/* Bool operands a 4-byte word at a time: each byte made 0 or 1 (x != 0, as
   the class's load makes it) and the op applied to the four at once with
   bit operations, from its truth table (op_fn's values at 0 and 1, which
   the compiler folds).  Loading and storing each byte through the class
   made bool `x & y` instruction-bound, at 1.30x PyTorch's time. */
static __device__ __forceinline__ uint32_t
bool_bytes_nonzero(uint32_t w)
{
    return ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) >> 7) & 0x01010101u;
}

template <int Op>
static __device__ __forceinline__ uint32_t
bool_bytes_apply(uint32_t a, uint32_t b)
{
    typedef op_fn<Op, DA_CLASS_BOOL> F;
    const uint8_t f = 0, t = 1;
    uint32_t r = 0;

    r |= F::apply(f, f) ? ~a & ~b : 0u;
    r |= F::apply(f, t) ? ~a & b : 0u;
    r |= F::apply(t, f) ? a & ~b : 0u;
    r |= F::apply(t, t) ? a & b : 0u;
    return r & 0x01010101u;
}

/* A contiguous kernel's problem: `rows` rows of the same contiguous
   layout, row r of array k starting row_stride[k] bytes (out: k = 0, in[j]:
   k = j + 1) after row r - 1 (rows == 1 for a one-dimensional problem).  An
   input whose row is a single element broadcast along it (a column of a
   matrix, `c[:, None]`) has row_scalar set: its element is loaded once per
   row and used as a scalar. */
struct contiguous_args {
    char *out;
    const char *in[2]; /* NULL: the operand is scalar[k] */
    da_scalar scalar[2];
    contiguous_split split;
    uint32_t rows;
    bool row_scalar[2];
    int64_t row_stride[3];
    divisor_multiplier by; /* in[1] NULL and a positive divisor */
};

/* The element function of (Op, Cls) for operands stored as S. */
template <int Op, int Cls, typename S, typename T>
static __device__ __forceinline__ auto
apply_stored(T a, T b, const divisor_multiplier &by)
{
    if constexpr (divides_by_multiplier<Op, Cls>::value) {
        if (by.valid) {
            return divide_by_multiplier<Op, Cls, S>(a, b, by);
        }
    }
    if constexpr (narrow_division<Op, Cls, S>::value && Cls == DA_CLASS_SINT) {
        return sint32_division<Op>(a, b);
    }
    else if constexpr (narrow_division<Op, Cls, S>::value) {
        return uint32_division<Op>(a, b);
    }
    else {
        return op_fn<Op, Cls>::apply(a, b);
    }
}

/* out = op(in0[, in1]): inputs of dtype Typenum, the result of the loop's
   result dtype. */
template <int Op, int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
contiguous_kernel(const contiguous_args a)
{
    typedef contiguous_shape<Op, Typenum> Shape;
    typedef typename Shape::S S;
    typedef typename Shape::SO SO;
    typedef class_traits<Shape::cls> C;
    typedef typename C::type CT;
    constexpr int kPer = Shape::per_vector;
    constexpr int kOut = Shape::out_typenum;
    constexpr bool kBinary = da_op_nin(Op) == 2;
    typedef vector_of<S, kPer> VI;
    typedef vector_of<SO, kPer> VO;
    const uint32_t first = blockIdx.x * kBlockThreads + threadIdx.x;
    const uint32_t step = gridDim.x * kBlockThreads;
    const uint32_t head = (uint32_t)a.split.head;
    const uint32_t nvec = (uint32_t)a.split.nvec;
    const uint32_t nrest = (uint32_t)a.split.nrest;
    const uint32_t body_end = head + nvec * kPer;
    /* only has_rows_kernel pairs go over rows; the others keep one */
    constexpr bool kRows = has_rows_kernel(Op, Typenum);
    const uint32_t rows = kRows ? a.rows : 1;
    uint32_t row, v, j;

    for (row = blockIdx.y; row < rows; row += gridDim.y) {
        const S *in0 = reinterpret_cast<const S *>(a.in[0]);
        const S *in1 = reinterpret_cast<const S *>(a.in[1]);
        SO *out = reinterpret_cast<SO *>(a.out);
        CT s0 = C::scalar(a.scalar[0]);
        CT s1 = C::scalar(a.scalar[1]);
        if constexpr (kRows) {
            out = reinterpret_cast<SO *>(a.out + row * a.row_stride[0]);
            if (in0 != nullptr) {
                in0 = reinterpret_cast<const S *>(a.in[0] + row * a.row_stride[1]);
                if (a.row_scalar[0]) {
                    s0 = C::load(in0, Typenum);
                    in0 = nullptr;
                }
            }
            if (in1 != nullptr) {
                in1 = reinterpret_cast<const S *>(a.in[1] + row * a.row_stride[2]);
                if (a.row_scalar[1]) {
                    s1 = C::load(in1, Typenum);
                    in1 = nullptr;
                }
            }
        }
        if constexpr (Typenum == DA_BOOL) {
            typedef vector_of<uint32_t, kPer / 4> VW;
            const uint32_t w0 = s0 != 0 ? 0x01010101u : 0u, w1 = s1 != 0 ? 0x01010101u : 0u;
            static_assert(sizeof(SO) == 1 && kPer % 4 == 0, "bool words");
            for (v = first; v < nvec; v += step) {
                const uint32_t i = head + v * kPer;
                VW x, y, r;
                if (in0 != nullptr) {
                    x = *reinterpret_cast<const VW *>(in0 + i);
                }
                if (kBinary && in1 != nullptr) {
                    y = *reinterpret_cast<const VW *>(in1 + i);
                }
#pragma unroll
                for (int k = 0; k < kPer / 4; k++) {
                    const uint32_t wa = in0 != nullptr ? bool_bytes_nonzero(x.e[k]) : w0;
                    const uint32_t wb = !kBinary         ? wa
                                        : in1 != nullptr ? bool_bytes_nonzero(y.e[k])
                                                         : w1;
                    r.e[k] = bool_bytes_apply<Op>(wa, wb);
                }
                *reinterpret_cast<VW *>(out + i) = r;
            }
        }
        else {
            for (v = first; v < nvec; v += step) {
                const uint32_t i = head + v * kPer;
                VI x, y;
                VO r;
                if (in0 != nullptr) {
                    x = *reinterpret_cast<const VI *>(in0 + i);
                }
                if (kBinary && in1 != nullptr) {
                    y = *reinterpret_cast<const VI *>(in1 + i);
                }
#pragma unroll
                for (int k = 0; k < kPer; k++) {
                    const CT va = in0 != nullptr ? C::load(&x.e[k], Typenum) : s0;
                    const CT vb =
                        !kBinary ? va : in1 != nullptr ? C::load(&y.e[k], Typenum) : s1;
                    store_value(&r.e[k], kOut, apply_stored<Op, Shape::cls, S>(va, vb, a.by));
                }
                *reinterpret_cast<VO *>(out + i) = r;
            }
        }
        for (j = first; j < nrest; j += step) {
            const uint32_t i = j < head ? j : body_end + (j - head);
            const CT va = in0 != nullptr ? C::load(in0 + i, Typenum) : s0;
            const CT vb = !kBinary ? va : in1 != nullptr ? C::load(in1 + i, Typenum) : s1;
            store_value(out + i, kOut, apply_stored<Op, Shape::cls, S>(va, vb, a.by));
        }
    }
}

/* CUDA's limit on gridDim.y: rows beyond it are a grid-stride loop */
constexpr uint32_t kMaxGridRows = 65535;

template <int Op, int Typenum>
static cudaError_t
launch_contiguous(const da_elementwise *e, cudaStream_t stream)
{
    typedef contiguous_shape<Op, Typenum> Shape;
    const int in_size = (int)sizeof(typename Shape::S);
    const int out_size = (int)sizeof(typename Shape::SO);
    /* rows: a two-dimensional problem (contiguous_operand_typenum); its rows
       are never chunked (each is below 2^30 elements) */
    const bool by_rows = e->ndim == 2;
    const int64_t total = by_rows ? e->shape[1] : e->size;
    int64_t start;

    for (start = 0; start < total; start += kChunkElements) {
        const int64_t n = total - start < kChunkElements ? total - start : kChunkElements;
        contiguous_args a;
        const char *arrays[3];
        int itemsizes[3];
        int narrays = 0, k;
        unsigned int blocks;
        cudaError_t err;

        a.out = e->out.data + start * out_size;
        a.rows = by_rows ? (uint32_t)e->shape[0] : 1;
        a.row_stride[0] = by_rows ? e->out.strides[0] : 0;
        arrays[narrays] = a.out;
        itemsizes[narrays++] = out_size;
        for (k = 0; k < 2; k++) {
            a.in[k] = k < e->nin && e->in[k].data != nullptr ? e->in[k].data + start * in_size
                                                             : nullptr;
            a.scalar[k] = e->in[k].scalar;
            a.row_scalar[k] = by_rows && a.in[k] != nullptr && e->in[k].strides[1] == 0;
            a.row_stride[k + 1] = by_rows && a.in[k] != nullptr ? e->in[k].strides[0] : 0;
            if (a.in[k] != nullptr && !a.row_scalar[k]) {
                arrays[narrays] = a.in[k];
                itemsizes[narrays++] = in_size;
            }
        }
        a.by = divisor_multiplier{0, 0, 0, false};
        if constexpr (divides_by_multiplier<Op, Shape::cls>::value) {
            typedef typename division_word<typename Shape::S>::type W;
            const da_scalar &d = e->in[1].scalar;
            if (a.in[1] == nullptr && Shape::cls == DA_CLASS_SINT && d.s > 0) {
                a.by = divisor_multiplier_of<W>((W)d.s);
            }
            else if (a.in[1] == nullptr && Shape::cls == DA_CLASS_UINT && d.u > 0 &&
                     (uint64_t)(W)d.u == d.u) {
                a.by = divisor_multiplier_of<W>((W)d.u);
            }
        }
        a.split = split_aligned(arrays, itemsizes, narrays, n, Shape::per_vector);
        err = grid_blocks(a.split.nvec > a.split.nrest ? a.split.nvec : a.split.nrest,
                          &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        contiguous_kernel<Op, Typenum>
            <<<dim3(blocks, a.rows < kMaxGridRows ? a.rows : kMaxGridRows), kBlockThreads, 0,
               stream>>>(a);
        err = cudaGetLastError();
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

/* run<typenum>() for the operands' dtype, one of the class Cls with a
   vectorised kernel. */
template <int Op, int Cls>
struct contiguous_typed {
    const da_elementwise *e;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        if constexpr (dtype_traits<Typenum>::cls == Cls && has_vector_kernel(Op, Typenum)) {
            return launch_contiguous<Op, Typenum>(e, stream);
        }
        else {
            return cudaErrorInvalidValue;
        }
    }
};

/* Whether the two-dimensional problem e is rows a contiguous kernel can
   take (for an (op, dtype) of has_rows_kernel): a binary op whose output
   and array operands are contiguous along their
   rows, or broadcast along them (stride 0: a column `c[:, None]`), each
   row of at least kMinRow elements and below 2^30, fewer than 2^32 rows,
   and every row starting where row 0 does modulo kLineBytes, so that one
   head / body / tail split serves them all. */
constexpr int64_t kMinRow = 64;

static inline bool
is_rows_problem(int op, const da_elementwise *e)
{
    int k;

    if (da_op_nin(op) != 2 || e->ndim != 2 || e->shape[1] < kMinRow ||
        e->shape[1] > kChunkElements || e->shape[0] > (int64_t)UINT32_MAX ||
        e->out.strides[1] != da_itemsize(e->out.typenum) || e->out.strides[0] % kLineBytes != 0) {
        return false;
    }
    for (k = 0; k < e->nin; k++) {
        const da_operand *in = &e->in[k];
        if (in->data != nullptr && in->strides[1] != 0 &&
            (in->strides[1] != da_itemsize(in->typenum) || in->strides[0] % kLineBytes != 0)) {
            return false;
        }
    }
    return true;
}

/* The dtype of the array operands when the problem fits a contiguous
   kernel of (op, cls): one dimension (or none) with every array operand
   contiguous, or rows (is_rows_problem); the arrays of one dtype of class
   cls with a vectorised kernel, the output of the loop's result dtype for
   it; else -1. */
static inline int
contiguous_operand_typenum(int op, int cls, int result, const da_elementwise *e)
{
    int typenum = -1, k;

    if (e->ndim > 1 && !is_rows_problem(op, e)) {
        return -1;
    }
    for (k = 0; k < e->nin; k++) {
        const da_operand *in = &e->in[k];
        if (in->data == nullptr) {
            continue;
        }
        if ((typenum >= 0 && in->typenum != typenum) ||
            (e->ndim == 1 && in->strides[0] != da_itemsize(in->typenum))) {
            return -1;
        }
        typenum = in->typenum;
    }
    if (typenum < 0 || (int)da_class_of(typenum) != cls || !has_vector_kernel(op, typenum) ||
        (e->ndim > 1 && !has_rows_kernel(op, typenum)) ||
        e->out.typenum != result_typenum(result, typenum) ||
        (e->ndim == 1 && e->out.strides[0] != da_itemsize(e->out.typenum))) {
        return -1;
    }
    return typenum;
}

/* ---- strided route --------------------------------------------------- */

/* Byte offsets of element i in the output (off[0]) and each input: one
   multiplication per operand for ndim <= 1 (ndim 0 has the single element
   i == 0), else a division per dimension.  64-bit division takes nvcc's
   32-bit path at run time when the operands fit, and the loop over
   dimensions is not unrolled: each unrolled copy was ~1 KB of machine code
   in every strided kernel. */
template <int Nin>
static __device__ __forceinline__ void
operand_offsets(const da_elementwise &e, uint64_t i, int64_t off[1 + Nin])
{
    const da_operand *ops[3] = {&e.out, &e.in[0], &e.in[1]};
    uint64_t rest = i;
    int d, k;

#pragma unroll
    for (k = 0; k <= Nin; k++) {
        off[k] = 0;
    }
#pragma unroll 1
    for (d = e.ndim - 1; d > 0; d--) {
        const uint64_t extent = (uint64_t)e.shape[d];
        const uint64_t q = rest / extent;
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

/* The strided kernels call these instead of inlining them: their switches
   over every dtype would otherwise be most of each (op, class) kernel. */
template <int Cls>
static __device__ __noinline__ typename class_traits<Cls>::type
load_element(const char *p, int typenum)
{
    return class_traits<Cls>::load(p, typenum);
}

template <typename CT>
static __device__ __noinline__ void
store_element(char *p, int typenum, CT value)
{
    store_value(p, typenum, value);
}

template <int Cls>
static __device__ __forceinline__ typename class_traits<Cls>::type
load_operand(const da_operand &operand, int64_t offset)
{
    return operand.data != nullptr ? load_element<Cls>(operand.data + offset, operand.typenum)
                                   : class_traits<Cls>::scalar(operand.scalar);
}

}  // namespace da

/* ---- contiguous casts: share load_element and store_element ----------- */

#include "cast.cuh"

namespace da {

template <int Op, int Cls>
static __global__ void __launch_bounds__(kBlockThreads)
strided_kernel(const __grid_constant__ da_elementwise e)
{
    typedef typename class_traits<Cls>::type CT;
    typedef op_fn<Op, Cls> F;
    constexpr int kNin = da_op_nin(Op);
    const uint64_t n = (uint64_t)e.size;
    const uint64_t step = (uint64_t)gridDim.x * kBlockThreads;
    uint64_t i;

    if constexpr (Op == DA_OP_COPY) {
        if (is_contiguous_cast(&e)) {
            cast_tiles<Cls>(e);
            return;
        }
    }
    for (i = (uint64_t)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t off[1 + kNin];
        operand_offsets<kNin>(e, i, off);
        const CT a = load_operand<Cls>(e.in[0], off[1]);
        if constexpr (kNin == 2) {
            const CT b = load_operand<Cls>(e.in[1], off[2]);
            store_element(e.out.data + off[0], e.out.typenum, F::apply(a, b));
        }
        else {
            store_element(e.out.data + off[0], e.out.typenum, F::apply(a, a));
        }
    }
}

}  // namespace da

/* ---- transposing route: shares load_element and store_element -------- */

#include "transpose.cuh"

namespace da {

/* ---- one (op, class) ------------------------------------------------- */

/* The contiguous kernel when the problem fits one, else the tiled one when
   it transposes, else the strided one (whose COPY kernel stages contiguous
   casts through shared memory, a block per tile). */
template <int Op, int Cls>
static cudaError_t
launch_op(const da_elementwise *e, cudaStream_t stream)
{
    const int typenum = contiguous_operand_typenum(Op, Cls, op_fn<Op, Cls>::result, e);
    unsigned int blocks;
    bool tiled;
    cudaError_t err;

    if (typenum >= 0) {
        contiguous_typed<Op, Cls> typed = {e, stream};
        return dispatch_dtype(typenum, typed);
    }
    if (Op == DA_OP_COPY && is_contiguous_cast(e)) {
        /* the strided kernel's cast route: a block per tile */
        err = grid_blocks((e->size * da_itemsize(e->in[0].typenum) + kCastTileBytes - 1) /
                              kCastTileBytes * kBlockThreads,
                          &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        strided_kernel<Op, Cls><<<blocks, kBlockThreads, 0, stream>>>(*e);
        return cudaGetLastError();
    }
    err = launch_tiled<Op, Cls>(e, stream, &tiled);
    if (err != cudaSuccess || tiled) {
        return err;
    }
    err = grid_blocks(e->size, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    strided_kernel<Op, Cls><<<blocks, kBlockThreads, 0, stream>>>(*e);
    return cudaGetLastError();
}

template <int... Classes>
struct group_launcher {
    const da_elementwise *e;
    cudaStream_t stream;

    template <int Op, int Cls>
    cudaError_t
    run() const
    {
        if constexpr (((Cls == Classes) || ...)) {
            return launch_op<Op, Cls>(e, stream);
        }
        else {
            return cudaErrorInvalidValue;
        }
    }
};

/* The body of elementwise_<group>: the kernels of the (op, class) pairs
   whose class is one of Classes. */
template <int... Classes>
static cudaError_t
run_classes(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    group_launcher<Classes...> launcher = {e, stream};
    return dispatch_op_class(op, cls, launcher);
}

}  // namespace da

#endif /* DEVARRAY_KERNELS_ELEMENTWISE_CUH_ */
