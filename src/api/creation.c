/*
 * Creation functions: to_device, asarray, empty/zeros/ones/full and their
 * *_like forms, eye (see creation.h).
 *
 * Where new arrays live: device= gives a place (deviceobject.h); None means
 * the default place, the input's place for the *_like functions, and the
 * array's own place for asarray of a DeviceArray.
 *
 * asarray's copy=: True always copies; False never does and raises
 * ValueError when it would have to (a dtype change, another backend, host
 * memory for the CUDA backend, Python sequences and scalars); None copies
 * only when needed.  Host buffers are copied under None (as before the array
 * API: the result never aliases a NumPy array behind the caller's back);
 * copy=False shares a NumPy array's memory on the host backend through its
 * __dlpack__.
 */
#include "api/creation.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "interop/buffer_in.h"
#include "interop/cai.h"
#include "core/copy.h"
#include "runtime/device.h"
#include "interop/deviceobject.h"
#include "interop/dlpack.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "core/elementwise.h"
#include "interop/pinned.h"
#include "api/ranges.h"
#include "interop/scalar.h"
#include "interop/sequence_in.h"
#include "runtime/transfer.h"

/* The backend of `place`, or `fallback` (>= 0), or the default place's. */
static int
creation_backend(const da_place *place, int fallback)
{
    da_place def;
    if (place->backend >= 0) {
        /* new arrays go to the active device: this one */
        return device_activate(place->backend, place->device) < 0 ? -1 : place->backend;
    }
    if (fallback >= 0) {
        return fallback;
    }
    return deviceobject_default_place(&def) < 0 ? -1 : def.backend;
}

/* PyArg "O&" converter for copy=: None -> -1, False -> 0, True -> 1. */
static int
creation_copy_converter(PyObject *obj, void *out)
{
    int *copy = (int *)out;
    if (obj == Py_None) {
        *copy = -1;
    }
    else if (obj == Py_True || obj == Py_False) {
        *copy = obj == Py_True;
    }
    else {
        PyErr_Format(PyExc_TypeError, "copy must be True, False or None, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    return 1;
}

/* `a` as dtype typenum (-1: a's) on `backend`: a itself when nothing
   changes and copy != 1, else a copy (refused with ValueError when copy
   == 0). */
static PyObject *
creation_from_array(DeviceArrayObject *a, int typenum, int backend, int device, int copy)
{
    const int moves = backend != a->backend ||
                      (backend == DA_BACKEND_CUDA && device != a->device);
    if (typenum < 0) {
        typenum = a->typenum;
    }
    if (typenum == a->typenum && !moves && copy != 1) {
        Py_INCREF(a);
        return (PyObject *)a;
    }
    if (copy == 0) {
        if (typenum != a->typenum) {
            PyErr_Format(PyExc_ValueError,
                         "asarray(copy=False): changing the dtype from %s to %s "
                         "needs a copy",
                         dtype_table[a->typenum].name, dtype_table[typenum].name);
        }
        else if (backend != a->backend) {
            PyErr_Format(PyExc_ValueError,
                         "asarray(copy=False): moving the array from the %s to "
                         "the %s backend needs a copy",
                         backend_name(a->backend),
                         backend_name(backend));
        }
        else {
            PyErr_Format(PyExc_ValueError,
                         "asarray(copy=False): moving the array from CUDA "
                         "device %d to CUDA device %d needs a copy",
                         a->device, device);
        }
        return NULL;
    }
    return copy_to_place(a, typenum, backend, device);
}

/* A zero-copy view of obj's device memory when it offers it: through
   __cuda_array_interface__, else a CUDA __dlpack__.  NULL without an
   exception when obj offers neither (host producers are copied by the
   caller), NULL with one on failure. */
static DeviceArrayObject *
creation_import_device_memory(PyObject *obj, int backend)
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

/* asarray of a host object (buffer, sequence or scalar) under copy=False:
   only a host-backend view of a DLPack producer's memory will do. */
static PyObject *
creation_host_no_copy(PyObject *obj, int typenum, int backend)
{
    DeviceArrayObject *view;
    PyObject *result;

    if (backend != DA_BACKEND_HOST || !PyObject_CheckBuffer(obj) ||
        !PyObject_HasAttrString(obj, "__dlpack__")) {
        PyErr_Format(PyExc_ValueError,
                     "asarray(copy=False): a %.200s must be copied to make a "
                     "DeviceArray on the %s backend",
                     Py_TYPE(obj)->tp_name, backend_name(backend));
        return NULL;
    }
    view = dlpack_import(obj, backend, 0);
    if (view == NULL) {
        return NULL;
    }
    result = creation_from_array(view, typenum, backend, 0, 0);
    Py_DECREF(view);
    return result;
}

static PyObject *
creation_asarray_impl(PyObject *obj, int typenum, const da_place *place, int copy)
{
    DeviceArrayObject *imported;
    PyObject *result;
    int backend;

    if (DeviceArray_Check(obj)) {
        DeviceArrayObject *a = (DeviceArrayObject *)obj;
        /* an array stays on its device unless device= says otherwise */
        backend = creation_backend(place, a->backend);
        return backend < 0 ? NULL
                           : creation_from_array(a, typenum, backend,
                                                 place->backend >= 0 ? place->device
                                                                     : a->device,
                                                 copy);
    }
    backend = creation_backend(place, -1);
    if (backend < 0) {
        return NULL;
    }
    /* device memory asked for on the host: viewed on the device, then copied
       (only when asked: a default host backend keeps refusing it) */
    imported = creation_import_device_memory(
        obj, place->backend == DA_BACKEND_HOST && device_cuda_available() ? DA_BACKEND_CUDA
                                                                          : backend);
    if (imported != NULL) {
        /* an import keeps its producer's device unless device= says
           otherwise */
        result = creation_from_array(imported, typenum, backend,
                                     place->backend >= 0 ? place->device : imported->device,
                                     copy);
        Py_DECREF(imported);
        return result;
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (copy == 0) {
        return creation_host_no_copy(obj, typenum, backend);
    }
    if (PyObject_CheckBuffer(obj)) {
        return (PyObject *)buffer_in_array(obj, typenum, backend);
    }
    return (PyObject *)sequence_in_array(obj, typenum, backend);
}

static PyObject *
creation_asarray(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "dtype", "device", "copy", NULL};
    PyObject *obj;
    da_place place = {-1, 0};
    int typenum = -1, copy = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O&O&O&:asarray", kwlist, &obj,
                                     dtypeobject_converter_optional, &typenum,
                                     deviceobject_converter_optional, &place,
                                     creation_copy_converter, &copy)) {
        return NULL;
    }
    return creation_asarray_impl(obj, typenum, &place, copy);
}

static PyObject *
creation_to_device(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obj", "dtype", "device", NULL};
    PyObject *obj;
    da_place place = {-1, 0};
    int typenum = -1, backend;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&$O&:to_device", kwlist, &obj,
                                     dtypeobject_converter_optional, &typenum,
                                     deviceobject_converter_optional, &place)) {
        return NULL;
    }
    /* the device asked for, else the current one: made active */
    backend = creation_backend(&place, -1);
    if (backend < 0) {
        return NULL;
    }
    if (DeviceArray_Check(obj)) {
        return copy_to_place((DeviceArrayObject *)obj, typenum, backend,
                             place.backend >= 0 ? place.device : device_current(backend));
    }
    /* page-locked memory: one copy queued on the current stream, no wait */
    if (backend == DA_BACKEND_CUDA && PyObject_CheckBuffer(obj)) {
        PyObject *queued = (PyObject *)pinned_to_device(obj, typenum, backend);
        if (queued != NULL || PyErr_Occurred()) {
            return queued;
        }
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

/* ---- filled arrays ------------------------------------------------------- */

/* The dtype NumPy gives a Python scalar. */
static int
creation_scalar_typenum(PyObject *value, int *typenum)
{
    const char kind = scalar_python_kind(value);

    if (kind != 0) {
        *typenum = scalar_default_typenum(kind);
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

/* value as a scalar operand of the COPY that stores it into dtype
   *typenum (-1: the value's own dtype, set here), range-checked. */
static int
creation_fill_scalar(PyObject *value, int *typenum, int *cls, da_scalar *scalar)
{
    int natural;
    if (creation_scalar_typenum(value, &natural) < 0) {
        return -1;
    }
    if (*typenum < 0) {
        *typenum = natural;
    }
    *cls = elementwise_cast_class(natural, *typenum);
    return scalar_from_python(value, *typenum, *cls, scalar);
}

/* How creation_make initialises a new array. */
enum { FILL_NONE, FILL_ZERO, FILL_VALUE };

static PyObject *
creation_make(int ndim, const int64_t *shape, int typenum, int backend, int fill,
              PyObject *value)
{
    DeviceArrayObject *a;
    int cls = 0;
    da_scalar scalar;

    /* checked before allocating, so a bad value costs nothing */
    if (fill == FILL_VALUE && creation_fill_scalar(value, &typenum, &cls, &scalar) < 0) {
        return NULL;
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

/* empty/zeros/ones(shape, *, dtype=None, device=None) and
   full(shape, fill_value, *, dtype=None, device=None). */
static PyObject *
creation_new_filled(PyObject *args, PyObject *kwds, const char *name, int fill,
                    int one)
{
    static char *kwlist_plain[] = {"shape", "dtype", "device", NULL};
    static char *kwlist_full[] = {"shape", "fill_value", "dtype", "device", NULL};
    char format[32];
    PyObject *shape_obj, *value = NULL, *result;
    int64_t shape[DA_MAXDIMS];
    da_place place = {-1, 0};
    int typenum = -1, ndim, backend, ok;

    if (fill == FILL_VALUE && !one) {
        snprintf(format, sizeof format, "OO|$O&O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_full, &shape_obj,
                                         &value, dtypeobject_converter_optional,
                                         &typenum, deviceobject_converter_optional,
                                         &place);
    }
    else {
        snprintf(format, sizeof format, "O|$O&O&:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_plain, &shape_obj,
                                         dtypeobject_converter_optional, &typenum,
                                         deviceobject_converter_optional, &place);
    }
    if (!ok) {
        return NULL;
    }
    ndim = array_parse_shape(shape_obj, shape);
    backend = ndim < 0 ? -1 : creation_backend(&place, -1);
    if (backend < 0) {
        return NULL;
    }
    if (!one) {
        return creation_make(ndim, shape, typenum, backend, fill, value);
    }
    value = PyLong_FromLong(1);
    if (value == NULL) {
        return NULL;
    }
    result = creation_make(ndim, shape, typenum < 0 ? DA_FLOAT64 : typenum, backend,
                           FILL_VALUE, value);
    Py_DECREF(value);
    return result;
}

static PyObject *
creation_empty(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_new_filled(args, kwds, "empty", FILL_NONE, 0);
}

static PyObject *
creation_zeros(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_new_filled(args, kwds, "zeros", FILL_ZERO, 0);
}

static PyObject *
creation_ones(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_new_filled(args, kwds, "ones", FILL_VALUE, 1);
}

static PyObject *
creation_full(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_new_filled(args, kwds, "full", FILL_VALUE, 0);
}

DeviceArrayObject *
creation_as_array(PyObject *obj)
{
    da_place place = {-1, 0};
    return (DeviceArrayObject *)creation_asarray_impl(obj, -1, &place, -1);
}

/* empty/zeros/ones_like(x, /, *, dtype=None, device=None, shape=None) and
   full_like(x, /, fill_value, *, dtype=None, device=None, shape=None);
   shape= is NumPy's (dask builds its metadata with it). */
static PyObject *
creation_like(PyObject *args, PyObject *kwds, const char *name, int fill, int one)
{
    static char *kwlist_plain[] = {"", "dtype", "device", "shape", NULL};
    static char *kwlist_full[] = {"", "fill_value", "dtype", "device", "shape", NULL};
    char format[32];
    PyObject *obj, *value = NULL, *shape_obj = Py_None, *result = NULL;
    DeviceArrayObject *proto;
    da_place place = {-1, 0};
    int64_t shape[DA_MAXDIMS];
    int typenum = -1, ok, backend, ndim;

    if (fill == FILL_VALUE && !one) {
        snprintf(format, sizeof format, "OO|$O&O&O:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_full, &obj, &value,
                                         dtypeobject_converter_optional, &typenum,
                                         deviceobject_converter_optional, &place,
                                         &shape_obj);
    }
    else {
        snprintf(format, sizeof format, "O|$O&O&O:%s", name);
        ok = PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist_plain, &obj,
                                         dtypeobject_converter_optional, &typenum,
                                         deviceobject_converter_optional, &place,
                                         &shape_obj);
    }
    if (!ok) {
        return NULL;
    }
    proto = creation_as_array(obj);
    if (proto == NULL) {
        return NULL;
    }
    ndim = shape_obj == Py_None ? proto->ndim : array_parse_shape(shape_obj, shape);
    if (ndim < 0) {
        goto done;
    }
    if (shape_obj == Py_None && ndim > 0) {
        memcpy(shape, DA_SHAPE(proto), (size_t)ndim * sizeof shape[0]);
    }
    backend = creation_backend(&place, proto->backend);
    /* like the prototype: on its device unless device= says otherwise */
    if (backend < 0 || (place.backend < 0 && array_activate(proto) < 0)) {
        goto done;
    }
    if (one) {
        value = PyLong_FromLong(1);
        if (value == NULL) {
            goto done;
        }
    }
    result = creation_make(ndim, shape, typenum >= 0 ? typenum : proto->typenum, backend,
                           fill, value);
    if (one) {
        Py_DECREF(value);
    }
done:
    Py_DECREF(proto);
    return result;
}

static PyObject *
creation_empty_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_like(args, kwds, "empty_like", FILL_NONE, 0);
}

static PyObject *
creation_zeros_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_like(args, kwds, "zeros_like", FILL_ZERO, 0);
}

static PyObject *
creation_ones_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_like(args, kwds, "ones_like", FILL_VALUE, 1);
}

static PyObject *
creation_full_like(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    return creation_like(args, kwds, "full_like", FILL_VALUE, 0);
}

/* ---- eye ----------------------------------------------------------------- */

/* The length of diagonal k of an n x m matrix and the element index (C
   order) where it starts. */
static int64_t
creation_diagonal(int64_t n, int64_t m, int64_t k, int64_t *start)
{
    int64_t len;
    if (k >= 0) {
        len = k >= m ? 0 : (n < m - k ? n : m - k);
        *start = len > 0 ? k : 0;
    }
    else {
        len = k <= -n ? 0 : (n + k < m ? n + k : m);
        *start = len > 0 ? -k * m : 0;
    }
    return len;
}

/* eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None): zeros, then
   the diagonal, a strided 1-d view, filled with one by the COPY op. */
static PyObject *
creation_eye(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "k", "dtype", "device", NULL};
    PyObject *cols_obj = Py_None, *one = NULL;
    DeviceArrayObject *a = NULL, *diagonal = NULL;
    Py_ssize_t rows, cols;
    int64_t k = 0;
    int64_t shape[2], len, start, stride;
    da_place place = {-1, 0};
    da_scalar scalar;
    int typenum = -1, backend, cls;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|O$O&O&O&:eye", kwlist, &rows,
                                     &cols_obj, ranges_offset_converter, &k,
                                     dtypeobject_converter_optional,
                                     &typenum, deviceobject_converter_optional,
                                     &place)) {
        return NULL;
    }
    if (cols_obj == Py_None) {
        cols = rows;
    }
    else if (!PyIndex_Check(cols_obj) ||
             ((cols = PyNumber_AsSsize_t(cols_obj, PyExc_OverflowError)) == -1 &&
              PyErr_Occurred())) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "eye() n_cols must be an int or None, not %.200s",
                         Py_TYPE(cols_obj)->tp_name);
        }
        return NULL;
    }
    shape[0] = rows;
    shape[1] = cols;
    if (typenum < 0) {
        typenum = DA_FLOAT64;
    }
    one = PyLong_FromLong(1);
    backend = creation_backend(&place, -1);
    if (one == NULL || backend < 0 ||
        creation_fill_scalar(one, &typenum, &cls, &scalar) < 0) {
        goto error;
    }
    a = (DeviceArrayObject *)creation_make(2, shape, typenum, backend, FILL_ZERO, NULL);
    if (a == NULL) {
        goto error;
    }
    len = creation_diagonal(rows, cols, k, &start);
    if (len > 0) {
        stride = (cols + 1) * DA_ITEMSIZE(a);
        diagonal = array_view_of(a, 1, &len, &stride,
                                 a->data + start * DA_ITEMSIZE(a));
        if (diagonal == NULL ||
            elementwise_run(DA_OP_COPY, cls, diagonal, 1,
                            (DeviceArrayObject *[]){NULL}, &scalar) < 0) {
            goto error;
        }
    }
    Py_XDECREF(diagonal);
    Py_DECREF(one);
    return (PyObject *)a;
error:
    Py_XDECREF(diagonal);
    Py_XDECREF(a);
    Py_XDECREF(one);
    return NULL;
}

#define KW_METHOD(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef creation_methods[] = {
    KW_METHOD("to_device", creation_to_device,
              "to_device(obj, dtype=None, *, device=None)\n--\n\nCopy a "
              "buffer-protocol object (or a DeviceArray) to a new array on "
              "`device` (default: the current backend and device).  From "
              "C-contiguous page-locked memory (devarray.empty_pinned()) the "
              "copy is queued on the current stream and not waited for."),
    KW_METHOD("asarray", creation_asarray,
              "asarray(obj, /, *, dtype=None, device=None, copy=None)\n--\n\n"
              "A DeviceArray for obj: DeviceArrays as they are unless dtype, "
              "device or copy=True ask for a copy; buffers, nested sequences "
              "and scalars copied.  copy=False raises ValueError where a copy "
              "would be needed."),
    KW_METHOD("empty", creation_empty,
              "empty(shape, *, dtype=None, device=None)\n--\n\nA new "
              "uninitialised array."),
    KW_METHOD("zeros", creation_zeros,
              "zeros(shape, *, dtype=None, device=None)\n--\n\nA new array of "
              "zeros."),
    KW_METHOD("ones", creation_ones,
              "ones(shape, *, dtype=None, device=None)\n--\n\nA new array of "
              "ones."),
    KW_METHOD("full", creation_full,
              "full(shape, fill_value, *, dtype=None, device=None)\n--\n\nA new "
              "array filled with fill_value."),
    KW_METHOD("empty_like", creation_empty_like,
              "empty_like(x, /, *, dtype=None, device=None, shape=None)\n--\n\n"
              "An uninitialised array shaped like x (or `shape`)."),
    KW_METHOD("zeros_like", creation_zeros_like,
              "zeros_like(x, /, *, dtype=None, device=None, shape=None)\n--\n\n"
              "Zeros shaped like x (or `shape`)."),
    KW_METHOD("ones_like", creation_ones_like,
              "ones_like(x, /, *, dtype=None, device=None, shape=None)\n--\n\n"
              "Ones shaped like x (or `shape`)."),
    KW_METHOD("full_like", creation_full_like,
              "full_like(x, /, fill_value, *, dtype=None, device=None, "
              "shape=None)\n--\n\n"
              "fill_value shaped like x (or `shape`)."),
    KW_METHOD("eye", creation_eye,
              "eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)\n--"
              "\n\nA 2-d array with ones on diagonal k and zeros elsewhere."),
    {NULL, NULL, 0, NULL},
};

int
creation_module_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, creation_methods) < 0) {
        return -1;
    }
    return ranges_module_init(module);
}
