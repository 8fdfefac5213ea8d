/*
 * devarray._core: module initialisation and the module-level constructors.
 *
 * Single-phase initialisation with static types, as NumPy does.  Why not
 * PEP 489/630 module state: every arithmetic slot would have to find the
 * state (PyType_GetModuleByDef walks the MRO) on the per-op hot path, and the
 * state would pretend to isolate what cannot be isolated: the CUDA context
 * and its memory pool belong to the process.
 */
#include "common.h"

#include "array.h"
#include "arraytype.h"
#include "backend.h"
#include "buffer_in.h"
#include "cai.h"
#include "capi.h"
#include "copy.h"
#include "cuda_error.h"
#include "device.h"
#include "dlpack.h"
#include "deviceobject.h"
#include "dtypefuncs.h"
#include "dtypeobject.h"
#include "elementwise.h"
#include "hostbuffer.h"
#include "manipulation.h"
#include "select.h"
#include "namespace.h"
#include "pool.h"
#include "reduce.h"
#include "scalar.h"
#include "sequence_in.h"
#include "transfer.h"
#include "ufunc.h"

static PyObject *
module_to_device(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obj", "dtype", NULL};
    PyObject *obj;
    int typenum = -1, backend;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:to_device", kwlist, &obj,
                                     dtypeobject_converter_optional, &typenum)) {
        return NULL;
    }
    backend = backend_default();
    if (backend < 0) {
        return NULL;
    }
    if (DeviceArray_Check(obj)) {
        return copy_to_backend((DeviceArrayObject *)obj, typenum, backend);
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "to_device() needs an object with the buffer protocol "
                     "(bytes, bytearray, memoryview, array.array, "
                     "numpy.ndarray, ...), not %.200s; asarray() also takes "
                     "lists and scalars",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return (PyObject *)buffer_in_array(obj, typenum, backend);
}

/* A zero-copy view of obj's device memory when it offers it: through
   __cuda_array_interface__, else a CUDA __dlpack__.  NULL without an
   exception when obj offers neither (host producers are copied by the
   caller), NULL with one on failure. */
static DeviceArrayObject *
module_import_device_memory(PyObject *obj, int backend)
{
    DeviceArrayObject *result;
    int is_cuda = 0;

    if (cai_import_attribute(obj, backend, &result) != 0) {
        return result;
    }
    if (!PyObject_HasAttrString(obj, "__dlpack_device__") ||
        !PyObject_HasAttrString(obj, "__dlpack__")) {
        return NULL;
    }
    if (dlpack_is_cuda(obj, &is_cuda) < 0) {
        return NULL;
    }
    return is_cuda ? dlpack_import(obj, backend, -1) : NULL;
}

static PyObject *
module_asarray(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obj", "dtype", NULL};
    PyObject *obj, *result;
    DeviceArrayObject *imported;
    int typenum = -1, backend;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:asarray", kwlist, &obj,
                                     dtypeobject_converter_optional, &typenum)) {
        return NULL;
    }
    if (DeviceArray_Check(obj)) {
        DeviceArrayObject *a = (DeviceArrayObject *)obj;
        if (typenum < 0 || typenum == a->typenum) {
            Py_INCREF(obj);
            return obj;
        }
        return (PyObject *)copy_cast(a, typenum);
    }
    backend = backend_default();
    if (backend < 0) {
        return NULL;
    }
    imported = module_import_device_memory(obj, backend);
    if (imported == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        if (PyObject_CheckBuffer(obj)) {
            return (PyObject *)buffer_in_array(obj, typenum, backend);
        }
        return (PyObject *)sequence_in_array(obj, typenum, backend);
    }
    if (typenum < 0 || typenum == imported->typenum) {
        return (PyObject *)imported;
    }
    result = (PyObject *)copy_cast(imported, typenum);
    Py_DECREF(imported);
    return result;
}

/* The dtype NumPy gives a Python scalar. */
static int
module_scalar_typenum(PyObject *value, int *typenum)
{
    if (PyBool_Check(value)) {
        *typenum = DA_BOOL;
    }
    else if (PyLong_Check(value)) {
        *typenum = DA_INT64;
    }
    else if (PyFloat_Check(value)) {
        *typenum = DA_FLOAT64;
    }
    else if (PyComplex_Check(value)) {
        *typenum = DA_COMPLEX128;
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "fill_value must be a bool, int, float or complex, not "
                     "%.200s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    return 0;
}

/* How module_make initialises a new array. */
enum { FILL_NONE, FILL_ZERO, FILL_VALUE };

static PyObject *
module_make(int ndim, const int64_t *shape, int typenum, int backend, int fill,
            PyObject *value)
{
    DeviceArrayObject *a;
    int natural, cls = 0;
    da_scalar scalar;

    if (fill == FILL_VALUE) {
        if (module_scalar_typenum(value, &natural) < 0) {
            return NULL;
        }
        if (typenum < 0) {
            typenum = natural;
        }
        cls = elementwise_cast_class(natural, typenum);
        /* checked before allocating, so a bad value costs nothing */
        if (scalar_from_python(value, typenum, cls, &scalar) < 0) {
            return NULL;
        }
    }
    if (typenum < 0) {
        typenum = DA_FLOAT64;
    }
    a = array_new(backend, typenum, ndim, shape);
    if (a == NULL) {
        return NULL;
    }
    if ((fill == FILL_ZERO &&
         transfer_memset_zero(backend, a->data, (size_t)DA_NBYTES(a)) < 0) ||
        (fill == FILL_VALUE &&
         elementwise_run(DA_OP_COPY, cls, a, 1, (DeviceArrayObject *[]){NULL},
                         &scalar) < 0)) {
        Py_DECREF(a);
        return NULL;
    }
    return (PyObject *)a;
}

static PyObject *
module_new_filled(PyObject *args, PyObject *kwds, const char *name, int fill)
{
    static char *kwlist_plain[] = {"shape", "dtype", NULL};
    static char *kwlist_full[] = {"shape", "fill_value", "dtype", NULL};
    char format[32];
    PyObject *shape_obj, *value = NULL;
    int64_t shape[DA_MAXDIMS];
    int typenum = -1, ndim, backend, ok;

    if (fill == FILL_VALUE) {
        snprintf(format, sizeof format, "OO|O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_full,
                                         &shape_obj, &value,
                                         dtypeobject_converter_optional, &typenum);
    }
    else {
        snprintf(format, sizeof format, "O|O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_plain,
                                         &shape_obj, dtypeobject_converter_optional,
                                         &typenum);
    }
    if (!ok) {
        return NULL;
    }
    ndim = array_parse_shape(shape_obj, shape);
    backend = ndim < 0 ? -1 : backend_default();
    if (backend < 0) {
        return NULL;
    }
    return module_make(ndim, shape, typenum, backend, fill, value);
}

static PyObject *
module_empty(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_new_filled(args, kwds, "empty", FILL_NONE);
}

static PyObject *
module_zeros(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_new_filled(args, kwds, "zeros", FILL_ZERO);
}

static PyObject *
module_full(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_new_filled(args, kwds, "full", FILL_VALUE);
}

static PyObject *
module_ones(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape_obj, *one = NULL, *result;
    int64_t shape[DA_MAXDIMS];
    int typenum = -1, ndim, backend;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:ones", kwlist, &shape_obj,
                                     dtypeobject_converter_optional, &typenum)) {
        return NULL;
    }
    ndim = array_parse_shape(shape_obj, shape);
    backend = ndim < 0 ? -1 : backend_default();
    if (backend < 0) {
        return NULL;
    }
    one = PyLong_FromLong(1);
    if (one == NULL) {
        return NULL;
    }
    result = module_make(ndim, shape, typenum < 0 ? DA_FLOAT64 : typenum,
                         backend, FILL_VALUE, one);
    Py_DECREF(one);
    return result;
}

/* The `a` of the *_like functions as a DeviceArray (converted if needed). */
static DeviceArrayObject *
module_prototype(PyObject *obj)
{
    PyObject *empty, *converted;
    if (DeviceArray_Check(obj)) {
        Py_INCREF(obj);
        return (DeviceArrayObject *)obj;
    }
    empty = PyTuple_Pack(1, obj);
    if (empty == NULL) {
        return NULL;
    }
    converted = module_asarray(NULL, empty, NULL);
    Py_DECREF(empty);
    return (DeviceArrayObject *)converted;
}

static PyObject *
module_like(PyObject *args, PyObject *kwds, const char *name, int fill,
            int one)
{
    static char *kwlist_plain[] = {"a", "dtype", NULL};
    static char *kwlist_full[] = {"a", "fill_value", "dtype", NULL};
    char format[32];
    PyObject *obj, *value = NULL, *result = NULL;
    DeviceArrayObject *proto;
    int typenum = -1, ok;

    if (fill == FILL_VALUE && !one) {
        snprintf(format, sizeof format, "OO|O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_full, &obj,
                                         &value, dtypeobject_converter_optional,
                                         &typenum);
    }
    else {
        snprintf(format, sizeof format, "O|O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_plain, &obj,
                                         dtypeobject_converter_optional, &typenum);
    }
    if (!ok) {
        return NULL;
    }
    proto = module_prototype(obj);
    if (proto == NULL) {
        return NULL;
    }
    if (one) {
        value = PyLong_FromLong(1);
        if (value == NULL) {
            goto done;
        }
    }
    result = module_make(proto->ndim, DA_SHAPE(proto),
                         typenum >= 0 ? typenum : proto->typenum,
                         proto->backend, fill, value);
    if (one) {
        Py_DECREF(value);
    }
done:
    Py_DECREF(proto);
    return result;
}

static PyObject *
module_empty_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_like(args, kwds, "empty_like", FILL_NONE, 0);
}

static PyObject *
module_zeros_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_like(args, kwds, "zeros_like", FILL_ZERO, 0);
}

static PyObject *
module_ones_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_like(args, kwds, "ones_like", FILL_VALUE, 1);
}

static PyObject *
module_full_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return module_like(args, kwds, "full_like", FILL_VALUE, 0);
}

static PyObject *
module_sum(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "axis", "dtype", "keepdims", NULL};
    PyObject *obj, *axis = Py_None, *result;
    DeviceArrayObject *a;
    int typenum = -1, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO&p:sum", kwlist, &obj,
                                     &axis, dtypeobject_converter_optional, &typenum,
                                     &keepdims)) {
        return NULL;
    }
    a = module_prototype(obj);
    if (a == NULL) {
        return NULL;
    }
    result = reduce_sum(a, axis, typenum, keepdims);
    Py_DECREF(a);
    return result;
}

#define KW_METHOD(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef module_methods[] = {
    KW_METHOD("to_device", module_to_device,
              "to_device(obj, dtype=None)\n--\n\nCopy a buffer-protocol object "
              "(or a DeviceArray) to a new array on the current backend."),
    KW_METHOD("asarray", module_asarray,
              "asarray(obj, dtype=None)\n--\n\nA DeviceArray for obj: "
              "DeviceArrays as they are, buffers and nested sequences copied."),
    KW_METHOD("empty", module_empty,
              "empty(shape, dtype=None)\n--\n\nA new uninitialised array."),
    KW_METHOD("zeros", module_zeros,
              "zeros(shape, dtype=None)\n--\n\nA new array of zeros."),
    KW_METHOD("ones", module_ones,
              "ones(shape, dtype=None)\n--\n\nA new array of ones."),
    KW_METHOD("full", module_full,
              "full(shape, fill_value, dtype=None)\n--\n\nA new array filled "
              "with fill_value."),
    KW_METHOD("empty_like", module_empty_like,
              "empty_like(a, dtype=None)\n--\n\nAn uninitialised array shaped "
              "like a."),
    KW_METHOD("zeros_like", module_zeros_like,
              "zeros_like(a, dtype=None)\n--\n\nZeros shaped like a."),
    KW_METHOD("ones_like", module_ones_like,
              "ones_like(a, dtype=None)\n--\n\nOnes shaped like a."),
    KW_METHOD("full_like", module_full_like,
              "full_like(a, fill_value, dtype=None)\n--\n\nfill_value shaped "
              "like a."),
    KW_METHOD("sum", module_sum,
              "sum(a, axis=None, dtype=None, keepdims=False)\n--\n\nSum of "
              "the elements of a over the given axes."),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "devarray._core",
    .m_doc = "The C core of devarray: DeviceArray, dtypes and constructors.",
    .m_size = -1,
    .m_methods = module_methods,
};

/* __all__: every name the module defines that does not start with '_', so
   the package re-exports new functions without a list to keep in step. */
static int
module_add_all(PyObject *module)
{
    PyObject *dict = PyModule_GetDict(module), *names = NULL, *name;
    Py_ssize_t pos = 0;
    int status = -1;

    names = PyList_New(0);
    if (names == NULL) {
        return -1;
    }
    while (PyDict_Next(dict, &pos, &name, NULL)) {
        if (PyUnicode_Check(name) && PyUnicode_READ_CHAR(name, 0) != '_' &&
            PyList_Append(names, name) < 0) {
            goto error;
        }
    }
    if (PyList_Sort(names) < 0) {
        goto error;
    }
    status = PyModule_AddObjectRef(module, "__all__", names);
error:
    Py_DECREF(names);
    return status;
}

PyMODINIT_FUNC
PyInit__core(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (cuda_error_module_init(module) < 0 || device_module_init(module) < 0 ||
        pool_module_init(module) < 0 || backend_module_init(module) < 0 ||
        dtypeobject_module_init(module) < 0 || deviceobject_module_init(module) < 0 ||
        array_module_init(module) < 0 ||
        arraytype_module_init(module) < 0 || hostbuffer_module_init(module) < 0 ||
        dlpack_module_init(module) < 0 || ufunc_module_init(module) < 0 ||
        manipulation_module_init(module) < 0 || select_module_init(module) < 0 ||
        capi_module_init(module) < 0 ||
        dtypefuncs_module_init(module) < 0 || namespace_module_init(module) < 0 ||
        module_add_all(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
