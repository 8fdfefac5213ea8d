/*
 * PinnedBuffer, empty_pinned() and to_device's asynchronous branch (see
 * pinned.h).
 *
 * Ownership:
 *   - A PinnedBuffer owns its block of transfer_host_alloc and gives it back
 *     in dealloc.  The block never moves or resizes, and every buffer export
 *     holds a reference to the PinnedBuffer, so no export count is needed.
 *   - An asynchronous copy may still read or write a PinnedBuffer's block
 *     after the call that queued it returned and the caller dropped every
 *     reference: freeing page-locked memory (cudaFreeHost) waits for the
 *     device, so the copy completes before the memory goes.
 *   - Live PinnedBuffers are linked in a list (pinned_live, under the GIL)
 *     so that pinned_async_ok recognises their memory, and that of any view
 *     of it, without asking the driver; dealloc unlinks them.
 *   - A page-locked block whose PinnedBuffer goes while the thread captures
 *     a CUDA graph is not freed then (cudaFreeHost would wait for the
 *     device and invalidate the capture): it moves to pinned_deferred, a
 *     list of PyMem_RawMalloc'd nodes, and is freed by the next dealloc or
 *     empty_pinned outside a capture.
 */
#include "interop/pinned.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "runtime/device.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "interop/hostbuffer.h"
#include "runtime/stream.h"
#include "runtime/transfer.h"

typedef struct PinnedBufferObject {
    PyObject_HEAD
    char *data;
    Py_ssize_t nbytes;
    int ndim;
    int typenum;
    int page_locked;
    Py_ssize_t shape[DA_MAXDIMS];
    Py_ssize_t strides[DA_MAXDIMS];
    struct PinnedBufferObject *prev;
    struct PinnedBufferObject *next;
} PinnedBufferObject;

static PyTypeObject PinnedBuffer_Type;

/* The live PinnedBuffers, most recent first. */
static PinnedBufferObject *pinned_live = NULL;

/* -1 when the nbytes at ptr lie in no live PinnedBuffer, else whether that
   buffer is page-locked. */
static int
pinned_lookup(const void *ptr, size_t nbytes)
{
    const PinnedBufferObject *b;
    uintptr_t start = (uintptr_t)ptr;
    for (b = pinned_live; b != NULL; b = b->next) {
        uintptr_t base = (uintptr_t)b->data;
        if (start >= base && start - base <= (uintptr_t)b->nbytes &&
            nbytes <= (size_t)b->nbytes - (size_t)(start - base)) {
            return b->page_locked;
        }
    }
    return -1;
}

int
pinned_async_ok(const void *ptr, size_t nbytes, int backend)
{
    int known = pinned_lookup(ptr, nbytes);
    if (known >= 0) {
        return known || backend == DA_BACKEND_HOST;
    }
    return transfer_is_page_locked(ptr, nbytes);
}

/* ---- freeing, also after a graph capture ---------------------------------- */

typedef struct pinned_deferred_block {
    struct pinned_deferred_block *next;
    void *data;
} pinned_deferred_block;

/* Page-locked blocks waiting for the end of a capture, most recent first. */
static pinned_deferred_block *pinned_deferred = NULL;

/* Whether the calling thread captures a CUDA graph: memory born at clock 0
   predates every capture, so its free is deferred exactly then. */
static int
pinned_capturing(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    return stream_free_deferred(0);
#else
    return 0;
#endif
}

/* Give back a block.  A failure is reported as unraisable: deallocators
   have no caller to raise to. */
static void
pinned_free_block(void *data, int page_locked, PyObject *owner)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (transfer_host_free(data, page_locked) < 0) {
        PyErr_WriteUnraisable(owner);
    }
    PyErr_Restore(type, value, traceback);
}

/* Free the deferred blocks, outside a capture.  Each node is unlinked
   before its free, which releases the GIL. */
static void
pinned_release_deferred(void)
{
    while (pinned_deferred != NULL && !pinned_capturing()) {
        pinned_deferred_block *node = pinned_deferred;
        pinned_deferred = node->next;
        pinned_free_block(node->data, 1, NULL);
        PyMem_RawFree(node);
    }
}

/* ---- the type ------------------------------------------------------------- */

static void
pinned_dealloc(PinnedBufferObject *self)
{
    pinned_deferred_block *node = NULL;

    if (self->prev != NULL) {
        self->prev->next = self->next;
    }
    else if (pinned_live == self) {
        pinned_live = self->next;
    }
    if (self->next != NULL) {
        self->next->prev = self->prev;
    }
    if (self->data != NULL && self->page_locked && pinned_capturing()) {
        /* without a node the block is freed now: the capture fails, safely */
        node = PyMem_RawMalloc(sizeof(*node));
    }
    if (node != NULL) {
        node->data = self->data;
        node->next = pinned_deferred;
        pinned_deferred = node;
    }
    else if (self->data != NULL) {
        pinned_free_block(self->data, self->page_locked, (PyObject *)self);
        pinned_release_deferred();
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
pinned_getbuffer(PinnedBufferObject *self, Py_buffer *view, int flags)
{
    return hostbuffer_export((PyObject *)self, "PinnedBuffer", self->data, self->nbytes,
                             self->typenum, self->ndim, self->shape, self->strides, view,
                             flags);
}

static PyObject *
pinned_get_shape(PinnedBufferObject *self, void *Py_UNUSED(closure))
{
    int64_t shape[DA_MAXDIMS];
    int d;
    for (d = 0; d < self->ndim; d++) {
        shape[d] = self->shape[d];
    }
    return array_int64_tuple(self->ndim, shape);
}

static PyObject *
pinned_get_dtype(PinnedBufferObject *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(dtypeobject_singleton(self->typenum));
}

static PyObject *
pinned_get_nbytes(PinnedBufferObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(self->nbytes);
}

static PyObject *
pinned_get_ptr(PinnedBufferObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(self->data);
}

static PyObject *
pinned_get_page_locked(PinnedBufferObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(self->page_locked);
}

static PyObject *
pinned_repr(PinnedBufferObject *self)
{
    PyObject *shape = pinned_get_shape(self, NULL), *result;
    if (shape == NULL) {
        return NULL;
    }
    result = PyUnicode_FromFormat("PinnedBuffer(shape=%R, dtype=%s, page_locked=%s)",
                                  shape, dtype_table[self->typenum].name,
                                  self->page_locked ? "True" : "False");
    Py_DECREF(shape);
    return result;
}

static PyGetSetDef pinned_getset[] = {
    {"shape", (getter)pinned_get_shape, NULL, "The shape, a tuple of ints.", NULL},
    {"dtype", (getter)pinned_get_dtype, NULL, "The element type, a devarray DType.",
     NULL},
    {"nbytes", (getter)pinned_get_nbytes, NULL, "The size in bytes.", NULL},
    {"ptr", (getter)pinned_get_ptr, NULL,
     "The address of the first byte, an int.", NULL},
    {"page_locked", (getter)pinned_get_page_locked, NULL,
     "Whether the memory is page-locked (False on the host backend and in "
     "builds without CUDA, where it is plain host memory).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyBufferProcs pinned_as_buffer = {
    .bf_getbuffer = (getbufferproc)pinned_getbuffer,
};

static PyTypeObject PinnedBuffer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.PinnedBuffer",
    .tp_basicsize = sizeof(PinnedBufferObject),
    .tp_dealloc = (destructor)pinned_dealloc,
    .tp_repr = (reprfunc)pinned_repr,
    .tp_as_buffer = &pinned_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Host memory for asynchronous copies: page-locked when the "
              "default backend is CUDA.  Made by devarray.empty_pinned(); "
              "numpy.asarray(buf) views it without a copy.",
    .tp_getset = pinned_getset,
};

/* ---- empty_pinned --------------------------------------------------------- */

/* empty_pinned(shape, dtype=None): uninitialised, C-contiguous. */
static PyObject *
pinned_empty(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape_obj;
    PinnedBufferObject *self = NULL;
    int64_t shape[DA_MAXDIMS], size;
    int typenum = -1, ndim, backend, d;
    Py_ssize_t stride;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:empty_pinned", kwlist,
                                     &shape_obj, dtypeobject_converter_optional,
                                     &typenum)) {
        return NULL;
    }
    if (typenum < 0) {
        typenum = DA_FLOAT64;
    }
    ndim = array_parse_shape(shape_obj, shape);
    if (ndim < 0) {
        return NULL;
    }
    size = array_shape_size(ndim, shape, da_itemsize(typenum));
    if (size < 0) {
        return NULL;
    }
    backend = backend_default();
    if (backend < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    /* cudaHostAlloc is refused while a graph is captured */
    if (backend == DA_BACKEND_CUDA &&
        stream_check_sync("empty_pinned (allocating page-locked memory)") < 0) {
        return NULL;
    }
#endif
    pinned_release_deferred();
    self = PyObject_New(PinnedBufferObject, &PinnedBuffer_Type);
    if (self == NULL) {
        return NULL;
    }
    self->data = NULL;
    self->prev = self->next = NULL;
    self->nbytes = (Py_ssize_t)(size * da_itemsize(typenum));
    self->ndim = ndim;
    self->typenum = typenum;
    self->page_locked = backend == DA_BACKEND_CUDA;
    stride = da_itemsize(typenum);
    for (d = ndim - 1; d >= 0; d--) {
        self->shape[d] = (Py_ssize_t)shape[d];
        self->strides[d] = stride;
        stride *= self->shape[d];
    }
    self->data = transfer_host_alloc((size_t)self->nbytes, self->page_locked);
    if (self->data == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->next = pinned_live;
    if (pinned_live != NULL) {
        pinned_live->prev = self;
    }
    pinned_live = self;
    return (PyObject *)self;
}

/* ---- to_device, asynchronously ------------------------------------------- */

DeviceArrayObject *
pinned_to_device(PyObject *obj, int typenum, int backend)
{
    Py_buffer view;
    int src_typenum, d;
    int64_t shape[DA_MAXDIMS];
    DeviceArrayObject *raw = NULL, *result = NULL;

    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        /* not readable as a strided array: the synchronous path says why */
        PyErr_Clear();
        return NULL;
    }
    if (view.len == 0 || view.suboffsets != NULL || view.ndim > DA_MAXDIMS ||
        (view.ndim > 0 && view.shape == NULL) ||
        (view.strides != NULL && !PyBuffer_IsContiguous(&view, 'C')) ||
        !pinned_async_ok(view.buf, (size_t)view.len, backend)) {
        goto done;
    }
    if (dtype_from_format(view.format != NULL ? view.format : "B", view.itemsize,
                          &src_typenum) < 0) {
        PyErr_Clear();
        goto done;
    }
    for (d = 0; d < view.ndim; d++) {
        shape[d] = view.shape[d];
    }
    raw = array_new(backend, src_typenum, view.ndim, shape);
    if (raw == NULL) {
        goto done;
    }
    if (DA_NBYTES(raw) != view.len) {
        /* an inconsistent export: the synchronous path reports it */
        Py_CLEAR(raw);
        goto done;
    }
    if (transfer_copy_async(backend, raw->data, view.buf, (size_t)view.len,
                            DA_COPY_H2D) < 0) {
        goto done;
    }
    if (typenum < 0 || typenum == src_typenum) {
        result = raw;
        raw = NULL;
    }
    else {
        result = copy_cast(raw, typenum);
    }
done:
    Py_XDECREF(raw);
    PyBuffer_Release(&view);
    return result;
}

/* ---- module --------------------------------------------------------------- */

static PyMethodDef pinned_methods[] = {
    {"empty_pinned", (PyCFunction)(void (*)(void))pinned_empty,
     METH_VARARGS | METH_KEYWORDS,
     "empty_pinned(shape, dtype=None)\n--\n\nA new uninitialised "
     "devarray.PinnedBuffer of shape and dtype (default float64): "
     "page-locked host memory when the default backend is CUDA, so that "
     "to_device() and to_host(out=..., blocking=False) copy it without "
     "waiting; plain host memory on the host backend."},
    {NULL, NULL, 0, NULL},
};

int
pinned_module_init(PyObject *module)
{
    if (PyType_Ready(&PinnedBuffer_Type) < 0 ||
        PyModule_AddObjectRef(module, "PinnedBuffer", (PyObject *)&PinnedBuffer_Type) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, pinned_methods);
}
