/*
 * devarray's C API for other extensions: the capsule devarray._core._C_API
 * (see devarray/include/devarray.h and docs/c-api.md).
 */
#ifndef DEVARRAY_SRC_CAPI_H_
#define DEVARRAY_SRC_CAPI_H_

#include "base/common.h"

/* Add the capsule _C_API to the module.  0, or -1 with an exception. */
int capi_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_CAPI_H_ */
