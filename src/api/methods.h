/*
 * DeviceArray's methods (see methods.c).
 */
#ifndef DEVARRAY_SRC_METHODS_H_
#define DEVARRAY_SRC_METHODS_H_

#include "base/common.h"

extern PyMethodDef methods_table[];

/* Private module functions about arrays, for tests. */
extern PyMethodDef methods_module_functions[];

#endif /* DEVARRAY_SRC_METHODS_H_ */
