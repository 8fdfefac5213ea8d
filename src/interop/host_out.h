/*
 * Host objects out: NumPy arrays (NumPy is imported only when a conversion
 * needs it), memoryviews, writable buffers, nested lists and Python scalars.
 */
#ifndef DEVARRAY_SRC_HOST_OUT_H_
#define DEVARRAY_SRC_HOST_OUT_H_

#include "base/common.h"
#include "core/array.h"

/* d.to_host(out=None): a numpy.ndarray (when NumPy imports), else a
   memoryview with the dtype's format and the array's shape; with `out`,
   fill that writable buffer (byte size must match; format must match
   unless it is 'B', 'b' or 'c') and return it. */
PyObject *host_out_to_host(DeviceArrayObject *a, PyObject *out);

/* d.to_host(out=out, blocking=False): queue one copy of a into `out` on
   the current stream and return `out` (new reference) at once.  out must
   be C-contiguous page-locked host memory of a's size and dtype
   (pinned_async_ok); ValueError when it is missing, not page-locked or not
   contiguous.  A plain copy on the host backend. */
PyObject *host_out_to_host_async(DeviceArrayObject *a, PyObject *out);

/* d.tolist() and d.item() (size-1 arrays only: ValueError otherwise). */
PyObject *host_out_tolist(DeviceArrayObject *a);
PyObject *host_out_item(DeviceArrayObject *a);

#endif /* DEVARRAY_SRC_HOST_OUT_H_ */
