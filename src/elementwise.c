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
#include "elementwise.h"

#include "backend.h"

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

/* elementwise_collapse on e; the result has ndim >= 1 (a single element
   becomes one dimension of 1). */
static void
collapse_dims(da_elementwise *e)
{
    da_operand *ops[3] = {&e->out, &e->in[0], &e->in[1]};
    int64_t *strides[3] = {e->out.strides, e->in[0].strides, e->in[1].strides};
    int nops = 1 + e->nin;
    int dst = elementwise_collapse(e->ndim, e->shape, nops, strides);
    int k;

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
    return elementwise_run(DA_OP_COPY,
                           elementwise_cast_class(src->typenum, dst->typenum),
                           dst, 1, &src, NULL);
}
