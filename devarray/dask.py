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
`__array_function__` and `__array_ufunc__` (src/api/numpy_protocol.c) run
devarray's instead, on the chunk's device.  docs/multi-gpu.md lists what
runs and what does not.

Random chunks need nothing from this module but the registration:
`dask.array.random.default_rng(devarray.random.default_rng(seed))` makes
DeviceArray chunks, each drawn by a Generator of its own, spawned from the
seed (docs/random.md).

Several GPUs: `from_numpy(..., devices=[0, 1])` places the chunks round-robin
on the devices, and each op runs where its operands are.  Where chunks of
different devices meet in a concatenation (compute(), the aggregation step
of a reduction) they are first copied to the device of the first one
(`to_device`, a peer copy), so a reduction ends on the device of the first
chunk.

dask.distributed (when it is installed): importing this module also
registers DeviceArray with distributed's two serialization families, so
chunks travel between processes without pickle:

- "dask" (every comm; TCP uses it): a header (dtype, shape, "C" or "F"
  order, backend) and one host frame, the chunk's bytes: one device-to-host
  copy on the sender, one host-to-device copy onto the receiver's current
  device;
- "cuda" (UCX, for CUDA chunks): the same header and one device frame, the
  chunk's bytes as 1-D uint8, which the receiver takes back without a
  copy, reinterpreted as dtype and shape (`_Reinterpreted`).  Where rmm is
  installed (distributed-ucxx requires it) the frame is a copy of the
  chunk in rmm's memory, which UCX can send over NVLink, and devarray's
  pool memory it cannot (`_ipc_frame`); without rmm it is the chunk's own
  memory.

A non-contiguous chunk is copied once into a contiguous one on its device
(for UCX, straight into the rmm frame).
The task that wrote a chunk ran in another thread, maybe on a stream of its
own: the serializer first orders its own stream after every stream that
may have written the chunk, on the device (`_order_after_writers`), so that
its copies read the finished chunk without the host waiting for the whole
device (the serializer runs in distributed's one offload thread, which also
deserializes what arrives).  UCX reads device frames outside any stream;
distributed-ucxx synchronizes the device before it sends one.  A chunk of
the host backend deserializes anywhere; one of the CUDA backend raises
RuntimeError where CUDA is not available.

distributed looks serializers up in the process that receives, and it loads
third-party ones only by import: every worker must import this module
(`dask worker --preload devarray.dask`, `LocalCluster(preload=[...])`;
docs/multi-gpu.md).
"""

import math
import os

import dask.array as da
import numpy as np
from dask.array.dispatch import (concatenate_lookup, numel_lookup, tensordot_lookup,
                                 to_numpy_dispatch)
from dask.sizeof import sizeof

import devarray
from devarray import _core

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


def _upload(block, devices=None, home=None, block_info=None):
    """block on its device: devices[k] for chunk k, else home's device in
    the process that made the graph (home: its pid and current device),
    else the running thread's current device (a distributed worker's own
    GPU)."""
    if block_info is None:  # dask's meta pass: no block, no device
        return devarray.asarray(block)
    info = block_info[0]
    device = _device_of(devices, info["chunk-location"], info["num-chunks"])
    if device is None and home is not None and home[0] == os.getpid():
        device = home[1]
    if device is None:
        return devarray.asarray(block)
    return devarray.asarray(block, device=device)


def from_numpy(a, chunks="auto", devices=None):
    """A dask array of DeviceArray chunks holding the NumPy array a.

    devices: None (every chunk on the device current when from_numpy is
    called, or, on a dask.distributed worker, on the worker's current
    device) or a list of devices (ints or devarray.Device): chunk k, counted
    in C order over the grid of chunks, goes to devices[k % len(devices)].
    Each chunk is uploaded when the graph runs, so the upload is part of
    compute()."""
    a = np.asarray(a)
    home = None
    if devices is not None:
        devices = list(devices)
        if not devices:
            raise ValueError("devices must name at least one device, or be None")
    elif devarray.backend() == "cuda":
        # the current device is per thread, and each of dask's worker
        # threads starts on device 0: chunks uploaded in this process go to
        # the caller's; a distributed worker's go to its own GPU
        home = (os.getpid(), devarray.Device("cuda").id)
    host = da.from_array(a, chunks=chunks)
    return host.map_blocks(_upload, devices=devices, home=home, dtype=a.dtype,
                           meta=_meta(a.ndim, a.dtype))


da.register_chunk_type(devarray.DeviceArray)
concatenate_lookup.register(devarray.DeviceArray)(concatenate)
tensordot_lookup.register(devarray.DeviceArray)(tensordot)
to_numpy_dispatch.register(devarray.DeviceArray)(_to_numpy)
numel_lookup.register(devarray.DeviceArray)(_numel)
# dask's memory accounting (and distributed's choice to serialize off the
# event loop) go by sizeof, which would otherwise count the Python object only
sizeof.register(devarray.DeviceArray)(lambda x: x.nbytes)


def _contiguous_order(x):
    """"C" or "F" where x's elements fill one block of memory in that order
    (NumPy's rule: axes of extent 1 take any stride), else None."""
    if x.size == 0:
        return "C"
    for order, axes in (("C", range(x.ndim - 1, -1, -1)), ("F", range(x.ndim))):
        step = x.itemsize
        for i in axes:
            if x.shape[i] != 1 and x.strides[i] != step:
                break
            step *= x.shape[i]
        else:
            return order
    return None


def _header_and_c_view(x):
    """The header of x, and x's memory as a C-contiguous array: x itself, its
    transpose when x is F-contiguous, or a C-contiguous copy on its device
    when x is neither."""
    order = _contiguous_order(x)
    if order is None:
        x, order = x.copy(), "C"
    return _header(x, order), (x if order == "C" else x.transpose())


def _header(x, order):
    """Both families' header of x, whose memory goes in `order` ("C" or
    "F")."""
    return {"dtype": x.dtype.name, "shape": x.shape, "order": order,
            "device": x.device.type}


def _shaped(flat, header):
    """The 1-D array flat seen with the header's shape and order (views)."""
    shape = tuple(header["shape"])
    if header["order"] == "C":
        return flat.reshape(shape)
    return flat.reshape(shape[::-1]).transpose()


def _device_to_host(x):
    """The C-contiguous DeviceArray x copied into a new NumPy array: the one
    device-to-host copy of a "dask" transfer (tests count the calls)."""
    return x.to_host()


def _host_to_device(host, device):
    """The NumPy array host copied to device ("cuda": the current one): the
    one host-to-device copy of a transfer (tests count the calls)."""
    return devarray.asarray(host, device=device)


def _wait_for_writers(x):
    """When x is a CUDA array, wait for all work on the devices devarray has
    used (devarray.synchronize(): cudaDeviceSynchronize), whoever queued it:
    the copy to the host that follows blocks this thread anyway."""
    if x.device.type == "cuda":
        devarray.synchronize()


def _order_after_writers(x):
    """When x is a CUDA array, make this thread's stream on x's device wait,
    on the device, for every stream that may have written x, so that what
    is queued next reads x finished; the host does not wait."""
    if x.device.type == "cuda":
        _core._order_after_writers(x)


def _check_place(header):
    """RuntimeError, saying what to do, for a CUDA chunk where CUDA is not
    available (before devarray's own error, which says only that)."""
    if header["device"] == "cuda" and devarray.device_count() == 0:
        raise RuntimeError(
            "a DeviceArray chunk of the CUDA backend reached a process where CUDA is "
            "not available; bring chunks back as NumPy arrays "
            "(x.to_backend('numpy') or x.map_blocks(lambda b: b.to_host())), or run "
            "the cluster on the host backend (DEVARRAY_BACKEND=host)")


def _dask_serialize(x):
    """distributed's "dask" family: the header and one host frame holding
    x's bytes, copied from the device once."""
    _wait_for_writers(x)
    header, c_view = _header_and_c_view(x)
    host = _device_to_host(c_view)
    return header, [memoryview(host.reshape(-1).view(np.uint8))]


def _dask_deserialize(header, frames):
    """A DeviceArray of the header's backend (CUDA: on the current device)
    from the host frame, with one host-to-device copy."""
    _check_place(header)
    (frame,) = frames
    host = np.frombuffer(frame, dtype=np.dtype(header["dtype"]))
    return _shaped(_host_to_device(host, header["device"]), header)


class _Reinterpreted:
    """The memory of owner, an object with a C-contiguous
    __cuda_array_interface__, as a 1-D array of another dtype.  devarray
    has no view as another dtype, but imports any such object without a
    copy, keeping it (and so owner) alive as the new array's base."""

    __slots__ = ("owner", "__cuda_array_interface__")

    def __init__(self, owner, dtype):
        interface = owner.__cuda_array_interface__
        shape, strides = tuple(interface["shape"]), interface.get("strides")
        itemsize = np.dtype(interface["typestr"]).itemsize
        if strides is not None and not (len(shape) == 1 and tuple(strides) == (itemsize,)):
            raise ValueError("a device frame must be C-contiguous, not of shape %s and "
                             "strides %s" % (shape, tuple(strides)))
        nbytes = math.prod(shape) * itemsize
        if nbytes % dtype.itemsize:
            raise ValueError("a device frame of %d bytes does not hold %s elements"
                             % (nbytes, dtype.name))
        self.owner = owner
        self.__cuda_array_interface__ = {
            "shape": (nbytes // dtype.itemsize,), "typestr": dtype.str,
            "data": interface["data"], "strides": None, "version": 3,
            "stream": interface.get("stream")}


# Per device: the rmm pool that frames for UCX are staged in (_ipc_frame).
_staging_pools = {}
# The most of a device's memory the staging pool may hold.
STAGING_POOL_FRACTION = 4


def _staging_pool(rmm):
    """The rmm pool of the current device for UCX frames, made at first use:
    a quarter of the device's memory at most, kept for the process's life,
    as CuPy's pool keeps its blocks.

    The limit is on the pool's upstream, not the pool's maximum_pool_size:
    with a maximum, rmm grows a pool by half of what is left of it, so the
    first frame of a few bytes reserved 17.6 GB of an H200 (and eight test
    processes filled it).  Without one the pool grows by what a frame
    needs or by its own size, whichever is more; past the limit its growth
    fails and the frame gets an allocation of its own (_ipc_frame)."""
    device = rmm._cuda.gpu.getDevice()
    pool = _staging_pools.get(device)
    if pool is None:
        total = rmm.mr.available_device_memory()[1]
        limit = total // STAGING_POOL_FRACTION // 256 * 256
        pool = rmm.mr.PoolMemoryResource(
            rmm.mr.LimitingResourceAdaptor(rmm.mr.CudaMemoryResource(), limit),
            initial_pool_size=0)
        _staging_pools[device] = pool
    return pool


def _as_bytes(c_array):
    """The C-contiguous c_array (a DeviceArray, or any object with such a
    __cuda_array_interface__) as a 1-D uint8 DeviceArray over its memory."""
    return devarray.asarray(_Reinterpreted(c_array, np.dtype(np.uint8)))


def _own_frame(x):
    """x's elements in C order as 1-D uint8 in devarray's memory: x itself
    when it is C-contiguous, else a copy on its device."""
    return _as_bytes(x if _contiguous_order(x) == "C" else x.copy())


def _ipc_frame(x):
    """x's elements in C order, as 1-D uint8 on x's device: copied into rmm
    memory where rmm is installed, else (or where rmm is out of memory, or
    allocates on another device) in devarray's own (_own_frame).  A
    strided x is gathered straight into the rmm frame: one copy, as CuPy
    makes for a strided chunk.

    UCX moves a frame between processes over NVLink (its cuda_ipc
    transport) only when it can export the memory with cuIpcGetMemHandle:
    memory from cudaMalloc, as rmm's resources and CuPy's pool give, not
    from a stream-ordered pool (cudaMallocAsync), where devarray's arrays
    live.  Such memory UCX stages through bounce buffers: 1 GiB took 2.97 s
    between two H200s, against 0.022 s for a CuPy chunk.  One copy on the
    device (well under a millisecond for 1 GiB) buys the fast path;
    distributed-ucxx installs rmm.

    The copy comes from a pool (_staging_pool), not a cudaMalloc of its
    own: a frame of the pool lies in an allocation the receiver has mapped
    before, and UCX keeps those mappings, while a new allocation costs a
    cudaMalloc and a cudaFree here and an IPC mapping there (1 GiB: 29 ms
    against CuPy's 24 on two H100s).  Past the pool's limit a frame gets an
    allocation of its own."""
    if x.size == 0:
        return _own_frame(x)
    try:
        import rmm
    except ImportError:
        return _own_frame(x)
    try:
        buffer = rmm.DeviceBuffer(size=x.nbytes, mr=_staging_pool(rmm))
    except MemoryError:
        try:
            buffer = rmm.DeviceBuffer(size=x.nbytes)
        except MemoryError:
            return _own_frame(x)
    frame = _as_bytes(buffer)
    if frame.device != x.device:
        return _own_frame(x)
    staged = devarray.asarray(_Reinterpreted(buffer, np.dtype(x.dtype.name)))
    # on this thread's stream, ordered after x's writers
    staged.reshape(x.shape)[...] = x
    return frame


def _cuda_serialize(x):
    """distributed's "cuda" family, for CUDA arrays: the header and one
    device frame, x's bytes in C order as 1-D uint8 (_ipc_frame).  An
    F-contiguous x goes as its transpose (header["order"] "F"), with no
    gather.  A host-backend array is left to the next family."""
    if x.device.type != "cuda":
        raise NotImplementedError("a host-backend DeviceArray goes by the 'dask' family")
    _order_after_writers(x)
    order = _contiguous_order(x)
    return _header(x, order or "C"), [_ipc_frame(x.transpose() if order == "F" else x)]


def _cuda_deserialize(header, frames):
    """A DeviceArray from the frame: without a copy from device memory (any
    object with __cuda_array_interface__: CuPy, rmm, numba, devarray), with
    one host-to-device copy from host memory (a TCP comm)."""
    _check_place(header)
    (frame,) = frames
    dtype = np.dtype(header["dtype"])
    if hasattr(frame, "__cuda_array_interface__"):
        flat = devarray.asarray(_Reinterpreted(frame, dtype))
    else:
        flat = _host_to_device(np.frombuffer(frame, dtype=dtype), header["device"])
    return _shaped(flat, header)


try:
    from distributed.protocol import (cuda_deserialize, cuda_serialize, dask_deserialize,
                                      dask_serialize)
except ModuleNotFoundError as exc:  # dask.array without dask.distributed
    if (exc.name or "").partition(".")[0] != "distributed":
        raise
else:
    dask_serialize.register(devarray.DeviceArray)(_dask_serialize)
    dask_deserialize.register(devarray.DeviceArray)(_dask_deserialize)
    cuda_serialize.register(devarray.DeviceArray)(_cuda_serialize)
    cuda_deserialize.register(devarray.DeviceArray)(_cuda_deserialize)
