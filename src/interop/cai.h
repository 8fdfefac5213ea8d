/*
 * The CUDA Array Interface, consumer side: a DeviceArray viewing another
 * library's device memory.  (The producer side, __cuda_array_interface__,
 * is a getset of array.c.)
 */
#ifndef DEVARRAY_SRC_CAI_H_
#define DEVARRAY_SRC_CAI_H_

#include "base/common.h"
#include "core/array.h"

/* A view of the producer `obj`'s device memory described by its
   __cuda_array_interface__ dict `cai`, keeping obj alive through base and
   ordered after the producer's stream.  Validates every entry (ValueError or
   TypeError saying what is wrong); on the host backend, ValueError. */
DeviceArrayObject *cai_import(PyObject *obj, PyObject *cai, int backend);

/* cai_import of obj's own __cuda_array_interface__: 1 with *out set, 0 (and
   *out NULL) when obj has no such attribute, -1 with an exception. */
int cai_import_attribute(PyObject *obj, int backend, DeviceArrayObject **out);

#endif /* DEVARRAY_SRC_CAI_H_ */
