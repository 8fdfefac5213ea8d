/*
 * The statistical functions of the array API standard beyond sum: max,
 * min, prod, mean, var, std and count_nonzero, as devarray.<name> and (for
 * the methods in methods.c) as C calls.  Built on reduce.h's engine and
 * the elementwise ops; NumPy 2's dtypes and order.
 */
#ifndef DEVARRAY_SRC_STATISTICS_H_
#define DEVARRAY_SRC_STATISTICS_H_

#include "base/common.h"
#include "core/array.h"

/* Add the functions to `module`.  0 or -1. */
int statistics_module_init(PyObject *module);

/* x.max() / x.min(): NaN propagates, ValueError over no elements. */
PyObject *statistics_max(DeviceArrayObject *x, PyObject *axis, int keepdims);
PyObject *statistics_min(DeviceArrayObject *x, PyObject *axis, int keepdims);

/* x.mean(): float64 for bool and integers, float16 computed in float32. */
PyObject *statistics_mean(DeviceArrayObject *x, PyObject *axis, int keepdims);

/* x.var() / x.std(): divided by max(N - correction, 0); real for complex. */
PyObject *statistics_var(DeviceArrayObject *x, PyObject *axis, double correction,
                         int keepdims);
PyObject *statistics_std(DeviceArrayObject *x, PyObject *axis, double correction,
                         int keepdims);

/* count_nonzero(x): int64 counts. */
PyObject *statistics_count_nonzero(DeviceArrayObject *x, PyObject *axis, int keepdims);

#endif /* DEVARRAY_SRC_STATISTICS_H_ */
