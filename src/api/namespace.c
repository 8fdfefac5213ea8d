/*
 * The array API's namespace-level names: see namespace.h.
 *
 * __array_namespace_info__ is a type, as NumPy's is: calling it returns its
 * one statically allocated instance (never deallocated, like the DType
 * singletons), whose methods answer from dtype.c's table and deviceobject.c.
 */
#include "api/namespace.h"

#include "interop/deviceobject.h"
#include "base/dtype.h"
#include "ops/dtypefuncs.h"
#include "interop/dtypeobject.h"

typedef struct {
    PyObject_HEAD
} NamespaceInfoObject;

static PyTypeObject NamespaceInfo_Type;

static NamespaceInfoObject namespace_info = {PyObject_HEAD_INIT(&NamespaceInfo_Type)};

static PyObject *
namespace_info_new(PyTypeObject *Py_UNUSED(type), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};

    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":__array_namespace_info__",
                                     kwlist)) {
        return NULL;
    }
    return Py_NewRef((PyObject *)&namespace_info);
}

static PyObject *
namespace_capabilities(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args))
{
    /* boolean masks index (array_index.c), and nonzero and masks give
       shapes that depend on the data */
    return Py_BuildValue("{sOsOsi}", "boolean indexing", Py_True,
                         "data-dependent shapes", Py_True, "max dimensions",
                         DA_MAXDIMS);
}

static PyObject *
namespace_default_device(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args))
{
    da_place place;

    if (deviceobject_default_place(&place) < 0) {
        return NULL;
    }
    return deviceobject_new(place.backend, place.device);
}

static PyObject *
namespace_default_dtypes(PyObject *Py_UNUSED(self), PyObject *args,
                         PyObject *kwds)
{
    static char *kwlist[] = {"device", NULL};
    da_place place;

    /* the device is checked, but every device has the same defaults */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O&:default_dtypes", kwlist,
                                     deviceobject_converter_optional, &place)) {
        return NULL;
    }
    return Py_BuildValue("{sOsOsOsO}", "real floating",
                         dtypeobject_singleton(DA_FLOAT64), "complex floating",
                         dtypeobject_singleton(DA_COMPLEX128), "integral",
                         dtypeobject_singleton(DA_INT64), "indexing",
                         dtypeobject_singleton(DA_INT64));
}

/* The dtypes of dtypes(), in NumPy's order; the standard asks for its own
   dtypes only, so not float16. */
static const unsigned char namespace_dtype_order[] = {
    DA_BOOL,   DA_INT8,    DA_INT16,   DA_INT32,     DA_INT64,
    DA_UINT8,  DA_UINT16,  DA_UINT32,  DA_UINT64,    DA_FLOAT32,
    DA_FLOAT64, DA_COMPLEX64, DA_COMPLEX128,
};

static PyObject *
namespace_dtypes(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"device", "kind", NULL};
    PyObject *kind = Py_None, *result;
    uint32_t mask = UINT32_MAX;
    da_place place;
    size_t i;

    /* the device is checked, but both backends support every dtype */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O&O:dtypes", kwlist,
                                     deviceobject_converter_optional, &place,
                                     &kind) ||
        (kind != Py_None &&
         dtypefuncs_kind_mask(kind, 0, "dtypes() kind", &mask) < 0)) {
        return NULL;
    }
    result = PyDict_New();
    if (result == NULL) {
        return NULL;
    }
    for (i = 0; i < sizeof namespace_dtype_order / sizeof namespace_dtype_order[0];
         i++) {
        int typenum = namespace_dtype_order[i];
        if (!(mask & ((uint32_t)1 << typenum))) {
            continue;
        }
        if (PyDict_SetItemString(result, dtype_table[typenum].name,
                                 dtypeobject_singleton(typenum)) < 0) {
            Py_DECREF(result);
            return NULL;
        }
    }
    return result;
}

static PyObject *
namespace_devices(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args))
{
    return deviceobject_available();
}

#define NAMESPACE_KW(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef namespace_info_methods[] = {
    {"capabilities", namespace_capabilities, METH_NOARGS,
     "capabilities($self, /)\n--\n\nWhat devarray supports: 'boolean "
     "indexing', 'data-dependent shapes', 'max dimensions'."},
    {"default_device", namespace_default_device, METH_NOARGS,
     "default_device($self, /)\n--\n\nThe Device new arrays get (the default "
     "backend's)."},
    NAMESPACE_KW("default_dtypes", namespace_default_dtypes,
                 "default_dtypes($self, /, *, device=None)\n--\n\nThe default "
                 "dtypes: float64, complex128, int64 (integral and "
                 "indexing), on every device."),
    NAMESPACE_KW("dtypes", namespace_dtypes,
                 "dtypes($self, /, *, device=None, kind=None)\n--\n\nThe "
                 "array API dtypes devarray supports (all but float16, "
                 "which it also has), by name; `kind` as isdtype's, names "
                 "only."),
    {"devices", namespace_devices, METH_NOARGS,
     "devices($self, /)\n--\n\nThe usable devices: every CUDA device, in "
     "ordinal order, then the host."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(namespace_info_doc,
"__array_namespace_info__()\n"
"--\n"
"\n"
"The array API's inspection object: capabilities(), default_device(),\n"
"default_dtypes(), dtypes() and devices().");

static PyTypeObject NamespaceInfo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.__array_namespace_info__",
    .tp_basicsize = sizeof(NamespaceInfoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = namespace_info_doc,
    .tp_new = namespace_info_new,
    .tp_methods = namespace_info_methods,
};

static int
namespace_add_float(PyObject *module, const char *name, double value)
{
    PyObject *number = PyFloat_FromDouble(value);
    int status;

    if (number == NULL) {
        return -1;
    }
    status = PyModule_AddObjectRef(module, name, number);
    Py_DECREF(number);
    return status;
}

int
namespace_module_init(PyObject *module)
{
    if (PyType_Ready(&NamespaceInfo_Type) < 0 ||
        PyModule_AddObjectRef(module, "__array_namespace_info__",
                              (PyObject *)&NamespaceInfo_Type) < 0 ||
        PyModule_AddStringConstant(module, "__array_api_version__",
                                   NAMESPACE_API_VERSION) < 0 ||
        namespace_add_float(module, "e", Py_MATH_E) < 0 ||
        namespace_add_float(module, "pi", Py_MATH_PI) < 0 ||
        namespace_add_float(module, "inf", Py_HUGE_VAL) < 0 ||
        namespace_add_float(module, "nan", Py_NAN) < 0 ||
        PyModule_AddObjectRef(module, "newaxis", Py_None) < 0) {
        return -1;
    }
    return 0;
}
