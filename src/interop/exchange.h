/*
 * DLPack 1.3's C exchange API (the __dlpack_c_exchange_api__ capsule), both
 * ways: devarray publishes one for DeviceArray, so consumers such as
 * PyTorch, cuda.core and tvm-ffi exchange without Python calls; and the C
 * API's DevArray_GetView takes arrays of any type that publishes one.
 */
#ifndef DEVARRAY_SRC_EXCHANGE_H_
#define DEVARRAY_SRC_EXCHANGE_H_

#include "base/common.h"
#include "core/array.h"

/* A new capsule "dlpack_exchange_api" of devarray's table (static: it
   lives as long as the process). */
PyObject *exchange_capsule(void);

/* When obj's type publishes a usable exchange API: *out is a DeviceArray
   viewing obj's memory (keeping it alive), with the producer's current
   stream ordered before devarray's on the device; returns 1.  0 (and *out
   NULL) when the type publishes none; -1 with an exception. */
int exchange_import(PyObject *obj, DeviceArrayObject **out);

#endif /* DEVARRAY_SRC_EXCHANGE_H_ */
