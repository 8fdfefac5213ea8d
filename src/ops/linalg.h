/*
 * The array API's linear algebra in the main namespace: matmul (and the @
 * operator), matrix_transpose, tensordot and vecdot, with NumPy 2's
 * semantics (dtype promotion, 1-D operands promoted and the added axis
 * removed, batch dimensions broadcast, its error types).
 */
#ifndef DEVARRAY_SRC_LINALG_H_
#define DEVARRAY_SRC_LINALG_H_

#include "base/common.h"

/* a @ b for the number slots (number.c): NotImplemented when an operand
   is neither a DeviceArray nor a Python scalar (a scalar raises NumPy's
   ValueError, as a 0-d operand does).  inplace: a @= b, NumPy's rules: the
   product must have a's shape (ValueError) and cast to a's dtype under
   same_kind (TypeError); a must be writable (ValueError); returns a. */
PyObject *linalg_matmul_operator(PyObject *a, PyObject *b, int inplace);

/* Add matmul, matrix_transpose, tensordot and vecdot to `module`. */
int linalg_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_LINALG_H_ */
