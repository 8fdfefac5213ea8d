"""devarray.fuse: a fused function gives the unfused chain's results, bit for
bit (dtype, shape and bytes), on both backends, and NumPy's values."""

import numpy as np
import pytest

import devarray as da
from _helpers import DTYPES, assert_values, random_array

# the op table's functions (kernels/optable.h)
UNARY = [
    'negative', 'abs', 'bitwise_invert', 'acos', 'acosh', 'asin', 'asinh', 'atan',
    'atanh', 'cos', 'cosh', 'exp', 'expm1', 'log', 'log1p', 'log2', 'log10', 'sin',
    'sinh', 'sqrt', 'tan', 'tanh', 'ceil', 'floor', 'trunc', 'round', 'conj',
    'real', 'imag', 'isfinite', 'isinf', 'isnan', 'signbit', 'logical_not',
    'positive', 'reciprocal', 'sign', 'square',
]
BINARY = [
    'add', 'subtract', 'multiply', 'divide', 'hypot', 'equal', 'not_equal', 'less',
    'less_equal', 'greater', 'greater_equal', 'floor_divide', 'remainder', 'pow',
    'bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_left_shift',
    'bitwise_right_shift', 'atan2', 'copysign', 'logaddexp', 'nextafter',
    'logical_and', 'logical_or', 'logical_xor', 'maximum', 'minimum',
]


def outcome(fn, *args):
    """fn(*args) as (dtype, shape, bytes), or the exception's type.  On CUDA
    a real float NaN is compared as any NaN (where it is, not its bits;
    docs/fusion.md): where the unfused path copies a float16 value unchanged
    (+x, real, where) it keeps the NaN's bits, while the interpreter holds
    float16 in float32 registers and stores them with the GPU's conversion,
    which makes every NaN the canonical one; and the compiled kernels let
    the compiler fold sign operations (-(-x) is x) where the unfused
    kernels' negation canonicalises a NaN."""
    try:
        r = fn(*args)
    except (TypeError, ValueError, OverflowError) as exc:
        return type(exc)
    if isinstance(r, da.DeviceArray):
        values = r.to_host()
        if r.dtype.name in ("float16", "float32", "float64") and r.device.type == "cuda":
            values = np.where(np.isnan(values), values.dtype.type(np.nan), values)
        return (r.dtype.name, r.shape, values.tobytes())
    return r


def check_same(fn, *args):
    """fuse(fn)(*args) is fn(*args), bit for bit, or the same error."""
    want = outcome(fn, *args)
    got = outcome(da.fuse(fn), *args)
    assert got == want
    return want


@pytest.mark.parametrize("name", UNARY)
def test_unary_every_dtype(backend, rng, name):
    op = getattr(da, name)
    for dtype in DTYPES:
        a = da.asarray(random_array(rng, (37,), dtype, special=True))
        check_same(lambda x: op(op(x)), a)
        check_same(lambda x: op(x), a)


@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype(backend, rng, name):
    op = getattr(da, name)
    for dtype in DTYPES:
        a = da.asarray(random_array(rng, (41,), dtype, special=True))
        b = da.asarray(random_array(rng, (41,), dtype, special=True))
        check_same(lambda x, y: op(op(x, y), y), a, b)


MIXED = ["bool", "int8", "uint8", "int32", "uint64", "float16", "float32", "float64",
         "complex64"]


@pytest.mark.parametrize("d1", MIXED)
def test_mixed_dtypes_and_scalars(backend, rng, d1):
    for d2 in MIXED:
        a = da.asarray(random_array(rng, (23,), d1))
        b = da.asarray(random_array(rng, (23,), d2))
        check_same(lambda x, y: (x + y) * x - y, a, b)
        check_same(lambda x, y: da.where(x == y, x, y) * 2, a, b)
        for s in (True, 3, -2, 2.5, 1 + 2j, 300, -129, np.float64(1.5)):
            check_same(lambda x, y, t: x * t + y - t, a, b, s)
            check_same(lambda x, y: x * s + y / 3, a, b)
            check_same(lambda x: x < s, a)


def test_scalar_argument_varies_without_retracing(backend, rng):
    a = da.asarray(random_array(rng, (50,), "int8"))
    f = da.fuse(lambda x, s: x + s)
    for s in (1, 5, -3, 127):
        r = f(a, s)
        assert r.to_host().tobytes() == (a + s).to_host().tobytes()
    assert f.traces == 1
    # out of int8's range: the unfused error, from the unfused call
    with pytest.raises(OverflowError):
        f(a, 1000)
    f(a, 2.5)
    assert f.traces == 2


def test_numpy_values(backend, rng):
    x = random_array(rng, (1000,), "float32")
    y = random_array(rng, (1000,), "float32")
    f = da.fuse(lambda a, b: ((a + b) * a - b) / b)
    assert_values(f(da.asarray(x), da.asarray(y)), ((x + y) * x - y) / y)
    g = da.fuse(lambda a, b: da.sqrt(da.abs(a)) + da.exp(b / 100) * 3)
    want = np.sqrt(np.abs(x)) + np.exp(y / 100) * 3
    np.testing.assert_allclose(g(da.asarray(x), da.asarray(y)).to_host(), want, rtol=1e-5)


@pytest.mark.parametrize("shapes", [
    [(5, 3), (5, 3)], [(5, 3), ()], [(5, 3), (1,)], [(1, 1), ()], [(4,), (3, 1)],
    [(2, 3, 4), (3, 4)], [(0,), (0,)], [(0, 3), (1,)], [(), ()],
])
def test_broadcasting_and_sizes(backend, rng, shapes):
    a = da.asarray(random_array(rng, shapes[0], "float64"))
    b = da.asarray(random_array(rng, shapes[1], "float32"))
    check_same(lambda x, y: x * y + y, a, b)
    check_same(lambda x, y: (x - y).sum(), a, b)


def test_mismatched_shapes_raise(backend):
    a, b = da.zeros((3,)), da.zeros((4,))
    with pytest.raises(ValueError, match=r"\(3,\).*\(4,\)|\(4,\).*\(3,\)"):
        da.fuse(lambda x, y: x + y)(a, b)


def test_non_contiguous_operands(backend, rng):
    base = da.asarray(random_array(rng, (8, 6), "float32"))
    a = base[::2, ::3]
    b = da.asarray(random_array(rng, (4, 2), "float32"))
    check_same(lambda x, y: x * y - x, a, b)
    check_same(lambda x: x * 2, base.T)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", ["bool", "int16", "uint32", "float16", "float32",
                                   "float64", "complex64"])
def test_final_reduction(backend, rng, op, dtype):
    # floats near 1: products of 42 of them stay finite
    def data():
        x = random_array(rng, (6, 7), dtype)
        if np.dtype(dtype).kind in "fc":
            x = (rng.random((6, 7)) + 0.5).astype(dtype)
        return da.asarray(x)

    a, b = data(), data()
    for kwargs in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)},
                   {"keepdims": True}):
        check_same(lambda x, y: getattr(x * y, op)(**kwargs), a, b)
    if op in ("sum", "prod"):
        check_same(lambda x, y: getattr(x + y, op)(dtype="float64"), a, b)
        check_same(lambda x, y: getattr(x > y, op)(), a, b)
    # long enough for many blocks (one pass on CUDA for integers and bool
    # with the interpreter, float sums and products with the compiler)
    big = da.asarray(random_array(rng, (3, 5000), dtype, special=True))
    check_same(lambda x: getattr(x * x, op)(), big)
    check_same(lambda x: getattr(x - 1, op)(keepdims=True), big)


def test_sum_of_squares(backend, rng):
    x = random_array(rng, (10000,), "float32")
    y = random_array(rng, (10000,), "float32")
    f = da.fuse(lambda a, b: ((a - b) ** 2).sum())
    r = f(da.asarray(x), da.asarray(y))
    u = ((da.asarray(x) - da.asarray(y)) ** 2).sum()
    assert r.dtype == u.dtype and r.shape == u.shape == ()
    assert r.to_host().tobytes() == u.to_host().tobytes()
    np.testing.assert_allclose(float(r), float(((x - y) ** 2).sum()), rtol=1e-4)


def test_where_and_clip_like(backend, rng):
    for dtype in ("int8", "uint16", "float16", "float64", "complex128", "bool"):
        a = da.asarray(random_array(rng, (30,), dtype))
        b = da.asarray(random_array(rng, (30,), "float32"))
        check_same(lambda x, y: da.where(x != 0, x, y), a, b)
        check_same(lambda x, y: da.where(y > 0, 1.5, x), a, b)
        check_same(lambda x, y: da.where(y > 0, x, True), a, b)
        check_same(lambda x, y: da.minimum(da.maximum(y, -1), 1) + x, a, b)


def test_cache_hits_and_retraces(backend, rng):
    calls = []

    def fn(x, y):
        calls.append(1)
        return x * y + 1

    f = da.fuse(fn)
    a = da.asarray(random_array(rng, (10,), "float32"))
    b = da.asarray(random_array(rng, (10,), "float32"))
    for _ in range(3):
        f(a, b)
    assert f.traces == 1 and len(calls) == 1
    f(da.asarray(random_array(rng, (20,), "float32")), b[:1])
    assert f.traces == 1
    f(a, da.asarray(random_array(rng, (10,), "float64")))
    f(a, 2.0)
    f(da.asarray(random_array(rng, (2, 10), "float32")), b)
    assert f.traces == 4
    assert f.__wrapped__ is fn


def test_identity_and_constants(backend, rng):
    a = da.asarray(random_array(rng, (5,), "int8"))
    assert da.fuse(lambda x: x)(a) is a
    # a copy is a new array, as unfused
    copied = da.fuse(lambda x: +x)(a)
    assert copied is not a and copied.to_host().tobytes() == a.to_host().tobytes()
    before = a.to_host().tobytes()
    copied[0] = 1 if int(a[0]) != 1 else 2
    assert a.to_host().tobytes() == before
    check_same(lambda x: x < 1000, a)
    check_same(lambda x: x >= -1000, a)
    check_same(lambda x: x.sum(), a)
    check_same(lambda x: +x, a)
    check_same(lambda x: da.ceil(x) + da.real(x), a)


def test_long_program_falls_back(backend, rng):
    a = da.asarray(random_array(rng, (17,), "float64"))

    def long(x):
        y = x
        for k in range(100):
            y = y * 0.5 + x - k
        return y

    check_same(long, a)
    many = [da.asarray(random_array(rng, (4,), "int32")) for _ in range(20)]
    check_same(lambda *xs: sum(xs[1:], xs[0]), *many)


def test_nested_fused_functions(backend, rng):
    inner = da.fuse(lambda x, y: x * y)
    outer = da.fuse(lambda x, y: inner(x, y) + inner(y, x))
    a = da.asarray(random_array(rng, (9,), "float32"))
    b = da.asarray(random_array(rng, (9,), "float32"))
    assert outcome(outer, a, b) == outcome(lambda x, y: x * y + y * x, a, b)
    assert inner.traces == 0
