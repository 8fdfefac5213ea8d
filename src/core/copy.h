/*
 * Copies and casts of whole arrays (see copy.c).
 */
#ifndef DEVARRAY_SRC_COPY_H_
#define DEVARRAY_SRC_COPY_H_

#include "base/common.h"
#include "core/array.h"

/* A new C-contiguous array with a's values cast to typenum. */
DeviceArrayObject *copy_cast(DeviceArrayObject *a, int typenum);

/* A new array with a's values cast to typenum, laid out by NumPy's order
   letter ('C', 'F', 'A' or 'K': elementwise_copy_order). */
DeviceArrayObject *copy_cast_order(DeviceArrayObject *a, int typenum, char letter);

/* PyArg converter of NumPy's `order` argument into a char ('C', 'F', 'A'
   or 'K', either case accepted; None leaves the char as it was): 1, or 0
   with TypeError/ValueError. */
int copy_order_converter(PyObject *obj, void *letter);

/* A C-contiguous array with a's values cast to typenum: a itself (new
   reference) when it already is one of that dtype. */
DeviceArrayObject *copy_contiguous_as(DeviceArrayObject *a, int typenum);

/* A new 0-d array of dtype typenum on the active device of `backend`,
   holding the one element at `element` (host memory). */
DeviceArrayObject *copy_new_0d(int backend, int typenum, const char *element);

/* A new array on `backend` with a's values cast to typenum (-1: a's dtype),
   copied through host memory when the backends differ. */
PyObject *copy_to_backend(DeviceArrayObject *a, int typenum, int backend);

/* A new array at (backend, device) with a's values cast to typenum (-1:
   a's dtype): copy_to_backend's move, on CUDA to device `device`, from
   another CUDA device by copy_peer (see copy.c). */
PyObject *copy_to_place(DeviceArrayObject *a, int typenum, int backend, int device);

#endif /* DEVARRAY_SRC_COPY_H_ */
