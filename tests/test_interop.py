"""Zero-copy exchange with other array libraries: the CUDA Array Interface
(v3, out and in) and DLPack (both ways) with CuPy, Numba, PyTorch and JAX on
the GPU, NumPy on the host backend.  Every exchange is checked on random data
for one pointer, the same values, writes seen on both sides, lifetimes (the
consumer outlives the producer) and stream ordering; foreign producers' bad
descriptions must give clear errors.

GPU tests take the `gpu` fixture (or `backend`, whose CUDA half needs one);
the ones that need a library call require() or one of its wrappers, which
skip without it, or fail under DEVARRAY_REQUIRE_GPU=1.
"""

import ctypes
import gc
import importlib
import os
import pathlib
import re
import sys
import time
import warnings

import numpy as np
import pytest

import devarray
from devarray import _core
from _helpers import (
    DROP, DTYPES, CAIProducer, DLManagedTensor, DLManagedTensorVersioned, assert_values,
    cai_changed, host, random_array,
)

SHAPE = (48, 33)


# ---- availability ------------------------------------------------------------------

def _gpu_required():
    return os.environ.get("DEVARRAY_REQUIRE_GPU", "") not in ("", "0")


def _unavailable(reason):
    """Skip the test, or fail it when DEVARRAY_REQUIRE_GPU=1."""
    if _gpu_required():
        pytest.fail("DEVARRAY_REQUIRE_GPU=1 but " + reason, pytrace=False)
    pytest.skip(reason)


def require(name):
    """Import `name`: pytest.importorskip, except that a missing library
    fails the test under DEVARRAY_REQUIRE_GPU=1."""
    if name == "jax" or name.startswith("jax."):
        # without this, JAX takes 75% of the GPU's memory on first use
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if not _gpu_required():
        return pytest.importorskip(name)
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        pytest.fail("DEVARRAY_REQUIRE_GPU=1 but %s cannot be imported: %s"
                    % (name, exc), pytrace=False)


def require_cupy():
    cupy = require("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        count = 0
    if count == 0:
        _unavailable("cupy sees no CUDA device")
    return cupy


def require_torch():
    torch = require("torch")
    if not torch.cuda.is_available():
        _unavailable("torch %s sees no CUDA device" % torch.__version__)
    return torch


def require_jax():
    jax = require("jax")
    require("jax.dlpack")
    try:
        jax.devices("gpu")
    except RuntimeError as exc:
        _unavailable("jax %s has no GPU backend (%s)" % (jax.__version__, exc))
    return jax


@pytest.fixture
def nb(gpu, request):
    """numba.cuda, required like the other libraries (conftest's numba_cuda
    alone would skip under DEVARRAY_REQUIRE_GPU=1)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # conftest's shim, needed before the import
    require("numba.cuda")
    return request.getfixturevalue("numba_cuda")


@pytest.fixture
def host_backend():
    """The host backend as devarray's default for the test's duration."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            previous = devarray.backend()
        except Exception:  # noqa: BLE001 - e.g. DEVARRAY_BACKEND=cuda without a GPU
            previous = None
    devarray.set_backend("host")
    try:
        yield "host"
    finally:
        if previous is not None:
            devarray.set_backend(previous)


# ---- helpers -------------------------------------------------------------------------

def cupy_ptr(c):
    return c.data.ptr


def numba_ptr(n):
    # device_ctypes_pointer is a ctypes pointer or a cuda.bindings CUdeviceptr
    # depending on numba's binding; the interface has a plain int either way
    return n.__cuda_array_interface__["data"][0]


def numpy_ptr(a):
    return a.__array_interface__["data"][0]


def torch_strides(t):
    return tuple(s * t.element_size() for s in t.stride())


def torch_to_numpy(t):
    return t.detach().cpu().numpy()


def churn_devarray(shape, dtype, value=-7.0):
    """Allocate and fill arrays the size of a freed one, so that devarray's
    pool hands its block out again if something freed it too early."""
    junk = [devarray.full(shape, value, dtype=dtype) for _ in range(4)]
    devarray.synchronize()
    return junk


def memory_settles(start, timeout=10.0):
    """devarray's CUDA pool usage, polled until it is back to `start` (some
    consumers release foreign memory asynchronously) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        devarray.synchronize()
        used = devarray.memory_stats()["in_use_bytes"]
        if used == start or time.monotonic() > deadline:
            return used
        time.sleep(0.05)


def assert_sum_close(d, expected):
    """d.sum() against NumPy's, within a bound for pairwise float sums."""
    got = d.sum().item()
    want = expected.sum()
    bound = 1e-13 * max(1.0, float(np.abs(expected).sum()))
    assert abs(got - want) <= bound, (got, want)


# ---- DLPack capsules, read through ctypes ------------------------------------------

_capsule_get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
    ("PyCapsule_GetName", ctypes.pythonapi))
_capsule_get_pointer = ctypes.PYFUNCTYPE(
    ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


DLPACK_FLAG_READ_ONLY = 1
DLPACK_FLAG_IS_COPIED = 2
KDLCPU, KDLCUDA = 1, 2
# DLPack type codes of NumPy's dtype kinds
DLPACK_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


def capsule_name(capsule):
    return _capsule_get_name(capsule)


def capsule_managed(capsule):
    """The DLManagedTensor[Versioned] of an unconsumed capsule (reading it
    does not consume it)."""
    name = capsule_name(capsule)
    address = _capsule_get_pointer(capsule, name)
    if name == b"dltensor_versioned":
        return DLManagedTensorVersioned.from_address(address)
    assert name == b"dltensor", name
    return DLManagedTensor.from_address(address)


def dltensor_description(tensor):
    """(data, (device_type, id), (code, bits, lanes), shape, strides, offset)."""
    ndim = tensor.ndim
    return (
        tensor.data or 0,
        (tensor.device.device_type, tensor.device.device_id),
        (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes),
        tuple(tensor.shape[i] for i in range(ndim)),
        tuple(tensor.strides[i] for i in range(ndim)) if tensor.strides else None,
        tensor.byte_offset,
    )


class DLPackProducer:
    """A stand-in DLPack producer: __dlpack__ returns `result` (or calls it
    with the keywords it got) and records the keywords."""

    def __init__(self, result, device):
        self.result = result
        self.device = device
        self.calls = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.result(**kwargs) if callable(self.result) else self.result


class OldDLPackProducer:
    """A producer from before DLPack 1.0: no max_version keyword."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)


# ---- public names --------------------------------------------------------------------

def test_from_dlpack_is_public():
    assert callable(devarray.from_dlpack)
    assert "from_dlpack" in devarray.__all__
    d = devarray.DeviceArray
    assert callable(d.__dlpack__) and callable(d.__dlpack_device__)


# ---- DLPack protocol details (both backends) -----------------------------------------

def _own_device(d):
    return (KDLCUDA, d.device.id) if d.__dlpack_device__()[0] == KDLCUDA else (KDLCPU, 0)


def test_dlpack_device(backend, rng):
    d = devarray.to_device(random_array(rng, (3, 4), "float64"))
    if backend == "cuda":
        assert d.__dlpack_device__() == (KDLCUDA, d.device)
    else:
        assert d.__dlpack_device__() == (KDLCPU, 0)


@pytest.mark.parametrize("max_version, name, version", [
    (None, b"dltensor", None),
    ((0, 8), b"dltensor", None),
    ((1, 0), b"dltensor_versioned", (1, 0)),
    ((1, 1), b"dltensor_versioned", (1, 1)),
    ((1, 2), b"dltensor_versioned", (1, 2)),
    ((1, 9), b"dltensor_versioned", (1, 2)),
    ((2, 0), b"dltensor_versioned", (1, 2)),
])
def test_dlpack_capsule_name_and_version(backend, rng, max_version, name, version):
    d = devarray.to_device(random_array(rng, (3, 4), "float64"))
    capsule = d.__dlpack__(max_version=max_version)
    assert capsule_name(capsule) == name
    managed = capsule_managed(capsule)
    if version is not None:
        assert (managed.version.major, managed.version.minor) == version
        assert managed.flags == 0
    del managed, capsule


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("view", ["whole", "rows_cols", "transposed", "reversed"])
def test_dlpack_tensor_describes_array(backend, rng, dt, view):
    a = random_array(rng, (6, 5), dt)
    base = devarray.to_device(a)
    d = {"whole": lambda x: x, "rows_cols": lambda x: x[::2, 1:],
         "transposed": lambda x: x.T, "reversed": lambda x: x[::-1, ::-2]}[view](base)
    itemsize = np.dtype(dt).itemsize
    for max_version in (None, (1, 0)):
        capsule = d.__dlpack__(max_version=max_version)
        desc = dltensor_description(capsule_managed(capsule).dl_tensor)
        assert desc == (
            d.ptr, _own_device(d),
            (DLPACK_CODES[np.dtype(dt).kind], itemsize * 8, 1),
            d.shape, tuple(s // itemsize for s in d.strides), 0)
        del capsule


def test_dlpack_dl_device(backend, rng):
    d = devarray.to_device(random_array(rng, (4,), "float64"))
    own = _own_device(d)
    capsule = d.__dlpack__(dl_device=own)
    assert capsule_name(capsule) == b"dltensor"
    del capsule
    other_type = (KDLCPU, 0) if own[0] == KDLCUDA else (KDLCUDA, 0)
    for other in (other_type, (own[0], own[1] + 1)):
        with pytest.raises(BufferError):
            d.__dlpack__(dl_device=other)
        with pytest.raises(BufferError):
            d.__dlpack__(dl_device=other, max_version=(1, 0))


def test_dlpack_bad_arguments(backend, rng):
    d = devarray.to_device(random_array(rng, (4,), "float64"))
    with pytest.raises(TypeError):
        d.__dlpack__(copy="yes")
    with pytest.raises(TypeError):
        d.__dlpack__(max_version=(1,))
    with pytest.raises(TypeError):
        d.__dlpack__(dl_device=(1, 0, 0))
    with pytest.raises(TypeError):
        d.__dlpack__(None)  # keyword-only, as the specification says


@pytest.mark.parametrize("kwargs", [
    {"max_version": "1.0"}, {"max_version": [1, 0]}, {"dl_device": "cuda"},
    {"dl_device": [2, 0]},
], ids=["max_version str", "max_version list", "dl_device str", "dl_device list"])
def test_dlpack_non_tuple_arguments_are_type_errors(backend, rng, kwargs):
    d = devarray.to_device(random_array(rng, (4,), "float64"))
    with pytest.raises(TypeError):
        d.__dlpack__(**kwargs)


def test_dlpack_stream_argument(backend, rng):
    d = devarray.to_device(random_array(rng, (4,), "float64"))
    if backend == "host":
        # kDLCPU has no streams: the consumer must pass None
        d.__dlpack__(stream=None)
        with pytest.raises(BufferError):
            d.__dlpack__(stream=1)
        return
    for stream in (None, -1, 1, 2):
        capsule = d.__dlpack__(stream=stream, max_version=(1, 0))
        assert capsule_name(capsule) == b"dltensor_versioned"
        del capsule
    with pytest.raises(ValueError, match="stream 0"):
        d.__dlpack__(stream=0)
    with pytest.raises(ValueError):
        d.__dlpack__(stream=-2)
    with pytest.raises(TypeError):
        d.__dlpack__(stream="1")
    devarray.synchronize()


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_dlpack_copy_true_gives_a_copy(backend, rng, max_version):
    a = random_array(rng, (5, 7), "float64")
    d = devarray.to_device(a)[:, 1:]  # a strided view: the copy is compacted
    expected = a[:, 1:]
    capsule = d.__dlpack__(copy=True, max_version=max_version)
    if max_version is not None:
        assert capsule_managed(capsule).flags & DLPACK_FLAG_IS_COPIED
    copied = devarray.from_dlpack(DLPackProducer(capsule, d.__dlpack_device__()))
    assert copied.ptr != d.ptr
    assert copied.strides == (6 * 8, 8)
    assert_values(copied, expected)
    copied += 1
    assert_values(d, expected)  # the original is untouched
    assert_values(copied, expected + 1)


def test_dlpack_copy_false_and_none_share(backend, rng):
    d = devarray.to_device(random_array(rng, (5,), "float64"))
    for copy in (None, False):
        capsule = d.__dlpack__(copy=copy, max_version=(1, 0))
        assert not capsule_managed(capsule).flags & DLPACK_FLAG_IS_COPIED
        assert capsule_managed(capsule).dl_tensor.data == d.ptr
        del capsule


def test_dlpack_readonly_export(backend, rng):
    a = random_array(rng, (4, 3), "float64")
    d = devarray.to_device(a)
    view = _core._readonly_view(d)
    assert view.readonly and not d.readonly
    # a legacy capsule cannot say "read-only"
    with pytest.raises(BufferError):
        view.__dlpack__()
    capsule = view.__dlpack__(max_version=(1, 0))
    assert capsule_managed(capsule).flags & DLPACK_FLAG_READ_ONLY
    back = devarray.from_dlpack(DLPackProducer(capsule, view.__dlpack_device__()))
    assert back.readonly and back.ptr == d.ptr
    assert_values(back, a)
    with pytest.raises(ValueError):
        back += 1
    if backend == "host":
        n = np.from_dlpack(view)
        assert not n.flags.writeable
        assert numpy_ptr(n) == d.ptr
        assert_values(n.copy(), a)
        with pytest.raises(ValueError):
            n[0, 0] = 1.0


def test_dlpack_capsule_consumed_once(backend, rng):
    a = random_array(rng, (6,), "float64")
    d = devarray.to_device(a)
    for max_version in (None, (1, 0)):
        producer = DLPackProducer(d.__dlpack__(max_version=max_version),
                                  d.__dlpack_device__())
        first = devarray.from_dlpack(producer)
        assert first.ptr == d.ptr
        assert capsule_name(producer.result).startswith(b"used_")
        with pytest.raises(TypeError, match="unused"):
            devarray.from_dlpack(producer)
        assert_values(first, a)


def test_from_dlpack_of_devicearray(backend, rng):
    a = random_array(rng, (4, 5), "float64")
    d = devarray.to_device(a)
    view = devarray.from_dlpack(d)
    assert view.ptr == d.ptr and view.strides == d.strides
    assert capsule_name(view.base) == b"devarray.dlpack_owner"
    view += 1
    assert_values(d, a + 1)
    copied = devarray.from_dlpack(d, copy=True)
    assert copied.ptr != d.ptr
    assert_values(copied, a + 1)
    shared = devarray.from_dlpack(d, copy=False)
    assert shared.ptr == d.ptr
    with pytest.raises((BufferError, ValueError)):
        devarray.from_dlpack(d, device="gpu")
    on_host = devarray.from_dlpack(d, device="cpu")
    assert on_host.device == devarray.Device("cpu")
    assert_values(on_host, a + 1)
    with pytest.raises(TypeError):
        devarray.from_dlpack(d, copy="no")


def test_from_dlpack_what_it_asks_the_producer(backend, rng):
    d = devarray.to_device(random_array(rng, (3,), "float64"))
    producer = DLPackProducer(lambda **kw: d.__dlpack__(**kw), d.__dlpack_device__())
    back = devarray.from_dlpack(producer)
    assert back.ptr == d.ptr
    (kwargs,) = producer.calls
    assert kwargs["max_version"] == (1, 2)
    # the legacy default stream (devarray's) for CUDA; None for the CPU
    assert kwargs["stream"] == (1 if backend == "cuda" else None)


def test_from_dlpack_of_a_pre_1_0_producer(backend, rng):
    a = random_array(rng, (3, 2), "float64")
    d = devarray.to_device(a)
    back = devarray.from_dlpack(OldDLPackProducer(d))
    assert back.ptr == d.ptr and not back.readonly
    assert_values(back, a)


def test_from_dlpack_rejects_bad_producers(backend, rng):
    d = devarray.to_device(random_array(rng, (3,), "float64"))
    own = _own_device(d)
    with pytest.raises(TypeError, match="capsule"):
        devarray.from_dlpack(DLPackProducer(42, own))
    used = d.__dlpack__()
    devarray.from_dlpack(DLPackProducer(used, own))
    with pytest.raises(TypeError, match="used_dltensor"):
        devarray.from_dlpack(DLPackProducer(used, own))
    with pytest.raises(BufferError, match="device type 4"):
        devarray.from_dlpack(DLPackProducer(d.__dlpack__(), (4, 0)))
    with pytest.raises((AttributeError, TypeError)):
        devarray.from_dlpack(object())
    if backend == "host":
        with pytest.raises(BufferError, match="host backend"):
            devarray.from_dlpack(DLPackProducer(d.__dlpack__(), (KDLCUDA, 0)))
    else:
        with pytest.raises(BufferError, match="device"):
            devarray.from_dlpack(
                DLPackProducer(d.__dlpack__(), (KDLCUDA, d.device.id + 1)))


def test_from_dlpack_non_tuple_device_is_a_type_error(backend, rng):
    d = devarray.to_device(random_array(rng, (3,), "float64"))
    with pytest.raises(TypeError):
        devarray.from_dlpack(DLPackProducer(d.__dlpack__(), "cuda"))


# ---- lifetimes and references (both backends) -----------------------------------------

@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_unconsumed_capsule_releases_its_array(backend, rng, max_version):
    d = devarray.to_device(random_array(rng, (8, 8), "float64"))
    gc.collect()
    baseline = sys.getrefcount(d)
    capsule = d.__dlpack__(max_version=max_version)
    assert sys.getrefcount(d) == baseline + 1
    del capsule
    assert sys.getrefcount(d) == baseline
    capsule = d.__dlpack__(max_version=max_version, copy=True)
    assert sys.getrefcount(d) == baseline  # the capsule holds the copy
    del capsule
    consumed = devarray.from_dlpack(
        DLPackProducer(d.__dlpack__(max_version=max_version), d.__dlpack_device__()))
    assert sys.getrefcount(d) == baseline + 1
    del consumed
    assert sys.getrefcount(d) == baseline


def test_copy_capsule_memory_is_freed(gpu, rng):
    d = devarray.to_device(random_array(rng, (256, 256), "float64"))
    start = memory_settles(devarray.memory_stats()["in_use_bytes"])
    capsule = d.__dlpack__(copy=True)
    devarray.synchronize()
    assert devarray.memory_stats()["in_use_bytes"] >= start + d.nbytes
    del capsule
    assert memory_settles(start) == start


def test_consumer_outlives_producer_devarray(backend, rng):
    a = random_array(rng, (16, 16), "float64")
    d = devarray.to_device(a)
    back = devarray.from_dlpack(d[1:])
    del d
    gc.collect()
    junk = churn_devarray((16, 16), "float64")
    assert_values(back, a[1:])
    assert_values(back + 1, a[1:] + 1)
    del junk


# ---- the CUDA Array Interface, produced ---------------------------------------------

def test_cuda_array_interface_v3(gpu, rng):
    a = random_array(rng, (6, 4), "float32")
    d = devarray.to_device(a)
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["shape"] == (6, 4)
    assert cai["typestr"] == "<f4"
    assert cai["data"] == (d.ptr, False)
    assert cai["strides"] is None
    assert cai["stream"] == 1  # devarray works on the legacy default stream
    view = d[::2, 1:]
    vcai = view.__cuda_array_interface__
    assert vcai["strides"] == view.strides == (32, 4)
    assert vcai["data"] == (d.ptr + 4, False)
    assert _core._readonly_view(d).__cuda_array_interface__["data"] == (d.ptr, True)
    empty = devarray.zeros((0, 3))
    assert empty.__cuda_array_interface__["data"][0] == 0


# ---- producing for CuPy, Numba, PyTorch, JAX -----------------------------------------

@pytest.mark.parametrize("how", ["asarray", "from_dlpack"])
def test_cupy_uses_devicearray(gpu, rng, how):
    cupy = require_cupy()
    a = random_array(rng, SHAPE, "float64")
    d = devarray.to_device(a)
    c = cupy.asarray(d) if how == "asarray" else cupy.from_dlpack(d)
    assert cupy_ptr(c) == d.ptr
    assert c.shape == d.shape and c.strides == d.strides and c.dtype == np.float64
    assert_values(cupy.asnumpy(c), a)
    expected = a.copy()
    c[3:7] = -2.5                          # a write by CuPy ...
    expected[3:7] = -2.5
    assert_values(d, expected)             # ... seen by devarray
    d += 1                                 # and the other way round
    expected += 1
    assert_values(cupy.asnumpy(c), expected)
    del d
    gc.collect()
    junk = churn_devarray(SHAPE, "float64")
    assert_values(cupy.asnumpy(c), expected)
    assert float(c.sum()) == pytest.approx(expected.sum(), rel=1e-12)
    del junk


@pytest.mark.parametrize("how", ["as_tensor", "from_dlpack"])
def test_torch_uses_devicearray(gpu, rng, how):
    torch = require_torch()
    a = random_array(rng, SHAPE, "float64")
    d = devarray.to_device(a)
    if how == "as_tensor":
        t = torch.as_tensor(d, device="cuda")
    else:
        t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr
    assert t.dtype == torch.float64 and tuple(t.shape) == d.shape
    assert torch_strides(t) == d.strides and t.device.type == "cuda"
    assert_values(torch_to_numpy(t), a)
    t.add_(1)
    assert_values(d, a + 1)
    d *= 2
    assert_values(torch_to_numpy(t), (a + 1) * 2)
    del d
    gc.collect()
    junk = churn_devarray(SHAPE, "float64")
    assert_values(torch_to_numpy(t), (a + 1) * 2)
    del junk


def _numba_kernels(cuda):
    """Two kernels, x = x * scale + offset in 1-D and 2-D, compiled once."""
    kernels = _numba_kernels.__dict__.setdefault("compiled", {})
    if not kernels:
        @cuda.jit
        def scale_add_1d(x, scale, offset):
            i = cuda.grid(1)
            if i < x.shape[0]:
                x[i] = x[i] * scale + offset

        @cuda.jit
        def scale_add_2d(x, scale, offset):
            i, j = cuda.grid(2)
            if i < x.shape[0] and j < x.shape[1]:
                x[i, j] = x[i, j] * scale + offset

        kernels.update(scale_add_1d=scale_add_1d, scale_add_2d=scale_add_2d)
    return kernels


def numba_scale_add(cuda, x, scale, offset):
    """Launch x = x * scale + offset on `x` (anything numba takes as an array:
    its own arrays, or objects with __cuda_array_interface__)."""
    kernels = _numba_kernels(cuda)
    if len(x.shape) == 1:
        kernels["scale_add_1d"][(x.shape[0] + 127) // 128, 128](x, scale, offset)
    else:
        grid = ((x.shape[0] + 15) // 16, (x.shape[1] + 15) // 16)
        kernels["scale_add_2d"][grid, (16, 16)](x, scale, offset)


def test_numba_uses_devicearray(nb, rng):
    a = random_array(rng, SHAPE, "float64")
    d = devarray.to_device(a)
    n = nb.as_cuda_array(d)
    assert numba_ptr(n) == d.ptr
    assert n.shape == d.shape and n.strides == d.strides
    assert_values(n.copy_to_host(), a)
    # scale 2 keeps x * 2 + 1 exact even when numba contracts it to an FMA
    numba_scale_add(nb, n, 2.0, 1.0)
    expected = a * 2 + 1
    assert_values(d, expected)
    d -= 3
    expected -= 3
    assert_values(n.copy_to_host(), expected)
    del d
    gc.collect()
    junk = churn_devarray(SHAPE, "float64")
    assert_values(n.copy_to_host(), expected)
    del junk


def test_numba_kernel_takes_devicearray(nb, rng):
    a = random_array(rng, (1000,), "float64")
    d = devarray.to_device(a)
    numba_scale_add(nb, d, 2.0, 1.0)
    devarray.synchronize()
    assert_values(d, a * 2 + 1)
    b = random_array(rng, (20, 30), "float64")
    e = devarray.to_device(b)
    numba_scale_add(nb, e[::2, 1:], 2.0, -1.0)   # a strided view, in place
    expected = b.copy()
    expected[::2, 1:] = expected[::2, 1:] * 2 - 1
    assert_values(e.to_host(), expected)


def _jax_from_dlpack(jax, how):
    if how == "jnp.from_dlpack":
        fn = getattr(jax.numpy, "from_dlpack", None)
    else:
        fn = getattr(importlib.import_module("jax.dlpack"), "from_dlpack", None)
    if fn is None:
        pytest.skip("jax %s has no %s" % (jax.__version__, how))
    return fn


@pytest.mark.parametrize("how", ["jnp.from_dlpack", "jax.dlpack.from_dlpack"])
def test_jax_uses_devicearray(gpu, rng, how):
    jax = require_jax()
    from_dlpack = _jax_from_dlpack(jax, how)
    # float32: JAX without jax_enable_x64 would turn float64 into a copy
    a = random_array(rng, SHAPE, "float32")
    d = devarray.to_device(a)
    j = from_dlpack(d)
    assert j.dtype == np.float32 and j.shape == SHAPE
    assert_values(np.asarray(j), a)
    # JAX documents the result of from_dlpack as sharing memory with its
    # argument.  JAX arrays are immutable (writing into memory JAX uses is
    # undefined behaviour, its docs say), so no writes are tested here.
    assert j.unsafe_buffer_pointer() == d.ptr
    assert_values(np.asarray(j * 2), a * 2)
    del d
    gc.collect()
    junk = churn_devarray(SHAPE, "float32")
    assert_values(np.asarray(j), a)
    del junk


@pytest.mark.parametrize("view", ["transposed", "step_rows", "offset_cols"])
def test_jax_uses_devicearray_views(gpu, rng, view):
    jax = require_jax()
    a = random_array(rng, (16, 12), "float32")
    d = devarray.to_device(a)
    pick = {"transposed": lambda x: x.T, "step_rows": lambda x: x[::2],
            "offset_cols": lambda x: x[:, 1:]}[view]
    v, expected = pick(d), pick(a)
    # a compact copy always goes in
    assert_values(np.asarray(jax.numpy.from_dlpack(v.copy())), expected)
    # devarray can describe the view; whether JAX takes it is up to JAX
    assert capsule_name(v.__dlpack__()) == b"dltensor"
    try:
        j = jax.numpy.from_dlpack(v)
    except Exception as exc:  # noqa: BLE001 - XLA raises its own error types
        pytest.xfail("jax %s does not import a %s view through DLPack: %s: %s"
                     % (jax.__version__, view, type(exc).__name__, exc))
    assert_values(np.asarray(j), expected)


# PyTorch has no negative strides (handing it one crashes PyTorch 2.11), so
# the reversed view goes to CuPy only.
@pytest.mark.parametrize("consumer, view", [
    (consumer, view)
    for consumer in ("cupy.asarray", "cupy.from_dlpack", "torch.as_tensor", "torch.from_dlpack")
    for view in ("rows_cols", "transposed", "cols_step", "reversed")
    if not (consumer.startswith("torch") and view == "reversed")])
def test_libraries_use_devicearray_views(gpu, rng, view, consumer):
    lib = require_cupy() if consumer.startswith("cupy") else require_torch()
    a = random_array(rng, (12, 10), "float64")
    pick = {"rows_cols": lambda x: x[::2, 1:], "transposed": lambda x: x.T,
            "cols_step": lambda x: x[:, ::3], "reversed": lambda x: x[::-1, ::-2]}[view]
    d = devarray.to_device(a)
    v, expected = pick(d), pick(a)
    if consumer == "cupy.asarray":
        out = lib.asarray(v)
        ptr, strides, values = cupy_ptr(out), out.strides, lib.asnumpy(out)
    elif consumer == "cupy.from_dlpack":
        out = lib.from_dlpack(v)
        ptr, strides, values = cupy_ptr(out), out.strides, lib.asnumpy(out)
    else:
        out = lib.as_tensor(v, device="cuda") if consumer == "torch.as_tensor" \
            else lib.from_dlpack(v)
        ptr, strides, values = out.data_ptr(), torch_strides(out), torch_to_numpy(out)
    assert ptr == v.ptr
    assert strides == v.strides
    assert_values(values, expected)


# ---- consuming from CuPy, Numba, PyTorch, JAX ------------------------------------------

def _assert_dlpack_owner(d):
    assert capsule_name(d.base) == b"devarray.dlpack_owner"


@pytest.mark.parametrize("how", ["asarray", "from_dlpack"])
def test_devarray_uses_cupy(gpu, rng, how):
    cupy = require_cupy()
    a = random_array(rng, SHAPE, "float64")
    c = cupy.asarray(a)
    ptr = cupy_ptr(c)
    d = devarray.asarray(c) if how == "asarray" else devarray.from_dlpack(c)
    assert d.ptr == ptr
    assert d.shape == SHAPE and d.dtype == "float64" and d.strides == c.strides
    assert not d.readonly
    if how == "asarray":
        assert d.base is c
    else:
        _assert_dlpack_owner(d)
    assert_values(d, a)
    expected = a.copy()
    c[1:5] = 3.25
    expected[1:5] = 3.25
    assert_values(d, expected)
    d += 1
    expected += 1
    assert_values(cupy.asnumpy(c), expected)
    del c
    gc.collect()
    junk = [cupy.full(SHAPE, 99.0) for _ in range(4)]
    assert_values(d, expected)
    assert_values(d * 2, expected * 2)
    assert_sum_close(d, expected)
    del junk


@pytest.mark.parametrize("how", ["asarray", "from_dlpack"])
def test_devarray_uses_torch(gpu, rng, how):
    torch = require_torch()
    a = random_array(rng, SHAPE, "float64")
    t = torch.from_numpy(a.copy()).to("cuda")
    ptr = t.data_ptr()
    d = devarray.asarray(t) if how == "asarray" else devarray.from_dlpack(t)
    assert d.ptr == ptr
    assert d.shape == SHAPE and d.dtype == "float64" and d.strides == torch_strides(t)
    if how == "asarray":
        assert d.base is t
    else:
        _assert_dlpack_owner(d)
    assert_values(d, a)
    t.add_(1)
    assert_values(d, a + 1)
    d *= 2
    assert_values(torch_to_numpy(t), (a + 1) * 2)
    del t
    gc.collect()
    junk = [torch.full(SHAPE, 99.0, dtype=torch.float64, device="cuda")
            for _ in range(4)]
    assert_values(d, (a + 1) * 2)
    assert_sum_close(d, (a + 1) * 2)
    del junk


def test_devarray_uses_numba(nb, rng):
    a = random_array(rng, SHAPE, "float64")
    n = nb.to_device(a)
    ptr = numba_ptr(n)
    d = devarray.asarray(n)
    assert d.ptr == ptr and d.base is n
    assert d.shape == SHAPE and d.strides == n.strides
    assert_values(d, a)
    numba_scale_add(nb, n, 2.0, 0.5)
    expected = a * 2 + 0.5
    assert_values(d, expected)
    d += 1
    expected += 1
    assert_values(n.copy_to_host(), expected)
    del n
    gc.collect()
    junk = [nb.to_device(np.full(SHAPE, 99.0)) for _ in range(4)]
    assert_values(d, expected)
    del junk


def test_devarray_uses_jax(gpu, rng):
    jax = require_jax()
    a = random_array(rng, SHAPE, "float32")
    device = jax.devices("gpu")[devarray.zeros(1).device]
    j = jax.device_put(a, device)
    ptr = j.unsafe_buffer_pointer()
    d = devarray.from_dlpack(j)   # JAX queues the transfer; DLPack orders it
    assert d.ptr == ptr
    assert d.shape == SHAPE and d.dtype == "float32"
    _assert_dlpack_owner(d)
    assert_values(d, a)
    assert_values(d * 2, a * 2)
    # JAX arrays are immutable: devarray only reads them here
    del j
    gc.collect()
    junk = [jax.device_put(np.full(SHAPE, 99.0, dtype=np.float32), device)
            for _ in range(4)]
    for x in junk:
        x.block_until_ready()
    assert_values(d, a)


CUPY_VIEWS = {
    "rows_cols": lambda x: x[::2, 1:],
    "transposed": lambda x: x.T,
    "reversed": lambda x: x[::-1],
    "reversed_both": lambda x: x[::-1, ::-2],
}


@pytest.mark.parametrize("view", CUPY_VIEWS)
@pytest.mark.parametrize("how", ["asarray", "from_dlpack"])
def test_devarray_uses_cupy_views(gpu, rng, view, how):
    cupy = require_cupy()
    a = random_array(rng, (12, 10), "float64")
    c = CUPY_VIEWS[view](cupy.asarray(a))
    expected = CUPY_VIEWS[view](a)
    d = devarray.asarray(c) if how == "asarray" else devarray.from_dlpack(c)
    assert d.ptr == cupy_ptr(c)
    assert d.shape == c.shape and d.strides == c.strides
    assert_values(d, expected)
    assert_values((d + 1) * 2 - d / 4, (expected + 1) * 2 - expected / 4)
    assert_sum_close(d, expected)
    np.testing.assert_allclose(host(d.sum(axis=0)), expected.sum(axis=0),
                               rtol=1e-13, atol=1e-13 * np.abs(expected).sum())


TORCH_VIEWS = {
    "t": lambda x: x.t(),
    "cols_step": lambda x: x[:, ::3],
    "rows_cols": lambda x: x[1::2, 2:],
}


@pytest.mark.parametrize("view", TORCH_VIEWS)
@pytest.mark.parametrize("how", ["asarray", "from_dlpack"])
def test_devarray_uses_torch_views(gpu, rng, view, how):
    torch = require_torch()
    a = random_array(rng, (12, 10), "float64")
    t = TORCH_VIEWS[view](torch.from_numpy(a.copy()).to("cuda"))
    expected = np.ascontiguousarray(TORCH_VIEWS[view](torch.from_numpy(a)).numpy())
    d = devarray.asarray(t) if how == "asarray" else devarray.from_dlpack(t)
    assert d.ptr == t.data_ptr()
    assert d.shape == tuple(t.shape) and d.strides == torch_strides(t)
    assert_values(d, expected)
    assert_values((d + 1) * 2 - d / 4, (expected + 1) * 2 - expected / 4)
    assert_sum_close(d, expected)


@pytest.mark.parametrize("dt", DTYPES)
def test_cupy_round_trips_every_dtype(gpu, rng, dt):
    cupy = require_cupy()
    a = random_array(rng, (7, 3), dt)
    d = devarray.to_device(a)
    for c in (cupy.asarray(d), cupy.from_dlpack(d)):
        assert c.dtype == np.dtype(dt) and cupy_ptr(c) == d.ptr
        assert_values(cupy.asnumpy(c), a)
        for back in (devarray.asarray(c), devarray.from_dlpack(c)):
            assert back.dtype == dt and back.ptr == d.ptr
            assert_values(back, a)


TORCH_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16",
                "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dt", TORCH_DTYPES)
def test_torch_round_trips_dtypes(gpu, rng, dt):
    torch = require_torch()
    a = random_array(rng, (7, 3), dt)
    d = devarray.to_device(a)
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr
    assert_values(torch_to_numpy(t), a)
    back = devarray.from_dlpack(t)
    assert back.dtype == dt and back.ptr == d.ptr
    assert_values(back, a)


def test_empty_arrays_cross(gpu):
    cupy = require_cupy()
    d = devarray.zeros((0, 3))
    c = cupy.asarray(d)
    assert c.shape == (0, 3)
    back = devarray.asarray(cupy.zeros((0, 4), dtype=np.float32))
    assert back.shape == (0, 4) and back.dtype == "float32" and back.size == 0
    assert back.sum().item() == 0.0


# ---- a chain through every library -------------------------------------------------

def test_chain_devarray_cupy_torch_numba_devarray(nb, rng):
    cupy = require_cupy()
    torch = require_torch()
    a = random_array(rng, (64, 48), "float64")
    d0 = devarray.to_device(a)
    c = cupy.asarray(d0)            # CAI
    t = torch.from_dlpack(c)        # DLPack
    n = nb.as_cuda_array(t)         # CAI (PyTorch's)
    d1 = devarray.asarray(n)        # CAI (Numba's)
    pointers = {d0.ptr, cupy_ptr(c), t.data_ptr(), numba_ptr(n), d1.ptr}
    assert pointers == {d0.ptr}
    assert_values(d1, a)
    d1 += 1
    assert_values(d0, a + 1)
    assert_values(cupy.asnumpy(c), a + 1)
    assert_values(torch_to_numpy(t), a + 1)
    del d0, c, t, n
    gc.collect()
    junk = churn_devarray((64, 48), "float64")
    assert_values(d1, a + 1)
    del junk


# ---- stream ordering ---------------------------------------------------------------
#
# Each hand-off below happens while the other side still has tens of
# milliseconds of work queued on a non-blocking stream, so values come out
# right only if the wait the protocols ask for happens on the device.  Every
# kernel and every pool block the measured part uses is touched first: lazy
# module loading and growing a memory pool can synchronise the whole device,
# which would hide a missing wait.  The helpers take a `control` flag that
# skips the protocol's ordering: with it the same runs give wrong values (run
# by hand on a GPU to see that these tests can fail).

_SPIN_FILL_SOURCE = r"""
extern "C" __global__ void
spin_then_fill(double *out, long long n, double value, unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = value;
    }
}
"""

STREAM_N = 1 << 22
SPIN_NS = 50_000_000   # 50 ms: far longer than the hand-off takes on the host


def _warm_devarray_reads(n):
    """Load the kernels of (d * 2).sum() and to_host() and grow devarray's
    pool to hold their temporaries."""
    warm = devarray.zeros(n)
    (warm * 2).sum().item()
    warm.to_host()


def cupy_producer_handoff(cupy, control=False):
    """CuPy fills x on a side stream with a kernel that spins first; devarray
    takes x through its interface (whose stream is the side stream) and sums
    it at once.  Returns (devarray's sum, devarray's values)."""
    kernel = cupy.RawKernel(_SPIN_FILL_SOURCE, "spin_then_fill")
    s = cupy.cuda.Stream(non_blocking=True)
    _warm_devarray_reads(STREAM_N)
    with s:
        x = cupy.zeros(STREAM_N, dtype=np.float64)
        kernel((128,), (256,), (x, np.int64(STREAM_N), np.float64(0.0), np.uint64(0)))
    s.synchronize()
    with s:
        kernel((128,), (256,), (x, np.int64(STREAM_N), np.float64(3.0),
                                np.uint64(SPIN_NS)))
        cai = x.__cuda_array_interface__
        assert cai["stream"] == s.ptr
        if control:
            cai = dict(cai, stream=None)
            d = devarray.asarray(CAIProducer(cai, owner=x))
        else:
            d = devarray.asarray(x)
    total = (d * 2).sum().item()
    values = d.to_host()
    s.synchronize()
    return total, values


def _torch_slow_fill(torch, t, value, cycles=100_000_000):
    """Queue on torch's current stream work that sets t to `value` well after
    this returns: a spin (about 50 ms by default) when torch has one, then
    integer additions."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(cycles)
    t.zero_()
    for _ in range(int(value)):
        t.add_(1)


def torch_producer_handoff(torch, how, control=False, take=None):
    """PyTorch fills t on a side stream, slowly; devarray takes it (through
    DLPack or the interface, or `take(t)` when given) while that stream is
    current, and sums it at once.  Returns (devarray's sum, devarray's
    values)."""
    s = torch.cuda.Stream()
    _warm_devarray_reads(STREAM_N)
    with torch.cuda.stream(s):
        t = torch.empty(STREAM_N, dtype=torch.float64, device="cuda")
        _torch_slow_fill(torch, t, 2, cycles=1000)
    s.synchronize()
    with torch.cuda.stream(s):
        _torch_slow_fill(torch, t, 64)
        if take is not None:
            d = take(t)
        elif how == "from_dlpack":
            # devarray passes stream=1; torch orders its current stream (s)
            # before the legacy stream, on the device
            d = devarray.from_dlpack(DLPackProducer(
                t.__dlpack__(stream=-1, max_version=(1, 0)), t.__dlpack_device__())
                if control else t)
        else:
            if t.__cuda_array_interface__.get("stream") is None and not control:
                # torch's interface (version 2) names no stream: the caller
                # orders the legacy stream (torch's default and devarray's)
                # after s
                torch.cuda.default_stream().wait_stream(s)
            d = devarray.asarray(t)
    total = (d * 2).sum().item()
    values = d.to_host()
    s.synchronize()
    return total, values


def side_stream_consumer_handoff(lib, consumer, control=False):
    """devarray queues about 25 GB of traffic on its stream, then a consumer
    on a non-blocking side stream takes the array and counts the elements
    that differ from the final value.  Returns that count."""
    n = 1 << 24
    d = devarray.zeros(n)
    d += 0
    torch_side = consumer.startswith("torch")
    s = lib.cuda.Stream() if torch_side else lib.cuda.Stream(non_blocking=True)

    def on_s():
        return lib.cuda.stream(s) if torch_side else s

    def count_wrong(x):
        wrong = (x != 100).sum()
        return int(wrong.item() if torch_side else wrong)

    with on_s():
        count_wrong(lib.zeros(n, dtype=lib.float64, device="cuda") if torch_side
                    else lib.zeros(n, dtype=np.float64))
    s.synchronize()
    devarray.synchronize()
    for _ in range(100):
        d += 1
    with on_s():
        if control:
            x = lib.from_dlpack(d.__dlpack__(stream=-1))
        elif consumer.endswith("from_dlpack"):
            # the consumer passes s to __dlpack__: s waits for devarray's stream
            x = lib.from_dlpack(d)
        else:
            x = lib.asarray(d)
        bad = count_wrong(x)
    s.synchronize()
    return bad


def test_cupy_side_stream_producer_is_waited_for(gpu):
    cupy = require_cupy()
    total, values = cupy_producer_handoff(cupy)
    assert total == 6.0 * STREAM_N
    assert np.count_nonzero(values != 3.0) == 0


@pytest.mark.parametrize("how", ["from_dlpack", "asarray"])
def test_torch_side_stream_producer_is_waited_for(gpu, how):
    torch = require_torch()
    if torch.cuda.default_stream().cuda_stream != 0:
        pytest.skip("torch's default stream is not the legacy one")
    total, values = torch_producer_handoff(torch, how)
    assert total == 128.0 * STREAM_N
    assert np.count_nonzero(values != 64.0) == 0


@pytest.mark.parametrize("consumer", ["torch.from_dlpack", "cupy.from_dlpack",
                                      "cupy.asarray"])
def test_side_stream_consumer_sees_devarray_writes(gpu, consumer):
    lib = require_torch() if consumer.startswith("torch") else require_cupy()
    assert side_stream_consumer_handoff(lib, consumer) == 0


# ---- leaks ---------------------------------------------------------------------------

def _exchange(kind, libs, d):
    """One round trip of d through `kind`; returns the arrays that came back."""
    if kind == "devarray":
        return [devarray.from_dlpack(d),
                devarray.from_dlpack(DLPackProducer(d.__dlpack__(max_version=(1, 0)),
                                                    d.__dlpack_device__()))]
    if kind == "cupy":
        cupy = libs
        return [devarray.asarray(cupy.asarray(d)),
                devarray.from_dlpack(cupy.from_dlpack(d))]
    if kind == "torch":
        torch = libs
        return [devarray.asarray(torch.as_tensor(d, device="cuda")),
                devarray.from_dlpack(torch.from_dlpack(d))]
    if kind == "numba":
        return [devarray.asarray(libs.as_cuda_array(d))]
    jax = libs
    return [devarray.from_dlpack(jax.numpy.from_dlpack(d))]


@pytest.mark.parametrize("kind", ["devarray", "cupy", "torch", "numba", "jax"])
def test_exchanges_do_not_leak(gpu, request, kind):
    if kind == "cupy":
        libs = require_cupy()
    elif kind == "torch":
        libs = require_torch()
    elif kind == "numba":
        libs = request.getfixturevalue("nb")
    elif kind == "jax":
        libs = require_jax()
    else:
        libs = None
    dtype = "float32" if kind == "jax" else "float64"
    # warm up: library initialisation may allocate once
    _exchange(kind, libs, devarray.ones((4, 4), dtype=dtype))
    start = memory_settles(devarray.memory_stats()["in_use_bytes"])
    for i in range(200):
        _exchange_and_check(kind, libs, dtype, float(i), check=i % 50 == 0)
    assert memory_settles(start) == start


def _exchange_and_check(kind, libs, dtype, value, check):
    # a function of its own, so that no loop variable outlives the exchange
    d = devarray.full((64, 1024), value, dtype=dtype)
    backs = _exchange(kind, libs, d)
    if check:
        assert [b.ptr for b in backs] == [d.ptr] * len(backs)
        assert [b[3, 5].item() for b in backs] == [value] * len(backs)


# ---- what foreign CUDA Array Interface producers hand in --------------------------

def test_cai_producer_is_viewed(gpu, rng):
    a = random_array(rng, (4, 8), "float64")
    d = devarray.to_device(a)
    for version in (0, 1, 2, 3):
        changes = {"version": version}
        if version < 3:
            changes["stream"] = DROP
        producer = cai_changed(d, changes)
        x = devarray.asarray(producer)
        assert x.ptr == d.ptr and x.base is producer and not x.readonly
        assert_values(x, a)
    x = devarray.asarray(cai_changed(d, {"mask": None, "stream": None}))
    assert_values(x, a)
    x = devarray.asarray(cai_changed(d, {"stream": 2}))   # per-thread default stream
    assert_values(x, a)
    readonly = devarray.asarray(cai_changed(d, {"data": (d.ptr, True)}))
    assert readonly.readonly
    with pytest.raises(ValueError):
        readonly += 1
    view = d[::2, 1:]
    x = devarray.asarray(CAIProducer(view.__cuda_array_interface__, owner=d))
    assert x.ptr == view.ptr and x.strides == view.strides
    assert_values(x, a[::2, 1:])
    empty = devarray.asarray(cai_changed(d, {"shape": (0, 8), "data": (0, False)}))
    assert empty.shape == (0, 8) and empty.size == 0


# (changes as a function of the real pointer, exception, message pattern)
CAI_ERRORS = {
    "no shape": (lambda p: {"shape": DROP}, ValueError, "'shape'"),
    "no typestr": (lambda p: {"typestr": DROP}, ValueError, "'typestr'"),
    "no data": (lambda p: {"data": DROP}, ValueError, "'data'"),
    "no version": (lambda p: {"version": DROP}, ValueError, "'version'"),
    "shape list": (lambda p: {"shape": [4, 8]}, TypeError, "shape"),
    "shape floats": (lambda p: {"shape": (4.0, 8)}, TypeError, "shape"),
    "negative shape": (lambda p: {"shape": (-4, 8)}, ValueError, None),
    "too many dims": (lambda p: {"shape": (1,) * 33}, ValueError, "32"),
    "typestr int": (lambda p: {"typestr": 8}, TypeError, "typestr"),
    "typestr unknown": (lambda p: {"typestr": "<x8"}, TypeError, "not understood"),
    "typestr big-endian": (lambda p: {"typestr": ">f8"}, TypeError, "big-endian"),
    "data list": (lambda p: {"data": [p, False]}, TypeError, "data"),
    "data short": (lambda p: {"data": (p,)}, TypeError, "data"),
    "data float": (lambda p: {"data": (float(p), False)}, TypeError, "data"),
    "version str": (lambda p: {"version": "3"}, TypeError, "version"),
    "version 4": (lambda p: {"version": 4}, ValueError, "version 4"),
    "version -1": (lambda p: {"version": -1}, ValueError, "version"),
    "mask": (lambda p: {"mask": (p, False)}, ValueError, "mask"),
    "null pointer": (lambda p: {"data": (0, False)}, ValueError, "null"),
    "misaligned": (lambda p: {"data": (p + 4, False)}, ValueError, "aligned"),
    "strides count": (lambda p: {"strides": (64,)}, ValueError, "strides"),
    "strides list": (lambda p: {"strides": [64, 8]}, TypeError, "strides"),
    "strides itemsize": (lambda p: {"strides": (64, 4)}, ValueError, "multiple"),
    "stream 0": (lambda p: {"stream": 0}, ValueError, "stream 0"),
    "stream str": (lambda p: {"stream": "1"}, TypeError, "stream"),
    "far past the end": (lambda p: {"shape": (2,), "strides": (1 << 40,)},
                         ValueError, "outside"),
    # half the pointer back: below the allocation without wrapping around
    "far before the start": (lambda p: {"shape": (2,), "strides": (-(p // 2 & ~7),)},
                             ValueError, "outside"),
    "below address zero": (lambda p: {"shape": (2,), "strides": (-(p + 8),)},
                           ValueError, None),
    "extent overflows": (lambda p: {"shape": (5,), "strides": (1 << 62,)},
                         ValueError, None),
}


@pytest.mark.parametrize("case", CAI_ERRORS)
def test_cai_validation(gpu, case):
    changes, exc, match = CAI_ERRORS[case]
    d = devarray.zeros((4, 8))
    producer = cai_changed(d, changes(d.ptr))
    with pytest.raises(exc, match=match):
        devarray.asarray(producer)


@pytest.mark.parametrize("owner", ["cupy", "torch"])
def test_cai_strides_outside_a_foreign_allocation(gpu, owner):
    if owner == "cupy":
        x = require_cupy().zeros((4, 8), dtype=np.float64)
    else:
        torch = require_torch()
        x = torch.zeros((4, 8), dtype=torch.float64, device="cuda")
    ptr = x.__cuda_array_interface__["data"][0]
    # two rows, the second far past the end or half the pointer back
    for strides in ((1 << 40, 8), (-(ptr // 2 & ~7), 8)):
        cai = dict(x.__cuda_array_interface__, shape=(2, 8), strides=strides)
        with pytest.raises(ValueError, match="outside"):
            devarray.asarray(CAIProducer(cai, owner=x))


def test_cai_host_pointer_is_refused(gpu):
    h = np.zeros((4, 8))
    cai = {"shape": (4, 8), "typestr": "<f8", "data": (numpy_ptr(h), False),
           "version": 3, "strides": None, "stream": None}
    with pytest.raises(ValueError, match="pointer|device memory"):
        devarray.asarray(CAIProducer(cai, owner=h))


@pytest.mark.parametrize("cai", [None, [1, 2], "cai", ((4,), "<f8")])
def test_cai_must_be_a_dict(backend, cai):
    with pytest.raises(TypeError, match="dict"):
        devarray.asarray(CAIProducer(cai))


def test_asarray_prefers_cai_then_cuda_dlpack(gpu, rng):
    a = random_array(rng, (3, 4), "float64")
    d = devarray.to_device(a)

    class Both(CAIProducer):
        def __dlpack_device__(self):
            raise AssertionError("asarray must use __cuda_array_interface__ first")

        def __dlpack__(self, **kwargs):
            raise AssertionError("asarray must use __cuda_array_interface__ first")

    both = Both(d.__cuda_array_interface__, owner=d)
    x = devarray.asarray(both)
    assert x.base is both and x.ptr == d.ptr
    only_dlpack = DLPackProducer(lambda **kw: d.__dlpack__(**kw), d.__dlpack_device__())
    y = devarray.asarray(only_dlpack)
    assert y.ptr == d.ptr
    _assert_dlpack_owner(y)
    assert_values(y, a)


# ---- the host backend with NumPy -----------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_host_numpy_from_dlpack_shares_memory(host_backend, rng, dt):
    a = random_array(rng, (6, 5), dt)
    d = devarray.to_device(a)
    n = np.from_dlpack(d)
    assert numpy_ptr(n) == d.ptr
    assert n.dtype == np.dtype(dt) and n.shape == d.shape and n.strides == d.strides
    assert n.flags.writeable
    assert_values(n.copy(), a)
    back = devarray.from_dlpack(n)
    assert back.ptr == d.ptr and back.dtype == dt
    assert_values(back, a)


def test_host_numpy_from_dlpack_writes_both_ways(host_backend, rng):
    a = random_array(rng, (6, 5), "float64")
    d = devarray.to_device(a)
    n = np.from_dlpack(d)
    n[2] = 7.5
    expected = a.copy()
    expected[2] = 7.5
    assert_values(d, expected)
    d += 1
    expected += 1
    assert_values(n.copy(), expected)
    del d
    gc.collect()
    junk = churn_devarray((6, 5), "float64")
    assert_values(n.copy(), expected)
    del junk


@pytest.mark.parametrize("view", ["rows_cols", "transposed", "reversed"])
def test_host_numpy_views_through_dlpack(host_backend, rng, view):
    pick = {"rows_cols": lambda x: x[::2, 1:], "transposed": lambda x: x.T,
            "reversed": lambda x: x[::-1, ::-2]}[view]
    a = random_array(rng, (8, 7), "float64")
    d = devarray.to_device(a)
    n = np.from_dlpack(pick(d))
    assert numpy_ptr(n) == pick(d).ptr and n.strides == pick(d).strides
    assert_values(n.copy(), pick(a))
    source = a.copy()
    x = devarray.from_dlpack(pick(source))
    assert x.ptr == numpy_ptr(pick(source)) and x.strides == pick(source).strides
    assert_values(x, pick(a))
    assert_values((x + 1) * 2 - x / 4, (pick(a) + 1) * 2 - pick(a) / 4)
    assert_sum_close(x, pick(a))


def test_host_devarray_from_numpy_shares_memory(host_backend, rng):
    a = random_array(rng, (9, 4), "float64")
    d = devarray.from_dlpack(a)
    assert d.ptr == numpy_ptr(a) and d.strides == a.strides and not d.readonly
    _assert_dlpack_owner(d)
    a[0] = -1.0
    assert host(d)[0].tolist() == [-1.0] * 4
    d *= 2
    assert_values(a.copy(), host(d))
    expected = a.copy()
    round_trip = np.from_dlpack(d)
    assert numpy_ptr(round_trip) == numpy_ptr(a)
    del a, round_trip
    gc.collect()
    junk = [np.full((9, 4), 99.0) for _ in range(4)]
    assert_values(d, expected)
    del junk


def test_host_devarray_from_readonly_numpy(host_backend, rng):
    a = random_array(rng, (5,), "float64")
    a.flags.writeable = False
    d = devarray.from_dlpack(a)
    assert d.readonly and d.ptr == numpy_ptr(a)
    assert_values(d, a)
    with pytest.raises(ValueError):
        d += 1
    assert_values(d + 1, a + 1)


def test_host_asarray_of_numpy_copies(host_backend, rng):
    a = random_array(rng, (6, 3), "float64")
    d = devarray.asarray(a)
    assert d.ptr != numpy_ptr(a) and d.base is None
    assert_values(d, a)
    d += 1
    assert_values(d, a + 1)
    assert_values(host(devarray.asarray(a)), a)  # a itself is unchanged


def test_host_asarray_of_cai_object_is_refused(host_backend):
    cai = {"shape": (3,), "typestr": "<f8", "data": (0, False), "version": 3}
    with pytest.raises(ValueError, match="host backend"):
        devarray.asarray(CAIProducer(cai))


def test_host_has_no_cuda_array_interface(host_backend, rng):
    d = devarray.to_device(random_array(rng, (3,), "float64"))
    assert not hasattr(d, "__cuda_array_interface__")


def test_host_unconsumed_and_numpy_consumed_capsules_release(host_backend, rng):
    d = devarray.to_device(random_array(rng, (4, 4), "float64"))
    gc.collect()
    baseline = sys.getrefcount(d)
    n = np.from_dlpack(d)
    assert sys.getrefcount(d) == baseline + 1
    del n
    gc.collect()
    assert sys.getrefcount(d) == baseline


def test_host_unsupported_dlpack_dtype(host_backend):
    torch = require("torch")
    t = torch.zeros(3, dtype=torch.bfloat16)
    with pytest.raises(BufferError, match="unsupported DLPack dtype"):
        devarray.from_dlpack(t)


def test_cuda_backend_copies_host_dlpack(gpu, rng):
    a = random_array(rng, (5, 4), "float64")
    d = devarray.from_dlpack(a)
    assert d.__dlpack_device__()[0] == KDLCUDA
    assert_values(d, a)
    d += 1
    assert_values(d, a + 1)
    with pytest.raises(BufferError, match="copy=False"):
        devarray.from_dlpack(a, copy=False)
    # asarray copies host producers (buffer protocol) too
    e = devarray.asarray(a)
    assert e.__dlpack_device__()[0] == KDLCUDA
    assert_values(e, a)


# ---- the examples of docs/interop.md, run as written ------------------------------

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "interop.md"


def _doc_examples():
    """{section title: code} for each ```python block of docs/interop.md."""
    if not DOC.exists():
        return {}
    examples, title = {}, None
    for block in re.split(r"^(### .*)$", DOC.read_text(), flags=re.M):
        if block.startswith("### "):
            title = block[4:].strip()
            continue
        for code in re.findall(r"^```python\n(.*?)^```", block, flags=re.S | re.M):
            examples[title if title not in examples else title + " 2"] = code
    return examples


DOC_EXAMPLES = _doc_examples()


@pytest.mark.parametrize("title", DOC_EXAMPLES)
def test_doc_example(request, title):
    if title.startswith("NumPy"):
        request.getfixturevalue("host_backend")
    else:
        request.getfixturevalue("gpu")
        if title == "CuPy":
            require_cupy()
        elif title == "PyTorch":
            require_torch()
        elif title == "JAX":
            require_jax()
        elif title == "Numba":
            request.getfixturevalue("nb")
    code = compile(DOC_EXAMPLES[title], "%s (%s)" % (DOC.name, title), "exec")
    exec(code, {"__name__": "doc_example"})  # noqa: S102 - our own documentation


def test_doc_has_every_example():
    assert set(DOC_EXAMPLES) == {"CuPy", "Numba", "PyTorch", "JAX",
                                 "NumPy, on the host backend"}
