"""The large random inputs of the rows, made once per run: three base arrays
of float32 drawn in [0.5, 1.5) ("A", "B" and "C"), and each base converted
to another dtype once, the first time a row asks for it.  Every row that
reads such an input reads (the first n elements of) the same array, so the
arrays are read-only; a row that writes its input takes a copy.

    a = uniform("A", n)             # float32 in [0.5, 1.5)
    i = uniform("C", n, "int32")    # integers 1 to 1023
    mask = uniform("B", n, "bool")  # about half true

runner.measure_all starts each run (start(seed, n)); without it the first
call draws from a fixed seed.
"""

import numpy as np

# the integers' highest value (1023 for the other integer dtypes): each
# value of the dtype's range stays clear of overflow in a + b and a * b
INT_HIGH = {"int8": 100, "uint8": 200, "int16": 1000}
CHUNK = 1 << 20          # elements converted at a time (no 1 GiB temporaries)
DEFAULT_SEED = 20240531

_state = {"rng": None, "size": 0}
_bases = {}
_converted = {}


def start(seed, n):
    """A new run: bases of at least n elements, drawn from seed."""
    _state["rng"] = np.random.default_rng(seed)
    _state["size"] = n
    _bases.clear()
    _converted.clear()


def base(which, n):
    """The first n elements of base `which`, float32 in [0.5, 1.5)."""
    x = _bases.get(which)
    if x is None or x.size < n:
        if _state["rng"] is None:
            start(DEFAULT_SEED, n)
        x = _state["rng"].random(max(n, _state["size"]), dtype=np.float32)
        x += 0.5
        x.flags.writeable = False
        _bases[which] = x
        for key in [key for key in _converted if key[0] == which or key[2] == which]:
            del _converted[key]
    return x[:n]


def scaled(x, scale, offset, dtype):
    """x * scale + offset (float32 arithmetic) truncated to dtype, a chunk at
    a time: x.astype's result without a temporary of x's size."""
    out = np.empty(x.shape, dtype)
    flat, dest = x.reshape(-1), out.reshape(-1)
    for i in range(0, flat.size, CHUNK):
        y = flat[i:i + CHUNK] * np.float32(scale)
        y += np.float32(offset)
        dest[i:i + CHUNK] = y
    return out


def other(which):
    """The base that a complex input's imaginary part comes from."""
    return "B" if which == "A" else "A"


def uniform(which, n, dtype="float32"):
    """n values of base `which` as dtype, read-only: floats in [0.5, 1.5),
    integers 1 to INT_HIGH (1023 by default), bool true where the base is
    over 1 (about half), complex with the imaginary part of another base."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return base(which, n)
    key = (which, dtype.str, other(which) if dtype.kind == "c" else which)
    x = _converted.get(key)
    if x is None or x.size < n:
        x = base(which, n)
        if dtype.kind == "b":
            x = x > 1.0
        elif dtype.kind in "iu":
            high = INT_HIGH.get(dtype.name, 1023)
            x = scaled(x, high, 1 - 0.5 * high, dtype)
        elif dtype.kind == "c":
            out = np.empty(n, dtype)
            out.real = x
            out.imag = base(other(which), n)
            x = out
        else:
            x = x.astype(dtype)
        x.flags.writeable = False
        _converted[key] = x
    return x[:n]
