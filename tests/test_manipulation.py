"""The manipulation functions (src/core/view_ops.c, src/ops/manipulation.c) against
NumPy 2 on random data and random shapes (0-d and 0-size included), on both
backends: values, shapes and dtypes, and for the functions that give views
in NumPy, the same strides and the same byte offset into the same memory."""

import itertools

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, host, random_array


def dev(a):
    return devarray.to_device(a)


def random_shape(rng, min_ndim=0, max_ndim=4, max_extent=4):
    ndim = int(rng.integers(min_ndim, max_ndim + 1))
    return tuple(int(n) for n in rng.integers(0, max_extent + 1, size=ndim))


def nonempty_shape(rng, min_ndim=0, max_ndim=4):
    ndim = int(rng.integers(min_ndim, max_ndim + 1))
    return tuple(int(n) for n in rng.integers(1, 5, size=ndim))


def same_view(dv, dbase, nv, nbase):
    """dv, made from the DeviceArray dbase, is the view NumPy's nv is of
    nbase: shape, strides, values and byte offset into dbase's memory."""
    assert isinstance(dv, devarray.DeviceArray)
    assert dv.base is not None
    if not isinstance(nv, np.ndarray):  # NumPy gives a scalar for some 0-d views
        nv = np.asarray(nv)
        nbase = None
    assert dv.shape == nv.shape
    if nv.size:
        # the stride of an extent-1 axis is never used, and NumPy's differ
        # by how an array was made
        used = [i for i, n in enumerate(nv.shape) if n > 1]
        assert [dv.strides[i] for i in used] == [nv.strides[i] for i in used]
    assert_values(dv, np.asarray(nv))
    if nv.size and nbase is not None:
        assert dv.ptr - dbase.ptr == nv.ctypes.data - nbase.ctypes.data


def is_copy(d, base):
    assert d.base is None
    if d.size and base.size:
        assert d.ptr != base.ptr


def random_view(rng, a, d):
    """A random strided view of a and of d: a transpose, steps and reversals."""
    if not a.ndim:
        return a, d
    if a.ndim and rng.random() < 0.5:
        perm = tuple(int(i) for i in rng.permutation(a.ndim))
        a, d = a.transpose(perm), d.transpose(perm)
    key = []
    for n in a.shape:
        step = int(rng.choice([1, 1, 2, -1]))
        start = int(rng.integers(0, 2)) if n > 2 else 0
        key.append(slice(start, None, step) if step > 0 else slice(None, None, -1))
    return a[tuple(key)], d[tuple(key)]


# ---- views ------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_flip_every_dtype(backend, rng, dt):
    a = random_array(rng, (3, 4), dt)
    d = dev(a)
    same_view(devarray.flip(d), d, np.flip(a), a)
    same_view(devarray.flip(d, axis=-1), d, np.flip(a, axis=-1), a)


def test_flip_random(backend, rng):
    for _ in range(40):
        a = random_array(rng, random_shape(rng), "float32")
        d = dev(a)
        same_view(devarray.flip(d), d, np.flip(a), a)
        if a.ndim:
            k = int(rng.integers(1, a.ndim + 1))
            axes = tuple(int(i) - (a.ndim if rng.random() < 0.5 else 0)
                         for i in rng.choice(a.ndim, size=k, replace=False))
            same_view(devarray.flip(d, axis=axes), d, np.flip(a, axis=axes), a)
            same_view(devarray.flip(d, axis=axes[0]), d,
                      np.flip(a, axis=axes[0]), a)


def test_flip_of_strided_view(backend, rng):
    a = random_array(rng, (5, 6, 3), "int16")
    d = dev(a)
    for _ in range(10):
        av, dv = random_view(rng, a, d)
        same_view(devarray.flip(dv, axis=(0, 2)), d, np.flip(av, axis=(0, 2)), a)


def test_permute_dims_and_moveaxis(backend, rng):
    for _ in range(30):
        a = random_array(rng, random_shape(rng), "float64")
        d = dev(a)
        perm = tuple(int(i) for i in rng.permutation(a.ndim))
        same_view(devarray.permute_dims(d, perm), d, np.permute_dims(a, perm), a)
        if not a.ndim:
            continue
        k = int(rng.integers(1, a.ndim + 1))
        src = [int(i) for i in rng.choice(a.ndim, size=k, replace=False)]
        dst = [int(i) - (a.ndim if rng.random() < 0.5 else 0)
               for i in rng.choice(a.ndim, size=k, replace=False)]
        same_view(devarray.moveaxis(d, tuple(src), tuple(dst)), d,
                  np.moveaxis(a, src, dst), a)
        same_view(devarray.moveaxis(d, src[0], dst[0]), d,
                  np.moveaxis(a, src[0], dst[0]), a)


def test_expand_dims(backend, rng):
    for _ in range(30):
        a = random_array(rng, random_shape(rng, max_ndim=3), "uint8")
        av, dv = random_view(rng, a, dev(a))
        d = dv
        for axis in range(-a.ndim - 1, a.ndim + 1):
            same_view(devarray.expand_dims(d, axis=axis), d,
                      np.expand_dims(av, axis), av)
        same_view(devarray.expand_dims(d), d, np.expand_dims(av, 0), av)
        axes = (0, -1)
        same_view(devarray.expand_dims(d, axis=axes), d,
                  np.expand_dims(av, axes), av)


def _same_error(numpy_error):
    """devarray's class for the error NumPy raised: its own AxisError for
    NumPy's (both a ValueError and an IndexError), else the same class."""
    if isinstance(numpy_error, np.exceptions.AxisError):
        return devarray.AxisError
    return type(numpy_error)


def test_expand_dims_tuple(backend, rng):
    """2025.12's tuple of positions in the result, negative ones counted
    from its end: NumPy's shape and strides; a repeated position raises
    ValueError and one out of range AxisError (an IndexError too), as
    NumPy's."""
    for _ in range(60):
        a = random_array(rng, random_shape(rng, max_ndim=3), "int16")
        d = dev(a)
        k = int(rng.integers(0, 4))
        m = a.ndim + k
        axes = tuple(int(i) for i in rng.integers(-m - 1, m + 1, size=k))
        try:
            expected = np.expand_dims(a, axes)
        except ValueError as e:
            with pytest.raises(_same_error(e)):
                devarray.expand_dims(d, axis=axes)
            continue
        same_view(devarray.expand_dims(d, axis=axes), d, expected, a)
    d = dev(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match="repeated axis"):
        devarray.expand_dims(d, axis=(1, -3))
    with pytest.raises(devarray.AxisError):
        devarray.expand_dims(d, axis=(0, 4))
    with pytest.raises(IndexError):
        devarray.expand_dims(d, axis=(-5, 0))


def test_permute_dims_negative_axes(backend, rng):
    """2025.12: axes in [-N, N), a negative one counted from the last."""
    for _ in range(30):
        a = random_array(rng, random_shape(rng), "float32")
        d = dev(a)
        perm = tuple(int(i) - (a.ndim if rng.random() < 0.5 else 0)
                     for i in rng.permutation(a.ndim))
        same_view(devarray.permute_dims(d, perm), d, np.permute_dims(a, perm), a)
    a = np.ones((2, 3, 4), "float32")
    d = dev(a)
    for bad in [(0, -3, 1), (0, 1, -4), (0, 1, 3)]:
        with pytest.raises(ValueError) as expected:
            np.permute_dims(a, bad)
        with pytest.raises(_same_error(expected.value)):
            devarray.permute_dims(d, bad)


def test_squeeze(backend, rng):
    for _ in range(30):
        shape = tuple(int(n) for n in rng.integers(0, 3, size=rng.integers(0, 5)))
        a = random_array(rng, shape, "complex64")
        d = dev(a)
        ones = [i for i, n in enumerate(shape) if n == 1]
        same_view(devarray.squeeze(d, tuple(ones)), d, np.squeeze(a, tuple(ones)), a)
        same_view(devarray.squeeze(d, None), d, np.squeeze(a), a)
        for i in ones:
            same_view(devarray.squeeze(d, i - len(shape)), d,
                      np.squeeze(a, i - len(shape)), a)
        for i, n in enumerate(shape):
            if n != 1:
                with pytest.raises(ValueError):
                    devarray.squeeze(d, i)


def test_unstack(backend, rng):
    for _ in range(30):
        a = random_array(rng, random_shape(rng, min_ndim=1), "int32")
        av, dv = random_view(rng, a, dev(a))
        for axis in range(-a.ndim, a.ndim):
            got = devarray.unstack(dv, axis=axis)
            expected = np.unstack(av, axis=axis)
            assert isinstance(got, tuple)
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                same_view(g, dv, e, av)
        assert len(devarray.unstack(dv)) == av.shape[0]


@pytest.mark.parametrize("dt", ["bool", "int64", "float16", "complex128"])
def test_broadcast_to(backend, rng, dt):
    for _ in range(20):
        shape = random_shape(rng, max_ndim=3)
        target = tuple(int(rng.integers(0, 4)) if n == 1 else n for n in shape)
        target = tuple(int(n) for n in rng.integers(0, 3, size=rng.integers(0, 3))) + target
        a = random_array(rng, shape, dt)
        d = dev(a)
        got = devarray.broadcast_to(d, target)
        same_view(got, d, np.broadcast_to(a, target), a)
        assert got.readonly


def test_broadcast_arrays(backend, rng):
    for _ in range(20):
        out = random_shape(rng, max_ndim=3)
        shapes = []
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, len(out) + 1))
            shapes.append(tuple(1 if rng.random() < 0.4 else n for n in out[k:]))
        arrays = [random_array(rng, s, "float32") for s in shapes]
        devs = [dev(a) for a in arrays]
        got = devarray.broadcast_arrays(*devs)
        expected = np.broadcast_arrays(*arrays)
        assert type(got) is tuple and len(got) == len(expected)
        for g, d, e, a in zip(got, devs, expected, arrays):
            if a.shape == e.shape:
                assert g is d
            else:
                same_view(g, d, e, a)
                assert g.readonly
    assert devarray.broadcast_arrays() == ()


def test_broadcast_shapes(rng):
    """Pure shape logic: the same tuple as numpy.broadcast_shapes (the
    backend plays no part)."""
    for _ in range(50):
        out = random_shape(rng, max_ndim=4)
        shapes = []
        for _ in range(int(rng.integers(1, 5))):
            k = int(rng.integers(0, len(out) + 1))
            shapes.append(tuple(1 if rng.random() < 0.4 else n for n in out[k:]))
        got = devarray.broadcast_shapes(*shapes)
        assert type(got) is tuple
        assert got == np.broadcast_shapes(*shapes)
    assert devarray.broadcast_shapes() == np.broadcast_shapes() == ()
    assert devarray.broadcast_shapes(3, [2, 1]) == np.broadcast_shapes(3, [2, 1])
    assert devarray.broadcast_shapes((0,), (1,)) == (0,)


def test_broadcast_shapes_errors():
    """ValueError with NumPy's message, naming the two shapes that clash."""
    for shapes in [((2, 3), (4,)), ((2, 3), (5, 1, 1), (4,)), ((1, 3), (2, 1), (4, 1))]:
        with pytest.raises(ValueError) as expected:
            np.broadcast_shapes(*shapes)
        with pytest.raises(ValueError) as got:
            devarray.broadcast_shapes(*shapes)
        assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError, match="negative dimensions"):
        devarray.broadcast_shapes((2, -1))
    with pytest.raises(TypeError):
        devarray.broadcast_shapes((1.5,))
    with pytest.raises(TypeError):
        devarray.broadcast_shapes(None)


def test_broadcast_arrays_mismatch_message(backend):
    a, b = np.ones((2, 3), "float32"), np.ones((4,), "float32")
    with pytest.raises(ValueError) as expected:
        np.broadcast_arrays(a, b)
    with pytest.raises(ValueError) as got:
        devarray.broadcast_arrays(dev(a), dev(b))
    assert str(got.value) == str(expected.value)


# ---- reshape ----------------------------------------------------------------

def _factorings(rng, size, ndim):
    """A random shape of `ndim` extents whose product is size (size > 0)."""
    shape = [1] * ndim
    n = size
    for p in range(2, size + 1):
        while n % p == 0:
            shape[int(rng.integers(0, ndim))] *= p
            n //= p
    return tuple(shape)


def test_reshape_views_like_numpy(backend, rng):
    """A view exactly where NumPy gives one (its no-copy rule, for strided
    inputs too), with NumPy's strides; a copy otherwise."""
    views = 0
    for _ in range(150):
        a = random_array(rng, nonempty_shape(rng, min_ndim=1), "int64")
        d = dev(a)
        av, dv = random_view(rng, a, d)
        if av.size == 0:
            continue
        target = _factorings(rng, av.size, int(rng.integers(1, 5)))
        expected = np.reshape(av, target)
        got = devarray.reshape(dv, target)
        if np.shares_memory(expected, a):
            views += 1
            same_view(got, d, expected, a)
            same_view(devarray.reshape(dv, target, copy=False), d, expected, a)
        else:
            is_copy(got, d)
            assert_values(got, expected)
            with pytest.raises(ValueError):
                devarray.reshape(dv, target, copy=False)
            with pytest.raises(ValueError):
                np.reshape(av, target, copy=False)
        forced = devarray.reshape(dv, target, copy=True)
        is_copy(forced, d)
        assert_values(forced, expected)
        # the method shares the function's rule
        method = dv.reshape(target)
        assert method.strides == got.strides
        assert_values(method, expected)
    assert views > 20


def test_reshape_inference_and_empty(backend, rng):
    for shape, target in [((2, 3, 4), (-1,)), ((2, 3, 4), (4, -1)),
                          ((0, 3), (3, 0)), ((0, 3), (-1,)), ((), (1, 1)),
                          ((1,), ()), ((5, 0), (0, -1, 5))]:
        a = random_array(rng, shape, "float32")
        check, exc = None, None
        try:
            check = np.reshape(a, target)
        except ValueError:
            exc = ValueError
        if exc:
            with pytest.raises(exc):
                devarray.reshape(dev(a), target)
            continue
        got = devarray.reshape(dev(a), target)
        assert got.shape == check.shape
        assert got.strides == check.strides
        assert_values(got, check)


def test_reshape_int_shape(backend, rng):
    a = random_array(rng, (2, 3), "float64")
    assert_values(devarray.reshape(dev(a), 6), np.reshape(a, 6))
    assert_values(devarray.reshape(dev(a), [3, 2]), np.reshape(a, [3, 2]))


# ---- concat and stack -------------------------------------------------------

@pytest.mark.parametrize("dt1", DTYPES)
def test_concat_stack_promotion(backend, rng, dt1):
    for dt2 in DTYPES:
        a = random_array(rng, (2, 3), dt1)
        b = random_array(rng, (1, 3), dt2)
        c = random_array(rng, (2, 3), dt2)
        assert_values(devarray.concat([dev(a), dev(b)]), np.concat([a, b]))
        assert_values(devarray.concat((dev(b), dev(a)), axis=None),
                      np.concat((b, a), axis=None))
        assert_values(devarray.stack([dev(a), dev(c)], axis=-1),
                      np.stack([a, c], axis=-1))


def test_concat_random(backend, rng):
    for _ in range(40):
        base = random_shape(rng, min_ndim=1)
        axis = int(rng.integers(-len(base), len(base)))
        arrays = []
        for _ in range(int(rng.integers(1, 4))):
            shape = list(base)
            shape[axis] = int(rng.integers(0, 4))
            arrays.append(random_array(rng, tuple(shape), "float32"))
        devs = []
        for a in arrays:
            av, dv = random_view(rng, a, dev(a)) if rng.random() < 0.3 else (a, dev(a))
            devs.append((av, dv))
        np_in = [av for av, _ in devs]
        try:
            expected = np.concat(np_in, axis=axis)
        except ValueError:
            with pytest.raises(ValueError):
                devarray.concat([dv for _, dv in devs], axis=axis)
            continue
        got = devarray.concat([dv for _, dv in devs], axis=axis)
        is_copy(got, devs[0][1])
        assert_values(got, expected)
        assert_values(devarray.concat([dv for _, dv in devs], axis=None),
                      np.concat(np_in, axis=None))


def test_concat_zero_d_flattened(backend, rng):
    a = random_array(rng, (), "int8")
    b = random_array(rng, (2, 2), "int8")
    assert_values(devarray.concat([dev(a), dev(b)], axis=None),
                  np.concat([a, b], axis=None))


def test_stack_random(backend, rng):
    for _ in range(40):
        shape = random_shape(rng, max_ndim=3)
        n = int(rng.integers(1, 4))
        arrays = [random_array(rng, shape, "uint16") for _ in range(n)]
        for axis in range(-len(shape) - 1, len(shape) + 1):
            got = devarray.stack([dev(a) for a in arrays], axis=axis)
            assert_values(got, np.stack(arrays, axis=axis))
        pairs = [random_view(rng, a, dev(a)) for a in arrays]
        if len({av.shape for av, _ in pairs}) == 1:
            assert_values(devarray.stack([dv for _, dv in pairs]),
                          np.stack([av for av, _ in pairs]))


# ---- roll, repeat, tile -----------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_roll_repeat_tile_every_dtype(backend, rng, dt):
    a = random_array(rng, (3, 4), dt)
    d = dev(a)
    assert_values(devarray.roll(d, 5), np.roll(a, 5))
    assert_values(devarray.roll(d, (1, -1), axis=(0, 1)), np.roll(a, (1, -1), axis=(0, 1)))
    assert_values(devarray.repeat(d, 2, axis=1), np.repeat(a, 2, axis=1))
    assert_values(devarray.tile(d, (2, 1, 3)), np.tile(a, (2, 1, 3)))


def test_roll_random(backend, rng):
    for _ in range(60):
        a = random_array(rng, random_shape(rng), "float32")
        av, dv = random_view(rng, a, dev(a))
        shift = int(rng.integers(-12, 13))
        assert_values(devarray.roll(dv, shift), np.roll(av, shift))
        if not av.ndim:
            continue
        k = int(rng.integers(1, av.ndim + 2))
        axes = tuple(int(i) for i in rng.integers(-av.ndim, av.ndim, size=k))
        shifts = tuple(int(s) for s in rng.integers(-9, 10, size=k))
        got = devarray.roll(dv, shifts, axis=axes)  # repeated axes add up
        assert_values(got, np.roll(av, shifts, axis=axes))
        is_copy(got, dv)
        assert_values(devarray.roll(dv, shift, axis=axes), np.roll(av, shift, axis=axes))
        assert_values(devarray.roll(dv, shifts, axis=axes[0]),
                      np.roll(av, shifts, axis=axes[0]))
    empty = random_array(rng, (2, 3), "int8")
    for shift, axis in [((), None), ((), ()), (1, ()), ((), 0)]:
        assert_values(devarray.roll(dev(empty), shift, axis=axis),
                      np.roll(empty, shift, axis=axis))
    big = random_array(rng, (4, 5), "int64")
    assert_values(devarray.roll(dev(big), 2**40 + 3, axis=1),
                  np.roll(big, 2**40 + 3, axis=1))


def test_repeat_random(backend, rng):
    for _ in range(40):
        a = random_array(rng, random_shape(rng), "int16")
        av, dv = random_view(rng, a, dev(a))
        r = int(rng.integers(0, 4))
        assert_values(devarray.repeat(dv, r), np.repeat(av, r))
        for axis in range(-av.ndim, av.ndim):
            assert_values(devarray.repeat(dv, r, axis=axis), np.repeat(av, r, axis=axis))
            n = av.shape[axis]
            counts = rng.integers(0, 4, size=n).astype(rng.choice(["int8", "uint32", "int64"]))
            got = devarray.repeat(dv, devarray.to_device(counts), axis=axis)
            assert_values(got, np.repeat(av, counts, axis=axis))
            one = np.array([r], dtype="int32")
            assert_values(devarray.repeat(dv, devarray.to_device(one), axis=axis),
                          np.repeat(av, one, axis=axis))
        counts = rng.integers(0, 3, size=av.size)
        assert_values(devarray.repeat(dv, devarray.to_device(counts)),
                      np.repeat(av, counts))


def test_repeat_counts_from_other_backend(backend, rng):
    """repeats is read to the host, so it may live on either backend."""
    a = random_array(rng, (4,), "float64")
    counts = np.array([1, 0, 3, 2])
    d = dev(a)
    previous = devarray.backend()
    devarray.set_backend("host")
    try:
        on_host = devarray.to_device(counts)
    finally:
        devarray.set_backend(previous)
    assert_values(devarray.repeat(d, on_host), np.repeat(a, counts))


def test_tile_random(backend, rng):
    for _ in range(40):
        a = random_array(rng, random_shape(rng, max_ndim=3), "complex128")
        av, dv = random_view(rng, a, dev(a))
        reps = tuple(int(r) for r in rng.integers(0, 4, size=rng.integers(0, 5)))
        got = devarray.tile(dv, reps)
        assert_values(got, np.tile(av, reps))
        is_copy(got, dv)
    a = random_array(rng, (2, 3), "int8")
    assert_values(devarray.tile(dev(a), 3), np.tile(a, 3))


def test_many_dims(backend, rng):
    """32 axes (DA_MAXDIMS): tile and repeat split axes in two internally,
    roll over many axes takes several passes."""
    shape = (2,) * 10 + (1,) * 22
    a = random_array(rng, shape, "uint8")
    d = dev(a)
    reps = (1,) * 5 + (2,) * 10 + (1,) * 17
    assert_values(devarray.tile(d, reps), np.tile(a, reps))
    assert_values(devarray.repeat(d, 2, axis=5), np.repeat(a, 2, axis=5))
    assert_values(devarray.repeat(d, 3, axis=-1), np.repeat(a, 3, axis=-1))
    axes = tuple(range(32))
    shifts = tuple(int(s) for s in rng.integers(-3, 4, size=32))
    assert_values(devarray.roll(d, shifts, axis=axes), np.roll(a, shifts, axis=axes))


def test_results_on_input_backend(backend, rng):
    a = dev(random_array(rng, (2, 3), "float32"))
    for r in (devarray.concat([a, a]), devarray.stack([a, a]), devarray.roll(a, 1),
              devarray.repeat(a, 2), devarray.tile(a, (2,)),
              devarray.reshape(a.T, (6,))):
        assert r.__dlpack_device__() == a.__dlpack_device__()
        assert host(r).dtype == np.float32


def test_all_names_exported():
    names = ["broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
             "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
             "stack", "tile", "unstack"]
    for name in names:
        assert name in devarray.__all__
        assert callable(getattr(devarray, name))


def test_itertools_product_shapes(backend, rng):
    """Every small shape: flip, moveaxis and roll of all of them."""
    for shape in itertools.product(range(0, 3), repeat=2):
        a = random_array(rng, shape, "int32")
        d = dev(a)
        same_view(devarray.flip(d, axis=0), d, np.flip(a, axis=0), a)
        assert_values(devarray.roll(d, 1, axis=1), np.roll(a, 1, axis=1))
        assert_values(devarray.repeat(d, 2, axis=0), np.repeat(a, 2, axis=0))
