/*
 * devarray._core._HostBuffer: host memory holding a copy of an array, with a
 * typed, C-contiguous, writable buffer export.  What to_host() returns,
 * wrapped in a memoryview, when NumPy is not installed.
 */
#ifndef DEVARRAY_SRC_HOSTBUFFER_H_
#define DEVARRAY_SRC_HOSTBUFFER_H_

#include "common.h"
#include "array.h"

int hostbuffer_module_init(PyObject *module);

/* A memoryview over a new _HostBuffer holding a copy of a. */
PyObject *hostbuffer_memoryview(DeviceArrayObject *a);

#endif /* DEVARRAY_SRC_HOSTBUFFER_H_ */
