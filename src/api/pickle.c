/*
 * Pickling DeviceArrays: see pickle.h.
 *
 * A pickle holds the elements as bytes in C order, the dtype's name, the
 * shape and the backend's name, and nothing that depends on this process
 * (no pointers, no device ordinals): a view pickles as a contiguous copy,
 * and a CUDA array unpickles onto the current CUDA device, or not at all
 * where CUDA is missing.
 */
#include "api/pickle.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "runtime/device.h"
#include "base/dtype.h"
#include "runtime/transfer.h"

PyObject *
pickle_reduce(DeviceArrayObject *a)
{
    DeviceArrayObject *contiguous = NULL;
    PyObject *core = NULL, *reconstruct = NULL, *data = NULL, *shape = NULL;
    PyObject *result = NULL;
    const size_t nbytes = (size_t)DA_NBYTES(a);

    core = PyImport_ImportModule("devarray._core");
    if (core == NULL) {
        goto error;
    }
    reconstruct = PyObject_GetAttrString(core, "_reconstruct");
    contiguous = reconstruct == NULL ? NULL : copy_contiguous_as(a, a->typenum);
    if (contiguous == NULL) {
        goto error;
    }
    data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)nbytes);
    if (data == NULL ||
        (nbytes > 0 && transfer_copy(contiguous->backend, PyBytes_AS_STRING(data),
                                     contiguous->data, nbytes, DA_COPY_D2H) < 0)) {
        goto error;
    }
    shape = array_int64_tuple(a->ndim, DA_SHAPE(a));
    if (shape == NULL) {
        goto error;
    }
    result = Py_BuildValue("O(OsOs)", reconstruct, data, dtype_table[a->typenum].name,
                           shape, backend_name(a->backend));
error:
    Py_XDECREF(shape);
    Py_XDECREF(data);
    Py_XDECREF(contiguous);
    Py_XDECREF(reconstruct);
    Py_XDECREF(core);
    return result;
}

/* The backend a pickle names; -1 with an exception for an unknown name or
   a CUDA array where CUDA cannot be used. */
static int
pickle_backend_of(const char *name)
{
    if (strcmp(name, "host") == 0) {
        return DA_BACKEND_HOST;
    }
    if (strcmp(name, "cuda") != 0) {
        PyErr_Format(PyExc_ValueError,
                     "_reconstruct: unknown backend '%.100s' (expected 'host' "
                     "or 'cuda')",
                     name);
        return -1;
    }
    if (!device_cuda_available()) {
        PyErr_Format(PyExc_RuntimeError,
                     "cannot unpickle a DeviceArray of the CUDA backend here: "
                     "%s; unpickle it where CUDA works, or pickle a copy "
                     "on the host backend (x.to_device(...))",
                     device_cuda_unavailable_reason());
        return -1;
    }
    return DA_BACKEND_CUDA;
}

PyObject *
pickle_reconstruct(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer data = {0};
    PyObject *dtype, *shape_obj;
    const char *name;
    int64_t shape[DA_MAXDIMS], size;
    int typenum, ndim, backend;
    DeviceArrayObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*UOs:_reconstruct", &data, &dtype, &shape_obj,
                          &name)) {
        return NULL;
    }
    if (dtype_parse_object(dtype, &typenum) < 0) {
        goto error;
    }
    ndim = array_parse_shape(shape_obj, shape);
    if (ndim < 0) {
        goto error;
    }
    size = array_shape_size(ndim, shape, da_itemsize(typenum));
    if (size < 0) {
        goto error;
    }
    if ((int64_t)data.len != size * da_itemsize(typenum)) {
        PyErr_Format(PyExc_ValueError,
                     "_reconstruct: %zd bytes of data for %lld elements of %s",
                     data.len, (long long)size, dtype_table[typenum].name);
        goto error;
    }
    backend = pickle_backend_of(name);
    /* onto the thread's current device (devarray.Device), made active */
    if (backend < 0 || device_activate(backend, device_current(backend)) < 0) {
        goto error;
    }
    result = array_new(backend, typenum, ndim, shape);
    if (result != NULL && data.len > 0 &&
        transfer_copy(backend, result->data, data.buf, (size_t)data.len,
                      DA_COPY_H2D) < 0) {
        Py_CLEAR(result);
    }
error:
    PyBuffer_Release(&data);
    return (PyObject *)result;
}
