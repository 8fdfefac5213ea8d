/*
 * The elementwise ops of kernels/optable.h as Python calls: type resolution
 * (NumPy 2 promotion, NEP 50 for Python scalars, the op's rule and loops),
 * broadcasting, allocation, in-place outputs and the launch.  The number
 * slots (number.c) and the module functions devarray.add, devarray.hypot,
 * ... (registered here from the table) both come through ufunc_apply.
 */
#ifndef DEVARRAY_SRC_UFUNC_H_
#define DEVARRAY_SRC_UFUNC_H_

#include "base/common.h"

/* op(operands[0][, operands[1]]) for the op's nin operands, each a
   DeviceArray or a Python bool/int/float/complex.  With `inplace`,
   operands[0] must be a DeviceArray and receives the result (NumPy's
   same_kind casting; a read-only or mis-shaped output is refused).  An
   operand of any other type gives NotImplemented when `is_operator` (so
   Python tries the other operand's slot), else TypeError.  Returns a new
   reference, or NULL with an exception. */
PyObject *ufunc_apply(int op, PyObject *const *operands, int inplace,
                      int is_operator);

/* ---- for tracing (fuse.c) ---- */

/* The types of op on operands of dtypes typenums[k] (-1 for a Python
   scalar operands[k] of kind kinds[k]), by the same promotion and
   resolution as ufunc_apply: the dtype and class it computes in, its
   result dtype and the op its kernel runs (COPY for an identity).  0, or -1
   with an exception (no loop, arrays of different places aside). */
int ufunc_types(int op, const int *typenums, PyObject *const *operands, const char *kinds,
                int *compute, int *cls, int *result, int *run_op);

/* Python scalar operand k of op, computing in dtype `compute` of class
   cls, as ufunc_apply converts it into *value: 0; 1 when the result is the
   constant *fill instead (a comparison with an int out of the dtype's
   range; never when `inplace`); -1 with an exception. */
int ufunc_scalar_operand(int op, int k, PyObject *obj, int compute, int cls, int inplace,
                         da_scalar *value, uint8_t *fill);

/* Whether op of an array by a Python scalar `exponent` (converted to
   class cls) is x ** 2, which runs as x * x: NumPy's fast scalar power,
   with the same bits (one rounding of the exact square). */
int ufunc_is_square(int op, int cls, const da_scalar *exponent);

/* When set (by fuse.c), every devarray.<op>(...) and devarray.where(...)
   (op DA_NOPS) asks it first: 0 when none of args is a tracer; else 1 with
   *result the traced value (a new reference, or NULL with an exception). */
typedef int (*ufunc_hook_fn)(int op, PyObject *const *args, Py_ssize_t nargs,
                             PyObject **result);
extern ufunc_hook_fn ufunc_trace_hook;

/* Add a function devarray.<name> for every op of the table that has a
   docstring.  0, or -1 with an exception. */
int ufunc_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_UFUNC_H_ */
