/*
 * vecadd: a CUDA extension over devarray's C API (docs/c-api.md walks
 * through this file).
 *
 *   add(a, b)       a + b, a new DeviceArray
 *   scale(x, alpha) x * alpha, a new DeviceArray
 *
 * The arguments are any GPU arrays DevArray_GetView takes (DeviceArray,
 * CuPy, PyTorch, Numba...), C-contiguous, float32 or float64.  Each function
 * takes views of its arguments, allocates the result with DevArray_EmptyOn
 * on their device, launches on the view's stream and releases the views:
 * the launch is asynchronous, ordered on that stream after the producers'
 * work and before whatever devarray does next with the result.
 *
 * Ownership: a view holds a reference to its array until
 * DevArray_ReleaseView; each function releases every view on every path
 * (views start zeroed, and releasing a zeroed view does nothing).  Freeing
 * is stream-ordered, so the inputs may go as soon as the kernel is queued.
 */
#include <cuda_runtime.h>

#include "devarray.h"

namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxGrid = 65535;

template <typename T>
__global__ void
add_kernel(const T *a, const T *b, T *out, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        out[i] = a[i] + b[i];
    }
}

template <typename T>
__global__ void
scale_kernel(const T *x, T alpha, T *out, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        out[i] = x[i] * alpha;
    }
}

unsigned int
grid_for(int64_t n)
{
    int64_t blocks = (n + kBlock - 1) / kBlock;
    return (unsigned int)(blocks < kMaxGrid ? blocks : kMaxGrid);
}

/* The stream a view asks for: NULL means the legacy default stream, named
   explicitly so that building with --default-stream per-thread changes
   nothing. */
cudaStream_t
stream_of(const DevArray_View *view)
{
    return view->stream != NULL ? (cudaStream_t)view->stream : cudaStreamLegacy;
}

/* TypeError unless the view is float32 or float64. */
int
check_float(const char *who, const DevArray_View *view)
{
    PyObject *dtype;
    if (view->dtype == DEVARRAY_FLOAT32 || view->dtype == DEVARRAY_FLOAT64) {
        return 0;
    }
    dtype = PyObject_GetAttrString(view->obj, "dtype");
    if (dtype != NULL) {
        PyErr_Format(PyExc_TypeError, "%s: expected float32 or float64, not %S", who, dtype);
        Py_DECREF(dtype);
    }
    return -1;
}

/* ValueError unless the view is in CUDA memory on `device` (-2: any). */
int
check_device(const char *who, const DevArray_View *view, int device)
{
    if (view->device < 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the array is in host memory (devarray's host backend, or "
                     "a host producer); it needs CUDA device memory", who);
        return -1;
    }
    if (device != -2 && view->device != device) {
        PyErr_Format(PyExc_ValueError, "%s: the arrays are on CUDA devices %d and %d", who,
                     device, view->device);
        return -1;
    }
    return 0;
}

/* Make `device` current for this extension's CUDA runtime (it has its own,
   linked statically, beside devarray's). */
int
use_device(int device)
{
    int current;
    const char *call = "cudaGetDevice";
    cudaError_t err = cudaGetDevice(&current);
    if (err == cudaSuccess && current != device) {
        call = "cudaSetDevice";
        err = cudaSetDevice(device);
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* this runtime's record of it; devarray's is apart */
        DevArray_SetCUDAError(err, call);
        return -1;
    }
    return 0;
}

/* A new DeviceArray shaped like `like` on like's device, and a writable
   view of it; NULL with an exception. */
PyObject *
new_like(const DevArray_View *like, DevArray_View *out_view)
{
    PyObject *out = DevArray_EmptyOn(like->ndim, like->shape, like->dtype, like->device);
    if (out == NULL) {
        return NULL;
    }
    if (DevArray_GetView(out, out_view, DEVARRAY_VIEW_WRITABLE) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* The error of the launch just made, raised; 0 if none. */
int
check_launch(const char *kernel)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        DevArray_SetCUDAError(err, kernel);
        return -1;
    }
    return 0;
}

template <typename T>
void
launch_add(const DevArray_View &a, const DevArray_View &b, const DevArray_View &out)
{
    add_kernel<T><<<grid_for(out.size), kBlock, 0, stream_of(&out)>>>(
        (const T *)a.data, (const T *)b.data, (T *)out.data, out.size);
}

template <typename T>
void
launch_scale(const DevArray_View &x, double alpha, const DevArray_View &out)
{
    scale_kernel<T><<<grid_for(out.size), kBlock, 0, stream_of(&out)>>>(
        (const T *)x.data, (T)alpha, (T *)out.data, out.size);
}

PyObject *
vecadd_add(PyObject *, PyObject *const *args, Py_ssize_t nargs)
{
    const char *who = "vecadd.add";
    DevArray_View a = {}, b = {}, o = {};
    PyObject *out = NULL, *result = NULL;
    int i;

    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s takes 2 arguments (%zd given)", who, nargs);
        return NULL;
    }
    if (DevArray_GetView(args[0], &a, DEVARRAY_VIEW_C_CONTIGUOUS) < 0 ||
        DevArray_GetView(args[1], &b, DEVARRAY_VIEW_C_CONTIGUOUS) < 0 ||
        check_float(who, &a) < 0 || check_float(who, &b) < 0) {
        goto done;
    }
    if (a.dtype != b.dtype) {
        PyErr_Format(PyExc_TypeError, "%s: the arrays must have the same dtype", who);
        goto done;
    }
    if (a.ndim != b.ndim) {
        PyErr_Format(PyExc_ValueError, "%s: the arrays must have the same shape "
                     "(%d and %d dimensions)", who, a.ndim, b.ndim);
        goto done;
    }
    for (i = 0; i < a.ndim; i++) {
        if (a.shape[i] != b.shape[i]) {
            PyErr_Format(PyExc_ValueError, "%s: the arrays must have the same shape "
                         "(dimension %d: %lld and %lld)", who, i, (long long)a.shape[i],
                         (long long)b.shape[i]);
            goto done;
        }
    }
    if (check_device(who, &a, -2) < 0 || check_device(who, &b, a.device) < 0) {
        goto done;
    }
    out = new_like(&a, &o);
    if (out == NULL) {
        goto done;
    }
    if (o.size > 0) {
        if (use_device(o.device) < 0) {
            goto done;
        }
        if (o.dtype == DEVARRAY_FLOAT32) {
            launch_add<float>(a, b, o);
        }
        else {
            launch_add<double>(a, b, o);
        }
        if (check_launch("vecadd add_kernel launch") < 0) {
            goto done;
        }
    }
    result = Py_NewRef(out);
done:
    DevArray_ReleaseView(&a);
    DevArray_ReleaseView(&b);
    DevArray_ReleaseView(&o);
    Py_XDECREF(out);
    return result;
}

PyObject *
vecadd_scale(PyObject *, PyObject *const *args, Py_ssize_t nargs)
{
    const char *who = "vecadd.scale";
    DevArray_View x = {}, o = {};
    PyObject *out = NULL, *result = NULL;
    double alpha;

    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s takes 2 arguments (%zd given)", who, nargs);
        return NULL;
    }
    alpha = PyFloat_AsDouble(args[1]);
    if (alpha == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    if (DevArray_GetView(args[0], &x, DEVARRAY_VIEW_C_CONTIGUOUS) < 0 ||
        check_float(who, &x) < 0 || check_device(who, &x, -2) < 0) {
        goto done;
    }
    out = new_like(&x, &o);
    if (out == NULL) {
        goto done;
    }
    if (o.size > 0) {
        if (use_device(o.device) < 0) {
            goto done;
        }
        if (o.dtype == DEVARRAY_FLOAT32) {
            launch_scale<float>(x, alpha, o);
        }
        else {
            launch_scale<double>(x, alpha, o);
        }
        if (check_launch("vecadd scale_kernel launch") < 0) {
            goto done;
        }
    }
    result = Py_NewRef(out);
done:
    DevArray_ReleaseView(&x);
    DevArray_ReleaseView(&o);
    Py_XDECREF(out);
    return result;
}

PyMethodDef vecadd_methods[] = {
    {"add", (PyCFunction)(void (*)(void))vecadd_add, METH_FASTCALL,
     "add(a, b)\n--\n\na + b for two GPU arrays of one float dtype and shape, "
     "as a new DeviceArray."},
    {"scale", (PyCFunction)(void (*)(void))vecadd_scale, METH_FASTCALL,
     "scale(x, alpha)\n--\n\nx * alpha for a float GPU array x and a number alpha, "
     "as a new DeviceArray."},
    {NULL, NULL, 0, NULL},
};

PyModuleDef vecadd_module = {
    PyModuleDef_HEAD_INIT, "vecadd",
    "Adds and scales GPU arrays with CUDA kernels, through devarray's C API.", -1,
    vecadd_methods, NULL, NULL, NULL, NULL,
};

}  // namespace

PyMODINIT_FUNC
PyInit_vecadd(void)
{
    if (import_devarray() < 0) {
        return NULL;
    }
    return PyModule_Create(&vecadd_module);
}
