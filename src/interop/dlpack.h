/*
 * DLPack, both ways: DeviceArray.__dlpack__ / __dlpack_device__ (export)
 * and from_dlpack (import).  See the ownership rules at the top of
 * dlpack.c.
 */
#ifndef DEVARRAY_SRC_DLPACK_H_
#define DEVARRAY_SRC_DLPACK_H_

#include "base/common.h"
#include "core/array.h"
#include "interop/dlpack_abi.h"

/* Add from_dlpack() to `module`. */
int dlpack_module_init(PyObject *module);

/* DeviceArray.__dlpack__ and __dlpack_device__. */
PyObject *dlpack_export(DeviceArrayObject *self, PyObject *args, PyObject *kwds);
PyObject *dlpack_export_device(DeviceArrayObject *self, PyObject *args);

/* A DeviceArray from a DLPack producer: a zero-copy view when its memory is
   on `backend`, else a copy (copy: -1 as needed, 0 never, 1 always). */
DeviceArrayObject *dlpack_import(PyObject *obj, int backend, int copy);

/* The typenum of a DLPack dtype; -1 with BufferError for one devarray lacks. */
int dlpack_typenum(DLDataType dtype, int *typenum);

/* A new versioned DLPack tensor describing `source` (a new reference to it
   is held until the deleter runs), minor version `minor`; is_copy sets the
   IS_COPIED flag.  NULL with an exception. */
DLManagedTensorVersioned *dlpack_managed_new(DeviceArrayObject *source, int is_copy,
                                             uint32_t minor);

/* A DeviceArray viewing a versioned DLPack tensor, which it takes over in
   every case: the deleter runs when the view dies, or at once on failure
   (BufferError for what devarray cannot view). */
DeviceArrayObject *dlpack_from_managed(DLManagedTensorVersioned *managed);

/* Whether a DLPack producer's memory is on a CUDA device (sets *is_cuda). */
int dlpack_is_cuda(PyObject *obj, int *is_cuda);

#endif /* DEVARRAY_SRC_DLPACK_H_ */
