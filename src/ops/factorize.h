/*
 * The primitives devarray.linalg (devarray/linalg.py) composes its
 * factorizations of on CUDA: batches of matrices factored in place of
 * C-contiguous arrays that linalg.py has laid out, on cuSOLVER
 * (runtime/cusolver.c) or, for real matrices of at most 16 rows, one
 * thread per matrix (kernels/linalg_small.cu).
 */
#ifndef DEVARRAY_SRC_FACTORIZE_H_
#define DEVARRAY_SRC_FACTORIZE_H_

#include "base/common.h"

/* Add the private _linalg_*() primitives to the module.  0 or -1. */
int factorize_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_FACTORIZE_H_ */
