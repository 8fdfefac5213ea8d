/*
 * Creation functions that compute their values: arange, linspace (the
 * da_range/da_linspace kernels), tril, triu (da_tri) and meshgrid
 * (broadcast copies).
 */
#ifndef DEVARRAY_SRC_RANGES_H_
#define DEVARRAY_SRC_RANGES_H_

#include "base/common.h"

/* A PyArg "O&" converter for a diagonal offset k (an int64_t): any
   Python int, clamped to int64's range (no matrix reaches that far, so the
   result is the same). */
int ranges_offset_converter(PyObject *obj, void *k);

/* Add arange, linspace, meshgrid, tril and triu to `module`. */
int ranges_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_RANGES_H_ */
