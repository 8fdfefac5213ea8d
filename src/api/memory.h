/*
 * Memory a user can see and bound, per place (a CUDA device or the host):
 * devarray.memory_stats, reset_peak_memory, release_memory and
 * set_memory_limit, over pool.c's counts.
 */
#ifndef DEVARRAY_SRC_MEMORY_H_
#define DEVARRAY_SRC_MEMORY_H_

#include "base/common.h"

/* Add the functions above to `module`.  0, or -1 with an exception. */
int memory_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_MEMORY_H_ */
