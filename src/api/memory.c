/*
 * devarray.memory_stats and friends: see memory.h.  `device=None` is the
 * place new arrays go to (the default backend, the thread's current
 * device), as for the creation functions.
 */
#include "api/memory.h"

#include "interop/deviceobject.h"
#include "runtime/pool.h"

/* Parse the one argument `device=` (PyArg `format` naming the function) into
   a place, None resolved to where new arrays go. */
static int
memory_parse_place(PyObject *args, PyObject *kwds, const char *format,
                   da_place *place)
{
    static char *kwlist[] = {"device", NULL};
    place->backend = -1;
    place->device = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist,
                                     deviceobject_converter_optional, place)) {
        return -1;
    }
    return deviceobject_resolve_place(place);
}

static PyObject *
memory_stats(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    da_place place;
    pool_usage usage;
    PyObject *limit;

    if (memory_parse_place(args, kwds, "|O&:memory_stats", &place) < 0 ||
        pool_usage_of(place.backend, place.device, &usage) < 0) {
        return NULL;
    }
    limit = usage.limit == UINT64_MAX ? Py_NewRef(Py_None)
                                      : PyLong_FromUnsignedLongLong(usage.limit);
    if (limit == NULL) {
        return NULL;
    }
    return Py_BuildValue("{sKsKsKsN}", "in_use_bytes", (unsigned long long)usage.in_use,
                         "peak_bytes", (unsigned long long)usage.peak, "held_bytes",
                         (unsigned long long)usage.held, "limit_bytes", limit);
}

static PyObject *
memory_reset_peak(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    da_place place;

    if (memory_parse_place(args, kwds, "|O&:reset_peak_memory", &place) < 0) {
        return NULL;
    }
    pool_reset_peak(place.backend, place.device);
    Py_RETURN_NONE;
}

static PyObject *
memory_release(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    da_place place;

    if (memory_parse_place(args, kwds, "|O&:release_memory", &place) < 0 ||
        pool_release(place.backend, place.device) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
memory_set_limit(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "device", NULL};
    PyObject *limit_obj;
    uint64_t limit = UINT64_MAX;
    da_place place = {-1, 0};

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:set_memory_limit", kwlist,
                                     &limit_obj, deviceobject_converter_optional,
                                     &place)) {
        return NULL;
    }
    if (limit_obj != Py_None) {
        int overflow = 0;
        long long value;
        if (!PyLong_Check(limit_obj) || PyBool_Check(limit_obj)) {
            return PyErr_Format(PyExc_TypeError,
                                "set_memory_limit: the limit must be an int "
                                "number of bytes or None, not %.100s",
                                Py_TYPE(limit_obj)->tp_name);
        }
        value = PyLong_AsLongLongAndOverflow(limit_obj, &overflow);
        if (value == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (overflow < 0 || (overflow == 0 && value < 0)) {
            return PyErr_Format(PyExc_ValueError,
                                "set_memory_limit: the limit must be at least "
                                "0 bytes, not %R", limit_obj);
        }
        /* past 2**63 bytes is as good as no limit */
        limit = overflow > 0 ? UINT64_MAX : (uint64_t)value;
    }
    if (deviceobject_resolve_place(&place) < 0) {
        return NULL;
    }
    pool_set_limit(place.backend, place.device, limit);
    Py_RETURN_NONE;
}

static PyMethodDef memory_methods[] = {
    {"memory_stats", (PyCFunction)(void (*)(void))memory_stats,
     METH_VARARGS | METH_KEYWORDS,
     "memory_stats(device=None)\n--\n\n"
     "A dict of the memory devarray allocated on `device` (default: where new "
     "arrays go), in bytes: 'in_use_bytes' (arrays and temporaries alive "
     "now), 'peak_bytes' (the most in use since start or the last "
     "reset_peak_memory), 'held_bytes' (taken from the driver: in use or "
     "cached for reuse; the device's default pool, which other libraries "
     "may share) and 'limit_bytes' (set_memory_limit's, or None)."},
    {"reset_peak_memory", (PyCFunction)(void (*)(void))memory_reset_peak,
     METH_VARARGS | METH_KEYWORDS,
     "reset_peak_memory(device=None)\n--\n\n"
     "Make memory_stats(device)['peak_bytes'] the bytes in use now."},
    {"release_memory", (PyCFunction)(void (*)(void))memory_release,
     METH_VARARGS | METH_KEYWORDS,
     "release_memory(device=None)\n--\n\n"
     "Wait for the device's work, then give the memory it caches but no "
     "array uses back to the driver.  Nothing to do on the host."},
    {"set_memory_limit", (PyCFunction)(void (*)(void))memory_set_limit,
     METH_VARARGS | METH_KEYWORDS,
     "set_memory_limit(limit, /, device=None)\n--\n\n"
     "Refuse, with MemoryError, an allocation that would take the bytes in "
     "use on `device` past `limit` (an int); None removes the limit.  "
     "Arrays already allocated stay."},
    {NULL, NULL, 0, NULL},
};

int
memory_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, memory_methods);
}
