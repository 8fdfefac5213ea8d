/*
 * devarray.all and devarray.any (the array API's utility functions): logical
 * reductions over any set of axes, each one nonzero reduction of the
 * reduction engine (reduce_nonzero), so they need no kernels of their own.
 */
#ifndef DEVARRAY_SRC_LOGICAL_REDUCE_H_
#define DEVARRAY_SRC_LOGICAL_REDUCE_H_

#include "base/common.h"

/* Add devarray.all and devarray.any to the module.  0, or -1 with an
   exception. */
int logical_reduce_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_LOGICAL_REDUCE_H_ */
