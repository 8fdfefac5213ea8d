/*
 * Buffer-protocol objects in: a copy of any strided buffer (bytes,
 * bytearray, memoryview, array.array, numpy.ndarray, ...) as a new array.
 */
#ifndef DEVARRAY_SRC_BUFFER_IN_H_
#define DEVARRAY_SRC_BUFFER_IN_H_

#include "base/common.h"
#include "core/array.h"

/* A new array on `backend` holding a copy of any buffer-protocol object
   (format decides the dtype; typenum >= 0 casts to it).  Non-contiguous and
   negative-stride buffers are packed in one host pass.  NULL with TypeError
   for objects without the buffer protocol or unsupported formats. */
DeviceArrayObject *buffer_in_array(PyObject *obj, int typenum, int backend);

#endif /* DEVARRAY_SRC_BUFFER_IN_H_ */
