/*
 * The repr and str of an array, NumPy-style:
 * "DeviceArray([1., 2.], dtype=float32)".
 */
#ifndef DEVARRAY_SRC_REPR_H_
#define DEVARRAY_SRC_REPR_H_

#include "base/common.h"
#include "core/array.h"

/* repr(a) (is_repr = 1) or str(a) (is_repr = 0). */
PyObject *repr_array(DeviceArrayObject *a, int is_repr);

#endif /* DEVARRAY_SRC_REPR_H_ */
