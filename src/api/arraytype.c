/*
 * The top of DeviceArray: fills the type's protocol, method and attribute
 * tables (number.c, methods.c, getset.c; the mapping, sequence, iteration,
 * hash and repr slots here) into the object defined by array.c, readies it
 * and adds it to the module.
 */
#include "api/arraytype.h"

#include "core/array.h"
#include "ops/array_index.h"
#include "interop/exchange.h"
#include "interop/repr.h"
#include "api/getset.h"
#include "core/indexing.h"
#include "api/methods.h"
#include "api/number.h"
#include "api/setitem.h"

static Py_ssize_t
array_length(DeviceArrayObject *self)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)DA_SHAPE(self)[0];
}

static int
array_ass_subscript(DeviceArrayObject *self, PyObject *key, PyObject *value)
{
    return setitem_assign(self, key, value);
}

/* Iteration over the first axis, through the sequence protocol's item; a
   0-d array refuses at iter(), as NumPy's does. */
static PyObject *
array_iter(DeviceArrayObject *self)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    return PySeqIter_New((PyObject *)self);
}

static PyObject *
array_repr(DeviceArrayObject *self)
{
    return repr_array(self, 1);
}

static PyObject *
array_str(DeviceArrayObject *self)
{
    return repr_array(self, 0);
}

/* Indexing and assignment as NumPy: basic indices (integers, slices, one
   Ellipsis and None) give views, integer arrays and boolean masks copies. */
static PyMappingMethods array_as_mapping = {
    .mp_length = (lenfunc)array_length,
    .mp_subscript = (binaryfunc)array_index_subscript,
    .mp_ass_subscript = (objobjargproc)array_ass_subscript,
};

/* Only for iteration (PySeqIter); d[i] itself goes through the mapping. */
static PySequenceMethods array_as_sequence = {
    .sq_length = (lenfunc)array_length,
    .sq_item = (ssizeargfunc)indexing_item,
};


int
arraytype_module_init(PyObject *module)
{
    PyObject *exchange_api, *priority;

    DeviceArray_Type.tp_repr = (reprfunc)array_repr;
    DeviceArray_Type.tp_str = (reprfunc)array_str;
    DeviceArray_Type.tp_as_number = &number_as_number;
    DeviceArray_Type.tp_richcompare = number_richcompare;
    DeviceArray_Type.tp_as_mapping = &array_as_mapping;
    DeviceArray_Type.tp_as_sequence = &array_as_sequence;
    DeviceArray_Type.tp_iter = (getiterfunc)array_iter;
    /* mutable, and == is elementwise: unhashable, as the array API asks */
    DeviceArray_Type.tp_hash = PyObject_HashNotImplemented;
    DeviceArray_Type.tp_methods = methods_table;
    DeviceArray_Type.tp_getset = getset_table;
    if (PyType_Ready(&DeviceArray_Type) < 0) {
        return -1;
    }
    /* dask.array and other libraries pick the chunk type of the highest
       priority to build results: DeviceArray over numpy.ndarray (0). */
    priority = PyFloat_FromDouble(100.0);
    if (priority == NULL ||
        PyDict_SetItemString(DeviceArray_Type.tp_dict, "__array_priority__",
                             priority) < 0) {
        Py_XDECREF(priority);
        return -1;
    }
    Py_DECREF(priority);
    /* DLPack 1.3: consumers exchange DeviceArrays at C speed */
    exchange_api = exchange_capsule();
    if (exchange_api == NULL ||
        PyDict_SetItemString(DeviceArray_Type.tp_dict, "__dlpack_c_exchange_api__",
                             exchange_api) < 0) {
        Py_XDECREF(exchange_api);
        return -1;
    }
    Py_DECREF(exchange_api);
    PyType_Modified(&DeviceArray_Type);
    if (PyModule_AddObjectRef(module, "DeviceArray",
                              (PyObject *)&DeviceArray_Type) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, methods_module_functions);
}
