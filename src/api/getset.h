/*
 * DeviceArray's attributes (see getset.c).
 */
#ifndef DEVARRAY_SRC_GETSET_H_
#define DEVARRAY_SRC_GETSET_H_

#include "base/common.h"

extern PyGetSetDef getset_table[];

#endif /* DEVARRAY_SRC_GETSET_H_ */
