"""devarray.linalg (the array API's linalg extension) against numpy.linalg
on random data: every function, every float dtype, single matrices and
stacks, on both backends (on CUDA: cuSOLVER, and the one-thread-per-matrix
kernels for real matrices of at most 16 rows)."""

import math
import os
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
import devarray.linalg as la  # noqa: E402

FLOATS = ["float32", "float64", "complex64", "complex128"]
# up to 16 rows, real matrices take the one-thread-per-matrix kernels on
# CUDA; larger ones and complex ones cuSOLVER (batched eigh its own call)
SHAPES = [(4, 4), (3, 5, 5), (2, 1, 3, 3), (20, 20), (3, 17, 17)]


def random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def hermitian_positive(rng, shape, dtype):
    """Well-conditioned Hermitian positive-definite matrices."""
    a = random(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def tolerance(dtype):
    return (1e-4, 1e-4) if dtype in ("float32", "complex64") else (1e-10, 1e-10)


def assert_close(got, expected, dtype=None):
    assert isinstance(got, devarray.DeviceArray)
    expected = np.asarray(expected)
    assert got.dtype.name == (dtype or expected.dtype.name), (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    rtol, atol = tolerance(got.dtype.name)
    scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(got.to_host(), expected, rtol=rtol, atol=atol * scale)


def assert_same_values(got, expected, atol):
    """Each matrix's eigenvalues the same multiset, in any order: matched
    greedily, each to the nearest one left (sorting would not do, the two
    of a conjugate pair differing in their real parts' rounding)."""
    got = got.reshape(-1, got.shape[-1])
    expected = expected.reshape(-1, expected.shape[-1])
    for g, e in zip(got, expected):
        left = list(g)
        scale = max(float(np.abs(e).max(initial=0.0)), 1.0)
        for value in e:
            nearest = min(range(len(left)), key=lambda i: abs(left[i] - value))
            assert abs(left.pop(nearest) - value) <= atol * scale, (g, e)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_factorizations_against_numpy(backend, rng, dtype, shape):
    a = random(rng, shape, dtype)
    spd = hermitian_positive(rng, shape, dtype)
    x, s = devarray.asarray(a), devarray.asarray(spd)
    real = np.finfo(dtype).dtype.name
    assert_close(la.cholesky(s), np.linalg.cholesky(spd))
    assert_close(la.cholesky(s, upper=True), np.linalg.cholesky(spd, upper=True))
    assert_close(la.det(x), np.linalg.det(a))
    sign, logabsdet = la.slogdet(x)
    expected = np.linalg.slogdet(a)
    assert_close(sign, expected.sign)
    assert_close(logabsdet, expected.logabsdet, real)
    assert_close(la.inv(x), np.linalg.inv(a))
    w, v = la.eigh(s)
    assert_close(w, np.linalg.eigvalsh(spd), real)
    # eigenvectors up to a phase: check s v = v diag(w)
    np.testing.assert_allclose((s @ v).to_host(), (v * w[..., None, :]).to_host(),
                               rtol=tolerance(dtype)[0] * 10, atol=tolerance(dtype)[1] * 100)
    assert_close(la.eigvalsh(s), np.linalg.eigvalsh(spd), real)
    values = la.eigvals(x)
    assert values.dtype.kind == "c"
    assert_same_values(values.to_host(), np.linalg.eigvals(a), tolerance(dtype)[1] * 100)
    w, v = la.eig(x)
    assert w.dtype == v.dtype and w.dtype.kind == "c"
    np.testing.assert_allclose((devarray.astype(x, v.dtype) @ v).to_host(),
                               (v * w[..., None, :]).to_host(),
                               rtol=tolerance(dtype)[0] * 10, atol=tolerance(dtype)[1] * 1000)
    assert_close(la.svdvals(x), np.linalg.svdvals(a), real)
    assert_close(la.pinv(x), np.linalg.pinv(a))
    assert_close(la.matrix_rank(x), np.linalg.matrix_rank(a), "int64")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 5, 2), (2, 3, 1), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_and_svd_rectangular(backend, rng, dtype, shape, mode):
    a = random(rng, shape, dtype)
    x = devarray.asarray(a)
    q, r = la.qr(x, mode=mode)
    eq, er = np.linalg.qr(a, mode=mode)
    assert q.shape == eq.shape and r.shape == er.shape
    assert_close(q @ r, a)
    assert_close(la.matrix_transpose(devarray.conj(q)) @ q, np.broadcast_to(
        np.eye(q.shape[-1], dtype=dtype), q.shape[:-2] + (q.shape[-1],) * 2))
    full = mode == "complete"
    u, s, vh = la.svd(x, full_matrices=full)
    k = min(shape[-2:])
    assert_close(s, np.linalg.svd(a, compute_uv=False), np.finfo(dtype).dtype.name)
    reconstructed = (u[..., :, :k] * devarray.astype(s, x.dtype)[..., None, :]) @ vh[..., :k, :]
    assert_close(reconstructed, a)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [4, 18])
def test_solve(backend, rng, dtype, n):
    a = random(rng, (3, n, n), dtype) + n * np.eye(n, dtype=dtype)
    x = devarray.asarray(a)
    b = random(rng, (n,), dtype)
    assert_close(la.solve(x, devarray.asarray(b)), np.linalg.solve(a, b))
    b = random(rng, (2, 1, n, 3), dtype)
    assert_close(la.solve(x, devarray.asarray(b)), np.linalg.solve(a, b))
    b32 = random(rng, (n, 2), "float32")
    expected = np.linalg.solve(a, b32.astype(np.result_type(dtype, "float32")))
    assert_close(la.solve(x, devarray.asarray(b32)), expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_composed_functions(backend, rng, dtype):
    a = random(rng, (2, 3, 5), dtype)
    x = devarray.asarray(a)
    real = np.finfo(dtype).dtype.name
    for offset in (-3, -1, 0, 2, 5):
        assert_close(la.diagonal(x, offset=offset), np.linalg.diagonal(a, offset=offset))
        assert_close(la.trace(x, offset=offset), np.linalg.trace(a, offset=offset))
    for ord in (2, 1, 0, math.inf, -math.inf, 3, 0.5):
        for axis in (None, -1, (0, 2)):
            assert_close(la.vector_norm(x, axis=axis, ord=ord),
                         np.linalg.vector_norm(a, axis=axis, ord=ord), real)
    assert_close(la.vector_norm(x, axis=1, keepdims=True),
                 np.linalg.vector_norm(a, axis=1, keepdims=True), real)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        assert_close(la.matrix_norm(x, ord=ord), np.linalg.matrix_norm(a, ord=ord), real)
    assert_close(la.matrix_norm(x, keepdims=True), np.linalg.matrix_norm(a, keepdims=True),
                 real)
    b = random(rng, (4, 3, 2), dtype)
    y = devarray.asarray(b)
    assert_close(la.cross(y, y[::-1], axis=-2), np.linalg.cross(b, b[::-1], axis=-2))
    assert_close(la.outer(x[0, 0], x[1, 2]), np.linalg.outer(a[0, 0], a[1, 2]))
    square = random(rng, (3, 4, 4), dtype) + 3 * np.eye(4, dtype=dtype)
    s = devarray.asarray(square)
    for n in (0, 1, 2, 5, -1, -2):
        assert_close(la.matrix_power(s, n), np.linalg.matrix_power(square, n))
    assert la.matmul is devarray.matmul and la.tensordot is devarray.tensordot
    assert la.vecdot is devarray.vecdot and la.matrix_transpose is devarray.matrix_transpose


def test_integer_matrix_power_and_trace(backend, rng):
    a = rng.integers(-3, 4, (2, 3, 3)).astype("int32")
    x = devarray.asarray(a)
    assert_close(la.matrix_power(x, 3), np.linalg.matrix_power(a, 3))
    assert_close(la.trace(x), np.linalg.trace(a))


def test_numpy_linalg_runs_devarray_linalg(backend, rng):
    """numpy.linalg's functions called on DeviceArrays run devarray.linalg's
    (so dask.array.linalg's chunk functions do), NumPy's own parameters
    mapped."""
    a = hermitian_positive(rng, (3, 4, 4), "float64")
    x = devarray.asarray(a)
    assert_close(np.linalg.inv(x), np.linalg.inv(a))
    assert_close(np.linalg.eigh(x, "U").eigenvalues, np.linalg.eigvalsh(a))
    assert_close(np.linalg.svd(x, compute_uv=False), np.linalg.svdvals(a))
    assert_close(np.linalg.qr(x, "complete").R, np.linalg.qr(a, "complete").R)
    assert_close(np.linalg.pinv(x, 1e-3), np.linalg.pinv(a, 1e-3))
    assert_close(np.linalg.matrix_rank(x, 5.0), np.linalg.matrix_rank(a, 5.0), "int64")
    assert_close(np.linalg.norm(x), np.linalg.norm(a))
    assert_close(np.linalg.norm(x, axis=(1, 2), keepdims=True),
                 np.linalg.norm(a, axis=(1, 2), keepdims=True))
    assert_close(np.linalg.norm(x, 1, axis=0), np.linalg.norm(a, 1, axis=0))
    with pytest.raises(TypeError, match="no implementation found for 'numpy.linalg.tensorinv'"):
        np.linalg.tensorinv(x, ind=1)


def test_errors(backend):
    f = devarray.asarray(np.ones((3, 3)))
    cases = [
        (TypeError, "needs a floating-point dtype, not int64",
         lambda: la.inv(devarray.asarray(np.eye(3, dtype="int64")))),
        (TypeError, "takes a DeviceArray, not ndarray", lambda: la.det(np.eye(3))),
        (ValueError, "needs at least 2 dimensions", lambda: la.eigh(devarray.ones(3))),
        (ValueError, "needs square matrices, not 3 x 2", lambda: la.cholesky(f[:, :2])),
        (ValueError, "x1's matrices are 3 x 3, x2 has 2 rows",
         lambda: la.solve(f, devarray.ones(2))),
        (ValueError, "mode must be 'reduced' or 'complete'", lambda: la.qr(f, mode="r")),
        (ValueError, "needs 3 elements along axis -1, not 2",
         lambda: la.cross(devarray.ones(2), devarray.ones(2))),
        (ValueError, "axis must be negative", lambda: la.cross(f, f, axis=0)),
        (ValueError, "two 1-d arrays", lambda: la.outer(f, f)),
        (ValueError, "ord must be 'fro', 'nuc'", lambda: la.matrix_norm(f, ord=3)),
        (ValueError, "ord must be a number", lambda: la.vector_norm(f, ord="fro")),
        (devarray.AxisError, "axis 2 is out of bounds", lambda: la.vector_norm(f, axis=2)),
        (TypeError, "needs a floating-point dtype, not int32",
         lambda: la.matrix_power(devarray.asarray(np.eye(2, dtype="int32")), -1)),
        (la.LinAlgError, "Singular matrix", lambda: la.inv(devarray.zeros((2, 2)))),
        (la.LinAlgError, "Singular matrix",
         lambda: la.solve(devarray.zeros((2, 2)), devarray.ones(2))),
        (la.LinAlgError, "not positive definite",
         lambda: la.cholesky(devarray.asarray(-np.eye(2)))),
    ]
    before = f.to_host().copy()
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    np.testing.assert_array_equal(f.to_host(), before)
    assert issubclass(la.LinAlgError, np.linalg.LinAlgError)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 16, 24])
def test_many_small_matrices(gpu, rng, n):
    """Batches large enough for several blocks of the small kernels (whose
    block size depends on n and the dtype), every routine on them, and the
    singular and indefinite matrices among them reported."""
    for dtype in ("float32", "float64"):
        a = random(rng, (300, n, n), dtype) + n * np.eye(n, dtype=dtype)
        spd = hermitian_positive(rng, (300, n, n), dtype)
        b = random(rng, (300, n, n + 3), dtype)
        x, s = devarray.asarray(a), devarray.asarray(spd)
        assert_close(la.inv(x), np.linalg.inv(a))
        assert_close(la.det(x), np.linalg.det(a))
        assert_close(la.slogdet(x).logabsdet, np.linalg.slogdet(a).logabsdet)
        assert_close(la.solve(x, devarray.asarray(b)), np.linalg.solve(a, b))
        column = np.broadcast_to(b[0, :, :1], (300, n, 1))
        assert_close(la.solve(x, devarray.asarray(b[0, :, 0])),
                     np.linalg.solve(a, column)[..., 0])
        assert_close(la.cholesky(s), np.linalg.cholesky(spd))
        assert_close(la.eigvalsh(s), np.linalg.eigvalsh(spd))
        w, v = la.eigh(s)
        assert_close(w, np.linalg.eigvalsh(spd))
        v, vt = v.to_host(), np.swapaxes(v.to_host(), -1, -2)
        rtol, atol = tolerance(dtype)
        np.testing.assert_allclose(vt @ v, np.broadcast_to(np.eye(n), v.shape), atol=atol * 10)
        np.testing.assert_allclose((v * w.to_host()[:, None, :]) @ vt, spd, rtol=rtol,
                                   atol=atol * np.abs(spd).max())
        singular = a.copy()
        singular[123, :, 0] = 0
        with pytest.raises(la.LinAlgError, match="Singular matrix"):
            la.inv(devarray.asarray(singular))
        assert la.det(devarray.asarray(singular)).to_host()[123] == 0
        indefinite = spd.copy()
        indefinite[7] = -indefinite[7]
        with pytest.raises(la.LinAlgError, match="not positive definite"):
            la.cholesky(devarray.asarray(indefinite))


def test_non_finite_input(backend):
    """A NaN matrix gives LinAlgError where LAPACK reports a failure and NaN
    results elsewhere (which of the two is the library's, on either
    backend); never a hang, a crash or finite numbers."""
    nan = devarray.full((4, 4), math.nan)
    for function in (la.cholesky, la.det, la.inv, la.eigvalsh, la.svdvals, la.eigvals,
                     lambda x: la.qr(x).R):
        try:
            result = function(nan)
        except la.LinAlgError:
            continue
        assert np.isnan(result.to_host()).any(), function


def test_missing_cusolver_names_what_to_install(gpu, tmp_path):
    """A cuSOLVER that does not load is a RuntimeError naming the fix."""
    code = ("import devarray, devarray.linalg as la\n"
            "try:\n    la.inv(devarray.eye(20))\n"
            "except RuntimeError as exc:\n    print(exc)\n")
    env = dict(os.environ, DEVARRAY_CUSOLVER=str(tmp_path / "libcusolver.so.12"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert "DEVARRAY_CUSOLVER=" in out and "does not load as cuSOLVER" in out


def test_import_devarray_leaves_linalg_and_numpy_alone():
    """devarray.linalg (and with it NumPy) loads at its first use only."""
    code = ("import sys, devarray; assert 'devarray.linalg' not in sys.modules; "
            "assert 'numpy' not in sys.modules; devarray.linalg; "
            "assert 'devarray.linalg' in sys.modules")
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True)
