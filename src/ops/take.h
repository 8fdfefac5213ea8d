/*
 * devarray.take, take_along_axis and nonzero (see take.c).
 */
#ifndef DEVARRAY_SRC_TAKE_H_
#define DEVARRAY_SRC_TAKE_H_

#include "base/common.h"

/* Add take(), take_along_axis() and nonzero() to `module`. */
int take_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_TAKE_H_ */
