"""Pinned host memory and asynchronous transfers (src/interop/pinned.c, src/runtime/transfer.c,
src/interop/host_out.c): devarray.empty_pinned and PinnedBuffer, to_device of
page-locked memory, to_host(out=..., blocking=False).  On both backends
(the host backend has the same API with plain memory and plain copies);
every round trip is checked byte for byte on random data.  The misuses are
tests/test_reliability_pinned.py's."""

import gc

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, random_array


def pinned_copy(a):
    """A new PinnedBuffer holding the NumPy array a, and its NumPy view."""
    buf = devarray.empty_pinned(a.shape, a.dtype.name)
    view = np.asarray(buf)
    view[...] = a
    return buf, view


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_pinned_describes_itself(backend, dtype):
    buf = devarray.empty_pinned((3, 5), dtype)
    view = np.asarray(buf)
    assert buf.shape == (3, 5)
    assert buf.dtype == getattr(devarray, dtype)
    assert buf.nbytes == 15 * np.dtype(dtype).itemsize
    assert buf.ptr == view.ctypes.data
    assert buf.page_locked == (backend == "cuda")
    assert view.dtype == np.dtype(dtype)
    assert view.shape == (3, 5)
    assert view.strides == np.empty((3, 5), dtype).strides
    assert view.flags.c_contiguous and view.flags.writeable
    assert memoryview(buf).format == memoryview(np.empty(1, dtype)).format
    assert "PinnedBuffer(shape=(3, 5), dtype=%s" % dtype in repr(buf)


def test_empty_pinned_shapes_and_default_dtype(backend):
    assert devarray.empty_pinned(4).dtype == devarray.float64
    assert devarray.empty_pinned(4).shape == (4,)
    assert devarray.empty_pinned(()).shape == ()
    assert devarray.empty_pinned((), "int8").nbytes == 1
    assert devarray.empty_pinned((2, 0, 3)).nbytes == 0
    assert np.asarray(devarray.empty_pinned((2, 0, 3))).shape == (2, 0, 3)
    assert devarray.empty_pinned([2, 3], dtype=devarray.int16).shape == (2, 3)


def test_numpy_wraps_without_copy(backend, rng):
    buf = devarray.empty_pinned((4, 6), "float32")
    a, b = np.asarray(buf), np.asarray(buf)
    assert np.shares_memory(a, b)
    values = random_array(rng, (4, 6), "float32")
    a[...] = values
    assert b.tobytes() == values.tobytes()
    assert bytes(memoryview(buf)) == values.tobytes()
    # the view keeps the memory alive after the buffer's last reference
    del buf, b
    gc.collect()
    assert a.tobytes() == values.tobytes()
    a[0, 0] = 7.0
    assert a[0, 0] == 7.0


def test_pinned_buffers_are_distinct(backend):
    bufs = [devarray.empty_pinned(16, "uint8") for _ in range(4)]
    for i, buf in enumerate(bufs):
        np.asarray(buf)[...] = i
    assert [bytes(memoryview(buf)) for buf in bufs] == [bytes([i]) * 16 for i in range(4)]
    assert len({buf.ptr for buf in bufs}) == 4


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_every_dtype(backend, rng, dtype):
    values = random_array(rng, (5, 7), dtype, special=True)
    src, _ = pinned_copy(values)
    d = devarray.to_device(src)
    assert d.dtype == getattr(devarray, dtype) and d.shape == (5, 7)
    out = devarray.empty_pinned((5, 7), dtype)
    assert d.to_host(out=out, blocking=False) is out
    devarray.synchronize()
    assert bytes(memoryview(out)) == values.tobytes()
    # and the blocking forms into and out of the same memory
    assert d.to_host().tobytes() == values.tobytes()
    again = devarray.empty_pinned((5, 7), dtype)
    assert d.to_host(out=again) is again
    assert bytes(memoryview(again)) == values.tobytes()


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "complex128"])
def test_numpy_views_of_pinned_memory(backend, rng, dtype):
    values = random_array(rng, (6, 8), dtype)
    _, src = pinned_copy(values)
    _, dst = pinned_copy(np.zeros((6, 8), dtype))
    for rows in (slice(0, 2), slice(2, 5), slice(5, 6)):
        d = devarray.to_device(src[rows])
        out = dst[rows]
        assert d.to_host(out=out, blocking=False) is out
    devarray.synchronize()
    assert dst.tobytes() == values.tobytes()


def test_to_device_strided_pinned_view_takes_the_synchronous_path(backend, rng):
    values = random_array(rng, (6, 8), "float64")
    _, src = pinned_copy(values)
    assert_values(devarray.to_device(src[:, ::2]), values[:, ::2])
    assert_values(devarray.to_device(src.T), values.T)
    assert_values(devarray.to_device(src[::-1]), values[::-1])


@pytest.mark.parametrize("dtype", ["int16", "float32", "complex64"])
def test_to_device_pinned_with_dtype_casts(backend, rng, dtype):
    values = random_array(rng, (40,), "float32")
    src, _ = pinned_copy(values)
    assert_values(devarray.to_device(src, dtype=dtype),
                  values.astype(dtype), rtol=0.0)


def test_async_pipeline(backend, rng):
    """to_device of pinned chunks, an op, to_host into pinned chunks without
    waiting, then one synchronisation: every chunk correct."""
    chunks, n = 4, 1 << 12
    values = random_array(rng, (chunks, n), "float32")
    _, src = pinned_copy(values)
    _, dst = pinned_copy(np.zeros((chunks, n), "float32"))
    for i in range(chunks):
        d = devarray.to_device(src[i])
        (devarray.sqrt(devarray.abs(d)) * 2).to_host(out=dst[i], blocking=False)
    devarray.synchronize()
    assert_values(dst, np.sqrt(np.abs(values)) * 2, rtol=2 * np.finfo(np.float32).eps)


def test_to_host_async_of_a_strided_array(backend, rng):
    values = random_array(rng, (9, 4), "int64")
    d = devarray.to_device(values)
    _, out = pinned_copy(np.zeros((4, 9), "int64"))
    d.T.to_host(out=out, blocking=False)
    devarray.synchronize()
    assert out.tobytes() == np.ascontiguousarray(values.T).tobytes()
    _, out = pinned_copy(np.zeros((3, 4), "int64"))
    d[::3].to_host(out=out, blocking=False)
    devarray.synchronize()
    assert out.tobytes() == values[::3].tobytes()


def test_to_host_async_into_raw_bytes(backend, rng):
    values = random_array(rng, (10,), "float64")
    d = devarray.to_device(values)
    raw = devarray.empty_pinned(80, "uint8")
    assert d.to_host(out=raw, blocking=False) is raw
    devarray.synchronize()
    assert bytes(memoryview(raw)) == values.tobytes()


def test_empty_arrays(backend):
    src = devarray.empty_pinned((0, 3), "float32")
    d = devarray.to_device(src)
    assert d.shape == (0, 3) and d.dtype == devarray.float32
    out = devarray.empty_pinned((0, 3), "float32")
    assert d.to_host(out=out, blocking=False) is out


def test_sources_outlive_their_buffers(backend, rng):
    """Dropping every reference right after queuing the copies is safe:
    freeing page-locked memory waits for the device."""
    values = random_array(rng, (1 << 16,), "float32")
    src, view = pinned_copy(values)
    d = devarray.to_device(view)
    del src, view
    gc.collect()
    assert d.to_host().tobytes() == values.tobytes()
    out = devarray.empty_pinned(values.shape, "float32")
    (d + 0).to_host(out=out, blocking=False)
    del d
    gc.collect()
    devarray.synchronize()
    assert bytes(memoryview(out)) == values.tobytes()


def test_memory_from_the_host_backend_is_not_page_locked_for_cuda(gpu, rng):
    devarray.set_backend("host")
    try:
        plain = devarray.empty_pinned(8, "float32")
    finally:
        devarray.set_backend("cuda")
    assert not plain.page_locked
    d = devarray.to_device(random_array(rng, (8,), "float32"))
    with pytest.raises(ValueError, match="page-locked"):
        d.to_host(out=plain, blocking=False)
    # the synchronous forms still take it
    assert d.to_host(out=plain) is plain
    assert bytes(memoryview(plain)) == d.to_host().tobytes()
    assert devarray.to_device(plain).to_host().tobytes() == bytes(memoryview(plain))


def test_large_blocking_copies_with_pinned_memory(backend, rng):
    """Blocking copies of more than the staging threshold (1 MiB) from and
    into page-locked memory, which go straight by DMA on CUDA: asarray of a
    pinned view (synchronous, unlike to_device), to_host(out=pinned), and a
    strided pinned view gathered on the device."""
    values = random_array(rng, (512, 1024), "float32")  # 2 MiB
    _, src = pinned_copy(values)
    d = devarray.asarray(src)
    src[...] = 0  # asarray copied before returning
    out = devarray.empty_pinned(values.shape, "float32")
    assert d.to_host(out=out) is out
    assert bytes(memoryview(out)) == values.tobytes()
    _, src = pinned_copy(values)
    assert_values(devarray.to_device(src[:, ::2]), values[:, ::2])
    strided = np.asarray(devarray.empty_pinned((1024, 512), "float32")).T
    assert d.to_host(out=strided) is strided
    assert strided.tobytes() == values.tobytes()


def test_page_locked_memory_of_another_library(gpu, rng):
    """Memory another library page-locked (CuPy's pinned pool) is found by
    cudaPointerGetAttributes: to_device queues from it, and it is a valid
    out for blocking=False."""
    try:
        import cupyx
    except Exception as exc:  # not installed, or no usable CUDA for it
        pytest.skip("cupyx not usable: %s" % exc)
    values = random_array(rng, (1000,), "float64")
    src = cupyx.empty_pinned(values.shape, values.dtype)
    src[...] = values
    d = devarray.to_device(src)
    out = cupyx.zeros_pinned(values.shape, values.dtype)
    assert d.to_host(out=out, blocking=False) is out
    devarray.synchronize()
    assert out.tobytes() == values.tobytes()
    pageable = np.zeros_like(values)
    with pytest.raises(ValueError, match="page-locked"):
        d.to_host(out=pageable, blocking=False)


@pytest.mark.parametrize("nstreams", [1, 3])
def test_async_pipeline_over_streams(backend, rng, nstreams):
    """The bench's pipeline, small: chunks round-robin over devarray.Streams
    (each copy and kernel on the chunk's stream), every stream waited for,
    then every chunk correct; a different op per chunk so that a chunk
    written from another chunk's result is caught."""
    chunks, n = 6, 1 << 14
    values = random_array(rng, (chunks, n), "float32")
    _, src = pinned_copy(values)
    _, dst = pinned_copy(np.zeros((chunks, n), "float32"))
    streams = [devarray.Stream() for _ in range(nstreams)]
    for i in range(chunks):
        with streams[i % nstreams]:
            d = devarray.to_device(src[i])
            (d * float(i + 2)).to_host(out=dst[i], blocking=False)
    for s in streams:
        s.synchronize()
    expected = values * np.arange(2, chunks + 2, dtype=np.float32)[:, None]
    assert dst.tobytes() == expected.tobytes()


def test_pinned_copies_in_a_graph_capture(gpu, rng):
    """Copies from and into pinned memory are captured like kernels and run
    at each replay; allocating page-locked memory inside the capture is a
    RuntimeError, and a PinnedBuffer dropped inside it is freed after it
    (cudaFreeHost would wait for the device and invalidate the capture)."""
    values = random_array(rng, (4096,), "float32")
    src = devarray.empty_pinned(values.shape, "float32")
    np.asarray(src)[...] = values
    out = devarray.empty_pinned(values.shape, "float32")
    dropped = devarray.empty_pinned(1 << 16, "uint8")
    s = devarray.Stream(non_blocking=True)
    with devarray.graph_capture(s) as g:
        with pytest.raises(RuntimeError, match="graph"):
            devarray.empty_pinned(4)
        (devarray.to_device(src) * 2).to_host(out=out, blocking=False)
        del dropped
    np.asarray(out)[...] = 0
    g.replay()
    devarray.synchronize()
    assert bytes(memoryview(out)) == (values * 2).tobytes()
    # the inputs are read at each replay
    np.asarray(src)[...] = values + 1
    g.replay()
    devarray.synchronize()
    assert bytes(memoryview(out)) == ((values + 1) * 2).tobytes()
    # and the module allocates and frees pinned memory again
    assert devarray.empty_pinned(8).nbytes == 64
