"""devarray.sort and devarray.argsort (src/ops/sort.c, kernels/sort.cu,
src/host/host_sort.c) against NumPy's stable sort on random data, on both
backends: every real dtype and bool, every axis of several shapes (empty,
one element, long single rows for CUDA's radix route, many short rows for
its segmented route), non-contiguous and reversed views, ties (integers
drawn from few values; signed zeros) that only a stable sort orders as
NumPy, and NaN (last ascending, first descending).

The oracle for descending=True is array-api-strict's: the stable ascending
argsort of the reversed axis, reversed back, so ties keep their input order
and NaN comes first."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, host, random_array

REAL_DTYPES = [t for t in DTYPES if not t.startswith("complex")]
SHAPES = [(0,), (1,), (2,), (7,), (1000,), (3, 0, 2), (5, 1), (4, 5, 6), (300, 17),
          (17, 300)]


def dev(a):
    return devarray.to_device(np.array(a, order="C"))


def np_argsort(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable")
    return (n - 1 - np.flip(flipped, axis=axis)).astype(np.int64)


def np_sort(x, axis, descending):
    return np.take_along_axis(x, np_argsort(x, axis, descending), axis=axis)


def assert_sorted_values(got, expected):
    """Values as assert_values (NaN == NaN), and the sign of every zero:
    a stable sort keeps -0.0 and +0.0 where they were among their ties."""
    assert_values(got, expected)
    if expected.dtype.kind == "f":
        g = host(got)
        keep = ~np.isnan(expected)
        assert np.array_equal(np.signbit(g)[keep], np.signbit(expected)[keep]), (g, expected)


def few_values(rng, shape, dtype):
    """Many ties: values drawn from five, so stability shows."""
    pool = random_array(rng, (5,), dtype, special=True)
    return pool[rng.integers(0, 5, size=shape)]


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_every_axis_like_numpy(backend, rng, dtype, descending):
    for shape in SHAPES:
        for x in (random_array(rng, shape, dtype, special=True),
                  few_values(rng, shape, dtype)):
            d = dev(x)
            for axis in range(-len(shape), len(shape)):
                kw = {"axis": axis, "descending": descending}
                idx = devarray.argsort(d, **kw)
                assert_values(idx, np_argsort(x, axis, descending))
                assert_sorted_values(devarray.sort(d, **kw), np_sort(x, axis, descending))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32", "int64", "uint64",
                                   "uint8"])
def test_long_rows(backend, rng, dtype):
    """One segment of 2^17 (CUDA's radix route, and for the values of
    float32/float64 and 4- and 8-byte integers the in-place key route)."""
    x = random_array(rng, (1 << 17,), dtype, special=True)
    d = dev(x)
    for descending in (False, True):
        assert_sorted_values(devarray.sort(d, descending=descending),
                             np_sort(x, 0, descending))
        assert_values(devarray.argsort(d, descending=descending),
                      np_argsort(x, 0, descending))


NARROW_DTYPES = ["bool", "int8", "uint8", "int16", "uint16"]


@pytest.mark.parametrize("dtype", NARROW_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_narrow_values_one_segment(backend, rng, dtype, descending):
    """The values of bool and 1- and 2-byte integers in one segment (CUDA
    sorts them as int32 keys on their low 8 or 16 bits, with the sign bit
    and, descending, all bits flipped), of sizes that are multiples of
    nothing, each holding the dtype's extremes, against NumPy's sort."""
    info = np.iinfo(dtype) if dtype != "bool" else None
    extremes = (np.array([True, False]) if info is None
                else np.array([info.max, info.min, 0, info.max - 1, info.min + 1,
                               info.max // 2, info.max // 2 + 1], dtype=dtype))
    for n in (1, 2, 7, 1000003):
        x = random_array(rng, (n,), dtype, special=True)
        at = rng.choice(n, size=min(n, extremes.size), replace=False)
        x[at] = extremes[:at.size]
        d = dev(x)
        expected = np.sort(x)
        if descending:
            expected = expected[::-1]
        assert_values(devarray.sort(d, descending=descending), expected)
        assert_values(d, x)  # the input is untouched


@pytest.mark.parametrize("dtype", ["float32", "int8", "float64"])
def test_few_long_rows(backend, rng, dtype):
    """A few rows of more than 2^16 (CUDA sorts each with a device-wide
    radix sort) and, along the other axis, many rows of 3 (CUDA's
    segmented sort)."""
    x = random_array(rng, (3, (1 << 16) + 5), dtype, special=True)
    d = dev(x)
    for axis in (1, 0):
        for descending in (False, True):
            assert_values(devarray.argsort(d, axis=axis, descending=descending),
                          np_argsort(x, axis, descending))
            assert_sorted_values(devarray.sort(d, axis=axis, descending=descending),
                                 np_sort(x, axis, descending))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int64"])
def test_views(backend, rng, dtype):
    x = random_array(rng, (9, 12), dtype, special=True)
    d = dev(x)
    for view, expected in ((d[::2, ::-3], x[::2, ::-3]), (d.T, x.T), (d[::-1], x[::-1]),
                           (d[3], x[3])):
        for axis in range(view.ndim):
            assert_sorted_values(devarray.sort(view, axis=axis), np_sort(expected, axis, False))
            assert_values(devarray.argsort(view, axis=axis, descending=True),
                          np_argsort(expected, axis, True))
    assert_values(d, x)  # the input is untouched


def test_default_axis_and_stable_flag(backend, rng):
    x = few_values(rng, (6, 8), "int16")
    d = dev(x)
    expected = np.argsort(x, axis=-1, kind="stable")
    assert_values(devarray.argsort(d), expected)
    # every sort is stable, so stable=False gives the same indices
    assert_values(devarray.argsort(d, stable=False), expected)
    assert_values(devarray.sort(d, stable=False), np.sort(x, axis=-1))


def test_nan_and_signed_zero_order(backend):
    x = np.array([np.nan, 1.0, -0.0, -np.inf, 0.0, -np.nan, np.inf, -1.0, 0.0, -0.0],
                 dtype=np.float32)
    d = dev(x)
    assert_values(devarray.argsort(d), np.array([3, 7, 2, 4, 8, 9, 1, 6, 0, 5]))
    assert_values(devarray.argsort(d, descending=True),
                  np.array([0, 5, 6, 1, 2, 4, 8, 9, 7, 3]))
    got = host(devarray.sort(d))
    assert np.isnan(got[-2:]).all() and not np.isnan(got[:-2]).any()
    assert np.array_equal(np.signbit(got[2:6]), [True, False, False, True])


def test_result_is_new_and_contiguous(backend, rng):
    x = random_array(rng, (4, 6), "float64")
    d = dev(x)
    for fn in (devarray.sort, devarray.argsort):
        for axis in (0, 1):
            r = fn(d, axis=axis)
            assert r.shape == x.shape
            assert r.strides == np.empty(x.shape, r.dtype.name).strides
            assert r.ptr != d.ptr
    assert devarray.argsort(d).dtype == devarray.int64
