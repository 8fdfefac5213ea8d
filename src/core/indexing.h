/*
 * Indexing of DeviceArrays (see indexing.c).
 */
#ifndef DEVARRAY_SRC_INDEXING_H_
#define DEVARRAY_SRC_INDEXING_H_

#include "base/common.h"
#include "core/array.h"

/* self[key] for a basic index (an int, slice, Ellipsis, None or a tuple of
   them): a view.  NULL with IndexError/TypeError for anything else. */
PyObject *indexing_subscript(DeviceArrayObject *self, PyObject *key);

/* self[index] for 0 <= index < len(self), the sequence protocol's item
   (iteration over the first axis): a view; IndexError past the end,
   TypeError for a 0-d array. */
PyObject *indexing_item(DeviceArrayObject *self, Py_ssize_t index);

#endif /* DEVARRAY_SRC_INDEXING_H_ */
