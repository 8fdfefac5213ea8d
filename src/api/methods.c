/*
 * The methods of DeviceArray (its method table): conversions to the host,
 * sums, copies and casts, reshapes and transposes, the DLPack export, the
 * array API's protocol (__array_namespace__, to_device, __format__), copy
 * and pickle support, and the module's private helpers about arrays.
 */
#include "api/methods.h"

#include "core/array.h"
#include "interop/host_out.h"
#include "core/copy.h"
#include "interop/deviceobject.h"
#include "interop/dtypeobject.h"
#include "interop/dlpack.h"
#include "api/number.h"
#include "api/numpy_protocol.h"
#include "api/namespace.h"
#include "api/pickle.h"
#include "core/reduce.h"
#include "ops/search.h"
#include "ops/statistics.h"
#include "core/view_ops.h"

static PyObject *
array_to_host(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"out", "blocking", NULL};
    PyObject *out = Py_None;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$p:to_host", kwlist, &out,
                                     &blocking)) {
        return NULL;
    }
    return blocking ? host_out_to_host(self, out) : host_out_to_host_async(self, out);
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
array_copy(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"order", NULL};
    char order = 'C';
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:copy", kwlist, copy_order_converter,
                                     &order)) {
        return NULL;
    }
    return (PyObject *)copy_cast_order(self, self->typenum, order);
}

/* copy.copy and copy.deepcopy keep the layout, as NumPy's do. */
static PyObject *
array_copy_keep(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return (PyObject *)copy_cast_order(self, self->typenum, 'K');
}

static PyObject *
array_astype(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", "order", NULL};
    int typenum, copy = 1;
    char order = 'K';
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|p$O&:astype", kwlist,
                                     dtypeobject_converter_optional, &typenum,
                                     &copy, copy_order_converter, &order)) {
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
    return (PyObject *)copy_cast_order(self, typenum, order);
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
array_squeeze(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axis", NULL};
    PyObject *axis = Py_None;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:squeeze", kwlist, &axis)) {
        return NULL;
    }
    return (PyObject *)view_ops_squeeze(self, axis);
}

/* NumPy's a.ravel(): the elements as one axis in C order, a view where
   strides allow it. */
static PyObject *
array_ravel(DeviceArrayObject *self, PyObject *Py_UNUSED(ignored))
{
    const int64_t flat = -1;
    return (PyObject *)view_ops_reshape(self, 1, &flat, -1);
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

/* format(a, spec): a 0-d array formats its Python scalar (f"{a:.2f}"); any
   other array only takes the empty spec (str(a)), as NumPy. */
static PyObject *
array_format(DeviceArrayObject *self, PyObject *spec)
{
    PyObject *item, *result;

    if (!PyUnicode_Check(spec)) {
        PyErr_Format(PyExc_TypeError,
                     "__format__() argument must be str, not %.200s",
                     Py_TYPE(spec)->tp_name);
        return NULL;
    }
    if (self->ndim != 0) {
        if (PyUnicode_GET_LENGTH(spec) != 0) {
            PyErr_SetString(PyExc_TypeError,
                            "unsupported format string passed to "
                            "devarray.DeviceArray.__format__ (only 0-d arrays "
                            "take a format spec)");
            return NULL;
        }
        return PyObject_Str((PyObject *)self);
    }
    item = host_out_item(self);
    if (item == NULL) {
        return NULL;
    }
    result = PyObject_Format(item, spec);
    Py_DECREF(item);
    return result;
}

/* The versions of the array API standard __array_namespace__ accepts; the
   first is the one devarray implements and its answer is devarray itself.
   The older two get devarray/_versions.py's namespace, where the three
   functions whose tuples 2025.12 introduced return lists again (meshgrid,
   broadcast_arrays, devices()). */
static const char *const methods_api_versions[] = {NAMESPACE_API_VERSION,
                                                   "2024.12", "2023.12"};

/* devarray._versions.namespace(version): the older revision's namespace. */
static PyObject *
namespace_of_version(PyObject *version)
{
    PyObject *versions = PyImport_ImportModule("devarray._versions");
    PyObject *result = NULL;

    if (versions == NULL) {
        return NULL;
    }
    result = PyObject_CallMethod(versions, "namespace", "O", version);
    Py_DECREF(versions);
    return result;
}

static PyObject *
array_array_namespace(DeviceArrayObject *Py_UNUSED(self), PyObject *args,
                      PyObject *kwds)
{
    static char *kwlist[] = {"api_version", NULL};
    PyObject *version = Py_None;
    size_t i;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O:__array_namespace__",
                                     kwlist, &version)) {
        return NULL;
    }
    if (version != Py_None && !PyUnicode_Check(version)) {
        PyErr_Format(PyExc_TypeError,
                     "api_version must be None or a str such as '" NAMESPACE_API_VERSION "', "
                     "not %.200s",
                     Py_TYPE(version)->tp_name);
        return NULL;
    }
    for (i = 0; version != Py_None && i < sizeof methods_api_versions /
                                              sizeof methods_api_versions[0];
         i++) {
        if (PyUnicode_CompareWithASCIIString(version, methods_api_versions[i]) ==
            0) {
            break;
        }
    }
    if (i == sizeof methods_api_versions / sizeof methods_api_versions[0]) {
        PyErr_Format(PyExc_ValueError,
                     "api_version %R is not supported: devarray implements "
                     "the array API standard %s (and accepts 2024.12 and "
                     "2023.12)",
                     version, methods_api_versions[0]);
        return NULL;
    }
    if (i == 0) { /* None too: the loop above left i at 0 */
        return PyImport_ImportModule("devarray");
    }
    return namespace_of_version(version);
}

/* x.to_device(device, /, *, stream=None): x itself where it already is, else
   a copy there.  Every copy between backends has finished when this
   returns, so any stream the caller names is already safe to use. */
static PyObject *
array_to_device(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "stream", NULL};
    da_place place;
    PyObject *stream = Py_None;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|$O:to_device", kwlist,
                                     deviceobject_converter_optional, &place,
                                     &stream)) {
        return NULL;
    }
    if (place.backend < 0) {
        PyErr_SetString(PyExc_TypeError,
                        "to_device() needs a devarray.Device (such as "
                        "x.device), not None");
        return NULL;
    }
    if (stream != Py_None && !PyLong_Check(stream)) {
        PyErr_Format(PyExc_TypeError,
                     "to_device(): stream must be None or an int, not %.200s",
                     Py_TYPE(stream)->tp_name);
        return NULL;
    }
    if (place.backend == self->backend && place.device == self->device) {
        Py_INCREF(self);
        return (PyObject *)self;
    }
    return copy_to_place(self, -1, place.backend, place.device);
}

static PyObject *
array_reduce(DeviceArrayObject *self, PyObject *Py_UNUSED(args))
{
    return pickle_reduce(self);
}

/* copy.deepcopy: an independent array on the same backend, as copy.copy
   (array_copy) gives; a DeviceArray holds no Python objects to follow. */
static PyObject *
array_deepcopy(DeviceArrayObject *self, PyObject *Py_UNUSED(memo))
{
    return (PyObject *)copy_cast_order(self, self->typenum, 'K');
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

/* ---- scan: argmax, argmin ---------------------------------------------- */

static PyObject *
methods_arg(DeviceArrayObject *self, int op, const char *format, PyObject *args,
            PyObject *kwds)
{
    static char *kwlist[] = {"axis", "keepdims", NULL};
    PyObject *axis = Py_None;
    int keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &axis, &keepdims)) {
        return NULL;
    }
    return search_argreduce(self, op, axis, keepdims);
}

static PyObject *
array_argmax(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return methods_arg(self, DA_ARG_MAX, "|Op:argmax", args, kwds);
}

static PyObject *
array_argmin(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return methods_arg(self, DA_ARG_MIN, "|Op:argmin", args, kwds);
}


/* ---- reductions (reduce) --------------------------------------------------- */

/* x.max(), x.min(), x.mean(): (axis=None, keepdims=False). */
static PyObject *
array_statistic(DeviceArrayObject *self, PyObject *args, PyObject *kwds,
                const char *format, PyObject *(*fn)(DeviceArrayObject *, PyObject *, int))
{
    static char *kwlist[] = {"axis", "keepdims", NULL};
    PyObject *axis = Py_None;
    int keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &axis, &keepdims)) {
        return NULL;
    }
    return fn(self, axis, keepdims);
}

static PyObject *
array_max(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return array_statistic(self, args, kwds, "|Op:max", statistics_max);
}

static PyObject *
array_min(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return array_statistic(self, args, kwds, "|Op:min", statistics_min);
}

static PyObject *
array_mean(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return array_statistic(self, args, kwds, "|Op:mean", statistics_mean);
}

static PyObject *
array_prod(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axis", "dtype", "keepdims", NULL};
    PyObject *axis = Py_None;
    int typenum = -1, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO&p:prod", kwlist, &axis,
                                     dtypeobject_converter_optional, &typenum,
                                     &keepdims)) {
        return NULL;
    }
    return reduce_apply(self, DA_REDUCE_PROD, axis, typenum, keepdims);
}

/* x.var(), x.std(): (axis=None, *, correction=0.0, keepdims=False); NumPy's
   ddof is spelled correction here, as in the standard. */
static PyObject *
array_spread(DeviceArrayObject *self, PyObject *args, PyObject *kwds, const char *format,
             PyObject *(*fn)(DeviceArrayObject *, PyObject *, double, int))
{
    static char *kwlist[] = {"axis", "correction", "keepdims", NULL};
    PyObject *axis = Py_None;
    double correction = 0.0;
    int keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &axis, &correction,
                                     &keepdims)) {
        return NULL;
    }
    return fn(self, axis, correction, keepdims);
}

static PyObject *
array_var(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return array_spread(self, args, kwds, "|O$dp:var", statistics_var);
}

static PyObject *
array_std(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    return array_spread(self, args, kwds, "|O$dp:std", statistics_std);
}

PyMethodDef methods_table[] = {
    {"to_host", (PyCFunction)(void (*)(void))array_to_host,
     METH_VARARGS | METH_KEYWORDS,
     "to_host($self, /, out=None, *, blocking=True)\n--\n\nCopy to host memory: "
     "a numpy.ndarray (a memoryview without NumPy), or into the writable "
     "buffer `out`.  blocking=False queues the copy on the current stream "
     "and returns `out` at once; `out` must then be page-locked "
     "(devarray.empty_pinned())."},
    {"tolist", (PyCFunction)array_tolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nThe values as nested Python lists."},
    {"item", (PyCFunction)array_item, METH_NOARGS,
     "item($self, /)\n--\n\nThe value of a size-1 array as a Python scalar."},
    {"sum", (PyCFunction)(void (*)(void))array_sum,
     METH_VARARGS | METH_KEYWORDS,
     "sum($self, /, axis=None, dtype=None, keepdims=False)\n--\n\nSum of the elements "
     "over the given axes, on the device."},
    {"copy", (PyCFunction)(void (*)(void))array_copy, METH_VARARGS | METH_KEYWORDS,
     "copy($self, /, order='C')\n--\n\nA copy on the same backend, laid out in "
     "NumPy's order: 'C', 'F', 'A' (F for an F-contiguous array, else C) or 'K' "
     "(the array's own axis order)."},
    {"astype", (PyCFunction)(void (*)(void))array_astype,
     METH_VARARGS | METH_KEYWORDS,
     "astype($self, /, dtype, copy=True, *, order='K')\n--\n\nA copy cast to dtype, "
     "laid out as copy(order=) lays it out (by default the array's own axis order)."},
    {"reshape", (PyCFunction)array_reshape, METH_VARARGS,
     "reshape($self, /, *shape)\n--\n\nA view with a new shape (a copy when no "
     "strides can express it)."},
    {"transpose", (PyCFunction)array_transpose, METH_VARARGS,
     "transpose($self, /, *axes)\n--\n\nA view with the axes permuted."},
    {"squeeze", (PyCFunction)(void (*)(void))array_squeeze, METH_VARARGS | METH_KEYWORDS,
     "squeeze($self, /, axis=None)\n--\n\nA view without the size-1 axes named "
     "(all of them for None)."},
    {"ravel", (PyCFunction)array_ravel, METH_NOARGS,
     "ravel($self, /)\n--\n\nThe elements as one axis in C order (a view where "
     "strides allow it)."},
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
    {"__format__", (PyCFunction)array_format, METH_O,
     "__format__($self, format_spec, /)\n--\n\nFormat a 0-d array's value "
     "(f\"{x:.2f}\"); other arrays take only the empty spec."},
    {"__array_namespace__", (PyCFunction)(void (*)(void))array_array_namespace,
     METH_VARARGS | METH_KEYWORDS,
     "__array_namespace__($self, /, *, api_version=None)\n--\n\nThe devarray "
     "module, the array API namespace of api_version None or '"
     NAMESPACE_API_VERSION "'; for '2024.12' and '2023.12' a namespace of "
     "the same functions where meshgrid, broadcast_arrays and "
     "__array_namespace_info__().devices() return lists, as those revisions "
     "say."},
    {"__array_function__", (PyCFunction)(void (*)(void))numpy_protocol_array_function,
     METH_FASTCALL,
     "__array_function__($self, func, types, args, kwargs, /)\n--\n\nNEP 18: "
     "NumPy's functions (numpy.sum, numpy.concatenate, ...) run devarray's, "
     "on the device."},
    {"__array_ufunc__", (PyCFunction)(void (*)(void))numpy_protocol_array_ufunc,
     METH_VARARGS | METH_KEYWORDS,
     "__array_ufunc__($self, ufunc, method, /, *inputs, **kwargs)\n--\n\nNEP 13: "
     "NumPy's ufuncs (numpy.exp, numpy.add, ...) run devarray's, on the "
     "device; a numpy.ndarray operand is refused, never copied."},
    {"to_device", (PyCFunction)(void (*)(void))array_to_device,
     METH_VARARGS | METH_KEYWORDS,
     "to_device($self, device, /, *, stream=None)\n--\n\nThe array on "
     "`device`: itself when it is there already, else a copy (finished when "
     "this returns)."},
    {"__reduce__", (PyCFunction)array_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\nPickle support: the elements through host "
     "memory, with the dtype, shape and backend."},
    {"__copy__", (PyCFunction)array_copy_keep, METH_NOARGS,
     "__copy__($self, /)\n--\n\nA copy on the same backend."},
    {"__deepcopy__", (PyCFunction)array_deepcopy, METH_O,
     "__deepcopy__($self, memo, /)\n--\n\nA copy on the same backend."},
    {"argmax", (PyCFunction)(void (*)(void))array_argmax, METH_VARARGS | METH_KEYWORDS,
     "argmax($self, /, axis=None, keepdims=False)\n--\n\nThe index of the first "
     "maximum along axis (devarray.argmax)."},
    {"argmin", (PyCFunction)(void (*)(void))array_argmin, METH_VARARGS | METH_KEYWORDS,
     "argmin($self, /, axis=None, keepdims=False)\n--\n\nThe index of the first "
     "minimum along axis (devarray.argmin)."},
    /* reductions (reduce) */
    {"max", (PyCFunction)(void (*)(void))array_max, METH_VARARGS | METH_KEYWORDS,
     "max($self, /, axis=None, keepdims=False)\n--\n\nLargest element over the "
     "given axes (devarray.max)."},
    {"min", (PyCFunction)(void (*)(void))array_min, METH_VARARGS | METH_KEYWORDS,
     "min($self, /, axis=None, keepdims=False)\n--\n\nSmallest element over the "
     "given axes (devarray.min)."},
    {"prod", (PyCFunction)(void (*)(void))array_prod, METH_VARARGS | METH_KEYWORDS,
     "prod($self, /, axis=None, dtype=None, keepdims=False)\n--\n\nProduct of the "
     "elements over the given axes (devarray.prod)."},
    {"mean", (PyCFunction)(void (*)(void))array_mean, METH_VARARGS | METH_KEYWORDS,
     "mean($self, /, axis=None, keepdims=False)\n--\n\nArithmetic mean over the "
     "given axes (devarray.mean)."},
    {"var", (PyCFunction)(void (*)(void))array_var, METH_VARARGS | METH_KEYWORDS,
     "var($self, /, axis=None, *, correction=0.0, keepdims=False)\n--\n\nVariance "
     "over the given axes (devarray.var)."},
    {"std", (PyCFunction)(void (*)(void))array_std, METH_VARARGS | METH_KEYWORDS,
     "std($self, /, axis=None, *, correction=0.0, keepdims=False)\n--\n\nStandard "
     "deviation over the given axes (devarray.std)."},
    {NULL, NULL, 0, NULL},
};

/* Private helpers: for tests, and pickle's reconstructor. */
PyMethodDef methods_module_functions[] = {
    {"_readonly_view", array_readonly_view, METH_O,
     "A read-only view of a DeviceArray (for tests)."},
    {"_reconstruct", pickle_reconstruct, METH_VARARGS,
     "_reconstruct(data, dtype, shape, backend, /)\n--\n\nA DeviceArray from "
     "its pickle (see DeviceArray.__reduce__)."},
    {NULL, NULL, 0, NULL},
};

