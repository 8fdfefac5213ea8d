/*
 * Reductions: sum, prod, max and min over any set of axes, accumulated as
 * NumPy does, on the array's backend (CUB and in-place column kernels on
 * CUDA, NumPy's loops on the host), and count_nonzero, any() and all() by
 * the elements' bits.  The statistics built on them (mean, var, std) are
 * in statistics.c.
 */
#ifndef DEVARRAY_SRC_REDUCE_H_
#define DEVARRAY_SRC_REDUCE_H_

#include "base/common.h"
#include "core/array.h"

/* op (DA_REDUCE_SUM, _PROD, _MAX, _MIN of kernels/launch.h) over `axis`
   (None, an int or a tuple of ints), keepdims as NumPy.  typenum -1 for
   NumPy's default result dtype (sum and prod: int64 / uint64 for bool and
   integers, else the input's; max and min ignore it: the input's).  Max
   and min over no elements raise NumPy's ValueError. */
PyObject *reduce_apply(DeviceArrayObject *a, int op, PyObject *axis, int typenum,
                       int keepdims);

/* count_nonzero (op DA_NONZERO_COUNT: int64), any() (_ANY: bool) or all()
   (_ALL: bool) of `a` over `axis`, by kernels/launch.h's da_nonzero_reduce:
   elements are tested != 0 as the cast to bool does (NaN true, -0.0
   false, complex true when either part is nonzero) in one pass over a's
   bits where a is C-contiguous and the reduced axes adjacent, else over a
   copy cast to bool.  Over no elements: 0, False, True. */
PyObject *reduce_nonzero(DeviceArrayObject *a, int op, PyObject *axis, int keepdims);
/* reduce_apply with DA_REDUCE_SUM. */
PyObject *reduce_sum(DeviceArrayObject *a, PyObject *axis, int typenum,
                     int keepdims);

/* Fill `reduced` (ndim flags) from axis as reduce_parse_axes does, and
   the result's shape and ndim: a's axes less the reduced ones, or with
   them as 1 when keepdims.  The number of elements reduced into each
   result element, or -1 with an exception. */
int64_t reduce_result_shape(const DeviceArrayObject *a, PyObject *axis, int keepdims, int *reduced,
                            int64_t *shape, int *ndim);

/* The contiguous source of a reduction of `a` over the `reduced` axes
   (ndim flags), read as dtype source_type, and its layout as da_reduce's
   (kernels/launch.h): `a` itself (a new reference) when it is
   C-contiguous of that dtype and the reduced axes of size > 1 are
   adjacent, else a contiguous copy (with the reduced axes last when they
   are not adjacent).  a->size > 0.  NULL with an exception. */
DeviceArrayObject *reduce_source(DeviceArrayObject *a, const int *reduced, int source_type,
                                 int64_t *outer, int64_t *len, int64_t *inner);

/* Fill `reduced` (ndim flags) from axis = None / int / tuple, raising
   NumPy's AxisError or ValueError (duplicates).  0 or -1. */
int reduce_parse_axes(PyObject *axis, int ndim, int *reduced);

#endif /* DEVARRAY_SRC_REDUCE_H_ */
