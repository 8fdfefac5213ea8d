/*
 * Copies and casts of whole arrays: a cast on the array's backend (C order,
 * or the layout NumPy's order letter asks for), a C-contiguous version of
 * an array, a move to another backend through host memory, and a copy to
 * another CUDA device (peer to peer when the GPUs allow it).  Built on the
 * elementwise machinery (elementwise.c) and the transfers of backend.c.
 */
#include "core/copy.h"

#include "runtime/backend.h"
#include "core/elementwise.h"
#include "runtime/pool.h"
#include "runtime/transfer.h"
#include "runtime/device.h"
#include "base/cuda_error.h"
#include "runtime/stream.h"

DeviceArrayObject *
copy_new_0d(int backend, int typenum, const char *element)
{
    DeviceArrayObject *result = array_new(backend, typenum, 0, NULL);

    if (result != NULL && transfer_copy(backend, result->data, element,
                                        (size_t)da_itemsize(typenum),
                                        DA_COPY_H2D) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

DeviceArrayObject *
copy_contiguous_as(DeviceArrayObject *a, int typenum)
{
    DeviceArrayObject *result;
    if (a->typenum == typenum && array_is_c_contiguous(a)) {
        Py_INCREF(a);
        return a;
    }
    if (array_activate(a) < 0) {
        return NULL;
    }
    result = array_new(a->backend, typenum, a->ndim, DA_SHAPE(a));
    if (result == NULL) {
        return NULL;
    }
    if (elementwise_copy(result, a) < 0) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

DeviceArrayObject *
copy_cast(DeviceArrayObject *a, int typenum)
{
    DeviceArrayObject *result = array_activate(a) < 0
                                    ? NULL
                                    : array_new(a->backend, typenum, a->ndim, DA_SHAPE(a));
    if (result != NULL && elementwise_copy(result, a) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

DeviceArrayObject *
copy_cast_order(DeviceArrayObject *a, int typenum, char letter)
{
    int order[DA_MAXDIMS];
    DeviceArrayObject *result;

    if (array_activate(a) < 0) {
        return NULL;
    }
    elementwise_copy_order(a, letter, order);
    result = array_new_ordered(a->backend, typenum, a->ndim, DA_SHAPE(a), order);
    if (result != NULL && elementwise_copy(result, a) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

int
copy_order_converter(PyObject *obj, void *letter)
{
    const char *text;

    if (obj == Py_None) {
        return 1; /* NumPy's None: the caller's default */
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "order must be str, not %.200s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    text = PyUnicode_AsUTF8(obj);
    if (text == NULL) {
        return 0;
    }
    if (text[0] == '\0' || text[1] != '\0' || strchr("CFAKcfak", text[0]) == NULL) {
        PyErr_Format(PyExc_ValueError, "order must be one of 'C', 'F', 'A', or 'K' (got %R)",
                     obj);
        return 0;
    }
    *(char *)letter = (char)(text[0] >= 'a' ? text[0] - 'a' + 'A' : text[0]);
    return 1;
}

PyObject *
copy_to_backend(DeviceArrayObject *a, int typenum, int backend)
{
    DeviceArrayObject *contiguous = NULL, *moved = NULL;
    PyObject *result = NULL;
    void *staging = NULL;
    size_t nbytes = 0;

    if (typenum < 0) {
        typenum = a->typenum;
    }
    if (a->backend == backend) {
        return (PyObject *)copy_cast(a, typenum);
    }
    /* read a on its device; the result goes to the active one */
    if (array_activate(a) < 0) {
        return NULL;
    }
    contiguous = copy_contiguous_as(a, a->typenum);
    if (contiguous == NULL) {
        goto error;
    }
    moved = array_new(backend, a->typenum, a->ndim, DA_SHAPE(a));
    if (moved == NULL) {
        goto error;
    }
    nbytes = (size_t)DA_NBYTES(a);
    staging = pool_malloc(DA_BACKEND_HOST, nbytes);
    if (staging == NULL ||
        transfer_copy(contiguous->backend, staging, contiguous->data, nbytes,
                     DA_COPY_D2H) < 0 ||
        transfer_copy(backend, moved->data, staging, nbytes, DA_COPY_H2D) < 0) {
        goto error;
    }
    result = typenum == a->typenum ? (PyObject *)moved
                                   : (PyObject *)copy_cast(moved, typenum);
    if (result != (PyObject *)moved) {
        Py_DECREF(moved);
    }
    moved = NULL;
error:
    pool_free(DA_BACKEND_HOST, staging, nbytes);
    Py_XDECREF(moved);
    Py_XDECREF(contiguous);
    return result;
}


/* A new array on CUDA device `device` with a's values (on another CUDA
   device) cast to typenum.  cudaMemcpyPeer is ordered after all work queued
   on both devices and before all work queued later (its documented
   serialisation), so neither device's streams need events for it; it goes
   peer to peer when device_peer_enable allows it, else the driver stages it
   through host memory. */
static PyObject *
copy_peer(DeviceArrayObject *a, int typenum, int device)
{
    DeviceArrayObject *contiguous = NULL, *moved = NULL;
#ifdef DEVARRAY_HAVE_CUDA
    cudaError_t err;

    if (stream_check_sync("a copy between CUDA devices") < 0) {
        return NULL;
    }
#endif
    if ((contiguous = copy_contiguous_as(a, typenum)) == NULL ||
        device_activate(DA_BACKEND_CUDA, device) < 0 ||
        (moved = array_new(DA_BACKEND_CUDA, typenum, a->ndim, DA_SHAPE(a))) == NULL) {
        goto error;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (moved->size > 0) {
        /* the copy engine of either device may move the bytes */
        (void)device_peer_enable(device, a->device);
        (void)device_peer_enable(a->device, device);
        Py_BEGIN_ALLOW_THREADS
        err = cudaMemcpyPeer(moved->data, device, contiguous->data, a->device,
                             (size_t)DA_NBYTES(moved));
        Py_END_ALLOW_THREADS
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaMemcpyPeer");
            goto error;
        }
    }
#endif
    Py_DECREF(contiguous);
    return (PyObject *)moved;
error:
    Py_XDECREF(contiguous);
    Py_XDECREF(moved);
    return NULL;
}

PyObject *
copy_to_place(DeviceArrayObject *a, int typenum, int backend, int device)
{
    if (typenum < 0) {
        typenum = a->typenum;
    }
    if (backend != DA_BACKEND_CUDA || (a->backend == backend && a->device == device)) {
        return copy_to_backend(a, typenum, backend);
    }
    if (a->backend == backend) {
        return copy_peer(a, typenum, device);
    }
    if (device_activate(backend, device) < 0) {
        return NULL;
    }
    return copy_to_backend(a, typenum, backend);
}
