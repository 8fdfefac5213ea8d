/*
 * The element copies the conversions in and out share: a strided copy or
 * cast in backend memory, an array's elements to host memory in C order,
 * and strided host buffers to and from C-contiguous blocks.
 */
#ifndef DEVARRAY_SRC_HOSTCOPY_H_
#define DEVARRAY_SRC_HOSTCOPY_H_

#include "base/common.h"
#include "core/array.h"

/* One elementwise DA_OP_COPY over `ndim` dimensions of `shape`: a strided
   copy when the dtypes agree, a cast when they differ.  size must be > 0. */
int hostcopy_elementwise(int backend, int ndim, const int64_t *shape, char *dst,
                         int dst_typenum, const int64_t *dst_strides, char *src,
                         int src_typenum, const int64_t *src_strides);

/* Copy a's elements, in C order, into `dst` (host memory of DA_NBYTES(a)
   bytes); strided arrays are made contiguous on their backend first. */
int hostcopy_to_host(DeviceArrayObject *a, void *dst);

/* A new PyMem block (at least one byte) holding a's elements in C order. */
char *hostcopy_new(DeviceArrayObject *a);

/* Copy, in C order, between the items of a strided (possibly negatively
   strided) buffer and a C-contiguous block: into_view = 0 packs the view
   into `contig`, 1 unpacks `contig` into the view.  The view holds at least
   one item and has strides. */
void hostcopy_buffer(const Py_buffer *view, char *contig, int into_view);

#endif /* DEVARRAY_SRC_HOSTCOPY_H_ */
