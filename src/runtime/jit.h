/*
 * The run-time compiler for devarray.fuse (docs/fusion.md): a fused
 * program (kernels/launch.h's da_fuse) becomes CUDA source, compiled by
 * NVRTC for the device's architecture, loaded with cudaLibraryLoadData and
 * cached, in the process and on disk, so the program runs as straight-line
 * code with its values in registers instead of through the interpreter.
 *
 * NVRTC is optional: `import devarray` never loads it.  The first fused
 * call on CUDA looks for libnvrtc ($DEVARRAY_NVRTC, then dynlib.h's
 * search: the loader, the nvidia-cuda-nvrtc wheel, the toolkits).  When it
 * is absent, of another CUDA release than the build's, or fails on a
 * program, a RuntimeWarning says so once and the interpreter runs that
 * program: the same results, more slowly.  DEVARRAY_JIT=0 turns it off.
 *
 * The source includes the op table's own headers (dtypes.h, ops.h,
 * ops_int.h, ops_math.h, optable.h; reduce_ordered.cuh for a final float
 * reduction; embedded by setup.py) and calls the
 * same element functions, compiled with --fmad=false like the kernels of
 * the build, so each value is the unfused chain's bit for bit.  Complex
 * programs take the interpreter (the complex functions need thrust).
 */
#ifndef DEVARRAY_SRC_JIT_H_
#define DEVARRAY_SRC_JIT_H_

#include "base/common.h"

/* Add the private _set_fuse_jit() to `module`. */
int jit_module_init(PyObject *module);

#ifdef DEVARRAY_HAVE_CUDA
/* Whether fused programs may go to the compiler (enabled and NVRTC
   loaded, loading it on first ask).  Never raises: a failure to load is
   the warning above. */
int jit_ready(void);

/* Run f on `stream` with its compiled kernel: 1 when launched, 0 when the
   compiler declines or is unavailable (the caller runs the interpreter),
   -1 with an exception (a launch failure, a warning turned error).  With
   op < 0 the results go to out (f->out).  Otherwise they are reduced by op
   into the float accumulator acc_typenum, where da_reduce_in_order(op,
   f->out_typenum): one kernel reads the inputs and combines in the
   unfused reduction's order, its blocks' results in `partials`
   (da_ordered_blocks(f->size) accumulators, free once the stream passes
   them), the result at out. */
int jit_fuse(const da_fuse *f, int op, int acc_typenum, void *partials, void *out,
             cudaStream_t stream);
#endif

/* For tests, on any machine with NVRTC (no GPU needed): f's source and
   the size of its cubin for the oldest architecture NVRTC supports, as
   (source, nbytes); None where the compiler declines f; RuntimeError
   without NVRTC or when it fails. */
PyObject *jit_compile_only(const da_fuse *f);

#endif /* DEVARRAY_SRC_JIT_H_ */
