/*
 * NumPy's dispatch protocols on DeviceArray: see numpy_protocol.h.
 *
 * NumPy's functions (NEP 18) and ufuncs (NEP 13) called on DeviceArrays run
 * devarray's function of the same name, on the device: numpy.sum(d) is
 * devarray.sum(d), numpy.exp(d) devarray.exp(d).  Names the array API
 * spells differently are mapped (numpy.concatenate to concat, numpy.power
 * to pow), and numpy.fft's and numpy.linalg's functions run devarray.fft's
 * and devarray.linalg's.  Nothing goes through the host: a function
 * devarray lacks, a function of another NumPy module, a ufunc method other
 * than __call__, or a numpy.ndarray among the operands is refused, never
 * computed on a host copy.  dask.array's own reductions and
 * ufuncs need this to run on DeviceArray chunks.
 */
#include "api/numpy_protocol.h"

#include "core/array.h"
#include "interop/deviceobject.h"
#include "base/dtype.h"
#include "core/view_ops.h"

/* NumPy's names whose devarray (array API) name differs. */
static const struct {
    const char *numpy;
    const char *devarray;
} numpy_protocol_renames[] = {
    /* functions */
    {"concatenate", "concat"},
    {"amax", "max"},
    {"amin", "min"},
    {"cumsum", "cumulative_sum"},
    {"cumprod", "cumulative_prod"},
    {"transpose", "permute_dims"},
    /* ufuncs */
    {"absolute", "abs"},
    {"arccos", "acos"},
    {"arccosh", "acosh"},
    {"arcsin", "asin"},
    {"arcsinh", "asinh"},
    {"arctan", "atan"},
    {"arctan2", "atan2"},
    {"arctanh", "atanh"},
    {"conjugate", "conj"},
    {"invert", "bitwise_invert"},
    {"left_shift", "bitwise_left_shift"},
    {"right_shift", "bitwise_right_shift"},
    {"power", "pow"},
    {"rint", "round"},
};

/* obj.name as a str, or NULL without an exception when obj has no such
   str attribute (NULL with one on other errors). */
static PyObject *
numpy_protocol_str_attr(PyObject *obj, const char *name)
{
    PyObject *value = PyObject_GetAttrString(obj, name);

    if (value == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
        }
        return NULL;
    }
    if (!PyUnicode_Check(value)) {
        Py_CLEAR(value);
    }
    return value;
}

/* numpy.T where NumPy is imported (never imports it), else NULL; NULL with
   an exception on error. */
static PyObject *
numpy_protocol_numpy_attr(const char *name)
{
    PyObject *module_name = PyUnicode_FromString("numpy"), *numpy, *value = NULL;

    if (module_name == NULL) {
        return NULL;
    }
    numpy = PyImport_GetModule(module_name);
    Py_DECREF(module_name);
    if (numpy != NULL) {
        value = PyObject_GetAttrString(numpy, name);
        Py_DECREF(numpy);
    }
    return value;
}

/* devarray._core.<name>, a new reference; NULL with an exception (an
   AttributeError where the module has no such name). */
static PyObject *
numpy_protocol_core_attr(const char *name)
{
    PyObject *core = PyImport_ImportModule("devarray._core"), *value;

    if (core == NULL) {
        return NULL;
    }
    value = PyObject_GetAttrString(core, name);
    Py_DECREF(core);
    return value;
}

/* The function devarray's extension module `extension` ("devarray.fft",
   "devarray.linalg") runs for NumPy's submodule's `name` (its
   _numpy_function: it takes NumPy's positional arguments), a new
   reference; NULL without an exception when it has none. */
static PyObject *
numpy_protocol_extension_attr(const char *extension, PyObject *name)
{
    PyObject *module = PyImport_ImportModule(extension), *value;

    if (module == NULL) {
        return NULL;
    }
    value = PyObject_CallMethod(module, "_numpy_function", "O", name);
    Py_DECREF(module);
    if (value == Py_None) {
        Py_CLEAR(value);
    }
    return value;
}

/* devarray's function for NumPy's callable `func` (a new reference); NULL
   without an exception when devarray has none, NULL with one on error.
   check_module: only functions of NumPy's top namespace map to devarray's
   top level, and numpy.fft's and numpy.linalg's to devarray.fft's and
   devarray.linalg's; ufuncs are all of NumPy's top namespace. */
static PyObject *
numpy_protocol_target(PyObject *func, int check_module)
{
    PyObject *module = NULL, *name = NULL, *target = NULL;
    const char *numpy_name, *devarray_name, *extension = NULL;
    size_t i;

    if (check_module) {
        module = numpy_protocol_str_attr(func, "__module__");
        if (module == NULL) {
            goto error;
        }
        if (PyUnicode_CompareWithASCIIString(module, "numpy.fft") == 0) {
            extension = "devarray.fft";
        }
        else if (PyUnicode_CompareWithASCIIString(module, "numpy.linalg") == 0) {
            extension = "devarray.linalg";
        }
        else if (PyUnicode_CompareWithASCIIString(module, "numpy") != 0) {
            goto error;
        }
    }
    name = numpy_protocol_str_attr(func, "__name__");
    if (name == NULL || (numpy_name = PyUnicode_AsUTF8(name)) == NULL ||
        numpy_name[0] == '_') {
        goto error;
    }
    if (extension != NULL) {
        target = numpy_protocol_extension_attr(extension, name);
        goto error;
    }
    devarray_name = numpy_name;
    for (i = 0; i < sizeof numpy_protocol_renames / sizeof numpy_protocol_renames[0];
         i++) {
        if (strcmp(numpy_name, numpy_protocol_renames[i].numpy) == 0) {
            devarray_name = numpy_protocol_renames[i].devarray;
            break;
        }
    }
    target = numpy_protocol_core_attr(devarray_name);
    if (target == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    }
    /* the module's types and constants (DeviceArray, e, ...) are not
       NumPy's functions */
    if (target != NULL && !PyCFunction_Check(target)) {
        Py_CLEAR(target);
    }
error:
    Py_XDECREF(name);
    Py_XDECREF(module);
    return target;
}

/* kwargs (a dict or NULL) without `out`, which devarray's functions do not
   take: absent or None (a ufunc's (None,)) is dropped, anything else
   refused.  A new dict, or NULL with an exception. */
static PyObject *
numpy_protocol_kwargs(PyObject *kwargs, PyObject *func)
{
    PyObject *result = NULL, *out;

    if (kwargs != NULL && !PyDict_Check(kwargs)) {
        PyErr_Format(PyExc_TypeError, "kwargs must be a dict, not %.200s",
                     Py_TYPE(kwargs)->tp_name);
        goto error;
    }
    result = kwargs == NULL ? PyDict_New() : PyDict_Copy(kwargs);
    if (result == NULL) {
        goto error;
    }
    out = PyDict_GetItemString(result, "out"); /* borrowed; str keys cannot fail */
    if (out != NULL) {
        if (!(out == Py_None || (PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 1 &&
                                 PyTuple_GET_ITEM(out, 0) == Py_None))) {
            PyObject *name = numpy_protocol_str_attr(func, "__name__");
            if (name != NULL) {
                PyErr_Format(PyExc_TypeError,
                             "numpy.%U on DeviceArrays does not take out=: devarray "
                             "returns a new array (assign it with d[...] = result)",
                             name);
                Py_DECREF(name);
            }
            else if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError,
                                "NumPy's out= is not taken on DeviceArrays");
            }
            goto error;
        }
        if (PyDict_DelItemString(result, "out") < 0) {
            goto error;
        }
    }
    return result;
error:
    Py_XDECREF(result);
    return NULL;
}

/* 1 when every type in `types` is DeviceArray or a subclass, 0 when one is
   not, -1 with an exception. */
static int
numpy_protocol_types_are_ours(PyObject *types)
{
    PyObject *iter = PyObject_GetIter(types), *type;
    int ours = 1;

    if (iter == NULL) {
        return -1;
    }
    while (ours && (type = PyIter_Next(iter)) != NULL) {
        ours = PyType_Check(type) &&
               PyType_IsSubtype((PyTypeObject *)type, &DeviceArray_Type);
        Py_DECREF(type);
    }
    Py_DECREF(iter);
    return PyErr_Occurred() ? -1 : ours;
}

/* numpy.array(obj, dtype=None, *, copy=True, ndmin=0, like=d) as devarray
   runs it: asarray (copy=True by default, as numpy.array), then leading
   axes of extent 1 up to ndmin (dask builds its empty chunks so).  kwargs
   is ours to change. */
static PyObject *
numpy_protocol_array(PyObject *args, PyObject *kwargs)
{
    PyObject *asarray = NULL, *ndmin_obj, *array = NULL;
    PyObject *result = NULL;
    DeviceArrayObject *a;
    int64_t shape[DA_MAXDIMS];
    Py_ssize_t ndmin = 0;
    int i, lead;

    ndmin_obj = PyDict_GetItemString(kwargs, "ndmin"); /* borrowed */
    if (ndmin_obj != NULL) {
        ndmin = PyNumber_AsSsize_t(ndmin_obj, PyExc_OverflowError);
        if ((ndmin == -1 && PyErr_Occurred()) ||
            PyDict_DelItemString(kwargs, "ndmin") < 0) {
            goto error;
        }
    }
    if (ndmin > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "ndmin bigger than allowable number of "
                     "dimensions (%d)", DA_MAXDIMS);
        goto error;
    }
    if (PyDict_GetItemString(kwargs, "copy") == NULL &&
        PyDict_SetItemString(kwargs, "copy", Py_True) < 0) {
        goto error;
    }
    asarray = numpy_protocol_core_attr("asarray");
    array = asarray == NULL ? NULL : PyObject_Call(asarray, args, kwargs);
    if (array == NULL) {
        goto error;
    }
    a = (DeviceArrayObject *)array;
    if (a->ndim >= ndmin) {
        result = Py_NewRef(array);
        goto error;
    }
    lead = (int)ndmin - a->ndim;
    for (i = 0; i < (int)ndmin; i++) {
        shape[i] = i < lead ? 1 : DA_SHAPE(a)[i - lead];
    }
    result = (PyObject *)view_ops_reshape(a, (int)ndmin, shape, -1);
error:
    Py_XDECREF(array);
    Py_XDECREF(asarray);
    return result;
}

PyObject *
numpy_protocol_array_function(PyObject *Py_UNUSED(self), PyObject *const *args,
                              Py_ssize_t nargs)
{
    PyObject *target = NULL, *kwargs = NULL, *numpy_array = NULL, *result = NULL;
    int ours;

    if (nargs != 4 || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "__array_function__ takes (func, types, args, kwargs), "
                        "args a tuple");
        goto error;
    }
    /* NEP 18: give way when another array type takes part; NumPy then
       raises TypeError naming the types */
    ours = numpy_protocol_types_are_ours(args[1]);
    if (ours <= 0) {
        result = ours < 0 ? NULL : Py_NewRef(Py_NotImplemented);
        goto error;
    }
    kwargs = numpy_protocol_kwargs(args[3] == Py_None ? NULL : args[3], args[0]);
    numpy_array = kwargs == NULL ? NULL : numpy_protocol_numpy_attr("array");
    if (numpy_array != NULL && numpy_array == args[0]) {
        result = numpy_protocol_array(args[2], kwargs);
        goto error;
    }
    target = kwargs == NULL || PyErr_Occurred() ? NULL : numpy_protocol_target(args[0], 1);
    if (target == NULL) {
        result = PyErr_Occurred() ? NULL : Py_NewRef(Py_NotImplemented);
        goto error;
    }
    result = PyObject_Call(target, args[2], kwargs);
error:
    Py_XDECREF(numpy_array);
    Py_XDECREF(kwargs);
    Py_XDECREF(target);
    return result;
}

/* A NumPy scalar as a 0-d DeviceArray of its dtype on home's device (NumPy's
   scalars are not weak as Python's are): full((), scalar.item(), dtype=),
   a fill kernel rather than a synchronous copy from the host.  item() is
   exact for every dtype devarray has.  `other`: the ufunc's other operand
   when it has two, else NULL. */
static PyObject *
numpy_protocol_scalar(PyObject *scalar, DeviceArrayObject *home, PyObject *other)
{
    PyObject *full = NULL, *item = NULL, *dtype = NULL;
    PyObject *device = NULL, *args = NULL, *kwargs = NULL, *result = NULL;
    int typenum;

    item = PyObject_CallMethod(scalar, "item", NULL);
    dtype = item == NULL ? NULL : PyObject_GetAttrString(scalar, "dtype");
    if (dtype == NULL || dtype_parse_object(dtype, &typenum) < 0) {
        goto error;
    }
    /* Next to one DeviceArray whose weak promotion with the scalar's kind
       gives NumPy's strong result, the Python scalar item() is the same
       operand (its value exact in that dtype), without a kernel. */
    if (other != NULL && PyObject_TypeCheck(other, &DeviceArray_Type)) {
        const int a = ((DeviceArrayObject *)other)->typenum;
        const char kind = dtype_table[typenum].kind == 'u' ? 'i' : dtype_table[typenum].kind;
        if (dtype_promote(a, typenum) == dtype_promote_weak(a, kind)) {
            result = Py_NewRef(item);
            goto error;
        }
    }
    full = numpy_protocol_core_attr("full");
    device = full == NULL ? NULL : deviceobject_new(home->backend, home->device);
    kwargs = device == NULL ? NULL
                            : Py_BuildValue("{sOsO}", "dtype", dtype, "device", device);
    args = kwargs == NULL ? NULL : Py_BuildValue("(()O)", item);
    if (args != NULL) {
        result = PyObject_Call(full, args, kwargs);
    }
error:
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(device);
    Py_XDECREF(dtype);
    Py_XDECREF(item);
    Py_XDECREF(full);
    return result;
}

/* A ufunc operand as devarray's functions take it (a new reference):
   DeviceArrays and Python scalars as they are, NumPy scalars as
   numpy_protocol_scalar makes them (`other` the other operand, or NULL).
   NULL without an exception for another array type, NULL with TypeError for
   a numpy.ndarray (never copied implicitly). */
static PyObject *
numpy_protocol_operand(PyObject *obj, PyObject *other, PyObject *ufunc,
                       DeviceArrayObject *home)
{
    PyObject *generic = NULL, *ndarray = NULL, *result = NULL;
    int is_generic = 0, is_ndarray = 0;

    if (PyObject_TypeCheck(obj, &DeviceArray_Type) || PyBool_Check(obj) ||
        PyLong_CheckExact(obj) || PyFloat_CheckExact(obj) ||
        PyComplex_CheckExact(obj)) {
        return Py_NewRef(obj);
    }
    generic = numpy_protocol_numpy_attr("generic");
    ndarray = generic == NULL ? NULL : numpy_protocol_numpy_attr("ndarray");
    if (ndarray == NULL) {
        goto error;
    }
    is_generic = PyObject_IsInstance(obj, generic);
    is_ndarray = is_generic == 0 ? PyObject_IsInstance(obj, ndarray) : 0;
    if (is_generic < 0 || is_ndarray < 0) {
        goto error;
    }
    if (is_generic) {
        result = numpy_protocol_scalar(obj, home, other);
    }
    else if (is_ndarray) {
        PyErr_Format(PyExc_TypeError,
                     "%R of a DeviceArray and a numpy.ndarray: devarray does "
                     "not copy between host and device implicitly; move the "
                     "NumPy array with devarray.asarray(), or the DeviceArray "
                     "with .to_host()",
                     ufunc);
    }
error:
    Py_XDECREF(ndarray);
    Py_XDECREF(generic);
    return result;
}

/* A ufunc's dtype= (the dtype its loop computes in, dask's sums pass it):
   removed from kwargs, and each DeviceArray input cast to it, under NumPy's
   default casting rule, same_kind.  0, or -1 with an exception. */
static int
numpy_protocol_loop_dtype(PyObject *ufunc, PyObject *inputs, PyObject *kwargs)
{
    PyObject *dtype = PyDict_GetItemString(kwargs, "dtype"); /* borrowed */
    Py_ssize_t i;
    int typenum = -1;

    if (dtype == NULL) {
        return 0;
    }
    Py_INCREF(dtype);
    if (PyDict_DelItemString(kwargs, "dtype") < 0 ||
        (dtype != Py_None && dtype_parse_object(dtype, &typenum) < 0)) {
        goto error;
    }
    for (i = 0; typenum >= 0 && i < PyTuple_GET_SIZE(inputs); i++) {
        PyObject *operand = PyTuple_GET_ITEM(inputs, i), *cast;
        int from;
        if (!PyObject_TypeCheck(operand, &DeviceArray_Type)) {
            continue;
        }
        from = ((DeviceArrayObject *)operand)->typenum;
        if (!dtype_can_cast_same_kind(from, typenum)) {
            PyErr_Format(PyExc_TypeError,
                         "%R: cannot cast input %zd from %s to %s with casting "
                         "rule 'same_kind'",
                         ufunc, i, dtype_table[from].name, dtype_table[typenum].name);
            goto error;
        }
        cast = PyObject_CallMethod(operand, "astype", "OO", dtype, Py_False);
        if (cast == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(inputs, i, cast); /* inputs is ours alone */
        Py_DECREF(operand);
    }
    Py_DECREF(dtype);
    return 0;
error:
    Py_DECREF(dtype);
    return -1;
}

PyObject *
numpy_protocol_array_ufunc(PyObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *ufunc, *method, *inputs = NULL, *target = NULL, *kwargs = NULL;
    PyObject *result = NULL;
    Py_ssize_t i, n = PyTuple_GET_SIZE(args);

    if (n < 2) {
        PyErr_SetString(PyExc_TypeError,
                        "__array_ufunc__ takes (ufunc, method, *inputs, **kwargs)");
        goto error;
    }
    ufunc = PyTuple_GET_ITEM(args, 0);
    method = PyTuple_GET_ITEM(args, 1);
    /* reduce, accumulate, outer, at: NumPy raises TypeError naming them */
    if (!PyUnicode_Check(method) ||
        PyUnicode_CompareWithASCIIString(method, "__call__") != 0) {
        result = Py_NewRef(Py_NotImplemented);
        goto error;
    }
    inputs = PyTuple_New(n - 2);
    for (i = 2; inputs != NULL && i < n; i++) {
        PyObject *other = n == 4 ? PyTuple_GET_ITEM(args, i == 2 ? 3 : 2) : NULL;
        PyObject *operand = numpy_protocol_operand(PyTuple_GET_ITEM(args, i), other, ufunc,
                                                   (DeviceArrayObject *)self);
        if (operand == NULL) {
            /* NEP 13: another array type takes part; let it, or NumPy, answer */
            result = PyErr_Occurred() ? NULL : Py_NewRef(Py_NotImplemented);
            goto error;
        }
        PyTuple_SET_ITEM(inputs, i - 2, operand);
    }
    target = inputs == NULL ? NULL : numpy_protocol_target(ufunc, 0);
    if (target == NULL) {
        if (inputs != NULL && !PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError,
                         "devarray has no function for %R: NumPy's ufuncs run "
                         "on DeviceArrays only where devarray implements them",
                         ufunc);
        }
        goto error;
    }
    kwargs = numpy_protocol_kwargs(kwds, ufunc);
    if (kwargs == NULL || numpy_protocol_loop_dtype(ufunc, inputs, kwargs) < 0) {
        goto error;
    }
    result = PyObject_Call(target, inputs, kwargs);
error:
    Py_XDECREF(kwargs);
    Py_XDECREF(target);
    Py_XDECREF(inputs);
    return result;
}
