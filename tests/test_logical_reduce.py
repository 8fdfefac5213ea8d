"""Differential tests of devarray.all / devarray.any against numpy.all /
numpy.any: every dtype, NaN and signed zeros, complex values with one
nonzero part, random axes and keepdims, empty and 0-d arrays, views, on both
backends; bad inputs at the end (TestReliability)."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, host, np_or_exception, random_array

FUNCS = {"all": (devarray.all, np.all), "any": (devarray.any, np.any)}
SHAPES = [(), (0,), (1,), (37,), (5, 7), (3, 0, 4), (4, 5, 6), (2, 3, 1, 4)]


def with_zeros(rng, shape, dtype, density):
    """random_array (with its NaN, inf and signed zeros) with about `density`
    of the elements set to zero, so that all() and any() both come out true
    and false over the segments."""
    a = random_array(rng, shape, dtype, special=True)
    if a.size:
        a[rng.random(shape) < density] = 0
    return a


def random_axis(rng, ndim):
    """None, an int or a tuple of distinct axes, some of them negative."""
    pick = rng.integers(0, 3)
    if pick == 0 or ndim == 0:
        return None if pick == 0 else int(rng.choice([0, -1]))
    axes = [int(x) for x in rng.permutation(ndim)[:rng.integers(0, ndim + 1)]]
    axes = [x - ndim if rng.random() < 0.5 else x for x in axes]
    if pick == 1 and axes:
        return axes[0]
    return tuple(axes)


def check(name, a, d=None, **kwargs):
    """devarray.<name>(d, **kwargs) against numpy.<name>(a, **kwargs):
    the same exception, or a bool DeviceArray with NumPy's shape and
    values."""
    da_fn, np_fn = FUNCS[name]
    d = devarray.to_device(a) if d is None else d
    expected, exc = np_or_exception(lambda: np_fn(a, **kwargs))
    if exc is not None:
        with pytest.raises(exc):
            da_fn(d, **kwargs)
        return None
    got = da_fn(d, **kwargs)
    assert isinstance(got, devarray.DeviceArray), type(got)
    assert_values(got, np.asarray(expected))
    return host(got)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", DTYPES)
def test_random_axes(backend, rng, name, dt):
    outcomes = set()
    for shape in SHAPES:
        for density in (0.0, 0.05, 0.5, 0.95, 1.0):
            a = with_zeros(rng, shape, dt, density)
            d = devarray.to_device(a)
            for _ in range(3):
                kwargs = {"axis": random_axis(rng, a.ndim),
                          "keepdims": bool(rng.integers(0, 2))}
                got = check(name, a, d, **kwargs)
                outcomes.update(np.unique(got).tolist())
            check(name, a, d)
            check(name, a, d, axis=None, keepdims=True)
    assert outcomes == {False, True}  # the data reaches both answers


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["float16", "float32", "float64",
                                "complex64", "complex128"])
def test_nan_and_signed_zero(backend, name, dt):
    """NaN is nonzero (true); -0.0 is zero (false)."""
    for values in ([np.nan] * 3, [-0.0] * 3, [0.0, -0.0, np.nan],
                   [np.inf, -np.inf, np.nan], [-0.0, 1.0, 0.0]):
        check(name, np.array(values, dtype=dt))
    assert bool(host(devarray.all(devarray.to_device(
        np.array([np.nan, np.nan], dtype=dt)))))
    assert not bool(host(devarray.any(devarray.to_device(
        np.array([-0.0, 0.0], dtype=dt)))))


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_one_part_nonzero(backend, name, dt):
    """A complex value is true when either part is nonzero, NaN included."""
    values = [0j, 1j, complex(1, 0), complex(-0.0, -0.0), complex(0, np.nan),
              complex(np.nan, 0), complex(0, -0.0), complex(-0.0, 2)]
    a = np.array(values, dtype=dt)
    check(name, a)
    for i in range(len(values)):
        check(name, a[i:i + 1])
        check(name, a[i:i + 1], axis=0, keepdims=True)
    b = a.reshape(2, 4)
    for axis in (0, 1, -1, (0, 1)):
        check(name, b, axis=axis)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape, axis", [
    ((0,), None), ((0,), 0), ((3, 0), 0), ((3, 0), 1), ((3, 0), (0, 1)),
    ((0, 4, 2), (0, 2)), ((0, 4, 2), 1), ((2, 0, 3), -1), ((2, 0, 3), ()),
])
def test_empty(backend, name, dt, shape, axis):
    """Over no elements all() is True and any() is False."""
    a = np.zeros(shape, dtype=dt)
    for keepdims in (False, True):
        check(name, a, axis=axis, keepdims=keepdims)
    got = FUNCS[name][0](devarray.to_device(a), axis=None)
    assert bool(host(got)) == (name == "all")


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", DTYPES)
def test_zero_d(backend, rng, name, dt):
    for value in (0, 1):
        a = np.array(value, dtype=dt)
        for kwargs in ({}, {"axis": None}, {"axis": 0}, {"axis": -1},
                       {"axis": ()}, {"keepdims": True}):
            check(name, a, **kwargs)
    a = with_zeros(rng, (), dt, 0.0)
    check(name, a)
    got = FUNCS[name][0](devarray.to_device(a))
    assert got.shape == () and got.dtype == devarray.bool


VIEWS = {
    "transpose": lambda x: x.T,
    "step": lambda x: x[::2, 1::3],
    "row-slice": lambda x: x[1:4],
    "reversed": lambda x: x[::-1, ::-2],
}


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", ["bool", "int16", "uint64", "float16",
                                "float32", "complex128"])
@pytest.mark.parametrize("view", VIEWS)
def test_views(backend, rng, name, dt, view):
    base = with_zeros(rng, (6, 9), dt, 0.3)
    a = VIEWS[view](base)
    d = VIEWS[view](devarray.to_device(base))
    assert d.shape == a.shape
    for axis in (None, 0, 1, -1, (1, 0), ()):
        for keepdims in (False, True):
            check(name, a, d, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dt", ["bool", "int8", "float32", "complex64"])
def test_one_element_decides(backend, rng, dt):
    """Long segments (the device's block-wide reductions): a single zero
    makes all() false and a single nonzero makes any() true, wherever it
    is."""
    n = 200_003
    ones = np.ones(n, dtype=dt)
    zeros = np.zeros(n, dtype=dt)
    for pos in (0, int(rng.integers(1, n - 1)), n - 1):
        a, b = ones.copy(), zeros.copy()
        a[pos] = 0
        b[pos] = 1
        assert not bool(host(devarray.all(devarray.to_device(a))))
        assert bool(host(devarray.any(devarray.to_device(b))))
        rows_a, rows_b = a[:-3].reshape(8, -1), b[:-3].reshape(8, -1)
        for name, rows in (("all", rows_a), ("any", rows_b)):
            for axis in (0, 1, None):
                check(name, rows, axis=axis)
    assert bool(host(devarray.all(devarray.to_device(ones))))
    assert not bool(host(devarray.any(devarray.to_device(zeros))))


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16", "int32",
                                "uint32", "int64", "uint64"])
def test_any_integers_by_byte(backend, rng, dt):
    """any() tests integers by all their bits (src/core/reduce.c,
    reduce_nonzero): a value whose only nonzero byte is any one of its bytes
    (the sign byte included) counts, as does every byte value, in place
    (the last axes) and after the cast to bool that other layouts (a
    strided view) take."""
    size = np.dtype(dt).itemsize
    for _ in range(4):
        rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 40))
        raw = np.zeros((rows, cols * size), dtype=np.uint8)
        hits = rng.integers(0, raw.size, size=int(rng.integers(0, 4)))
        raw.reshape(-1)[hits] = rng.integers(1, 256, size=hits.size)
        a = raw.view(dt)
        d = devarray.to_device(a)
        for axis in (None, -1, (0, 1), 0):
            for keepdims in (False, True):
                check("any", a, d, axis=axis, keepdims=keepdims)
        check("any", a[:, ::2], axis=-1)
        check("any", a[1:], axis=1)
    for byte in range(size):
        for value in (1, 0x80, 0xFF):
            raw = np.zeros(3 * size, dtype=np.uint8)
            raw[size + byte] = value
            a = raw.view(dt)
            assert bool(host(devarray.any(devarray.to_device(a)))), (byte, value)
            assert_values(devarray.any(devarray.to_device(a.reshape(3, 1)), axis=1),
                          np.array([False, True, False]))


@pytest.mark.parametrize("name", FUNCS)
def test_input_untouched(backend, rng, name):
    a = with_zeros(rng, (4, 5), "float32", 0.3)
    d = devarray.to_device(a)
    FUNCS[name][0](d, axis=1)
    assert_values(d, a)


def test_namespace():
    for name in FUNCS:
        assert name in devarray.__all__
        fn = getattr(devarray, name)
        assert fn.__text_signature__ == \
            "($module, x, /, *, axis=None, keepdims=False)"


class TestReliability:
    """Bad inputs: a clear Python exception (NumPy's type where NumPy has
    one), the input untouched."""

    @pytest.mark.parametrize("name", FUNCS)
    @pytest.mark.parametrize("axis", [2, -3, (0, 2), (-3,), 7, (0, 0),
                                      (1, -1), (0, 1, 0), 1.5, "0",
                                      (0, 1.0), (None,)])
    def test_bad_axis(self, backend, rng, name, axis):
        a = with_zeros(rng, (3, 4), "float64", 0.3)
        d = devarray.to_device(a)
        _, exc = np_or_exception(lambda: FUNCS[name][1](a, axis=axis))
        assert exc is not None
        with pytest.raises(exc):
            FUNCS[name][0](d, axis=axis)
        assert_values(d, a)

    @pytest.mark.parametrize("name", FUNCS)
    @pytest.mark.parametrize("axis", [2, -3, 7])
    def test_axis_error_type(self, backend, rng, name, axis):
        d = devarray.to_device(random_array(rng, (3, 4), "int32"))
        with pytest.raises(devarray.AxisError, match=str(axis)):
            FUNCS[name][0](d, axis=axis)

    @pytest.mark.parametrize("name", FUNCS)
    @pytest.mark.parametrize("axis", [1, -2, (0,), (0, 0)])
    def test_bad_axis_zero_d(self, backend, name, axis):
        a = np.array(1.5)
        _, exc = np_or_exception(lambda: FUNCS[name][1](a, axis=axis))
        assert exc is not None
        with pytest.raises(exc):
            FUNCS[name][0](devarray.to_device(a), axis=axis)

    @pytest.mark.parametrize("name", FUNCS)
    @pytest.mark.parametrize("x", [None, 1, 2.5, True, [1, 0], (0,),
                                   np.ones(3), "abc", object()],
                             ids=lambda x: type(x).__name__)
    def test_not_an_array(self, name, x):
        with pytest.raises(TypeError, match="DeviceArray"):
            FUNCS[name][0](x)

    @pytest.mark.parametrize("name", FUNCS)
    def test_bad_call(self, backend, name):
        fn = FUNCS[name][0]
        d = devarray.to_device(np.ones((2, 3)))
        with pytest.raises(TypeError):
            fn()
        with pytest.raises(TypeError):
            fn(d, 0)  # axis is keyword-only
        with pytest.raises(TypeError):
            fn(d, None, False)
        with pytest.raises(TypeError):
            fn(x=d)  # x is positional-only
        with pytest.raises(TypeError):
            fn(d, dtype="bool")
        with pytest.raises(TypeError):
            fn(d, out=d)
        assert_values(d, np.ones((2, 3)))
