"""Differential tests of DeviceArray arithmetic (+ - * /, in-place, unary)
against NumPy 2: result dtypes (including NEP 50 weak Python scalars),
values, broadcasting, strided operands and error behaviour."""

import operator

import numpy as np
import pytest

import devarray
from _helpers import (
    COMPLEX_DTYPES, DTYPES, INT_DTYPES, assert_values,
    check_like_numpy, eps, host, np_or_exception, random_array,
)

OPS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
}
IOPS = {
    "add": operator.iadd,
    "sub": operator.isub,
    "mul": operator.imul,
    "div": operator.itruediv,
}
SLOTS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
         "__truediv__", "__rtruediv__", "__iadd__", "__isub__", "__imul__",
         "__itruediv__"]


def op_rtol(name):
    """Single IEEE + - * / are correctly rounded on both sides, so real
    results must be exact; complex * and / are several roundings (NumPy's
    SIMD product uses FMA), so allow a few eps of the result's magnitude."""
    def rtol(dtype):
        if dtype.kind == "c" and name in ("mul", "div"):
            return 4 * eps(dtype)
        return 0.0
    return rtol


def dev(a):
    return devarray.to_device(a)


def random_scalar(rng, kind, dtype):
    """A Python scalar of `kind` that NEP 50 lets combine with an array of
    `dtype` without OverflowError (ints within the dtype's range)."""
    if kind == "bool":
        return bool(rng.random() < 0.5)
    if kind == "int":
        dt = np.dtype(dtype)
        if dt.kind in "iu":
            info = np.iinfo(dt)
            value = int(rng.integers(info.min, info.max, endpoint=True,
                                     dtype=dt))
        else:
            value = int(rng.integers(-1000, 1000))
        return value if value != 0 else 3
    if kind == "float":
        return float(rng.standard_normal() * 10)
    return complex(rng.standard_normal() * 10, rng.standard_normal() * 10)


# ---- result dtypes and values: array with array -----------------------------

@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dt2", DTYPES)
@pytest.mark.parametrize("dt1", DTYPES)
def test_array_array(backend, rng, name, dt1, dt2):
    a = random_array(rng, (37,), dt1, special=True)
    b = random_array(rng, (37,), dt2, special=True)
    check_like_numpy(OPS[name], (a, b), (dev(a), dev(b)), rtol=op_rtol(name))


@pytest.mark.parametrize("dt1, dt2, expected", [
    ("int8", "uint8", "int16"),
    ("int64", "uint64", "float64"),
    ("int32", "float32", "float64"),
    ("float16", "int8", "float16"),
    ("int16", "float16", "float32"),
    ("bool", "bool", "bool"),
    ("complex64", "float64", "complex128"),
    ("uint32", "int8", "int64"),
])
def test_documented_promotions(backend, rng, dt1, dt2, expected):
    assert np.result_type(dt1, dt2) == expected  # the oracle agrees
    a = random_array(rng, (5,), dt1)
    b = random_array(rng, (5,), dt2)
    assert (dev(a) + dev(b)).dtype == expected
    assert (dev(b) + dev(a)).dtype == expected


@pytest.mark.parametrize("dt", ["bool"] + INT_DTYPES)
def test_true_division_of_integers_is_float64(backend, rng, dt):
    a = random_array(rng, (9,), dt)
    b = random_array(rng, (9,), dt)
    r = dev(a) / dev(b)
    assert r.dtype == "float64"
    with np.errstate(all="ignore"):
        assert_values(r, a / b)


def test_bool_subtract_and_negative_raise(backend, rng):
    a = dev(random_array(rng, (4,), "bool"))
    with pytest.raises(TypeError):
        a - a
    with pytest.raises(TypeError):
        a - True
    with pytest.raises(TypeError):
        True - a
    with pytest.raises(TypeError):
        -a


# ---- Python scalars (weak, NEP 50) and 0-d arrays ---------------------------

@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("kind", ["bool", "int", "float", "complex"])
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dt", DTYPES)
def test_array_scalar(backend, rng, dt, name, kind, side):
    a = random_array(rng, (29,), dt, special=True)
    s = random_scalar(rng, kind, dt)
    op = OPS[name]
    if side == "right":
        fn = lambda x: op(x, s)  # noqa: E731
    else:
        fn = lambda x: op(s, x)  # noqa: E731
    check_like_numpy(fn, (a,), (dev(a),), rtol=op_rtol(name))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_scalar_zero_divisor_and_zero(backend, rng, dt, name):
    a = random_array(rng, (16,), dt, special=True)
    for s in (0, 0.0, False, 0j):
        for fn in (lambda x: OPS[name](x, s), lambda x: OPS[name](s, x)):
            check_like_numpy(fn, (a,), (dev(a),), rtol=op_rtol(name))


# (array dtype, op, scalar, expected dtype or exception): the cases the issue
# names, each checked against NumPy as well as against the literal.
WEAK_CASES = [
    ("float32", "mul", 2.5, "float32"),
    ("int8", "add", 1, "int8"),
    ("int8", "add", 127, "int8"),
    ("int8", "add", -128, "int8"),
    ("int8", "add", 1000, OverflowError),
    ("int8", "sub", 128, OverflowError),
    ("uint8", "add", -1, OverflowError),
    ("uint8", "add", 255, "uint8"),
    ("int64", "add", 2**63, OverflowError),
    ("int64", "add", -2**63, "int64"),
    ("uint64", "add", 2**64 - 1, "uint64"),
    ("uint64", "add", 2**64, OverflowError),
    ("uint64", "add", -1, OverflowError),
    ("int16", "add", 1.5, "float64"),
    ("uint32", "mul", 1.5, "float64"),
    ("float32", "add", 1j, "complex64"),
    ("float16", "add", 1j, "complex64"),
    ("float16", "mul", 0.1, "float16"),
    ("float16", "add", 70000, "float16"),
    ("float32", "add", 2**100, "float32"),
    ("int8", "add", 1j, "complex128"),
    ("bool", "add", 1, "int64"),
    ("bool", "add", True, "bool"),
    ("bool", "mul", 2.5, "float64"),
    ("bool", "div", True, "float64"),
    ("bool", "sub", True, TypeError),
    ("int8", "add", True, "int8"),
    ("int32", "div", 2, "float64"),
    ("float16", "div", 3, "float16"),
    ("complex64", "mul", 2.5, "complex64"),
    ("complex64", "add", 10**30, "complex64"),
]


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("dt, name, s, expected", WEAK_CASES)
def test_weak_scalar_cases(backend, rng, dt, name, s, expected, side):
    a = random_array(rng, (11,), dt)
    op = OPS[name]
    fn = (lambda x: op(x, s)) if side == "right" else (lambda x: op(s, x))
    result, exc = np_or_exception(fn, a)
    if isinstance(expected, type):
        assert exc is expected  # NumPy agrees with the literal
        with pytest.raises(expected):
            fn(dev(a))
        return
    assert exc is None and result.dtype == expected
    got = fn(dev(a))
    assert got.dtype == expected
    assert_values(got, result, rtol=op_rtol(name)(result.dtype))


class _MyInt(int):
    pass


class _MyFloat(float):
    pass


@pytest.mark.parametrize("dt", ["int8", "float32", "uint16", "float16"])
@pytest.mark.parametrize("make", [_MyInt, _MyFloat, np.float64, np.int64],
                         ids=lambda t: t.__name__)
def test_scalar_subclasses_are_strong(backend, rng, dt, make):
    """NumPy 2 treats only exact Python int/float/complex as weak: subclasses
    (including numpy.float64, a float subclass) promote like float64/int64
    arrays.  Refusing the operand (TypeError) is fine too; a DeviceArray
    result must have NumPy's dtype."""
    a = random_array(rng, (6,), dt)
    s = make(3)
    expected, _ = np_or_exception(operator.add, a, s)
    for fn in (lambda: dev(a) + s, lambda: s + dev(a)):
        try:
            got = fn()
        except TypeError:
            continue
        assert isinstance(got, devarray.DeviceArray), type(got)
        assert_values(got, np.asarray(expected))


ZERO_D_PAIRS = [
    ("int8", "int64"), ("int64", "int8"), ("float32", "float64"),
    ("uint8", "int8"), ("float16", "int32"), ("bool", "float32"),
    ("complex64", "float64"), ("int32", "int32"), ("uint64", "int64"),
]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dt1, dt2", ZERO_D_PAIRS)
def test_zero_d_operand(backend, rng, name, dt1, dt2):
    """0-d arrays take part in promotion like any array (NumPy 2)."""
    a = random_array(rng, (13,), dt1, special=True)
    z = random_array(rng, (), dt2)
    op = OPS[name]
    rtol = op_rtol(name)
    check_like_numpy(op, (a, z), (dev(a), dev(z)), rtol=rtol)
    check_like_numpy(op, (z, a), (dev(z), dev(a)), rtol=rtol)
    r = check_like_numpy(op, (z, z), (dev(z), dev(z)), rtol=rtol)
    if r is not None:
        assert r.shape == ()


# ---- operands the slots do not know -----------------------------------------

class _Other:
    pass


OTHERS = ["x", [1, 2], (1, 2), None, b"ab", {"a": 1}, _Other()]


@pytest.mark.parametrize("slot", SLOTS)
@pytest.mark.parametrize("other", OTHERS + [np.ones(3)],
                         ids=lambda o: type(o).__name__)
def test_unknown_operand_slot_returns_notimplemented(backend, rng, slot,
                                                     other):
    d = dev(random_array(rng, (3,), "float64"))
    before = d.to_host().tobytes()
    assert getattr(d, slot)(other) is NotImplemented
    assert d.to_host().tobytes() == before


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("other", OTHERS, ids=lambda o: type(o).__name__)
def test_unknown_operand_raises_typeerror(backend, rng, name, other):
    d = dev(random_array(rng, (2,), "float64"))
    op = OPS[name]
    with pytest.raises(TypeError):
        op(d, other)
    with pytest.raises(TypeError):
        op(other, d)
    e = d
    with pytest.raises(TypeError):
        e = IOPS[name](e, other)
    assert e is d


@pytest.mark.parametrize("name", OPS)
def test_numpy_operand_no_device_result(backend, rng, name):
    """d op ndarray must not quietly compute on the device through a host
    round trip: DeviceArray's slot declines; NumPy may then refuse or hand
    back an ndarray of its own, never a DeviceArray."""
    a = random_array(rng, (3,), "float64")
    d = dev(a)
    for lhs, rhs in ((d, a), (a, d)):
        try:
            r = OPS[name](lhs, rhs)
        except TypeError:
            continue
        assert not isinstance(r, devarray.DeviceArray)


# ---- shapes and broadcasting ------------------------------------------------

SHAPE_PAIRS = [
    ((), ()),
    ((0,), (0,)),
    ((1,), (1,)),
    ((7,), (7,)),
    ((1000,), (1000,)),
    ((33, 17), (33, 17)),
    ((3, 1), (4,)),
    ((2, 1, 5), (3, 1)),
    ((5, 0), (1,)),
    ((), (6,)),
    ((1, 1), (2, 3)),
    ((4, 1, 3), (1, 5, 1)),
]


@pytest.mark.parametrize("dt", ["float64", "int16", "complex64"])
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("s1, s2", SHAPE_PAIRS, ids=str)
def test_broadcast_shapes(backend, rng, dt, name, s1, s2):
    a = random_array(rng, s1, dt)
    b = random_array(rng, s2, dt)
    op = OPS[name]
    r = check_like_numpy(op, (a, b), (dev(a), dev(b)), rtol=op_rtol(name))
    assert r.shape == np.broadcast_shapes(s1, s2)
    check_like_numpy(op, (b, a), (dev(b), dev(a)), rtol=op_rtol(name))


@pytest.mark.parametrize("s1, s2", [
    ((3,), (4,)), ((2, 3), (3, 2)), ((5, 0), (2,)), ((4, 3), (2, 1, 4)),
])
@pytest.mark.parametrize("name", OPS)
def test_incompatible_shapes(backend, rng, name, s1, s2):
    a = dev(random_array(rng, s1, "float32"))
    b = dev(random_array(rng, s2, "float32"))
    with pytest.raises(ValueError) as info:
        OPS[name](a, b)
    message = str(info.value).replace(" ", "")
    for s in (s1, s2):
        assert str(s).replace(" ", "") in message, str(info.value)


@pytest.mark.parametrize("n", list(range(1, 18)) + [1025])
@pytest.mark.parametrize("dt", ["int8", "float16", "float32", "float64",
                                "complex64", "uint64"])
def test_sizes_around_vector_width(backend, rng, dt, n):
    a = random_array(rng, (n,), dt, special=True)
    b = random_array(rng, (n,), dt, special=True)
    for name, op in OPS.items():
        check_like_numpy(op, (a, b), (dev(a), dev(b)), rtol=op_rtol(name))
        check_like_numpy(lambda x: op(x, 3), (a,), (dev(a),),
                         rtol=op_rtol(name))


# ---- strided operands -------------------------------------------------------

VIEWS = {
    "step2": ((40,), lambda x: x[::2], (20,)),
    "reversed": ((20,), lambda x: x[::-1], (20,)),
    "rev_step3": ((31,), lambda x: x[-2::-3], (10,)),
    "transpose": ((6, 9), lambda x: x.T, (9, 6)),
    "slice3d": ((4, 9, 6), lambda x: x[1:, ::2, ::-1], (3, 5, 6)),
    "ellipsis_col": ((5, 7, 3), lambda x: x[..., 1], (5, 7)),
    "inner_step": ((8, 10), lambda x: x[:, 1::3], (8, 3)),
}


@pytest.mark.parametrize("dt", ["float32", "int32", "complex128", "uint8"])
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("view", VIEWS)
def test_strided_operands(backend, rng, view, name, dt):
    base_shape, take, shape = VIEWS[view]
    base = random_array(rng, base_shape, dt, special=True)
    other = random_array(rng, shape, dt, special=True)
    dbase = dev(base)
    dview = take(dbase)
    nview = take(base)
    assert dview.shape == nview.shape == shape
    op = OPS[name]
    rtol = op_rtol(name)
    check_like_numpy(op, (nview, other), (dview, dev(other)), rtol=rtol)
    check_like_numpy(op, (other, nview), (dev(other), dview), rtol=rtol)
    check_like_numpy(op, (nview, nview), (dview, dview), rtol=rtol)
    check_like_numpy(lambda x: op(x, 7), (nview,), (dview,), rtol=rtol)
    # the view's base is untouched by out-of-place ops
    assert_values(host(dbase), base)


def test_strided_with_broadcast(backend, rng):
    base = random_array(rng, (6, 8), "float64")
    row = random_array(rng, (3,), "float64")
    d = dev(base)
    check_like_numpy(operator.add, (base[::2, 1::3], row),
                     (d[::2, 1::3], dev(row)))
    check_like_numpy(operator.mul, (base.T[::-1], base[::-1, 2:3].T),
                     (d.T[::-1], d[::-1, 2:3].T))


# ---- in-place ---------------------------------------------------------------

@pytest.mark.parametrize("name", IOPS)
@pytest.mark.parametrize("dt2", DTYPES)
@pytest.mark.parametrize("dt1", DTYPES)
def test_inplace_array(backend, rng, name, dt1, dt2):
    """d op= e writes into d (same object, same memory) with NumPy's result
    cast under same_kind; where NumPy refuses, d is left unchanged."""
    a = random_array(rng, (23,), dt1, special=True)
    b = random_array(rng, (23,), dt2, special=True)
    expected, exc = np_or_exception(IOPS[name], a.copy(), b)
    d = dev(a)
    ptr = d.ptr
    e = d
    if exc is not None:
        with pytest.raises(exc):
            e = IOPS[name](e, dev(b))
        assert e is d
        assert host(d).tobytes() == a.tobytes()
        return
    e = IOPS[name](e, dev(b))
    assert e is d and d.ptr == ptr and d.dtype == dt1
    assert_values(d, expected, rtol=op_rtol(name)(np.dtype(dt1)))


INPLACE_SCALAR_CASES = [
    ("int32", "add", 1.5, TypeError),
    ("int8", "add", 1000, OverflowError),
    ("uint8", "sub", -1, OverflowError),
    ("int16", "div", 2, TypeError),
    ("bool", "add", 1, TypeError),
    ("bool", "add", True, None),
    ("bool", "mul", False, None),
    ("int8", "mul", 100, None),
    ("uint16", "sub", 7, None),
    ("float32", "mul", 2.5, None),
    ("float16", "add", 0.1, None),
    ("float64", "div", 3, None),
    ("float32", "add", 1j, TypeError),
    ("complex64", "mul", 1.5j, None),
    ("complex128", "div", 0, None),
]


@pytest.mark.parametrize("dt, name, s, outcome", INPLACE_SCALAR_CASES)
def test_inplace_scalar(backend, rng, dt, name, s, outcome):
    a = random_array(rng, (19,), dt, special=True)
    expected, exc = np_or_exception(IOPS[name], a.copy(), s)
    assert exc is outcome  # NumPy agrees with the literal
    d = dev(a)
    ptr = d.ptr
    e = d
    if exc is not None:
        with pytest.raises(exc):
            e = IOPS[name](e, s)
        assert e is d and host(d).tobytes() == a.tobytes()
        return
    e = IOPS[name](e, s)
    assert e is d and d.ptr == ptr
    assert_values(d, expected, rtol=op_rtol(name)(np.dtype(dt)))


def test_inplace_documented_cases(backend, rng):
    a = random_array(rng, (8,), "float32")
    b = random_array(rng, (8,), "float64")
    d = dev(a)
    d += dev(b)  # float64 -> float32 is same_kind
    assert d.dtype == "float32"
    assert_values(d, (a + b).astype(np.float32))
    i = random_array(rng, (8,), "int64")
    di = dev(i)
    with pytest.raises(TypeError):
        di += 1.5
    with pytest.raises(TypeError):
        di += dev(b)
    assert host(di).tobytes() == i.tobytes()


@pytest.mark.parametrize("name", IOPS)
def test_inplace_broadcast(backend, rng, name):
    a = random_array(rng, (3, 4), "float64")
    row = random_array(rng, (4,), "float64")
    d = dev(a)
    ptr = d.ptr
    IOPS[name](d, dev(row))
    expected = IOPS[name](a.copy(), row)
    assert d.ptr == ptr
    assert_values(d, expected)
    # the target itself cannot grow
    small = dev(row)
    with pytest.raises(ValueError):
        IOPS[name](small, dev(a))
    assert host(small).tobytes() == row.tobytes()


def test_inplace_zero_d_and_scalar(backend, rng):
    a = random_array(rng, (), "int32")
    d = dev(a)
    d += 5
    assert d.shape == ()
    assert_values(d, a + np.int32(5))
    with pytest.raises(ValueError):
        d += dev(random_array(rng, (2,), "int32"))


def test_inplace_into_strided_view(backend, rng):
    base = random_array(rng, (6, 10), "float32")
    other = random_array(rng, (6, 4), "float32")
    d = dev(base)
    v = d[:, 1:9:2]
    ptr = v.ptr
    v += dev(other)
    expected = base.copy()
    w = expected[:, 1:9:2]
    w += other
    assert v.ptr == ptr
    assert_values(d, expected)  # untouched columns unchanged as well
    r = d[::-1]
    r *= 2
    expected[::-1] *= np.float32(2)
    assert_values(d, expected)


def _readonly(d):
    """A readonly view of d, through the private helper this version has."""
    for name in ("_readonly_view", "_make_readonly"):
        make = getattr(devarray._core, name, None)
        if make is not None:
            r = make(d)
            return d if r is None else r
    pytest.skip("no way to make a readonly DeviceArray in this version "
                "(devarray._core has neither _readonly_view nor "
                "_make_readonly)")


@pytest.mark.parametrize("name", IOPS)
def test_inplace_readonly_refused(backend, rng, name):
    a = random_array(rng, (5,), "float64")
    d = dev(a)
    assert d.readonly is False
    r = _readonly(d)
    assert r.readonly is True
    assert r[1:].readonly is True  # views keep the flag
    e = r
    with pytest.raises(ValueError):
        e = IOPS[name](e, 1.0)
    with pytest.raises(ValueError):
        e = IOPS[name](e, dev(a))
    assert e is r
    assert host(d).tobytes() == a.tobytes()
    # out-of-place ops read it fine and give a writable array
    s = OPS[name](r, 2.0)
    assert s.readonly is False
    with np.errstate(all="ignore"):
        assert_values(s, OPS[name](a, 2.0))


@pytest.mark.parametrize("case", [
    "shift_right", "shift_left", "reverse_self", "strided_overlap",
])
@pytest.mark.parametrize("dt", ["float64", "int32"])
def test_inplace_overlap(backend, rng, case, dt):
    """Partially overlapping operands give NumPy's result (as if the input
    were copied first)."""
    a = random_array(rng, (40,), dt)
    d = dev(a)
    expected = a.copy()
    take = {
        "shift_right": (lambda x: x[1:], lambda x: x[:-1]),
        "shift_left": (lambda x: x[:-1], lambda x: x[1:]),
        "reverse_self": (lambda x: x, lambda x: x[::-1]),
        "strided_overlap": (lambda x: x[2::2], lambda x: x[:-2:2]),
    }[case]
    target, source = take
    v = target(expected)
    with np.errstate(all="ignore"):
        v += source(expected)
    dv = target(d)
    dv += source(d)
    assert_values(d, expected)


# ---- unary ------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["neg", "pos", "abs"])
def test_unary(backend, rng, name, dt):
    fn = {"neg": operator.neg, "pos": operator.pos, "abs": abs}[name]
    a = random_array(rng, (5, 7), dt, special=True)
    rtol = (lambda t: 2 * eps(t)) if (name == "abs" and dt in COMPLEX_DTYPES) \
        else 0.0
    check_like_numpy(fn, (a,), (dev(a),), rtol=rtol)
    view = a[::-2, 1:]
    check_like_numpy(fn, (view,), (dev(a)[::-2, 1:],), rtol=rtol)


@pytest.mark.parametrize("dt, name, value, expected", [
    ("int8", "abs", -128, -128),
    ("int64", "abs", -2**63, -2**63),
    ("int16", "neg", -2**15, -2**15),
    ("uint8", "neg", 1, 255),
    ("uint64", "neg", 5, 2**64 - 5),
])
def test_unary_wraparound(backend, dt, name, value, expected):
    fn = {"neg": operator.neg, "abs": abs}[name]
    a = np.array([value, 3], dtype=dt)
    r = fn(dev(a))
    assert r.dtype == dt
    assert r.tolist()[0] == expected
    assert_values(r, fn(a))


@pytest.mark.parametrize("dt, real", [("complex64", "float32"),
                                      ("complex128", "float64")])
def test_abs_complex_dtype(backend, rng, dt, real):
    a = random_array(rng, (10,), dt)
    r = abs(dev(a))
    assert r.dtype == real
    assert_values(r, np.abs(a), rtol=2 * eps(real))


@pytest.mark.parametrize("dt", ["int32", "float32", "complex64", "uint16"])
def test_pos_is_new_equal_array(backend, rng, dt):
    a = random_array(rng, (9,), dt)
    d = dev(a)
    p = +d
    assert p is not d and p.ptr != d.ptr
    assert_values(p, a)
    p += 1
    assert_values(d, a)  # independent memory


# ---- used-by line, chains ---------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float64", "int32"])
def test_sum_of_sum(backend, rng, dt):
    a = random_array(rng, (1000,), dt)
    d = devarray.to_device(a)
    r = (d + d).sum()
    assert isinstance(r, devarray.DeviceArray)
    assert r.shape == ()
    assert r.device == d.device
    twice = a + a  # exact in floats; wraps in int32 like devarray must
    if np.dtype(dt).kind == "f":
        ref = float(np.sum(twice.astype(np.float64)))
        scale = float(np.sum(np.abs(twice.astype(np.float64))))
        bound = 2 * np.log2(a.size) * eps(dt) * scale
        assert abs(float(r) - ref) <= bound
        assert abs(float(r) - float(twice.sum())) <= 2 * bound
    else:
        assert int(r) == int(twice.sum())


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64"])
def test_chain(backend, rng, dt):
    a, b, c, d, e = (random_array(rng, (4, 50), dt) for _ in range(5))
    got = ((dev(a) + dev(b)) * dev(c) - dev(d)) / dev(e)
    assert got.dtype == dt and got.shape == (4, 50)
    # reference in (at least) double precision; four roundings in `dt`,
    # bounded relative to the magnitudes of the terms
    wide = np.complex128 if np.dtype(dt).kind == "c" else np.float64
    a, b, c, d, e = (x.astype(wide) for x in (a, b, c, d, e))
    ref = ((a + b) * c - d) / e
    terms = ((np.abs(a) + np.abs(b)) * np.abs(c) + np.abs(d)) / np.abs(e)
    bound = 16 * eps(dt) * (terms + np.abs(ref))
    err = np.abs(host(got).astype(wide) - ref)
    assert np.all(err <= bound), float(np.max(err / bound))


# ---- large arrays (GPU only) ------------------------------------------------

def test_over_2gib_array(gpu, rng):
    n = 2**29 + 3  # float32: 2 GiB + 12 bytes, so byte offsets pass 2^31
    a = rng.random(n, dtype=np.float32)
    d = devarray.to_device(a)
    assert d.nbytes == 4 * n
    r = d + 1
    assert r.dtype == "float32" and r.shape == (n,)
    idx = np.concatenate([rng.integers(0, n, 64), [0, 2**29 - 1, n - 3,
                                                   n - 2, n - 1]])
    for i in idx:
        assert r[int(i)].item() == float(a[i] + np.float32(1))
    tail = host(r[n - 1000:])
    assert_values(tail, a[n - 1000:] + np.float32(1))
    total = float(r.sum())
    ref = float(np.sum(a, dtype=np.float64)) + n
    assert total == pytest.approx(ref, rel=1e-5)
    del r, d
