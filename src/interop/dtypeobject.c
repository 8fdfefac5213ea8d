/*
 * The Python DType type (devarray._core.DType) and its 14 singletons
 * (devarray.bool, int8, ..., complex128): their slots, getset and methods,
 * the conversion of any dtype-like, DType objects included, to a typenum, and
 * the private module functions that expose dtype.c's tables to the tests.
 * The data behind them (the dtype table, names, promotion) is dtype.c's.
 *
 * This file sits above dtype.c: it calls dtype.c, never the other way.  So
 * the conversion of dtype-likes is split: dtypeobject_from_object recognises
 * a DType by its (private) type in one pointer compare and hands everything
 * else to dtype.c's dtype_parse_object.
 *
 * Ownership: the 14 DType objects are statically allocated and live for the
 * whole process; their references are only ever borrowed from or added to
 * (the module holds one each), so they are never deallocated.  DType is a
 * static type for the same reason: the singletons are shared by every module
 * instance, and `devarray.float32 is devarray.float32` in all of them.
 */
#include "base/common.h"

#include "base/dtype.h"
#include "interop/dtypeobject.h"

typedef struct {
    PyObject_HEAD
    int typenum;
} DTypeObject;

static PyTypeObject DType_Type;

/* ---- dtype-likes -------------------------------------------------------- */

int
dtypeobject_from_object(PyObject *obj, int *typenum)
{
    /* DType cannot be subclassed: the common case is one pointer compare */
    if (Py_IS_TYPE(obj, &DType_Type)) {
        *typenum = ((DTypeObject *)obj)->typenum;
        return 0;
    }
    return dtype_parse_object(obj, typenum);
}

int
dtypeobject_converter_optional(PyObject *obj, void *typenum_ptr)
{
    int *typenum = (int *)typenum_ptr;

    if (obj == Py_None) {
        *typenum = -1;
        return 1;
    }
    return dtypeobject_from_object(obj, typenum) < 0 ? 0 : 1;
}

static int
dtypeobject_converter(PyObject *obj, void *typenum_ptr)
{
    return dtypeobject_from_object(obj, (int *)typenum_ptr) < 0 ? 0 : 1;
}

/* ---- the DType type ----------------------------------------------------- */

#define DTYPEOBJECT_INFO(self) (&dtype_table[((DTypeObject *)(self))->typenum])

static PyObject *
dtypeobject_new(PyTypeObject *Py_UNUSED(type), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", NULL};
    int typenum;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&:DType", kwlist,
                                     dtypeobject_converter, &typenum)) {
        return NULL;
    }
    return Py_NewRef(dtypeobject_singleton(typenum));
}

static PyObject *
dtypeobject_repr(PyObject *self)
{
    return PyUnicode_FromFormat("dtype('%s')", DTYPEOBJECT_INFO(self)->name);
}

static PyObject *
dtypeobject_str(PyObject *self)
{
    return PyUnicode_FromString(DTYPEOBJECT_INFO(self)->name);
}

/* The hash of the name, so that a dict keyed by "float32" finds float32. */
static Py_hash_t
dtypeobject_hash(PyObject *self)
{
    PyObject *name = PyUnicode_FromString(DTYPEOBJECT_INFO(self)->name);
    Py_hash_t hash;

    if (name == NULL) {
        return -1;
    }
    hash = PyObject_Hash(name);
    Py_DECREF(name);
    return hash;
}

/* Equal to anything that names the same dtype; objects that name no dtype
   are left to the other operand (NotImplemented). */
static PyObject *
dtypeobject_richcompare(PyObject *self, PyObject *other, int op)
{
    int other_typenum;

    if (op != Py_EQ && op != Py_NE) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (dtypeobject_from_object(other, &other_typenum) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return NULL;
        }
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyBool_FromLong(
        (other_typenum == ((DTypeObject *)self)->typenum) == (op == Py_EQ));
}

/* Pickle and copy by name: the singleton is a global of devarray._core. */
static PyObject *
dtypeobject_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(DTYPEOBJECT_INFO(self)->name);
}

static PyObject *
dtypeobject_get_name(PyObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(DTYPEOBJECT_INFO(self)->name);
}

static PyObject *
dtypeobject_get_itemsize(PyObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(DTYPEOBJECT_INFO(self)->itemsize);
}

static PyObject *
dtypeobject_get_kind(PyObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromStringAndSize(&DTYPEOBJECT_INFO(self)->kind, 1);
}

static PyObject *
dtypeobject_get_str(PyObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(DTYPEOBJECT_INFO(self)->typestr);
}

static PyObject *
dtypeobject_get_char(PyObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromStringAndSize(
        &dtype_chars[((DTypeObject *)self)->typenum], 1);
}

static PyObject *
dtypeobject_get_num(PyObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(((DTypeObject *)self)->typenum);
}

/* numpy.dtype(obj) reads obj.dtype and, since NumPy 2, insists on a real
   numpy.dtype there, so NumPy is imported here, on first use, and never at
   devarray's import. */
static PyObject *
dtypeobject_get_numpy_dtype(PyObject *self, void *Py_UNUSED(closure))
{
    PyObject *numpy = PyImport_ImportModule("numpy");
    PyObject *descr;

    if (numpy == NULL) {
        return NULL;
    }
    descr = PyObject_CallMethod(numpy, "dtype", "s",
                                DTYPEOBJECT_INFO(self)->typestr);
    Py_DECREF(numpy);
    return descr;
}

/* NumPy's scalar type (numpy.float32, ...), as numpy.dtype.type: code
   written for NumPy, dask's among it, asks dtypes for it. */
static PyObject *
dtypeobject_get_numpy_type(PyObject *self, void *closure)
{
    PyObject *descr = dtypeobject_get_numpy_dtype(self, closure), *type;

    if (descr == NULL) {
        return NULL;
    }
    type = PyObject_GetAttrString(descr, "type");
    Py_DECREF(descr);
    return type;
}

static PyMethodDef dtypeobject_type_methods[] = {
    {"__reduce__", dtypeobject_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef dtypeobject_getset[] = {
    {"name", dtypeobject_get_name, NULL, "The dtype's name, e.g. 'float32'.",
     NULL},
    {"itemsize", dtypeobject_get_itemsize, NULL, "Bytes per element.", NULL},
    {"kind", dtypeobject_get_kind, NULL,
     "NumPy's kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' float, "
     "'c' complex.",
     NULL},
    {"str", dtypeobject_get_str, NULL,
     "The array-interface typestr, e.g. '<f4'.", NULL},
    {"char", dtypeobject_get_char, NULL, "NumPy's type character, e.g. 'f'.",
     NULL},
    {"num", dtypeobject_get_num, NULL, "devarray's type number.", NULL},
    {"dtype", dtypeobject_get_numpy_dtype, NULL,
     "The equivalent numpy.dtype (imports NumPy); lets numpy.dtype() and "
     "NumPy's dtype= arguments accept devarray dtypes.",
     NULL},
    {"type", dtypeobject_get_numpy_type, NULL,
     "NumPy's scalar type, e.g. numpy.float32 (imports NumPy), as "
     "numpy.dtype.type.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(dtypeobject_doc,
"DType(dtype)\n"
"--\n"
"\n"
"An element type of devarray arrays.  The 14 instances are singletons\n"
"(devarray.bool, int8, ..., complex128); calling DType with any dtype-like\n"
"(a name, a NumPy dtype or scalar type, a Python type) returns one.");

static PyTypeObject DType_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.DType",
    .tp_basicsize = sizeof(DTypeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = dtypeobject_doc,
    .tp_new = dtypeobject_new,
    .tp_repr = dtypeobject_repr,
    .tp_str = dtypeobject_str,
    .tp_hash = dtypeobject_hash,
    .tp_richcompare = dtypeobject_richcompare,
    .tp_methods = dtypeobject_type_methods,
    .tp_getset = dtypeobject_getset,
};

#define DTYPEOBJECT_SINGLETON(typenum) \
    [typenum] = {PyObject_HEAD_INIT(&DType_Type) typenum}

static DTypeObject dtypeobject_singletons[DA_NTYPES] = {
    DTYPEOBJECT_SINGLETON(DA_BOOL),
    DTYPEOBJECT_SINGLETON(DA_INT8),
    DTYPEOBJECT_SINGLETON(DA_UINT8),
    DTYPEOBJECT_SINGLETON(DA_INT16),
    DTYPEOBJECT_SINGLETON(DA_UINT16),
    DTYPEOBJECT_SINGLETON(DA_INT32),
    DTYPEOBJECT_SINGLETON(DA_UINT32),
    DTYPEOBJECT_SINGLETON(DA_INT64),
    DTYPEOBJECT_SINGLETON(DA_UINT64),
    DTYPEOBJECT_SINGLETON(DA_FLOAT16),
    DTYPEOBJECT_SINGLETON(DA_FLOAT32),
    DTYPEOBJECT_SINGLETON(DA_FLOAT64),
    DTYPEOBJECT_SINGLETON(DA_COMPLEX64),
    DTYPEOBJECT_SINGLETON(DA_COMPLEX128),
};

#undef DTYPEOBJECT_SINGLETON

PyObject *
dtypeobject_singleton(int typenum)
{
    return (PyObject *)&dtypeobject_singletons[typenum];
}

/* ---- private module functions, for the tests ---------------------------- */

static PyObject *
dtypeobject_private_result_type(PyObject *Py_UNUSED(module), PyObject *args)
{
    int a, b;

    if (!PyArg_ParseTuple(args, "O&O&:_result_type", dtypeobject_converter,
                          &a, dtypeobject_converter, &b)) {
        return NULL;
    }
    return Py_NewRef(dtypeobject_singleton(dtype_promote(a, b)));
}

static PyObject *
dtypeobject_private_result_type_weak(PyObject *Py_UNUSED(module),
                                     PyObject *args)
{
    int a, kind, result;

    if (!PyArg_ParseTuple(args, "O&C:_result_type_weak",
                          dtypeobject_converter, &a, &kind)) {
        return NULL;
    }
    if (kind == '\0' || kind > 127 || strchr(dtype_weak_kinds, kind) == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "scalar kind must be one of 'b', 'i', 'f', 'c', not %R",
                     PyTuple_GET_ITEM(args, 1));
        return NULL;
    }
    result = dtype_promote_weak(a, (char)kind);
    if (result < 0) {
        return NULL;
    }
    return Py_NewRef(dtypeobject_singleton(result));
}

static PyObject *
dtypeobject_private_can_cast_same_kind(PyObject *Py_UNUSED(module),
                                       PyObject *args)
{
    int from, to;

    if (!PyArg_ParseTuple(args, "O&O&:_can_cast_same_kind",
                          dtypeobject_converter, &from, dtypeobject_converter,
                          &to)) {
        return NULL;
    }
    return PyBool_FromLong(dtype_can_cast_same_kind(from, to));
}

static PyObject *
dtypeobject_private_from_format(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *format;
    Py_ssize_t itemsize;
    int typenum;

    if (!PyArg_ParseTuple(args, "zn:_dtype_from_format", &format,
                          &itemsize) ||
        dtype_from_format(format, itemsize, &typenum) < 0) {
        return NULL;
    }
    return Py_NewRef(dtypeobject_singleton(typenum));
}

static PyMethodDef dtypeobject_private_methods[] = {
    {"_result_type", dtypeobject_private_result_type, METH_VARARGS,
     "_result_type(a, b): dtype_promote, NumPy's result_type of two arrays."},
    {"_result_type_weak", dtypeobject_private_result_type_weak, METH_VARARGS,
     "_result_type_weak(a, kind): dtype_promote_weak, an array of dtype a "
     "with a Python scalar of kind 'b', 'i', 'f' or 'c'."},
    {"_can_cast_same_kind", dtypeobject_private_can_cast_same_kind,
     METH_VARARGS,
     "_can_cast_same_kind(a, b): numpy.can_cast(a, b, 'same_kind')."},
    {"_dtype_from_format", dtypeobject_private_from_format, METH_VARARGS,
     "_dtype_from_format(format, itemsize): dtype_from_format, the dtype of "
     "a buffer (format None means 'B')."},
    {NULL, NULL, 0, NULL},
};

int
dtypeobject_module_init(PyObject *module)
{
    int typenum;

    if (PyType_Ready(&DType_Type) < 0 ||
        PyModule_AddObjectRef(module, "DType", (PyObject *)&DType_Type) < 0) {
        return -1;
    }
    for (typenum = 0; typenum < DA_NTYPES; typenum++) {
        if (PyModule_AddObjectRef(module, dtype_table[typenum].name,
                                  dtypeobject_singleton(typenum)) < 0) {
            return -1;
        }
    }
    return PyModule_AddFunctions(module, dtypeobject_private_methods);
}
