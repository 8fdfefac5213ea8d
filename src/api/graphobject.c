/*
 * devarray.Graph: see graphobject.h.
 *
 * Ownership: a Graph holds a strong reference to the stream it captures on
 * (until the capture ends), and owns its cudaGraph_t and cudaGraphExec_t,
 * destroyed in the deallocator (launches in flight complete first).  Memory
 * allocated inside the capture belongs to the arrays made there: they free
 * it as any array does; the graph is instantiated to free, at each launch,
 * what its previous launch allocated and nobody freed.  The arrays a graph
 * reads but did not make must stay alive while it is replayed, as with
 * PyTorch's CUDA graphs.
 */
#include "api/graphobject.h"

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/pool.h"
#include "runtime/stream.h"
#include "api/streamobject.h"

enum { GRAPH_NEW, GRAPH_CAPTURING, GRAPH_READY, GRAPH_FAILED };

typedef struct {
    PyObject_HEAD
    StreamObject *stream;
    int state;
#ifdef DEVARRAY_HAVE_CUDA
    cudaGraph_t graph;
    cudaGraphExec_t exec;
#endif
} GraphObject;

static PyTypeObject Graph_Type;

static PyObject *
graphobject_capture(PyObject *Py_UNUSED(module), PyObject *stream)
{
    GraphObject *self;
    if (!StreamObject_Check(stream)) {
        PyErr_Format(PyExc_TypeError,
                     "graph_capture() takes a devarray.Stream, not %.200s",
                     Py_TYPE(stream)->tp_name);
        return NULL;
    }
    if (streamobject_check_open((StreamObject *)stream) < 0) {
        return NULL;
    }
    if (((StreamObject *)stream)->flags & STREAMOBJECT_DEFAULT) {
        PyErr_SetString(PyExc_ValueError,
                        "graph_capture() needs a stream of its own: CUDA cannot "
                        "capture the default stream (make one with "
                        "devarray.Stream())");
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (!device_cuda_available())
#endif
    {
        PyErr_SetString(PyExc_RuntimeError,
                        "graph_capture() needs a CUDA device: graphs are "
                        "recorded by the CUDA driver");
        return NULL;
    }
    self = PyObject_New(GraphObject, &Graph_Type);
    if (self == NULL) {
        return NULL;
    }
    self->stream = (StreamObject *)Py_NewRef(stream);
    self->state = GRAPH_NEW;
#ifdef DEVARRAY_HAVE_CUDA
    self->graph = NULL;
    self->exec = NULL;
#endif
    return (PyObject *)self;
}

static void
graph_dealloc(GraphObject *self)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (self->exec != NULL) {
        (void)cudaGraphExecDestroy(self->exec);
    }
    if (self->graph != NULL) {
        (void)cudaGraphDestroy(self->graph);
    }
    (void)cudaGetLastError();
#endif
    Py_XDECREF(self->stream);
    PyObject_Free(self);
}

static PyObject *
graph_enter(GraphObject *self, PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    cudaError_t err;
    if (self->state != GRAPH_NEW) {
        PyErr_SetString(PyExc_RuntimeError,
                        "a Graph is captured once: call graph_capture() again for "
                        "a new one");
        return NULL;
    }
    if (stream_check_sync("graph_capture()") < 0) {
        /* nested: the outer capture would record the inner one's calls */
        return NULL;
    }
    if (streamobject_check_open(self->stream) < 0 || streamobject_enter(self->stream) < 0) {
        return NULL;
    }
    err = cudaStreamBeginCapture((cudaStream_t)self->stream->handle,
                                 cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        (void)streamobject_exit(self->stream);
        cuda_error_raise(err, "cudaStreamBeginCapture");
        return NULL;
    }
    stream_capture_begin(self->stream->entry);
    self->state = GRAPH_CAPTURING;
    return Py_NewRef(self);
#else
    (void)self;
    PyErr_SetString(PyExc_RuntimeError, "graph_capture() needs a CUDA device");
    return NULL;
#endif
}

static PyObject *
graph_exit(GraphObject *self, PyObject *const *args, Py_ssize_t nargs)
{
#ifdef DEVARRAY_HAVE_CUDA
    cudaError_t err;
    cudaGraph_t graph = NULL;
    int failed_inside = nargs > 0 && args[0] != Py_None;

    if (self->state != GRAPH_CAPTURING) {
        PyErr_SetString(PyExc_RuntimeError, "this Graph is not being captured");
        return NULL;
    }
    stream_capture_end(self->stream->entry);
    err = cudaStreamEndCapture((cudaStream_t)self->stream->handle, &graph);
    /* the exit of the stream's `with` cannot fail here: it is innermost
       unless the block exited others out of order, which raised there */
    if (streamobject_exit(self->stream) < 0) {
        PyErr_Clear();
    }
    pool_release_deferred();
    self->state = GRAPH_FAILED;
    if (failed_inside) {
        /* the block's own exception propagates */
        if (graph != NULL) {
            (void)cudaGraphDestroy(graph);
        }
        (void)cudaGetLastError();
        Py_RETURN_FALSE;
    }
    if (err != cudaSuccess) {
        if (graph != NULL) {
            (void)cudaGraphDestroy(graph);
        }
        cuda_error_raise(err, "cudaStreamEndCapture (a call in the block broke the "
                              "capture)");
        return NULL;
    }
    self->graph = graph;
    err = cudaGraphInstantiateWithFlags(&self->exec, graph,
                                        cudaGraphInstantiateFlagAutoFreeOnLaunch);
    if (err != cudaSuccess) {
        self->exec = NULL;
        cuda_error_raise(err, "cudaGraphInstantiateWithFlags");
        return NULL;
    }
    self->state = GRAPH_READY;
    Py_RETURN_FALSE;
#else
    (void)self;
    (void)args;
    (void)nargs;
    PyErr_SetString(PyExc_RuntimeError, "graph_capture() needs a CUDA device");
    return NULL;
#endif
}

static PyObject *
graph_replay(GraphObject *self, PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    cudaError_t err;
    if (self->state != GRAPH_READY) {
        PyErr_SetString(PyExc_RuntimeError,
                        self->state == GRAPH_CAPTURING
                            ? "replay(): the capture has not ended yet"
                            : "replay(): this Graph has no completed capture");
        return NULL;
    }
    err = cudaGraphLaunch(self->exec, stream_current());
    if (err != cudaSuccess) {
        cuda_error_raise(err, "cudaGraphLaunch");
        return NULL;
    }
    Py_RETURN_NONE;
#else
    (void)self;
    PyErr_SetString(PyExc_RuntimeError, "replay(): this Graph has no completed capture");
    return NULL;
#endif
}

static PyObject *
graph_get_stream(GraphObject *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->stream);
}

static PyMethodDef graph_methods[] = {
    {"replay", (PyCFunction)graph_replay, METH_NOARGS,
     "replay()\n--\n\nLaunch the captured work on the current stream."},
    {"__enter__", (PyCFunction)graph_enter, METH_NOARGS,
     "Begin the capture: the stream becomes current and captured."},
    {"__exit__", (PyCFunction)(void (*)(void))graph_exit, METH_FASTCALL,
     "End the capture and make the graph ready to replay."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef graph_getset[] = {
    {"stream", (getter)graph_get_stream, NULL, "The stream captured on.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Graph_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray.Graph",
    .tp_basicsize = sizeof(GraphObject),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A CUDA graph of devarray calls: made by graph_capture(stream), "
              "launched by replay().",
    .tp_methods = graph_methods,
    .tp_getset = graph_getset,
};

static PyMethodDef graphobject_functions[] = {
    {"graph_capture", graphobject_capture, METH_O,
     "graph_capture(stream)\n--\n\nA Graph to use as `with graph_capture(s) as "
     "g:`; the calls in the block are captured on `s` (a devarray.Stream, not "
     "a default stream) and g.replay() runs them again."},
    {NULL, NULL, 0, NULL},
};

int
graphobject_module_init(PyObject *module)
{
    if (PyType_Ready(&Graph_Type) < 0 ||
        PyModule_AddObjectRef(module, "Graph", (PyObject *)&Graph_Type) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, graphobject_functions);
}
