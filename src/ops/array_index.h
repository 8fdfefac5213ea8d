/*
 * Indexing by arrays (NumPy's advanced indexing): integer arrays, boolean
 * masks and lists in a __getitem__/__setitem__ key, and the gathers that
 * take, take_along_axis and nonzero are made of (see array_index.c).
 */
#ifndef DEVARRAY_SRC_ARRAY_INDEX_H_
#define DEVARRAY_SRC_ARRAY_INDEX_H_

#include "base/common.h"
#include "core/array.h"

/*
 * A resolved advanced index: the result is dense[c] = view[...] where the
 * result's dimensions [bfirst, bfirst + bndim) run over the broadcast shape
 * of the index arrays and the others over the view's dimensions that no
 * index array addresses, in order.  Every reference is owned.
 */
typedef struct {
    DeviceArrayObject *view;            /* self after the basic part of the key */
    int nidx;
    DeviceArrayObject *idx[DA_MAXDIMS]; /* C-contiguous int64 of bshape */
    int axis[DA_MAXDIMS];               /* the view axis idx[k] addresses */
    int self_axis[DA_MAXDIMS];          /* the same axis of the indexed array,
                                           for messages */
    char is_unsigned[DA_MAXDIMS];       /* idx[k] holds uint64 values */
    int bfirst, bndim;
    int64_t bshape[DA_MAXDIMS];
    /* view strides read along the block's dimensions as well as through
       the indices (take_along_axis); all 0 for a key */
    int64_t block_strides[DA_MAXDIMS];
    int ndim;
    int64_t shape[DA_MAXDIMS];
} array_index_plan;

/* Whether key holds an array index (an integer or bool DeviceArray other
   than a 0-d integer one, a list, a Python bool), alone or in a tuple. */
int array_index_is_advanced(PyObject *key);

/* self[key]: a view for a basic key (indexing_subscript), a new array for
   one with array indices; NULL with IndexError/TypeError. */
PyObject *array_index_subscript(DeviceArrayObject *self, PyObject *key);

/* Resolve an advanced key against self into *plan (zeroed first); -1 with
   an exception (the plan then holds nothing). */
int array_index_plan_key(DeviceArrayObject *self, PyObject *key, array_index_plan *plan);

/* Release what a plan holds. */
void array_index_plan_clear(array_index_plan *plan);

/* view[plan] = values, values a C-contiguous array of plan's shape and the
   view's dtype and backend.  Every index is checked (on the device on CUDA)
   before anything is written: -1 with IndexError and the view untouched. */
int array_index_scatter(array_index_plan *plan, DeviceArrayObject *values);

/* A new array of view[plan]; NULL with IndexError for an index out of
   bounds (checked on the device on CUDA). */
DeviceArrayObject *array_index_gather(array_index_plan *plan);

/* Fill plan's index arrays and shapes from view (a new reference is taken)
   and nidx integer arrays idx (any integer dtype, any shapes that
   broadcast together; references taken) on view's axes, the broadcast
   block placed at bfirst (-1: where the first array's axis is). */
int array_index_plan_arrays(array_index_plan *plan, DeviceArrayObject *view, int nidx,
                            DeviceArrayObject *const *idx, const int *axes, int bfirst);

/* nonzero(x): a tuple of x.ndim int64 arrays; ValueError for 0-d x. */
PyObject *array_index_nonzero(DeviceArrayObject *x);

#endif /* DEVARRAY_SRC_ARRAY_INDEX_H_ */
