/*
 * devarray.Graph and devarray.graph_capture(stream): record a sequence of
 * devarray calls on a stream as a CUDA graph, and replay it.
 *
 * Inside `with graph_capture(stream) as g:` the stream is current and
 * captured: calls queue nodes instead of running, allocations become graph
 * memory nodes (served by the stream-ordered allocator), and calls that
 * would wait for the device raise RuntimeError.  g.replay() launches the
 * graph on the current stream; arrays made inside the capture hold the
 * results of the latest replay.  The host backend has the API, and
 * graph_capture raises RuntimeError there (a graph needs CUDA).
 */
#ifndef DEVARRAY_SRC_GRAPHOBJECT_H_
#define DEVARRAY_SRC_GRAPHOBJECT_H_

#include "base/common.h"

/* Add Graph and graph_capture to `module`. */
int graphobject_module_init(PyObject *module);

#endif /* DEVARRAY_SRC_GRAPHOBJECT_H_ */
