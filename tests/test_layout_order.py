"""The layout of elementwise results (src/core/elementwise.c's result order,
array_new_ordered in src/core/array.c): NumPy's K order, checked by `strides`
and values against NumPy on both backends, for permuted, F-order, sliced,
negative-stride, broadcast, 0-d and empty operands of every op family
(unary, binary, comparison, where, clip, astype, copy), and the values of
the routes that move data across layouts (a + a.T, a.T.copy())."""

import copy

import numpy as np
import pytest

import devarray
from _helpers import assert_values, eps, host, random_array

STEPS = (1, -1, 2, -2)


def random_view(rng, shape, dtype="float32"):
    """A NumPy array of `shape` and a DeviceArray view with its layout: a
    random permutation of the axes of a sliced (steps of +-1, +-2) C-ordered
    base, built by the same operations on both sides."""
    ndim = len(shape)
    perm = tuple(int(i) for i in rng.permutation(ndim))
    steps = [int(rng.choice(STEPS)) for _ in range(ndim)]
    # view axis i is base axis perm[i]
    base_shape = [0] * ndim
    for i in range(ndim):
        base_shape[perm[i]] = shape[i] * abs(steps[perm[i]]) + int(rng.integers(0, 2))
    base = random_array(rng, tuple(base_shape), dtype)
    index = tuple(slice(None, None, s) for s in steps)
    trims = tuple(slice(0, shape[i]) for i in np.argsort(perm))
    expected = base[index][trims].transpose(perm)
    got = devarray.to_device(base)[index][trims]
    got = devarray.permute_dims(got, perm)
    assert got.shape == expected.shape == tuple(shape)
    if expected.size:
        assert got.strides == expected.strides, (got.strides, expected.strides)
    return expected, got


def broadcast_shapes(rng, count):
    """`count` shapes that broadcast together (leading axes dropped, some
    extents 1), extents 0..4 with 0 rare."""
    ndim = int(rng.integers(0, 5))
    target = [int(rng.integers(1, 5)) if rng.random() > 0.05 else 0 for _ in range(ndim)]
    shapes = []
    for _ in range(count):
        drop = int(rng.integers(0, ndim + 1)) if rng.random() < 0.3 else 0
        shape = [n if rng.random() > 0.2 else 1 for n in target[drop:]]
        shapes.append(tuple(shape))
    return shapes


def assert_like(got, expected, rtol=0.0):
    """NumPy's strides (empty results aside: their strides are
    conventions) and values."""
    expected = np.asarray(expected)
    assert isinstance(got, devarray.DeviceArray), type(got)
    if expected.size:
        assert got.strides == expected.strides, (got.strides, expected.strides,
                                                 expected.shape)
    assert_values(got, expected, rtol=rtol)


UNARY = [
    ("negative", np.negative, devarray.negative),
    ("abs", np.abs, devarray.abs),
    ("sqrt", lambda a: np.sqrt(np.abs(a)), lambda a: devarray.sqrt(devarray.abs(a))),
    ("isnan", np.isnan, devarray.isnan),
]
BINARY = [
    ("add", np.add, devarray.add),
    ("multiply", np.multiply, devarray.multiply),
    ("less", np.less, devarray.less),
    ("equal_op", lambda a, b: a == b, lambda a, b: a == b),
    ("sub_op", lambda a, b: a - b, lambda a, b: a - b),
]


@pytest.mark.parametrize("name,np_fn,da_fn", UNARY, ids=[u[0] for u in UNARY])
def test_unary_keeps_layout(backend, rng, name, np_fn, da_fn):
    for _ in range(30):
        (shape,) = broadcast_shapes(rng, 1)
        a, d = random_view(rng, shape)
        with np.errstate(all="ignore"):
            expected = np_fn(a)
        assert_like(da_fn(d), expected)


@pytest.mark.parametrize("name,np_fn,da_fn", BINARY, ids=[b[0] for b in BINARY])
def test_binary_follows_inputs(backend, rng, name, np_fn, da_fn):
    for _ in range(40):
        shapes = broadcast_shapes(rng, 2)
        (a, d), (b, e) = (random_view(rng, s) for s in shapes)
        assert_like(da_fn(d, e), np_fn(a, b))
        # a Python scalar operand does not vote
        assert_like(da_fn(d, 2.0), np_fn(a, np.float32(2.0)))


def test_where_and_clip(backend, rng):
    for _ in range(40):
        shapes = broadcast_shapes(rng, 3)
        (c, dc), (a, d), (b, e) = (random_view(rng, s) for s in shapes)
        cond, dcond = c > 0, dc > 0
        assert_like(devarray.where(dcond, d, e), np.where(cond, a, b))
        assert_like(devarray.where(dcond, d, 1.5), np.where(cond, a, np.float32(1.5)))
        low = np.minimum(a, b)
        dlow = devarray.minimum(d, e)
        assert_like(devarray.clip(d, min=dlow), np.clip(a, low, None))
        assert_like(devarray.clip(d, min=-1.0, max=1.0),
                    np.clip(a, np.float32(-1.0), np.float32(1.0)))


@pytest.mark.parametrize("dtype", ["float64", "int16", "bool", "complex64"])
def test_astype_keeps_layout(backend, rng, dtype):
    for _ in range(30):
        (shape,) = broadcast_shapes(rng, 1)
        a, d = random_view(rng, shape)
        with np.errstate(all="ignore"):
            assert_like(d.astype(dtype), a.astype(dtype))
            assert_like(devarray.astype(d, getattr(devarray, dtype)), a.astype(dtype))
            for order in "CFAK":
                assert_like(d.astype(dtype, order=order), a.astype(dtype, order=order))


def test_copy_orders(backend, rng):
    for _ in range(30):
        (shape,) = broadcast_shapes(rng, 1)
        a, d = random_view(rng, shape)
        assert_like(d.copy(), a.copy())
        for order in ("C", "F", "A", "K", "k", None):
            assert_like(d.copy(order=order), a.copy(order=order))
        assert_like(copy.copy(d), copy.copy(a))
        assert_like(copy.deepcopy(d), copy.deepcopy(a))


def test_f_order_stays_f_order(backend, rng):
    a = np.asfortranarray(random_array(rng, (5, 7, 3), "float32"))
    d = devarray.permute_dims(devarray.to_device(np.ascontiguousarray(a.T)), (2, 1, 0))
    assert d.strides == a.strides
    for got, expected in [(d + d, a + a), (-d, -a), (d * 2, a * 2), (d < d, a < a),
                          (d.astype("float64"), a.astype("float64"))]:
        assert_like(got, expected)
        assert got.strides == expected.strides  # F in, F out


def test_disagreeing_inputs_take_c_order(backend, rng):
    a = random_array(rng, (6, 6), "float32")
    d = devarray.to_device(a)
    assert_like(d + d.T, a + a.T)
    assert_like(d.T + d, a.T + a)
    assert (d.T + d).strides == (24, 4)


def test_zero_d_and_empty(backend, rng):
    a = np.float32(3.5)
    d = devarray.asarray(np.asarray(a))
    assert_like(d + d, np.asarray(a) + np.asarray(a))
    assert_like(d.copy(order="F"), np.asarray(a).copy(order="F"))
    for shape in [(0,), (3, 0), (0, 4, 2)]:
        base = np.zeros(shape, np.float32)
        e = devarray.to_device(base)
        assert_like(e.T + e.T, base.T + base.T)
        assert_like(e.T.astype("int8"), base.T.astype("int8"))
        assert_like(e.T.copy(order="K"), base.T.copy(order="K"))


@pytest.mark.parametrize("shape", [(33, 65), (64, 64), (1, 40), (40, 1), (3, 130, 67),
                                   (4, 40, 40)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "complex128", "float16"])
def test_transposing_routes(backend, rng, shape, dtype):
    """a + a.T, a.T.copy() and casts of transposed views: the tiled route
    on the GPU (sizes around its 32x32 tile), blocked loops on the host."""
    a = random_array(rng, shape, dtype)
    d = devarray.to_device(a)
    t_axes = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
    at, dt = a.transpose(t_axes), devarray.permute_dims(d, t_axes)
    assert_like(dt.copy(), at.copy())
    assert_like(dt.copy(order="F"), at.copy(order="F"))
    with np.errstate(all="ignore"):
        assert_like(dt.astype("float32").copy(), at.astype("float32").copy())
        wide = "complex128" if a.dtype.kind == "c" else "float64"
        assert_like(devarray.astype(dt, getattr(devarray, wide)).copy(),
                    at.astype(wide).copy())
    if a.shape[-1] == a.shape[-2]:
        with np.errstate(all="ignore"):
            assert_like(d + dt, a + at)
            # complex products may round unlike NumPy's loops
            assert_like(dt * d, at * a, rtol=4 * eps(dtype) if a.dtype.kind == "c" else 0.0)
            assert_like(d < dt, a < at)


@pytest.mark.parametrize("shape", [(33, 5, 65), (64, 1, 40), (40, 70, 33)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "complex64"])
def test_transposing_leading_axis(backend, rng, shape, dtype):
    """permute_dims(t, (2, 1, 0)) and its kin: 3-D problems whose input is
    dense along axis 0 and the output along axis 2, the middle axis a
    batch, which take the tiled route with its rows along axis 0 (sizes
    around the 32x32 tile, a batch of one among them)."""
    base = random_array(rng, shape[::-1], dtype)
    a = base.transpose(2, 1, 0)
    d = devarray.permute_dims(devarray.to_device(base), (2, 1, 0))
    assert_like(d.copy(), a.copy())
    with np.errstate(all="ignore"):
        assert_like(d.astype("float64").copy(), a.astype("float64").copy())
    c = random_array(rng, shape, dtype)
    dc = devarray.to_device(c)
    with np.errstate(all="ignore"):
        assert_like(dc + d, c + a)
        assert_like(d - dc, a - c)
        assert_like(devarray.maximum(d, dc), np.maximum(a, c))


@pytest.mark.parametrize("shape", [(33, 33), (3, 40, 40)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_transposing_rarer_binary_ops(backend, rng, shape, dtype):
    """Binary ops without a tiled kernel (kernels/transpose.cuh's
    has_tiled_kernel) between transposed operands: the strided route."""
    a = random_array(rng, shape, dtype)
    b = random_array(rng, shape, dtype)
    d, e = devarray.to_device(a), devarray.to_device(b)
    axes = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
    at, et = a.transpose(axes), devarray.permute_dims(e, axes)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f":
            # the math library's last bit may differ from NumPy's
            assert_like(devarray.atan2(d, et), np.arctan2(a, b.transpose(axes)),
                        rtol=4 * eps(dtype))
            assert_like(devarray.pow(et, d), np.power(b.transpose(axes), a),
                        rtol=4 * eps(dtype))
        else:
            nonzero = np.where(b == 0, 1, b).astype(dtype)
            dn = devarray.permute_dims(devarray.to_device(nonzero), axes)
            assert_like(devarray.floor_divide(d, dn), a // nonzero.transpose(axes))
            assert_like(devarray.bitwise_xor(devarray.permute_dims(d, axes), e),
                        at ^ b)


def test_transposed_views_of_views(backend, rng):
    """Sliced and reversed transposed operands of the 2-D routes."""
    a = random_array(rng, (70, 90), "float32")
    d = devarray.to_device(a)
    for index in [(slice(1, 65), slice(3, 67)), (slice(None, None, -1), slice(0, 70)),
                  (slice(0, 64, 2), slice(5, 69, 2))]:
        v, dv = a[index], d[index]
        assert_like(dv.T.copy(), v.T.copy())
        assert_like(dv + dv.T, v + v.T)
        assert_like(dv.T - dv, v.T - v)


def test_mixed_dtypes_through_the_tiles(backend, rng):
    """Operands of other dtypes than their class's own (the tiles' generic
    loads) and a scalar beside a transposed operand."""
    a = random_array(rng, (48, 48), "int32")
    b = random_array(rng, (48, 48), "float32")
    h = random_array(rng, (48, 48), "float16")
    da_, db, dh = (devarray.to_device(x) for x in (a, b, h))
    with np.errstate(all="ignore"):
        assert_like(da_ + db.T, a + b.T)
        assert_like(db.T * da_, b.T * a)
        assert_like(dh + dh.T, h + h.T)
        assert_like(dh.T > db, h.T > b)
        assert_like(devarray.where(db > 0, da_.T, 2), np.where(b > 0, a.T, 2))
        assert_like(dh.T.astype("float64", order="C"), h.T.astype("float64", order="C"))


@pytest.mark.parametrize("n", [8, 40])
def test_in_place_ops_keep_their_layout(backend, rng, n):
    a = random_array(rng, (n, n), "float32")
    b = random_array(rng, (n, n), "float32")
    d, e = devarray.to_device(a), devarray.to_device(b)
    t = d.T.copy(order="K")
    before = t.strides
    t += d
    assert t.strides == before
    assert_values(t, a.T + a)
    u = d.copy()
    u *= e.T  # a C-ordered output, a transposed input: the tiles, in place
    assert u.strides == (4 * n, 4)
    assert_values(u, a * b.T)
    u += u.T  # overlapping: read from a copy first
    expected = a * b.T
    assert_values(u, expected + expected.T)


def test_copy_order_misuse(backend):
    d = devarray.to_device(np.ones((2, 3), np.float32))
    for bad, exc in [("X", ValueError), ("CC", ValueError), ("", ValueError), (1, TypeError)]:
        with pytest.raises(exc):
            d.copy(order=bad)
        with pytest.raises(exc):
            d.astype("float64", order=bad)
    assert host(d).tolist() == [[1.0] * 3] * 2


def test_other_layouts_downstream(backend, rng):
    """Results that are not C-contiguous through what follows an op:
    reshape (NumPy's no-copy rule), reductions, transfers, DLPack and CAI
    strides, setitem, pickling."""
    import pickle

    a = random_array(rng, (6, 5, 4), "float32")
    d = devarray.to_device(a)
    perm = (2, 0, 1)
    got = devarray.permute_dims(d, perm) * 2
    expected = a.transpose(perm) * 2
    assert got.strides == expected.strides
    assert_values(got.reshape(-1), expected.reshape(-1))
    assert_values(got.reshape(4, 30), expected.reshape(4, 30))
    assert_values(got.T.reshape(-1), expected.T.reshape(-1))
    assert_values(got.sum(axis=0), expected.sum(axis=0), rtol=1e-6)
    assert_values(got.sum(axis=(1, 2)), expected.sum(axis=(1, 2)), rtol=1e-6)
    assert_values(devarray.cumulative_sum(got, axis=1),
                  np.cumsum(expected, axis=1), rtol=1e-6)
    assert np.array_equal(got.to_host(), expected)
    assert got.to_host().strides == np.ascontiguousarray(expected).strides
    if backend == "host":
        assert np.array_equal(np.from_dlpack(got), expected)
        assert np.from_dlpack(got).strides == expected.strides
    else:
        assert got.__cuda_array_interface__["strides"] == expected.strides
    got[1:3] = devarray.ones((2, 6, 5), dtype=devarray.float32)
    expected[1:3] = 1
    assert_values(got, expected)
    assert_values(pickle.loads(pickle.dumps(got)), expected)
