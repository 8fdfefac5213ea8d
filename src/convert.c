/*
 * Conversions between DeviceArrays and host objects (see convert.h).
 *
 * Ownership:
 *   - A Py_buffer taken from a host object is held for one conversion only
 *     and released on every path; while it is held the exporter cannot
 *     resize, so the GIL may be released around the copies that read it.
 *   - Host staging memory (packed strided buffers, the host copies behind
 *     tolist, item, repr, filled nested sequences) comes from PyMem_Malloc
 *     and is freed before the function that took it returns; so is the
 *     device staging block a strided buffer may be gathered through
 *     (pool_malloc/pool_free, stream-ordered after the gather).
 *   - A _HostBuffer owns its PyMem_Malloc'd block and frees it in dealloc.
 *     A memoryview over it keeps it alive through its reference to the
 *     exporter, and the block never moves or resizes, so no export count is
 *     needed.
 *   - The NumPy module, once imported, is held in a static for the life of
 *     the process (one strong reference, never released).
 *
 * Casts between dtypes run through the elementwise DA_OP_COPY in the
 * *source* dtype's compute class: every dtype loads exactly into its own
 * class, so the only rounding is the store's single conversion to the
 * target (float16 included), which is NumPy's astype.
 */
#include "common.h"

#include <math.h>
#include <string.h>

#include "array.h"
#include "backend.h"
#include "convert.h"
#include "dtype.h"
#include "pool.h"
#include "transfer.h"

/* ---- small helpers ------------------------------------------------------ */

static int
convert_is_complex(int typenum)
{
    return typenum == DA_COMPLEX64 || typenum == DA_COMPLEX128;
}

/* The real dtype whose precision a float or complex dtype's parts have. */
static int
convert_part_typenum(int typenum)
{
    switch (typenum) {
        case DA_COMPLEX64:
            return DA_FLOAT32;
        case DA_COMPLEX128:
            return DA_FLOAT64;
        default:
            return typenum;
    }
}

/* One elementwise DA_OP_COPY over `ndim` dimensions of `shape`: a strided
   copy when the dtypes agree, a cast when they differ.  size must be > 0. */
static int
convert_elementwise_copy(int backend, int ndim, const int64_t *shape, char *dst,
                         int dst_typenum, const int64_t *dst_strides, char *src,
                         int src_typenum, const int64_t *src_strides)
{
    da_elementwise e;
    int d;

    memset(&e, 0, sizeof e);
    e.nin = 1;
    e.size = 1;
    e.out.data = dst;
    e.out.typenum = dst_typenum;
    e.in[0].data = src;
    e.in[0].typenum = src_typenum;
    if (ndim == 0) {
        /* a single element: run it as one contiguous element */
        e.ndim = 1;
        e.shape[0] = 1;
        e.out.strides[0] = da_itemsize(dst_typenum);
        e.in[0].strides[0] = da_itemsize(src_typenum);
    }
    else {
        e.ndim = ndim;
        for (d = 0; d < ndim; d++) {
            e.shape[d] = shape[d];
            e.size *= shape[d];
            e.out.strides[d] = dst_strides[d];
            e.in[0].strides[d] = src_strides[d];
        }
    }
    return backend_elementwise(backend, DA_OP_COPY, da_class_of(src_typenum), &e);
}

/* Cast the contiguous array `src` into the contiguous array `dst` (same
   shape, other dtype). */
static int
convert_cast_contiguous(DeviceArrayObject *src, DeviceArrayObject *dst)
{
    int64_t n = src->size;
    int64_t dst_stride = DA_ITEMSIZE(dst), src_stride = DA_ITEMSIZE(src);

    if (n == 0) {
        return 0;
    }
    return convert_elementwise_copy(dst->backend, 1, &n, dst->data, dst->typenum,
                                    &dst_stride, src->data, src->typenum, &src_stride);
}

/* Copy a's elements, in C order, into `dst` (host memory of DA_NBYTES(a)
   bytes); strided arrays are made contiguous on their backend first. */
static int
convert_copy_to_host(DeviceArrayObject *a, void *dst)
{
    DeviceArrayObject *contiguous = NULL;
    int status = -1;

    if (a->size == 0) {
        return 0;
    }
    contiguous = array_contiguous_as(a, a->typenum);
    if (contiguous == NULL) {
        goto done;
    }
    status = transfer_copy(contiguous->backend, dst, contiguous->data,
                           (size_t)DA_NBYTES(contiguous), DA_COPY_D2H);
done:
    Py_XDECREF(contiguous);
    return status;
}

/* A new PyMem block (at least one byte) holding a's elements in C order. */
static char *
convert_host_copy(DeviceArrayObject *a)
{
    int64_t nbytes = DA_NBYTES(a);
    char *host = PyMem_Malloc(nbytes > 0 ? (size_t)nbytes : 1);

    if (host == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (convert_copy_to_host(a, host) < 0) {
        PyMem_Free(host);
        return NULL;
    }
    return host;
}

/* ---- strided host buffers ---------------------------------------------- */

/* Copy n items of `itemsize` bytes between two strided runs; the switch
   gives the compiler fixed-size moves for the common item sizes. */
static void
convert_copy_run(char *dst, Py_ssize_t dst_step, const char *src, Py_ssize_t src_step,
                 Py_ssize_t n, Py_ssize_t itemsize)
{
    Py_ssize_t i;

#define CONVERT_COPY_RUN(size)                                  \
    for (i = 0; i < n; i++) {                                   \
        memcpy(dst + i * dst_step, src + i * src_step, (size)); \
    }                                                           \
    break

    switch (itemsize) {
        case 1:
            CONVERT_COPY_RUN(1);
        case 2:
            CONVERT_COPY_RUN(2);
        case 4:
            CONVERT_COPY_RUN(4);
        case 8:
            CONVERT_COPY_RUN(8);
        case 16:
            CONVERT_COPY_RUN(16);
        default:
            CONVERT_COPY_RUN((size_t)itemsize);
    }
#undef CONVERT_COPY_RUN
}

/* Copy, in C order, between the items of a strided (possibly negatively
   strided) buffer and a C-contiguous block: into_view = 0 packs the view
   into `contig`, 1 unpacks `contig` into the view.  The view holds at least
   one item and has strides. */
static void
convert_buffer_strided_copy(const Py_buffer *view, char *contig, int into_view)
{
    Py_ssize_t index[PyBUF_MAX_NDIM];
    Py_ssize_t itemsize = view->itemsize;
    Py_ssize_t inner, inner_stride, offset = 0;
    int ndim = view->ndim, d;

    if (ndim == 0) {
        if (into_view) {
            memcpy(view->buf, contig, (size_t)itemsize);
        }
        else {
            memcpy(contig, view->buf, (size_t)itemsize);
        }
        return;
    }
    inner = view->shape[ndim - 1];
    inner_stride = view->strides[ndim - 1];
    memset(index, 0, sizeof index);
    for (;;) {
        char *run = (char *)view->buf + offset;
        if (into_view) {
            convert_copy_run(run, inner_stride, contig, itemsize, inner, itemsize);
        }
        else {
            convert_copy_run(contig, itemsize, run, inner_stride, inner, itemsize);
        }
        contig += inner * itemsize;
        /* advance the index over the outer dimensions, last fastest */
        for (d = ndim - 2; d >= 0; d--) {
            index[d]++;
            offset += view->strides[d];
            if (index[d] < view->shape[d]) {
                break;
            }
            offset -= view->strides[d] * view->shape[d];
            index[d] = 0;
        }
        if (d < 0) {
            break;
        }
    }
}

/* ---- _HostBuffer: host memory with a typed buffer export ---------------- */

/* What to_host() returns, wrapped in a memoryview, when NumPy is not
   installed: C-contiguous, writable, with the dtype's struct format. */
typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t len;
    int ndim;
    int typenum;
    Py_ssize_t shape[DA_MAXDIMS];
    Py_ssize_t strides[DA_MAXDIMS];
} HostBufferObject;

static PyTypeObject HostBuffer_Type;

static void
hostbuffer_dealloc(HostBufferObject *self)
{
    PyMem_Free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
hostbuffer_getbuffer(HostBufferObject *self, Py_buffer *view, int flags)
{
    int d, long_dims = 0;

    for (d = 0; d < self->ndim; d++) {
        long_dims += self->shape[d] > 1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && long_dims > 1) {
        PyErr_SetString(PyExc_BufferError,
                        "_HostBuffer is C-contiguous, not Fortran-contiguous");
        view->obj = NULL;
        return -1;
    }
    view->buf = self->data;
    view->obj = Py_NewRef(self);
    view->len = self->len;
    view->readonly = 0;
    view->itemsize = da_itemsize(self->typenum);
    view->format =
            (flags & PyBUF_FORMAT) ? (char *)dtype_table[self->typenum].format : NULL;
    if (flags & PyBUF_ND) {
        view->ndim = self->ndim;
        view->shape = self->shape;
    }
    else {
        /* a plain byte run, as memoryview exports without PyBUF_ND */
        view->ndim = 1;
        view->shape = NULL;
    }
    view->strides = ((flags & PyBUF_STRIDES) == PyBUF_STRIDES) ? self->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs hostbuffer_as_buffer = {
    .bf_getbuffer = (getbufferproc)hostbuffer_getbuffer,
};

static PyTypeObject HostBuffer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core._HostBuffer",
    .tp_basicsize = sizeof(HostBufferObject),
    .tp_dealloc = (destructor)hostbuffer_dealloc,
    .tp_as_buffer = &hostbuffer_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Host memory holding a copy of a DeviceArray (to_host() without NumPy).",
};

/* A memoryview over a new _HostBuffer holding a copy of a. */
static PyObject *
convert_to_memoryview(DeviceArrayObject *a)
{
    HostBufferObject *buffer;
    PyObject *view = NULL;
    Py_ssize_t stride;
    int d;

    buffer = PyObject_New(HostBufferObject, &HostBuffer_Type);
    if (buffer == NULL) {
        return NULL;
    }
    buffer->len = (Py_ssize_t)DA_NBYTES(a);
    buffer->ndim = a->ndim;
    buffer->typenum = a->typenum;
    buffer->data = convert_host_copy(a);
    if (buffer->data == NULL) {
        goto done;
    }
    stride = DA_ITEMSIZE(a);
    for (d = a->ndim - 1; d >= 0; d--) {
        buffer->shape[d] = (Py_ssize_t)DA_SHAPE(a)[d];
        buffer->strides[d] = stride;
        stride *= buffer->shape[d];
    }
    view = PyMemoryView_FromObject((PyObject *)buffer);
done:
    Py_DECREF(buffer);
    return view;
}

/* ---- Python scalars in ------------------------------------------------- */

/* The range of each integer dtype, for NumPy 2's out-of-bounds errors. */
static void
convert_int_range(int typenum, int64_t *min, uint64_t *max)
{
    switch (typenum) {
        case DA_INT8:
            *min = INT8_MIN;
            *max = INT8_MAX;
            break;
        case DA_UINT8:
            *min = 0;
            *max = UINT8_MAX;
            break;
        case DA_INT16:
            *min = INT16_MIN;
            *max = INT16_MAX;
            break;
        case DA_UINT16:
            *min = 0;
            *max = UINT16_MAX;
            break;
        case DA_INT32:
            *min = INT32_MIN;
            *max = INT32_MAX;
            break;
        case DA_UINT32:
            *min = 0;
            *max = UINT32_MAX;
            break;
        case DA_UINT64:
            *min = 0;
            *max = UINT64_MAX;
            break;
        default:
            *min = INT64_MIN;
            *max = INT64_MAX;
            break;
    }
}

/* A Python int that must fit the integer dtype `typenum`: its value as an
   int64 (*is_unsigned = 0) or, above INT64_MAX, a uint64 (*is_unsigned = 1).
   OverflowError in NumPy 2's words otherwise. */
static int
convert_pylong_in_range(PyObject *obj, int typenum, int64_t *s, uint64_t *u,
                        int *is_unsigned)
{
    int64_t min;
    uint64_t max;
    long long v;
    int overflow;

    convert_int_range(typenum, &min, &max);
    *is_unsigned = 0;
    v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow == 0) {
        if (v >= min && (v < 0 || (uint64_t)v <= max)) {
            *s = v;
            return 0;
        }
    }
    else if (overflow > 0 && max == UINT64_MAX) {
        unsigned long long w = PyLong_AsUnsignedLongLong(obj);
        if (!(w == (unsigned long long)-1 && PyErr_Occurred())) {
            *u = w;
            *is_unsigned = 1;
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return -1;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for %s", obj,
                 dtype_table[typenum].name);
    return -1;
}

/* Set a da_scalar of class `cls` from a value of the class `src` (bool,
   sint, uint, f64, c128), with ops.h's conversions. */
#define CONVERT_DEFINE_SCALAR_FROM(src, T)                            \
    static void convert_scalar_from_##src(T v, int cls, da_scalar *r) \
    {                                                                 \
        switch (cls) {                                                \
            case DA_CLASS_BOOL:                                       \
                r->b = da_##src##_to_bool(v);                         \
                break;                                                \
            case DA_CLASS_SINT:                                       \
                r->s = da_##src##_to_sint(v);                         \
                break;                                                \
            case DA_CLASS_UINT:                                       \
                r->u = da_##src##_to_uint(v);                         \
                break;                                                \
            case DA_CLASS_F32:                                        \
                r->f32 = da_##src##_to_f32(v);                        \
                break;                                                \
            case DA_CLASS_F64:                                        \
                r->f64 = da_##src##_to_f64(v);                        \
                break;                                                \
            case DA_CLASS_C64:                                        \
                r->c64 = da_##src##_to_c64(v);                        \
                break;                                                \
            default:                                                  \
                r->c128 = da_##src##_to_c128(v);                      \
                break;                                                \
        }                                                             \
    }

CONVERT_DEFINE_SCALAR_FROM(bool, uint8_t)
CONVERT_DEFINE_SCALAR_FROM(sint, int64_t)
CONVERT_DEFINE_SCALAR_FROM(uint, uint64_t)
CONVERT_DEFINE_SCALAR_FROM(f64, double)
CONVERT_DEFINE_SCALAR_FROM(c128, da_c128)
#undef CONVERT_DEFINE_SCALAR_FROM

static int
convert_is_integer_dtype(int typenum)
{
    da_class cls = da_class_of(typenum);
    return cls == DA_CLASS_SINT || cls == DA_CLASS_UINT;
}

int
convert_python_scalar(PyObject *obj, int range_typenum, int cls, da_scalar *value)
{
    if (PyBool_Check(obj)) {
        convert_scalar_from_bool(obj == Py_True, cls, value);
        return 0;
    }
    if (PyLong_Check(obj)) {
        if (range_typenum == DA_BOOL || convert_is_integer_dtype(range_typenum)) {
            /* NEP 50 never promotes a Python int to bool: the range is then
               int64's */
            int range = range_typenum == DA_BOOL ? DA_INT64 : range_typenum;
            int64_t s = 0;
            uint64_t u = 0;
            int is_unsigned;
            if (convert_pylong_in_range(obj, range, &s, &u, &is_unsigned) < 0) {
                return -1;
            }
            if (is_unsigned) {
                convert_scalar_from_uint(u, cls, value);
            }
            else {
                convert_scalar_from_sint(s, cls, value);
            }
        }
        else {
            double d = PyLong_AsDouble(obj);
            if (d == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            convert_scalar_from_f64(d, cls, value);
        }
        return 0;
    }
    if (PyFloat_Check(obj)) {
        convert_scalar_from_f64(PyFloat_AS_DOUBLE(obj), cls, value);
        return 0;
    }
    if (PyComplex_Check(obj)) {
        Py_complex z = PyComplex_AsCComplex(obj);
        if (z.real == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        convert_scalar_from_c128(da_make_c128(z.real, z.imag), cls, value);
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "expected a Python bool, int, float or complex, got '%.200s'",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* Convert one Python scalar to dtype `typenum` and store it at p, with
   NumPy 2's rules for filling an array of that dtype: integers must fit an
   integer dtype, floats are truncated toward zero first (NaN and inf are
   errors there), complex only goes into complex (and bool) dtypes. */
static int
convert_store_python_scalar(PyObject *obj, int typenum, char *p)
{
    da_class cls = da_class_of(typenum);

    if (PyBool_Check(obj)) {
        da_store_bool(p, typenum, obj == Py_True);
        return 0;
    }
    if (PyLong_Check(obj)) {
        if (cls == DA_CLASS_SINT || cls == DA_CLASS_UINT) {
            int64_t s = 0;
            uint64_t u = 0;
            int is_unsigned;
            if (convert_pylong_in_range(obj, typenum, &s, &u, &is_unsigned) < 0) {
                return -1;
            }
            if (is_unsigned) {
                da_store_uint(p, typenum, u);
            }
            else {
                da_store_sint(p, typenum, s);
            }
        }
        else if (cls == DA_CLASS_BOOL) {
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            da_store_bool(p, typenum, v != 0 || overflow != 0);
        }
        else {
            double d = PyLong_AsDouble(obj);
            if (d == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            da_store_f64(p, typenum, d);
        }
        return 0;
    }
    if (PyFloat_Check(obj)) {
        double d = PyFloat_AS_DOUBLE(obj);
        if (cls == DA_CLASS_SINT || cls == DA_CLASS_UINT) {
            /* NumPy 2 goes through a Python int: NaN -> ValueError, inf and
               out-of-range values -> OverflowError */
            PyObject *integral = PyLong_FromDouble(d);
            int status;
            if (integral == NULL) {
                return -1;
            }
            status = convert_store_python_scalar(integral, typenum, p);
            Py_DECREF(integral);
            return status;
        }
        da_store_f64(p, typenum, d);
        return 0;
    }
    if (PyComplex_Check(obj)) {
        Py_complex z = PyComplex_AsCComplex(obj);
        if (z.real == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        if (cls != DA_CLASS_C64 && cls != DA_CLASS_C128 && cls != DA_CLASS_BOOL) {
            PyErr_Format(PyExc_TypeError, "cannot convert a complex number to %s",
                         dtype_table[typenum].name);
            return -1;
        }
        da_store_c128(p, typenum, da_make_c128(z.real, z.imag));
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "cannot convert '%.200s' to %s: elements must be bool, int, "
                 "float or complex",
                 Py_TYPE(obj)->tp_name, dtype_table[typenum].name);
    return -1;
}

/* ---- buffers in ---------------------------------------------------------- */

/* Whether a strided buffer is better sent whole to the device and gathered
   there than packed on the host: on CUDA the host pack is the slow part (a
   Fortran-ordered array is a transpose, ~0.5 GB/s on one core), while one
   transfer of its byte span plus a strided device copy, which casts too,
   runs at transfer speed.  Worth it when the span is at most twice the data
   (not for sparse slices) and every stride keeps items aligned, as device
   loads need.  *offset is the first byte of the span relative to buf. */
static int
convert_buffer_span(const Py_buffer *view, Py_ssize_t *offset, Py_ssize_t *span)
{
    Py_ssize_t low = 0, high = 0, extent;
    int d;

    for (d = 0; d < view->ndim; d++) {
        if (view->shape[d] <= 1) {
            continue;
        }
        if (view->strides[d] % view->itemsize != 0) {
            return 0;
        }
        extent = (view->shape[d] - 1) * view->strides[d];
        if (extent < 0) {
            low += extent;
        }
        else {
            high += extent;
        }
    }
    *offset = low;
    *span = high - low + view->itemsize;
    return *span <= 2 * view->len;
}

/* A new C-contiguous array of `typenum` from a strided buffer (at least one
   item) through its byte span on the device; see convert_buffer_span. */
static DeviceArrayObject *
convert_buffer_gather(const Py_buffer *view, int src_typenum, int typenum, int backend,
                      Py_ssize_t offset, Py_ssize_t span, const int64_t *shape)
{
    DeviceArrayObject *result;
    int64_t strides[DA_MAXDIMS];
    char *staging;
    int d, status = -1;

    result = array_new(backend, typenum, view->ndim, shape);
    if (result == NULL) {
        return NULL;
    }
    staging = pool_malloc(backend, (size_t)span);
    if (staging == NULL) {
        goto done;
    }
    for (d = 0; d < view->ndim; d++) {
        strides[d] = view->shape[d] > 1 ? view->strides[d] : 0;
    }
    if (transfer_copy(backend, staging, (char *)view->buf + offset, (size_t)span,
                      DA_COPY_H2D) < 0) {
        goto done;
    }
    status = convert_elementwise_copy(backend, view->ndim, shape, result->data, typenum,
                                      DA_STRIDES(result), staging - offset, src_typenum,
                                      strides);
done:
    if (staging != NULL) {
        pool_free(backend, staging);
    }
    if (status < 0) {
        Py_CLEAR(result);
    }
    return result;
}

DeviceArrayObject *
convert_from_buffer(PyObject *obj, int typenum, int backend)
{
    Py_buffer view;
    int have_view = 0, src_typenum, ndim, d;
    int64_t shape[DA_MAXDIMS];
    Py_ssize_t span_offset, span;
    char *packed = NULL;
    const char *src;
    DeviceArrayObject *raw = NULL, *result = NULL;

    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        if (PyErr_ExceptionMatches(PyExc_BufferError)) {
            /* indirect (suboffset) buffers and other exports we cannot read */
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "cannot copy from a '%.200s': its buffer is not a "
                         "strided array (indirect buffers are not supported)",
                         Py_TYPE(obj)->tp_name);
        }
        goto done;
    }
    have_view = 1;
    if (view.suboffsets != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "cannot copy from a '%.200s': indirect buffers are not supported",
                     Py_TYPE(obj)->tp_name);
        goto done;
    }
    if (dtype_from_format(view.format != NULL ? view.format : "B", view.itemsize,
                          &src_typenum) < 0) {
        goto done;
    }
    if (view.ndim > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "the buffer has %d dimensions; devarray supports at most %d",
                     view.ndim, DA_MAXDIMS);
        goto done;
    }
    if (view.shape == NULL && view.ndim != 0) {
        /* a plain run of items */
        ndim = 1;
        shape[0] = view.len / view.itemsize;
    }
    else {
        ndim = view.ndim;
        for (d = 0; d < ndim; d++) {
            shape[d] = view.shape[d];
        }
    }
    raw = array_new(backend, src_typenum, ndim, shape);
    if (raw == NULL) {
        goto done;
    }
    if (DA_NBYTES(raw) != view.len) {
        PyErr_Format(PyExc_ValueError,
                     "inconsistent buffer from '%.200s': %zd bytes for %lld items "
                     "of %zd bytes",
                     Py_TYPE(obj)->tp_name, view.len, (long long)raw->size,
                     view.itemsize);
        goto done;
    }
    if (view.len > 0 && view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C') &&
        backend == DA_BACKEND_CUDA && convert_buffer_span(&view, &span_offset, &span)) {
        result = convert_buffer_gather(&view, src_typenum,
                                       typenum < 0 ? src_typenum : typenum, backend,
                                       span_offset, span, shape);
        goto done;
    }
    if (view.len > 0) {
        src = view.buf;
        if (view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C')) {
            packed = PyMem_Malloc((size_t)view.len);
            if (packed == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            convert_buffer_strided_copy(&view, packed, 0);
            src = packed;
        }
        if (transfer_copy(backend, raw->data, src, (size_t)view.len, DA_COPY_H2D) < 0) {
            goto done;
        }
    }
    if (typenum < 0 || typenum == src_typenum) {
        result = raw;
        raw = NULL;
    }
    else {
        result = array_new(backend, typenum, ndim, shape);
        if (result == NULL) {
            goto done;
        }
        if (convert_cast_contiguous(raw, result) < 0) {
            Py_CLEAR(result);
            goto done;
        }
    }
done:
    PyMem_Free(packed);
    Py_XDECREF(raw);
    if (have_view) {
        PyBuffer_Release(&view);
    }
    return result;
}

/* ---- nested sequences in ------------------------------------------------- */

enum {
    SEQ_BOOL = 1,
    SEQ_INT = 2,
    SEQ_FLOAT = 4,
    SEQ_COMPLEX = 8,
    SEQ_INT_IN_INT64 = 16,   /* an int that fits int64 (NumPy: an int64) */
    SEQ_INT_ABOVE_INT64 = 32 /* an int in (INT64_MAX, UINT64_MAX] (a uint64) */
};

typedef struct {
    int ndim;
    int64_t shape[DA_MAXDIMS];
    int kinds;   /* SEQ_* seen while inferring */
    int typenum; /* while filling: the target dtype */
    char *fill;  /* while filling: where the next element goes */
} seq_state;

#define SEQ_IS_NESTED(obj) (PyList_Check(obj) || PyTuple_Check(obj))

/* The shape, from the first element at each level of nesting. */
static int
seq_discover_shape(PyObject *obj, seq_state *st)
{
    st->ndim = 0;
    while (SEQ_IS_NESTED(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (st->ndim == DA_MAXDIMS) {
            PyErr_Format(PyExc_ValueError,
                         "the sequence is nested more than %d levels deep "
                         "(devarray supports at most %d dimensions)",
                         DA_MAXDIMS, DA_MAXDIMS);
            return -1;
        }
        st->shape[st->ndim++] = n;
        if (n == 0) {
            break;
        }
        obj = PySequence_Fast_GET_ITEM(obj, 0);
    }
    return 0;
}

static int
seq_ragged_error(const seq_state *st, int depth)
{
    PyObject *shape = PyTuple_New(depth);
    int d;

    if (shape == NULL) {
        return -1;
    }
    for (d = 0; d < depth; d++) {
        PyObject *n = PyLong_FromLongLong(st->shape[d]);
        if (n == NULL) {
            Py_DECREF(shape);
            return -1;
        }
        PyTuple_SET_ITEM(shape, d, n);
    }
    PyErr_Format(PyExc_ValueError,
                 "setting an array element with a sequence. The requested "
                 "array has an inhomogeneous shape after %d dimensions. The "
                 "detected shape was %R + inhomogeneous part.",
                 depth, shape);
    Py_DECREF(shape);
    return -1;
}

/* Record the kind of one element for dtype inference. */
static int
seq_classify(PyObject *obj, seq_state *st)
{
    if (PyBool_Check(obj)) {
        st->kinds |= SEQ_BOOL;
    }
    else if (PyLong_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        st->kinds |= SEQ_INT;
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(obj);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                /* beyond uint64: filling reports it as out of bounds */
                if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                    return -1;
                }
                PyErr_Clear();
            }
            else {
                st->kinds |= SEQ_INT_ABOVE_INT64;
            }
        }
        else if (overflow == 0) {
            st->kinds |= SEQ_INT_IN_INT64;
        }
    }
    else if (PyFloat_Check(obj)) {
        st->kinds |= SEQ_FLOAT;
    }
    else if (PyComplex_Check(obj)) {
        st->kinds |= SEQ_COMPLEX;
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "cannot make a DeviceArray from an element of type "
                     "'%.200s': elements must be bool, int, float or complex "
                     "(or nested lists/tuples of them)",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* NumPy's choice of dtype for the kinds seen. */
static int
seq_inferred_typenum(int kinds)
{
    if (kinds & SEQ_COMPLEX) {
        return DA_COMPLEX128;
    }
    if (kinds & SEQ_FLOAT) {
        return DA_FLOAT64;
    }
    if (kinds & SEQ_INT) {
        if ((kinds & SEQ_INT_ABOVE_INT64) && (kinds & SEQ_INT_IN_INT64)) {
            /* NumPy makes each int an int64, or a uint64 when it needs to;
               the two promote to float64 */
            return DA_FLOAT64;
        }
        return (kinds & SEQ_INT_ABOVE_INT64) ? DA_UINT64 : DA_INT64;
    }
    if (kinds & SEQ_BOOL) {
        return DA_BOOL;
    }
    return DA_FLOAT64; /* no elements at all */
}

/* Check that obj matches the discovered shape below `depth`, and classify
   (fill == 0) or store (fill == 1) every element in C order. */
static int
seq_walk(PyObject *obj, int depth, seq_state *st, int fill)
{
    Py_ssize_t i, n;

    if (depth == st->ndim) {
        if (SEQ_IS_NESTED(obj)) {
            return seq_ragged_error(st, depth);
        }
        if (!fill) {
            return seq_classify(obj, st);
        }
        if (convert_store_python_scalar(obj, st->typenum, st->fill) < 0) {
            return -1;
        }
        st->fill += da_itemsize(st->typenum);
        return 0;
    }
    if (!SEQ_IS_NESTED(obj)) {
        return seq_ragged_error(st, depth);
    }
    n = PySequence_Fast_GET_SIZE(obj);
    if (n != st->shape[depth]) {
        return seq_ragged_error(st, depth);
    }
    for (i = 0; i < n; i++) {
        if (seq_walk(PySequence_Fast_GET_ITEM(obj, i), depth + 1, st, fill) < 0) {
            return -1;
        }
    }
    return 0;
}

DeviceArrayObject *
convert_from_sequence(PyObject *obj, int typenum, int backend)
{
    seq_state st;
    char *host = NULL;
    DeviceArrayObject *result = NULL;
    int64_t nbytes;

    memset(&st, 0, sizeof st);
    if (seq_discover_shape(obj, &st) < 0) {
        goto error;
    }
    if (typenum < 0) {
        if (seq_walk(obj, 0, &st, 0) < 0) {
            goto error;
        }
        typenum = seq_inferred_typenum(st.kinds);
    }
    result = array_new(backend, typenum, st.ndim, st.shape);
    if (result == NULL) {
        goto error;
    }
    nbytes = DA_NBYTES(result);
    if (nbytes == 0) {
        /* nothing to fill, but the nesting must still be regular */
        if (seq_walk(obj, 0, &st, 0) < 0) {
            goto error;
        }
        goto done;
    }
    host = PyMem_Malloc((size_t)nbytes);
    if (host == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    st.typenum = typenum;
    st.fill = host;
    if (seq_walk(obj, 0, &st, 1) < 0) {
        goto error;
    }
    if (transfer_copy(backend, result->data, host, (size_t)nbytes, DA_COPY_H2D) < 0) {
        goto error;
    }
    goto done;
error:
    Py_CLEAR(result);
done:
    PyMem_Free(host);
    return result;
}

/* ---- host objects out ---------------------------------------------------- */

static PyObject *convert_numpy_module;

/* NumPy, imported on first use: *module is NULL (and no error is set) when
   it is not installed. */
static int
convert_import_numpy(PyObject **module)
{
    if (convert_numpy_module == NULL) {
        PyObject *numpy = PyImport_ImportModule("numpy");
        if (numpy == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_ImportError)) {
                return -1;
            }
            PyErr_Clear();
            *module = NULL;
            return 0;
        }
        convert_numpy_module = numpy;
    }
    *module = convert_numpy_module;
    return 0;
}

/* A new numpy.ndarray holding a copy of a. */
static PyObject *
convert_to_numpy(DeviceArrayObject *a, PyObject *numpy)
{
    PyObject *shape = NULL, *result = NULL;
    Py_buffer view;
    int have_view = 0;

    shape = array_int64_tuple(a->ndim, DA_SHAPE(a));
    if (shape == NULL) {
        goto error;
    }
    result = PyObject_CallMethod(numpy, "empty", "Os", shape,
                                 dtype_table[a->typenum].name);
    if (result == NULL) {
        goto error;
    }
    if (PyObject_GetBuffer(result, &view, PyBUF_CONTIG) < 0) {
        goto error;
    }
    have_view = 1;
    if (view.len != DA_NBYTES(a)) {
        PyErr_Format(PyExc_RuntimeError,
                     "numpy.empty returned %zd bytes; %lld were expected", view.len,
                     (long long)DA_NBYTES(a));
        goto error;
    }
    if (convert_copy_to_host(a, view.buf) < 0) {
        goto error;
    }
    goto done;
error:
    Py_CLEAR(result);
done:
    if (have_view) {
        PyBuffer_Release(&view);
    }
    Py_XDECREF(shape);
    return result;
}

/* A struct format that means "raw bytes": 'B', 'b' or 'c', with or without
   a byte-order character. */
static int
convert_format_is_bytes(const char *format)
{
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' ||
        *format == '!') {
        format++;
    }
    return (format[0] == 'B' || format[0] == 'b' || format[0] == 'c') &&
           format[1] == '\0';
}

/* Fill the writable buffer `out` with a's elements.  Everything is checked
   before the first byte is written.  A non-C-contiguous `out` is filled
   through a host temporary, in its C order. */
static PyObject *
convert_to_buffer(DeviceArrayObject *a, PyObject *out)
{
    Py_buffer view;
    int have_view = 0, readonly, out_typenum;
    int64_t nbytes = DA_NBYTES(a);
    const char *format;
    char *temp = NULL;
    PyObject *result = NULL;

    /* exporters refuse a writable request in different ways (BufferError,
       NumPy's ValueError): look read-only first, to say why uniformly */
    if (PyObject_GetBuffer(out, &view, PyBUF_RECORDS_RO) < 0) {
        if (PyErr_ExceptionMatches(PyExc_BufferError) ||
            PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "out must be a writable buffer, not '%.200s'",
                         Py_TYPE(out)->tp_name);
        }
        goto done;
    }
    readonly = view.readonly;
    PyBuffer_Release(&view);
    if (readonly) {
        PyErr_Format(PyExc_TypeError,
                     "out must be a writable buffer; this '%.200s' is read-only",
                     Py_TYPE(out)->tp_name);
        goto done;
    }
    if (PyObject_GetBuffer(out, &view, PyBUF_RECORDS) < 0) {
        goto done;
    }
    have_view = 1;
    if (view.len != nbytes) {
        PyErr_Format(
                PyExc_ValueError,
                "out has %zd bytes but the array has %lld bytes (%lld %s elements)",
                view.len, (long long)nbytes, (long long)a->size,
                dtype_table[a->typenum].name);
        goto done;
    }
    format = view.format != NULL ? view.format : "B";
    if (!convert_format_is_bytes(format)) {
        if (dtype_from_format(format, view.itemsize, &out_typenum) < 0 ||
            out_typenum != a->typenum) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "out has format '%s' (itemsize %zd), which does not "
                         "match the array's dtype %s",
                         format, view.itemsize, dtype_table[a->typenum].name);
            goto done;
        }
    }
    if (nbytes > 0) {
        if (view.strides == NULL || PyBuffer_IsContiguous(&view, 'C')) {
            if (convert_copy_to_host(a, view.buf) < 0) {
                goto done;
            }
        }
        else {
            temp = convert_host_copy(a);
            if (temp == NULL) {
                goto done;
            }
            convert_buffer_strided_copy(&view, temp, 1);
        }
    }
    result = Py_NewRef(out);
done:
    PyMem_Free(temp);
    if (have_view) {
        PyBuffer_Release(&view);
    }
    return result;
}

PyObject *
convert_to_host(DeviceArrayObject *a, PyObject *out)
{
    PyObject *numpy;

    if (out != NULL && out != Py_None) {
        return convert_to_buffer(a, out);
    }
    if (convert_import_numpy(&numpy) < 0) {
        return NULL;
    }
    if (numpy != NULL) {
        return convert_to_numpy(a, numpy);
    }
    return convert_to_memoryview(a);
}

PyObject *
convert_scalar_to_python(const void *p, int typenum)
{
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            return PyBool_FromLong(da_load_bool(p, typenum));
        case DA_CLASS_SINT:
            return PyLong_FromLongLong(da_load_sint(p, typenum));
        case DA_CLASS_UINT:
            return PyLong_FromUnsignedLongLong(da_load_uint(p, typenum));
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            /* float16 and float32 widen to double exactly */
            return PyFloat_FromDouble(da_load_f64(p, typenum));
        default: {
            da_c128 z = da_load_c128(p, typenum);
            return PyComplex_FromDoubles(z.re, z.im);
        }
    }
}

/* Nested lists of the C-ordered elements at p with `shape`. */
static PyObject *
convert_tolist_at(const char *p, int typenum, int ndim, const int64_t *shape)
{
    PyObject *list;
    int64_t i, block;
    int d;

    if (ndim == 0) {
        return convert_scalar_to_python(p, typenum);
    }
    block = da_itemsize(typenum);
    for (d = 1; d < ndim; d++) {
        block *= shape[d];
    }
    list = PyList_New((Py_ssize_t)shape[0]);
    if (list == NULL) {
        return NULL;
    }
    for (i = 0; i < shape[0]; i++) {
        PyObject *item = convert_tolist_at(p + i * block, typenum, ndim - 1, shape + 1);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

PyObject *
convert_tolist(DeviceArrayObject *a)
{
    char *host = convert_host_copy(a);
    PyObject *result;

    if (host == NULL) {
        return NULL;
    }
    result = convert_tolist_at(host, a->typenum, a->ndim, DA_SHAPE(a));
    PyMem_Free(host);
    return result;
}

PyObject *
convert_item(DeviceArrayObject *a)
{
    /* large enough and aligned for any element */
    da_c128 element;

    if (a->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "can only convert an array of size 1 to a Python scalar");
        return NULL;
    }
    /* every index of a size-1 array is 0: the element is at data */
    if (transfer_copy(a->backend, &element, a->data, (size_t)DA_ITEMSIZE(a),
                      DA_COPY_D2H) < 0) {
        return NULL;
    }
    return convert_scalar_to_python(&element, a->typenum);
}

/* ---- repr and str -------------------------------------------------------- */

/*
 * NumPy's array printing (numpy/_core/arrayprint.py as of NumPy 2.3,
 * default options: linewidth 75, threshold 1000, edgeitems 3, precision 8,
 * floatmode 'maxprec'), reimplemented for our 14 dtypes; the output is
 * NumPy's for an ndarray subclass named DeviceArray.  Floats print the
 * shortest digits that round-trip through their own dtype, limited to 8
 * digits after the point; one format (positional or scientific, paddings)
 * is chosen per array from the values shown.
 */

#define REPR_LINEWIDTH 75
#define REPR_THRESHOLD 1000
#define REPR_EDGEITEMS 3
#define REPR_PRECISION 8
#define REPR_WORD_MAX 192

/* A growing text buffer.  Appends never fail individually: an allocation
   failure is remembered and reported once by strbuf_check. */
typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
    int failed;
} strbuf;

static void
strbuf_reserve(strbuf *sb, Py_ssize_t extra)
{
    Py_ssize_t cap;
    char *data;

    if (sb->failed || sb->len + extra <= sb->cap) {
        return;
    }
    cap = sb->cap > 0 ? sb->cap : 128;
    while (cap < sb->len + extra) {
        cap *= 2;
    }
    data = PyMem_Realloc(sb->data, (size_t)cap);
    if (data == NULL) {
        sb->failed = 1;
        return;
    }
    sb->data = data;
    sb->cap = cap;
}

static void
strbuf_write(strbuf *sb, const char *s, Py_ssize_t n)
{
    strbuf_reserve(sb, n);
    if (!sb->failed && n > 0) {
        memcpy(sb->data + sb->len, s, (size_t)n);
        sb->len += n;
    }
}

static void
strbuf_puts(strbuf *sb, const char *s)
{
    strbuf_write(sb, s, (Py_ssize_t)strlen(s));
}

static void
strbuf_repeat(strbuf *sb, char c, Py_ssize_t n)
{
    strbuf_reserve(sb, n);
    if (!sb->failed && n > 0) {
        memset(sb->data + sb->len, c, (size_t)n);
        sb->len += n;
    }
}

static void
strbuf_rstrip(strbuf *sb)
{
    while (sb->len > 0 && sb->data[sb->len - 1] == ' ') {
        sb->len--;
    }
}

static int
strbuf_check(const strbuf *sb)
{
    if (sb->failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
strbuf_release(strbuf *sb)
{
    PyMem_Free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

/* A finite non-negative float as decimal digits: value = d0.d1d2... x
   10^exp10, no trailing zeros (zero is "0", exponent 0). */
#define DECIMAL_MAXDIGITS 40

typedef struct {
    char digits[DECIMAL_MAXDIGITS];
    int ndigits;
    int exp10;
} decimal;

/* Parse the output of PyOS_double_to_string for a finite value >= 0. */
static void
decimal_parse(const char *s, decimal *d)
{
    int int_digits = 0, seen_point = 0, started = 0, exponent = 0, negative = 0;

    d->ndigits = 0;
    for (; *s != '\0'; s++) {
        if (*s >= '0' && *s <= '9') {
            if (!started && *s == '0') {
                /* a leading zero after the point moves the value down */
                if (seen_point) {
                    int_digits--;
                }
                continue;
            }
            started = 1;
            if (d->ndigits < DECIMAL_MAXDIGITS) {
                d->digits[d->ndigits++] = *s;
            }
            if (!seen_point) {
                int_digits++;
            }
        }
        else if (*s == '.') {
            seen_point = 1;
        }
        else if (*s == 'e' || *s == 'E') {
            for (s++; *s != '\0'; s++) {
                if (*s == '-') {
                    negative = 1;
                }
                else if (*s >= '0' && *s <= '9') {
                    exponent = exponent * 10 + (*s - '0');
                }
            }
            break;
        }
    }
    if (d->ndigits == 0) {
        d->digits[0] = '0';
        d->ndigits = 1;
        d->exp10 = 0;
        return;
    }
    while (d->ndigits > 1 && d->digits[d->ndigits - 1] == '0') {
        d->ndigits--;
    }
    d->exp10 = int_digits + (negative ? -exponent : exponent) - 1;
}

/* Format x with PyOS_double_to_string and parse it; *parsed (when not
   NULL) is the double the text reads back as. */
static int
decimal_format(double x, char code, int precision, decimal *d, double *parsed)
{
    char *text = PyOS_double_to_string(x, code, precision, 0, NULL);

    if (text == NULL) {
        return -1;
    }
    if (parsed != NULL) {
        *parsed = PyOS_string_to_double(text, NULL, NULL);
        if (*parsed == -1.0 && PyErr_Occurred()) {
            PyMem_Free(text);
            return -1;
        }
    }
    decimal_parse(text, d);
    PyMem_Free(text);
    return 0;
}

/* The shortest digits of ax (finite, >= 0, a value of the real dtype
   part_typenum) that read back as the same value of that dtype. */
static int
decimal_shortest(double ax, int part_typenum, decimal *d)
{
    int digits, max_digits = part_typenum == DA_FLOAT16 ? 5 : 9;
    double back;

    if (ax == 0.0) {
        decimal_parse("0", d);
        return 0;
    }
    if (part_typenum == DA_FLOAT64) {
        return decimal_format(ax, 'r', 0, d, NULL);
    }
    for (digits = 1; digits <= max_digits; digits++) {
        if (decimal_format(ax, 'e', digits - 1, d, &back) < 0) {
            return -1;
        }
        if (part_typenum == DA_FLOAT32
                    ? (float)back == (float)ax
                    : da_double_to_half(back) == da_double_to_half(ax)) {
            break;
        }
    }
    return 0;
}

/* The shortest digits, rounded to at most REPR_PRECISION digits after the
   point (positional) or after the first digit (scientific). */
static int
decimal_limited(double ax, int part_typenum, int scientific, decimal *d)
{
    if (decimal_shortest(ax, part_typenum, d) < 0) {
        return -1;
    }
    if (!scientific && d->ndigits - 1 - d->exp10 > REPR_PRECISION) {
        return decimal_format(ax, 'f', REPR_PRECISION, d, NULL);
    }
    if (scientific && d->ndigits - 1 > REPR_PRECISION) {
        return decimal_format(ax, 'e', REPR_PRECISION, d, NULL);
    }
    return 0;
}

static int
decimal_int_len(const decimal *d)
{
    return d->exp10 >= 0 ? d->exp10 + 1 : 1;
}

static int
decimal_frac_len(const decimal *d)
{
    int n = d->ndigits - 1 - d->exp10;
    return n > 0 ? n : 0;
}

/* The digit at 10^place (0 beyond the stored digits). */
static char
decimal_digit_at(const decimal *d, int place)
{
    int k = d->exp10 - place;
    return (k >= 0 && k < d->ndigits) ? d->digits[k] : '0';
}

/* Positional digits of d: "123.45", "0.001", "100." ("." always written,
   the fraction as long as it needs). */
static char *
decimal_write_positional(const decimal *d, char *w, int with_point)
{
    int place, int_len = decimal_int_len(d), frac_len = decimal_frac_len(d);

    for (place = int_len - 1; place >= 0; place--) {
        *w++ = decimal_digit_at(d, place);
    }
    if (with_point || frac_len > 0) {
        *w++ = '.';
    }
    for (place = -1; place >= -frac_len; place--) {
        *w++ = decimal_digit_at(d, place);
    }
    return w;
}

static int
decimal_exp_len(int exp10)
{
    int n = 0, e = exp10 < 0 ? -exp10 : exp10;

    do {
        n++;
        e /= 10;
    } while (e > 0);
    return n < 2 ? 2 : n;
}

/* "e+05": the exponent zero-padded to exp_len digits. */
static char *
decimal_write_exponent(int exp10, int exp_len, char *w)
{
    int e = exp10 < 0 ? -exp10 : exp10, i;

    *w++ = 'e';
    *w++ = exp10 < 0 ? '-' : '+';
    for (i = exp_len - 1; i >= 0; i--) {
        w[i] = (char)('0' + e % 10);
        e /= 10;
    }
    return w + exp_len;
}

static char *
repr_spaces(char *w, int n)
{
    while (n-- > 0) {
        *w++ = ' ';
    }
    return w;
}

/* NumPy's FloatingFormat: one layout for all values of an array (or all
   real or all imaginary parts of a complex one). */
typedef struct {
    int part_typenum; /* float16, float32 or float64: digits to round-trip */
    int scientific;
    int sign_plus; /* '+' before non-negative values (imaginary parts) */
    int pad_left;  /* width up to the point, sign included */
    int pad_right; /* width after the point */
    int precision; /* scientific: digits after the point, all values */
    int exp_len;   /* scientific: exponent digits */
} float_format;

/* 10^(decimal precision) of float16 and float32 (numpy.finfo's 3 and 6),
   1e8 for float64: where NumPy starts writing values in scientific form. */
static double
repr_sci_cutoff(int part_typenum)
{
    switch (part_typenum) {
        case DA_FLOAT16:
            return 1e3;
        case DA_FLOAT32:
            return 1e6;
        default:
            return 1e8;
    }
}

static double
repr_load_part(const char *p, int typenum, int imag)
{
    if (convert_is_complex(typenum)) {
        da_c128 z = da_load_c128(p, typenum);
        return imag ? z.im : z.re;
    }
    return da_load_f64(p, typenum);
}

static int
float_format_fill(float_format *f, const char *data, int64_t n, int typenum, int imag)
{
    int itemsize = da_itemsize(typenum), have_nonzero = 0, nonfinite = 0;
    int neginf = 0, frac_max = 0;
    double max_abs = 0.0, min_abs = 0.0;
    decimal d;
    int64_t i;

    memset(f, 0, sizeof *f);
    f->part_typenum = convert_part_typenum(typenum);
    f->sign_plus = imag;
    for (i = 0; i < n; i++) {
        double ax = fabs(repr_load_part(data + i * itemsize, typenum, imag));
        if (isfinite(ax) && ax != 0.0) {
            if (!have_nonzero || ax > max_abs) {
                max_abs = ax;
            }
            if (!have_nonzero || ax < min_abs) {
                min_abs = ax;
            }
            have_nonzero = 1;
        }
    }
    /* NumPy 2.3's cutoff: 10^min(8, decimal precision of the dtype) */
    f->scientific = have_nonzero && (max_abs >= repr_sci_cutoff(f->part_typenum) ||
                                     min_abs < 1e-4 || max_abs / min_abs > 1000.0);
    for (i = 0; i < n; i++) {
        double x = repr_load_part(data + i * itemsize, typenum, imag);
        int sign_len, int_len, frac_len;
        if (!isfinite(x)) {
            nonfinite = 1;
            neginf |= isinf(x) && x < 0;
            continue;
        }
        if (decimal_limited(fabs(x), f->part_typenum, f->scientific, &d) < 0) {
            return -1;
        }
        sign_len = (signbit(x) || f->sign_plus) ? 1 : 0;
        if (f->scientific) {
            int exp_len = decimal_exp_len(d.exp10);
            int_len = sign_len + 1;
            frac_len = d.ndigits - 1;
            if (exp_len > f->exp_len) {
                f->exp_len = exp_len;
            }
        }
        else {
            int_len = sign_len + decimal_int_len(&d);
            frac_len = decimal_frac_len(&d);
        }
        if (int_len > f->pad_left) {
            f->pad_left = int_len;
        }
        if (frac_len > frac_max) {
            frac_max = frac_len;
        }
    }
    if (f->scientific) {
        f->precision = frac_max;
        f->pad_right = f->exp_len + 2 + frac_max;
    }
    else {
        f->pad_right = frac_max;
    }
    if (nonfinite) {
        /* room for "nan", "inf", "-inf" (or "+inf") over the whole width */
        int offset = f->pad_right + 1;
        int inf_len = 3 + (f->sign_plus || neginf);
        if (3 - offset > f->pad_left) {
            f->pad_left = 3 - offset;
        }
        if (inf_len - offset > f->pad_left) {
            f->pad_left = inf_len - offset;
        }
    }
    return 0;
}

/* One value in the layout f; returns the end of what was written. */
static char *
float_format_write(const float_format *f, double x, char *w)
{
    char sign = signbit(x) ? '-' : (f->sign_plus ? '+' : '\0');
    decimal d;

    if (!isfinite(x)) {
        int len;
        if (isnan(x)) {
            sign = f->sign_plus ? '+' : '\0';
        }
        len = 3 + (sign != '\0');
        w = repr_spaces(w, f->pad_left + f->pad_right + 1 - len);
        if (sign != '\0') {
            *w++ = sign;
        }
        memcpy(w, isnan(x) ? "nan" : "inf", 3);
        return w + 3;
    }
    if (decimal_limited(fabs(x), f->part_typenum, f->scientific, &d) < 0) {
        return NULL;
    }
    if (f->scientific) {
        int i;
        /* NumPy's min_digits: digits past the shortest ones are the exact
           value's, not zeros (they differ for float16 and float32) */
        if (d.ndigits - 1 < f->precision &&
            decimal_format(fabs(x), 'e', f->precision, &d, NULL) < 0) {
            return NULL;
        }
        w = repr_spaces(w, f->pad_left - 1 - (sign != '\0'));
        if (sign != '\0') {
            *w++ = sign;
        }
        *w++ = d.digits[0];
        *w++ = '.';
        for (i = 1; i <= f->precision; i++) {
            *w++ = i < d.ndigits ? d.digits[i] : '0';
        }
        return decimal_write_exponent(d.exp10, f->exp_len, w);
    }
    w = repr_spaces(w, f->pad_left - decimal_int_len(&d) - (sign != '\0'));
    if (sign != '\0') {
        *w++ = sign;
    }
    w = decimal_write_positional(&d, w, 1);
    return repr_spaces(w, f->pad_right - decimal_frac_len(&d));
}

/* The layout of every element an array shows. */
typedef struct {
    int typenum;
    da_class cls;
    int width;       /* bool and integer elements, right-aligned */
    float_format re; /* float values, real parts of complex */
    float_format im; /* imaginary parts */
} elem_format;

static int
elem_int_text(const char *p, int typenum, char *w)
{
    if (da_class_of(typenum) == DA_CLASS_UINT) {
        return PyOS_snprintf(w, 32, "%llu",
                             (unsigned long long)da_load_uint(p, typenum));
    }
    return PyOS_snprintf(w, 32, "%lld", (long long)da_load_sint(p, typenum));
}

static int
elem_format_fill(elem_format *f, const char *data, int64_t n, int typenum, int ndim)
{
    int64_t i;
    char text[32];

    memset(f, 0, sizeof *f);
    f->typenum = typenum;
    f->cls = da_class_of(typenum);
    switch (f->cls) {
        case DA_CLASS_BOOL:
            /* NumPy pads " True" to align with "False", except in 0-d */
            f->width = ndim > 0 ? 5 : 0;
            return 0;
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            for (i = 0; i < n; i++) {
                int len = elem_int_text(data + i * da_itemsize(typenum), typenum, text);
                if (len > f->width) {
                    f->width = len;
                }
            }
            return 0;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            return float_format_fill(&f->re, data, n, typenum, 0);
        default:
            if (float_format_fill(&f->re, data, n, typenum, 0) < 0) {
                return -1;
            }
            return float_format_fill(&f->im, data, n, typenum, 1);
    }
}

/* Write the element at p into w (REPR_WORD_MAX bytes); its length, or -1
   with an exception. */
static int
elem_format_write(const elem_format *f, const char *p, char *w)
{
    char text[32], *end;
    int len;

    switch (f->cls) {
        case DA_CLASS_BOOL: {
            const char *s = da_load_bool(p, f->typenum) ? "True" : "False";
            len = (int)strlen(s);
            end = repr_spaces(w, f->width - len);
            memcpy(end, s, (size_t)len);
            return (int)(end - w) + len;
        }
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            len = elem_int_text(p, f->typenum, text);
            end = repr_spaces(w, f->width - len);
            memcpy(end, text, (size_t)len);
            return (int)(end - w) + len;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            end = float_format_write(&f->re, da_load_f64(p, f->typenum), w);
            return end == NULL ? -1 : (int)(end - w);
        default: {
            /* real part, then the imaginary part with 'j' before its
               right padding */
            da_c128 z = da_load_c128(p, f->typenum);
            char *imag, *digits_end;
            Py_ssize_t pad;
            end = float_format_write(&f->re, z.re, w);
            if (end == NULL) {
                return -1;
            }
            imag = end;
            end = float_format_write(&f->im, z.im, imag);
            if (end == NULL) {
                return -1;
            }
            digits_end = end;
            while (digits_end > imag && digits_end[-1] == ' ') {
                digits_end--;
            }
            pad = end - digits_end;
            *digits_end = 'j';
            end = repr_spaces(digits_end + 1, (int)pad);
            return (int)(end - w);
        }
    }
}

/* The elements repr shows, C-ordered over `shape`: the whole array, or
   when summarised, the first and last REPR_EDGEITEMS along each long
   dimension. */
typedef struct {
    const char *data;
    int ndim;
    int64_t shape[DA_MAXDIMS];
    int64_t block[DA_MAXDIMS];  /* elements per index, C order */
    int summarised[DA_MAXDIMS]; /* "..." after REPR_EDGEITEMS items */
    elem_format format;
    const char *separator; /* ", " (repr) or " " (str) */
    int line_width;
    int indent; /* hanging indent of dimension 0 */
} repr_context;

/* NumPy's _extendLine: start a new line when the word does not fit,
   unless that would not help. */
static void
repr_extend_line(strbuf *text, strbuf *line, const char *word, int len, int width,
                 int hanging)
{
    if (line->len + len > width && line->len > hanging) {
        strbuf_rstrip(line);
        strbuf_write(text, line->data, line->len);
        strbuf_puts(text, "\n");
        line->len = 0;
        strbuf_repeat(line, ' ', hanging);
    }
    strbuf_write(line, word, len);
}

/* NumPy's _formatArray recursion, for dimension `axis` of the sub-array
   starting at element `start`; appends "[...]" to out. */
static int
repr_format_axis(const repr_context *c, int axis, int64_t start, strbuf *out)
{
    int hanging = c->indent + axis, width = c->line_width - axis;
    int axes_left = c->ndim - axis, status = -1, len, i;
    int itemsize = da_itemsize(c->format.typenum);
    int64_t n = c->shape[axis], index;
    Py_ssize_t sep_len = (Py_ssize_t)strlen(c->separator);
    strbuf text = { 0 }, line = { 0 };
    char word[REPR_WORD_MAX];

    if (axes_left == 1) {
        /* leave room for the "," or "]" after each element */
        int elem_width = width - 1;
        strbuf_repeat(&line, ' ', hanging);
        for (index = 0; index < n; index++) {
            const char *element = c->data + (start + index) * itemsize;
            len = elem_format_write(&c->format, element, word);
            if (len < 0) {
                goto done;
            }
            repr_extend_line(&text, &line, word, len, elem_width, hanging);
            if (index < n - 1) {
                strbuf_write(&line, c->separator, sep_len);
            }
            if (c->summarised[axis] && index == REPR_EDGEITEMS - 1) {
                repr_extend_line(&text, &line, "...", 3, elem_width, hanging);
                strbuf_write(&line, c->separator, sep_len);
            }
        }
        strbuf_write(&text, line.data, line.len);
    }
    else {
        /* rows end with the separator's non-space part and one newline per
           remaining dimension */
        Py_ssize_t row_sep_len = sep_len;
        while (row_sep_len > 0 && c->separator[row_sep_len - 1] == ' ') {
            row_sep_len--;
        }
        for (index = 0; index < n; index++) {
            strbuf_repeat(&text, ' ', hanging);
            int64_t row = start + index * c->block[axis];
            if (repr_format_axis(c, axis + 1, row, &text) < 0) {
                goto done;
            }
            if (index < n - 1) {
                strbuf_write(&text, c->separator, row_sep_len);
                for (i = 0; i < axes_left - 1; i++) {
                    strbuf_puts(&text, "\n");
                }
            }
            if (c->summarised[axis] && index == REPR_EDGEITEMS - 1) {
                strbuf_repeat(&text, ' ', hanging);
                strbuf_puts(&text, "...");
                strbuf_write(&text, c->separator, row_sep_len);
                for (i = 0; i < axes_left - 1; i++) {
                    strbuf_puts(&text, "\n");
                }
            }
        }
    }
    if (strbuf_check(&text) < 0 || strbuf_check(&line) < 0) {
        goto done;
    }
    /* the first line's hanging indent is where the "[" goes */
    strbuf_puts(out, "[");
    strbuf_write(out, text.data + hanging, text.len - hanging);
    strbuf_puts(out, "]");
    status = 0;
done:
    strbuf_release(&text);
    strbuf_release(&line);
    return status;
}

/* Copy the elements repr shows to a new host block (C order over
   c->shape); for a summarised array only the edges leave the device, one
   strided copy per corner block. */
static char *
repr_gather(DeviceArrayObject *a, repr_context *c)
{
    DeviceArrayObject *edges = NULL;
    int64_t block_shape[DA_MAXDIMS], offsets_src, offsets_dst;
    int long_dims[DA_MAXDIMS], nlong = 0, d, k;
    uint64_t corner;
    char *host = NULL;

    for (d = 0; d < a->ndim; d++) {
        c->summarised[d] = 0;
        c->shape[d] = DA_SHAPE(a)[d];
    }
    if (a->size <= REPR_THRESHOLD) {
        return convert_host_copy(a);
    }
    for (d = 0; d < a->ndim; d++) {
        if (DA_SHAPE(a)[d] > 2 * REPR_EDGEITEMS) {
            c->summarised[d] = 1;
            c->shape[d] = 2 * REPR_EDGEITEMS;
            long_dims[nlong++] = d;
        }
    }
    edges = array_new(a->backend, a->typenum, a->ndim, c->shape);
    if (edges == NULL) {
        goto done;
    }
    /* each bit of `corner` picks the leading or trailing edge of one long
       dimension */
    for (corner = 0; corner < (UINT64_C(1) << nlong); corner++) {
        offsets_src = 0;
        offsets_dst = 0;
        for (d = 0; d < a->ndim; d++) {
            block_shape[d] = c->shape[d];
        }
        for (k = 0; k < nlong; k++) {
            d = long_dims[k];
            block_shape[d] = REPR_EDGEITEMS;
            if (corner & (UINT64_C(1) << k)) {
                offsets_src += (DA_SHAPE(a)[d] - REPR_EDGEITEMS) * DA_STRIDES(a)[d];
                offsets_dst += REPR_EDGEITEMS * DA_STRIDES(edges)[d];
            }
        }
        if (convert_elementwise_copy(a->backend, a->ndim, block_shape,
                                     edges->data + offsets_dst, a->typenum,
                                     DA_STRIDES(edges), a->data + offsets_src,
                                     a->typenum, DA_STRIDES(a)) < 0) {
            goto done;
        }
    }
    host = convert_host_copy(edges);
done:
    Py_XDECREF(edges);
    return host;
}

/* A float the way NumPy's scalar str writes it ("0.1", "1e-05", "inf"; for
   float64 that is Python's repr), with the shortest digits of its own
   dtype; dot_zero adds ".0" to integral
   positional values, sign_plus writes '+' before non-negative ones. */
static int
repr_python_float(strbuf *sb, double x, int part_typenum, int dot_zero, int sign_plus)
{
    char text[REPR_WORD_MAX], *w = text;
    decimal d;

    if (signbit(x) && !isnan(x)) {
        *w++ = '-';
    }
    else if (sign_plus) {
        *w++ = '+';
    }
    if (isnan(x) || isinf(x)) {
        memcpy(w, isnan(x) ? "nan" : "inf", 3);
        w += 3;
    }
    else {
        if (decimal_shortest(fabs(x), part_typenum, &d) < 0) {
            return -1;
        }
        /* NumPy's scalar str switches to scientific at 1e-4 and at a
           power of ten that depends on the precision */
        double ax = fabs(x);
        double upper =
                part_typenum == DA_FLOAT64 ? 1e16 : repr_sci_cutoff(part_typenum);
        if (ax == 0.0 || (ax >= 1e-4 && ax < upper)) {
            w = decimal_write_positional(&d, w, 0);
            if (dot_zero && decimal_frac_len(&d) == 0) {
                memcpy(w, ".0", 2);
                w += 2;
            }
        }
        else {
            int i;
            *w++ = d.digits[0];
            if (d.ndigits > 1) {
                *w++ = '.';
                for (i = 1; i < d.ndigits; i++) {
                    *w++ = d.digits[i];
                }
            }
            w = decimal_write_exponent(d.exp10, decimal_exp_len(d.exp10), w);
        }
    }
    strbuf_write(sb, text, w - text);
    return 0;
}

/* str() of a 0-d array: the element as NumPy's scalar str writes it,
   which is Python's repr with the element's own precision. */
static int
repr_scalar_str(strbuf *sb, const char *p, int typenum)
{
    char text[32];
    int part = convert_part_typenum(typenum);

    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            strbuf_puts(sb, da_load_bool(p, typenum) ? "True" : "False");
            return 0;
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            strbuf_write(sb, text, elem_int_text(p, typenum, text));
            return 0;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            return repr_python_float(sb, da_load_f64(p, typenum), part, 1, 0);
        default: {
            /* Python's complex repr: a bare "2j" when the real part is +0 */
            da_c128 z = da_load_c128(p, typenum);
            if (z.re == 0.0 && !signbit(z.re)) {
                if (repr_python_float(sb, z.im, part, 0, 0) < 0) {
                    return -1;
                }
                strbuf_puts(sb, "j");
                return 0;
            }
            strbuf_puts(sb, "(");
            if (repr_python_float(sb, z.re, part, 0, 0) < 0 ||
                repr_python_float(sb, z.im, part, 0, 1) < 0) {
                return -1;
            }
            strbuf_puts(sb, "j)");
            return 0;
        }
    }
}

/* NumPy's dtypes that repr leaves implied. */
static int
repr_dtype_is_implied(int typenum)
{
    return typenum == DA_FLOAT64 || typenum == DA_INT64 || typenum == DA_BOOL ||
           typenum == DA_COMPLEX128;
}

static void
repr_write_shape(strbuf *sb, const DeviceArrayObject *a)
{
    char text[32];
    int d;

    strbuf_puts(sb, "(");
    for (d = 0; d < a->ndim; d++) {
        PyOS_snprintf(text, sizeof text, d > 0 ? ", %lld" : "%lld",
                      (long long)DA_SHAPE(a)[d]);
        strbuf_puts(sb, text);
    }
    strbuf_puts(sb, a->ndim == 1 ? ",)" : ")");
}

PyObject *
convert_repr(DeviceArrayObject *a, int is_repr)
{
    repr_context c;
    strbuf out = { 0 }, extras = { 0 };
    char *host = NULL, word[REPR_WORD_MAX];
    const char *name = Py_TYPE(a)->tp_name, *dot = strrchr(name, '.');
    int64_t shown = 1;
    Py_ssize_t prefix_len, last_line;
    PyObject *result = NULL;
    int d, len, summarised = a->size > REPR_THRESHOLD;

    /* NumPy's repr uses type(a).__name__, the tp_name after its module */
    if (dot != NULL) {
        name = dot + 1;
    }
    memset(&c, 0, sizeof c);
    if (is_repr) {
        strbuf_puts(&out, name);
        strbuf_puts(&out, "(");
    }
    prefix_len = out.len;
    if (a->size == 0) {
        strbuf_puts(&out, "[]");
    }
    else {
        host = repr_gather(a, &c);
        if (host == NULL) {
            goto done;
        }
        if (a->ndim == 0 && !is_repr) {
            if (repr_scalar_str(&out, host, a->typenum) < 0) {
                goto done;
            }
            goto finish;
        }
        for (d = 0; d < a->ndim; d++) {
            shown *= c.shape[d];
        }
        if (elem_format_fill(&c.format, host, shown, a->typenum, a->ndim) < 0) {
            goto done;
        }
        if (a->ndim == 0) {
            len = elem_format_write(&c.format, host, word);
            if (len < 0) {
                goto done;
            }
            strbuf_write(&out, word, len);
        }
        else {
            c.data = host;
            c.ndim = a->ndim;
            c.block[a->ndim - 1] = 1;
            for (d = a->ndim - 2; d >= 0; d--) {
                c.block[d] = c.block[d + 1] * c.shape[d + 1];
            }
            c.separator = is_repr ? ", " : " ";
            /* repr keeps room for its closing ")" */
            c.line_width = REPR_LINEWIDTH - (is_repr ? 1 : 0);
            c.indent = (int)prefix_len + 1;
            if (repr_format_axis(&c, 0, 0, &out) < 0) {
                goto done;
            }
        }
    }
    if (is_repr) {
        if ((a->size == 0 && !(a->ndim == 1)) || summarised) {
            strbuf_puts(&extras, "shape=");
            repr_write_shape(&extras, a);
        }
        if (!repr_dtype_is_implied(a->typenum) || a->size == 0) {
            if (extras.len > 0) {
                strbuf_puts(&extras, ", ");
            }
            strbuf_puts(&extras, "dtype=");
            strbuf_puts(&extras, dtype_table[a->typenum].name);
        }
        if (extras.len > 0) {
            strbuf_puts(&out, ",");
            last_line = out.len;
            while (last_line > 0 && out.data != NULL &&
                   out.data[last_line - 1] != '\n') {
                last_line--;
            }
            last_line = out.len - last_line;
            if (last_line + extras.len + 2 > REPR_LINEWIDTH) {
                strbuf_puts(&out, "\n");
                strbuf_repeat(&out, ' ', prefix_len);
            }
            else {
                strbuf_puts(&out, " ");
            }
            strbuf_write(&out, extras.data, extras.len);
        }
        strbuf_puts(&out, ")");
    }
finish:
    if (strbuf_check(&out) < 0 || strbuf_check(&extras) < 0) {
        goto done;
    }
    result = PyUnicode_DecodeASCII(out.data, out.len, NULL);
done:
    PyMem_Free(host);
    strbuf_release(&out);
    strbuf_release(&extras);
    return result;
}

/* ---- module -------------------------------------------------------------- */

int
convert_module_init(PyObject *module)
{
    if (PyType_Ready(&HostBuffer_Type) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "_HostBuffer", (PyObject *)&HostBuffer_Type);
}
