/*
 * The reduction engine: see reduce.h.
 *
 * Every reduction becomes one da_reduce (kernels/launch.h): `outer` x `len`
 * x `inner` contiguous elements, combining along len.  When the reduced
 * axes (size-1 axes aside) are one run of adjacent axes of a C-contiguous
 * input of the dtype the accumulator reads, the input is used in place:
 * the axes before the run are `outer`, the run is `len`, the axes after it
 * `inner`, and the output, kept axes in order, is already (outer, inner).
 * So sum(axis=0) of a matrix reads the columns in place (inner = columns),
 * and a full or last-axis reduction is inner == 1.  Otherwise one
 * elementwise pass writes a contiguous copy: in the input's own axis order
 * when the run test holds (a strided or cast input), else with the kept
 * axes first and the reduced axes last (inner == 1).
 */
#include "core/reduce.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "runtime/transfer.h"

/* NumPy's ufunc names, for its empty-reduction message. */
static const char *const reduce_ufunc_names[DA_NREDUCE] = {
    "add", "multiply", "maximum", "minimum",
};

int
reduce_parse_axes(PyObject *axis, int ndim, int *reduced)
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
        /* a 0-d array accepts a bare axis 0 or -1 and reduces nothing, as
           in NumPy (a tuple naming an axis is out of bounds there) */
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

/* (outer, len, inner) for reducing the `reduced` axes of a C-contiguous
   array of `shape`, when those axes of size > 1 are adjacent; 0 if not. */
static int
reduce_in_place_layout(int ndim, const int64_t *shape, const int *reduced,
                       int64_t *outer, int64_t *len, int64_t *inner)
{
    int k, state = 0; /* 0: before the run, 1: in it, 2: after it */

    *outer = *len = *inner = 1;
    for (k = 0; k < ndim; k++) {
        if (shape[k] == 1) {
            continue;
        }
        if (reduced[k]) {
            if (state == 2) {
                return 0;
            }
            state = 1;
            *len *= shape[k];
        }
        else if (state == 0) {
            *outer *= shape[k];
        }
        else {
            state = 2;
            *inner *= shape[k];
        }
    }
    return 1;
}

/* Fill `a` (of class dtype) with 1: a product, or all(), over nothing. */
static int
reduce_fill_one(DeviceArrayObject *a)
{
    int cls = da_class_of(a->typenum);
    da_scalar one;

    switch (cls) {
        case DA_CLASS_BOOL:
            one.b = 1;
            break;
        case DA_CLASS_SINT:
            one.s = 1;
            break;
        case DA_CLASS_UINT:
            one.u = 1;
            break;
        case DA_CLASS_F32:
            one.f32 = 1.0f;
            break;
        case DA_CLASS_F64:
            one.f64 = 1.0;
            break;
        case DA_CLASS_C64:
            one.c64 = da_make_c64(1.0f, 0.0f);
            break;
        default:
            one.c128 = da_make_c128(1.0, 0.0);
            break;
    }
    return elementwise_run(DA_OP_COPY, cls, a, 1, (DeviceArrayObject *[]){NULL}, &one);
}

int64_t
reduce_result_shape(const DeviceArrayObject *a, PyObject *axis, int keepdims, int *reduced,
                    int64_t *shape, int *ndim)
{
    int64_t len = 1;
    int k;

    if (reduce_parse_axes(axis, a->ndim, reduced) < 0) {
        return -1;
    }
    *ndim = 0;
    for (k = 0; k < a->ndim; k++) {
        if (!reduced[k]) {
            shape[(*ndim)++] = DA_SHAPE(a)[k];
        }
        else {
            len *= DA_SHAPE(a)[k];
            if (keepdims) {
                shape[(*ndim)++] = 1;
            }
        }
    }
    return len;
}

DeviceArrayObject *
reduce_source(DeviceArrayObject *a, const int *reduced, int source_type, int64_t *outer,
              int64_t *len, int64_t *inner)
{
    int perm[DA_MAXDIMS], k, n = 0;
    int64_t perm_shape[DA_MAXDIMS], perm_strides[DA_MAXDIMS];
    DeviceArrayObject *permuted, *source;

    if (reduce_in_place_layout(a->ndim, DA_SHAPE(a), reduced, outer, len, inner)) {
        if (source_type == a->typenum && array_is_c_contiguous(a)) {
            Py_INCREF(a);
            return a;
        }
        return copy_contiguous_as(a, source_type);
    }
    *outer = *len = *inner = 1;
    for (k = 0; k < a->ndim; k++) {
        if (!reduced[k]) {
            perm[n++] = k;
            *outer *= DA_SHAPE(a)[k];
        }
    }
    for (k = 0; k < a->ndim; k++) {
        if (reduced[k]) {
            perm[n++] = k;
            *len *= DA_SHAPE(a)[k];
        }
    }
    for (k = 0; k < a->ndim; k++) {
        perm_shape[k] = DA_SHAPE(a)[perm[k]];
        perm_strides[k] = DA_STRIDES(a)[perm[k]];
    }
    permuted = array_new_view(a->backend, a->device, a->typenum, a->ndim, perm_shape,
                              perm_strides, a->data, (PyObject *)a, a->flags);
    if (permuted == NULL) {
        return NULL;
    }
    source = copy_contiguous_as(permuted, source_type);
    Py_DECREF(permuted);
    return source;
}

PyObject *
reduce_apply(DeviceArrayObject *a, int op, PyObject *axis, int typenum, int keepdims)
{
    int reduced[DA_MAXDIMS];
    int64_t out_shape[DA_MAXDIMS], len;
    int result_type, acc_type, source_type, out_ndim;
    DeviceArrayObject *result = NULL, *source = NULL, *acc = NULL;
    da_reduce r;

    len = reduce_result_shape(a, axis, keepdims, reduced, out_shape, &out_ndim);
    if (len < 0 || array_activate(a) < 0) {
        return NULL;
    }
    if (op == DA_REDUCE_MAX || op == DA_REDUCE_MIN) {
        result_type = a->typenum;
        if (len == 0) {
            PyErr_Format(PyExc_ValueError,
                         "zero-size array to reduction operation %s which has no "
                         "identity", reduce_ufunc_names[op]);
            return NULL;
        }
        if (a->typenum == DA_BOOL) {
            /* bool max and min are any() and all() */
            return reduce_nonzero(a, op == DA_REDUCE_MAX ? DA_NONZERO_ANY : DA_NONZERO_ALL, axis,
                                  keepdims);
        }
    }
    else {
        result_type = typenum >= 0 ? typenum : dtype_sum_result(a->typenum);
    }
    acc_type = da_reduce_accumulator(op, result_type);
    /* NumPy casts the input to the requested dtype before reducing; an
       input the accumulator reads directly (int8 into an int64 sum) is
       read as is, since its values are the same after the cast */
    source_type = a->typenum;
    if (da_reduce_accumulator(op, source_type) != acc_type ||
        (result_type == DA_BOOL && source_type != DA_BOOL) ||
        (result_type == DA_FLOAT16 && source_type != DA_FLOAT16)) {
        source_type = result_type;
    }

    result = array_new(a->backend, result_type, out_ndim, out_shape);
    if (result == NULL) {
        goto error;
    }
    if (result->size == 0) {
        return (PyObject *)result;
    }
    if (acc_type == result_type) {
        acc = result;
        Py_INCREF(acc);
    }
    else if ((acc = array_new(a->backend, acc_type, out_ndim, out_shape)) == NULL) {
        goto error;
    }
    if (len == 0) {
        /* a sum over nothing is 0, a product 1; max and min of nothing
           raised above */
        if (op == DA_REDUCE_SUM ? transfer_memset_zero(a->backend, acc->data,
                                                       (size_t)DA_NBYTES(acc)) < 0
                                : reduce_fill_one(acc) < 0) {
            goto error;
        }
    }
    else {
        if ((source = reduce_source(a, reduced, source_type, &r.outer, &r.len, &r.inner)) ==
            NULL) {
            goto error;
        }
        r.in = source->data;
        r.out = acc->data;
        r.in_typenum = source_type;
        r.acc_typenum = acc_type;
        r.op = op;
        if (backend_reduce(a->backend, &r) < 0) {
            goto error;
        }
    }
    if (acc != result && elementwise_copy(result, acc) < 0) {
        goto error;
    }
    Py_DECREF(acc);
    Py_XDECREF(source);
    return (PyObject *)result;

error:
    Py_XDECREF(acc);
    Py_XDECREF(source);
    Py_XDECREF(result);
    return NULL;
}

/* The bits that make an element of typenum (at most 8 bytes) nonzero, as
   the cast to bool tests them: all, less the sign bits of floats (-0.0 is
   zero, NaN is not) and of both parts of complex64. */
static uint64_t
reduce_nonzero_mask(int typenum)
{
    switch (typenum) {
        case DA_FLOAT16:
            return 0x7fffu;
        case DA_FLOAT32:
            return 0x7fffffffu;
        case DA_COMPLEX64:
            return 0x7fffffff7fffffffu;
        case DA_FLOAT64:
            return 0x7fffffffffffffffu;
        default:
            return da_itemsize(typenum) == 8 ? ~(uint64_t)0
                                             : ((uint64_t)1 << (8 * da_itemsize(typenum))) - 1;
    }
}

PyObject *
reduce_nonzero(DeviceArrayObject *a, int op, PyObject *axis, int keepdims)
{
    int reduced[DA_MAXDIMS], out_ndim, in_place;
    int64_t out_shape[DA_MAXDIMS], len, layout[3];
    DeviceArrayObject *result = NULL, *source = NULL;
    da_nonzero_reduce r;

    len = reduce_result_shape(a, axis, keepdims, reduced, out_shape, &out_ndim);
    if (len < 0 || array_activate(a) < 0) {
        return NULL;
    }
    result = array_new(a->backend, op == DA_NONZERO_COUNT ? DA_INT64 : DA_BOOL, out_ndim,
                       out_shape);
    if (result == NULL || result->size == 0) {
        return (PyObject *)result;
    }
    if (len == 0) {
        /* over nothing: a count of 0, any() False, all() True */
        if (op == DA_NONZERO_ALL ? reduce_fill_one(result) < 0
                                 : transfer_memset_zero(a->backend, result->data,
                                                        (size_t)DA_NBYTES(result)) < 0) {
            goto error;
        }
        return (PyObject *)result;
    }
    /* read in place when the layout allows; any other layout is copied,
       as bools (1 byte an element, whatever a's dtype), and so is
       complex128, whose 16-byte elements have no kernels of their own (the
       cast adds a sixteenth to the bytes read) */
    in_place = DA_ITEMSIZE(a) <= 8 && array_is_c_contiguous(a) &&
               reduce_in_place_layout(a->ndim, DA_SHAPE(a), reduced, &layout[0], &layout[1],
                                      &layout[2]);
    source = reduce_source(a, reduced, in_place ? a->typenum : DA_BOOL, &r.outer, &r.len,
                           &r.inner);
    if (source == NULL) {
        goto error;
    }
    r.in = source->data;
    r.out = result->data;
    r.width = DA_ITEMSIZE(source);
    r.op = op;
    r.mask = reduce_nonzero_mask(source->typenum);
    if (backend_nonzero_reduce(a->backend, &r) < 0) {
        goto error;
    }
    Py_DECREF(source);
    return (PyObject *)result;

error:
    Py_XDECREF(source);
    Py_DECREF(result);
    return NULL;
}

PyObject *
reduce_sum(DeviceArrayObject *a, PyObject *axis, int typenum, int keepdims)
{
    return reduce_apply(a, DA_REDUCE_SUM, axis, typenum, keepdims);
}
