/*
 * The elementwise ops of kernels/optable.h as Python calls: type resolution
 * (NumPy 2 promotion, NEP 50 for Python scalars, the op's rule and loops),
 * broadcasting, allocation, in-place outputs and the launch.  The number
 * slots (number.c) and the module functions devarray.add, devarray.hypot,
 * ... (registered here from the table) both come through ufunc_apply.
 */
#ifndef DEVARRAY_SRC_UFUNC_H_
#define DEVARRAY_SRC_UFUNC_H_

#include "common.h"

/* op(operands[0][, operands[1]]) for the op's nin operands, each a
   DeviceArray or a Python bool/int/float/complex.  With `inplace`,
   operands[0] must be a DeviceArray and receives the result (NumPy's
   same_kind casting; a read-only or mis-shaped output is refused).  An
   operand of any other type gives NotImplemented when `is_operator` (so
   Python tries the other operand's slot), else TypeError.  Returns a new
   reference, or NULL with an exception. */
PyObject *ufunc_apply(int op, PyObject *const *operands, int inplace,
                      int is_operator);

/* Add a function devarray.<name> for every op of the table that has a
   docstring.  0, or -1 with an exception. */
int ufunc_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_UFUNC_H_ */
