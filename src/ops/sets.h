/*
 * devarray.unique_all, unique_counts, unique_inverse, unique_values and
 * their result types, and isin (see sets.c).
 */
#ifndef DEVARRAY_SRC_SETS_H_
#define DEVARRAY_SRC_SETS_H_

#include "base/common.h"
#include "core/array.h"

/* Add the unique_* functions, isin and UniqueAllResult, UniqueCountsResult,
   UniqueInverseResult to `module`. */
int sets_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_SETS_H_ */
