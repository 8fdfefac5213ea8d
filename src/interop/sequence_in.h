/*
 * Nested Python sequences in: a Python scalar or nested lists/tuples of
 * numbers as a new array.
 */
#ifndef DEVARRAY_SRC_SEQUENCE_IN_H_
#define DEVARRAY_SRC_SEQUENCE_IN_H_

#include "base/common.h"
#include "core/array.h"

/* A new array from a Python scalar or nested lists/tuples of numbers, with
   NumPy's inference (all bool -> bool, ints -> int64, any float -> float64,
   any complex -> complex128) unless typenum >= 0.  ValueError for ragged
   nesting, TypeError for non-numbers, OverflowError for ints out of range. */
DeviceArrayObject *sequence_in_array(PyObject *obj, int typenum, int backend);

#endif /* DEVARRAY_SRC_SEQUENCE_IN_H_ */
