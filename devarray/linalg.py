"""devarray.linalg: the array API's linalg extension (2025.12).

    import devarray as da
    q, r = da.linalg.qr(a)
    w, v = da.linalg.eigh(a @ a.mT)

Imported at the first use of `devarray.linalg`, never by `import devarray`
(it imports NumPy when NumPy is installed).

The factorizations (cholesky, det, eig, eigh, eigvals, eigvalsh, inv,
matrix_rank, pinv, qr, slogdet, solve, svd, svdvals) are a library's: on
the host backend NumPy's numpy.linalg (LAPACK), on CUDA cuSOLVER, which is
not wired yet (a NotImplementedError names it).  Everything else (cross,
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
    if device.type != "host":
        raise NotImplementedError(
            "devarray.linalg.%s on CUDA needs cuSOLVER, which devarray does not use yet; "
            "move the array to the host backend (x.to_backend('host')) meanwhile" % name)
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


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of each Hermitian positive-definite matrix of x:
    lower triangular L with x = L L^H, or upper U = L^H with x = U^H U."""
    _matrices(x, "cholesky")
    return _factorization("cholesky", [x], [x.dtype.name], upper=bool(upper))


def det(x, /):
    """The determinant of each square matrix of x."""
    _matrices(x, "det")
    return _factorization("det", [x], [x.dtype.name])


def slogdet(x, /):
    """(sign, logabsdet) of each square matrix's determinant: sign of x's
    dtype (0 for a singular matrix, with logabsdet -inf), logabsdet real."""
    _matrices(x, "slogdet")
    sign, logabsdet = _factorization("slogdet", [x], [x.dtype.name, _REAL_OF[x.dtype.name]])
    return SlogdetResult(sign, logabsdet)


def eigh(x, /):
    """(eigenvalues ascending, real; eigenvectors as columns) of each
    Hermitian matrix of x (its lower triangle is read)."""
    _matrices(x, "eigh")
    w, v = _factorization("eigh", [x], [_REAL_OF[x.dtype.name], x.dtype.name])
    return EighResult(w, v)


def eigvalsh(x, /):
    """The eigenvalues, ascending and real, of each Hermitian matrix of x."""
    _matrices(x, "eigvalsh")
    return _factorization("eigvalsh", [x], [_REAL_OF[x.dtype.name]])


def eig(x, /):
    """(eigenvalues, eigenvectors as columns) of each square matrix of x,
    complex of x's precision whatever x's values."""
    _matrices(x, "eig")
    complex_name = _COMPLEX_OF[x.dtype.name]
    w, v = _factorization("eig", [x], [complex_name, complex_name])
    return EigResult(w, v)


def eigvals(x, /):
    """The eigenvalues of each square matrix of x, complex of x's precision."""
    _matrices(x, "eigvals")
    return _factorization("eigvals", [x], [_COMPLEX_OF[x.dtype.name]])


def inv(x, /):
    """The inverse of each square matrix of x (LinAlgError where singular)."""
    _matrices(x, "inv")
    return _factorization("inv", [x], [x.dtype.name])


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
    if x2.ndim == 1:
        x2 = devarray.broadcast_to(x2[:, None], x1.shape[:-2] + (rows, 1))
        return _factorization("solve", [x1, x2], [dtype.name])[..., 0]
    stack = devarray.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    x1 = devarray.broadcast_to(x1, stack + x1.shape[-2:])
    x2 = devarray.broadcast_to(x2, stack + x2.shape[-2:])
    return _factorization("solve", [x1, x2], [dtype.name])


def qr(x, /, *, mode="reduced"):
    """(Q with orthonormal columns, R upper triangular), x = Q R, for each
    matrix of x: Q of K = min(M, N) columns ("reduced") or M ("complete")."""
    _matrices(x, "qr", square=False)
    if mode not in ("reduced", "complete"):
        raise ValueError("qr(): mode must be 'reduced' or 'complete', not %r" % (mode,))
    q, r = _factorization("qr", [x], [x.dtype.name, x.dtype.name], mode=mode)
    return QRResult(q, r)


def svd(x, /, *, full_matrices=True):
    """(U, S descending and real, Vh), x = U diag(S) Vh, for each matrix of
    x; U and Vh square where full_matrices, else of K = min(M, N)."""
    _matrices(x, "svd", square=False)
    u, s, vh = _factorization("svd", [x], [x.dtype.name, _REAL_OF[x.dtype.name], x.dtype.name],
                              full_matrices=bool(full_matrices))
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """The singular values of each matrix of x, descending and real."""
    _matrices(x, "svdvals", square=False)
    return _factorization("svdvals", [x], [_REAL_OF[x.dtype.name]])


def _rtol(rtol, x, name):
    """rtol for numpy.linalg: None, a float, or an array broadcast against
    x's stack (a DeviceArray is read back)."""
    if isinstance(rtol, devarray.DeviceArray):
        if rtol.dtype.kind not in "fiu":
            raise TypeError("%s(): rtol must be real, not %s" % (name, rtol.dtype))
        return rtol.to_host()
    return rtol


def matrix_rank(x, /, *, rtol=None):
    """The number of singular values of each matrix of x above rtol (None:
    max(M, N) * eps of x's dtype) times the largest, as int64."""
    _matrices(x, "matrix_rank", square=False)
    return _factorization("matrix_rank", [x], ["int64"], rtol=_rtol(rtol, x, "matrix_rank"))


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix of x, singular values
    below rtol (None: max(M, N) * eps) times the largest taken as zero."""
    _matrices(x, "pinv", square=False)
    return _factorization("pinv", [x], [x.dtype.name], rtol=_rtol(rtol, x, "pinv"))


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
