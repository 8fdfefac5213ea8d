"""Reliability of cumulative_sum, cumulative_prod, diff, argmax, argmin
(functions and methods) and searchsorted: wrong types, bad axes, bad
sides, bad sorters, empty inputs where NumPy raises, mismatched shapes;
each raises a clear Python exception (type and a word of the message
checked), leaves its arguments as they were and devarray working; errors
raised by the arguments themselves come through unchanged."""

import numpy as np
import pytest

import devarray
from _helpers import Evil, EvilBool, EvilIndex, assert_values, random_array


def cases(d, e):
    """(callable, exception, word of the message) for a 2-d float d and a
    0-d e; every one must fail."""
    one = devarray.asarray(np.array([1.0, 2.0, 3.0]))
    return [
        (lambda: devarray.cumulative_sum(d), ValueError, "axis"),
        (lambda: devarray.cumulative_prod(d), ValueError, "axis"),
        (lambda: devarray.cumulative_sum(d, axis=2), IndexError, "out of bounds"),
        (lambda: devarray.cumulative_sum(d, axis=-3), ValueError, "out of bounds"),
        (lambda: devarray.cumulative_sum(d, axis=1.0), TypeError, "integer"),
        (lambda: devarray.cumulative_sum(d, axis=(0,)), TypeError, "integer"),
        (lambda: devarray.cumulative_sum(d, axis=EvilIndex()), Evil, "__index__"),
        (lambda: devarray.cumulative_sum(d, axis=0, dtype="nope"), TypeError, "nope"),
        (lambda: devarray.cumulative_sum(d, axis=0, include_initial=EvilBool()),
         Evil, "__bool__"),
        (lambda: devarray.cumulative_sum(np.ones(3)), TypeError, "DeviceArray"),
        (lambda: devarray.cumulative_sum(d, 0), TypeError, "positional"),
        (lambda: devarray.cumulative_prod(d, axis=0, bogus=1), TypeError, "bogus"),
        (lambda: devarray.diff(e), ValueError, "dimension"),
        (lambda: devarray.diff(d, n=-1), ValueError, "non-negative"),
        (lambda: devarray.diff(d, n=1.5), TypeError, "integer"),
        (lambda: devarray.diff(d, axis=5), IndexError, "out of bounds"),
        (lambda: devarray.diff(d, prepend=one), ValueError, "shape"),
        (lambda: devarray.diff(d, axis=0, append=one), ValueError, "shape"),
        (lambda: devarray.diff(d, prepend=[1.0]), TypeError, "DeviceArray"),
        (lambda: devarray.diff([1, 2, 3]), TypeError, "DeviceArray"),
        (lambda: devarray.argmax(d, axis=2), IndexError, "out of bounds"),
        (lambda: devarray.argmin(d, axis=(0, 1)), TypeError, "integer"),
        (lambda: devarray.argmax(d, axis=EvilIndex()), Evil, "__index__"),
        (lambda: devarray.argmax(d, keepdims=EvilBool()), Evil, "__bool__"),
        (lambda: devarray.argmax(np.ones(3)), TypeError, "DeviceArray"),
        (lambda: devarray.argmax(d, 0), TypeError, "positional"),
        (lambda: d.argmax(axis=-3), ValueError, "out of bounds"),
        (lambda: d.argmin(axis="0"), TypeError, "integer"),
        (lambda: devarray.argmax(devarray.asarray(np.zeros((0, 3)))), ValueError, "empty"),
        (lambda: devarray.argmin(devarray.asarray(np.zeros((0, 3))), axis=0),
         ValueError, "empty"),
        (lambda: devarray.asarray(np.zeros((2, 0))).argmax(axis=1), ValueError, "empty"),
        (lambda: devarray.searchsorted(d, one), ValueError, "one-dimensional"),
        (lambda: devarray.searchsorted(e, one), ValueError, "one-dimensional"),
        (lambda: devarray.searchsorted(one, one, side="middle"), ValueError, "side"),
        (lambda: devarray.searchsorted(one, one, side=None), ValueError, "side"),
        (lambda: devarray.searchsorted(one, [1.0]), TypeError, "DeviceArray"),
        (lambda: devarray.searchsorted(one, one, sorter=one), TypeError, "integer"),
        (lambda: devarray.searchsorted(one, one, sorter=[0, 1, 2]), TypeError, "integer"),
        (lambda: devarray.searchsorted(one, one, sorter=devarray.asarray(np.arange(2))),
         ValueError, "length"),
        (lambda: devarray.searchsorted(one, one, sorter=devarray.asarray(np.array([0, 1, 7]))),
         ValueError, "out of range"),
        (lambda: devarray.searchsorted(one, one, sorter=devarray.asarray(np.array([0, -1, 2]))),
         ValueError, "out of range"),
        (lambda: devarray.searchsorted(one, one, "left"), TypeError, "positional"),
    ]


def test_bad_inputs_raise_and_leave_arguments(backend, rng):
    a = random_array(rng, (4, 5), "float64", special=True)
    d = devarray.asarray(a)
    e = devarray.asarray(np.float64(2.0))
    for i, (call, exc, word) in enumerate(cases(d, e)):
        with pytest.raises(exc) as info:
            call()
        assert word in str(info.value), (i, str(info.value))
        assert_values(d, a)
    # still working afterwards
    assert_values(devarray.cumulative_sum(d, axis=1), np.cumulative_sum(a, axis=1))
    assert int(devarray.argmax(devarray.asarray(np.arange(5)))) == 4


def test_inputs_untouched(backend, rng):
    """The scans may run in place only on their own copies: an input whose
    axis-last layout is contiguous (a transposed view) stays as it was."""
    a = random_array(rng, (6, 9, 4), "float32")
    d = devarray.asarray(a)
    v = devarray.permute_dims(d, (2, 0, 1))
    for fn in (devarray.cumulative_sum, devarray.cumulative_prod):
        for axis in range(3):
            fn(v, axis=axis)
            fn(v, axis=axis, include_initial=True)
    devarray.diff(v, axis=0, n=2)
    devarray.searchsorted(devarray.asarray(np.sort(a.reshape(-1))), d)
    assert_values(d, a)


def test_sorter_out_of_range_not_read_is_fine(backend):
    """NumPy checks only the sorter entries the search reads; so do we."""
    x1 = np.array([1.0, 2.0, 3.0, 4.0])
    sorter = np.array([0, 1, 2, 3])
    got = devarray.searchsorted(devarray.asarray(x1), devarray.asarray(np.array([2.5])),
                                sorter=devarray.asarray(sorter))
    assert_values(got, np.searchsorted(x1, [2.5], sorter=sorter).astype(np.int64))


def test_cross_backend_refused(backend):
    other = "host" if backend == "cuda" else "cuda"
    x = devarray.asarray(np.array([1.0, 2.0]))
    try:
        devarray.set_backend(other)
    except RuntimeError:
        pytest.skip("only one backend here")
    try:
        y = devarray.asarray(np.array([1.0]))
    finally:
        devarray.set_backend(backend)
    with pytest.raises(ValueError):
        devarray.searchsorted(x, y)
    with pytest.raises(ValueError):
        devarray.diff(x, prepend=y)
