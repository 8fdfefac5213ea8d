"""Reliability of the creation functions: every bad input (shapes, dtypes,
steps, counts, types, copy=False refusals, keyword-only arguments) raises a
clear Python exception whose message says what was wrong, and leaves its
arguments as they were."""

import numpy as np
import pytest

import devarray
from _helpers import random_array


class Ctx:
    pass


def make_ctx(rng):
    c = Ctx()
    c.m = devarray.asarray(random_array(rng, (3, 4), "float32"))
    c.v = devarray.asarray(random_array(rng, (5,), "int16"))
    c.s = devarray.asarray(2.5)
    c.np = random_array(rng, (4,), "float64")
    c.lst = [1, 2, 3]
    return c


def snapshot(obj):
    if isinstance(obj, devarray.DeviceArray):
        return (obj.shape, obj.strides, obj.dtype.name, obj.ptr, obj.to_host().tobytes())
    if isinstance(obj, np.ndarray):
        return (obj.shape, obj.dtype.str, obj.tobytes())
    return repr(obj)


TOO_BIG = ["too big", "too large", "exceed", "maximum"]

# id -> (call(ctx), exception type(s), keywords: one must be in the message)
BAD_CALLS = {
    # arange
    "arange step 0": (lambda c: devarray.arange(0, 5, 0), ValueError, ["step", "zero"]),
    "arange step 0.0": (lambda c: devarray.arange(0.0, 5, 0.0), ValueError, ["zero"]),
    "arange str": (lambda c: devarray.arange("5"), TypeError, ["start", "int"]),
    "arange None": (lambda c: devarray.arange(None), TypeError, ["start"]),
    "arange complex": (lambda c: devarray.arange(1j), TypeError, ["float"]),
    "arange stop str": (lambda c: devarray.arange(0, "a"), TypeError, ["stop"]),
    "arange step list": (lambda c: devarray.arange(0, 5, [1]), TypeError, ["step"]),
    "arange nan": (lambda c: devarray.arange(0, float("nan")), ValueError, ["length"]),
    "arange inf": (lambda c: devarray.arange(0, float("inf")), ValueError, TOO_BIG),
    "arange huge": (lambda c: devarray.arange(0, 1e300, 1), ValueError, TOO_BIG),
    "arange too many bytes": (lambda c: devarray.arange(2 ** 62), ValueError, TOO_BIG),
    "arange bad dtype": (lambda c: devarray.arange(5, dtype="x"), TypeError,
                         ["not understood"]),
    "arange bool long": (lambda c: devarray.arange(5, dtype="bool"), TypeError,
                         ["boolean", "length"]),
    "arange int8 overflow": (lambda c: devarray.arange(100, 300, 50, dtype="int8"),
                             OverflowError, ["out of bounds"]),
    "arange positional dtype": (lambda c: devarray.arange(0, 5, 1, "int8"), TypeError,
                                ["positional"]),
    "arange device str": (lambda c: devarray.arange(5, device="gpu"),
                          (TypeError, ValueError), ["device"]),
    # linspace
    "linspace num -1": (lambda c: devarray.linspace(0, 1, -1), ValueError,
                        ["non-negative"]),
    "linspace num float": (lambda c: devarray.linspace(0, 1, 2.5), TypeError, ["num"]),
    "linspace num None": (lambda c: devarray.linspace(0, 1, None), TypeError, ["num"]),
    "linspace no num": (lambda c: devarray.linspace(0, 1), TypeError, ["num"]),
    "linspace start str": (lambda c: devarray.linspace("0", 1, 3), TypeError, ["start"]),
    "linspace stop None": (lambda c: devarray.linspace(0, None, 3), TypeError, ["stop"]),
    "linspace complex to int": (lambda c: devarray.linspace(0, 1j, 3, dtype="int32"),
                                TypeError, ["complex"]),
    "linspace huge num": (lambda c: devarray.linspace(0, 1, 2 ** 62), ValueError, TOO_BIG),
    "linspace bad dtype": (lambda c: devarray.linspace(0, 1, 3, dtype=object), TypeError,
                           ["not understood"]),
    # eye
    "eye negative": (lambda c: devarray.eye(-1), ValueError, ["negative"]),
    "eye cols negative": (lambda c: devarray.eye(2, -3), ValueError, ["negative"]),
    "eye float": (lambda c: devarray.eye(2.5), TypeError, ["integer", "int"]),
    "eye cols str": (lambda c: devarray.eye(2, "3"), TypeError, ["n_cols"]),
    "eye k float": (lambda c: devarray.eye(3, k=1.5), TypeError, ["integer", "int"]),
    "eye k positional": (lambda c: devarray.eye(3, 3, 1), TypeError, ["positional"]),
    "eye bad dtype": (lambda c: devarray.eye(3, dtype="U"), TypeError, ["not understood"]),
    "eye too big": (lambda c: devarray.eye(2 ** 40), ValueError, TOO_BIG),
    # tril / triu
    "tril 1-d": (lambda c: devarray.tril(c.v), ValueError, ["2 dimensions"]),
    "triu 0-d": (lambda c: devarray.triu(c.s), ValueError, ["2 dimensions"]),
    "tril list": (lambda c: devarray.tril([[1, 2], [3, 4]]), TypeError, ["DeviceArray"]),
    "triu numpy": (lambda c: devarray.triu(c.np), TypeError, ["DeviceArray"]),
    "tril k float": (lambda c: devarray.tril(c.m, k=0.5), TypeError, ["integer", "int"]),
    "triu k positional": (lambda c: devarray.triu(c.m, 1), TypeError, ["positional"]),
    # meshgrid
    "meshgrid list": (lambda c: devarray.meshgrid(c.v, [1, 2]), TypeError, ["DeviceArray"]),
    "meshgrid indexing": (lambda c: devarray.meshgrid(c.v, indexing="ji"), ValueError,
                          ["indexing"]),
    "meshgrid indexing None": (lambda c: devarray.meshgrid(c.v, indexing=None),
                               ValueError, ["indexing"]),
    "meshgrid unknown keyword": (lambda c: devarray.meshgrid(c.v, sparse=True), TypeError,
                                 ["sparse"]),
    "meshgrid 33 arrays": (lambda c: devarray.meshgrid(*[c.v] * 33), ValueError,
                           ["at most"]),
    "meshgrid too big": (lambda c: devarray.meshgrid(*[devarray.zeros(2 ** 20)] * 4),
                         ValueError, TOO_BIG),
    # asarray
    "asarray copy=False dtype": (lambda c: devarray.asarray(c.m, dtype="float64",
                                                            copy=False),
                                 ValueError, ["copy"]),
    "asarray copy=False list": (lambda c: devarray.asarray(c.lst, copy=False), ValueError,
                                ["copy"]),
    "asarray copy=False scalar": (lambda c: devarray.asarray(3.5, copy=False), ValueError,
                                  ["copy"]),
    "asarray copy=False bytes": (lambda c: devarray.asarray(b"abcd", copy=False),
                                 ValueError, ["copy"]),
    "asarray copy str": (lambda c: devarray.asarray(c.m, copy="yes"), TypeError, ["copy"]),
    "asarray copy int": (lambda c: devarray.asarray(c.m, copy=1), TypeError, ["copy"]),
    "asarray positional dtype": (lambda c: devarray.asarray(c.lst, "int8"), TypeError,
                                 ["positional"]),
    "asarray device str": (lambda c: devarray.asarray(c.lst, device="gpu"),
                           (TypeError, ValueError), ["device"]),
    "asarray nested 1-d array": (lambda c: devarray.asarray([c.v, c.v]), TypeError,
                                 ["0-d"]),
    "asarray nested object": (lambda c: devarray.asarray([1, object()]), TypeError,
                              ["element"]),
    "asarray ragged": (lambda c: devarray.asarray([[1], [1, 2]]), ValueError,
                       ["inhomogeneous"]),
    "asarray int8 overflow": (lambda c: devarray.asarray([1, 300], dtype="int8"),
                              OverflowError, ["out of bounds"]),
    # filled constructors
    "zeros positional dtype": (lambda c: devarray.zeros(3, "int8"), TypeError,
                               ["positional"]),
    "full positional dtype": (lambda c: devarray.full(3, 1, "int8"), TypeError,
                              ["positional"]),
    "ones device str": (lambda c: devarray.ones(3, device="tpu"),
                        (TypeError, ValueError), ["device"]),
    "empty_like x keyword": (lambda c: devarray.empty_like(x=c.m), TypeError,
                             ["positional", "argument"]),
    "full_like None value": (lambda c: devarray.full_like(c.v, None), TypeError,
                             ["fill_value"]),
    "full_like int16 overflow": (lambda c: devarray.full_like(c.v, 2 ** 20), OverflowError,
                                 ["out of bounds"]),
    "full_like no value": (lambda c: devarray.full_like(c.m), TypeError, ["fill_value"]),
    "full bool dtype from str": (lambda c: devarray.full(2, "1", dtype="bool"), TypeError,
                                 ["fill_value"]),
    "from_dlpack device str": (lambda c: devarray.from_dlpack(c.np, device="gpu"),
                               (BufferError, ValueError), ["device"]),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_input_raises_and_changes_nothing(backend, rng, case):
    call, exc, keywords = BAD_CALLS[case]
    ctx = make_ctx(rng)
    watched = list(vars(ctx).values())
    before = [snapshot(o) for o in watched]
    with pytest.raises(exc) as info:
        call(ctx)
    message = str(info.value)
    assert any(k.lower() in message.lower() for k in keywords), \
        "%s: %r does not say %s" % (type(info.value).__name__, message, " or ".join(keywords))
    assert [snapshot(o) for o in watched] == before, "an argument changed"
    # the module still works
    assert devarray.arange(3).to_host().tolist() == [0, 1, 2]
