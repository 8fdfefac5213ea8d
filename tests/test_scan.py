"""Differential tests of devarray.cumulative_sum, cumulative_prod and diff
against NumPy: every dtype, every axis, include_initial, explicit dtypes,
empty, 0-d, non-contiguous and negative-stride views, on both backends.

Tolerance: the host backend scans in NumPy's sequential order, rounding
each running value to the dtype as NumPy's accumulate does, so it must
match NumPy exactly (integers always do).  The CUDA backend scans with CUB,
a parallel order of the same additions (multiplications), so a float
running sum may differ by the reassociation error: at most about
n * eps * (running sum of |x|) for n terms, and a running product by
n * eps relative; scan_close() checks those bounds, with factor 2 slack."""

import numpy as np
import pytest

import devarray
from _helpers import (DTYPES, assert_values, host, np_or_exception,
                      random_array)

CASES = [
    ((7,), None), ((0,), None), ((), None), ((1,), 0), ((5, 7), 0),
    ((5, 7), 1), ((5, 7), -1), ((3, 0, 4), 1), ((3, 0, 4), 2),
    ((4, 5, 6), 1), ((4, 5, 6), 0), ((2, 3000), 1), ((3000, 3), 0),
    ((2, 3, 1, 4), -2), ((5, 7), None),
]
FUNCS = {
    "cumulative_sum": (devarray.cumulative_sum, np.cumulative_sum),
    "cumulative_prod": (devarray.cumulative_prod, np.cumulative_prod),
}


def scan_input(rng, shape, dtype, name, special=True):
    """random_array, but floats near 1 for products (so long products stay
    finite and differences between orders stay measurable)."""
    dt = np.dtype(dtype)
    if name == "cumulative_prod" and dt.kind in "fc":
        a = 1 + 0.01 * rng.standard_normal(shape)
        if dt.kind == "c":
            a = a + 0.01j * rng.standard_normal(shape)
        return np.asarray(a.astype(dt))
    return random_array(rng, shape, dtype, special=special and name == "cumulative_sum")


def parts(a):
    return [a.real, a.imag] if a.dtype.kind == "c" else [a]


def scan_close(got, expected, x, name, kwargs):
    """got (a DeviceArray) within the reassociation bound of `expected`.
    A running sum is checked part by part (real, imaginary): a finite part
    within 2 n eps times the running sum of that part's magnitudes, a
    non-finite one of the same class (nan, +inf, -inf), which no order of
    additions changes.  A running product mixes the parts, and its
    overflow and inf * 0 depend on the order of the multiplications: a
    finite element within 2 n eps of its magnitude, a non-finite one only
    non-finite."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    g = host(got)
    if expected.dtype.kind not in "fc":
        assert_values(g, expected)
        return
    axis = kwargs.get("axis")
    axis = 0 if axis is None else axis
    n = max(x.shape[axis] if x.ndim else 1, 1)
    eps = float(np.finfo(expected.dtype).eps)
    with np.errstate(all="ignore"):
        if name == "cumulative_sum":
            for gp, ep, xp in zip(parts(g), parts(expected), parts(x)):
                mags = np.cumulative_sum(np.abs(xp.astype(np.float64)),
                                         axis=axis if x.ndim else None,
                                         include_initial=kwargs.get("include_initial", False))
                bound = 2 * n * eps * mags.reshape(ep.shape)
                err = np.abs(gp.astype(np.float64) - ep.astype(np.float64))
                finite = np.isfinite(ep)
                assert (err[finite] <= bound[finite]).all(), (g, expected)
                same = (np.isnan(gp) & np.isnan(ep)) | (gp == ep)
                assert same[~finite].all(), (g, expected)
            return
        e = expected.astype(np.complex128)
        err = np.abs(g.astype(np.complex128) - e)
        bound = 2 * n * eps * np.abs(e)
    finite = np.isfinite(e)
    assert (err[finite] <= bound[finite]).all(), (g, expected)
    assert not np.isfinite(g)[~finite].any(), (g, expected)


def check(backend, name, a, d, **kwargs):
    da_fn, np_fn = FUNCS[name]
    expected, exc = np_or_exception(lambda: np_fn(a, **kwargs))
    if exc is not None:
        with pytest.raises(exc):
            da_fn(d, **kwargs)
        return
    got = da_fn(d, **kwargs)
    assert isinstance(got, devarray.DeviceArray)
    expected = np.asarray(expected)
    if backend == "host":
        assert_values(got, expected)
    else:
        scan_close(got, expected, np.asarray(a).astype(expected.dtype), name, kwargs)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", DTYPES)
def test_cumulative_like_numpy(backend, rng, name, dt):
    for shape, axis in CASES:
        a = scan_input(rng, shape, dt, name)
        for include_initial in (False, True):
            kwargs = {"include_initial": include_initial}
            if axis is not None:
                kwargs["axis"] = axis
            check(backend, name, a, devarray.asarray(a), **kwargs)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["int8", "float32", "complex64", "bool"])
def test_cumulative_views(backend, rng, name, dt):
    a = scan_input(rng, (6, 9, 4), dt, name)
    d = devarray.asarray(a)
    views = [
        (a[::2, ::-1], d[::2, ::-1]),
        (a[:, 1:8:3, :], d[:, 1:8:3, :]),
        (np.transpose(a, (2, 0, 1)), devarray.permute_dims(d, (2, 0, 1))),
        (a[::-1, 3], d[::-1, 3]),
    ]
    for va, vd in views:
        for axis in range(va.ndim):
            check(backend, name, va, vd, axis=axis)
            check(backend, name, va, vd, axis=axis, include_initial=True)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt,target", [
    ("int8", "int8"), ("int32", "int16"), ("uint8", "uint8"), ("bool", "bool"),
    ("int16", "float32"), ("float32", "float64"), ("float64", "float32"),
    ("float16", "float16"), ("int64", "complex128"), ("bool", "int32"),
    ("int8", "bool"), ("float32", "int16"),
])
def test_cumulative_dtype(backend, rng, name, dt, target):
    """An explicit dtype: the input is cast, then accumulated in it (narrow
    integers wrap).  No NaN or inf: their casts to integers are the C
    compiler's choice, not NumPy's rule."""
    a = scan_input(rng, (4, 300), dt, name, special=False)
    check(backend, name, a, devarray.asarray(a), axis=1, dtype=target)
    check(backend, name, a, devarray.asarray(a), axis=0, dtype=target,
          include_initial=True)


def test_cumulative_float16_rounds_each_step(backend):
    """NumPy rounds every running float16 value; 2048 + 1 + 1 + ... stays
    2048 in half precision, where a float32 accumulator would climb to
    2148.  The host follows NumPy's order exactly; CUDA's parallel order
    adds runs of ones before they meet 2048, so only the bound of
    scan_close applies there."""
    a = np.array([2048] + [1] * 100, dtype=np.float16)
    got = devarray.cumulative_sum(devarray.asarray(a))
    if backend == "host":
        assert_values(got, np.cumulative_sum(a))
    else:
        scan_close(got, np.cumulative_sum(a), a, "cumulative_sum", {})


def test_cumulative_wraps(backend):
    a = np.array([100, 100, 100, -128], dtype=np.int8)
    for name, (da_fn, np_fn) in FUNCS.items():
        assert_values(da_fn(devarray.asarray(a), dtype="int8"), np_fn(a, dtype=np.int8))
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    assert_values(devarray.cumulative_sum(devarray.asarray(big)), np.cumulative_sum(big))


def test_cumulative_long_segments(backend, rng):
    """The long-segment routes: one segment of 2^17 and a few of 2^16."""
    for shape, axis in [((1 << 17,), 0), ((3, 1 << 16), 1), ((1 << 16, 3), 0)]:
        a = rng.integers(-1000, 1000, size=shape).astype(np.int32)
        check(backend, "cumulative_sum", a, devarray.asarray(a), axis=axis)
        f = rng.standard_normal(shape).astype(np.float32)
        check(backend, "cumulative_sum", f, devarray.asarray(f), axis=axis)


# ---- diff -------------------------------------------------------------------

DIFF_CASES = [((7,), -1), ((1,), 0), ((0,), 0), ((5, 7), 0), ((5, 7), 1),
              ((3, 0, 4), 2), ((4, 5, 6), 1), ((2, 3, 1, 4), -2), ((300, 3), 0)]


def check_diff(a, d, **kwargs):
    expected, exc = np_or_exception(lambda: np.diff(a, **kwargs))
    dkw = {k: (devarray.asarray(v) if isinstance(v, np.ndarray) else v)
           for k, v in kwargs.items()}
    if exc is not None:
        with pytest.raises(exc):
            devarray.diff(d, **dkw)
        return
    got = devarray.diff(d, **dkw)
    assert_values(got, np.asarray(expected))


@pytest.mark.parametrize("dt", DTYPES)
def test_diff_like_numpy(backend, rng, dt):
    for shape, axis in DIFF_CASES:
        a = random_array(rng, shape, dt, special=True)
        d = devarray.asarray(a)
        for n in (0, 1, 2, 3, 9):
            check_diff(a, d, axis=axis, n=n)
        check_diff(a, d) if a.ndim == 1 else None


@pytest.mark.parametrize("dt,other", [("float32", "float32"), ("int8", "int16"),
                                      ("uint8", "float64"), ("bool", "bool"),
                                      ("complex64", "float32"), ("int64", "uint64")])
def test_diff_prepend_append(backend, rng, dt, other):
    a = random_array(rng, (4, 5), dt)
    d = devarray.asarray(a)
    for axis in (0, 1, -1):
        shape = list(a.shape)
        shape[axis] = 2
        p = random_array(rng, tuple(shape), other)
        shape[axis] = 3
        q = random_array(rng, tuple(shape), other)
        check_diff(a, d, axis=axis, prepend=p)
        check_diff(a, d, axis=axis, append=q)
        check_diff(a, d, axis=axis, prepend=p, append=q, n=2)
        check_diff(a, d, axis=axis, prepend=random_array(rng, (), other))
        check_diff(a, d, axis=axis, append=random_array(rng, (), other), n=3)


def test_diff_views(backend, rng):
    a = random_array(rng, (6, 8), "float64", special=True)
    d = devarray.asarray(a)
    for va, vd in [(a[::-1], d[::-1]), (a[:, ::3], d[:, ::3]), (a.T, d.T)]:
        for axis in (0, 1):
            check_diff(va, vd, axis=axis)
            check_diff(va, vd, axis=axis, n=2)


def test_diff_n0_returns_input(backend):
    d = devarray.asarray(np.arange(4))
    assert devarray.diff(d, n=0) is d
