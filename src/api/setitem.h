/*
 * Assignment into DeviceArrays: self[key] = value (see setitem.c).
 */
#ifndef DEVARRAY_SRC_SETITEM_H_
#define DEVARRAY_SRC_SETITEM_H_

#include "base/common.h"
#include "core/array.h"

/* self[key] = value for a basic index (indexing_subscript's keys), as
   NumPy's setitem: value is a Python scalar (stored with NumPy 2's rules
   for the array's dtype), a DeviceArray (broadcast, cast, moved from
   another backend, copied first when it overlaps the target), a CUDA Array
   Interface producer, a buffer-protocol object or nested sequences.
   value NULL (del self[key]) is a ValueError, as is a read-only self.
   0, or -1 with an exception and self unchanged. */
int setitem_assign(DeviceArrayObject *self, PyObject *key, PyObject *value);

#endif /* DEVARRAY_SRC_SETITEM_H_ */
