/*
 * devarray._core._HostBuffer: host memory holding a copy of an array, with a
 * typed, C-contiguous, writable buffer export.  What to_host() returns,
 * wrapped in a memoryview, when NumPy is not installed.
 */
#ifndef DEVARRAY_SRC_HOSTBUFFER_H_
#define DEVARRAY_SRC_HOSTBUFFER_H_

#include "base/common.h"
#include "core/array.h"

int hostbuffer_module_init(PyObject *module);

/* Fill `view` for a C-contiguous, writable host block owned by `owner`
   (named `what` in the error for a Fortran-contiguous request): the
   buffer export of _HostBuffer and PinnedBuffer.  0, or -1 with
   BufferError. */
int hostbuffer_export(PyObject *owner, const char *what, char *data, Py_ssize_t len,
                      int typenum, int ndim, Py_ssize_t *shape, Py_ssize_t *strides,
                      Py_buffer *view, int flags);

/* A memoryview over a new _HostBuffer holding a copy of a. */
PyObject *hostbuffer_memoryview(DeviceArrayObject *a);

#endif /* DEVARRAY_SRC_HOSTBUFFER_H_ */
