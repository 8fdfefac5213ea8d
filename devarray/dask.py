"""DeviceArray as a chunk type of dask.array, imported on demand.

    import dask.array as da
    import devarray.dask as dd            # registers DeviceArray with dask

    x = dd.from_numpy(a, chunks=(1024, 1024), devices=[0, 1])
    y = (x + x) * 2                       # dask's own operators, per chunk
    s = dd.sum(y, axis=0)                 # reductions with axis= and keepdims=
    s.compute(scheduler="threads").to_host()

Importing this module imports dask and registers DeviceArray with it:
`register_chunk_type` (dask wraps DeviceArray chunks and does not defer to
them) and dask's `concatenate_lookup`, `tensordot_lookup` and
`to_numpy_dispatch`.  `import devarray` alone never imports this module,
nor dask (tests/test_dask.py checks it).

What runs through dask's own code: `da.from_array(d, chunks=...)` of a
DeviceArray, the elementwise operators between dask arrays (dask calls
`operator.add` and the like on the chunks, DeviceArray's number slots),
indexing, `x.map_blocks(devarray.exp, dtype=x.dtype)` for devarray's
functions, `compute()` (chunks joined by `concatenate`).  dask's reductions
(`x.sum()`, `da.sum(x)`) call `numpy.sum` on each chunk, which DeviceArray
does not take yet (no `__array_function__`, and its `sum` method refuses
NumPy's `out=None`): `sum`, `prod`, `max`, `min` and `mean` here are the same
reductions built on dask's `reduction` with devarray's functions per chunk.
docs/multi-gpu.md says what the C type would need for dask's own.

Several GPUs: `from_numpy(..., devices=[0, 1])` places the chunks round-robin
on the devices, and each op runs where its operands are.  Where chunks of
different devices meet (concatenate, the aggregation step of a reduction)
they are first copied to the device of the first one (`to_device`, a peer
copy), so a reduction ends on the device of the first chunk.
"""

import operator

import dask.array as da
import numpy as np
from dask.array.dispatch import concatenate_lookup, tensordot_lookup, to_numpy_dispatch

import devarray

__all__ = ["from_numpy", "sum", "prod", "max", "min", "mean", "concatenate", "tensordot"]

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


def _normalize_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for ax in axes:
        ax = operator.index(ax)
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(ax, ndim)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis in %r" % (axis,))
    return tuple(out)


def _per_chunk(name):
    """The chunk and aggregate function of dask's reduction for devarray's
    reduction `name`."""
    fn = getattr(devarray, name)

    def chunk(x, axis=None, keepdims=False, computing_meta=False):
        if computing_meta:  # dask asks for the result's type only
            shape = tuple(1 if i in axis else n for i, n in enumerate(x.shape))
            return devarray.empty(shape if keepdims else (), dtype=x.dtype)
        return fn(x, axis=axis, keepdims=keepdims)

    return chunk


_DTYPE_PROBES = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


def _reduce(name, x, axis, keepdims, split_every):
    if not isinstance(x, da.Array):
        raise TypeError("expected a dask array, got %s" % type(x).__name__)
    axes = _normalize_axis(axis, x.ndim)
    if name in ("max", "min") and any(x.shape[i] == 0 for i in axes):
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % name)
    dtype = _DTYPE_PROBES[name](np.ones(1, dtype=x.dtype)).dtype
    out_ndim = x.ndim if keepdims else x.ndim - len(axes)
    f = _per_chunk(name)
    return da.reduction(x, f, f, axis=axes, keepdims=keepdims, dtype=dtype,
                        split_every=split_every, meta=_meta(out_ndim, dtype))


def sum(x, axis=None, keepdims=False, split_every=None):
    """x.sum(axis, keepdims) of a dask array of DeviceArray chunks (NumPy's
    result dtype: integers to int64/uint64)."""
    return _reduce("sum", x, axis, keepdims, split_every)


def prod(x, axis=None, keepdims=False, split_every=None):
    """The product over axis, as numpy.prod."""
    return _reduce("prod", x, axis, keepdims, split_every)


def max(x, axis=None, keepdims=False, split_every=None):
    """The maximum over axis; ValueError over a zero-size axis."""
    return _reduce("max", x, axis, keepdims, split_every)


def min(x, axis=None, keepdims=False, split_every=None):
    """The minimum over axis; ValueError over a zero-size axis."""
    return _reduce("min", x, axis, keepdims, split_every)


def mean(x, axis=None, keepdims=False, split_every=None):
    """sum / count, with numpy.mean's result dtype (float64 for integers)."""
    axes = _normalize_axis(axis, x.ndim)
    count = int(np.prod([x.shape[i] for i in axes]))
    total = sum(x, axis=axes, keepdims=keepdims, split_every=split_every)
    if not np.issubdtype(x.dtype, np.inexact):
        total = total.map_blocks(devarray.astype, np.dtype(np.float64), dtype=np.float64)
    return total / count


da.register_chunk_type(devarray.DeviceArray)
concatenate_lookup.register(devarray.DeviceArray)(concatenate)
tensordot_lookup.register(devarray.DeviceArray)(tensordot)
to_numpy_dispatch.register(devarray.DeviceArray)(_to_numpy)
