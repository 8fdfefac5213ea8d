"""Differential tests of DeviceArray.sum / devarray.sum against NumPy 2:
result dtype and shape as NumPy, integer sums bit for bit, float sums
against an exactly rounded (math.fsum) reference with a pairwise bound."""

import math
import warnings

import numpy as np
import pytest

import devarray
from _helpers import (
    DTYPES, assert_values, eps, host, np_or_exception, random_array,
)

SHAPES = [(), (0,), (1,), (1000,), (5, 7), (3, 0, 4), (4, 5, 6)]


def axis_cases(ndim):
    cases = [None, ()]
    for i in range(ndim):
        cases += [i, i - ndim]
    if ndim:
        cases.append(tuple(range(ndim)))
    if ndim >= 2:
        cases += [(0, -1), (-1,)]
    if ndim == 3:
        cases += [(0, 2), (2, 1)]
    return cases


CASES = [(s, ax) for s in SHAPES for ax in axis_cases(len(s))]


def normalise_axes(axis, ndim):
    if ndim == 0:
        return ()
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def accumulator(result_dtype):
    """The dtype float sums accumulate in: float16 sums in float32."""
    dt = np.dtype(result_dtype)
    return np.dtype(np.float32) if dt == np.float16 else dt


def float_reference(values, axis):
    """Exactly rounded sums (math.fsum) of float64/complex128 `values`
    over `axis`, and the sums of magnitudes that bound the rounding error,
    each shaped like numpy.sum(values, axis)."""
    ndim = values.ndim
    axes = normalise_axes(axis, ndim)
    keep = [i for i in range(ndim) if i not in axes]
    moved = np.transpose(values, keep + list(axes))
    out_shape = moved.shape[:len(keep)]
    n = int(np.prod(moved.shape[len(keep):], dtype=np.int64))
    rows = moved.reshape(int(np.prod(out_shape, dtype=np.int64)), n)
    complex_ = values.dtype.kind == "c"
    ref = np.empty(rows.shape[0], np.complex128 if complex_ else np.float64)
    scale = np.empty(rows.shape[0], ref.dtype)
    for i, row in enumerate(rows):
        if complex_:
            ref[i] = complex(math.fsum(row.real), math.fsum(row.imag))
            scale[i] = complex(np.sum(np.abs(row.real)),
                               np.sum(np.abs(row.imag)))
        else:
            ref[i] = math.fsum(row)
            scale[i] = np.sum(np.abs(row))
    return ref.reshape(out_shape), scale.reshape(out_shape), n


def assert_float_sum(got, values, axis, result_dtype):
    """got (float/complex DeviceArray result, host copy) is within the
    pairwise-summation bound of the exact sum of `values` (already cast to
    the dtype the sum adds in)."""
    wide = np.complex128 if np.dtype(result_dtype).kind == "c" else np.float64
    ref, scale, n = float_reference(values.astype(wide), axis)
    ref = np.asarray(ref).reshape(got.shape)
    scale = np.asarray(scale).reshape(got.shape)
    acc_eps = eps(accumulator(result_dtype))
    steps = 2 * max(1.0, math.log2(max(n, 2)))
    g = got.astype(wide)
    parts = [(g.real, ref.real, scale.real), (g.imag, ref.imag, scale.imag)] \
        if wide == np.complex128 else [(g, ref, scale)]
    for gp, rp, sp in parts:
        bound = eps(result_dtype) * np.abs(rp) + steps * acc_eps * sp
        err = np.abs(gp - rp)
        assert np.all(err <= bound), (gp, rp, bound)


def check_sum(a, axis, dtype=None, keepdims=False, d=None):
    """Compare d.sum and devarray.sum with numpy.sum on `a`."""
    d = devarray.to_device(a) if d is None else d
    kwargs = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
    expected, exc = np_or_exception(lambda: np.sum(a, **kwargs))
    for call in (lambda: d.sum(**kwargs), lambda: devarray.sum(d, **kwargs)):
        if exc is not None:
            with pytest.raises(exc):
                call()
            continue
        got = call()
        expected = np.asarray(expected)
        assert isinstance(got, devarray.DeviceArray)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        if expected.dtype.kind in "biu":
            assert_values(got, expected)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ComplexWarning
                cast = a.astype(expected.dtype) if dtype is not None else a
            assert_float_sum(host(got), cast, axis, expected.dtype)
    return exc


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_sum_axes(backend, rng, dt, shape, axis):
    a = random_array(rng, shape, dt)
    for keepdims in (False, True):
        check_sum(a, axis, keepdims=keepdims)


@pytest.mark.parametrize("dt", DTYPES)
def test_full_sum_is_zero_d_array(backend, rng, dt):
    a = random_array(rng, (6, 3), dt)
    d = devarray.to_device(a)
    for r in (d.sum(), devarray.sum(d), d.sum(axis=(0, 1))):
        assert isinstance(r, devarray.DeviceArray)
        assert r.shape == () and r.ndim == 0 and r.size == 1
        assert r.dtype == np.sum(a).dtype
    r = d.sum(keepdims=True)
    assert r.shape == (1, 1)


@pytest.mark.parametrize("dt, expected", [
    ("bool", "int64"), ("int8", "int64"), ("int16", "int64"),
    ("int32", "int64"), ("int64", "int64"), ("uint8", "uint64"),
    ("uint16", "uint64"), ("uint32", "uint64"), ("uint64", "uint64"),
    ("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
    ("complex64", "complex64"), ("complex128", "complex128"),
])
def test_sum_result_dtype(backend, rng, dt, expected):
    assert np.sum(np.zeros(2, dt)).dtype == expected  # the oracle agrees
    d = devarray.to_device(random_array(rng, (4,), dt))
    assert d.sum().dtype == expected
    assert d.sum(axis=0).dtype == expected


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", [((0,), None), ((3, 0, 4), 1),
                                         ((3, 0, 4), (0, 1)), ((0, 5), 0)])
def test_empty_sum_is_zero(backend, dt, shape, axis):
    d = devarray.zeros(shape, dtype=dt)
    expected = np.sum(np.zeros(shape, dt), axis=axis)
    r = d.sum(axis=axis)
    assert_values(r, np.asarray(expected))
    # the result is written, not left uninitialised
    e = devarray.empty(shape, dtype=dt)
    assert_values(e.sum(axis=axis), np.asarray(expected))


def test_empty_axis_reduction_shapes(backend):
    d = devarray.ones((3, 0, 4), dtype="float32")
    assert d.sum(axis=0).shape == (0, 4)
    assert d.sum(axis=(0, 2)).shape == (0,)
    assert d.sum(axis=1, keepdims=True).shape == (3, 1, 4)


@pytest.mark.parametrize("shape, axis", [((37,), None), ((6, 7), 0),
                                         ((6, 7), 1), ((3, 4, 5), (0, 2))])
@pytest.mark.parametrize("override", DTYPES)
@pytest.mark.parametrize("dt", DTYPES)
def test_sum_dtype_override(backend, rng, dt, override, shape, axis):
    """dtype= casts the input to that dtype (as NumPy's reduce does, even
    complex -> real and float -> int) and sums in it.  Small values keep
    float16 sums finite and float -> int casts defined."""
    a = random_array(rng, shape, dt)
    if np.dtype(dt).kind in "iu":
        a = (a % 20).astype(dt)
    elif np.dtype(dt).kind in "fc":
        a = (a / 10).astype(dt)
    check_sum(a, axis, dtype=override)


@pytest.mark.parametrize("dt, override, values, expected", [
    ("int8", "int8", [100, 100, 100], (300 + 128) % 256 - 128),
    ("int32", "int8", [200, 100], (300 + 128) % 256 - 128),
    ("int64", None, [2**62] * 4 + [7], 7),
    ("int64", None, [2**63 - 1, 2**63 - 1, 2], 0),
    ("uint64", None, [2**63, 2**63, 5], 5),
    ("uint8", None, [255] * 1000, 255000),
    ("uint32", "uint32", [2**32 - 1, 2], 1),
    ("int16", None, [-2**15] * 3, -3 * 2**15),
    ("bool", None, [True] * 300, 300),
])
def test_integer_wraparound(backend, dt, override, values, expected):
    a = np.array(values, dtype=dt)
    r = devarray.to_device(a).sum(dtype=override)
    assert r.dtype == np.sum(a, dtype=override).dtype
    assert int(r) == expected == int(np.sum(a, dtype=override))


@pytest.mark.parametrize("dt", ["int64", "uint64", "int32"])
def test_integer_sum_full_range_exact(backend, rng, dt):
    a = random_array(rng, (50, 41), dt)
    for axis in (None, 0, 1):
        assert_values(devarray.to_device(a).sum(axis=axis),
                      np.asarray(np.sum(a, axis=axis)))


VIEWS = {
    "T": lambda x: x.T,
    "step2": lambda x: x[::2],
    "rev": lambda x: x[::-1, ::-1],
    "cols": lambda x: x[:, 1::3],
    "swap3": lambda x: x.transpose(2, 0, 1),
    "slice3": lambda x: x[1:, ::-2, 1:4],
}
VIEW_BASES = {"T": (9, 6), "step2": (20, 5), "rev": (7, 8), "cols": (5, 10),
              "swap3": (4, 5, 6), "slice3": (3, 7, 6)}


@pytest.mark.parametrize("dt", ["int16", "uint32", "float32", "float64",
                                "complex64", "bool", "float16"])
@pytest.mark.parametrize("view", VIEWS)
def test_sum_non_contiguous(backend, rng, view, dt):
    base = random_array(rng, VIEW_BASES[view], dt)
    a = VIEWS[view](base)
    d = VIEWS[view](devarray.to_device(base))
    assert d.shape == a.shape
    for axis in axis_cases(a.ndim):
        check_sum(a, axis, d=d)
        check_sum(a, axis, keepdims=True, d=d)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64",
                                "complex64", "complex128"])
def test_sum_non_finite(backend, rng, dt):
    a = random_array(rng, (8, 12), dt)
    a[1, 3] = np.nan
    a[2, 0] = np.inf
    a[3, 5], a[3, 6] = np.inf, -np.inf
    a[4, 11] = -np.inf
    d = devarray.to_device(a)
    for axis in (None, 0, 1):
        with np.errstate(all="ignore"):
            expected = np.asarray(np.sum(a, axis=axis))
        got = host(d.sum(axis=axis))
        parts = ((got.real, expected.real), (got.imag, expected.imag)) \
            if expected.dtype.kind == "c" else ((got, expected),)
        assert not np.isfinite(parts[0][1]).all()  # the test has teeth
        for g, e in parts:
            bad = ~np.isfinite(e)
            assert np.all((np.isnan(g) & np.isnan(e)) | (g == e) | ~bad)
            assert np.all(np.isfinite(g[~bad]))


@pytest.mark.parametrize("axis, fragment", [
    (2, "2"), (-3, "-3"), ((0, 5), "5"), (7, "7"),
])
def test_bad_axis(backend, rng, axis, fragment):
    d = devarray.to_device(random_array(rng, (3, 4), "float32"))
    for call in (lambda: d.sum(axis=axis), lambda: devarray.sum(d, axis=axis)):
        with pytest.raises((ValueError, IndexError)) as info:
            call()
        assert fragment in str(info.value)


@pytest.mark.parametrize("axis", [0, -1, 1, (0,), ()])
def test_axis_on_zero_d(backend, axis):
    """NumPy accepts axis 0 / -1 on a 0-d array (as no reduction), but not
    axis 1."""
    check_sum(np.array(2.5), axis)
    check_sum(np.array(2.5), axis, keepdims=True)


@pytest.mark.parametrize("axis", [(0, 0), (1, -1), (0, 1, 0)])
def test_duplicate_axes(backend, rng, axis):
    d = devarray.to_device(random_array(rng, (3, 4), "float64"))
    with pytest.raises(ValueError):
        d.sum(axis=axis)


@pytest.mark.parametrize("axis", [1.5, "0", (0, 1.0)])
def test_axis_type(backend, rng, axis):
    a = random_array(rng, (3, 4), "float64")
    _, exc = np_or_exception(lambda: np.sum(a, axis=axis))
    d = devarray.to_device(a)
    if exc is None:  # NumPy accepts lists? then so may we, same result
        assert_float_sum(host(d.sum(axis=axis)), a, tuple(axis), "float64")
        return
    with pytest.raises(exc):
        d.sum(axis=axis)


def test_sum_bad_dtype(backend, rng):
    d = devarray.to_device(random_array(rng, (3,), "float32"))
    with pytest.raises(TypeError):
        d.sum(dtype="not-a-dtype")
    with pytest.raises(TypeError):
        d.sum(dtype=object)


def test_sum_keywords_positional(backend, rng):
    a = random_array(rng, (4, 5), "int32")
    d = devarray.to_device(a)
    assert_values(d.sum(1), np.asarray(a.sum(1)))
    assert_values(devarray.sum(d, 0), np.asarray(a.sum(0)))
    assert_values(d.sum(axis=1, dtype="int16", keepdims=True),
                  np.asarray(a.sum(axis=1, dtype=np.int16, keepdims=True)))


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_float_sum_bits_follow_the_values(backend, rng, dt):
    """A float sum's or product's bits depend on the values and their count,
    not on where they lie: a view one element into its base, unaligned for
    vector loads, gives its aligned copy's bits."""
    a = random_array(rng, (3 * 2**20 + 6,), dt)
    base = devarray.to_device(a)
    view, copy = base[1:], devarray.to_device(a[1:])
    assert view.sum().to_host().tobytes() == copy.sum().to_host().tobytes()
    near_one = devarray.to_device((1 + rng.integers(-1, 2, a.size) * 2.0**-10).astype(dt))
    assert (near_one[1:].prod().to_host().tobytes()
            == devarray.to_device(near_one[1:].to_host()).prod().to_host().tobytes())


def test_sum_large_float32(gpu, rng):
    n = 2**26
    a = rng.random(n, dtype=np.float32)
    d = devarray.to_device(a)
    ref = math.fsum(a.astype(np.float64))
    r = d.sum()
    assert r.dtype == "float32" and r.shape == ()
    assert abs(float(r) - ref) <= 1e-5 * ref
    m = a.reshape(2**13, 2**13)
    dm = d.reshape(2**13, 2**13)
    for axis in (0, 1):
        got = host(dm.sum(axis=axis)).astype(np.float64)
        exact = np.sum(m.astype(np.float64), axis=axis)
        assert np.all(np.abs(got - exact) <= 1e-5 * exact)
