/*
 * The DeviceArray type's tables, filled in and readied (see arraytype.c).
 */
#ifndef DEVARRAY_SRC_ARRAYTYPE_H_
#define DEVARRAY_SRC_ARRAYTYPE_H_

#include "base/common.h"

/* Ready DeviceArray_Type and add it (and the array test helpers) to the
   module.  0, or -1 with an exception. */
int arraytype_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_ARRAYTYPE_H_ */
