"""Reliability of indexing by arrays (d[key], d[key] = v with array
indices, take, take_along_axis, nonzero): indices out of bounds raise
IndexError from the call itself (checked on the device on CUDA), as do
float index arrays, masks of the wrong shape and index arrays that do not
broadcast; wrong types raise TypeError, bad axes devarray.AxisError, a
read-only target ValueError.  Each leaves every argument as it was (an
assignment that raises writes nothing) and devarray keeps working."""

import warnings

import numpy as np
import pytest

import devarray
from _helpers import host, random_array, snapshot


def dev(a):
    return devarray.asarray(np.array(a, order="C"))


def _getitem(d, key):
    return d[key]


def _setitem(d, key, value):
    d[key] = value


def _cases(d2, d0, i, m):
    """(name, function, args, kwargs, expected exception)."""
    AxisError = devarray.AxisError
    out = dev(np.array([0, 3]))
    neg = dev(np.array([-4, 0]))
    big = dev(np.array([2**62], dtype=np.int64))
    huge = dev(np.array([2**64 - 1], dtype=np.uint64))
    f = dev(np.array([0.0, 1.0]))
    return [
        # __getitem__
        ("get-out", _getitem, (d2, out), {}, IndexError),
        ("get-neg", _getitem, (d2, neg), {}, IndexError),
        ("get-big", _getitem, (d2, big), {}, IndexError),
        ("get-uint64", _getitem, (d2, huge), {}, IndexError),
        ("get-second-axis", _getitem, (d2, (i, dev(np.array([0, 4])))), {}, IndexError),
        ("get-empty-axis", _getitem, (d2[:, :0], (slice(None), out)), {}, IndexError),
        ("get-float", _getitem, (d2, f), {}, IndexError),
        ("get-float-list", _getitem, (d2, [0.5]), {}, IndexError),
        ("get-mask-shape", _getitem, (d2, dev(np.ones((2, 4), bool))), {}, IndexError),
        ("get-mask-shape-inner", _getitem, (d2, (slice(None), dev(np.ones(3, bool)))), {},
         IndexError),
        ("get-mask-too-many", _getitem, (d2, dev(np.ones((3, 4, 1), bool))), {}, IndexError),
        ("get-broadcast", _getitem, (d2, (i, dev(np.array([0, 1, 2])))), {}, IndexError),
        ("get-too-many", _getitem, (d2, (i, i, i)), {}, IndexError),
        ("get-two-ellipses", _getitem, (d2, (Ellipsis, i, Ellipsis)), {}, IndexError),
        ("get-ragged", _getitem, (d2, [[0], [0, 1]]), {}, ValueError),
        ("get-object", _getitem, (d2, (i, object())), {}, IndexError),
        ("get-0d-int-out", _getitem, (d2, (dev(np.array(7)), i)), {}, IndexError),
        # __setitem__
        ("set-out", _setitem, (d2, out, 1.0), {}, IndexError),
        ("set-out-array", _setitem, (d2, (i, dev(np.array([0, 4]))), dev(np.ones(2, np.float32))), {},
         IndexError),
        ("set-mask-shape", _setitem, (d2, dev(np.ones(2, bool)), 1.0), {}, IndexError),
        ("set-shape", _setitem, (d2, i, dev(np.ones((3, 4), np.float32))), {}, ValueError),
        ("set-value-type", _setitem, (d2, i, "x"), {}, TypeError),
        ("set-readonly", _setitem, (devarray._core._readonly_view(d2), i, 1.0), {},
         ValueError),
        ("set-float", _setitem, (d2, f, 1.0), {}, IndexError),
        ("set-broadcast", _setitem, (d2, (i, dev(np.array([0, 1, 2]))), 0.0), {},
         IndexError),
        # take
        ("take-out", devarray.take, (d2, out), {"axis": 0}, IndexError),
        ("take-out-flat", devarray.take, (d2, dev(np.array([12]))), {}, IndexError),
        ("take-neg", devarray.take, (d2, dev(np.array([-5]))), {"axis": 1}, IndexError),
        ("take-axis", devarray.take, (d2, i), {"axis": 2}, AxisError),
        ("take-axis-neg", devarray.take, (d2, i), {"axis": -3}, AxisError),
        ("take-axis-str", devarray.take, (d2, i), {"axis": "0"}, TypeError),
        ("take-float", devarray.take, (d2, f), {"axis": 0}, TypeError),
        ("take-bool", devarray.take, (d2, m[0]), {"axis": 1}, TypeError),
        ("take-not-array", devarray.take, ([1, 2], i), {}, TypeError),
        ("take-indices-type", devarray.take, (d2, 1), {"axis": 0}, TypeError),
        ("take-0d-axis", devarray.take, (d0, i), {"axis": 0}, ValueError),
        ("take-kw", devarray.take, (d2, i), {"axes": 0}, TypeError),
        # take_along_axis
        ("tal-out", devarray.take_along_axis, (d2, dev(np.array([[4]]))), {}, IndexError),
        ("tal-neg", devarray.take_along_axis, (d2, dev(np.array([[-4]]))), {"axis": 0},
         IndexError),
        ("tal-ndim", devarray.take_along_axis, (d2, i), {}, ValueError),
        ("tal-shape", devarray.take_along_axis, (d2, dev(np.zeros((2, 1), np.int64))), {},
         IndexError),
        ("tal-axis", devarray.take_along_axis, (d2, dev(np.zeros((1, 1), np.int64))),
         {"axis": 2}, AxisError),
        ("tal-float", devarray.take_along_axis, (d2, dev(np.zeros((1, 1)))), {}, TypeError),
        ("tal-0d", devarray.take_along_axis, (d0, dev(np.array(0))), {}, ValueError),
        ("tal-not-array", devarray.take_along_axis, (None, i), {}, TypeError),
        # nonzero
        ("nonzero-0d", devarray.nonzero, (d0,), {}, ValueError),
        ("nonzero-type", devarray.nonzero, ([1, 0],), {}, TypeError),
        ("nonzero-args", devarray.nonzero, (d2, d2), {}, TypeError),
    ]


@pytest.fixture
def operands(backend, rng):
    d2 = devarray.to_device(random_array(rng, (3, 4), "float32"))
    d0 = devarray.to_device(random_array(rng, (), "float64"))
    i = devarray.to_device(np.array([0, 2]))
    m = devarray.to_device(np.array([[True, False, True, False]] * 3))
    return d2, d0, i, m


def _case_names():
    # the names without a backend: build the cases on the host once
    with devarray_backend("host"):
        d2 = dev(np.zeros((3, 4), np.float32))
        return [c[0] for c in _cases(d2, dev(np.float64(0)), dev(np.array([0, 2])),
                                     dev(np.zeros((3, 4), bool)))]


class devarray_backend:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        with warnings.catch_warnings():
            # choosing the default backend warns once where there is no GPU
            warnings.simplefilter("ignore", RuntimeWarning)
            self.old = devarray.backend()
        devarray.set_backend(self.name)

    def __exit__(self, *exc):
        devarray.set_backend(self.old)


@pytest.mark.parametrize("name", _case_names())
def test_bad_input_raises_and_leaves_arguments(backend, operands, name):
    case = {c[0]: c for c in _cases(*operands)}[name]
    _, fn, args, kwargs, expected = case
    before = snapshot(args), snapshot(list(kwargs.values()))
    with pytest.raises(expected) as info:
        fn(*args, **kwargs)
    assert str(info.value)
    assert (snapshot(args), snapshot(list(kwargs.values()))) == before
    # and devarray still works, indexing by arrays included
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    d = dev(a)
    assert host(d[dev(np.array([2, -1]))]).tolist() == a[[2, -1]].tolist()
    assert host(d[d > 4]).tolist() == a[a > 4].tolist()


def test_out_of_bounds_message_names_axis(backend):
    d = dev(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        d[:, dev(np.array([0, 9]))]
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        devarray.take(d, dev(np.array([-5])), axis=1)


def test_failed_setitem_writes_nothing(backend):
    """The bounds of every index are checked before the first write, also
    when the bad index comes after good ones."""
    a = np.arange(10.0)
    d = dev(a)
    idx = dev(np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 10]))
    with pytest.raises(IndexError):
        d[idx] = -1.0
    assert host(d).tolist() == a.tolist()
    with pytest.raises(IndexError):
        d[idx] = dev(-np.ones(10))
    assert host(d).tolist() == a.tolist()
