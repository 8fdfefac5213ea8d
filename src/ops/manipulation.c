/*
 * The manipulation functions of the array API that make new arrays, as
 * NumPy 2: concat, stack, roll, repeat and tile.  Each allocates its result
 * and fills it with a few elementwise copies (elementwise_copy) from views
 * of the input into views of the result: a slice per input for concat and
 * stack, a block per combination of wrapped parts for roll, and for repeat
 * and tile one copy whose source repeats through zero strides.  None runs
 * Python or a host loop per element; repeat with an array of counts copies
 * once per index along the axis, after reading the counts to the host.
 *
 * manipulation_module_init also registers view_ops.c's functions.
 */
#include "ops/manipulation.h"

#include "core/array.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "core/copy.h"
#include "runtime/transfer.h"
#include "core/view_ops.h"

/* Up to two dimensions per axis (tile and repeat split axes in two). */
#define MANIPULATION_MAXDIMS (2 * DA_MAXDIMS)

/* dst[...] = src over n dimensions described by shape and both strides
   (src strides 0 where it repeats), from dst_data and src_data inside the
   memory of dst and src.  Extent-1 dimensions are dropped; what still has
   more dimensions than an array can have is looped over, outermost first. */
static int
manipulation_copy_block(DeviceArrayObject *dst, DeviceArrayObject *src, int n,
                        const int64_t *shape, const int64_t *dst_strides,
                        char *dst_data, const int64_t *src_strides,
                        char *src_data)
{
    int64_t kept_shape[MANIPULATION_MAXDIMS], kept_dst[MANIPULATION_MAXDIMS],
        kept_src[MANIPULATION_MAXDIMS], i;
    DeviceArrayObject *dview = NULL, *sview = NULL;
    int kept = 0, k, status = -1;

    for (k = 0; k < n; k++) {
        if (shape[k] == 0) {
            return 0;
        }
        if (shape[k] != 1) {
            kept_shape[kept] = shape[k];
            kept_dst[kept] = dst_strides[k];
            kept_src[kept++] = src_strides[k];
        }
    }
    if (kept > DA_MAXDIMS) {
        for (i = 0; i < kept_shape[0]; i++) {
            if (manipulation_copy_block(dst, src, kept - 1, kept_shape + 1,
                                        kept_dst + 1, dst_data + i * kept_dst[0],
                                        kept_src + 1,
                                        src_data + i * kept_src[0]) < 0) {
                return -1;
            }
        }
        return 0;
    }
    dview = array_view_of(dst, kept, kept_shape, kept_dst, dst_data);
    sview = array_view_of(src, kept, kept_shape, kept_src, src_data);
    if (dview != NULL && sview != NULL) {
        status = elementwise_copy(dview, sview);
    }
    Py_XDECREF(dview);
    Py_XDECREF(sview);
    return status;
}

/* `obj`, a tuple or list of DeviceArrays on one backend, as a new list;
   *typenum gets their promoted dtype.  TypeError, or ValueError when empty
   or on different backends. */
static PyObject *
manipulation_array_list(PyObject *obj, const char *name, int *typenum)
{
    PyObject *list;
    Py_ssize_t n, k;
    DeviceArrayObject *first, *a;

    if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes a tuple or list of DeviceArrays, not %.200s",
                     name, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    list = PySequence_List(obj);
    if (list == NULL) {
        return NULL;
    }
    n = PyList_GET_SIZE(list);
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s() needs at least one array", name);
        goto error;
    }
    first = (DeviceArrayObject *)PyList_GET_ITEM(list, 0);
    for (k = 0; k < n; k++) {
        a = (DeviceArrayObject *)PyList_GET_ITEM(list, k);
        if (!DeviceArray_Check(a)) {
            PyErr_Format(PyExc_TypeError,
                         "%s() takes DeviceArrays, not %.200s (item %zd)", name,
                         Py_TYPE(a)->tp_name, k);
            goto error;
        }
        if (array_check_same_place(name, first, a) < 0) {
            goto error;
        }
        *typenum = k == 0 ? a->typenum : dtype_promote(*typenum, a->typenum);
    }
    return list;
error:
    Py_DECREF(list);
    return NULL;
}

/* ---- concat and stack -------------------------------------------------- */

/* Replace each array of `list` by its flattened self (axis=None). */
static int
manipulation_flatten_all(PyObject *list)
{
    const int64_t flat = -1;
    Py_ssize_t k;
    for (k = 0; k < PyList_GET_SIZE(list); k++) {
        PyObject *item = (PyObject *)view_ops_reshape(
            (DeviceArrayObject *)PyList_GET_ITEM(list, k), 1, &flat, -1);
        if (item == NULL) {
            return -1;
        }
        PyList_SetItem(list, k, item);
    }
    return 0;
}

static PyObject *
manipulation_concat(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    int64_t shape[DA_MAXDIMS], offset = 0;
    PyObject *arrays, *axis_obj = NULL, *list = NULL;
    DeviceArrayObject *first, *a, *out = NULL;
    int typenum = 0, axis = 0, i;
    Py_ssize_t n, k;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O:concat", kwlist, &arrays,
                                     &axis_obj)) {
        return NULL;
    }
    list = manipulation_array_list(arrays, "concat", &typenum);
    if (list == NULL) {
        return NULL;
    }
    if (axis_obj == Py_None && manipulation_flatten_all(list) < 0) {
        goto error;
    }
    n = PyList_GET_SIZE(list);
    first = (DeviceArrayObject *)PyList_GET_ITEM(list, 0);
    if (first->ndim == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "zero-dimensional arrays cannot be concatenated");
        goto error;
    }
    if (axis_obj != NULL && axis_obj != Py_None &&
        array_normalize_axis(axis_obj, first->ndim, &axis) < 0) {
        goto error;
    }
    memcpy(shape, DA_SHAPE(first), sizeof(int64_t) * (size_t)first->ndim);
    shape[axis] = 0;
    for (k = 0; k < n; k++) {
        a = (DeviceArrayObject *)PyList_GET_ITEM(list, k);
        if (a->ndim != first->ndim) {
            PyErr_Format(PyExc_ValueError,
                         "all the input arrays must have the same number of "
                         "dimensions, but the array at index 0 has %d and the "
                         "array at index %zd has %d",
                         first->ndim, k, a->ndim);
            goto error;
        }
        for (i = 0; i < a->ndim; i++) {
            if (i != axis && DA_SHAPE(a)[i] != shape[i]) {
                PyErr_Format(PyExc_ValueError,
                             "all the input array dimensions except for the "
                             "concatenation axis must match exactly, but along "
                             "dimension %d the array at index 0 has size %lld "
                             "and the array at index %zd has size %lld",
                             i, (long long)shape[i], k, (long long)DA_SHAPE(a)[i]);
                goto error;
            }
        }
        if (DA_SHAPE(a)[axis] > INT64_MAX - shape[axis]) {
            PyErr_SetString(PyExc_ValueError, "array is too big");
            goto error;
        }
        shape[axis] += DA_SHAPE(a)[axis];
    }
    out = array_new(first->backend, typenum, first->ndim, shape);
    if (out == NULL) {
        goto error;
    }
    for (k = 0; k < n; k++) {
        a = (DeviceArrayObject *)PyList_GET_ITEM(list, k);
        if (manipulation_copy_block(out, a, a->ndim, DA_SHAPE(a), DA_STRIDES(out),
                                    out->data + offset * DA_STRIDES(out)[axis],
                                    DA_STRIDES(a), a->data) < 0) {
            Py_CLEAR(out);
            goto error;
        }
        offset += DA_SHAPE(a)[axis];
    }
error:
    Py_DECREF(list);
    return (PyObject *)out;
}

static PyObject *
manipulation_stack(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    PyObject *arrays, *axis_obj = NULL, *list = NULL;
    DeviceArrayObject *first, *a, *out = NULL;
    int typenum = 0, axis = 0, i, j = 0;
    Py_ssize_t n, k;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O:stack", kwlist, &arrays,
                                     &axis_obj)) {
        return NULL;
    }
    list = manipulation_array_list(arrays, "stack", &typenum);
    if (list == NULL) {
        return NULL;
    }
    n = PyList_GET_SIZE(list);
    first = (DeviceArrayObject *)PyList_GET_ITEM(list, 0);
    for (k = 1; k < n; k++) {
        a = (DeviceArrayObject *)PyList_GET_ITEM(list, k);
        if (a->ndim != first->ndim ||
            (a->ndim > 0 && memcmp(DA_SHAPE(a), DA_SHAPE(first),
                                   sizeof(int64_t) * (size_t)a->ndim) != 0)) {
            PyErr_SetString(PyExc_ValueError,
                            "all input arrays must have the same shape");
            goto error;
        }
    }
    if (first->ndim + 1 > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d",
                     DA_MAXDIMS);
        goto error;
    }
    if (axis_obj != NULL &&
        array_normalize_axis(axis_obj, first->ndim + 1, &axis) < 0) {
        goto error;
    }
    for (i = 0; i <= first->ndim; i++) {
        shape[i] = i == axis ? (int64_t)n : DA_SHAPE(first)[j++];
    }
    out = array_new(first->backend, typenum, first->ndim + 1, shape);
    if (out == NULL) {
        goto error;
    }
    /* out's strides without the new axis: the slot of one input */
    for (i = 0, j = 0; i <= first->ndim; i++) {
        if (i != axis) {
            strides[j++] = DA_STRIDES(out)[i];
        }
    }
    for (k = 0; k < n; k++) {
        a = (DeviceArrayObject *)PyList_GET_ITEM(list, k);
        if (manipulation_copy_block(out, a, a->ndim, DA_SHAPE(a), strides,
                                    out->data + k * DA_STRIDES(out)[axis],
                                    DA_STRIDES(a), a->data) < 0) {
            Py_CLEAR(out);
            goto error;
        }
    }
error:
    Py_DECREF(list);
    return (PyObject *)out;
}

/* ---- roll -------------------------------------------------------------- */

/* At most this many axes are rolled in one pass over the data: a pass
   makes 2**axes copies, one per combination of the two parts of each axis,
   so more axes are rolled in further passes rather than in ever more,
   smaller copies. */
#define MANIPULATION_ROLL_AXES_PER_PASS 4

/* dst = src rolled by shift[axis] along the naxes axes listed. */
static int
manipulation_roll_pass(DeviceArrayObject *dst, DeviceArrayObject *src,
                       const int64_t *shift, const int *axes, int naxes)
{
    int64_t shape[DA_MAXDIMS], mask;
    int i;

    for (mask = 0; mask < ((int64_t)1 << naxes); mask++) {
        char *to = dst->data, *from = src->data;
        memcpy(shape, DA_SHAPE(src), sizeof(int64_t) * (size_t)src->ndim);
        for (i = 0; i < naxes; i++) {
            const int ax = axes[i];
            const int64_t n = DA_SHAPE(src)[ax], s = shift[ax];
            if (mask & ((int64_t)1 << i)) {
                /* src[0 : n-s] -> dst[s : n] */
                shape[ax] = n - s;
                to += s * DA_STRIDES(dst)[ax];
            }
            else {
                /* src[n-s : n] -> dst[0 : s] */
                shape[ax] = s;
                from += (n - s) * DA_STRIDES(src)[ax];
            }
        }
        if (manipulation_copy_block(dst, src, src->ndim, shape, DA_STRIDES(dst),
                                    to, DA_STRIDES(src), from) < 0) {
            return -1;
        }
    }
    return 0;
}

/* x rolled by shift[] per axis (each in [0, extent)), into a new array of
   the same size and the shape (ndim, shape). */
static DeviceArrayObject *
manipulation_roll_axes(DeviceArrayObject *x, const int64_t *shift, int ndim,
                       const int64_t *shape)
{
    int rolled[DA_MAXDIMS], nrolled = 0, first = 0, i, naxes, status = 0;
    DeviceArrayObject *out, *target, *current = x, *next;

    out = array_new(x->backend, x->typenum, ndim, shape);
    if (out == NULL) {
        return NULL;
    }
    /* out is C-contiguous: seen in x's shape with C strides */
    target = array_view_of(out, x->ndim, DA_SHAPE(x), NULL, out->data);
    if (target == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    Py_INCREF(current);
    for (i = 0; i < x->ndim; i++) {
        if (shift[i] != 0) {
            rolled[nrolled++] = i;
        }
    }
    do {
        naxes = nrolled - first < MANIPULATION_ROLL_AXES_PER_PASS
                    ? nrolled - first
                    : MANIPULATION_ROLL_AXES_PER_PASS;
        if (first + naxes == nrolled) {
            next = target;
            Py_INCREF(next);
        }
        else {
            next = array_new(x->backend, x->typenum, x->ndim, DA_SHAPE(x));
        }
        status = next == NULL ? -1
                              : manipulation_roll_pass(next, current, shift,
                                                       rolled + first, naxes);
        Py_DECREF(current);
        current = next;
        first += naxes;
    } while (status == 0 && first < nrolled);
    Py_XDECREF(current);
    Py_DECREF(target);
    if (status < 0) {
        Py_CLEAR(out);
    }
    return out;
}

/* An int, or a tuple or list of them, as a new list (a fast sequence). */
static PyObject *
manipulation_int_list(PyObject *obj, const char *what)
{
    PyObject *seq;
    Py_ssize_t k;
    if (PyTuple_Check(obj) || PyList_Check(obj)) {
        seq = PySequence_List(obj);
    }
    else {
        seq = PyList_New(1);
        if (seq != NULL) {
            Py_INCREF(obj);
            PyList_SET_ITEM(seq, 0, obj);
        }
    }
    if (seq == NULL) {
        return NULL;
    }
    for (k = 0; k < PyList_GET_SIZE(seq); k++) {
        if (!PyIndex_Check(PyList_GET_ITEM(seq, k))) {
            PyErr_Format(PyExc_TypeError,
                         "%s must be an int or a tuple of ints, not %.200s",
                         what, Py_TYPE(PyList_GET_ITEM(seq, k))->tp_name);
            Py_DECREF(seq);
            return NULL;
        }
    }
    return seq;
}

static PyObject *
manipulation_roll(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "shift", "axis", NULL};
    int64_t shift[DA_MAXDIMS] = {0};
    const int64_t flat = -1;
    DeviceArrayObject *x, *source = NULL, *result = NULL;
    PyObject *shift_obj, *axis_obj = Py_None, *shifts = NULL, *axes = NULL;
    Py_ssize_t nshift, naxes, n, k;
    int axis = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$O:roll", kwlist,
                                     &DeviceArray_Type, &x, &shift_obj,
                                     &axis_obj) ||
        array_activate(x) < 0) {
        return NULL;
    }
    shifts = manipulation_int_list(shift_obj, "shift");
    if (shifts == NULL) {
        goto error;
    }
    if (axis_obj == Py_None) {
        source = view_ops_reshape(x, 1, &flat, -1);
        axes = PyList_New(0);
    }
    else {
        Py_INCREF(x);
        source = x;
        axes = manipulation_int_list(axis_obj, "axis");
    }
    if (source == NULL || axes == NULL) {
        goto error;
    }
    /* as NumPy, shift and axis broadcast against each other, and the
       shifts of a repeated axis add up */
    nshift = PyList_GET_SIZE(shifts);
    naxes = axis_obj == Py_None ? 1 : PyList_GET_SIZE(axes);
    if (nshift != naxes && nshift != 1 && naxes != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "shift and axis must be ints or tuples of the same "
                        "length");
        goto error;
    }
    /* as NumPy's broadcasting, a length 0 against a length 1 is 0 */
    n = nshift == 0 || naxes == 0 ? 0 : nshift > naxes ? nshift : naxes;
    for (k = 0; k < n; k++) {
        long long value;
        int64_t extent;
        if (axis_obj != Py_None &&
            array_normalize_axis(PyList_GET_ITEM(axes, naxes == 1 ? 0 : k),
                                 source->ndim, &axis) < 0) {
            goto error;
        }
        value = PyLong_AsLongLong(PyList_GET_ITEM(shifts, nshift == 1 ? 0 : k));
        if (value == -1 && PyErr_Occurred()) {
            goto error;
        }
        extent = DA_SHAPE(source)[axis];
        if (extent > 0) {
            value %= extent;
            shift[axis] = (shift[axis] + value + extent) % extent;
        }
    }
    result = manipulation_roll_axes(source, shift, x->ndim, DA_SHAPE(x));
error:
    Py_XDECREF(shifts);
    Py_XDECREF(axes);
    Py_XDECREF(source);
    return (PyObject *)result;
}

/* ---- repeat and tile --------------------------------------------------- */

/* The counts of an integer DeviceArray of 0 or 1 dimensions, read to a new
   host buffer (PyMem_Free it) of *count values. */
static int64_t *
manipulation_read_counts(DeviceArrayObject *repeats, int64_t *count)
{
    DeviceArrayObject *values = NULL;
    int64_t *host = NULL, k;
    const char kind = dtype_table[repeats->typenum].kind;

    if ((kind != 'i' && kind != 'u' && kind != 'b') ||
        repeats->typenum == DA_UINT64) {
        PyErr_Format(PyExc_TypeError,
                     "repeats must have an integer dtype that casts safely to "
                     "int64, not %s",
                     dtype_table[repeats->typenum].name);
        return NULL;
    }
    if (repeats->ndim > 1) {
        PyErr_SetString(PyExc_ValueError,
                        "repeats must be an int or an array of 0 or 1 "
                        "dimensions");
        return NULL;
    }
    values = copy_contiguous_as(repeats, DA_INT64);
    if (values == NULL) {
        return NULL;
    }
    host = PyMem_Malloc(sizeof(int64_t) * (size_t)(values->size > 0 ? values->size : 1));
    if (host == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    if (transfer_copy(values->backend, host, values->data,
                      (size_t)DA_NBYTES(values), DA_COPY_D2H) < 0) {
        goto error;
    }
    for (k = 0; k < values->size; k++) {
        if (host[k] < 0) {
            PyErr_SetString(PyExc_ValueError,
                            "repeats may not contain negative values");
            goto error;
        }
    }
    *count = values->size;
    Py_DECREF(values);
    return host;
error:
    PyMem_Free(host);
    Py_DECREF(values);
    return NULL;
}

/* x repeated along axis: `counts` (n values: 1, or x's extent there). */
static DeviceArrayObject *
manipulation_repeat_axis(DeviceArrayObject *x, int axis, const int64_t *counts,
                         int64_t n)
{
    int64_t shape[DA_MAXDIMS + 1], dst_strides[DA_MAXDIMS + 1],
        src_strides[DA_MAXDIMS + 1], extent = DA_SHAPE(x)[axis], total = 0, k;
    DeviceArrayObject *out;
    int i, uniform = 1;

    /* the counts were read back from wherever they lived: back to x */
    if (array_activate(x) < 0) {
        return NULL;
    }
    if (n != 1 && n != extent) {
        PyErr_Format(PyExc_ValueError,
                     "repeats of %lld values do not broadcast to the %lld "
                     "elements along the axis",
                     (long long)n, (long long)extent);
        return NULL;
    }
    if (n == 1) {
        if (counts[0] > 0 && extent > INT64_MAX / counts[0]) {
            goto too_big;
        }
        total = counts[0] * extent;
    }
    for (k = 0; k < n && n > 1; k++) {
        uniform &= counts[k] == counts[0];
        if (counts[k] > INT64_MAX - total) {
            goto too_big;
        }
        total += counts[k];
    }
    memcpy(shape, DA_SHAPE(x), sizeof(int64_t) * (size_t)x->ndim);
    shape[axis] = total;
    out = array_new(x->backend, x->typenum, x->ndim, shape);
    if (out == NULL) {
        return NULL;
    }
    if (uniform && extent > 0) {
        /* one copy: axis split into (extent, count), the source repeating
           along the second part through a zero stride */
        const int64_t count = counts[0];
        for (i = 0; i < x->ndim; i++) {
            const int at = i + (i > axis);
            shape[at] = DA_SHAPE(x)[i];
            dst_strides[at] = DA_STRIDES(out)[i];
            src_strides[at] = DA_STRIDES(x)[i];
        }
        shape[axis + 1] = count;
        dst_strides[axis] = DA_STRIDES(out)[axis] * count;
        dst_strides[axis + 1] = DA_STRIDES(out)[axis];
        src_strides[axis + 1] = 0;
        if (manipulation_copy_block(out, x, x->ndim + 1, shape, dst_strides,
                                    out->data, src_strides, x->data) < 0) {
            Py_CLEAR(out);
        }
        return out;
    }
    /* one copy per index along the axis, its slice repeated counts[k] times */
    memcpy(src_strides, DA_STRIDES(x), sizeof(int64_t) * (size_t)x->ndim);
    src_strides[axis] = 0;
    total = 0;
    for (k = 0; k < extent; k++) {
        shape[axis] = counts[k];
        if (manipulation_copy_block(out, x, x->ndim, shape, DA_STRIDES(out),
                                    out->data + total * DA_STRIDES(out)[axis],
                                    src_strides,
                                    x->data + k * DA_STRIDES(x)[axis]) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        total += counts[k];
    }
    return out;

too_big:
    PyErr_SetString(PyExc_ValueError, "array is too big");
    return NULL;
}

static PyObject *
manipulation_repeat(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "axis", NULL};
    const int64_t flat = -1;
    int64_t one, count = 1, *counts = &one;
    DeviceArrayObject *x, *source = NULL, *result = NULL;
    PyObject *repeats, *axis_obj = Py_None;
    int axis = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$O:repeat", kwlist,
                                     &DeviceArray_Type, &x, &repeats,
                                     &axis_obj)) {
        return NULL;
    }
    if (DeviceArray_Check(repeats)) {
        counts = manipulation_read_counts((DeviceArrayObject *)repeats, &count);
        if (counts == NULL) {
            return NULL;
        }
    }
    else if (PyIndex_Check(repeats)) {
        one = PyLong_AsLongLong(repeats);
        if (one == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (one < 0) {
            PyErr_SetString(PyExc_ValueError,
                            "repeats may not contain negative values");
            return NULL;
        }
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "repeats must be an int or a DeviceArray of integers, "
                     "not %.200s",
                     Py_TYPE(repeats)->tp_name);
        return NULL;
    }
    if (axis_obj == Py_None) {
        source = view_ops_reshape(x, 1, &flat, -1);
    }
    else if (array_normalize_axis(axis_obj, x->ndim, &axis) == 0) {
        Py_INCREF(x);
        source = x;
    }
    if (source != NULL) {
        result = manipulation_repeat_axis(source, axis, counts, count);
        Py_DECREF(source);
    }
    if (counts != &one) {
        PyMem_Free(counts);
    }
    return (PyObject *)result;
}

static PyObject *
manipulation_tile(PyObject *Py_UNUSED(module), PyObject *args)
{
    int64_t reps[DA_MAXDIMS], shape[DA_MAXDIMS], block[MANIPULATION_MAXDIMS],
        dst_strides[MANIPULATION_MAXDIMS], src_strides[MANIPULATION_MAXDIMS];
    DeviceArrayObject *x, *out = NULL;
    PyObject *reps_obj, *list = NULL;
    Py_ssize_t nreps;
    int ndim, i, n = 0;

    if (!PyArg_ParseTuple(args, "O!O:tile", &DeviceArray_Type, &x, &reps_obj) ||
        array_activate(x) < 0) {
        return NULL;
    }
    list = manipulation_int_list(reps_obj, "repetitions");
    if (list == NULL) {
        return NULL;
    }
    nreps = PyList_GET_SIZE(list);
    if (nreps > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d",
                     DA_MAXDIMS);
        goto error;
    }
    ndim = x->ndim > (int)nreps ? x->ndim : (int)nreps;
    /* both right-aligned: missing repetitions are 1, missing axes extent 1 */
    for (i = 0; i < ndim; i++) {
        const int r = i - (ndim - (int)nreps), a = i - (ndim - x->ndim);
        long long value = 1;
        if (r >= 0) {
            value = PyLong_AsLongLong(PyList_GET_ITEM(list, r));
            if (value == -1 && PyErr_Occurred()) {
                goto error;
            }
            if (value < 0) {
                PyErr_SetString(PyExc_ValueError,
                                "repetitions must not be negative");
                goto error;
            }
        }
        reps[i] = value;
        shape[i] = a >= 0 ? DA_SHAPE(x)[a] : 1;
        if (reps[i] > 0 && shape[i] > INT64_MAX / reps[i]) {
            PyErr_SetString(PyExc_ValueError, "array is too big");
            goto error;
        }
    }
    for (i = 0; i < ndim; i++) {
        block[i] = shape[i] * reps[i];
    }
    out = array_new(x->backend, x->typenum, ndim, block);
    if (out == NULL) {
        goto error;
    }
    /* out seen as (reps[0], shape[0], reps[1], shape[1], ...), x repeating
       along every reps part through zero strides: one copy */
    for (i = 0; i < ndim; i++) {
        const int a = i - (ndim - x->ndim);
        block[n] = reps[i];
        dst_strides[n] = DA_STRIDES(out)[i] * shape[i];
        src_strides[n++] = 0;
        block[n] = shape[i];
        dst_strides[n] = DA_STRIDES(out)[i];
        src_strides[n++] = a >= 0 ? DA_STRIDES(x)[a] : 0;
    }
    if (manipulation_copy_block(out, x, n, block, dst_strides, out->data,
                                src_strides, x->data) < 0) {
        Py_CLEAR(out);
    }
error:
    Py_DECREF(list);
    return (PyObject *)out;
}

static PyMethodDef manipulation_functions[] = {
    {"concat", (PyCFunction)(void (*)(void))manipulation_concat,
     METH_VARARGS | METH_KEYWORDS,
     "concat(arrays, /, *, axis=0)\n--\n\nThe arrays (a tuple or list) joined "
     "along an existing axis (axis=None: flattened first), in their promoted "
     "dtype."},
    {"repeat", (PyCFunction)(void (*)(void))manipulation_repeat,
     METH_VARARGS | METH_KEYWORDS,
     "repeat(x, repeats, /, *, axis=None)\n--\n\nEach element of x repeated "
     "along axis (x flattened when None): repeats is an int or an integer "
     "DeviceArray of one count per element (or one count), which is read to "
     "the host to size the result."},
    {"roll", (PyCFunction)(void (*)(void))manipulation_roll,
     METH_VARARGS | METH_KEYWORDS,
     "roll(x, /, shift, *, axis=None)\n--\n\nA copy of x with the elements "
     "shifted along axis (ints or tuples; x flattened and restored when "
     "None), wrapping around."},
    {"stack", (PyCFunction)(void (*)(void))manipulation_stack,
     METH_VARARGS | METH_KEYWORDS,
     "stack(arrays, /, *, axis=0)\n--\n\nThe arrays (of one shape) joined "
     "along a new axis, in their promoted dtype."},
    {"tile", manipulation_tile, METH_VARARGS,
     "tile(x, repetitions, /)\n--\n\nx repeated repetitions[i] times along "
     "each axis i (both aligned on the last axis)."},
    {NULL, NULL, 0, NULL},
};

int
manipulation_module_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, view_ops_functions) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, manipulation_functions);
}
