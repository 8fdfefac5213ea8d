/*
 * Consuming the CUDA Array Interface: see cai.h.  Every entry of the
 * producer's dict is checked, and so is the memory it describes: every
 * element must lie in device memory of a device this process sees (the
 * array lives there), inside the producer's allocation when the driver can
 * say which that is.
 *
 * Ownership: an imported array keeps the producer object itself as its
 * base; devarray never frees the memory.
 */
#include "interop/cai.h"

#include "runtime/device.h"
#include "interop/dtypeobject.h"
#include "runtime/stream.h"

#ifdef DEVARRAY_HAVE_CUDA
/* The device allocation holding `ptr`, for bounds checks: found through the
   driver's cuMemGetAddressRange, loaded at run time so that importing
   devarray never needs libcuda.  Returns 1 with [base, base+size), 0 when
   unknown. */
typedef int (*mem_get_address_range_fn)(uintptr_t *base, size_t *size,
                                        uintptr_t ptr);

static int
cai_allocation_range(uintptr_t ptr, uintptr_t *base, size_t *size)
{
    static mem_get_address_range_fn get_range = NULL;
    static int looked_up = 0;
    if (!looked_up) {
        enum cudaDriverEntryPointQueryResult status;
        void *fn = NULL;
        looked_up = 1;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000,
                                             cudaEnableDefault,
                                             &status) == cudaSuccess &&
            status == cudaDriverEntryPointSuccess) {
            get_range = (mem_get_address_range_fn)fn;
        }
        (void)cudaGetLastError();
    }
    return get_range != NULL && get_range(base, size, ptr) == 0;
}
#endif

/* The lowest and one-past-highest byte offsets, relative to the first
   element, that an array of this shape and strides touches; -1 with
   ValueError when they do not fit in 64 bits. */
static int
byte_extent(int ndim, const int64_t *shape, const int64_t *strides, int itemsize,
            int64_t *lo, int64_t *hi)
{
    int i;
    *lo = 0;
    *hi = itemsize;
    for (i = 0; i < ndim; i++) {
        int64_t extent;
        if (__builtin_mul_overflow(shape[i] - 1, strides[i], &extent) ||
            (extent < 0 ? __builtin_add_overflow(*lo, extent, lo)
                        : __builtin_add_overflow(*hi, extent, hi))) {
            PyErr_SetString(PyExc_ValueError,
                            "the shape and strides reach beyond the 64-bit "
                            "address space");
            return -1;
        }
    }
    return 0;
}

/* Check that every element of the described array lies in device memory
   that the producer owns, on a device devarray can use, stored in *device
   (the current device for an empty array); sets ValueError. */
static int
check_device_extent(uintptr_t ptr, int ndim, const int64_t *shape,
                    const int64_t *strides, int itemsize, int64_t size, int *device)
{
    *device = device_current(DA_BACKEND_CUDA);
    int64_t lo, hi;
    if (size == 0) {
        return 0;
    }
    if (byte_extent(ndim, shape, strides, itemsize, &lo, &hi) < 0) {
        return -1;
    }
    if ((lo < 0 && (uintptr_t)(-lo) > ptr) || (uintptr_t)hi > UINTPTR_MAX - ptr) {
        PyErr_SetString(PyExc_ValueError,
                        "the shape and strides reach outside the address space");
        return -1;
    }
#ifdef DEVARRAY_HAVE_CUDA
    {
        struct cudaPointerAttributes attrs;
        uintptr_t alloc_base;
        size_t alloc_size;
        cudaError_t err = cudaPointerGetAttributes(&attrs, (void *)ptr);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            PyErr_Format(PyExc_ValueError,
                         "pointer 0x%llx is not a valid CUDA pointer (%s)",
                         (unsigned long long)ptr, cudaGetErrorString(err));
            return -1;
        }
        if (attrs.type != cudaMemoryTypeDevice &&
            attrs.type != cudaMemoryTypeManaged) {
            PyErr_Format(PyExc_ValueError, "pointer 0x%llx is not device memory",
                         (unsigned long long)ptr);
            return -1;
        }
        /* the view lives where the producer's memory does */
        if (device_check_ordinal(attrs.device) < 0) {
            return -1;
        }
        *device = attrs.device;
        if (cai_allocation_range(ptr, &alloc_base, &alloc_size) &&
            (ptr + (uintptr_t)lo < alloc_base ||
             ptr + (uintptr_t)hi > alloc_base + alloc_size)) {
            PyErr_Format(PyExc_ValueError,
                         "the shape and strides reach bytes [%lld, %lld) "
                         "relative to the data pointer, outside its allocation "
                         "of %zu bytes",
                         (long long)lo, (long long)hi, alloc_size);
            return -1;
        }
    }
#endif
    return 0;
}

/* An int64 tuple from a CAI entry; returns its length or -1. */
static int
cai_int_tuple(PyObject *obj, const char *key, int64_t *values)
{
    Py_ssize_t n, i;
    if (!PyTuple_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "__cuda_array_interface__['%s'] must be a tuple, not %.200s",
                     key, Py_TYPE(obj)->tp_name);
        return -1;
    }
    n = PyTuple_GET_SIZE(obj);
    if (n > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "__cuda_array_interface__['%s'] has %zd entries; at most "
                     "%d dimensions are supported",
                     key, n, DA_MAXDIMS);
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(obj, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError,
                         "__cuda_array_interface__['%s'] must hold ints, not "
                         "%.200s",
                         key, Py_TYPE(item)->tp_name);
            return -1;
        }
        values[i] = PyLong_AsLongLong(item);
        if (values[i] == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    return (int)n;
}

static PyObject *
cai_required(PyObject *dict, const char *key)
{
    PyObject *value = PyDict_GetItemString(dict, key);
    if (value == NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError,
                     "__cuda_array_interface__ has no '%s' entry", key);
    }
    return value;
}

DeviceArrayObject *
cai_import(PyObject *obj, PyObject *cai, int backend)
{
    int64_t shape[DA_MAXDIMS], strides[DA_MAXDIMS], size;
    PyObject *shape_obj, *typestr, *data, *version, *strides_obj, *mask, *stream;
    unsigned long long ptr;
    long version_number;
    int ndim, nstrides, typenum, readonly, itemsize, i, device;
    uintptr_t producer_stream = 0;

    if (!PyDict_Check(cai)) {
        PyErr_Format(PyExc_TypeError,
                     "__cuda_array_interface__ must be a dict, not %.200s",
                     Py_TYPE(cai)->tp_name);
        return NULL;
    }
    if (backend != DA_BACKEND_CUDA) {
        PyErr_SetString(PyExc_ValueError,
                        "cannot use CUDA memory (an object with "
                        "__cuda_array_interface__) on the host backend; "
                        "set_backend('cuda') or copy it to the host first");
        return NULL;
    }
    if ((shape_obj = cai_required(cai, "shape")) == NULL ||
        (typestr = cai_required(cai, "typestr")) == NULL ||
        (data = cai_required(cai, "data")) == NULL ||
        (version = cai_required(cai, "version")) == NULL) {
        return NULL;
    }
    if (!PyLong_Check(version)) {
        PyErr_SetString(PyExc_TypeError,
                        "__cuda_array_interface__['version'] must be an int");
        return NULL;
    }
    version_number = PyLong_AsLong(version);
    if (version_number < 0 || version_number > 3) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError,
                         "unsupported __cuda_array_interface__ version %ld "
                         "(devarray reads versions 0 to 3)",
                         version_number);
        }
        return NULL;
    }
    mask = PyDict_GetItemString(cai, "mask");
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "masked arrays (__cuda_array_interface__['mask']) are "
                        "not supported");
        return NULL;
    }
    ndim = cai_int_tuple(shape_obj, "shape", shape);
    if (ndim < 0) {
        return NULL;
    }
    if (!PyUnicode_Check(typestr)) {
        PyErr_SetString(PyExc_TypeError,
                        "__cuda_array_interface__['typestr'] must be a str");
        return NULL;
    }
    if (dtypeobject_from_object(typestr, &typenum) < 0) {
        return NULL;
    }
    itemsize = da_itemsize(typenum);
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
        PyErr_SetString(PyExc_TypeError,
                        "__cuda_array_interface__['data'] must be a tuple "
                        "(pointer: int, read_only: bool)");
        return NULL;
    }
    ptr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (ptr == (unsigned long long)-1 && PyErr_Occurred()) {
        return NULL;
    }
    readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (readonly < 0) {
        return NULL;
    }
    size = array_shape_size(ndim, shape, itemsize);
    if (size < 0) {
        return NULL;
    }
    strides_obj = PyDict_GetItemString(cai, "strides");
    if (strides_obj == NULL || strides_obj == Py_None) {
        int64_t stride = itemsize;
        for (i = ndim - 1; i >= 0; i--) {
            strides[i] = stride;
            stride *= shape[i] > 0 ? shape[i] : 1;
        }
    }
    else {
        nstrides = cai_int_tuple(strides_obj, "strides", strides);
        if (nstrides < 0) {
            return NULL;
        }
        if (nstrides != ndim) {
            PyErr_Format(PyExc_ValueError,
                         "__cuda_array_interface__ has %d strides for %d "
                         "dimensions",
                         nstrides, ndim);
            return NULL;
        }
    }
    if (size > 0) {
        if (ptr == 0) {
            PyErr_SetString(PyExc_ValueError,
                            "__cuda_array_interface__ has a null data pointer "
                            "for a non-empty array");
            return NULL;
        }
        /* kernels read whole elements: device data must be aligned */
        if (ptr % (unsigned long long)itemsize != 0) {
            PyErr_SetString(PyExc_ValueError,
                            "the data pointer is not aligned to the itemsize");
            return NULL;
        }
        for (i = 0; i < ndim; i++) {
            if (strides[i] % itemsize != 0) {
                PyErr_SetString(PyExc_ValueError,
                                "strides must be multiples of the itemsize");
                return NULL;
            }
        }
    }
    stream = version_number >= 3 ? PyDict_GetItemString(cai, "stream") : NULL;
    if (stream != NULL && stream != Py_None) {
        if (stream_from_python(stream, &producer_stream) < 0) {
            return NULL;
        }
        if (producer_stream == (uintptr_t)-1) {
            PyErr_SetString(PyExc_ValueError,
                            "__cuda_array_interface__['stream'] must be 1, 2 or "
                            "a stream handle (-1 is a DLPack value, not a CAI "
                            "one)");
            return NULL;
        }
    }
    if (check_device_extent((uintptr_t)ptr, ndim, shape, strides, itemsize, size,
                            &device) < 0 ||
        device_activate(DA_BACKEND_CUDA, device) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    /* the producer may still be writing on its stream: queue our work after
       it, on the device */
    if (producer_stream > 2 || producer_stream == 2) {
        if (stream_wait(stream_current(), (cudaStream_t)producer_stream) < 0) {
            return NULL;
        }
    }
#endif
    return array_new_view(DA_BACKEND_CUDA, device,
                          typenum, ndim, shape, strides, (char *)(uintptr_t)ptr,
                          obj, readonly ? DA_FLAG_READONLY : 0);
}

int
cai_import_attribute(PyObject *obj, int backend, DeviceArrayObject **out)
{
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    *out = NULL;
    if (cai == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    *out = cai_import(obj, cai, backend);
    Py_DECREF(cai);
    return *out == NULL ? -1 : 1;
}
