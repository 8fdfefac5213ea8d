"""devarray.fft: the array API's fft extension (2024.12 and 2025.12).

    import devarray as da
    y = da.fft.rfft(x, n=4096, norm="ortho")

On CUDA every transform is composed of batches of transforms over the
last one to three axes (`_core._fft_last_axes`, on cuFFT, plans cached per
device, kind, precision, extents and batch): a one-dimensional transform
moves its axis last, crops or zero-pads it to n, transforms, scales for
`norm` and moves the axis back; an n-dimensional one over the last (at
most three) axes is one cuFFT transform of that rank, over other axes one
pass per axis.  cuFFT is found at first use (`pip install
devarray[fft]`), never by `import devarray`.

On the host backend the transforms are NumPy's (`numpy.fft`, pocketfft,
which keeps float32 and complex64 since NumPy 2): a real library rather
than a hand-written one, found at first use; without NumPy they raise an
ImportError saying so.

The checks are the same on both backends and come first, so a bad call
changes nothing: integer and boolean inputs are a TypeError (the standard
wants floating-point data), as is complex input to the real-input
transforms (`rfft`, `rfftn`, `ihfft`); a real input to a complex
transform is taken as complex of its precision, as NumPy does.  `n` and
the entries of `s` must be positive (-1 in `s`: the input's length),
`norm` one of "backward", "ortho", "forward" (ValueError otherwise), and
axes in range (devarray.AxisError), without repeats.
"""

import math
import operator

import devarray
from devarray import _core
from devarray._axes import normalized_axis as _axis

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

# _core._fft_last_axes's kinds
_FORWARD, _INVERSE, _R2C, _C2R = 0, 1, 2, 3
_NORMS = ("backward", "ortho", "forward")
_COMPLEX_OF = {"float32": devarray.complex64, "float64": devarray.complex128,
               "complex64": devarray.complex64, "complex128": devarray.complex128}


# ---- checks --------------------------------------------------------------------

def _floating(x, name, real_only=False):
    """x, a DeviceArray of a floating-point dtype (real only where asked)."""
    if not isinstance(x, devarray.DeviceArray):
        raise TypeError("%s() takes a DeviceArray, not %s" % (name, type(x).__name__))
    kind = x.dtype.kind
    if kind not in "fc" or (real_only and kind == "c"):
        wanted = "a real floating-point" if real_only else "a floating-point"
        raise TypeError("%s() needs %s dtype, not %s" % (name, wanted, x.dtype))
    if x.ndim == 0:
        raise ValueError("%s() needs an array of at least one dimension, not a 0-d one" % name)
    return x


def _norm(norm, name):
    """norm, checked; None (NumPy's default, numpy.fft's calls dispatched
    here pass it on) is "backward"."""
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError("%s(): norm must be 'backward', 'ortho' or 'forward', not %r"
                         % (name, norm))
    return norm


def _length(n, name, what="n"):
    n = operator.index(n)
    if n < 1:
        raise ValueError("%s(): %s must be a positive number of points, not %d" % (name, what, n))
    return n


def _one_dimensional(x, n, axis, norm, name, real_only=False, from_coefficients=False):
    """The checked (x, n, axis, norm) of a one-dimensional transform: n
    defaults to the axis's length, or for a transform to real points
    (from_coefficients) to 2 * (m - 1) of its m coefficients."""
    x = _floating(x, name, real_only)
    norm = _norm(norm, name)
    axis = _axis(axis, x.ndim)
    if n is None:
        n = 2 * (x.shape[axis] - 1) if from_coefficients else x.shape[axis]
    return x, _length(n, name), axis, norm


def _axes_and_sizes(x, s, axes, name):
    """(axes, sizes) of an n-dimensional transform, by the standard's rules:
    axes None means every axis, or the last len(s) when s is given; s None
    (or an entry of -1) means the input's length along that axis."""
    if axes is None:
        axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
        if s is not None and len(s) > x.ndim:
            raise ValueError("%s(): s has %d entries for an array of %d dimensions"
                             % (name, len(s), x.ndim))
    axes = tuple(_axis(a, x.ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("%s(): axes must not repeat, got %s" % (name, axes))
    if s is None:
        s = tuple(x.shape[a] for a in axes)
    elif len(s) != len(axes):
        raise ValueError("%s(): s and axes must have the same length, not %d and %d"
                         % (name, len(s), len(axes)))
    sizes = tuple(_length(x.shape[a] if operator.index(n) == -1 else n, name, "s")
                  for a, n in zip(axes, s))
    if not axes:
        raise ValueError("%s(): needs at least one axis" % name)
    return axes, sizes


def _scale(norm, n, inverse):
    """The factor a transform of n points is multiplied by for norm."""
    if norm == "ortho":
        return 1 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1 / n
    return None


# ---- CUDA: passes on cuFFT --------------------------------------------------------

def _resized(x, axis, m):
    """x cropped or zero-padded to m along axis."""
    length = x.shape[axis]
    if length == m:
        return x
    if length > m:
        return x[(slice(None),) * axis + (slice(0, m),)]
    shape = x.shape[:axis] + (m - length,) + x.shape[axis + 1:]
    pad = devarray.zeros(shape, dtype=x.dtype, device=x.device)
    return devarray.concat([x, pad], axis=axis)


def _pass(x, axis, n, kind):
    """The unscaled one-dimensional transform of kind, n points, along axis."""
    last = x.ndim - 1
    moved = x if axis == last else devarray.moveaxis(x, axis, last)
    moved = _resized(moved, last, n // 2 + 1 if kind == _C2R else n)
    y = _core._fft_last_axes(moved, kind, (n,))
    return y if axis == last else devarray.moveaxis(y, last, axis)


def _trailing(x, axes, sizes, real_axis_last):
    """The sizes in axis order where axes are x's last len(axes) (at most
    three, one cuFFT transform of that rank; for the real transforms the
    last of axes the last axis), else None."""
    k = len(axes)
    if k > 3 or sorted(axes) != list(range(x.ndim - k, x.ndim)):
        return None
    if real_axis_last and axes[-1] != x.ndim - 1:
        return None
    by_axis = dict(zip(axes, sizes))
    return tuple(by_axis[a] for a in range(x.ndim - k, x.ndim))


def _over_trailing(x, dims, kind):
    """The unscaled transform of kind over x's last len(dims) axes, each
    cropped or zero-padded to dims (the last to dims[-1] // 2 + 1 for C2R)."""
    first = x.ndim - len(dims)
    for i, n in enumerate(dims):
        last = i == len(dims) - 1
        x = _resized(x, first + i, n // 2 + 1 if last and kind == _C2R else n)
    return _core._fft_last_axes(x, kind, tuple(dims))


def _scaled(y, norm, n, inverse):
    factor = _scale(norm, n, inverse)
    if factor is not None:
        y *= factor
    return y


def _as_complex(x):
    return x if x.dtype.kind == "c" else devarray.astype(x, _COMPLEX_OF[x.dtype.name])


# ---- the host backend: NumPy's transforms ------------------------------------------

def _by_numpy(x):
    """Whether x's transforms are NumPy's (the host backend's)."""
    return x.device.type == "host"


def _numpy_fft():
    try:
        import numpy
    except ImportError as exc:
        raise ImportError("devarray.fft on the host backend runs NumPy's numpy.fft, and NumPy "
                          "is not installed: pip install numpy") from exc
    return numpy


def _on_host(x, function, result_dtype, **kwargs):
    """NumPy's function of x (a host-backend array) as a DeviceArray of
    result_dtype on x's device."""
    numpy = _numpy_fft()
    out = getattr(numpy.fft, function)(x.to_host(), **kwargs)
    return devarray.asarray(out.astype(result_dtype.name, copy=False), device=x.device)


def _real_of(dtype):
    return devarray.float32 if dtype in (devarray.float32, devarray.complex64) \
        else devarray.float64


# ---- numpy.fft's calls on DeviceArrays (src/api/numpy_protocol.c) ----------------------

# numpy.fft's parameters after the array, which its callers may pass by
# position (dask.array's fft does): numpy.fft.fft(d, 8) is fft(d, n=8)
_NUMPY_PARAMETERS = {
    "fft": ("n", "axis", "norm"), "ifft": ("n", "axis", "norm"),
    "rfft": ("n", "axis", "norm"), "irfft": ("n", "axis", "norm"),
    "hfft": ("n", "axis", "norm"), "ihfft": ("n", "axis", "norm"),
    "fftn": ("s", "axes", "norm"), "ifftn": ("s", "axes", "norm"),
    "rfftn": ("s", "axes", "norm"), "irfftn": ("s", "axes", "norm"),
    "fftshift": ("axes",), "ifftshift": ("axes",),
}


def _numpy_function(name):
    """The function that numpy.fft's `name` called on DeviceArrays runs:
    devarray.fft's, taking NumPy's positional arguments; None where
    devarray.fft has none (fftfreq and rfftfreq take no array to
    dispatch on)."""
    parameters = _NUMPY_PARAMETERS.get(name)
    if parameters is None:
        return None
    function = globals()[name]

    def call(x, *args, **kwargs):
        if len(args) > len(parameters):
            raise TypeError("numpy.fft.%s takes at most %d arguments after the array, "
                            "got %d" % (name, len(parameters), len(args)))
        kwargs.update(zip(parameters, args))  # NumPy refused repeats already
        return function(x, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


# ---- the extension -------------------------------------------------------------------

def _c2c(x, n, axis, norm, name, inverse):
    x, n, axis, norm = _one_dimensional(x, n, axis, norm, name)
    result = _COMPLEX_OF[x.dtype.name]
    if _by_numpy(x):
        return _on_host(x, name, result, n=n, axis=axis, norm=norm)
    y = _pass(_as_complex(x), axis, n, _INVERSE if inverse else _FORWARD)
    return _scaled(y, norm, n, inverse)


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    """The one-dimensional discrete Fourier transform along axis, of n
    points (the input cropped or zero-padded; None: its length)."""
    return _c2c(x, n, axis, norm, "fft", inverse=False)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of fft: the one-dimensional inverse transform along axis."""
    return _c2c(x, n, axis, norm, "ifft", inverse=True)


def _c2c_n(x, s, axes, norm, name, inverse):
    x = _floating(x, name)
    norm = _norm(norm, name)
    axes, sizes = _axes_and_sizes(x, s, axes, name)
    result = _COMPLEX_OF[x.dtype.name]
    if _by_numpy(x):
        return _on_host(x, name, result, s=sizes, axes=axes, norm=norm)
    y = _as_complex(x)
    kind = _INVERSE if inverse else _FORWARD
    trailing = _trailing(y, axes, sizes, real_axis_last=False)
    if trailing is not None:
        y = _over_trailing(y, trailing, kind)
    else:
        for axis, n in zip(axes, sizes):
            y = _pass(y, axis, n, kind)
    return _scaled(y, norm, math.prod(sizes), inverse)


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    """The n-dimensional discrete Fourier transform over axes, of s points
    along each."""
    return _c2c_n(x, s, axes, norm, "fftn", inverse=False)


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    """The inverse of fftn."""
    return _c2c_n(x, s, axes, norm, "ifftn", inverse=True)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The transform of real x along axis: the n // 2 + 1 coefficients of
    non-negative frequency."""
    x, n, axis, norm = _one_dimensional(x, n, axis, norm, "rfft", real_only=True)
    result = _COMPLEX_OF[x.dtype.name]
    if _by_numpy(x):
        return _on_host(x, "rfft", result, n=n, axis=axis, norm=norm)
    return _scaled(_pass(x, axis, n, _R2C), norm, n, inverse=False)


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of rfft: n real points (None: 2 * (m - 1) for m
    coefficients) along axis."""
    x, n, axis, norm = _one_dimensional(x, n, axis, norm, "irfft", from_coefficients=True)
    result = _real_of(x.dtype)
    if _by_numpy(x):
        return _on_host(x, "irfft", result, n=n, axis=axis, norm=norm)
    return _scaled(_pass(_as_complex(x), axis, n, _C2R), norm, n, inverse=True)


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The n-dimensional transform of real x: rfft along the last of axes,
    then fft along the others."""
    x = _floating(x, "rfftn", real_only=True)
    norm = _norm(norm, "rfftn")
    axes, sizes = _axes_and_sizes(x, s, axes, "rfftn")
    result = _COMPLEX_OF[x.dtype.name]
    if _by_numpy(x):
        return _on_host(x, "rfftn", result, s=sizes, axes=axes, norm=norm)
    trailing = _trailing(x, axes, sizes, real_axis_last=True)
    if trailing is not None:
        y = _over_trailing(x, trailing, _R2C)
    else:
        y = _pass(x, axes[-1], sizes[-1], _R2C)
        for axis, n in zip(axes[:-1], sizes[:-1]):
            y = _pass(y, axis, n, _FORWARD)
    return _scaled(y, norm, math.prod(sizes), inverse=False)


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The inverse of rfftn: ifft along all of axes but the last, then irfft
    of s[-1] points (None: 2 * (m - 1)) along the last."""
    x = _floating(x, "irfftn")
    norm = _norm(norm, "irfftn")
    if s is not None and axes is None and len(s) > x.ndim:
        raise ValueError("irfftn(): s has %d entries for an array of %d dimensions"
                         % (len(s), x.ndim))
    axes, sizes = _axes_and_sizes(x, s, axes, "irfftn")
    if s is None or operator.index(s[-1]) == -1:
        sizes = sizes[:-1] + (_length(2 * (x.shape[axes[-1]] - 1), "irfftn"),)
    result = _real_of(x.dtype)
    if _by_numpy(x):
        return _on_host(x, "irfftn", result, s=sizes, axes=axes, norm=norm)
    y = _as_complex(x)
    trailing = _trailing(y, axes, sizes, real_axis_last=True)
    if trailing is not None:
        y = _over_trailing(y, trailing, _C2R)
    else:
        for axis, n in zip(axes[:-1], sizes[:-1]):
            y = _pass(y, axis, n, _INVERSE)
        y = _pass(y, axes[-1], sizes[-1], _C2R)
    return _scaled(y, norm, math.prod(sizes), inverse=True)


_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The transform of a signal with Hermitian symmetry, given by its
    first half x: n real points (None: 2 * (m - 1))."""
    x, n, axis, norm = _one_dimensional(x, n, axis, norm, "hfft", from_coefficients=True)
    result = _real_of(x.dtype)
    if _by_numpy(x):
        return _on_host(x, "hfft", result, n=n, axis=axis, norm=norm)
    y = _pass(devarray.conj(_as_complex(x)), axis, n, _C2R)
    return _scaled(y, _SWAPPED[norm], n, inverse=True)


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of hfft: the n // 2 + 1 coefficients of real x."""
    x, n, axis, norm = _one_dimensional(x, n, axis, norm, "ihfft", real_only=True)
    result = _COMPLEX_OF[x.dtype.name]
    if _by_numpy(x):
        return _on_host(x, "ihfft", result, n=n, axis=axis, norm=norm)
    y = devarray.conj(_pass(x, axis, n, _R2C))
    return _scaled(y, _SWAPPED[norm], n, inverse=False)


def _frequency_dtype(dtype, name):
    if dtype is None:
        return devarray.__array_namespace_info__().default_dtypes()["real floating"]
    dtype = devarray.DType(dtype)
    if dtype.kind != "f":
        raise TypeError("%s(): dtype must be a real floating-point dtype, not %s"
                        % (name, dtype))
    return dtype


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of fft of n points spaced d apart:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)."""
    n = _length(n, "fftfreq")
    dtype = _frequency_dtype(dtype, "fftfreq")
    k = devarray.arange(n, dtype=dtype, device=device)
    k = devarray.where(k < (n + 1) // 2, k, k - n)
    k /= d * n
    return k


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of rfft of n points spaced d apart:
    [0, 1, ..., n // 2] / (d * n)."""
    n = _length(n, "rfftfreq")
    dtype = _frequency_dtype(dtype, "rfftfreq")
    k = devarray.arange(n // 2 + 1, dtype=dtype, device=device)
    k /= d * n
    return k


def _shift(x, axes, name, sign):
    if not isinstance(x, devarray.DeviceArray):
        raise TypeError("%s() takes a DeviceArray, not %s" % (name, type(x).__name__))
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(_axis(a, x.ndim) for a in axes)
    if not axes:
        return devarray.asarray(x, copy=True)
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return devarray.roll(x, shifts, axis=axes)


def fftshift(x, /, *, axes=None):
    """x with the zero frequency moved to the middle of each of axes (None:
    all)."""
    return _shift(x, axes, "fftshift", 1)


def ifftshift(x, /, *, axes=None):
    """The inverse of fftshift."""
    return _shift(x, axes, "ifftshift", -1)
