/*
 * Pickling DeviceArrays (see pickle.c).
 */
#ifndef DEVARRAY_SRC_PICKLE_H_
#define DEVARRAY_SRC_PICKLE_H_

#include "base/common.h"
#include "core/array.h"

/* a.__reduce__(): (devarray._core._reconstruct, (data, dtype name, shape,
   backend name)), the data a bytes copy of a's elements in C order. */
PyObject *pickle_reduce(DeviceArrayObject *a);

/* devarray._core._reconstruct(data, dtype, shape, backend, /): the array
   pickle_reduce described, on that backend; RuntimeError when it is
   "cuda" and CUDA is not usable here, ValueError for inconsistent
   arguments. */
PyObject *pickle_reconstruct(PyObject *module, PyObject *args);

#endif /* DEVARRAY_SRC_PICKLE_H_ */
