"""NumPy's functions and ufuncs on DeviceArrays (__array_function__,
__array_ufunc__; src/api/numpy_protocol.c): devarray's run, on the device, and
agree with NumPy; nothing is computed on a host copy."""

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
from _helpers import assert_values, eps, random_array  # noqa: E402


def on_device(result, like):
    """result is a DeviceArray on like's device (no host round trip)."""
    assert isinstance(result, devarray.DeviceArray), type(result)
    assert result.device == like.device
    return result


FUNCTIONS = [
    ("sum", lambda m, a: m.sum(a, axis=(0,), dtype=np.dtype("float64"), keepdims=True,
                               out=None)),
    ("prod", lambda m, a: m.prod(a, axis=1)),
    ("max", lambda m, a: m.max(a, axis=0, keepdims=True)),
    ("amin", lambda m, a: m.amin(a)),
    ("mean", lambda m, a: m.mean(a, axis=1)),
    ("concatenate", lambda m, a: m.concatenate([a, a * 2], axis=1)),
    ("stack", lambda m, a: m.stack([a, a])),
    ("where", lambda m, a: m.where(a > 0, a, -a)),
    ("reshape", lambda m, a: m.reshape(a, (4, 3))),
    ("transpose", lambda m, a: m.transpose(a)),
    ("transpose axes", lambda m, a: m.transpose(a, axes=(1, 0))),
    ("squeeze", lambda m, a: m.squeeze(m.expand_dims(a, axis=0))),
    ("clip", lambda m, a: m.clip(a, -0.5, 0.5)),
    ("sort", lambda m, a: m.sort(a)),
    ("isin", lambda m, a: m.isin(a, a[1:, ::2], invert=True)),
    ("cumsum", lambda m, a: m.cumsum(a[0])),
    ("tensordot", lambda m, a: m.tensordot(a, a.T, axes=1)),
    ("empty_like shape", lambda m, a: m.zeros_like(a, shape=(2, 5))),
    ("array like", lambda m, a: m.array([1.5, 2.5], like=a, ndmin=3)),
]


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_functions(backend, rng, name, fn):
    a = random_array(rng, (3, 4), "float32")
    d = devarray.asarray(a)
    got = on_device(fn(np, d), d)
    if name == "array like":  # numpy.array(obj, like=d): obj on d's device
        assert_values(got, np.array([1.5, 2.5], ndmin=3))
        return
    assert_values(got, fn(np, a), rtol=1e-6 if name in ("sum", "mean", "tensordot") else 0.0)


# the math library's functions may differ from NumPy's by ulps
TRANSCENDENTAL = {"exp", "arccos", "arctanh", "power", "arctan2", "hypot"}
UNARY = ["exp", "sqrt", "absolute", "negative", "arccos", "arctanh", "conjugate", "rint",
         "isnan", "sign", "floor"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "arctan2", "maximum", "greater",
          "floor_divide", "remainder", "logical_and", "hypot", "copysign", "matmul"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs(backend, rng, name):
    a = random_array(rng, (5, 7), "float64") / 4  # inside arccos's and arctanh's domains
    d = devarray.asarray(a)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a)
    rtol = 4 * eps(a.dtype) if name in TRANSCENDENTAL else 0.0
    assert_values(on_device(getattr(np, name)(d), d), expected, rtol=rtol)


@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs(backend, rng, name):
    a = random_array(rng, (6, 6), "float32")
    b = random_array(rng, (6, 6), "float32") + 2  # positive, for power and remainder
    d, e = devarray.asarray(a), devarray.asarray(b)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, b)
    got = on_device(getattr(np, name)(d, e), d)
    rtol = 4 * eps(a.dtype) if name in TRANSCENDENTAL else 1e-5 if name == "matmul" else 0.0
    assert_values(got, expected, rtol=rtol)


def test_integer_ufuncs(backend, rng):
    a = rng.integers(-1000, 1000, size=(9,)).astype(np.int32)
    s = rng.integers(0, 8, size=(9,)).astype(np.int32)
    d, t = devarray.asarray(a), devarray.asarray(s)
    assert_values(np.invert(d), np.invert(a))
    assert_values(np.bitwise_not(d), np.bitwise_not(a))
    assert_values(np.left_shift(d, t), np.left_shift(a, s))
    assert_values(np.right_shift(d, t), np.right_shift(a, s))


def test_scalars_and_dtype(backend, rng):
    """Python scalars are weak, NumPy's are not (NEP 50); dtype= is the dtype
    the loop computes in."""
    a = rng.integers(-100, 100, size=(8,)).astype(np.int16)
    d = devarray.asarray(a)
    for got, expected in [
        (np.multiply(d, 3), np.multiply(a, 3)),
        (np.multiply(d, np.float32(1.5)), np.multiply(a, np.float32(1.5))),
        (np.float32(1.5) * d, np.float32(1.5) * a),
        (d - np.int64(7), a - np.int64(7)),
        (np.add(d, d, dtype=np.int8), np.add(a, a, dtype=np.int8)),
        (np.add(d, d, dtype="float64"), np.add(a, a, dtype="float64")),
        (np.add(d, 1, out=None), np.add(a, 1)),
    ]:
        assert got.dtype == expected.dtype
        assert_values(on_device(got, d), expected)


def test_refusals(backend):
    d = devarray.asarray([1.0, 2.0, 3.0])
    host = np.ones(3)
    with pytest.raises(TypeError, match="numpy.ndarray.*devarray.asarray"):
        d + host
    with pytest.raises(TypeError, match="numpy.ndarray"):
        host + d
    with pytest.raises(TypeError, match="numpy.ndarray"):
        np.maximum(host, d)
    with pytest.raises(TypeError, match="numpy.add on DeviceArrays does not take out="):
        np.add(d, d, out=d)
    with pytest.raises(TypeError, match="numpy.sum on DeviceArrays does not take out="):
        np.sum(d, out=d)
    with pytest.raises(TypeError, match="no function for <ufunc 'fmod'>"):
        np.fmod(d, 2.0)
    with pytest.raises(TypeError, match="reduce"):
        np.add.reduce(d)
    # numpy.linalg's functions map to devarray.linalg's, where it has them
    with pytest.raises(TypeError, match="numpy.linalg.tensorsolve"):
        np.linalg.tensorsolve(d, d)
    with pytest.raises(TypeError, match="numpy.concatenate"):
        np.concatenate([d, host])
    with pytest.raises(TypeError, match="numpy.nanmax"):
        np.nanmax(d)
    with pytest.raises(TypeError, match="same_kind"):
        np.add(d, d, dtype=np.int32)  # float64 to int32, as NumPy refuses
    with pytest.raises(ValueError, match="ndmin"):
        np.array([1.0], like=d, ndmin=65)
    # explicit conversions still copy to the host
    assert type(np.asarray(d)) is np.ndarray
    np.testing.assert_array_equal(np.asarray(d), [1.0, 2.0, 3.0])


def test_methods_and_dtype_type(backend, rng):
    a = random_array(rng, (1, 3, 1, 4), "float64")
    d = devarray.asarray(a)
    assert_values(d.squeeze(), a.squeeze())
    assert_values(d.squeeze(axis=2), a.squeeze(axis=2))
    assert_values(d.squeeze(axis=(0, 2)), a.squeeze(axis=(0, 2)))
    with pytest.raises(ValueError, match="size not equal to one"):
        d.squeeze(axis=1)
    assert_values(d.ravel(), a.ravel())
    t = devarray.asarray(a[0, :, 0, :]).T  # not C-contiguous: ravel copies
    assert_values(t.ravel(), a[0, :, 0, :].T.ravel())
    assert_values(devarray.permute_dims(d), a.transpose())
    assert devarray.float32.type is np.float32 and devarray.bool.type is np.bool_
    assert_values(devarray.full_like(d, 7, shape=(2, 2)), np.full((2, 2), 7.0))
    assert devarray.empty_like(d, shape=()).shape == ()
    with pytest.raises(ValueError):
        devarray.ones_like(d, shape=(-2,))


SCALAR_ARRAY_DTYPES = ["bool", "int8", "uint8", "int16", "int64", "uint64", "float16",
                       "float32", "float64", "complex64"]
SCALAR_VALUES = [np.bool_(True), np.int8(-3), np.uint8(200), np.int32(-70000),
                 np.uint64(2**40), np.float16(1.5), np.float32(0.1), np.float64(1e-3),
                 np.complex64(1 - 2j)]


@pytest.mark.parametrize("dtype", SCALAR_ARRAY_DTYPES)
def test_numpy_scalars_promote_as_in_numpy(backend, rng, dtype):
    """Each NumPy scalar next to each array dtype, in both orders: NumPy 2's
    result dtype (NEP 50: NumPy scalars are strong) and values, whether the
    scalar passes as a Python scalar (same promotion) or as a 0-d array."""
    a = random_array(rng, (6,), dtype)
    d = devarray.asarray(a)
    for s in SCALAR_VALUES:
        for ufunc in (np.add, np.multiply):
            with np.errstate(all="ignore"):
                for got, expected in ((ufunc(d, s), ufunc(a, s)), (ufunc(s, d), ufunc(s, a))):
                    assert got.dtype == expected.dtype, (ufunc, s, dtype)
                    assert_values(on_device(got, d), expected)
