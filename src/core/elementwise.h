/*
 * Elementwise machinery shared by the number slots, casts and copies:
 * broadcasting, merging of contiguous dimensions, and the launch through
 * the array's backend.
 */
#ifndef DEVARRAY_SRC_ELEMENTWISE_H_
#define DEVARRAY_SRC_ELEMENTWISE_H_

#include "base/common.h"
#include "core/array.h"

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

/* NumPy's K order of an nditer over `ins` (nin arrays, NULL entries for
   scalars, each broadcast to an ndim-dimensional result), where's layout:
   the axes sorted by the inputs' strides as nditer sorts them, into
   order[ndim] (slowest first, for array_new_ordered).  An input votes on
   a pair of axes only where both have extent > 1 in it (broadcast and
   extent-1 axes do not vote), by absolute stride; where inputs disagree,
   C order wins.  All C-contiguous inputs give the identity. */
void elementwise_iter_order(int ndim, int nin, DeviceArrayObject *const *ins, int *order);

/* The layout of a ufunc's result (NumPy's ufunc rule): when no input
   broadcasts and all N-d inputs share their contiguity (C, F or both),
   C order, or F order for F-only inputs; else elementwise_iter_order. */
void elementwise_result_order(int ndim, int nin, DeviceArrayObject *const *ins,
                              int *order);

/* A new ufunc result array of shape[ndim] in the order of `ins`
   (elementwise_result_order). */
DeviceArrayObject *elementwise_new_result(int backend, int typenum, int ndim,
                                          const int64_t *shape, int nin,
                                          DeviceArrayObject *const *ins);

/* The axis order of a copy of `a` by NumPy's order letter: 'C', 'F', 'A'
   (F when a is F-contiguous and not C-contiguous, else C) or 'K' (a's own:
   C or F when a is one, else its axes by absolute stride, largest first,
   ties in axis order), into order[a->ndim]. */
void elementwise_copy_order(const DeviceArrayObject *a, char letter, int *order);

/* Reorder the dimensions of shape[ndim] and of the nops (<= 4) operands'
   strides alike so that |strides[0]| (the output's) decreases: a stable
   sort, C-ordered outputs keep their order.  Iterating in the output's
   memory order lets elementwise_collapse merge a problem whose operands
   agree in any layout (an F-ordered a.T + a.T becomes one contiguous
   dimension) and brings the output's fastest axis last, where the
   transposing route (kernels/transpose.h) expects it. */
void elementwise_order_dims(int ndim, int64_t *shape, int nops, int64_t *const *strides);

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
