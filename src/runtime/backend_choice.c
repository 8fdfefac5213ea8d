/*
 * Backends: which one new arrays get (backend_default, backend_name), and
 * the Python functions backend(), set_backend() and synchronize(); see
 * backend.h.  Running ops on a backend is backend.c's.
 *
 * Ownership: this file owns the choice of default backend, global for the
 * reason the CUDA state is (device.c), and touched with the GIL held.
 */
#include "runtime/backend.h"

#include "runtime/device.h"

#include <stdlib.h>
#include <string.h>

/* -1: not chosen yet */
static int default_backend = -1;

/* Make `name` ("host" or "cuda") the backend of new arrays. */
static int
backend_select(const char *name, const char *origin)
{
    if (strcmp(name, "host") == 0) {
        default_backend = DA_BACKEND_HOST;
        return 0;
    }
    if (strcmp(name, "cuda") == 0) {
        if (!device_cuda_available()) {
            PyErr_Format(PyExc_RuntimeError,
                         "%s asks for the CUDA backend, but CUDA is not "
                         "available: %s",
                         origin, device_cuda_unavailable_reason());
            return -1;
        }
        default_backend = DA_BACKEND_CUDA;
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "%s must be 'host' or 'cuda', got '%s'", origin, name);
    return -1;
}

int
backend_default(void)
{
    const char *env;

    if (default_backend >= 0) {
        return default_backend;
    }
    env = getenv("DEVARRAY_BACKEND");
    if (env != NULL && env[0] != '\0') {
        return backend_select(env, "DEVARRAY_BACKEND") < 0 ? -1
                                                           : default_backend;
    }
    if (device_cuda_available()) {
        default_backend = DA_BACKEND_CUDA;
        return default_backend;
    }
    if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                         "devarray: no usable CUDA device (%s); using the "
                         "host backend. Set DEVARRAY_BACKEND=host to choose "
                         "it explicitly.",
                         device_cuda_unavailable_reason()) < 0) {
        return -1;
    }
    default_backend = DA_BACKEND_HOST;
    return default_backend;
}

const char *
backend_name(int backend)
{
    return backend == DA_BACKEND_CUDA ? "cuda" : "host";
}

/* ---- module-level functions ---------------------------------------------- */

static PyObject *
backend_py_backend(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    int backend = backend_default();
    if (backend < 0) {
        return NULL;
    }
    return PyUnicode_FromString(backend_name(backend));
}

static PyObject *
backend_py_set_backend(PyObject *Py_UNUSED(module), PyObject *name)
{
    const char *text;
    Py_ssize_t len;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError,
                     "set_backend() takes 'host' or 'cuda', not %.200s",
                     Py_TYPE(name)->tp_name);
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(name, &len);
    if (text != NULL && (size_t)len != strlen(text)) {
        PyErr_SetString(PyExc_ValueError,
                        "set_backend() must be 'host' or 'cuda' (embedded null character)");
        return NULL;
    }
    if (text == NULL || backend_select(text, "set_backend()") < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
backend_py_synchronize(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    if (device_cuda_available() && backend_synchronize(DA_BACKEND_CUDA) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef backend_methods[] = {
    {"backend", backend_py_backend, METH_NOARGS,
     "backend()\n--\n\nThe backend new arrays are made on: 'cuda' or 'host'."},
    {"set_backend", backend_py_set_backend, METH_O,
     "set_backend(name)\n--\n\nMake 'host' or 'cuda' the backend of new "
     "arrays.  Existing arrays keep theirs."},
    {"synchronize", backend_py_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait until all work queued on every stream of "
     "every device devarray has used has finished."},
    {NULL, NULL, 0, NULL},
};

int
backend_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, backend_methods);
}
