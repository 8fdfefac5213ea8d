/*
 * Buffer-protocol objects in (see buffer_in.h).
 *
 * Ownership:
 *   - A Py_buffer taken from a host object is held for one conversion only
 *     and released on every path; while it is held the exporter cannot
 *     resize, so the GIL may be released around the copies that read it.
 *   - A packed copy of a strided buffer comes from PyMem_Malloc and the
 *     device staging block a strided buffer may be gathered through from
 *     pool_malloc (freed with pool_free, stream-ordered after the
 *     gather); both are freed before the function that took them returns.
 */
#include "interop/buffer_in.h"

#include "runtime/backend.h"
#include "base/dtype.h"
#include "interop/hostcopy.h"
#include "runtime/pool.h"
#include "runtime/transfer.h"
#include "runtime/device.h"

/* Cast the contiguous array `src` into the contiguous array `dst` (same
   shape, other dtype). */
static int
buffer_in_cast_contiguous(DeviceArrayObject *src, DeviceArrayObject *dst)
{
    int64_t n = src->size;
    int64_t dst_stride = DA_ITEMSIZE(dst), src_stride = DA_ITEMSIZE(src);

    if (n == 0) {
        return 0;
    }
    return hostcopy_elementwise(dst->backend, 1, &n, dst->data, dst->typenum,
                                &dst_stride, src->data, src->typenum, &src_stride);
}

/* Whether a strided buffer is better sent whole to the device and gathered
   there than packed on the host: on CUDA the host pack is the slow part (a
   Fortran-ordered array is a transpose, ~0.5 GB/s on one core), while one
   transfer of its byte span plus a strided device copy, which casts too,
   runs at transfer speed.  Worth it when the span is at most twice the data
   (not for sparse slices) and every stride keeps items aligned, as device
   loads need.  *offset is the first byte of the span relative to buf. */
static int
buffer_in_span(const Py_buffer *view, Py_ssize_t *offset, Py_ssize_t *span)
{
    Py_ssize_t low = 0, high = 0, extent;
    int d;

    for (d = 0; d < view->ndim; d++) {
        if (view->shape[d] <= 1) {
            continue;
        }
        if (view->strides[d] % view->itemsize != 0) {
            return 0;
        }
        extent = (view->shape[d] - 1) * view->strides[d];
        if (extent < 0) {
            low += extent;
        }
        else {
            high += extent;
        }
    }
    *offset = low;
    *span = high - low + view->itemsize;
    return *span <= 2 * view->len;
}

/* A new C-contiguous array of `typenum` from a strided buffer (at least one
   item) through its byte span on the device; see buffer_in_span. */
static DeviceArrayObject *
buffer_in_gather(const Py_buffer *view, int src_typenum, int typenum, int backend,
                 Py_ssize_t offset, Py_ssize_t span, const int64_t *shape)
{
    DeviceArrayObject *result;
    int64_t strides[DA_MAXDIMS];
    char *staging;
    int d, status = -1;

    result = array_new(backend, typenum, view->ndim, shape);
    if (result == NULL) {
        return NULL;
    }
    staging = pool_malloc(backend, (size_t)span);
    if (staging == NULL) {
        goto done;
    }
    for (d = 0; d < view->ndim; d++) {
        strides[d] = view->shape[d] > 1 ? view->strides[d] : 0;
    }
    if (transfer_copy(backend, staging, (char *)view->buf + offset, (size_t)span,
                     DA_COPY_H2D) < 0) {
        goto done;
    }
    status = hostcopy_elementwise(backend, view->ndim, shape, result->data, typenum,
                                  DA_STRIDES(result), staging - offset, src_typenum,
                                  strides);
done:
    if (staging != NULL) {
        pool_free(backend, staging, (size_t)span);
    }
    if (status < 0) {
        Py_CLEAR(result);
    }
    return result;
}

DeviceArrayObject *
buffer_in_array(PyObject *obj, int typenum, int backend)
{
    Py_buffer view;
    int have_view = 0, src_typenum, ndim, d;
    int64_t shape[DA_MAXDIMS];
    Py_ssize_t span_offset, span;
    char *packed = NULL;
    const char *src;
    DeviceArrayObject *raw = NULL, *result = NULL;

    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        if (PyErr_ExceptionMatches(PyExc_BufferError)) {
            /* indirect (suboffset) buffers and other exports we cannot read */
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "cannot copy from a '%.200s': its buffer is not a "
                         "strided array (indirect buffers are not supported)",
                         Py_TYPE(obj)->tp_name);
        }
        goto done;
    }
    have_view = 1;
    if (view.suboffsets != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "cannot copy from a '%.200s': indirect buffers are not supported",
                     Py_TYPE(obj)->tp_name);
        goto done;
    }
    if (dtype_from_format(view.format != NULL ? view.format : "B", view.itemsize,
                          &src_typenum) < 0) {
        goto done;
    }
    if (view.ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "the buffer has %d dimensions; devarray supports at most %d",
                     view.ndim, DA_MAXDIMS);
        goto done;
    }
    if (view.shape == NULL && view.ndim != 0) {
        /* a plain run of items */
        ndim = 1;
        shape[0] = view.len / view.itemsize;
    }
    else {
        ndim = view.ndim;
        for (d = 0; d < ndim; d++) {
            shape[d] = view.shape[d];
        }
    }
    raw = array_new(backend, src_typenum, ndim, shape);
    if (raw == NULL) {
        goto done;
    }
    if (DA_NBYTES(raw) != view.len) {
        PyErr_Format(PyExc_ValueError,
                     "inconsistent buffer from '%.200s': %zd bytes for %lld items "
                     "of %zd bytes",
                     Py_TYPE(obj)->tp_name, view.len, (long long)raw->size,
                     view.itemsize);
        goto done;
    }
    if (view.len > 0 && view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C') &&
        backend == DA_BACKEND_CUDA && buffer_in_span(&view, &span_offset, &span)) {
        result = buffer_in_gather(&view, src_typenum,
                                  typenum < 0 ? src_typenum : typenum, backend,
                                  span_offset, span, shape);
        goto done;
    }
    if (view.len > 0) {
        src = view.buf;
        if (view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C')) {
            packed = PyMem_Malloc((size_t)view.len);
            if (packed == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            hostcopy_buffer(&view, packed, 0);
            src = packed;
        }
        if (transfer_copy(backend, raw->data, src, (size_t)view.len, DA_COPY_H2D) < 0) {
            goto done;
        }
    }
    if (typenum < 0 || typenum == src_typenum) {
        result = raw;
        raw = NULL;
    }
    else {
        result = array_new(backend, typenum, ndim, shape);
        if (result == NULL) {
            goto done;
        }
        if (buffer_in_cast_contiguous(raw, result) < 0) {
            Py_CLEAR(result);
            goto done;
        }
    }
done:
    PyMem_Free(packed);
    Py_XDECREF(raw);
    if (have_view) {
        PyBuffer_Release(&view);
    }
    return result;
}
