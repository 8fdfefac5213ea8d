/*
 * devarray.CUDAError: see cuda_error.h.
 *
 * Ownership: the exception type is created once, at module init, and this
 * file's reference to it is kept for the life of the process (the module
 * holds another).
 */
#include "base/cuda_error.h"

static PyObject *cuda_error_type = NULL;

#ifdef DEVARRAY_HAVE_CUDA
/* Errors after which the context cannot run anything again. */
static int
cuda_error_is_sticky(cudaError_t err)
{
    switch (err) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
            return 1;
        default:
            return 0;
    }
}

int
cuda_error_raise(cudaError_t err, const char *call)
{
    int sticky = cuda_error_is_sticky(err);
    /* Clear a non-sticky error so it does not resurface in the next check;
       a sticky one cannot be cleared. */
    (void)cudaGetLastError();
    PyErr_Format(cuda_error_type, "%s failed: %s: %s%s", call,
                 cudaGetErrorName(err), cudaGetErrorString(err),
                 sticky ? " (the CUDA context is no longer usable; restart the "
                          "process)"
                        : "");
    return -1;
}
#endif /* DEVARRAY_HAVE_CUDA */

int
cuda_error_set(int code, const char *call)
{
#ifdef DEVARRAY_HAVE_CUDA
    return cuda_error_raise((cudaError_t)code, call);
#else
    PyErr_Format(cuda_error_type, "%s failed: CUDA error %d", call, code);
    return -1;
#endif
}

int
cuda_error_message(const char *message)
{
    PyErr_SetString(cuda_error_type, message);
    return -1;
}

int
cuda_error_module_init(PyObject *module)
{
    cuda_error_type = PyErr_NewExceptionWithDoc(
        "devarray.CUDAError",
        "A CUDA call failed; the message names the call, the CUDA error and "
        "whether the context is still usable.",
        PyExc_RuntimeError, NULL);
    if (cuda_error_type == NULL) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "CUDAError", cuda_error_type);
}
