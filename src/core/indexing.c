/*
 * Indexing of DeviceArrays: basic indices (integers, slices, one Ellipsis,
 * None), as NumPy, giving views.  Array-valued indices (integer and boolean
 * arrays, lists) are refused with an IndexError that says so.
 */
#include "core/indexing.h"

#include "base/dtype.h"

/* Whether item is an index array devarray does not take yet: a
   DeviceArray other than a 0-d integer one (which is an int through
   __index__), or a list. */
static int
indexing_is_array_index(PyObject *item)
{
    if (DeviceArray_Check(item)) {
        const DeviceArrayObject *a = (const DeviceArrayObject *)item;
        const char kind = dtype_table[a->typenum].kind;
        return a->ndim != 0 || (kind != 'i' && kind != 'u');
    }
    return PyList_Check(item);
}

PyObject *
indexing_subscript(DeviceArrayObject *self, PyObject *key)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    char *data = self->data;
    PyObject *items = NULL, *result = NULL;
    Py_ssize_t nitems, i;
    int consumed = 0, ellipses = 0, src = 0, dst = 0;

    if (PyTuple_Check(key)) {
        items = key;
        Py_INCREF(items);
    }
    else {
        items = PyTuple_Pack(1, key);
        if (items == NULL) {
            return NULL;
        }
    }
    nitems = PyTuple_GET_SIZE(items);
    for (i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (item == Py_Ellipsis) {
            ellipses++;
        }
        else if (item != Py_None) {
            consumed++;
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError,
                        "an index can only have a single ellipsis ('...')");
        goto error;
    }
    if (consumed > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, "
                     "but %d were indexed",
                     self->ndim, consumed);
        goto error;
    }
    for (i = 0; i < nitems; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (dst >= DA_MAXDIMS && (item == Py_None || PySlice_Check(item))) {
            PyErr_Format(PyExc_IndexError,
                         "indexing would give more than %d dimensions",
                         DA_MAXDIMS);
            goto error;
        }
        if (item == Py_None) {
            shape[dst] = 1;
            strides[dst] = 0;
            dst++;
        }
        else if (item == Py_Ellipsis) {
            int skip = self->ndim - consumed;
            if (dst + skip > DA_MAXDIMS) {
                PyErr_Format(PyExc_IndexError,
                             "indexing would give more than %d dimensions",
                             DA_MAXDIMS);
                goto error;
            }
            for (; skip > 0; skip--, src++, dst++) {
                shape[dst] = DA_SHAPE(self)[src];
                strides[dst] = DA_STRIDES(self)[src];
            }
        }
        else if (PySlice_Check(item)) {
            Py_ssize_t start, stop, step, length;
            if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
                goto error;
            }
            length = PySlice_AdjustIndices((Py_ssize_t)DA_SHAPE(self)[src],
                                           &start, &stop, step);
            if (length > 0) {
                data += start * DA_STRIDES(self)[src];
            }
            shape[dst] = length;
            strides[dst] = (int64_t)((uint64_t)DA_STRIDES(self)[src] * (uint64_t)step);
            src++;
            dst++;
        }
        else if (indexing_is_array_index(item)) {
            PyErr_Format(PyExc_IndexError,
                         "integer and boolean array indices (here a %.200s) "
                         "are not supported yet; use integers, slices, "
                         "Ellipsis and None",
                         Py_TYPE(item)->tp_name);
            goto error;
        }
        else if (!PyBool_Check(item) && PyIndex_Check(item)) {
            Py_ssize_t index = PyNumber_AsSsize_t(item, PyExc_IndexError);
            int64_t extent = DA_SHAPE(self)[src];
            if (index == -1 && PyErr_Occurred()) {
                goto error;
            }
            if (index < -extent || index >= extent) {
                PyErr_Format(PyExc_IndexError,
                             "index %zd is out of bounds for axis %d with "
                             "size %lld",
                             index, src, (long long)extent);
                goto error;
            }
            if (index < 0) {
                index += (Py_ssize_t)extent;
            }
            data += index * DA_STRIDES(self)[src];
            src++;
        }
        else {
            PyErr_Format(PyExc_IndexError,
                         "only integers, slices (`:`), ellipsis (`...`) and "
                         "None are valid indices, not %.200s",
                         Py_TYPE(item)->tp_name);
            goto error;
        }
    }
    for (; src < self->ndim; src++, dst++) {
        if (dst >= DA_MAXDIMS) {
            PyErr_Format(PyExc_IndexError,
                         "indexing would give more than %d dimensions",
                         DA_MAXDIMS);
            goto error;
        }
        shape[dst] = DA_SHAPE(self)[src];
        strides[dst] = DA_STRIDES(self)[src];
    }
    result = (PyObject *)array_view_of(self, dst, shape, strides, data);
error:
    Py_DECREF(items);
    return result;
}


PyObject *
indexing_item(DeviceArrayObject *self, Py_ssize_t index)
{
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    if (index < 0 || index >= DA_SHAPE(self)[0]) {
        PyErr_Format(PyExc_IndexError,
                     "index %zd is out of bounds for axis 0 with size %lld",
                     index, (long long)DA_SHAPE(self)[0]);
        return NULL;
    }
    return (PyObject *)array_view_of(self, self->ndim - 1, DA_SHAPE(self) + 1,
                                     DA_STRIDES(self) + 1,
                                     self->data + index * DA_STRIDES(self)[0]);
}
