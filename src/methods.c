/*
 * The methods of DeviceArray (its method table): conversions to the host,
 * sums, copies and casts, reshapes and transposes, the DLPack export, and
 * the module's private test helpers about arrays.
 */
#include "methods.h"

#include "array.h"
#include "host_out.h"
#include "copy.h"
#include "dtypeobject.h"
#include "dlpack.h"
#include "number.h"
#include "reduce.h"
#include "view_ops.h"

static PyObject *
array_to_host(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"out", NULL};
    PyObject *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:to_host", kwlist, &out)) {
        return NULL;
    }
    return host_out_to_host(self, out);
}

static PyObject *
array_tolist(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return host_out_tolist(self);
}

static PyObject *
array_item(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return host_out_item(self);
}

static PyObject *
array_sum(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axis", "dtype", "keepdims", NULL};
    PyObject *axis = Py_None;
    int typenum = -1, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO&p:sum", kwlist, &axis,
                                     dtypeobject_converter_optional, &typenum,
                                     &keepdims)) {
        return NULL;
    }
    return reduce_sum(self, axis, typenum, keepdims);
}

static PyObject *
array_copy(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return (PyObject *)copy_cast(self, self->typenum);
}

static PyObject *
array_astype(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    int typenum, copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|p:astype", kwlist,
                                     dtypeobject_converter_optional, &typenum,
                                     &copy)) {
        return NULL;
    }
    if (typenum < 0) {
        PyErr_SetString(PyExc_TypeError, "astype() needs a dtype, not None");
        return NULL;
    }
    if (!copy && typenum == self->typenum) {
        Py_INCREF(self);
        return (PyObject *)self;
    }
    return (PyObject *)copy_cast(self, typenum);
}

static PyObject *
array_reshape(DeviceArrayObject *self, PyObject *args)
{
    int64_t shape[DA_MAXDIMS];
    int ndim = array_parse_shape(PyTuple_GET_SIZE(args) == 1
                                     ? PyTuple_GET_ITEM(args, 0)
                                     : args,
                                 shape);
    return ndim < 0 ? NULL
                    : (PyObject *)view_ops_reshape(self, ndim, shape, -1);
}

static PyObject *
array_transpose(DeviceArrayObject *self, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);

    if (n == 0 || (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None)) {
        return (PyObject *)array_transposed(self, NULL);
    }
    if (n == 1 && !PyIndex_Check(PyTuple_GET_ITEM(args, 0))) {
        return (PyObject *)view_ops_permute(self, PyTuple_GET_ITEM(args, 0));
    }
    return (PyObject *)view_ops_permute(self, args);
}

static PyObject *
array_array(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None, *host = NULL, *result;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:__array__", kwlist,
                                     &dtype, &copy)) {
        return NULL;
    }
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "a DeviceArray cannot be exposed to NumPy without a "
                        "copy (its memory is on the device); use copy=None "
                        "or copy=True");
        return NULL;
    }
    host = host_out_to_host(self, Py_None);
    if (host == NULL || dtype == Py_None) {
        return host;
    }
    result = PyObject_CallMethod(host, "astype", "O", dtype);
    Py_DECREF(host);
    return result;
}

static PyObject *
array_readonly_view(PyObject *Py_UNUSED(module), PyObject *arg)
{
    DeviceArrayObject *self = (DeviceArrayObject *)arg, *view;
    if (!DeviceArray_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a DeviceArray");
        return NULL;
    }
    view = array_view_of(self, self->ndim, DA_SHAPE(self), DA_STRIDES(self),
                         self->data);
    if (view != NULL) {
        view->flags |= DA_FLAG_READONLY;
    }
    return (PyObject *)view;
}

PyMethodDef methods_table[] = {
    {"to_host", (PyCFunction)(void (*)(void))array_to_host,
     METH_VARARGS | METH_KEYWORDS,
     "to_host($self, /, out=None)\n--\n\nCopy to host memory: a numpy.ndarray (a "
     "memoryview without NumPy), or into the writable buffer `out`."},
    {"tolist", (PyCFunction)array_tolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nThe values as nested Python lists."},
    {"item", (PyCFunction)array_item, METH_NOARGS,
     "item($self, /)\n--\n\nThe value of a size-1 array as a Python scalar."},
    {"sum", (PyCFunction)(void (*)(void))array_sum,
     METH_VARARGS | METH_KEYWORDS,
     "sum($self, /, axis=None, dtype=None, keepdims=False)\n--\n\nSum of the elements "
     "over the given axes, on the device."},
    {"copy", (PyCFunction)array_copy, METH_NOARGS,
     "copy($self, /)\n--\n\nA C-contiguous copy on the same backend."},
    {"astype", (PyCFunction)(void (*)(void))array_astype,
     METH_VARARGS | METH_KEYWORDS,
     "astype($self, /, dtype, copy=True)\n--\n\nA copy cast to dtype."},
    {"reshape", (PyCFunction)array_reshape, METH_VARARGS,
     "reshape($self, /, *shape)\n--\n\nA view with a new shape (a copy when no "
     "strides can express it)."},
    {"transpose", (PyCFunction)array_transpose, METH_VARARGS,
     "transpose($self, /, *axes)\n--\n\nA view with the axes permuted."},
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack_export,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, "
     "copy=None)"
     "\n--\n\nExport as a DLPack capsule, ordered before the consumer's "
     "stream."},
    {"__dlpack_device__", (PyCFunction)dlpack_export_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n(device_type, device_id) as DLPack names "
     "them."},
    {"__complex__", (PyCFunction)number_complex, METH_NOARGS,
     "complex(a) for a size-1 array."},
    {"__array__", (PyCFunction)(void (*)(void))array_array,
     METH_VARARGS | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\nA NumPy copy of the array."},
    {NULL, NULL, 0, NULL},
};

/* Private helpers for tests. */
PyMethodDef methods_module_functions[] = {
    {"_readonly_view", array_readonly_view, METH_O,
     "A read-only view of a DeviceArray (for tests)."},
    {NULL, NULL, 0, NULL},
};

