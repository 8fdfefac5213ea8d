/*
 * devarray.Device: where an array lives, in the array API's sense
 * (x.device, device= arguments, x.to_device(device)).
 *
 * A place is a backend (device.h's DA_BACKEND_*) and a device id: the CUDA
 * device's ordinal, 0 on the host.  A CUDA Device is also a context manager
 * that sets the thread's current device (device.h).  A Device is an immutable value: making
 * one checks only its spelling, so Device('cuda', 0) exists in any build;
 * whether the place can be used is checked where a device= argument is
 * converted (deviceobject_converter_optional).
 *
 * Every function here that can fail returns -1 (or NULL) with an exception
 * set; the converter returns 0 on failure, as PyArg converters do.
 */
#ifndef DEVARRAY_SRC_DEVICEOBJECT_H_
#define DEVARRAY_SRC_DEVICEOBJECT_H_

#include "base/common.h"

typedef struct {
    int backend; /* DA_BACKEND_*, or -1: not given */
    int device;
} da_place;

/* A PyArg "O&" converter for a device= argument into a da_place: None
   leaves backend -1 (the caller decides: the default backend, or the place
   of an input array); a devarray.Device gives its place, and so do the
   strings 'cuda', 'cuda:N', 'host' and 'cpu' (the host), and an int (a CUDA
   ordinal).  A place this process cannot use raises: RuntimeError when the
   CUDA backend is unavailable (with the reason), ValueError for an ordinal
   out of range (naming the count); anything else is a TypeError or ValueError
   naming what was given. */
int deviceobject_converter_optional(PyObject *obj, void *place);

/* The place new arrays get when none was given: the default backend and the
   thread's current device, which it activates (device.h).  0, or -1 with an
   exception. */
int deviceobject_default_place(da_place *place);

/* `place` itself when its backend is given, else the default place (as
   deviceobject_default_place).  0, or -1 with an exception. */
int deviceobject_resolve_place(da_place *place);

/* A new reference to the devarray.Device of a place. */
PyObject *deviceobject_new(int backend, int device);

/* The places this process can use, as a new tuple of Device objects: the
   CUDA devices in order, then the host. */
PyObject *deviceobject_available(void);

/* Add devarray.Device to `module`. */
int deviceobject_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_DEVICEOBJECT_H_ */
