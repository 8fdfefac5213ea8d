/*
 * The statistical functions of the standard as Python calls: see
 * statistics.h.
 *
 * max, min and prod are reduce_apply calls, count_nonzero one
 * reduce_nonzero (one pass over x's bits).  var and std of real x on
 * CUDA read x once: the moments kernel (da_moments, kernels/moments.cu)
 * gives the variance, in float32 for float16 (rounded to float16 after)
 * and float32, else float64, over the layout reduce_source gives (x in
 * place, or one contiguous copy); std is its square root, taken in
 * place.  Everything else is a composition of reductions and elementwise
 * ops on x's backend, in NumPy's order so the host backend matches NumPy
 * (numpy/_core/_methods.py):
 *   mean(x)          sum(x, dtype=w) / n
 *   var(x)           m = sum(x, keepdims) / n in v; d = x - m;
 *                    sum(d * d) / max(n - correction, 0)  (for complex d,
 *                    re(d)^2 + im(d)^2: real, as NumPy's |d|^2)
 *   std(x)           sqrt(var(x))
 * where n is the number of elements reduced per output, w the working
 * dtype of mean: float64 for bool and integers, float32 for float16 (the
 * result is cast back to float16, as NumPy does), else x's dtype; and v
 * var's: float64 for bool and integers, else x's dtype (float16 too, as
 * NumPy).  Divisions by the count of float16 happen in float32 and of
 * complex64 in complex128, as NumPy's by an intp count do in float64 and
 * complex128 (the same quotients, rounded once).  Dividing by a zero
 * count gives NaN or inf, as NumPy (which also warns) does; so do the
 * empty reductions and empty arrays, which take the composition on both
 * backends.  Every temporary is a DeviceArray freed on return.
 */
#include "ops/statistics.h"

#include "core/array.h"
#include "core/copy.h"
#include "interop/dtypeobject.h"
#include "core/elementwise.h"
#include "core/reduce.h"
#include "ops/ufunc.h"
#include "runtime/backend.h"

/* The working dtype of mean/var/std for x's dtype (see the top). */
static int
statistics_working_type(int typenum)
{
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            return DA_FLOAT64;
        default:
            return typenum == DA_FLOAT16 ? DA_FLOAT32 : typenum;
    }
}

/* The number of elements each output of a reduction over `axis` gathers,
   or -1 with NumPy's axis error. */
static int64_t
statistics_count(DeviceArrayObject *x, PyObject *axis)
{
    int reduced[DA_MAXDIMS], k;
    int64_t n = 1;

    if (reduce_parse_axes(axis, x->ndim, reduced) < 0) {
        return -1;
    }
    for (k = 0; k < x->ndim; k++) {
        if (reduced[k]) {
            n *= DA_SHAPE(x)[k];
        }
    }
    return n;
}

/* a /= value (a Python float), in place.  NumPy divides by its count, an
   intp, which promotes float16 to float64 and complex64 to complex128: a
   float16 `a` is divided in float32 and a complex64 one in complex128,
   then rounded back, so the host matches NumPy bit for bit (float32 has
   the bits for a float16 quotient to round once, and for the other real
   dtypes the wider division rounds to the same value); a float16 count
   itself would be inf past 65504.  0 or -1. */
static int
statistics_scale(PyObject *a, int op, double value)
{
    PyObject *operands[2], *scalar, *done = NULL;
    DeviceArrayObject *target = (DeviceArrayObject *)a, *wide = NULL;

    scalar = PyFloat_FromDouble(value);
    if (scalar == NULL) {
        return -1;
    }
    if (target->typenum == DA_COMPLEX64 || target->typenum == DA_FLOAT16) {
        wide = copy_cast(target,
                         target->typenum == DA_FLOAT16 ? DA_FLOAT32 : DA_COMPLEX128);
        if (wide == NULL) {
            goto error;
        }
    }
    operands[0] = wide != NULL ? (PyObject *)wide : a;
    operands[1] = scalar;
    done = ufunc_apply(op, operands, 1, 0);
    if (done != NULL && wide != NULL && elementwise_copy(target, wide) < 0) {
        Py_CLEAR(done);
    }
error:
    Py_DECREF(scalar);
    Py_XDECREF(wide);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

/* One elementwise op on one or two DeviceArrays: a new reference. */
static PyObject *
statistics_op(int op, PyObject *a, PyObject *b)
{
    PyObject *operands[2] = {a, b};
    return ufunc_apply(op, operands, 0, 0);
}

/* x cast back to float16 when x was float16 (the result is computed in
   float32); steals `result`. */
static PyObject *
statistics_finish(DeviceArrayObject *x, PyObject *result)
{
    PyObject *cast;

    if (result == NULL || x->typenum != DA_FLOAT16) {
        return result;
    }
    cast = (PyObject *)copy_cast((DeviceArrayObject *)result, DA_FLOAT16);
    Py_DECREF(result);
    return cast;
}

/* The sum of x over axis in dtype `typenum`, divided by the count: the
   mean in that dtype. */
static PyObject *
statistics_mean_in(DeviceArrayObject *x, PyObject *axis, int typenum, int keepdims)
{
    int64_t n = statistics_count(x, axis);
    PyObject *s;

    if (n < 0) {
        return NULL;
    }
    s = reduce_apply(x, DA_REDUCE_SUM, axis, typenum, keepdims);
    if (s != NULL && statistics_scale(s, DA_OP_DIV, (double)n) < 0) {
        Py_CLEAR(s);
    }
    return s;
}

/* The variance of real, non-empty x on CUDA over axis in one read (see
   the top), in var's dtype. */
static PyObject *
statistics_var_moments(DeviceArrayObject *x, PyObject *axis, double correction,
                       int keepdims)
{
    int reduced[DA_MAXDIMS], ndim;
    int64_t shape[DA_MAXDIMS];
    DeviceArrayObject *source = NULL, *result = NULL;
    da_moments m;

    if (reduce_result_shape(x, axis, keepdims, reduced, shape, &ndim) < 0 ||
        array_activate(x) < 0) {
        return NULL;
    }
    m.in_typenum = x->typenum;
    m.acc_typenum = da_moments_accumulator(x->typenum);
    m.correction = correction;
    result = array_new(x->backend, m.acc_typenum, ndim, shape);
    if (result == NULL) {
        goto error;
    }
    source = reduce_source(x, reduced, x->typenum, &m.outer, &m.len, &m.inner);
    if (source == NULL) {
        goto error;
    }
    m.in = source->data;
    m.out = result->data;
    if (backend_moments(x->backend, &m) < 0) {
        goto error;
    }
    Py_DECREF(source);
    return statistics_finish(x, (PyObject *)result);

error:
    Py_XDECREF(source);
    Py_XDECREF(result);
    return NULL;
}

/* The variance of x over axis (real for complex x): in x's dtype when it
   is inexact, else float64. */
static PyObject *
statistics_var_of(DeviceArrayObject *x, PyObject *axis, double correction, int keepdims)
{
    int64_t n = statistics_count(x, axis);
    PyObject *mean = NULL, *d = NULL, *sq = NULL, *part = NULL, *part2 = NULL,
             *result = NULL;
    double divisor;

    if (n < 0) {
        return NULL;
    }
    if (x->backend == DA_BACKEND_CUDA && x->size > 0 &&
        da_moments_accumulator(x->typenum) >= 0) {
        return statistics_var_moments(x, axis, correction, keepdims);
    }
    /* NumPy's var works in x's dtype when it is inexact, float16 too */
    mean = statistics_mean_in(x, axis,
                              da_class_of(x->typenum) >= DA_CLASS_F32 ? x->typenum
                                                                      : DA_FLOAT64,
                              1);
    if (mean == NULL) {
        goto error;
    }
    d = statistics_op(DA_OP_SUB, (PyObject *)x, mean);
    if (d == NULL) {
        goto error;
    }
    if (da_class_of(((DeviceArrayObject *)d)->typenum) >= DA_CLASS_C64) {
        part = statistics_op(DA_OP_REAL, d, NULL);
        part2 = statistics_op(DA_OP_IMAG, d, NULL);
        if (part == NULL || part2 == NULL) {
            goto error;
        }
        Py_SETREF(part, statistics_op(DA_OP_MUL, part, part));
        Py_SETREF(part2, statistics_op(DA_OP_MUL, part2, part2));
        if (part == NULL || part2 == NULL) {
            goto error;
        }
        sq = statistics_op(DA_OP_ADD, part, part2);
    }
    else {
        sq = statistics_op(DA_OP_MUL, d, d);
    }
    if (sq == NULL) {
        goto error;
    }
    result = reduce_apply((DeviceArrayObject *)sq, DA_REDUCE_SUM, axis, -1, keepdims);
    divisor = (double)n - correction;
    if (result == NULL ||
        statistics_scale(result, DA_OP_DIV, divisor > 0 ? divisor : 0.0) < 0) {
        Py_CLEAR(result);
    }
error:
    Py_XDECREF(mean);
    Py_XDECREF(d);
    Py_XDECREF(sq);
    Py_XDECREF(part);
    Py_XDECREF(part2);
    return result;
}

/* ---- argument parsing ----------------------------------------------------- */

/* x as a DeviceArray, or NULL with a TypeError naming `name`. */
static DeviceArrayObject *
statistics_array(PyObject *x, const char *name)
{
    if (!DeviceArray_Check(x)) {
        PyErr_Format(PyExc_TypeError, "%s() argument x must be a DeviceArray, not %.200s",
                     name, Py_TYPE(x)->tp_name);
        return NULL;
    }
    return (DeviceArrayObject *)x;
}

/* correction as a float: a real number, bool excluded (the standard says
   int or float). */
static int
statistics_correction(PyObject *obj, double *value)
{
    if (PyBool_Check(obj) || !(PyLong_Check(obj) || PyFloat_Check(obj))) {
        PyErr_Format(PyExc_TypeError, "correction must be an int or a float, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *value = PyFloat_AsDouble(obj);
    return *value == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* max, min, mean, count_nonzero: (x, /, *, axis=None, keepdims=False). */
static int
statistics_parse(PyObject *args, PyObject *kwds, const char *format, const char *name,
                 DeviceArrayObject **x, PyObject **axis, int *keepdims)
{
    static char *kwlist[] = {"", "axis", "keepdims", NULL};
    PyObject *obj;

    *axis = Py_None;
    *keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &obj, axis, keepdims)) {
        return -1;
    }
    *x = statistics_array(obj, name);
    return *x == NULL ? -1 : 0;
}

PyObject *
statistics_max(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_apply(x, DA_REDUCE_MAX, axis, -1, keepdims);
}

PyObject *
statistics_min(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_apply(x, DA_REDUCE_MIN, axis, -1, keepdims);
}

PyObject *
statistics_mean(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return statistics_finish(
        x, statistics_mean_in(x, axis, statistics_working_type(x->typenum), keepdims));
}

PyObject *
statistics_var(DeviceArrayObject *x, PyObject *axis, double correction, int keepdims)
{
    return statistics_var_of(x, axis, correction, keepdims);
}

PyObject *
statistics_std(DeviceArrayObject *x, PyObject *axis, double correction, int keepdims)
{
    PyObject *v = statistics_var_of(x, axis, correction, keepdims);
    PyObject *operands[1] = {v};
    PyObject *done;

    if (v == NULL) {
        return NULL;
    }
    done = ufunc_apply(DA_OP_SQRT, operands, 1, 0);
    if (done == NULL) {
        Py_DECREF(v);
        return NULL;
    }
    Py_DECREF(done);
    return v;
}

PyObject *
statistics_count_nonzero(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_nonzero(x, DA_NONZERO_COUNT, axis, keepdims);
}

/* The methods' and functions' common parsers: reduce by `fn`. */
static PyObject *
statistics_call(PyObject *args, PyObject *kwds, const char *format, const char *name,
                PyObject *(*fn)(DeviceArrayObject *, PyObject *, int))
{
    DeviceArrayObject *x;
    PyObject *axis;
    int keepdims;

    if (statistics_parse(args, kwds, format, name, &x, &axis, &keepdims) < 0) {
        return NULL;
    }
    return fn(x, axis, keepdims);
}

static PyObject *
statistics_call_spread(PyObject *args, PyObject *kwds, const char *format,
                       const char *name,
                       PyObject *(*fn)(DeviceArrayObject *, PyObject *, double, int))
{
    static char *kwlist[] = {"", "axis", "correction", "keepdims", NULL};
    PyObject *obj, *axis = Py_None, *correction_obj = NULL;
    DeviceArrayObject *x;
    double correction = 0.0;
    int keepdims = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &obj, &axis,
                                     &correction_obj, &keepdims)) {
        return NULL;
    }
    if ((x = statistics_array(obj, name)) == NULL ||
        (correction_obj != NULL && statistics_correction(correction_obj, &correction) < 0)) {
        return NULL;
    }
    return fn(x, axis, correction, keepdims);
}

static PyObject *
statistics_py_prod(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", "dtype", "keepdims", NULL};
    PyObject *obj, *axis = Py_None;
    DeviceArrayObject *x;
    int typenum = -1, keepdims = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OO&p:prod", kwlist, &obj, &axis,
                                     dtypeobject_converter_optional, &typenum,
                                     &keepdims) ||
        (x = statistics_array(obj, "prod")) == NULL) {
        return NULL;
    }
    return reduce_apply(x, DA_REDUCE_PROD, axis, typenum, keepdims);
}

static PyObject *
statistics_py_max(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call(args, kwds, "O|$Op:max", "max", statistics_max);
}

static PyObject *
statistics_py_min(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call(args, kwds, "O|$Op:min", "min", statistics_min);
}

static PyObject *
statistics_py_mean(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call(args, kwds, "O|$Op:mean", "mean", statistics_mean);
}

static PyObject *
statistics_py_count_nonzero(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call(args, kwds, "O|$Op:count_nonzero", "count_nonzero",
                           statistics_count_nonzero);
}

static PyObject *
statistics_py_var(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call_spread(args, kwds, "O|$OOp:var", "var", statistics_var);
}

static PyObject *
statistics_py_std(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return statistics_call_spread(args, kwds, "O|$OOp:std", "std", statistics_std);
}

#define STATISTICS_KW(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef statistics_methods[] = {
    STATISTICS_KW("prod", statistics_py_prod,
                  "prod($module, x, /, *, axis=None, dtype=None, keepdims=False)\n--\n\n"
                  "Product of the elements of x over the given axes (int64 / uint64 "
                  "for bool and integers unless dtype says otherwise)."),
    STATISTICS_KW("max", statistics_py_max,
                  "max($module, x, /, *, axis=None, keepdims=False)\n--\n\nLargest "
                  "element of x over the given axes; NaN propagates.  ValueError "
                  "over no elements."),
    STATISTICS_KW("min", statistics_py_min,
                  "min($module, x, /, *, axis=None, keepdims=False)\n--\n\nSmallest "
                  "element of x over the given axes; NaN propagates.  ValueError "
                  "over no elements."),
    STATISTICS_KW("mean", statistics_py_mean,
                  "mean($module, x, /, *, axis=None, keepdims=False)\n--\n\n"
                  "Arithmetic mean over the given axes (float64 for bool and "
                  "integers, as NumPy; NaN over no elements)."),
    STATISTICS_KW("var", statistics_py_var,
                  "var($module, x, /, *, axis=None, correction=0.0, keepdims=False)"
                  "\n--\n\nVariance over the given axes, divided by N - correction "
                  "(real for complex x)."),
    STATISTICS_KW("std", statistics_py_std,
                  "std($module, x, /, *, axis=None, correction=0.0, keepdims=False)"
                  "\n--\n\nStandard deviation: the square root of var()."),
    STATISTICS_KW("count_nonzero", statistics_py_count_nonzero,
                  "count_nonzero($module, x, /, *, axis=None, keepdims=False)\n--\n\n"
                  "Number of nonzero elements over the given axes, as int64 (NaN "
                  "counts as nonzero)."),
    {NULL, NULL, 0, NULL},
};

int
statistics_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, statistics_methods);
}
