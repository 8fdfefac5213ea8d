/*
 * devarray._core: module initialisation (the constructors are creation.c's).
 *
 * Single-phase initialisation with static types, as NumPy does.  Why not
 * PEP 489/630 module state: every arithmetic slot would have to find the
 * state (PyType_GetModuleByDef walks the MRO) on the per-op hot path, and the
 * state would pretend to isolate what cannot be isolated: the CUDA context
 * and its memory pool belong to the process.
 */
#include "base/common.h"

#include "core/array.h"
#include "api/arraytype.h"
#include "runtime/backend.h"
#include "api/capi.h"
#include "api/creation.h"
#include "base/cuda_error.h"
#include "runtime/device.h"
#include "interop/dlpack.h"
#include "interop/deviceobject.h"
#include "ops/dtypefuncs.h"
#include "interop/dtypeobject.h"
#include "interop/hostbuffer.h"
#include "ops/factorize.h"
#include "ops/fft.h"
#include "ops/linalg.h"
#include "ops/random.h"
#include "runtime/cublas.h"
#include "ops/logical_reduce.h"
#include "ops/manipulation.h"
#include "api/namespace.h"
#include "ops/select.h"
#include "ops/sets.h"
#include "ops/sort.h"
#include "ops/statistics.h"
#include "runtime/pool.h"
#include "core/reduce.h"
#include "ops/scan.h"
#include "ops/search.h"
#include "ops/ufunc.h"
#include "ops/take.h"
#include "api/streamobject.h"
#include "api/eventobject.h"
#include "api/graphobject.h"
/* pinned host memory and asynchronous transfers */
#include "interop/pinned.h"
#include "api/fuse.h"
#include "api/memory.h"
#include "runtime/jit.h"

static PyObject *
module_sum(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "axis", "dtype", "keepdims", NULL};
    PyObject *obj, *axis = Py_None, *result;
    DeviceArrayObject *a;
    int typenum = -1, keepdims = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO&p:sum", kwlist, &obj,
                                     &axis, dtypeobject_converter_optional, &typenum,
                                     &keepdims)) {
        return NULL;
    }
    a = creation_as_array(obj);
    if (a == NULL) {
        return NULL;
    }
    result = reduce_sum(a, axis, typenum, keepdims);
    Py_DECREF(a);
    return result;
}

#define KW_METHOD(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef module_methods[] = {
    KW_METHOD("sum", module_sum,
              "sum(a, axis=None, dtype=None, keepdims=False)\n--\n\nSum of "
              "the elements of a over the given axes."),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "devarray._core",
    .m_doc = "The C core of devarray: DeviceArray, dtypes and constructors.",
    .m_size = -1,
    .m_methods = module_methods,
};

/* __all__: every name the module defines that does not start with '_', so
   the package re-exports new functions without a list to keep in step. */
static int
module_add_all(PyObject *module)
{
    PyObject *dict = PyModule_GetDict(module), *names = NULL, *name;
    Py_ssize_t pos = 0;
    int status = -1;

    names = PyList_New(0);
    if (names == NULL) {
        return -1;
    }
    while (PyDict_Next(dict, &pos, &name, NULL)) {
        if (PyUnicode_Check(name) && PyUnicode_READ_CHAR(name, 0) != '_' &&
            PyList_Append(names, name) < 0) {
            goto error;
        }
    }
    if (PyList_Sort(names) < 0) {
        goto error;
    }
    status = PyModule_AddObjectRef(module, "__all__", names);
error:
    Py_DECREF(names);
    return status;
}

PyMODINIT_FUNC
PyInit__core(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    pool_init();
    if (cuda_error_module_init(module) < 0 || device_module_init(module) < 0 ||
        memory_module_init(module) < 0 || backend_module_init(module) < 0 ||
        dtypeobject_module_init(module) < 0 || deviceobject_module_init(module) < 0 ||
        array_module_init(module) < 0 ||
        arraytype_module_init(module) < 0 || hostbuffer_module_init(module) < 0 ||
        dlpack_module_init(module) < 0 || ufunc_module_init(module) < 0 ||
        creation_module_init(module) < 0 ||
        manipulation_module_init(module) < 0 ||
        logical_reduce_module_init(module) < 0 || select_module_init(module) < 0 ||
        capi_module_init(module) < 0 ||
        dtypefuncs_module_init(module) < 0 || namespace_module_init(module) < 0 ||
        scan_module_init(module) < 0 || search_module_init(module) < 0 || fft_module_init(module) < 0 ||
        take_module_init(module) < 0 || random_module_init(module) < 0 ||
        /* linalg */
        linalg_module_init(module) < 0 || cublas_module_init(module) < 0 ||
        factorize_module_init(module) < 0 ||
        /* sort and sets */
        sort_module_init(module) < 0 || sets_module_init(module) < 0 ||
        statistics_module_init(module) < 0 ||
        /* streams, events and graphs */
        streamobject_module_init(module) < 0 || eventobject_module_init(module) < 0 ||
        graphobject_module_init(module) < 0 ||
        /* pinned host memory and asynchronous transfers */
        pinned_module_init(module) < 0 ||
        /* fusion */
        fuse_module_init(module) < 0 || jit_module_init(module) < 0 ||
        module_add_all(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
