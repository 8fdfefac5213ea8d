"""DeviceArray as a chunk type of dask.array, imported on demand.

    import dask.array as da
    import devarray.dask as dd            # registers DeviceArray with dask

    x = dd.from_numpy(a, chunks=(1024, 1024), devices=[0, 1])
    y = da.exp((x + x) * 2)               # dask's own functions, per chunk
    s = y.sum(axis=0)                     # and its own reductions
    s.compute(scheduler="threads").to_host()

Importing this module imports dask and registers DeviceArray with it:
`register_chunk_type` (dask wraps DeviceArray chunks and does not defer to
them) and dask's `concatenate_lookup`, `tensordot_lookup`, `numel_lookup`
and `to_numpy_dispatch`.  `import devarray` alone never imports this
module, nor dask (tests/test_dask.py checks it).

dask's functions call NumPy's on each chunk; DeviceArray's
`__array_function__` and `__array_ufunc__` (src/numpy_protocol.c) run
devarray's instead, on the chunk's device.  docs/multi-gpu.md lists what
runs and what does not.

Several GPUs: `from_numpy(..., devices=[0, 1])` places the chunks round-robin
on the devices, and each op runs where its operands are.  Where chunks of
different devices meet in a concatenation (compute(), the aggregation step
of a reduction) they are first copied to the device of the first one
(`to_device`, a peer copy), so a reduction ends on the device of the first
chunk.
"""

import dask.array as da
import numpy as np
from dask.array.dispatch import (concatenate_lookup, numel_lookup, tensordot_lookup,
                                 to_numpy_dispatch)

import devarray

__all__ = ["from_numpy", "concatenate", "tensordot"]


def _gather(arrays):
    """arrays, each on the device of the first (a peer copy where it is not)."""
    home = arrays[0].device
    return [a if a.device == home else a.to_device(home) for a in arrays]


def concatenate(arrays, axis=0):
    """dask's concatenate for DeviceArray chunks: devarray.concat, on the
    first chunk's device."""
    return devarray.concat(_gather(list(arrays)), axis=axis)


def tensordot(a, b, axes=2):
    """dask's tensordot for DeviceArray chunks, on a's device."""
    a, b = _gather([a, b])
    return devarray.tensordot(a, b, axes=axes)


def _numel(x, axis=None, keepdims=False, dtype=np.float64):
    """dask's count of the elements a reduction over axis sees (its mean,
    var and std divide by it), as a DeviceArray on x's device."""
    if axis is None:
        axis = range(x.ndim)
    axes = {a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)}
    count = int(np.prod([x.shape[i] for i in axes]))
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)
                  if keepdims or i not in axes)
    return devarray.full(shape, count, dtype=np.dtype(dtype), device=x.device)


def _to_numpy(x, **kwargs):
    return x.to_host()


def _meta(ndim, dtype):
    """An empty DeviceArray of ndim dimensions: dask's `_meta` for them."""
    return devarray.empty((0,) * ndim, dtype=np.dtype(dtype))


def _device_of(devices, block_id, numblocks):
    if not devices:
        return None
    flat = int(np.ravel_multi_index(block_id, numblocks)) if numblocks else 0
    return devices[flat % len(devices)]


def _upload(block, devices=None, block_info=None):
    if block_info is None:  # dask's meta pass: no block, no device
        return devarray.asarray(block)
    info = block_info[0]
    device = _device_of(devices, info["chunk-location"], info["num-chunks"])
    if device is None:
        return devarray.asarray(block)
    return devarray.asarray(block, device=device)


def from_numpy(a, chunks="auto", devices=None):
    """A dask array of DeviceArray chunks holding the NumPy array a.

    devices: None (every chunk on the current device) or a list of devices
    (ints or devarray.Device): chunk k, counted in C order over the grid of
    chunks, goes to devices[k % len(devices)].  Each chunk is uploaded when
    the graph runs, so the upload is part of compute()."""
    a = np.asarray(a)
    if devices is not None:
        devices = list(devices)
        if not devices:
            raise ValueError("devices must name at least one device, or be None")
    host = da.from_array(a, chunks=chunks)
    return host.map_blocks(_upload, devices=devices, dtype=a.dtype,
                           meta=_meta(a.ndim, a.dtype))


da.register_chunk_type(devarray.DeviceArray)
concatenate_lookup.register(devarray.DeviceArray)(concatenate)
tensordot_lookup.register(devarray.DeviceArray)(tensordot)
to_numpy_dispatch.register(devarray.DeviceArray)(_to_numpy)
numel_lookup.register(devarray.DeviceArray)(_numel)
