/*
 * devarray.sort and devarray.argsort.
 *
 * The sorted axis is moved last and the input made C-contiguous (no copy
 * when it already is), so the launcher (kernels/sort.cu, src/host/host_sort.c)
 * sees nsegments rows of seglen elements.  When the axis is the last one
 * the outputs are written in place; otherwise they are sorted into
 * contiguous temporaries and copied back through the transposed view of
 * results of the input's shape, so results are always C-contiguous.
 *
 * Every sort is stable (the standard's default, and all CUB's radix sorts
 * give), so stable=False is accepted and changes nothing.  Order: NumPy's,
 * NaN after every number ascending; descending reverses the order of
 * values but not of ties, so NaN comes first (array-api-strict and
 * PyTorch agree; the standard leaves NaN's place to the implementation).
 * Complex input raises TypeError: the standard leaves complex ordering
 * unspecified.
 *
 * Ownership: the contiguous input, the permuted views and the temporaries
 * are held for the call and released at its one exit; results are new.
 */
#include "ops/sort.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "core/elementwise.h"

/* perm: the axes of an ndim-array with `axis` moved last. */
static void
sort_axis_last(int ndim, int axis, int *perm)
{
    int k, n = 0;

    for (k = 0; k < ndim; k++) {
        if (k != axis) {
            perm[n++] = k;
        }
    }
    perm[n] = axis;
}

int
sort_along_axis(DeviceArrayObject *a, int axis, int descending,
                DeviceArrayObject **values, DeviceArrayObject **indices)
{
    /* [0] values, [1] indices: results of a's shape, and where the
       launcher writes them (the results themselves, or temporaries with
       the axis last) */
    DeviceArrayObject *result[2] = {NULL, NULL}, *target[2] = {NULL, NULL};
    DeviceArrayObject *permuted = NULL, *source = NULL, *view = NULL;
    const int last = axis == a->ndim - 1;
    int perm[DA_MAXDIMS], k, status = -1;
    da_sort s;

    if (array_activate(a) < 0) {
        return -1;
    }
    sort_axis_last(a->ndim, axis, perm);
    for (k = 0; k < 2; k++) {
        if ((k == 0 ? values : indices) == NULL) {
            continue;
        }
        result[k] = array_new(a->backend, k == 0 ? a->typenum : DA_INT64, a->ndim,
                              DA_SHAPE(a));
        if (result[k] == NULL) {
            goto error;
        }
    }
    if (a->size == 0) {
        status = 0;
        goto done;
    }
    permuted = array_transposed(a, perm);
    if (permuted == NULL || (source = copy_contiguous_as(permuted, a->typenum)) == NULL) {
        goto error;
    }
    for (k = 0; k < 2; k++) {
        if (result[k] == NULL) {
            continue;
        }
        target[k] = last ? result[k]
                         : array_new(a->backend, result[k]->typenum, a->ndim,
                                     DA_SHAPE(source));
        if (target[k] == NULL) {
            goto error;
        }
        if (last) {
            Py_INCREF(target[k]);
        }
    }
    s.in = source->data;
    s.values = target[0] != NULL ? target[0]->data : NULL;
    s.indices = target[1] != NULL ? (int64_t *)(void *)target[1]->data : NULL;
    s.typenum = a->typenum;
    s.descending = descending;
    s.seglen = DA_SHAPE(a)[axis];
    s.nsegments = a->size / s.seglen;
    if (backend_sort(a->backend, &s) < 0) {
        goto error;
    }
    for (k = 0; k < 2 && !last; k++) {
        if (result[k] == NULL) {
            continue;
        }
        view = array_transposed(result[k], perm);
        if (view == NULL || elementwise_copy(view, target[k]) < 0) {
            goto error;
        }
        Py_CLEAR(view);
    }
    status = 0;
    goto done;

error:
    Py_CLEAR(result[0]);
    Py_CLEAR(result[1]);
done:
    if (values != NULL) {
        *values = result[0];
    }
    if (indices != NULL) {
        *indices = result[1];
    }
    Py_XDECREF(view);
    Py_XDECREF(target[0]);
    Py_XDECREF(target[1]);
    Py_XDECREF(source);
    Py_XDECREF(permuted);
    return status;
}

/* sort(x, /, *, axis=-1, descending=False, stable=True) and argsort: the
   parsed array and normalised axis, or -1 with an exception. */
static int
sort_parse(const char *name, PyObject *args, PyObject *kwds, DeviceArrayObject **a,
           int *axis, int *descending)
{
    static char *kwlist[] = {"", "axis", "descending", "stable", NULL};
    char format[32];
    PyObject *x, *axis_obj = NULL;
    int stable = 1;

    PyOS_snprintf(format, sizeof(format), "O|$Opp:%s", name);
    *descending = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &x, &axis_obj,
                                     descending, &stable)) {
        return -1;
    }
    if (!DeviceArray_Check(x)) {
        PyErr_Format(PyExc_TypeError, "%s() expects a DeviceArray, not %.200s", name,
                     Py_TYPE(x)->tp_name);
        return -1;
    }
    *a = (DeviceArrayObject *)x;
    if ((*a)->typenum == DA_COMPLEX64 || (*a)->typenum == DA_COMPLEX128) {
        PyErr_Format(PyExc_TypeError,
                     "%s() does not support complex arrays (got %s): the order of "
                     "complex numbers is unspecified by the array API standard",
                     name, (*a)->typenum == DA_COMPLEX64 ? "complex64" : "complex128");
        return -1;
    }
    if (axis_obj == NULL) {
        if ((*a)->ndim == 0) {
            PyErr_Format(array_AxisError,
                         "axis -1 is out of bounds for array of dimension 0");
            return -1;
        }
        *axis = (*a)->ndim - 1;
        return 0;
    }
    return array_normalize_axis(axis_obj, (*a)->ndim, axis);
}

static PyObject *
sort_py_sort(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    DeviceArrayObject *a, *values = NULL;
    int axis, descending;

    if (sort_parse("sort", args, kwds, &a, &axis, &descending) < 0 ||
        sort_along_axis(a, axis, descending, &values, NULL) < 0) {
        return NULL;
    }
    return (PyObject *)values;
}

static PyObject *
sort_py_argsort(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    DeviceArrayObject *a, *indices = NULL;
    int axis, descending;

    if (sort_parse("argsort", args, kwds, &a, &axis, &descending) < 0 ||
        sort_along_axis(a, axis, descending, NULL, &indices) < 0) {
        return NULL;
    }
    return (PyObject *)indices;
}

static PyMethodDef sort_functions[] = {
    {"sort", (PyCFunction)(void (*)(void))sort_py_sort, METH_VARARGS | METH_KEYWORDS,
     "sort(x, /, *, axis=-1, descending=False, stable=True)\n--\n\nA sorted "
     "copy of x along axis.  Always stable; NaN sorts after every number "
     "(last ascending, first descending), -0.0 equals +0.0.  Complex input "
     "raises TypeError."},
    {"argsort", (PyCFunction)(void (*)(void))sort_py_argsort,
     METH_VARARGS | METH_KEYWORDS,
     "argsort(x, /, *, axis=-1, descending=False, stable=True)\n--\n\nThe "
     "int64 indices that sort x along axis, in the order of sort()."},
    {NULL, NULL, 0, NULL},
};

int
sort_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, sort_functions);
}
