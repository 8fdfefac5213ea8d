"""devarray.where (src/ops/select.c, kernels/select.cu, src/host/host_select.c)
against numpy.where on random data, on both backends: every result dtype,
promotion of mixed dtypes and of weak Python scalars, broadcasting of all
three operands (0-d and 0-size shapes included), strided and reversed
views, and the bits of every element (NaN payloads, signed zeros)."""

import itertools

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, host, random_array


def dev(a):
    return devarray.to_device(np.array(a, order="C"))


def assert_bits(got, expected):
    """Same dtype, shape and bytes: where() moves elements, it never
    computes them, so NaN payloads and signed zeros must survive."""
    expected = np.asarray(expected)
    assert isinstance(got, devarray.DeviceArray), type(got)
    assert str(got.dtype) == str(expected.dtype), (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    g = host(got)
    assert g.tobytes() == np.ascontiguousarray(expected).tobytes(), (g, expected)


def random_shape(rng, max_ndim=4, max_extent=4):
    ndim = int(rng.integers(0, max_ndim + 1))
    return tuple(int(n) for n in rng.integers(0, max_extent + 1, size=ndim))


def broadcastable_shapes(rng, nonempty=False):
    """Three random shapes that broadcast together: each drops leading
    dimensions and sets some extents to 1 of one random target shape."""
    ndim = int(rng.integers(0, 5))
    low = 1 if nonempty else 0
    target = [int(n) for n in rng.integers(low, 5, size=ndim)]
    shapes = []
    for _ in range(3):
        keep = int(rng.integers(0, ndim + 1))
        shape = [1 if rng.random() < 0.3 else n for n in target[ndim - keep:]]
        shapes.append(tuple(shape))
    return shapes


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_contiguous(backend, rng, dtype):
    for n in (0, 1, 7, 16, 33, 1000, 4099):
        cond = random_array(rng, (n,), "bool")
        x1 = random_array(rng, (n,), dtype, special=True)
        x2 = random_array(rng, (n,), dtype, special=True)
        assert_bits(devarray.where(dev(cond), dev(x1), dev(x2)),
                    np.where(cond, x1, x2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_unaligned_contiguous_views(backend, rng, dtype):
    # views starting at odd elements: the kernels' head and tail, and
    # operands misaligned unlike each other
    n = 300
    cond = random_array(rng, (n + 3,), "bool")
    x1 = random_array(rng, (n + 3,), dtype, special=True)
    x2 = random_array(rng, (n + 3,), dtype, special=True)
    dc, d1, d2 = dev(cond), dev(x1), dev(x2)
    for a, b, c in itertools.product(range(3), repeat=3):
        assert_bits(devarray.where(dc[a:a + n], d1[b:b + n], d2[c:c + n]),
                    np.where(cond[a:a + n], x1[b:b + n], x2[c:c + n]))


def test_mixed_dtypes_promote(backend, rng):
    for t1, t2 in itertools.product(DTYPES, repeat=2):
        cond = random_array(rng, (5,), "bool")
        x1 = random_array(rng, (5,), t1, special=True)
        x2 = random_array(rng, (5,), t2, special=True)
        expected = np.where(cond, x1, x2)
        got = devarray.where(dev(cond), dev(x1), dev(x2))
        assert str(got.dtype) == str(np.result_type(x1, x2))
        # a cast may quieten a NaN; compare values (nan == nan) then
        np.testing.assert_array_equal(host(got), expected, strict=True)


SCALARS = [True, False, 0, 1, -1, 7, 127, 255, -128, 2**31, -2**40, 2**63,
           0.0, -0.0, 1.5, -2.25, float("nan"), float("inf"), -float("inf"),
           1e300, 1j, -0.0 - 0.0j, complex(float("nan"), 2.0), 3.5 - 1e-3j]


def fits(value, dtype):
    """Whether a Python int is in range of an integer dtype: where() raises
    OverflowError otherwise, like devarray's (and NumPy's) arithmetic, where
    numpy.where itself wraps silently."""
    if isinstance(value, bool) or not isinstance(value, int) or dtype.kind not in "iu":
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


@pytest.mark.parametrize("dtype", DTYPES)
def test_weak_scalars(backend, rng, dtype):
    cond = random_array(rng, (3, 4), "bool")
    x = random_array(rng, (3, 4), dtype, special=True)
    dc, dx = dev(cond), dev(x)
    for s in SCALARS:
        for args, np_args in (((dx, s), (x, s)), ((s, dx), (s, x))):
            result = np.result_type(x, s)
            if not fits(s, result):
                with pytest.raises(OverflowError, match="out of bounds"):
                    devarray.where(dc, *args)
                continue
            with np.errstate(all="ignore"):
                expected = np.where(cond, *np_args)
            assert_bits(devarray.where(dc, *args), expected)


def test_strong_scalar_subclass(backend, rng):
    # numpy.float64 is a float subclass: strong (float64), as NEP 50 says
    cond = random_array(rng, (6,), "bool")
    x = random_array(rng, (6,), "float32")
    got = devarray.where(dev(cond), dev(x), np.float64(0.1))
    assert_bits(got, np.where(cond, x, np.float64(0.1)))
    assert str(got.dtype) == "float64"


@pytest.mark.parametrize("scalar_side", [None, 1, 2])
def test_broadcast_all_three(backend, rng, scalar_side):
    for _ in range(40):
        shapes = broadcastable_shapes(rng)
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        cond = random_array(rng, shapes[0], "bool")
        x1 = random_array(rng, shapes[1], dtype, special=True)
        x2 = random_array(rng, shapes[2], dtype, special=True)
        d = [dev(cond), dev(x1), dev(x2)]
        n = [cond, x1, x2]
        if scalar_side is not None:
            value = random_array(rng, (), dtype).item()
            d[scalar_side] = n[scalar_side] = value
        assert_bits(devarray.where(*d), np.where(*n))


def test_random_shapes_zero_size_and_0d(backend, rng):
    for shape in [(), (0,), (3, 0), (0, 1, 2), (1,), (1, 1, 1), (2, 1, 3)]:
        cond = random_array(rng, shape, "bool")
        x1 = random_array(rng, shape, "int32")
        x2 = random_array(rng, (), "int32")
        assert_bits(devarray.where(dev(cond), dev(x1), dev(x2)),
                    np.where(cond, x1, x2))
    for _ in range(20):
        shape = random_shape(rng)
        cond = random_array(rng, shape, "bool")
        x1 = random_array(rng, shape, "float64", special=True)
        assert_bits(devarray.where(dev(cond), dev(x1), -0.0),
                    np.where(cond, x1, -0.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_and_reversed(backend, rng, dtype):
    cond = random_array(rng, (5, 6, 7), "bool")
    x1 = random_array(rng, (5, 6, 7), dtype, special=True)
    x2 = random_array(rng, (6, 7), dtype, special=True)
    dc, d1, d2 = dev(cond), dev(x1), dev(x2)
    views = [
        (np.s_[::-1, :, ::2], np.s_[:, ::-1, ::2], np.s_[:, ::2]),
        (np.s_[1:4, ::-2, 1:], np.s_[::2, ::-2, :6], np.s_[::-2, :0:-1]),
        (np.s_[..., 3], np.s_[:, ::-1, 0], np.s_[:, 6]),
    ]
    for vc, v1, v2 in views:
        assert_bits(devarray.where(dc[vc], d1[v1], d2[v2]),
                    np.where(cond[vc], x1[v1], x2[v2]))
    # a transposed view
    assert_bits(devarray.where(devarray.permute_dims(dc, (0, 2, 1)),
                               devarray.permute_dims(d1, (0, 2, 1)), d2.T),
                np.where(cond.transpose(0, 2, 1), x1.transpose(0, 2, 1), x2.T))


def test_nan_payloads_and_signed_zeros(backend):
    bits = np.array([0x7FF8000000000001, 0xFFF0000000000123, 0x8000000000000000,
                     0x7FF4000000000000, 0x0000000000000001, 0xFFFFFFFFFFFFFFFF],
                    dtype=np.uint64)
    x1 = bits.view(np.float64)
    x2 = (bits ^ np.uint64(0x5)).view(np.float64)
    cond = np.array([True, False, True, False, True, False])
    assert_bits(devarray.where(dev(cond), dev(x1), dev(x2)), np.where(cond, x1, x2))
    f32 = np.array([0x7FC00001, 0xFF800001, 0x80000000, 0x7F800001], dtype=np.uint32)
    x = f32.view(np.float32)
    c = np.array([True, True, False, True])
    assert_bits(devarray.where(dev(c), dev(x), -0.0), np.where(c, x, np.float32(-0.0)))
    z = (np.arange(8, dtype=np.uint64) | np.uint64(0x7FF0000000000000)).view(np.complex128)
    cz = np.array([True, False, False, True])
    assert_bits(devarray.where(dev(cz), dev(z), dev(z[::-1])), np.where(cz, z, z[::-1]))


@pytest.mark.parametrize("cond_dtype", DTYPES)
def test_non_bool_condition_is_nonzero(backend, rng, cond_dtype):
    cond = random_array(rng, (40,), cond_dtype, special=True)
    cond.reshape(-1)[::3] = 0
    if np.dtype(cond_dtype).kind in "fc":
        cond.reshape(-1)[1::7] = -0.0
    x1 = random_array(rng, (40,), "int16")
    x2 = random_array(rng, (40,), "int16")
    assert_bits(devarray.where(dev(cond), dev(x1), dev(x2)), np.where(cond, x1, x2))


def test_arguments_untouched(backend, rng):
    cond = random_array(rng, (4, 5), "int8")
    x1 = random_array(rng, (4, 5), "float16")
    x2 = random_array(rng, (5,), "int64")
    dc, d1, d2 = dev(cond), dev(x1), dev(x2)
    got = devarray.where(dc, d1, d2)
    assert_bits(got, np.where(cond, x1, x2))
    assert_bits(dc, cond)
    assert_bits(d1, x1)
    assert_bits(d2, x2)


# ---- bad inputs ---------------------------------------------------------


def test_bad_inputs(backend, rng):
    cond = dev(random_array(rng, (3,), "bool"))
    x = dev(random_array(rng, (3,), "float32"))
    cases = [
        (TypeError, (np.array([True, False, True]), x, x)),  # not a DeviceArray
        (TypeError, ([True, False, True], x, x)),
        (TypeError, (True, x, x)),
        (TypeError, (cond, "a", x)),
        (TypeError, (cond, x, None)),
        (TypeError, (cond, x, np.zeros(3))),
        (TypeError, (cond, 1, 2.0)),  # no array among x1 and x2
        (ValueError, (cond, x, dev(np.zeros(4)))),
        (ValueError, (dev(np.ones(2, dtype=bool)), x, 1.0)),
        (ValueError, (cond, dev(np.zeros((2, 3))), dev(np.zeros((3, 3))))),
        (OverflowError, (cond, dev(np.zeros(3, np.uint8)), -1)),
        (OverflowError, (cond, dev(np.zeros(3, np.int8)), 128)),
    ]
    for exc, args in cases:
        with pytest.raises(exc):
            devarray.where(*args)
    with pytest.raises(TypeError):
        devarray.where(cond, x)
    with pytest.raises(TypeError):
        devarray.where(cond, x, x, x)
    with pytest.raises(TypeError):
        devarray.where(condition=cond, x1=x, x2=x)
    assert_bits(x, host(x))


def test_mixed_backends(gpu, rng):
    cond = random_array(rng, (3,), "bool")
    x = random_array(rng, (3,), "float32")
    devarray.set_backend("host")
    on_host = [dev(cond), dev(x)]
    devarray.set_backend("cuda")
    on_gpu = [dev(cond), dev(x)]
    for args in [(on_host[0], on_gpu[1], 1.0), (on_gpu[0], on_host[1], on_gpu[1]),
                 (on_gpu[0], on_gpu[1], on_host[1])]:
        with pytest.raises(ValueError, match="different backends"):
            devarray.where(*args)
