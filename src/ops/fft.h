/*
 * The primitive devarray.fft (devarray/fft.py) runs on CUDA: one batch of
 * transforms over the last one to three axes, on cuFFT.
 */
#ifndef DEVARRAY_SRC_FFT_H_
#define DEVARRAY_SRC_FFT_H_

#include "base/common.h"

/* Add the private _fft_last_axes() to the module.  0 or -1. */
int fft_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_FFT_H_ */
