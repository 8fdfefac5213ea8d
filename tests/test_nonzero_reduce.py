"""count_nonzero, any() and all() over the layouts that pick the device's
routes (kernels/nonzero_reduce.cu), against NumPy: rows shorter than a
16-byte vector, a group of lanes per row, long rows that several blocks
share, columns read 16 bytes or one element at a time, columns split along
the reduced axis, and rows that start off a 16-byte boundary; every element
width (1, 2, 4, 8 and 16 bytes), with outputs that come out both true and
false.  The same calls run on the host backend's twin."""

import numpy as np
import pytest

import devarray
from _helpers import assert_values, random_array

# one dtype or two per width; float16 and complex64 for their masks
DTYPES = ["bool", "uint8", "int16", "float16", "float32", "int64", "complex64",
          "complex128"]

# (shape, axis) and the route each takes on the device
LAYOUTS = [
    ((700, 3), -1),         # rows shorter than a vector: a lane per row
    ((513, 33), -1),        # a group of lanes per row
    ((40, 1000), -1),       # groups of up to a warp
    ((3, 20011), -1),       # long rows, several blocks per row
    ((40011,), None),       # one row
    ((64, 48), 0),          # columns, 16 bytes of 1-byte columns a thread
    ((300, 37), 0),         # columns one element at a time
    ((3, 200, 37), 1),
    ((20000, 2), 0),        # two columns: the reduced axis split
    ((5, 7, 1024), 1),      # a warp across the columns
    ((12, 9000), 0),        # few rows: more threads across the columns
    ((2, 3, 4, 5), (1, 3)),  # not adjacent: a bool copy first
]

FUNCS = {
    "count_nonzero": (devarray.count_nonzero, np.count_nonzero),
    "any": (devarray.any, np.any),
    "all": (devarray.all, np.all),
}


def with_outcomes(rng, shape, dtype, axis):
    """Random values (NaN, inf and signed zeros among them) whose outputs
    over `axis` are each all nonzero, all zero (zeros of either sign), or
    mixed, so any() and all() give both answers."""
    a = random_array(rng, shape, dtype, special=True)
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis) % len(shape)
    kind_shape = tuple(1 if k in axes else n for k, n in enumerate(shape))
    kinds = rng.permutation(np.arange(int(np.prod(kind_shape))) % 3).reshape(kind_shape)
    kind = np.broadcast_to(kinds, shape)
    a[(kind == 0) & (a == 0)] = 1
    a[(kind == 1) | ((kind == 2) & (rng.random(shape) < 0.3))] = 0
    if a.dtype.kind == "f":
        negative = (a == 0) & (rng.random(shape) < 0.5)
        a[negative] = -a.dtype.type(0)
    return a


def check_all(a, d, axis):
    for name, (da_fn, np_fn) in FUNCS.items():
        for keepdims in (False, True):
            expected = np.asarray(np_fn(a, axis=axis, keepdims=keepdims))
            if name == "count_nonzero":
                expected = expected.astype(np.int64)
            assert_values(da_fn(d, axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, axis", LAYOUTS, ids=str)
def test_routes(backend, rng, dtype, shape, axis):
    a = with_outcomes(rng, shape, dtype, axis)
    check_all(a, devarray.to_device(a), axis)
    if axis is not None:
        for outcomes in (np.any(a, axis=axis), np.all(a, axis=axis)):
            assert outcomes.any() and not outcomes.all()


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
@pytest.mark.parametrize("start", [1, 3, 5])
def test_rows_off_a_boundary(backend, rng, dtype, start):
    """Contiguous views that start `start` elements into their buffer: each
    row's elements before its first 16-byte boundary and after its last are
    read one at a time."""
    for shape, axis in (((61, 45), -1), ((4, 9001), -1), ((9001,), None), ((37, 16), 0)):
        size = int(np.prod(shape))
        base = with_outcomes(rng, (size + start,), dtype, None)
        a = base[start:].reshape(shape)
        d = devarray.reshape(devarray.to_device(base)[start:], shape)
        check_all(a, d, axis)


def test_wide_dtypes_masks(backend):
    """Only the sign bits are left out: the smallest subnormal counts, and a
    complex value counts when one part is nonzero."""
    tiny16 = np.array([0, 0x8000, 1, 0x8001], dtype=np.uint16).view(np.float16)
    assert_values(devarray.count_nonzero(devarray.to_device(tiny16)), np.asarray(np.int64(2)))
    for dtype in ("complex64", "complex128"):
        values = np.array([complex(-0.0, -0.0), complex(5e-324, 0), complex(-0.0, 1e-40),
                           complex(0, np.nan)] * 5, dtype=dtype)
        expected = np.count_nonzero(values.reshape(4, 5), axis=0).astype(np.int64)
        assert_values(devarray.count_nonzero(devarray.to_device(values.reshape(4, 5)), axis=0),
                      expected)
