"""Differential tests of the reduction engine's ops beyond sum (prod, max,
min; test_sum.py has sum) against NumPy 2, every dtype, both backends,
every route of the engine: full, last-axis segments, leading and middle
axes read in place (inner > 1), non-adjacent axes (copied with the
reduced axes last), strided and negative-stride views, empty and 0-d.

Tolerances:
  - integers and bool: exact (products wrap in 64 bits as NumPy's do);
  - max and min: exact on both backends (the order of comparisons does not
    change the value; NaN propagates);
  - float and complex products: relative (len + 2) * eps of the result
    dtype on CUDA (a tree of len - 1 roundings instead of NumPy's loop),
    and on the host for views that are not C-contiguous (NumPy walks
    them in memory order, the host copies them in logical order) and for
    complex products along inner > 1, where NumPy's SIMD loop uses fused
    multiply-adds; otherwise the host is exact;
  - float sums on the host over adjacent axes: exact (NumPy's pairwise
    order along a contiguous axis, in order along a leading one), except
    float16: both backends accumulate it in float32 and round once, while
    NumPy's half loops round every step along a leading axis in some
    versions (2.4) and not in others (2.5); float16 gets the bounds above.
"""

import numpy as np
import pytest

import devarray
from _helpers import (
    DTYPES, assert_values, eps, host, np_or_exception, random_array,
)

SHAPES = [(), (0,), (1,), (257,), (5, 7), (3, 0, 4), (4, 5, 6), (2, 3, 40, 3)]


def axis_cases(ndim):
    cases = [None, ()]
    for i in range(ndim):
        cases += [i, i - ndim]
    if ndim >= 2:
        cases += [(0, -1), tuple(range(ndim - 1))]
    if ndim >= 3:
        cases += [(1, 2), (0, 2), (2, 0)]
    return cases


CASES = [(s, ax) for s in SHAPES for ax in axis_cases(len(s))]


def normalised(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis)) if ndim else ()


def adjacent(axis, shape):
    """Whether the reduced axes of size > 1 are adjacent (the in-place
    route, where the host reproduces NumPy's order)."""
    axes = [a for a in normalised(axis, len(shape)) if shape[a] != 1]
    if not axes:
        return True
    between = range(axes[0], axes[-1] + 1)
    return all(a in axes or shape[a] == 1 for a in between)


def prod_data(rng, shape, dt):
    """Values whose products stay finite and nonzero in every order, so
    that no test depends on where an intermediate product overflows:
    magnitudes exp(u), u uniform in [-0.1, 0.1] (a random walk of
    log-magnitudes with no drift: 720 factors stay within float16's range),
    random signs (phases for complex); integers over their full range
    (products wrap exactly in any order)."""
    kind = np.dtype(dt).kind
    if kind in "fc":
        mag = np.exp(rng.uniform(-0.1, 0.1, size=shape))
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        a = mag * sign
        if kind == "c":
            a = a * np.exp(1j * rng.uniform(0, 2 * np.pi, size=shape))
        return np.asarray(a.astype(dt))
    return random_array(rng, shape, dt)


def check(fn_name, a, d, axis, keepdims, backend, **kwargs):
    """devarray.<fn>(d) and d.<fn>() against numpy.<fn>(a)."""
    np_fn = getattr(np, fn_name)
    expected, exc = np_or_exception(
        lambda: np_fn(a, axis=axis, keepdims=keepdims, **kwargs))
    calls = (lambda: getattr(devarray, fn_name)(d, axis=axis, keepdims=keepdims, **kwargs),
             lambda: getattr(d, fn_name)(axis=axis, keepdims=keepdims, **kwargs))
    for call in calls:
        if exc is not None:
            with pytest.raises(exc):
                call()
            continue
        got = call()
        assert isinstance(got, devarray.DeviceArray)
        expected = np.asarray(expected)
        kind = expected.dtype.kind
        if kind in "biu" or fn_name in ("max", "min"):
            assert_values(got, expected)
            continue
        exact = backend == "host" and a.flags.c_contiguous and adjacent(axis, a.shape) \
            and a.dtype != np.float16 and not (
            kind == "c" and fn_name == "prod" and a.ndim and
            normalised(axis, a.ndim) and max(normalised(axis, a.ndim)) < a.ndim - 1)
        if exact:
            assert_values(got, expected)
        else:
            n = max(1, a.size // max(1, expected.size))
            assert_values(got, expected, rtol=(n + 2) * eps(expected.dtype))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_prod_axes(backend, rng, dt, shape, axis):
    a = prod_data(rng, shape, dt)
    d = devarray.to_device(a)
    for keepdims in (False, True):
        check("prod", a, d, axis, keepdims, backend)


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_max_min_axes(backend, rng, fn, dt, shape, axis):
    # special values (NaN, infinities, signed zeros, integer extremes);
    # complex NaNs only on the host, whose order is NumPy's: which of two
    # NaN-holding complex values wins depends on the order
    special = backend == "host" or np.dtype(dt).kind != "c"
    a = random_array(rng, shape, dt, special=special)
    d = devarray.to_device(a)
    for keepdims in (False, True):
        check(fn, a, d, axis, keepdims, backend)


@pytest.mark.parametrize("dt", DTYPES)
def test_result_dtypes(backend, rng, dt):
    d = devarray.to_device(random_array(rng, (3, 4), dt))
    z = np.zeros(2, dt)
    assert d.prod().dtype == np.prod(z).dtype
    assert devarray.prod(d, axis=0).dtype == np.prod(z).dtype
    assert d.max().dtype == dt and d.min(axis=1).dtype == dt


@pytest.mark.parametrize("dt", ["int8", "uint16", "int32", "float32", "float64",
                                "complex64"])
@pytest.mark.parametrize("override", ["int64", "uint8", "float64", "complex128",
                                      "float16", "bool"])
def test_prod_dtype_override(backend, rng, dt, override):
    a = prod_data(rng, (4, 6), dt)
    if np.dtype(dt).kind in "iu":
        a = (a % 5).astype(dt)
    d = devarray.to_device(a)
    for axis in (None, 0, 1):
        expected, exc = np_or_exception(lambda: np.prod(a, axis=axis, dtype=override))
        if exc is not None:
            with pytest.raises(exc):
                devarray.prod(d, axis=axis, dtype=override)
            continue
        expected = np.asarray(expected)
        got = devarray.prod(d, axis=axis, dtype=override)
        assert_values(got, expected, rtol=8 * eps(expected.dtype))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", [((0,), None), ((3, 0, 4), 1),
                                         ((3, 0, 4), (0, 1)), ((0, 5), 0),
                                         ((0, 0), None)])
def test_empty(backend, dt, shape, axis):
    """prod over nothing is 1; max and min over nothing raise NumPy's
    ValueError, even when the result itself is empty."""
    d = devarray.empty(shape, dtype=dt)
    a = np.zeros(shape, dt)
    assert_values(d.prod(axis=axis), np.asarray(np.prod(a, axis=axis)))
    for fn in ("max", "min"):
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(d, fn)(axis=axis)
        with pytest.raises(ValueError):
            getattr(devarray, fn)(d, axis=axis)


@pytest.mark.parametrize("fn", ["max", "min", "prod"])
def test_empty_result_not_reduced_over_nothing(backend, fn):
    d = devarray.empty((0, 3), dtype="float32")
    r = getattr(d, fn)(axis=1)
    assert r.shape == (0,) and r.dtype == "float32"


VIEWS = {
    "T": lambda x: x.T,
    "step2": lambda x: x[::2],
    "rev": lambda x: x[::-1, ::-1],
    "cols": lambda x: x[:, 1::3],
    "swap3": lambda x: x.transpose(2, 0, 1),
    "slice3": lambda x: x[1:, ::-2, 1:4],
    "offset": lambda x: x[1:],
}
VIEW_BASES = {"T": (9, 6), "step2": (20, 5), "rev": (7, 8), "cols": (5, 10),
              "swap3": (4, 5, 6), "slice3": (3, 7, 6), "offset": (9, 8)}


@pytest.mark.parametrize("fn", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dt", ["int16", "uint32", "float32", "float64",
                                "complex64", "bool", "float16"])
@pytest.mark.parametrize("view", VIEWS)
def test_non_contiguous(backend, rng, fn, view, dt):
    base = prod_data(rng, VIEW_BASES[view], dt)
    a = VIEWS[view](base)
    d = VIEWS[view](devarray.to_device(base))
    assert d.shape == a.shape
    for axis in axis_cases(a.ndim):
        if fn == "sum":
            # views: NumPy's order differs from the copy's; any order of n
            # additions is within (n - 1) * eps / 2 * sum|a| of the exact
            # sum, and sum|a| <= n * max|a|, so two orders differ by at most
            # n * eps * n * max|a|
            expected = np.asarray(np.sum(a, axis=axis))
            n = max(1, a.size // max(1, expected.size))
            scale = float(np.max(np.abs(a))) if a.size else 1.0
            tol = (n + 2) * eps(expected.dtype) * n * scale
            got = host(d.sum(axis=axis))
            assert got.dtype == expected.dtype and got.shape == expected.shape
            with np.errstate(all="ignore"):
                err = np.abs(got.astype(np.complex128) - expected)
            assert np.all(err <= tol), (err, tol)
            continue
        check(fn, a, d, axis, False, backend)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int32", "int8",
                                "uint64", "complex64", "complex128", "bool"])
@pytest.mark.parametrize("shape, axis", [
    ((300, 5), 0),          # inner 5: no vector loads
    ((64, 8), 0),           # inner a multiple of the vector width
    ((3, 700, 12), 1),      # a middle axis
    ((2, 3, 500, 1), 2),    # a middle axis with a trailing size-1 axis
    ((1, 600, 2), (0, 1)),  # leading axes, size 1 first
    ((2000, 3), 0),         # long columns, few outputs: len split over blocks
])
def test_leading_axes_in_place(backend, rng, dt, shape, axis):
    """The in-place route over leading / middle axes of a C-contiguous
    array, each op; the host is NumPy's order exactly there."""
    a = prod_data(rng, shape, dt)
    d = devarray.to_device(a)
    for fn in ("prod", "max", "min"):
        check(fn, a, d, axis, False, backend)
    expected = np.asarray(np.sum(a, axis=axis))
    got = d.sum(axis=axis)
    if (backend == "host" and dt != "float16") or expected.dtype.kind in "biu":
        assert_values(got, expected)
    else:
        n = a.size // expected.size
        assert_values(got, expected, rtol=(n + 2) * eps(expected.dtype) * 4)


def test_nan_propagates(backend):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]], dtype=np.float32)
    d = devarray.to_device(a)
    for fn in ("max", "min"):
        for axis in (None, 0, 1):
            assert_values(getattr(d, fn)(axis=axis),
                          np.asarray(getattr(np, fn)(a, axis=axis)))
    assert np.isnan(float(d.max())) and np.isnan(float(devarray.min(d)))


@pytest.mark.parametrize("dt, values", [
    ("int8", [100, 100, 3]),
    ("int64", [2**62, 4, 3]),
    ("uint64", [2**63, 3]),
    ("uint8", [255, 255, 255]),
    ("bool", [True, False, True]),
    ("bool", [True, True]),
])
def test_prod_wraps_like_numpy(backend, dt, values):
    a = np.array(values, dtype=dt)
    r = devarray.to_device(a).prod()
    e = np.prod(a)
    assert r.dtype == e.dtype
    assert int(r) == int(e)


@pytest.mark.parametrize("axis", [0, -1, (), None])
def test_zero_d(backend, axis):
    for fn in ("prod", "max", "min"):
        a = np.array(-2.5)
        d = devarray.to_device(a)
        assert_values(getattr(devarray, fn)(d, axis=axis),
                      np.asarray(getattr(np, fn)(a, axis=axis)))


def test_max_min_bool_and_extremes(backend):
    a = np.array([[True, False], [False, False]])
    d = devarray.to_device(a)
    for fn in ("max", "min"):
        for axis in (None, 0, 1):
            assert_values(getattr(d, fn)(axis=axis), np.asarray(getattr(np, fn)(a, axis=axis)))
    i = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max], dtype=np.int64)
    assert int(devarray.to_device(i).max()) == np.iinfo(np.int64).max
    assert int(devarray.to_device(i).min()) == np.iinfo(np.int64).min
    u = np.array([0, np.iinfo(np.uint64).max], dtype=np.uint64)
    assert int(devarray.to_device(u).max()) == np.iinfo(np.uint64).max


def test_methods_take_axis_positionally(backend, rng):
    a = random_array(rng, (4, 5), "int32")
    d = devarray.to_device(a)
    assert_values(d.max(1), np.asarray(a.max(1)))
    assert_values(d.min(0, True), np.asarray(a.min(0, keepdims=True)))
    assert_values(d.prod(1), np.asarray(a.prod(1)))


def test_large_columns(gpu, rng):
    """sum/max over axis 0 of a matrix big enough that len is split over
    blocks and the partial results are combined (the in-place route's
    second kernel); compared with float64 sums."""
    a = rng.random((4099, 1031), dtype=np.float32)
    d = devarray.to_device(a)
    exact = a.astype(np.float64).sum(axis=0)
    got = host(d.sum(axis=0)).astype(np.float64)
    assert np.all(np.abs(got - exact) <= 1e-5 * exact)
    assert_values(d.max(axis=0), a.max(axis=0))
    assert_values(d.min(axis=0), a.min(axis=0))
    b = rng.integers(-5, 5, size=(70001, 3), dtype=np.int32)
    db = devarray.to_device(b)
    assert_values(db.sum(axis=0), b.sum(axis=0))
    assert_values(db.max(axis=0), b.max(axis=0))
    c = rng.integers(-100, 100, size=(1 << 20,), dtype=np.int16)
    assert int(devarray.to_device(c).max()) == int(c.max())


@pytest.mark.parametrize("dt", ["float32", "float16", "int8", "complex64"])
@pytest.mark.parametrize("shape, axis", [((1024, 4096), 0), ((8, 513, 640), 1),
                                         ((3000, 8), 0)])
def test_large_in_place_routes(gpu, rng, dt, shape, axis):
    """The in-place route with vector loads and len split over blocks (the
    small tests above fit in one split); max/min exactly, sums within the
    in-order bound len * eps * sum|x|."""
    a = prod_data(rng, shape, dt)
    d = devarray.to_device(a)
    assert_values(d.max(axis=axis), np.asarray(a.max(axis=axis)))
    assert_values(d.min(axis=axis), np.asarray(a.min(axis=axis)))
    expected = np.asarray(np.sum(a, axis=axis))
    if expected.dtype.kind in "biu":
        assert_values(d.sum(axis=axis), expected)
        return
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    exact = np.sum(a.astype(wide), axis=axis)
    bound = np.sum(np.abs(a.astype(wide)), axis=axis) * shape[axis] * \
        eps(np.float32 if dt == "float16" else dt) + np.abs(exact) * eps(dt)
    got = host(d.sum(axis=axis)).astype(wide)
    assert np.all(np.abs(got - exact) <= bound)


def test_misaligned_view_in_place(gpu, rng):
    """A C-contiguous view one element past an allocation's start: the
    columns route must fall back to scalar loads."""
    flat = rng.random(1 + 64 * 1024, dtype=np.float32)
    a = flat[1:].reshape(64, 1024)
    d = devarray.to_device(flat)[1:].reshape(64, 1024)
    assert_values(d.max(axis=0), a.max(axis=0))
    got = host(d.sum(axis=0)).astype(np.float64)
    exact = a.astype(np.float64).sum(axis=0)
    assert np.all(np.abs(got - exact) <= 1e-5 * exact)
