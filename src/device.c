/*
 * The process's CUDA device: see device.h.
 *
 * Ownership: this file owns the process-wide CUDA state (the device, its
 * default memory pool).  It is global on purpose: a CUDA context belongs to
 * the process, not to an interpreter, so per-module state would only pretend
 * to isolate it.  All of it is touched with the GIL held.
 */
#include "device.h"

#include "cuda_error.h"

#ifdef DEVARRAY_HAVE_CUDA

enum { CUDA_UNKNOWN = 0, CUDA_READY, CUDA_ABSENT };

static int cuda_state = CUDA_UNKNOWN;
static int cuda_device = 0;
static cudaMemPool_t cuda_pool = NULL;
/* Why CUDA is absent, for messages. */
static char cuda_absent_reason[256];

/* Find a device and prepare its memory pool, once.  Failure to find one is
   not an error here (it is recorded); a device that fails to set up is. */
static int
cuda_init(void)
{
    int count = 0, pools_supported = 0;
    uint64_t threshold = UINT64_MAX;
    cudaError_t err;

    if (cuda_state != CUDA_UNKNOWN) {
        return 0;
    }
    err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason, "%s",
                 err != cudaSuccess ? cudaGetErrorString(err)
                                    : "no CUDA device found");
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    CUDA_ERROR_CHECK(cudaGetDevice(&cuda_device));
    CUDA_ERROR_CHECK(cudaDeviceGetAttribute(&pools_supported,
                                            cudaDevAttrMemoryPoolsSupported,
                                            cuda_device));
    if (!pools_supported) {
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason,
                 "device %d does not support stream-ordered memory pools",
                 cuda_device);
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    CUDA_ERROR_CHECK(cudaDeviceGetDefaultMemPool(&cuda_pool, cuda_device));
    /* Keep freed blocks in the pool instead of returning them to the
       driver at every synchronisation: that is what makes per-op
       allocation cheap. */
    CUDA_ERROR_CHECK(cudaMemPoolSetAttribute(cuda_pool,
                                             cudaMemPoolAttrReleaseThreshold,
                                             &threshold));
    cuda_state = CUDA_READY;
    return 0;
error:
    return -1;
}

cudaMemPool_t
device_cuda_pool(void)
{
    return cuda_pool;
}
#endif /* DEVARRAY_HAVE_CUDA */

int
device_cuda_available(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (cuda_init() < 0) {
        PyErr_Clear();
        return 0;
    }
    return cuda_state == CUDA_READY;
#else
    return 0;
#endif
}

const char *
device_cuda_unavailable_reason(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    return cuda_absent_reason[0] ? cuda_absent_reason
                                 : "the CUDA device failed to initialise";
#else
    return "this devarray build has no CUDA backend (it was built without "
           "nvcc or with DEVARRAY_NO_CUDA=1)";
#endif
}

int
device_current(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return cuda_device;
    }
#else
    (void)backend;
#endif
    return 0;
}

/* ---- module-level functions ---------------------------------------------- */

static PyObject *
device_py_cuda_available(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    return PyBool_FromLong(device_cuda_available());
}

static PyObject *
device_py_info(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    struct cudaDeviceProp prop;
    int driver = 0, runtime = 0;
    if (!device_cuda_available()) {
        Py_RETURN_NONE;
    }
    CUDA_ERROR_CHECK(cudaGetDeviceProperties(&prop, cuda_device));
    CUDA_ERROR_CHECK(cudaDriverGetVersion(&driver));
    CUDA_ERROR_CHECK(cudaRuntimeGetVersion(&runtime));
    return Py_BuildValue("{s:i,s:s,s:(ii),s:n,s:i,s:i,s:i}", "device",
                         cuda_device, "name", prop.name, "compute_capability",
                         prop.major, prop.minor, "total_memory",
                         (Py_ssize_t)prop.totalGlobalMem, "multiprocessors",
                         prop.multiProcessorCount, "driver_version", driver,
                         "runtime_version", runtime);
error:
    return NULL;
#else
    Py_RETURN_NONE;
#endif
}

static PyMethodDef device_methods[] = {
    {"_cuda_available", device_py_cuda_available, METH_NOARGS,
     "Whether a usable CUDA device is present."},
    {"_device_info", device_py_info, METH_NOARGS,
     "A dict describing the CUDA device, or None without one."},
    {NULL, NULL, 0, NULL},
};

int
device_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, device_methods);
}
