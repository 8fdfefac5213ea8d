/*
 * devarray.Device: where an array lives, in the array API's sense
 * (x.device, device= arguments, x.to_device(device)).
 *
 * A place is a backend (device.h's DA_BACKEND_*) and a device id.  Every
 * function here that can fail returns -1 (or NULL) with an exception set.
 */
#ifndef DEVARRAY_SRC_DEVICEOBJECT_H_
#define DEVARRAY_SRC_DEVICEOBJECT_H_

#include "common.h"

typedef struct {
    int backend; /* DA_BACKEND_*, or -1: not given */
    int device;
} da_place;

/* A PyArg "O&" converter for a device= argument into a da_place: None
   leaves backend -1 (the caller decides: the default backend, or the place
   of an input array); a devarray.Device gives its place. */
int deviceobject_converter_optional(PyObject *obj, void *place);

/* The place new arrays get when none was given: the default backend and its
   current device.  0, or -1 with an exception. */
int deviceobject_default_place(da_place *place);

/* A new reference to the devarray.Device of a place. */
PyObject *deviceobject_new(int backend, int device);

/* Add devarray.Device to `module`. */
int deviceobject_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_DEVICEOBJECT_H_ */
