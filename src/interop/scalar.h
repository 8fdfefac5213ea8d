/*
 * Python scalars in and out: a Python bool, int, float or complex to a
 * compute-class value or to a stored element, and an element back to a
 * Python scalar.
 */
#ifndef DEVARRAY_SRC_SCALAR_H_
#define DEVARRAY_SRC_SCALAR_H_

#include "base/common.h"

/* The kind of a Python scalar ('b', 'i', 'f', 'c'; subclasses included),
   or 0 when `obj` is not a bool, int, float or complex. */
char scalar_python_kind(PyObject *obj);

/* NEP 50 makes only the exact Python types weak (and bool, which has no
   subclasses); a subclass (numpy.float64 is one of float) takes part in
   promotion as its kind's default dtype. */
int scalar_is_weak(PyObject *obj);

/* The default dtype of a Python scalar of kind 'b', 'i', 'f' or 'c':
   bool, int64, float64, complex128 (as NumPy gives). */
int scalar_default_typenum(char kind);

/* typenum promoted with the Python scalar obj of kind `kind`: weakly
   (dtype_promote_weak) when obj is weak, else as its kind's default
   dtype. */
int scalar_promote(int typenum, PyObject *obj, char kind);

/* Convert a Python bool/int/float/complex (an exact or subclass instance)
   to a value of compute class `cls` (ops.h).  `range_typenum` is the dtype
   the scalar was promoted to (NEP 50): a Python int that does not fit it,
   when it is an integer dtype, raises OverflowError like NumPy 2 ("Python
   integer 1000 out of bounds for int8").  0, or -1 with an exception. */
int scalar_from_python(PyObject *obj, int range_typenum, int cls, da_scalar *value);

/* Convert one Python scalar to dtype `typenum` and store it at p, with
   NumPy 2's rules for filling an array of that dtype: integers must fit an
   integer dtype, floats are truncated toward zero first (NaN and inf are
   errors there), complex only goes into complex (and bool) dtypes. */
int scalar_store_python(PyObject *obj, int typenum, char *p);

/* Python value of one element at `p` (host memory) of dtype typenum:
   bool, int, float or complex. */
PyObject *scalar_to_python(const void *p, int typenum);

#endif /* DEVARRAY_SRC_SCALAR_H_ */
