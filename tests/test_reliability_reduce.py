"""Reliability of the reductions and statistical functions (sum, prod,
max, min, mean, var, std, count_nonzero and their methods): wrong types,
bad axes, bad dtypes and corrections, empty max/min each raise a clear
Python exception (devarray.AxisError for an axis out of range, ValueError
for repeated axes and max/min over nothing, TypeError for what is not an
array, a dtype or a number), leave every argument as it was, and devarray
keeps working after them."""

import numpy as np
import pytest

import devarray
from _helpers import Evil, EvilIndex, assert_values, random_array, snapshot

FUNCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "count_nonzero"]
METHODS = ["sum", "prod", "max", "min", "mean", "var", "std"]


def _cases(d2, d0, empty):
    """(name, callable, args, kwargs, expected exception)."""
    AxisError = devarray.AxisError
    cases = []
    for fn in FUNCTIONS:
        f = getattr(devarray, fn)
        cases += [
            (fn + "-axis", f, (d2,), {"axis": 2}, AxisError),
            (fn + "-axis-neg", f, (d2,), {"axis": -3}, AxisError),
            (fn + "-axis-tuple", f, (d2,), {"axis": (0, 5)}, AxisError),
            (fn + "-axis-dup", f, (d2,), {"axis": (1, -1)}, ValueError),
            (fn + "-axis-str", f, (d2,), {"axis": "0"}, TypeError),
            (fn + "-axis-float", f, (d2,), {"axis": 1.0}, TypeError),
            (fn + "-axis-evil", f, (d2,), {"axis": EvilIndex()}, Evil),
            (fn + "-axis-0d", f, (d0,), {"axis": 1}, AxisError),
            (fn + "-axis-0d-tuple", f, (d0,), {"axis": (0,)}, AxisError),
            (fn + "-kw", f, (d2,), {"axes": 0}, TypeError),
            (fn + "-no-x", f, (), {}, TypeError),
        ]
        if fn != "sum":  # devarray.sum takes anything asarray takes
            cases += [
                (fn + "-list", f, ([1.0, 2.0],), {}, TypeError),
                (fn + "-none", f, (None,), {}, TypeError),
                (fn + "-numpy", f, (np.ones(3),), {}, TypeError),
                (fn + "-positional-axis", f, (d2, 0), {}, TypeError),
            ]
    for fn in METHODS:
        cases += [
            (fn + "-method-axis", getattr(d2, fn) if d2 is not None else None,
             (), {"axis": 3}, AxisError),
            (fn + "-method-kw", getattr(d2, fn) if d2 is not None else None,
             (), {"bogus": 1}, TypeError),
        ]
    for fn in ("max", "min"):
        f = getattr(devarray, fn)
        cases += [
            (fn + "-empty", f, (empty,), {}, ValueError),
            (fn + "-empty-axis", f, (empty,), {"axis": 0}, ValueError),
            (fn + "-empty-method", getattr(empty, fn) if empty is not None else None,
             (), {"axis": (0, 1)}, ValueError),
        ]
    for fn in ("sum", "prod"):
        f = getattr(devarray, fn)
        cases += [
            (fn + "-dtype-str", f, (d2,), {"dtype": "not-a-dtype"}, TypeError),
            (fn + "-dtype-object", f, (d2,), {"dtype": object}, TypeError),
        ]
    for fn in ("var", "std"):
        f = getattr(devarray, fn)
        cases += [
            (fn + "-correction-str", f, (d2,), {"correction": "1"}, TypeError),
            (fn + "-correction-none", f, (d2,), {"correction": None}, TypeError),
            (fn + "-correction-bool", f, (d2,), {"correction": True}, TypeError),
            (fn + "-correction-complex", f, (d2,), {"correction": 1j}, TypeError),
            (fn + "-method-correction", getattr(d2, fn) if d2 is not None else None,
             (), {"correction": "x"}, TypeError),
            (fn + "-ddof", f, (d2,), {"ddof": 1}, TypeError),
        ]
    for fn in ("max", "min", "mean", "count_nonzero"):
        cases.append((fn + "-dtype-kw", getattr(devarray, fn), (d2,),
                      {"dtype": "float64"}, TypeError))
    return cases


@pytest.fixture
def operands(backend, rng):
    d2 = devarray.to_device(random_array(rng, (3, 4), "float32"))
    d0 = devarray.to_device(random_array(rng, (), "float64"))
    empty = devarray.zeros((0, 3), dtype="int16")
    return d2, d0, empty


_IDS = [case[0] for case in _cases(None, None, None)]


@pytest.mark.parametrize("name", _IDS)
def test_bad_input_raises_and_leaves_arguments(backend, operands, name):
    case = {c[0]: c for c in _cases(*operands)}[name]
    _, fn, args, kwargs, expected = case
    before = snapshot(args), snapshot(list(kwargs.values())), snapshot(list(operands))
    with pytest.raises(expected) as info:
        fn(*args, **kwargs)
    assert type(info.value) is devarray.AxisError or expected is not devarray.AxisError
    if expected is not Evil:
        assert str(info.value)
    after = snapshot(args), snapshot(list(kwargs.values())), snapshot(list(operands))
    assert after == before
    # and devarray still works
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert_values(devarray.max(devarray.to_device(a), axis=0), a.max(axis=0))
    assert_values(devarray.mean(devarray.to_device(a), axis=1), a.mean(axis=1))


def test_empty_message_names_the_operation(backend):
    d = devarray.zeros((0,), dtype="float32")
    with pytest.raises(ValueError, match="maximum"):
        devarray.max(d)
    with pytest.raises(ValueError, match="minimum"):
        d.min()


@pytest.mark.parametrize("fn", ["mean", "var", "std"])
def test_empty_statistics_are_nan(backend, fn):
    """NumPy warns and returns NaN; devarray returns the NaN quietly."""
    d = devarray.zeros((0, 3), dtype="float64")
    r = getattr(devarray, fn)(d, axis=0)
    assert r.shape == (3,)
    assert np.isnan(r.to_host()).all()


def test_read_only_input_is_fine(backend, rng):
    """Reductions only read: a read-only array reduces as any other."""
    a = random_array(rng, (4, 5), "int32")
    d = devarray._core._readonly_view(devarray.to_device(a))
    assert d.readonly
    for fn in ("sum", "prod", "max", "min", "count_nonzero"):
        assert_values(getattr(devarray, fn)(d, axis=0),
                      np.asarray(getattr(np, fn)(a, axis=0)))
