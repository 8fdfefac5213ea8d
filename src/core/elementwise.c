/*
 * Elementwise machinery: see elementwise.h.
 *
 * Every elementwise launch goes through elementwise_run, which turns arrays
 * into a da_elementwise descriptor: inputs are aligned to the output's
 * trailing dimensions with zero strides where they broadcast, dimensions of
 * extent 1 are dropped and neighbours that are contiguous in every operand
 * are merged, so a contiguous problem of any shape reaches the kernels as
 * one flat dimension and takes their fast path.
 */
#include "core/elementwise.h"

#include "runtime/backend.h"

int
elementwise_broadcast(const DeviceArrayObject *a, const DeviceArrayObject *b,
                      int64_t *out_shape)
{
    int ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
    int i;
    PyObject *shape_a = NULL, *shape_b = NULL;

    for (i = 0; i < ndim; i++) {
        int ia = i - (ndim - a->ndim), ib = i - (ndim - b->ndim);
        int64_t da = ia >= 0 ? DA_SHAPE(a)[ia] : 1;
        int64_t db = ib >= 0 ? DA_SHAPE(b)[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            goto mismatch;
        }
        out_shape[i] = da == 1 ? db : da;
    }
    return ndim;

mismatch:
    shape_a = array_int64_tuple(a->ndim, DA_SHAPE(a));
    shape_b = array_int64_tuple(b->ndim, DA_SHAPE(b));
    if (shape_a != NULL && shape_b != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "operands could not be broadcast together with shapes "
                     "%R and %R",
                     shape_a, shape_b);
    }
    Py_XDECREF(shape_a);
    Py_XDECREF(shape_b);
    return -1;
}

int
elementwise_collapse(int ndim, int64_t *shape, int nops, int64_t *const *strides)
{
    int src, dst = 0, k;

    for (src = 0; src < ndim; src++) {
        if (shape[src] == 1) {
            continue;
        }
        if (dst > 0) {
            int mergeable = 1;
            for (k = 0; k < nops; k++) {
                if (strides[k][dst - 1] != strides[k][src] * shape[src]) {
                    mergeable = 0;
                    break;
                }
            }
            if (mergeable) {
                shape[dst - 1] *= shape[src];
                for (k = 0; k < nops; k++) {
                    strides[k][dst - 1] = strides[k][src];
                }
                continue;
            }
        }
        shape[dst] = shape[src];
        for (k = 0; k < nops; k++) {
            strides[k][dst] = strides[k][src];
        }
        dst++;
    }
    return dst;
}

static int64_t
elementwise_abs(int64_t v)
{
    return v < 0 ? -v : v;
}

void
elementwise_order_dims(int ndim, int64_t *shape, int nops, int64_t *const *strides)
{
    int i, j, k;

    for (i = 1; i < ndim; i++) {
        const int64_t extent = shape[i];
        int64_t moved[4];
        for (k = 0; k < nops; k++) {
            moved[k] = strides[k][i];
        }
        for (j = i; j > 0 && elementwise_abs(strides[0][j - 1]) < elementwise_abs(moved[0]);
             j--) {
            shape[j] = shape[j - 1];
            for (k = 0; k < nops; k++) {
                strides[k][j] = strides[k][j - 1];
            }
        }
        shape[j] = extent;
        for (k = 0; k < nops; k++) {
            strides[k][j] = moved[k];
        }
    }
}

/* elementwise_collapse on e, its dimensions in the output's order first;
   the result has ndim >= 1 (a single element becomes one dimension of 1). */
static void
collapse_dims(da_elementwise *e)
{
    da_operand *ops[3] = {&e->out, &e->in[0], &e->in[1]};
    int64_t *strides[3] = {e->out.strides, e->in[0].strides, e->in[1].strides};
    int nops = 1 + e->nin;
    int dst, k;

    elementwise_order_dims(e->ndim, e->shape, nops, strides);
    dst = elementwise_collapse(e->ndim, e->shape, nops, strides);

    if (dst == 0) {
        /* one element: strides of an extent-1 dimension are free, so give
           each array its itemsize and the kernels see a contiguous problem */
        e->shape[0] = 1;
        for (k = 0; k < nops; k++) {
            ops[k]->strides[0] = ops[k]->data != NULL
                                     ? da_itemsize(ops[k]->typenum)
                                     : 0;
        }
        dst = 1;
    }
    e->ndim = dst;
}

int
elementwise_run(int op, int cls, DeviceArrayObject *out, int nin,
                DeviceArrayObject *const *ins, const da_scalar *scalars)
{
    da_elementwise e;
    int i, k;

    if (out->size == 0) {
        return 0;
    }
    /* the launch runs where the result lives */
    if (array_activate(out) < 0) {
        return -1;
    }
    e.ndim = out->ndim;
    e.nin = nin;
    e.size = out->size;
    memcpy(e.shape, DA_SHAPE(out), sizeof(int64_t) * (size_t)out->ndim);
    e.out.data = out->data;
    e.out.typenum = out->typenum;
    memcpy(e.out.strides, DA_STRIDES(out), sizeof(int64_t) * (size_t)out->ndim);
    for (k = 0; k < nin; k++) {
        da_operand *operand = &e.in[k];
        const DeviceArrayObject *in = ins[k];
        if (in == NULL) {
            operand->data = NULL;
            operand->typenum = out->typenum;
            operand->scalar = scalars[k];
            memset(operand->strides, 0, sizeof(int64_t) * (size_t)out->ndim);
            continue;
        }
        operand->data = in->data;
        operand->typenum = in->typenum;
        for (i = 0; i < out->ndim; i++) {
            int j = i - (out->ndim - in->ndim);
            operand->strides[i] =
                (j >= 0 && DA_SHAPE(in)[j] != 1) ? DA_STRIDES(in)[j] : 0;
        }
    }
    if (nin < 2) {
        e.in[1].data = NULL;
        e.in[1].typenum = out->typenum;
        memset(e.in[1].strides, 0, sizeof(int64_t) * (size_t)out->ndim);
    }
    collapse_dims(&e);
    return backend_elementwise(out->backend, op, cls, &e);
}

/* ---- result layout ------------------------------------------------------- */

/* Stride of `in` (aligned to the trailing axes of an ndim-dimensional
   result) along result axis `axis`, 0 where it does not vote. */
static int64_t
elementwise_voting_stride(const DeviceArrayObject *in, int ndim, int axis)
{
    int j = axis - (ndim - in->ndim);

    if (j < 0 || DA_SHAPE(in)[j] == 1) {
        return 0;
    }
    return elementwise_abs(DA_STRIDES(in)[j]);
}

void
elementwise_iter_order(int ndim, int nin, DeviceArrayObject *const *ins, int *order)
{
    int fast[DA_MAXDIMS]; /* axes, fastest first: a stable insertion sort */
    int i, j, k;

    for (i = 0; i < ndim; i++) {
        fast[i] = ndim - 1 - i;
    }
    for (i = 1; i < ndim; i++) {
        const int axis = fast[i];
        int pos = i;
        for (j = i - 1; j >= 0; j--) {
            int decided = 0, move = 0;
            for (k = 0; k < nin; k++) {
                int64_t s_new, s_old;
                if (ins[k] == NULL) {
                    continue;
                }
                s_new = elementwise_voting_stride(ins[k], ndim, axis);
                s_old = elementwise_voting_stride(ins[k], ndim, fast[j]);
                if (s_new == 0 || s_old == 0) {
                    continue;
                }
                /* any input content with the current order keeps it: on
                   disagreement C order wins */
                if (s_old <= s_new) {
                    move = 0;
                }
                else if (!decided) {
                    move = 1;
                }
                decided = 1;
            }
            if (!decided) {
                continue;
            }
            if (!move) {
                break;
            }
            pos = j;
        }
        for (j = i; j > pos; j--) {
            fast[j] = fast[j - 1];
        }
        fast[pos] = axis;
    }
    for (i = 0; i < ndim; i++) {
        order[i] = fast[ndim - 1 - i];
    }
}

/* Whether a is dense in F order (extent-1 axes free, as NumPy's flag). */
static int
elementwise_is_f_contiguous(const DeviceArrayObject *a)
{
    int64_t expected = DA_ITEMSIZE(a);
    int i;

    if (a->size == 0) {
        return 1;
    }
    for (i = 0; i < a->ndim; i++) {
        if (DA_SHAPE(a)[i] != 1) {
            if (DA_STRIDES(a)[i] != expected) {
                return 0;
            }
            expected *= DA_SHAPE(a)[i];
        }
    }
    return 1;
}

/* NumPy's contiguity flags of a: 1 C, 2 F, 3 both, 0 neither. */
static int
elementwise_contiguity(const DeviceArrayObject *a)
{
    return (array_is_c_contiguous(a) ? 1 : 0) | (elementwise_is_f_contiguous(a) ? 2 : 0);
}

void
elementwise_result_order(int ndim, int nin, DeviceArrayObject *const *ins, int *order)
{
    /* NumPy's ufuncs skip the iterator when no array broadcasts and every
       N-d one has the same contiguity flags (then F only gives F order,
       anything else C), which places extent-1 axes unlike the sort */
    int flags = -1, first = -1, i, k;

    for (k = 0; k < nin; k++) {
        const DeviceArrayObject *in = ins[k];
        if (in == NULL || in->ndim == 0) {
            continue;
        }
        if (first < 0) {
            first = k;
        }
        else if (in->ndim != ins[first]->ndim ||
                 memcmp(DA_SHAPE(in), DA_SHAPE(ins[first]),
                        sizeof(int64_t) * (size_t)in->ndim) != 0) {
            break;
        }
        if (in->ndim > 1) {
            const int f = elementwise_contiguity(in);
            if (f == 0 || (flags >= 0 && f != flags)) {
                break;
            }
            flags = f;
        }
    }
    if (k < nin) {
        elementwise_iter_order(ndim, nin, ins, order);
        return;
    }
    for (i = 0; i < ndim; i++) {
        order[i] = flags == 2 ? ndim - 1 - i : i;
    }
}

DeviceArrayObject *
elementwise_new_result(int backend, int typenum, int ndim, const int64_t *shape,
                       int nin, DeviceArrayObject *const *ins)
{
    int order[DA_MAXDIMS];

    elementwise_result_order(ndim, nin, ins, order);
    return array_new_ordered(backend, typenum, ndim, shape, order);
}

void
elementwise_copy_order(const DeviceArrayObject *a, char letter, int *order)
{
    const int ndim = a->ndim;
    int i, j;

    for (i = 0; i < ndim; i++) {
        order[i] = i;
    }
    if (letter == 'C' || (letter != 'F' && array_is_c_contiguous(a))) {
        return;
    }
    if (letter == 'F' || elementwise_is_f_contiguous(a)) {
        for (i = 0; i < ndim; i++) {
            order[i] = ndim - 1 - i;
        }
        return;
    }
    if (letter == 'A') {
        return;
    }
    /* stable insertion sort by absolute stride, largest first */
    for (i = 1; i < ndim; i++) {
        const int axis = order[i];
        const int64_t s = elementwise_abs(DA_STRIDES(a)[axis]);
        for (j = i; j > 0; j--) {
            if (elementwise_abs(DA_STRIDES(a)[order[j - 1]]) >= s) {
                break;
            }
            order[j] = order[j - 1];
        }
        order[j] = axis;
    }
}

/* ---- casts ---------------------------------------------------------------- */

int
elementwise_cast_class(int from, int to)
{
    if (to == DA_FLOAT16) {
        switch (from) {
            case DA_BOOL:
            case DA_INT8:
            case DA_UINT8:
            case DA_INT16:
            case DA_UINT16:
            case DA_FLOAT16:
            case DA_FLOAT32:
            case DA_COMPLEX64:
                return DA_CLASS_F32; /* exact in float32: one rounding */
            default:
                return DA_CLASS_F64;
        }
    }
    return da_class_of(to);
}

int
elementwise_copy(DeviceArrayObject *dst, DeviceArrayObject *src)
{
    if (dst->typenum == DA_BOOL && src->typenum != DA_BOOL) {
        /* a cast to bool is src != 0 (NaN is true, -0.0 false, as NumPy's
           cast): the comparisons have a vector kernel per input dtype,
           the casts only a kernel per class */
        DeviceArrayObject *const ins[2] = {src, NULL};
        da_scalar zeros[2];
        memset(zeros, 0, sizeof(zeros));
        return elementwise_run(DA_OP_NOT_EQUAL, da_class_of(src->typenum), dst, 2, ins, zeros);
    }
    return elementwise_run(DA_OP_COPY,
                           elementwise_cast_class(src->typenum, dst->typenum),
                           dst, 1, &src, NULL);
}
