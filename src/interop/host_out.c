/*
 * Host objects out (see host_out.h): NumPy arrays, memoryviews, writable
 * buffers, nested lists and Python scalars.  NumPy is imported only when a
 * conversion needs it.
 *
 * Ownership:
 *   - The Py_buffer of an `out` object (or of the new ndarray) is held for
 *     one copy only and released on every path.
 *   - Host copies behind tolist and a non-contiguous `out` come from
 *     PyMem_Malloc and are freed before the function that took them returns.
 *   - The NumPy module, once imported, is held in a static for the life of
 *     the process (one strong reference, never released).
 *   - to_host(out=, blocking=False) returns while the copy may still run:
 *     the array's device memory (and a packed temporary) is freed
 *     stream-ordered, after every stream that used it, and a PinnedBuffer's
 *     memory is freed with cudaFreeHost, which waits for the device; so
 *     both sides outlive the copy whatever the caller drops.  Memory that
 *     another library page-locked is kept alive by that library's owner.
 */
#include "interop/host_out.h"

#include "core/copy.h"
#include "base/dtype.h"
#include "interop/hostbuffer.h"
#include "interop/hostcopy.h"
#include "interop/pinned.h"
#include "interop/scalar.h"
#include "runtime/transfer.h"

static PyObject *host_out_numpy_module;

/* NumPy, imported on first use: *module is NULL (and no error is set) when
   it is not installed. */
static int
host_out_import_numpy(PyObject **module)
{
    if (host_out_numpy_module == NULL) {
        PyObject *numpy = PyImport_ImportModule("numpy");
        if (numpy == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_ImportError)) {
                return -1;
            }
            PyErr_Clear();
            *module = NULL;
            return 0;
        }
        host_out_numpy_module = numpy;
    }
    *module = host_out_numpy_module;
    return 0;
}

/* A new numpy.ndarray holding a copy of a. */
static PyObject *
host_out_to_numpy(DeviceArrayObject *a, PyObject *numpy)
{
    PyObject *shape = NULL, *result = NULL;
    Py_buffer view;
    int have_view = 0;

    shape = array_int64_tuple(a->ndim, DA_SHAPE(a));
    if (shape == NULL) {
        goto error;
    }
    result = PyObject_CallMethod(numpy, "empty", "Os", shape,
                                 dtype_table[a->typenum].name);
    if (result == NULL) {
        goto error;
    }
    if (PyObject_GetBuffer(result, &view, PyBUF_CONTIG) < 0) {
        goto error;
    }
    have_view = 1;
    if (view.len != DA_NBYTES(a)) {
        PyErr_Format(PyExc_RuntimeError,
                     "numpy.empty returned %zd bytes; %lld were expected", view.len,
                     (long long)DA_NBYTES(a));
        goto error;
    }
    if (hostcopy_to_host(a, view.buf) < 0) {
        goto error;
    }
    goto done;
error:
    Py_CLEAR(result);
done:
    if (have_view) {
        PyBuffer_Release(&view);
    }
    Py_XDECREF(shape);
    return result;
}

/* A struct format that means "raw bytes": 'B', 'b' or 'c', with or without
   a byte-order character. */
static int
host_out_format_is_bytes(const char *format)
{
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' ||
        *format == '!') {
        format++;
    }
    return (format[0] == 'B' || format[0] == 'b' || format[0] == 'c') &&
           format[1] == '\0';
}

/* A writable strided view of `out` that can take a's elements: as many
   bytes, and a's dtype or raw bytes ('B', 'b', 'c').  0 with the view held,
   or -1 with TypeError/ValueError and no view. */
static int
host_out_view(DeviceArrayObject *a, PyObject *out, Py_buffer *view)
{
    int readonly, out_typenum;
    int64_t nbytes = DA_NBYTES(a);
    const char *format;

    /* exporters refuse a writable request in different ways (BufferError,
       NumPy's ValueError): look read-only first, to say why uniformly */
    if (PyObject_GetBuffer(out, view, PyBUF_RECORDS_RO) < 0) {
        if (PyErr_ExceptionMatches(PyExc_BufferError) ||
            PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "out must be a writable buffer, not '%.200s'",
                         Py_TYPE(out)->tp_name);
        }
        return -1;
    }
    readonly = view->readonly;
    PyBuffer_Release(view);
    if (readonly) {
        PyErr_Format(PyExc_TypeError,
                     "out must be a writable buffer; this '%.200s' is read-only",
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(out, view, PyBUF_RECORDS) < 0) {
        return -1;
    }
    if (view->len != nbytes) {
        PyErr_Format(
                PyExc_ValueError,
                "out has %zd bytes but the array has %lld bytes (%lld %s elements)",
                view->len, (long long)nbytes, (long long)a->size,
                dtype_table[a->typenum].name);
        goto error;
    }
    format = view->format != NULL ? view->format : "B";
    if (!host_out_format_is_bytes(format)) {
        if (dtype_from_format(format, view->itemsize, &out_typenum) < 0 ||
            out_typenum != a->typenum) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "out has format '%s' (itemsize %zd), which does not "
                         "match the array's dtype %s",
                         format, view->itemsize, dtype_table[a->typenum].name);
            goto error;
        }
    }
    return 0;
error:
    PyBuffer_Release(view);
    return -1;
}

/* Fill the writable buffer `out` with a's elements.  Everything is checked
   before the first byte is written.  A non-C-contiguous `out` is filled
   through a host temporary, in its C order. */
static PyObject *
host_out_to_buffer(DeviceArrayObject *a, PyObject *out)
{
    Py_buffer view;
    char *temp = NULL;
    PyObject *result = NULL;

    if (host_out_view(a, out, &view) < 0) {
        return NULL;
    }
    if (view.len > 0) {
        if (view.strides == NULL || PyBuffer_IsContiguous(&view, 'C')) {
            if (hostcopy_to_host(a, view.buf) < 0) {
                goto done;
            }
        }
        else {
            temp = hostcopy_new(a);
            if (temp == NULL) {
                goto done;
            }
            hostcopy_buffer(&view, temp, 1);
        }
    }
    result = Py_NewRef(out);
done:
    PyMem_Free(temp);
    PyBuffer_Release(&view);
    return result;
}

PyObject *
host_out_to_host(DeviceArrayObject *a, PyObject *out)
{
    PyObject *numpy;

    if (out != NULL && out != Py_None) {
        return host_out_to_buffer(a, out);
    }
    if (host_out_import_numpy(&numpy) < 0) {
        return NULL;
    }
    if (numpy != NULL) {
        return host_out_to_numpy(a, numpy);
    }
    return hostbuffer_memoryview(a);
}

PyObject *
host_out_to_host_async(DeviceArrayObject *a, PyObject *out)
{
    Py_buffer view;
    DeviceArrayObject *contiguous = NULL;
    PyObject *result = NULL;

    if (array_activate(a) < 0) { /* queued on a's device (devices) */
        return NULL;
    }
    if (out == NULL || out == Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "to_host(blocking=False) needs out=: page-locked host "
                        "memory to copy into (a devarray.empty_pinned() buffer "
                        "or a NumPy view of one); into new pageable memory the "
                        "copy could not run asynchronously");
        return NULL;
    }
    if (host_out_view(a, out, &view) < 0) {
        return NULL;
    }
    if (view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C')) {
        PyErr_SetString(PyExc_ValueError,
                        "to_host(blocking=False) needs a C-contiguous out (one "
                        "copy fills it); blocking=True fills strided buffers");
        goto done;
    }
    if (!pinned_async_ok(view.buf, (size_t)view.len, a->backend)) {
        PyErr_Format(PyExc_ValueError,
                     "to_host(blocking=False): out (a '%.200s') is not "
                     "page-locked host memory; a copy into pageable memory "
                     "would be synchronous (or, were it not, unsafe).  Use a "
                     "devarray.empty_pinned() buffer, or blocking=True",
                     Py_TYPE(out)->tp_name);
        goto done;
    }
    if (view.len > 0) {
        /* a strided array is packed on its backend first; that temporary,
           like `a`, is freed stream-ordered, after the copy has read it */
        contiguous = copy_contiguous_as(a, a->typenum);
        if (contiguous == NULL) {
            goto done;
        }
        if (transfer_copy_async(contiguous->backend, view.buf, contiguous->data,
                                (size_t)view.len, DA_COPY_D2H) < 0) {
            goto done;
        }
    }
    result = Py_NewRef(out);
done:
    Py_XDECREF(contiguous);
    PyBuffer_Release(&view);
    return result;
}

/* Nested lists of the C-ordered elements at p with `shape`. */
static PyObject *
host_out_tolist_at(const char *p, int typenum, int ndim, const int64_t *shape)
{
    PyObject *list;
    int64_t i, block;
    int d;

    if (ndim == 0) {
        return scalar_to_python(p, typenum);
    }
    block = da_itemsize(typenum);
    for (d = 1; d < ndim; d++) {
        block *= shape[d];
    }
    list = PyList_New((Py_ssize_t)shape[0]);
    if (list == NULL) {
        return NULL;
    }
    for (i = 0; i < shape[0]; i++) {
        PyObject *item =
                host_out_tolist_at(p + i * block, typenum, ndim - 1, shape + 1);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

PyObject *
host_out_tolist(DeviceArrayObject *a)
{
    char *host = hostcopy_new(a);
    PyObject *result;

    if (host == NULL) {
        return NULL;
    }
    result = host_out_tolist_at(host, a->typenum, a->ndim, DA_SHAPE(a));
    PyMem_Free(host);
    return result;
}

PyObject *
host_out_item(DeviceArrayObject *a)
{
    /* large enough and aligned for any element */
    da_c128 element;

    if (array_activate(a) < 0) { /* read on a's device (devices) */
        return NULL;
    }
    if (a->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "can only convert an array of size 1 to a Python scalar");
        return NULL;
    }
    /* every index of a size-1 array is 0: the element is at data */
    if (transfer_copy(a->backend, &element, a->data, (size_t)DA_ITEMSIZE(a),
                     DA_COPY_D2H) < 0) {
        return NULL;
    }
    return scalar_to_python(&element, a->typenum);
}
