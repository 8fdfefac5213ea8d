/*
 * Included first by every C file of devarray._core.
 *
 * The extension is built with -fvisibility=hidden: symbols shared between
 * these files stay inside the shared object, and only PyInit__core (marked
 * by PyMODINIT_FUNC) is exported.
 */
#ifndef DEVARRAY_SRC_COMMON_H_
#define DEVARRAY_SRC_COMMON_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "../../kernels/launch.h"

#endif /* DEVARRAY_SRC_COMMON_H_ */
