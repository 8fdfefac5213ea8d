/*
 * The element copies the conversions share (see hostcopy.h).
 *
 * Ownership:
 *   - hostcopy_new's block comes from PyMem_Malloc and belongs to the
 *     caller, who frees it with PyMem_Free.
 *   - The contiguous copy hostcopy_to_host may make of a strided array is a
 *     temporary array on the same backend, released before it returns.
 *
 * Casts between dtypes run through the elementwise DA_OP_COPY in the
 * *source* dtype's compute class: every dtype loads exactly into its own
 * class, so the only rounding is the store's single conversion to the
 * target (float16 included), which is NumPy's astype.
 */
#include "interop/hostcopy.h"

#include <string.h>

#include "runtime/backend.h"
#include "core/copy.h"
#include "runtime/transfer.h"

/* ---- copies through the backend ------------------------------------------ */

int
hostcopy_elementwise(int backend, int ndim, const int64_t *shape, char *dst,
                     int dst_typenum, const int64_t *dst_strides, char *src,
                     int src_typenum, const int64_t *src_strides)
{
    da_elementwise e;
    int d;

    memset(&e, 0, sizeof e);
    e.nin = 1;
    e.size = 1;
    e.out.data = dst;
    e.out.typenum = dst_typenum;
    e.in[0].data = src;
    e.in[0].typenum = src_typenum;
    if (ndim == 0) {
        /* a single element: run it as one contiguous element */
        e.ndim = 1;
        e.shape[0] = 1;
        e.out.strides[0] = da_itemsize(dst_typenum);
        e.in[0].strides[0] = da_itemsize(src_typenum);
    }
    else {
        e.ndim = ndim;
        for (d = 0; d < ndim; d++) {
            e.shape[d] = shape[d];
            e.size *= shape[d];
            e.out.strides[d] = dst_strides[d];
            e.in[0].strides[d] = src_strides[d];
        }
    }
    return backend_elementwise(backend, DA_OP_COPY, da_class_of(src_typenum), &e);
}

int
hostcopy_to_host(DeviceArrayObject *a, void *dst)
{
    DeviceArrayObject *contiguous = NULL;
    int status = -1;

    /* read on a's device, after its work there */
    if (a->size == 0 || array_activate(a) < 0) {
        return a->size == 0 ? 0 : -1;
    }
    contiguous = copy_contiguous_as(a, a->typenum);
    if (contiguous == NULL) {
        goto done;
    }
    status = transfer_copy(contiguous->backend, dst, contiguous->data,
                          (size_t)DA_NBYTES(contiguous), DA_COPY_D2H);
done:
    Py_XDECREF(contiguous);
    return status;
}

char *
hostcopy_new(DeviceArrayObject *a)
{
    int64_t nbytes = DA_NBYTES(a);
    char *host = PyMem_Malloc(nbytes > 0 ? (size_t)nbytes : 1);

    if (host == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (hostcopy_to_host(a, host) < 0) {
        PyMem_Free(host);
        return NULL;
    }
    return host;
}

/* ---- strided host buffers ---------------------------------------------- */

/* Copy n items of `itemsize` bytes between two strided runs; the switch
   gives the compiler fixed-size moves for the common item sizes. */
static void
hostcopy_run(char *dst, Py_ssize_t dst_step, const char *src, Py_ssize_t src_step,
             Py_ssize_t n, Py_ssize_t itemsize)
{
    Py_ssize_t i;

#define HOSTCOPY_RUN(size)                                      \
    for (i = 0; i < n; i++) {                                   \
        memcpy(dst + i * dst_step, src + i * src_step, (size)); \
    }                                                           \
    break

    switch (itemsize) {
        case 1:
            HOSTCOPY_RUN(1);
        case 2:
            HOSTCOPY_RUN(2);
        case 4:
            HOSTCOPY_RUN(4);
        case 8:
            HOSTCOPY_RUN(8);
        case 16:
            HOSTCOPY_RUN(16);
        default:
            HOSTCOPY_RUN((size_t)itemsize);
    }
#undef HOSTCOPY_RUN
}

void
hostcopy_buffer(const Py_buffer *view, char *contig, int into_view)
{
    Py_ssize_t index[PyBUF_MAX_NDIM];
    Py_ssize_t itemsize = view->itemsize;
    Py_ssize_t inner, inner_stride, offset = 0;
    int ndim = view->ndim, d;

    if (ndim == 0) {
        if (into_view) {
            memcpy(view->buf, contig, (size_t)itemsize);
        }
        else {
            memcpy(contig, view->buf, (size_t)itemsize);
        }
        return;
    }
    inner = view->shape[ndim - 1];
    inner_stride = view->strides[ndim - 1];
    memset(index, 0, sizeof index);
    for (;;) {
        char *run = (char *)view->buf + offset;
        if (into_view) {
            hostcopy_run(run, inner_stride, contig, itemsize, inner, itemsize);
        }
        else {
            hostcopy_run(contig, itemsize, run, inner_stride, inner, itemsize);
        }
        contig += inner * itemsize;
        /* advance the index over the outer dimensions, last fastest */
        for (d = ndim - 2; d >= 0; d--) {
            index[d]++;
            offset += view->strides[d];
            if (index[d] < view->shape[d]) {
                break;
            }
            offset -= view->strides[d] * view->shape[d];
            index[d] = 0;
        }
        if (d < 0) {
            break;
        }
    }
}
