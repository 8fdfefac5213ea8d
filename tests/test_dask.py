"""devarray.dask: DeviceArray chunks in dask.array, on both backends, with
dask's threaded scheduler; several GPUs where there are (tests/_multigpu.py).
Skipped where dask is not installed.  The data are small integers (also as
floats) so that every sum is exact whatever order dask adds the chunks in."""

import math
import os
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
da = pytest.importorskip("dask.array")
import dask  # noqa: E402  (after the skip)

import devarray  # noqa: E402
import devarray.dask as dd  # noqa: E402
from _helpers import assert_values  # noqa: E402
from _multigpu import need_gpus  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_ints(rng, shape, dtype):
    return rng.integers(-50, 50, size=shape).astype(dtype)


def threads(x):
    return x.compute(scheduler="threads")


def here():
    """The device that devarray puts new arrays on now."""
    return devarray.asarray([0]).device


def test_import_devarray_does_not_import_dask():
    code = ("import sys, devarray; "
            "bad = [m for m in sys.modules if m in ('dask', 'distributed') or "
            "m.startswith(('dask.', 'distributed.', 'devarray.dask'))]; "
            "assert not bad, bad")
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


def test_registered():
    from dask.array.chunk_types import is_valid_chunk_type
    from dask.array.dispatch import concatenate_lookup, tensordot_lookup

    assert is_valid_chunk_type(devarray.DeviceArray)
    assert concatenate_lookup.dispatch(devarray.DeviceArray) is dd.concatenate
    assert tensordot_lookup.dispatch(devarray.DeviceArray) is dd.tensordot


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_from_array_elementwise(backend, rng, dtype):
    a = small_ints(rng, (7, 10), dtype)
    b = small_ints(rng, (7, 10), dtype)
    x = da.from_array(devarray.asarray(a), chunks=(3, 4))
    y = da.from_array(devarray.asarray(b), chunks=(3, 4))
    assert isinstance(x._meta, devarray.DeviceArray)
    z = (x + y) * x - y
    assert isinstance(z._meta, devarray.DeviceArray)
    got = threads(z)
    assert isinstance(got, devarray.DeviceArray)
    assert_values(got, (a + b) * a - b)
    assert_values(threads(x[2:6, 1::3] + 1), a[2:6, 1::3] + 1)
    assert isinstance(threads(x.blocks[1, 1]), devarray.DeviceArray)


def test_map_blocks_of_devarray_functions(backend, rng):
    a = small_ints(rng, (5, 8), "float64")
    x = dd.from_numpy(a, chunks=(2, 3))
    y = x.map_blocks(devarray.square, dtype=x.dtype) - x.map_blocks(devarray.abs, dtype=x.dtype)
    assert isinstance(y._meta, devarray.DeviceArray)
    assert_values(threads(y), np.square(a) - np.abs(a))


@pytest.mark.parametrize("devices", [None, "here"])
def test_from_numpy(backend, rng, devices):
    a = small_ints(rng, (9, 5), "float64")
    x = dd.from_numpy(a, chunks=(4, 2), devices=[here()] if devices else None)
    assert x.chunks == ((4, 4, 1), (2, 2, 1))
    assert isinstance(x._meta, devarray.DeviceArray) and x._meta.ndim == 2
    block = threads(x.blocks[1, 2])
    assert isinstance(block, devarray.DeviceArray) and block.device == here()
    assert_values(threads(x - 2 * x), a - 2 * a)


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "std", "var", "any", "all"]
AXES = [None, 0, 1, -1, (0, 1), (0, 2)]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction(backend, rng, name, axis, keepdims):
    """dask's own reductions (x.sum(), ...): NumPy's per chunk reaches
    devarray's through DeviceArray.__array_function__."""
    dtype = "float64" if name in ("mean", "std", "var") else "int32"
    # prod of small ints overflows int64 quickly: values in {-1, 1, 2}
    a = (rng.choice(np.array([-1, 1, 2], dtype=dtype), size=(4, 3, 5)) if name == "prod"
         else small_ints(rng, (4, 3, 5), dtype))
    if name in ("any", "all"):
        a = a > 0
    x = dd.from_numpy(a, chunks=(3, 2, 2))
    r = getattr(x, name)(axis=axis, keepdims=keepdims, split_every=2)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert r.dtype == expected.dtype and r.shape == expected.shape
    got = threads(r)
    assert isinstance(got, devarray.DeviceArray)
    if name in ("std", "var"):  # dask's pairwise moments round differently
        np.testing.assert_allclose(got.to_host(), expected, rtol=1e-12)
    else:
        assert_values(got, np.asarray(expected))


def test_mean_of_integers_is_float64(backend, rng):
    a = small_ints(rng, (6, 4), "int16")
    x = dd.from_numpy(a, chunks=(4, 3))
    assert_values(threads(da.mean(x, axis=0)), np.mean(a, axis=0))


def test_ufuncs_and_routines(backend, rng):
    """dask's ufuncs and routines call NumPy's on the chunks: DeviceArray's
    __array_ufunc__ and __array_function__ run devarray's, on the device."""
    a = small_ints(rng, (6, 5), "float64")
    b = small_ints(rng, (5, 4), "float64")
    x = dd.from_numpy(a, chunks=(4, 2))
    y = dd.from_numpy(b, chunks=(2, 3))
    # exp of the host backend may differ from NumPy's by an ulp
    np.testing.assert_allclose(threads(da.exp(x / 50)).to_host(), np.exp(a / 50), rtol=1e-15)
    cases = [
        (da.maximum(x, 3.0), np.maximum(a, 3.0)),
        (da.where(x > 0, x, -x), np.where(a > 0, a, -a)),
        (x * np.float32(2), a * np.float32(2)),
        (x.T, a.T),
        (x @ y, a @ b),
        (da.dot(x, y), np.dot(a, b)),
        (da.tensordot(x, y, axes=1), np.tensordot(a, b, axes=1)),
        (da.stack([x, x]), np.stack([a, a])),
        (x.astype("float32").sum(axis=1), a.astype("float32").sum(axis=1)),
    ]
    for lazy, expected in cases:
        got = threads(lazy)
        assert isinstance(got, devarray.DeviceArray)
        assert_values(got, expected)


def test_concatenate_and_to_numpy(backend, rng):
    a = small_ints(rng, (5, 6), "uint8")
    b = small_ints(rng, (3, 6), "uint8")
    x = dd.from_numpy(a, chunks=(2, 4))
    y = dd.from_numpy(b, chunks=(2, 4))
    assert_values(threads(da.concatenate([x, y], axis=0).rechunk((8, 3))),
                  np.concatenate([a, b], axis=0))
    host = threads(x.to_backend("numpy"))
    assert type(host) is np.ndarray and np.array_equal(host, a)


def test_misuse(backend):
    a = np.zeros((4, 0), dtype=np.float32)
    x = dd.from_numpy(a, chunks=2)
    with pytest.raises(ValueError, match="at least one device"):
        dd.from_numpy(a, devices=[])
    with pytest.raises(ValueError, match="zero-size"):
        threads(x.max(axis=1))
    assert_values(threads(x.sum(axis=1)), np.zeros(4, dtype=np.float32))
    # a NumPy function devarray lacks is refused, not run on a host copy
    with pytest.raises(TypeError, match="numpy.nansum"):
        threads(da.nansum(dd.from_numpy(np.ones(4), chunks=2)))


# ---- devarray.random through dask.array.random --------------------------------------

def spawned_blocks(seed, x, draw):
    """What each chunk of x should hold: draw(Generator, chunk shape) of the
    seed sequence's children, one per chunk in C order of the grid."""
    import devarray.random as drandom

    children = drandom.SeedSequence(seed).spawn(math.prod(x.numblocks))
    out = np.empty(x.shape, dtype=x.dtype)
    for child, index in zip(children, np.ndindex(*x.numblocks)):
        where = tuple(slice(sum(c[:i]), sum(c[:i + 1])) for c, i in zip(x.chunks, index))
        out[where] = draw(drandom.default_rng(child), out[where].shape).to_host()
    return out


P50 = [0.5] + [0.5 / 49] * 49
# dask's call, and what one chunk of it is: the chunk's own Generator's draw
RANDOM_CHUNKS = {
    "random": (lambda r: r.random((7, 5), dtype=np.float32, chunks=(3, 2)),
               lambda g, s: g.random(s, dtype="float32")),
    "integers": (lambda r: r.integers(-5, 5, size=(7, 5), dtype=np.int16, chunks=(3, 2)),
                 lambda g, s: g.integers(-5, 5, size=s, dtype="int16")),
    "standard_normal": (lambda r: r.standard_normal((7, 5), chunks=(3, 2)),
                        lambda g, s: g.standard_normal(s)),
    "exponential": (lambda r: r.exponential(2.0, size=(7, 5), chunks=(3, 2)),
                    lambda g, s: g.exponential(2.0, size=s)),
    # dask's choice draws 1-D samples
    "choice": (lambda r: r.choice(50, size=35, p=P50, chunks=6),
               lambda g, s: g.choice(50, size=s, p=P50)),
}


@pytest.mark.parametrize("name", sorted(RANDOM_CHUNKS))
def test_random_chunks_are_spawned_streams(backend, name):
    import devarray.random as drandom

    call, draw = RANDOM_CHUNKS[name]
    rng = da.random.default_rng(drandom.default_rng(42))
    x = call(rng)
    assert type(x._meta) is devarray.DeviceArray
    got = threads(x)
    # on the device current in the thread that computes the chunk
    assert type(got) is devarray.DeviceArray and got.device.type == backend
    expected = spawned_blocks(42, x, draw)
    assert got.to_host().tobytes() == expected.tobytes()
    # the same for any scheduler (a new graph: dask's choice keeps each
    # chunk's bit generator in the graph, so that computing one graph twice
    # continues the streams, as it does with NumPy's)
    for scheduler in ("sync", "threads"):
        again = call(da.random.default_rng(drandom.default_rng(42)))
        assert again.compute(scheduler=scheduler).to_host().tobytes() == expected.tobytes()
    # each chunk its own stream: no two chunks alike, and the next call
    # spawns new ones
    blocks = [threads(x.blocks[index]).to_host().tobytes() for index in np.ndindex(*x.numblocks)]
    assert len(set(blocks)) == len(blocks)
    assert threads(call(rng)).to_host().tobytes() != expected.tobytes()


def test_two_gpus(request, rng):
    need_gpus(2)
    request.getfixturevalue("gpu")
    a = small_ints(rng, (8, 6), "float32")
    x = dd.from_numpy(a, chunks=(2, 3), devices=[0, 1])   # blocks 0..7 in C order
    for k, (i, j) in enumerate(np.ndindex(*x.numblocks)):
        assert threads(x.blocks[i, j]).device == k % 2
    y = (x + x) * 3
    got = threads(y)
    assert got.device == 0  # gathered to the first chunk's device
    assert_values(got, (a + a) * 3)
    assert_values(threads(y.sum(axis=0)), ((a + a) * 3).sum(axis=0))
    total = threads(y.sum())
    assert total.device == 0
    assert_values(total, np.asarray(((a + a) * 3).sum()))
    with dask.config.set(scheduler="threads", num_workers=4):
        assert_values(y.max(axis=1).compute(), ((a + a) * 3).max(axis=1))
        # dask sums each chunk's rows, then the chunks' sums: another order
        # than NumPy's pairwise sum of the column, so within rounding
        assert_values(da.exp(y / 100).mean(axis=0).compute(),
                      np.exp(((a + a) * 3) / 100).mean(axis=0),
                      rtol=16 * float(np.finfo(np.float32).eps))
