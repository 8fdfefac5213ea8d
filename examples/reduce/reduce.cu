/*
 * reduce: sum(x), a warp-shuffle reduction over devarray's C API.
 *
 * x is any GPU array DevArray_GetView takes, float32 or float64, of any
 * layout: C-contiguous arrays are read as a flat vector, others (transposed,
 * sliced, negative strides) element by element through their strides.  The
 * result is a 0-d DeviceArray of x's dtype, like devarray's own sum(): it
 * stays on the device, so nothing waits for the GPU until its value is read
 * (float(result), result.item()).
 *
 * Two passes, so that the result is the same from run to run (no atomics):
 * at most kMaxBlocks blocks each sum a grid-stride share of x into a scratch
 * array, then one block sums the partial sums.  Within a block, each warp
 * adds its 32 values with __shfl_down_sync, and the first warp adds the
 * warps' sums.
 *
 * Ownership: the views are released on every path; the scratch array is a
 * DeviceArray from DevArray_EmptyOn, dropped once both kernels are queued
 * (devarray frees in stream order, on the stream the kernels use).
 */
#include <cuda_runtime.h>

#include "devarray.h"

namespace {

constexpr int kWarp = 32;
constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 1024;

/* x's shape and byte strides, passed to the kernel by value. */
struct Layout {
    int ndim;
    int64_t shape[DEVARRAY_MAXDIMS];
    int64_t strides[DEVARRAY_MAXDIMS];
};

/* Element i of x in C order, found through the strides. */
template <typename T>
__device__ T
load_strided(const char *data, const Layout &layout, int64_t i)
{
    int64_t offset = 0;
    for (int d = layout.ndim - 1; d >= 0; d--) {
        offset += (i % layout.shape[d]) * layout.strides[d];
        i /= layout.shape[d];
    }
    return *(const T *)(data + offset);
}

template <typename T>
__device__ T
warp_sum(T v)
{
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

/* The sum of v over the block, in thread 0. */
template <typename T>
__device__ T
block_sum(T v)
{
    __shared__ T warp_sums[kBlock / kWarp];
    int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    v = warp_sum(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < kBlock / kWarp ? warp_sums[lane] : T(0));
    }
    return v;
}

template <typename T, bool kContiguous>
__global__ void
partial_sums(const char *data, Layout layout, int64_t n, T *partials)
{
    T v = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        v += kContiguous ? ((const T *)data)[i] : load_strided<T>(data, layout, i);
    }
    v = block_sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
    }
}

template <typename T>
__global__ void
final_sum(const T *partials, int64_t n, T *out)
{
    T v = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        v += partials[i];
    }
    v = block_sum(v);
    if (threadIdx.x == 0) {
        *out = v;
    }
}

bool
is_c_contiguous(const DevArray_View &view)
{
    int64_t expected = view.itemsize;
    for (int d = view.ndim - 1; d >= 0; d--) {
        if (view.shape[d] != 1 && view.strides[d] != expected) {
            return false;
        }
        expected *= view.shape[d];
    }
    return true;
}

/* Queue both passes on `stream`: x into `blocks` partial sums, then those
   into *out.  With no blocks (an empty x) *out is 0. */
template <typename T>
void
launch_sum(const DevArray_View &x, const Layout &layout, int64_t blocks, T *partials, T *out,
           cudaStream_t stream)
{
    if (blocks > 0) {
        if (is_c_contiguous(x)) {
            partial_sums<T, true><<<(unsigned int)blocks, kBlock, 0, stream>>>(
                (const char *)x.data, layout, x.size, partials);
        }
        else {
            partial_sums<T, false><<<(unsigned int)blocks, kBlock, 0, stream>>>(
                (const char *)x.data, layout, x.size, partials);
        }
    }
    final_sum<T><<<1, kBlock, 0, stream>>>(partials, blocks, out);
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

/* A new DeviceArray of `dtype` on `device` and a writable view of it;
   NULL with an exception. */
PyObject *
new_array(int ndim, const int64_t *shape, int dtype, int device, DevArray_View *view)
{
    PyObject *array = DevArray_EmptyOn(ndim, shape, dtype, device);
    if (array == NULL) {
        return NULL;
    }
    if (DevArray_GetView(array, view, DEVARRAY_VIEW_WRITABLE) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

PyObject *
reduce_sum(PyObject *, PyObject *arg)
{
    DevArray_View x = {}, scratch_view = {}, out_view = {};
    PyObject *scratch = NULL, *out = NULL, *dtype = NULL, *result = NULL;
    Layout layout = {};
    int64_t blocks;
    cudaStream_t stream;
    cudaError_t err;

    if (DevArray_GetView(arg, &x, 0) < 0) {
        goto done;
    }
    if (x.dtype != DEVARRAY_FLOAT32 && x.dtype != DEVARRAY_FLOAT64) {
        dtype = PyObject_GetAttrString(x.obj, "dtype");
        if (dtype != NULL) {
            PyErr_Format(PyExc_TypeError, "reduce.sum: expected float32 or float64, not %S",
                         dtype);
        }
        goto done;
    }
    if (x.device < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "reduce.sum: the array is in host memory (devarray's host backend, "
                        "or a host producer); it needs CUDA device memory");
        goto done;
    }
    layout.ndim = x.ndim;
    for (int d = 0; d < x.ndim; d++) {
        layout.shape[d] = x.shape[d];
        layout.strides[d] = x.strides[d];
    }
    blocks = (x.size + kBlock - 1) / kBlock;
    blocks = blocks < kMaxBlocks ? blocks : kMaxBlocks;
    out = new_array(0, NULL, x.dtype, x.device, &out_view);
    if (out == NULL) {
        goto done;
    }
    scratch = new_array(1, &blocks, x.dtype, x.device, &scratch_view);
    if (scratch == NULL || use_device(x.device) < 0) {
        goto done;
    }
    stream = x.stream != NULL ? (cudaStream_t)x.stream : cudaStreamLegacy;
    if (x.dtype == DEVARRAY_FLOAT32) {
        launch_sum<float>(x, layout, blocks, (float *)scratch_view.data,
                          (float *)out_view.data, stream);
    }
    else {
        launch_sum<double>(x, layout, blocks, (double *)scratch_view.data,
                           (double *)out_view.data, stream);
    }
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        DevArray_SetCUDAError(err, "reduce.sum kernel launch");
        goto done;
    }
    result = Py_NewRef(out);
done:
    DevArray_ReleaseView(&x);
    DevArray_ReleaseView(&scratch_view);
    DevArray_ReleaseView(&out_view);
    Py_XDECREF(scratch);
    Py_XDECREF(out);
    Py_XDECREF(dtype);
    return result;
}

PyMethodDef reduce_methods[] = {
    {"sum", reduce_sum, METH_O,
     "sum(x)\n--\n\nThe sum of all elements of a float32 or float64 GPU array, of any "
     "layout, as a 0-d DeviceArray of x's dtype."},
    {NULL, NULL, 0, NULL},
};

PyModuleDef reduce_module = {
    PyModuleDef_HEAD_INIT, "reduce",
    "A warp-shuffle sum of GPU arrays, through devarray's C API.", -1, reduce_methods,
    NULL, NULL, NULL, NULL,
};

}  // namespace

PyMODINIT_FUNC
PyInit_reduce(void)
{
    if (import_devarray() < 0) {
        return NULL;
    }
    return PyModule_Create(&reduce_module);
}
