"""Streams, events and CUDA graphs (docs/streams.md).

Without a GPU the same API exists and does nothing (the host-backend tests
here run in CI); the `gpu` tests check real ordering on the device.
"""

import threading

import pytest

import devarray
from devarray import _core
from _helpers import assert_values, random_array
from test_interop import require_cupy, require_torch

np = pytest.importorskip("numpy")


# ---- the API on any machine ------------------------------------------------


def test_current_stream_follows_with_blocks(backend):
    default = devarray.current_stream()
    s1, s2 = devarray.Stream(), devarray.Stream(non_blocking=True)
    assert s2.non_blocking and not s1.non_blocking
    with s1:
        assert devarray.current_stream() is s1
        with s2 as entered:
            assert entered is s2
            assert devarray.current_stream() is s2
        assert devarray.current_stream() is s1
    assert devarray.current_stream() == default


def test_current_stream_is_per_thread(backend):
    s = devarray.Stream()
    seen = {}
    started, release = threading.Event(), threading.Event()

    def other():
        seen["inside"] = devarray.current_stream()
        started.set()
        release.wait(10)

    with s:
        thread = threading.Thread(target=other)
        thread.start()
        started.wait(10)
        release.set()
        thread.join()
        assert devarray.current_stream() is s
    assert seen["inside"] is not s
    assert seen["inside"] == devarray.current_stream()


def test_ops_on_a_stream_match_numpy(backend, rng):
    a, b = random_array(rng, (1000,), "float32"), random_array(rng, (1000,), "float32")
    s = devarray.Stream()
    with s:
        da, db = devarray.asarray(a), devarray.asarray(b)
        r = (da + db) * da - db
        total = float(r.sum())
    s.synchronize()
    assert s.query()
    assert_values(r.to_host(), (a + b) * a - b)
    assert total == pytest.approx(float(((a + b) * a - b).sum(dtype=np.float64)), rel=1e-4)


def test_stream_protocol_and_equality(backend):
    s = devarray.Stream()
    version, handle = s.__cuda_stream__()
    assert version == 0 and handle == s.handle
    wrapped = devarray.ExternalStream(s.handle)
    assert isinstance(wrapped, devarray.Stream)
    if backend == "cuda":
        assert s.handle != 0
        assert wrapped == s and hash(wrapped) == hash(s)
        assert devarray.ExternalStream(s) == s  # through __cuda_stream__
    assert s == s and s != devarray.Stream()
    assert "devarray.Stream" in repr(s)


def test_events_time_and_order(backend):
    start, end = devarray.Event(), devarray.Event()
    start.record()
    x = devarray.ones((1 << 16,), dtype="float32")
    y = (x * 2.0).sum()
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) >= 0.0
    assert float(y) == 2.0 * (1 << 16)
    s = devarray.Stream()
    s.wait_event(end)
    end.wait(s)
    s.synchronize()


def test_wait_stream_orders_work(backend, rng):
    a = random_array(rng, (4096,), "float64")
    producer, consumer = devarray.Stream(non_blocking=True), devarray.Stream(non_blocking=True)
    with producer:
        d = devarray.asarray(a)
        d2 = d * 3.0
    consumer.wait_stream(producer)
    with consumer:
        r = d2 + 1.0
    consumer.synchronize()
    assert_values(r.to_host(), a * 3.0 + 1.0)


def test_streams_on_eight_threads(backend, rng):
    inputs = [random_array(rng, (50_000,), "float32") for _ in range(8)]
    results, errors = [None] * 8, []

    def work(k):
        try:
            s = devarray.Stream(non_blocking=True)
            with s:
                d = devarray.asarray(inputs[k])
                for _ in range(5):
                    d = d * 1.5 - 0.25
                results[k] = d.to_host()
            s.synchronize()
        except Exception as exc:  # reported below, with the thread's number
            errors.append((k, exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k in range(8):
        expected = inputs[k]
        for _ in range(5):
            expected = expected * np.float32(1.5) - np.float32(0.25)
        assert_values(results[k], expected)


def test_default_stream_choice(backend):
    try:
        devarray.set_default_stream("per-thread")
        assert devarray.current_stream().handle == 2
        d = devarray.arange(10, dtype="int64")
        assert int((d * d).sum()) == 285
        if backend == "cuda":
            assert d.__cuda_array_interface__["stream"] == 2
    finally:
        devarray.set_default_stream("legacy")
    assert devarray.current_stream().handle == 0


# ---- what consumers see ----------------------------------------------------


def test_cai_exports_the_current_stream(gpu):
    d = devarray.arange(8, dtype="float32")
    assert d.__cuda_array_interface__["stream"] == 1
    s = devarray.Stream()
    with s:
        assert d.__cuda_array_interface__["stream"] == s.handle


def test_cupy_stream_interop(gpu, rng):
    cupy = require_cupy()
    a = random_array(rng, (10_000,), "float32")
    cs = cupy.cuda.Stream(non_blocking=True)
    with devarray.ExternalStream(cs.ptr):
        d = devarray.asarray(a) * 2.0
        assert d.__cuda_array_interface__["stream"] == cs.ptr
    with cs:
        c = cupy.asarray(d) + 1  # CuPy orders its own stream after cs
    cs.synchronize()
    assert_values(cupy.asnumpy(c), a * np.float32(2.0) + np.float32(1.0))


def test_torch_stream_interop(gpu, rng):
    torch = require_torch()
    a = random_array(rng, (10_000,), "float32")
    ts = torch.cuda.Stream()
    if not hasattr(ts, "__cuda_stream__"):
        pytest.skip("this torch has no __cuda_stream__")
    with devarray.ExternalStream(ts):
        d = devarray.asarray(a) + 1.0
        assert devarray.current_stream().handle == ts.cuda_stream
    with torch.cuda.stream(ts):
        t = torch.from_dlpack(d) * 3
    ts.synchronize()
    assert_values(t.cpu().numpy(), (a + np.float32(1.0)) * np.float32(3.0))
    # and the other way: a torch tensor made on ts, read by devarray
    with torch.cuda.stream(ts):
        t2 = torch.arange(1000, device="cuda", dtype=torch.float64) * 2
    with devarray.ExternalStream(ts):
        r = devarray.asarray(t2).sum()
        # read on ts: torch's streams do not synchronise with the legacy one
        assert float(r) == 2 * 999 * 1000 / 2


def test_small_arrays_across_streams(backend, rng):
    """Small arrays take blocks from a free list per stream: blocks freed on
    one stream and on a closed one are reused safely by the others."""
    a = random_array(rng, (300,), "float64")
    expected = (a * 2.0 + 1.0) * 2.0 + 1.0
    streams = [devarray.Stream(non_blocking=True) for _ in range(3)]
    kept = []
    for round_ in range(20):
        s = streams[round_ % 3]
        with s:
            d = devarray.asarray(a)
            for _ in range(2):
                d = d * 2.0 + 1.0
            kept.append(d)
        if round_ % 3 == 2:
            s.synchronize()
    for s in streams:
        s.synchronize()
    streams[0].close()
    fresh = [devarray.asarray(a) * 2.0 + 1.0 for _ in range(10)]
    for d in kept:
        assert_values(d.to_host(), expected)
    for d in fresh:
        assert_values(d.to_host(), a * 2.0 + 1.0)


# ---- frees safe across streams ---------------------------------------------


def _cross_stream_free(n):
    """x is made on stream A, read by a long reduction queued on B behind a
    busy kernel, then dropped; a new array of the same size is made and
    filled on A at once.  Returns (sum read on B, whether the new array took
    x's memory)."""
    a_stream = devarray.Stream(non_blocking=True)
    b_stream = devarray.Stream(non_blocking=True)
    with a_stream:
        x = devarray.ones((n,), dtype="float32")
    a_stream.synchronize()
    x_ptr = x.ptr
    busy = devarray.ones((4096, 4096), dtype="float32")
    with b_stream:
        # what the sum allocates the first time on a device (a small block
        # from a fresh slab, the reduction's scratch) comes from cudaMalloc,
        # which may wait for the device: take it before B is busy
        float(x.sum())
        for _ in range(6):
            busy = busy @ busy * 1e-4  # keeps B busy for milliseconds
        total = x.sum()
    with a_stream:
        del x
        y = devarray.full((n,), 5.0, dtype="float32")
    b_stream.synchronize()
    a_stream.synchronize()
    return float(total), y.ptr == x_ptr


def test_free_waits_for_other_streams(gpu):
    n = 1 << 26
    total, _ = _cross_stream_free(n)
    assert total == float(n)


def test_free_without_ordering_races(gpu):
    """The control for the test above: with the ordering switched off the
    same sequence reads the new array's values, so the test above can fail."""
    n = 1 << 26
    _core._set_cross_stream_frees(False)
    try:
        total, reused = _cross_stream_free(n)
    finally:
        _core._set_cross_stream_frees(True)
    if not reused:
        pytest.skip("the pool did not hand x's memory to the new array this time")
    assert total != float(n)


# ---- graphs ----------------------------------------------------------------


def _twenty_ops(x, y):
    for _ in range(5):
        x = x * 1.25 + y
        x = devarray.sqrt(devarray.abs(x)) - 0.5
    return x


def test_graph_replays_twenty_ops(gpu, rng):
    a, b = random_array(rng, (1000,), "float32"), random_array(rng, (1000,), "float32")
    x, y = devarray.asarray(a), devarray.asarray(b)
    s = devarray.Stream(non_blocking=True)
    with devarray.graph_capture(s) as g:
        out = _twenty_ops(x, y)
    g.replay()
    devarray.synchronize()
    expected = _twenty_ops(devarray.asarray(a), devarray.asarray(b)).to_host()
    assert_values(out.to_host(), expected)
    # new inputs, written in place: the replay reads them
    a2 = random_array(rng, (1000,), "float32")
    x[...] = devarray.asarray(a2)
    g.replay()
    devarray.synchronize()
    assert_values(out.to_host(), _twenty_ops(devarray.asarray(a2), y).to_host())
    assert g.stream is s


def test_graph_with_a_reduction_and_temporaries(gpu, rng):
    a = random_array(rng, (100_000,), "float64")
    x = devarray.asarray(a)
    s = devarray.Stream()
    with devarray.graph_capture(s) as g:
        total = ((x * x) + 1.0).sum()
    for _ in range(3):
        g.replay()
    s.synchronize()
    devarray.synchronize()
    assert float(total) == pytest.approx(float(((a * a) + 1.0).sum()), rel=1e-12)


def test_graph_refuses_synchronising_calls(gpu):
    x = devarray.ones((100,), dtype="float32")
    s = devarray.Stream()
    with pytest.raises(RuntimeError, match="graph"):
        with devarray.graph_capture(s):
            y = x + 1.0
            y.to_host()
    # the stream and devarray stay usable
    with s:
        z = x + 2.0
    assert float(z.sum()) == 300.0
    with pytest.raises(RuntimeError, match="graph"):
        with devarray.graph_capture(devarray.Stream()):
            float(x.sum())


def test_graph_needs_cuda(backend):
    s = devarray.Stream()
    with pytest.raises(ValueError, match="default stream"):
        devarray.graph_capture(devarray.current_stream())
    with pytest.raises(TypeError):
        devarray.graph_capture(5)
    if _core._cuda_available():
        pytest.skip("a CUDA device is present: test_graph_misuse covers it")
    with pytest.raises(RuntimeError, match="CUDA"):
        devarray.graph_capture(s)


def test_graph_misuse(gpu):
    s = devarray.Stream()
    g = devarray.graph_capture(s)
    with pytest.raises(RuntimeError, match="no completed capture"):
        g.replay()
    with g:
        devarray.ones((4,), dtype="float32") + 1.0
    with pytest.raises(RuntimeError, match="captured once"):
        with g:
            pass
    g.replay()
    s.synchronize()
    closed = devarray.Stream()
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        devarray.graph_capture(closed)


def test_graph_outputs_outlive_the_graph(gpu, rng):
    a = random_array(rng, (5000,), "float32")
    x = devarray.asarray(a)
    s = devarray.Stream(non_blocking=True)
    with devarray.graph_capture(s) as g:
        out = x * 2.0
        other = x + 1.0
    g.replay()
    s.synchronize()
    del other  # freed outside the graph, then the graph is launched again
    g.replay()
    s.synchronize()
    del g
    assert_values(out.to_host(), a * np.float32(2.0))


def test_an_exception_leaving_a_stream_block_is_kept(backend):
    """A Stream released while an exception propagates (its only reference
    was the 'with' statement's) keeps that exception: releasing the stream
    hands its cached blocks back and must not clear it."""
    def body():
        with devarray.Stream(non_blocking=True):
            for _ in range(3):
                (devarray.ones(100) * 2).sum()  # small blocks freed on the stream
            raise KeyError("kept")

    for _ in range(3):
        with pytest.raises(KeyError, match="kept"):
            body()
