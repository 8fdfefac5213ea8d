/*
 * devarray.where(condition, x1, x2, /): the array API's selection, with
 * NumPy's promotion, broadcasting and truthiness (see select.c).
 */
#ifndef DEVARRAY_SRC_SELECT_H_
#define DEVARRAY_SRC_SELECT_H_

#include "base/common.h"

/* Add where() to the module.  0 or -1. */
int select_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SELECT_H_ */
