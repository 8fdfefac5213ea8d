"""Reliability of the manipulation functions: wrong types, bad axes, bad
and overflowing shapes and counts each raise a clear Python exception
(devarray.AxisError for an axis out of range, ValueError for mismatched
shapes, TypeError for what is not an array or an int), leave every argument
as it was, and devarray keeps working after them."""

import numpy as np
import pytest

import devarray
from _helpers import Evil, EvilIndex, assert_values, random_array, snapshot


def _cases(d2, d3, d0, counts):
    """(name, function, args, kwargs, expected exception)."""
    AxisError = devarray.AxisError
    big = 2**62
    return [
        # concat
        ("concat-not-seq", devarray.concat, (5,), {}, TypeError),
        ("concat-array", devarray.concat, (d2,), {}, TypeError),
        ("concat-item", devarray.concat, ([d2, 1],), {}, TypeError),
        ("concat-empty", devarray.concat, ([],), {}, ValueError),
        ("concat-ndim", devarray.concat, ([d2, d3],), {}, ValueError),
        ("concat-shape", devarray.concat, ([d2, d2.T],), {"axis": 0}, ValueError),
        ("concat-axis", devarray.concat, ([d2, d2],), {"axis": 2}, AxisError),
        ("concat-axis-neg", devarray.concat, ([d2, d2],), {"axis": -3}, AxisError),
        ("concat-axis-str", devarray.concat, ([d2, d2],), {"axis": "0"}, TypeError),
        ("concat-axis-float", devarray.concat, ([d2, d2],), {"axis": 0.0}, TypeError),
        ("concat-axis-evil", devarray.concat, ([d2, d2],), {"axis": EvilIndex()}, Evil),
        ("concat-0d", devarray.concat, ([d0, d0],), {}, ValueError),
        ("concat-kw", devarray.concat, ([d2],), {"axes": 0}, TypeError),
        # stack
        ("stack-empty", devarray.stack, ((),), {}, ValueError),
        ("stack-shape", devarray.stack, ([d2, d2.T],), {}, ValueError),
        ("stack-axis", devarray.stack, ([d2, d2],), {"axis": 3}, AxisError),
        ("stack-axis-neg", devarray.stack, ([d2, d2],), {"axis": -4}, AxisError),
        ("stack-item", devarray.stack, ([d2, None],), {}, TypeError),
        ("stack-positional-axis", devarray.stack, ([d2], 0), {}, TypeError),
        # broadcast_to / broadcast_arrays
        ("bto-mismatch", devarray.broadcast_to, (d2, (3, 3)), {}, ValueError),
        ("bto-fewer-dims", devarray.broadcast_to, (d2, (3,)), {}, ValueError),
        ("bto-negative", devarray.broadcast_to, (d2, (-1, 4)), {}, ValueError),
        ("bto-str", devarray.broadcast_to, (d2, "ab"), {}, TypeError),
        ("bto-float", devarray.broadcast_to, (d2, (3, 4.0)), {}, TypeError),
        ("bto-too-many", devarray.broadcast_to, (d2, (1,) * 33), {}, ValueError),
        ("bto-too-big", devarray.broadcast_to, (d2, (big, big, 3, 4)), {}, ValueError),
        ("bto-not-array", devarray.broadcast_to, ([1, 2], (2,)), {}, TypeError),
        ("barr-mismatch", devarray.broadcast_arrays, (d2, d2.T), {}, ValueError),
        ("barr-not-array", devarray.broadcast_arrays, (d2, 1), {}, TypeError),
        ("barr-kw", devarray.broadcast_arrays, (d2,), {"subok": True}, TypeError),
        # expand_dims / squeeze
        ("expand-axis", devarray.expand_dims, (d2,), {"axis": 3}, AxisError),
        ("expand-axis-neg", devarray.expand_dims, (d2,), {"axis": -4}, AxisError),
        ("expand-repeated", devarray.expand_dims, (d2,), {"axis": (0, 0)}, ValueError),
        ("expand-float", devarray.expand_dims, (d2,), {"axis": 1.0}, TypeError),
        ("expand-none", devarray.expand_dims, (d2,), {"axis": None}, TypeError),
        ("expand-too-many", devarray.expand_dims, (d2,), {"axis": tuple(range(31))},
         ValueError),
        ("squeeze-not-one", devarray.squeeze, (d2, 0), {}, ValueError),
        ("squeeze-axis", devarray.squeeze, (d2, 2), {}, AxisError),
        ("squeeze-repeated", devarray.squeeze, (d2, (0, 0)), {}, ValueError),
        ("squeeze-str", devarray.squeeze, (d2, "0"), {}, TypeError),
        # flip / moveaxis / permute_dims / unstack
        ("flip-axis", devarray.flip, (d2,), {"axis": 2}, AxisError),
        ("flip-repeated", devarray.flip, (d2,), {"axis": (1, -1)}, ValueError),
        ("flip-float", devarray.flip, (d2,), {"axis": 0.5}, TypeError),
        ("flip-positional-axis", devarray.flip, (d2, 0), {}, TypeError),
        ("flip-0d-axis", devarray.flip, (d0,), {"axis": 0}, AxisError),
        ("moveaxis-lengths", devarray.moveaxis, (d3, (0, 1), (0,)), {}, ValueError),
        ("moveaxis-repeated", devarray.moveaxis, (d3, (0, 0), (1, 2)), {}, ValueError),
        ("moveaxis-axis", devarray.moveaxis, (d3, 3, 0), {}, AxisError),
        ("moveaxis-dest", devarray.moveaxis, (d3, 0, -4), {}, AxisError),
        ("moveaxis-none", devarray.moveaxis, (d3, None, 0), {}, TypeError),
        ("permute-length", devarray.permute_dims, (d3, (0, 1)), {}, ValueError),
        ("permute-repeated", devarray.permute_dims, (d3, (0, 1, 1)), {}, ValueError),
        ("permute-axis", devarray.permute_dims, (d3, (0, 1, 3)), {}, AxisError),
        ("permute-int", devarray.permute_dims, (d3, 0), {}, TypeError),
        ("permute-str", devarray.permute_dims, (d3, "abc"), {}, TypeError),
        ("unstack-axis", devarray.unstack, (d2,), {"axis": 2}, AxisError),
        ("unstack-0d", devarray.unstack, (d0,), {}, AxisError),
        ("unstack-float", devarray.unstack, (d2,), {"axis": 0.0}, TypeError),
        # reshape
        ("reshape-size", devarray.reshape, (d2, (5,)), {}, ValueError),
        ("reshape-two-unknown", devarray.reshape, (d2, (-1, -1)), {}, ValueError),
        ("reshape-negative", devarray.reshape, (d2, (-2, -6)), {}, ValueError),
        ("reshape-zero-unknown", devarray.reshape, (d2, (0, -1)), {}, ValueError),
        ("reshape-no-copy", devarray.reshape, (d2.T, (12,)), {"copy": False}, ValueError),
        ("reshape-str", devarray.reshape, (d2, "ab"), {}, TypeError),
        ("reshape-float", devarray.reshape, (d2, (12.0,)), {}, TypeError),
        ("reshape-overflow", devarray.reshape, (d2, (big, big, -1)), {}, ValueError),
        ("reshape-huge", devarray.reshape, (d2, (2**70,)), {}, OverflowError),
        ("reshape-evil", devarray.reshape, (d2, (EvilIndex(),)), {}, Evil),
        ("reshape-not-array", devarray.reshape, (np.zeros(3), (3,)), {}, TypeError),
        # roll
        ("roll-shift-float", devarray.roll, (d2, 1.5), {}, TypeError),
        ("roll-shift-none", devarray.roll, (d2, None), {}, TypeError),
        ("roll-axis", devarray.roll, (d2, 1), {"axis": 2}, AxisError),
        ("roll-axis-float", devarray.roll, (d2, 1), {"axis": 1.0}, TypeError),
        ("roll-lengths", devarray.roll, (d2, (1, 2, 3)), {"axis": (0, 1)}, ValueError),
        ("roll-huge", devarray.roll, (d2, 2**70), {}, OverflowError),
        ("roll-0d-axis", devarray.roll, (d0, 1), {"axis": 0}, AxisError),
        # repeat
        ("repeat-negative", devarray.repeat, (d2, -1), {}, ValueError),
        ("repeat-float", devarray.repeat, (d2, 1.5), {}, TypeError),
        ("repeat-list", devarray.repeat, (d2, [1, 2]), {}, TypeError),
        ("repeat-float-array", devarray.repeat, (d2, counts["float"]), {}, TypeError),
        ("repeat-uint64", devarray.repeat, (d2, counts["uint64"]), {}, TypeError),
        ("repeat-2d", devarray.repeat, (d2, counts["2d"]), {"axis": 1}, ValueError),
        ("repeat-length", devarray.repeat, (d2, counts["three"]), {"axis": 1}, ValueError),
        ("repeat-neg-array", devarray.repeat, (d2, counts["negative"]), {"axis": 1},
         ValueError),
        ("repeat-axis", devarray.repeat, (d2, 2), {"axis": 2}, AxisError),
        ("repeat-too-big", devarray.repeat, (d2, big), {}, ValueError),
        ("repeat-positional-axis", devarray.repeat, (d2, 2, 0), {}, TypeError),
        # tile
        ("tile-negative", devarray.tile, (d2, (-1, 2)), {}, ValueError),
        ("tile-str", devarray.tile, (d2, "ab"), {}, TypeError),
        ("tile-none", devarray.tile, (d2, None), {}, TypeError),
        ("tile-too-many", devarray.tile, (d2, (1,) * 33), {}, ValueError),
        ("tile-too-big", devarray.tile, (d2, (big, big)), {}, ValueError),
        ("tile-not-array", devarray.tile, ([1, 2], (2,)), {}, TypeError),
    ]


@pytest.fixture
def operands(backend, rng):
    d2 = devarray.to_device(random_array(rng, (3, 4), "float32"))
    d3 = devarray.to_device(random_array(rng, (2, 3, 4), "int16"))
    d0 = devarray.to_device(random_array(rng, (), "float64"))
    counts = {
        "float": devarray.to_device(np.ones(4, dtype="float32")),
        "uint64": devarray.to_device(np.ones(4, dtype="uint64")),
        "2d": devarray.to_device(np.ones((2, 2), dtype="int32")),
        "three": devarray.to_device(np.ones(3, dtype="int32")),
        "negative": devarray.to_device(np.array([1, -1, 2, 0], dtype="int8")),
    }
    return d2, d3, d0, counts


class _Placeholder:
    """Stands for the operands while the case names are collected."""
    T = None


_IDS = [case[0] for case in _cases(_Placeholder(), None, None, {k: None for k in
        ("float", "uint64", "2d", "three", "negative")})]


@pytest.mark.parametrize("name", _IDS)
def test_bad_input_raises_and_leaves_arguments(backend, operands, name):
    case = {c[0]: c for c in _cases(*operands)}[name]
    _, fn, args, kwargs, expected = case
    before = snapshot(args), snapshot(list(kwargs.values()))
    with pytest.raises(expected) as info:
        fn(*args, **kwargs)
    assert type(info.value) is devarray.AxisError or expected is not devarray.AxisError
    if expected is not Evil:
        assert str(info.value)
    assert (snapshot(args), snapshot(list(kwargs.values()))) == before
    # and devarray still works
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert_values(devarray.concat([devarray.to_device(a)] * 2, axis=1),
                  np.concat([a, a], axis=1))


def test_axis_error_is_index_and_value_error(backend, operands):
    d2 = operands[0]
    for fn in (lambda: devarray.expand_dims(d2, axis=5),
               lambda: devarray.squeeze(d2, 7), lambda: devarray.flip(d2, axis=-3)):
        with pytest.raises(IndexError):
            fn()
        with pytest.raises(ValueError):
            fn()


def test_read_only_inputs(backend, rng):
    """Views of a read-only array stay read-only; copies are writable;
    every function accepts read-only inputs."""
    a = random_array(rng, (3, 4), "int64")
    ro = devarray.broadcast_to(devarray.to_device(a), (3, 4))
    assert ro.readonly
    for view in (devarray.flip(ro), devarray.permute_dims(ro, (1, 0)),
                 devarray.reshape(ro, (12,)), devarray.expand_dims(ro, axis=0),
                 devarray.squeeze(devarray.expand_dims(ro, axis=0), 0),
                 devarray.moveaxis(ro, 0, 1), devarray.unstack(ro)[0]):
        assert view.readonly
    for copy, expected in ((devarray.concat([ro, ro]), np.concat([a, a])),
                           (devarray.stack([ro]), np.stack([a])),
                           (devarray.roll(ro, 1), np.roll(a, 1)),
                           (devarray.repeat(ro, 2), np.repeat(a, 2)),
                           (devarray.tile(ro, (2,)), np.tile(a, (2,))),
                           (devarray.reshape(ro, (12,), copy=True), a.reshape(12))):
        assert not copy.readonly
        assert_values(copy, expected)


def test_different_backends(gpu, rng):
    """concat and stack refuse arrays on different backends, as the ufuncs do."""
    a = random_array(rng, (2, 3), "float32")
    on_gpu = devarray.to_device(a)
    devarray.set_backend("host")
    try:
        on_host = devarray.to_device(a)
    finally:
        devarray.set_backend(gpu)
    for fn in (devarray.concat, devarray.stack):
        before = snapshot([on_gpu, on_host])
        with pytest.raises(ValueError, match="backends"):
            fn([on_gpu, on_host])
        assert snapshot([on_gpu, on_host]) == before


def test_too_many_dims(backend):
    """Results past DA_MAXDIMS (32) axes raise ValueError, whichever way the
    axes are added."""
    d = devarray.zeros((1,) * 32)
    before = snapshot(d)
    for fn in (lambda: devarray.expand_dims(d), lambda: devarray.expand_dims(d, axis=-1),
               lambda: devarray.expand_dims(d, axis=(0,)), lambda: devarray.stack([d]),
               lambda: devarray.tile(d, (1,) * 33), lambda: devarray.reshape(d, (1,) * 33),
               lambda: devarray.broadcast_to(d, (1,) * 33)):
        with pytest.raises(ValueError):
            fn()
    assert snapshot(d) == before
    assert devarray.squeeze(d, None).shape == ()
