/*
 * Reductions: sum over any set of axes, accumulated as NumPy does, on the
 * array's backend (CUB on CUDA, pairwise loops on the host).
 */
#ifndef DEVARRAY_SRC_REDUCE_H_
#define DEVARRAY_SRC_REDUCE_H_

#include "common.h"
#include "array.h"

/* a.sum(axis, dtype, keepdims): axis None, an int or a tuple of ints;
   typenum -1 for NumPy's default result dtype. */
PyObject *reduce_sum(DeviceArrayObject *a, PyObject *axis, int typenum,
                     int keepdims);

#endif /* DEVARRAY_SRC_REDUCE_H_ */
