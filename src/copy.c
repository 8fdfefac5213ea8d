/*
 * Copies and casts of whole arrays: a cast on the array's backend, a
 * C-contiguous version of an array, and a move to another backend through
 * host memory.  Built on the elementwise machinery (elementwise.c) and the
 * transfers of backend.c.
 */
#include "copy.h"

#include "backend.h"
#include "elementwise.h"
#include "pool.h"
#include "transfer.h"
#include "device.h"

DeviceArrayObject *
copy_contiguous_as(DeviceArrayObject *a, int typenum)
{
    DeviceArrayObject *result;
    if (a->typenum == typenum && array_is_c_contiguous(a)) {
        Py_INCREF(a);
        return a;
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
    DeviceArrayObject *result = array_new(a->backend, typenum, a->ndim, DA_SHAPE(a));
    if (result != NULL && elementwise_copy(result, a) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

PyObject *
copy_to_backend(DeviceArrayObject *a, int typenum, int backend)
{
    DeviceArrayObject *contiguous = NULL, *moved = NULL;
    PyObject *result = NULL;
    void *staging = NULL;
    size_t nbytes;

    if (typenum < 0) {
        typenum = a->typenum;
    }
    if (a->backend == backend) {
        return (PyObject *)copy_cast(a, typenum);
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
    pool_free(DA_BACKEND_HOST, staging);
    Py_XDECREF(moved);
    Py_XDECREF(contiguous);
    return result;
}

