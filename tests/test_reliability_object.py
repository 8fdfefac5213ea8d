"""Reliability of the DeviceArray object protocol (tests/test_object.py has
the results): every bad call to an operator, __setitem__, iteration, a
conversion, __format__, pickle's reconstructor, __array_namespace__, mT or
to_device raises a clear Python exception, leaves every argument as it was
and leaks no device memory, on both backends."""

import operator
import pickle

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
from devarray import _core  # noqa: E402
from test_reliability import (  # noqa: E402
    Evil, EvilIndex, EvilSequence, check_works, make_ctx, memory_in_use, snapshots,
)


def _set(target, key, value):
    target[key] = value


def _del(target, key):
    del target[key]


class EvilNumber:
    """Raises from every reflected operator devarray hands over to."""

    def __radd__(self, other):
        raise Evil("__radd__")

    __rfloordiv__ = __rpow__ = __rand__ = __rmatmul__ = __radd__


class EvilCAI:
    @property
    def __cuda_array_interface__(self):
        raise Evil("__cuda_array_interface__")


BAD_CALLS = {
    # operators
    "float << float": (lambda c: c.f << c.f, TypeError, ["left_shift", "float"]),
    "float // complex": (lambda c: c.f // 1j, TypeError, ["floor_divide", "complex"]),
    "float & float": (lambda c: c.f & c.f, TypeError, ["bitwise_and", "float"]),
    "~float": (lambda c: ~c.f, TypeError, ["bitwise_invert", "float"]),
    "float << 1": (lambda c: c.f << 1, TypeError, ["left_shift", "float"]),
    "int8 ** 1000 (overflowing scalar)": (lambda c: c.i8 ** 1000, OverflowError, ["1000"]),
    "uint8 & -1": (lambda c: c.u8 & -1, OverflowError, ["-1"]),
    "int ** negative int": (lambda c: c.i64 ** -2, ValueError, ["negative"]),
    "shapes mismatch": (lambda c: c.f % c.i8, ValueError, ["broadcast"]),
    "compare shapes mismatch": (lambda c: c.f < c.m, ValueError, ["broadcast"]),
    "pow modulo": (lambda c: pow(c.f, 2, 3), TypeError, ["modulo"]),
    "matmul core mismatch": (lambda c: c.m @ c.m, ValueError, ["mismatch"]),
    "matmul scalar": (lambda c: c.m @ 2, ValueError, ["dimensions"]),
    "matmul str": (lambda c: c.m @ "x", TypeError, ["@"]),
    "< None": (lambda c: c.f < None, TypeError, ["<"]),
    "// str": (lambda c: c.f // "x", TypeError, ["//"]),
    "reflected raises": (lambda c: c.f ** EvilNumber(), Evil, ["__radd__"]),
    "hash": (lambda c: hash(c.f), TypeError, ["unhashable"]),
    # in place: the left operand keeps its dtype and shape
    "int //= float": (lambda c: operator.ifloordiv(c.i64, 1.5), TypeError, ["cast"]),
    "int8 **= float": (lambda c: operator.ipow(c.i8, c.f[:5]), TypeError, ["cast"]),
    "bool <<= int": (lambda c: operator.ilshift(c.b, 1), TypeError, ["cast"]),
    "%= broadcasts target": (lambda c: operator.imod(c.f[:4], c.m), ValueError,
                             ["broadcast"]),
    "&= read-only": (lambda c: operator.iand(_core._readonly_view(c.i64), 1), ValueError,
                     ["read-only"]),
    "**= read-only": (lambda c: operator.ipow(c.ro, 2), ValueError, ["read-only"]),
    "@= changes shape": (lambda c: operator.imatmul(c.m, c.m.T), ValueError, ["shape"]),
    "@= read-only": (lambda c: operator.imatmul(_core._readonly_view(c.m),
                                                devarray.ones((4, 4), dtype="float32")),
                     ValueError, ["read-only"]),
    # __setitem__
    "setitem read-only": (lambda c: _set(c.ro, 0, 1.0), ValueError, ["read-only"]),
    "setitem read-only array": (lambda c: _set(c.ro, slice(None), c.f), ValueError,
                                ["read-only"]),
    "setitem del": (lambda c: _del(c.f, 0), ValueError, ["delete"]),
    "setitem out of bounds": (lambda c: _set(c.f, 6, 1.0), IndexError, ["bounds"]),
    "setitem too many indices": (lambda c: _set(c.f, (0, 0), 1.0), IndexError, ["too many"]),
    "setitem two ellipses": (lambda c: _set(c.m, (Ellipsis, Ellipsis), 1.0), IndexError,
                             ["ellipsis"]),
    "setitem float index": (lambda c: _set(c.f, 1.5, 1.0), IndexError, ["integers"]),
    "setitem float array index": (lambda c: _set(c.f, c.f, 1.0), IndexError, ["integer"]),
    "setitem list index": (lambda c: _set(c.f, [0, 6], 1.0), IndexError, ["out of bounds"]),
    "setitem array index": (lambda c: _set(c.f, c.i64, 1.0), IndexError, ["out of bounds"]),
    "setitem mask": (lambda c: _set(c.f, c.m > 0, 1.0), IndexError, ["too many"]),
    "setitem evil index": (lambda c: _set(c.f, EvilIndex(), 1.0), Evil, ["__index__"]),
    "setitem int out of range": (lambda c: _set(c.i8, 0, 300), OverflowError, ["300"]),
    "setitem negative into uint": (lambda c: _set(c.u8, slice(None), -1), OverflowError,
                                   ["-1"]),
    "setitem huge int": (lambda c: _set(c.i64, 0, 2 ** 64), OverflowError, ["bounds"]),
    "setitem nan into int": (lambda c: _set(c.i64, 0, float("nan")), ValueError, ["NaN"]),
    "setitem inf into int": (lambda c: _set(c.i8, 0, float("inf")), OverflowError,
                             ["infinity"]),
    "setitem complex into float": (lambda c: _set(c.f, 0, 1j), TypeError, ["complex"]),
    "setitem str": (lambda c: _set(c.f, 0, "1.0"), TypeError, ["str"]),
    "setitem None": (lambda c: _set(c.f, 0, None), TypeError, ["NoneType"]),
    "setitem shape mismatch": (lambda c: _set(c.f, slice(None), c.i8), ValueError,
                               ["broadcast"]),
    "setitem too many dims": (lambda c: _set(c.f, slice(None), c.m), ValueError,
                              ["broadcast"]),
    "setitem list shape": (lambda c: _set(c.m, 0, [1, 2, 3]), ValueError, ["broadcast"]),
    "setitem ragged list": (lambda c: _set(c.m, 0, [[1, 2], [3]]), ValueError,
                            ["inhomogeneous", "ragged", "shape"]),
    "setitem list out of range": (lambda c: _set(c.i8, slice(None), [1, 2, 3, 4, 999]),
                                  OverflowError, ["999"]),
    "setitem list of str": (lambda c: _set(c.f, slice(None), ["a"] * 6), TypeError,
                            ["str"]),
    "setitem evil sequence": (lambda c: _set(c.f, slice(None), EvilSequence()), TypeError,
                              ["EvilSequence"]),
    # read only where CUDA is usable; elsewhere it is an unknown object
    "setitem evil CAI": (lambda c: _set(c.f, slice(None), EvilCAI()), (Evil, TypeError),
                         ["__cuda_array_interface__", "EvilCAI"]),
    "setitem numpy shape": (lambda c: _set(c.f, slice(None), c.host[:4]), ValueError,
                            ["broadcast"]),
    "setitem object array": (lambda c: _set(c.f, slice(None), np.array([None] * 6)),
                             (TypeError, ValueError), ["format", "object", "O"]),
    "setitem 0-d int index": (lambda c: _set(c.s, 0, 1.0), IndexError, ["too many"]),
    # iteration and conversions
    "iter 0-d": (lambda c: iter(c.s), TypeError, ["0-d"]),
    "len 0-d": (lambda c: len(c.s), TypeError, ["unsized"]),
    "float of n-d": (lambda c: float(c.f[:1]), TypeError, ["0-dimensional"]),
    "int of complex": (lambda c: int(c.z[0]), TypeError, ["complex"]),
    "float of complex": (lambda c: float(c.z[0]), TypeError, ["complex"]),
    "int of nan": (lambda c: int(c.s / 0.0 * 0.0), ValueError, ["NaN"]),
    "int of inf": (lambda c: int(c.s / 0.0), OverflowError, ["infinity"]),
    "index of float": (lambda c: operator.index(c.s), TypeError, ["integer"]),
    "index of bool": (lambda c: operator.index(c.b[0]), TypeError, ["integer"]),
    "index of 1-d": (lambda c: operator.index(c.i64[:1]), TypeError, ["integer"]),
    "bool of many": (lambda c: bool(c.f), ValueError, ["ambiguous"]),
    "bool of empty": (lambda c: bool(c.f[:0]), ValueError, ["empty"]),
    # __format__
    "format n-d spec": (lambda c: format(c.f, ".2f"), TypeError, ["format"]),
    "format 0-d bad spec": (lambda c: format(c.s, "d"), ValueError, ["format"]),
    "format non-str": (lambda c: c.s.__format__(2), TypeError, ["str"]),
    # pickle's reconstructor
    "reconstruct short data": (lambda c: _core._reconstruct(b"abc", "float32", (1,), "host"),
                               ValueError, ["bytes"]),
    "reconstruct bad dtype": (lambda c: _core._reconstruct(b"", "float128", (0,), "host"),
                              TypeError, ["float128"]),
    "reconstruct bad backend": (lambda c: _core._reconstruct(b"", "int8", (0,), "tpu"),
                                ValueError, ["backend"]),
    "reconstruct negative shape": (lambda c: _core._reconstruct(b"", "int8", (-1,), "host"),
                                   ValueError, ["negative"]),
    "reconstruct data not bytes": (lambda c: _core._reconstruct("ab", "int8", (2,), "host"),
                                   TypeError, ["bytes"]),
    "reconstruct arity": (lambda c: _core._reconstruct(b""), TypeError, ["argument"]),
    "unpickle truncated": (lambda c: pickle.loads(pickle.dumps(c.f)[:-8]),
                           (pickle.UnpicklingError, EOFError, ValueError), ["", "pickle"]),
    "deepcopy arity": (lambda c: c.f.__deepcopy__(), TypeError, ["argument"]),
    # __array_namespace__, mT, to_device
    "namespace version": (lambda c: c.f.__array_namespace__(api_version="2019.01"),
                          ValueError, ["2019.01"]),
    "namespace version type": (lambda c: c.f.__array_namespace__(api_version=2024),
                               TypeError, ["api_version"]),
    "namespace positional": (lambda c: c.f.__array_namespace__("2024.12"), TypeError,
                             ["argument"]),
    "mT of 1-d": (lambda c: c.f.mT, ValueError, ["2 dimensions"]),
    "mT of 0-d": (lambda c: c.s.mT, ValueError, ["2 dimensions"]),
    "to_device None": (lambda c: c.f.to_device(None), TypeError, ["Device"]),
    "to_device float": (lambda c: c.f.to_device(1.0), TypeError, ["device"]),
    "to_device ordinal": (lambda c: c.f.to_device(devarray.device_count()),
                          RuntimeError if devarray.device_count() == 0 else ValueError,
                          ["CUDA"]),
    "to_device bad name": (lambda c: c.f.to_device("gpu7"), ValueError, ["gpu7"]),
    "to_device bad stream": (lambda c: c.f.to_device(c.f.device, stream="s"), TypeError,
                             ["stream"]),
    "to_device missing": (lambda c: c.f.to_device(), TypeError, ["argument"]),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_object_call_raises_and_changes_nothing(backend, rng, case):
    call, exc, keywords = BAD_CALLS[case]
    ctx = make_ctx(rng)
    watched = list(vars(ctx).values())
    before = snapshots(watched)
    memory = memory_in_use()
    with pytest.raises(exc) as info:
        call(ctx)
    message, raised = str(info.value), type(info.value).__name__
    # the traceback's frames hold the call's temporaries (a mask array)
    del info
    assert any(k.lower() in message.lower() for k in keywords), \
        "%s: %r does not say %s" % (raised, message, " or ".join(keywords))
    assert snapshots(watched) == before, "an argument changed"
    assert memory_in_use() == memory
    check_works(backend)


def test_unpickle_cuda_where_cuda_is_missing(rng):
    """A CUDA array's pickle names its backend; where CUDA cannot be used,
    loading it is a RuntimeError that says why."""
    if _core._cuda_available():
        pytest.skip("CUDA is available here")
    data = pickle.dumps(devarray.asarray([1.0, 2.0]))
    data = data.replace(b"host", b"cuda")
    with pytest.raises(RuntimeError, match="CUDA"):
        pickle.loads(data)
