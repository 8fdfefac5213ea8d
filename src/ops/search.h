/*
 * devarray.argmax, argmin and searchsorted (see search.c).
 */
#ifndef DEVARRAY_SRC_SEARCH_H_
#define DEVARRAY_SRC_SEARCH_H_

#include "base/common.h"
#include "core/array.h"

/* argmax (op DA_ARG_MAX) or argmin of a along axis (None: the flattened
   array), int64 indices, keepdims as NumPy.  New reference or NULL. */
PyObject *search_argreduce(DeviceArrayObject *a, int op, PyObject *axis, int keepdims);

/* Add argmax(), argmin() and searchsorted() to the module.  0 or -1. */
int search_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SEARCH_H_ */
