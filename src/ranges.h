/*
 * Creation functions that compute their values: arange, linspace (the
 * da_range/da_linspace kernels), tril, triu (da_tri) and meshgrid
 * (broadcast copies).
 */
#ifndef DEVARRAY_SRC_RANGES_H_
#define DEVARRAY_SRC_RANGES_H_

#include "common.h"

/* Add arange, linspace, meshgrid, tril and triu to `module`. */
int ranges_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_RANGES_H_ */
