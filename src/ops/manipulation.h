/*
 * The manipulation functions of the array API (see manipulation.c for the
 * ones that copy, view_ops.c for the ones that give views).
 */
#ifndef DEVARRAY_SRC_MANIPULATION_H_
#define DEVARRAY_SRC_MANIPULATION_H_

#include "base/common.h"

/* Add concat, stack, roll, repeat, tile and view_ops.h's functions
   (broadcast_to, reshape, ...) to the module.  0 or -1. */
int manipulation_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_MANIPULATION_H_ */
