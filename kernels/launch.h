/*
 * The contract between devarray's C core and its compute backends.
 *
 * Two implementations with identical semantics:
 *   - kernels/<name>.cu  da_cuda_*  (extern "C" launchers around CUDA kernels)
 *   - src/host/host_kernels.c da_host_* (plain C loops, the host backend and the
 *                                   reference for every kernel)
 *   - src/host/host_creation.c           the host twin of kernels/creation.cu
 *   - src/host/host_scan.c               the host twin of kernels/scan.cu and
 *                                   kernels/search.cu
 *   - src/host/host_gather.c             the host twin of kernels/gather.cu
 *   - src/host/host_random.c             the host twin of kernels/random.cu
 *
 * The core does all checking, broadcasting and allocation before it calls in:
 * launchers get valid pointers, shapes and types and only compute.  They
 * never allocate (temporary storage is passed in), never print, never exit.
 * CUDA launchers are asynchronous on `stream` and return the launch's
 * cudaError_t (cudaGetLastError() after every launch); host launchers return
 * 0, or -1 for a request outside this contract (a bug in the caller).
 */
#ifndef DEVARRAY_KERNELS_LAUNCH_H_
#define DEVARRAY_KERNELS_LAUNCH_H_

#include <stddef.h>
#include <stdint.h>

#include "optable.h"

#ifdef DEVARRAY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's limit is 64; 32 keeps a launch's parameter block near 1 KiB. */
#define DA_MAXDIMS 32

typedef struct {
    char *data;         /* first element; NULL means a scalar operand */
    int typenum;        /* da_typenum of the elements at `data` */
    da_scalar scalar;   /* the value when data == NULL, in the op's class */
    int64_t strides[DA_MAXDIMS]; /* bytes; 0 along broadcast dimensions */
} da_operand;

/*
 * An elementwise operation over `ndim` dimensions of `shape`, with the same
 * iteration for the output and each input.  The core has already
 * broadcast the operands and merged dimensions that are contiguous in every
 * operand, so a contiguous problem arrives as ndim == 1 with strides equal
 * to each itemsize.  ndim == 0 is a single element.  size == product(shape)
 * and is > 0.
 *
 * For op and class (da_op in optable.h, da_class in dtypes.h):
 *   each element: v_i = da_load_<class>(in[i] element or in[i].scalar)
 *                 r   = da_op_<op>_<class>(v_0, v_1 or v_0)
 *                 da_store_<rclass>(out element, out.typenum, r)
 *   where rclass is the class the op's loop stores its result from
 *   (optable.h: the class itself, bool, or a complex class's real part).
 *   in[i].scalar is only read when in[i].data == NULL.
 * The supported (op, class) pairs are the loops of optable.h,
 * DA_FOR_EACH_KERNEL; a request outside them is refused.
 *
 * The output may be the same memory as an input with identical strides
 * (in-place ops); the core removes any other overlap before calling.
 */
typedef struct {
    int ndim;
    int nin;                    /* 1 or 2 */
    int64_t size;
    int64_t shape[DA_MAXDIMS];
    da_operand out;
    da_operand in[2];
} da_elementwise;

/* The bytes of one element of up to 16 bytes (a scalar operand of where). */
typedef union {
    uint8_t bytes[16];
    uint64_t words[2];
} da_where_value;

/*
 * where(): out = cond ? x1 : x2 for each element, moving the bits of one
 * element of `itemsize` bytes (1, 2, 4, 8 or 16) as they are (NaN payloads
 * and signed zeros kept).  x1, x2 and out share one dtype; cond holds bool
 * bytes (0 or 1).  The core has broadcast the operands and merged
 * dimensions contiguous in all of them, as for da_elementwise: strides are
 * in bytes, 0 along broadcast dimensions, in the order out, cond, x1, x2.
 * x[k] == NULL means operand k is the element value[k] (strides unread).
 * ndim >= 1 and size == product(shape) > 0.  out does not overlap any
 * input, except that it may be x2 (or cond) itself with the same strides:
 * each element is read before it is written, by the same thread
 * (x[mask] = value in place, select_masked_fill).
 */
typedef struct {
    int ndim;
    int itemsize;
    int64_t size;
    int64_t shape[DA_MAXDIMS];
    char *out;
    const char *cond;
    const char *x[2];
    da_where_value value[2];
    int64_t strides[4][DA_MAXDIMS];
} da_where;

/*
 * clip() in one pass: out = min(max(x, lo), hi) elementwise through the
 * op table's MAXIMUM and MINIMUM of the class (NaN propagating), over n
 * contiguous elements of dtype typenum (int32, int64, float32 or float64:
 * da_clip_has_kernel).  Bound k is skipped when present[k] is 0, else is
 * the contiguous array bound[k] of n elements of the same dtype, or the
 * class value scalar[k] when bound[k] is NULL.  out may not overlap the
 * inputs.
 */
typedef struct {
    int typenum;
    int64_t n;
    char *out;
    const char *x;
    const char *bound[2];
    da_scalar scalar[2];
    int present[2];
} da_clip;

static inline int
da_clip_has_kernel(int typenum)
{
    return typenum == DA_INT32 || typenum == DA_INT64 || typenum == DA_FLOAT32 ||
           typenum == DA_FLOAT64;
}

/*
 * A reduction (area: reduce).  The input is `outer` x `len` x `inner`
 * contiguous elements of dtype in_typenum: element (o, r, i) is at index
 * (o * len + r) * inner + i.  The op combines the `len` elements of each
 * (o, i) into out[o * inner + i], outer * inner contiguous values of dtype
 * acc_typenum, the accumulator (its storage is the compute class's C type).
 * inner == 1 is "outer segments of len contiguous elements"; inner > 1 is
 * a reduction over leading or middle axes of a C-contiguous array, read in
 * place.  Supported (op, in, acc) triples, da_reduce_supported():
 *   SUM, PROD: acc int64 for bool and signed ints, uint64 for unsigned
 *              ints, float32 for float16/float32, else acc == in;
 *   MAX, MIN:  int64, uint64, float32 for float16/float32, else acc ==
 *              in; NaN propagates.  Not bool: its max and min are any()
 *              and all(), da_nonzero_reduce (fused reductions keep
 *              da_reduce_accumulator's bool or / and).
 * outer, len, inner >= 1.  A float sum or product of one segment
 * (outer == inner == 1, da_reduce_in_order) combines in an order fixed by
 * len alone (kernels/reduce_ordered.cuh: runs of at most ceil(len / 2^18)
 * elements in sequence, then trees), which fused reductions share; other
 * float sums are a tree when inner == 1 and in order along len otherwise,
 * as NumPy's loops are; the host twin follows NumPy's order.  float16 input
 * accumulates in float32 on both backends and is rounded once by the
 * caller's cast (NumPy's half loops may round every step along a leading
 * axis, depending on its version).
 */
enum { DA_REDUCE_SUM = 0, DA_REDUCE_PROD, DA_REDUCE_MAX, DA_REDUCE_MIN, DA_NREDUCE };

typedef struct {
    const void *in;
    void *out;
    int in_typenum;
    int acc_typenum;
    int op;                     /* DA_REDUCE_* */
    int64_t outer, len, inner;
} da_reduce;

/* The accumulator dtype of an input dtype for op (see da_reduce). */
static inline int
da_reduce_accumulator(int op, int in_typenum)
{
    switch (in_typenum) {
        case DA_BOOL:
            return op == DA_REDUCE_MAX || op == DA_REDUCE_MIN ? DA_BOOL : DA_INT64;
        case DA_INT8:
        case DA_INT16:
        case DA_INT32:
        case DA_INT64:
            return DA_INT64;
        case DA_UINT8:
        case DA_UINT16:
        case DA_UINT32:
        case DA_UINT64:
            return DA_UINT64;
        case DA_FLOAT16:
            return DA_FLOAT32;
        default:
            return in_typenum;
    }
}

static inline int
da_reduce_supported(int op, int in_typenum, int acc_typenum)
{
    return op >= 0 && op < DA_NREDUCE && in_typenum >= 0 && in_typenum < DA_NTYPES &&
           da_reduce_accumulator(op, in_typenum) == acc_typenum && acc_typenum != DA_BOOL;
}

/* Whether da_cuda_reduce of one segment of in_typenum by op combines in
   the fixed order that da_cuda_fuse_reduce shares: float sums and
   products. */
static inline int
da_reduce_in_order(int op, int in_typenum)
{
    return (op == DA_REDUCE_SUM || op == DA_REDUCE_PROD) &&
           (da_class_of(in_typenum) == DA_CLASS_F32 || da_class_of(in_typenum) == DA_CLASS_F64);
}

/*
 * Moments (area: statistics; kernels/moments.cu, CUDA only: the host
 * backend composes var of reductions and elementwise ops in NumPy's
 * order).  The input is laid out as da_reduce's: `outer` x `len` x
 * `inner` contiguous elements of dtype in_typenum, a real dtype (bool,
 * integers, floats).  For each (o, i), its len elements' variance: their
 * sum of squared deviations from their mean over max(len - correction,
 * 0) (a divisor of 0 gives inf, or NaN for a zero sum, as NumPy), stored
 * at out[o * inner + i], outer * inner contiguous values of acc_typenum ==
 * da_moments_accumulator(in_typenum) (float32 for float16 and float32,
 * else float64; the caller rounds a float16 result and takes square roots
 * for std).  One read of the input: counts, means and sums of squared
 * deviations merged by Chan et al.'s formula, in an order that depends on
 * the shape and the device's SM count, never on timing; the result agrees
 * with NumPy's two passes within rounding.  NaN or inf among the elements
 * gives NaN.  outer, len, inner >= 1.
 */
typedef struct {
    const void *in;
    void *out;
    int in_typenum;
    int acc_typenum;
    double correction;
    int64_t outer, len, inner;
} da_moments;

/* The accumulator dtype of da_moments for input in_typenum, -1 when there
   is none (complex input). */
static inline int
da_moments_accumulator(int in_typenum)
{
    if (in_typenum < 0 || in_typenum >= DA_COMPLEX64) {
        return -1;
    }
    return in_typenum == DA_FLOAT16 || in_typenum == DA_FLOAT32 ? DA_FLOAT32 : DA_FLOAT64;
}

/*
 * Nonzero reductions (area: reduce; kernels/nonzero_reduce.cu):
 * count_nonzero, any() and all() by the elements' bits.  The input is laid
 * out as da_reduce's, `width` bytes an element (1, 2, 4 or 8, aligned to
 * it).  An element is nonzero when its bits and `mask` are not all zero
 * (the caller's mask leaves out the sign bits of floats and of complex64's
 * parts).  out[o * inner + i] is the int64 count of nonzero elements
 * (DA_NONZERO_COUNT), or the bool "any is" (_ANY) or "all are" (_ALL).
 * outer, len, inner >= 1.
 */
enum { DA_NONZERO_COUNT = 0, DA_NONZERO_ANY, DA_NONZERO_ALL };

typedef struct {
    const void *in;
    void *out;
    int width;
    int op;             /* DA_NONZERO_* */
    uint64_t mask;
    int64_t outer, len, inner;
} da_nonzero_reduce;

/* The sums of the issue-9 contract: da_reduce with op SUM. */
static inline int
da_sum_supported(int in_typenum, int acc_typenum)
{
    return da_reduce_supported(DA_REDUCE_SUM, in_typenum, acc_typenum);
}

/*
 * An arithmetic progression (arange) of n >= 1 elements of dtype typenum,
 * with NumPy's fill: element 0 is `first`, element 1 `second` (both the
 * stored values, as class values of typenum's class), element i >= 2 is
 * first + i * delta computed in that class (integers wrap, floats round
 * after each operation, complex works per component), then stored.  The
 * bool class has only first and second (n <= 2).  creation.h computes it.
 */
typedef struct {
    void *out;          /* n contiguous elements */
    int64_t n;
    int typenum;
    da_scalar first, second, delta;
} da_range;

/* How a linspace element before `stop` is computed (NumPy's three cases). */
enum { DA_LINSPACE_STEP, DA_LINSPACE_DIV, DA_LINSPACE_DELTA };

/*
 * NumPy's linspace in float64 (cplx == 0; only the .re parts are read) or
 * complex128 (cplx == 1), n >= 1 contiguous elements of dtype typenum:
 *   STEP:  y_i = i * step + start
 *   DIV:   y_i = (i / div) * delta + start   (step underflowed to zero)
 *   DELTA: y_i = i * delta + start           (no step: num == 1, endpoint)
 * with the last element replaced by stop when endpoint_last, floored when
 * floor_it (integer dtypes), then stored.  creation.h computes it.
 */
typedef struct {
    void *out;
    int64_t n;
    int typenum;
    int cplx;
    int mode;           /* DA_LINSPACE_* */
    int endpoint_last;
    int floor_it;
    int64_t div;
    da_c128 start, stop, step, delta;
} da_linspace;

/*
 * tril/triu: out = in (both C-contiguous, n > 0 elements of `itemsize`
 * bytes: 1, 2, 4, 8 or 16) with every element of the stacked rows x cols
 * matrices zeroed (all bits) outside the band: kept where j - i <= k
 * (upper == 0, tril) or j - i >= k (upper == 1, triu).  in != out.
 */
typedef struct {
    const void *in;
    void *out;
    int64_t n, rows, cols, k;
    int itemsize;
    int upper;
} da_tri;

/* ---- random numbers (kernels/random.cu, src/host/host_random.c) --------- */

/* What a da_random draw makes of the Philox words (kernels/random.h). */
enum {
    DA_RANDOM_BITS32 = 0,   /* 1 word each: the word (int32, uint32) */
    DA_RANDOM_BITS64,       /* 2 words each: lo | hi << 32 (int64, uint64) */
    DA_RANDOM_UNIFORM_F32,  /* 1 word each: loc + scale * [0, 1) (float32) */
    DA_RANDOM_UNIFORM_F64,  /* 2 words each: loc + scale * [0, 1) (float64) */
    DA_RANDOM_INT_R32,      /* 2 words each: low + [0, range), range <= 2^32 */
    DA_RANDOM_INT_R64,      /* 4 words each: low + [0, range), range <= 2^64 */
    DA_RANDOM_NORMAL_F32,   /* 1 word each: loc + scale * N(0, 1) (float32) */
    DA_RANDOM_NORMAL_F64,   /* 2 words each: loc + scale * N(0, 1) (float64) */
    DA_NRANDOM
};

/*
 * A draw of n >= 1 C-contiguous elements of dtype typenum from the
 * Philox4x32-10 stream of `key`, starting at the 128-bit counter `counter`
 * (word 0 least significant): element i takes words [k i, k i + k) of the
 * stream, k = da_random_words(kind) (1, 2 or 4, so an element never
 * straddles two counters), where word w is word w % 4 of the block of
 * counter + w / 4.  So element i depends on key, counter and i only, never
 * on the launch layout, and the draw uses da_random_blocks(kind, n)
 * counters.  kernels/random.h computes each block's elements.
 *   INT_*:   low + a bounded integer of [0, range) (range 0 means 2^64 for
 *            INT_R64; INT_R32 needs 1 <= range <= 2^32), mod 2^64, stored
 *            truncated to the integer dtype (or bool: 0 or 1);
 *   float:   loc + scale * x, in the kind's precision (loc and scale
 *            rounded to float32 for the float32 kinds, each operation
 *            rounded: no contraction into a fused multiply-add).
 * da_random_supported() says which (kind, typenum) pairs exist.
 */
typedef struct {
    void *out;
    int64_t n;
    int kind;
    int typenum;
    uint32_t key[2];
    uint32_t counter[4];
    uint64_t low, range;
    double loc, scale;
} da_random;

static inline int
da_random_words(int kind)
{
    static const int words[DA_NRANDOM] = {1, 2, 1, 2, 2, 4, 1, 2};
    return kind >= 0 && kind < DA_NRANDOM ? words[kind] : 0;
}

/* The counters (Philox blocks) a draw of n elements uses. */
static inline int64_t
da_random_blocks(int kind, int64_t n)
{
    int per = 4 / da_random_words(kind);
    return n / per + (n % per != 0);
}

static inline int
da_random_supported(int kind, int typenum)
{
    switch (kind) {
        case DA_RANDOM_BITS32:
            return typenum == DA_INT32 || typenum == DA_UINT32;
        case DA_RANDOM_BITS64:
            return typenum == DA_INT64 || typenum == DA_UINT64;
        case DA_RANDOM_UNIFORM_F32:
        case DA_RANDOM_NORMAL_F32:
            return typenum == DA_FLOAT32;
        case DA_RANDOM_UNIFORM_F64:
        case DA_RANDOM_NORMAL_F64:
            return typenum == DA_FLOAT64;
        case DA_RANDOM_INT_R32:
        case DA_RANDOM_INT_R64:
            return typenum >= DA_BOOL && typenum <= DA_UINT64;
        default:
            return 0;
    }
}

/* ---- scan: cumulative_sum, cumulative_prod, argmax, argmin, searchsorted -- */

enum { DA_SCAN_SUM, DA_SCAN_PROD };

/* The dtypes the scans run in: the core widens bool and narrow integers
   to int64/uint64 first (one instantiation per dtype fewer on CUDA). */
static inline int
da_scan_supported(int typenum)
{
    return typenum == DA_INT64 || typenum == DA_UINT64 || typenum == DA_FLOAT16 ||
           typenum == DA_FLOAT32 || typenum == DA_FLOAT64 || typenum == DA_COMPLEX64 ||
           typenum == DA_COMPLEX128;
}
enum { DA_ARG_MAX, DA_ARG_MIN };

/* The dtypes with da_cuda_argreduce_columns: argmax/argmin over the
   middle axis of `outer` x `len` x `inner` contiguous elements, read in
   place (element (o, r, i) at (o * len + r) * inner + i; out[o * inner +
   i] the index r of the first extreme, as da_cuda_argreduce).  Only the
   measured dtypes, for the wheel's size; the others (and the host) take
   the axis last first. */
static inline int
da_argreduce_has_columns(int typenum)
{
    return typenum == DA_FLOAT32 || typenum == DA_FLOAT64;
}

/*
 * searchsorted: for each of nvalues contiguous `values`, the index where it
 * would be inserted into the n contiguous elements of `sorted` to keep
 * them in order (the order of sort: NaN last; complex lexicographic with
 * NumPy's NaN placement): the first i with !(sorted[i] < v) (right == 0),
 * or the first with v < sorted[i] (right == 1).  With `sorter` (n
 * contiguous int64), element i of the sorted sequence is
 * sorted[sorter[i]]; a sorter value read that is outside [0, n) makes the
 * launcher set *bad to 1 (device memory on CUDA) and the result is
 * unspecified.  values and sorted share dtype typenum; out is int64.
 * n >= 0 (sorted may be NULL when n == 0), nvalues >= 1.
 * isin's mode (found != NULL; then out, sorter and right unused, NULL and
 * 0): found[k] (a bool) is whether the element at the left index equals
 * values[k] (order_eq: NaN never, -0.0 == +0.0), flipped when invert is 1;
 * the left index of a value finds one of its equals when there is one.
 */
typedef struct {
    const void *sorted;
    const int64_t *sorter;
    const void *values;
    int64_t *out;
    uint8_t *found;
    int invert;
    int *bad;
    int64_t n, nvalues;
    int typenum;
    int right;
} da_searchsorted;


/* ---- linalg ---- */

/*
 * matmul: out[b] = a[b] @ b[b] for `batch` stacked products of an m x k
 * matrix by a k x n matrix, all of dtype typenum.  Strides are in elements:
 * a's element (i, p) of matrix t is a[t * a_batch + i * a_row + p * a_col],
 * b's (p, j) is b[t * b_batch + p * b_row + j * b_col]; a batch stride of 0
 * repeats one matrix (broadcasting).  The core gives every matrix a unit
 * stride along one of its two axes and a leading stride of at least the
 * other extent (the layouts BLAS takes), copying other layouts first.  out
 * is C-contiguous (batch, m, n) and overlaps neither input.  batch, m, n,
 * k >= 1.  Arithmetic: integers wrap (accumulated in 64 bits, then
 * truncated, which is the same modulo the width), bool is or-of-ands,
 * float16 accumulates in float32 and rounds once when stored (NumPy's half
 * loop), the other floats accumulate in their own type.
 */
typedef struct {
    int typenum;
    int64_t batch, m, n, k;
    const void *a, *b;
    void *out;
    int64_t a_batch, a_row, a_col;
    int64_t b_batch, b_row, b_col;
} da_matmul;


/* ---- sort and sets (sort.c, sets.c) ------------------------------------- */

/*
 * Sort `nsegments` contiguous segments of `seglen` elements each of `in`
 * (dtype typenum), stably, ascending or descending.  The order is NumPy's:
 * NaN compares greater than every number (so it comes last ascending and
 * first descending), -0.0 equals +0.0; complex is lexicographic (real part,
 * then imaginary), each part so ordered.  Outputs, each NULL when not
 * wanted, at least one given, laid out as `in`:
 *   values   the sorted elements;
 *   indices  each sorted element's position within its segment (argsort).
 * Complex dtypes need nsegments == 1.  nsegments >= 1, seglen >= 1; `in`
 * does not overlap the outputs.  Where the CUDA path sorts float32 or
 * float64 values in place of their bits, every NaN comes out as the
 * canonical quiet NaN; elsewhere elements are moved bit for bit.
 */
typedef struct {
    const void *in;
    void *values;
    int64_t *indices;
    int typenum;
    int descending;
    int64_t nsegments, seglen;
} da_sort;

/*
 * unique_*: from n >= 1 ascending `sorted` elements of typenum (da_sort's
 * values) and `perm`, their positions in the flat input (da_sort's indices;
 * NULL when neither indices nor inverse is wanted), in chunks of `chunk`
 * elements (1 on the host, da_cuda_unique_chunk() on CUDA):
 *   groups step:  groups[c] = the number of distinct values in the chunks
 *                 0..c of sorted (value equality: NaN never equal, -0.0 ==
 *                 +0.0), so its last entry, groups[ceil(n / chunk) - 1],
 *                 is the number m of unique values;
 *   scatter step: for each unique value g in [0, m) (each output NULL when
 *                 not wanted): values[g] its first sorted element,
 *                 indices[g] = its first position in the input, ends[g]
 *                 the end of its run in `sorted`, counts[g] its number of
 *                 occurrences (needs ends); inverse[perm[i]] = the value of
 *                 sorted[i].
 */
typedef struct {
    const void *sorted;
    const int64_t *perm;
    int64_t *groups;
    int64_t n;
    int64_t chunk;
    int64_t m;          /* groups' last entry, set by the caller for the scatter */
    int typenum;
    void *values;
    int64_t *indices;
    int64_t *inverse;
    int64_t *ends;
    int64_t *counts;
} da_unique;


int da_host_elementwise(int op, int cls, const da_elementwise *e);
int da_host_range(const da_range *r);
int da_host_linspace(const da_linspace *l);
int da_host_tri(const da_tri *t);
int da_host_random(const da_random *r);
int da_host_where(const da_where *w);
/* scan: cumulative_sum/prod of nsegments contiguous segments of seglen
   elements of dtype typenum (da_scan_supported), in order, each running value stored (rounded
   to the dtype) before the next element is combined, as NumPy's
   accumulate; in may equal out.  argreduce: the index in each segment of
   its first maximum (DA_ARG_MAX) or minimum, the first NaN winning (for
   complex: a NaN in either part; order lexicographic).  nsegments >= 1,
   seglen >= 1. */
int da_host_scan(int op, int typenum, const void *in, void *out,
                 int64_t nsegments, int64_t seglen);
int da_host_argreduce(int op, int typenum, const void *in, int64_t *out,
                      int64_t nsegments, int64_t seglen);
int da_host_searchsorted(const da_searchsorted *s);

/* ---- indexing by arrays (index: kernels/gather.cu, src/host/host_gather.c) ---- */

/* What da_*_gather does with the elements it addresses. */
enum { DA_GATHER_READ, DA_GATHER_WRITE, DA_GATHER_CHECK };

/*
 * Advanced indexing over a "dense" C-contiguous array of `ndim`, `shape`
 * (size == product(shape) elements of `itemsize` bytes: 1, 2, 4, 8 or 16)
 * and a strided "source" array addressed through index arrays.  Dense
 * element i, with coordinates c[0..ndim), is the source element at byte
 * offset
 *     sum_d c[d] * src_strides[d] + sum_k wrap_k(idx[k][b]) * axis_stride[k]
 * where b is the linear index of (c[bfirst], ..., c[bfirst + bndim - 1])
 * over bshape (so b = (i / post) % bsize, post the product of the extents
 * after the block), each idx[k] holds bsize contiguous int64 values, and
 * wrap_k(v) = v + extent[k] for v < 0.  A value outside [-extent[k],
 * extent[k]) stores k + 1 in *bad (plain stores; any such k) and its
 * element is not read or written.  Bit k of unsigned_mask says idx[k]
 * holds uint64 values stored as int64: one read as negative is >= 2^63,
 * out of bounds, never wrapped.
 *   READ:  dense[i] = source element (a gather; dense is the output)
 *   WRITE: source element = dense[i] (a scatter; where several i address
 *          one element, the host keeps the last, CUDA any one of them);
 *          nothing at all when *bad is already nonzero at the start, so a
 *          CHECK queued before it makes the scatter all or nothing without
 *          a read-back between the two
 *   CHECK: only the bounds: every idx[k][b] for b < bsize is checked and
 *          nothing else is touched (dense and src unread).
 * nidx >= 1; size >= 1 for READ and WRITE; bsize >= 1 for CHECK.  The
 * source and dense arrays do not overlap.
 */
typedef struct {
    int ndim;
    int itemsize;
    int bfirst, bndim;
    int nidx;
    uint32_t unsigned_mask;
    int64_t size;
    int64_t bsize;
    int64_t post;
    int64_t shape[DA_MAXDIMS];
    int64_t src_strides[DA_MAXDIMS];
    const int64_t *idx[DA_MAXDIMS];
    int64_t extent[DA_MAXDIMS];
    int64_t axis_stride[DA_MAXDIMS];
    char *src;
    char *dense;
    int32_t *bad;
} da_gather;

/* The coordinates of the nonzero (true) elements of a C-contiguous bool
   array of n >= 1 elements, `ndim` >= 1 dimensions of `shape`: count (the
   number of true elements, >= 1) int64 values into each out[d], in C
   order. */
typedef struct {
    const uint8_t *flags;
    int64_t n;
    int64_t count;
    int ndim;
    int64_t shape[DA_MAXDIMS];
    int64_t *out[DA_MAXDIMS];
} da_nonzero;

int da_host_gather(int mode, const da_gather *g);
/* *count = the number of nonzero bytes among flags[0..n), n >= 1. */
int da_host_count_true(const uint8_t *flags, int64_t n, int64_t *count);
/* out = the elements of in (n >= 1 contiguous elements of itemsize 1, 2,
   4, 8 or 16 bytes) whose flag byte is nonzero, in order. */
int da_host_select_flagged(const void *in, int itemsize, const uint8_t *flags,
                           int64_t n, void *out);
int da_host_nonzero(const da_nonzero *z);

/* linalg */
int da_host_matmul(const da_matmul *g);
/* sort and sets: `temp` holds 2 * seglen int64 (the merge sort's indices) */
int da_host_sort(const da_sort *s, int64_t *temp);
int da_host_unique_groups(const da_unique *u);
int da_host_unique_scatter(const da_unique *u);

/* reduce: src/host/host_reduce.c */
int da_host_reduce(const da_reduce *r);
/* nonzero reductions: src/host/host_reduce.c */
int da_host_nonzero_reduce(const da_nonzero_reduce *r);

#ifdef DEVARRAY_HAVE_CUDA
cudaError_t da_cuda_elementwise(int op, int cls, const da_elementwise *e,
                                cudaStream_t stream);

cudaError_t da_cuda_range(const da_range *r, cudaStream_t stream);
cudaError_t da_cuda_linspace(const da_linspace *l, cudaStream_t stream);
cudaError_t da_cuda_tri(const da_tri *t, cudaStream_t stream);
cudaError_t da_cuda_random(const da_random *r, cudaStream_t stream);
cudaError_t da_cuda_where(const da_where *w, cudaStream_t stream);
cudaError_t da_cuda_clip(const da_clip *c, cudaStream_t stream);
/* scan (two-phase, as da_cuda_sum): float results may differ from the
   host's order of operations in the last bits (a parallel scan). */
cudaError_t da_cuda_scan(void *temp, size_t *temp_bytes, int op, int typenum,
                         const void *in, void *out, int64_t nsegments,
                         int64_t seglen, cudaStream_t stream);
cudaError_t da_cuda_argreduce(void *temp, size_t *temp_bytes, int op,
                              int typenum, const void *in, int64_t *out,
                              int64_t nsegments, int64_t seglen,
                              cudaStream_t stream);
/* the same over the middle axis of (outer, len, inner), in place, for the
   dtypes of da_argreduce_has_columns; outer, len, inner >= 1 */
cudaError_t da_cuda_argreduce_columns(void *temp, size_t *temp_bytes, int op,
                                      int typenum, const void *in, int64_t *out,
                                      int64_t outer, int64_t len, int64_t inner,
                                      cudaStream_t stream);
cudaError_t da_cuda_searchsorted(const da_searchsorted *s, cudaStream_t stream);
/* indexing by arrays (kernels/gather.cu).  The two-phase ones take temp as
   da_cuda_sum does; *count and *selected are device memory. */
cudaError_t da_cuda_gather(int mode, const da_gather *g, cudaStream_t stream);
cudaError_t da_cuda_count_true(void *temp, size_t *temp_bytes, const uint8_t *flags,
                               int64_t n, int64_t *count, cudaStream_t stream);
cudaError_t da_cuda_select_flagged(void *temp, size_t *temp_bytes, const void *in,
                                   int itemsize, const uint8_t *flags, int64_t n,
                                   void *out, int64_t *selected, cudaStream_t stream);
cudaError_t da_cuda_nonzero(void *temp, size_t *temp_bytes, const da_nonzero *z,
                            cudaStream_t stream);
/* linalg: the dtypes cuBLAS does not multiply (bool, integers, float16) */
cudaError_t da_cuda_matmul(const da_matmul *g, cudaStream_t stream);

/* sort and sets: two-phase like da_cuda_sum (temp == NULL sizes only);
   the scatter step needs no temporary storage */
cudaError_t da_cuda_sort(void *temp, size_t *temp_bytes, const da_sort *s,
                         cudaStream_t stream);
cudaError_t da_cuda_unique_groups(void *temp, size_t *temp_bytes,
                                  const da_unique *u, cudaStream_t stream);
cudaError_t da_cuda_unique_scatter(const da_unique *u, cudaStream_t stream);
int64_t da_cuda_unique_chunk(void);

/* reduce: kernels/reduce*.cu.  Two-phase, like CUB: with temp == NULL only
   *temp_bytes is set (no work is done); then call again with at least that
   many bytes of device memory. */
cudaError_t da_cuda_reduce(void *temp, size_t *temp_bytes, const da_reduce *r,
                           cudaStream_t stream);
/* moments: kernels/moments.cu, two-phase like da_cuda_reduce. */
cudaError_t da_cuda_moments(void *temp, size_t *temp_bytes, const da_moments *m,
                            cudaStream_t stream);
/* nonzero reductions: kernels/nonzero_reduce.cu (no temporary storage) */
cudaError_t da_cuda_nonzero_reduce(const da_nonzero_reduce *r, cudaStream_t stream);
#endif

/* ---- fusion (fuse): kernels/fuse.cu, src/host/host_fuse.c -------------------- */

/*
 * A fused elementwise program (src/api/fuse.c traces it): registers hold values
 * of a compute class (dtypes.h), each normalised to the dtype it stands for
 * exactly as storing it to memory and loading it back would (so a register
 * of dtype int8 holds a truncated int64).  Per element:
 *   1. input j: register in_reg[j] = da_load_<class of in_typenum[j]> of
 *      element i of in[j] (element 0 where in_bcast[j]: a size-1 operand);
 *   2. the instructions in order, each reading its operand registers and
 *      writing `out` (which may be an operand's register):
 *        code < DA_NOPS * DA_NCLASSES: op = code / DA_NCLASSES and class
 *          code % DA_NCLASSES: out = da_op_<op>_<class>(in[0], in[1]);
 *        DA_FUSE_CONV: out = da_load_<to>(p, typenum) after
 *          da_store_<from>(p, typenum, in[0]): the value as a round trip
 *          through memory of dtype typenum (casts and normalisation);
 *        DA_FUSE_WHERE + class: out = in[0] (bool) ? in[1] : in[2];
 *   3. out[i] = da_store_<class of out_typenum> of register out_reg.
 * Constant registers const_reg[c] hold consts[c] (class values) throughout.
 * Arrays are C-contiguous with `size` elements (or one, in_bcast).
 */
#define DA_FUSE_MAXREGS 24
#define DA_FUSE_MAXINSTRS 64
#define DA_FUSE_MAXINPUTS 16
#define DA_FUSE_MAXCONSTS 16
enum { DA_FUSE_CONV = DA_NOPS * DA_NCLASSES, DA_FUSE_WHERE, DA_FUSE_NCODES = DA_FUSE_WHERE + DA_NCLASSES };

typedef struct {
    uint16_t code;
    uint8_t out;
    uint8_t in[3];
    uint8_t from, typenum, to; /* DA_FUSE_CONV's classes and dtype */
} da_fuse_instr;

typedef struct {
    int64_t size;
    int nregs, ninstrs, ninputs, nconsts;
    char *out;
    int out_typenum, out_reg;
    const char *in[DA_FUSE_MAXINPUTS];
    uint8_t in_typenum[DA_FUSE_MAXINPUTS];
    uint8_t in_reg[DA_FUSE_MAXINPUTS];
    uint8_t in_bcast[DA_FUSE_MAXINPUTS];
    uint8_t const_reg[DA_FUSE_MAXCONSTS];
    da_scalar consts[DA_FUSE_MAXCONSTS];
    da_fuse_instr instrs[DA_FUSE_MAXINSTRS];
} da_fuse;

/* *out = DA_FUSE_CONV of *in (a value of class from) through dtype typenum
   into class to, on the host (the tracer folds constants with it). */
void da_fuse_convert(const da_scalar *in, int from, int typenum, int to, da_scalar *out);
/* Run the program on host memory; 0, or nonzero when it breaks the contract. */
int da_host_fuse(const da_fuse *f);
#ifdef DEVARRAY_HAVE_CUDA
cudaError_t da_cuda_fuse(const da_fuse *f, cudaStream_t stream);
/* The full reduction op (DA_REDUCE_*) of the program's results (f->out is
   unused), each read from dtype out_typenum into the accumulator
   acc_typenum == da_reduce_accumulator(op, out_typenum) as da_cuda_reduce
   reads its input, combined by da_cuda_reduce's ops in the order of its
   one-segment float sums and products (kernels/reduce_ordered.cuh), so the
   result has the unfused bits where da_reduce_in_order(op, out_typenum)
   or where no order changes it (integer and bool accumulators); the
   accumulator value stored at out.  Two-phase like da_cuda_reduce;
   size >= 1. */
cudaError_t da_cuda_fuse_reduce(void *temp, size_t *temp_bytes, const da_fuse *f, int op,
                                int acc_typenum, void *out, cudaStream_t stream);
/* The grid of the ordered float reductions (kernels/reduce_ordered.cuh)
   over n elements, and their second step: the nblocks partial results
   (values of acc_typenum) combined into out, nothing for one block; op
   and acc_typenum as da_reduce_in_order allows. */
int64_t da_ordered_blocks(int64_t n);
cudaError_t da_cuda_reduce_finish(const void *partials, int64_t nblocks, int op,
                                  int acc_typenum, void *out, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_LAUNCH_H_ */
