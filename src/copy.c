/*
 * Copies and casts of whole arrays: a cast on the array's backend (C order,
 * or the layout NumPy's order letter asks for), a C-contiguous version of
 * an array, and a move to another backend through host memory.  Built on the elementwise machinery (elementwise.c) and the
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

DeviceArrayObject *
copy_cast_order(DeviceArrayObject *a, int typenum, char letter)
{
    int order[DA_MAXDIMS];
    DeviceArrayObject *result;

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

