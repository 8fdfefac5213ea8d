/*
 * The manipulation functions of the array API that give views, as NumPy 2
 * does: broadcast_to and broadcast_arrays (zero strides, read-only like
 * NumPy's), expand_dims, squeeze, flip (negative strides), moveaxis,
 * permute_dims, unstack, and reshape, which is a view whenever strides can
 * express the new shape (NumPy's _attempt_nocopy_reshape) and a copy
 * otherwise.  Every view keeps the owner of the memory alive
 * (array_view_of); none of them launches anything.
 */
#include "core/view_ops.h"

#include "core/elementwise.h"

/* ---- shared helpers ---------------------------------------------------- */

int
view_ops_parse_axes(PyObject *obj, int ndim, int *axes)
{
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
        return array_normalize_axis(obj, ndim, &axes[0]) < 0 ? -1 : 1;
    }
    return array_normalize_axes(obj, ndim, "repeated axis", axes);
}

static void
view_ops_c_strides(int ndim, const int64_t *shape, int itemsize,
                   int64_t *strides)
{
    int64_t stride = itemsize;
    int i;
    for (i = ndim - 1; i >= 0; i--) {
        strides[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
}

/* ---- reshape ----------------------------------------------------------- */

/* Replace a -1 extent by what the size implies; ValueError if the shape
   cannot hold `size` elements. */
static int
view_ops_resolve_shape(int64_t size, int ndim, int64_t *shape)
{
    int64_t known = 1;
    int i, unknown = -1;
    PyObject *shape_tuple;

    for (i = 0; i < ndim; i++) {
        if (shape[i] == -1 && unknown < 0) {
            unknown = i;
        }
        else if (shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError,
                            unknown >= 0 && shape[i] == -1
                                ? "can only specify one unknown dimension"
                                : "negative dimensions not allowed");
            return -1;
        }
        else {
            known = shape[i] != 0 && known > INT64_MAX / shape[i]
                        ? -1
                        : known * shape[i];
        }
    }
    if (unknown >= 0) {
        /* known == 0 leaves the unknown extent undetermined: an error */
        if (known > 0 && size % known == 0) {
            shape[unknown] = size / known;
            known = size;
        }
        else {
            known = -1;
        }
    }
    if (known != size) {
        if (unknown >= 0) {
            shape[unknown] = -1;
        }
        shape_tuple = array_int64_tuple(ndim, shape);
        if (shape_tuple != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "cannot reshape array of size %lld into shape %R",
                         (long long)size, shape_tuple);
            Py_DECREF(shape_tuple);
        }
        return -1;
    }
    return 0;
}

/* NumPy's _attempt_nocopy_reshape (C order): strides for a non-empty a in
   the new shape, walking groups of old and new axes of equal extent; 0
   when a group of old axes is not contiguous enough to merge. */
static int
view_ops_nocopy_strides(const DeviceArrayObject *a, int newnd,
                        const int64_t *newdims, int64_t *newstrides)
{
    int64_t olddims[DA_MAXDIMS], oldstrides[DA_MAXDIMS], last_stride;
    int oldnd = 0, oi, oj, ok, ni, nj, nk;

    /* extent-1 axes have no effect and any stride */
    for (oi = 0; oi < a->ndim; oi++) {
        if (DA_SHAPE(a)[oi] != 1) {
            olddims[oldnd] = DA_SHAPE(a)[oi];
            oldstrides[oldnd] = DA_STRIDES(a)[oi];
            oldnd++;
        }
    }
    oi = 0;
    oj = 1;
    ni = 0;
    nj = 1;
    while (ni < newnd && oi < oldnd) {
        int64_t np = newdims[ni], op = olddims[oi];
        /* equal sizes end the walk inside both shapes; the bounds are
           checked anyway, so an inconsistent call gives a copy */
        while (np != op) {
            if (np < op && nj < newnd) {
                np *= newdims[nj++];
            }
            else if (np > op && oj < oldnd) {
                op *= olddims[oj++];
            }
            else {
                return 0;
            }
        }
        for (ok = oi; ok < oj - 1; ok++) {
            if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]) {
                return 0;
            }
        }
        newstrides[nj - 1] = oldstrides[oj - 1];
        for (nk = nj - 1; nk > ni; nk--) {
            newstrides[nk - 1] = newstrides[nk] * newdims[nk];
        }
        ni = nj++;
        oi = oj++;
    }
    /* trailing extent-1 axes of the new shape */
    last_stride = ni >= 1 ? newstrides[ni - 1] : DA_ITEMSIZE(a);
    for (nk = ni; nk < newnd; nk++) {
        newstrides[nk] = last_stride;
    }
    return 1;
}

DeviceArrayObject *
view_ops_reshape(DeviceArrayObject *a, int ndim, const int64_t *new_shape,
                 int copy)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    DeviceArrayObject *result = NULL, *as_a = NULL;

    if (ndim < 0 || ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d, found %d",
                     DA_MAXDIMS, ndim);
        return NULL;
    }
    memcpy(shape, new_shape, sizeof(int64_t) * (size_t)ndim);
    if (view_ops_resolve_shape(a->size, ndim, shape) < 0 ||
        array_shape_size(ndim, shape, DA_ITEMSIZE(a)) < 0) {
        return NULL;
    }
    if (copy != 1) {
        if (array_is_c_contiguous(a)) {
            view_ops_c_strides(ndim, shape, DA_ITEMSIZE(a), strides);
            return array_view_of(a, ndim, shape, strides, a->data);
        }
        if (view_ops_nocopy_strides(a, ndim, shape, strides)) {
            return array_view_of(a, ndim, shape, strides, a->data);
        }
        if (copy == 0) {
            PyErr_SetString(PyExc_ValueError,
                            "Unable to avoid creating a copy while reshaping.");
            return NULL;
        }
    }
    /* a fresh array of the new shape, filled through a view of it in a's
       shape, so the result owns its memory */
    result = array_new(a->backend, a->typenum, ndim, shape);
    if (result == NULL) {
        return NULL;
    }
    as_a = array_view_of(result, a->ndim, DA_SHAPE(a), NULL, result->data);
    if (as_a == NULL || elementwise_copy(as_a, a) < 0) {
        Py_CLEAR(result);
    }
    Py_XDECREF(as_a);
    return result;
}

static PyObject *
view_ops_reshape_function(PyObject *Py_UNUSED(module), PyObject *args,
                          PyObject *kwds)
{
    static char *kwlist[] = {"", "shape", "copy", NULL};
    int64_t shape[DA_MAXDIMS];
    DeviceArrayObject *x;
    PyObject *shape_obj, *copy_obj = Py_None;
    int ndim, copy = -1;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|$O:reshape", kwlist,
                                     &DeviceArray_Type, &x, &shape_obj,
                                     &copy_obj)) {
        return NULL;
    }
    if (copy_obj != Py_None) {
        copy = PyObject_IsTrue(copy_obj);
        if (copy < 0) {
            return NULL;
        }
    }
    ndim = array_parse_shape(shape_obj, shape);
    if (ndim < 0) {
        return NULL;
    }
    return (PyObject *)view_ops_reshape(x, ndim, shape, copy);
}

/* ---- broadcasting ------------------------------------------------------ */

/* a broadcast to (ndim, shape) with zero strides, read-only as NumPy's;
   ValueError when a's shape does not broadcast to it. */
static DeviceArrayObject *
view_ops_broadcast(DeviceArrayObject *a, int ndim, const int64_t *shape)
{
    int64_t strides[DA_MAXDIMS];
    int i, offset = ndim - a->ndim;
    DeviceArrayObject *view;
    PyObject *from = NULL, *to = NULL;

    if (array_shape_size(ndim, shape, DA_ITEMSIZE(a)) < 0) {
        return NULL;
    }
    if (offset < 0) {
        goto mismatch;
    }
    for (i = 0; i < ndim; i++) {
        const int j = i - offset;
        if (j < 0 || (DA_SHAPE(a)[j] == 1 && shape[i] != 1)) {
            strides[i] = 0;
        }
        else if (DA_SHAPE(a)[j] == shape[i]) {
            strides[i] = DA_STRIDES(a)[j];
        }
        else {
            goto mismatch;
        }
    }
    view = array_view_of(a, ndim, shape, strides, a->data);
    if (view != NULL) {
        view->flags |= DA_FLAG_READONLY;
    }
    return view;

mismatch:
    from = array_int64_tuple(a->ndim, DA_SHAPE(a));
    to = array_int64_tuple(ndim, shape);
    if (from != NULL && to != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "cannot broadcast an array of shape %R to shape %R", from,
                     to);
    }
    Py_XDECREF(from);
    Py_XDECREF(to);
    return NULL;
}

static PyObject *
view_ops_broadcast_to(PyObject *Py_UNUSED(module), PyObject *args,
                      PyObject *kwds)
{
    static char *kwlist[] = {"", "shape", NULL};
    int64_t shape[DA_MAXDIMS];
    DeviceArrayObject *x;
    PyObject *shape_obj;
    int ndim;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O:broadcast_to", kwlist,
                                     &DeviceArray_Type, &x, &shape_obj)) {
        return NULL;
    }
    ndim = array_parse_shape(shape_obj, shape);
    if (ndim < 0) {
        return NULL;
    }
    return (PyObject *)view_ops_broadcast(x, ndim, shape);
}

/* Broadcast the n shapes (ndims[k], shapes[k]) against each other into
   shape: the common ndim, or -1 with NumPy's ValueError naming the first
   argument that disagrees and the earlier one it disagrees with. */
static int
view_ops_broadcast_shape(Py_ssize_t n, const int *ndims,
                         const int64_t *const *shapes, int64_t *shape)
{
    int64_t common[DA_MAXDIMS];
    Py_ssize_t k, j;
    int ndim = 0, i;
    PyObject *first, *second;

    for (k = 0; k < n; k++) {
        /* the shapes so far, right-aligned, against this one */
        for (i = 0; i < ndims[k]; i++) {
            const int64_t extent = shapes[k][ndims[k] - 1 - i];
            int64_t *have = &common[DA_MAXDIMS - 1 - i];
            if (i >= ndim || *have == 1) {
                *have = extent;
            }
            else if (extent != 1 && extent != *have) {
                goto mismatch;
            }
        }
        ndim = ndims[k] > ndim ? ndims[k] : ndim;
    }
    memcpy(shape, common + DA_MAXDIMS - ndim, sizeof(int64_t) * (size_t)ndim);
    return ndim;

mismatch:
    /* the earlier shape that set the extent this one contradicts */
    for (j = 0; j < k; j++) {
        if (ndims[j] > i &&
            shapes[j][ndims[j] - 1 - i] == common[DA_MAXDIMS - 1 - i]) {
            break;
        }
    }
    first = array_int64_tuple(ndims[j], shapes[j]);
    second = array_int64_tuple(ndims[k], shapes[k]);
    if (first != NULL && second != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "shape mismatch: objects cannot be broadcast to a single "
                     "shape.  Mismatch is between arg %zd with shape %R and "
                     "arg %zd with shape %R.",
                     j, first, k, second);
    }
    Py_XDECREF(first);
    Py_XDECREF(second);
    return -1;
}

static PyObject *
view_ops_broadcast_arrays(PyObject *Py_UNUSED(module), PyObject *args)
{
    int64_t shape[DA_MAXDIMS];
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    Py_ssize_t k;
    const int64_t **shapes = NULL;
    int *ndims = NULL, ndim;
    PyObject *result = NULL, *item;

    shapes = PyMem_Malloc(sizeof(*shapes) * (size_t)(n > 0 ? n : 1));
    ndims = PyMem_Malloc(sizeof(*ndims) * (size_t)(n > 0 ? n : 1));
    if (shapes == NULL || ndims == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    for (k = 0; k < n; k++) {
        const DeviceArrayObject *a = (DeviceArrayObject *)PyTuple_GET_ITEM(args, k);
        if (!DeviceArray_Check(a)) {
            PyErr_Format(PyExc_TypeError,
                         "broadcast_arrays() arguments must be DeviceArrays, "
                         "not %.200s",
                         Py_TYPE(a)->tp_name);
            goto error;
        }
        ndims[k] = a->ndim;
        shapes[k] = DA_SHAPE(a);
    }
    ndim = view_ops_broadcast_shape(n, ndims, shapes, shape);
    if (ndim < 0) {
        goto error;
    }
    /* a tuple: the standard's type since 2025.12, NumPy 2's */
    result = PyTuple_New(n);
    if (result == NULL) {
        goto error;
    }
    for (k = 0; k < n; k++) {
        DeviceArrayObject *a = (DeviceArrayObject *)PyTuple_GET_ITEM(args, k);
        /* as NumPy: an array that already has the shape is returned as is */
        if (a->ndim == ndim &&
            (ndim == 0 ||
             memcmp(DA_SHAPE(a), shape, sizeof(int64_t) * (size_t)ndim) == 0)) {
            Py_INCREF(a);
            item = (PyObject *)a;
        }
        else {
            item = (PyObject *)view_ops_broadcast(a, ndim, shape);
            if (item == NULL) {
                goto error;
            }
        }
        PyTuple_SET_ITEM(result, k, item);
    }
    goto done;

error:
    Py_CLEAR(result);
done:
    PyMem_Free(shapes);
    PyMem_Free(ndims);
    return result;
}

static PyObject *
view_ops_broadcast_shapes(PyObject *Py_UNUSED(module), PyObject *args)
{
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    Py_ssize_t k;
    int64_t(*given)[DA_MAXDIMS] = NULL, shape[DA_MAXDIMS];
    const int64_t **shapes = NULL;
    int *ndims = NULL, ndim, i;
    PyObject *result = NULL;

    given = PyMem_Malloc(sizeof(*given) * (size_t)(n > 0 ? n : 1));
    shapes = PyMem_Malloc(sizeof(*shapes) * (size_t)(n > 0 ? n : 1));
    ndims = PyMem_Malloc(sizeof(*ndims) * (size_t)(n > 0 ? n : 1));
    if (given == NULL || shapes == NULL || ndims == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (k = 0; k < n; k++) {
        ndims[k] = array_parse_shape(PyTuple_GET_ITEM(args, k), given[k]);
        if (ndims[k] < 0) {
            goto done;
        }
        for (i = 0; i < ndims[k]; i++) {
            if (given[k][i] < 0) {
                PyErr_SetString(PyExc_ValueError,
                                "negative dimensions are not allowed");
                goto done;
            }
        }
        shapes[k] = given[k];
    }
    ndim = view_ops_broadcast_shape(n, ndims, shapes, shape);
    if (ndim >= 0) {
        result = array_int64_tuple(ndim, shape);
    }

done:
    PyMem_Free(given);
    PyMem_Free(shapes);
    PyMem_Free(ndims);
    return result;
}

/* ---- axes added, removed, reversed and permuted ------------------------ */

static PyObject *
view_ops_expand_dims(PyObject *Py_UNUSED(module), PyObject *args,
                     PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    int64_t shape[DA_MAXDIMS];
    int axes[DA_MAXDIMS], inserted[DA_MAXDIMS] = {0}, naxes, ndim, i, src = 0;
    DeviceArrayObject *x;
    PyObject *axis = NULL;
    Py_ssize_t requested;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|O:expand_dims", kwlist,
                                     &DeviceArray_Type, &x, &axis)) {
        return NULL;
    }
    requested = axis == NULL || !(PyTuple_Check(axis) || PyList_Check(axis))
                    ? 1
                    : PySequence_Size(axis);
    if (x->ndim + requested > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an array is %d",
                     DA_MAXDIMS);
        return NULL;
    }
    if (axis == NULL) {
        naxes = 1;
        axes[0] = 0;
    }
    else {
        /* axes count in the result, as NumPy's (and the standard's
           [-N-1, N] for one axis) */
        naxes = view_ops_parse_axes(axis, x->ndim + (int)requested, axes);
        if (naxes < 0) {
            return NULL;
        }
    }
    ndim = x->ndim + naxes;
    for (i = 0; i < naxes; i++) {
        inserted[axes[i]] = 1;
    }
    for (i = 0; i < ndim; i++) {
        shape[i] = inserted[i] ? 1 : DA_SHAPE(x)[src++];
    }
    /* a reshape that only adds extent-1 axes never copies; this gives
       NumPy's strides for them */
    return (PyObject *)view_ops_reshape(x, ndim, shape, 0);
}

DeviceArrayObject *
view_ops_squeeze(DeviceArrayObject *x, PyObject *axis)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS];
    int axes[DA_MAXDIMS], drop[DA_MAXDIMS] = {0}, naxes, ndim = 0, i;

    if (axis == Py_None) {
        for (i = 0; i < x->ndim; i++) {
            drop[i] = DA_SHAPE(x)[i] == 1;
        }
    }
    else {
        naxes = view_ops_parse_axes(axis, x->ndim, axes);
        if (naxes < 0) {
            return NULL;
        }
        for (i = 0; i < naxes; i++) {
            if (DA_SHAPE(x)[axes[i]] != 1) {
                PyErr_SetString(PyExc_ValueError,
                                "cannot select an axis to squeeze out which "
                                "has size not equal to one");
                return NULL;
            }
            drop[axes[i]] = 1;
        }
    }
    for (i = 0; i < x->ndim; i++) {
        if (!drop[i]) {
            shape[ndim] = DA_SHAPE(x)[i];
            strides[ndim++] = DA_STRIDES(x)[i];
        }
    }
    return array_view_of(x, ndim, shape, strides, x->data);
}

static PyObject *
view_ops_squeeze_function(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    DeviceArrayObject *x;
    PyObject *axis = Py_None;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|O:squeeze", kwlist,
                                     &DeviceArray_Type, &x, &axis)) {
        return NULL;
    }
    return (PyObject *)view_ops_squeeze(x, axis);
}

static PyObject *
view_ops_flip(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    int64_t strides[DA_MAXDIMS];
    int axes[DA_MAXDIMS], naxes, i;
    DeviceArrayObject *x;
    PyObject *axis = Py_None;
    char *data;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|$O:flip", kwlist,
                                     &DeviceArray_Type, &x, &axis)) {
        return NULL;
    }
    if (axis == Py_None) {
        naxes = x->ndim;
        for (i = 0; i < naxes; i++) {
            axes[i] = i;
        }
    }
    else {
        naxes = view_ops_parse_axes(axis, x->ndim, axes);
        if (naxes < 0) {
            return NULL;
        }
    }
    data = x->data;
    if (x->ndim > 0) {
        memcpy(strides, DA_STRIDES(x), sizeof(int64_t) * (size_t)x->ndim);
    }
    for (i = 0; i < naxes; i++) {
        const int64_t extent = DA_SHAPE(x)[axes[i]];
        /* as x[::-1]: start at the last element (nothing to move when empty) */
        if (extent > 0) {
            data += (extent - 1) * strides[axes[i]];
        }
        strides[axes[i]] = -strides[axes[i]];
    }
    return (PyObject *)array_view_of(x, x->ndim, DA_SHAPE(x), strides, data);
}

DeviceArrayObject *
view_ops_permute(DeviceArrayObject *a, PyObject *axes_obj)
{
    int axes[DA_MAXDIMS], n;
    if (!PyTuple_Check(axes_obj) && !PyList_Check(axes_obj)) {
        PyErr_Format(PyExc_TypeError,
                     "axes must be a tuple of ints, not %.200s",
                     Py_TYPE(axes_obj)->tp_name);
        return NULL;
    }
    if (PySequence_Size(axes_obj) != a->ndim) {
        PyErr_SetString(PyExc_ValueError, "axes don't match array");
        return NULL;
    }
    n = view_ops_parse_axes(axes_obj, a->ndim, axes);
    return n < 0 ? NULL : array_transposed(a, axes);
}

static PyObject *
view_ops_permute_dims(PyObject *Py_UNUSED(module), PyObject *args,
                      PyObject *kwds)
{
    static char *kwlist[] = {"", "axes", NULL};
    DeviceArrayObject *x;
    PyObject *axes = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|O:permute_dims", kwlist,
                                     &DeviceArray_Type, &x, &axes)) {
        return NULL;
    }
    /* axes None reverses them, as numpy.transpose (which maps here) */
    return axes == Py_None ? (PyObject *)array_transposed(x, NULL)
                           : (PyObject *)view_ops_permute(x, axes);
}

static PyObject *
view_ops_moveaxis(PyObject *Py_UNUSED(module), PyObject *args)
{
    int source[DA_MAXDIMS], destination[DA_MAXDIMS], order[DA_MAXDIMS];
    int placed[DA_MAXDIMS], moved[DA_MAXDIMS] = {0}, nsource, ndest, i, rest = 0;
    DeviceArrayObject *x;
    PyObject *source_obj, *dest_obj;

    if (!PyArg_ParseTuple(args, "O!OO:moveaxis", &DeviceArray_Type, &x,
                          &source_obj, &dest_obj)) {
        return NULL;
    }
    nsource = view_ops_parse_axes(source_obj, x->ndim, source);
    if (nsource < 0) {
        return NULL;
    }
    ndest = view_ops_parse_axes(dest_obj, x->ndim, destination);
    if (ndest < 0) {
        return NULL;
    }
    if (nsource != ndest) {
        PyErr_SetString(PyExc_ValueError,
                        "`source` and `destination` arguments must have the "
                        "same number of elements");
        return NULL;
    }
    for (i = 0; i < x->ndim; i++) {
        placed[i] = -1;
    }
    for (i = 0; i < nsource; i++) {
        placed[destination[i]] = source[i];
        moved[source[i]] = 1;
    }
    /* the axes not moved keep their order in the places left */
    for (i = 0; i < x->ndim; i++) {
        if (placed[i] >= 0) {
            order[i] = placed[i];
            continue;
        }
        while (moved[rest]) {
            rest++;
        }
        order[i] = rest++;
    }
    return (PyObject *)array_transposed(x, order);
}

static PyObject *
view_ops_unstack(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", NULL};
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS], extent, k;
    int axis, i, ndim = 0;
    DeviceArrayObject *x;
    PyObject *axis_obj = NULL, *result = NULL, *item;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|$O:unstack", kwlist,
                                     &DeviceArray_Type, &x, &axis_obj)) {
        return NULL;
    }
    if (axis_obj == NULL) {
        if (x->ndim == 0) {
            PyErr_SetString(array_AxisError,
                            "axis 0 is out of bounds for array of dimension 0");
            return NULL;
        }
        axis = 0;
    }
    else if (array_normalize_axis(axis_obj, x->ndim, &axis) < 0) {
        return NULL;
    }
    for (i = 0; i < x->ndim; i++) {
        if (i != axis) {
            shape[ndim] = DA_SHAPE(x)[i];
            strides[ndim++] = DA_STRIDES(x)[i];
        }
    }
    extent = DA_SHAPE(x)[axis];
    result = PyTuple_New((Py_ssize_t)extent);
    if (result == NULL) {
        return NULL;
    }
    for (k = 0; k < extent; k++) {
        item = (PyObject *)array_view_of(
            x, ndim, shape, strides, x->data + k * DA_STRIDES(x)[axis]);
        if (item == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)k, item);
    }
    return result;
}

PyMethodDef view_ops_functions[] = {
    {"broadcast_arrays", view_ops_broadcast_arrays, METH_VARARGS,
     "broadcast_arrays(*arrays)\n--\n\nThe arrays broadcast against each other, "
     "as a tuple: an array already of the common shape as itself, the others "
     "as read-only views with zero strides."},
    {"broadcast_shapes", view_ops_broadcast_shapes, METH_VARARGS,
     "broadcast_shapes(*shapes)\n--\n\nThe shape (a tuple) that the shapes "
     "(tuples of ints, or ints) broadcast to; () for none.  ValueError, as "
     "numpy.broadcast_shapes, naming two that do not broadcast."},
    {"broadcast_to", (PyCFunction)(void (*)(void))view_ops_broadcast_to,
     METH_VARARGS | METH_KEYWORDS,
     "broadcast_to(x, /, shape)\n--\n\nA read-only view of x broadcast to "
     "shape (zero strides where it repeats)."},
    {"expand_dims", (PyCFunction)(void (*)(void))view_ops_expand_dims,
     METH_VARARGS | METH_KEYWORDS,
     "expand_dims(x, /, axis=0)\n--\n\nA view with an extent-1 axis inserted "
     "at axis (an int in [-N-1, N], or as NumPy a tuple of positions in the "
     "result)."},
    {"flip", (PyCFunction)(void (*)(void))view_ops_flip,
     METH_VARARGS | METH_KEYWORDS,
     "flip(x, /, *, axis=None)\n--\n\nA view with the order of elements "
     "reversed along axis (an int, a tuple, or None for every axis)."},
    {"moveaxis", view_ops_moveaxis, METH_VARARGS,
     "moveaxis(x, source, destination, /)\n--\n\nA view with the axes source "
     "(int or tuple) moved to destination; the others keep their order."},
    {"permute_dims", (PyCFunction)(void (*)(void))view_ops_permute_dims,
     METH_VARARGS | METH_KEYWORDS,
     "permute_dims(x, /, axes=None)\n--\n\nA view with the axes permuted: axis i "
     "of the result is axis axes[i] of x (None, as numpy.transpose, reverses "
     "them)."},
    {"reshape", (PyCFunction)(void (*)(void))view_ops_reshape_function,
     METH_VARARGS | METH_KEYWORDS,
     "reshape(x, /, shape, *, copy=None)\n--\n\nx with a new shape (one extent "
     "may be -1): a view whenever strides can express it, else a copy. "
     "copy=True always copies; copy=False raises ValueError where a copy "
     "would be needed."},
    {"squeeze", (PyCFunction)(void (*)(void))view_ops_squeeze_function,
     METH_VARARGS | METH_KEYWORDS,
     "squeeze(x, /, axis)\n--\n\nA view without the extent-1 axes named by "
     "axis (int or tuple; None, as NumPy, removes all); ValueError if one "
     "is not of extent 1."},
    {"unstack", (PyCFunction)(void (*)(void))view_ops_unstack,
     METH_VARARGS | METH_KEYWORDS,
     "unstack(x, /, *, axis=0)\n--\n\nA tuple of views, one per index along "
     "axis."},
    {NULL, NULL, 0, NULL},
};
