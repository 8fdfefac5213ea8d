"""The DeviceArray object protocol of the array API 2025.12, against NumPy 2:
operators (comparisons, // % ** & | ^ ~ << >>, reflected and in place, @),
__hash__, __setitem__, iteration, conversions to Python scalars,
__format__, pickle and copy, __array_namespace__, mT, device and
to_device.  Every test runs on both backends (the `backend` fixture) with
random data; bad input is in tests/test_reliability_object.py."""

import copy
import operator
import pickle
import warnings

import numpy as np
import pytest

import devarray
from devarray import _core
from _helpers import (
    DTYPES, FLOAT_DTYPES, INT_DTYPES, assert_values, check_like_numpy, host,
    np_or_exception, random_array,
)

REAL_DTYPES = ["bool"] + INT_DTYPES + FLOAT_DTYPES


def dev(a):
    """A DeviceArray copy of `a` (a C-contiguous one, 0-d arrays kept)."""
    return devarray.asarray(np.array(a, order="C"))


def operand(rng, shape, dt, op=None):
    """Random data for `op` that keeps NumPy's result defined: shift counts
    within the width, integer exponents small and non-negative."""
    a = random_array(rng, shape, dt)
    kind = np.dtype(dt).kind
    if op in (operator.lshift, operator.rshift) and kind in "iu":
        a = (np.abs(a.astype(np.int64)) % (8 * np.dtype(dt).itemsize)).astype(dt)
    if op is operator.pow and kind in "iu":
        a = (np.abs(a.astype(np.int64)) % 5).astype(dt)
    return a


# ---- operators -------------------------------------------------------------------

COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
               operator.ge]
ARITHMETIC = [operator.floordiv, operator.mod, operator.pow]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift,
           operator.rshift]
BINARY = COMPARISONS + ARITHMETIC + BITWISE
INPLACE = {operator.floordiv: operator.ifloordiv, operator.mod: operator.imod,
           operator.pow: operator.ipow, operator.and_: operator.iand,
           operator.or_: operator.ior, operator.xor: operator.ixor,
           operator.lshift: operator.ilshift, operator.rshift: operator.irshift,
           operator.add: operator.iadd, operator.sub: operator.isub,
           operator.mul: operator.imul, operator.truediv: operator.itruediv}


def float_rtol(dt):
    # pow computes through the math library (CUDA's may differ by ulps)
    return 4 * float(np.finfo(dt).eps) if dt.kind in "fc" else 0.0


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", REAL_DTYPES)
def test_binary_operators_like_numpy(backend, rng, op, dt):
    # both sides take the op's data constraints, as both are exponents or
    # counts in the reflected call
    a = operand(rng, (3, 4), dt, op)
    b = operand(rng, (4,), dt, op)
    check_like_numpy(op, (a, b), (dev(a), dev(b)), rtol=float_rtol)
    # the reflected slot: NumPy operand order, DeviceArray on the right
    check_like_numpy(op, (b, a), (dev(b), dev(a)), rtol=float_rtol)


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", REAL_DTYPES)
@pytest.mark.parametrize("scalar", [True, 3, 2.5, -2], ids=repr)
def test_operators_with_python_scalars(backend, rng, op, dt, scalar):
    """Python scalars are weak (NEP 50) on either side; an int out of the
    dtype's range raises OverflowError as NumPy does."""
    a = operand(rng, (5,), dt, op if op is not operator.pow else None)
    if op is operator.pow and np.dtype(dt).kind in "iu":
        a = np.abs(a.astype(np.int64)).astype(dt) % 4
    d = dev(a)
    check_like_numpy(lambda x: op(x, scalar), (a,), (d,), rtol=float_rtol)
    if op not in (operator.lshift, operator.rshift, operator.pow) or \
            isinstance(scalar, bool) or scalar >= 0:
        check_like_numpy(lambda x: op(scalar, x), (a,), (d,), rtol=float_rtol)


@pytest.mark.parametrize("dt", DTYPES)
def test_equality_of_all_dtypes(backend, rng, dt):
    a = random_array(rng, (4, 3), dt, special=True)
    b = a.copy()
    b.reshape(-1)[::2] = random_array(rng, (6,), dt)
    check_like_numpy(operator.eq, (a, b), (dev(a), dev(b)))
    check_like_numpy(operator.ne, (a, b), (dev(a), dev(b)))
    check_like_numpy(operator.eq, (a, a), (dev(a), dev(a)))


@pytest.mark.parametrize("dt", ["bool"] + INT_DTYPES)
def test_invert_like_numpy(backend, rng, dt):
    a = random_array(rng, (7,), dt)
    check_like_numpy(operator.invert, (a,), (dev(a),))


@pytest.mark.parametrize("dt", FLOAT_DTYPES + ["complex64"])
def test_invert_refuses_inexact(backend, rng, dt):
    d = dev(random_array(rng, (3,), dt))
    with pytest.raises(TypeError):
        ~d


@pytest.mark.parametrize("dt", DTYPES)
def test_unary_plus_is_a_copy(backend, rng, dt):
    a = random_array(rng, (2, 3), dt)
    d = dev(a)
    expected, exc = np_or_exception(np.positive, a)
    if exc is not None:
        with pytest.raises(exc):
            +d
        return
    r = +d
    assert r is not d and r.ptr != d.ptr
    assert_values(r, expected)


@pytest.mark.parametrize("dt", ["int16", "uint32", "float32", "float64"])
def test_divmod_like_numpy(backend, rng, dt):
    a, b = random_array(rng, (6,), dt), random_array(rng, (6,), dt)
    q, r = divmod(dev(a), dev(b))
    eq, er = np_or_exception(divmod, a, b)[0]
    assert_values(q, eq)
    assert_values(r, er)


@pytest.mark.parametrize("op", list(INPLACE), ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int64", "float32", "float64"])
def test_inplace_like_numpy(backend, rng, op, dt):
    """x op= y writes into x, keeps its dtype and identity, and refuses
    what NumPy refuses (same_kind casting) with x untouched."""
    a = operand(rng, (3, 4), dt)
    b = operand(rng, (4,), dt, op)
    expected, exc = np_or_exception(INPLACE[op], a.copy(), b)
    d = dev(a)
    ptr = d.ptr
    if exc is not None:
        with pytest.raises(exc):
            INPLACE[op](d, dev(b))
        assert_values(d, a)
        return
    r = INPLACE[op](d, dev(b))
    assert r is d and d.ptr == ptr
    assert_values(d, expected, rtol=float_rtol(np.dtype(dt)))


@pytest.mark.parametrize("op", list(INPLACE), ids=lambda f: f.__name__)
def test_inplace_keeps_dtype_with_python_scalars(backend, rng, op):
    a = operand(rng, (5,), "int16")
    d = dev(a)
    expected, exc = np_or_exception(INPLACE[op], a.copy(), 2)
    if exc is not None:
        with pytest.raises(exc):
            INPLACE[op](d, 2)
        assert_values(d, a)
        return
    INPLACE[op](d, 2)
    assert_values(d, expected)


def test_inplace_into_a_view_changes_the_base(backend, rng):
    a = random_array(rng, (4, 6), "int32")
    d = dev(a)
    v = d[1:3, ::-2]
    v ^= 0x5A
    a[1:3, ::-2] ^= 0x5A
    assert_values(d, a)


def test_inplace_refuses_to_broadcast_the_target(backend, rng):
    a, b = random_array(rng, (4,), "float64"), random_array(rng, (3, 4), "float64")
    d = dev(a)
    for op in (operator.ipow, operator.ifloordiv, operator.imod):
        with pytest.raises(ValueError):
            op(d, dev(b))
        assert_values(d, a)


def test_inplace_same_kind_casting(backend, rng):
    a = random_array(rng, (4,), "int32")
    d = dev(a)
    for op, other in [(operator.ifloordiv, 1.5), (operator.imod, 2.5),
                      (operator.ipow, dev(np.ones(4)))]:
        with pytest.raises(TypeError):
            op(d, other)
        assert_values(d, a)


def test_hash_is_none(backend):
    d = devarray.zeros(3)
    assert devarray.DeviceArray.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(d)
    with pytest.raises(TypeError):
        {d: 1}


@pytest.mark.parametrize("other", [None, "x", object(), [1, 2, 3]],
                         ids=["None", "str", "object", "list"])
def test_comparison_with_foreign_objects(backend, other):
    """Python falls back to identity for == and != once DeviceArray says
    NotImplemented; ordering is a TypeError."""
    d = devarray.zeros(3)
    assert (d == other) is False
    assert (d != other) is True
    with pytest.raises(TypeError):
        d < other


class Reflector:
    """A foreign operand whose reflected methods must be reached."""

    def __rmatmul__(self, other):
        return "rmatmul"

    def __rfloordiv__(self, other):
        return "rfloordiv"

    def __rpow__(self, other):
        return "rpow"

    def __rand__(self, other):
        return "rand"

    def __rlshift__(self, other):
        return "rlshift"

    def __gt__(self, other):
        return "gt"


def test_foreign_operands_get_their_turn(backend):
    d = devarray.ones(3, dtype="int32")
    r = Reflector()
    assert d @ r == "rmatmul"
    assert d // r == "rfloordiv"
    assert d ** r == "rpow"
    assert d & r == "rand"
    assert d << r == "rlshift"
    assert (d < r) == "gt"


def test_pow_third_argument(backend):
    d = devarray.ones(3, dtype="int32")
    assert_values(pow(d, 2, None), np.ones(3, np.int32))
    with pytest.raises(TypeError, match="modulo"):
        pow(d, 2, 3)
    with pytest.raises(TypeError):
        pow(2, d, 3)


def test_matmul_operator(backend):
    """@ is devarray.matmul (tests/test_linalg.py has the rest); a Python
    scalar operand is 0-d, which matmul refuses with NumPy's ValueError."""
    d = devarray.ones((2, 2))
    assert (d @ d).to_host().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    with pytest.raises(ValueError, match="matmul"):
        d @ 2
    with pytest.raises(ValueError, match="matmul"):
        2 @ d


# ---- __setitem__ -----------------------------------------------------------------

KEYS = [0, -1, 2, slice(None), slice(1, None, 2), slice(None, None, -1),
        slice(-2, 0, -2), (1, 2), (slice(None), 3), (Ellipsis, -1),
        (None, 1), (slice(0, 0),), Ellipsis, (1, Ellipsis, None, slice(None, None, -3)),
        ()]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("dt", DTYPES)
def test_setitem_python_scalars(backend, rng, key, dt):
    """Python scalars take NumPy 2's setitem rules for the array's dtype:
    floats truncate into integers, an int out of range is an
    OverflowError, NaN into an integer a ValueError, complex into a real
    dtype a TypeError; a refused value leaves the array as it was."""
    a = random_array(rng, (3, 4), dt)
    for value in (True, 7, -3, 300, 2 ** 70, 2.75, -0.5, float("nan"), float("inf"),
                  1 - 2j):
        d = dev(a)
        expected = a.copy()
        _, exc = np_or_exception(operator.setitem, expected, key, value)
        if exc is not None:
            with pytest.raises(exc):
                d[key] = value
            assert_values(d, a)
            continue
        d[key] = value
        assert_values(d, expected)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_setitem_array_casts(backend, rng, src, dst):
    """A DeviceArray value broadcasts into the target and is cast as NumPy's
    setitem casts (unsafe; complex into real keeps the real part).  Where
    src promotes to dst (2025.12's rule for an array value) the values
    arrive exactly; the other pairs the standard leaves unspecified."""
    a = random_array(rng, (3, 4), dst)
    v = random_array(rng, (4,), src)
    if np.dtype(src).kind in "fc" and np.dtype(dst).kind in "iu":
        # float -> int of a value out of range is undefined in C and NumPy
        v = np.abs(v.real).astype(src) if np.dtype(src).kind == "c" else np.abs(v)
    d = dev(a)
    d[1:, ::-1] = dev(v)
    if np.result_type(src, dst) == np.dtype(dst):
        assert_values(d[1:, ::-1], np.broadcast_to(v.astype(dst), (2, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's ComplexWarning
        a[1:, ::-1] = v
    assert_values(d, a)


@pytest.mark.parametrize("target_key, value_shape", [
    (slice(None), (4,)), (slice(None), (3, 1)), (slice(None), (1, 1, 4)),
    (0, ()), ((slice(None), 0), (3,)), ((None, Ellipsis), (1, 3, 4)),
    (slice(0, 0), (4,)), (slice(0, 0), (0, 4)),
])
def test_setitem_broadcasting(backend, rng, target_key, value_shape):
    a = random_array(rng, (3, 4), "float32")
    v = random_array(rng, value_shape, "float32")
    d = dev(a)
    d[target_key] = dev(v)
    a[target_key] = v
    assert_values(d, a)


@pytest.mark.parametrize("target_key, value_shape", [
    (slice(None), (3,)), (slice(None), (2, 3, 4)), (0, (3,)), (slice(0, 2), (3, 4)),
])
def test_setitem_shape_mismatch(backend, rng, target_key, value_shape):
    a = random_array(rng, (3, 4), "float32")
    d = dev(a)
    with pytest.raises(ValueError, match="broadcast"):
        d[target_key] = dev(random_array(rng, value_shape, "float32"))
    with pytest.raises(ValueError):
        a[target_key] = random_array(rng, value_shape, "float32")
    assert_values(d, a)


@pytest.mark.parametrize("case", [
    lambda x: (slice(1, None), x[:-1]),
    lambda x: (slice(None, -1), x[1:]),
    lambda x: (slice(None, None, -1), x),
    lambda x: (slice(None), x),
    lambda x: (slice(0, 4), x[2:6]),
    lambda x: (slice(None, None, 2), x[:4]),
])
def test_setitem_overlapping_source(backend, rng, case):
    """The source is read as it was before the assignment.  NumPy does so
    too except for 1-d strides of one sign, where it copies forward without
    a temporary (a[::2] = a[:4] reads a[2] after writing it); devarray
    always gives the value semantics, so the reference copies first."""
    a = random_array(rng, (8,), "int64")
    d = dev(a)
    key, src = case(d)
    d[key] = src
    key, src = case(a)
    a[key] = src.copy()
    assert_values(d, a)


def test_setitem_overlapping_2d(backend, rng):
    a = random_array(rng, (5, 5), "float64")
    d = dev(a)
    d[...] = d.T
    a[...] = a.T.copy()
    assert_values(d, a)
    d[1:, :] = d[:-1, ::-1]
    a[1:, :] = a[:-1, ::-1].copy()
    assert_values(d, a)


@pytest.mark.parametrize("value", [
    [1, 2, 3, 4], [[1.5], [2.5], [-3.5]], (True, False, True, False),
    [[1, 2, 3, 4]] * 3, [300, 1, 2, 3], [1 + 1j, 0, 0, 0], [],
    np.arange(4, dtype=np.int16), np.arange(12.0).reshape(3, 4)[::-1],
    memoryview(np.arange(4, dtype=np.float32)), np.float32(2.5), np.int64(-1),
    bytearray(b"\x01\x02\x03\x04"),
], ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("dt", ["int8", "uint8", "float32", "complex64", "bool"])
def test_setitem_host_values(backend, rng, value, dt):
    """Nested sequences convert straight to the target's dtype; buffers
    (NumPy arrays and scalars, memoryviews) are copied and cast.  (NumPy
    range-checks some NumPy integer scalars, np.int64(300) into int8, and
    wraps others, np.int64(-1) into uint8; devarray casts all of them as
    0-d arrays, so only wrapping-free ones are compared.)"""
    a = random_array(rng, (3, 4), dt)
    d = dev(a)
    key = slice(0, 0) if isinstance(value, list) and not value else slice(None)
    expected = a.copy()
    np_value = np.frombuffer(value, np.uint8) if isinstance(value, bytearray) else value
    _, exc = np_or_exception(operator.setitem, expected, key, np_value)
    if exc is not None:
        with pytest.raises(exc):
            d[key] = value
        assert_values(d, a)
        return
    d[key] = value
    assert_values(d, expected)


def test_setitem_zero_d(backend, rng):
    a = random_array(rng, (), "float64")
    d = dev(a)
    d[()] = 4.5
    assert d.item() == 4.5
    d[...] = devarray.asarray([7.0])
    assert d.item() == 7.0
    with pytest.raises(IndexError):
        d[0] = 1


def test_setitem_from_another_backend(gpu, rng):
    a = random_array(rng, (3, 4), "float32")
    v = random_array(rng, (4,), "float64")
    d = dev(a)
    devarray.set_backend("host")
    try:
        hv = devarray.asarray(v)
        d[1] = hv
        h = devarray.asarray(a)
        h[2] = d[0]
    finally:
        devarray.set_backend("cuda")
    a2 = a.copy()
    a2[1] = v
    assert_values(d, a2)
    a[2] = a[0]
    assert_values(h, a)


def test_setitem_refuses(backend, rng):
    a = random_array(rng, (3, 4), "float32")
    d = dev(a)
    ro = _core._readonly_view(d)
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        ro[...] = d
    with pytest.raises(ValueError, match="delete"):
        del d[0]
    with pytest.raises(ValueError, match="read-only"):
        ro[[0, 1]] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        ro[d > 0] = 0.0
    with pytest.raises(IndexError):
        d[[0, 3]] = 1.0
    with pytest.raises(IndexError):
        d[3] = 1.0
    with pytest.raises(IndexError):
        d[0, 0, 0] = 1.0
    with pytest.raises(TypeError):
        d[0] = "x"
    with pytest.raises(TypeError):
        d[0] = None
    assert_values(d, a)
    assert_values(ro, a)


def test_setitem_with_0d_integer_index(backend, rng):
    a = random_array(rng, (5,), "int32")
    d = dev(a)
    d[devarray.asarray(3)] = 9
    a[3] = 9
    assert_values(d, a)


# ---- iteration -------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (3, 4), (0,), (2, 0), (2, 1, 3)], ids=str)
def test_iteration_over_first_axis(backend, rng, shape):
    a = random_array(rng, shape, "int16")
    d = dev(a)
    rows = list(d)
    assert len(rows) == len(a) == len(d)
    for row, expected in zip(rows, a):
        assert isinstance(row, devarray.DeviceArray)
        assert_values(row, np.asarray(expected))
    # the rows are views: writing through one changes d
    if a.size:
        rows[-1][...] = 5
        a[-1] = 5
        assert_values(d, a)


def test_iteration_of_0d(backend):
    d = devarray.asarray(3.0)
    with pytest.raises(TypeError, match="0-d"):
        iter(d)
    with pytest.raises(TypeError):
        len(d)


def test_unpacking_and_membership(backend):
    x, y, z = devarray.asarray([1, 2, 3])
    assert (int(x), int(y), int(z)) == (1, 2, 3)
    assert 2 in devarray.asarray([1, 2, 3])
    assert 5 not in devarray.asarray([1, 2, 3])


# ---- conversions to Python scalars -----------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,), (0,)], ids=str)
def test_scalar_conversions_like_numpy(backend, rng, dt, shape):
    """bool() of any size-1 array; int/float/complex of 0-d arrays only
    (TypeError otherwise, as NumPy 2.4 and the array API); __index__ of 0-d
    integer arrays; int(inf) OverflowError and int(nan) ValueError."""
    a = random_array(rng, shape, dt, special=True)
    d = dev(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for conv in (bool, int, float, complex, operator.index):
            expected, exc = np_or_exception(conv, a)
            if exc is not None:
                with pytest.raises(exc):
                    conv(d)
                continue
            got = conv(d)
            assert type(got) is type(expected)
            assert got == expected or (got != got and expected != expected)


@pytest.mark.parametrize("value, exc", [(float("inf"), OverflowError),
                                        (float("-inf"), OverflowError),
                                        (float("nan"), ValueError)])
def test_int_of_nonfinite(backend, value, exc):
    with pytest.raises(exc):
        int(devarray.asarray(value))
    assert int(devarray.asarray(-0.0)) == 0


# ---- __format__ ------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_format_0d(backend, rng, dt):
    a = random_array(rng, (), dt)
    d = dev(a)
    for spec in ("", ".2f", ">12", "^9.3e", "g"):
        expected, exc = np_or_exception(format, a.item(), spec)
        if exc is not None:
            with pytest.raises(exc):
                format(d, spec)
            continue
        assert format(d, spec) == expected


def test_format_of_a_sum(backend):
    d = devarray.asarray([1.25, 2.5])
    assert f"{d.sum():.2f}" == "3.75"


@pytest.mark.parametrize("shape", [(3,), (2, 2), (0,)], ids=str)
def test_format_nd(backend, rng, shape):
    d = dev(random_array(rng, shape, "float64"))
    assert format(d, "") == str(d)
    assert f"{d}" == str(d)
    with pytest.raises(TypeError):
        format(d, ".2f")
    with pytest.raises(TypeError):
        np.ones(shape).__format__(".2f")


# ---- pickle and copy -------------------------------------------------------------

VIEWS = {
    "contiguous": lambda d: d,
    "strided": lambda d: d[::2, 1:],
    "reversed": lambda d: d[::-1, ::-3],
    "transposed": lambda d: d.T,
    "0-d": lambda d: d[1, 2],
    "empty": lambda d: d[:0],
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dt", DTYPES)
def test_pickle_round_trip(backend, rng, view, dt):
    a = random_array(rng, (4, 6), dt, special=True)
    d = VIEWS[view](dev(a))
    expected = VIEWS[view](a)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        r = pickle.loads(pickle.dumps(d, protocol=protocol))
        assert isinstance(r, devarray.DeviceArray)
        assert r.device == d.device
        assert r.base is None and not r.readonly
        assert_values(r, np.array(expected, order="C"))


def test_pickle_of_readonly_is_writable(backend, rng):
    a = random_array(rng, (5,), "float32")
    r = pickle.loads(pickle.dumps(_core._readonly_view(dev(a))))
    r[0] = 1.0
    a[0] = 1.0
    assert_values(r, a)


def test_reduce_names_the_reconstructor(backend, rng):
    d = dev(random_array(rng, (2, 3), "uint16"))
    fn, args = d.__reduce__()
    assert fn is _core._reconstruct
    assert args[1:] == ("uint16", (2, 3), backend)
    assert args[0] == host(d).tobytes()


def test_unpickle_cuda_without_cuda():
    if _core._cuda_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(RuntimeError, match="CUDA"):
        _core._reconstruct(b"\0" * 8, "float32", (2,), "cuda")


@pytest.mark.parametrize("deep", [False, True])
def test_copy_and_deepcopy(backend, rng, deep):
    a = random_array(rng, (3, 4), "complex64")
    d = dev(a)[1:, ::2]
    c = copy.deepcopy(d) if deep else copy.copy(d)
    assert c is not d and c.device == d.device and c.base is None
    assert_values(c, a[1:, ::2].copy())
    c[...] = 0
    assert_values(d, a[1:, ::2])
    held = [d, d]
    held_copy = copy.deepcopy(held)
    assert held_copy[0] is held_copy[1] and held_copy[0] is not d


# ---- namespace, mT, device -------------------------------------------------------

def test_array_namespace(backend):
    d = devarray.zeros(2)
    for version in (None, "2025.12"):
        assert d.__array_namespace__(api_version=version) is devarray
    assert d.__array_namespace__() is devarray
    for version in ("2024.12", "2023.12"):
        xp = d.__array_namespace__(api_version=version)
        assert xp is d.__array_namespace__(api_version=version)
        assert xp.__array_api_version__ == version
        assert set(xp.__all__) == set(devarray.__all__)
        assert xp.sum is devarray.sum and xp.DeviceArray is devarray.DeviceArray
    for version in ("2022.12", "2021.12", "2020.10", "2024.13", "2026.12", ""):
        with pytest.raises(ValueError, match=r"not supported: .* standard 2025\.12 "
                                             r"\(and accepts 2024\.12 and 2023\.12\)"):
            d.__array_namespace__(api_version=version)
    with pytest.raises(TypeError):
        d.__array_namespace__(api_version=2024.12)
    with pytest.raises(TypeError):
        d.__array_namespace__("2024.12")


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (2, 1, 3, 5), (0, 3)], ids=str)
def test_mT_like_numpy(backend, rng, shape):
    a = random_array(rng, shape, "int32")
    d = dev(a)
    m = d.mT
    assert m.base is not None
    assert_values(m, a.mT)
    m[..., 0, :] = 1
    a.mT[..., 0, :] = 1
    assert_values(d, a)


@pytest.mark.parametrize("shape", [(), (3,)], ids=str)
def test_mT_needs_two_dimensions(backend, shape):
    with pytest.raises(ValueError, match="2 dimensions"):
        devarray.zeros(shape).mT


def test_device_and_to_device_same_place(backend, rng):
    d = dev(random_array(rng, (3,), "float32"))
    assert isinstance(d.device, devarray.Device)
    assert d.device == devarray.Device(backend) and d.device.type == backend
    assert d.to_device(d.device) is d
    assert d.to_device(d.device, stream=None) is d
    assert d.to_device(backend) is d
    assert d[1:].device == d.device


def test_to_device_between_backends(gpu, rng):
    a = random_array(rng, (3, 5), "float64")
    d = dev(a)[:, ::2]
    h = d.to_device(devarray.Device("host"))
    assert h.device == devarray.Device("host")
    assert_values(h, a[:, ::2])
    back = h.to_device(d.device, stream=0)
    assert back.device == d.device
    assert_values(back, a[:, ::2])
    h[0, 0] = 99.0
    assert_values(d, a[:, ::2])


def test_to_device_refuses(backend):
    d = devarray.zeros(3)
    with pytest.raises(TypeError):
        d.to_device()
    with pytest.raises(TypeError):
        d.to_device(None)
    with pytest.raises(TypeError):
        d.to_device(0.0)
    with pytest.raises(ValueError):
        d.to_device(-1)
    with pytest.raises(ValueError):
        d.to_device("tpu")
    with pytest.raises(TypeError):
        d.to_device(d.device, stream="s")
    with pytest.raises(TypeError):
        d.to_device(d.device, None)
