/*
 * The array API's data type functions: astype, can_cast, finfo, iinfo,
 * isdtype and result_type (devarray.<name>), over dtype.c's tables.
 */
#ifndef DEVARRAY_SRC_DTYPEFUNCS_H_
#define DEVARRAY_SRC_DTYPEFUNCS_H_

#include "base/common.h"

/* The dtypes (one bit per typenum) of an isdtype-style kind: one of the
   names 'bool', 'signed integer', 'unsigned integer', 'integral', 'real
   floating', 'complex floating', 'numeric', a DType when `dtypes_allowed`,
   or a tuple of these.  0, or -1 with ValueError for an unknown name and
   TypeError for anything else; `what` names the argument in messages. */
int dtypefuncs_kind_mask(PyObject *kind, int dtypes_allowed, const char *what,
                         uint32_t *mask);

/* Add astype, can_cast, finfo, iinfo, isdtype and result_type to `module`.
   0, or -1 with an exception. */
int dtypefuncs_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_DTYPEFUNCS_H_ */
