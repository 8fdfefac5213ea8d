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
from _helpers import DTYPES, assert_values, eps, np_or_exception, random_array

ROOT = pathlib.Path(__file__).resolve().parent.parent

# function name -> (NumPy's function, the operator or None)
BINARY = {
    "add": (np.add, operator.add),
    "subtract": (np.subtract, operator.sub),
    "multiply": (np.multiply, operator.mul),
    "divide": (np.divide, operator.truediv),
    "hypot": (np.hypot, None),
}
UNARY = {
    "negative": (np.negative, operator.neg),
    "abs": (np.abs, operator.abs),
}


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
    FMA); hypot (and complex abs, which is hypot) comes from the platform's
    math library on the host and CUDA's on the GPU, within 3 ulp of each
    other (CUDA's documented bound for hypotf)."""
    return 4 * eps(dtype) if dtype.kind in "cf" else 0.0


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype1", DTYPES)
@pytest.mark.parametrize("dtype2", ["bool", "int16", "uint64", "float32", "complex128"])
def test_binary_function_matches_numpy(backend, rng, name, dtype1, dtype2):
    a = random_array(rng, (3, 5), dtype1)
    b = random_array(rng, (5,), dtype2)
    check(name, (a, b), (devarray.asarray(a), devarray.asarray(b)),
          rtol=rtol if name in ("multiply", "divide", "hypot") else 0.0)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_function_matches_numpy(backend, rng, name, dtype):
    a = random_array(rng, (4, 3), dtype, special=True)[:, ::2]
    check(name, (a,), (devarray.asarray(a),), rtol=rtol)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("scalar", [True, 3, -2.5, 1 + 2j])
def test_function_with_python_scalar_is_weak(backend, rng, name, scalar):
    a = random_array(rng, (6,), "float32")
    d = devarray.asarray(a)
    check(name, (a, scalar), (d, scalar), rtol=rtol)
    check(name, (scalar, a), (scalar, d), rtol=rtol)


@pytest.mark.parametrize("name", [n for n, (_, op) in sorted({**BINARY, **UNARY}.items())
                                  if op is not None])
def test_function_agrees_with_operator(backend, rng, name):
    np_fn, op = {**BINARY, **UNARY}[name]
    fn = getattr(devarray, name)
    a = random_array(rng, (7,), "float64")
    d = devarray.asarray(a)
    args = (d, d) if name in BINARY else (d,)
    assert np.asarray(fn(*args).to_host()).tobytes() == \
        np.asarray(op(*args).to_host()).tobytes()


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
    # COPY runs casts and copies; it has no docstring in the table
    assert not hasattr(_core, "copy")


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
