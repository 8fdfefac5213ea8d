/*
 * Tracing for devarray.fuse (fuse.c): the tracer type that stands for an
 * argument of a fused function while it runs once, and the trace it
 * records (docs/fusion.md).
 *
 * A trace is a list of values in SSA form, each computed from earlier
 * ones: the arguments (arrays; Python scalars, converted per call),
 * constants (class values, converted at trace time as ufunc.c converts
 * them), and instructions of kernels/launch.h's da_fuse encoding whose
 * operands are value indices.  Every op records the types that ufunc.c's
 * own resolution gives (ufunc_types), so promotion is the unfused path's
 * by construction.
 *
 * Ownership: the trace owns its value array (PyMem) and a reference to the
 * final reduction's axis; tracers hold no reference to the trace, only its
 * id, so a tracer kept past its trace is refused, never dangling.
 */
#ifndef DEVARRAY_SRC_FUSE_TRACE_H_
#define DEVARRAY_SRC_FUSE_TRACE_H_

#include "base/common.h"

enum { FUSE_V_INPUT, FUSE_V_CONST, FUSE_V_SCALAR, FUSE_V_INSTR };

typedef struct {
    int kind;      /* FUSE_V_* */
    int typenum;   /* the dtype it stands for; -1: a class value only */
    int cls;       /* the class of the value */
    int ndim;
    int arg;       /* INPUT, SCALAR: the argument */
    int op, k, compute; /* SCALAR: operand k of op, computing in dtype compute */
    da_scalar value;    /* CONST */
    da_fuse_instr instr; /* INSTR: code, from, typenum, to (in[] unused) */
    int in[3];           /* INSTR: operand values */
} fuse_value;

typedef struct {
    uint64_t id;
    fuse_value *values;
    int nvalues, capacity;
    int reduce_op;          /* DA_REDUCE_*, -1 for none */
    int reduce_typenum;     /* sum/prod's dtype, -1 for the default */
    int reduce_keepdims;
    PyObject *reduce_axis;  /* owned */
} fuse_trace;

/* Start recording into `t` (zeroed by the caller): tracers made from now
   on belong to it.  Traces nest (a fused function called while another is
   traced records into the inner one).  fuse_trace_end stops it and frees
   what `t` holds. */
void fuse_trace_begin(fuse_trace *t, fuse_trace **saved);
void fuse_trace_end(fuse_trace *t, fuse_trace *saved);

/* A tracer for argument `arg`: an array of dtype typenum and ndim, or (with
   typenum -1) the Python scalar `scalar`.  New reference or NULL. */
PyObject *fuse_tracer_new_arg(fuse_trace *t, int arg, int typenum, int ndim, PyObject *scalar);

/* Whether obj is a tracer (of any trace). */
int fuse_is_tracer(PyObject *obj);

/* The value a fused function returned: *value (its index in t), *reduced
   whether it is the final reduction.  0, or -1 with TypeError when obj is
   not a tracer of t holding an array value. */
int fuse_trace_result(fuse_trace *t, PyObject *obj, int *value, int *reduced);

/* Add the tracer type to the module and install the ufunc hook. */
int fuse_trace_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_FUSE_TRACE_H_ */
