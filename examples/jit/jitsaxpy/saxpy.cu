/*
 * _saxpy: a * x + y for float32 GPU arrays, built at run time by
 * devarray.build.load() (jitsaxpy/__init__.py calls it).
 *
 * x and y are any C-contiguous float32 GPU arrays of one shape that
 * DevArray_GetView takes; the result is a new DeviceArray, computed on the
 * views' stream.  Views are released on every path.
 */
#include <cuda_runtime.h>

#include "devarray.h"

namespace {

constexpr int kBlock = 256;

__global__ void
saxpy_kernel(float a, const float *x, const float *y, float *out, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        out[i] = a * x[i] + y[i];
    }
}

/* TypeError or ValueError unless the view is float32 in CUDA memory. */
int
check(const DevArray_View *view)
{
    if (view->dtype != DEVARRAY_FLOAT32) {
        PyErr_SetString(PyExc_TypeError, "saxpy: x and y must be float32 arrays");
        return -1;
    }
    if (view->device < 0) {
        PyErr_SetString(PyExc_ValueError, "saxpy: x and y must be in CUDA device memory");
        return -1;
    }
    return 0;
}

PyObject *
saxpy(PyObject *, PyObject *args)
{
    DevArray_View x = {}, y = {}, o = {};
    PyObject *x_obj, *y_obj, *out = NULL, *result = NULL;
    float a;
    int64_t blocks;
    cudaError_t err;

    if (!PyArg_ParseTuple(args, "fOO:saxpy", &a, &x_obj, &y_obj)) {
        return NULL;
    }
    if (DevArray_GetView(x_obj, &x, DEVARRAY_VIEW_C_CONTIGUOUS) < 0 ||
        DevArray_GetView(y_obj, &y, DEVARRAY_VIEW_C_CONTIGUOUS) < 0 || check(&x) < 0 ||
        check(&y) < 0) {
        goto done;
    }
    if (x.ndim != y.ndim || x.device != y.device ||
        memcmp(x.shape, y.shape, sizeof(int64_t) * (size_t)x.ndim) != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "saxpy: x and y must have the same shape, on the same device");
        goto done;
    }
    out = DevArray_EmptyOn(x.ndim, x.shape, DEVARRAY_FLOAT32, x.device);
    if (out == NULL || DevArray_GetView(out, &o, DEVARRAY_VIEW_WRITABLE) < 0) {
        goto done;
    }
    if (o.size > 0) {
        /* this extension's own CUDA runtime must work on the arrays' device */
        err = cudaSetDevice(o.device);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            DevArray_SetCUDAError(err, "cudaSetDevice");
            goto done;
        }
        /* one thread per element, up to 65,535 blocks; then a grid-stride loop */
        blocks = (o.size + kBlock - 1) / kBlock;
        saxpy_kernel<<<(unsigned int)(blocks < 65535 ? blocks : 65535), kBlock, 0,
                       o.stream != NULL ? (cudaStream_t)o.stream : cudaStreamLegacy>>>(
            a, (const float *)x.data, (const float *)y.data, (float *)o.data, o.size);
        err = cudaGetLastError();
        if (err != cudaSuccess) {
            DevArray_SetCUDAError(err, "saxpy_kernel launch");
            goto done;
        }
    }
    result = Py_NewRef(out);
done:
    DevArray_ReleaseView(&x);
    DevArray_ReleaseView(&y);
    DevArray_ReleaseView(&o);
    Py_XDECREF(out);
    return result;
}

PyMethodDef saxpy_methods[] = {
    {"saxpy", saxpy, METH_VARARGS,
     "saxpy(a, x, y)\n--\n\na * x + y for float32 GPU arrays x and y, as a new DeviceArray."},
    {NULL, NULL, 0, NULL},
};

PyModuleDef saxpy_module = {
    PyModuleDef_HEAD_INIT, "_saxpy", NULL, -1, saxpy_methods, NULL, NULL, NULL, NULL,
};

}  // namespace

PyMODINIT_FUNC
PyInit__saxpy(void)
{
    if (import_devarray() < 0) {
        return NULL;
    }
    return PyModule_Create(&saxpy_module);
}
