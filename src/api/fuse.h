/*
 * devarray.fuse (docs/fusion.md): a decorator that traces a function of
 * DeviceArrays and Python scalars made of elementwise ops (and at most one
 * final reduction) once per kind of arguments, and runs it as one kernel
 * (compiled at run time by jit.c, else the interpreter of kernels/fuse.cu;
 * src/host/host_fuse.c on the host) with the unfused chain's results, bit for
 * bit.
 */
#ifndef DEVARRAY_SRC_FUSE_H_
#define DEVARRAY_SRC_FUSE_H_

#include "base/common.h"

/* Add devarray.fuse, its FusedFunction type and the tracer type. */
int fuse_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_FUSE_H_ */
