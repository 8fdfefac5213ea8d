"""Indexing by arrays (src/ops/array_index.c, src/ops/take.c, kernels/gather.cu,
src/host/host_gather.c) against NumPy on random data, on both backends:
integer arrays, lists and boolean masks in __getitem__ and __setitem__
(alone, broadcast together, combined with ints, slices, None and Ellipsis,
adjacent or not), take, take_along_axis and nonzero, for every dtype, with
empty, 0-d, non-contiguous and negative-stride operands.  Elements are
moved, never computed, so results are compared byte for byte."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, host, random_array


def dev(a):
    return devarray.asarray(np.array(a, order="C"))


def assert_same(got, expected):
    expected = np.asarray(expected)
    assert isinstance(got, devarray.DeviceArray), type(got)
    assert str(got.dtype) == str(expected.dtype), (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert host(got).tobytes() == np.ascontiguousarray(expected).tobytes(), (
        host(got), expected)


def to_dev_key(key):
    """The key with every NumPy array made a DeviceArray (lists stay)."""
    if isinstance(key, tuple):
        return tuple(to_dev_key(k) for k in key)
    if isinstance(key, np.ndarray):
        return dev(key)
    return key


def layouts(a):
    """a as NumPy and devarray operands: contiguous, strided, reversed."""
    d = dev(a)
    yield a, d
    if a.ndim and a.shape[-1] > 1:
        yield a[..., ::2], d[..., ::2]
    if a.ndim:
        yield a[::-1], d[::-1]


def keys_for(rng):
    """Keys over an array of shape (4, 5, 6): NumPy's forms of array
    indexing."""
    i4 = rng.integers(-4, 4, size=3)
    i5 = rng.integers(-5, 5, size=3)
    i6 = rng.integers(-6, 6, size=(2, 3))
    m4 = rng.random(4) < 0.5
    m45 = rng.random((4, 5)) < 0.5
    m456 = rng.random((4, 5, 6)) < 0.5
    return [
        (i4,),
        i4,
        [0, -1, 2],
        [],
        (i4, i5),
        (i4, i5, i6[0]),
        (i4[:, None], i5),
        (i4, slice(None), i6[0]),     # separated: block first
        (0, slice(None), i6),         # int and array separated by a slice
        (slice(None), 1, i6[0]),      # adjacent int and array
        (Ellipsis, i6),
        (None, i4, Ellipsis, None),
        (i4, None, 2),
        (slice(1, None, 2), i5[:2]),
        m4,
        (m4,),
        m45,
        m456,
        (slice(None), m45[0]),
        (m4, 2),
        (m4, slice(None), i6[0, :1]),
        (Ellipsis, rng.random(6) < 0.5),
        True,
        False,
        (True, 1),
        (i4, True),
        (np.array([], dtype=np.int64),),
        np.zeros((4, 5, 6), dtype=bool),
    ]


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_like_numpy(backend, dtype):
    rng = np.random.default_rng(10)
    a = random_array(rng, (4, 5, 6), dtype)
    for key in keys_for(rng):
        for x, d in layouts(a):
            if x.shape != a.shape:
                # the strided/reversed layouts keep every key's meaning only
                # where the shape is the same; others are checked below
                continue
            expected = x[key]
            assert_same(d[to_dev_key(key)], expected)
    # strided and reversed sources with keys fitted to their shapes
    for x, d in layouts(a):
        i = rng.integers(-x.shape[-1], x.shape[-1], size=4)
        m = rng.random(x.shape) < 0.5
        assert_same(d[..., dev(i)], x[..., i])
        assert_same(d[dev(m)], x[m])
        assert_same(d[dev(i % 4), :, dev(i)], x[i % 4, :, i])


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (1, 7)])
def test_getitem_shapes(backend, shape):
    rng = np.random.default_rng(11)
    a = random_array(rng, shape, "float32")
    d = dev(a)
    m = rng.random(shape) < 0.5
    assert_same(d[dev(m)], a[m])
    assert_same(d[True], a[True])
    assert_same(d[False], a[False])
    if a.ndim:
        i = rng.integers(0, shape[0], size=5) if shape[0] else np.zeros(0, np.int64)
        assert_same(d[dev(i)], a[i])
        assert_same(d[dev(i.reshape(5, 1) if i.size else i)],
                    a[i.reshape(5, 1) if i.size else i])


@pytest.mark.parametrize("idtype", ["int8", "uint8", "int16", "uint16", "int32",
                                    "uint32", "int64", "uint64"])
def test_index_dtypes(backend, idtype):
    a = np.arange(20, dtype=np.float64).reshape(4, 5)
    d = dev(a)
    i = np.array([3, 0, 1, 3], dtype=idtype)
    assert_same(d[dev(i)], a[i])
    assert_same(d[:, dev(i)], a[:, i])
    if np.dtype(idtype).kind == "i":
        j = np.array([-1, -4, 2], dtype=idtype)
        assert_same(d[dev(j)], a[j])


def test_getitem_is_a_copy(backend):
    a = np.arange(6.0)
    d = dev(a)
    r = d[dev(np.array([1, 2]))]
    d[1] = 100.0
    assert_same(r, a[[1, 2]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_like_numpy(backend, dtype):
    rng = np.random.default_rng(12)
    a = random_array(rng, (4, 5, 6), dtype)
    # distinct indices: where several address one element the GPU keeps any
    # one of the values (NumPy the last); test_setitem_repeated covers that
    cases = [
        (np.array([2, 0, -1]), None),
        ((slice(None), np.array([4, 1])), None),
        ((np.array([0, 3]), slice(None), np.array([5, 0])), None),
        ((1, np.array([[0], [2]]), np.array([1, 3, 5])), None),
        (rng.random((4, 5, 6)) < 0.5, None),
        ((slice(None), rng.random(5) < 0.5), None),
        ((np.array([1, 2]),), "row"),
        (np.array([], dtype=np.int64), None),
    ]
    for key, mode in cases:
        for x, d in [(a.copy(), dev(a))]:
            sel = x[key]
            values = random_array(rng, sel.shape, dtype)
            if mode == "row":
                values = values[:1]       # broadcast along the first axis
            x[key] = values
            d[to_dev_key(key)] = dev(values)
            assert_same(d, x)
            # a Python scalar, and a list
            scalar = values.reshape(-1)[0].item() if values.size else 0
            x[key] = scalar
            d[to_dev_key(key)] = scalar
            assert_same(d, x)
    # into a strided and into a reversed view
    x = a.copy()
    d = dev(a)
    i = np.array([0, 2])
    x[::-1][:, i] = a[0, :2]
    d[::-1][:, dev(i)] = dev(a[0, :2])
    assert_same(d, x)
    x[:, ::2][rng.random((4, 3, 6)) < 0.5] = a[0, 0, 0]
    m = rng.random((4, 3, 6)) < 0.5
    x[:, ::2][m] = a[1, 1, 1]
    d[:, ::2][dev(m)] = a[1, 1, 1].item()
    assert_same(d[:, ::2][dev(m)], x[:, ::2][m])


def test_setitem_casts_and_lists(backend):
    a = np.zeros((3, 4), dtype=np.int32)
    d = dev(a)
    a[[0, 2], 1] = [7, 8]
    d[[0, 2], 1] = [7, 8]
    assert_same(d, a)
    a[a > 5] = np.array([1.9, 2.9])[0]
    d[d > 5] = dev(np.array([1.9, 2.9]))[0]
    assert_same(d, a)


def test_setitem_from_overlapping_source(backend):
    a = np.arange(10.0)
    d = dev(a)
    a[np.array([1, 2, 3])] = a[0:3]
    d[dev(np.array([1, 2, 3]))] = d[0:3]
    assert_same(d, a)


def test_setitem_repeated(backend):
    d = dev(np.zeros(4))
    d[dev(np.array([1, 1, 1]))] = dev(np.array([5.0, 6.0, 7.0]))
    got = host(d)
    assert got[1] in (5.0, 6.0, 7.0) and got[[0, 2, 3]].tolist() == [0, 0, 0]
    if backend == "host":
        assert got[1] == 7.0  # in order, as NumPy


@pytest.mark.parametrize("kind", ["flat", "short rows", "two arrays", "whole rows"])
def test_scatter_out_of_bounds_writes_nothing(backend, rng, kind):
    """An index out of bounds anywhere in a scatter of many blocks (here the
    last of 200,000) raises IndexError and leaves every element as it was,
    in each kernel shape of kernels/gather.cu: x[i] of a strided 1-d x,
    rows of 3 (the general kernel), two index arrays, whole rows."""
    n = 200_000
    a = random_array(rng, (n, 40) if kind == "whole rows" else (n, 3), "float32")
    d = dev(a)
    target = d[:, 1] if kind == "flat" else d
    i = rng.permutation(n)
    i[-1] = n + 5
    key = (dev(i), dev(rng.integers(0, 3, size=n))) if kind == "two arrays" else dev(i)
    values = random_array(rng, (n,) if kind in ("flat", "two arrays") else (n, a.shape[1]),
                          "float32")
    with pytest.raises(IndexError):
        target[key] = dev(values)
    assert_same(d, a)


@pytest.mark.parametrize("dtype,shape", [("uint8", (40, 130)), ("uint8", (40, 127)),
                                         ("float32", (300, 40)), ("float32", (300, 41)),
                                         ("float64", (9, 3, 17)), ("complex128", (70, 8)),
                                         ("int16", (2000, 64))])
def test_whole_rows(backend, rng, dtype, shape):
    """m[i] and m[i] = q where i selects whole rows (kernels/gather.cu's rows
    kernel from 128 bytes on): rows of every unit width (16-byte, 4-byte and
    single-byte units), sources whose base is not 16-byte aligned, negative,
    repeated and uint64 indices, index arrays of two dimensions, and an
    out-of-bounds index as IndexError that leaves the target unchanged."""
    whole = random_array(rng, (shape[0] + 1,) + shape[1:], dtype)
    flat = random_array(rng, whole.size + 3, dtype)
    shifted = flat[3:].reshape(whole.shape)      # base 3 elements in
    n = shape[0]
    for source in (whole, shifted):
        d = dev(whole) if source is whole else dev(flat)[3:].reshape(whole.shape)
        i = rng.integers(-n, n, size=3 * n)
        assert_same(d[dev(i)], source[i])
        assert_same(d[dev(i.reshape(3, n))], source[i.reshape(3, n)])
        u = rng.integers(0, n, size=n).astype(np.uint64)
        assert_same(d[dev(u)], source[u])
        assert_same(devarray.take(d, dev(i), axis=0), np.take(source, i, axis=0))
        with pytest.raises(IndexError):
            d[dev(np.array([0, n + 1]))]
        # distinct rows: where several address one row the GPU keeps any one
        target, dt = source.copy(), dev(source) if source is whole else d
        rows = rng.permutation(n)[: n // 2] - n // 3
        values = random_array(rng, (rows.size,) + source.shape[1:], dtype)
        target[rows] = values
        dt[dev(rows)] = dev(values)
        assert_same(dt, target)
        with pytest.raises(IndexError):
            dt[dev(np.array([1, -n - 2]))] = dev(values[:2])
        assert_same(dt, target)


@pytest.mark.parametrize("dtype", DTYPES)
def test_take(backend, dtype):
    rng = np.random.default_rng(13)
    a = random_array(rng, (3, 4, 5), dtype)
    for x, d in layouts(a):
        for axis in range(x.ndim):
            n = x.shape[axis]
            i = rng.integers(-n, n, size=7)
            assert_same(devarray.take(d, dev(i), axis=axis), np.take(x, i, axis=axis))
            assert_same(devarray.take(d, dev(i), axis=axis - x.ndim),
                        np.take(x, i, axis=axis))
            i2 = rng.integers(0, n, size=(2, 3))
            assert_same(devarray.take(d, dev(i2), axis=axis), np.take(x, i2, axis=axis))
        assert_same(devarray.take(d, dev(np.array([0, -1]))), np.take(x, [0, -1]))
    one = random_array(rng, (6,), dtype)
    assert_same(devarray.take(dev(one), dev(np.array([5, 0, 5]))), one[[5, 0, 5]])
    assert_same(devarray.take(dev(one), dev(np.zeros(0, np.int64))), one[[]])
    assert_same(devarray.take(dev(one), [1, 2]), one[[1, 2]])
    assert_same(devarray.take(dev(one), dev(np.array(2))), np.take(one, 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_axis(backend, dtype):
    rng = np.random.default_rng(14)
    a = random_array(rng, (3, 4, 5), dtype)
    for x, d in layouts(a):
        for axis in range(-x.ndim, x.ndim):
            n = x.shape[axis]
            shape = list(x.shape)
            shape[axis] = 6
            i = rng.integers(-n, n, size=shape)
            assert_same(devarray.take_along_axis(d, dev(i), axis=axis),
                        np.take_along_axis(x, i, axis=axis))
            # broadcasting of the indices and of x outside axis
            shape = [1] * x.ndim
            shape[axis] = 2
            i = rng.integers(0, n, size=shape)
            assert_same(devarray.take_along_axis(d, dev(i), axis=axis),
                        np.take_along_axis(x, i, axis=axis))
    i = rng.integers(0, 5, size=(3, 4, 2))
    assert_same(devarray.take_along_axis(dev(a), dev(i)), np.take_along_axis(a, i, -1))
    e = np.zeros((3, 0), dtype=dtype)
    i = np.zeros((3, 0), dtype=np.int64)
    assert_same(devarray.take_along_axis(dev(e), dev(i), axis=1),
                np.take_along_axis(e, i, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero(backend, dtype):
    rng = np.random.default_rng(15)
    for shape in [(0,), (1,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)]:
        a = random_array(rng, shape, dtype)
        if np.dtype(dtype).kind != "b":
            a = np.where(rng.random(shape) < 0.5, np.zeros((), dtype), a)
        for x, d in layouts(a):
            got = devarray.nonzero(d)
            expected = np.nonzero(x)
            assert isinstance(got, tuple) and len(got) == len(expected)
            for g, e in zip(got, expected):
                assert_same(g, e.astype(np.int64))
    special = np.array([np.nan, 0.0, -0.0, np.inf, 1e-300])
    for g, e in zip(devarray.nonzero(dev(special)), np.nonzero(special)):
        assert_same(g, e.astype(np.int64))


def test_nonzero_all_and_none(backend):
    a = np.ones((5, 3), dtype=bool)
    for x in (a, ~a):
        for g, e in zip(devarray.nonzero(dev(x)), np.nonzero(x)):
            assert_same(g, e.astype(np.int64))


@pytest.mark.parametrize("shape,mask_shape", [
    ((1,), (0,)), ((3,), (0,)), ((2, 3), (0, 3)), ((2, 3), (2, 0)), ((2, 3, 4), (0, 3)),
])
def test_empty_mask_axis_selects_nothing(backend, shape, mask_shape):
    """A mask extent of 0 matches any axis (the standard's rule, and
    NumPy's): nothing is selected, and nothing is written."""
    rng = np.random.default_rng(17)
    a = random_array(rng, shape, "float32")
    m = np.zeros(mask_shape, dtype=bool)
    d = dev(a)
    assert_same(d[dev(m)], a[m])
    d[dev(m)] = 7.0
    assert_same(d, a)


def test_mask_filter_large(backend):
    """x[x > t], the filter, over several blocks of the compaction."""
    rng = np.random.default_rng(16)
    for dtype in ["int8", "float32", "complex128"]:
        a = random_array(rng, (70007,), dtype)
        m = rng.random(a.shape) < 0.3
        assert_same(dev(a)[dev(m)], a[m])
        b = a.reshape(7, 10001)
        assert_same(dev(b)[dev(m.reshape(7, 10001))], b[m.reshape(7, 10001)])
