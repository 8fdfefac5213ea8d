/*
 * devarray.sort and devarray.argsort (see sort.c), and the sort along one
 * axis that sets.c builds unique_* on.
 */
#ifndef DEVARRAY_SRC_SORT_H_
#define DEVARRAY_SRC_SORT_H_

#include "base/common.h"
#include "core/array.h"

/* Sort `a` stably along `axis` (normalised, < a->ndim), ascending or
   descending, into new arrays of a's shape: *values (a's dtype) and
   *indices (int64, positions along the axis), each computed only when its
   pointer is not NULL.  0, or -1 with an exception (nothing returned). */
int sort_along_axis(DeviceArrayObject *a, int axis, int descending,
                    DeviceArrayObject **values, DeviceArrayObject **indices);

/* Add sort() and argsort() to `module`. */
int sort_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SORT_H_ */
