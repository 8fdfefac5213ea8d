/*
 * The number protocol of DeviceArray: arithmetic slots, conversions to
 * Python scalars, and the rich comparisons.
 */
#ifndef DEVARRAY_SRC_NUMBER_H_
#define DEVARRAY_SRC_NUMBER_H_

#include "base/common.h"

extern PyNumberMethods number_as_number;

/* tp_richcompare: a == b, a < b, ... elementwise as a bool array;
   NotImplemented for an operand that is neither a DeviceArray nor a Python
   scalar (so `d == None` is False). */
PyObject *number_richcompare(PyObject *a, PyObject *b, int cmp);

/* DeviceArray.__complex__ (there is no nb_complex slot). */
PyObject *number_complex(PyObject *self, PyObject *args);

#endif /* DEVARRAY_SRC_NUMBER_H_ */
