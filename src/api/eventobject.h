/*
 * devarray.Event: a CUDA event to mark a point in a stream, wait for it,
 * order another stream after it, and time the work between two of them.
 *
 * Without a usable CUDA device the same API exists: record() notes the host
 * clock, so elapsed_time() measures host time, and everything else returns
 * at once.
 */
#ifndef DEVARRAY_SRC_EVENTOBJECT_H_
#define DEVARRAY_SRC_EVENTOBJECT_H_

#include "base/common.h"

/* Add Event to `module`. */
int eventobject_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_EVENTOBJECT_H_ */
