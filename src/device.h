/*
 * Where arrays live: the backend identifiers, and the process's CUDA device.
 *
 * An array's memory belongs to one backend, DA_BACKEND_HOST or
 * DA_BACKEND_CUDA (backend.h says what each runs).  The CUDA device is the
 * runtime's current device, looked up on first use; it counts as available
 * only when it supports stream-ordered memory pools, and its default pool is
 * then set to keep freed blocks (pool.c allocates from it).  Without a
 * device, or in a build without CUDA, everything here says so and raises
 * nothing.
 */
#ifndef DEVARRAY_SRC_DEVICE_H_
#define DEVARRAY_SRC_DEVICE_H_

#include "common.h"

enum { DA_BACKEND_HOST = 0, DA_BACKEND_CUDA = 1 };

/* Add _cuda_available() and _device_info() to `module`. */
int device_module_init(PyObject *module);

/* Whether this build has the CUDA backend and a usable device (selecting
   nothing, raising nothing). */
int device_cuda_available(void);

/* The reason CUDA cannot be used, for messages; call after
   device_cuda_available() returned 0. */
const char *device_cuda_unavailable_reason(void);

/* The current device id for new arrays on `backend` (0 on the host). */
int device_current(int backend);

#ifdef DEVARRAY_HAVE_CUDA
/* The CUDA device's default memory pool; call after device_cuda_available()
   returned 1. */
cudaMemPool_t device_cuda_pool(void);
#endif

#endif /* DEVARRAY_SRC_DEVICE_H_ */
