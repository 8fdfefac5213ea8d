/*
 * all() and any(): see logical_reduce.h.
 *
 * any(x) is NumPy's sum(x, dtype=bool): reduce_sum casts x to bool (the
 * cast tests != 0, so NaN counts as true and a complex value is true when
 * either part is nonzero), sums those flags per segment into int64 counts
 * and casts the counts to bool, i.e. count > 0.  An empty segment sums to 0,
 * so any() of nothing is False.
 *
 * all(x) is not any(not x): a logical_not pass makes the bool array of
 * zeros, whose any() is negated in place.  all() of nothing is True.
 *
 * Every temporary is a DeviceArray on x's backend, freed on return; nothing
 * goes through the host.  Axis checks (AxisError, duplicate axes) are
 * reduce_sum's, with NumPy's wording.
 */
#include "logical_reduce.h"

#include "array.h"
#include "reduce.h"
#include "ufunc.h"

/* x's any() over axis: a new bool array. */
static PyObject *
logical_reduce_any_of(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_sum(x, axis, DA_BOOL, keepdims);
}

/* x's all() over axis: a new bool array. */
static PyObject *
logical_reduce_all_of(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    PyObject *operand = (PyObject *)x, *zeros = NULL, *found = NULL,
             *result = NULL;

    zeros = ufunc_apply(DA_OP_LOGICAL_NOT, &operand, 0, 0);
    if (zeros == NULL) {
        goto error;
    }
    found = logical_reduce_any_of((DeviceArrayObject *)zeros, axis, keepdims);
    if (found == NULL) {
        goto error;
    }
    result = ufunc_apply(DA_OP_LOGICAL_NOT, &found, 1, 0);
error:
    Py_XDECREF(found);
    Py_XDECREF(zeros);
    return result;
}

/* Parse (x, /, *, axis=None, keepdims=False) with `format` (which ends in
   ":name") and run `reduce` on it. */
static PyObject *
logical_reduce_call(PyObject *args, PyObject *kwds, const char *name,
                    const char *format,
                    PyObject *(*reduce)(DeviceArrayObject *, PyObject *, int))
{
    static char *kwlist[] = {"", "axis", "keepdims", NULL};
    PyObject *x, *axis = Py_None;
    int keepdims = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &x, &axis,
                                     &keepdims)) {
        return NULL;
    }
    if (!DeviceArray_Check(x)) {
        PyErr_Format(PyExc_TypeError, "%s() argument x must be a DeviceArray, "
                     "not %.200s", name, Py_TYPE(x)->tp_name);
        return NULL;
    }
    return reduce((DeviceArrayObject *)x, axis, keepdims);
}

static PyObject *
logical_reduce_all(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return logical_reduce_call(args, kwds, "all", "O|$Op:all", logical_reduce_all_of);
}

static PyObject *
logical_reduce_any(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return logical_reduce_call(args, kwds, "any", "O|$Op:any", logical_reduce_any_of);
}

static PyMethodDef logical_reduce_methods[] = {
    {"all", (PyCFunction)(void (*)(void))logical_reduce_all,
     METH_VARARGS | METH_KEYWORDS,
     "all($module, x, /, *, axis=None, keepdims=False)\n--\n\nWhether every "
     "element of x along the given axes is true (nonzero; NaN counts as "
     "true), as a bool array.  True over no elements."},
    {"any", (PyCFunction)(void (*)(void))logical_reduce_any,
     METH_VARARGS | METH_KEYWORDS,
     "any($module, x, /, *, axis=None, keepdims=False)\n--\n\nWhether any "
     "element of x along the given axes is true (nonzero; NaN counts as "
     "true), as a bool array.  False over no elements."},
    {NULL, NULL, 0, NULL},
};

int
logical_reduce_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, logical_reduce_methods);
}
