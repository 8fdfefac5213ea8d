/*
 * devarray.cumulative_sum, cumulative_prod and diff (see scan.c), and the
 * axis-last contiguous layout that the scans and argmax/argmin share.
 */
#ifndef DEVARRAY_SRC_SCAN_H_
#define DEVARRAY_SRC_SCAN_H_

#include "base/common.h"
#include "core/array.h"

/* a's elements with `axis` moved last, C-contiguous and of dtype typenum:
   a itself (a new reference) when it already is, else a copy.  So a
   computation along `axis` is "nsegments contiguous segments of
   shape[axis] elements". */
DeviceArrayObject *scan_axis_last(DeviceArrayObject *a, int axis, int typenum);

/* Add cumulative_sum(), cumulative_prod() and diff() to the module.  0 or
   -1. */
int scan_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SCAN_H_ */
