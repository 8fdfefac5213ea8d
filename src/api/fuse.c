/*
 * devarray.fuse: see fuse.h and docs/fusion.md.
 *
 * A FusedFunction keeps the wrapped function and a cache from the kind of
 * each argument (an array's dtype and ndim, a scalar's exact type) to a
 * lowered program (fuse_program, in a capsule).  A call:
 *   1. looks its key up; on a miss traces the function once with tracers
 *      (fuse_trace.c) and lowers the trace: dead values dropped, registers
 *      allocated (each freed after its last use), limits checked;
 *   2. broadcasts the arrays the program reads, checks that each is
 *      C-contiguous of the result's shape or has one element, converts the
 *      scalar arguments as ufunc.c would, and runs the program once
 *      (backend_fuse); a final reduction then runs on its result
 *      (reduce_apply, the unfused reduction);
 *   3. anything the interpreter does not take (a program past the limits,
 *      another layout, a scalar the unfused path would refuse or answer
 *      with a constant) calls the function itself, unfused: the same
 *      results and errors, never a crash.
 *
 * Ownership: the FusedFunction owns fn and the cache; each capsule owns its
 * program (PyMem) and the program owns its reduction's axis.
 */
#include "api/fuse.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "ops/fuse_trace.h"
#include "runtime/jit.h"
#include "core/reduce.h"
#include "interop/scalar.h"
#include "ops/ufunc.h"

typedef struct {
    int slot; /* in consts[] */
    int arg, op, k, compute, cls;
} fuse_scalar_slot;

typedef struct {
    int fallback;     /* run the function unfused */
    int identity_arg; /* >= 0: the array part is this argument itself */
    da_fuse f;        /* without sizes, pointers and scalar arguments */
    int in_arg[DA_FUSE_MAXINPUTS];
    int nscalars;
    fuse_scalar_slot scalars[DA_FUSE_MAXCONSTS];
    int reduce_op, reduce_typenum, reduce_keepdims;
    PyObject *reduce_axis;
} fuse_program;

typedef struct {
    PyObject_HEAD
    PyObject *fn;
    PyObject *cache; /* dict: key bytes -> capsule of a fuse_program */
    Py_ssize_t traces;
} FusedFunctionObject;

static PyTypeObject FusedFunction_Type;

#define FUSE_CAPSULE "devarray.fuse.program"

static void
fuse_program_free(PyObject *capsule)
{
    fuse_program *p = PyCapsule_GetPointer(capsule, FUSE_CAPSULE);
    if (p != NULL) {
        Py_XDECREF(p->reduce_axis);
        PyMem_Free(p);
    }
}

/* ---- lowering ---------------------------------------------------------- */

/* Registers: a free list over DA_FUSE_MAXREGS; -1 when none is left. */
static int
fuse_reg_take(uint32_t *used)
{
    int r;
    for (r = 0; r < DA_FUSE_MAXREGS; r++) {
        if (!(*used & (UINT32_C(1) << r))) {
            *used |= UINT32_C(1) << r;
            return r;
        }
    }
    return -1;
}

/* Lower the trace, whose result is value `out`, into p (zeroed); 0, or -1
   with an exception.  A program past the interpreter's limits sets
   p->fallback. */
static int
fuse_lower(const fuse_trace *t, int out, fuse_program *p)
{
    const int n = t->nvalues;
    int *live = PyMem_Calloc((size_t)n * 3, sizeof(int)), *last, *reg;
    uint32_t used = 0;
    int v, j, nregs = 0, status = -1;

    if (live == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    last = live + n;
    reg = live + 2 * n;
    p->identity_arg = -1;
    if (t->values[out].kind == FUSE_V_INPUT) {
        p->identity_arg = t->values[out].arg;
        status = 0;
        goto done;
    }
    /* operands precede their users: one backward pass marks the live ones
       and the last instruction reading each */
    live[out] = 1;
    last[out] = n;
    for (v = out; v >= 0; v--) {
        if (live[v] && t->values[v].kind == FUSE_V_INSTR) {
            for (j = 0; j < 3; j++) {
                const int u = t->values[v].in[j];
                live[u] = 1;
                last[u] = last[u] > v ? last[u] : v;
            }
        }
    }
    for (v = 0; v <= out && !p->fallback; v++) {
        const fuse_value *x = &t->values[v];
        if (!live[v] || x->kind == FUSE_V_INSTR) {
            continue;
        }
        reg[v] = fuse_reg_take(&used);
        if (x->kind == FUSE_V_INPUT && p->f.ninputs < DA_FUSE_MAXINPUTS) {
            j = p->f.ninputs++;
            p->in_arg[j] = x->arg;
            p->f.in_typenum[j] = (uint8_t)x->typenum;
            p->f.in_reg[j] = (uint8_t)reg[v];
        }
        else if (x->kind != FUSE_V_INPUT && p->f.nconsts < DA_FUSE_MAXCONSTS) {
            j = p->f.nconsts++;
            p->f.const_reg[j] = (uint8_t)reg[v];
            p->f.consts[j] = x->value;
            if (x->kind == FUSE_V_SCALAR) {
                fuse_scalar_slot *s = &p->scalars[p->nscalars++];
                s->slot = j;
                s->arg = x->arg;
                s->op = x->op;
                s->k = x->k;
                s->compute = x->compute;
                s->cls = x->cls;
            }
            /* constants keep their registers throughout */
            last[v] = n;
        }
        else {
            p->fallback = 1;
        }
        p->fallback = p->fallback || reg[v] < 0;
    }
    for (v = 0; v <= out && !p->fallback; v++) {
        const fuse_value *x = &t->values[v];
        da_fuse_instr *ins;
        if (!live[v] || x->kind != FUSE_V_INSTR) {
            continue;
        }
        if (p->f.ninstrs == DA_FUSE_MAXINSTRS) {
            p->fallback = 1;
            break;
        }
        ins = &p->f.instrs[p->f.ninstrs++];
        *ins = x->instr;
        for (j = 0; j < 3; j++) {
            ins->in[j] = (uint8_t)reg[x->in[j]];
        }
        /* operands read for the last time free their registers first: the
           kernels read an element's operands before writing its result */
        for (j = 0; j < 3; j++) {
            const int u = x->in[j];
            if (last[u] == v && (used & (UINT32_C(1) << reg[u]))) {
                used &= ~(UINT32_C(1) << reg[u]);
            }
        }
        reg[v] = fuse_reg_take(&used);
        p->fallback = reg[v] < 0;
        ins->out = (uint8_t)(reg[v] < 0 ? 0 : reg[v]);
    }
    for (j = 0; j < DA_FUSE_MAXREGS; j++) {
        nregs = (used & (UINT32_C(1) << j)) ? j + 1 : nregs;
    }
    /* registers freed along the way may sit above the last one in use */
    for (j = 0; j < p->f.ninstrs; j++) {
        nregs = p->f.instrs[j].out + 1 > nregs ? p->f.instrs[j].out + 1 : nregs;
    }
    for (j = 0; j < p->f.ninputs; j++) {
        nregs = p->f.in_reg[j] + 1 > nregs ? p->f.in_reg[j] + 1 : nregs;
    }
    p->f.nregs = nregs;
    p->f.out_reg = reg[out];
    p->f.out_typenum = t->values[out].typenum;
    status = 0;
done:
    if (status == 0) {
        p->reduce_op = t->reduce_op;
        p->reduce_typenum = t->reduce_typenum;
        p->reduce_keepdims = t->reduce_keepdims;
        Py_XINCREF(t->reduce_axis);
        p->reduce_axis = t->reduce_axis;
    }
    PyMem_Free(live);
    return status;
}

/* Trace self->fn for args and lower it: a new capsule, or NULL. */
static PyObject *
fuse_trace_program(FusedFunctionObject *self, PyObject *args)
{
    const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    fuse_trace t;
    fuse_trace *saved;
    fuse_program *p = NULL;
    PyObject *tracers = NULL, *ret = NULL, *capsule = NULL;
    Py_ssize_t k;
    int out, reduced;

    memset(&t, 0, sizeof t);
    fuse_trace_begin(&t, &saved);
    if ((tracers = PyTuple_New(nargs)) == NULL) {
        goto error;
    }
    for (k = 0; k < nargs; k++) {
        PyObject *a = PyTuple_GET_ITEM(args, k), *tr;
        if (DeviceArray_Check(a)) {
            tr = fuse_tracer_new_arg(&t, (int)k, ((DeviceArrayObject *)a)->typenum,
                                     ((DeviceArrayObject *)a)->ndim, NULL);
        }
        else {
            tr = fuse_tracer_new_arg(&t, (int)k, -1, 0, a);
        }
        if (tr == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(tracers, k, tr);
    }
    if ((ret = PyObject_Call(self->fn, tracers, NULL)) == NULL ||
        fuse_trace_result(&t, ret, &out, &reduced) < 0) {
        goto error;
    }
    if ((p = PyMem_Calloc(1, sizeof(fuse_program))) == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    if (fuse_lower(&t, out, p) < 0) {
        PyMem_Free(p);
        goto error;
    }
    capsule = PyCapsule_New(p, FUSE_CAPSULE, fuse_program_free);
    if (capsule == NULL) {
        Py_XDECREF(p->reduce_axis);
        PyMem_Free(p);
    }
    self->traces++;
error:
    fuse_trace_end(&t, saved);
    Py_XDECREF(tracers);
    Py_XDECREF(ret);
    return capsule;
}

/* ---- calls --------------------------------------------------------------- */

/* The cache key of args: per argument an array's dtype and ndim, or a
   scalar's exact type.  A new bytes object, or NULL with TypeError for an
   argument of another type. */
static PyObject *
fuse_key(PyObject *args)
{
    const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    PyObject *key = PyBytes_FromStringAndSize(NULL, nargs * (Py_ssize_t)sizeof(uintptr_t));
    Py_ssize_t k;

    if (key == NULL) {
        return NULL;
    }
    for (k = 0; k < nargs; k++) {
        PyObject *a = PyTuple_GET_ITEM(args, k);
        uintptr_t word;
        if (DeviceArray_Check(a)) {
            const DeviceArrayObject *x = (const DeviceArrayObject *)a;
            word = 1 + (uintptr_t)x->typenum * 64 + (uintptr_t)x->ndim;
        }
        else if (scalar_python_kind(a) != 0) {
            word = (uintptr_t)Py_TYPE(a);
        }
        else {
            PyErr_Format(PyExc_TypeError,
                         "fuse: a fused function takes DeviceArrays and Python scalars, "
                         "not %.200s (argument %zd)",
                         Py_TYPE(a)->tp_name, k);
            Py_DECREF(key);
            return NULL;
        }
        memcpy(PyBytes_AS_STRING(key) + k * (Py_ssize_t)sizeof(uintptr_t), &word,
               sizeof word);
    }
    return key;
}

/* Broadcast the program's arrays into shape (NumPy's rules) and fill f's
   pointers; 1 when the interpreter takes them (each C-contiguous of the
   result's shape or of one element), 0 when not, -1 with ValueError naming
   the shapes. */
static int
fuse_bind(const fuse_program *p, PyObject *args, da_fuse *f, int *ndim, int64_t *shape,
          int *backend)
{
    int j, d, fits = 1;

    *ndim = 0;
    for (j = 0; j < p->f.ninputs; j++) {
        const DeviceArrayObject *a = (const DeviceArrayObject *)PyTuple_GET_ITEM(args, p->in_arg[j]);
        const DeviceArrayObject *first =
            (const DeviceArrayObject *)PyTuple_GET_ITEM(args, p->in_arg[0]);
        if (a->backend != first->backend || a->device != first->device) {
            return 0; /* the unfused path names the mismatch */
        }
        if (a->ndim > *ndim) {
            memmove(shape + (a->ndim - *ndim), shape, sizeof(int64_t) * (size_t)*ndim);
            for (d = 0; d < a->ndim - *ndim; d++) {
                shape[d] = 1;
            }
            *ndim = a->ndim;
        }
        for (d = 0; d < a->ndim; d++) {
            const int64_t e = DA_SHAPE(a)[d];
            int64_t *s = &shape[*ndim - a->ndim + d];
            if (e != *s && e != 1 && *s != 1) {
                PyObject *sa = array_int64_tuple(*ndim, shape);
                PyObject *sb = array_int64_tuple(a->ndim, DA_SHAPE(a));
                if (sa != NULL && sb != NULL) {
                    PyErr_Format(PyExc_ValueError,
                                 "fuse: operands could not be broadcast together with "
                                 "shapes %R %R",
                                 sa, sb);
                }
                Py_XDECREF(sa);
                Py_XDECREF(sb);
                return -1;
            }
            *s = e == 1 ? *s : e;
        }
        f->in[j] = a->data;
        *backend = a->backend;
    }
    for (j = 0; j < p->f.ninputs; j++) {
        const DeviceArrayObject *a = (const DeviceArrayObject *)PyTuple_GET_ITEM(args, p->in_arg[j]);
        f->in_bcast[j] = (uint8_t)(a->size == 1);
        if (a->size != 1 && (a->ndim != *ndim || !array_is_c_contiguous(a) ||
                             memcmp(DA_SHAPE(a), shape, sizeof(int64_t) * (size_t)*ndim) != 0)) {
            fits = 0;
        }
    }
    return fits;
}

/* Append to f a CONV(from, typenum, to) of its output register, in place. */
static void
fuse_append_conv(da_fuse *f, int from, int typenum, int to)
{
    da_fuse_instr *ins = &f->instrs[f->ninstrs++];
    memset(ins, 0, sizeof(*ins));
    ins->code = DA_FUSE_CONV;
    ins->in[0] = ins->in[1] = ins->in[2] = ins->out = (uint8_t)f->out_reg;
    ins->from = (uint8_t)from;
    ins->typenum = (uint8_t)typenum;
    ins->to = (uint8_t)to;
}

/* p's final reduction in one pass on CUDA (da_cuda_fuse_reduce), when it
   reduces every axis of a non-empty result with the unfused bits (see
   below): 0 where it does not apply
   (the caller runs the program, then reduce_apply); 1 with *result (NULL
   with an exception).  The dtypes are reduce_apply's, step for step: the
   result's, the accumulator's, and the source dtype its input is cast to
   first (appended here as the casts elementwise_copy makes). */
static int
fuse_reduce_in_one_pass(const fuse_program *p, da_fuse *f, int backend, int ndim,
                        PyObject **result)
{
    const int op = p->reduce_op, d = f->out_typenum;
    int reduced[DA_MAXDIMS], k, result_type, acc_type, source_type, in_order, via;
    int64_t shape[DA_MAXDIMS];
    DeviceArrayObject *acc = NULL, *out = NULL;

    if (backend != DA_BACKEND_CUDA || f->size == 0 || f->ninstrs + 2 > DA_FUSE_MAXINSTRS) {
        return 0;
    }
    if (reduce_parse_axes(p->reduce_axis, ndim, reduced) < 0) {
        *result = NULL;
        return 1;
    }
    for (k = 0; k < ndim; k++) {
        if (!reduced[k]) {
            return 0;
        }
        shape[k] = 1;
    }
    result_type = op == DA_REDUCE_MAX || op == DA_REDUCE_MIN ? d
                  : p->reduce_typenum >= 0                  ? p->reduce_typenum
                                                            : dtype_sum_result(d);
    acc_type = da_reduce_accumulator(op, result_type);
    source_type = d;
    if (da_reduce_accumulator(op, d) != acc_type ||
        (result_type == DA_BOOL && d != DA_BOOL) ||
        (result_type == DA_FLOAT16 && d != DA_FLOAT16)) {
        source_type = result_type;
    }
    /* only where the bits are the unfused reduction's: float sums and
       products combine in its order (da_reduce_in_order), and no order
       changes an integer or bool result.  A float max/min, in which NaN or
       signed zero can win a tie, and complex sums (CUB's tree) take the
       unfused reduction */
    in_order = da_reduce_in_order(op, source_type);
    if (da_class_of(acc_type) != DA_CLASS_SINT && da_class_of(acc_type) != DA_CLASS_UINT &&
        da_class_of(acc_type) != DA_CLASS_BOOL && !in_order) {
        return 0;
    }
    /* float sums and products in the run-time compiler's one pass (on an
       H200, float32 ((a - b) ** 2).sum() of 2^28: 537 us against 1.51 ms
       unfused); integers in the interpreter's where there is no compiler,
       as before.  Otherwise the program's kernel and the unfused
       reduction: the interpreter's one pass is the slower (float32 5.07 ms
       against 4.25 ms; int32 7.47 against 6.71; compiled int32 1.10 ms) */
    if (backend_fuse_compiles(backend) != in_order) {
        return 0;
    }
    if (source_type != d) {
        via = elementwise_cast_class(d, source_type);
        if (via != (int)da_class_of(d)) {
            fuse_append_conv(f, da_class_of(d), d, via);
        }
        fuse_append_conv(f, via, source_type, da_class_of(source_type));
        f->out_typenum = source_type;
    }
    *result = NULL;
    acc = array_new(backend, acc_type, p->reduce_keepdims ? ndim : 0, shape);
    if (acc == NULL || backend_fuse_reduce(backend, f, op, acc_type, acc->data) < 0) {
        goto done;
    }
    if (acc_type == result_type) {
        out = acc;
        Py_INCREF(out);
    }
    else if ((out = array_new(backend, result_type, acc->ndim, shape)) == NULL ||
             elementwise_copy(out, acc) < 0) {
        Py_CLEAR(out);
    }
    *result = (PyObject *)out;
done:
    Py_XDECREF(acc);
    return 1;
}

/* f filled for running p on args (pointers, scalars, size): 1 when the
   program takes them, 0 when the function must run unfused, -1 with an
   exception. */
static int
fuse_prepare(const fuse_program *p, PyObject *args, da_fuse *f, int *ndim, int64_t *shape,
             int *backend)
{
    int j, fits;

    memcpy(f, &p->f, sizeof *f);
    fits = fuse_bind(p, args, f, ndim, shape, backend);
    if (fits < 0) {
        return -1;
    }
    /* an operand with no array at all (a constant result) has no backend
       of its own: the default one, as a new array gets */
    if (p->f.ninputs == 0 && (*backend = backend_default()) < 0) {
        return -1;
    }
    for (j = 0; j < p->nscalars && fits; j++) {
        const fuse_scalar_slot *s = &p->scalars[j];
        uint8_t fill;
        const int status = ufunc_scalar_operand(s->op, s->k, PyTuple_GET_ITEM(args, s->arg),
                                                s->compute, s->cls, 0, &f->consts[s->slot],
                                                &fill);
        if (status != 0) {
            /* the unfused path raises it again, or answers a constant */
            PyErr_Clear();
            fits = 0;
        }
    }
    if (fits && (f->size = array_shape_size(*ndim, shape, 1)) < 0) {
        return -1;
    }
    /* the result, and the launch, on the operands' device */
    if (fits && p->f.ninputs > 0 &&
        array_activate((const DeviceArrayObject *)PyTuple_GET_ITEM(args, p->in_arg[0])) < 0) {
        return -1;
    }
    return fits;
}

/* Run program p on args; a new reference, or NULL. */
static PyObject *
fuse_run(FusedFunctionObject *self, const fuse_program *p, PyObject *args)
{
    da_fuse f;
    int64_t shape[DA_MAXDIMS];
    int ndim, backend = 0, fits;
    DeviceArrayObject *out = NULL;
    PyObject *result;

    if (p->fallback) {
        return PyObject_Call(self->fn, args, NULL);
    }
    if (p->identity_arg >= 0) {
        out = (DeviceArrayObject *)PyTuple_GET_ITEM(args, p->identity_arg);
        Py_INCREF(out);
    }
    else {
        fits = fuse_prepare(p, args, &f, &ndim, shape, &backend);
        if (fits < 0) {
            return NULL;
        }
        if (!fits) {
            return PyObject_Call(self->fn, args, NULL);
        }
        if (p->reduce_op >= 0 && fuse_reduce_in_one_pass(p, &f, backend, ndim, &result)) {
            return result;
        }
        out = array_new(backend, p->f.out_typenum, ndim, shape);
        if (out == NULL) {
            return NULL;
        }
        f.out = out->data;
        if (f.size > 0 && backend_fuse(backend, &f) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (p->reduce_op < 0) {
        return (PyObject *)out;
    }
    result = reduce_apply(out, p->reduce_op, p->reduce_axis, p->reduce_typenum,
                          p->reduce_keepdims);
    Py_DECREF(out);
    return result;
}

/* The program for args' kinds (traced on first sight): a new reference
   to its capsule, or NULL. */
static PyObject *
fused_program(FusedFunctionObject *self, PyObject *args)
{
    PyObject *key, *capsule;

    if ((key = fuse_key(args)) == NULL) {
        return NULL;
    }
    capsule = PyDict_GetItemWithError(self->cache, key);
    if (capsule != NULL) {
        Py_INCREF(capsule);
    }
    else if (PyErr_Occurred() || (capsule = fuse_trace_program(self, args)) == NULL ||
             PyDict_SetItem(self->cache, key, capsule) < 0) {
        Py_CLEAR(capsule);
    }
    Py_DECREF(key);
    return capsule;
}

static PyObject *
fused_call(FusedFunctionObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *capsule, *result;
    Py_ssize_t k;

    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyErr_SetString(PyExc_TypeError,
                        "fuse: a fused function takes positional arguments only");
        return NULL;
    }
    /* called while another fused function is traced: trace through it */
    for (k = 0; k < PyTuple_GET_SIZE(args); k++) {
        if (fuse_is_tracer(PyTuple_GET_ITEM(args, k))) {
            return PyObject_Call(self->fn, args, NULL);
        }
    }
    if ((capsule = fused_program(self, args)) == NULL) {
        return NULL;
    }
    result = fuse_run(self, PyCapsule_GetPointer(capsule, FUSE_CAPSULE), args);
    Py_DECREF(capsule);
    return result;
}

/* For tests: the run-time compiler's (source, cubin bytes) for args, or
   None where it declines them or the function runs unfused (jit.h). */
static PyObject *
fused_jit_source(FusedFunctionObject *self, PyObject *args)
{
    const fuse_program *p;
    PyObject *capsule, *result = NULL;
    da_fuse f;
    int64_t shape[DA_MAXDIMS];
    int ndim, backend = 0, fits = 0;

    if ((capsule = fused_program(self, args)) == NULL) {
        return NULL;
    }
    p = PyCapsule_GetPointer(capsule, FUSE_CAPSULE);
    if (!p->fallback && p->identity_arg < 0) {
        fits = fuse_prepare(p, args, &f, &ndim, shape, &backend);
    }
    if (fits > 0) {
        result = jit_compile_only(&f);
    }
    else if (fits == 0) {
        result = Py_NewRef(Py_None);
    }
    Py_DECREF(capsule);
    return result;
}

/* ---- the type and devarray.fuse ---------------------------------------- */

static void
fused_dealloc(FusedFunctionObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->fn);
    Py_CLEAR(self->cache);
    PyObject_GC_Del(self);
}

static int
fused_traverse(FusedFunctionObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fn);
    Py_VISIT(self->cache);
    return 0;
}

static int
fused_clear(FusedFunctionObject *self)
{
    Py_CLEAR(self->fn);
    Py_CLEAR(self->cache);
    return 0;
}

static PyObject *
fused_traces(FusedFunctionObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(self->traces);
}

static PyObject *
fused_wrapped(FusedFunctionObject *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->fn);
}

static PyGetSetDef fused_getset[] = {
    {"traces", (getter)fused_traces, NULL,
     "How many times the function was traced (once per kind of arguments).", NULL},
    {"__wrapped__", (getter)fused_wrapped, NULL, "The function fused.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef fused_methods[] = {
    {"_jit_source", (PyCFunction)fused_jit_source, METH_VARARGS,
     "_jit_source(*args)\n--\n\nFor tests: (CUDA source, cubin bytes) of the kernel "
     "the run-time compiler makes for these arguments (compiled for NVRTC's oldest "
     "architecture, no GPU needed), or None where it would not compile them."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FusedFunction_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.FusedFunction",
    .tp_basicsize = sizeof(FusedFunctionObject),
    .tp_dealloc = (destructor)fused_dealloc,
    .tp_call = (ternaryfunc)fused_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A function fused by devarray.fuse: called like it, run as one kernel.",
    .tp_traverse = (traverseproc)fused_traverse,
    .tp_clear = (inquiry)fused_clear,
    .tp_methods = fused_methods,
    .tp_getset = fused_getset,
};

static PyObject *
fuse_fuse(PyObject *Py_UNUSED(module), PyObject *fn)
{
    FusedFunctionObject *self;

    if (!PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError, "fuse() takes a function, not %.200s",
                     Py_TYPE(fn)->tp_name);
        return NULL;
    }
    self = PyObject_GC_New(FusedFunctionObject, &FusedFunction_Type);
    if (self == NULL) {
        return NULL;
    }
    self->traces = 0;
    self->fn = Py_NewRef(fn);
    self->cache = PyDict_New();
    if (self->cache == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

static PyMethodDef fuse_method = {
    "fuse", (PyCFunction)fuse_fuse, METH_O,
    "fuse(fn, /)\n--\n\n"
    "fn traced into one kernel: a function of DeviceArrays and Python scalars "
    "made of elementwise ops, operators and where (and at most one final "
    ".sum/.prod/.max/.min), run with the results of calling it unfused, bit "
    "for bit.  Traced once per kind of arguments (dtypes, ndims, scalar "
    "types); docs/fusion.md says what fuses.",
};

int
fuse_module_init(PyObject *module)
{
    PyObject *module_name = PyModule_GetNameObject(module), *function = NULL;
    int status = -1;

    if (module_name == NULL) {
        return -1;
    }
    if (PyType_Ready(&FusedFunction_Type) < 0 ||
        PyModule_AddObjectRef(module, "_FusedFunction", (PyObject *)&FusedFunction_Type) < 0 ||
        fuse_trace_module_init(module) < 0) {
        goto error;
    }
    function = PyCFunction_NewEx(&fuse_method, NULL, module_name);
    if (function == NULL || PyModule_AddObjectRef(module, "fuse", function) < 0) {
        goto error;
    }
    status = 0;
error:
    Py_XDECREF(function);
    Py_DECREF(module_name);
    return status;
}
