/*
 * The top of DeviceArray: fills the type's protocol, method and attribute
 * tables (number.c, methods.c, getset.c, the mapping and repr slots here)
 * into the object defined by array.c, readies it and adds it to the module.
 */
#include "arraytype.h"

#include "array.h"
#include "exchange.h"
#include "repr.h"
#include "getset.h"
#include "indexing.h"
#include "methods.h"
#include "number.h"

static Py_ssize_t
array_length(DeviceArrayObject *self)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)DA_SHAPE(self)[0];
}

/* Basic indexing: integers, slices, one Ellipsis and None, as NumPy. */
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

static PyMappingMethods array_as_mapping = {
    .mp_length = (lenfunc)array_length,
    .mp_subscript = (binaryfunc)indexing_subscript,
};


int
arraytype_module_init(PyObject *module)
{
    PyObject *exchange_api;

    DeviceArray_Type.tp_repr = (reprfunc)array_repr;
    DeviceArray_Type.tp_str = (reprfunc)array_str;
    DeviceArray_Type.tp_as_number = &number_as_number;
    DeviceArray_Type.tp_as_mapping = &array_as_mapping;
    DeviceArray_Type.tp_methods = methods_table;
    DeviceArray_Type.tp_getset = getset_table;
    if (PyType_Ready(&DeviceArray_Type) < 0) {
        return -1;
    }
    /* NumPy defers binary operators to an operand whose __array_ufunc__ is
       None, so `numpy_array + d` raises TypeError instead of silently copying
       d to the host through __array__. */
    if (PyDict_SetItemString(DeviceArray_Type.tp_dict, "__array_ufunc__",
                             Py_None) < 0) {
        return -1;
    }
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
