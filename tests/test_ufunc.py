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

# function name -> (NumPy's function, the operator)
BINARY = {
    "add": (np.add, operator.add),
    "subtract": (np.subtract, operator.sub),
    "multiply": (np.multiply, operator.mul),
    "divide": (np.divide, operator.truediv),
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
    FMA), and complex abs is hypot, within an ulp or two of NumPy's."""
    return 4 * eps(dtype) if dtype.kind in "cf" else 0.0


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype1", DTYPES)
@pytest.mark.parametrize("dtype2", ["bool", "int16", "uint64", "float32", "complex128"])
def test_binary_function_matches_numpy(backend, rng, name, dtype1, dtype2):
    a = random_array(rng, (3, 5), dtype1)
    b = random_array(rng, (5,), dtype2)
    check(name, (a, b), (devarray.asarray(a), devarray.asarray(b)),
          rtol=rtol if name in ("multiply", "divide") else 0.0)


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


@pytest.mark.parametrize("name", sorted(BINARY) + sorted(UNARY))
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
    assert set(devarray.__all__) == set(public) | {"__version__"}
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
