/*
 * The Python DType type and its 14 singletons (devarray.bool, ...,
 * complex128), over dtype.h's table.  The object struct and the type stay
 * private to dtypeobject.c: other files name dtypes by typenum and ask here
 * for the Python object.
 */
#ifndef DEVARRAY_SRC_DTYPEOBJECT_H_
#define DEVARRAY_SRC_DTYPEOBJECT_H_

#include "base/common.h"

/* Create the 14 DType singletons and add them (bool, int8, ..., complex128)
   and the type DType to `module`, with the private functions _result_type,
   _result_type_weak, _can_cast_same_kind and _dtype_from_format (for the
   tests).  0 on success, -1 with an exception. */
int dtypeobject_module_init(PyObject *module);

/* Borrowed reference to the singleton for typenum (valid after init). */
PyObject *dtypeobject_singleton(int typenum);

/* Convert a dtype-like object to a typenum: a DType, or anything
   dtype_parse_object accepts.  Returns 0, or -1 with TypeError saying what
   was given.  None is not accepted here; callers handle their own default. */
int dtypeobject_from_object(PyObject *obj, int *typenum);

/* PyArg "O&" converter over dtypeobject_from_object; None gives -1 ("no
   dtype"). */
int dtypeobject_converter_optional(PyObject *obj, void *typenum_ptr);

#endif /* DEVARRAY_SRC_DTYPEOBJECT_H_ */
