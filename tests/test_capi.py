"""devarray's C API (devarray/include/devarray.h) through a small test
extension, tests/capi_probe.c, compiled here with the system C compiler:
views of DeviceArrays and foreign arrays, the flags, Empty, Wrap, the
CUDAError helper, the version check of import_devarray(), and broken
producers fed to DevArray_GetView (each a Python exception, never a crash).
Also the DLPack C exchange API that DeviceArray publishes."""

import ctypes
import gc
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import devarray
from _helpers import CAIProducer, assert_values, cai_changed, random_array
from _multigpu import need_gpus
from test_interop import STREAM_N, require_cupy, require_torch, torch_producer_handoff
from test_reliability import CAI_ERRORS, CRAFTED_ERRORS, CraftedProducer

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_probe(directory, *defines):
    """Build tests/capi_probe.c into `directory`/capi_probe.so."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        pytest.skip("no C compiler to build the C API probe")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = os.path.join(directory, "capi_probe" + suffix)
    command = [cc, "-shared", "-fPIC", "-O1", "-std=c11", "-Wall", "-Wextra", "-Werror",
               "-I", sysconfig.get_paths()["include"], "-I", devarray.get_include(),
               *defines, os.path.join(HERE, "capi_probe.c"), "-o", target]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    assert done.returncode == 0, done.stdout
    return directory


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    directory = compile_probe(str(tmp_path_factory.mktemp("capi_probe")))
    sys.path.insert(0, directory)
    try:
        import capi_probe
        yield capi_probe
    finally:
        sys.path.remove(directory)
        sys.modules.pop("capi_probe", None)


def test_header_is_installed_with_the_package():
    assert os.path.isfile(os.path.join(devarray.get_include(), "devarray.h"))


def test_import_devarray_refuses_an_older_devarray(tmp_path):
    """An extension built against a newer header than the running devarray
    provides fails to import with an ImportError naming both versions."""
    directory = compile_probe(str(tmp_path), "-DDEVARRAY_C_API_VERSION=99")
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, %r); import capi_probe" % directory],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert done.returncode != 0
    assert "ImportError" in done.stdout, done.stdout
    assert "version 99" in done.stdout and "provides version 2" in done.stdout, done.stdout


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float32",
                                   "complex128"])
def test_view_of_a_device_array(backend, rng, probe, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    d = devarray.asarray(a)[:, ::2, 1:]
    info = probe.view_info(d)
    assert info["data"] == d.ptr
    assert info["ndim"] == 3 and info["shape"] == d.shape and info["strides"] == d.strides
    assert info["dtype"] == d.dtype.num
    assert info["itemsize"] == d.itemsize and info["size"] == d.size
    assert info["device"] == (d.device if backend == "cuda" else -1)
    assert info["stream"] == probe.current_stream() == 0
    assert info["readonly"] is False
    assert info["is_obj"] is True
    assert probe.check(d) and not probe.check(a)
    assert probe.device_array_type() is devarray.DeviceArray


def test_view_keeps_nothing_after_release(backend, rng, probe):
    d = devarray.asarray(random_array(rng, (8,), "float32"))
    assert probe.release_twice(d) == 0


def test_view_flags(backend, rng, probe):
    d = devarray.asarray(random_array(rng, (4, 6), "float64"))
    WRITABLE, C_CONTIGUOUS = 1, 2
    assert probe.view_info(d, WRITABLE | C_CONTIGUOUS)["shape"] == (4, 6)
    with pytest.raises(ValueError, match="not C-contiguous"):
        probe.view_info(d.T, C_CONTIGUOUS)
    assert probe.view_info(d.T)["strides"] == d.T.strides
    ro = devarray._core._readonly_view(d)
    assert probe.view_info(ro)["readonly"] is True
    with pytest.raises(ValueError, match="read-only"):
        probe.view_info(ro, WRITABLE)
    with pytest.raises(ValueError, match="unknown flags"):
        probe.view_info(d, 8)


@pytest.mark.parametrize("bad", [None, 3, 2.5, "x", [1, 2], object()])
def test_view_of_a_non_array_is_a_type_error(backend, probe, bad):
    with pytest.raises(TypeError, match="DevArray_GetView"):
        probe.view_info(bad)


def test_null_view_pointer_is_a_value_error(backend, probe):
    with pytest.raises(ValueError, match="view is NULL"):
        probe.null_view(devarray.zeros(2))


def test_view_of_a_host_dlpack_producer(rng, probe):
    """NumPy arrays come through DLPack as host memory (device -1), viewed
    without a copy."""
    a = random_array(rng, (5, 3), "int32")
    info = probe.view_info(a)
    assert info["data"] == a.ctypes.data and info["device"] == -1
    assert info["shape"] == a.shape and info["strides"] == a.strides
    assert info["dtype"] == devarray.int32.num and not info["is_obj"]


def test_view_of_a_cai_producer(gpu, rng, probe):
    a = random_array(rng, (4, 8), "float32")
    d = devarray.to_device(a)
    producer = CAIProducer(dict(d.__cuda_array_interface__), owner=d)
    info = probe.view_info(producer)
    assert info["data"] == d.ptr and info["shape"] == (4, 8) and info["device"] == d.device
    assert info["holder"].base is producer


@pytest.mark.parametrize("dtype", ["float32", "int16", "complex128"])
def test_view_of_a_cupy_array(gpu, rng, probe, dtype):
    cupy = require_cupy()
    x = cupy.asarray(random_array(rng, (6, 5), dtype))[:, 1::2]
    info = probe.view_info(x)
    assert info["data"] == x.data.ptr and info["shape"] == x.shape
    assert info["strides"] == x.strides and info["device"] == x.device.id
    assert info["dtype"] == devarray.DType(dtype).num
    assert_values(info["holder"], cupy.asnumpy(x))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_view_of_a_torch_tensor(gpu, rng, probe, dtype):
    """PyTorch publishes the DLPack C exchange API: GetView takes its
    tensors through it (no Python call) when it does, else through DLPack."""
    torch = require_torch()
    a = random_array(rng, (5, 4), dtype)
    t = torch.from_numpy(a).cuda().T
    info = probe.view_info(t)
    assert info["data"] == t.data_ptr() and info["shape"] == tuple(t.shape)
    assert info["strides"] == tuple(k * t.element_size() for k in t.stride())
    assert_values(info["holder"], a.T)


def test_view_of_a_torch_tensor_waits_for_its_stream(gpu, probe):
    """A tensor written on a side stream (torch's current one) is read by
    devarray after that work, with no host synchronisation in between."""
    torch = require_torch()
    total, values = torch_producer_handoff(
        torch, None, take=lambda t: probe.view_info(t)["holder"])
    assert total == 128.0 * STREAM_N
    assert np.count_nonzero(values != 64.0) == 0


def test_view_of_a_numba_array(numba_cuda, rng, probe):
    a = random_array(rng, (7, 3), "float64")
    x = numba_cuda.to_device(a)
    info = probe.view_info(x)
    assert info["data"] == x.__cuda_array_interface__["data"][0]
    assert info["shape"] == (7, 3)
    assert_values(info["holder"], a)


@pytest.mark.parametrize("case", list(CAI_ERRORS))
def test_broken_cai_producer(gpu, rng, probe, case):
    changes, exc, keyword = CAI_ERRORS[case]
    a = random_array(rng, (4, 8), "float64")
    d = devarray.to_device(a)
    with pytest.raises(exc) as error:
        probe.view_info(cai_changed(d, changes(d.ptr)))
    assert keyword in str(error.value).lower(), str(error.value)
    assert_values(d, a)


@pytest.mark.parametrize("case", list(CRAFTED_ERRORS))
def test_broken_dlpack_producer(rng, probe, case):
    """Host tensors (the crafted producer's device is the CPU): refused with
    the reliability suite's exceptions, freed exactly once."""
    kwargs, exc, keyword = CRAFTED_ERRORS[case]
    backing = random_array(rng, (6,), "float64")
    saved = backing.tobytes()
    p = CraftedProducer(backing, **kwargs)
    with pytest.raises(exc) as error:
        probe.view_info(p)
    assert keyword in str(error.value).lower(), str(error.value)
    gc.collect()
    consumed = p.capsule is not None and p.capsule_name() != p.name.decode()
    assert p.deleted == (1 if consumed else 0)
    assert backing.tobytes() == saved


def test_view_of_a_good_dlpack_tensor_is_freed_once(rng, probe):
    backing = random_array(rng, (6,), "float64")
    p = CraftedProducer(backing)
    info = probe.view_info(p)
    assert info["data"] == backing.ctypes.data
    del info
    gc.collect()
    assert p.deleted == 1


@pytest.mark.parametrize("dtype", range(14))
def test_empty(backend, probe, dtype):
    d = probe.empty((2, 3), dtype)
    assert isinstance(d, devarray.DeviceArray)
    assert d.shape == (2, 3) and d.dtype.num == dtype
    assert d.device == devarray.Device(backend)


@pytest.mark.parametrize("args, exc, word", [
    (((2,), 14), ValueError, "dtype"),
    (((2,), -1), ValueError, "dtype"),
    (((-2,), 10), ValueError, "negative"),
    (((1,) * 33, 10), ValueError, "ndim"),
    ((None, 10, 2), ValueError, "shape is NULL"),
    (((2 ** 40, 2 ** 40), 10), ValueError, "big"),
])
def test_empty_errors(backend, probe, args, exc, word):
    with pytest.raises(exc, match=word):
        probe.empty(*args)


@pytest.mark.parametrize("dtype", [0, 7, 10, 13])
def test_empty_on(backend, probe, dtype):
    """On the place asked for, whatever the default backend: device -1 is
    host memory, an ordinal a GPU."""
    d = probe.empty_on((4, 5), dtype, 0 if backend == "cuda" else -1)
    assert isinstance(d, devarray.DeviceArray)
    assert d.shape == (4, 5) and d.dtype.num == dtype
    assert probe.view_info(d)["strides"] == (5 * d.itemsize, d.itemsize)
    assert d.device == (devarray.Device("cuda", 0) if backend == "cuda"
                        else devarray.Device("host"))
    # host memory, whatever the default backend
    assert probe.empty_on((3,), dtype, -1).device == devarray.Device("host")


def test_empty_on_every_device(gpu, probe):
    """Made on the device asked for while another is current, which then
    becomes the active one: the current stream is that device's."""
    need_gpus(2)
    last = devarray.device_count() - 1
    with devarray.Device(0):
        d = probe.empty_on((1000,), 10, last)
        assert d.device == devarray.Device(last)
        assert probe.current_stream() == probe.view_info(d)["stream"]
        d[...] = 2.5
        assert float(d.sum()) == 2500.0


def test_empty_on_errors(backend, probe):
    with pytest.raises(ValueError, match="dtype"):
        probe.empty_on((2,), 14, -1)
    with pytest.raises(ValueError, match="negative"):
        probe.empty_on((-2,), 10, -1)
    count = devarray.device_count() if backend == "cuda" else 0
    with pytest.raises(ValueError, match="device"):
        probe.empty_on((2,), 10, max(count, 1) + 63)


def test_wrap_keeps_the_owner_alive(backend, rng, probe):
    a = random_array(rng, (6, 4), "float32")
    d = devarray.asarray(a)
    device = d.device if backend == "cuda" else -1
    w = probe.wrap(d, d.ptr, (4, 6), (4, 16), 10, device, 1)
    assert w.base is d and w.readonly and w.shape == (4, 6)
    assert_values(w, a.T.copy())
    del d
    gc.collect()
    assert_values(w, a.T.copy())


@pytest.mark.parametrize("kwargs, word", [
    (dict(owner=None), "owner"),
    (dict(dtype=99), "dtype"),
    (dict(shape=(1,) * 33, strides=None), "ndim"),
    (dict(device=7), "device"),
])
def test_wrap_errors(backend, rng, probe, kwargs, word):
    d = devarray.asarray(random_array(rng, (4,), "float32"))
    args = dict(owner=d, data=d.ptr, shape=(4,), strides=None, dtype=10,
                device=d.device if backend == "cuda" else -1, readonly=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        probe.wrap(*args.values())


def test_wrap_misaligned_device_memory(gpu, probe):
    d = devarray.zeros(8, dtype="float32")
    with pytest.raises(ValueError, match="aligned"):
        probe.wrap(d, d.ptr + 2, (3,), None, 10, d.device, 0)


def test_set_cuda_error(probe):
    with pytest.raises(devarray.CUDAError, match="my_kernel launch"):
        probe.set_cuda_error(2, "my_kernel launch")


# ---- DeviceArray.__dlpack_c_exchange_api__ ------------------------------------

class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _Header(ctypes.Structure):
    _fields_ = [("version", _Version), ("prev_api", ctypes.c_void_p)]


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [("header", _Header)] + [(name, ctypes.c_void_p) for name in (
        "managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
        "managed_tensor_to_py_object_no_sync", "dltensor_from_py_object_no_sync",
        "current_work_stream")]


def _exchange_api():
    capsule = devarray.DeviceArray.__dlpack_c_exchange_api__
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return _ExchangeAPI.from_address(get(capsule, b"dlpack_exchange_api"))


def test_exchange_api_table():
    api = _exchange_api()
    assert (api.header.version.major, api.header.version.minor) == (1, 3)
    assert api.header.prev_api is None
    for name in ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
                 "managed_tensor_to_py_object_no_sync", "current_work_stream"):
        assert getattr(api, name), name


def test_exchange_api_round_trip(backend, rng):
    """from_py_object then to_py_object gives a view of the same memory,
    and the tensor's reference keeps the source alive until then."""
    api = _exchange_api()
    from_py = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                ctypes.POINTER(ctypes.c_void_p))(
        api.managed_tensor_from_py_object_no_sync)
    to_py = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                              ctypes.POINTER(ctypes.py_object))(
        api.managed_tensor_to_py_object_no_sync)
    a = random_array(rng, (3, 5), "float32")
    d = devarray.asarray(a)[:, 1:]
    managed = ctypes.c_void_p()
    assert from_py(d, ctypes.byref(managed)) == 0
    ptr, strides = d.ptr, d.strides
    del d
    gc.collect()
    out = ctypes.py_object()
    assert to_py(managed, ctypes.byref(out)) == 0
    view = out.value
    assert view.ptr == ptr and view.strides == strides
    assert_values(view, a[:, 1:])
    with pytest.raises(TypeError, match="DeviceArray"):
        from_py(np.zeros(3), ctypes.byref(managed))
