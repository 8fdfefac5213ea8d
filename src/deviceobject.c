/*
 * devarray.Device: see deviceobject.h.
 */
#include "deviceobject.h"

#include "backend.h"
#include "device.h"

int
deviceobject_converter_optional(PyObject *obj, void *place)
{
    da_place *p = (da_place *)place;

    if (obj == Py_None) {
        p->backend = -1;
        p->device = 0;
        return 1;
    }
    PyErr_Format(PyExc_TypeError, "device must be None, not %.200s", Py_TYPE(obj)->tp_name);
    return 0;
}

int
deviceobject_default_place(da_place *place)
{
    place->backend = backend_default();
    if (place->backend < 0) {
        return -1;
    }
    place->device = device_current(place->backend);
    return 0;
}

PyObject *
deviceobject_new(int backend, int device)
{
    return PyLong_FromLong(backend == DA_BACKEND_CUDA ? device : -1);
}

int
deviceobject_module_init(PyObject *Py_UNUSED(module))
{
    return 0;
}
