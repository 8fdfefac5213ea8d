/*
 * devarray's C API, for extensions that take GPU arrays from Python.
 *
 * C and C++; needs Python.h (included here) and no CUDA header.  In the
 * module init of every translation unit that calls the API:
 *
 *     if (import_devarray() < 0) { return NULL; }
 *
 * then, in a function taking any GPU array (a DeviceArray, anything with
 * __cuda_array_interface__ or a CUDA __dlpack__, a PyTorch tensor through
 * the DLPack C exchange API):
 *
 *     DevArray_View v;
 *     if (DevArray_GetView(obj, &v, DEVARRAY_VIEW_C_CONTIGUOUS) < 0) {
 *         return NULL;                   (a Python exception is set)
 *     }
 *     my_kernel<<<grid, block, 0, (cudaStream_t)v.stream>>>(v.data, v.size);
 *     DevArray_ReleaseView(&v);
 *
 * docs/c-api.md documents every name, the lifetime and the stream rules.
 */
#ifndef DEVARRAY_H_
#define DEVARRAY_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The C API version this header describes.  DEVARRAY_C_API_VERSION, the
   version an extension needs, defaults to it; import_devarray() refuses a
   devarray that provides less. */
#define DEVARRAY_C_API_CURRENT 2
#ifndef DEVARRAY_C_API_VERSION
#define DEVARRAY_C_API_VERSION DEVARRAY_C_API_CURRENT
#endif

/* Element types (the same numbers as DType.num). */
enum {
    DEVARRAY_BOOL = 0,
    DEVARRAY_INT8,
    DEVARRAY_UINT8,
    DEVARRAY_INT16,
    DEVARRAY_UINT16,
    DEVARRAY_INT32,
    DEVARRAY_UINT32,
    DEVARRAY_INT64,
    DEVARRAY_UINT64,
    DEVARRAY_FLOAT16,
    DEVARRAY_FLOAT32,
    DEVARRAY_FLOAT64,
    DEVARRAY_COMPLEX64,
    DEVARRAY_COMPLEX128,
    DEVARRAY_NTYPES
};

/* Flags of DevArray_GetView: what the caller needs of the array. */
enum {
    DEVARRAY_VIEW_WRITABLE = 1,     /* refuse read-only arrays */
    DEVARRAY_VIEW_C_CONTIGUOUS = 2  /* refuse arrays that are not C-contiguous */
};

#define DEVARRAY_MAXDIMS 32

typedef struct {
    void *data;              /* element 0 */
    int ndim;
    const int64_t *shape;
    const int64_t *strides;  /* bytes, never NULL */
    int dtype;               /* DEVARRAY_BOOL ... DEVARRAY_COMPLEX128 */
    int64_t itemsize, size;
    int device;              /* CUDA ordinal; -1 for host-backend memory */
    void *stream;            /* cudaStream_t on which the caller must work: ordered after the producer */
    int readonly;
    PyObject *obj;           /* kept alive until DevArray_ReleaseView */
    void *_reserved[4];      /* private; zero */
} DevArray_View;

/* The table behind the capsule devarray._core._C_API.  New entries are only
   ever appended; `size` says how much of it this devarray fills. */
typedef struct {
    unsigned int version;    /* DEVARRAY_C_API_CURRENT of the running devarray */
    unsigned int size;       /* sizeof(DevArray_CAPI) of the running devarray */
    int (*GetView)(PyObject *obj, DevArray_View *view, int flags);
    void (*ReleaseView)(DevArray_View *view);
    PyObject *(*Empty)(int ndim, const int64_t *shape, int dtype);
    int (*Check)(PyObject *obj);
    void *(*CurrentStream)(void);
    PyObject *(*Wrap)(void *data, int ndim, const int64_t *shape,
                      const int64_t *strides, int dtype, int device,
                      PyObject *owner, int readonly);
    PyObject *(*SetCUDAError)(int error, const char *call);
    PyTypeObject *DeviceArrayType;
    /* version 2 */
    PyObject *(*EmptyOn)(int ndim, const int64_t *shape, int dtype, int device);
} DevArray_CAPI;

#ifndef DEVARRAY_NO_IMPORT
static const DevArray_CAPI *DevArray_API = NULL;

/* Fill DevArray_API from the running devarray: 0, or -1 with ImportError
   (devarray missing, or older than this header asks). */
static inline int
import_devarray(void)
{
    const DevArray_CAPI *api =
        (const DevArray_CAPI *)PyCapsule_Import("devarray._core._C_API", 0);
    if (api == NULL) {
        return -1;
    }
    if (api->version < DEVARRAY_C_API_VERSION) {
        PyErr_Format(PyExc_ImportError,
                     "module compiled against devarray C API version %d, but "
                     "the installed devarray provides version %u; upgrade "
                     "devarray (or rebuild the module against it)",
                     DEVARRAY_C_API_VERSION, api->version);
        return -1;
    }
    DevArray_API = api;
    return 0;
}

/* A view of any GPU array `obj`: 0, or -1 with TypeError (not an array),
   ValueError (the flags refuse it, or a bad argument) or BufferError. */
#define DevArray_GetView(obj, view, flags) (DevArray_API->GetView((obj), (view), (flags)))
/* Release what GetView took (idempotent; a zeroed view is fine too). */
#define DevArray_ReleaseView(view) (DevArray_API->ReleaseView(view))
/* A new uninitialised C-contiguous DeviceArray on the current backend,
   device and stream; NULL with an exception. */
#define DevArray_Empty(ndim, shape, dtype) (DevArray_API->Empty((ndim), (shape), (dtype)))
/* A new uninitialised C-contiguous DeviceArray on CUDA device `device`
   (DevArray_View.device of an input, so a result lands where its inputs
   live), which becomes the thread's active device; device -1 for host
   memory on the host backend.  NULL with an exception (ValueError for a
   device this process cannot use).  Needs C API version 2. */
#define DevArray_EmptyOn(ndim, shape, dtype, device) \
    (DevArray_API->EmptyOn((ndim), (shape), (dtype), (device)))
/* Whether obj is a DeviceArray (exactly; the type is not subclassable). */
#define DevArray_Check(obj) (DevArray_API->Check(obj))
/* The cudaStream_t devarray works on now (NULL: the legacy default stream). */
#define DevArray_CurrentStream() (DevArray_API->CurrentStream())
/* A DeviceArray over memory that `owner` keeps alive (a new reference to it
   is held); strides in bytes or NULL for C-contiguous; device -1 for host
   memory on the host backend.  NULL with an exception. */
#define DevArray_Wrap(data, ndim, shape, strides, dtype, device, owner, readonly) \
    (DevArray_API->Wrap((data), (ndim), (shape), (strides), (dtype), (device),  \
                        (owner), (readonly)))
/* Raise devarray.CUDAError for a failed CUDA call (error is the
   cudaError_t, call names it); returns NULL. */
#define DevArray_SetCUDAError(error, call) (DevArray_API->SetCUDAError((int)(error), (call)))
#endif /* DEVARRAY_NO_IMPORT */

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_H_ */
