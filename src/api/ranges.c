/*
 * arange, linspace, meshgrid, tril, triu (see ranges.h).
 *
 * The values follow NumPy 2 step for step: arange's length is
 * ceil((stop - start) / step) computed on the Python numbers, its first
 * two elements are start and start + step stored in the dtype, the others
 * first + i * (second - first) in the dtype's class (NumPy's fill);
 * linspace is numpy.linspace's formula in float64 or complex128.  The
 * kernels (kernels/creation.cu, host twin src/host/host_creation.c) compute
 * every element on the array's backend; nothing is copied in.
 */
#include "api/ranges.h"

#include <math.h>
#include <string.h>

#include "core/array.h"
#include "runtime/backend.h"
#include "core/copy.h"
#include "interop/deviceobject.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "core/elementwise.h"
#include "interop/scalar.h"

/* The backend of `place`, or the default place's. */
static int
ranges_backend(const da_place *place)
{
    da_place def;
    if (place->backend >= 0) {
        /* new arrays go to the active device: this one */
        return device_activate(place->backend, place->device) < 0 ? -1 : place->backend;
    }
    return deviceobject_default_place(&def) < 0 ? -1 : def.backend;
}

/* ---- arange -------------------------------------------------------------- */

/* A new reference to an arange argument as a Python int or float (NumPy
   integers through __index__); *is_int says which. */
static PyObject *
ranges_real_number(PyObject *obj, const char *what, int *is_int)
{
    if (PyLong_Check(obj) || PyFloat_Check(obj)) {
        *is_int = PyLong_Check(obj);
        return Py_NewRef(obj);
    }
    if (PyIndex_Check(obj)) {
        *is_int = 1;
        return PyNumber_Index(obj);
    }
    PyErr_Format(PyExc_TypeError, "arange() %s must be an int or a float, not %.200s",
                 what, Py_TYPE(obj)->tp_name);
    return NULL;
}

/* NumPy's _calc_length: ceil((stop - start) / step), 0 when negative. */
static int
ranges_arange_length(PyObject *start, PyObject *stop, PyObject *step, int64_t *length)
{
    PyObject *diff = NULL, *ratio = NULL;
    double value;
    int nonzero, status = -1;

    diff = PyNumber_Subtract(stop, start);
    if (diff == NULL || (nonzero = PyObject_IsTrue(diff)) < 0) {
        goto error;
    }
    if (!nonzero) {
        *length = 0;
        status = 0;
        goto error;
    }
    ratio = PyNumber_TrueDivide(diff, step);
    if (ratio == NULL) {
        goto error;
    }
    value = PyFloat_AsDouble(ratio);
    if (value == -1.0 && PyErr_Occurred()) {
        goto error;
    }
    if (isnan(value)) {
        PyErr_SetString(PyExc_ValueError, "arange: cannot compute length");
        goto error;
    }
    value = ceil(value);
    if (value >= 9223372036854775808.0) {
        PyErr_SetString(PyExc_ValueError, "arange: maximum allowed size exceeded");
        goto error;
    }
    *length = value > 0 ? (int64_t)value : 0;
    status = 0;
error:
    Py_XDECREF(diff);
    Py_XDECREF(ratio);
    return status;
}

/* A Python number stored as dtype typenum (NumPy's setitem rules), read
   back as a value of the dtype's class. */
static int
ranges_stored_value(PyObject *value, int typenum, da_scalar *out)
{
    union {
        da_c128 align;
        char bytes[16];
    } buf;

    if (scalar_store_python(value, typenum, buf.bytes) < 0) {
        return -1;
    }
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            out->b = da_load_bool(buf.bytes, typenum);
            break;
        case DA_CLASS_SINT:
            out->s = da_load_sint(buf.bytes, typenum);
            break;
        case DA_CLASS_UINT:
            out->u = da_load_uint(buf.bytes, typenum);
            break;
        case DA_CLASS_F32:
            out->f32 = da_load_f32(buf.bytes, typenum);
            break;
        case DA_CLASS_F64:
            out->f64 = da_load_f64(buf.bytes, typenum);
            break;
        case DA_CLASS_C64:
            out->c64 = da_load_c64(buf.bytes, typenum);
            break;
        default:
            out->c128 = da_load_c128(buf.bytes, typenum);
            break;
    }
    return 0;
}

/* second - first in the class of typenum (NumPy's fill: delta -= start). */
static da_scalar
ranges_delta(int typenum, const da_scalar *first, const da_scalar *second)
{
    da_scalar d;
    memset(&d, 0, sizeof d);
    switch (da_class_of(typenum)) {
        case DA_CLASS_SINT:
            d.s = (int64_t)((uint64_t)second->s - (uint64_t)first->s);
            break;
        case DA_CLASS_UINT:
            d.u = second->u - first->u;
            break;
        case DA_CLASS_F32:
            d.f32 = second->f32 - first->f32;
            break;
        case DA_CLASS_F64:
            d.f64 = second->f64 - first->f64;
            break;
        case DA_CLASS_C64:
            d.c64.re = second->c64.re - first->c64.re;
            d.c64.im = second->c64.im - first->c64.im;
            break;
        case DA_CLASS_C128:
            d.c128.re = second->c128.re - first->c128.re;
            d.c128.im = second->c128.im - first->c128.im;
            break;
        default:
            break;
    }
    return d;
}

/* arange(start, /, stop=None, step=1, *, dtype=None, device=None) */
static PyObject *
ranges_arange(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "stop", "step", "dtype", "device", NULL};
    PyObject *start_obj, *stop_obj = Py_None, *step_obj = NULL;
    PyObject *start = NULL, *stop = NULL, *step = NULL, *next = NULL;
    DeviceArrayObject *result = NULL;
    da_place place = {-1, 0};
    da_range r;
    int typenum = -1, backend, start_int, stop_int, step_int = 1, nonzero;
    int64_t length;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO$O&O&:arange", kwlist,
                                     &start_obj, &stop_obj, &step_obj,
                                     dtypeobject_converter_optional, &typenum,
                                     deviceobject_converter_optional, &place)) {
        return NULL;
    }
    memset(&r, 0, sizeof r);
    start = ranges_real_number(start_obj, "start", &start_int);
    if (start == NULL) {
        goto error;
    }
    if (stop_obj == Py_None) {
        /* arange(stop): start at 0 */
        stop = start;
        stop_int = start_int;
        start = PyLong_FromLong(0);
        start_int = 1;
    }
    else {
        stop = ranges_real_number(stop_obj, "stop", &stop_int);
    }
    step = step_obj == NULL ? PyLong_FromLong(1)
                            : ranges_real_number(step_obj, "step", &step_int);
    if (start == NULL || stop == NULL || step == NULL) {
        goto error;
    }
    if ((nonzero = PyObject_IsTrue(step)) <= 0) {
        if (nonzero == 0) {
            PyErr_SetString(PyExc_ValueError, "arange() step must not be zero");
        }
        goto error;
    }
    if (typenum < 0) {
        typenum = start_int && stop_int && step_int ? DA_INT64 : DA_FLOAT64;
    }
    backend = ranges_backend(&place);
    if (backend < 0 || ranges_arange_length(start, stop, step, &length) < 0) {
        goto error;
    }
    if (length > 2 && typenum == DA_BOOL) {
        PyErr_SetString(PyExc_TypeError,
                        "arange() is only supported for booleans when the "
                        "result has at most length 2.");
        goto error;
    }
    r.n = length;
    r.typenum = typenum;
    if (length >= 1 && ranges_stored_value(start, typenum, &r.first) < 0) {
        goto error;
    }
    if (length >= 2) {
        next = PyNumber_Add(start, step);
        if (next == NULL || ranges_stored_value(next, typenum, &r.second) < 0) {
            goto error;
        }
        r.delta = ranges_delta(typenum, &r.first, &r.second);
    }
    result = array_new(backend, typenum, 1, &length);
    if (result == NULL) {
        goto error;
    }
    r.out = result->data;
    if (length > 0 && backend_range(backend, &r) < 0) {
        Py_CLEAR(result);
    }
error:
    Py_XDECREF(start);
    Py_XDECREF(stop);
    Py_XDECREF(step);
    Py_XDECREF(next);
    return (PyObject *)result;
}

/* ---- linspace ------------------------------------------------------------ */

static int
ranges_complex_number(PyObject *obj, const char *what, Py_complex *value, int *cplx)
{
    if (!PyLong_Check(obj) && !PyFloat_Check(obj) && !PyComplex_Check(obj) &&
        !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "linspace() %s must be an int, float or complex, not %.200s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *value = PyComplex_AsCComplex(obj);
    if (value->real == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    *cplx |= PyComplex_Check(obj);
    return 0;
}

/* linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) */
static PyObject *
ranges_linspace(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "num", "dtype", "device", "endpoint", NULL};
    PyObject *start_obj, *stop_obj, *num_obj;
    DeviceArrayObject *result;
    da_place place = {-1, 0};
    da_linspace l;
    Py_complex start, stop;
    Py_ssize_t num;
    int typenum = -1, backend, endpoint = 1, cplx = 0;
    double rat, scl;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|$O&O&p:linspace", kwlist,
                                     &start_obj, &stop_obj, &num_obj,
                                     dtypeobject_converter_optional, &typenum,
                                     deviceobject_converter_optional, &place,
                                     &endpoint)) {
        return NULL;
    }
    if (ranges_complex_number(start_obj, "start", &start, &cplx) < 0 ||
        ranges_complex_number(stop_obj, "stop", &stop, &cplx) < 0) {
        return NULL;
    }
    if (!PyIndex_Check(num_obj)) {
        PyErr_Format(PyExc_TypeError, "linspace() num must be an int, not %.200s",
                     Py_TYPE(num_obj)->tp_name);
        return NULL;
    }
    num = PyNumber_AsSsize_t(num_obj, PyExc_OverflowError);
    if (num == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (num < 0) {
        PyErr_Format(PyExc_ValueError,
                     "Number of samples, %zd, must be non-negative.", num);
        return NULL;
    }
    if (typenum < 0) {
        typenum = cplx ? DA_COMPLEX128 : DA_FLOAT64;
    }
    memset(&l, 0, sizeof l);
    l.floor_it = da_class_of(typenum) == DA_CLASS_SINT ||
                 da_class_of(typenum) == DA_CLASS_UINT;
    if (cplx && l.floor_it) {
        PyErr_Format(PyExc_TypeError,
                     "linspace() cannot make %s values from complex start or "
                     "stop",
                     dtype_table[typenum].name);
        return NULL;
    }
    backend = ranges_backend(&place);
    if (backend < 0) {
        return NULL;
    }
    l.n = num;
    l.typenum = typenum;
    l.cplx = cplx;
    l.endpoint_last = endpoint && num > 1;
    l.div = endpoint ? num - 1 : num;
    l.start.re = start.real;
    l.start.im = start.imag;
    l.stop.re = stop.real;
    l.stop.im = stop.imag;
    l.delta.re = stop.real - start.real;
    l.delta.im = stop.imag - start.imag;
    l.mode = DA_LINSPACE_DELTA;
    if (l.div > 0) {
        if (cplx) {
            /* NumPy's complex division by (div + 0j) */
            rat = 0.0 / (double)l.div;
            scl = 1.0 / ((double)l.div + 0.0 * rat);
            l.step.re = (l.delta.re + l.delta.im * rat) * scl;
            l.step.im = (l.delta.im - l.delta.re * rat) * scl;
        }
        else {
            l.step.re = l.delta.re / (double)l.div;
        }
        l.mode = l.step.re == 0.0 && (!cplx || l.step.im == 0.0) ? DA_LINSPACE_DIV
                                                                  : DA_LINSPACE_STEP;
    }
    result = array_new(backend, typenum, 1, &l.n);
    if (result == NULL) {
        return NULL;
    }
    l.out = result->data;
    if (num > 0 && backend_linspace(backend, &l) < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return (PyObject *)result;
}

/* ---- tril / triu --------------------------------------------------------- */

int
ranges_offset_converter(PyObject *obj, void *k)
{
    PyObject *index;
    long long value;
    int overflow;

    if (!PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "k must be an int, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    index = PyNumber_Index(obj);
    if (index == NULL) {
        return 0;
    }
    value = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred()) {
        return 0;
    }
    *(int64_t *)k = overflow > 0 ? INT64_MAX : overflow < 0 ? INT64_MIN : (int64_t)value;
    return 1;
}

static PyObject *
ranges_tri(PyObject *args, PyObject *kwds, const char *name, int upper)
{
    static char *kwlist[] = {"", "k", NULL};
    char format[32];
    PyObject *obj;
    DeviceArrayObject *x, *contiguous = NULL, *result = NULL;
    int64_t k = 0;
    da_tri t;

    snprintf(format, sizeof format, "O|$O&:%s", name);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &obj,
                                     ranges_offset_converter, &k)) {
        return NULL;
    }
    if (!DeviceArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() takes a DeviceArray, not %.200s", name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    x = (DeviceArrayObject *)obj;
    if (x->ndim < 2) {
        PyErr_Format(PyExc_ValueError,
                     "%s() needs an array of at least 2 dimensions, not %d", name,
                     x->ndim);
        return NULL;
    }
    contiguous = copy_contiguous_as(x, x->typenum);
    if (contiguous == NULL) {
        return NULL;
    }
    result = array_new(x->backend, x->typenum, x->ndim, DA_SHAPE(x));
    if (result == NULL || result->size == 0) {
        goto done;
    }
    t.in = contiguous->data;
    t.out = result->data;
    t.n = result->size;
    t.rows = DA_SHAPE(x)[x->ndim - 2];
    t.cols = DA_SHAPE(x)[x->ndim - 1];
    t.k = k;
    t.itemsize = DA_ITEMSIZE(x);
    t.upper = upper;
    if (backend_tri(x->backend, &t) < 0) {
        Py_CLEAR(result);
    }
done:
    Py_DECREF(contiguous);
    return (PyObject *)result;
}

static PyObject *
ranges_tril(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return ranges_tri(args, kwds, "tril", 0);
}

static PyObject *
ranges_triu(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return ranges_tri(args, kwds, "triu", 1);
}

/* ---- meshgrid ------------------------------------------------------------ */

/* 'xy' -> 0, 'ij' -> 1. */
static int
ranges_indexing(PyObject *kwds, int *ij)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;

    *ij = 0;
    while (kwds != NULL && PyDict_Next(kwds, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || PyUnicode_CompareWithASCIIString(key, "indexing") != 0) {
            PyErr_Format(PyExc_TypeError,
                         "meshgrid() got an unexpected keyword argument %R", key);
            return -1;
        }
        if (PyUnicode_Check(value) && PyUnicode_CompareWithASCIIString(value, "ij") == 0) {
            *ij = 1;
        }
        else if (!PyUnicode_Check(value) ||
                 PyUnicode_CompareWithASCIIString(value, "xy") != 0) {
            PyErr_Format(PyExc_ValueError,
                         "meshgrid() indexing must be 'xy' or 'ij', not %R", value);
            return -1;
        }
    }
    return 0;
}

/* Output `i` of meshgrid: x (flattened) broadcast along `axis` of shape,
   copied. */
static PyObject *
ranges_mesh_one(DeviceArrayObject *x, int ndim, const int64_t *shape, int axis)
{
    DeviceArrayObject *flat, *view = NULL, *out = NULL;
    int64_t strides[DA_MAXDIMS];
    int d;

    /* a 1-d array as it is; others flattened like NumPy's reshape(-1) */
    flat = x->ndim == 1 ? (Py_INCREF(x), x) : copy_contiguous_as(x, x->typenum);
    if (flat == NULL) {
        return NULL;
    }
    for (d = 0; d < ndim; d++) {
        strides[d] = 0;
    }
    strides[axis] = flat->ndim == 1 ? DA_STRIDES(flat)[0] : DA_ITEMSIZE(flat);
    view = array_view_of(flat, ndim, shape, strides, flat->data);
    out = view == NULL ? NULL : array_new(x->backend, x->typenum, ndim, shape);
    if (out != NULL && out->size > 0 && elementwise_copy(out, view) < 0) {
        Py_CLEAR(out);
    }
    Py_XDECREF(view);
    Py_DECREF(flat);
    return (PyObject *)out;
}

/* meshgrid(*arrays, indexing='xy'): a tuple of copies (the standard's
   type since 2025.12, NumPy 2's), NumPy's shapes. */
static PyObject *
ranges_meshgrid(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args), i;
    int64_t shape[DA_MAXDIMS], swap;
    PyObject *arrays = NULL, *item;
    int ij;

    if (ranges_indexing(kwds, &ij) < 0) {
        return NULL;
    }
    if (n > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "meshgrid() takes at most %d arrays (devarray's maximum "
                     "number of dimensions), got %zd",
                     DA_MAXDIMS, n);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(args, i);
        if (!DeviceArray_Check(x)) {
            PyErr_Format(PyExc_TypeError,
                         "meshgrid() takes DeviceArrays, not %.200s (argument %zd)",
                         Py_TYPE(x)->tp_name, i);
            return NULL;
        }
        shape[i] = ((DeviceArrayObject *)x)->size;
    }
    if (!ij && n >= 2) {
        swap = shape[0];
        shape[0] = shape[1];
        shape[1] = swap;
    }
    arrays = PyTuple_New(n);
    if (arrays == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        int axis = (int)i;
        if (!ij && n >= 2 && i < 2) {
            axis = 1 - (int)i;
        }
        item = ranges_mesh_one((DeviceArrayObject *)PyTuple_GET_ITEM(args, i), (int)n,
                               shape, axis);
        if (item == NULL) {
            Py_DECREF(arrays);
            return NULL;
        }
        PyTuple_SET_ITEM(arrays, i, item);
    }
    return arrays;
}

#define KW_METHOD(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef ranges_methods[] = {
    KW_METHOD("arange", ranges_arange,
              "arange(start, /, stop=None, step=1, *, dtype=None, device=None)"
              "\n--\n\nEvenly spaced values in [start, stop), step apart "
              "(NumPy's values and length)."),
    KW_METHOD("linspace", ranges_linspace,
              "linspace(start, stop, /, num, *, dtype=None, device=None, "
              "endpoint=True)\n--\n\nnum evenly spaced values from start to "
              "stop (NumPy's formula)."),
    KW_METHOD("meshgrid", ranges_meshgrid,
              "meshgrid(*arrays, indexing='xy')\n--\n\nCoordinate matrices "
              "from 1-d arrays, as a tuple of new arrays."),
    KW_METHOD("tril", ranges_tril,
              "tril(x, /, *, k=0)\n--\n\nx with the elements above diagonal k "
              "of its last two axes zeroed."),
    KW_METHOD("triu", ranges_triu,
              "triu(x, /, *, k=0)\n--\n\nx with the elements below diagonal k "
              "of its last two axes zeroed."),
    {NULL, NULL, 0, NULL},
};

int
ranges_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, ranges_methods);
}
