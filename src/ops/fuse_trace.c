/*
 * Tracing for devarray.fuse: see fuse_trace.h.
 *
 * A tracer is a small object (FuseTracer) with the number slots of a
 * DeviceArray: every operator, devarray.<ufunc>(...) and devarray.where
 * (through ufunc.c's hook) on a tracer appends values to the current trace
 * instead of computing.  Types come from ufunc_types and Python scalars
 * from ufunc_scalar_operand, the unfused path's own functions, and each
 * result is normalised to its dtype as storing it would (a CONV through
 * the dtype), so a fused program computes the unfused chain's values.
 * Everything that is not elementwise (indexing, matmul, reshape, bool(),
 * in-place operators, ...) is a TypeError naming it, at trace time.
 */
#include "ops/fuse_trace.h"

#include "core/array.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "core/elementwise.h"
#include "core/reduce.h"
#include "interop/scalar.h"
#include "ops/ufunc.h"

typedef struct {
    PyObject_HEAD
    uint64_t trace_id;
    int value;        /* index in the trace's values */
    int typenum;      /* the array's dtype; -1: a Python scalar argument */
    int ndim;
    int reduced;      /* the final reduction: nothing may follow */
    PyObject *scalar; /* a scalar argument's value at trace time (owned) */
} FuseTracerObject;

static PyTypeObject FuseTracer_Type;
static fuse_trace *fuse_trace_current = NULL;
static uint64_t fuse_trace_next_id = 1;

static const char *const fuse_op_names[DA_NOPS] = {
#define FUSE_OP_NAME_(ID, name, nin, rule, doc) [DA_OP_##ID] = #name,
    DA_FOR_EACH_OP(FUSE_OP_NAME_)
#undef FUSE_OP_NAME_
};

/* ---- the trace --------------------------------------------------------- */

void
fuse_trace_begin(fuse_trace *t, fuse_trace **saved)
{
    t->id = fuse_trace_next_id++;
    t->reduce_op = -1;
    t->reduce_typenum = -1;
    *saved = fuse_trace_current;
    fuse_trace_current = t;
}

void
fuse_trace_end(fuse_trace *t, fuse_trace *saved)
{
    fuse_trace_current = saved;
    PyMem_Free(t->values);
    t->values = NULL;
    t->nvalues = t->capacity = 0;
    Py_CLEAR(t->reduce_axis);
}

/* A new value (zeroed but for kind, typenum, cls, ndim); its index, or -1
   with MemoryError. */
static int
fuse_trace_add(fuse_trace *t, int kind, int typenum, int cls, int ndim)
{
    fuse_value *v;

    if (t->nvalues == t->capacity) {
        const int capacity = t->capacity == 0 ? 32 : 2 * t->capacity;
        fuse_value *grown = PyMem_Realloc(t->values, sizeof(fuse_value) * (size_t)capacity);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->values = grown;
        t->capacity = capacity;
    }
    v = &t->values[t->nvalues];
    memset(v, 0, sizeof(*v));
    v->kind = kind;
    v->typenum = typenum;
    v->cls = cls;
    v->ndim = ndim;
    return t->nvalues++;
}

/* An instruction value; its index or -1. */
static int
fuse_trace_instr(fuse_trace *t, int code, int typenum, int cls, int ndim, int a, int b, int c)
{
    const int v = fuse_trace_add(t, FUSE_V_INSTR, typenum, cls, ndim);
    if (v >= 0) {
        t->values[v].instr.code = (uint16_t)code;
        t->values[v].in[0] = a;
        t->values[v].in[1] = b < 0 ? a : b;
        t->values[v].in[2] = c < 0 ? a : c;
    }
    return v;
}

/* Value v (class from) as a round trip through memory of dtype typenum
   into class to (DA_FUSE_CONV), standing for `result` (-1: a class value
   only); its index or -1. */
static int
fuse_trace_conv(fuse_trace *t, int v, int from, int typenum, int to, int result)
{
    const int r = fuse_trace_instr(t, DA_FUSE_CONV, result, to, t->values[v].ndim, v, -1, -1);
    if (r >= 0) {
        t->values[r].instr.from = (uint8_t)from;
        t->values[r].instr.typenum = (uint8_t)typenum;
        t->values[r].instr.to = (uint8_t)to;
    }
    return r;
}

/* Value v, of dtype D, as a value of class cls: as da_load_<cls> reads D. */
static int
fuse_trace_as_class(fuse_trace *t, int v, int cls)
{
    const fuse_value *x = &t->values[v];
    if (x->cls == cls) {
        return v;
    }
    return fuse_trace_conv(t, v, x->cls, x->typenum, cls, -1);
}

/* The class value v (class cls) as a value of dtype `result`: rounded or
   truncated as storing it would, unless result is its class's own dtype. */
static int
fuse_trace_normalise(fuse_trace *t, int v, int result)
{
    switch (result) {
        case DA_BOOL:
        case DA_INT64:
        case DA_UINT64:
        case DA_FLOAT32:
        case DA_FLOAT64:
        case DA_COMPLEX64:
        case DA_COMPLEX128:
            t->values[v].typenum = result;
            return v;
        default:
            return fuse_trace_conv(t, v, t->values[v].cls, result, da_class_of(result), result);
    }
}

/* ---- tracers ------------------------------------------------------------ */

static PyObject *
fuse_tracer_new(fuse_trace *t, int value, int typenum, int ndim, PyObject *scalar)
{
    FuseTracerObject *tr = PyObject_New(FuseTracerObject, &FuseTracer_Type);
    if (tr == NULL) {
        return NULL;
    }
    tr->trace_id = t->id;
    tr->value = value;
    tr->typenum = typenum;
    tr->ndim = ndim;
    tr->reduced = 0;
    Py_XINCREF(scalar);
    tr->scalar = scalar;
    return (PyObject *)tr;
}

PyObject *
fuse_tracer_new_arg(fuse_trace *t, int arg, int typenum, int ndim, PyObject *scalar)
{
    int v;

    if (typenum >= 0) {
        v = fuse_trace_add(t, FUSE_V_INPUT, typenum, da_class_of(typenum), ndim);
    }
    else {
        /* its value is made per op it takes part in (fuse_record) */
        v = -1;
    }
    if (typenum >= 0 && v < 0) {
        return NULL;
    }
    if (v >= 0) {
        t->values[v].arg = arg;
    }
    else {
        v = arg;
    }
    return fuse_tracer_new(t, v, typenum, ndim, scalar);
}

int
fuse_is_tracer(PyObject *obj)
{
    return Py_IS_TYPE(obj, &FuseTracer_Type);
}

/* The tracer obj if it belongs to the current trace; NULL with TypeError
   otherwise (kept past its trace), or when it is the final reduction and
   `what` would compute with it. */
static FuseTracerObject *
fuse_tracer_check(PyObject *obj, const char *what)
{
    FuseTracerObject *tr = (FuseTracerObject *)obj;

    if (fuse_trace_current == NULL || tr->trace_id != fuse_trace_current->id) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: %s() on a tracer outside the trace of its fused "
                     "function (a tracer kept past the call)",
                     what);
        return NULL;
    }
    if (tr->reduced) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: %s() after the final reduction: a fused function may "
                     "only return its one reduction",
                     what);
        return NULL;
    }
    return tr;
}

int
fuse_trace_result(fuse_trace *t, PyObject *obj, int *value, int *reduced)
{
    FuseTracerObject *tr = (FuseTracerObject *)obj;

    if (!fuse_is_tracer(obj) || tr->trace_id != t->id || tr->typenum < 0) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: a fused function must return an array computed from "
                     "its arguments (or its one final reduction), not %.200s",
                     fuse_is_tracer(obj) ? "a Python scalar argument" : Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (t->reduce_op >= 0 && !tr->reduced) {
        PyErr_SetString(PyExc_TypeError,
                        "fuse: the final reduction must be what the fused function returns");
        return -1;
    }
    *value = tr->value;
    *reduced = tr->reduced;
    return 0;
}

/* ---- recording ops ------------------------------------------------------- */

/* Refuse an operand that cannot be traced; 0, or -1 with TypeError. */
static int
fuse_check_operand(const char *name, PyObject *obj, char *kind)
{
    if (DeviceArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: %s() of a DeviceArray that is not an argument of the "
                     "fused function (captured from outside): pass it as an argument",
                     name);
        return -1;
    }
    if ((*kind = scalar_python_kind(obj)) == 0) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: %s() takes traced arrays and Python scalars, not %.200s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* The traced op(operands) (nin of them); a new tracer or NULL. */
static PyObject *
fuse_record(int op, const char *name, PyObject *const *operands, int nin)
{
    fuse_trace *t = fuse_trace_current;
    PyObject *objs[2] = {NULL, NULL};
    int typenums[2] = {-1, -1}, vals[2] = {-1, -1};
    char kinds[2] = {0, 0};
    int k, compute, cls, result, run_op, ndim = 0, any_array = 0, r;

    for (k = 0; k < nin; k++) {
        objs[k] = operands[k];
        if (fuse_is_tracer(operands[k])) {
            FuseTracerObject *tr = fuse_tracer_check(operands[k], name);
            if (tr == NULL) {
                return NULL;
            }
            if (tr->typenum >= 0) {
                typenums[k] = tr->typenum;
                any_array = 1;
                ndim = tr->ndim > ndim ? tr->ndim : ndim;
            }
            else {
                objs[k] = tr->scalar;
                kinds[k] = scalar_python_kind(tr->scalar);
            }
        }
        else if (fuse_check_operand(name, operands[k], &kinds[k]) < 0) {
            return NULL;
        }
    }
    if (!any_array) {
        PyErr_Format(PyExc_TypeError,
                     "fuse: %s() of Python scalars only is not traced: compute it "
                     "outside the fused function, or pass an array",
                     name);
        return NULL;
    }
    if (ufunc_types(op, typenums, objs, kinds, &compute, &cls, &result, &run_op) < 0) {
        return NULL;
    }
    for (k = 0; k < nin; k++) {
        if (typenums[k] >= 0) {
            vals[k] = fuse_trace_as_class(t, ((FuseTracerObject *)operands[k])->value, cls);
        }
        else if (fuse_is_tracer(operands[k])) {
            /* converted per call, as ufunc_apply would convert it */
            vals[k] = fuse_trace_add(t, FUSE_V_SCALAR, -1, cls, 0);
            if (vals[k] >= 0) {
                fuse_value *v = &t->values[vals[k]];
                v->arg = ((FuseTracerObject *)operands[k])->value;
                v->op = op;
                v->k = k;
                v->compute = compute;
            }
        }
        else {
            da_scalar value;
            uint8_t fill = 0;
            const int status =
                ufunc_scalar_operand(op, k, operands[k], compute, cls, 0, &value, &fill);
            if (status < 0) {
                return NULL;
            }
            vals[k] = fuse_trace_add(t, FUSE_V_CONST, -1, cls, 0);
            if (vals[k] >= 0 && status == 1) {
                /* NumPy's constant answer: the whole result is `fill`, a
                   copy that also reads the array for its shape */
                const int array = ((FuseTracerObject *)operands[1 - k])->value;
                t->values[vals[k]].cls = DA_CLASS_BOOL;
                t->values[vals[k]].value.b = fill;
                r = fuse_trace_instr(t, DA_OP_COPY * DA_NCLASSES + DA_CLASS_BOOL, DA_BOOL,
                                     DA_CLASS_BOOL, ndim, vals[k], array, -1);
                return r < 0 ? NULL : fuse_tracer_new(t, r, DA_BOOL, ndim, NULL);
            }
            if (vals[k] >= 0) {
                t->values[vals[k]].value = value;
            }
        }
        if (vals[k] < 0) {
            return NULL;
        }
    }
    if (typenums[0] >= 0 && nin == 2 && typenums[1] < 0 && !fuse_is_tracer(operands[1]) &&
        ufunc_is_square(op, cls, &t->values[vals[1]].value)) {
        /* x ** 2 with a literal 2 as x * x, as ufunc_apply runs it */
        run_op = DA_OP_MUL;
        vals[1] = vals[0];
    }
    if (run_op == DA_OP_COPY && t->values[vals[0]].typenum != result) {
        /* a cast: vals[0] is a value of its own, made for this op */
        r = fuse_trace_normalise(t, vals[0], result);
    }
    else {
        /* (a COPY of the operand's own dtype is an instruction too: its
           result is a new array, as the unfused path's) */
        r = fuse_trace_instr(t, run_op * DA_NCLASSES + cls, -1, da_class_of(result), ndim,
                             vals[0], nin == 2 ? vals[1] : -1, -1);
        r = r < 0 ? -1 : fuse_trace_normalise(t, r, result);
    }
    if (r < 0) {
        return NULL;
    }
    return fuse_tracer_new(t, r, result, ndim, NULL);
}

/* devarray.where(cond, x1, x2) traced: the unfused select_where's dtypes
   and casts (copy_cast: through elementwise_cast_class), as values. */
static PyObject *
fuse_record_where(PyObject *const *args)
{
    fuse_trace *t = fuse_trace_current;
    FuseTracerObject *trs[3] = {NULL, NULL, NULL};
    char kinds[3] = {0, 0, 0};
    int vals[3], k, result = -1, ndim = 0;

    for (k = 0; k < 3; k++) {
        if (fuse_is_tracer(args[k])) {
            if ((trs[k] = fuse_tracer_check(args[k], "where")) == NULL) {
                return NULL;
            }
            if (trs[k]->typenum < 0) {
                PyErr_SetString(PyExc_TypeError,
                                "fuse: where() of a Python scalar argument is not traced; "
                                "pass an array or use a constant");
                return NULL;
            }
            ndim = trs[k]->ndim > ndim ? trs[k]->ndim : ndim;
            if (k > 0) {
                result = result < 0 ? trs[k]->typenum : dtype_promote(result, trs[k]->typenum);
            }
        }
        else if (k == 0) {
            PyErr_SetString(PyExc_TypeError,
                            "fuse: where() needs a traced array as its condition");
            return NULL;
        }
        else if (fuse_check_operand("where", args[k], &kinds[k]) < 0) {
            return NULL;
        }
    }
    if (result < 0) {
        PyErr_SetString(PyExc_TypeError,
                        "where() needs at least one of x1 and x2 to be a DeviceArray");
        return NULL;
    }
    for (k = 1; k < 3; k++) {
        if (trs[k] == NULL && !scalar_is_weak(args[k])) {
            result = dtype_promote(result, scalar_default_typenum(kinds[k]));
        }
    }
    for (k = 1; k < 3; k++) {
        if (trs[k] == NULL && scalar_is_weak(args[k]) &&
            (result = dtype_promote_weak(result, kinds[k])) < 0) {
            return NULL;
        }
    }
    /* the condition as bool: a cast to bool computes in the bool class */
    vals[0] = fuse_trace_as_class(t, trs[0]->value, DA_CLASS_BOOL);
    for (k = 1; k < 3 && vals[0] >= 0; k++) {
        if (trs[k] == NULL) {
            /* the scalar stored as one element of the result dtype */
            const int via = result == DA_FLOAT16 ? DA_CLASS_F64 : (int)da_class_of(result);
            da_scalar v;
            if (scalar_from_python(args[k], result, via, &v) < 0) {
                return NULL;
            }
            vals[k] = fuse_trace_add(t, FUSE_V_CONST, -1, da_class_of(result), 0);
            if (vals[k] >= 0) {
                da_fuse_convert(&v, via, result, da_class_of(result), &t->values[vals[k]].value);
            }
        }
        else if (trs[k]->typenum == result) {
            vals[k] = trs[k]->value;
        }
        else {
            const int via = elementwise_cast_class(trs[k]->typenum, result);
            const int loaded = fuse_trace_as_class(t, trs[k]->value, via);
            vals[k] = loaded < 0 ? -1
                                 : fuse_trace_conv(t, loaded, via, result,
                                                   da_class_of(result), result);
        }
        if (vals[k] < 0) {
            return NULL;
        }
    }
    if (vals[0] < 0) {
        return NULL;
    }
    k = fuse_trace_instr(t, DA_FUSE_WHERE + (int)da_class_of(result), result,
                         da_class_of(result), ndim, vals[0], vals[1], vals[2]);
    return k < 0 ? NULL : fuse_tracer_new(t, k, result, ndim, NULL);
}

/* ufunc.c's hook: devarray.<op>(...) and devarray.where(...) on tracers. */
static int
fuse_trace_hook(int op, PyObject *const *args, Py_ssize_t nargs, PyObject **result)
{
    Py_ssize_t k;
    int any = 0;

    for (k = 0; k < nargs; k++) {
        any = any || fuse_is_tracer(args[k]);
    }
    if (!any) {
        return 0;
    }
    if (op == DA_NOPS) {
        if (nargs != 3) {
            return 0;
        }
        *result = fuse_record_where(args);
        return 1;
    }
    if (nargs != da_op_nin(op)) {
        return 0;
    }
    *result = fuse_record(op, fuse_op_names[op], args, (int)nargs);
    return 1;
}

/* ---- the tracer type ----------------------------------------------------- */

static void
fuse_tracer_dealloc(FuseTracerObject *self)
{
    Py_XDECREF(self->scalar);
    PyObject_Free(self);
}

static PyObject *
fuse_tracer_binary(int op, PyObject *a, PyObject *b)
{
    PyObject *operands[2] = {a, b};
    return fuse_record(op, fuse_op_names[op], operands, 2);
}

static PyObject *
fuse_tracer_unary(int op, PyObject *a)
{
    return fuse_record(op, fuse_op_names[op], &a, 1);
}

#define FUSE_BINARY_(name, op)                                 \
    static PyObject *fuse_tracer_##name(PyObject *a, PyObject *b) \
    {                                                          \
        return fuse_tracer_binary(op, a, b);                   \
    }
FUSE_BINARY_(add, DA_OP_ADD)
FUSE_BINARY_(subtract, DA_OP_SUB)
FUSE_BINARY_(multiply, DA_OP_MUL)
FUSE_BINARY_(true_divide, DA_OP_DIV)
FUSE_BINARY_(floor_divide, DA_OP_FLOOR_DIVIDE)
FUSE_BINARY_(remainder, DA_OP_REMAINDER)
FUSE_BINARY_(and, DA_OP_BITWISE_AND)
FUSE_BINARY_(or, DA_OP_BITWISE_OR)
FUSE_BINARY_(xor, DA_OP_BITWISE_XOR)
FUSE_BINARY_(lshift, DA_OP_BITWISE_LEFT_SHIFT)
FUSE_BINARY_(rshift, DA_OP_BITWISE_RIGHT_SHIFT)
#undef FUSE_BINARY_

#define FUSE_UNARY_(name, op)                      \
    static PyObject *fuse_tracer_##name(PyObject *a) \
    {                                              \
        return fuse_tracer_unary(op, a);           \
    }
FUSE_UNARY_(negative, DA_OP_NEG)
FUSE_UNARY_(positive, DA_OP_POSITIVE)
FUSE_UNARY_(absolute, DA_OP_ABS)
FUSE_UNARY_(invert, DA_OP_BITWISE_INVERT)
#undef FUSE_UNARY_

static PyObject *
fuse_tracer_power(PyObject *a, PyObject *b, PyObject *modulo)
{
    if (modulo != Py_None) {
        PyErr_SetString(PyExc_TypeError, "fuse: pow() with a modulo is not traced");
        return NULL;
    }
    return fuse_tracer_binary(DA_OP_POW, a, b);
}

/* What is not elementwise: a TypeError naming it. */
static PyObject *
fuse_tracer_refuse(const char *what)
{
    PyErr_Format(PyExc_TypeError,
                 "fuse: %s is not an elementwise operation and cannot be traced in a "
                 "fused function",
                 what);
    return NULL;
}

static PyObject *
fuse_tracer_refuse_binary(PyObject *Py_UNUSED(a), PyObject *Py_UNUSED(b))
{
    return fuse_tracer_refuse("this operator (in-place, @ or divmod)");
}

static PyObject *
fuse_tracer_refuse_inplace_power(PyObject *Py_UNUSED(a), PyObject *Py_UNUSED(b),
                                 PyObject *Py_UNUSED(c))
{
    return fuse_tracer_refuse("an in-place operator");
}

static int
fuse_tracer_bool(PyObject *Py_UNUSED(self))
{
    fuse_tracer_refuse("bool() (a traced value has no value yet: use where())");
    return -1;
}

static PyObject *
fuse_tracer_unaryrefuse(PyObject *Py_UNUSED(self))
{
    return fuse_tracer_refuse("int(), float() or index()");
}

static PyObject *
fuse_tracer_richcompare(PyObject *a, PyObject *b, int cmp)
{
    static const int ops[6] = {DA_OP_LESS,  DA_OP_LESS_EQUAL, DA_OP_EQUAL,
                               DA_OP_NOT_EQUAL, DA_OP_GREATER, DA_OP_GREATER_EQUAL};
    return fuse_tracer_binary(ops[cmp], a, b);
}

static PyObject *
fuse_tracer_subscript(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(key))
{
    return fuse_tracer_refuse("indexing");
}

static PyObject *
fuse_tracer_iter(PyObject *Py_UNUSED(self))
{
    return fuse_tracer_refuse("iteration");
}

/* Attributes beyond dtype and ndim (shape, reshape, T, ...) are not
   traced; a protocol's dunder stays an AttributeError, so that probes
   (hasattr(x, "__dlpack__")) answer no. */
static PyObject *
fuse_tracer_getattro(PyObject *self, PyObject *name)
{
    PyObject *found = PyObject_GenericGetAttr(self, name);
    if (found == NULL && PyErr_ExceptionMatches(PyExc_AttributeError) &&
        !(PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) > 2 &&
          PyUnicode_READ_CHAR(name, 0) == '_' && PyUnicode_READ_CHAR(name, 1) == '_')) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "fuse: .%U is not an elementwise operation and cannot be traced in "
                     "a fused function",
                     name);
    }
    return found;
}

static PyObject *
fuse_tracer_dtype(FuseTracerObject *self, void *Py_UNUSED(closure))
{
    if (self->typenum < 0) {
        return fuse_tracer_refuse(".dtype of a Python scalar argument");
    }
    return dtypeobject_singleton(self->typenum);
}

static PyObject *
fuse_tracer_ndim(FuseTracerObject *self, void *Py_UNUSED(closure))
{
    if (self->typenum < 0) {
        return fuse_tracer_refuse(".ndim of a Python scalar argument");
    }
    return PyLong_FromLong(self->ndim);
}

/* The final reduction x.<op>(axis=None[, dtype=None], keepdims=False). */
static PyObject *
fuse_tracer_reduce(PyObject *self, int op, PyObject *args, PyObject *kwds)
{
    static char *kwlist_dtype[] = {"axis", "dtype", "keepdims", NULL};
    static char *kwlist[] = {"axis", "keepdims", NULL};
    static const char *const names[DA_NREDUCE] = {"sum", "prod", "max", "min"};
    fuse_trace *t = fuse_trace_current;
    FuseTracerObject *tr = fuse_tracer_check(self, names[op]), *out;
    PyObject *axis = Py_None;
    int reduced[DA_MAXDIMS], typenum = -1, keepdims = 0, ok;

    if (tr == NULL) {
        return NULL;
    }
    ok = op == DA_REDUCE_SUM || op == DA_REDUCE_PROD
             ? PyArg_ParseTupleAndKeywords(args, kwds, "|OO&p", kwlist_dtype, &axis,
                                           dtypeobject_converter_optional, &typenum,
                                           &keepdims)
             : PyArg_ParseTupleAndKeywords(args, kwds, "|Op", kwlist, &axis, &keepdims);
    if (!ok) {
        return NULL;
    }
    if (tr->typenum < 0) {
        return fuse_tracer_refuse("a reduction of a Python scalar argument");
    }
    if (t->reduce_op >= 0) {
        PyErr_SetString(PyExc_TypeError, "fuse: a fused function has one final reduction");
        return NULL;
    }
    if (reduce_parse_axes(axis, tr->ndim, reduced) < 0) {
        return NULL;
    }
    out = (FuseTracerObject *)fuse_tracer_new(t, tr->value, tr->typenum, tr->ndim, NULL);
    if (out == NULL) {
        return NULL;
    }
    out->reduced = 1;
    t->reduce_op = op;
    t->reduce_typenum = typenum;
    t->reduce_keepdims = keepdims;
    Py_INCREF(axis);
    t->reduce_axis = axis;
    return (PyObject *)out;
}

#define FUSE_REDUCE_(name, op)                                                     \
    static PyObject *fuse_tracer_##name(PyObject *self, PyObject *args, PyObject *kwds) \
    {                                                                              \
        return fuse_tracer_reduce(self, op, args, kwds);                           \
    }
FUSE_REDUCE_(sum, DA_REDUCE_SUM)
FUSE_REDUCE_(prod, DA_REDUCE_PROD)
FUSE_REDUCE_(max, DA_REDUCE_MAX)
FUSE_REDUCE_(min, DA_REDUCE_MIN)
#undef FUSE_REDUCE_

static PyNumberMethods fuse_tracer_as_number = {
    .nb_add = fuse_tracer_add,
    .nb_subtract = fuse_tracer_subtract,
    .nb_multiply = fuse_tracer_multiply,
    .nb_remainder = fuse_tracer_remainder,
    .nb_divmod = fuse_tracer_refuse_binary,
    .nb_power = fuse_tracer_power,
    .nb_negative = fuse_tracer_negative,
    .nb_positive = fuse_tracer_positive,
    .nb_absolute = fuse_tracer_absolute,
    .nb_bool = fuse_tracer_bool,
    .nb_invert = fuse_tracer_invert,
    .nb_lshift = fuse_tracer_lshift,
    .nb_rshift = fuse_tracer_rshift,
    .nb_and = fuse_tracer_and,
    .nb_xor = fuse_tracer_xor,
    .nb_or = fuse_tracer_or,
    .nb_int = fuse_tracer_unaryrefuse,
    .nb_float = fuse_tracer_unaryrefuse,
    .nb_inplace_add = fuse_tracer_refuse_binary,
    .nb_inplace_subtract = fuse_tracer_refuse_binary,
    .nb_inplace_multiply = fuse_tracer_refuse_binary,
    .nb_inplace_remainder = fuse_tracer_refuse_binary,
    .nb_inplace_power = fuse_tracer_refuse_inplace_power,
    .nb_inplace_lshift = fuse_tracer_refuse_binary,
    .nb_inplace_rshift = fuse_tracer_refuse_binary,
    .nb_inplace_and = fuse_tracer_refuse_binary,
    .nb_inplace_xor = fuse_tracer_refuse_binary,
    .nb_inplace_or = fuse_tracer_refuse_binary,
    .nb_floor_divide = fuse_tracer_floor_divide,
    .nb_true_divide = fuse_tracer_true_divide,
    .nb_inplace_floor_divide = fuse_tracer_refuse_binary,
    .nb_inplace_true_divide = fuse_tracer_refuse_binary,
    .nb_index = fuse_tracer_unaryrefuse,
    .nb_matrix_multiply = fuse_tracer_refuse_binary,
    .nb_inplace_matrix_multiply = fuse_tracer_refuse_binary,
};

static PyMappingMethods fuse_tracer_as_mapping = {
    .mp_subscript = fuse_tracer_subscript,
};

static PyGetSetDef fuse_tracer_getset[] = {
    {"dtype", (getter)fuse_tracer_dtype, NULL, "The traced value's dtype.", NULL},
    {"ndim", (getter)fuse_tracer_ndim, NULL, "The traced value's number of dimensions.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

#define FUSE_REDUCE_METHOD_(name, doc)                                            \
    {#name, (PyCFunction)(void (*)(void))fuse_tracer_##name,                       \
     METH_VARARGS | METH_KEYWORDS, doc " of the traced value: the fused function's " \
     "final reduction."}
static PyMethodDef fuse_tracer_methods[] = {
    FUSE_REDUCE_METHOD_(sum, "The sum"),
    FUSE_REDUCE_METHOD_(prod, "The product"),
    FUSE_REDUCE_METHOD_(max, "The maximum"),
    FUSE_REDUCE_METHOD_(min, "The minimum"),
    {NULL, NULL, 0, NULL},
};
#undef FUSE_REDUCE_METHOD_

static PyTypeObject FuseTracer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.FuseTracer",
    .tp_basicsize = sizeof(FuseTracerObject),
    .tp_dealloc = (destructor)fuse_tracer_dealloc,
    .tp_as_number = &fuse_tracer_as_number,
    .tp_as_mapping = &fuse_tracer_as_mapping,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_getattro = fuse_tracer_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Stands for an argument (or a value computed from them) of a "
              "devarray.fuse function while it is traced.",
    .tp_richcompare = fuse_tracer_richcompare,
    .tp_iter = fuse_tracer_iter,
    .tp_methods = fuse_tracer_methods,
    .tp_getset = fuse_tracer_getset,
};

int
fuse_trace_module_init(PyObject *module)
{
    if (PyType_Ready(&FuseTracer_Type) < 0 ||
        PyModule_AddObjectRef(module, "_FuseTracer", (PyObject *)&FuseTracer_Type) < 0) {
        return -1;
    }
    ufunc_trace_hook = fuse_trace_hook;
    return 0;
}
