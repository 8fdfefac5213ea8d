"""The array API's creation functions against NumPy 2: arange, linspace,
eye, tril, triu, meshgrid, asarray (copy=, device=, nested 0-d arrays),
the filled constructors with device=, on random arguments and both
backends.  Values are compared exactly: the kernels follow NumPy's
formulas step for step."""

import numpy as np
import pytest

import devarray
from _helpers import (DTYPES, CAIProducer, assert_values, host, np_or_exception,
                      random_array)

REAL_DTYPES = [t for t in DTYPES if not t.startswith("complex")]
NUMERIC_DTYPES = [t for t in DTYPES if t != "bool"]


def dev(a):
    return devarray.asarray(a)


def _arange_case(rng, kind):
    """Random (start, stop, step) of ints or floats, steps of both signs."""
    if kind == "int":
        start = int(rng.integers(-50, 50))
        stop = int(rng.integers(-50, 50))
        step = int(rng.choice([-1, 1])) * int(rng.integers(1, 7))
    else:
        start = float(rng.normal() * 10)
        stop = float(rng.normal() * 10)
        step = float(rng.choice([-1, 1]) * rng.uniform(0.01, 3))
    return start, stop, step


# ---- arange -------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["int", "float"])
def test_arange_random(backend, rng, kind):
    for _ in range(40):
        start, stop, step = _arange_case(rng, kind)
        assert_values(devarray.arange(start, stop, step), np.arange(start, stop, step))
        assert_values(devarray.arange(start, stop), np.arange(start, stop))
        assert_values(devarray.arange(stop), np.arange(stop))


@pytest.mark.parametrize("dt", NUMERIC_DTYPES)
def test_arange_dtypes(backend, rng, dt):
    kind = "int" if np.dtype(dt).kind in "iu" else "float"
    for _ in range(20):
        start, stop, step = _arange_case(rng, kind)
        if np.dtype(dt).kind == "u":
            start, stop = abs(start), abs(stop)
        expected, exc = np_or_exception(
            lambda: np.arange(start, stop, step, dtype=dt))
        if exc is not None:
            with pytest.raises(exc):
                devarray.arange(start, stop, step, dtype=dt)
            continue
        assert_values(devarray.arange(start, stop, step, dtype=dt), expected)


@pytest.mark.parametrize("args", [
    (0,), (5, 5), (5, 0), (0, 5, -1), (0.0, 1e-300, 1.0), (3, 0, -1),
    (0, 10, 3), (-7, 7, 2), (1.5, 2.5, 0.25), (0.1, 0.4, 0.1), (1, 2, 0.5),
    (10, -10, -0.75), (2 ** 62, 2 ** 62 + 5), (0, 3, 1.5),
])
def test_arange_edges(backend, args):
    assert_values(devarray.arange(*args), np.arange(*args))


def test_arange_wraps_like_numpy(backend):
    # the third element wraps (NumPy's fill); start + step must fit
    assert_values(devarray.arange(0, 300, 100, dtype="int8"),
                  np.arange(0, 300, 100, dtype="int8"))
    with pytest.raises(OverflowError):
        devarray.arange(100, 300, 50, dtype="int8")
    assert_values(devarray.arange(0, 2, dtype="bool"), np.arange(0, 2, dtype=bool))
    assert_values(devarray.arange(0.5, 6, 1.5, dtype="int16"),
                  np.arange(0.5, 6, 1.5, dtype="int16"))


def test_arange_long(backend):
    # every element computed on the device, beyond one block of threads
    # (int32, int64, float32 and float64 a 16-byte vector a thread, with a tail)
    for dt in ("float32", "float64", "int32", "int64", "float16", "complex64"):
        assert_values(devarray.arange(-3, 5000.5, 0.75, dtype=dt),
                      np.arange(-3, 5000.5, 0.75, dtype=dt))


def test_arange_keywords(backend):
    d = devarray.arange(1, stop=9, step=2, dtype="float32", device=None)
    assert_values(d, np.arange(1, 9, 2, dtype="float32"))
    with pytest.raises(TypeError):
        devarray.arange(start=1)
    with pytest.raises(TypeError):
        devarray.arange(1, 9, 2, "float32")


# ---- linspace -----------------------------------------------------------------

@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_random(backend, rng, endpoint):
    for _ in range(40):
        start, stop = (float(v) for v in rng.normal(size=2) * 100)
        num = int(rng.integers(0, 60))
        assert_values(devarray.linspace(start, stop, num, endpoint=endpoint),
                      np.linspace(start, stop, num, endpoint=endpoint))


@pytest.mark.parametrize("dt", DTYPES)
def test_linspace_dtypes(backend, rng, dt):
    for _ in range(10):
        start, stop = (float(v) for v in rng.normal(size=2) * 20)
        num = int(rng.integers(0, 30))
        expected, exc = np_or_exception(
            lambda: np.linspace(start, stop, num, dtype=dt))
        assert exc is None
        assert_values(devarray.linspace(start, stop, num, dtype=dt), expected)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64", "float16",
                                "complex64"])
def test_linspace_long(backend, rng, dt):
    # beyond one block of threads, with a tail past the 16-byte vectors
    for num, endpoint in ((70001, True), (70003, False)):
        start, stop = (float(v) for v in rng.normal(size=2) * 1000)
        assert_values(devarray.linspace(start, stop, num, endpoint=endpoint, dtype=dt),
                      np.linspace(start, stop, num, endpoint=endpoint, dtype=dt))
    # a step that underflows to zero: (i / div) * delta
    assert_values(devarray.linspace(0, 1e-320, 70001), np.linspace(0, 1e-320, 70001))


@pytest.mark.parametrize("args", [
    (0, 1, 0), (0, 1, 1), (3, 3, 5), (1, 0, 7), (0, 1e-320, 4), (-2, 2, 2),
    (0, 10, 11), (1j, 2 + 3j, 5), (2, 1 - 1j, 1), (-1j, 1j, 4), (0, 2 ** 60, 3),
    (True, 5, 4), (float("inf"), 1, 3),
])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_edges(backend, args, endpoint):
    with np.errstate(all="ignore"):
        expected = np.linspace(*args, endpoint=endpoint)
    assert_values(devarray.linspace(*args, endpoint=endpoint), expected)


def test_linspace_complex_random(backend, rng):
    for _ in range(20):
        start = complex(*rng.normal(size=2) * 10)
        stop = complex(*rng.normal(size=2) * 10)
        num = int(rng.integers(0, 20))
        for dt in (None, "complex64"):
            assert_values(devarray.linspace(start, stop, num, dtype=dt),
                          np.linspace(start, stop, num, dtype=dt))


# ---- eye ----------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_eye_dtypes(backend, rng, dt):
    for _ in range(5):
        n, m = (int(v) for v in rng.integers(0, 7, size=2))
        k = int(rng.integers(-8, 9))
        assert_values(devarray.eye(n, m, k=k, dtype=dt), np.eye(n, m, k=k, dtype=dt))


@pytest.mark.parametrize("n, m, k", [
    (0, None, 0), (1, None, 0), (4, None, 0), (3, 5, 2), (5, 3, -2), (3, 3, 3),
    (3, 3, -3), (3, 3, 2 ** 62), (3, 3, -2 ** 62), (2, 0, 0), (0, 4, 1),
])
def test_eye_shapes(backend, n, m, k):
    assert_values(devarray.eye(n, m, k=k), np.eye(n, m, k=k))


# ---- tril / triu --------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_tril_triu_dtypes(backend, rng, dt):
    a = random_array(rng, (2, 4, 5), dt)
    d = dev(a)
    for k in (-6, -1, 0, 1, 3, 5):
        assert_values(devarray.tril(d, k=k), np.tril(a, k=k))
        assert_values(devarray.triu(d, k=k), np.triu(a, k=k))


@pytest.mark.parametrize("shape", [(3, 3), (1, 7), (6, 2), (0, 3), (2, 0, 4),
                                   (2, 3, 1, 4, 4)], ids=str)
def test_tril_triu_shapes(backend, rng, shape):
    a = random_array(rng, shape, "float32")
    d = dev(a)
    assert_values(devarray.tril(d), np.tril(a))
    assert_values(devarray.triu(d, k=-1), np.triu(a, k=-1))


def test_tril_triu_strided_input(backend, rng):
    a = random_array(rng, (6, 8), "complex128")
    d = dev(a)
    for sa, sd in ((a.T, d.T), (a[::-2, 1::3], d[::-2, 1::3])):
        assert_values(devarray.tril(sd, k=1), np.tril(sa, k=1))
        assert_values(devarray.triu(sd), np.triu(sa))
    # the input is untouched and the result is new memory
    r = devarray.tril(d)
    assert r.ptr != d.ptr
    assert_values(d, a)



@pytest.mark.parametrize("shape", [(70001, 3), (3, 300, 700), (600, 600), (65536, 3, 3),
                                   (70, 33, 17), (5, 2, 300)], ids=str)
def test_tril_triu_grid(backend, rng, shape):
    """Shapes past the kernel's blocks: more matrix rows than CUDA's 65,535
    grid rows, rows longer than a block, short rows sharing a block,
    batches; offsets past either end."""
    a = random_array(rng, shape, "float32")
    d = dev(a)
    for k in (-(2**62), -700, -1, 0, 2, 650, 2**62):
        assert_values(devarray.tril(d, k=k), np.tril(a, k=k))
        assert_values(devarray.triu(d, k=k), np.triu(a, k=k))


def test_tril_triu_short_rows_past_the_grid(backend, rng):
    """More 3-element rows than 65,535 blocks of 64 such rows hold, so the
    kernel's loop over rows takes a second turn."""
    a = random_array(rng, (4_200_000, 3), "int8")
    d = dev(a)
    for k in (-1, 0, 1):
        assert_values(devarray.tril(d, k=k), np.tril(a, k=k))
        assert_values(devarray.triu(d, k=k), np.triu(a, k=k))

# ---- meshgrid -----------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(backend, rng, indexing):
    for n in range(0, 4):
        arrays = [random_array(rng, (int(rng.integers(0, 5)),), dt)
                  for dt in ("float32", "int16", "complex64", "bool")[:n]]
        got = devarray.meshgrid(*[dev(a) for a in arrays], indexing=indexing)
        expected = np.meshgrid(*arrays, indexing=indexing)
        assert type(got) is tuple and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_values(g, np.ascontiguousarray(e))


def test_meshgrid_strided_and_default(backend, rng):
    a = random_array(rng, (9,), "float64")
    b = random_array(rng, (4,), "int32")
    got = devarray.meshgrid(dev(a)[::-2], dev(b))
    for g, e in zip(got, np.meshgrid(a[::-2], b)):
        assert_values(g, e)


# ---- asarray ------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_asarray_copy_semantics(backend, rng, dt):
    a = random_array(rng, (3, 4), dt)
    d = dev(a)
    assert devarray.asarray(d) is d
    assert devarray.asarray(d, copy=False) is d
    assert devarray.asarray(d, dtype=dt, copy=None) is d
    c = devarray.asarray(d, copy=True)
    assert c is not d and c.ptr != d.ptr
    assert_values(c, a)
    other = "float64" if dt != "float64" else "int8"
    with pytest.raises(ValueError, match="copy"):
        devarray.asarray(d, dtype=other, copy=False)
    assert_values(devarray.asarray(d, dtype=other), a.astype(other))


def test_asarray_copy_true_is_independent(backend, rng):
    a = random_array(rng, (5,), "float32")
    d = dev(a)
    c = devarray.asarray(d, copy=True)
    d += 1
    assert_values(c, a)


def test_asarray_refuses_copy_false_for_python_objects(backend):
    for obj in ([1, 2], (1.5,), 3, True, 2j, [[1], [2]]):
        with pytest.raises(ValueError, match="copy"):
            devarray.asarray(obj, copy=False)


def test_asarray_copy_false_shares_numpy_on_host(rng):
    saved = devarray.backend()
    devarray.set_backend("host")
    try:
        a = random_array(rng, (4, 3), "float64")
        d = devarray.asarray(a, copy=False)
        d += 1
        assert_values(np.asarray(a), host(d))
        with pytest.raises(ValueError, match="copy"):
            devarray.asarray(a, dtype="float32", copy=False)
    finally:
        devarray.set_backend(saved)


@pytest.mark.parametrize("value", [True, 0, -7, 2 ** 63 - 1, 1.5, -0.0, 1 + 2j])
@pytest.mark.parametrize("dt", [None, "float32", "complex128", "int16"])
def test_asarray_scalars(backend, value, dt):
    expected, exc = np_or_exception(lambda: np.asarray(value, dtype=dt))
    if exc is not None:
        with pytest.raises(exc):
            devarray.asarray(value, dtype=dt)
        return
    assert_values(devarray.asarray(value, dtype=dt), expected)


@pytest.mark.parametrize("dt", ["int8", "float64", "bool", "complex64"])
def test_asarray_nested_zero_d_arrays(backend, rng, dt):
    a = random_array(rng, (2, 3), dt)
    nested = [[devarray.asarray(a[i, j].item(), dtype=dt) for j in range(3)]
              for i in range(2)]
    assert_values(devarray.asarray(nested, dtype=dt), a)
    mixed = [devarray.asarray(1, dtype=dt), True, 0]
    assert_values(devarray.asarray(mixed, dtype=dt), np.asarray([1, True, 0], dtype=dt))


# ---- filled constructors and device= ------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_filled_with_device_none(backend, rng, dt):
    shape = tuple(int(v) for v in rng.integers(0, 4, size=2))
    for fn, ref in ((devarray.zeros, np.zeros), (devarray.ones, np.ones)):
        assert_values(fn(shape, dtype=dt, device=None), ref(shape, dtype=dt))
    value = random_array(rng, (), dt).item()
    assert_values(devarray.full(shape, value, dtype=dt, device=None),
                  np.full(shape, value, dtype=dt))
    e = devarray.empty(shape, dtype=dt, device=None)
    assert e.shape == shape and e.dtype == dt


@pytest.mark.parametrize("value", [True, 3, -2 ** 63, 2.5, 1 - 1j])
def test_full_default_dtypes(backend, value):
    assert_values(devarray.full((2, 2), value), np.full((2, 2), value))
    d = devarray.zeros(3, dtype="int8")
    if not isinstance(value, complex) and not (isinstance(value, int)
                                               and not isinstance(value, bool)
                                               and abs(value) > 127):
        assert_values(devarray.full_like(d, value), np.full_like(np.zeros(3, "int8"), value))


def test_like_keep_the_input_place(backend, rng):
    a = random_array(rng, (3, 2), "float32")
    d = dev(a)
    for fn in (devarray.zeros_like, devarray.ones_like, devarray.empty_like):
        r = fn(d, device=None)
        assert r.shape == d.shape and r.dtype == d.dtype
        assert r.device == d.device
    assert_values(devarray.full_like(d, 7, dtype="int16", device=None),
                  np.full((3, 2), 7, dtype="int16"))


def test_constructors_take_keywords_only(backend):
    for call in (lambda: devarray.zeros(3, "int8"), lambda: devarray.ones(3, "int8"),
                 lambda: devarray.empty(3, "int8"), lambda: devarray.full(3, 1, "int8"),
                 lambda: devarray.zeros_like(devarray.zeros(2), "int8"),
                 lambda: devarray.eye(2, 2, 1)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):
        devarray.zeros_like(x=devarray.zeros(2))
    with pytest.raises(TypeError):
        devarray.tril(devarray.zeros((2, 2)), 1)


# ---- device= with devarray.Device ---------------------------------------------

def _all_creations(device):
    x = devarray.asarray([[1.0, 2.0], [3.0, 4.0]])
    return {
        "empty": devarray.empty(3, device=device),
        "zeros": devarray.zeros((2, 2), device=device),
        "ones": devarray.ones(2, device=device),
        "full": devarray.full(2, 7, device=device),
        "empty_like": devarray.empty_like(x, device=device),
        "zeros_like": devarray.zeros_like(x, device=device),
        "ones_like": devarray.ones_like(x, device=device),
        "full_like": devarray.full_like(x, 2.5, device=device),
        "eye": devarray.eye(3, device=device),
        "arange": devarray.arange(5, device=device),
        "linspace": devarray.linspace(0, 1, 4, device=device),
        "asarray list": devarray.asarray([1, 2], device=device),
        "asarray array": devarray.asarray(x, device=device),
    }


def test_device_default_is_the_default_place(backend):
    here = devarray.zeros(1).device
    for name, d in _all_creations(None).items():
        assert d.device == here, name
    for name, d in _all_creations(here).items():
        assert d.device == here, name


def test_device_host_from_any_backend(backend, rng):
    host_place = devarray.Device("host")
    for name, d in _all_creations(host_place).items():
        assert d.device == host_place, name
    a = random_array(rng, (3, 2), "int32")
    d = dev(a)
    moved = devarray.asarray(d, device=host_place)
    assert moved.device == host_place
    assert_values(moved, a)
    if d.device != host_place:
        with pytest.raises(ValueError, match="copy"):
            devarray.asarray(d, device=host_place, copy=False)
        # the *_like functions keep x's place unless told
        assert devarray.zeros_like(moved).device == host_place
        assert devarray.zeros_like(d).device == d.device
    assert_values(devarray.arange(-4, 9, 3, dtype="int16", device=host_place),
                  np.arange(-4, 9, 3, dtype="int16"))


def test_offsets_beyond_int64(backend, rng):
    # the array API's tests draw any Python int for k; no diagonal is there
    for k in (2 ** 63, 2 ** 70, -2 ** 63 - 1, -2 ** 80):
        assert_values(devarray.eye(3, 4, k=k), np.zeros((3, 4)))
        a = random_array(rng, (3, 4), "int32")
        keep_all, keep_none = (a, np.zeros_like(a)) if k > 0 else (np.zeros_like(a), a)
        assert_values(devarray.tril(dev(a), k=k), keep_all)
        assert_values(devarray.triu(dev(a), k=k), keep_none)


def test_device_memory_asked_for_on_the_host(gpu, rng):
    a = random_array(rng, (4, 3), "float32")
    d = dev(a)
    producer = CAIProducer(d.__cuda_array_interface__, owner=d)
    host_place = devarray.Device("host")
    h = devarray.asarray(producer, device=host_place)
    assert h.device == host_place
    assert_values(h, a)
    with pytest.raises(ValueError, match="copy"):
        devarray.asarray(producer, device=host_place, copy=False)
    view = devarray.asarray(producer, copy=False)
    assert view.ptr == d.ptr
    # from_dlpack: a CUDA tensor asked for on the host is copied there
    h2 = devarray.from_dlpack(d, device=host_place)
    assert h2.device == host_place
    assert_values(h2, a)
    with pytest.raises(BufferError):
        devarray.from_dlpack(d, device=host_place, copy=False)
