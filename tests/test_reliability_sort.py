"""Reliability of sort, argsort, unique_* and isin: wrong types, bad axes,
unsupported dtypes (sort of complex) and bad keywords each raise a clear
Python exception (devarray.AxisError for an axis out of range or a 0-d
input, as NumPy; TypeError for complex, for what is not a DeviceArray, for
an axis that is not an int, None included, since the standard's axis is an
int; an exception of __bool__ passes through; for isin, operands that
are neither DeviceArrays nor Python scalars, two scalars, and an invert
that is not a bool), leave every argument as it was, and devarray keeps
working after them.  isin has no dtype pair to refuse: NumPy 2 promotes
every pair of devarray's dtypes."""

import numpy as np
import pytest

import devarray
from _helpers import Evil, EvilBool, EvilIndex, assert_values, random_array, snapshot


def _cases(d2, d0, c64, c128):
    """(name, function, args, kwargs, expected exception)."""
    AxisError = devarray.AxisError
    cases = []
    for fn in (devarray.sort, devarray.argsort):
        name = fn.__name__
        cases += [
            (name + "-list", fn, ([3, 1, 2],), {}, TypeError),
            (name + "-ndarray", fn, (np.arange(3),), {}, TypeError),
            (name + "-scalar", fn, (1.5,), {}, TypeError),
            (name + "-complex64", fn, (c64,), {}, TypeError),
            (name + "-complex128", fn, (c128,), {"axis": 0}, TypeError),
            (name + "-0d", fn, (d0,), {}, AxisError),
            (name + "-0d-axis0", fn, (d0,), {"axis": 0}, AxisError),
            (name + "-axis-high", fn, (d2,), {"axis": 2}, AxisError),
            (name + "-axis-low", fn, (d2,), {"axis": -3}, AxisError),
            (name + "-axis-huge", fn, (d2,), {"axis": 2**70}, (OverflowError, AxisError)),
            (name + "-axis-float", fn, (d2,), {"axis": 1.0}, TypeError),
            (name + "-axis-bool", fn, (d2,), {"axis": True}, TypeError),
            (name + "-axis-none", fn, (d2,), {"axis": None}, TypeError),
            (name + "-axis-evil", fn, (d2,), {"axis": EvilIndex()}, Evil),
            (name + "-axis-positional", fn, (d2, 0), {}, TypeError),
            (name + "-descending-evil", fn, (d2,), {"descending": EvilBool()}, Evil),
            (name + "-stable-evil", fn, (d2,), {"stable": EvilBool()}, Evil),
            (name + "-unknown-kw", fn, (d2,), {"kind": "stable"}, TypeError),
            (name + "-no-args", fn, (), {}, TypeError),
        ]
    for fn in (devarray.unique_all, devarray.unique_counts, devarray.unique_inverse,
               devarray.unique_values):
        name = fn.__name__
        cases += [
            (name + "-list", fn, ([1, 1, 2],), {}, TypeError),
            (name + "-ndarray", fn, (np.arange(3),), {}, TypeError),
            (name + "-none", fn, (None,), {}, TypeError),
            (name + "-two-args", fn, (d2, d2), {}, TypeError),
            (name + "-kw", fn, (d2,), {"axis": 0}, TypeError),
            (name + "-no-args", fn, (), {}, TypeError),
        ]
    isin = devarray.isin
    cases += [
        ("isin-list", isin, ([1, 2], d2), {}, TypeError),
        ("isin-ndarray", isin, (d2, np.arange(3)), {}, TypeError),
        ("isin-numpy-int", isin, (d2, np.int32(1)), {}, TypeError),
        ("isin-none", isin, (None, d2), {}, TypeError),
        ("isin-str", isin, (d2, "1"), {}, TypeError),
        ("isin-two-scalars", isin, (1, 2), {}, TypeError),
        ("isin-invert-int", isin, (d2, c64), {"invert": 1}, TypeError),
        ("isin-invert-none", isin, (d2, d0), {"invert": None}, TypeError),
        ("isin-invert-evil", isin, (d2, d0), {"invert": EvilBool()}, TypeError),
        ("isin-invert-positional", isin, (d2, d0, True), {}, TypeError),
        ("isin-unknown-kw", isin, (d2, d0), {"assume_unique": True}, TypeError),
        ("isin-one-arg", isin, (d2,), {}, TypeError),
        ("isin-no-args", isin, (), {}, TypeError),
    ]
    return cases


def _arrays(rng):
    d2 = devarray.to_device(random_array(rng, (3, 4), "float32", special=True))
    d0 = devarray.to_device(np.array(2.5))
    c64 = devarray.to_device(random_array(rng, (5,), "complex64"))
    c128 = devarray.to_device(random_array(rng, (5,), "complex128"))
    return d2, d0, c64, c128


def test_bad_arguments_raise_and_touch_nothing(backend, rng):
    arrays = _arrays(rng)
    for name, fn, args, kwargs, exc in _cases(*arrays):
        before = [snapshot(a) for a in list(args) + list(arrays)]
        with pytest.raises(exc):
            fn(*args, **kwargs)
        after = [snapshot(a) for a in list(args) + list(arrays)]
        assert before == after, name
    # still working afterwards
    x = random_array(rng, (50,), "int32")
    assert_values(devarray.sort(devarray.to_device(x)), np.sort(x))


def test_messages_name_the_function(backend, rng):
    d2, _, c64, _ = _arrays(rng)
    with pytest.raises(TypeError, match="sort.*complex"):
        devarray.sort(c64)
    with pytest.raises(TypeError, match="argsort.*complex"):
        devarray.argsort(c64)
    with pytest.raises(TypeError, match="unique_counts"):
        devarray.unique_counts([1, 2])
    with pytest.raises(devarray.AxisError, match="out of bounds"):
        devarray.sort(d2, axis=5)
    with pytest.raises(TypeError, match="isin.*invert must be a bool"):
        devarray.isin(d2, d2, invert=0)
    with pytest.raises(TypeError, match="isin.*at least one"):
        devarray.isin(1, 2.5)
    with pytest.raises(TypeError, match="isin.*x2 must be a DeviceArray"):
        devarray.isin(d2, [1])


def test_complex_unique_is_supported(backend, rng):
    """unique_* take complex (the suite's all_dtypes), sort does not."""
    x = random_array(rng, (20,), "complex128")
    x[3] = x[7]
    out = devarray.unique_counts(devarray.to_device(x))
    values, counts = np.unique(x, return_counts=True)
    assert_values(out.values, values)
    assert_values(out.counts, counts.astype(np.int64))


def test_empty_inputs_do_not_raise(backend):
    """NumPy sorts and uniques empty arrays without complaint."""
    e = devarray.to_device(np.zeros((0, 3), np.float64))
    assert devarray.sort(e, axis=0).shape == (0, 3)
    assert devarray.argsort(e).shape == (0, 3)
    out = devarray.unique_all(e)
    assert out.values.shape == (0,) and out.inverse_indices.shape == (0, 3)
    assert out.counts.shape == (0,) and out.indices.shape == (0,)
