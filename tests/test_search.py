"""Differential tests of devarray.argmax, argmin (and the methods) and
searchsorted against NumPy: every dtype, every axis and keepdims, NaN
(first NaN wins), ties (first occurrence), signed zeros, complex order,
empty, 0-d, non-contiguous and negative-stride views, segment lengths that
take each CUDA route (thread, warp, block, block pieces merged), on both
backends.  Indices are exact on both backends."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, np_or_exception, random_array

SHAPES = [(), (1,), (7,), (0,), (5, 7), (3, 0, 4), (4, 5, 6), (2, 3, 1, 4),
          (3, 100), (2, 5000), (1, 40000), (3, 40001), (40000, 2)]
FUNCS = {"argmax": (devarray.argmax, np.argmax), "argmin": (devarray.argmin, np.argmin)}


def tied(rng, shape, dt):
    """Random values drawn from a few, so maxima and minima repeat; with
    NaN (and for floats signed zeros) sprinkled in."""
    a = random_array(rng, shape, dt, special=True)
    if a.size > 1:
        flat = a.reshape(-1)
        pool = flat[rng.integers(0, flat.size, size=4)]
        flat[:] = pool[rng.integers(0, 4, size=flat.size)]
    return a


def check_arg(name, a, d, **kwargs):
    da_fn, np_fn = FUNCS[name]
    expected, exc = np_or_exception(lambda: np_fn(a, **kwargs))
    if exc is not None:
        with pytest.raises(exc):
            da_fn(d, **kwargs)
        with pytest.raises(exc):
            getattr(d, name)(**kwargs)
        return
    expected = np.asarray(expected)
    assert_values(da_fn(d, **kwargs), expected)
    assert_values(getattr(d, name)(**kwargs), expected)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", DTYPES)
def test_arg_like_numpy(backend, rng, name, dt):
    for shape in SHAPES:
        for data in (random_array(rng, shape, dt, special=True), tied(rng, shape, dt)):
            d = devarray.asarray(data)
            for keepdims in (False, True):
                check_arg(name, data, d, keepdims=keepdims)
                for axis in range(-len(shape), len(shape)):
                    check_arg(name, data, d, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "complex64"])
def test_arg_nan_first(backend, name, dt):
    """The first NaN wins over larger and smaller numbers and later NaNs,
    wherever it sits in a long segment (the block route's pieces)."""
    for n in (10, 3000, 100000):
        for at in (0, 1, n // 2, n - 1):
            a = (np.arange(n) % 1000).astype(dt)
            a[at] = np.nan
            if at + 7 < n:
                a[at + 7] = np.nan
            a[-1] = 1e4 if dt != "float16" else 6e4
            check_arg(name, a, devarray.asarray(a))
            check_arg(name, a.reshape(1, n), devarray.asarray(a.reshape(1, n)), axis=1)


@pytest.mark.parametrize("name", FUNCS)
def test_arg_first_occurrence(backend, name):
    """Equal extremes far apart, in different block pieces: the first
    one's index; -0.0 and 0.0 are equal."""
    for n in (40, 5000, 300000):
        a = np.zeros(n, dtype=np.float32)
        a[[3, n // 2, n - 2]] = 5.0 if name == "argmax" else -5.0
        check_arg(name, a, devarray.asarray(a))
        z = np.zeros(n, dtype=np.float32)
        z[::3] = -0.0
        check_arg(name, z, devarray.asarray(z))
        b = np.ones((3, n), dtype=np.int64)
        b[:, n // 3] = 7 if name == "argmax" else -7
        b[:, n - 1] = 7 if name == "argmax" else -7
        check_arg(name, b, devarray.asarray(b), axis=1)


@pytest.mark.parametrize("name", FUNCS)
def test_arg_views(backend, rng, name):
    a = tied(rng, (6, 9, 40), "float64")
    d = devarray.asarray(a)
    for va, vd in [(a[::2, ::-1], d[::2, ::-1]), (a[:, 1:8:3, ::-3], d[:, 1:8:3, ::-3]),
                   (np.transpose(a, (2, 0, 1)), devarray.permute_dims(d, (2, 0, 1)))]:
        check_arg(name, va, vd)
        for axis in range(3):
            check_arg(name, va, vd, axis=axis, keepdims=True)


def test_arg_input_untouched(backend, rng):
    a = random_array(rng, (5, 6), "float32", special=True)
    d = devarray.asarray(a)
    devarray.argmax(d, axis=0)
    devarray.argmin(devarray.permute_dims(d, (1, 0)), axis=0)
    assert_values(d, a)


# Shapes whose axes before the last take CUDA's in-place columns route
# (float32/float64): few or many columns, a partial last tile (33), a
# middle axis, and long axes split over blocks (70000: a thread merges the
# splits; 150000: more splits than that, a block merges them).
COLUMN_SHAPES = [(3, 1000), (1000, 3), (4097, 33), (2, 5000, 7), (70000, 2),
                 (150000, 2)]


def planted(rng, shape, dt, axis):
    """Random values of float dtype dt, C-contiguous, where along `axis`
    column c (the other coordinates, flattened) holds, by c % 3: three
    NaNs (the first at a row that varies with c) after a planted maximum
    and minimum; the maximum and the minimum each repeated in rows far
    apart (so in different splits); or nothing."""
    n = shape[axis]
    rest = shape[:axis] + shape[axis + 1:]
    m = rng.standard_normal((n, int(np.prod(rest)))).astype(dt)
    cols = np.arange(m.shape[1])
    nan_cols, tie_cols = cols[cols % 3 == 0], cols[cols % 3 == 1]
    first = (nan_cols * 7919 + 1) % n
    m[0, nan_cols] = 100.0
    m[min(1, n - 1), nan_cols] = -100.0
    for at in (first, (first + n // 2) % n, n - 1):
        m[at, nan_cols] = np.nan
    for r in (n // 7, n // 2, n - 1):
        m[r, tie_cols] = 100.0
    for r in (n // 5, 3 * n // 4, n - 3):
        m[r, tie_cols] = -100.0
    return np.ascontiguousarray(np.moveaxis(m.reshape((n,) + rest), 0, axis))


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_arg_columns_like_numpy(backend, rng, name, dt):
    """Every axis of C-contiguous float arrays, keepdims or not: random
    values, then planted ties (the first wins across splits) and NaNs (the
    first NaN wins)."""
    np_fn = FUNCS[name][1]
    for shape in COLUMN_SHAPES:
        for axis in range(len(shape)):
            tied_nan = planted(rng, shape, dt, axis)
            # the planted data tells first from last occurrence and NaN
            # from no NaN, so a kernel that got either wrong fails
            last = shape[axis] - 1 - np_fn(np.flip(tied_nan, axis), axis=axis)
            assert (last != np_fn(tied_nan, axis=axis)).any()
            assert np.isnan(tied_nan).any(axis=axis).any()
            for data in (random_array(rng, shape, dt), tied_nan):
                d = devarray.asarray(data)
                for keepdims in (False, True):
                    check_arg(name, data, d, axis=axis, keepdims=keepdims)
                    check_arg(name, data, d, axis=axis - len(shape), keepdims=keepdims)


# ---- searchsorted -------------------------------------------------------------

def check_search(x1, x2, **kwargs):
    expected, exc = np_or_exception(lambda: np.searchsorted(x1, x2, **kwargs))
    dkw = {k: (devarray.asarray(v) if isinstance(v, np.ndarray) else v)
           for k, v in kwargs.items()}
    if exc is not None:
        with pytest.raises(exc):
            devarray.searchsorted(devarray.asarray(x1), devarray.asarray(x2), **dkw)
        return
    got = devarray.searchsorted(devarray.asarray(x1), devarray.asarray(x2), **dkw)
    assert_values(got, np.asarray(expected).astype(np.int64))


@pytest.mark.parametrize("dt", DTYPES)
def test_searchsorted_like_numpy(backend, rng, dt):
    for n in (0, 1, 2, 7, 100, 1000):
        x1 = np.sort(tied(rng, (n,), dt))
        for shape in [(), (0,), (13,), (4, 6)]:
            # values drawn from x1 itself (ties) and fresh ones
            x2 = random_array(rng, shape, dt, special=True)
            if n and x2.size:
                flat = x2.reshape(-1)
                flat[::2] = x1[rng.integers(0, n, size=flat[::2].size)]
            for side in ("left", "right"):
                check_search(x1, x2, side=side)
        perm = rng.permutation(n)
        unsorted = x1[perm].copy()
        sorter = np.argsort(unsorted, kind="stable")
        check_search(unsorted, random_array(rng, (9,), dt, special=True), sorter=sorter)
        check_search(unsorted, random_array(rng, (9,), dt), side="right",
                     sorter=sorter.astype(np.int32))


@pytest.mark.parametrize("dt", DTYPES)
def test_searchsorted_long_sorted(backend, rng, dt):
    """Long sorted sequences (2049 to 70001 elements: searches of 12 to 17
    steps): runs of ties, values below, above and between all of them,
    elements at multiples of a stride, NaN; both sides, and isin on the
    same arrays."""
    for n in (2049, 4097, 8193, 16385, 70001):
        for x1 in (np.sort(tied(rng, (n,), dt)),
                   np.sort(random_array(rng, (n,), dt, special=True))):
            x2 = random_array(rng, (3000,), dt, special=True)
            x2[::2] = x1[rng.integers(0, n, size=x2[::2].size)]
            # elements at multiples of a stride
            at = np.arange(0, n, rng.integers(2, 36))[:1500]
            x2[1:2 * at.size:2] = x1[at]
            for side in ("left", "right"):
                check_search(x1, x2, side=side)
            assert_values(devarray.isin(devarray.asarray(x2), devarray.asarray(x1)),
                          np.isin(x2, x1))


def test_searchsorted_nan_last(backend):
    x1 = np.array([-np.inf, -1.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    x2 = np.array([np.nan, np.inf, -np.inf, -0.0, 3.0])
    for side in ("left", "right"):
        check_search(x1, x2, side=side)
    c1 = np.sort(np.array([1 + 1j, complex(1, np.nan), complex(np.nan, 0),
                           complex(np.nan, np.nan), 0j, complex(np.nan, 2)]))
    c2 = np.array([complex(np.nan, 1), complex(2, np.nan), 1 + 0j, complex(np.nan, np.nan)])
    for side in ("left", "right"):
        check_search(c1, c2, side=side)


def test_searchsorted_promotes(backend):
    x1 = np.array([1, 3, 5], dtype=np.int8)
    check_search(x1, np.array([2.5, 3.0, 300.0]))
    check_search(np.array([0.5, 1.5], dtype=np.float32), np.array([1], dtype=np.int64))
    check_search(np.array([1, 2], dtype=np.uint64), np.array([-1, 1], dtype=np.int64))


def test_searchsorted_scalar(backend, rng):
    """2025.12: x2 may be a Python scalar; the result is a 0-d int64 array
    equal to NumPy's, the scalar promoted with x1 as NEP 50 says."""
    for dt in ("int8", "uint16", "int64", "float32", "float64", "complex64"):
        x1 = np.sort(random_array(rng, (25,), dt))
        d1 = devarray.asarray(x1)
        sorter = rng.permutation(25)
        unsorted = x1[np.argsort(sorter)]
        picks = [x1[3].item(), x1[0].item(), x1[-1].item(), 0, 1, True]
        if np.dtype(dt).kind in "fc":
            picks += [0.5, -1e300, float("inf"), float("nan")]
        for value in picks:
            for side in ("left", "right"):
                got = devarray.searchsorted(d1, value, side=side)
                assert got.shape == () and got.dtype == devarray.int64
                assert int(got) == np.searchsorted(x1, value, side=side)
            got = devarray.searchsorted(devarray.asarray(unsorted), value,
                                        sorter=devarray.asarray(np.argsort(unsorted)))
            assert int(got) == np.searchsorted(unsorted, value,
                                               sorter=np.argsort(unsorted))
    # a float into an integer x1 promotes to float64, as NumPy's
    x1 = np.array([1, 3, 5], dtype=np.int8)
    for value in (2.5, 3.0, -0.5, 5.5):
        got = devarray.searchsorted(devarray.asarray(x1), value, side="right")
        assert int(got) == np.searchsorted(x1, value, side="right")
    # numpy.float64 is a strong float64: the same answer as its value
    assert int(devarray.searchsorted(devarray.asarray(x1), np.float64(2.5))) == 1


def test_searchsorted_scalar_errors(backend):
    d = devarray.asarray(np.array([1, 3, 5], dtype=np.int8))
    # NEP 50: a Python int out of int8's range is refused, not wrapped
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        devarray.searchsorted(d, 300)
    for bad in ("3", None, [1], b"x"):
        with pytest.raises(TypeError, match="DeviceArray or a Python scalar"):
            devarray.searchsorted(d, bad)
