/*
 * devarray.argmax, argmin and searchsorted (see search.h).
 *
 * argmax/argmin make the input "nsegments contiguous segments" (the
 * flattened array for axis=None, else the axis moved last, scan.h) and the
 * backend finds each segment's first extreme, the first NaN winning
 * (kernels/search.cu, src/host/host_scan.c).  An axis before the last of a
 * C-contiguous array, (outer, len, inner) with inner > 1, is read in place
 * instead where the backend has the kernel for it (CUDA, float32 and
 * float64: backend_argreduce_columns); everything else keeps the copy.  An
 * empty segment is NumPy's ValueError.
 *
 * searchsorted brings x1 and x2 to their promoted dtype, contiguous, and
 * sorter (when given) to contiguous int64, then one binary search per
 * element of x2 (kernels/search.cu).  A sorter index that the search reads
 * and finds out of range is NumPy's ValueError; on CUDA that is a flag set
 * on the device and read back, which synchronises (only when sorter is
 * given).  A Python scalar x2 (2025.12) is a 0-d array of the dtype it
 * promotes to with x1 (NEP 50: weak when exactly int, float, ...), so the
 * result is a 0-d array.
 *
 * Ownership: the contiguous copies are new references released at the one
 * exit; the result is new.
 */
#include "ops/search.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "ops/scan.h"
#include "interop/scalar.h"

PyObject *
search_argreduce(DeviceArrayObject *a, int op, PyObject *axis_obj, int keepdims)
{
    const char *name = op == DA_ARG_MAX ? "argmax" : "argmin";
    int64_t shape[DA_MAXDIMS], seglen, outer = 1, inner = 1;
    int axis = -1, k, ndim = 0, in_place = 0;
    DeviceArrayObject *source = NULL, *result = NULL;

    if (axis_obj != Py_None &&
        array_normalize_axis(axis_obj, a->ndim > 0 ? a->ndim : 1, &axis) < 0) {
        return NULL;
    }
    if (array_activate(a) < 0) {
        return NULL;
    }
    if (a->ndim == 0) {
        axis = -1;
    }
    for (k = 0; k < a->ndim; k++) {
        if (k != axis && axis >= 0) {
            shape[ndim++] = DA_SHAPE(a)[k];
        }
        else if (keepdims) {
            shape[ndim++] = 1;
        }
        if (axis >= 0 && k < axis) {
            outer *= DA_SHAPE(a)[k];
        }
        else if (axis >= 0 && k > axis) {
            inner *= DA_SHAPE(a)[k];
        }
    }
    seglen = axis >= 0 ? DA_SHAPE(a)[axis] : a->size;
    if (seglen == 0) {
        PyErr_Format(PyExc_ValueError, "attempt to get %s of an empty sequence", name);
        return NULL;
    }
    result = array_new(a->backend, DA_INT64, ndim, shape);
    if (result == NULL || result->size == 0) {
        return (PyObject *)result;
    }
    /* an axis before the last of a C-contiguous array: in place where the
       backend has the columns kernel (CUDA, float32/float64) */
    if (inner > 1 && array_is_c_contiguous(a)) {
        in_place = backend_argreduce_columns(a->backend, op, a->typenum, a->data,
                                             (int64_t *)result->data, outer, seglen,
                                             inner);
        if (in_place < 0) {
            goto error;
        }
    }
    if (!in_place) {
        source = axis >= 0 ? scan_axis_last(a, axis, a->typenum)
                           : copy_contiguous_as(a, a->typenum);
        if (source == NULL ||
            backend_argreduce(a->backend, op, a->typenum, source->data,
                              (int64_t *)result->data, result->size, seglen) < 0) {
            goto error;
        }
    }
    goto done;

error:
    Py_CLEAR(result);
done:
    Py_XDECREF(source);
    return (PyObject *)result;
}

static PyObject *
search_arg(int op, const char *format, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", "keepdims", NULL};
    DeviceArrayObject *x;
    PyObject *axis = Py_None;
    int keepdims = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &DeviceArray_Type, &x,
                                     &axis, &keepdims)) {
        return NULL;
    }
    return search_argreduce(x, op, axis, keepdims);
}

static PyObject *
search_argmax(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    return search_arg(DA_ARG_MAX, "O!|$Op:argmax", args, kwds);
}

static PyObject *
search_argmin(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    return search_arg(DA_ARG_MIN, "O!|$Op:argmin", args, kwds);
}

/* "left" -> 0, "right" -> 1, else -1 with ValueError. */
static int
search_side(PyObject *side)
{
    if (PyUnicode_Check(side)) {
        if (PyUnicode_CompareWithASCIIString(side, "left") == 0) {
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(side, "right") == 0) {
            return 1;
        }
    }
    PyErr_Format(PyExc_ValueError, "searchsorted() side must be 'left' or 'right', not %R",
                 side);
    return -1;
}

/* The Python scalar x2 as a 0-d array on x1's place, of the dtype it
   promotes to with x1; a new reference, or NULL with TypeError (not a
   scalar) or OverflowError (an int out of x1's integer range, NumPy
   2's weak-scalar rule). */
static DeviceArrayObject *
search_scalar_values(DeviceArrayObject *x1, PyObject *x2)
{
    const char kind = scalar_python_kind(x2);
    _Alignas(16) char element[16]; /* the widest dtype, complex128 */
    int typenum;

    if (kind == 0) {
        PyErr_Format(PyExc_TypeError,
                     "searchsorted() x2 must be a DeviceArray or a Python scalar, "
                     "not %.200s",
                     Py_TYPE(x2)->tp_name);
        return NULL;
    }
    typenum = scalar_promote(x1->typenum, x2, kind);
    if (typenum < 0 || scalar_store_python(x2, typenum, element) < 0 ||
        array_activate(x1) < 0) {
        return NULL;
    }
    return copy_new_0d(x1->backend, typenum, element);
}

static PyObject *
search_searchsorted(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "side", "sorter", NULL};
    DeviceArrayObject *x1, *x2 = NULL, *sorted = NULL, *values = NULL,
                      *order = NULL, *result = NULL;
    PyObject *x2_obj, *side_obj = NULL, *sorter = Py_None;
    da_searchsorted s;
    int typenum, status;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$OO:searchsorted", kwlist,
                                     &DeviceArray_Type, &x1, &x2_obj, &side_obj,
                                     &sorter)) {
        return NULL;
    }
    memset(&s, 0, sizeof(s));
    if (side_obj != NULL && (s.right = search_side(side_obj)) < 0) {
        return NULL;
    }
    if (x1->ndim != 1) {
        PyErr_Format(PyExc_ValueError,
                     "searchsorted() x1 must be one-dimensional, not %d-dimensional",
                     x1->ndim);
        return NULL;
    }
    if (sorter != Py_None) {
        DeviceArrayObject *p = (DeviceArrayObject *)sorter;
        if (!DeviceArray_Check(sorter) || da_class_of(p->typenum) == DA_CLASS_BOOL ||
            da_class_of(p->typenum) > DA_CLASS_UINT) {
            PyErr_Format(PyExc_TypeError,
                         "searchsorted() sorter must be an integer DeviceArray or None, "
                         "not %.200s",
                         DeviceArray_Check(sorter) ? dtype_table[p->typenum].name
                                                   : Py_TYPE(sorter)->tp_name);
            return NULL;
        }
        if (array_check_same_place("searchsorted", x1, p) < 0) {
            return NULL;
        }
        if (p->ndim != 1 || DA_SHAPE(p)[0] != DA_SHAPE(x1)[0]) {
            PyErr_SetString(PyExc_ValueError,
                            "searchsorted() sorter must be one-dimensional, of the "
                            "length of x1");
            return NULL;
        }
    }
    if (DeviceArray_Check(x2_obj)) {
        x2 = (DeviceArrayObject *)Py_NewRef(x2_obj);
        if (array_check_same_place("searchsorted", x1, x2) < 0) {
            goto error;
        }
    }
    else if ((x2 = search_scalar_values(x1, x2_obj)) == NULL) {
        goto error;
    }
    typenum = dtype_promote(x1->typenum, x2->typenum);
    result = array_new(x2->backend, DA_INT64, x2->ndim, DA_SHAPE(x2));
    if (result == NULL || result->size == 0) {
        goto done;
    }
    sorted = copy_contiguous_as(x1, typenum);
    values = sorted != NULL ? copy_contiguous_as(x2, typenum) : NULL;
    if (values == NULL) {
        goto error;
    }
    if (sorter != Py_None &&
        (order = copy_contiguous_as((DeviceArrayObject *)sorter, DA_INT64)) == NULL) {
        goto error;
    }
    s.sorted = sorted->data;
    s.sorter = order != NULL ? (const int64_t *)order->data : NULL;
    s.values = values->data;
    s.out = (int64_t *)result->data;
    s.n = DA_SHAPE(x1)[0];
    s.nvalues = result->size;
    s.typenum = typenum;
    status = backend_searchsorted(x1->backend, &s);
    if (status < 0) {
        goto error;
    }
    if (status > 0) {
        PyErr_SetString(PyExc_ValueError, "searchsorted() sorter index out of range");
        goto error;
    }
    goto done;

error:
    Py_CLEAR(result);
done:
    Py_XDECREF(order);
    Py_XDECREF(values);
    Py_XDECREF(sorted);
    Py_XDECREF(x2);
    return (PyObject *)result;
}

static PyMethodDef search_functions[] = {
    {"argmax", (PyCFunction)(void (*)(void))search_argmax, METH_VARARGS | METH_KEYWORDS,
     "argmax(x, /, *, axis=None, keepdims=False)\n--\n\nThe index (int64) of the "
     "first maximum along axis (None: of the flattened array); a NaN counts as "
     "the maximum."},
    {"argmin", (PyCFunction)(void (*)(void))search_argmin, METH_VARARGS | METH_KEYWORDS,
     "argmin(x, /, *, axis=None, keepdims=False)\n--\n\nThe index (int64) of the "
     "first minimum along axis (None: of the flattened array); a NaN counts as "
     "the minimum."},
    {"searchsorted", (PyCFunction)(void (*)(void))search_searchsorted,
     METH_VARARGS | METH_KEYWORDS,
     "searchsorted(x1, x2, /, *, side='left', sorter=None)\n--\n\nFor each "
     "element of x2 (an array, or a Python int or float: a 0-d result), the "
     "index (int64) at which inserting it keeps the 1-d x1 "
     "(or x1[sorter]) sorted: before equal elements ('left') or after them "
     "('right'); NaN sorts last."},
    {NULL, NULL, 0, NULL},
};

int
search_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, search_functions);
}
