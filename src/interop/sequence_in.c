/*
 * Nested Python sequences in (see sequence_in.h): the shape from the first
 * element at each level, NumPy's dtype inference, then one walk that checks
 * the nesting and stores every element.
 *
 * 0-d DeviceArrays among the elements count as the Python scalars of their
 * values (their dtype does not take part in the inference).
 *
 * Ownership: the host block the elements are stored into comes from
 * PyMem_Malloc and is freed before sequence_in_array returns.
 */
#include "interop/sequence_in.h"

#include <string.h>

#include "interop/scalar.h"
#include "runtime/transfer.h"

enum {
    SEQ_BOOL = 1,
    SEQ_INT = 2,
    SEQ_FLOAT = 4,
    SEQ_COMPLEX = 8,
    SEQ_INT_IN_INT64 = 16,   /* an int that fits int64 (NumPy: an int64) */
    SEQ_INT_ABOVE_INT64 = 32 /* an int in (INT64_MAX, UINT64_MAX] (a uint64) */
};

typedef struct {
    int ndim;
    int64_t shape[DA_MAXDIMS];
    int kinds;   /* SEQ_* seen while inferring */
    int typenum; /* while filling: the target dtype */
    char *fill;  /* while filling: where the next element goes */
} seq_state;

#define SEQ_IS_NESTED(obj) (PyList_Check(obj) || PyTuple_Check(obj))

/* The shape, from the first element at each level of nesting. */
static int
seq_discover_shape(PyObject *obj, seq_state *st)
{
    st->ndim = 0;
    while (SEQ_IS_NESTED(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (st->ndim == DA_MAXDIMS) {
            PyErr_Format(PyExc_ValueError,
                         "the sequence is nested more than %d levels deep "
                         "(devarray supports at most %d dimensions)",
                         DA_MAXDIMS, DA_MAXDIMS);
            return -1;
        }
        st->shape[st->ndim++] = n;
        if (n == 0) {
            break;
        }
        obj = PySequence_Fast_GET_ITEM(obj, 0);
    }
    return 0;
}

static int
seq_ragged_error(const seq_state *st, int depth)
{
    PyObject *shape = PyTuple_New(depth);
    int d;

    if (shape == NULL) {
        return -1;
    }
    for (d = 0; d < depth; d++) {
        PyObject *n = PyLong_FromLongLong(st->shape[d]);
        if (n == NULL) {
            Py_DECREF(shape);
            return -1;
        }
        PyTuple_SET_ITEM(shape, d, n);
    }
    PyErr_Format(PyExc_ValueError,
                 "setting an array element with a sequence. The requested "
                 "array has an inhomogeneous shape after %d dimensions. The "
                 "detected shape was %R + inhomogeneous part.",
                 depth, shape);
    Py_DECREF(shape);
    return -1;
}

/* Record the kind of one element for dtype inference. */
static int
seq_classify(PyObject *obj, seq_state *st)
{
    if (PyBool_Check(obj)) {
        st->kinds |= SEQ_BOOL;
    }
    else if (PyLong_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        st->kinds |= SEQ_INT;
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(obj);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                /* beyond uint64: filling reports it as out of bounds */
                if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                    return -1;
                }
                PyErr_Clear();
            }
            else {
                st->kinds |= SEQ_INT_ABOVE_INT64;
            }
        }
        else if (overflow == 0) {
            st->kinds |= SEQ_INT_IN_INT64;
        }
    }
    else if (PyFloat_Check(obj)) {
        st->kinds |= SEQ_FLOAT;
    }
    else if (PyComplex_Check(obj)) {
        st->kinds |= SEQ_COMPLEX;
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "cannot make a DeviceArray from an element of type "
                     "'%.200s': elements must be bool, int, float or complex "
                     "(or nested lists/tuples of them)",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* NumPy's choice of dtype for the kinds seen. */
static int
seq_inferred_typenum(int kinds)
{
    if (kinds & SEQ_COMPLEX) {
        return DA_COMPLEX128;
    }
    if (kinds & SEQ_FLOAT) {
        return DA_FLOAT64;
    }
    if (kinds & SEQ_INT) {
        if ((kinds & SEQ_INT_ABOVE_INT64) && (kinds & SEQ_INT_IN_INT64)) {
            /* NumPy makes each int an int64, or a uint64 when it needs to;
               the two promote to float64 */
            return DA_FLOAT64;
        }
        return (kinds & SEQ_INT_ABOVE_INT64) ? DA_UINT64 : DA_INT64;
    }
    if (kinds & SEQ_BOOL) {
        return DA_BOOL;
    }
    return DA_FLOAT64; /* no elements at all */
}

/* The value of a 0-d DeviceArray element as a new Python scalar (the
   array API's tests nest them in lists); NULL with TypeError for arrays of
   other shapes. */
static PyObject *
seq_array_item(DeviceArrayObject *a)
{
    union {
        da_c128 align;
        char bytes[16];
    } buf;

    if (a->ndim != 0) {
        PyErr_Format(PyExc_TypeError,
                     "a sequence given to asarray() may hold 0-d DeviceArrays, "
                     "not one of %d dimensions",
                     a->ndim);
        return NULL;
    }
    if (transfer_copy(a->backend, buf.bytes, a->data, (size_t)DA_ITEMSIZE(a),
                      DA_COPY_D2H) < 0) {
        return NULL;
    }
    return scalar_to_python(buf.bytes, a->typenum);
}

/* Classify (fill == 0) or store (fill == 1) one element. */
static int
seq_element(PyObject *obj, seq_state *st, int fill)
{
    if (!fill) {
        return seq_classify(obj, st);
    }
    if (scalar_store_python(obj, st->typenum, st->fill) < 0) {
        return -1;
    }
    st->fill += da_itemsize(st->typenum);
    return 0;
}

/* Check that obj matches the discovered shape below `depth`, and classify
   (fill == 0) or store (fill == 1) every element in C order. */
static int
seq_walk(PyObject *obj, int depth, seq_state *st, int fill)
{
    Py_ssize_t i, n;

    if (depth == st->ndim) {
        if (SEQ_IS_NESTED(obj)) {
            return seq_ragged_error(st, depth);
        }
        if (DeviceArray_Check(obj)) {
            PyObject *item = seq_array_item((DeviceArrayObject *)obj);
            int status = item == NULL ? -1 : seq_element(item, st, fill);
            Py_XDECREF(item);
            return status;
        }
        return seq_element(obj, st, fill);
    }
    if (!SEQ_IS_NESTED(obj)) {
        return seq_ragged_error(st, depth);
    }
    n = PySequence_Fast_GET_SIZE(obj);
    if (n != st->shape[depth]) {
        return seq_ragged_error(st, depth);
    }
    for (i = 0; i < n; i++) {
        if (seq_walk(PySequence_Fast_GET_ITEM(obj, i), depth + 1, st, fill) < 0) {
            return -1;
        }
    }
    return 0;
}

DeviceArrayObject *
sequence_in_array(PyObject *obj, int typenum, int backend)
{
    seq_state st;
    char *host = NULL;
    DeviceArrayObject *result = NULL;
    int64_t nbytes;

    memset(&st, 0, sizeof st);
    if (seq_discover_shape(obj, &st) < 0) {
        goto error;
    }
    if (typenum < 0) {
        if (seq_walk(obj, 0, &st, 0) < 0) {
            goto error;
        }
        typenum = seq_inferred_typenum(st.kinds);
    }
    result = array_new(backend, typenum, st.ndim, st.shape);
    if (result == NULL) {
        goto error;
    }
    nbytes = DA_NBYTES(result);
    if (nbytes == 0) {
        /* nothing to fill, but the nesting must still be regular */
        if (seq_walk(obj, 0, &st, 0) < 0) {
            goto error;
        }
        goto done;
    }
    host = PyMem_Malloc((size_t)nbytes);
    if (host == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    st.typenum = typenum;
    st.fill = host;
    if (seq_walk(obj, 0, &st, 1) < 0) {
        goto error;
    }
    if (transfer_copy(backend, result->data, host, (size_t)nbytes, DA_COPY_H2D) < 0) {
        goto error;
    }
    goto done;
error:
    Py_CLEAR(result);
done:
    PyMem_Free(host);
    return result;
}
