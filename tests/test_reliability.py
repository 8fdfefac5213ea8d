"""Reliability: no crash, no leak, no corruption.

1. Bad input: every public function, method and operator, fed wrong types,
   None, huge, negative and overflowing shapes, mismatched `out=` buffers,
   unsupported buffer formats and broken __cuda_array_interface__ and
   __dlpack__ producers, raises TypeError, ValueError or BufferError
   (OverflowError or IndexError where NumPy does) with a message saying what
   was wrong, and leaves every argument as it was.
2. (tests/test_properties.py: results equal NumPy's on random input.)
3. Leaks: 100,000 mixed operations leave host memory, Python objects and
   device memory where they started (marked slow).
4. Memory pressure (GPU, in a subprocess): MemoryError names the bytes, a
   failed operation leaves its operands and the pool as they were, and
   everything works again once memory is freed.
5. Threads: 8 threads computing, transferring (the staged path included) and
   exchanging at once all get NumPy's results.
6. A CUDA fault (a Numba kernel writing far out of bounds, in a subprocess)
   makes devarray raise CUDAError saying the context is unusable; the
   interpreter does not crash.
7. Arrays over 2**31 elements and over 4 GiB (GPU).

Tests that take `backend` run on the host backend and on CUDA; `gpu` ones
need a GPU (skipped without one, failed under DEVARRAY_REQUIRE_GPU=1).
"""

import array
import ctypes
import gc
import operator
import os
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
import types
import warnings

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
from devarray import _core  # noqa: E402
from _helpers import (  # noqa: E402
    DLPACK_DELETER, DROP, DTYPES, CAIProducer, DLDataType, DLDevice, DLManagedTensor,
    DLManagedTensorVersioned, DLPackVersion, DLTensor, Evil, EvilIndex, assert_values,
    cai_changed, random_array, snapshot,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- helpers -------------------------------------------------------------------------

def snapshots(objs):
    return [snapshot(o) for o in objs]


def memory_in_use():
    """Bytes of device memory devarray's pool holds (after pending frees,
    and after collecting garbage another test left behind)."""
    gc.collect()
    devarray.synchronize()
    return devarray.memory_stats()["in_use_bytes"]


def check_works(backend):
    """devarray still computes right after an error."""
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    d = devarray.to_device(a)
    assert devarray.backend() == backend
    assert_values(d * 2 + 1, a * 2 + 1)
    assert d.sum().item() == a.sum()
    assert d.T.tolist() == a.T.tolist()


class EvilSequence:
    def __len__(self):
        raise Evil("__len__")

    def __getitem__(self, i):
        raise Evil("__getitem__")

    def __iter__(self):
        raise Evil("__iter__")


class EvilDescr:
    """Looks like a numpy.dtype until its attributes are read."""

    @property
    def kind(self):
        raise Evil("kind")

    @property
    def str(self):
        raise Evil("str")


class EvilStr:
    """A dtype-like whose typestr is not a str."""
    kind = "f"
    str = 8


class EvilProducer:
    @property
    def __cuda_array_interface__(self):
        raise Evil("__cuda_array_interface__")

    def __dlpack_device__(self):
        raise Evil("__dlpack_device__")

    def __dlpack__(self, **kwargs):
        raise Evil("__dlpack__")


class EvilDLPack:
    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, **kwargs):
        raise Evil("__dlpack__")


def bad_values():
    """Wrong things to pass anywhere."""
    values = [
        None, "x", "", "float32\0", b"xy", object(), -1, -(2 ** 63), 2 ** 64, 2 ** 1000,
        1.5, float("nan"), float("inf"), 1j, True, [], [None], [[1], [2, 3]], (),
        ((),), {}, {"shape": 3}, set(), slice(None), slice(2 ** 70), Ellipsis, int,
        lambda: 0, bytearray(3), memoryview(bytes([3, 0, 0, 0, 2, 0, 0, 0])).cast("i"),
        array.array("u", "ab"),
        np.zeros((2, 2)), np.float64(1.5), np.arange(3, dtype=">i4"),
        np.zeros(2, dtype="i4,f8"), EvilIndex(), EvilSequence(), EvilDescr(),
        EvilStr(), EvilProducer(), EvilDLPack(), [EvilIndex()], (1, EvilIndex()),
        (1,) * 40,
    ]
    if sys.version_info >= (3, 12):
        class EvilBuffer:
            def __buffer__(self, flags):
                raise Evil("__buffer__")

        class WrongBuffer:
            def __buffer__(self, flags):
                return memoryview(b"abcdef").cast("B", (2, 3))

        values += [EvilBuffer(), WrongBuffer()]
    return values


# What any bad call may raise.  AttributeError: NumPy's from_dlpack raises it
# too for objects without __dlpack__.  Evil: the hostile objects' own error.
ALLOWED = (TypeError, ValueError, BufferError, OverflowError, IndexError, Evil)


def call_checked(func, args, kwargs, allowed=ALLOWED, writes=()):
    """func(*args, **kwargs) may succeed or raise one of `allowed` with a
    message; it must not raise anything else (a SystemError, say) nor change
    its arguments, except, when it succeeds, the positions in `writes` (an
    in-place target, an out buffer)."""
    watched = list(args) + list(kwargs.values())
    before = snapshots(watched)
    try:
        func(*args, **kwargs)
    except allowed as exc:
        assert str(exc), "%s with an empty message from %r" % (type(exc).__name__, func)
    except MemoryError:
        pass
    else:
        for k in writes:
            before[k] = snapshot(watched[k])
    after = snapshots(watched)
    assert after == before, "an argument changed"


# ---- 1. bad input: the error and its message -----------------------------------------

def make_ctx(rng):
    """The arrays the bad calls below use, on the current backend."""
    c = types.SimpleNamespace()
    c.f = devarray.to_device(random_array(rng, (6,), "float64"))
    c.m = devarray.to_device(random_array(rng, (3, 4), "float32"))
    c.i8 = devarray.to_device(random_array(rng, (5,), "int8"))
    c.u8 = devarray.to_device(random_array(rng, (5,), "uint8"))
    c.i64 = devarray.to_device(random_array(rng, (5,), "int64"))
    c.b = devarray.to_device(random_array(rng, (4,), "bool"))
    c.z = devarray.to_device(random_array(rng, (3,), "complex128"))
    c.s = devarray.to_device(np.asarray(2.5))
    c.ro = _core._readonly_view(devarray.to_device(random_array(rng, (6,), "float64")))
    c.host = random_array(rng, (6,), "float64")
    return c


def _np_readonly(n):
    a = np.full(n, -7.0)
    a.setflags(write=False)
    return a


class _CStruct(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_double)]


def _nested(depth):
    value = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


TOO_BIG = ("too big", "too large", "exceed", "maximum")

# id -> (call(ctx), exception type(s), keywords: one must be in the message)
BAD_CALLS = {
    # shapes
    "empty negative": (lambda c: devarray.empty(-1), ValueError, ["negative"]),
    "zeros negative 2d": (lambda c: devarray.zeros((2, -3)), ValueError, ["negative"]),
    "ones 2**63": (lambda c: devarray.ones(2 ** 63), (ValueError, OverflowError), TOO_BIG),
    "empty 2**62 float64": (lambda c: devarray.empty(2 ** 62), ValueError, TOO_BIG),
    "empty bytes overflow": (lambda c: devarray.empty((2 ** 32, 2 ** 32), dtype="uint8"),
                             ValueError, TOO_BIG),
    "empty product overflow": (lambda c: devarray.empty((2 ** 40, 2 ** 40, 2 ** 40), dtype="uint8"),
                               ValueError, TOO_BIG),
    # NumPy refuses these too: the non-zero extents overflow, whatever the zero
    "zeros empty but overflowing": (lambda c: devarray.zeros((0, 2 ** 62, 2 ** 62)),
                                    ValueError, TOO_BIG),
    "empty empty but overflowing bytes": (lambda c: devarray.empty((0, 2 ** 61)),
                                          ValueError, TOO_BIG),
    "empty None": (lambda c: devarray.empty(None), TypeError, ["shape"]),
    "empty float": (lambda c: devarray.empty(3.0), TypeError, ["shape", "int"]),
    "empty str": (lambda c: devarray.empty("3"), TypeError, ["shape", "int"]),
    "empty (3, None)": (lambda c: devarray.empty((3, None)), TypeError, ["shape", "int"]),
    "empty 33 dims": (lambda c: devarray.empty((1,) * 33), ValueError, ["dimension"]),
    "full negative": (lambda c: devarray.full(-2, 1.0), ValueError, ["negative"]),
    # dtypes
    "empty big-endian": (lambda c: devarray.empty(3, dtype=">i4"), TypeError, ["big-endian"]),
    "empty object dtype": (lambda c: devarray.empty(3, dtype=object), TypeError,
                           ["not understood"]),
    "zeros str dtype": (lambda c: devarray.zeros(3, dtype="U"), TypeError, ["not understood"]),
    "ones int dtype": (lambda c: devarray.ones(3, dtype=3), TypeError, ["not understood"]),
    "DType None": (lambda c: devarray.DType(None), TypeError, ["not understood"]),
    "DType nul": (lambda c: devarray.DType("float32\0"), TypeError, ["not understood"]),
    # fill values
    "full str": (lambda c: devarray.full(3, "x"), TypeError, ["fill_value"]),
    "full None": (lambda c: devarray.full(3, None), TypeError, ["fill_value"]),
    "full int8 1000": (lambda c: devarray.full(3, 1000, dtype="int8"), OverflowError,
                       ["out of bounds"]),
    "full uint64 2**64": (lambda c: devarray.full(3, 2 ** 64, dtype="uint64"), OverflowError,
                          ["out of bounds"]),
    "full_like str": (lambda c: devarray.full_like(c.f, "a"), TypeError, ["fill_value"]),
    "zeros_like bad dtype": (lambda c: devarray.zeros_like(c.f, dtype="x"), TypeError,
                             ["not understood"]),
    "empty_like None": (lambda c: devarray.empty_like(None), TypeError, ["nonetype"]),
    "ones_like ragged": (lambda c: devarray.ones_like([[1], [1, 2]]), ValueError,
                         ["inhomogeneous"]),
    # buffers
    "to_device None": (lambda c: devarray.to_device(None), TypeError, ["buffer"]),
    "to_device list": (lambda c: devarray.to_device([1, 2]), TypeError, ["buffer"]),
    "to_device str": (lambda c: devarray.to_device("abc"), TypeError, ["buffer"]),
    "to_device array u": (lambda c: devarray.to_device(array.array("u", "ab")), TypeError,
                          ["format"]),
    "to_device >i4": (lambda c: devarray.to_device(np.arange(3, dtype=">i4")), TypeError,
                      ["big-endian"]),
    "to_device >f8 2d": (lambda c: devarray.to_device(np.ones((2, 2), dtype=">f8")),
                         TypeError, ["big-endian"]),
    "to_device struct": (lambda c: devarray.to_device(np.zeros(3, dtype="i4,f8")),
                         TypeError, ["format"]),
    "to_device ctypes struct": (lambda c: devarray.to_device((_CStruct * 3)()), TypeError,
                                ["format"]),
    "to_device unicode": (lambda c: devarray.to_device(np.zeros(3, dtype="U3")), TypeError,
                          ["format"]),
    "to_device object": (lambda c: devarray.to_device(np.zeros(3, dtype=object)), TypeError,
                         ["format"]),
    "to_device longdouble": (lambda c: devarray.to_device(np.zeros(3, dtype=np.longdouble)),
                             TypeError, ["format"]),
    "to_device datetime": (lambda c: devarray.to_device(np.zeros(3, dtype="M8[s]")),
                           (TypeError, ValueError), ["format", "dtype"]),
    "to_device 33 dims": (lambda c: devarray.to_device(np.zeros((1,) * 33)), ValueError,
                          ["dimensions"]),
    "to_device bad dtype": (lambda c: devarray.to_device(b"abcd", dtype="x"), TypeError,
                            ["not understood"]),
    "to_device cast big-endian": (lambda c: devarray.to_device(np.ones(3), dtype=">f8"),
                                  TypeError, ["big-endian"]),
    # sequences
    "asarray None": (lambda c: devarray.asarray(None), TypeError, ["nonetype"]),
    "asarray str": (lambda c: devarray.asarray("abc"), TypeError, ["str"]),
    "asarray mixed": (lambda c: devarray.asarray([1, "a"]), TypeError, ["str"]),
    "asarray ragged": (lambda c: devarray.asarray([[1], [1, 2]]), ValueError,
                       ["inhomogeneous"]),
    "asarray ragged deep": (lambda c: devarray.asarray([[1, 2], [1, [2]]]), ValueError,
                            ["inhomogeneous"]),
    "asarray 2**64": (lambda c: devarray.asarray([1, 2 ** 64]), OverflowError,
                      ["out of bounds"]),
    "asarray int8 1000": (lambda c: devarray.asarray([1000], dtype="int8"), OverflowError,
                          ["out of bounds"]),
    "asarray nan to int": (lambda c: devarray.asarray([float("nan")], dtype="int64"),
                           ValueError, ["nan"]),
    "asarray inf to int": (lambda c: devarray.asarray([float("inf")], dtype="int32"),
                           OverflowError, ["infinity", "out of bounds"]),
    "asarray complex to float": (lambda c: devarray.asarray([1j], dtype="float64"),
                                 TypeError, ["complex"]),
    "asarray too deep": (lambda c: devarray.asarray(_nested(33)), ValueError,
                         ["nested", "dimensions"]),
    "asarray dict": (lambda c: devarray.asarray({1: 2}), TypeError, ["dict"]),
    "asarray bad dtype": (lambda c: devarray.asarray([1], dtype="q8"), TypeError,
                          ["not understood"]),
    # operators
    "add str": (lambda c: c.f + "a", TypeError, ["unsupported operand"]),
    "radd None": (lambda c: None + c.f, TypeError, ["unsupported operand"]),
    # Python tries list repetition, which asks for an integer
    "mul list": (lambda c: c.f * [1], TypeError, ["unsupported operand", "integer"]),
    "div object": (lambda c: c.f / object(), TypeError, ["unsupported operand"]),
    "add numpy": (lambda c: c.f + c.host, TypeError, ["ufunc", "unsupported"]),
    "broadcast": (lambda c: c.f + c.m, ValueError, ["broadcast"]),
    "int8 + 1000": (lambda c: c.i8 + 1000, OverflowError, ["out of bounds"]),
    "uint8 - -1": (lambda c: c.u8 - (-1), OverflowError, ["out of bounds"]),
    "int64 * 2**64": (lambda c: c.i64 * 2 ** 64, OverflowError, ["out of bounds"]),
    "bool - bool": (lambda c: c.b - c.b, TypeError, ["subtract"]),
    "-bool": (lambda c: -c.b, TypeError, ["negative"]),
    "+bool": (lambda c: +c.b, TypeError, ["positive", "bool"]),
    "iadd float into int": (lambda c: operator.iadd(c.i64, 1.5), TypeError, ["cast"]),
    "itruediv into int": (lambda c: operator.itruediv(c.i64, 2), TypeError, ["cast"]),
    "iadd read-only": (lambda c: operator.iadd(c.ro, 1), ValueError, ["read-only"]),
    "iadd broadcast out": (lambda c: operator.iadd(c.s, c.f), ValueError,
                           ["broadcast", "shape"]),
    "imul int8 1000": (lambda c: operator.imul(c.i8, 1000), OverflowError, ["out of bounds"]),
    "iadd str": (lambda c: operator.iadd(c.f, "x"), TypeError, ["unsupported operand"]),
    # indexing
    "index out of bounds": (lambda c: c.f[6], IndexError, ["out of bounds"]),
    "index negative out of bounds": (lambda c: c.m[-4], IndexError, ["out of bounds"]),
    "index float": (lambda c: c.f[1.0], IndexError, ["integers"]),
    "index str": (lambda c: c.f["a"], IndexError, ["integers"]),
    "index list": (lambda c: c.f[[0, 6]], IndexError, ["out of bounds"]),
    "index too many": (lambda c: c.f[0, 0], IndexError, ["too many"]),
    "index two ellipses": (lambda c: c.m[..., ...], IndexError, ["ellipsis"]),
    "index 33 newaxes": (lambda c: c.f[(None,) * 33], IndexError, ["dimensions"]),
    "index huge": (lambda c: c.f[2 ** 70], IndexError, ["index"]),
    "slice step 0": (lambda c: c.f[::0], ValueError, ["zero"]),
    "len 0-d": (lambda c: len(c.s), TypeError, ["unsized"]),
    # methods
    "reshape two unknowns": (lambda c: c.f.reshape(-1, -1), ValueError, ["unknown"]),
    "reshape negative": (lambda c: c.f.reshape(-2, -3), ValueError, ["negative"]),
    "reshape wrong size": (lambda c: c.f.reshape(4), ValueError, ["reshape"]),
    "reshape huge": (lambda c: c.f.reshape(2 ** 63), (ValueError, OverflowError), TOO_BIG),
    "reshape overflowing": (lambda c: c.f.reshape(2 ** 62, 2 ** 62, 0), ValueError,
                            ["reshape"] + list(TOO_BIG)),
    "reshape str": (lambda c: c.f.reshape("a"), TypeError, ["shape", "int"]),
    "transpose out of range": (lambda c: c.f.transpose(5), (ValueError, IndexError),
                               ["out of bounds"]),
    "transpose str": (lambda c: c.m.transpose("ab"), TypeError, ["axis", "int"]),
    "transpose repeated": (lambda c: c.m.transpose(0, 0), ValueError, ["repeated"]),
    "transpose count": (lambda c: c.m.transpose(0, 1, 2), ValueError, ["axes"]),
    "sum axis out of range": (lambda c: c.f.sum(axis=5), (ValueError, IndexError),
                              ["out of bounds"]),
    "sum axis str": (lambda c: c.f.sum(axis="a"), TypeError, ["axis", "int"]),
    "sum axis float": (lambda c: c.m.sum(axis=1.0), TypeError, ["axis", "int"]),
    "sum axis duplicate": (lambda c: c.m.sum(axis=(1, -1)), ValueError, ["duplicate"]),
    "sum axis huge": (lambda c: c.f.sum(axis=2 ** 70), (OverflowError, ValueError),
                      ["too large", "out of bounds"]),
    "sum dtype": (lambda c: c.f.sum(dtype="x"), TypeError, ["not understood"]),
    "module sum None": (lambda c: devarray.sum(None), TypeError, ["nonetype"]),
    "module sum axis": (lambda c: devarray.sum(c.m, axis=(0, 0)), ValueError, ["duplicate"]),
    "astype None": (lambda c: c.f.astype(None), TypeError, ["dtype"]),
    "astype bad": (lambda c: c.f.astype("q8"), TypeError, ["not understood"]),
    "item size 6": (lambda c: c.f.item(), ValueError, ["size 1"]),
    "float size 6": (lambda c: float(c.f), TypeError, ["0-dimensional"]),
    "int size 6": (lambda c: int(c.i64), TypeError, ["0-dimensional"]),
    "complex size 3": (lambda c: complex(c.z), TypeError, ["0-dimensional"]),
    "bool size 6": (lambda c: bool(c.f), ValueError, ["ambiguous"]),
    "index float 0-d": (lambda c: operator.index(c.s), TypeError, ["integer"]),
    "__array__ copy=False": (lambda c: c.f.__array__(copy=False), ValueError, ["copy"]),
    "__array__ bad dtype": (lambda c: c.f.__array__(dtype="x"), TypeError,
                            ["not understood"]),
    # out=
    "out bytes": (lambda c: c.f.to_host(out=bytes(48)), TypeError, ["read-only"]),
    "out int": (lambda c: c.f.to_host(out=3), TypeError, ["writable buffer"]),
    "out too small": (lambda c: c.f.to_host(out=bytearray(8)), ValueError, ["bytes"]),
    "out too big": (lambda c: c.f.to_host(out=np.full(7, -7.0)), ValueError, ["bytes"]),
    "out same bytes, other dtype": (lambda c: c.f.to_host(out=np.full(6, -7, np.int64)),
                                    TypeError, ["format"]),
    "out same size, other itemsize": (lambda c: c.f.to_host(out=np.full(12, -7, np.float32)),
                                      TypeError, ["format"]),
    "out big-endian": (lambda c: c.f.to_host(out=np.full(6, -7.0, ">f8")), TypeError,
                       ["format"]),
    "out read-only numpy": (lambda c: c.f.to_host(out=_np_readonly(6)), TypeError,
                            ["read-only"]),
    "out array.array": (lambda c: c.f.to_host(out=array.array("i", [7] * 12)), TypeError,
                        ["format"]),
    # backends
    "set_backend int": (lambda c: devarray.set_backend(3), TypeError, ["host"]),
    "set_backend None": (lambda c: devarray.set_backend(None), TypeError, ["host"]),
    "set_backend gpu": (lambda c: devarray.set_backend("gpu"), ValueError, ["host"]),
    "set_backend nul": (lambda c: devarray.set_backend("host\0junk"), ValueError, ["host"]),
    "readonly_view int": (lambda c: _core._readonly_view(3), TypeError, ["devicearray"]),
    # DLPack export
    "dlpack positional": (lambda c: c.f.__dlpack__(3), TypeError, ["positional"]),
    "dlpack max_version short": (lambda c: c.f.__dlpack__(max_version=(1,)), TypeError,
                                 ["max_version"]),
    "dlpack max_version list": (lambda c: c.f.__dlpack__(max_version=[1, 0]), TypeError,
                                ["max_version", "tuple"]),
    "dlpack max_version str": (lambda c: c.f.__dlpack__(max_version="ab"), TypeError,
                               ["max_version", "tuple"]),
    "dlpack dl_device list": (lambda c: c.f.__dlpack__(dl_device=[1, 0]), TypeError,
                              ["dl_device", "tuple"]),
    "dlpack dl_device other": (lambda c: c.f.__dlpack__(dl_device=(7, 0)), BufferError,
                               ["device"]),
    "dlpack copy int": (lambda c: c.f.__dlpack__(copy=3), TypeError, ["copy"]),
    "dlpack stream str": (lambda c: c.f.__dlpack__(stream="s"), (TypeError, BufferError),
                          ["stream"]),
    "dlpack read-only legacy": (lambda c: c.ro.__dlpack__(), BufferError, ["read-only"]),
    # DLPack import
    "from_dlpack None": (lambda c: devarray.from_dlpack(None), (TypeError, AttributeError),
                         ["__dlpack"]),
    "from_dlpack int": (lambda c: devarray.from_dlpack(3), (TypeError, AttributeError),
                        ["__dlpack"]),
    "from_dlpack copy str": (lambda c: devarray.from_dlpack(c.host, copy="x"), TypeError,
                             ["copy"]),
    "from_dlpack device": (lambda c: devarray.from_dlpack(c.host, device="x"),
                           (BufferError, ValueError), ["device"]),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_input_raises_and_changes_nothing(backend, rng, case):
    call, exc, keywords = BAD_CALLS[case]
    ctx = make_ctx(rng)
    watched = [v for v in vars(ctx).values()]
    before = snapshots(watched)
    memory = memory_in_use()
    with pytest.raises(exc) as info:
        call(ctx)
    message = str(info.value)
    assert any(k.lower() in message.lower() for k in keywords), \
        "%s: %r does not say %s" % (type(info.value).__name__, message, " or ".join(keywords))
    assert snapshots(watched) == before, "an argument changed"
    assert memory_in_use() == memory
    check_works(backend)


@pytest.mark.parametrize("make_out", [
    lambda: np.full(6, -7.0),
    lambda: np.full(12, -7.0)[::2],
    lambda: np.full(6, -7.0)[::-1],
    lambda: bytearray(48),
    lambda: array.array("d", [-7.0] * 6),
    lambda: memoryview(bytearray(48)).cast("d"),
], ids=["numpy", "numpy strided", "numpy reversed", "bytearray", "array.array", "memoryview"])
def test_good_out_buffers_receive_exactly_the_values(backend, rng, make_out):
    a = random_array(rng, (6,), "float64")
    d = devarray.to_device(a)
    out = make_out()
    assert d.to_host(out=out) is out
    if isinstance(out, np.ndarray):
        got = out.tolist()
    else:
        got = np.frombuffer(bytes(memoryview(out).cast("B")), dtype=np.float64).tolist()
    assert got == a.tolist()


def test_out_aliasing_the_array_gets_the_old_values(backend, rng):
    """to_host(out=) into host memory that overlaps the array itself (on the
    host backend NumPy can view a DeviceArray through __array_interface__):
    the copy must behave as memmove, not memcpy (ASan reports an overlapping
    memcpy as memcpy-param-overlap)."""
    # device memory is never a host buffer: the host backend is the case
    # (the backend fixture restores the default afterwards)
    devarray.set_backend("host")
    for n in (6, 1000, 100001):
        a = random_array(rng, (n,), "float64")
        d = devarray.to_device(a)
        alias = np.asarray(d)
        assert alias.ctypes.data == d.ptr, "NumPy did not view the host array"
        d[:-1].to_host(out=alias[1:])
        assert d.tolist() == [a[0]] + a[:-1].tolist()
        d = devarray.to_device(a)
        alias = np.asarray(d)
        d[1:].to_host(out=alias[:-1])
        assert d.tolist() == a[1:].tolist() + [a[-1]]
        d = devarray.to_device(a)
        d.to_host(out=np.asarray(d))
        assert d.tolist() == a.tolist()


def _indirect_buffer():
    testbuffer = pytest.importorskip("_testbuffer")
    return testbuffer.ndarray(list(range(12)), shape=[3, 4], format="i",
                              flags=testbuffer.ND_PIL)


def _failing_buffer():
    testbuffer = pytest.importorskip("_testbuffer")
    return testbuffer.ndarray([1, 2, 3], shape=[3], format="i",
                              flags=testbuffer.ND_GETBUF_FAIL)


@pytest.mark.parametrize("make, exc, keyword", [
    (_indirect_buffer, TypeError, "indirect"),
    (_failing_buffer, (TypeError, BufferError), "buffer"),
], ids=["suboffsets", "getbuffer fails"])
def test_exotic_buffers(backend, make, exc, keyword):
    obj = make()
    for func in (devarray.to_device, devarray.asarray):
        with pytest.raises(exc, match=keyword):
            func(obj)
    with pytest.raises((TypeError, BufferError), match="buffer"):
        devarray.ones(12, dtype="int32").to_host(out=obj)
    check_works(backend)


def _public_calls(c):
    """(name, function, positional template) for every public entry point;
    each template slot is replaced in turn by each bad value (only the
    operand of in-place operators: a bad target has its own __iadd__)."""
    return [
        ("to_device", devarray.to_device, [c.host, None]),
        ("asarray", devarray.asarray, [[1.0, 2.0], None]),
        ("from_dlpack", devarray.from_dlpack, [c.host]),
        ("empty", devarray.empty, [3, None]),
        ("zeros", devarray.zeros, [3, None]),
        ("ones", devarray.ones, [3, None]),
        ("full", devarray.full, [3, 1.5, None]),
        ("empty_like", devarray.empty_like, [c.f, None]),
        ("zeros_like", devarray.zeros_like, [c.f, None]),
        ("ones_like", devarray.ones_like, [c.f, None]),
        ("full_like", devarray.full_like, [c.f, 2, None]),
        ("sum", devarray.sum, [c.m, None, None, False]),
        ("DType", devarray.DType, ["float32"]),
        ("DeviceArray.sum", c.m.sum, [None, None, False]),
        ("DeviceArray.astype", c.m.astype, ["float64", True]),
        ("DeviceArray.reshape", c.m.reshape, [4, 3]),
        ("DeviceArray.transpose", c.m.transpose, [1, 0]),
        ("DeviceArray.to_host", c.f.to_host, [None]),
        ("DeviceArray.__getitem__", c.m.__getitem__, [0]),
        ("DeviceArray.__array__", c.f.__array__, [None, None]),
        ("operator.add", operator.add, [c.f, c.f]),
        ("operator.sub", operator.sub, [c.i8, c.i8]),
        ("operator.mul", operator.mul, [c.z, c.f]),
        ("operator.truediv", operator.truediv, [c.m, c.m]),
        ("operator.iadd", operator.iadd, [c.f, 1.0]),
        ("operator.isub", operator.isub, [c.i64, 1]),
        ("operator.imul", operator.imul, [c.z, 1]),
        ("operator.itruediv", operator.itruediv, [c.m, 2.0]),
    ]


def test_every_entry_point_survives_bad_values(backend, rng):
    """Each positional argument of each entry point, replaced by each bad
    value: success or one of the allowed exceptions with a message, and no
    argument changed.  (A crash would take pytest down with it.)  Every
    failure is listed, not just the first."""
    ctx = make_ctx(rng)
    values = bad_values()
    failures = []
    count = 0

    def attempt(name, func, args, kwargs, allowed=ALLOWED, writes=()):
        try:
            call_checked(func, args, kwargs, allowed, writes)
        except BaseException as exc:   # noqa: BLE001 - listed below
            failures.append("%s(%s): %s: %s" % (
                name, ", ".join(["%.40r" % (a,) for a in args]
                                + ["%s=%.40r" % kv for kv in kwargs.items()]),
                type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""))

    for name, func, template in _public_calls(ctx):
        allowed = ALLOWED + ((AttributeError,) if name == "from_dlpack" else ())
        inplace = name.startswith("operator.i")
        writes = (0,) if inplace or name == "DeviceArray.to_host" else ()
        for slot in ([1] if inplace else range(len(template))):
            for value in values:
                args = list(template)
                args[slot] = value
                attempt(name, func, args, {}, allowed, writes)
                count += 1
    # keyword arguments, some of which only keywords reach
    for value in values:
        for key in ("stream", "max_version", "dl_device", "copy"):
            attempt("DeviceArray.__dlpack__", ctx.f.__dlpack__, [], {key: value})
        for key in ("axis", "dtype", "keepdims"):
            attempt("DeviceArray.sum", ctx.m.sum, [], {key: value})
        attempt("from_dlpack", devarray.from_dlpack, [ctx.host], {"copy": value},
                ALLOWED + (AttributeError,))
        attempt("DeviceArray.to_host", ctx.f.to_host, [], {"out": value}, writes=(0,))
        attempt("set_backend", devarray.set_backend, [value], {})
        devarray.set_backend(backend)
        count += 10
    assert count > 1000
    assert not failures, "%d bad calls went wrong:\n%s" % (len(failures),
                                                            "\n".join(failures))
    check_works(backend)


def test_elementwise_functions_survive_bad_values(backend, rng):
    """Every elementwise function of the op table (found by its text
    signature) and clip, each operand replaced by each bad value and by
    arrays of every class: success or an allowed exception, nothing
    changed."""
    ctx = make_ctx(rng)
    operands = bad_values() + [ctx.f, ctx.m, ctx.i8, ctx.u8, ctx.b, ctx.z, ctx.s, ctx.ro]
    failures = []
    names = [n for n in devarray.__all__
             if getattr(getattr(devarray, n), "__text_signature__", None)
             in ("(x, /)", "(x1, x2, /)")]
    assert len(names) > 60
    calls = [(n, getattr(devarray, n), [ctx.f] * (2 if "x2" in
              getattr(devarray, n).__text_signature__ else 1)) for n in names]
    calls.append(("clip", devarray.clip, [ctx.m, 0.0, 1.0]))
    for name, func, template in calls:
        for slot in range(len(template)):
            for value in operands:
                args = list(template)
                args[slot] = value
                try:
                    call_checked(func, args, {})
                except BaseException as exc:   # noqa: BLE001 - listed below
                    failures.append("%s(%s): %s: %s" % (
                        name, ", ".join("%.40r" % (a,) for a in args),
                        type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""))
    assert not failures, "%d bad calls went wrong:\n%s" % (len(failures),
                                                            "\n".join(failures[:40]))
    check_works(backend)

# ---- 1b. broken DLPack producers (host and CUDA) -------------------------------------

# Our own handle on the C API, so that setting argtypes here cannot disturb
# other users of ctypes.pythonapi.
_capi = ctypes.PyDLL(None)
_capsule_new = _capi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_name = _capi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

F64 = (2, 64, 1)   # kDLFloat, 64 bits, 1 lane


class CraftedProducer:
    """A DLPack producer whose capsule holds a tensor built with ctypes, so
    that every field can be wrong.  It counts its deleter's calls and keeps
    the capsule it handed out, to look at its name afterwards.  The capsule
    has no destructor: an unconsumed one frees nothing (ctypes owns it all)."""

    def __init__(self, backing=None, data=None, device=(1, 0), shape=(6,), strides=None,
                 dtype=F64, ndim=None, versioned=True, version=(1, 0), flags=0,
                 byte_offset=0, name=None):
        self.backing = backing
        self.device = device
        self.deleted = 0
        self.calls = 0
        self.capsule = None
        self._shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self._strides = None
        if strides is not None:
            self._strides = (ctypes.c_int64 * max(len(strides), 1))(*strides)
        if data is None and backing is not None:
            data = backing.ctypes.data if isinstance(backing, np.ndarray) else backing.ptr
        tensor = DLTensor(
            data, DLDevice(*device), len(shape) if ndim is None else ndim,
            DLDataType(*dtype), self._shape,
            self._strides if self._strides is not None else None, byte_offset)
        self._deleter = DLPACK_DELETER(self._on_delete)
        if versioned:
            self._managed = DLManagedTensorVersioned(
                DLPackVersion(*version), None, self._deleter, flags, tensor)
            self.name = b"dltensor_versioned" if name is None else name
        else:
            self._managed = DLManagedTensor(tensor, None, self._deleter)
            self.name = b"dltensor" if name is None else name

    def _on_delete(self, managed):
        self.deleted += 1

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls += 1
        self.capsule = _capsule_new(ctypes.addressof(self._managed), self.name, None)
        return self.capsule

    def capsule_name(self):
        return _capsule_name(self.capsule).decode()


class CapsuleProducer:
    """A CPU DLPack producer whose __dlpack__ returns whatever it is given."""

    def __init__(self, result, device=(1, 0)):
        self.result = result
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.result() if callable(self.result) else self.result


class LegacyProducer:
    """A producer from before DLPack 1.0: __dlpack__ takes only `stream`."""

    def __init__(self, a):
        self.a = a

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()


def test_crafted_dlpack_control(backend, rng):
    """The crafted producer is right when nothing is wrong: a view on the
    host backend, a copy on CUDA; the deleter runs exactly once, when the
    tensor is no longer needed."""
    for versioned in (True, False):
        for strides, byte_offset, shape, expected in [
                (None, 0, (6,), lambda b: b),
                ((1, 2), 0, (2, 3), lambda b: b.reshape(3, 2).T),
                ((-1,), 40, (6,), lambda b: b[::-1]),
                (None, 16, (2, 2), lambda b: b[2:].reshape(2, 2)),
                (None, 0, (), lambda b: b[0])]:
            backing = random_array(rng, (6,), "float64")
            p = CraftedProducer(backing, shape=shape, strides=strides,
                                byte_offset=byte_offset, versioned=versioned)
            d = devarray.from_dlpack(p)
            assert_values(d, np.asarray(expected(backing)))
            assert p.capsule_name().startswith("used_")
            if backend == "host":
                assert d.ptr == backing.ctypes.data + byte_offset
                assert p.deleted == 0
                del d
                gc.collect()
            assert p.deleted == 1


def test_crafted_dlpack_readonly_flag(backend, rng):
    backing = random_array(rng, (6,), "float64")
    saved = backing.copy()
    p = CraftedProducer(backing, flags=1)   # DLPACK_FLAG_BITMASK_READ_ONLY
    d = devarray.from_dlpack(p)
    if backend == "host":
        assert d.readonly
        with pytest.raises(ValueError, match="read-only"):
            d += 1
    assert backing.tobytes() == saved.tobytes()


# id -> (producer keyword arguments, exception, keyword in the message)
CRAFTED_ERRORS = {
    "two lanes": (dict(dtype=(2, 64, 2)), BufferError, "dtype"),
    "bfloat16": (dict(dtype=(4, 16, 1)), BufferError, "dtype"),
    "24-bit int": (dict(dtype=(0, 24, 1)), BufferError, "dtype"),
    "ndim 33": (dict(shape=(1,) * 33), BufferError, "ndim"),
    "ndim -1": (dict(shape=(), ndim=-1), BufferError, "ndim"),
    "version 2": (dict(version=(2, 0)), BufferError, "version"),
    "version 0": (dict(version=(0, 8)), BufferError, "version"),
    "negative extent": (dict(shape=(-6,)), ValueError, "negative"),
    "overflowing shape": (dict(shape=(2 ** 40, 2 ** 40)), ValueError, "big"),
    "capsule name": (dict(name=b"tensor"), TypeError, "capsule"),
    "used capsule name": (dict(name=b"used_dltensor_versioned"), TypeError, "unused"),
    "null data": (dict(data=0), (BufferError, ValueError), "null"),
}


@pytest.mark.parametrize("case", list(CRAFTED_ERRORS))
def test_crafted_dlpack_errors(backend, rng, case):
    """A broken tensor is refused before devarray touches its memory, and
    is freed exactly once: by devarray if it consumed the capsule, else (the
    capsule keeps its name) by the producer."""
    kwargs, exc, keyword = CRAFTED_ERRORS[case]
    if case == "null data":
        # on CUDA a CPU tensor is copied at once: refusing it untested would
        # read address 0, so this case runs on the host backend, where
        # from_dlpack makes a view without reading (the backend fixture
        # restores the default afterwards)
        devarray.set_backend("host")
        backend = "host"
    backing = random_array(rng, (6,), "float64")
    saved = backing.tobytes()
    p = CraftedProducer(backing, **kwargs)
    memory = memory_in_use()
    try:
        result = devarray.from_dlpack(p)
    except exc as error:
        assert keyword in str(error).lower(), str(error)
    else:
        pytest.fail("accepted a broken DLPack tensor (%s): %r" % (case, result.shape))
    assert p.calls <= 1
    gc.collect()
    # exactly one party frees the tensor: devarray if it renamed (consumed)
    # the capsule, else the producer (through its capsule's destructor)
    consumed = p.capsule is not None and p.capsule_name() != p.name.decode()
    assert p.deleted == (1 if consumed else 0), (consumed, p.deleted)
    assert backing.tobytes() == saved
    assert memory_in_use() == memory
    check_works(backend)


def test_cuda_tensor_on_host_backend_is_refused_before_asking(rng):
    """A producer on a CUDA device (or an unknown one) is refused on the host
    backend from __dlpack_device__ alone: __dlpack__ is never called."""
    previous = devarray.backend()
    devarray.set_backend("host")
    try:
        for device, keyword in [((2, 0), "host backend"), ((13, 0), "host backend"),
                                ((99, 0), "device type"), ((4, 0), "device type")]:
            p = CraftedProducer(random_array(rng, (6,), "float64"), device=device)
            with pytest.raises(BufferError, match=keyword):
                devarray.from_dlpack(p)
            assert p.calls == 0 and p.deleted == 0
    finally:
        devarray.set_backend(previous)


def test_dlpack_producers_returning_wrong_things(backend, rng):
    a = random_array(rng, (5,), "float64")
    # NumPy's own capsule: right, and it outlives the NumPy array
    src = a.copy()
    d = devarray.from_dlpack(CapsuleProducer(src.__dlpack__(max_version=(1, 0))))
    del src
    gc.collect()
    assert_values(d, a)
    # a capsule devarray has already consumed
    capsule = a.__dlpack__()
    first = devarray.from_dlpack(CapsuleProducer(capsule))
    assert_values(first, a)
    with pytest.raises(TypeError, match="unused"):
        devarray.from_dlpack(CapsuleProducer(capsule))
    assert_values(first, a)
    # not a capsule at all
    for result, keyword in [(3, "int"), (None, "nonetype"), ("dltensor", "str"),
                            (a, "ndarray")]:
        with pytest.raises(TypeError, match="(?i)capsule|" + keyword):
            devarray.from_dlpack(CapsuleProducer(result))
    # a producer that fails
    with pytest.raises(Evil):
        devarray.from_dlpack(EvilDLPack())
    with pytest.raises(Evil):
        devarray.from_dlpack(EvilProducer())
    # __dlpack_device__ answers
    for device, exc in [("ab", TypeError), ((1,), TypeError), (None, TypeError),
                        ((1, 2 ** 40), (OverflowError, ValueError)), ((1.0, 0), TypeError)]:
        with pytest.raises(exc):
            devarray.from_dlpack(CapsuleProducer(lambda: a.__dlpack__(), device=device))
    # a pre-1.0 producer, asked again without max_version
    assert_values(devarray.from_dlpack(LegacyProducer(a)), a)
    # asarray does not take CPU DLPack producers that have no buffer
    with pytest.raises(TypeError):
        devarray.asarray(CapsuleProducer(lambda: a.__dlpack__()))
    check_works(backend)


def test_host_dlpack_copy_false_on_cuda_is_refused(gpu, rng):
    a = random_array(rng, (5,), "float64")
    p = CraftedProducer(a)
    with pytest.raises(BufferError, match="copy"):
        devarray.from_dlpack(p, copy=False)
    assert p.deleted == 0


@pytest.mark.parametrize("case", ["null data", "misaligned", "device id"])
def test_crafted_cuda_dlpack_errors(gpu, case):
    """CUDA tensors that cannot be used are refused before any kernel reads
    them (a misaligned load would kill the context: see the subprocess)."""
    d = devarray.zeros(8, dtype="float64")
    if case == "device id":
        p = CraftedProducer(d, device=(2, 7))
        with pytest.raises(BufferError, match="device"):
            devarray.from_dlpack(p)
        assert p.calls == 0
        return
    if case == "null data":
        p = CraftedProducer(d, data=0, device=(2, 0), shape=(8,))
        try:
            accepted = devarray.from_dlpack(p)
        except (BufferError, ValueError) as exc:
            assert "null" in str(exc).lower()
        else:
            assert accepted.shape == (8,)   # made, never read
            pytest.fail("accepted a CUDA DLPack tensor with a null data pointer")
        assert p.deleted == 0
        return
    # misaligned: in a subprocess, since a wrong acceptance ends the context
    run_python(_MISALIGNED_DLPACK_SCRIPT, "cuda")


_DLPACK_STRUCTS = """
import ctypes
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]
class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
class Managed(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
capi = ctypes.PyDLL(None)
capi.PyCapsule_New.restype = ctypes.py_object
capi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
"""

_MISALIGNED_DLPACK_SCRIPT = _DLPACK_STRUCTS + """
import devarray
d = devarray.zeros(16, dtype="float64")
shape = (ctypes.c_int64 * 1)(8)
managed = Managed(1, 0, None, DELETER(lambda p: None), 0,
                  DLTensor(d.ptr + 4, DLDevice(2, 0), 1, DLDataType(2, 64, 1), shape, None, 0))
class P:
    def __dlpack_device__(self):
        return (2, 0)
    def __dlpack__(self, **kwargs):
        return capi.PyCapsule_New(ctypes.addressof(managed), b"dltensor_versioned", None)
try:
    x = devarray.from_dlpack(P())
except (BufferError, ValueError) as exc:
    assert "align" in str(exc).lower(), str(exc)
    print("REFUSED", exc)
else:
    print("ACCEPTED a misaligned CUDA tensor")
    try:
        (x + 1).to_host()
        devarray.synchronize()
        print("no fault")
    except devarray.CUDAError as exc:
        print("CUDAError after accepting it:", exc)
    raise SystemExit(3)
(d + 1).to_host()
print("OK")
"""


# ---- 1c. broken __cuda_array_interface__ producers -----------------------------------

def test_cai_producer_on_host_backend_is_refused(rng):
    previous = devarray.backend()
    devarray.set_backend("host")
    try:
        cai = {"shape": (3,), "typestr": "<f8", "data": (4096, False), "version": 3}
        with pytest.raises(ValueError, match="host backend"):
            devarray.asarray(CAIProducer(cai))
        with pytest.raises(TypeError, match="dict"):
            devarray.asarray(CAIProducer([("shape", (3,))]))
        with pytest.raises(Evil):
            devarray.asarray(EvilProducer())
    finally:
        devarray.set_backend(previous)


# id -> (changes as a function of the pointer, exception(s), keyword)
CAI_ERRORS = {
    "no shape": (lambda p: {"shape": DROP}, ValueError, "shape"),
    "no typestr": (lambda p: {"typestr": DROP}, ValueError, "typestr"),
    "no data": (lambda p: {"data": DROP}, ValueError, "data"),
    "no version": (lambda p: {"version": DROP}, ValueError, "version"),
    "shape list": (lambda p: {"shape": [4, 8]}, TypeError, "shape"),
    "shape str": (lambda p: {"shape": (4, "8")}, TypeError, "shape"),
    "shape negative": (lambda p: {"shape": (-4, 8)}, ValueError, "negative"),
    "shape overflow": (lambda p: {"shape": (2 ** 40, 2 ** 40)}, ValueError, "big"),
    "shape 2**64": (lambda p: {"shape": (2 ** 64,)}, (OverflowError, ValueError), "int"),
    "typestr int": (lambda p: {"typestr": 8}, TypeError, "typestr"),
    "typestr unknown": (lambda p: {"typestr": "<x8"}, TypeError, "not understood"),
    "typestr big-endian": (lambda p: {"typestr": ">f8"}, TypeError, "big-endian"),
    "data int": (lambda p: {"data": p}, TypeError, "data"),
    "data short": (lambda p: {"data": (p,)}, TypeError, "data"),
    "data str": (lambda p: {"data": (str(p), False)}, TypeError, "data"),
    "data negative": (lambda p: {"data": (-8, False)}, (OverflowError, ValueError), ""),
    "version str": (lambda p: {"version": "3"}, TypeError, "version"),
    "version 4": (lambda p: {"version": 4}, ValueError, "version"),
    "version huge": (lambda p: {"version": 2 ** 70}, (OverflowError, ValueError), ""),
    "mask": (lambda p: {"mask": (p, False)}, ValueError, "mask"),
    "null pointer": (lambda p: {"data": (0, False)}, ValueError, "null"),
    "misaligned": (lambda p: {"data": (p + 4, False)}, ValueError, "align"),
    "host pointer": (lambda p: {"data": (_HOST_BLOCK.ctypes.data, False)}, ValueError,
                     "device memory"),
    "wild pointer": (lambda p: {"data": (1 << 47, False)}, ValueError, "pointer"),
    "strides count": (lambda p: {"strides": (64,)}, ValueError, "strides"),
    "strides str": (lambda p: {"strides": (64, "8")}, TypeError, "strides"),
    "strides itemsize": (lambda p: {"strides": (64, 4)}, ValueError, "multiple"),
    "stream 0": (lambda p: {"stream": 0}, ValueError, "stream"),
    "stream str": (lambda p: {"stream": "1"}, TypeError, "stream"),
    "far past the end": (lambda p: {"shape": (2,), "strides": (1 << 40,)}, ValueError,
                         "outside"),
    "far before the start": (lambda p: {"shape": (2,), "strides": (-(1 << 40),)},
                             ValueError, ""),
    # the first byte wraps below address 0
    "below address zero": (lambda p: {"shape": (2,), "strides": (-(p + 8),)}, ValueError, ""),
    # (5 - 1) * 2**62 wraps to 0 in 64 bits: the extent must be computed
    # without overflowing, or the check passes and a kernel faults later
    "extent overflows": (lambda p: {"shape": (5,), "strides": (1 << 62,)}, ValueError, ""),
    "extent overflows negative": (lambda p: {"shape": (3,), "strides": (-(1 << 62) * 2,)},
                                  ValueError, ""),
    "extent is INT64_MIN": (lambda p: {"shape": (2,), "strides": (-(1 << 63),)},
                            ValueError, ""),
}

_HOST_BLOCK = np.zeros(64)


@pytest.mark.parametrize("case", list(CAI_ERRORS))
def test_cai_errors(gpu, rng, case):
    """Nothing is made, nothing is read, nothing allocated: a refused
    description leaves the producer's memory and the pool as they were."""
    changes, exc, keyword = CAI_ERRORS[case]
    a = random_array(rng, (4, 8), "float64")
    d = devarray.to_device(a)
    memory = memory_in_use()
    producer = cai_changed(d, changes(d.ptr))
    try:
        result = devarray.asarray(producer)
    except exc as error:
        assert keyword in str(error).lower(), str(error)
    else:
        # never read it: a wrong acceptance may point anywhere
        shape = result.shape
        del result
        pytest.fail("accepted a broken __cuda_array_interface__ (%s): shape %r"
                    % (case, shape))
    assert memory_in_use() == memory
    assert_values(d, a)
    check_works("cuda")


def test_cai_view_is_right_and_keeps_producer_alive(gpu, rng):
    a = random_array(rng, (4, 8), "float64")
    d = devarray.to_device(a)
    producer = cai_changed(d, {})
    x = devarray.asarray(producer)
    assert x.ptr == d.ptr and x.base is producer
    del producer, d
    gc.collect()
    assert_values(x, a)
    x += 1
    assert_values(x, a + 1)


# ---- 3. leaks ------------------------------------------------------------------------

LEAK_ITERATIONS = int(os.environ.get("DEVARRAY_LEAK_ITERATIONS", "100000"))


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]


try:
    _mallinfo2 = ctypes.CDLL(None).mallinfo2     # glibc 2.33 and later
    _mallinfo2.restype = _Mallinfo2
except (OSError, AttributeError):
    _mallinfo2 = None


def _malloc_in_use():
    """Bytes glibc's malloc has handed out and not got back (0 without
    glibc, or under ASan, whose malloc glibc does not count): host backend
    memory and the C blocks that tracemalloc does not see."""
    if _mallinfo2 is None:
        return 0
    info = _mallinfo2()
    return info.uordblks + info.hblkhd


class _LeakCAI:
    def __init__(self, d):
        self.__cuda_array_interface__ = d.__cuda_array_interface__


def _leak_step(i, ctx):
    """One of many small operations, chosen by i; returns nothing."""
    a, b, m, i8, c, hostarr, lst = ctx
    k = i % 24
    if k == 0:
        (a + b).sum()
    elif k == 1:
        a * 2.5 - b / 3
    elif k == 2:
        m[1:, ::-1].T.sum(axis=0)
    elif k == 3:
        a.to_host()
    elif k == 4:
        m.tolist()
    elif k == 5:
        if devarray.backend() == "host":
            np.from_dlpack(a)
            devarray.from_dlpack(hostarr)
        else:
            devarray.from_dlpack(a)
            a.__dlpack__(max_version=(1, 0))
    elif k == 6:
        devarray.asarray(lst)
    elif k == 7:
        try:
            a + "x"
        except TypeError:
            pass
    elif k == 8:
        try:
            i8 + 1000
        except OverflowError:
            pass
    elif k == 9:
        try:
            m.reshape(7)
        except ValueError:
            pass
    elif k == 10:
        try:
            devarray.asarray([[1], [1, 2]])
        except ValueError:
            pass
    elif k == 11:
        try:
            a.to_host(out=bytearray(3))
        except ValueError:
            pass
    elif k == 12:
        try:
            a + m
        except ValueError:
            pass
    elif k == 13:
        m.sum(axis=(0, 1), dtype="float32", keepdims=True)
    elif k == 14:
        m.T.astype("int32").reshape(-1).copy()
    elif k == 15:
        c += 1
        c *= c[::-1]
    elif k == 16:
        devarray.to_device(hostarr[::2])
        devarray.to_device(b"abcdefgh", dtype="uint8")
    elif k == 17:
        a[3].item()
        float(a[0])
        repr(a[:2])
    elif k == 18:
        if devarray.backend() == "cuda":
            devarray.asarray(_LeakCAI(a)) + 1
        else:
            np.asarray(a)
    elif k == 19:
        devarray.from_dlpack(hostarr, copy=True)
        a.__dlpack__(copy=True)
    elif k == 20:
        devarray.zeros((2, 3)) + devarray.ones(3, dtype="int8")
        devarray.full_like(m, 7)
        devarray.empty_like(a, dtype="complex64")
    elif k == 21:
        try:
            devarray.from_dlpack(CapsuleProducer(3))
        except TypeError:
            pass
    elif k == 22:
        try:
            a.sum(axis=3)
        except ValueError:
            pass
        try:
            a.__dlpack__(dl_device=(9, 9))
        except BufferError:
            pass
    else:
        -i8
        abs(c)
        a[None, ::2, None][0, :, 0]


@pytest.mark.slow
def test_no_leaks_over_many_operations(backend, rng):
    """LEAK_ITERATIONS (100,000) mixed operations, exchanges and failing
    calls: Python objects, traced Python memory (tracemalloc), malloc'd
    memory (glibc's count, which includes host backend arrays) and
    devarray's device memory stay at their level after a warm-up.  The
    traced memory is what a leaked PyMem block or object shows in; the
    malloc count is not available under ASan."""
    a = devarray.to_device(random_array(rng, (16,), "float64"))
    b = devarray.to_device(random_array(rng, (16,), "float64"))
    m = devarray.to_device(random_array(rng, (4, 6), "float32"))
    i8 = devarray.to_device(random_array(rng, (8,), "int8"))
    c = devarray.to_device(random_array(rng, (8,), "complex128") / 1e3)
    hostarr = random_array(rng, (16,), "float64")
    lst = [[1.5, 2, 3], [4, 5, 6j]]
    ctx = (a, b, m, i8, c, hostarr, lst)

    def run(n):
        for i in range(n):
            _leak_step(i, ctx)

    def measure():
        gc.collect()
        devarray.synchronize()
        return {
            "objects": len(gc.get_objects()),
            "refs": sys.gettotalrefcount() if hasattr(sys, "gettotalrefcount") else 0,
            "traced": tracemalloc.get_traced_memory()[0],
            "malloc": _malloc_in_use(),
            "device": devarray.memory_stats()["in_use_bytes"],
        }

    # warm up, then two halves: a leak grows in both, while a one-time
    # growth (a cache filling, a free list) can only show in the first.  The
    # snapshots that name what grew in the second half are gone before its
    # level is measured.
    start = time.perf_counter()
    tracemalloc.start()
    try:
        run(5000)
        levels = [measure()]
        run(LEAK_ITERATIONS // 2)
        levels.append(measure())
        earlier = tracemalloc.take_snapshot()
        run(LEAK_ITERATIONS - LEAK_ITERATIONS // 2)
        later = tracemalloc.take_snapshot()
        grew = later.compare_to(earlier, "traceback")[:5]
        del earlier, later
        levels.append(measure())
    finally:
        tracemalloc.stop()
    took = time.perf_counter() - start
    print("%d operations in %.1f s; levels: %r" % (LEAK_ITERATIONS, took, levels))
    first, second = levels[1], levels[2]
    assert second["device"] == levels[0]["device"], "device memory grew: %r" % levels
    assert second["objects"] - first["objects"] < 50, "Python objects leaked: %r" % levels
    assert second["refs"] - first["refs"] < 500, "references leaked: %r" % levels
    # (formatting tracebacks reads source files into linecache: only on failure)
    assert second["traced"] - first["traced"] < 32 * 1024, \
        "traced memory grew: %r; most in the second half:\n%s" % (levels, "\n".join(
            "%s\n    %s" % (stat, "\n    ".join(stat.traceback.format()[-6:]))
            for stat in grew))
    assert second["malloc"] - first["malloc"] < 512 * 1024, \
        "malloc'd memory grew: %r" % levels


# ---- 4. memory pressure (GPU, in a subprocess) ---------------------------------------

def run_python(code, backend, timeout=600, expect="OK"):
    """Run `code` in a fresh interpreter on `backend`; it must exit with 0
    and print `expect` on its last line."""
    env = dict(os.environ, DEVARRAY_BACKEND=backend, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [ROOT, os.path.dirname(os.path.abspath(__file__))]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    report = "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (
        proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:])
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0 and lines and lines[-1].startswith(expect), report
    return proc


_PRESSURE_SCRIPT = r"""
import gc
import re
import numpy as np
import devarray
from devarray import _core

GiB = 1 << 30
CAP = 200 * GiB          # never ask for more than this in all

def in_use():
    devarray.synchronize()
    return devarray.memory_stats()["in_use_bytes"]

def fill(chunk, held, limit):
    # allocate `chunk`-byte arrays until MemoryError; return that error
    while sum(x.nbytes for x in held) + chunk <= limit:
        try:
            held.append(devarray.empty(chunk, dtype="uint8"))
        except MemoryError as exc:
            return exc
    raise AssertionError("no MemoryError after %d bytes" % limit)

devarray.zeros(4).sum()  # a sum keeps its 1 MiB scratch block for the process
base = in_use()
held = []
exc = fill(8 * GiB, held, CAP)
message = str(exc)
del exc  # its traceback holds fill()'s frame, and so `held`
print("first MemoryError after %d GiB: %s" % (len(held) * 8, message))
assert str(8 * GiB) in message, message
assert re.search(r"free", message) and re.search(r"\d+ bytes free of \d+", message), message
del held
gc.collect()
assert in_use() == base, (in_use(), base)

# everything works again, a big allocation included
big = devarray.empty(8 * GiB, dtype="uint8")
del big
a = np.arange(1000, dtype=np.float64)
d = devarray.to_device(a)
assert (d * 2 + 1).to_host().tolist() == (a * 2 + 1).tolist()
assert d.sum().item() == a.sum()
del d

# a big operand with known values, then memory filled around it
n = 2 * GiB
x = devarray.full(n, 7, dtype="uint8")
x_sum = 7 * n
held = []
for chunk in (8 * GiB, GiB, 64 << 20):
    fill(chunk, held, CAP)
print("filled: %d arrays, %.1f GiB" % (len(held), sum(h.nbytes for h in held) / GiB))
before = in_use()
for name, op in [("x + x", lambda: x + x), ("x * 2.5", lambda: x * 2.5),
                 ("x.astype(float32)", lambda: x.astype("float32")),
                 ("x[::2] + 1", lambda: x[::2] + 1), ("x.copy()", lambda: x.copy()),
                 ("to_device", lambda: devarray.to_device(np.ones(n, dtype=np.uint8)))]:
    try:
        r = op()
    except MemoryError as exc:
        assert "bytes" in str(exc), str(exc)
        print("%s: MemoryError (%s)" % (name, exc))
    else:
        raise AssertionError("%s succeeded with memory full (%d bytes)" % (name, r.nbytes))
    assert in_use() == before, (name, in_use(), before)
# in-place ops need no memory and still work when it is full
x += 1
x_sum += n
# x survived, with its values
del held
gc.collect()
assert x.sum().item() == x_sum, (x.sum().item(), x_sum)
sample = x[:: (n // 997)].to_host()
assert (sample == 8).all(), sample[sample != 8][:10]
del x
gc.collect()
assert in_use() == base, (in_use(), base)
y = devarray.to_device(a)
assert (y + y).to_host().tolist() == (a + a).tolist()
print("OK")
"""


@pytest.mark.slow
@pytest.mark.exclusive
def test_memory_pressure(gpu):
    """Allocate 8 GiB arrays until MemoryError (at most 200 GiB), check the
    message, free, and use everything again; then fail operations for lack
    of memory and check their operands and the pool.  In a subprocess, so
    that the memory the pool keeps afterwards is given back to the device."""
    run_python(_PRESSURE_SCRIPT, "cuda")


# ---- 5. threads ----------------------------------------------------------------------

THREADS = 8


def _thread_work(seed, iterations, errors, barrier):
    rng = np.random.default_rng(seed)
    try:
        barrier.wait()
        for it in range(iterations):
            dt = DTYPES[(seed + it) % len(DTYPES)]
            a = random_array(rng, (int(rng.integers(1, 300)),), dt)
            b = random_array(rng, a.shape, dt)
            da_, db = devarray.to_device(a), devarray.to_device(b)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rtol = 4 * float(np.finfo(dt).eps) if np.dtype(dt).kind in "fc" else 0.0
                if dt != "bool":
                    assert_values(da_ - db, a - b, rtol=rtol)
                assert_values(da_ + db, a + b, rtol=rtol)
                assert_values(da_ * db, a * b, rtol=rtol)
                if rtol:
                    assert_values(da_ / db, a / b, rtol=rtol)
            s = devarray.to_device(random_array(rng, (17, 23), "int64"))
            h = s.to_host()
            assert s.sum().item() == int(h.sum())
            assert s[::2, ::-3].T.tolist() == h[::2, ::-3].T.tolist()
            # the staged path: at least 4 MiB each way
            big = rng.standard_normal(655360 + int(rng.integers(0, 1000)))
            dbig = devarray.to_device(big)
            assert dbig.to_host().tobytes() == big.tobytes()
            assert (dbig + 1).to_host().tobytes() == (big + 1).tobytes()
            # exchanges
            if devarray.backend() == "host":
                assert np.from_dlpack(da_).tobytes() == a.tobytes()
            x = devarray.from_dlpack(da_)
            assert x.ptr == da_.ptr
            assert devarray.asarray(a.tolist(), dtype=dt).to_host().tobytes() == a.tobytes()
            try:
                da_ + "x"
            except TypeError:
                pass
    except BaseException:   # noqa: BLE001 - reported by the main thread
        import traceback
        errors.append("thread %d: %s" % (seed, traceback.format_exc()))
        barrier.abort()


def test_threads(backend):
    """8 threads computing, transferring and exchanging at once, each
    checking its own results against NumPy."""
    errors = []
    barrier = threading.Barrier(THREADS)
    threads = [threading.Thread(target=_thread_work, args=(seed, 12, errors, barrier))
               for seed in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hangs"
    assert not errors, "\n".join(errors)
    check_works(backend)


# ---- 6. a CUDA fault -----------------------------------------------------------------

_FAULT_SCRIPT = r"""
import numpy
numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
from numba import cuda
import devarray

d = devarray.zeros(16, dtype="float32")
(d + 1).to_host()

@cuda.jit
def scribble(x):
    x[1 << 40] = 1.0

scribble[1, 1](d)
errors = []
for name, call in [("synchronize", devarray.synchronize),
                   ("(d + 1).to_host()", lambda: (d + 1).to_host()),
                   ("zeros", lambda: devarray.zeros(3)),
                   ("to_device", lambda: devarray.to_device(numpy.ones(3))),
                   ("d.sum()", lambda: d.sum().item()),
                   ("d.tolist()", d.tolist)]:
    try:
        call()
    except devarray.CUDAError as exc:
        print("%s: CUDAError: %s" % (name, exc))
        errors.append(str(exc))
    else:
        print("%s: no error" % name)
assert errors, "no devarray call reported the fault"
assert "no longer usable" in errors[0], errors[0]
assert all(isinstance(e, str) for e in errors)
del d
print("OK")
"""


@pytest.mark.slow
def test_cuda_fault_is_reported_not_fatal(numba_cuda):
    """A Numba kernel writes 4 TiB past a DeviceArray: devarray's next call
    raises CUDAError saying the context is unusable, later calls keep
    raising, and the interpreter exits normally."""
    proc = run_python(_FAULT_SCRIPT, "cuda")
    first = proc.stdout.splitlines()[0]
    assert first.startswith("synchronize: CUDAError") and "no longer usable" in first, \
        proc.stdout


# ---- 7. over 2**31 elements and over 4 GiB -------------------------------------------

@pytest.mark.slow
def test_more_than_2_31_elements(gpu, rng):
    n = 2 ** 31 + 17
    period = 251
    h = np.resize(np.arange(period, dtype=np.uint8), n)
    d = devarray.to_device(h)
    try:
        q, r = divmod(n, period)
        expected_sum = q * (period * (period - 1) // 2) + r * (r - 1) // 2
        assert d.sum().item() == expected_sum
        e = d + 1
        positions = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, n - 2, n - 1]
        positions += [int(p) for p in rng.integers(0, n, 50)]
        for p in positions:
            assert e[p].item() == (int(h[p]) + 1) % 256, p
        assert np.array_equal(e[-1000:].to_host(), h[-1000:] + np.uint8(1))
        del e
        s = d[::3]
        assert s.size == (n + 2) // 3
        t = s + 1
        for k in [0, 1, s.size // 2, 2 ** 31 // 3, s.size - 1] + \
                [int(p) for p in rng.integers(0, s.size, 20)]:
            assert t[k].item() == (int(h[3 * k]) + 1) % 256, k
        del t
        assert s.sum().item() == int(h[::3].sum(dtype=np.uint64))
        rev = d[::-1]
        assert rev[0].item() == h[-1] and rev[-1].item() == h[0]
        assert rev.sum(dtype="uint64").item() == expected_sum
    finally:
        del d
        gc.collect()
        devarray.synchronize()


@pytest.mark.slow
def test_more_than_4_gib(gpu, rng):
    n = 2 ** 30 + 3        # int32: 4 GiB + 12 bytes
    d = devarray.ones(n, dtype="int32")
    try:
        assert d.nbytes > 4 << 30
        assert d.sum().item() == n
        e = d * 3 + 1
        for p in [0, 2 ** 29, 2 ** 30 - 1, 2 ** 30, n - 1]:
            assert e[p].item() == 4
        assert e.sum().item() == 4 * n
        del e
        f = d.astype("float64")     # 8 GiB
        assert f[n - 1].item() == 1.0
        assert f.sum().item() == float(n)
        del f
        host_copy = d.to_host()
        assert host_copy.shape == (n,) and host_copy[-1] == 1 and host_copy.sum() == n
        del host_copy
        back = devarray.to_device(np.full(n, 5, dtype=np.int32))
        assert back.sum().item() == 5 * n
        del back
    finally:
        del d
        gc.collect()
        devarray.synchronize()
