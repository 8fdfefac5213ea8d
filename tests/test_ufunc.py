"""The elementwise functions generated from kernels/optable.h: each is a
module function with NumPy's values, dtypes and broadcasting on both
backends, agrees with its operator, refuses bad arguments, and is declared
in the type stubs."""

import ast
import operator
import pathlib

import numpy as np
import pytest

import devarray
from devarray import _core
from _helpers import (DTYPES, FLOAT_DTYPES, INT_DTYPES, assert_values, eps,
                      np_or_exception, random_array)

ROOT = pathlib.Path(__file__).resolve().parent.parent

def np_floor_divide(a, b):
    """NumPy's floor_divide, but with exactly one infinite operand the
    standard's first choice, a / b (+-inf or +-0), where NumPy gives NaN or
    -1 as Python does (the standard allows both; its tests want the first)."""
    q = np.floor_divide(a, b)
    if q.dtype.kind != "f":
        return q
    a, b = np.asarray(a, dtype=q.dtype), np.asarray(b, dtype=q.dtype)
    one_inf = (np.isinf(a) != np.isinf(b)) & ~np.isnan(a) & ~np.isnan(b)
    return np.where(one_inf, a / b, q).astype(q.dtype)


# function name -> (NumPy's function, the operator or None).  Operators of
# the functions added for the array API are the DeviceArray protocol's
# (tests/test_object.py); here only those that existed with the table.
BINARY = {
    "add": (np.add, operator.add),
    "subtract": (np.subtract, operator.sub),
    "multiply": (np.multiply, operator.mul),
    "divide": (np.divide, operator.truediv),
    "hypot": (np.hypot, None),
    "atan2": (np.arctan2, None),
    "bitwise_and": (np.bitwise_and, None),
    "bitwise_left_shift": (np.left_shift, None),
    "bitwise_or": (np.bitwise_or, None),
    "bitwise_right_shift": (np.right_shift, None),
    "bitwise_xor": (np.bitwise_xor, None),
    "copysign": (np.copysign, None),
    "equal": (np.equal, None),
    "floor_divide": (lambda a, b: np_floor_divide(a, b), None),
    "greater": (np.greater, None),
    "greater_equal": (np.greater_equal, None),
    "less": (np.less, None),
    "less_equal": (np.less_equal, None),
    "logaddexp": (np.logaddexp, None),
    "logical_and": (np.logical_and, None),
    "logical_or": (np.logical_or, None),
    "logical_xor": (np.logical_xor, None),
    "maximum": (np.maximum, None),
    "minimum": (np.minimum, None),
    "nextafter": (np.nextafter, None),
    "not_equal": (np.not_equal, None),
    "pow": (np.power, None),
    "remainder": (np.remainder, None),
}
UNARY = {
    "negative": (np.negative, operator.neg),
    "abs": (np.abs, operator.abs),
    "positive": (np.positive, operator.pos),
    "acos": (np.arccos, None),
    "acosh": (np.arccosh, None),
    "asin": (np.arcsin, None),
    "asinh": (np.arcsinh, None),
    "atan": (np.arctan, None),
    "atanh": (np.arctanh, None),
    "bitwise_invert": (np.invert, None),
    "ceil": (np.ceil, None),
    "conj": (np.conj, None),
    "cos": (np.cos, None),
    "cosh": (np.cosh, None),
    "exp": (np.exp, None),
    "expm1": (np.expm1, None),
    "floor": (np.floor, None),
    "imag": (np.imag, None),
    "isfinite": (np.isfinite, None),
    "isinf": (np.isinf, None),
    "isnan": (np.isnan, None),
    "log": (np.log, None),
    "log1p": (np.log1p, None),
    "log2": (np.log2, None),
    "log10": (np.log10, None),
    "logical_not": (np.logical_not, None),
    "real": (np.real, None),
    "reciprocal": (np.reciprocal, None),
    "round": (np.round, None),
    "sign": (np.sign, None),
    "signbit": (np.signbit, None),
    "sin": (np.sin, None),
    "sinh": (np.sinh, None),
    "square": (np.square, None),
    "sqrt": (np.sqrt, None),
    "tan": (np.tan, None),
    "tanh": (np.tanh, None),
    "trunc": (np.trunc, None),
}
# Functions whose values come from the C math library on the host and
# CUDA's on the GPU: within a few ulp of NumPy's (CUDA documents at most 4
# ulp for the float32 functions used here, 2-3 for float64; NumPy's own
# SIMD float32 loops are within 4 ulp too).  All others are exact.
MATH = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
        "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh",
        "atan2", "hypot", "logaddexp", "pow", "multiply", "divide", "abs"}
# The complex rows of these are tests/test_ufunc_complex.py's alone: sign
# and square follow the standard where NumPy departs from it (sign of
# inf/nan components, square as the textbook product, not NumPy's fused
# one), and complex sqrt and pow need that file's stated tolerances
# (thrust::complex on the GPU against NumPy's npymath: pow's error grows
# with |x2 log x1|).
COMPLEX_ELSEWHERE = {"sign", "square", "sqrt", "pow"}


def skip_complex_elsewhere(name, *dtypes):
    if name in COMPLEX_ELSEWHERE and any(np.dtype(d).kind == "c" for d in dtypes):
        pytest.skip("complex rows: tests/test_ufunc_complex.py")


def check(name, np_args, da_args, rtol=0.0):
    """devarray.<name> on DeviceArrays raises what NumPy's function raises on
    the same values, or gives NumPy's dtype, shape and values."""
    np_fn = {**BINARY, **UNARY}[name][0]
    expected, exc = np_or_exception(np_fn, *np_args)
    if exc is not None:
        with pytest.raises(exc):
            getattr(devarray, name)(*da_args)
        return
    got = getattr(devarray, name)(*da_args)
    expected = np.asarray(expected)
    assert_values(got, expected, rtol=rtol(expected.dtype) if callable(rtol) else rtol)


def rtol(dtype):
    """Complex * and / are several roundings (NumPy's SIMD product uses
    FMA); the math library functions (MATH) come from the platform's math
    library on the host and CUDA's on the GPU, within 4 ulp of each other
    (CUDA's documented bounds), so 8 eps covers both sides."""
    return 8 * eps(dtype) if dtype.kind in "cf" else 0.0


def tolerance(name):
    return rtol if name in MATH else 0.0


def operands_for(name, a, b):
    """NumPy raises ValueError for a negative integer exponent, which a
    kernel cannot (test_pow_negative_integer_exponent): pow's integer
    exponents are made non-negative (~b for b < 0 cannot overflow)."""
    if name == "pow" and b.dtype.kind == "i":
        b = np.where(b < 0, ~b, b).astype(b.dtype)
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype1", DTYPES)
@pytest.mark.parametrize("dtype2", ["bool", "int16", "uint64", "float32", "complex128"])
def test_binary_function_matches_numpy(backend, rng, name, dtype1, dtype2):
    skip_complex_elsewhere(name, dtype1, dtype2)
    a = random_array(rng, (3, 5), dtype1, special=True)
    b = random_array(rng, (5,), dtype2, special=True)
    a, b = operands_for(name, a, b)
    check(name, (a, b), (devarray.asarray(a), devarray.asarray(b)), rtol=tolerance(name))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_function_same_dtype_matches_numpy(backend, rng, name, dtype):
    """Both operands of one dtype, with edge values in both (the standard's
    special cases: nan, +-inf, signed zeros; integer extremes and zero
    divisors), strided and broadcast."""
    skip_complex_elsewhere(name, dtype)
    a = random_array(rng, (4, 16), dtype, special=True)[:, ::2]
    b = random_array(rng, (4, 1), dtype, special=True)
    a, b = operands_for(name, a, b)
    check(name, (a, b), (devarray.asarray(a), devarray.asarray(b)), rtol=tolerance(name))
    b, a = operands_for(name, b, a)
    check(name, (b, a), (devarray.asarray(b), devarray.asarray(a)), rtol=tolerance(name))


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_function_matches_numpy(backend, rng, name, dtype):
    skip_complex_elsewhere(name, dtype)
    a = random_array(rng, (4, 3), dtype, special=True)[:, ::2]
    if name == "reciprocal" and a.dtype.kind in "iu":
        # NumPy's integer 1 / 0 is whatever the CPU's division gives
        a = np.where(a == 0, 1, a).astype(a.dtype)
    if name == "round" and dtype == "bool":
        # NumPy rounds bool as float16; the standard has no bool round
        with pytest.raises(TypeError, match="round"):
            devarray.round(devarray.asarray(a))
        return
    check(name, (a,), (devarray.asarray(a),), rtol=tolerance(name))


@pytest.mark.parametrize("name", sorted(n for n in BINARY if n not in ("pow",)))
@pytest.mark.parametrize("scalar", [True, 3, -2.5, 1 + 2j])
def test_function_with_python_scalar_is_weak(backend, rng, name, scalar):
    skip_complex_elsewhere(name, type(scalar))
    a = random_array(rng, (6,), "float32", special=True)
    d = devarray.asarray(a)
    check(name, (a, scalar), (d, scalar), rtol=tolerance(name))
    check(name, (scalar, a), (scalar, d), rtol=tolerance(name))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("scalar", [False, 3, -2, 1.5])
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool"])
def test_function_with_python_scalar_on_integers(backend, rng, name, scalar, dtype):
    """NEP 50 with integer arrays: the scalar takes the array's dtype (a
    negative int for an unsigned one is NumPy's OverflowError); pow with a
    negative scalar exponent is NumPy's ValueError, known before the launch."""
    a = random_array(rng, (6,), dtype, special=True)
    if name == "pow":
        a = np.abs(a.astype(np.int64)).astype(dtype) % 5  # non-negative exponents
    d = devarray.asarray(a)
    check(name, (a, scalar), (d, scalar), rtol=tolerance(name))
    check(name, (scalar, a), (scalar, d), rtol=tolerance(name))


@pytest.mark.parametrize("name", [n for n, (_, op) in sorted({**BINARY, **UNARY}.items())
                                  if op is not None])
def test_function_agrees_with_operator(backend, rng, name):
    np_fn, op = {**BINARY, **UNARY}[name]
    fn = getattr(devarray, name)
    a = random_array(rng, (7,), "float64", special=True)
    d = devarray.asarray(a)
    args = (d, d) if name in BINARY else (d,)
    assert np.asarray(fn(*args).to_host()).tobytes() == \
        np.asarray(op(*args).to_host()).tobytes()
    check(name, (a, a) if name in BINARY else (a,), args, rtol=tolerance(name))


@pytest.mark.parametrize("call, exc, words", [
    (lambda d: devarray.add(d), TypeError, ["add()", "2 arguments", "1 given"]),
    (lambda d: devarray.negative(d, d), TypeError, ["negative()", "1 argument"]),
    (lambda d: devarray.add(d, [1, 2]), TypeError, ["add()", "list"]),
    (lambda d: devarray.add(1, 2), TypeError, ["add()", "DeviceArray"]),
    (lambda d: devarray.negative(2.0), TypeError, ["negative()", "DeviceArray"]),
    (lambda d: devarray.subtract(devarray.asarray([True]), True), TypeError,
     ["subtract", "bool"]),
    (lambda d: devarray.add(d, devarray.ones((2, 2))), ValueError, ["broadcast"]),
    (lambda d: devarray.add(d, 2 ** 70), OverflowError, []),
    (lambda d: devarray.bitwise_and(d, 1.5), TypeError, ["bitwise_and", "float64"]),
    (lambda d: devarray.bitwise_left_shift(d.astype(devarray.float32), d), TypeError,
     ["bitwise_left_shift", "float64"]),
    (lambda d: devarray.bitwise_invert(d.astype(devarray.float64)), TypeError,
     ["bitwise_invert", "float64"]),
    (lambda d: devarray.sign(d.astype(devarray.bool)), TypeError, ["sign", "bool"]),
    (lambda d: devarray.positive(d.astype(devarray.bool)), TypeError, ["positive", "bool"]),
    (lambda d: devarray.floor_divide(d, 1 + 1j), TypeError, ["floor_divide", "complex"]),
    (lambda d: devarray.less(d), TypeError, ["less()", "2 arguments", "1 given"]),
    (lambda d: devarray.sqrt(d, d), TypeError, ["sqrt()", "1 argument", "2 given"]),
    (lambda d: devarray.sin(), TypeError, ["sin()", "1 argument", "0 given"]),
    (lambda d: devarray.maximum(d, "1"), TypeError, ["maximum()", "str"]),
    (lambda d: devarray.equal(None, d), TypeError, ["equal()", "NoneType"]),
    (lambda d: devarray.exp([1.0]), TypeError, ["exp()", "list"]),
    (lambda d: devarray.logical_and(2, 3), TypeError, ["logical_and()", "DeviceArray"]),
    (lambda d: devarray.pow(d, -1), ValueError, ["negative integer powers"]),
    (lambda d: devarray.pow(d, devarray.ones((2,))), ValueError, ["broadcast"]),
])
def test_function_errors(backend, call, exc, words):
    d = devarray.asarray(np.array([1, 2, 3], dtype=np.int32))
    before = np.asarray(d.to_host()).copy()
    with pytest.raises(exc) as info:
        call(d)
    for word in words:
        assert word in str(info.value)
    assert np.array_equal(np.asarray(d.to_host()), before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hypot_special_values_and_dtypes(backend, rng, dtype):
    """hypot of every dtype against NumPy: integers and bool compute in the
    smallest float that holds them (int8 -> float16, int16 -> float32,
    int32 -> float64), complex is a TypeError; inf beats nan, as IEEE and
    the standard's special cases say."""
    a = random_array(rng, (64,), dtype, special=True)
    b = random_array(rng, (64,), dtype, special=True)
    check("hypot", (a, b), (devarray.asarray(a), devarray.asarray(b)), rtol=rtol)
    if np.dtype(dtype).kind == "f":
        specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, np.nan], dtype=dtype)
        others = np.array([np.nan, np.nan, -np.inf, -0.0, 0.0, 3.0], dtype=dtype)
        check("hypot", (specials, others),
              (devarray.asarray(specials), devarray.asarray(others)))


@pytest.mark.parametrize("x1, x2", [
    ("int8", "uint8"), ("int16", "uint16"), ("bool", "int8"), ("uint64", "int64"),
    ("int16", "float16"), ("int8", 3), ("int8", 2.5), ("float16", 3.0),
    ("bool", True), ("int8", 1000), ("int32", 1 + 1j), (np.float64(2), "int8"),
])
def test_hypot_result_dtype_like_numpy(backend, rng, x1, x2):
    """NumPy picks the first float loop every input casts to safely, after
    NEP 50 has promoted weak Python scalars with the arrays' dtypes."""
    def operand(x, for_numpy):
        if not isinstance(x, str):
            return x
        a = random_array(np.random.default_rng(1), (5,), x)
        return a if for_numpy else devarray.asarray(a)
    check("hypot", (operand(x1, True), operand(x2, True)),
          (operand(x1, False), operand(x2, False)), rtol=rtol)


def test_hypot_does_not_overflow(backend):
    big = np.array([3e300, 1e-320, 3e38], dtype=np.float64)
    got = np.asarray(devarray.hypot(devarray.asarray(big), devarray.asarray(big * 4 / 3)).to_host())
    np.testing.assert_allclose(got, np.hypot(big, big * 4 / 3), rtol=4 * np.finfo(np.float64).eps)
    assert np.isfinite(got).all()


def test_every_op_function_has_text_signature_and_doc():
    for name in list(BINARY) + list(UNARY):
        fn = getattr(devarray, name)
        expected = "(x1, x2, /)" if name in BINARY else "(x, /)"
        assert fn.__text_signature__ == expected
        assert fn.__doc__ and fn.__doc__.strip()


def test_internal_ops_are_not_exported():
    # COPY runs casts and copies, NEXTAFTER_HALF float16's nextafter; they
    # have no docstring in the table
    assert not hasattr(_core, "copy")
    assert not hasattr(_core, "nextafter_half")


def test_package_exports_every_public_core_name():
    public = sorted(n for n in vars(_core) if not n.startswith("_"))
    assert _core.__all__ == public
    assert set(devarray.__all__) == set(public) | {"__version__", "get_include"}
    for name in public:
        assert getattr(devarray, name) is getattr(_core, name)


def test_stubs_declare_every_public_function():
    tree = ast.parse((ROOT / "devarray" / "_core.pyi").read_text())
    declared = {node.name for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    declared |= {t.id for node in tree.body if isinstance(node, ast.AnnAssign)
                 for t in [node.target] if isinstance(t, ast.Name)}
    missing = [n for n in _core.__all__ if n not in declared]
    assert not missing, "devarray/_core.pyi lacks: " + ", ".join(missing)


def values(d):
    return np.asarray(d.to_host())


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_pow_negative_integer_exponent(backend, dtype):
    """A kernel cannot raise NumPy's ValueError for a negative exponent in an
    array: x ** -n is 1 / x ** n truncated toward zero (CuPy's choice): 1
    for 1, +-1 for -1, 0 for every other base (0 too)."""
    info = np.iinfo(dtype)
    base = np.array([1, 2, 0, info.max, info.min, 3], dtype=dtype)
    if info.min < 0:
        base = np.concatenate([base, np.array([-1, -1, -2], dtype=dtype)])
        exp = np.array([-1, -2, -3, -1, -5, -64, -1, -2, -127], dtype=np.int8)
        expected = np.array([1, 0, 0, 0, 0, 0, -1, 1, 0], dtype=dtype)
        got = devarray.pow(devarray.asarray(base), devarray.asarray(exp))
        assert_values(got, expected) if dtype != "int8" else \
            assert_values(got, expected.astype(np.int8))
    # non-negative exponents wrap like NumPy's
    exp = np.arange(base.size, dtype=dtype) * 9
    assert_values(devarray.pow(devarray.asarray(base), devarray.asarray(exp)),
                  np.power(base, exp))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shift_counts_like_numpy(backend, rng, dtype):
    """Counts from 0 past the width (and negative ones): NumPy's results,
    0 for left shifts, 0 or -1 (by the sign) for right shifts."""
    info = np.iinfo(dtype)
    bits = np.dtype(dtype).itemsize * 8
    x = np.array([1, info.max, info.min, 5, info.max // 3, 0] * 3, dtype=dtype)
    counts = np.array([0, 1, bits - 1, bits, bits + 1, 63, 64, 65, 100, 200,
                       7, 3, 2, 30, 31, 32, 33, 9], dtype=np.int64)
    counts = counts.astype(dtype) if info.max >= 200 else np.minimum(counts, info.max).astype(dtype)
    if info.min < 0:
        counts[-3:] = -1
    for name, fn in [("bitwise_left_shift", np.left_shift),
                     ("bitwise_right_shift", np.right_shift)]:
        check(name, (x, counts), (devarray.asarray(x), devarray.asarray(counts)))
        check(name, (x, counts[::-1].copy()), (devarray.asarray(x), devarray.asarray(counts[::-1].copy())))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_division_by_zero_and_overflow(backend, rng, dtype):
    """x // 0 and x % 0 are 0 (NumPy); MIN // -1 wraps to MIN and MIN % -1
    is 0; the remainder takes the divisor's sign (Python's)."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 7, 0, info.min, 7, 7], dtype=dtype)
    y = np.array([0, 0, 0, 0, -1 if info.min < 0 else 1, -2 if info.min < 0 else 2, 3],
                 dtype=dtype)
    for name in ("floor_divide", "remainder"):
        check(name, (x, y), (devarray.asarray(x), devarray.asarray(y)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_float_special_cases(backend, dtype):
    """The standard's special cases on every pair of edge values, against
    NumPy, which follows them except where floor_divide has one infinite
    operand (NumPy takes the options the standard allows to match Python,
    inf // 2 is nan and -1 // inf is -1; the standard's tests want its
    first choice, inf and -0)."""
    edge = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5,
                     0.5, -0.5, 1.5, 3.0], dtype=dtype)
    a, b = np.meshgrid(edge, edge)
    da_a, da_b = devarray.asarray(a), devarray.asarray(b)
    # floor_divide with exactly one infinite operand: the standard's values
    # (a / b: +-inf or +-0), where NumPy gives nan or -1 as Python does
    one_inf = (np.isinf(a) != np.isinf(b)) & ~np.isnan(a) & ~np.isnan(b)
    with np.errstate(all="ignore"):
        expected = np.where(one_inf, a / b, np.floor_divide(a, b))
    got = devarray.floor_divide(da_a, da_b)
    assert_values(got, expected)
    # signed zeros and infinities (a NaN's sign bit is not a value: CUDA's
    # default NaN is positive, x86's negative)
    numbers = ~np.isnan(expected)
    assert (np.signbit(values(got)) == np.signbit(expected))[numbers].all()
    assert np.isinf(expected[one_inf & np.isinf(a)]).all()
    for name in ("remainder", "pow", "copysign", "maximum", "minimum",
                 "nextafter", "logaddexp", "atan2", "hypot", "equal", "less",
                 "greater_equal", "not_equal"):
        check(name, (a, b), (da_a, da_b), rtol=tolerance(name))
    for name in ("round", "sign", "ceil", "floor", "trunc", "sqrt", "signbit",
                 "isnan", "isinf", "isfinite", "reciprocal", "square", "exp", "log",
                 "expm1", "log1p", "tanh", "atanh", "acosh", "asinh"):
        check(name, (edge,), (devarray.asarray(edge),), rtol=tolerance(name))


def test_signed_zeros_and_nan_sign():
    """Signs that == cannot see: the standard's signed zero results."""
    d = devarray.asarray(np.array([-0.0, 0.0, -0.0, 0.0], dtype=np.float64))
    e = devarray.asarray(np.array([2.0, -2.0, -2.0, 2.0], dtype=np.float64))
    assert np.signbit(values(devarray.floor_divide(d, e))).tolist() == [True, True, False, False]
    assert np.signbit(values(devarray.remainder(d, e))).tolist() == [False, True, True, False]
    assert np.signbit(values(devarray.round(d))).tolist() == [True, False, True, False]
    assert np.signbit(values(devarray.copysign(e, d))).tolist() == [True, False, True, False]
    n = devarray.asarray(np.array([np.nan, -np.nan]))
    assert values(devarray.signbit(n)).tolist() == np.signbit(np.array([np.nan, -np.nan])).tolist()
    assert values(devarray.nextafter(d, e * 0)).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert np.signbit(values(devarray.nextafter(d, -d))).tolist() == [False, True, False, True]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nextafter_steps_on_the_dtype_grid(backend, rng, dtype):
    """float16 computes in float32, but its next value is float16's."""
    info = np.finfo(dtype)
    x = np.array([0, 1, -1, info.max, -info.max, info.tiny, info.smallest_subnormal,
                  np.inf, 2.5], dtype=dtype)
    t = np.array([1, 2, 0, np.inf, 0, 0, -1, 0, -np.inf], dtype=dtype)
    check("nextafter", (x, t), (devarray.asarray(x), devarray.asarray(t)))
    check("nextafter", (t, x), (devarray.asarray(t), devarray.asarray(x)))


def test_logaddexp_does_not_overflow(backend):
    x = np.array([1000.0, -1000.0, 710.0, np.inf, -np.inf, 5.0])
    y = np.array([999.0, -1001.0, 710.0, np.inf, -np.inf, -np.inf])
    got = values(devarray.logaddexp(devarray.asarray(x), devarray.asarray(y)))
    expected = np.logaddexp(x, y)
    np.testing.assert_allclose(got, expected, rtol=8 * np.finfo(np.float64).eps)
    assert np.isfinite(got[:3]).all()


@pytest.mark.parametrize("name, dtype, expected", [
    ("ceil", "int8", "int8"), ("floor", "bool", "bool"), ("trunc", "uint64", "uint64"),
    ("round", "int32", "int32"), ("conj", "bool", "int8"), ("conj", "int16", "int16"),
    ("real", "bool", "bool"), ("imag", "float32", "float32"), ("imag", "uint8", "uint8"),
    ("square", "bool", "int8"), ("reciprocal", "bool", "int8"), ("sqrt", "bool", "float16"),
    ("sqrt", "int16", "float32"), ("exp", "int64", "float64"), ("isnan", "int8", "bool"),
    ("signbit", "int64", "bool"), ("logical_not", "float64", "bool"),
    ("bitwise_invert", "bool", "bool"), ("sign", "uint8", "uint8"),
])
def test_unary_result_dtype_like_numpy_2(backend, rng, name, dtype, expected):
    """Rounding functions keep integer dtypes (NumPy 2, and the standard);
    NumPy's functions without a bool loop compute bool as int8."""
    a = random_array(rng, (5,), dtype)
    got = getattr(devarray, name)(devarray.asarray(a))
    assert got.dtype == np.dtype(expected)
    check(name, (a,), (devarray.asarray(a),), rtol=tolerance(name))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype1, dtype2", [("float32", "int8"), ("bool", "uint64"),
                                            ("float64", "float64"), ("int16", "bool")])
def test_logical_functions_take_any_dtype(backend, rng, name, dtype1, dtype2):
    """Nonzero is true (NaN too), as NumPy's logical functions give."""
    a = random_array(rng, (8,), dtype1, special=True)
    b = random_array(rng, (8,), dtype2, special=True)
    a[::3] = 0
    check(name, (a, b), (devarray.asarray(a), devarray.asarray(b)))


@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint64", "int64"])
@pytest.mark.parametrize("scalar", [1000, -1, -(2 ** 70), 2 ** 64, 0])
def test_comparison_with_python_int_out_of_range(backend, rng, name, dtype, scalar):
    """NumPy 2 compares a Python int outside the dtype's range instead of
    raising OverflowError (the other functions still raise it)."""
    a = random_array(rng, (2, 3), dtype, special=True)
    d = devarray.asarray(a)
    check(name, (a, scalar), (d, scalar))
    check(name, (scalar, a), (scalar, d))


def np_clip(x, lo, hi):
    """The standard's clip in x's dtype: min(max(x, lo), hi), NaN if any is."""
    with np.errstate(all="ignore"):
        r = x
        if lo is not None:
            r = np.maximum(r, np.asarray(lo).astype(x.dtype))
        if hi is not None:
            r = np.minimum(r, np.asarray(hi).astype(x.dtype))
        return np.asarray(np.broadcast_to(r, np.broadcast_shapes(
            x.shape, np.shape(lo) if lo is not None else (),
            np.shape(hi) if hi is not None else ()))).astype(x.dtype)


@pytest.mark.parametrize("dtype", [t for t in DTYPES if np.dtype(t).kind != "c"])
@pytest.mark.parametrize("bounds", ["arrays", "scalars", "min", "max", "none", "broadcast"])
def test_clip_matches_numpy(backend, rng, dtype, bounds):
    """x's dtype and the broadcast shape; NaN wherever x or a bound is NaN."""
    x = random_array(rng, (3, 4), dtype, special=True)
    lo = random_array(rng, (3, 4), dtype, special=True)
    hi = random_array(rng, (3, 4), dtype, special=True)
    if dtype != "bool":
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)  # min > max is unspecified
    kinds = {"arrays": (lo, hi), "min": (lo, None), "max": (None, hi), "none": (None, None),
             "broadcast": (lo[:1, :], hi[:, :1].reshape(3, 1, 1)),
             "scalars": (lo.flat[0].item(), hi.flat[0].item())}
    a, b = kinds[bounds]
    if bounds == "scalars" and a > b:
        a, b = b, a
    expected = np_clip(x, a, b)
    if dtype != "bool" and bounds in ("arrays", "min", "max"):
        # NumPy's own clip, where it keeps x's dtype
        assert_values(expected, np.clip(x, a, b))
    conv = (lambda v: v if v is None or not isinstance(v, np.ndarray)
            else devarray.asarray(v))
    got = devarray.clip(devarray.asarray(x), min=conv(a), max=conv(b))
    assert_values(got, expected)
    assert_values(devarray.clip(devarray.asarray(x), conv(a), conv(b)), expected)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "uint8",
                                   "float16"])
def test_clip_long_operands(backend, rng, dtype):
    """Operands long enough for the vectorised one pass (kernels/elementwise.cu
    da_cuda_clip: contiguous, bounds of x's dtype and shape), shifted so that
    they are aligned alike and unalike, beside the layouts that take the
    two passes (strided x, a bound of another dtype, a broadcast bound)."""
    n = 70001
    x = random_array(rng, n + 1, dtype, special=True)
    lo = random_array(rng, n + 1, dtype, special=True)
    hi = random_array(rng, n + 1, dtype, special=True)
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    dx, dlo, dhi = (devarray.asarray(v) for v in (x, lo, hi))
    a, b = sorted([lo[7].item(), hi[9].item()]) if dtype[0] != "f" else (-3.5, 4.0)
    cases = [
        ((dx, a, b), (x, a, b)),
        ((dx, a, None), (x, a, None)),
        ((dx, None, b), (x, None, b)),
        ((dx, dlo, dhi), (x, lo, hi)),
        ((dx[1:], dlo[1:], dhi[1:]), (x[1:], lo[1:], hi[1:])),
        ((dx[1:], dlo[:-1], b), (x[1:], lo[:-1], b)),
        ((dx[::2], a, dhi[::2]), (x[::2], a, hi[::2])),
        ((dx.reshape(1, n + 1), dlo[None, :], None), (x.reshape(1, n + 1), lo[None, :], None)),
        ((dx[:10].reshape(10, 1), None, dhi[None, :20]),
         (x[:10].reshape(10, 1), None, hi[None, :20])),
    ]
    if dtype in ("int32", "int64"):
        small = random_array(rng, n + 1, "int16")
        cases.append(((dx, devarray.asarray(small), None), (x, small, None)))
    for (d, dmin, dmax), (h, hmin, hmax) in cases:
        assert_values(devarray.clip(d, dmin, dmax), np_clip(h, hmin, hmax))


def test_clip_scalar_rules(backend):
    x = np.array([-5, 0, 100, 127], dtype=np.int8)
    d = devarray.asarray(x)
    # a Python int outside int8 saturates (the standard leaves it unspecified)
    assert_values(devarray.clip(d, -1000, 1000), x)
    assert_values(devarray.clip(d, 1000), np.full(4, 127, dtype=np.int8))
    assert_values(devarray.clip(d, max=-1000), np.full(4, -128, dtype=np.int8))
    # and at 64 bits, the ends of int64 and uint64 themselves
    for dt in (np.int64, np.uint64):
        info = np.iinfo(dt)
        d64 = devarray.asarray(np.array([0, 1, info.max, info.min], dtype=dt))
        assert_values(devarray.clip(d64, -(2 ** 70), 2 ** 70), np.asarray(d64.to_host()))
        assert_values(devarray.clip(d64, max=-(2 ** 70)), np.full(4, info.min, dtype=dt))
        assert_values(devarray.clip(d64, 2 ** 70), np.full(4, info.max, dtype=dt))
    assert_values(devarray.clip(d, True, 3), np.clip(x, 1, 3))
    f = np.array([np.nan, -1.5, 0.25, 2.5, np.inf, -np.inf], dtype=np.float16)
    df = devarray.asarray(f)
    assert_values(devarray.clip(df, -1, 2), np.clip(f, np.float16(-1), np.float16(2)))
    assert_values(devarray.clip(df, 0.1), np.maximum(f, np.float16(0.1)))
    assert_values(devarray.clip(df, max=float("nan")), np.full(6, np.nan, np.float16))
    # a float64 bound for float32 x is rounded to float32
    f32 = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    lo = np.array([0.15, 0.15, 0.15])
    assert_values(devarray.clip(devarray.asarray(f32), devarray.asarray(lo)),
                  np.maximum(f32, lo.astype(np.float32)))


@pytest.mark.parametrize("call, exc, words", [
    (lambda d: devarray.clip(d, 1.5), TypeError, ["clip()", "min", "float"]),
    (lambda d: devarray.clip(d, max=1j), TypeError, ["clip()", "max", "complex"]),
    (lambda d: devarray.clip([1, 2]), TypeError, ["clip()", "list"]),
    (lambda d: devarray.clip(), TypeError, ["clip()"]),
    (lambda d: devarray.clip(d, 1, 2, 3), TypeError, ["clip()", "3 arguments"]),
    (lambda d: devarray.clip(d, mini=1), TypeError, ["mini"]),
    (lambda d: devarray.clip(d, "1"), TypeError, ["clip()", "str"]),
    (lambda d: devarray.clip(d, devarray.asarray(np.array([1], np.int64))), TypeError,
     ["clip()", "int64", "int32"]),
    (lambda d: devarray.clip(d, devarray.asarray(np.zeros(4, np.int32))), ValueError,
     ["clip()", "broadcast"]),
    (lambda d: devarray.clip(d, max=devarray.asarray(np.zeros((2, 2), np.int8))), ValueError,
     ["broadcast"]),
    (lambda d: devarray.clip(devarray.asarray(np.array([1j])), 0), TypeError,
     ["clip()", "complex128"]),
    # only an integer dtype saturates an out-of-range int, as NumPy
    (lambda d: devarray.clip(devarray.asarray(np.ones(3, np.float32)), None, 10 ** 400),
     OverflowError, ["too large"]),
])
def test_clip_errors(backend, call, exc, words):
    d = devarray.asarray(np.array([1, 2, 3], dtype=np.int32))
    before = np.asarray(d.to_host()).copy()
    with pytest.raises(exc) as info:
        call(d)
    for word in words:
        assert word in str(info.value)
    assert np.array_equal(np.asarray(d.to_host()), before)


def test_clip_signature_and_doc():
    assert devarray.clip.__text_signature__ == "(x, /, min=None, max=None)"
    assert "NaN" in devarray.clip.__doc__
