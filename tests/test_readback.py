"""Reading a few bytes back from the device (transfer_copy of a few bytes):
item(), float(), int(), bool(), complex(), operator.index() and format()
of size-1 arrays of every dtype, views at offsets, reduction results, small
to_host() copies up to and past 16 bytes, inside a devarray.Stream, from
many threads at once, against NumPy, on both backends; then the
reliability side:
a read during a graph capture raises, a read after a CUDA fault raises
CUDAError (subprocess), bad calls leave the array untouched."""

import operator
import threading

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, INT_DTYPES, assert_values, random_array


def same_scalar(got, expected):
    """got is a Python scalar of expected's Python type with its value
    (NaN equal to NaN, the sign of zero compared)."""
    assert type(got) is type(expected), (type(got), type(expected))
    if isinstance(expected, complex):
        same_scalar(got.real, expected.real)
        same_scalar(got.imag, expected.imag)
    elif isinstance(expected, float):
        assert (np.isnan(got) and np.isnan(expected)) or \
            (got == expected and np.signbit(got) == np.signbit(expected)), (got, expected)
    else:
        assert got == expected, (got, expected)


def reference(s):
    """The 0-d device array s's value, read through a copy of more than 16
    bytes (not the path under test): a device sum of floats need not be
    NumPy's, whose pairwise order rounds differently."""
    return devarray.broadcast_to(s, (64,)).copy().to_host()[0].item()


def conversions(a):
    """The conversions NumPy allows on the 0-d or size-1 array a, as
    (name, function) pairs that take either array."""
    out = [("item", lambda x: x.item()), ("bool", bool)]
    if a.dtype.kind != "c":
        out += [("float", float), ("int", int)]
    out.append(("complex", complex))
    if a.dtype.kind in "iub" and a.ndim == 0:
        out.append(("index", operator.index))
    return out


def check_scalars(a, d):
    """Every conversion of d against NumPy's of a (same exception or same
    Python value)."""
    for name, fn in conversions(a):
        try:
            with np.errstate(all="ignore"):
                expected = fn(a)
        except (TypeError, ValueError, OverflowError) as exc:
            with pytest.raises(type(exc)):
                fn(d)
            continue
        same_scalar(fn(d), expected)


@pytest.mark.parametrize("dt", DTYPES)
def test_zero_d_every_dtype(backend, rng, dt):
    values = random_array(rng, (24,), dt, special=True)
    for v in values:
        a = np.array(v, dtype=dt)
        check_scalars(a, devarray.to_device(a))
    a = values[:1].reshape(1, 1)
    check_scalars(a, devarray.to_device(a))


@pytest.mark.parametrize("dt", DTYPES)
def test_views_at_offsets(backend, rng, dt):
    """0-d views into a larger array: the element sits at any multiple of
    the itemsize, also past a strided and a reversed view."""
    a = random_array(rng, (5, 7), dt, special=True)
    d = devarray.to_device(a)
    for i in range(5):
        for j in range(7):
            check_scalars(a[i, j], d[i, j])
    check_scalars(a[::-2, 3][1], d[::-2, 3][1])
    check_scalars(a.T[4:5, 2:3], d.T[4:5, 2:3])


def test_format(backend, rng):
    a = random_array(rng, (6,), "float64")
    d = devarray.to_device(a)
    for i in range(a.size):
        for spec in ("", ".3f", "e", "+.10g"):
            assert format(d[i], spec) == format(float(a[i]), spec)


@pytest.mark.parametrize("dt", ["bool", "int8", "int32", "uint64", "float16",
                                "float32", "float64", "complex64", "complex128"])
def test_reduction_results(backend, rng, dt):
    a = random_array(rng, (1000,), dt)
    d = devarray.to_device(a)
    same_scalar(d.sum().item(), reference(d.sum()))
    if a.dtype.kind in "biu":
        same_scalar(d.sum().item(), a.sum().item())
    same_scalar(devarray.max(d).item(), a.max().item())
    same_scalar(bool(devarray.any(d)), bool(a.any()))
    same_scalar(bool(devarray.all(d)), bool(a.all()))
    if a.dtype.kind != "c":
        same_scalar(float(d.sum()), float(reference(d.sum())))


@pytest.mark.parametrize("n, dt", [(1, "uint8"), (3, "uint8"), (16, "uint8"),
                                   (17, "uint8"), (1, "float32"), (4, "float32"),
                                   (5, "float32"), (2, "float64"), (1, "complex128"),
                                   (2, "complex64"), (3, "complex64")])
def test_small_to_host(backend, rng, n, dt):
    """Copies up to 16 bytes take the read-back path, longer ones do not:
    both return the array's bytes, contiguous or from a strided view."""
    a = random_array(rng, (2 * n,), dt, special=True)
    d = devarray.to_device(a)
    assert_values(d[:n], a[:n])
    assert_values(d[1::2], a[1::2])
    assert_values(d[n:], a[n:])
    lists = d[:n].tolist()
    assert len(lists) == n
    for got, expected in zip(lists, a[:n].tolist()):
        same_scalar(got, expected)


def test_inside_a_stream(backend, rng):
    """Reads inside `with devarray.Stream()` see the work queued on that
    stream before them."""
    a = random_array(rng, (1000,), "float32")
    d = devarray.to_device(a)
    with devarray.Stream(non_blocking=True):
        for k in range(1, 20):
            e = d * k
            same_scalar(float(e.sum()), float(reference(e.sum())))
            same_scalar(e[k].item(), (a * np.float32(k))[k].item())
            same_scalar(bool(devarray.any(e > 0)), bool((a * np.float32(k) > 0).any()))


@pytest.mark.parametrize("nthreads", [8, 80])
def test_threads(backend, rng, nthreads):
    """Threads reading at once (80: more than the 64 slots, so some find
    none free and copy the old way), each checking its own values, half of
    them on their own stream."""
    arrays = [random_array(rng, (64,), dt)
              for dt in ("int64", "float32", "complex128", "uint16")
              for _ in range(nthreads // 4)]
    barrier = threading.Barrier(nthreads)
    errors = []

    def work(index):
        a = arrays[index]
        try:
            d = devarray.to_device(a)
            want = reference((d + d).sum())
            barrier.wait()
            stream = devarray.Stream() if index % 2 else None
            if stream is not None:
                stream.__enter__()
            try:
                for _ in range(5):
                    for i in range(a.size):
                        if d[i].item() != a[i].item():
                            errors.append((index, i, d[i].item(), a[i].item()))
                    if (d + d).sum().item() != want:
                        errors.append((index, "sum"))
            finally:
                if stream is not None:
                    stream.__exit__(None, None, None)
        except Exception as exc:  # reported below, with the thread's index
            errors.append((index, repr(exc)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


class TestReliability:

    @pytest.mark.parametrize("dt", INT_DTYPES[:2] + ["float32", "complex64"])
    def test_not_size_one(self, backend, rng, dt):
        a = random_array(rng, (2, 3), dt)
        d = devarray.to_device(a)
        for fn in (lambda x: x.item(), float, bool, complex, int):
            with pytest.raises((TypeError, ValueError)):
                fn(d)
        assert_values(d, a)

    def test_graph_capture_refuses_reads(self, gpu, rng):
        """A read waits for the device: inside a graph capture it raises
        RuntimeError (it does not hang), and the capture still replays."""
        a = random_array(rng, (100,), "float32")
        d = devarray.to_device(a)
        s = devarray.Stream(non_blocking=True)
        with devarray.graph_capture(s) as g:
            e = d * 2
            for fn in (lambda: e.sum().item(), lambda: float(e[0]),
                       lambda: bool(devarray.any(e)), lambda: e[:3].tolist()):
                with pytest.raises(RuntimeError, match="graph"):
                    fn()
        g.replay()
        devarray.synchronize()
        same_scalar(float(e[5]), float(a[5] * 2))
        same_scalar(float(d.sum()), float(reference(d.sum())))


_FAULT_SCRIPT = r"""
import numpy
numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
from numba import cuda
import devarray

d = devarray.zeros(16, dtype="float32")
assert float(d[3]) == 0.0

@cuda.jit
def scribble(x):
    x[1 << 40] = 1.0

scribble[1, 1](d)
for name, call in [("float(d[0])", lambda: float(d[0])),
                   ("d[1].item()", lambda: d[1].item()),
                   ("bool(d[2])", lambda: bool(d[2]))]:
    try:
        call()
    except devarray.CUDAError as exc:
        print("%s: CUDAError: %s" % (name, exc))
    else:
        print("%s: no error" % name)
print("OK")
"""


@pytest.mark.slow
def test_read_after_a_cuda_fault(numba_cuda):
    """After a fault every read raises CUDAError saying the context is no
    longer usable; none hangs, none crashes."""
    from test_reliability import run_python
    proc = run_python(_FAULT_SCRIPT, "cuda", timeout=120)
    lines = proc.stdout.splitlines()[:3]
    assert len(lines) == 3 and all(": CUDAError" in line for line in lines), proc.stdout
    assert "no longer usable" in lines[0], proc.stdout
