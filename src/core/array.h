/*
 * The DeviceArray type.
 *
 * Ownership:
 *   - An array either owns its memory (`alloc` != NULL, DA_NBYTES bytes:
 *     shape and dtype are fixed for its life; freed with pool_free_array in
 *     dealloc) or borrows it from `base`, a strong reference
 *     to whatever keeps the memory alive: another DeviceArray, a foreign
 *     producer (issue 4) or a capsule.  Never both.
 *   - `data` points at the first element, inside `alloc` or the borrowed
 *     block; for a zero-size array it may be anything and is never read.
 *   - shape and strides live inline after the object (a variable-size
 *     object: ob_size == 2 * ndim), so making an array is one allocation.
 */
#ifndef DEVARRAY_SRC_ARRAY_H_
#define DEVARRAY_SRC_ARRAY_H_

#include "base/common.h"

enum {
    DA_FLAG_READONLY = 1,
};

typedef struct {
    PyObject_VAR_HEAD
    char *data;
    void *alloc;
    PyObject *base;
    PyObject *weakreflist;
    int64_t size;
    int ndim;
    int typenum;
    int backend;
    int device;
    int flags;
    uint64_t birth; /* stream_clock() when `alloc` was allocated */
    int64_t dims[1]; /* shape[0..ndim), then strides[0..ndim) in bytes */
} DeviceArrayObject;

#define DA_SHAPE(a) ((a)->dims)
#define DA_STRIDES(a) ((a)->dims + (a)->ndim)
#define DA_ITEMSIZE(a) da_itemsize((a)->typenum)
#define DA_NBYTES(a) ((a)->size * (int64_t)DA_ITEMSIZE(a))

/* Defined in array.c; its protocol, method and attribute tables are filled
   in by arraytype.c before it is readied. */
extern PyTypeObject DeviceArray_Type;

/* devarray.AxisError: a ValueError and an IndexError, as NumPy's. */
extern PyObject *array_AxisError;

/* The type is not subclassable, so this is exact. */
#define DeviceArray_Check(op) Py_IS_TYPE(op, &DeviceArray_Type)

/* Create devarray.AxisError and add it to the module. */
int array_module_init(PyObject *module);

/* Validate a shape (each >= 0, total bytes fit in int64) and return the
   element count, or -1 with ValueError naming the shape. */
int64_t array_shape_size(int ndim, const int64_t *shape, int itemsize);

/* A new C-contiguous array owning fresh, uninitialised memory. */
DeviceArrayObject *array_new(int backend, int typenum, int ndim,
                             const int64_t *shape);

/* A new array owning fresh, uninitialised memory laid out densely in the
   axis order `order` (order[0] the slowest axis, order[ndim - 1] the
   fastest; a permutation of 0..ndim-1): the identity is C order, the
   reversal F order.  order NULL is array_new. */
DeviceArrayObject *array_new_ordered(int backend, int typenum, int ndim,
                                     const int64_t *shape, const int *order);

/* A new array over memory kept alive by `base` (a new reference is taken);
   strides NULL means C-contiguous. */
DeviceArrayObject *array_new_view(int backend, int device, int typenum,
                                  int ndim, const int64_t *shape,
                                  const int64_t *strides, char *data,
                                  PyObject *base, int flags);

/* A view of a's memory (kept alive through its owner) with another shape,
   strides and first element, and a's dtype and flags. */
DeviceArrayObject *array_view_of(DeviceArrayObject *a, int ndim,
                                 const int64_t *shape, const int64_t *strides,
                                 char *data);

/* The view of a with its axes permuted: axes[i] is the axis of a that
   becomes axis i; NULL reverses them (a.T). */
DeviceArrayObject *array_transposed(DeviceArrayObject *a, const int *axes);

int array_is_c_contiguous(const DeviceArrayObject *a);

/* A tuple of n Python ints (shapes, strides). */
PyObject *array_int64_tuple(int n, const int64_t *values);

/* A shape from an int or a sequence of ints into shape[DA_MAXDIMS]:
   returns ndim, or -1 with TypeError/ValueError/OverflowError. */
int array_parse_shape(PyObject *obj, int64_t *shape);

/* NumPy's axis normalisation: -ndim <= value < ndim, else IndexError (NumPy
   AxisError, a subclass of both IndexError and ValueError) raised here too. */
int array_normalize_axis(PyObject *value, int ndim, int *axis);

/* Each axis of `seq` (a tuple or list) normalised as by
   array_normalize_axis into axes[], in order; a repeated axis raises
   ValueError(`repeated`), NumPy's wording differing by caller, once every
   axis is known to be in range (as NumPy checks).  Returns
   the count, or -1 with an exception. */
int array_normalize_axes(PyObject *seq, int ndim, const char *repeated, int *axes);

/* Whether the memory spans of a and b intersect (never across backends). */
int array_memory_overlap(const DeviceArrayObject *a, const DeviceArrayObject *b);

/* 0 when a and b are on one backend and device (to meet in one kernel),
   else -1 with ValueError naming `func` and both places.  On success their
   device is the active one (array_activate). */
int array_check_same_place(const char *func, const DeviceArrayObject *a,
                           const DeviceArrayObject *b);

/* Make a's device the active one (device.h), so that the result arrays an
   op allocates next and its launches go there: every op calls this (or
   array_check_same_place) on an operand before it allocates.  0, or -1
   with an exception. */
int array_activate(const DeviceArrayObject *a);

#endif /* DEVARRAY_SRC_ARRAY_H_ */
