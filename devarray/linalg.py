"""devarray.linalg: the array API's linalg extension (2025.12).

    import devarray as da
    q, r = da.linalg.qr(a)
    w, v = da.linalg.eigh(a @ a.mT)

Imported at the first use of `devarray.linalg`, never by `import devarray`
(it imports NumPy when NumPy is installed).

The factorizations (cholesky, det, eig, eigh, eigvals, eigvalsh, inv,
matrix_rank, pinv, qr, slogdet, solve, svd, svdvals) are a library's: on
the host backend NumPy's numpy.linalg (LAPACK), on CUDA cuSOLVER (loaded
at first use: `pip install devarray[linalg]`), with real matrices of at
most 16 rows factored one thread per matrix instead, where cuSOLVER's
per-matrix launches would dominate.  Everything else (cross,
diagonal, matrix_norm, matrix_power, outer, trace, vector_norm, and the
main namespace's matmul, matrix_transpose, tensordot and vecdot) is
composed of devarray's own operations and runs on either backend.

Checks come first and change nothing: integer and boolean inputs where
the standard wants floating-point data are a TypeError, fewer than two
dimensions or a non-square matrix where a square one is needed a
ValueError, axes out of range devarray.AxisError.  A factorization that
fails (a singular matrix in inv or solve, a matrix that is not positive
definite in cholesky, no convergence) raises LinAlgError, which subclasses
NumPy's numpy.linalg.LinAlgError when NumPy is installed (ValueError, its
base, otherwise): code written for NumPy catches it.
"""

import math
import operator
from collections import namedtuple

import devarray
from devarray import _core
from devarray._axes import normalized_axis as _axis

try:
    import numpy as _numpy
except ImportError:  # the host backend's factorizations say what to install
    _numpy = None

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm", "LinAlgError", "EigResult", "EighResult", "QRResult", "SlogdetResult",
           "SVDResult"]


class LinAlgError(_numpy.linalg.LinAlgError if _numpy is not None else ValueError):
    """A factorization failed: a singular matrix, one that is not positive
    definite, or no convergence."""


EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

# the main namespace's, as the extension lists them
matmul = devarray.matmul
matrix_transpose = devarray.matrix_transpose
tensordot = devarray.tensordot
vecdot = devarray.vecdot

_REAL_OF = {"float32": "float32", "float64": "float64", "complex64": "float32",
            "complex128": "float64"}
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
               "complex128": "complex128"}


# ---- checks ----------------------------------------------------------------------

def _array(x, name):
    if not isinstance(x, devarray.DeviceArray):
        raise TypeError("%s() takes a DeviceArray, not %s" % (name, type(x).__name__))
    return x


def _floating(x, name):
    _array(x, name)
    if x.dtype.kind not in "fc":
        raise TypeError("%s() needs a floating-point dtype, not %s" % (name, x.dtype))
    return x


def _matrices(x, name, square=True):
    """x, a floating-point stack of matrices (square where asked)."""
    _floating(x, name)
    if x.ndim < 2:
        raise ValueError("%s() needs at least 2 dimensions (a stack of matrices), not %d"
                         % (name, x.ndim))
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError("%s() needs square matrices, not %d x %d"
                         % (name, x.shape[-2], x.shape[-1]))
    return x


# ---- the factorizations: a library's ------------------------------------------------

def _factorization(name, arrays, result_dtypes, **kwargs):
    """numpy.linalg's `name` of arrays (host-backend DeviceArrays) as
    DeviceArrays of result_dtypes (one per result) on their device."""
    device = arrays[0].device
    if _numpy is None:
        raise ImportError("devarray.linalg.%s on the host backend runs NumPy's numpy.linalg "
                          "(LAPACK), and NumPy is not installed: pip install numpy" % name)
    try:
        out = getattr(_numpy.linalg, name)(*(a.to_host() for a in arrays), **kwargs)
    except _numpy.linalg.LinAlgError as exc:
        raise LinAlgError("%s: %s" % (name, exc)) from None
    outs = out if isinstance(out, tuple) else (out,)
    results = tuple(devarray.asarray(_numpy.asarray(o).astype(dtype, copy=False), device=device)
                    for o, dtype in zip(outs, result_dtypes))
    return results if isinstance(out, tuple) else results[0]


# ---- on CUDA: cuSOLVER's routines (src/ops/factorize.c) -----------------------------
# The primitives read matrices column-major, as LAPACK does: a row-major
# (C-contiguous) array of A holds A^T column-major.  Each function below
# lays its input out, runs the primitive, and reads the result back.

def _on_host(x):
    return x.device.type == "host"


def _copy(x):
    """A C-contiguous copy of x that the primitives may overwrite."""
    return devarray.asarray(x, copy=True)


def _failed(info):
    """Whether any matrix's LAPACK info is not 0 (a wait for the device:
    NumPy's semantics need the answer before returning)."""
    return bool(info.size) and bool(devarray.any(info != 0))


def _raise_on(info, name, message):
    """LinAlgError when _failed(info)."""
    if _failed(info):
        raise LinAlgError("%s: %s" % (name, message))


def _conj_t(x):
    """The conjugate transpose of x's matrices (a view for real x)."""
    t = matrix_transpose(x)
    return devarray.conj(t) if x.dtype.kind == "c" else t


def _cuda_lu(x):
    """(diagonal of U, the permutation's sign as x's dtype) of x's LU."""
    lu = _copy(x)
    pivots, _ = _core._linalg_lu(lu)
    n = x.shape[-1]
    rows = devarray.arange(1, n + 1, dtype=devarray.int64, device=x.device)
    swaps = devarray.sum(devarray.astype(pivots != rows, devarray.int64), axis=-1)
    parity = devarray.astype(1 - 2 * (swaps % 2), x.dtype)
    return diagonal(lu), parity


def _cuda_solve(a, b, identity=False):
    """X with a @ X = b, a (..., n, n) and b (..., n, k) of one stack (b
    identity matrices where identity: X is a's inverse)."""
    x, info = _core._linalg_solve(_copy(a), _copy(b), identity)
    _raise_on(info, "solve", "Singular matrix")
    return x


def _cuda_svd(x, job):
    """(U, S, Vh) of x's matrices, job "A" (full), "S" (reduced) or "N"
    (U and Vh None): Jacobi rotations (gesvdj, as PyTorch), and where they
    do not converge LAPACK's QR iteration (gesvd).  x's rows are, read
    column-major, the columns of x^T = U' S V'^H, so x = conj(V') S U'^T."""
    k = min(x.shape[-2:])
    s, u, v, info = _core._linalg_svdj(_copy(x), job != "N", job != "A")
    if not _failed(info):
        if job == "N":
            return None, s, None
        left, right = _conj_t(v), u  # read row-major: v holds V'^T, u U'^T
        if job == "A":
            return left, s, right
        return left[..., :, :k], s, right[..., :k, :]
    return _cuda_gesvd(x, job)


def _cuda_gesvd(x, job):
    """_cuda_svd's on gesvd, which wants m >= n: a wide x is passed as it
    is (x^T column-major), a tall one transposed (x column-major)."""
    rows, columns = x.shape[-2:]
    if columns >= rows:
        s, u, vt, info = _core._linalg_svd(_copy(x), job)
        _raise_on(info, "svd", "SVD did not converge")
        # x^T = U' S V'^H: x = conj(V') S U'^T, each read row-major
        return vt, s, u
    s, u, vt, info = _core._linalg_svd(_copy(matrix_transpose(x)), job)
    _raise_on(info, "svd", "SVD did not converge")
    if job == "N":
        return None, s, None
    return matrix_transpose(u), s, matrix_transpose(vt)


def _cuda_qr(x, mode):
    rows, columns = x.shape[-2:]
    k = min(rows, columns)
    factored = _copy(matrix_transpose(x))  # x column-major
    tau, info = _core._linalg_geqrf(factored)
    r = matrix_transpose(factored)
    r = devarray.triu(r if mode == "complete" else r[..., :k, :])
    if mode == "complete" and rows > columns:
        padding = devarray.zeros(x.shape[:-2] + (rows - columns, rows), dtype=x.dtype,
                                 device=x.device)
        q = devarray.concat([factored, padding], axis=-2)
    else:
        q = _copy(factored[..., :k, :])
    _core._linalg_orgqr(q, tau)
    return matrix_transpose(q), r


def _cuda_eig(x, vectors):
    # geev fails with an internal error on NaN or inf (NumPy checks first too)
    if x.size and not bool(devarray.all(devarray.isfinite(x))):
        raise LinAlgError("eig: Array must not contain infs or NaNs")
    complex_dtype = devarray.DType(_COMPLEX_OF[x.dtype.name])
    a = _copy(devarray.astype(matrix_transpose(x), complex_dtype, copy=False))
    w, vr, info = _core._linalg_geev(a, vectors)
    _raise_on(info, "eig", "Eigenvalues did not converge")
    return w, (matrix_transpose(vr) if vectors else None)


def _cuda_eigh(x, vectors):
    a = _copy(x)
    w, info, as_rows = _core._linalg_eigh(a, vectors)
    _raise_on(info, "eigh", "Eigenvalues did not converge")
    if not vectors:
        return w, None
    return w, (_conj_t(a) if as_rows else a)


def _rtol_cutoff(s, rtol, shape):
    """rtol (None: max(M, N) * eps) times the largest singular value, per
    matrix, shaped to broadcast against s."""
    if rtol is None:
        rtol = max(shape[-2:]) * devarray.finfo(s.dtype).eps
    largest = devarray.max(s, axis=-1, keepdims=True) if s.shape[-1] else s[..., :1]
    if isinstance(rtol, devarray.DeviceArray):
        rtol = devarray.astype(rtol, s.dtype)[..., None]
    return rtol * largest


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of each Hermitian positive-definite matrix of x:
    lower triangular L with x = L L^H, or upper U = L^H with x = U^H U."""
    _matrices(x, "cholesky")
    if _on_host(x):
        return _factorization("cholesky", [x], [x.dtype.name], upper=bool(upper))
    factor, info = _core._linalg_cholesky(_copy(x))
    _raise_on(info, "cholesky", "Matrix is not positive definite")
    lower = devarray.tril(factor)
    return _copy(_conj_t(lower)) if upper else lower


def det(x, /):
    """The determinant of each square matrix of x."""
    _matrices(x, "det")
    if _on_host(x):
        return _factorization("det", [x], [x.dtype.name])
    small = _core._linalg_det(_copy(x))
    if small is not None:
        return small
    diagonal_u, parity = _cuda_lu(x)
    return devarray.prod(diagonal_u, axis=-1) * parity


def slogdet(x, /):
    """(sign, logabsdet) of each square matrix's determinant: sign of x's
    dtype (0 for a singular matrix, with logabsdet -inf), logabsdet real."""
    _matrices(x, "slogdet")
    if _on_host(x):
        sign, logabsdet = _factorization("slogdet", [x],
                                         [x.dtype.name, _REAL_OF[x.dtype.name]])
        return SlogdetResult(sign, logabsdet)
    diagonal_u, parity = _cuda_lu(x)
    # sign(0) is 0 and log(0) -inf: a singular matrix's (0, -inf), as NumPy's
    sign = devarray.prod(devarray.sign(diagonal_u), axis=-1) * parity
    return SlogdetResult(sign, devarray.sum(devarray.log(devarray.abs(diagonal_u)), axis=-1))


def eigh(x, /):
    """(eigenvalues ascending, real; eigenvectors as columns) of each
    Hermitian matrix of x (its lower triangle is read)."""
    _matrices(x, "eigh")
    if _on_host(x):
        w, v = _factorization("eigh", [x], [_REAL_OF[x.dtype.name], x.dtype.name])
        return EighResult(w, v)
    return EighResult(*_cuda_eigh(x, True))


def eigvalsh(x, /):
    """The eigenvalues, ascending and real, of each Hermitian matrix of x."""
    _matrices(x, "eigvalsh")
    if _on_host(x):
        return _factorization("eigvalsh", [x], [_REAL_OF[x.dtype.name]])
    return _cuda_eigh(x, False)[0]


def eig(x, /):
    """(eigenvalues, eigenvectors as columns) of each square matrix of x,
    complex of x's precision whatever x's values."""
    _matrices(x, "eig")
    complex_name = _COMPLEX_OF[x.dtype.name]
    if _on_host(x):
        w, v = _factorization("eig", [x], [complex_name, complex_name])
        return EigResult(w, v)
    return EigResult(*_cuda_eig(x, True))


def eigvals(x, /):
    """The eigenvalues of each square matrix of x, complex of x's precision."""
    _matrices(x, "eigvals")
    if _on_host(x):
        return _factorization("eigvals", [x], [_COMPLEX_OF[x.dtype.name]])
    return _cuda_eig(x, False)[0]


def inv(x, /):
    """The inverse of each square matrix of x (LinAlgError where singular)."""
    _matrices(x, "inv")
    if _on_host(x):
        return _factorization("inv", [x], [x.dtype.name])
    small = _core._linalg_inv(_copy(x))
    if small is not None:
        inverse, info = small
        _raise_on(info, "inv", "Singular matrix")
        return inverse
    identity = devarray.eye(x.shape[-1], dtype=x.dtype, device=x.device)
    return _cuda_solve(x, devarray.broadcast_to(identity, x.shape), identity=True)


def solve(x1, x2, /):
    """X with x1 @ X = x2 for each square matrix of x1: x2 of shape (M,) is
    one vector; otherwise (..., M, K), its stack broadcast with x1's."""
    _matrices(x1, "solve")
    _floating(x2, "solve")
    if x2.ndim == 0:
        raise ValueError("solve() needs x2 of at least 1 dimension, not a 0-d array")
    rows = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
    if rows != x1.shape[-1]:
        raise ValueError("solve(): x1's matrices are %d x %d, x2 has %d rows"
                         % (x1.shape[-2], x1.shape[-1], rows))
    dtype = devarray.result_type(x1, x2)
    x1, x2 = devarray.astype(x1, dtype), devarray.astype(x2, dtype)
    solve_stack = (lambda a, b: _factorization("solve", [a, b], [dtype.name])) \
        if _on_host(x1) else _cuda_solve
    if x2.ndim == 1:
        x2 = devarray.broadcast_to(x2[:, None], x1.shape[:-2] + (rows, 1))
        return solve_stack(x1, x2)[..., 0]
    stack = devarray.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    x1 = devarray.broadcast_to(x1, stack + x1.shape[-2:])
    x2 = devarray.broadcast_to(x2, stack + x2.shape[-2:])
    return solve_stack(x1, x2)


def qr(x, /, *, mode="reduced"):
    """(Q with orthonormal columns, R upper triangular), x = Q R, for each
    matrix of x: Q of K = min(M, N) columns ("reduced") or M ("complete")."""
    _matrices(x, "qr", square=False)
    if mode not in ("reduced", "complete"):
        raise ValueError("qr(): mode must be 'reduced' or 'complete', not %r" % (mode,))
    if _on_host(x):
        q, r = _factorization("qr", [x], [x.dtype.name, x.dtype.name], mode=mode)
        return QRResult(q, r)
    return QRResult(*_cuda_qr(x, mode))


def svd(x, /, *, full_matrices=True):
    """(U, S descending and real, Vh), x = U diag(S) Vh, for each matrix of
    x; U and Vh square where full_matrices, else of K = min(M, N)."""
    _matrices(x, "svd", square=False)
    if _on_host(x):
        u, s, vh = _factorization("svd", [x],
                                  [x.dtype.name, _REAL_OF[x.dtype.name], x.dtype.name],
                                  full_matrices=bool(full_matrices))
        return SVDResult(u, s, vh)
    return SVDResult(*_cuda_svd(x, "A" if full_matrices else "S"))


def svdvals(x, /):
    """The singular values of each matrix of x, descending and real."""
    _matrices(x, "svdvals", square=False)
    if _on_host(x):
        return _factorization("svdvals", [x], [_REAL_OF[x.dtype.name]])
    return _cuda_svd(x, "N")[1]


def _rtol_checked(rtol, name):
    if isinstance(rtol, devarray.DeviceArray) and rtol.dtype.kind not in "fiu":
        raise TypeError("%s(): rtol must be real, not %s" % (name, rtol.dtype))
    return rtol


def _rtol(rtol, name):
    """rtol for numpy.linalg: None, a float, or an array broadcast against
    x's stack (a DeviceArray is read back)."""
    rtol = _rtol_checked(rtol, name)
    return rtol.to_host() if isinstance(rtol, devarray.DeviceArray) else rtol


def matrix_rank(x, /, *, rtol=None):
    """The number of singular values of each matrix of x above rtol (None:
    max(M, N) * eps of x's dtype) times the largest, as int64."""
    _matrices(x, "matrix_rank", square=False)
    if _on_host(x):
        return _factorization("matrix_rank", [x], ["int64"],
                              rtol=_rtol(rtol, "matrix_rank"))
    s = svdvals(x)
    above = s > _rtol_cutoff(s, _rtol_checked(rtol, "matrix_rank"), x.shape)
    return devarray.sum(devarray.astype(above, devarray.int64), axis=-1)


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix of x, singular values
    below rtol (None: max(M, N) * eps) times the largest taken as zero."""
    _matrices(x, "pinv", square=False)
    if _on_host(x):
        return _factorization("pinv", [x], [x.dtype.name], rtol=_rtol(rtol, "pinv"))
    u, s, vh = svd(x, full_matrices=False)
    kept = s > _rtol_cutoff(s, _rtol_checked(rtol, "pinv"), x.shape)
    inverse = devarray.where(kept, 1 / devarray.where(kept, s, 1), 0)
    # x^+ = V diag(1/s) U^H over the singular values kept
    return (_conj_t(vh) * devarray.astype(inverse, x.dtype)[..., None, :]) @ _conj_t(u)


# ---- composed of devarray's operations -----------------------------------------------

def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors along axis (x1's and x2's
    shapes broadcast; axis counts from the broadcast shape's end)."""
    _array(x1, "cross")
    _array(x2, "cross")
    if x1.dtype.kind not in "iufc" or x2.dtype.kind not in "iufc":
        raise TypeError("cross() needs numeric arrays, not %s and %s" % (x1.dtype, x2.dtype))
    axis = operator.index(axis)
    if axis >= 0:
        raise ValueError("cross(): axis must be negative (counted from the end of the "
                         "broadcast shape), not %d" % axis)
    for x in (x1, x2):
        if x.ndim < -axis:
            raise devarray.AxisError("axis %d is out of bounds for array of dimension %d"
                                     % (axis, x.ndim))
        if x.shape[axis] != 3:
            raise ValueError("cross() needs 3 elements along axis %d, not %d"
                             % (axis, x.shape[axis]))
    a = devarray.moveaxis(x1, axis, -1)
    b = devarray.moveaxis(x2, axis, -1)
    components = [a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                  a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                  a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]]
    return devarray.moveaxis(devarray.stack(components, axis=-1), -1, axis)


def diagonal(x, /, *, offset=0):
    """The offset-th diagonal of each matrix of x (above the main one for
    offset > 0, below for offset < 0), as the last axis."""
    _array(x, "diagonal")
    if x.ndim < 2:
        raise ValueError("diagonal() needs at least 2 dimensions, not %d" % x.ndim)
    offset = operator.index(offset)
    rows, columns = x.shape[-2:]
    count = max(0, min(rows, columns - offset) if offset >= 0 else min(rows + offset, columns))
    flat = devarray.reshape(x, x.shape[:-2] + (rows * columns,))
    if count == 0:
        return flat[..., :0]
    start = offset if offset >= 0 else -offset * columns
    return flat[..., start:start + (count - 1) * (columns + 1) + 1:columns + 1]


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the offset-th diagonal of each matrix of x (sum's dtype
    rules)."""
    _array(x, "trace")
    if x.dtype.kind not in "iufc":
        raise TypeError("trace() needs a numeric array, not %s" % x.dtype)
    return devarray.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of two vectors: x1[i] * x2[j]."""
    _array(x1, "outer")
    _array(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("outer() needs two 1-d arrays, not %d-d and %d-d" % (x1.ndim, x2.ndim))
    if x1.dtype.kind not in "iufc" or x2.dtype.kind not in "iufc":
        raise TypeError("outer() needs numeric arrays, not %s and %s" % (x1.dtype, x2.dtype))
    return x1[:, None] * x2[None, :]


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("vector_norm(): axes must not repeat, got %s" % (axes,))
    return axes


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ord-norm of the vectors along axis (None: the flattened array;
    a tuple: those axes as one vector), real of x's precision."""
    _floating(x, "vector_norm")
    axes = _norm_axes(axis, x.ndim)
    magnitude = devarray.abs(x)
    real = devarray.DType(_REAL_OF[x.dtype.name])
    if ord == math.inf:
        result = devarray.max(magnitude, axis=axes, keepdims=keepdims)
    elif ord == -math.inf:
        result = devarray.min(magnitude, axis=axes, keepdims=keepdims)
    elif ord == 0:
        result = devarray.astype(devarray.sum(devarray.astype(x != 0, real), axis=axes,
                                              keepdims=keepdims), real)
    elif ord == 1:
        result = devarray.sum(magnitude, axis=axes, keepdims=keepdims)
    elif ord == 2:
        result = devarray.sqrt(devarray.sum(magnitude * magnitude, axis=axes,
                                            keepdims=keepdims))
    elif isinstance(ord, (int, float)) and not isinstance(ord, bool):
        result = devarray.sum(magnitude ** ord, axis=axes, keepdims=keepdims) ** (1.0 / ord)
    else:
        raise ValueError("vector_norm(): ord must be a number, inf or -inf, not %r" % (ord,))
    return devarray.astype(result, real, copy=False)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The ord-norm of each matrix of x: "fro", "nuc", 1, -1, 2, -2, inf,
    -inf; real of x's precision, shape (..., 1, 1) with keepdims."""
    _matrices(x, "matrix_norm", square=False)
    real = devarray.DType(_REAL_OF[x.dtype.name])
    if ord == "fro":
        magnitude = devarray.abs(x)
        result = devarray.sqrt(devarray.sum(magnitude * magnitude, axis=(-2, -1)))
    elif ord in ("nuc", 2, -2):
        values = svdvals(x)
        result = {"nuc": lambda: devarray.sum(values, axis=-1),
                  2: lambda: devarray.max(values, axis=-1),
                  -2: lambda: devarray.min(values, axis=-1)}[ord]()
    elif ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum of |x|; inf: the largest row sum
        sums = devarray.sum(devarray.abs(x), axis=-2 if ord in (1, -1) else -1)
        result = (devarray.max if ord > 0 else devarray.min)(sums, axis=-1)
    else:
        raise ValueError("matrix_norm(): ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or "
                         "-inf, not %r" % (ord,))
    result = devarray.astype(result, real, copy=False)
    if keepdims:
        result = devarray.reshape(result, result.shape + (1, 1))
    return result


def matrix_power(x, n, /):
    """Each square matrix of x raised to the integer power n (n < 0: of its
    inverse; n = 0: the identity)."""
    _array(x, "matrix_power")
    n = operator.index(n)
    if x.dtype.kind not in "iufc" or (n < 0 and x.dtype.kind not in "fc"):
        raise TypeError("matrix_power() needs a %s dtype, not %s"
                        % ("floating-point" if n < 0 else "numeric", x.dtype))
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("matrix_power() needs a stack of square matrices, not shape %s"
                         % (x.shape,))
    if n == 0:
        identity = devarray.eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return devarray.asarray(devarray.broadcast_to(identity, x.shape), copy=True)
    if n < 0:
        x, n = inv(x), -n
    result, power = None, x
    while n:
        if n & 1:
            result = power if result is None else result @ power
        n >>= 1
        if n:
            power = power @ power
    return devarray.asarray(result, copy=True) if result is x else result


# ---- numpy.linalg's calls on DeviceArrays (src/api/numpy_protocol.c) -------------------

def _numpy_qr(a, mode="reduced"):
    return qr(a, mode=mode)


def _numpy_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    # hermitian only lets NumPy take a faster route; the general SVD is the same
    return svd(a, full_matrices=full_matrices) if compute_uv else svdvals(a)


def _lower_of(a, uplo):
    """The matrices whose lower triangle is a's uplo ("L" or "U") triangle,
    Hermitian matrices being their own conjugate transpose."""
    if uplo not in ("L", "U"):
        raise ValueError("UPLO must be 'L' or 'U', not %r" % (uplo,))
    if uplo == "L":
        return a
    return devarray.conj(matrix_transpose(a)) if a.dtype.kind == "c" else matrix_transpose(a)


def _numpy_eigh(a, UPLO="L"):  # noqa: N803 (NumPy's name)
    return eigh(_lower_of(a, UPLO))


def _numpy_eigvalsh(a, UPLO="L"):  # noqa: N803 (NumPy's name)
    return eigvalsh(_lower_of(a, UPLO))


def _numpy_pinv(a, rcond=None, hermitian=False, *, rtol=None):
    return pinv(a, rtol=rtol if rcond is None else rcond)


def _numpy_matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803
    if tol is None:
        return matrix_rank(A, rtol=rtol)
    # an absolute threshold: the singular values above it
    return devarray.astype(devarray.sum(svdvals(A) > tol, axis=-1), devarray.int64)


def _numpy_norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: a vector norm for one axis (or a 1-d x), a matrix
    norm for two (or a 2-d x with ord given), the flattened 2-norm for
    axis=None and ord=None."""
    if axis is None and ord is None:
        result = vector_norm(x, keepdims=keepdims)
        return result
    if axis is None:
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) == 1:
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("numpy.linalg.norm on DeviceArrays takes one or two axes, not %d"
                         % len(axes))
    rows, columns = (_axis(a, x.ndim) for a in axes)
    moved = devarray.moveaxis(x, (rows, columns), (-2, -1))
    result = matrix_norm(moved, keepdims=keepdims, ord="fro" if ord is None else ord)
    if keepdims:
        result = devarray.moveaxis(result, (-2, -1), (rows, columns))
    return result


_NUMPY_ADAPTERS = {"qr": _numpy_qr, "svd": _numpy_svd, "eigh": _numpy_eigh,
                   "eigvalsh": _numpy_eigvalsh, "pinv": _numpy_pinv,
                   "matrix_rank": _numpy_matrix_rank, "norm": _numpy_norm}


def _numpy_function(name):
    """The function that numpy.linalg's `name` called on DeviceArrays runs:
    devarray.linalg's, through an adapter where NumPy's parameters differ
    (UPLO, compute_uv, rcond, tol, norm); None where there is none."""
    if name in _NUMPY_ADAPTERS:
        return _NUMPY_ADAPTERS[name]
    if name in __all__ and name[0].islower():
        return globals()[name]
    return None
