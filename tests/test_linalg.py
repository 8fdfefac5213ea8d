"""devarray.matmul / @ (src/ops/linalg.c; cuBLAS through src/runtime/cublas.c, the
tiled kernel of kernels/matmul.cu, the host loop of src/host/host_matmul.c),
matrix_transpose, tensordot and vecdot against NumPy on random data, on
both backends: every dtype, mixed dtypes, 1-D promotion, broadcast batches,
empty and k == 0 products, and the layouts that go to BLAS as they are
(.mT views, sliced rows, broadcast matrices) or are copied first (negative
and zero strides, batches that do not collapse to one stride).

Tolerances.  Integers and bool are exact on both backends (wrapping
arithmetic; or-of-ands).  A float product is a sum of k terms in an order
NumPy's BLAS, our host loop and cuBLAS each choose, so each element is
checked against the bound of any summation order: |got - expected| <=
2 k eps (|a| @ |b|) (+ one rounding of the result for float16, which
accumulates in float32 and rounds once, as NumPy's half loop does; and for
vecdot of float16, whose products are rounded to float16 before the sum,
k half-ulps of each product).  TF32 would break the float32 bound (its
products keep 10 mantissa bits), so the bound also checks that TF32 is off
by default."""

import os
import subprocess
import sys

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, INT_DTYPES, assert_values, host, random_array

FLOAT_OR_COMPLEX = ("float16", "float32", "float64", "complex64", "complex128")


def dev(a):
    return devarray.asarray(np.array(a, order="C"))


def operand(rng, shape, dtype):
    """Random values; integers small enough that a product does not need
    the full range (wrapping is tested separately) but still signed."""
    if np.dtype(dtype).kind in "iu":
        return random_array(rng, shape, dtype)
    if np.dtype(dtype).kind in "fc":
        return (random_array(rng, shape, dtype) / 10).astype(dtype)
    return random_array(rng, shape, dtype)


def magnitude_product(fn, a, b):
    """fn applied to |a| and |b| in float64: the scale of each element's
    rounding error."""
    return np.asarray(fn(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64)))


def assert_product(got, expected, scale, k, dtype, per_term=0.0):
    """got equals expected exactly for integers and bool, else within the
    summation bound stated in the module docstring."""
    expected = np.asarray(expected)
    if np.dtype(dtype).kind not in "fc":
        assert_values(got, expected)
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape, (
        got.dtype, expected.dtype, got.shape, expected.shape)
    g = host(got).astype(np.complex128)
    e = expected.astype(np.complex128)
    acc_eps = np.finfo(np.float32 if dtype == "float16" else np.dtype(dtype)).eps
    bound = 2 * max(k, 1) * acc_eps * scale + per_term * scale
    if dtype == "float16":
        bound = bound + np.finfo(np.float16).eps * np.abs(e)
    bad = ~(np.abs(g - e) <= bound * 1.0000001 + np.finfo(np.float64).tiny)
    assert not bad.any(), (g[bad][:5], e[bad][:5], bound[bad][:5])


def check_matmul(rng, shape_a, shape_b, dtype_a, dtype_b=None):
    dtype_b = dtype_b or dtype_a
    a = operand(rng, shape_a, dtype_a)
    b = operand(rng, shape_b, dtype_b)
    expected = np.matmul(a, b)
    got = devarray.matmul(dev(a), dev(b))
    k = shape_a[-1]
    scale = magnitude_product(np.matmul, a, b) if expected.dtype.kind in "fc" else None
    assert_product(got, expected, scale, k, expected.dtype.name)
    return a, b


SHAPES = [
    ((3, 4), (4, 5)),
    ((1, 1), (1, 1)),
    ((33, 17), (17, 65)),      # several tiles of the CUDA kernel, ragged edges
    ((4,), (4, 5)),            # 1-D on the left
    ((3, 4), (4,)),            # 1-D on the right
    ((4,), (4,)),              # 0-d result
    ((2, 3, 4), (4, 5)),       # batch on one side
    ((4,), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),  # broadcast batches
    ((0, 4), (4, 2)),          # empty result
    ((2, 0, 3), (3, 4)),
    ((3, 0), (0, 2)),          # k == 0: zeros
    ((0,), (0,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_every_dtype(backend, rng, dtype):
    for shape_a, shape_b in SHAPES:
        check_matmul(rng, shape_a, shape_b, dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_matmul_integers_wrap(backend, rng, dtype):
    """Full-range integers: every product and sum wraps modulo the width,
    as NumPy's integer matmul does."""
    a = random_array(rng, (5, 40), dtype, special=True)
    b = random_array(rng, (40, 3), dtype, special=True)
    assert_values(devarray.matmul(dev(a), dev(b)), np.matmul(a, b))


@pytest.mark.parametrize("pair", [("int8", "uint8"), ("int32", "float32"),
                                  ("float32", "complex128"), ("bool", "int16"),
                                  ("uint64", "int64"), ("float16", "float32"),
                                  ("bool", "float64"), ("int64", "complex64")])
def test_matmul_mixed_dtypes(backend, rng, pair):
    check_matmul(rng, (3, 4), (4, 2), *pair)
    check_matmul(rng, (2, 3, 4), (4,), *pair)


def check_views(rng, dtype, make_a, make_b):
    a = operand(rng, (48, 48), dtype)
    b = operand(rng, (48, 48), dtype)
    va, vb = make_a(a), make_b(b)
    expected = np.matmul(va, vb)
    got = make_a(dev(a)) @ make_b(dev(b))
    scale = magnitude_product(np.matmul, va, vb) if np.dtype(dtype).kind in "fc" else None
    assert_product(got, expected, scale, va.shape[-1], dtype)


VIEWS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.mT,
    "rows-sliced": lambda x: x[::2, :],
    "cols-sliced": lambda x: x[:, 1::3],
    "block": lambda x: x[3:40, 2:45],
    "reversed": lambda x: x[::-1, :],
    "reversed-cols": lambda x: x[:, ::-1],
    "transposed-block": lambda x: x[1:47, 4:].mT,
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32",
                                   "float16", "bool"])
@pytest.mark.parametrize("view_a", sorted(VIEWS))
def test_matmul_views(backend, rng, dtype, view_a):
    for view_b in sorted(VIEWS):
        fa, fb = VIEWS[view_a], VIEWS[view_b]

        def make_a(x, fa=fa):
            return fa(x)[:, :16]

        def make_b(x, fb=fb):
            return fb(x)[:16, :]

        check_views(rng, dtype, make_a, make_b)


BATCH_CASES = {
    "contiguous": (lambda x: x, lambda y: y),
    "b-broadcast-axis0": (lambda x: x, lambda y: y[:1]),
    "a-broadcast-axis1": (lambda x: x[:, :1], lambda y: y),
    "sliced": (lambda x: x[::2], lambda y: y[::2]),
    "permuted": (lambda x: permute(x, (1, 0, 2, 3)), lambda y: permute(y, (1, 0, 2, 3))),
    "mT-in-batch": (lambda x: permute(x, (0, 1, 3, 2))[..., :5, :],
                    lambda y: y[..., :5, :]),
    "both-broadcast": (lambda x: x[:, :1], lambda y: y[:1]),
    "zero-stride-matrix": (lambda x: broadcast(x[0, 0, :1], (2, 5, 6)),
                           lambda y: y[0, :2]),
}


def permute(x, axes):
    return x.transpose(axes) if isinstance(x, np.ndarray) else devarray.permute_dims(x, axes)


def broadcast(x, shape):
    return (np.broadcast_to(x, shape) if isinstance(x, np.ndarray)
            else devarray.broadcast_to(x, shape))


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16", "float16"])
@pytest.mark.parametrize("case", sorted(BATCH_CASES))
def test_matmul_batch_layouts(backend, rng, dtype, case):
    """Batches that collapse to one stride (contiguous, broadcast, sliced)
    and ones that do not (permuted, broadcast on both sides, a stride-0
    matrix axis): the latter are copied first."""
    fa, fb = BATCH_CASES[case]
    a = operand(rng, (3, 4, 5, 6), dtype)
    b = operand(rng, (3, 4, 6, 2), dtype)
    x, y = fa(a), fb(b)
    expected = np.matmul(x, y)
    got = devarray.matmul(fa(dev(a)), fb(dev(b)))
    scale = magnitude_product(np.matmul, x, y) if np.dtype(dtype).kind in "fc" else None
    assert_product(got, expected, scale, x.shape[-1], dtype)


def test_matmul_operators(backend, rng):
    a = operand(rng, (3, 4), "float64")
    b = operand(rng, (4, 3), "float64")
    c = operand(rng, (3, 3), "float64")
    da, db, dc = dev(a), dev(b), dev(c)
    assert_values(da @ db, a @ b, rtol=1e-12)
    assert_values(db.__rmatmul__(da), a @ b, rtol=1e-12)
    d = dc
    d @= dev(c)
    assert d is dc
    assert_values(dc, c @ c, rtol=1e-12)
    # in place into an integer array from an integer product; 1-D as NumPy
    v = random_array(rng, (3,), "int32")
    m = random_array(rng, (3, 3), "int32")
    dv = dev(v)
    dv @= dev(m)
    v @= m
    assert_values(dv, v)
    # a float product into a float32 array casts (same_kind)
    f = operand(rng, (3, 3), "float32")
    df = dev(f)
    df @= dev(c)
    f @= c
    assert_values(df, f, rtol=1e-6)


def test_matmul_values_exact_small(backend):
    """Values where every backend and library must agree exactly."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    assert_values(dev(a) @ dev(b), a @ b)
    z = np.array([[1 + 2j, 3j], [2, -1j]], dtype=np.complex64)
    assert_values(dev(z) @ dev(z), z @ z)
    bo = np.array([[True, False], [False, False]])
    assert_values(dev(bo) @ dev(bo.T.copy()), bo @ bo.T)


def test_matmul_float32_not_tf32(backend, rng):
    """float32 products of 256-term sums keep float32 accuracy: TF32 (10
    mantissa bits) would miss the bound by orders of magnitude."""
    a = rng.standard_normal((64, 256)).astype(np.float32)
    b = rng.standard_normal((256, 64)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    got = host(dev(a) @ dev(b)).astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert np.all(np.abs(got - exact) <= 2 * 256 * np.finfo(np.float32).eps * scale)
    assert np.max(np.abs(got - exact) / scale) < 1e-5


def test_set_tf32():
    previous = devarray.set_tf32(True)
    try:
        assert devarray.set_tf32(False) is True
        assert devarray.set_tf32(False) is False
    finally:
        devarray.set_tf32(previous)


def test_tf32_opt_in(gpu, rng):
    """With TF32 on, cuBLAS may round the inputs to 10 mantissa bits; the
    result is still close (and the switch does not break float64)."""
    a = rng.standard_normal((128, 128)).astype(np.float32)
    previous = devarray.set_tf32(True)
    try:
        got = host(dev(a) @ dev(a)).astype(np.float64)
        d = host(dev(a.astype(np.float64)) @ dev(a.astype(np.float64)))
    finally:
        devarray.set_tf32(previous)
    exact = a.astype(np.float64) @ a.astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(a).astype(np.float64)
    assert np.max(np.abs(got - exact) / scale) < 2e-3
    assert np.max(np.abs(d - exact) / scale) < 1e-13


# ---- cuBLAS is loaded at first use, never at import ----------------------

def _run(code, **env):
    full = dict(os.environ)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=full, timeout=300)


MAPS = "open('/proc/self/maps').read()"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_import_does_not_load_cublas():
    out = _run("import devarray, numpy as np\n"
               f"assert 'libcublas' not in {MAPS}, 'loaded at import'\n"
               "devarray.set_backend('host')\n"
               "a = devarray.asarray(np.ones((2, 2), np.float32))\n"
               "a @ a\n"
               f"assert 'libcublas' not in {MAPS}, 'loaded by a host matmul'\n"
               "assert devarray._core._cublas_path() is None\n")
    assert out.returncode == 0, out.stderr


def test_cublas_loaded_at_first_use(gpu):
    out = _run("import devarray, numpy as np\n"
               f"assert 'libcublas' not in {MAPS}\n"
               "devarray.set_backend('cuda')\n"
               "i = devarray.asarray(np.ones((2, 2), np.int32))\n"
               "i @ i\n"
               f"assert 'libcublas' not in {MAPS}, 'an int matmul needs no cuBLAS'\n"
               "a = devarray.asarray(np.ones((2, 2), np.float32))\n"
               "assert (a @ a).to_host().tolist() == [[2, 2], [2, 2]]\n"
               "path = devarray._core._cublas_path()\n"
               f"assert path and 'libcublas' in {MAPS}\n"
               "print(path)\n")
    assert out.returncode == 0, out.stderr
    assert "libcublas.so" in out.stdout


def test_cublas_env_path(gpu):
    """DEVARRAY_CUBLAS names the library; a bad one is a clear RuntimeError
    naming the variable and the fix, and nothing else is tried."""
    out = _run("import devarray, numpy as np\n"
               "devarray.set_backend('cuda')\n"
               "a = devarray.asarray(np.ones((2, 2), np.float32))\n"
               "try:\n"
               "    a @ a\n"
               "except RuntimeError as e:\n"
               "    print('RAISED', e)\n",
               DEVARRAY_CUBLAS="/nonexistent/libcublas.so.13")
    assert out.returncode == 0, out.stderr
    assert "RAISED" in out.stdout and "DEVARRAY_CUBLAS" in out.stdout
    good = _run("import devarray\nprint(devarray._core._cublas_path())")
    assert good.returncode == 0


# ---- matrix_transpose, tensordot, vecdot ---------------------------------

@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 5), (0, 3), (2, 3, 4, 5)])
def test_matrix_transpose(backend, rng, shape):
    a = random_array(rng, shape, "float32")
    d = dev(a)
    t = devarray.matrix_transpose(d)
    assert_values(t, np.matrix_transpose(a))
    assert t.shape == d.mT.shape and t.strides == d.mT.strides


TENSORDOT_CASES = [
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (3, 4), 1),
    ((2, 3), (4, 5), 0),
    ((), (), 0),
    ((3,), (), 0),
    ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 3), ((-1, -2), (0, 1))),
    ((5, 0), (0, 3), 1),
    ((2, 3), (2, 3), ([0, 1], [0, 1])),
    ((2, 3), (3, 2), (1, 0)),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot(backend, rng, dtype):
    for shape_a, shape_b, axes in TENSORDOT_CASES:
        a = operand(rng, shape_a, dtype)
        b = operand(rng, shape_b, dtype)
        expected = np.tensordot(a, b, axes=axes)
        got = devarray.tensordot(dev(a), dev(b), axes=axes)
        k = int(np.prod([s for s in shape_a])) // max(int(np.prod(expected.shape[:a.ndim])), 1)
        scale = magnitude_product(lambda x, y: np.tensordot(x, y, axes=axes), a, b) \
            if np.dtype(dtype).kind in "fc" else None
        assert_product(got, expected, scale, max(k, int(np.prod(shape_a) or 1)), dtype)
    a = operand(rng, (3, 4, 5), dtype)
    b = operand(rng, (4, 5, 2), dtype)
    expected = np.tensordot(a, b)
    scale = magnitude_product(np.tensordot, a, b) if np.dtype(dtype).kind in "fc" else None
    assert_product(devarray.tensordot(dev(a), dev(b)), expected, scale, 20, dtype)


VECDOT_CASES = [
    ((5,), (5,), -1),
    ((3, 5), (5,), -1),
    ((3, 5), (2, 1, 5), -1),
    ((4, 3), (4, 3), -2),
    ((4, 3), (4, 3), 0),
    ((2, 4, 3), (4, 1), -2),
    ((0, 3), (3,), -1),
    ((3, 0), (3, 0), -1),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_vecdot(backend, rng, dtype):
    for shape_a, shape_b, axis in VECDOT_CASES:
        a = operand(rng, shape_a, dtype)
        b = operand(rng, shape_b, dtype)
        expected = np.vecdot(a, b, axis=axis)
        got = devarray.vecdot(dev(a), dev(b), axis=axis)
        k = np.broadcast_shapes(shape_a, shape_b)[axis]
        scale = None
        if np.dtype(dtype).kind in "fc":
            scale = magnitude_product(lambda x, y: np.vecdot(x, y, axis=axis), a, b)
        # float16 rounds each product to float16 before the float32 sum
        per_term = np.finfo(np.float16).eps if dtype == "float16" else 0.0
        assert_product(got, expected, scale, k, dtype, per_term=per_term)


def test_vecdot_conjugates_x1(backend):
    x1 = dev(np.array([1j, 2j, 3j]))
    x2 = dev(np.array([1, 2j, 3]))
    assert complex(devarray.vecdot(x1, x2)) == 4 - 10j
    assert complex(devarray.vecdot(x2, x1)) == 4 + 10j


def test_results_are_new_arrays(backend, rng):
    """matmul writes a new C-contiguous array; the inputs are untouched."""
    a = operand(rng, (4, 4), "float32")
    d = dev(a)
    r = d @ d.mT
    assert r.ptr != d.ptr
    assert r.strides == (16, 4)
    assert_values(d, a)
