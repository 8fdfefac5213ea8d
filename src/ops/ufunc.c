/*
 * The elementwise ops as Python calls: see ufunc.h.
 *
 * One call: identify the operands (DeviceArray or Python scalar), promote
 * with dtype.c's tables (exact Python scalars are weak, NEP 50), apply the
 * op's rule (optable.h) to get the dtype it computes in, find the loop for
 * that dtype's class, broadcast, allocate the result (or check the in-place
 * output), launch one elementwise kernel.  Nothing goes through the host.
 */
#include "ops/ufunc.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "interop/scalar.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "runtime/device.h"

/* ---- the table, as data ----------------------------------------------- */

typedef struct {
    const char *name;
    int nin;
    int rule; /* DA_RULE_* */
} ufunc_info;

/* Kernels and descriptors have room for two operands. */
#define UFUNC_CHECK_NIN_(ID, name, nin, rule, doc) \
    _Static_assert((nin) == 1 || (nin) == 2, #name ": an op takes 1 or 2 operands");
DA_FOR_EACH_OP(UFUNC_CHECK_NIN_)
#undef UFUNC_CHECK_NIN_

/* The number of operands of op: 1 or 2, as checked above (spelt so that
   the static analysers see the bound of the operand arrays). */
#define UFUNC_NIN(op) (ufunc_table[op].nin == 2 ? 2 : 1)

static const ufunc_info ufunc_table[DA_NOPS] = {
#define UFUNC_INFO_(ID, name, nin, rule, doc) \
    [DA_OP_##ID] = {#name, nin, DA_RULE_##rule},
    DA_FOR_EACH_OP(UFUNC_INFO_)
#undef UFUNC_INFO_
};

/* 1 + the DA_RESULT_* kind of each (op, class) loop; 0 where there is none.
   A DA_FOR_EACH_COPY pair is a SAME loop that runs as COPY
   (ufunc_runs_as_copy). */
#define UFUNC_COPY_CLASS_(CLS, cname, ID) [DA_OP_##ID][CLS] = 1 + DA_RESULT_SAME,
#define UFUNC_COPY_LOOP_(ID, classes) DA_CLASSES_##classes(UFUNC_COPY_CLASS_, ID)
static const unsigned char ufunc_loops[DA_NOPS][DA_NCLASSES] = {
#define UFUNC_LOOP_(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR) [OP][CLS] = 1 + RESULT,
    DA_FOR_EACH_KERNEL(UFUNC_LOOP_)
#undef UFUNC_LOOP_
    DA_FOR_EACH_COPY(UFUNC_COPY_LOOP_)
};
#undef UFUNC_COPY_LOOP_
#undef UFUNC_COPY_CLASS_

#define UFUNC_COPY_CLASS_(CLS, cname, ID) [DA_OP_##ID][CLS] = 1,
#define UFUNC_COPY_LOOP_(ID, classes) DA_CLASSES_##classes(UFUNC_COPY_CLASS_, ID)
static const unsigned char ufunc_runs_as_copy[DA_NOPS][DA_NCLASSES] = {
    DA_FOR_EACH_COPY(UFUNC_COPY_LOOP_)
};
#undef UFUNC_COPY_LOOP_
#undef UFUNC_COPY_CLASS_

/* NumPy's math functions on bool and integers compute in the smallest
   float that holds every value of the dtype. */
static const unsigned char ufunc_inexact_of[DA_NTYPES] = {
    [DA_BOOL] = DA_FLOAT16,   [DA_INT8] = DA_FLOAT16,  [DA_UINT8] = DA_FLOAT16,
    [DA_INT16] = DA_FLOAT32,  [DA_UINT16] = DA_FLOAT32, [DA_INT32] = DA_FLOAT64,
    [DA_UINT32] = DA_FLOAT64, [DA_INT64] = DA_FLOAT64, [DA_UINT64] = DA_FLOAT64,
    [DA_FLOAT16] = DA_FLOAT16, [DA_FLOAT32] = DA_FLOAT32, [DA_FLOAT64] = DA_FLOAT64,
    [DA_COMPLEX64] = DA_COMPLEX64, [DA_COMPLEX128] = DA_COMPLEX128,
};

/* The dtype `op` computes in for operands promoted to `promoted` (by
   ufunc_promote, which has applied the INEXACT rule already), the class of
   its loop and the result dtype; -1 with TypeError when there is no loop
   for it. */
static int
ufunc_resolve(int op, int promoted, int *compute, int *cls, int *result)
{
    const ufunc_info *info = &ufunc_table[op];
    const char kind = dtype_table[promoted].kind;
    int loop;

    *compute = promoted;
    if (info->rule == DA_RULE_FLOAT64 && (kind == 'b' || kind == 'i' || kind == 'u')) {
        *compute = DA_FLOAT64;
    }
    else if (info->rule == DA_RULE_NUMBER && kind == 'b') {
        *compute = DA_INT8;
    }
    else if (info->rule == DA_RULE_BOOL) {
        *compute = DA_BOOL;
    }
    *cls = da_class_of(*compute);
    loop = ufunc_loops[op][*cls];
    if (loop == 0) {
        PyErr_Format(PyExc_TypeError,
                     "ufunc '%s' is not supported for the input dtype %s",
                     info->name, dtype_table[*compute].name);
        return -1;
    }
    switch (loop - 1) {
        case DA_RESULT_BOOL:
            *result = DA_BOOL;
            break;
        case DA_RESULT_REAL:
            *result = *compute == DA_COMPLEX64    ? DA_FLOAT32
                      : *compute == DA_COMPLEX128 ? DA_FLOAT64
                                                  : *compute;
            break;
        default:
            *result = *compute;
            break;
    }
    return 0;
}

/* The op whose kernel computes `op` in dtype `compute` of class cls. */
static int
ufunc_run_op(int op, int compute, int cls)
{
    /* float16 computes in float32, whose next value is not float16's */
    if (op == DA_OP_NEXTAFTER && compute == DA_FLOAT16) {
        return DA_OP_NEXTAFTER_HALF;
    }
    return ufunc_runs_as_copy[op][cls] ? DA_OP_COPY : op;
}

/* ---- operands ------------------------------------------------------------ */

static int
ufunc_same_layout(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    return a->data == b->data && a->ndim == b->ndim &&
           memcmp(a->dims, b->dims, sizeof(int64_t) * 2 * (size_t)a->ndim) == 0;
}

/* The promoted dtype of the operands: arrays are strong, exact Python
   scalars weak (NEP 50); typenums[k] is array operand k's dtype, -1 for a
   Python scalar.  Under the INEXACT rule each strong operand first becomes its
   smallest float, as NumPy picks the first float loop every input casts to
   safely (int8 with uint8 is float16, not int16's float32), while a weak
   scalar promotes with the arrays' own dtypes first (int8 with 2.5 is
   float64, as NumPy gives). */
static int
ufunc_promote(int op, const int *typenums, PyObject *const *operands, const char *kinds)
{
    const int nin = UFUNC_NIN(op);
    const int inexact = ufunc_table[op].rule == DA_RULE_INEXACT;
    int strong = -1, mapped = -1, k;

    for (k = 0; k < nin; k++) {
        int typenum;
        if (typenums[k] >= 0) {
            typenum = typenums[k];
        }
        else if (!scalar_is_weak(operands[k])) {
            typenum = scalar_default_typenum(kinds[k]);
        }
        else {
            continue;
        }
        strong = strong < 0 ? typenum : dtype_promote(strong, typenum);
        typenum = inexact ? ufunc_inexact_of[typenum] : typenum;
        mapped = mapped < 0 ? typenum : dtype_promote(mapped, typenum);
    }
    for (k = 0; k < nin; k++) {
        int typenum;
        if (typenums[k] >= 0 || !scalar_is_weak(operands[k])) {
            continue;
        }
        typenum = dtype_promote_weak(strong, kinds[k]);
        mapped = dtype_promote(mapped, inexact ? ufunc_inexact_of[typenum] : typenum);
    }
    return mapped;
}

/* When `scalar`, operand k of the comparison `op` on integers, failed to
   convert with OverflowError (it is out of the dtype's range), NumPy 2
   still compares: every element is below (or above) it.  1 with the
   constant result in *value and the error cleared; 0 where this does not
   apply (the error stays set); -1 on a new error. */
static int
ufunc_compare_out_of_range(int op, int k, PyObject *scalar, int cls, uint8_t *value)
{
    long long v;
    int overflow, above;

    if ((op != DA_OP_EQUAL && op != DA_OP_NOT_EQUAL && op != DA_OP_LESS &&
         op != DA_OP_LESS_EQUAL && op != DA_OP_GREATER && op != DA_OP_GREATER_EQUAL) ||
        (cls != DA_CLASS_SINT && cls != DA_CLASS_UINT) || PyBool_Check(scalar) ||
        !PyLong_Check(scalar) || !PyErr_ExceptionMatches(PyExc_OverflowError)) {
        return 0;
    }
    PyErr_Clear();
    v = PyLong_AsLongLongAndOverflow(scalar, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    /* whether the right operand is above the array's values */
    above = (overflow > 0 || (overflow == 0 && v >= 0)) != (k == 0);
    switch (op) {
        case DA_OP_EQUAL:
            *value = 0;
            break;
        case DA_OP_NOT_EQUAL:
            *value = 1;
            break;
        case DA_OP_LESS:
        case DA_OP_LESS_EQUAL:
            *value = (uint8_t)above;
            break;
        default:
            *value = (uint8_t)!above;
            break;
    }
    return 1;
}

int
ufunc_scalar_operand(int op, int k, PyObject *obj, int compute, int cls, int inplace,
                     da_scalar *value, uint8_t *fill)
{
    /* range-checked against the dtype the op computes in: int / int runs in
       float64, where NumPy converts a Python int unchecked */
    if (scalar_from_python(obj, compute, cls, value) < 0) {
        int known = inplace ? 0 : ufunc_compare_out_of_range(op, k, obj, cls, fill);
        return known == 0 ? -1 : known;
    }
    /* a weak scalar takes the computed dtype's precision first, as NumPy
       casts it to that dtype before the loop runs */
    if (compute == DA_FLOAT16) {
        value->f32 = da_half_to_float(da_float_to_half(value->f32));
    }
    /* the kernels cannot raise for a negative integer exponent (see
       ops_int.h), but a scalar one is known here: NumPy's error */
    if (op == DA_OP_POW && k == 1 && cls == DA_CLASS_SINT && value->s < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "Integers to negative integer powers are not allowed.");
        return -1;
    }
    return 0;
}

int
ufunc_types(int op, const int *typenums, PyObject *const *operands, const char *kinds,
            int *compute, int *cls, int *result, int *run_op)
{
    const int promoted = ufunc_promote(op, typenums, operands, kinds);
    if (promoted < 0 || ufunc_resolve(op, promoted, compute, cls, result) < 0) {
        return -1;
    }
    *run_op = ufunc_run_op(op, *compute, *cls);
    return 0;
}

/* Check the in-place output `out` for a result of dtype `result` and shape
   shape[ndim]; 0, or -1 with an exception. */
static int
ufunc_check_output(int op, DeviceArrayObject *out, int result, int ndim,
                   const int64_t *shape)
{
    PyObject *out_shape;

    if (out->flags & DA_FLAG_READONLY) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        return -1;
    }
    if (!dtype_can_cast_same_kind(result, out->typenum)) {
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' output from dtype('%s') to "
                     "dtype('%s') with casting rule 'same_kind'",
                     ufunc_table[op].name, dtype_table[result].name,
                     dtype_table[out->typenum].name);
        return -1;
    }
    if (ndim == out->ndim &&
        memcmp(shape, DA_SHAPE(out), sizeof(int64_t) * (size_t)ndim) == 0) {
        return 0;
    }
    out_shape = array_int64_tuple(out->ndim, DA_SHAPE(out));
    if (out_shape != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "non-broadcastable output operand with shape %R doesn't "
                     "match the broadcast shape of the operands of '%s'",
                     out_shape, ufunc_table[op].name);
        Py_DECREF(out_shape);
    }
    return -1;
}

int
ufunc_is_square(int op, int cls, const da_scalar *exponent)
{
    if (op != DA_OP_POW) {
        return 0;
    }
    switch (cls) {
        case DA_CLASS_SINT:
            return exponent->s == 2;
        case DA_CLASS_UINT:
            return exponent->u == 2;
        case DA_CLASS_F32:
            return exponent->f32 == 2.0f;
        case DA_CLASS_F64:
            return exponent->f64 == 2.0;
        default:
            return 0;
    }
}

PyObject *
ufunc_apply(int op, PyObject *const *operands, int inplace, int is_operator)
{
    const int nin = UFUNC_NIN(op);
    DeviceArrayObject *arrays[2] = {NULL, NULL}, *out = NULL, *copied = NULL;
    DeviceArrayObject *first = NULL;
    da_scalar scalars[2], constant;
    char kinds[2] = {0, 0};
    int typenums[2] = {-1, -1};
    int64_t shape[DA_MAXDIMS];
    int k, ndim, promoted, compute, cls, result, fill = 0;

    for (k = 0; k < nin; k++) {
        if (DeviceArray_Check(operands[k])) {
            arrays[k] = (DeviceArrayObject *)operands[k];
            typenums[k] = arrays[k]->typenum;
            if (first == NULL) {
                first = arrays[k];
            }
            else if (array_check_same_place(ufunc_table[op].name, first, arrays[k]) < 0) {
                return NULL;
            }
        }
        else if ((kinds[k] = scalar_python_kind(operands[k])) == 0) {
            if (is_operator) {
                Py_RETURN_NOTIMPLEMENTED;
            }
            PyErr_Format(PyExc_TypeError,
                         "%s() takes DeviceArrays and Python scalars, not %.200s",
                         ufunc_table[op].name, Py_TYPE(operands[k])->tp_name);
            return NULL;
        }
    }
    if (first == NULL || (inplace && arrays[0] == NULL)) {
        if (is_operator) {
            Py_RETURN_NOTIMPLEMENTED;
        }
        PyErr_Format(PyExc_TypeError, "%s() needs at least one DeviceArray",
                     ufunc_table[op].name);
        return NULL;
    }

    if (array_activate(first) < 0) {
        return NULL;
    }
    promoted = ufunc_promote(op, typenums, operands, kinds);
    if (promoted < 0 || ufunc_resolve(op, promoted, &compute, &cls, &result) < 0) {
        return NULL;
    }
    for (k = 0; k < nin; k++) {
        int status;
        if (arrays[k] == NULL &&
            (status = ufunc_scalar_operand(op, k, operands[k], compute, cls, inplace,
                                           &scalars[k], &constant.b)) != 0) {
            if (status < 0) {
                return NULL;
            }
            fill = 1;
        }
    }

    ndim = first->ndim;
    memcpy(shape, DA_SHAPE(first), sizeof(int64_t) * (size_t)ndim);
    if (nin == 2 && arrays[0] != NULL && arrays[1] != NULL) {
        ndim = elementwise_broadcast(arrays[0], arrays[1], shape);
        if (ndim < 0) {
            return NULL;
        }
    }

    if (inplace) {
        out = arrays[0];
        if (ufunc_check_output(op, out, result, ndim, shape) < 0) {
            return NULL;
        }
        /* out is about to be overwritten while the kernel may still read a
           partially overlapping input: read from a copy, as NumPy does */
        if (nin == 2 && arrays[1] != NULL && arrays[1] != out && arrays[1]->size > 0 &&
            array_memory_overlap(out, arrays[1]) && !ufunc_same_layout(out, arrays[1])) {
            copied = array_new(arrays[1]->backend, arrays[1]->typenum,
                               arrays[1]->ndim, DA_SHAPE(arrays[1]));
            if (copied == NULL || elementwise_copy(copied, arrays[1]) < 0) {
                Py_XDECREF(copied);
                return NULL;
            }
            arrays[1] = copied;
        }
        Py_INCREF(out);
    }
    else {
        out = elementwise_new_result(first->backend, result, ndim, shape, nin, arrays);
        if (out == NULL) {
            return NULL;
        }
    }
    if (!fill && arrays[0] != NULL && arrays[1] == NULL &&
        ufunc_is_square(op, cls, &scalars[1])) {
        /* a multiply instead of a pow */
        op = DA_OP_MUL;
        arrays[1] = arrays[0];
    }
    if (fill) {
        DeviceArrayObject *none[1] = {NULL};
        if (elementwise_run(DA_OP_COPY, DA_CLASS_BOOL, out, 1, none, &constant) < 0) {
            Py_CLEAR(out);
        }
    }
    else if (elementwise_run(ufunc_run_op(op, compute, cls), cls, out, nin, arrays,
                             scalars) < 0) {
        Py_CLEAR(out);
    }
    Py_XDECREF(copied);
    return (PyObject *)out;
}

/* ---- devarray.<name> ----------------------------------------------------- */

ufunc_hook_fn ufunc_trace_hook = NULL;

static PyObject *
ufunc_call(int op, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *traced = NULL;

    if (ufunc_trace_hook != NULL && ufunc_trace_hook(op, args, nargs, &traced)) {
        return traced;
    }
    if (nargs != ufunc_table[op].nin) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %d argument%s (%zd given)",
                     ufunc_table[op].name, ufunc_table[op].nin,
                     ufunc_table[op].nin == 1 ? "" : "s", nargs);
        return NULL;
    }
    return ufunc_apply(op, args, 0, 0);
}

/* The text signature of an op's function, by its number of operands. */
#define UFUNC_SIGNATURE_1(name) #name "(x, /)\n--\n\n"
#define UFUNC_SIGNATURE_2(name) #name "(x1, x2, /)\n--\n\n"

/* One C function per op (the op is a constant there, so a call costs no
   lookup), and a method table entry for each op that has a docstring. */
#define UFUNC_DEFINE_CALL_(ID, name, nin, rule, doc)                             \
    static PyObject *ufunc_call_##ID(PyObject *Py_UNUSED(module),                \
                                     PyObject *const *args, Py_ssize_t nargs)    \
    {                                                                            \
        return ufunc_call(DA_OP_##ID, args, nargs);                              \
    }
DA_FOR_EACH_OP(UFUNC_DEFINE_CALL_)
#undef UFUNC_DEFINE_CALL_

static PyMethodDef ufunc_methods[DA_NOPS + 1] = {
#define UFUNC_METHOD_(ID, name, nin, rule, doc)                                  \
    [DA_OP_##ID] = {sizeof(doc) > 1 ? #name : NULL,                              \
                    (PyCFunction)(void (*)(void))ufunc_call_##ID, METH_FASTCALL, \
                    UFUNC_SIGNATURE_##nin(name) doc},
    DA_FOR_EACH_OP(UFUNC_METHOD_)
#undef UFUNC_METHOD_
};

/* ---- devarray.clip ---------------------------------------------------- */

/* Broadcast shape[*ndim] with b's shape in place (NumPy's rules); 0, or -1
   with ValueError. */
static int
ufunc_broadcast_with(int *ndim, int64_t *shape, const DeviceArrayObject *b)
{
    const int nd = *ndim > b->ndim ? *ndim : b->ndim;
    int64_t merged[DA_MAXDIMS] = {0};
    int i;

    for (i = 0; i < nd; i++) {
        const int ia = i - (nd - *ndim), ib = i - (nd - b->ndim);
        const int64_t da = ia >= 0 ? shape[ia] : 1, db = ib >= 0 ? DA_SHAPE(b)[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            PyErr_Format(PyExc_ValueError,
                         "clip(): the bounds cannot be broadcast with x (size "
                         "%lld against %lld in dimension %d)",
                         (long long)da, (long long)db, i);
            return -1;
        }
        merged[i] = da == 1 ? db : da;
    }
    memcpy(shape, merged, sizeof(int64_t) * (size_t)nd);
    *ndim = nd;
    return 0;
}

/* A bound of clip: None (*present = 0), a DeviceArray on x's backend whose
   dtype casts safely to x's, or is a float for float x (*array), or a Python scalar of a kind x's
   dtype holds, as a value of x's class (*scalar).  A Python int outside an
   integer dtype's range saturates to it.  0, or -1 with an exception. */
static int
ufunc_clip_bound(const char *what, PyObject *obj, const DeviceArrayObject *x, int cls,
                 int *present, DeviceArrayObject **array, da_scalar *scalar)
{
    const char xkind = dtype_table[x->typenum].kind;
    char kind;

    *present = obj != Py_None;
    *array = NULL;
    if (!*present) {
        return 0;
    }
    if (DeviceArray_Check(obj)) {
        *array = (DeviceArrayObject *)obj;
        if (array_check_same_place("clip", x, *array) < 0) {
            return -1;
        }
        /* a wider float bound is rounded to x's float dtype (same kind, as
           the standard's tests expect); otherwise only safe casts, so that
           no bound wraps */
        if (dtype_promote(x->typenum, (*array)->typenum) != x->typenum &&
            !(xkind == 'f' && dtype_table[(*array)->typenum].kind == 'f')) {
            PyErr_Format(PyExc_TypeError,
                         "clip(): %s of dtype %s does not fit x's dtype %s", what,
                         dtype_table[(*array)->typenum].name, dtype_table[x->typenum].name);
            return -1;
        }
        return 0;
    }
    kind = scalar_python_kind(obj);
    if (kind == 0 || (kind != 'b' && xkind == 'b') || kind == 'c' ||
        (kind == 'f' && xkind != 'f')) {
        PyErr_Format(PyExc_TypeError,
                     "clip(): %s must be None, a DeviceArray or a Python scalar "
                     "of x's kind (x has dtype %s), not %.200s",
                     what, dtype_table[x->typenum].name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (scalar_from_python(obj, x->typenum, cls, scalar) < 0) {
        long long v;
        int overflow;
        /* an integer x has at most 64 bits (spelt so the analysers see it) */
        const int bits = da_itemsize(x->typenum) >= 8 ? 64 : 8 * da_itemsize(x->typenum);
        /* an int bound past an integer dtype's range saturates to it */
        if (!PyErr_ExceptionMatches(PyExc_OverflowError) ||
            (cls != DA_CLASS_SINT && cls != DA_CLASS_UINT)) {
            return -1;
        }
        PyErr_Clear();
        v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (overflow < 0 || (overflow == 0 && v < 0)) {
            /* -2**(bits - 1), without overflowing int64 on the way */
            scalar->s = cls == DA_CLASS_UINT ? 0
                                             : -(int64_t)((UINT64_C(1) << (bits - 1)) - 1) - 1;
        }
        else if (cls == DA_CLASS_UINT) {
            scalar->u = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        }
        else {
            scalar->s = (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
        }
    }
    if (x->typenum == DA_FLOAT16) {
        scalar->f32 = da_half_to_float(da_float_to_half(scalar->f32));
    }
    return 0;
}

/* Whether a is C-contiguous with x's dtype and shape: an operand of the
   one-pass clip. */
static int
ufunc_clip_matches(const DeviceArrayObject *a, const DeviceArrayObject *x)
{
    return a->typenum == x->typenum && a->ndim == x->ndim &&
           memcmp(DA_SHAPE(a), DA_SHAPE(x), sizeof(int64_t) * (size_t)x->ndim) == 0 &&
           array_is_c_contiguous(a);
}

/* clip in one pass where the backend has it (backend_clip) and x, out and
   the array bounds are C-contiguous of x's dtype and shape; 1 when done,
   0 when the caller takes the two passes, -1 with an exception. */
static int
ufunc_clip_one_pass(DeviceArrayObject *x, DeviceArrayObject *out, const int *present,
                    DeviceArrayObject *const *arrays, const da_scalar *scalars)
{
    da_clip c;
    int k;

    if (!array_is_c_contiguous(x) || !ufunc_clip_matches(out, x)) {
        return 0;
    }
    memset(&c, 0, sizeof(c));
    c.typenum = x->typenum;
    c.n = x->size;
    c.out = out->data;
    c.x = x->data;
    for (k = 0; k < 2; k++) {
        c.present[k] = present[k];
        if (arrays[k] != NULL) {
            if (!ufunc_clip_matches(arrays[k], x)) {
                return 0;
            }
            c.bound[k] = arrays[k]->data;
        }
        else if (present[k]) {
            c.scalar[k] = scalars[k];
        }
    }
    if (array_activate(out) < 0) {
        return -1;
    }
    return backend_clip(out->backend, &c);
}

static PyObject *
ufunc_clip(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"", "min", "max", NULL};
    PyObject *xobj, *bounds[2] = {Py_None, Py_None};
    DeviceArrayObject *x, *arrays[2], *out = NULL;
    da_scalar scalars[2];
    int present[2], k, cls, ndim, done;
    int64_t shape[DA_MAXDIMS];
    static const int ops[2] = {DA_OP_MAXIMUM, DA_OP_MINIMUM};
    static const char *const names[2] = {"min", "max"};

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:clip", kwlist, &xobj, &bounds[0],
                                     &bounds[1])) {
        return NULL;
    }
    if (!DeviceArray_Check(xobj)) {
        PyErr_Format(PyExc_TypeError, "clip() takes a DeviceArray x, not %.200s",
                     Py_TYPE(xobj)->tp_name);
        return NULL;
    }
    x = (DeviceArrayObject *)xobj;
    if (array_activate(x) < 0) {
        return NULL;
    }
    cls = da_class_of(x->typenum);
    /* complex has maximum/minimum (NumPy's lexicographic order), but the
       spec's clip is for real-valued x */
    if (ufunc_loops[DA_OP_MAXIMUM][cls] == 0 || ufunc_loops[DA_OP_MINIMUM][cls] == 0 ||
        dtype_table[x->typenum].kind == 'c') {
        PyErr_Format(PyExc_TypeError, "clip() is not supported for the input dtype %s",
                     dtype_table[x->typenum].name);
        return NULL;
    }
    ndim = x->ndim;
    memcpy(shape, DA_SHAPE(x), sizeof(int64_t) * (size_t)ndim);
    for (k = 0; k < 2; k++) {
        if (ufunc_clip_bound(names[k], bounds[k], x, cls, &present[k], &arrays[k],
                             &scalars[k]) < 0 ||
            (arrays[k] != NULL && ufunc_broadcast_with(&ndim, shape, arrays[k]) < 0)) {
            return NULL;
        }
    }
    {
        DeviceArrayObject *const voters[3] = {x, arrays[0], arrays[1]};
        out = elementwise_new_result(x->backend, x->typenum, ndim, shape, 3, voters);
    }
    if (out == NULL) {
        return NULL;
    }
    done = ufunc_clip_one_pass(x, out, present, arrays, scalars);
    if (done < 0) {
        goto error;
    }
    if (done > 0) {
        return (PyObject *)out;
    }
    /* min(max(x, min), max): the first step reads x, the second works in
       place on out (each element read and written by the same thread) */
    if (!present[0] && elementwise_copy(out, x) < 0) {
        goto error;
    }
    for (k = 0; k < 2; k++) {
        DeviceArrayObject *ins[2] = {k == 0 ? x : out, arrays[k]};
        da_scalar values[2];
        if (!present[k]) {
            continue;
        }
        values[0] = values[1] = scalars[k];
        if (elementwise_run(ops[k], cls, out, 2, ins, values) < 0) {
            goto error;
        }
    }
    return (PyObject *)out;
error:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef ufunc_clip_method = {
    "clip", (PyCFunction)(void (*)(void))ufunc_clip, METH_VARARGS | METH_KEYWORDS,
    "clip(x, /, min=None, max=None)\n--\n\n"
    "x clamped to [min, max] elementwise, in x's dtype: min(max(x, min), max), "
    "NaN where x or a bound is NaN.  A bound is None (no bound), a DeviceArray "
    "whose dtype casts safely to x's, or a Python scalar of x's kind (an int "
    "outside an integer dtype's range saturates to it); x, min and max "
    "broadcast together.",
};

int
ufunc_module_init(PyObject *module)
{
    PyObject *module_name = PyModule_GetNameObject(module), *function = NULL;
    int op, status = -1;

    if (module_name == NULL) {
        return -1;
    }
    for (op = 0; op < DA_NOPS; op++) {
        if (ufunc_methods[op].ml_name == NULL) {
            continue;
        }
        function = PyCFunction_NewEx(&ufunc_methods[op], NULL, module_name);
        if (function == NULL ||
            PyModule_AddObjectRef(module, ufunc_methods[op].ml_name, function) < 0) {
            goto error;
        }
        Py_CLEAR(function);
    }
    function = PyCFunction_NewEx(&ufunc_clip_method, NULL, module_name);
    if (function == NULL || PyModule_AddObjectRef(module, "clip", function) < 0) {
        goto error;
    }
    status = 0;
error:
    Py_XDECREF(function);
    Py_DECREF(module_name);
    return status;
}
