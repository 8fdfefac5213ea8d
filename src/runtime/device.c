/*
 * The process's CUDA device: see device.h.
 *
 * Ownership: this file owns the process-wide CUDA state (the device count,
 * each device's default memory pool, which peers are enabled).  It is
 * global on purpose: a CUDA context belongs to the process, not to an
 * interpreter, so per-module state would only pretend to isolate it.  All
 * of it is touched with the GIL held.  The current and active devices are
 * per thread, as the runtime's own current device is.
 *
 * The active device is cached, and checked: device_activate calls
 * cudaSetDevice only when this thread's last activation named another
 * device or the runtime's current device is no longer that one.  Other
 * libraries in the process (CuPy, PyTorch, JAX, Numba) switch the thread's
 * device without telling devarray (JAX leaves its last device current when
 * it sets up several GPUs), so the cache alone would run devarray's next op
 * with another device's context current; cudaGetDevice is a thread-local
 * read, far cheaper than that failure.
 */
#include "runtime/device.h"

#include "base/cuda_error.h"

/* Every thread starts on device 0 (the runtime's own default): -1 until
   this thread has activated one, so that the first activation sets it. */
static _Thread_local int device_thread_current = 0;
static _Thread_local int device_thread_active = -1;

#ifdef DEVARRAY_HAVE_CUDA

enum { CUDA_UNKNOWN = 0, CUDA_READY, CUDA_ABSENT };
enum { PEER_UNKNOWN = 0, PEER_ENABLED, PEER_UNAVAILABLE };

static int cuda_state = CUDA_UNKNOWN;
static int cuda_count = 0;
/* per ordinal: its default pool once set up (NULL: not yet) */
static cudaMemPool_t cuda_pools[DA_DEVICE_MAX];
/* cuda_peer[to][from]: whether `from` reads `to` directly */
static unsigned char cuda_peer[DA_DEVICE_MAX][DA_DEVICE_MAX];
/* Why CUDA is absent, for messages. */
static char cuda_absent_reason[256];

/* Prepare device `ordinal`'s memory pool, once: it must support
   stream-ordered pools, and its pool keeps freed blocks instead of
   returning them to the driver at every synchronisation (what makes per-op
   allocation cheap). */
static int
cuda_setup(int ordinal)
{
    int pools_supported = 0;
    uint64_t threshold = UINT64_MAX;
    cudaMemPool_t pool = NULL;

    if (cuda_pools[ordinal] != NULL) {
        return 0;
    }
    CUDA_ERROR_CHECK(cudaDeviceGetAttribute(&pools_supported,
                                            cudaDevAttrMemoryPoolsSupported,
                                            ordinal));
    if (!pools_supported) {
        PyErr_Format(PyExc_ValueError,
                     "CUDA device %d cannot be used: it does not support "
                     "stream-ordered memory pools", ordinal);
        return -1;
    }
    CUDA_ERROR_CHECK(cudaDeviceGetDefaultMemPool(&pool, ordinal));
    CUDA_ERROR_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                             &threshold));
    cuda_pools[ordinal] = pool;
    return 0;
error:
    return -1;
}

/* Count the devices and set up device 0, once.  Failure to find one is not
   an error here (it is recorded); a device that fails to set up is. */
static int
cuda_init(void)
{
    cudaError_t err;

    if (cuda_state != CUDA_UNKNOWN) {
        return 0;
    }
    err = cudaGetDeviceCount(&cuda_count);
    if (err != cudaSuccess || cuda_count == 0) {
        (void)cudaGetLastError();
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason, "%s",
                 err != cudaSuccess ? cudaGetErrorString(err)
                                    : "no CUDA device found");
        cuda_count = 0;
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    if (cuda_count > DA_DEVICE_MAX) {
        cuda_count = DA_DEVICE_MAX;
    }
    if (cuda_setup(0) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) {
            return -1;
        }
        PyErr_Clear();
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason,
                 "device 0 does not support stream-ordered memory pools");
        cuda_count = 0;
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    cuda_state = CUDA_READY;
    return 0;
}

cudaError_t
device_synchronize_all(void)
{
    cudaError_t err = cudaSuccess, first = cudaSuccess;
    /* where this thread runs afterwards: its active device, or 0 */
    int i, active = device_thread_active >= 0 ? device_thread_active : 0;

    Py_BEGIN_ALLOW_THREADS
    for (i = 0; i < cuda_count; i++) {
        if (cuda_pools[i] == NULL) {
            continue;
        }
        if (cuda_count > 1) {
            err = cudaSetDevice(i);
        }
        if (err == cudaSuccess) {
            err = cudaDeviceSynchronize();
        }
        if (first == cudaSuccess) {
            first = err;
        }
    }
    if (cuda_count > 1 && (err = cudaSetDevice(active)) != cudaSuccess &&
        first == cudaSuccess) {
        first = err;
    }
    Py_END_ALLOW_THREADS
    if (cuda_count > 1) {
        device_thread_active = err == cudaSuccess ? active : -1;
    }
    return first;
}

cudaMemPool_t
device_cuda_pool(int ordinal)
{
    return cuda_pools[ordinal];
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
    return backend == DA_BACKEND_CUDA ? device_thread_current : 0;
}

int
device_count(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    return device_cuda_available() ? cuda_count : 0;
#else
    return 0;
#endif
}

int
device_check_ordinal(int ordinal)
{
    int count = device_count();

    if (count == 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "CUDA device %d cannot be used: CUDA is not available: %s",
                     ordinal, device_cuda_unavailable_reason());
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        PyErr_Format(PyExc_ValueError,
                     "CUDA device %d does not exist: this process sees %d CUDA "
                     "device%s (ordinals 0 to %d)",
                     ordinal, count, count == 1 ? "" : "s", count - 1);
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    return cuda_setup(ordinal);
#else
    return 0;
#endif
}

int
device_set_current(int ordinal)
{
    int previous = device_thread_current;
    device_thread_current = ordinal;
    return previous;
}

int
device_active(int backend)
{
    if (backend != DA_BACKEND_CUDA || device_thread_active < 0) {
        return 0;
    }
    return device_thread_active;
}

int
device_activate(int backend, int ordinal)
{
#ifdef DEVARRAY_HAVE_CUDA
    int runtime_current = -1;
#endif
    if (backend != DA_BACKEND_CUDA) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    /* the per-op cost: a compare and a thread-local read */
    if (ordinal == device_thread_active &&
        cudaGetDevice(&runtime_current) == cudaSuccess && runtime_current == ordinal) {
        return 0;
    }
    if (device_check_ordinal(ordinal) < 0) {
        return -1;
    }
    CUDA_ERROR_CHECK(cudaSetDevice(ordinal));
    device_thread_active = ordinal;
    return 0;
error:
    return -1;
#else
    return device_check_ordinal(ordinal);
#endif
}

int
device_enter_quiet(int backend, int ordinal)
{
    int previous = device_active(backend);
    PyObject *type, *value, *traceback;

    if (backend == DA_BACKEND_CUDA) {
        PyErr_Fetch(&type, &value, &traceback);
        if (device_activate(backend, ordinal) < 0) {
            PyErr_Clear();
        }
        PyErr_Restore(type, value, traceback);
    }
    return previous;
}

void
device_restore(int backend, int previous)
{
    (void)device_enter_quiet(backend, previous);
}

int
device_peer_enable(int to, int from)
{
#ifdef DEVARRAY_HAVE_CUDA
    int can = 0, previous;
    cudaError_t err;

    if (to == from) {
        return 1;
    }
    if (cuda_peer[to][from] == PEER_UNKNOWN) {
        cuda_peer[to][from] = PEER_UNAVAILABLE;
        if (cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can &&
            cuda_setup(to) == 0) {
            /* Peer access is enabled from the current device, for cudaMalloc
               memory (the small-block slabs).  Memory of a stream-ordered
               pool is not covered by that: `from` reads `to`'s pool only
               once the pool grants it access, and without it
               cudaMemcpyPeer stages through the host (seen on two H200s:
               28 ms for 1 GiB against 2.7 ms peer to peer). */
            struct cudaMemAccessDesc access = {
                .location = {.type = cudaMemLocationTypeDevice, .id = from},
                .flags = cudaMemAccessFlagsProtReadWrite,
            };
            previous = device_enter_quiet(DA_BACKEND_CUDA, from);
            err = cudaDeviceEnablePeerAccess(to, 0);
            if ((err == cudaSuccess || err == cudaErrorPeerAccessAlreadyEnabled) &&
                cudaMemPoolSetAccess(cuda_pools[to], &access, 1) == cudaSuccess) {
                cuda_peer[to][from] = PEER_ENABLED;
            }
            device_restore(DA_BACKEND_CUDA, previous);
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();   /* never raises: the copy goes through the host */
        }
        (void)cudaGetLastError();
    }
    return cuda_peer[to][from] == PEER_ENABLED;
#else
    return to == from;
#endif
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
    CUDA_ERROR_CHECK(cudaGetDeviceProperties(&prop, device_current(DA_BACKEND_CUDA)));
    CUDA_ERROR_CHECK(cudaDriverGetVersion(&driver));
    CUDA_ERROR_CHECK(cudaRuntimeGetVersion(&runtime));
    return Py_BuildValue("{s:i,s:s,s:(ii),s:n,s:i,s:i,s:i}", "device",
                         device_current(DA_BACKEND_CUDA), "name", prop.name, "compute_capability",
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

static PyObject *
device_py_count(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    return PyLong_FromLong(device_count());
}

static PyMethodDef device_methods[] = {
    {"device_count", device_py_count, METH_NOARGS,
     "device_count()\n--\n\nThe number of CUDA devices devarray can use (0 "
     "without CUDA)."},
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
