/*
 * sum(): see reduce.h.
 *
 * Every reduction becomes "sum nseg contiguous segments of seglen elements"
 * (the launcher contract in kernels/launch.h).  When the reduced axes are
 * the trailing axes of a C-contiguous input that the accumulator can read
 * directly (the common case: a full sum, or a row sum), the input is used in
 * place; otherwise one elementwise pass writes a contiguous copy with the
 * kept axes first and the reduced axes last, cast to what the accumulator
 * reads.
 */
#include "reduce.h"

#include "backend.h"
#include "copy.h"
#include "dtype.h"
#include "elementwise.h"
#include "transfer.h"

/* The accumulator dtype for a result dtype (launch.h lists what each one
   can read). */
static int
accumulator_for(int result)
{
    switch (result) {
        case DA_BOOL:
        case DA_INT8:
        case DA_INT16:
        case DA_INT32:
        case DA_INT64:
            return DA_INT64;
        case DA_UINT8:
        case DA_UINT16:
        case DA_UINT32:
        case DA_UINT64:
            return DA_UINT64;
        case DA_FLOAT16:
            return DA_FLOAT32;
        default:
            return result;
    }
}

/* Fill `reduced` (ndim flags) from axis=None / int / tuple.  A 0-d array
   accepts a bare axis 0 or -1 and reduces nothing, as in NumPy (a tuple
   naming an axis is out of bounds there). */
static int
parse_axes(PyObject *axis, int ndim, int *reduced)
{
    int axes[DA_MAXDIMS], k, n, value;

    if (axis == Py_None) {
        for (k = 0; k < ndim; k++) {
            reduced[k] = 1;
        }
        return 0;
    }
    for (k = 0; k < ndim; k++) {
        reduced[k] = 0;
    }
    if (!PyTuple_Check(axis) && !PyList_Check(axis)) {
        if (array_normalize_axis(axis, ndim > 0 ? ndim : 1, &value) < 0) {
            return -1;
        }
        if (ndim > 0) {
            reduced[value] = 1;
        }
        return 0;
    }
    n = array_normalize_axes(axis, ndim, "duplicate value in 'axis'", axes);
    for (k = 0; k < n; k++) {
        reduced[axes[k]] = 1;
    }
    return n < 0 ? -1 : 0;
}

PyObject *
reduce_sum(DeviceArrayObject *a, PyObject *axis, int typenum, int keepdims)
{
    int reduced[DA_MAXDIMS], perm[DA_MAXDIMS];
    int64_t out_shape[DA_MAXDIMS], perm_shape[DA_MAXDIMS], perm_strides[DA_MAXDIMS];
    int64_t nsegments = 1, seglen = 1;
    int result_type, acc_type, source_type, k, out_ndim = 0, nkept = 0;
    int trailing = 1, seen_reduced = 0;
    DeviceArrayObject *result = NULL, *source = NULL, *acc = NULL,
                      *permuted = NULL;

    if (parse_axes(axis, a->ndim, reduced) < 0) {
        return NULL;
    }
    result_type = typenum >= 0 ? typenum : dtype_sum_result(a->typenum);
    acc_type = accumulator_for(result_type);
    source_type = a->typenum;
    if (!da_sum_supported(source_type, acc_type) ||
        (result_type == DA_BOOL && source_type != DA_BOOL) ||
        (result_type == DA_FLOAT16 && source_type != DA_FLOAT16)) {
        /* NumPy casts the input to the requested dtype before summing; an
           integer result narrower than the accumulator sums the same modulo
           its width, so it is read as is */
        source_type = da_sum_supported(result_type, acc_type) ? result_type
                                                              : acc_type;
    }

    /* kept axes first, reduced last */
    for (k = 0; k < a->ndim; k++) {
        if (!reduced[k]) {
            perm[nkept++] = k;
            nsegments *= DA_SHAPE(a)[k];
            if (seen_reduced) {
                trailing = 0;
            }
            out_shape[out_ndim++] = DA_SHAPE(a)[k];
        }
        else {
            seen_reduced = 1;
            seglen *= DA_SHAPE(a)[k];
            if (keepdims) {
                out_shape[out_ndim++] = 1;
            }
        }
    }
    for (k = 0; k < a->ndim; k++) {
        if (reduced[k]) {
            perm[nkept++] = k;
        }
    }

    result = array_new(a->backend, result_type, out_ndim, out_shape);
    if (result == NULL) {
        goto error;
    }
    if (result->size == 0) {
        return (PyObject *)result;
    }
    if (seglen == 0) {
        if (transfer_memset_zero(a->backend, result->data,
                                 (size_t)DA_NBYTES(result)) < 0) {
            goto error;
        }
        return (PyObject *)result;
    }

    if (trailing && source_type == a->typenum && array_is_c_contiguous(a)) {
        source = a;
        Py_INCREF(source);
    }
    else {
        for (k = 0; k < a->ndim; k++) {
            perm_shape[k] = DA_SHAPE(a)[perm[k]];
            perm_strides[k] = DA_STRIDES(a)[perm[k]];
        }
        permuted = array_new_view(a->backend, a->device, a->typenum, a->ndim,
                                  perm_shape, perm_strides, a->data,
                                  (PyObject *)a, a->flags);
        if (permuted == NULL) {
            goto error;
        }
        source = copy_contiguous_as(permuted, source_type);
        if (source == NULL) {
            goto error;
        }
    }

    if (acc_type == result_type) {
        acc = result;
        Py_INCREF(acc);
    }
    else {
        acc = array_new(a->backend, acc_type, out_ndim, out_shape);
        if (acc == NULL) {
            goto error;
        }
    }
    if (backend_sum(a->backend, source->data, source->typenum, acc->data,
                    acc_type, nsegments, seglen) < 0) {
        goto error;
    }
    if (acc != result && elementwise_copy(result, acc) < 0) {
        goto error;
    }
    Py_DECREF(acc);
    Py_DECREF(source);
    Py_XDECREF(permuted);
    return (PyObject *)result;

error:
    Py_XDECREF(acc);
    Py_XDECREF(source);
    Py_XDECREF(permuted);
    Py_XDECREF(result);
    return NULL;
}
