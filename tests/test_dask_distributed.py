"""devarray.dask with dask.distributed: DeviceArray chunks through
distributed's serialization (the "dask" family: host frames; the "cuda"
family: device frames; pickle, the fallback) on both backends, and on
clusters of worker processes: two workers on the host backend (runs
anywhere), and with dask_cuda where devarray sees two GPUs a
LocalCUDACluster of one worker per GPU.  Skipped where distributed is not
installed."""

import collections
import importlib.util
import os
import subprocess
import sys
import time
import warnings

import pytest

np = pytest.importorskip("numpy")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")
from distributed.protocol import (dask_deserialize, dask_serialize, deserialize,  # noqa: E402
                                  dumps, loads, serialize, to_serialize)
from distributed.protocol.cuda import cuda_deserialize, cuda_serialize  # noqa: E402

import devarray  # noqa: E402
import devarray.dask as dd  # noqa: E402
from _helpers import DTYPES, CAIProducer, random_array  # noqa: E402
from _multigpu import need_gpus  # noqa: E402
from devarray import _core  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# with rmm installed the cuda family copies each frame into rmm memory
HAVE_RMM = importlib.util.find_spec("rmm") is not None

# Views of a (6, 8) array, applied alike to the NumPy original and to its
# DeviceArray: the layouts a chunk can have when it leaves a worker.
LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: a.T,
    "strided": lambda a: a[1::2, ::3],
    "negative": lambda a: a[::-1, ::-2],
    "permuted-3d": lambda a: a.reshape(2, 3, 8).transpose(1, 2, 0),
    "0-d": lambda a: a[2:3, 3:4].reshape(()),
    "empty": lambda a: a[:0],
    "size-1": lambda a: a[1:2, 2:3],
}


def chunk_pair(rng, dtype, layout):
    """A NumPy array of random values and its DeviceArray, in `layout`."""
    a = random_array(rng, (6, 8), dtype, special=True)
    view = LAYOUTS[layout]
    return view(a), view(devarray.asarray(a))


def here():
    """The device that devarray puts new arrays on now."""
    return devarray.asarray([0]).device


def assert_same_chunk(got, expected, device):
    """got is a DeviceArray on `device` holding expected's bytes, C-contiguous
    or F-contiguous as expected is (any other layout arrives C-contiguous)."""
    assert isinstance(got, devarray.DeviceArray), type(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.device == device, (got.device, device)
    assert got.to_host().tobytes() == expected.tobytes()
    if expected.size > 1:  # devarray gives empty arrays conventional strides
        order = "F" if expected.flags.f_contiguous and not expected.flags.c_contiguous else "C"
        assert got.strides == np.empty(expected.shape, expected.dtype, order=order).strides


# ---- registration -------------------------------------------------------------

def test_registered(backend):
    for dispatch, function in ((dask_serialize, dd._dask_serialize),
                               (dask_deserialize, dd._dask_deserialize),
                               (cuda_serialize, dd._cuda_serialize),
                               (cuda_deserialize, dd._cuda_deserialize)):
        assert dispatch.dispatch(devarray.DeviceArray) is function
    from dask.sizeof import sizeof
    x = devarray.zeros((1000, 3), dtype="float64")
    assert sizeof(x) == 24000
    assert sizeof(x[::2]) == 12000


def run_python(code, **env):
    # this devarray first, then wherever dask came from
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path, PYTHONWARNINGS="ignore", **env)
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


def test_devarray_dask_without_distributed():
    """devarray.dask needs dask only: where distributed cannot be imported,
    it imports and its chunks compute."""
    run_python("import sys; sys.modules['distributed'] = None\n"
               "import numpy as np, devarray.dask as dd\n"
               "x = dd.from_numpy(np.arange(6.0), chunks=4)\n"
               "assert float(x.sum().compute(scheduler='sync')) == 15.0\n",
               DEVARRAY_BACKEND="host")


# ---- the "dask" family and the message path (both backends) ------------------

@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_dask_family_round_trip(backend, rng, dtype, layout):
    expected, x = chunk_pair(rng, dtype, layout)
    header, frames = serialize(x, serializers=("dask",), on_error="raise")
    assert header["serializer"] == "dask"
    assert header["sub-header"]["device"] == x.device.type
    assert [f.nbytes for f in frames] == [expected.nbytes]
    assert_same_chunk(deserialize(header, frames), expected, here())


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_message_round_trip(backend, rng, dtype, layout):
    """dumps/loads, what a TCP comm writes and reads: the dask family."""
    expected, x = chunk_pair(rng, dtype, layout)
    frames = dumps({"op": "chunk", "data": to_serialize(x)})
    assert loads(frames, deserialize=False)["data"].header["serializer"] == "dask"
    message = loads(frames)
    assert message["op"] == "chunk"
    assert_same_chunk(message["data"], expected, here())


def test_pickle_family(backend, rng):
    expected, x = chunk_pair(rng, "complex64", "F")
    header, frames = serialize(x, serializers=("pickle",), on_error="raise")
    assert header["serializer"] == "pickle"
    got = deserialize(header, frames)
    assert got.to_host().tobytes() == expected.tobytes()


@pytest.mark.parametrize("layout", ["C", "F", "strided", "0-d", "empty"])
def test_one_copy_each_way(backend, rng, monkeypatch, layout):
    """Through dumps/loads a chunk is copied device to host once, into the
    frame that goes out, and host to device once, from the frame that came
    in: no host copy in between, no device copy of a contiguous chunk.
    devarray counts no copies itself, so this counts devarray.dask's two
    copy functions, which every transfer of the family goes through."""
    expected, x = chunk_pair(rng, "float32", layout)
    downloaded, uploaded = [], []
    download, upload = dd._device_to_host, dd._host_to_device

    def device_to_host(c_view):
        host = download(c_view)
        downloaded.append((c_view.ptr, host))
        return host

    def host_to_device(host, device):
        uploaded.append(host)
        return upload(host, device)

    monkeypatch.setattr(dd, "_device_to_host", device_to_host)
    monkeypatch.setattr(dd, "_host_to_device", host_to_device)
    frames = dumps({"data": to_serialize(x)})
    assert len(downloaded) == 1 and not uploaded
    ptr, host = downloaded[0]
    frame = np.frombuffer(frames[-1], dtype=np.uint8)  # the message's last: the bytes
    if expected.nbytes:
        assert np.shares_memory(frame, host), "the frame is a copy of the download"
        if layout in ("C", "F", "0-d"):
            assert ptr == x.ptr, "a contiguous chunk was copied on the device"
    got = loads(frames)["data"]
    assert len(downloaded) == 1 and len(uploaded) == 1
    if expected.nbytes:
        assert np.shares_memory(uploaded[0], frame), "the upload is of a copy of the frame"
    assert_same_chunk(got, expected, here())


def test_host_chunk_stays_on_the_host(gpu, rng):
    """A chunk of the host backend deserializes onto the host, whatever
    backend the receiving process defaults to."""
    expected = random_array(rng, (5, 3), "int16")
    header, frames = serialize(devarray.asarray(expected, device="host"), serializers=("dask",))
    assert header["sub-header"]["device"] == "host"
    assert_same_chunk(deserialize(header, frames), expected, devarray.Device("host"))


def test_cuda_chunk_where_cuda_is_missing(rng):
    """A CUDA chunk reaching a process without CUDA (a client on a laptop)
    raises, saying how to bring the values back instead; the header below is
    that of a CUDA chunk, built from a host one."""
    if _core._cuda_available():
        pytest.skip("CUDA is available here: a CUDA chunk deserializes")
    expected = random_array(rng, (4, 4), "float32")
    header, frames = serialize(devarray.asarray(expected, device="host"), serializers=("dask",))
    header["sub-header"]["device"] = "cuda"
    for loader in (dd._dask_deserialize, dd._cuda_deserialize):
        with pytest.raises(RuntimeError, match=r"CUDA backend reached a process where CUDA "
                           r"is not available.*to_backend\('numpy'\)"):
            loader(header["sub-header"], frames)


def test_cuda_family_leaves_host_chunks_to_the_dask_family(rng):
    expected = random_array(rng, (3, 7), "uint32")
    x = devarray.asarray(expected, device="host")
    header, frames = serialize(x, serializers=("cuda", "dask"), on_error="raise")
    assert header["serializer"] == "dask"
    assert_same_chunk(deserialize(header, frames), expected, devarray.Device("host"))
    with pytest.raises(TypeError, match="Could not serialize"):
        serialize(x, serializers=("cuda",), on_error="raise")


# ---- the "cuda" family ------------------------------------------------------------

def test_reinterpreted_interface():
    """How the cuda family sees a 1-D uint8 frame as the chunk's dtype: the
    same pointer, stream and read-only flag, the shape in elements."""
    frame = CAIProducer({"shape": (24,), "typestr": "|u1", "data": (0x7000, True),
                         "strides": (1,), "version": 3, "stream": 7})
    interface = dd._Reinterpreted(frame, np.dtype("complex64")).__cuda_array_interface__
    assert interface == {"shape": (3,), "typestr": "<c8", "data": (0x7000, True),
                         "strides": None, "version": 3, "stream": 7}
    with pytest.raises(ValueError, match="20 bytes does not hold float64 elements"):
        dd._Reinterpreted(CAIProducer(dict(frame.__cuda_array_interface__, shape=(20,)),
                                      owner=frame), np.dtype("float64"))
    with pytest.raises(ValueError, match="C-contiguous"):
        dd._Reinterpreted(CAIProducer(dict(frame.__cuda_array_interface__, strides=(2,))),
                          np.dtype("uint8"))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_family_round_trip(gpu, rng, dtype, layout):
    """Device frames: the chunk's own memory out (a copy only for a view
    that is not contiguous), the frame's memory back in (no copy)."""
    expected, x = chunk_pair(rng, dtype, layout)
    header, frames = serialize(x, serializers=("cuda",), on_error="raise")
    assert header["serializer"] == "cuda"
    (frame,) = frames
    interface = frame.__cuda_array_interface__
    assert (interface["typestr"], interface["shape"]) == ("|u1", (expected.nbytes,))
    if layout in ("C", "F", "0-d", "size-1") and not HAVE_RMM:
        assert frame.ptr == x.ptr
    got = deserialize(header, frames)
    assert got.ptr == frame.ptr
    assert_same_chunk(got, expected, here())


def test_cuda_family_frame_without_rmm(gpu, rng, monkeypatch):
    """Without rmm a contiguous chunk goes as its own memory, no copy."""
    monkeypatch.setitem(sys.modules, "rmm", None)  # import rmm: ImportError
    expected, x = chunk_pair(rng, "int32", "C")
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert frame.ptr == x.ptr
    assert_same_chunk(deserialize(header, [frame]), expected, here())


@pytest.mark.parametrize("layout", ["C", "strided", "empty"])
def test_cuda_family_frame_in_rmm_memory(gpu, rng, layout):
    """With rmm the frame is a copy in memory that cuIpcGetMemHandle can
    export (UCX's NVLink path between processes); devarray's own pool
    memory cannot be exported that way."""
    pytest.importorskip("rmm", reason="rmm is not installed")
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (it checks the IPC handle)")
    expected, x = chunk_pair(rng, "float64", layout)
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert frame.device == x.device
    if layout != "empty":
        assert frame.ptr != x.ptr
        assert isinstance(frame.__cuda_array_interface__, dict)
        cupy.cuda.runtime.ipcGetMemHandle(frame.ptr)
        with pytest.raises(cupy.cuda.runtime.CUDARuntimeError):
            cupy.cuda.runtime.ipcGetMemHandle(devarray.empty(1 << 22, dtype="uint8").ptr)
    del x  # the frame does not need the chunk
    overwrite = devarray.full(expected.shape, -1.0)
    assert_same_chunk(deserialize(header, [frame]), expected, here())
    del overwrite


def test_cuda_family_gathers_a_strided_chunk_into_the_frame(gpu, rng):
    """A strided chunk is gathered straight into the rmm frame, the one
    device copy of its transfer (as CuPy makes one): none in devarray's
    memory on the way."""
    pytest.importorskip("rmm", reason="rmm is not installed")
    a = rng.standard_normal((512, 1024))
    expected = a[::2, ::-2]
    x = devarray.asarray(a)[::2, ::-2]
    in_use = devarray.memory_stats()["in_use_bytes"]
    devarray.reset_peak_memory()
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert devarray.memory_stats()["peak_bytes"] - in_use < expected.nbytes
    assert_same_chunk(deserialize(header, [frame]), expected, here())


def test_cuda_family_frames_reuse_the_staging_pool(gpu, rng):
    """A frame given back leaves its memory in the staging pool for the
    next one of the same size: the receiver's IPC mapping of it holds."""
    pytest.importorskip("rmm", reason="rmm is not installed")
    expected, x = chunk_pair(rng, "float32", "C")
    _, (first,) = serialize(x, serializers=("cuda",), on_error="raise")
    first_ptr = first.ptr
    del first
    header, (second,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert second.ptr == first_ptr
    assert_same_chunk(deserialize(header, [second]), expected, here())


def test_staging_pool_grows_by_what_frames_need(gpu, rng, monkeypatch):
    """A small frame takes about its own size from the device, not a share
    of the staging pool's limit: each process of a cluster makes a pool."""
    pytest.importorskip("rmm", reason="rmm is not installed")
    monkeypatch.setattr(dd, "_staging_pools", {})
    expected, x = chunk_pair(rng, "float64", "C")
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    (pool,) = dd._staging_pools.values()
    assert expected.nbytes <= pool.pool_size() <= expected.nbytes + (1 << 20)
    assert_same_chunk(deserialize(header, [frame]), expected, here())


def test_cuda_family_frame_past_the_staging_limit(gpu, rng, monkeypatch):
    """A frame the full staging pool cannot hold gets rmm memory of its own,
    still exportable, with the chunk's bytes."""
    rmm = pytest.importorskip("rmm", reason="rmm is not installed")
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (it checks the IPC handle)")
    full = rmm.mr.PoolMemoryResource(rmm.mr.CudaMemoryResource(), initial_pool_size=0,
                                     maximum_pool_size=256)
    monkeypatch.setattr(dd, "_staging_pools",
                        {rmm._cuda.gpu.getDevice(): full})
    expected, x = chunk_pair(rng, "float64", "F")
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert frame.ptr != x.ptr
    cupy.cuda.runtime.ipcGetMemHandle(frame.ptr)
    assert_same_chunk(deserialize(header, [frame]), expected, here())


def test_order_after_writers_takes_device_arrays_only(backend):
    """The serializers' device-side wait: nothing to return, on either
    backend; anything but a DeviceArray is a TypeError."""
    assert _core._order_after_writers(devarray.asarray([1.0, 2.0])[::-1]) is None
    with pytest.raises(TypeError, match="needs a DeviceArray, not numpy.ndarray"):
        _core._order_after_writers(np.zeros(2))


def test_cuda_family_frame_after_a_writer_on_its_own_stream(gpu, rng):
    """A chunk whose task queued it on a non-blocking stream and returned
    before the device finished: the staged frame holds its final bytes (the
    copy waits for that stream on the device)."""
    pytest.importorskip("rmm", reason="rmm is not installed")
    a = rng.standard_normal(1 << 24, dtype=np.float32)
    expected = a
    x = devarray.asarray(a)
    with devarray.Stream(non_blocking=True):
        for _ in range(20):
            expected = expected * np.float32(1.0001)
            x = x * 1.0001
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    assert frame.ptr != x.ptr
    assert deserialize(header, [frame]).to_host().tobytes() == expected.tobytes()


def frame_as(kind, frame):
    """The device frame as a comm might hand it over."""
    if kind == "devarray":
        return frame
    if kind == "cai-object":
        return CAIProducer(dict(frame.__cuda_array_interface__), owner=frame)
    if kind == "cupy":
        cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
        return cupy.asarray(frame)
    return memoryview(frame.to_host())  # "host": a TCP comm carried it


@pytest.mark.parametrize("kind", ["devarray", "cai-object", "cupy", "host"])
def test_cuda_family_frames(gpu, rng, kind):
    expected, x = chunk_pair(rng, "float64", "F")
    header, (frame,) = serialize(x, serializers=("cuda",), on_error="raise")
    received = frame_as(kind, frame)
    got = deserialize(header, [received])
    if kind == "host":
        assert got.ptr != frame.ptr
    else:
        assert got.ptr == frame.ptr  # no copy: a view of the frame
    del received, frame, x  # got keeps the frame's memory alive
    # memory freed too early would be handed to this array and overwritten
    overwrite = devarray.full(expected.shape, -1.0)
    assert_same_chunk(got, expected, here())
    del overwrite


def test_cuda_family_refuses_a_strided_frame(gpu):
    x = devarray.zeros(16, dtype="uint8")
    header, _ = serialize(devarray.zeros(4, dtype="float32"), serializers=("cuda",))
    with pytest.raises(ValueError, match="C-contiguous"):
        deserialize(header, [x[::2]])


# ---- several GPUs --------------------------------------------------------------

def test_chunk_from_the_last_gpu(request, rng):
    """A chunk of the last GPU arrives on the current one: through host
    frames, and through device frames that a comm received there."""
    need_gpus(2)
    request.getfixturevalue("gpu")
    last = devarray.device_count() - 1
    expected = random_array(rng, (9, 5), "float32")
    x = devarray.asarray(expected, device=last).T
    header, frames = serialize(x, serializers=("dask",))
    assert_same_chunk(deserialize(header, frames), expected.T, here())
    header, (frame,) = serialize(x, serializers=("cuda",))
    assert frame.device == last
    received = frame.to_device(here())
    got = deserialize(header, [received])
    assert got.ptr == received.ptr
    assert_same_chunk(got, expected.T, here())


# ---- clusters of worker processes -----------------------------------------------

COPIES = collections.Counter()


def count_copies():
    """On a worker: make COPIES count the calls of devarray.dask's two copy
    functions (once per process)."""
    for name in ("_device_to_host", "_host_to_device"):
        original = getattr(dd, name)
        if getattr(original, "counted", False):
            continue

        def counted(*args, _original=original, _name=name):
            COPIES[_name] += 1
            return _original(*args)

        counted.counted = True
        setattr(dd, name, counted)


def copies_and_keys_received(dask_worker):
    """On a worker: COPIES, and how many keys it fetched from other workers."""
    received = sum(len(entry["keys"]) for entry in dask_worker.transfer_incoming_log)
    return dict(COPIES, received=received)


def worker_setup():
    from distributed.protocol import dask_serialize
    return devarray.backend(), dask_serialize.dispatch(devarray.DeviceArray).__name__


# no dashboard, and the scheduler's HTTP server on a free port: 8787 may be
# another cluster's (pytest-xdist runs several)
NO_DASHBOARD = dict(dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"})


@pytest.fixture(scope="module", params=["host", "cuda"])
def client(request):
    """A client of two worker processes on the host backend, or of a
    LocalCUDACluster (one worker per GPU); TCP between them, and devarray.dask
    preloaded on every worker, as docs/multi-gpu.md says."""
    if request.param == "cuda":
        need_gpus(2)
        dask_cuda = pytest.importorskip("dask_cuda", reason="dask_cuda is not installed")
        cluster = dask_cuda.LocalCUDACluster(protocol="tcp", preload=["devarray.dask"],
                                             **NO_DASHBOARD)
    else:
        cluster = distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, protocol="tcp",
            preload=["devarray.dask"], env={"DEVARRAY_BACKEND": "host"}, **NO_DASHBOARD)
    with warnings.catch_warnings():
        # the default backend's first use warns where CUDA is missing
        warnings.simplefilter("ignore", RuntimeWarning)
        previous = devarray.backend()
    devarray.set_backend(request.param)
    try:
        with cluster, distributed.Client(cluster) as c:
            yield c
    finally:
        devarray.set_backend(previous)


def small_ints(rng, shape):
    """float64 small integers: every sum below is exact in any order."""
    return rng.integers(-50, 50, size=shape).astype(np.float64)


def check(client, lazy, expected, rtol=0.0):
    got = client.compute(lazy).result()
    assert isinstance(got, devarray.DeviceArray), type(got)
    assert got.device.type == devarray.backend()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if rtol:
        np.testing.assert_allclose(got.to_host(), expected, rtol=rtol)
    else:
        assert got.to_host().tobytes() == np.ascontiguousarray(expected).tobytes()


def test_cluster_workers(client):
    setups = client.run(worker_setup)
    assert len(setups) == (2 if devarray.backend() == "host" else devarray.device_count())
    assert set(setups.values()) == {(devarray.backend(), "_dask_serialize")}


def test_cluster_elementwise(client, rng):
    a = small_ints(rng, (40, 30))
    x = dd.from_numpy(a, chunks=(10, 15))
    check(client, (x + 1) * x - 2 * x, (a + 1) * a - 2 * a)
    check(client, x[3:31:2, ::-1] / 4, a[3:31:2, ::-1] / 4)


@pytest.mark.parametrize("name", ["sum", "mean", "std", "var"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cluster_reduction(client, rng, name, axis):
    a = small_ints(rng, (40, 30))
    x = dd.from_numpy(a, chunks=(10, 15))
    # sums of small integers are exact in any order, and so is a mean (one
    # division); dask combines std and var from partial moments
    rtol = 1e-12 if name in ("std", "var") else 0.0
    check(client, getattr(x, name)(axis=axis), getattr(np, name)(a, axis=axis), rtol)


def test_cluster_matmul_and_tensordot(client, rng):
    a = small_ints(rng, (60, 12))
    b = small_ints(rng, (12, 20))
    x = dd.from_numpy(a, chunks=(15, 6))
    y = dd.from_numpy(b, chunks=(6, 10))
    check(client, x.T @ x, a.T @ a)
    check(client, da.tensordot(x, y, axes=([1], [0])), np.tensordot(a, b, axes=([1], [0])))


def test_cluster_rechunk_copies_each_chunk_once(client, rng):
    """An all-to-all rechunk between the workers: every key a worker fetches
    costs one device-to-host copy on the sender and one host-to-device copy
    on the receiver, through the dask family (pickle would count none).
    dask's p2p rechunk does not take DeviceArray chunks: method="tasks"."""
    client.run(count_copies)
    a = small_ints(rng, (48, 48))
    x = client.persist(dd.from_numpy(a, chunks=(6, 48)))
    distributed.wait(x)
    before = client.run(copies_and_keys_received)
    y = client.persist(x.rechunk((48, 6), method="tasks"))
    distributed.wait(y)
    after = client.run(copies_and_keys_received)
    moved = {name: sum(after[w].get(name, 0) - before[w].get(name, 0) for w in after)
             for name in ("_device_to_host", "_host_to_device", "received")}
    assert moved["received"] > 0
    assert moved["_device_to_host"] == moved["_host_to_device"] == moved["received"], moved
    check(client, y, a)
    assert all(isinstance(b, devarray.DeviceArray)
               for b in client.gather(client.futures_of(y)))


def test_cluster_persist(client, rng):
    a = small_ints(rng, (32, 32))
    x = client.persist(dd.from_numpy(a, chunks=(8, 8)) * 3)
    distributed.wait(x)
    held = client.has_what()
    assert sum(len(keys) for keys in held.values()) == 16
    assert all(held.values()), "every worker holds chunks"
    check(client, x.sum(axis=0), (a * 3).sum(axis=0))
    check(client, x.T - x, (a * 3).T - a * 3)


def slow_copy(block):
    time.sleep(0.05)
    return block.copy()


def test_cluster_worker_restart_mid_computation(client, rng):
    """A worker restarted while a computation runs takes its chunks with it;
    the scheduler recomputes them elsewhere, and the result is whole.  The
    new worker process has devarray.dask again (the preload)."""
    a = small_ints(rng, (40, 40))
    x = client.persist(dd.from_numpy(a, chunks=(10, 10)) * 2)
    distributed.wait(x)
    held = client.has_what()
    victim = next(w for w, keys in held.items() if keys)
    total = client.compute(x.map_blocks(slow_copy, dtype=x.dtype)
                           .rechunk((40, 5), method="tasks").sum(axis=0))
    time.sleep(0.1)
    client.restart_workers([victim])
    got = total.result()
    assert got.to_host().tobytes() == (a * 2).sum(axis=0).tobytes()
    setups = client.run(worker_setup)
    assert len(setups) == len(held)
    assert set(setups.values()) == {(devarray.backend(), "_dask_serialize")}


def send_cuda_headers():
    """On a worker: label every chunk it sends a CUDA chunk."""
    header_and_c_view = dd._header_and_c_view

    def labelled(x):
        header, c_view = header_and_c_view(x)
        return dict(header, device="cuda"), c_view

    dd._header_and_c_view = labelled


def test_cluster_result_where_cuda_is_missing(rng):
    """A client without CUDA that computes a result of CUDA chunks gets the
    error saying what to do from result(); the worker here sends host chunks
    labelled as CUDA ones."""
    if _core._cuda_available():
        pytest.skip("CUDA is available here: a CUDA chunk deserializes")
    a = small_ints(rng, (4, 6))
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                  preload=["devarray.dask"],
                                  env={"DEVARRAY_BACKEND": "host"}, **NO_DASHBOARD) as cluster, \
            distributed.Client(cluster) as c:
        x = dd.from_numpy(a, chunks=(2, 3))
        assert c.compute(x.sum()).result().item() == a.sum()
        c.run(send_cuda_headers)
        with pytest.raises(RuntimeError, match="CUDA backend reached a process where CUDA is "
                           "not available"):
            c.compute(x.sum()).result()


def test_ucx_cluster(rng):
    """protocol="ucx": chunks go between GPUs as device frames (the cuda
    family), with no host copy anywhere."""
    need_gpus(2)
    pytest.importorskip("ucxx", reason="protocol='ucx' needs ucxx, which is not installed")
    pytest.importorskip("distributed_ucxx",
                        reason="protocol='ucx' needs distributed_ucxx, which is not installed")
    dask_cuda = pytest.importorskip("dask_cuda", reason="dask_cuda is not installed")
    a = small_ints(rng, (64, 64))
    with dask_cuda.LocalCUDACluster(protocol="ucx", preload=["devarray.dask"],
                                    **NO_DASHBOARD) as cluster, \
            distributed.Client(cluster) as c:
        c.run(count_copies)
        x = c.persist(dd.from_numpy(a, chunks=(8, 64)))
        distributed.wait(x)
        y = c.persist(x.rechunk((64, 8), method="tasks"))
        distributed.wait(y)
        counts = c.run(copies_and_keys_received)
        assert sum(n["received"] for n in counts.values()) > 0
        assert not any(n.get("_device_to_host") or n.get("_host_to_device")
                       for n in counts.values()), counts
        got = c.compute(y).result()
        assert got.device.type == "cuda"
        assert got.to_host().tobytes() == a.tobytes()
