/*
 * Conversions between DeviceArrays and host objects: buffer-protocol objects
 * and nested sequences in; NumPy arrays, memoryviews, Python lists and
 * scalars out.  NumPy is imported only when a conversion needs it.
 */
#ifndef DEVARRAY_SRC_CONVERT_H_
#define DEVARRAY_SRC_CONVERT_H_

#include "common.h"
#include "array.h"

int convert_module_init(PyObject *module);

/* A new array on `backend` holding a copy of any buffer-protocol object
   (format decides the dtype; typenum >= 0 casts to it).  Non-contiguous and
   negative-stride buffers are packed in one host pass.  NULL with TypeError
   for objects without the buffer protocol or unsupported formats. */
DeviceArrayObject *convert_from_buffer(PyObject *obj, int typenum, int backend);

/* A new array from a Python scalar or nested lists/tuples of numbers, with
   NumPy's inference (all bool -> bool, ints -> int64, any float -> float64,
   any complex -> complex128) unless typenum >= 0.  ValueError for ragged
   nesting, TypeError for non-numbers, OverflowError for ints out of range. */
DeviceArrayObject *convert_from_sequence(PyObject *obj, int typenum, int backend);

/* d.to_host(out=None): a numpy.ndarray (when NumPy imports), else a
   memoryview with the dtype's format and the array's shape; with `out`,
   fill that writable buffer (byte size must match; format must match
   unless it is 'B', 'b' or 'c') and return it. */
PyObject *convert_to_host(DeviceArrayObject *a, PyObject *out);

/* d.tolist() and d.item() (size-1 arrays only: ValueError otherwise). */
PyObject *convert_tolist(DeviceArrayObject *a);
PyObject *convert_item(DeviceArrayObject *a);

/* Python value of one element at `p` (host memory) of dtype typenum:
   bool, int, float or complex. */
PyObject *convert_scalar_to_python(const void *p, int typenum);

/* Convert a Python bool/int/float/complex (an exact or subclass instance)
   to a value of compute class `cls` (ops.h).  `range_typenum` is the dtype
   the scalar was promoted to (NEP 50): a Python int that does not fit it,
   when it is an integer dtype, raises OverflowError like NumPy 2 ("Python
   integer 1000 out of bounds for int8").  0, or -1 with an exception. */
int convert_python_scalar(PyObject *obj, int range_typenum, int cls,
                          da_scalar *value);

/* The repr/str of an array, NumPy-style: "DeviceArray([1., 2.], dtype=float32)". */
PyObject *convert_repr(DeviceArrayObject *a, int is_repr);

#endif /* DEVARRAY_SRC_CONVERT_H_ */
