/*
 * Elementwise machinery shared by the number slots, casts and copies:
 * broadcasting, merging of contiguous dimensions, and the launch through
 * the array's backend.
 */
#ifndef DEVARRAY_SRC_ELEMENTWISE_H_
#define DEVARRAY_SRC_ELEMENTWISE_H_

#include "common.h"
#include "array.h"

/* The broadcast shape of `a` and `b` (NumPy's rules) into out_shape (room for
   DA_MAXDIMS); returns its ndim, or -1 with a ValueError naming both
   shapes. */
int elementwise_broadcast(const DeviceArrayObject *a, const DeviceArrayObject *b,
                          int64_t *out_shape);

/* Drop extent-1 dimensions of shape[ndim] and merge neighbours contiguous
   in every one of the nops operands (strides[k][...] in bytes, updated in
   place), so a contiguous problem becomes one dimension; returns the new
   ndim, 0 when the problem is a single element. */
int elementwise_collapse(int ndim, int64_t *shape, int nops, int64_t *const *strides);

/* out[...] = op(in0[, in1]) in compute class cls, each input either an array
   broadcast to out's shape or, where ins[i] is NULL, the scalar scalars[i]
   (already in class cls).  All arrays on out's backend; out must not
   partially overlap an input (the caller copies first).  0 or -1. */
int elementwise_run(int op, int cls, DeviceArrayObject *out, int nin,
                    DeviceArrayObject *const *ins, const da_scalar *scalars);

/* dst[...] = src cast to dst's dtype (src broadcast to dst's shape). */
int elementwise_copy(DeviceArrayObject *dst, DeviceArrayObject *src);

/* The class a cast from `from` to `to` computes in: wide enough that the
   value is rounded at most once (float64 -> float16 goes through f64). */
int elementwise_cast_class(int from, int to);

#endif /* DEVARRAY_SRC_ELEMENTWISE_H_ */
