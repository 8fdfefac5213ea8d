"""Reliability of pinned host memory and asynchronous transfers: every bad
call of empty_pinned, PinnedBuffer and to_host(out=..., blocking=False)
raises a clear Python exception whose message says what was wrong, and
leaves its arguments (the device array, the out buffer) as they were."""

import ctypes

import numpy as np
import pytest

import devarray
from _helpers import Evil, EvilBool, EvilIndex, random_array, snapshot


class Ctx:
    pass


def make_ctx(rng):
    c = Ctx()
    c.d = devarray.asarray(random_array(rng, (3, 4), "float32"))
    c.pinned = devarray.empty_pinned((3, 4), "float32")
    np.asarray(c.pinned)[...] = random_array(rng, (3, 4), "float32")
    c.view = np.asarray(c.pinned)
    c.pinned_t = devarray.empty_pinned((4, 3), "float32")
    np.asarray(c.pinned_t)[...] = random_array(rng, (4, 3), "float32")
    c.pinned_f64 = devarray.empty_pinned((3, 4), "float64")
    np.asarray(c.pinned_f64)[...] = random_array(rng, (3, 4), "float64")
    c.pinned_big = devarray.empty_pinned((3, 5), "float32")
    np.asarray(c.pinned_big)[...] = random_array(rng, (3, 5), "float32")
    c.pageable = random_array(rng, (3, 4), "float32")
    return c


def watch(obj):
    """snapshot(), and a PinnedBuffer's description and bytes."""
    if isinstance(obj, devarray.PinnedBuffer):
        return ("PinnedBuffer", obj.shape, obj.dtype.name, obj.ptr, bytes(memoryview(obj)))
    return snapshot(obj)


def readonly_view(c):
    v = np.asarray(c.pinned)
    v.flags.writeable = False
    return v


TOO_BIG = ["too big", "too large", "exceed", "maximum"]

# id -> (call(ctx), exception type(s), keywords: one must be in the message)
BAD_CALLS = {
    # empty_pinned: shapes and dtypes as devarray.empty
    "negative": (lambda c: devarray.empty_pinned(-1), ValueError, ["negative"]),
    "negative in tuple": (lambda c: devarray.empty_pinned((2, -3)), ValueError,
                          ["negative"]),
    "shape str": (lambda c: devarray.empty_pinned("3"), TypeError, ["shape", "int"]),
    "shape float": (lambda c: devarray.empty_pinned(2.5), TypeError, ["shape", "int"]),
    "shape None": (lambda c: devarray.empty_pinned(None), TypeError, ["shape", "int"]),
    "shape of floats": (lambda c: devarray.empty_pinned((2, 1.5)), TypeError, ["int"]),
    "too big": (lambda c: devarray.empty_pinned((1 << 40, 1 << 40)), ValueError, TOO_BIG),
    "too many bytes": (lambda c: devarray.empty_pinned(1 << 61, "float64"), ValueError,
                       TOO_BIG),
    "unallocatable": (lambda c: devarray.empty_pinned(1 << 50, "uint8"), MemoryError,
                      ["could not allocate"]),
    "too many dims": (lambda c: devarray.empty_pinned((1,) * 65), ValueError,
                      ["dimension"]),
    "evil index": (lambda c: devarray.empty_pinned(EvilIndex()), Evil, ["__index__"]),
    "bad dtype": (lambda c: devarray.empty_pinned(3, "float7"), TypeError,
                  ["not understood"]),
    "dtype object": (lambda c: devarray.empty_pinned(3, dtype=object), TypeError,
                     ["dtype", "object"]),
    "no shape": (lambda c: devarray.empty_pinned(), TypeError, ["shape", "argument"]),
    "extra argument": (lambda c: devarray.empty_pinned(3, "float32", 1), TypeError,
                       ["argument"]),
    "unknown keyword": (lambda c: devarray.empty_pinned(3, device="cuda"), TypeError,
                        ["device", "keyword"]),
    "construct directly": (lambda c: devarray.PinnedBuffer(), TypeError,
                           ["cannot create", "PinnedBuffer"]),
    "set shape": (lambda c: setattr(c.pinned, "shape", (12,)), AttributeError,
                  ["shape", "not writable", "readonly"]),
    # to_host(blocking=False)
    "no out": (lambda c: c.d.to_host(blocking=False), ValueError, ["out="]),
    "out None": (lambda c: c.d.to_host(out=None, blocking=False), ValueError, ["out="]),
    "pageable out": (lambda c: c.d.to_host(out=c.pageable, blocking=False), ValueError,
                     ["page-locked"]),
    "bytearray out": (lambda c: c.d.to_host(out=bytearray(48), blocking=False),
                      ValueError, ["page-locked"]),
    "wrong size": (lambda c: c.d.to_host(out=c.pinned_big, blocking=False), ValueError,
                   ["bytes"]),
    "wrong size view": (lambda c: c.d.to_host(out=c.view[:2], blocking=False),
                        ValueError, ["bytes"]),
    "wrong dtype": (lambda c: c.d.to_host(out=c.pinned_f64, blocking=False),
                    (TypeError, ValueError), ["dtype", "bytes"]),
    "wrong dtype same size": (
        lambda c: c.d.to_host(out=np.asarray(c.pinned).view(np.int32), blocking=False),
        TypeError, ["dtype"]),
    "non-contiguous": (lambda c: c.d.to_host(out=np.asarray(c.pinned_t).T,
                                             blocking=False),
                       ValueError, ["contiguous"]),
    "read-only": (lambda c: c.d.to_host(out=readonly_view(c), blocking=False), TypeError,
                  ["read-only"]),
    "out not a buffer": (lambda c: c.d.to_host(out=[0.0] * 12, blocking=False), TypeError,
                         ["writable buffer"]),
    "out bytes": (lambda c: c.d.to_host(out=bytes(48), blocking=False), TypeError,
                  ["read-only", "writable"]),
    "blocking positional": (lambda c: c.d.to_host(c.pinned, False), TypeError,
                            ["positional", "argument"]),
    "evil blocking": (lambda c: c.d.to_host(out=c.pinned, blocking=EvilBool()), Evil,
                      ["__bool__"]),
    "unknown keyword to_host": (lambda c: c.d.to_host(out=c.pinned, stream=1), TypeError,
                                ["stream", "keyword"]),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_bad_input_raises_and_changes_nothing(backend, rng, case):
    call, exc, keywords = BAD_CALLS[case]
    ctx = make_ctx(rng)
    watched = list(vars(ctx).values())
    before = [watch(o) for o in watched]
    with pytest.raises(exc) as info:
        call(ctx)
    message = str(info.value)
    assert any(k.lower() in message.lower() for k in keywords), \
        "%s: %r does not say %s" % (type(info.value).__name__, message, " or ".join(keywords))
    assert [watch(o) for o in watched] == before, "an argument changed"
    # the module still works, asynchronously too
    out = devarray.empty_pinned(3, "int64")
    devarray.arange(3).to_host(out=out, blocking=False)
    devarray.synchronize()
    assert np.asarray(out).tolist() == [0, 1, 2]


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p),
                ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                ("internal", ctypes.c_void_p)]


PyBUF_F_CONTIGUOUS = 0x0040 | 0x0018  # with PyBUF_STRIDES, as CPython defines it


def test_pinned_buffer_refuses_a_fortran_export(backend):
    """A 2-D PinnedBuffer is C-contiguous only: a Fortran-contiguous request
    is a BufferError, not a wrong export; 1-D buffers are both."""
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
    get.restype = ctypes.c_int
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.POINTER(_PyBuffer)]
    view = _PyBuffer()
    with pytest.raises(BufferError, match="C-contiguous"):
        get(devarray.empty_pinned((3, 4), "float32"), ctypes.byref(view), PyBUF_F_CONTIGUOUS)
    buf = devarray.empty_pinned((1, 5), "int8")
    assert get(buf, ctypes.byref(view), PyBUF_F_CONTIGUOUS) == 0
    assert view.len == 5 and view.buf == buf.ptr
    release(ctypes.byref(view))
