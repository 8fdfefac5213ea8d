/*
 * all() and any(): see logical_reduce.h.
 *
 * Each is one nonzero reduction (reduce_nonzero, kernels/nonzero_reduce.cu):
 * whether any (all) elements of x are != 0, tested as the cast to bool
 * does (NaN counts as true, -0.0 as false, a complex value is true when
 * either part is nonzero), by their bits, in one pass.  any() of nothing
 * is False, all() of nothing True.  Axis checks (AxisError, duplicate
 * axes) are reduce_result_shape's, with NumPy's wording.
 */
#include "ops/logical_reduce.h"

#include "core/array.h"
#include "core/reduce.h"

/* x's any() over axis: a new bool array. */
static PyObject *
logical_reduce_any_of(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_nonzero(x, DA_NONZERO_ANY, axis, keepdims);
}

/* x's all() over axis: a new bool array. */
static PyObject *
logical_reduce_all_of(DeviceArrayObject *x, PyObject *axis, int keepdims)
{
    return reduce_nonzero(x, DA_NONZERO_ALL, axis, keepdims);
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
