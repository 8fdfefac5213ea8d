"""devarray.isin against NumPy 2's numpy.isin (and the definition, an
equality test against every element of x2): every dtype and every pair of
dtypes (compared after promotion), any shape and strides, 0-d and empty
operands, duplicates, NaN and signed zeros, Python scalars on either side
(weak, as in equal), invert."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, random_array


def expected_isin(a, b, invert=False):
    """NumPy's isin of a and b compared in their promoted dtype."""
    t = np.result_type(a, b)
    return np.isin(np.asarray(a).astype(t), np.asarray(b).astype(t), invert=invert)


def brute_isin(a, b):
    """The definition: any(a == element) over every element of flattened b."""
    a = np.asarray(a)
    b = np.asarray(b).reshape(-1)
    return (a.reshape(a.shape + (1,)) == b).any(axis=-1)


def with_hits(rng, a, b):
    """b with about half of its elements replaced by elements of a (repeated
    ones included), so both answers occur."""
    b = b.copy()
    if a.size and b.size:
        flat = b.reshape(-1)
        take = rng.random(flat.size) < 0.5
        flat[take] = rng.choice(a.reshape(-1), size=int(take.sum())).astype(b.dtype)
    return b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape1,shape2", [((37,), (11,)), ((4, 5), (3, 3)), ((), (6,)),
                                           ((7,), ()), ((), ()), ((3, 1, 4), (2, 5))])
def test_matches_numpy_every_dtype(backend, rng, dtype, shape1, shape2):
    a = random_array(rng, shape1, dtype, special=True)
    b = with_hits(rng, a, random_array(rng, shape2, dtype, special=True))
    d1, d2 = devarray.asarray(a), devarray.asarray(b)
    for invert in (False, True):
        got = devarray.isin(d1, d2, invert=invert)
        want = expected_isin(a, b, invert)
        assert_values(got, want)
        assert_values(got, brute_isin(a, b) != invert)
    # every element of x1 is in x1, but NaN, which is in nothing
    assert_values(devarray.isin(d1, d1), a == a)


@pytest.mark.parametrize("dtype1", DTYPES)
@pytest.mark.parametrize("dtype2", DTYPES)
def test_mixed_dtypes_compare_after_promotion(backend, rng, dtype1, dtype2):
    a = random_array(rng, (3, 7), dtype1, special=True)
    small = random_array(rng, (9,), dtype1, special=True)
    # values of x1's dtype written in x2's: many compare equal after promotion
    with np.errstate(all="ignore"):
        b = np.concatenate([random_array(rng, (9,), dtype2, special=True),
                            small.astype(dtype2) if np.dtype(dtype1).kind != "c"
                            or np.dtype(dtype2).kind == "c" else small.real.astype(dtype2)])
    a[0, :3] = small[:3]
    got = devarray.isin(devarray.asarray(a), devarray.asarray(b))
    assert_values(got, expected_isin(a, b))
    assert_values(got, brute_isin(a, b))


def test_nan_and_signed_zeros(backend):
    a = np.array([np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, 2.0], dtype="float64")
    b = np.array([np.nan, 0.0, np.inf, 2.0, 2.0, np.nan])
    d1, d2 = devarray.asarray(a), devarray.asarray(b)
    assert devarray.isin(d1, d2).to_host().tolist() == [False, False, True, True, True,
                                                         False, True]
    assert devarray.isin(d1, d2, invert=True).to_host().tolist() == [True, True, False,
                                                                     False, False, True,
                                                                     False]
    # -0.0 in x2 finds +0.0 in x1 as well
    assert devarray.isin(d1, devarray.asarray(np.array([-0.0]))).to_host().tolist() == \
        [False, False, True, True, False, False, False]
    c = np.array([complex(np.nan, 1), complex(1, np.nan), complex(0.0, -0.0), 1 + 2j, 3j])
    e = np.array([complex(np.nan, 1), complex(1, np.nan), -0.0 + 0j, 1 + 2j, 2 + 1j])
    got = devarray.isin(devarray.asarray(c), devarray.asarray(e))
    assert got.to_host().tolist() == [False, False, True, True, False]
    assert_values(got, np.isin(c, e))


@pytest.mark.parametrize("dtype", ["int32", "float32", "complex128", "uint8", "bool"])
def test_non_contiguous_views(backend, rng, dtype):
    a = random_array(rng, (8, 10), dtype, special=True)
    b = with_hits(rng, a, random_array(rng, (6, 9), dtype, special=True))
    d1, d2 = devarray.asarray(a), devarray.asarray(b)
    views = [
        (d1[::2, ::-3], a[::2, ::-3], d2.T, b.T),
        (d1.T, a.T, d2[1::2, ::2], b[1::2, ::2]),
        (d1[3], a[3], d2[:, 4], b[:, 4]),
        (d1[2, 5], a[2, 5], d2[::-1], b[::-1]),
    ]
    for v1, n1, v2, n2 in views:
        assert_values(devarray.isin(v1, v2), expected_isin(n1, n2))
        assert_values(devarray.isin(v1, v2, invert=True), expected_isin(n1, n2, True))
    # the operands are unchanged
    assert_values(d1, a)
    assert_values(d2, b)


@pytest.mark.parametrize("shape1,shape2", [((0,), (5,)), ((2, 0, 3), (4,)), ((5,), (0,)),
                                           ((2, 3), (0, 4)), ((0,), (0,)), ((), (0,))])
def test_empty(backend, rng, shape1, shape2):
    a = random_array(rng, shape1, "int16")
    b = random_array(rng, shape2, "float32")
    for invert in (False, True):
        got = devarray.isin(devarray.asarray(a), devarray.asarray(b), invert=invert)
        assert_values(got, expected_isin(a, b, invert))
        if a.size and not b.size:
            assert got.to_host().reshape(-1).tolist() == [invert] * a.size


def test_duplicates_and_large(backend, rng):
    a = rng.integers(-50, 50, size=20000).astype("int64")
    b = rng.integers(-30, 30, size=3000).astype("int32")  # many repeats
    got = devarray.isin(devarray.asarray(a), devarray.asarray(b))
    want = np.isin(a, b)
    assert want.any() and not want.all()
    assert_values(got, want)
    b = np.full(1000, 7, dtype="uint16")
    got = devarray.isin(devarray.asarray(a), devarray.asarray(b), invert=True)
    assert_values(got, a != 7)


SCALARS = [0, 1, -1, 7, True, False, 1000, -(2 ** 70), 2 ** 64, 2.5, -0.0, float("nan"),
           float("inf"), 3 + 0j, 1 + 2j]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "uint64", "float16",
                                   "float32", "float64", "complex64"])
def test_python_scalar_on_either_side(backend, rng, dtype):
    a = random_array(rng, (5, 6), dtype, special=True)
    with np.errstate(all="ignore"):
        a.reshape(-1)[:4] = np.array([0, 1, 7, 3], dtype=dtype)
    d = devarray.asarray(a)
    for s in SCALARS:
        for invert in (False, True):
            # NumPy 2's equal with a weak Python scalar is the reference;
            # where it raises (an int beyond int64 beside bool) no element
            # of the promoted dtype can equal the scalar
            try:
                with np.errstate(all="ignore"):
                    want = np.equal(a, s)
            except OverflowError:
                assert dtype == "bool" and isinstance(s, int)
                want = np.zeros(a.shape, dtype=bool)
            assert_values(devarray.isin(d, s, invert=invert), want != invert)
            got = devarray.isin(s, d, invert=invert)
            assert got.shape == () and got.dtype == devarray.bool
            assert bool(got) == (bool(want.any()) != invert), (s, invert)


def test_strong_scalar_promotes_as_its_dtype(backend):
    a = np.array([0.1, 0.5, 2.0], dtype="float16")
    d = devarray.asarray(a)
    # numpy.float64 is a float subclass, so not weak: compared in float64
    assert devarray.isin(d, np.float64(0.1)).to_host().tolist() == [False, False, False]
    assert devarray.isin(d, 0.1).to_host().tolist() == [True, False, False]
    assert devarray.isin(np.float64(0.5), d).to_host().tolist() is True


def test_numpy_isin_dispatches(backend, rng):
    a = random_array(rng, (4, 3), "int32")
    b = with_hits(rng, a, random_array(rng, (5,), "int32"))
    d1, d2 = devarray.asarray(a), devarray.asarray(b)
    got = np.isin(d1, d2, invert=True)
    assert isinstance(got, devarray.DeviceArray)
    assert_values(got, np.isin(a, b, invert=True))
