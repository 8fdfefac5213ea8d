/*
 * devarray.where(condition, x1, x2, /): the array API's selection, with
 * NumPy's promotion, broadcasting and truthiness (see select.c); and the
 * masked fill of setitem it serves.
 */
#ifndef DEVARRAY_SRC_SELECT_H_
#define DEVARRAY_SRC_SELECT_H_

#include "base/common.h"
#include "core/array.h"

/* self[mask] = value in place, mask a bool array of self's shape on its
   backend and device, value a Python scalar converted as NumPy 2 fills an
   array of self's dtype (OverflowError, ValueError or TypeError as
   setitem's): one where() pass, self = where(mask, value, self), instead
   of a nonzero and a scatter.  0 or -1. */
int select_masked_fill(DeviceArrayObject *self, DeviceArrayObject *mask, PyObject *value);

/* Add where() to the module.  0 or -1. */
int select_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SELECT_H_ */
