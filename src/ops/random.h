/*
 * The primitive devarray.random (devarray/random.py) is composed of: one
 * Philox4x32-10 draw into an existing array, on either backend.
 */
#ifndef DEVARRAY_SRC_RANDOM_H_
#define DEVARRAY_SRC_RANDOM_H_

#include "base/common.h"

/* Add the private _random_fill() to the module.  0 or -1. */
int random_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_RANDOM_H_ */
