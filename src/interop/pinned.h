/*
 * devarray.PinnedBuffer and devarray.empty_pinned(): host memory that CUDA
 * copies to and from without waiting, and the asynchronous transfers that
 * use it (to_device of page-locked memory; to_host(out=, blocking=False) is
 * host_out.h's, asking pinned_async_ok here).
 *
 * A PinnedBuffer is page-locked (cudaHostAlloc, portable) when the default
 * backend is CUDA at its creation; on the host backend, or in a build
 * without CUDA, it is plain aligned host memory with the same API ("pinned"
 * means nothing there, and every copy is a plain memcpy).
 */
#ifndef DEVARRAY_SRC_PINNED_H_
#define DEVARRAY_SRC_PINNED_H_

#include "base/common.h"
#include "core/array.h"

/* Add PinnedBuffer and empty_pinned() to `module`. */
int pinned_module_init(PyObject *module);

/* 1 when the host bytes [ptr, ptr + nbytes) may be the host side of an
   asynchronous copy with an array on `backend`: memory CUDA knows as
   page-locked (a page-locked PinnedBuffer, or cudaHostAlloc and
   cudaHostRegister memory of other libraries); on the host backend any
   PinnedBuffer counts as well, so code written for CUDA runs there
   unchanged.  Else 0.  Raises nothing. */
int pinned_async_ok(const void *ptr, size_t nbytes, int backend);

/* to_device(obj, dtype)'s asynchronous branch: when obj exports a
   C-contiguous, non-empty buffer of page-locked memory, a new array on the
   CUDA `backend` filled by one cudaMemcpyAsync on the current stream (then
   cast to typenum >= 0 on the device), returned without waiting.  NULL
   without an exception when obj does not qualify (the caller copies it the
   synchronous way), NULL with one on failure. */
DeviceArrayObject *pinned_to_device(PyObject *obj, int typenum, int backend);

#endif /* DEVARRAY_SRC_PINNED_H_ */
