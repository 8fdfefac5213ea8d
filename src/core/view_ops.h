/*
 * The manipulation functions that give views (see view_ops.c), and the
 * shape and axis helpers they share with the DeviceArray methods and with
 * the copying manipulations of manipulation.c.
 */
#ifndef DEVARRAY_SRC_VIEW_OPS_H_
#define DEVARRAY_SRC_VIEW_OPS_H_

#include "base/common.h"
#include "core/array.h"

/* An axis (int) or axes (tuple or list of ints) normalised for `ndim`
   dimensions into axes[DA_MAXDIMS]: returns how many, or -1 with TypeError,
   devarray.AxisError or ValueError (a repeated axis). */
int view_ops_parse_axes(PyObject *obj, int ndim, int *axes);

/* a with a new shape (one extent may be -1): a view when strides can
   express it (NumPy's rule, non-contiguous inputs included), else a
   C-contiguous copy.  copy: 1 always copies, 0 raises ValueError where a
   copy would be needed, -1 copies only then. */
DeviceArrayObject *view_ops_reshape(DeviceArrayObject *a, int ndim,
                                    const int64_t *shape, int copy);

/* a.transpose(axes) / permute_dims(a, axes): `axes` a sequence naming every
   axis once. */
DeviceArrayObject *view_ops_permute(DeviceArrayObject *a, PyObject *axes);

/* a.squeeze(axis) / squeeze(a, axis): a view without the size-1 axes
   named (an int or a tuple), or without all of them for axis None
   (NumPy's); ValueError for a named axis of another size. */
DeviceArrayObject *view_ops_squeeze(DeviceArrayObject *x, PyObject *axis);

/* The module functions broadcast_arrays, broadcast_to, expand_dims, flip,
   moveaxis, permute_dims, reshape, squeeze and unstack. */
extern PyMethodDef view_ops_functions[];

#endif /* DEVARRAY_SRC_VIEW_OPS_H_ */
