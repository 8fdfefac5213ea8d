/*
 * The number protocol of DeviceArray: arithmetic slots and conversions to
 * Python scalars.
 */
#ifndef DEVARRAY_SRC_NUMBER_H_
#define DEVARRAY_SRC_NUMBER_H_

#include "common.h"

extern PyNumberMethods number_as_number;

/* DeviceArray.__complex__ (there is no nb_complex slot). */
PyObject *number_complex(PyObject *self, PyObject *args);

#endif /* DEVARRAY_SRC_NUMBER_H_ */
