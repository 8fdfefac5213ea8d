/*
 * Indexing by arrays (see array_index.h), with NumPy's semantics.
 *
 * A key is resolved in two steps.  Its basic part (integers, slices,
 * Ellipsis, None) makes a view through indexing_subscript, in which every
 * axis an array index addresses is kept whole (a 0-d boolean index becomes
 * a new axis of extent 1).  Its array part becomes int64 index arrays on
 * those view axes: integer arrays as they are, lists through
 * sequence_in_array, each boolean mask through nonzero (one array per
 * dimension it covers), all broadcast together and made C-contiguous.  The
 * broadcast block goes where the array indices were when they (and the
 * integers among them) are adjacent in the key, else first: NumPy's rule.
 * One gather (kernels/gather.cu, src/host/host_gather.c) then reads or writes
 * the elements, checking every index on the device; a word read back says
 * whether one was out of bounds, and the call raises IndexError.
 *
 * x[mask] with a mask shaped like x, the common filter, skips all that: one
 * count of the mask (read back to size the result) and one stream
 * compaction (CUB DeviceSelect::Flagged on CUDA).
 *
 * Ownership: a plan owns its view and its index arrays (array_index_plan_
 * clear releases them); converted items are new references released at
 * each function's one exit; results are new.
 */
#include "ops/array_index.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "core/indexing.h"
#include "interop/sequence_in.h"

/* What one item of a key is. */
enum {
    AI_NONE,
    AI_ELLIPSIS,
    AI_SLICE,
    AI_INT,
    AI_INTS, /* an integer array (1-d or more) */
    AI_MASK, /* a boolean array of any rank */
};

static int
array_index_kind_of_array(const DeviceArrayObject *a)
{
    const char kind = dtype_table[a->typenum].kind;
    if (kind == 'b') {
        return AI_MASK;
    }
    if (kind == 'i' || kind == 'u') {
        return a->ndim == 0 ? AI_INT : AI_INTS;
    }
    return -1;
}

/* The kind of a key item that needs no conversion, or AI_INTS for one
   that is (or may be) an array index needing conversion. */
static int
array_index_kind(PyObject *item)
{
    if (item == Py_None) {
        return AI_NONE;
    }
    if (item == Py_Ellipsis) {
        return AI_ELLIPSIS;
    }
    if (PySlice_Check(item)) {
        return AI_SLICE;
    }
    if (PyBool_Check(item)) {
        return AI_MASK;
    }
    if (DeviceArray_Check(item)) {
        const int kind = array_index_kind_of_array((const DeviceArrayObject *)item);
        return kind < 0 ? AI_INTS : kind;
    }
    if (PyList_Check(item) || PyTuple_Check(item)) {
        return AI_INTS;
    }
    return AI_INT;
}

int
array_index_is_advanced(PyObject *key)
{
    Py_ssize_t i;

    if (!PyTuple_Check(key)) {
        const int kind = array_index_kind(key);
        return kind == AI_INTS || kind == AI_MASK;
    }
    for (i = 0; i < PyTuple_GET_SIZE(key); i++) {
        PyObject *item = PyTuple_GET_ITEM(key, i);
        const int kind = PyTuple_Check(item) ? AI_INTS : array_index_kind(item);
        if (kind == AI_INTS || kind == AI_MASK) {
            return 1;
        }
    }
    return 0;
}

void
array_index_plan_clear(array_index_plan *plan)
{
    int k;

    Py_CLEAR(plan->view);
    for (k = 0; k < plan->nidx; k++) {
        Py_CLEAR(plan->idx[k]);
    }
    plan->nidx = 0;
}

/* An item of an array index as a DeviceArray on self's backend, of an
   integer or bool dtype: a new reference, or NULL with IndexError. */
static DeviceArrayObject *
array_index_convert(DeviceArrayObject *self, PyObject *item)
{
    DeviceArrayObject *a = NULL, *moved = NULL;
    int kind;

    if (DeviceArray_Check(item)) {
        a = (DeviceArrayObject *)item;
        Py_INCREF(a);
    }
    else if ((a = sequence_in_array(item, PyBool_Check(item) ? DA_BOOL : -1,
                                    self->backend)) == NULL) {
        return NULL;
    }
    kind = array_index_kind_of_array(a);
    if (kind < 0 && a->size == 0 && !DeviceArray_Check(item)) {
        /* an empty list is an empty integer index, as in NumPy */
        moved = copy_cast(a, DA_INT64);
    }
    else if (kind < 0) {
        PyErr_SetString(PyExc_IndexError,
                        "arrays used as indices must be of integer (or boolean) type");
    }
    else if (a->backend == self->backend) {
        /* index arrays move between backends, never between CUDA devices */
        if (array_check_same_place("__getitem__", self, a) == 0) {
            return a;
        }
    }
    else {
        moved = (DeviceArrayObject *)copy_to_backend(a, -1, self->backend);
    }
    Py_DECREF(a);
    return moved;
}

/* The broadcast shape of the index arrays into plan->bshape; -1 with
   NumPy's IndexError naming the shapes. */
static int
array_index_broadcast(array_index_plan *plan, int nidx, DeviceArrayObject *const *idx)
{
    int ndim = 0, i, k;

    for (k = 0; k < nidx; k++) {
        ndim = idx[k]->ndim > ndim ? idx[k]->ndim : ndim;
    }
    for (i = 0; i < ndim; i++) {
        plan->bshape[i] = 1;
        for (k = 0; k < nidx; k++) {
            const int j = i - (ndim - idx[k]->ndim);
            const int64_t extent = j >= 0 ? DA_SHAPE(idx[k])[j] : 1;
            if (extent == plan->bshape[i] || extent == 1) {
                continue;
            }
            if (plan->bshape[i] != 1) {
                goto mismatch;
            }
            plan->bshape[i] = extent;
        }
    }
    plan->bndim = ndim;
    return 0;

mismatch: {
    PyObject *text = PyUnicode_FromString("");
    for (k = 0; k < nidx && text != NULL; k++) {
        PyObject *shape = array_int64_tuple(idx[k]->ndim, DA_SHAPE(idx[k]));
        PyObject *joined = shape != NULL ? PyUnicode_FromFormat("%U%R ", text, shape) : NULL;
        Py_XDECREF(shape);
        Py_SETREF(text, joined);
    }
    if (text != NULL) {
        PyErr_Format(PyExc_IndexError,
                     "shape mismatch: indexing arrays could not be broadcast "
                     "together with shapes %U",
                     text);
        Py_DECREF(text);
    }
    return -1;
}
}

/* a broadcast to plan->bshape as a C-contiguous int64 array: a itself
   when it already is one.  A new reference or NULL. */
static DeviceArrayObject *
array_index_expand(const array_index_plan *plan, DeviceArrayObject *a)
{
    int64_t strides[DA_MAXDIMS];
    DeviceArrayObject *view, *dense;
    const int extra = plan->bndim - a->ndim;
    int i;

    for (i = 0; i < plan->bndim; i++) {
        const int j = i - extra;
        strides[i] = j >= 0 && DA_SHAPE(a)[j] == plan->bshape[i] ? DA_STRIDES(a)[j] : 0;
    }
    view = array_view_of(a, plan->bndim, plan->bshape, strides, a->data);
    if (view == NULL) {
        return NULL;
    }
    dense = copy_contiguous_as(view, DA_INT64);
    Py_DECREF(view);
    return dense;
}

int
array_index_plan_arrays(array_index_plan *plan, DeviceArrayObject *view, int nidx,
                        DeviceArrayObject *const *idx, const int *axes, int bfirst)
{
    int k, d, out;

    plan->view = view;
    Py_INCREF(view);
    if (array_index_broadcast(plan, nidx, idx) < 0) {
        return -1;
    }
    if (bfirst < 0) {
        bfirst = axes[0];
    }
    if (view->ndim - nidx + plan->bndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_IndexError, "indexing would give more than %d dimensions",
                     DA_MAXDIMS);
        return -1;
    }
    for (k = 0; k < nidx; k++) {
        plan->is_unsigned[k] = idx[k]->typenum == DA_UINT64;
        plan->idx[k] = array_index_expand(plan, idx[k]);
        if (plan->idx[k] == NULL) {
            return -1;
        }
        plan->nidx = k + 1;
        plan->axis[k] = axes[k];
    }
    plan->bfirst = bfirst;
    /* the view's other axes in order, the block inserted at bfirst */
    out = 0;
    for (d = 0; d < view->ndim; d++) {
        int addressed = 0;
        for (k = 0; k < nidx; k++) {
            addressed |= axes[k] == d;
        }
        if (out == bfirst) {
            memcpy(plan->shape + out, plan->bshape, sizeof(int64_t) * (size_t)plan->bndim);
            out += plan->bndim;
        }
        if (!addressed) {
            plan->shape[out++] = DA_SHAPE(view)[d];
        }
    }
    if (out == bfirst) {
        memcpy(plan->shape + out, plan->bshape, sizeof(int64_t) * (size_t)plan->bndim);
        out += plan->bndim;
    }
    plan->ndim = out;
    return 0;
}

/* The gather descriptor of plan, with dense the result or the values. */
static void
array_index_describe(const array_index_plan *plan, DeviceArrayObject *dense, da_gather *g)
{
    const DeviceArrayObject *view = plan->view;
    int d, k, out = 0;

    memset(g, 0, sizeof(*g));
    g->ndim = plan->ndim;
    g->itemsize = DA_ITEMSIZE(view);
    g->bfirst = plan->bfirst;
    g->bndim = plan->bndim;
    g->nidx = plan->nidx;
    g->size = 1;
    g->bsize = 1;
    g->post = 1;
    for (d = 0; d < plan->ndim; d++) {
        g->shape[d] = plan->shape[d];
        g->size *= plan->shape[d];
        if (d >= plan->bfirst + plan->bndim) {
            g->post *= plan->shape[d];
        }
    }
    for (d = 0; d < plan->bndim; d++) {
        g->bsize *= plan->bshape[d];
        g->src_strides[plan->bfirst + d] = plan->block_strides[d];
    }
    for (d = 0; d < view->ndim; d++) {
        int addressed = 0;
        for (k = 0; k < plan->nidx; k++) {
            addressed |= plan->axis[k] == d;
        }
        if (out == plan->bfirst) {
            out += plan->bndim;
        }
        if (!addressed) {
            g->src_strides[out++] = DA_STRIDES(view)[d];
        }
    }
    for (k = 0; k < plan->nidx; k++) {
        g->idx[k] = (const int64_t *)plan->idx[k]->data;
        g->extent[k] = DA_SHAPE(view)[plan->axis[k]];
        g->axis_stride[k] = DA_STRIDES(view)[plan->axis[k]];
        g->unsigned_mask |= plan->is_unsigned[k] ? 1u << k : 0u;
    }
    g->src = view->data;
    g->dense = dense != NULL ? dense->data : NULL;
}

/* Run g in mode; -1 with IndexError naming the axis of an index out of
   bounds. */
static int
array_index_run(const array_index_plan *plan, int mode, da_gather *g)
{
    int32_t bad = 0;

    if (backend_gather(plan->view->backend, mode, g, &bad) < 0) {
        return -1;
    }
    if (bad > 0 && bad <= plan->nidx) {
        PyErr_Format(PyExc_IndexError,
                     "index out of bounds for axis %d with size %lld",
                     plan->self_axis[bad - 1],
                     (long long)DA_SHAPE(plan->view)[plan->axis[bad - 1]]);
        return -1;
    }
    return 0;
}

DeviceArrayObject *
array_index_gather(array_index_plan *plan)
{
    DeviceArrayObject *out;
    da_gather g;

    out = array_new(plan->view->backend, plan->view->typenum, plan->ndim, plan->shape);
    if (out == NULL) {
        return NULL;
    }
    array_index_describe(plan, out, &g);
    if (g.bsize > 0 && array_index_run(plan, g.size > 0 ? DA_GATHER_READ : DA_GATHER_CHECK,
                                       &g) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

int
array_index_scatter(array_index_plan *plan, DeviceArrayObject *values)
{
    da_gather g;

    array_index_describe(plan, values, &g);
    if (g.bsize == 0) {
        return 0;
    }
    return array_index_run(plan, g.size > 0 ? DA_GATHER_WRITE : DA_GATHER_CHECK, &g);
}

PyObject *
array_index_nonzero(DeviceArrayObject *x)
{
    DeviceArrayObject *flags = NULL;
    PyObject *result = NULL;
    da_nonzero z;
    int64_t count = 0;
    int d;

    if (x->ndim == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "nonzero() of a 0-d array is not allowed; use "
                        "nonzero(reshape(x, (1,))) or x != 0");
        return NULL;
    }
    memset(&z, 0, sizeof(z));
    if ((flags = copy_contiguous_as(x, DA_BOOL)) == NULL) {
        goto error;
    }
    if (x->size > 0 &&
        backend_count_true(x->backend, (const uint8_t *)flags->data, x->size, &count) < 0) {
        goto error;
    }
    if ((result = PyTuple_New(x->ndim)) == NULL) {
        goto error;
    }
    for (d = 0; d < x->ndim; d++) {
        DeviceArrayObject *coords = array_new(x->backend, DA_INT64, 1, &count);
        if (coords == NULL) {
            Py_CLEAR(result);
            goto error;
        }
        PyTuple_SET_ITEM(result, d, (PyObject *)coords);
        z.out[d] = (int64_t *)coords->data;
        z.shape[d] = DA_SHAPE(x)[d];
    }
    z.flags = (const uint8_t *)flags->data;
    z.n = x->size;
    z.count = count;
    z.ndim = x->ndim;
    if (count > 0 && backend_nonzero(x->backend, &z) < 0) {
        Py_CLEAR(result);
    }
error:
    Py_XDECREF(flags);
    return result;
}

/* ---- keys ---------------------------------------------------------------- */

/* A key being resolved: its items, converted, and where each goes. */
typedef struct {
    Py_ssize_t nitems;
    PyObject *items[DA_MAXDIMS * 2 + 2]; /* owned: the converted items */
    int kinds[DA_MAXDIMS * 2 + 2];
} array_index_key;

static void
array_index_key_clear(array_index_key *key)
{
    Py_ssize_t i;
    for (i = 0; i < key->nitems; i++) {
        Py_CLEAR(key->items[i]);
    }
    key->nitems = 0;
}

/* Split and convert: every array index becomes a DeviceArray on self's
   backend (kind AI_INTS or AI_MASK; a 0-d integer one is an AI_INT). */
static int
array_index_key_read(DeviceArrayObject *self, PyObject *obj, array_index_key *key)
{
    const int is_tuple = PyTuple_Check(obj);
    const Py_ssize_t n = is_tuple ? PyTuple_GET_SIZE(obj) : 1;
    Py_ssize_t i;

    if (n > (Py_ssize_t)(sizeof(key->items) / sizeof(key->items[0]))) {
        PyErr_Format(PyExc_IndexError, "too many indices for array: array is "
                                       "%d-dimensional, but %zd were indexed",
                     self->ndim, n);
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = is_tuple ? PyTuple_GET_ITEM(obj, i) : obj;
        int kind = PyTuple_Check(item) ? AI_INTS : array_index_kind(item);
        if (kind == AI_INTS || kind == AI_MASK) {
            DeviceArrayObject *a = array_index_convert(self, item);
            if (a == NULL) {
                return -1;
            }
            kind = array_index_kind_of_array(a);
            key->items[i] = (PyObject *)a;
        }
        else {
            Py_INCREF(item);
            key->items[i] = item;
        }
        key->kinds[i] = kind;
        key->nitems = i + 1;
    }
    return 0;
}

/* The boolean mask m covering self's axes from `first`, checked: each of
   its extents is the axis's or 0 (an empty mask selects nothing from any
   axis, as the standard and NumPy allow). */
static int
array_index_check_mask(const DeviceArrayObject *self, const DeviceArrayObject *m, int first)
{
    int j;
    for (j = 0; j < m->ndim; j++) {
        if (DA_SHAPE(m)[j] != DA_SHAPE(self)[first + j] && DA_SHAPE(m)[j] != 0) {
            PyErr_Format(PyExc_IndexError,
                         "boolean index did not match indexed array along axis %d; "
                         "size of axis is %lld but size of corresponding boolean "
                         "axis is %lld",
                         first + j, (long long)DA_SHAPE(self)[first + j],
                         (long long)DA_SHAPE(m)[j]);
            return -1;
        }
    }
    return 0;
}

/* The index arrays of a mask covering view axes from `axis`: its nonzero
   arrays (a 0-d mask: a length 1 or 0 array of zeros on the new axis). */
static int
array_index_mask_arrays(DeviceArrayObject *m, int axis, int self_axis, int *nidx,
                        DeviceArrayObject **idx, int *axes, int *self_axes)
{
    DeviceArrayObject *flat = NULL;
    PyObject *coords = NULL;
    int64_t one = 1, unit = 0;
    int j, status = -1;

    if (m->ndim == 0) {
        flat = array_view_of(m, 1, &one, &unit, m->data);
    }
    else {
        flat = m;
        Py_INCREF(flat);
    }
    if (flat == NULL || (coords = array_index_nonzero(flat)) == NULL) {
        goto done;
    }
    for (j = 0; j < flat->ndim; j++) {
        idx[*nidx] = (DeviceArrayObject *)PyTuple_GET_ITEM(coords, j);
        Py_INCREF(idx[*nidx]);
        axes[*nidx] = axis + j;
        self_axes[*nidx] = self_axis + (m->ndim == 0 ? 0 : j);
        (*nidx)++;
    }
    status = 0;
done:
    Py_XDECREF(coords);
    Py_XDECREF(flat);
    return status;
}

int
array_index_plan_key(DeviceArrayObject *self, PyObject *obj, array_index_plan *plan)
{
    array_index_key key;
    DeviceArrayObject *idx[DA_MAXDIMS];
    int axes[DA_MAXDIMS], self_axes[DA_MAXDIMS];
    PyObject *basic = NULL, *whole = NULL;
    DeviceArrayObject *view = NULL;
    int nidx = 0, consumed = 0, ellipses = 0, vd = 0, sd = 0, nbasic = 0;
    int first_adv = -1, last_adv = -1, nadv = 0, bfirst = -1, status = -1;
    Py_ssize_t i;

    memset(plan, 0, sizeof(*plan));
    memset(&key, 0, sizeof(key));
    if (array_index_key_read(self, obj, &key) < 0) {
        goto done;
    }
    for (i = 0; i < key.nitems; i++) {
        const int kind = key.kinds[i];
        ellipses += kind == AI_ELLIPSIS;
        consumed += kind == AI_SLICE || kind == AI_INT || kind == AI_INTS;
        consumed += kind == AI_MASK ? ((DeviceArrayObject *)key.items[i])->ndim : 0;
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
        goto done;
    }
    if (consumed > self->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, but %d "
                     "were indexed",
                     self->ndim, consumed);
        goto done;
    }
    if ((basic = PyTuple_New(key.nitems + DA_MAXDIMS)) == NULL ||
        (whole = PySlice_New(NULL, NULL, NULL)) == NULL) {
        goto done;
    }
    /* the basic key (array indices as whole axes) and the axes each array
       index addresses, in the view (vd) and in self (sd) */
    for (i = 0; i < key.nitems; i++) {
        const int kind = key.kinds[i];
        PyObject *item = key.items[i];
        const DeviceArrayObject *a = (const DeviceArrayObject *)item;
        int j;
        if (kind == AI_INT || kind == AI_INTS || kind == AI_MASK) {
            first_adv = first_adv < 0 ? (int)i : first_adv;
            last_adv = (int)i;
            nadv++;
            if (bfirst < 0) {
                bfirst = vd;
            }
        }
        if (kind == AI_MASK && a->ndim > 0 && array_index_check_mask(self, a, sd) < 0) {
            goto done;
        }
        if (kind == AI_INTS || kind == AI_MASK) {
            const int spans = kind == AI_MASK ? a->ndim : 1;
            if (kind == AI_INTS) {
                idx[nidx] = (DeviceArrayObject *)item;
                Py_INCREF(item);
                axes[nidx] = vd;
                self_axes[nidx] = sd;
                nidx++;
            }
            else if (array_index_mask_arrays((DeviceArrayObject *)item, vd, sd, &nidx, idx,
                                             axes, self_axes) < 0) {
                goto done;
            }
            for (j = 0; j < spans; j++) {
                Py_INCREF(whole);
                PyTuple_SET_ITEM(basic, nbasic++, whole);
            }
            if (spans == 0) {
                Py_INCREF(Py_None);
                PyTuple_SET_ITEM(basic, nbasic++, Py_None);
            }
            vd += spans == 0 ? 1 : spans;
            sd += spans;
            continue;
        }
        Py_INCREF(item);
        PyTuple_SET_ITEM(basic, nbasic++, item);
        if (kind == AI_ELLIPSIS) {
            vd += self->ndim - consumed;
            sd += self->ndim - consumed;
        }
        else {
            vd += kind != AI_INT;
            sd += kind != AI_NONE;
        }
    }
    Py_SETREF(basic, PyTuple_GetSlice(basic, 0, nbasic));
    if (basic == NULL ||
        (view = (DeviceArrayObject *)indexing_subscript(self, basic)) == NULL) {
        goto done;
    }
    /* NumPy: the block goes first unless the array indices (integers
       included) are adjacent in the key */
    status = array_index_plan_arrays(plan, view, nidx, idx, axes,
                                     last_adv - first_adv + 1 == nadv ? bfirst : 0);
    memcpy(plan->self_axis, self_axes, sizeof(int) * (size_t)nidx);
done:
    while (nidx > 0) {
        Py_DECREF(idx[--nidx]);
    }
    if (status < 0) {
        array_index_plan_clear(plan);
    }
    Py_XDECREF(view);
    Py_XDECREF(whole);
    Py_XDECREF(basic);
    array_index_key_clear(&key);
    return status;
}

/* x[mask] with mask (bool, on x's backend) of x's shape: a count and one
   compaction.  A mask with an extent of 0 where x's is not (allowed:
   array_index_check_mask) selects nothing, and its flags are not read. */
static PyObject *
array_index_filter(DeviceArrayObject *x, DeviceArrayObject *mask)
{
    DeviceArrayObject *flags = NULL, *src = NULL, *out = NULL;
    int64_t count = 0;

    if (array_index_check_mask(x, mask, 0) < 0 ||
        array_check_same_place("__getitem__", x, mask) < 0 ||
        (flags = copy_contiguous_as(mask, DA_BOOL)) == NULL ||
        (src = copy_contiguous_as(x, x->typenum)) == NULL) {
        goto error;
    }
    if (mask->size > 0 &&
        backend_count_true(x->backend, (const uint8_t *)flags->data, x->size, &count) < 0) {
        goto error;
    }
    if ((out = array_new(x->backend, x->typenum, 1, &count)) == NULL) {
        goto error;
    }
    if (count > 0 && backend_select_flagged(x->backend, src->data, DA_ITEMSIZE(x),
                                            (const uint8_t *)flags->data, x->size,
                                            out->data) < 0) {
        Py_CLEAR(out);
    }
error:
    Py_XDECREF(src);
    Py_XDECREF(flags);
    return (PyObject *)out;
}

PyObject *
array_index_subscript(DeviceArrayObject *self, PyObject *key)
{
    array_index_plan plan;
    PyObject *result;
    PyObject *sole = PyTuple_Check(key) && PyTuple_GET_SIZE(key) == 1
                         ? PyTuple_GET_ITEM(key, 0)
                         : key;

    if (!array_index_is_advanced(key)) {
        return indexing_subscript(self, key);
    }
    if (array_activate(self) < 0) {
        return NULL;
    }
    if (DeviceArray_Check(sole) && self->ndim > 0) {
        DeviceArrayObject *m = (DeviceArrayObject *)sole;
        if (dtype_table[m->typenum].kind == 'b' && m->ndim == self->ndim &&
            m->backend == self->backend) {
            return array_index_filter(self, m);
        }
    }
    if (array_index_plan_key(self, key, &plan) < 0) {
        return NULL;
    }
    result = (PyObject *)array_index_gather(&plan);
    array_index_plan_clear(&plan);
    return result;
}
