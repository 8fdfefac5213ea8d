/*
 * NumPy's dispatch protocols on DeviceArray (see numpy_protocol.c): NumPy's
 * functions and ufuncs run devarray's own, on the device.
 */
#ifndef DEVARRAY_SRC_NUMPY_PROTOCOL_H_
#define DEVARRAY_SRC_NUMPY_PROTOCOL_H_

#include "base/common.h"

/* DeviceArray.__array_function__(func, types, args, kwargs), NEP 18:
   devarray's function of func's name called with args and kwargs (out=None
   dropped); NotImplemented when a type other than DeviceArray takes part or
   devarray has no such function. */
PyObject *numpy_protocol_array_function(PyObject *self, PyObject *const *args,
                                        Py_ssize_t nargs);

/* DeviceArray.__array_ufunc__(ufunc, method, *inputs, **kwargs), NEP 13:
   method "__call__" runs devarray's function of the ufunc's name on the
   inputs (NumPy scalars as 0-d arrays of their dtype); NotImplemented for
   other methods and other array types, TypeError for a numpy.ndarray
   operand or a ufunc devarray lacks. */
PyObject *numpy_protocol_array_ufunc(PyObject *self, PyObject *args, PyObject *kwds);

#endif /* DEVARRAY_SRC_NUMPY_PROTOCOL_H_ */
