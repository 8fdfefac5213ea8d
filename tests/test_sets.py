"""devarray.unique_all, unique_counts, unique_inverse, unique_values
(src/ops/sets.c on the sort of src/ops/sort.c; kernels/sort.cu, src/host/host_sort.c)
against numpy.unique with equal_nan=False (the standard's rule: every NaN
distinct, -0.0 and +0.0 one value) on random data, on both backends:
every dtype (complex sorted by real part, then imaginary, as NumPy), 0-d,
empty, multi-dimensional and non-contiguous inputs, many repeats.

devarray returns the values sorted, as numpy.unique does (NumPy 2.4's own
unique_values no longer sorts, so it is not the oracle); the zero that
stands for -0.0 and +0.0 is the first one in x, which numpy.unique's
stable sort (it sorts with kind="mergesort" when return_index is asked)
also picks."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, host, random_array


def dev(a):
    return devarray.to_device(np.array(a, order="C"))


def oracle(x):
    values, index, inverse, counts = np.unique(
        x.reshape(-1), return_index=True, return_inverse=True, return_counts=True,
        equal_nan=False)
    return values, index.astype(np.int64), inverse.reshape(x.shape).astype(np.int64), \
        counts.astype(np.int64)


def assert_zero_signs(got, expected):
    if expected.dtype.kind == "f":
        g = host(got)
        keep = expected == 0
        assert np.array_equal(np.signbit(g)[keep], np.signbit(expected)[keep]), (g, expected)


def inputs(rng, dtype):
    for shape in [(), (0,), (1,), (2, 0), (7,), (40,), (5, 8), (3, 4, 5), (2000,)]:
        yield random_array(rng, shape, dtype, special=True)
        pool = random_array(rng, (4,), dtype, special=True)
        yield pool[rng.integers(0, 4, size=shape)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_all_like_numpy(backend, rng, dtype):
    for x in inputs(rng, dtype):
        values, index, inverse, counts = oracle(x)
        out = devarray.unique_all(dev(x))
        assert type(out).__name__ == "UniqueAllResult"
        assert out._fields == ("values", "indices", "inverse_indices", "counts")
        assert_values(out.values, values)
        assert_zero_signs(out.values, values)
        assert_values(out.indices, index)
        assert_values(out.inverse_indices, inverse)
        assert_values(out.counts, counts)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_counts_inverse_values(backend, rng, dtype):
    for x in inputs(rng, dtype):
        values, _, inverse, counts = oracle(x)
        d = dev(x)
        c = devarray.unique_counts(d)
        assert c._fields == ("values", "counts")
        assert_values(c.values, values)
        assert_values(c.counts, counts)
        i = devarray.unique_inverse(d)
        assert i._fields == ("values", "inverse_indices")
        assert_values(i.values, values)
        assert_values(i.inverse_indices, inverse)
        v = devarray.unique_values(d)
        assert isinstance(v, devarray.DeviceArray)
        assert_values(v, values)
        assert_values(d, x)  # the input is untouched


def test_nan_distinct_and_signed_zeros(backend):
    x = np.array([np.nan, 0.0, -0.0, np.nan, 2.0, -0.0, -np.nan], dtype=np.float64)
    out = devarray.unique_all(dev(x))
    v = host(out.values)
    assert v.shape == (5,)
    assert v[0] == 0 and not np.signbit(v[0]) and v[1] == 2 and np.isnan(v[2:]).all()
    assert_values(out.indices, np.array([1, 4, 0, 3, 6]))
    assert_values(out.counts, np.array([3, 1, 1, 1, 1]))
    assert_values(out.inverse_indices, np.array([2, 0, 0, 3, 1, 0, 4]))


@pytest.mark.parametrize("dtype", ["int32", "float32", "complex64"])
def test_views(backend, rng, dtype):
    x = random_array(rng, (6, 10), dtype, special=True)
    x[1] = x[0]
    d = dev(x)
    for view, expected in ((d[::2, ::-3], x[::2, ::-3]), (d.T, x.T)):
        values, index, inverse, counts = oracle(expected)
        out = devarray.unique_all(view)
        assert_values(out.values, values)
        assert_values(out.indices, index)
        assert_values(out.inverse_indices, inverse)
        assert_values(out.counts, counts)


def test_result_types_are_namedtuples(backend):
    out = devarray.unique_inverse(dev([3, 1, 3]))
    values, inverse = out
    assert isinstance(out, tuple) and isinstance(out, devarray.UniqueInverseResult)
    assert_values(values, np.array([1, 3]))
    assert_values(inverse, np.array([1, 0, 1]))
    assert devarray.UniqueAllResult.__module__ == "devarray"


@pytest.mark.parametrize("dtype", ["bool", "int16", "int32", "uint64", "float16", "float32",
                                   "complex128"])
@pytest.mark.parametrize("distinct", [3, 700, None])
def test_runs_across_chunks(backend, rng, dtype, distinct):
    """Tens of thousands of elements, beyond the CUDA route's chunks of
    2,048 sorted elements (a warp each): runs that cross chunks, runs
    longer than several chunks (3 distinct values), and mostly distinct
    values (None); all four outputs against NumPy."""
    n = 9 * 2048 + 37
    x = random_array(rng, n, dtype, special=True)
    if distinct is not None:
        x = x[rng.integers(0, distinct, size=n)]
    values, index, inverse, counts = oracle(x)
    out = devarray.unique_all(dev(x))
    assert_values(out.values, values)
    assert_values(out.indices, index)
    assert_values(out.inverse_indices, inverse)
    assert_values(out.counts, counts)
    c = devarray.unique_counts(dev(x))
    assert_values(c.values, values)
    assert_values(c.counts, counts)
