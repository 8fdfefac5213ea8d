"""Differential tests of mean, var, std and count_nonzero (and their
methods) against NumPy 2: dtypes, shapes (empty, 0-d, views), axes,
keepdims, correction.

Tolerances:
  - count_nonzero: exact (int64 counts);
  - host backend, C-contiguous input, adjacent reduced axes: exact, since
    the host sums in NumPy's order and divides as NumPy does (complex64
    through complex128), except float16 (accumulated in float32 and
    rounded once, where NumPy's half loops may round every step);
  - otherwise (CUDA's tree order, copies of views): mean within
    (n + 4) * eps * max|x| (the summation error bound, divided by n, is
    far below it), var and std relative (n + 8) * 4 * eps (var is a sum
    of positive terms; the error of the mean enters squared).
"""

import warnings

import numpy as np
import pytest

import devarray
from _helpers import (
    DTYPES, assert_values, eps, host, np_or_exception, random_array,
)

STAT_DTYPES = ["float16", "float32", "float64", "complex64", "complex128",
               "int32", "uint8", "int64", "bool"]
SHAPES = [(), (0,), (1,), (300,), (5, 7), (3, 0, 4), (4, 5, 6)]


def axis_cases(ndim):
    cases = [None]
    for i in range(ndim):
        cases += [i, i - ndim]
    if ndim >= 2:
        cases += [(0, -1), tuple(range(ndim - 1))]
    if ndim >= 3:
        cases += [(1, 2), (0, 2)]
    return cases


CASES = [(s, ax) for s in SHAPES for ax in axis_cases(len(s))]


def adjacent(axis, shape):
    ndim = len(shape)
    axes = tuple(range(ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else axis)
    axes = sorted(a % ndim for a in axes if shape[a % ndim] != 1) if ndim else []
    if not axes:
        return True
    return all(a in axes or shape[a] == 1 for a in range(axes[0], axes[-1] + 1))


def check_stat(fn, a, d, axis, keepdims, backend, **kwargs):
    expected, exc = np_or_exception(
        lambda: getattr(np, fn)(a, axis=axis, keepdims=keepdims,
                                **({"ddof": kwargs["correction"]}
                                   if "correction" in kwargs else {})))
    calls = [lambda: getattr(devarray, fn)(d, axis=axis, keepdims=keepdims, **kwargs)]
    if fn != "count_nonzero":
        calls.append(lambda: getattr(d, fn)(axis=axis, keepdims=keepdims, **kwargs))
    for call in calls:
        if exc is not None:
            with pytest.raises(exc):
                call()
            continue
        got = call()
        assert isinstance(got, devarray.DeviceArray)
        expected = np.asarray(expected)
        if fn == "count_nonzero" or (backend == "host" and a.flags.c_contiguous
                                     and a.dtype != np.float16
                                     and adjacent(axis, a.shape)):
            assert_values(got, expected)
            continue
        n = max(1, a.size // max(1, expected.size))
        g = host(got)
        assert g.dtype == expected.dtype and g.shape == expected.shape
        e = expected.astype(np.complex128)
        with np.errstate(all="ignore"):
            err = np.abs(g.astype(np.complex128) - e)
        finite = np.isfinite(e)
        assert np.array_equal(np.isnan(g), np.isnan(expected))
        if fn == "mean":
            scale = float(np.max(np.abs(a))) if a.size else 0.0
            tol = (n + 4) * eps(expected.dtype) * scale
        else:
            tol = (n + 8) * 4 * eps(expected.dtype) * np.abs(e)
        assert np.all(~finite | (err <= tol)), (g, expected)


@pytest.mark.parametrize("dt", STAT_DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_mean(backend, rng, dt, shape, axis):
    a = random_array(rng, shape, dt)
    if np.dtype(dt).kind in "iu":
        a = (a.astype(np.int64) % 100).astype(dt)  # keep float64 sums exact
    d = devarray.to_device(a)
    for keepdims in (False, True):
        check_stat("mean", a, d, axis, keepdims, backend)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("dt", STAT_DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_var_std(backend, rng, fn, dt, shape, axis):
    a = random_array(rng, shape, dt)
    if np.dtype(dt).kind in "iu":
        a = (a.astype(np.int64) % 100).astype(dt)
    d = devarray.to_device(a)
    check_stat(fn, a, d, axis, False, backend)
    check_stat(fn, a, d, axis, True, backend, correction=1)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2.5, 6, 7, 100])
def test_correction(backend, rng, fn, correction):
    """N - correction <= 0 divides by 0, giving inf or NaN, as NumPy's ddof."""
    a = random_array(rng, (6, 4), "float64")
    d = devarray.to_device(a)
    for axis in (None, 0, 1):
        check_stat(fn, a, d, axis, False, backend, correction=correction)


def test_var_of_constant_is_zero(backend):
    d = devarray.full((5, 3), 2.5, dtype="float32")
    assert_values(devarray.var(d, axis=0), np.zeros(3, np.float32))
    assert_values(d.std(), np.asarray(np.float32(0)))


def test_var_complex_is_real(backend, rng):
    a = random_array(rng, (7, 5), "complex64")
    d = devarray.to_device(a)
    assert devarray.var(d).dtype == "float32"
    assert devarray.std(d, axis=1).dtype == "float32"
    assert devarray.mean(d).dtype == "complex64"


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", CASES, ids=str)
def test_count_nonzero(backend, rng, dt, shape, axis):
    a = random_array(rng, shape, dt, special=True)
    d = devarray.to_device(a)
    for keepdims in (False, True):
        check_stat("count_nonzero", a, d, axis, keepdims, backend)


def test_count_nonzero_special(backend):
    a = np.array([0.0, -0.0, np.nan, 1e-300, np.inf], dtype=np.float64)
    assert int(devarray.count_nonzero(devarray.to_device(a))) == 3
    c = np.array([0j, 1j, complex(0, -0.0), complex(np.nan, 0)], dtype=np.complex64)
    assert int(devarray.count_nonzero(devarray.to_device(c))) == 2
    r = devarray.count_nonzero(devarray.to_device(np.zeros((2, 3), np.int8)), axis=1)
    assert r.dtype == "int64"
    assert_values(r, np.array([0, 0], np.int64))


VIEWS = {
    "T": lambda x: x.T,
    "step2": lambda x: x[::2],
    "rev": lambda x: x[::-1, ::-1],
    "swap3": lambda x: x.transpose(2, 0, 1),
}
VIEW_BASES = {"T": (9, 6), "step2": (20, 5), "rev": (7, 8), "swap3": (4, 5, 6)}


@pytest.mark.parametrize("fn", ["mean", "var", "std", "count_nonzero"])
@pytest.mark.parametrize("dt", ["float32", "float64", "complex128", "int16"])
@pytest.mark.parametrize("view", VIEWS)
def test_views(backend, rng, fn, dt, view):
    base = random_array(rng, VIEW_BASES[view], dt)
    a = VIEWS[view](base)
    d = VIEWS[view](devarray.to_device(base))
    for axis in axis_cases(a.ndim):
        check_stat(fn, a, d, axis, False, backend)


def test_mean_float16_accumulates_in_float32(backend):
    """2048 + 1 + 1 + ... in float16 steps would stay at 2048; NumPy's mean
    accumulates float16 in float32."""
    a = np.array([2048.0] + [1.0] * 1000, dtype=np.float16)
    d = devarray.to_device(a)
    assert_values(d.mean(), np.asarray(np.mean(a)))
    assert float(d.mean()) == pytest.approx(3048.0 / 1001, rel=1e-3)


def test_methods_positional_axis(backend, rng):
    """Exact on the host (NumPy's order); on CUDA within 16 ulps (a tree
    of 4 to 6 terms, the mean's error entering var)."""
    a = random_array(rng, (4, 6), "float64")
    d = devarray.to_device(a)
    rtol = 0 if backend == "host" else 16 * eps(np.float64)
    assert_values(d.mean(1), np.asarray(a.mean(1)), rtol=rtol)
    assert_values(d.var(0, correction=1), np.asarray(a.var(0, ddof=1)), rtol=rtol)
    assert_values(d.std(1, keepdims=True), np.asarray(a.std(1, keepdims=True)), rtol=rtol)


# ---- var and std in one read on CUDA (kernels/moments.cu) --------------------
# The shapes and axes reach each of its routes (on the host backend they
# run the composition): (outer, len, inner) as reduce_source lays them out,
# the geometry of moments.cu's moments_plan on a device of 100+ SMs (an
# H100 or H200).
MOMENT_CASES = [
    ((1027, 333), 0),         # columns (inner 333), len split over blocks, combined
    ((20000, 32), 0),         # columns, 150+ splits of each output
    ((7, 5000), 1),           # segments of 5000, a block each
    ((7, 5001), -1),          # the same with an odd len
    ((50, 3, 40), 1),         # a middle axis: two outer indices per block
    ((1000, 6), 1),           # short segments: 32 per block
    ((10 ** 6,), None),       # the whole array: 1-D, split and combined
    ((20, 30, 40), (0, 2)),   # axes not adjacent: copied, reduced axes last
    ((6, 70, 80), (1, 2)),    # adjacent trailing axes, read in place
    ((3, 1), 1),              # one element per output
]
MOMENT_DTYPES = ["float16", "float32", "float64", "int32", "bool", "uint8", "int8",
                 "uint16", "int64", "uint64"]
# relative to the variance of the values as float64: float32 and float64
# results are far closer (the CUDA kernel merges exactly shifted moments,
# the host follows NumPy's two passes); float16 rounds the result, and on
# the host every mean, deviation and square, to 11 bits: its bound adds
# errors of 11-bit deviations of values of magnitude max|x| (check_moments)
MOMENT_RTOL = {"float16": 4 * eps(np.float16), "float32": 2e-5, "float64": 1e-12}


def moment_data(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind in "biu":
        return random_array(rng, shape, dt)
    if dt == np.float16:
        # NumPy's float16 var sums values and squares in float16: keep both
        # far below 65504 over 10^6 elements
        return (rng.standard_normal(shape) * 0.1).astype(dt)
    return (rng.standard_normal(shape) * 10 + 3).astype(dt)


def check_moments(fn, a, d, axis, correction=0, keepdims=False):
    """fn(d) against the variance (or its root) of a's values in float64, in
    NumPy's dtype and shape: NaN where it is NaN, inf where it is inf."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ddof >= N
        e = np.var(a.astype(np.float64), axis=axis, ddof=correction, keepdims=keepdims)
        if fn == "std":
            e = np.sqrt(e)
    e = np.asarray(e)
    rdt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    got = getattr(devarray, fn)(d, axis=axis, correction=correction, keepdims=keepdims)
    g = host(got)
    assert g.dtype == rdt and g.shape == e.shape, (g.dtype, g.shape, e.shape)
    g = g.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(e)), (g, e)
    assert np.array_equal(g[np.isinf(e)], e[np.isinf(e)])
    finite = np.isfinite(e)
    with np.errstate(all="ignore"):
        err = np.abs(g - e)
    bound = MOMENT_RTOL[rdt.name] * np.abs(e)
    if rdt == np.float16:
        big = float(np.max(np.abs(a))) if a.size else 0.0
        bound = bound + MOMENT_RTOL["float16"] * big * (1 if fn == "std" else np.sqrt(np.abs(e)))
    assert np.all(err[finite] <= bound[finite]), np.max(err[finite] / np.abs(e[finite]))


@pytest.mark.parametrize("dt", MOMENT_DTYPES)
@pytest.mark.parametrize("shape, axis", MOMENT_CASES, ids=str)
def test_moments_routes(backend, rng, dt, shape, axis):
    a = moment_data(rng, shape, dt)
    d = devarray.to_device(a)
    check_moments("var", a, d, axis)
    check_moments("std", a, d, axis, correction=1, keepdims=True)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2.5, 5000, 5001, 9999])
def test_moments_correction(backend, rng, fn, correction):
    """len - correction <= 0 divides by 0: inf (NaN for a zero sum), as
    NumPy's ddof."""
    a = moment_data(rng, (5000, 3), "float32")
    a[:, 2] = 7.0  # a zero sum of squares: 0 / 0
    d = devarray.to_device(a)
    for axis in (0, None):
        check_moments(fn, a, d, axis, correction=correction)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_moments_nan_inf(backend, rng, dt):
    a = moment_data(rng, (400, 6), dt)
    a[17, 0] = np.nan
    a[300, 1] = np.inf
    a[5, 2], a[6, 2] = np.inf, -np.inf
    a[0, 3] = -np.inf  # the first row too: the kernel's shift
    d = devarray.to_device(a)
    for axis in (0, None):
        check_moments("var", a, d, axis)
        check_moments("std", a, d, axis)
    check_moments("var", a.T.copy(), devarray.to_device(a.T.copy()), 1)


@pytest.mark.parametrize("axis", [0, 1, None])
def test_moments_large_mean(backend, rng, axis):
    """1e4 + noise of scale 1 in float32: the deviations are 1e-4 of the
    values, so a sum of squares minus the squared sum would have lost them
    all (its error ~ 1e8 * 2^-24 per element).  The kernel's shifted
    moments keep them within 2e-5 of the float64 variance; the host is
    NumPy's two passes, exactly (whose mean, summed in order along axis 0,
    leaves errors up to ~3e-4 there)."""
    a = (1e4 + rng.standard_normal((1000, 1000))).astype(np.float32)
    d = devarray.to_device(a)
    if backend == "host":
        assert_values(devarray.var(d, axis=axis), np.asarray(np.var(a, axis=axis)))
        return
    check_moments("var", a, d, axis)
    check_moments("std", a, d, axis, correction=1)


@pytest.mark.parametrize("dt", ["float32", "float64", "int16"])
def test_moments_views(backend, rng, dt):
    """Transposed and strided views: copied into the reduction's layout."""
    base = moment_data(rng, (1027, 333), dt)
    d = devarray.to_device(base)
    for axis in (0, 1, None):
        check_moments("var", base.T, d.T, axis)
    check_moments("std", base[::3, 1::2], d[::3, 1::2], 0, correction=1)


def test_moments_constant_is_zero(backend):
    """The kernel's merges keep a constant's variance exactly 0 (the host's
    mean of 10^5 copies of 0.1 may round, as NumPy's)."""
    for dt in ("float32", "float64"):
        d = devarray.full((100000,), 0.1, dtype=dt)
        v = float(devarray.var(d))
        if backend == "cuda":
            assert v == 0.0
        else:
            assert v <= (100 * eps(dt) * 0.1) ** 2
        assert_values(devarray.var(devarray.full((4, 3000), 7, dtype="int32"), axis=1),
                      np.zeros(4))
