"""Two GPUs or more: uploads and downloads on every device, peer copies, ops
on a device other than the current one, results' devices, a pool and a
current stream per device, imports that keep their producer's device, and
the ValueError for operands on two devices.  Every test needs two CUDA
devices and is skipped, with that reason, without them (a failure under
DEVARRAY_REQUIRE_GPUS=2)."""

import gc
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import devarray
from devarray import _core

from _helpers import assert_values, random_array
from _multigpu import need_gpus
from test_capi import probe  # noqa: F401  (the C API test extension, a fixture)

COUNT = devarray.device_count()
# every device of the machine; at least two, so that on a smaller machine
# the tests exist and two_gpus says why they skip
DEVICES = range(max(COUNT, 2))


@pytest.fixture(autouse=True)
def two_gpus():
    """Every test here needs two GPUs: skipped without them, a failure
    under DEVARRAY_REQUIRE_GPUS=2 (tests/_multigpu.py).  The tests name
    their devices, starting from device 0 current whatever
    DEVARRAY_TEST_DEVICE says."""
    need_gpus(2)
    with devarray.Device(0):
        yield

DTYPES = ["bool", "int8", "int64", "float32", "float64", "complex128"]


def in_use(device=None):
    return devarray.memory_stats(device)["in_use_bytes"]


def on(device, a):
    return devarray.asarray(a, device=device)


# ---- peer copies ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("src,dst", [(s, d) for s in DEVICES for d in DEVICES if s != d])
def test_peer_copy_both_ways(rng, dtype, src, dst):
    a = random_array(rng, (33, 17), dtype)
    d = on(src, a)
    moved = d.to_device(dst)
    assert moved.device == dst and d.device == src
    assert_values(moved, a)
    assert_values(moved.to_device(src), a)
    # a strided view is copied as its values
    view = d.T[::2]
    assert_values(view.to_device(dst), a.T[::2])


def test_peer_copy_with_astype_and_asarray(rng):
    a = random_array(rng, (100,), "float64")
    d0 = on(0, a)
    cast = devarray.astype(d0, devarray.float32, device=1)
    assert cast.device == 1
    assert_values(cast, a.astype(np.float32))
    again = devarray.asarray(d0, device=devarray.Device("cuda", 1))
    assert again.device == 1
    assert_values(again, a)
    with pytest.raises(ValueError, match="CUDA device 0 to CUDA device 1 needs a copy"):
        devarray.asarray(d0, device=1, copy=False)
    assert devarray.asarray(d0) is d0


def test_empty_peer_copy(rng):
    d = devarray.zeros((0, 3), device=1)
    assert d.to_device(0).shape == (0, 3) and d.to_device(0).device == 0


# ---- uploads and downloads on every device ----------------------------------------

# float64 bytes: under the 1 MiB staging threshold, just over it (one 8 MiB
# staging chunk), and 40 MiB (more chunks than the ring's four slots)
TRANSFER_BYTES = [800, (1 << 20) + 40, (40 << 20) + 40]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("nbytes", TRANSFER_BYTES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pinned", [False, True], ids=["pageable", "pinned"])
def test_upload_and_download_on_every_device(rng, device, nbytes, order, pinned):
    a = rng.standard_normal((nbytes // 40, 5))
    if pinned:
        buf = devarray.empty_pinned(a.shape, "float64")
        np.asarray(buf)[...] = a
        source = buf
    else:
        source = np.asfortranarray(a) if order == "F" else a
    with devarray.Device(device):
        d = devarray.to_device(source)
        # a strided view comes back through the same paths
        view = d[::3, 1:4]
    assert d.device == device and view.device == device
    assert d.to_host().tobytes() == a.tobytes()
    assert view.to_host().tobytes() == np.ascontiguousarray(a[::3, 1:4]).tobytes()
    moved = view.T.to_device((device + 1) % COUNT)
    assert moved.to_host().tobytes() == np.ascontiguousarray(a[::3, 1:4].T).tobytes()


def test_staging_ring_shared_by_every_device_and_stream(rng):
    """Uploads and downloads through the staging ring alternate between the
    devices, each on a stream of its own: a slot an upload's DMA may still
    read is not refilled, nor written by another device's download, before
    that DMA is done."""
    a = [rng.standard_normal(5 << 20) for _ in range(COUNT)]
    streams = []
    for device in range(COUNT):
        with devarray.Device(device):
            streams.append(devarray.Stream())
    arrays = []
    for device in range(COUNT):
        with devarray.Device(device), streams[device]:
            arrays.append(devarray.to_device(a[device]))
    for device in reversed(range(COUNT)):
        with devarray.Device(device), streams[device]:
            assert arrays[device].to_host().tobytes() == a[device].tobytes()
            assert (arrays[device] * 2).to_host().tobytes() == (a[device] * 2).tobytes()


def test_reductions_on_every_device_after_device_0(rng):
    """A reduction on a device's legacy stream takes that device's own
    temporary block: one block made on device 0 once served every device,
    and a reduction on device 1 read it (an illegal address)."""
    # -1, 0 and 1: the float32 sum is exact in any order
    a = rng.integers(-1, 2, 1 << 20).astype(np.float32)
    for device in [0, *range(COUNT)]:
        d = on(device, a)
        assert float(d.sum()) == float(a.sum())
        assert_values(devarray.sum(on(device, a.reshape(1024, 1024)), axis=1),
                      a.reshape(1024, 1024).sum(axis=1))


# ---- where results live ---------------------------------------------------------

def test_ops_on_device_1_while_device_0_is_current(rng):
    a = random_array(rng, (8, 8), "float32")
    b = random_array(rng, (8, 8), "float32")
    x, y = on(1, a), on(1, b)
    idx = np.array([0, 3, 5])
    with devarray.Device(0):
        results = {
            "add": (x + y, a + b),
            "sum": (x.sum(axis=0), a.sum(axis=0)),
            "matmul": (x @ y, a @ b),
            "where": (devarray.where(x > y, x, y), np.where(a > b, a, b)),
            "concat": (devarray.concat([x, y]), np.concatenate([a, b])),
            "sort": (devarray.sort(x, axis=1), np.sort(a, axis=1)),
            "take": (x[on(1, idx)], a[idx]),
            "cumsum": (devarray.cumulative_sum(x, axis=1), np.cumsum(a, axis=1)),
            "astype": (x.astype(devarray.float64), a.astype(np.float64)),
        }
        for name, (got, expected) in results.items():
            assert got.device == 1, name
            assert_values(got, expected, rtol=1e-5)
        assert devarray.zeros(3).device == 0


def test_current_device_places_new_arrays(rng):
    with devarray.Device(1):
        assert devarray.zeros(3).device == 1
        assert devarray.arange(4).device == 1
        assert devarray.asarray([1, 2]).device == 1
        assert devarray.Device("cuda") == devarray.Device(1)
        with devarray.Device(0):
            assert devarray.ones(2).device == 0
        assert devarray.ones(2).device == 1
        d0 = on(0, np.arange(5.0))
        assert (d0 * 2).device == 0
        assert devarray.zeros_like(d0).device == 0
    assert devarray.zeros(3).device == 0


def test_frees_run_on_the_arrays_device(rng):
    """Dropping arrays of either device while the other is current frees
    them there: the memory comes back and both devices keep working."""
    before = in_use(1)
    with devarray.Device(0):
        xs = [devarray.ones(1 << 18, device=1) for _ in range(8)]
        del xs
        gc.collect()
        devarray.synchronize()
    assert in_use(1) <= before + (1 << 16)
    assert_values(devarray.ones(4, device=1) + 1, np.full(4, 2.0))


def test_pools_are_per_device():
    base0, base1 = in_use(0), in_use(1)
    d = devarray.empty(1 << 22, dtype="uint8", device=1)
    assert in_use(1) >= base1 + d.nbytes
    assert in_use(0) < base0 + d.nbytes
    with devarray.Device(1):
        assert in_use() == in_use(1)


def test_streams_are_per_device(rng):
    a = random_array(rng, (1000,), "float64")
    with devarray.Device(1):
        s1 = devarray.Stream()
    x0, x1 = on(0, a), on(1, a)
    with s1:
        # device 1 runs on s1; device 0 keeps its default stream
        y1 = x1 * 2
        y0 = x0 * 3
    s1.synchronize()
    assert_values(y1, a * 2)
    assert_values(y0, a * 3)


# ---- imports --------------------------------------------------------------------

def test_torch_on_device_1_keeps_device_1():
    torch = pytest.importorskip("torch")
    t = torch.arange(10, dtype=torch.float32, device="cuda:1")
    for d in (devarray.asarray(t), devarray.from_dlpack(t)):
        assert d.device == 1
        assert_values(d + 1, np.arange(10, dtype=np.float32) + 1)
    d1 = on(1, np.arange(4.0))
    assert d1.__dlpack_device__() == (2, 1)
    assert torch.from_dlpack(d1).device == torch.device("cuda", 1)


def test_jax_imports_devicearrays_of_every_device(rng):
    """JAX set up on every GPU leaves one of them current: devarray's ops and
    JAX's imports still see each array on its own device."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    gpus = jax.devices("gpu")
    a = random_array(rng, (64, 32), "float32")
    for device in DEVICES:
        d = on(device, a) * 2
        j = jax.numpy.from_dlpack(d)
        assert j.devices() == {gpus[device]}
        assert_values(np.asarray(j), a * 2)
        assert_values(d + 1, a * 2 + 1)


def test_cupy_on_device_1_keeps_device_1():
    cupy = pytest.importorskip("cupy")
    with cupy.cuda.Device(1):
        c = cupy.arange(6, dtype=cupy.int64)
    d = devarray.asarray(c)
    assert d.device == 1
    assert_values(d * 2, np.arange(6) * 2)
    assert devarray.from_dlpack(c, device=0).device == 0


# ---- operands on two devices ----------------------------------------------------

CROSS = {
    "add": lambda a, b: a + b,
    "iadd": lambda a, b: a.__iadd__(b),
    "matmul": lambda a, b: a @ b,
    "where": lambda a, b: devarray.where(a > 0, a, b),
    "concat": lambda a, b: devarray.concat([a, b]),
    "stack": lambda a, b: devarray.stack([a, b]),
    "index": lambda a, b: a[b.astype(devarray.int64) % 4],
    "take": lambda a, b: devarray.take(a, b.astype(devarray.int64) % 4, axis=0),
    "setitem": lambda a, b: a.__setitem__(slice(None), b),
    "searchsorted": lambda a, b: devarray.searchsorted(devarray.sort(a[0]), b[0]),
    "vecdot": lambda a, b: devarray.vecdot(a, b),
}


@pytest.mark.parametrize("name", sorted(CROSS))
def test_cross_device_operands_raise(rng, name):
    a = random_array(rng, (4, 4), "float64")
    b = random_array(rng, (4, 4), "float64")
    x, y = on(0, a), on(1, b)
    for first, second, message in ((x, y, "cuda:0 and cuda:1"), (y, x, "cuda:1 and cuda:0")):
        with pytest.raises(ValueError, match=message):
            CROSS[name](first, second)
    assert_values(x, a)
    assert_values(y, b)


def test_cross_device_errors_leak_nothing(rng):
    x, y = on(0, np.ones(1024)), on(1, np.ones(1024))
    devarray.synchronize()
    before = (in_use(0), in_use(1))
    for _ in range(200):
        with pytest.raises(ValueError):
            x + y
    gc.collect()
    assert (in_use(0), in_use(1)) == before


# ---- the current device's stream, pickles, the C API and DLPack's exchange --------

def test_current_stream_is_the_current_devices():
    default = devarray.current_stream()
    s0 = devarray.Stream()            # made on device 0, the current one
    with s0:
        assert devarray.current_stream() is s0
        with devarray.Device(1):
            # s0 is device 0's: device 1 still works on its default stream
            assert devarray.current_stream() is default
            s1 = devarray.Stream()
            with s1:
                assert devarray.current_stream() is s1
        assert devarray.current_stream() is s0


def test_unpickle_onto_the_current_device(rng):
    a = random_array(rng, (5, 3), "float32")
    blob = pickle.dumps(on(0, a))
    with devarray.Device(1):
        d = pickle.loads(blob)
    assert d.device == 1
    assert_values(d, a)


def test_c_api_on_device_1(rng, probe):
    a = random_array(rng, (4, 6), "float32")
    x1 = on(1, a)
    info = probe.view_info(x1)
    assert info["device"] == 1
    # GetView makes device 1 devarray's active device: the stream it hands
    # out, and DevArray_CurrentStream(), are device 1's
    assert info["stream"] == probe.current_stream()
    with devarray.Device(1):
        assert probe.empty((3, 2), 10).device == 1
    assert probe.empty((3, 2), 10).device == 0
    w = probe.wrap(x1, x1.ptr, (4, 6), None, 10, 1, 0)
    assert w.device == 1
    assert_values(w + 1, a + 1)



# ---- the CUDA runtime's device, small blocks, a failing device -------------------

def test_device_block_sets_the_runtimes_device():
    """Inside `with devarray.Device(n)` CuPy (and any code using the CUDA
    runtime) works on n too; the previous device comes back on exit."""
    cupy = pytest.importorskip("cupy")
    for device in DEVICES:
        with devarray.Device(device):
            assert cupy.cuda.runtime.getDevice() == device
            c = cupy.arange(5.0)
            assert devarray.asarray(c).device == device
        assert cupy.cuda.runtime.getDevice() == 0


def test_device_switched_behind_devarrays_back(rng):
    """Another library leaves another device current (JAX does, setting up
    several GPUs): devarray's next op still runs, and allocates, on its
    operands' device."""
    cupy = pytest.importorskip("cupy")
    a = random_array(rng, (1 << 16,), "float64")
    last = COUNT - 1
    x = on(0, a)
    assert_values(x + 1, a + 1)            # device 0 is devarray's active one
    cupy.cuda.runtime.setDevice(last)      # as a library that does not restore
    try:
        y = x * 2
        z = devarray.asarray(a)            # device 0 is still the current one
        for d in (y, z):
            assert d.device == 0
            assert cupy.cuda.runtime.pointerGetAttributes(d.ptr).device == 0
        assert_values(y, a * 2)
        assert float(z.sum()) == pytest.approx(float(a.sum()), rel=1e-12)
    finally:
        cupy.cuda.runtime.setDevice(0)


@pytest.mark.parametrize("device", DEVICES)
def test_small_arrays_on_every_device(rng, device):
    """Arrays of at most 4 KiB come from slabs of their own device, on the
    legacy stream and on a devarray.Stream of that device, are freed there
    whichever device is current, and are counted in that device's memory."""
    cupy = pytest.importorskip("cupy")
    a = random_array(rng, (64,), "float64")          # 512 bytes
    with devarray.Device(device):
        devarray.synchronize()
        base = in_use()
        smalls = [devarray.asarray(a) * k for k in range(16)]
        assert in_use() >= base + 16 * 512
        s = devarray.Stream()
        with s:
            on_stream = [devarray.asarray(a) + k for k in range(16)]
    for k, d in enumerate(smalls):
        assert d.device == device
        assert cupy.cuda.runtime.pointerGetAttributes(d.ptr).device == device
        assert_values(d, a * k)
    s.synchronize()
    for k, d in enumerate(on_stream):
        assert_values(d, a + k)
    del smalls, on_stream, d
    del s                      # its free blocks go to the device's legacy list
    gc.collect()
    with devarray.Device(device):
        devarray.synchronize()
        assert in_use() == base
        again = [devarray.asarray(a) - k for k in range(16)]
    for k, d in enumerate(again):
        assert_values(d, a - k)


def test_out_of_memory_on_one_device_leaves_every_device_usable(rng):
    """A failure CUDA recovers from (memory exhausted on the last device):
    MemoryError naming the device, nothing held, and every device works on."""
    last = COUNT - 1
    a = random_array(rng, (1000,), "float64")
    devarray.synchronize()
    before = [in_use(d) for d in DEVICES]
    with pytest.raises(MemoryError, match="on CUDA device %d" % last):
        devarray.empty(1 << 50, dtype="uint8", device=last)
    assert [in_use(d) for d in DEVICES] == before
    for device in DEVICES:
        assert_values(on(device, a) * 2, a * 2)


def test_memory_stats_and_limits_are_per_device(rng):
    """A limit on the last device refuses there only; the counts, the peak
    and a release of one device leave the others' alone."""
    last = COUNT - 1
    a = random_array(rng, (1 << 16,), "float64")     # 512 KiB
    x = on(last, a)
    gc.collect()
    devarray.synchronize()
    others = [devarray.memory_stats(d) for d in DEVICES if d != last]
    devarray.set_memory_limit(in_use(last) + a.nbytes + 4096, device=last)
    try:
        y = x + 1                                    # fits
        with pytest.raises(MemoryError, match="on CUDA device %d: its memory limit" % last):
            x * 2
        assert_values(on(0, a) * 2, a * 2)           # device 0 has no limit
        assert devarray.memory_stats(0)["limit_bytes"] is None
    finally:
        devarray.set_memory_limit(None, device=last)
    assert_values(y, a + 1)
    big = devarray.empty(64 << 20, dtype="uint8", device=last)
    del big
    devarray.reset_peak_memory(last)
    devarray.release_memory(last)
    assert devarray.memory_stats(last)["peak_bytes"] == in_use(last)
    gc.collect()
    devarray.synchronize()
    for d, before in zip([d for d in DEVICES if d != last], others):
        after = devarray.memory_stats(d)
        assert after["in_use_bytes"] == before["in_use_bytes"]
        assert after["held_bytes"] >= before["held_bytes"]


FAILING_DEVICE = """
import numpy as np, cupy, devarray
last = devarray.device_count() - 1
x1 = devarray.asarray(np.arange(1000.0), device=last)
with cupy.cuda.Device(last):
    trap = cupy.RawKernel('extern "C" __global__ void trap() { __trap(); }', 'trap')
    trap((1,), (1,), ())
for device, x in ((last, x1), (0, None)):
    try:
        x = devarray.asarray(np.arange(1000.0), device=device) if x is None else x
        print("device", device, "sum", float((x + 1).sum()))
    except devarray.CUDAError as exc:
        print("device", device, "raised CUDAError:", exc)
"""


def test_a_failing_device_raises_cuda_error():
    """A kernel traps on the last device: its context is lost, and CUDA
    asks for the process to be restarted (it may refuse every device's
    calls from then on).  devarray raises CUDAError saying so, never
    crashes, and the process ends normally.  In a process of its own."""
    pytest.importorskip("cupy")
    proc = subprocess.run([sys.executable, "-c", FAILING_DEVICE], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    last = COUNT - 1
    assert "device %d raised CUDAError:" % last in proc.stdout, proc.stdout
    assert "restart the process" in proc.stdout, proc.stdout
    # device 0 either still works or says the same
    assert ("device 0 sum 500500.0" in proc.stdout or
            "device 0 raised CUDAError:" in proc.stdout), proc.stdout


# ---- streams and events of each device (docs/streams.md) --------------------------

def test_events_belong_to_the_current_device(rng):
    """An Event made with device 1 current is device 1's, whichever device
    devarray last worked on: it records on device 1's streams and orders
    them; a stream of another device is refused, in both directions."""
    a = random_array(rng, (1 << 20,), "float32")
    x0 = on(0, a)
    assert_values(x0 + 1, a + 1)           # device 0 is the active one now
    with devarray.Device(1):
        e = devarray.Event()
        producer, consumer = devarray.Stream(), devarray.Stream()
        with producer:
            y = devarray.asarray(a) * 3
        e.record(producer)
        consumer.wait_event(e)
        with consumer:
            z = y + 1
        e.record()                         # device 1's current stream
        e.wait()
    consumer.synchronize()
    assert_values(z, a * 3 + 1)
    s0 = devarray.Stream()                 # device 0's
    with pytest.raises(ValueError, match="event is on CUDA device 1, the stream on device 0"):
        e.wait(s0)
    with pytest.raises(ValueError, match="event is on CUDA device 1, the stream on device 0"):
        s0.wait_event(e)
    with pytest.raises(ValueError, match="event is on CUDA device 1, the stream on device 0"):
        e.record(s0)
    with pytest.raises(ValueError, match="event is on CUDA device 1, the stream on device 0"):
        e.wait()                           # device 0 is current here
    assert_values(x0, a)


def test_wait_stream_within_a_device_and_refused_across(rng):
    a = random_array(rng, (1 << 20,), "float64")
    with devarray.Device(1):
        s1, t1 = devarray.Stream(), devarray.Stream()
    s0 = devarray.Stream()
    with s1:
        y = on(1, a) * 2
    t1.wait_stream(s1)                     # both device 1's, device 0 current
    with t1:
        z = y - 1
    t1.synchronize()
    assert_values(z, a * 2 - 1)
    with pytest.raises(ValueError, match="on CUDA device 0, the other on device 1"):
        s0.wait_stream(s1)
    with pytest.raises(ValueError, match="on CUDA device 1, the other on device 0"):
        s1.wait_stream(s0)


def test_synchronize_waits_for_every_device(rng):
    """devarray.synchronize() from device 0 waits for work queued on every
    device's streams."""
    streams, results = [], []
    a = random_array(rng, (1 << 22,), "float32")
    for device in DEVICES:
        with devarray.Device(device):
            s = devarray.Stream()
            with s:
                d = devarray.asarray(a)
                for _ in range(20):
                    d = d * 1.0001
                results.append(d)
            streams.append(s)
    devarray.synchronize()
    assert all(s.query() for s in streams)
    for d in results:
        assert_values(d, results[0].to_host())
