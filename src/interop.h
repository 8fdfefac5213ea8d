/*
 * Zero-copy exchange: the CUDA Array Interface (consumer) and DLPack (both
 * ways).  See the ownership rules at the top of interop.c.
 */
#ifndef DEVARRAY_SRC_INTEROP_H_
#define DEVARRAY_SRC_INTEROP_H_

#include "common.h"
#include "array.h"

int interop_module_init(PyObject *module);

/* DeviceArray.__dlpack__ and __dlpack_device__. */
PyObject *interop_dlpack(DeviceArrayObject *self, PyObject *args, PyObject *kwds);
PyObject *interop_dlpack_device(DeviceArrayObject *self, PyObject *args);

/* A view of the producer `obj`'s device memory described by its
   __cuda_array_interface__ dict `cai`, keeping obj alive through base and
   ordered after the producer's stream.  Validates every entry (ValueError or
   TypeError saying what is wrong); on the host backend, ValueError. */
DeviceArrayObject *interop_from_cuda_array_interface(PyObject *obj, PyObject *cai,
                                                     int backend);

/* A DeviceArray from a DLPack producer: a zero-copy view when its memory is
   on `backend`, else a copy (copy: -1 as needed, 0 never, 1 always). */
DeviceArrayObject *interop_from_dlpack(PyObject *obj, int backend, int copy);

/* Whether a DLPack producer's memory is on a CUDA device (sets *is_cuda). */
int interop_dlpack_is_cuda(PyObject *obj, int *is_cuda);

#endif /* DEVARRAY_SRC_INTEROP_H_ */
