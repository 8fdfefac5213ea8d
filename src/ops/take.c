/*
 * devarray.take, take_along_axis and nonzero (see take.h): each resolves
 * its arguments into an array_index_plan (array_index.c) and runs its
 * gather, so they share the key path's kernels and its device-side bounds
 * check (an index out of bounds raises IndexError from the call).
 *
 * Ownership: converted arguments and views are new references released at
 * each function's one exit; results are new.
 */
#include "ops/take.h"

#include "ops/array_index.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "interop/sequence_in.h"
#include "core/view_ops.h"

/* indices as an integer DeviceArray on x's backend (a DeviceArray or a
   nested sequence of ints): a new reference, or NULL with TypeError naming
   func. */
static DeviceArrayObject *
take_indices(const char *func, DeviceArrayObject *x, PyObject *obj)
{
    DeviceArrayObject *a;
    char kind;

    if (array_activate(x) < 0) {
        return NULL;
    }
    if (DeviceArray_Check(obj)) {
        a = (DeviceArrayObject *)obj;
        if (a->backend == x->backend && array_check_same_place(func, x, a) < 0) {
            return NULL;
        }
        Py_INCREF(a);
    }
    else if (PyList_Check(obj) || PyTuple_Check(obj)) {
        if ((a = sequence_in_array(obj, -1, x->backend)) == NULL) {
            return NULL;
        }
    }
    else {
        PyErr_Format(PyExc_TypeError, "%s() indices must be an integer array, not %.200s",
                     func, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    kind = dtype_table[a->typenum].kind;
    if (kind != 'i' && kind != 'u' && !(a->size == 0 && !DeviceArray_Check(obj))) {
        PyErr_Format(PyExc_TypeError, "%s() indices must have an integer dtype, not %s",
                     func, dtype_table[a->typenum].name);
        Py_DECREF(a);
        return NULL;
    }
    if (a->backend != x->backend) {
        Py_SETREF(a, (DeviceArrayObject *)copy_to_backend(a, -1, x->backend));
    }
    return a;
}

static PyObject *
take_take(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "axis", NULL};
    DeviceArrayObject *x = NULL, *idx = NULL, *flat = NULL;
    PyObject *indices = NULL, *axis_obj = Py_None, *result = NULL;
    array_index_plan plan;
    int axis = 0;

    memset(&plan, 0, sizeof(plan));
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$O:take", kwlist, &DeviceArray_Type,
                                     &x, &indices, &axis_obj)) {
        return NULL;
    }
    if (axis_obj == Py_None) {
        /* NumPy takes from the flattened array (the standard requires an
           axis when x has more than one dimension) */
        const int64_t all = -1;
        flat = x->ndim == 1 ? x : view_ops_reshape(x, 1, &all, -1);
        if (flat == NULL) {
            return NULL;
        }
        if (flat == x) {
            Py_INCREF(flat);
        }
    }
    else {
        if (x->ndim == 0) {
            PyErr_SetString(PyExc_ValueError, "take() of a 0-d array needs axis=None");
            return NULL;
        }
        if (array_normalize_axis(axis_obj, x->ndim, &axis) < 0) {
            return NULL;
        }
        flat = x;
        Py_INCREF(flat);
    }
    if ((idx = take_indices("take", x, indices)) == NULL ||
        array_index_plan_arrays(&plan, flat, 1, &idx, &axis, axis) < 0) {
        goto error;
    }
    plan.self_axis[0] = axis;
    result = (PyObject *)array_index_gather(&plan);
error:
    array_index_plan_clear(&plan);
    Py_XDECREF(idx);
    Py_XDECREF(flat);
    return result;
}

static PyObject *
take_take_along_axis(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "axis", NULL};
    DeviceArrayObject *x = NULL, *idx = NULL, *line = NULL, *shaped = NULL;
    PyObject *indices = NULL, *axis_obj = NULL, *result = NULL;
    array_index_plan plan;
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    int axis = -1, d, zero = 0;

    memset(&plan, 0, sizeof(plan));
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$O:take_along_axis", kwlist,
                                     &DeviceArray_Type, &x, &indices, &axis_obj)) {
        return NULL;
    }
    if (x->ndim == 0) {
        PyErr_SetString(PyExc_ValueError, "take_along_axis() needs x of at least one "
                                          "dimension");
        return NULL;
    }
    if (axis_obj == NULL) {
        axis = x->ndim - 1;
    }
    else if (array_normalize_axis(axis_obj, x->ndim, &axis) < 0) {
        return NULL;
    }
    if ((idx = take_indices("take_along_axis", x, indices)) == NULL) {
        goto error;
    }
    if (idx->ndim != x->ndim) {
        PyErr_Format(PyExc_ValueError,
                     "take_along_axis() indices must have as many dimensions as x "
                     "(%d), not %d",
                     x->ndim, idx->ndim);
        goto error;
    }
    /* the result: indices and x broadcast together, x's extent along axis
       replaced by the indices' */
    for (d = 0; d < x->ndim; d++) {
        const int64_t xe = d == axis ? 1 : DA_SHAPE(x)[d], ie = DA_SHAPE(idx)[d];
        if (xe != ie && xe != 1 && ie != 1) {
            PyObject *xs = array_int64_tuple(x->ndim, DA_SHAPE(x));
            PyObject *is = array_int64_tuple(idx->ndim, DA_SHAPE(idx));
            if (xs != NULL && is != NULL) {
                PyErr_Format(PyExc_IndexError,
                             "take_along_axis(): indices of shape %R do not broadcast "
                             "with x of shape %R outside axis %d",
                             is, xs, axis);
            }
            Py_XDECREF(xs);
            Py_XDECREF(is);
            goto error;
        }
        shape[d] = xe == 1 ? ie : xe;
    }
    /* the indices in the result's shape, then a one-axis view of x (its
       other axes are walked through the block strides) */
    for (d = 0; d < x->ndim; d++) {
        strides[d] = DA_SHAPE(idx)[d] == shape[d] ? DA_STRIDES(idx)[d] : 0;
    }
    shaped = array_view_of(idx, x->ndim, shape, strides, idx->data);
    if (shaped == NULL) {
        goto error;
    }
    line = array_view_of(x, 1, DA_SHAPE(x) + axis, DA_STRIDES(x) + axis, x->data);
    if (line == NULL || array_index_plan_arrays(&plan, line, 1, &shaped, &zero, 0) < 0) {
        goto error;
    }
    plan.self_axis[0] = axis;
    for (d = 0; d < x->ndim; d++) {
        plan.block_strides[d] = d != axis && DA_SHAPE(x)[d] != 1 ? DA_STRIDES(x)[d] : 0;
    }
    result = (PyObject *)array_index_gather(&plan);
error:
    array_index_plan_clear(&plan);
    Py_XDECREF(line);
    Py_XDECREF(shaped);
    Py_XDECREF(idx);
    return result;
}

static PyObject *
take_nonzero(PyObject *Py_UNUSED(module), PyObject *x)
{
    if (!DeviceArray_Check(x)) {
        PyErr_Format(PyExc_TypeError, "nonzero() takes a DeviceArray, not %.200s",
                     Py_TYPE(x)->tp_name);
        return NULL;
    }
    return array_index_nonzero((DeviceArrayObject *)x);
}

static PyMethodDef take_functions[] = {
    {"take", (PyCFunction)(void (*)(void))take_take, METH_VARARGS | METH_KEYWORDS,
     "take(x, indices, /, *, axis=None)\n--\n\nThe elements of x at the integer "
     "indices along axis (axis=None: of x flattened), as x[(:,) * axis + "
     "(indices,)]; negative indices count from the end, others out of bounds "
     "raise IndexError."},
    {"take_along_axis", (PyCFunction)(void (*)(void))take_take_along_axis,
     METH_VARARGS | METH_KEYWORDS,
     "take_along_axis(x, indices, /, *, axis=-1)\n--\n\nThe elements of x at "
     "indices (an integer array of x's rank, broadcast against x outside axis) "
     "along axis, as NumPy's take_along_axis."},
    {"nonzero", (PyCFunction)take_nonzero, METH_O,
     "nonzero(x, /)\n--\n\nThe indices of x's nonzero (true) elements: a tuple of "
     "x.ndim int64 arrays, in C order.  x must have at least one dimension."},
    {NULL, NULL, 0, NULL},
};

int
take_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, take_functions);
}
