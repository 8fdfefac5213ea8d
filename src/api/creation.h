/*
 * The array API's creation functions, as module-level functions of
 * devarray._core: to_device, asarray, empty, zeros, ones, full, their
 * *_like forms and eye here (creation.c); arange, linspace, meshgrid, tril
 * and triu in ranges.c.
 */
#ifndef DEVARRAY_SRC_CREATION_H_
#define DEVARRAY_SRC_CREATION_H_

#include "base/common.h"

#include "core/array.h"

/* obj as a DeviceArray (new reference): itself, or asarray(obj) on the
   default place. */
DeviceArrayObject *creation_as_array(PyObject *obj);

/* Add the creation functions (those of ranges.c too) to `module`. */
int creation_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_CREATION_H_ */
