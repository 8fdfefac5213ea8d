/*
 * The array API's namespace-level names: __array_api_version__, the
 * constants (e, inf, nan, pi, newaxis) and __array_namespace_info__, the
 * inspection object (capabilities, default device and dtypes, dtypes,
 * devices).
 */
#ifndef DEVARRAY_SRC_NAMESPACE_H_
#define DEVARRAY_SRC_NAMESPACE_H_

#include "base/common.h"

/* The standard's version devarray implements. */
#define NAMESPACE_API_VERSION "2025.12"

/* Add the names above to `module`.  0, or -1 with an exception. */
int namespace_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_NAMESPACE_H_ */
