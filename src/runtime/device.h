/*
 * Where arrays live: the backend identifiers, and the process's CUDA device.
 *
 * An array's memory belongs to one backend, DA_BACKEND_HOST or
 * DA_BACKEND_CUDA (backend.h says what each runs), and on CUDA to one device
 * ordinal.  CUDA counts as available when device 0 supports stream-ordered
 * memory pools; each ordinal is set up on first use (its default pool set to
 * keep freed blocks: pool.c allocates from it).  Without a device, or in a
 * build without CUDA, everything here says so and raises nothing.
 *
 * Two per-thread ordinals (the device rule, docs/design.md):
 *   - the current device: where creation functions put arrays when no
 *     device= is given; 0 unless a devarray.Device is entered (`with`);
 *   - the active device: the one CUDA work of this thread runs on now.  An
 *     op activates its operands' device before it allocates its result
 *     (array_new places on the active device) and launches; a creation
 *     function activates the device it creates on; a free activates the
 *     array's device and restores the previous one.
 * With one device both are always 0 and device_activate is one compare.
 */
#ifndef DEVARRAY_SRC_DEVICE_H_
#define DEVARRAY_SRC_DEVICE_H_

#include "base/common.h"

enum { DA_BACKEND_HOST = 0, DA_BACKEND_CUDA = 1 };

/* devarray uses the first DA_DEVICE_MAX CUDA devices at most. */
#define DA_DEVICE_MAX 64

/* Add _cuda_available(), _device_info(), device_count() and the
   current-device functions to `module`. */
int device_module_init(PyObject *module);

/* Whether this build has the CUDA backend and a usable device (selecting
   nothing, raising nothing). */
int device_cuda_available(void);

/* The reason CUDA cannot be used, for messages; call after
   device_cuda_available() returned 0. */
const char *device_cuda_unavailable_reason(void);

/* The calling thread's current device id for new arrays on `backend` (0 on
   the host). */
int device_current(int backend);

/* The number of CUDA devices (0 without CUDA); never raises. */
int device_count(void);

/* 0 when `ordinal` names a usable CUDA device, else -1 with ValueError
   naming the ordinal and the count (RuntimeError without CUDA). */
int device_check_ordinal(int ordinal);

/* Set the calling thread's current device (an ordinal checked by
   device_check_ordinal) and return the previous one. */
int device_set_current(int ordinal);

/* Make `ordinal` the active device for CUDA work on `backend` (nothing on
   the host): set up on first use, cudaSetDevice only when the thread's
   active device differs.  0, or -1 with an exception. */
int device_activate(int backend, int ordinal);

/* The calling thread's active device (where array_new places CUDA arrays);
   0 on the host. */
int device_active(int backend);

/* device_activate for frees and other paths that cannot raise: returns the
   previously active device, to be given back to device_restore. */
int device_enter_quiet(int backend, int ordinal);
void device_restore(int backend, int previous);

/* Whether `from` can read `to`'s memory directly; enables peer access the
   first time, for cudaMalloc memory and `to`'s stream-ordered pool (never
   raises: 0 means copy through the host). */
int device_peer_enable(int to, int from);

#ifdef DEVARRAY_HAVE_CUDA
/* Wait for all work on every device set up so far (releases the GIL; the
   active device is unchanged).  The first error, or cudaSuccess. */
cudaError_t device_synchronize_all(void);

/* The default memory pool of device `ordinal`, set up (device_activate or
   device_check_ordinal succeeded for it). */
cudaMemPool_t device_cuda_pool(int ordinal);
#endif

#endif /* DEVARRAY_SRC_DEVICE_H_ */
