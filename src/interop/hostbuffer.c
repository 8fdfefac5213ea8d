/*
 * _HostBuffer: host memory with a typed buffer export (see hostbuffer.h).
 *
 * Ownership: a _HostBuffer owns its PyMem_Malloc'd block and frees it in
 * dealloc.  A memoryview over it keeps it alive through its reference to
 * the exporter, and the block never moves or resizes, so no export count is
 * needed.
 */
#include "interop/hostbuffer.h"

#include "base/dtype.h"
#include "interop/hostcopy.h"

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

int
hostbuffer_export(PyObject *owner, const char *what, char *data, Py_ssize_t len,
                  int typenum, int ndim, Py_ssize_t *shape, Py_ssize_t *strides,
                  Py_buffer *view, int flags)
{
    int d, long_dims = 0;

    for (d = 0; d < ndim; d++) {
        long_dims += shape[d] > 1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && long_dims > 1) {
        PyErr_Format(PyExc_BufferError, "%s is C-contiguous, not Fortran-contiguous",
                     what);
        view->obj = NULL;
        return -1;
    }
    view->buf = data;
    view->obj = Py_NewRef(owner);
    view->len = len;
    view->readonly = 0;
    view->itemsize = da_itemsize(typenum);
    view->format = (flags & PyBUF_FORMAT) ? (char *)dtype_table[typenum].format : NULL;
    if (flags & PyBUF_ND) {
        view->ndim = ndim;
        view->shape = shape;
    }
    else {
        /* a plain byte run, as memoryview exports without PyBUF_ND */
        view->ndim = 1;
        view->shape = NULL;
    }
    view->strides = ((flags & PyBUF_STRIDES) == PyBUF_STRIDES) ? strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static int
hostbuffer_getbuffer(HostBufferObject *self, Py_buffer *view, int flags)
{
    return hostbuffer_export((PyObject *)self, "_HostBuffer", self->data, self->len,
                             self->typenum, self->ndim, self->shape, self->strides, view,
                             flags);
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

PyObject *
hostbuffer_memoryview(DeviceArrayObject *a)
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
    buffer->data = hostcopy_new(a);
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

/* ---- module -------------------------------------------------------------- */

int
hostbuffer_module_init(PyObject *module)
{
    if (PyType_Ready(&HostBuffer_Type) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "_HostBuffer", (PyObject *)&HostBuffer_Type);
}
