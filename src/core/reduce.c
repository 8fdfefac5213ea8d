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

/* Fill `a` (of class dtype) with 1: a product over nothing. */
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

/* Whether any() of integer array `a` over the `reduced` axes can read a's
   bytes in place as bools: a is C-contiguous and the reduced elements of
   each result are adjacent (inner == 1); then r holds that layout, in
   bytes.  Otherwise 0 (r is left for reduce_source). */
static int
reduce_any_as_bytes(DeviceArrayObject *a, const int *reduced, da_reduce *r)
{
    int cls = da_class_of(a->typenum);

    if ((cls != DA_CLASS_SINT && cls != DA_CLASS_UINT) || !array_is_c_contiguous(a) ||
        !reduce_in_place_layout(a->ndim, DA_SHAPE(a), reduced, &r->outer, &r->len,
                                &r->inner) ||
        r->inner != 1) {
        return 0;
    }
    r->len *= DA_ITEMSIZE(a);
    return 1;
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

/* reduce_apply; with `logical`, reduce_logical (typenum unused). */
static PyObject *
reduce_run(DeviceArrayObject *a, int op, PyObject *axis, int typenum, int keepdims,
           int logical)
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
    if (logical) {
        result_type = DA_BOOL;
    }
    else if (op == DA_REDUCE_MAX || op == DA_REDUCE_MIN) {
        result_type = a->typenum;
        if (len == 0) {
            PyErr_Format(PyExc_ValueError,
                         "zero-size array to reduction operation %s which has no "
                         "identity", reduce_ufunc_names[op]);
            return NULL;
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
        /* a sum (or any()) over nothing is 0, a product (or all()) 1; max and
           min of nothing raised above */
        if (op == DA_REDUCE_SUM || op == DA_REDUCE_MAX ? transfer_memset_zero(a->backend, acc->data,
                                                       (size_t)DA_NBYTES(acc)) < 0
                                : reduce_fill_one(acc) < 0) {
            goto error;
        }
    }
    else {
        if (logical && op == DA_REDUCE_MAX && reduce_any_as_bytes(a, reduced, &r)) {
            /* any() of integers: a value is nonzero when one of its bytes
               is, so the bytes are read as bools, with no cast */
            source_type = DA_BOOL;
            source = a;
            Py_INCREF(source);
        }
        else if ((source = reduce_source(a, reduced, source_type, &r.outer, &r.len,
                                         &r.inner)) == NULL) {
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

PyObject *
reduce_apply(DeviceArrayObject *a, int op, PyObject *axis, int typenum, int keepdims)
{
    return reduce_run(a, op, axis, typenum, keepdims, 0);
}

PyObject *
reduce_logical(DeviceArrayObject *a, int op, PyObject *axis, int keepdims)
{
    return reduce_run(a, op, axis, DA_BOOL, keepdims, 1);
}

PyObject *
reduce_sum(DeviceArrayObject *a, PyObject *axis, int typenum, int keepdims)
{
    return reduce_apply(a, DA_REDUCE_SUM, axis, typenum, keepdims);
}
