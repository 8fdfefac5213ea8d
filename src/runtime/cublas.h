/*
 * cuBLAS, loaded at first use: the float32, float64, complex64 and
 * complex128 matmuls of the CUDA backend, and the TF32 switch.
 *
 * `import devarray` never loads cuBLAS (the extension links no CUDA
 * library; it needs only the driver).  The first CUDA matmul of one of
 * those dtypes dlopen()s libcublas, looking in this order:
 *   1. $DEVARRAY_CUBLAS, a path to libcublas.so.* (only there when set);
 *   2. libcublas.so.13, then libcublas.so.12, by the dynamic loader's
 *      default search (LD_LIBRARY_PATH, the ld.so cache, ...);
 *   3. the nvidia-cublas wheel's lib directory under each sys.path entry:
 *      nvidia/cu13/lib, nvidia/cublas/lib, nvidia/cu12/lib;
 *   4. lib64 of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
 * When none loads, the call raises RuntimeError naming the places tried
 * and the fix (`pip install devarray[cublas]`, or DEVARRAY_CUBLAS); the
 * next call looks again.  A failed cuBLAS call raises devarray.CUDAError.
 */
#ifndef DEVARRAY_SRC_CUBLAS_H_
#define DEVARRAY_SRC_CUBLAS_H_

#include "base/common.h"

/* Add set_tf32() and the private _cublas_path() to `module`. */
int cublas_module_init(PyObject *module);

#ifdef DEVARRAY_HAVE_CUDA
/* The batched product of kernels/launch.h's da_matmul (typenum float32,
   float64, complex64 or complex128) on the legacy default stream of CUDA
   device `device`, with the device's cuBLAS handle.  0, or -1 with an
   exception. */
int cublas_matmul(int device, const da_matmul *g);
#endif

#endif /* DEVARRAY_SRC_CUBLAS_H_ */
