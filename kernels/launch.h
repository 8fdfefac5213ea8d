/*
 * The contract between devarray's C core and its compute backends.
 *
 * Two implementations with identical semantics:
 *   - kernels/<name>.cu  da_cuda_*  (extern "C" launchers around CUDA kernels)
 *   - src/host_kernels.c da_host_* (plain C loops, the host backend and the
 *                                   reference for every kernel)
 *   - src/host_creation.c           the host twin of kernels/creation.cu
 *   - src/host_scan.c               the host twin of kernels/scan.cu and
 *                                   kernels/search.cu
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
 * input.
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
 * Sum `nsegments` contiguous segments of `seglen` elements each, from `in`
 * (dtype in_typenum) into `out`: nsegments contiguous values of dtype
 * acc_typenum, the accumulator.  Supported (in, acc) pairs:
 *   acc int64:      bool, int8, int16, int32, int64
 *   acc uint64:     uint8, uint16, uint32, uint64
 *   acc float32:    float16, float32
 *   acc float64:    float64
 *   acc complex64:  complex64
 *   acc complex128: complex128
 * da_sum_supported() says whether a pair is one of these.  nsegments >= 1 and
 * seglen >= 1.  Float sums are tree/pairwise (error ~ log2(n) eps, not n eps).
 */
static inline int
da_sum_supported(int in_typenum, int acc_typenum)
{
    switch (acc_typenum) {
        case DA_INT64:
            return in_typenum == DA_BOOL || in_typenum == DA_INT8 ||
                   in_typenum == DA_INT16 || in_typenum == DA_INT32 ||
                   in_typenum == DA_INT64;
        case DA_UINT64:
            return in_typenum == DA_UINT8 || in_typenum == DA_UINT16 ||
                   in_typenum == DA_UINT32 || in_typenum == DA_UINT64;
        case DA_FLOAT32:
            return in_typenum == DA_FLOAT16 || in_typenum == DA_FLOAT32;
        case DA_FLOAT64:
        case DA_COMPLEX64:
        case DA_COMPLEX128:
            return in_typenum == acc_typenum;
        default:
            return 0;
    }
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
 * n >= 0, nvalues >= 1.
 */
typedef struct {
    const void *sorted;
    const int64_t *sorter;
    const void *values;
    int64_t *out;
    int *bad;
    int64_t n, nvalues;
    int typenum;
    int right;
} da_searchsorted;

int da_host_elementwise(int op, int cls, const da_elementwise *e);
int da_host_sum(const void *in, int in_typenum, void *out, int acc_typenum,
                int64_t nsegments, int64_t seglen);
int da_host_range(const da_range *r);
int da_host_linspace(const da_linspace *l);
int da_host_tri(const da_tri *t);
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

#ifdef DEVARRAY_HAVE_CUDA
cudaError_t da_cuda_elementwise(int op, int cls, const da_elementwise *e,
                                cudaStream_t stream);

/* Two-phase, like CUB: with temp == NULL only *temp_bytes is set (no work is
   done); then call again with at least that many bytes of device memory. */
cudaError_t da_cuda_sum(void *temp, size_t *temp_bytes, const void *in,
                        int in_typenum, void *out, int acc_typenum,
                        int64_t nsegments, int64_t seglen, cudaStream_t stream);

cudaError_t da_cuda_range(const da_range *r, cudaStream_t stream);
cudaError_t da_cuda_linspace(const da_linspace *l, cudaStream_t stream);
cudaError_t da_cuda_tri(const da_tri *t, cudaStream_t stream);
cudaError_t da_cuda_where(const da_where *w, cudaStream_t stream);
/* scan (two-phase, as da_cuda_sum): float results may differ from the
   host's order of operations in the last bits (a parallel scan). */
cudaError_t da_cuda_scan(void *temp, size_t *temp_bytes, int op, int typenum,
                         const void *in, void *out, int64_t nsegments,
                         int64_t seglen, cudaStream_t stream);
cudaError_t da_cuda_argreduce(void *temp, size_t *temp_bytes, int op,
                              int typenum, const void *in, int64_t *out,
                              int64_t nsegments, int64_t seglen,
                              cudaStream_t stream);
cudaError_t da_cuda_searchsorted(const da_searchsorted *s, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_LAUNCH_H_ */
