"""Shared helpers for the differential tests: random data, NumPy oracles and
comparisons whose tolerance comes from the dtype."""

import array
import ctypes
import warnings

import numpy as np
import pytest

import devarray

DTYPES = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
    "int64", "uint64", "float16", "float32", "float64",
    "complex64", "complex128",
]
INT_DTYPES = [t for t in DTYPES if np.dtype(t).kind in "iu"]
FLOAT_DTYPES = ["float16", "float32", "float64"]
COMPLEX_DTYPES = ["complex64", "complex128"]
INEXACT_DTYPES = FLOAT_DTYPES + COMPLEX_DTYPES


def random_array(rng, shape, dtype, special=False):
    """Random values of `dtype`: integers over their full range (so that
    arithmetic wraps), floats normal with scale 10, and with `special` about
    one element in ten replaced by an edge value: nan, +-inf or a signed
    zero for floats, 0, 1 or the extremes for integers."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.random(shape) < 0.5)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = np.asarray(rng.integers(info.min, info.max, size=shape,
                                    dtype=dt, endpoint=True))
        if special and a.size:
            values = np.array(sorted({0, 1, info.min, info.max,
                                      info.max // 2 + 1}), dtype=dt)
            flat = a.reshape(-1)
            hits = rng.random(flat.size) < 0.1
            flat[hits] = rng.choice(values, size=int(hits.sum()))
        return a
    if dt.kind == "f":
        a = np.asarray((rng.standard_normal(shape) * 10).astype(dt))
    else:
        a = np.asarray((rng.standard_normal(shape) * 10
                        + 1j * rng.standard_normal(shape) * 10).astype(dt))
    if special and a.size:
        flat = a.reshape(-1)
        values = [np.nan, np.inf, -np.inf, 0.0, -0.0]
        if dt.kind == "c":
            values += [complex(np.nan, 1), complex(1, np.inf), 0j]
        hits = rng.random(flat.size) < 0.1
        picks = rng.integers(0, len(values), size=flat.size)
        for i in np.flatnonzero(hits):
            flat[i] = values[picks[i]]
    return a


def host(d):
    """The values of a DeviceArray as a NumPy array (a copy)."""
    assert isinstance(d, devarray.DeviceArray), type(d)
    return np.asarray(d.to_host())


def eps(dtype):
    dt = np.dtype(dtype)
    return float(np.finfo(dt).eps) if dt.kind in "fc" else 0.0


def builtin_exception(exc):
    """The first builtin class of an exception's MRO (NumPy's UFuncTypeError
    is a TypeError); NumPy's AxisError is both a ValueError and an
    IndexError, and either will do."""
    if isinstance(exc, ValueError) and isinstance(exc, IndexError):
        return (ValueError, IndexError)
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return Exception


def _mismatch_report(got, expected, bad):
    idx = np.argwhere(bad)[:5]
    lines = [f"{int(np.count_nonzero(bad))} of {bad.size} elements differ"]
    for i in idx:
        i = tuple(int(k) for k in i)
        lines.append(f"  at {i}: got {got[i]!r}, expected {expected[i]!r}")
    return "\n".join(lines)


def assert_values(got, expected, rtol=0.0):
    """`got` (DeviceArray or ndarray) has the dtype, shape and values of the
    ndarray `expected`.  Integers and bools must match byte for byte; floats
    match with nan == nan, exactly when rtol == 0, else within rtol of the
    expected magnitude (complex: of the complex magnitude)."""
    if isinstance(got, devarray.DeviceArray):
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        got = host(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if expected.dtype.kind in "biu":
        bad = got != expected
        assert got.tobytes() == np.ascontiguousarray(expected).tobytes(), \
            _mismatch_report(got, expected, bad)
        return
    if expected.dtype.kind == "c":
        parts = [(got.real, expected.real), (got.imag, expected.imag)]
        finite = np.isfinite(expected.real) & np.isfinite(expected.imag)
    else:
        parts = [(got, expected)]
        finite = np.isfinite(expected)
    bad = np.zeros(expected.shape, dtype=bool)
    for g, e in parts:
        # non-finite expected components: identical class (nan, +inf, -inf)
        nf = ~finite
        same = (np.isnan(g) & np.isnan(e)) | (g == e)
        bad |= nf & ~same
    with np.errstate(all="ignore"):
        e64 = expected.astype(np.complex128 if expected.dtype.kind == "c"
                              else np.float64)
        g64 = got.astype(e64.dtype)
        err = np.abs(g64 - e64)
        bound = rtol * np.abs(e64)
        bad |= finite & ~(err <= bound)
    assert not bad.any(), _mismatch_report(got, expected, bad)


def np_or_exception(fn, *args):
    """fn(*args) under numpy.errstate(all='ignore'): (result, None) or
    (None, the builtin exception class(es) NumPy raised)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. ComplexWarning
        try:
            return fn(*args), None
        except Exception as exc:  # noqa: BLE001 - we mirror whatever it is
            return None, builtin_exception(exc)


def check_like_numpy(fn, np_args, da_args, rtol=0.0):
    """Run fn on NumPy operands and on DeviceArray operands: both raise the
    same builtin exception type, or devarray returns a DeviceArray with
    NumPy's dtype, shape and values.  rtol may be a function of the result
    dtype."""
    expected, exc = np_or_exception(fn, *np_args)
    if exc is not None:
        with pytest.raises(exc):
            fn(*da_args)
        return None
    got = fn(*da_args)
    assert isinstance(got, devarray.DeviceArray), type(got)
    expected = np.asarray(expected)
    if callable(rtol):
        rtol = rtol(expected.dtype)
    assert_values(got, expected, rtol=rtol)
    return got


def contiguous_strides(shape, itemsize):
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


class CAIProducer:
    """A stand-in CUDA Array Interface producer exposing `cai`; `owner` keeps
    the memory the pointer names alive."""

    def __init__(self, cai, owner=None):
        self.__cuda_array_interface__ = cai
        self.owner = owner


DROP = object()  # in cai_changed's `changes`: remove the key


def cai_changed(d, changes):
    """A producer whose interface is d's with `changes` applied."""
    cai = dict(d.__cuda_array_interface__)
    for key, value in changes.items():
        if value is DROP:
            cai.pop(key, None)
        else:
            cai[key] = value
    return CAIProducer(cai, owner=d)


# ---- the DLPack ABI (version 1.x), for reading and crafting capsules ---------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DLPACK_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DLPACK_DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DLPACK_DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


# ---- for the reliability suites ------------------------------------------------------

def snapshot(obj):
    """Everything about obj that a failed call must not change, comparable
    with == (lists and tuples element by element)."""
    if isinstance(obj, devarray.DeviceArray):
        return ("DeviceArray", obj.shape, obj.strides, obj.dtype.name, obj.readonly,
                obj.ptr, obj.to_host().tobytes())
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.shape, obj.strides, obj.dtype.str, obj.flags.writeable,
                obj.tobytes())
    if isinstance(obj, (bytes, bytearray, array.array, memoryview)):
        return (type(obj).__name__, bytes(obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, len(obj), [snapshot(o) for o in obj])
    return repr(obj)


class Evil(Exception):
    """Raised by the hostile objects below; devarray must let it through."""


class EvilIndex:
    def __index__(self):
        raise Evil("__index__")


class EvilBool:
    def __bool__(self):
        raise Evil("__bool__")
