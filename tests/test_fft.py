"""devarray.fft against numpy.fft on random data: every function, every
float dtype, 1-d to 3-d, n / s / axes / norm, non-contiguous inputs, on
both backends.  "composed" runs the CUDA backend's composition of
one-dimensional passes (devarray/fft.py) on host arrays, with NumPy
standing in for the cuFFT primitive, so CI checks the composition too."""

import math

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
import devarray.fft as dfft  # noqa: E402
from _multigpu import need_gpus  # noqa: E402
from devarray import _core  # noqa: E402

REAL = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
NORMS = ["backward", "ortho", "forward"]


def numpy_last_axes(x, kind, dims):
    """_core._fft_last_axes's contract, by NumPy, on a host array."""
    a = x.to_host()
    k = len(dims)
    axes = tuple(range(a.ndim - k, a.ndim))
    reads = dims[:-1] + ((dims[-1] // 2 + 1,) if kind == 3 else (dims[-1],))
    assert a.shape[a.ndim - k:] == reads, (a.shape, kind, dims)
    out = [lambda: np.fft.fftn(a, axes=axes),
           lambda: np.fft.ifftn(a, axes=axes) * math.prod(dims),
           lambda: np.fft.rfftn(a, axes=axes),
           lambda: np.fft.irfftn(a, s=dims, axes=axes) * math.prod(dims)][kind]()
    dtype = {0: a.dtype, 1: a.dtype, 2: np.result_type(a.dtype, np.complex64),
             3: np.finfo(a.dtype).dtype}[kind]
    return devarray.asarray(np.ascontiguousarray(out.astype(dtype)), device=x.device)


class FakeCore:
    _fft_last_axes = staticmethod(numpy_last_axes)


@pytest.fixture(params=["host", "cuda", "composed"])
def place(request, monkeypatch):
    """How the transforms run: NumPy's (host), cuFFT's (cuda), or devarray's
    composition over a NumPy primitive (composed)."""
    if request.param == "cuda":
        request.getfixturevalue("gpu")
        yield request.param
        return
    previous = devarray.backend()
    devarray.set_backend("host")
    if request.param == "composed":
        monkeypatch.setattr(dfft, "_by_numpy", lambda x: False)
        monkeypatch.setattr(dfft, "_core", FakeCore)
    try:
        yield request.param
    finally:
        devarray.set_backend(previous)


@pytest.fixture
def host():
    previous = devarray.backend()
    devarray.set_backend("host")
    try:
        yield "host"
    finally:
        devarray.set_backend(previous)


def random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def assert_close(got, expected):
    assert isinstance(got, devarray.DeviceArray)
    assert got.dtype.name == expected.dtype.name, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    single = expected.dtype in (np.float32, np.complex64)
    scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(got.to_host(), expected, rtol=2e-4 if single else 1e-10,
                               atol=(2e-5 if single else 1e-12) * scale)


def expected_dtype(function, dtype):
    complex_of = {"float32": "complex64", "float64": "complex128"}
    real_of = {"complex64": "float32", "complex128": "float64"}
    if function in ("irfft", "irfftn", "hfft"):
        return real_of.get(dtype, dtype)
    return complex_of.get(dtype, dtype)


ONE_D = [("fft", REAL + COMPLEX), ("ifft", REAL + COMPLEX), ("rfft", REAL),
         ("irfft", REAL + COMPLEX), ("hfft", REAL + COMPLEX), ("ihfft", REAL)]


@pytest.mark.parametrize("function,dtypes", ONE_D, ids=[f for f, _ in ONE_D])
@pytest.mark.parametrize("shape,axis", [((16,), -1), ((5, 12), 0), ((3, 10, 4), 1),
                                        ((3, 10, 7), -1)])
@pytest.mark.parametrize("n", [None, 6, 25])
def test_one_dimensional(place, rng, function, dtypes, shape, axis, n):
    for dtype in dtypes:
        a = random(rng, shape, dtype)
        for norm in NORMS:
            expected = getattr(np.fft, function)(a, n=n, axis=axis, norm=norm)
            got = getattr(dfft, function)(devarray.asarray(a), n=n, axis=axis, norm=norm)
            assert_close(got, expected.astype(expected_dtype(function, dtype)))


N_D = [("fftn", REAL + COMPLEX), ("ifftn", REAL + COMPLEX), ("rfftn", REAL),
       ("irfftn", REAL + COMPLEX)]


@pytest.mark.parametrize("function,dtypes", N_D, ids=[f for f, _ in N_D])
@pytest.mark.parametrize("s,axes", [(None, None), ((4, 6), None), (None, (0, 2)),
                                    ((5, 8), (2, 0)), ((-1, 6), (1, 2)), (None, (1,)),
                                    ((3, 4, 10), None), (None, (2, 1)), ((7,), (0,))])
def test_n_dimensional(place, rng, function, dtypes, s, axes):
    for dtype in dtypes:
        a = random(rng, (4, 6, 5), dtype)
        numpy_s, numpy_axes = s, axes
        if s is not None:  # NumPy has no -1 (the input's length), and wants axes with s
            numpy_axes = axes if axes is not None else tuple(range(3 - len(s), 3))
            numpy_s = tuple(a.shape[ax] if k == -1 else k for ax, k in zip(numpy_axes, s))
            if function == "irfftn" and s[-1] == -1:
                numpy_s = numpy_s[:-1] + (2 * (a.shape[numpy_axes[-1]] - 1),)
        for norm in NORMS:
            expected = getattr(np.fft, function)(a, s=numpy_s, axes=numpy_axes, norm=norm)
            got = getattr(dfft, function)(devarray.asarray(a), s=s, axes=axes, norm=norm)
            assert_close(got, expected.astype(expected_dtype(function, dtype)))


def test_batched_trailing_transforms(place, rng):
    """Transforms over the last two and three axes of a batch (one cuFFT
    transform of that rank on CUDA), cropped and padded."""
    a = random(rng, (3, 4, 6, 5), "complex64")
    x = devarray.asarray(a)
    assert_close(dfft.fftn(x, axes=(2, 3)), np.fft.fftn(a, axes=(2, 3)))
    assert_close(dfft.ifftn(x, s=(3, 8), axes=(-2, -1), norm="ortho"),
                 np.fft.ifftn(a, s=(3, 8), axes=(-2, -1), norm="ortho"))
    r = devarray.asarray(a.real)
    assert_close(dfft.rfftn(r, s=(5, 6, 4), axes=(1, 2, 3)),
                 np.fft.rfftn(a.real, s=(5, 6, 4), axes=(1, 2, 3)))
    assert_close(dfft.irfftn(x, s=(6, 8), axes=(2, 3), norm="forward"),
                 np.fft.irfftn(a, s=(6, 8), axes=(2, 3), norm="forward"))


def test_non_contiguous_input(place, rng):
    a = random(rng, (8, 12), "complex128")
    view = devarray.asarray(a)[::2, 1::1].mT
    assert_close(dfft.fft(view, axis=0), np.fft.fft(a[::2, 1:].T, axis=0))
    assert_close(dfft.rfftn(devarray.asarray(a.real)[:, ::-1]), np.fft.rfftn(a.real[:, ::-1]))


def test_round_trips(place, rng):
    a = random(rng, (6, 32), "float64")
    x = devarray.asarray(a)
    assert_close(dfft.irfft(dfft.rfft(x), n=32), a)
    assert_close(dfft.ifftn(dfft.fftn(x)), a.astype("complex128"))
    assert_close(dfft.ihfft(dfft.hfft(devarray.asarray(np.fft.ihfft(a)), n=32)),
                 np.fft.ihfft(a))


def test_empty_batches(place):
    x = devarray.zeros((0, 8), dtype=devarray.complex64)
    assert_close(dfft.fft(x), np.zeros((0, 8), "complex64"))
    assert_close(dfft.rfft(devarray.zeros((3, 0, 8), dtype=devarray.float32)),
                 np.zeros((3, 0, 5), "complex64"))


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(backend, n, d):
    for dtype in (None, "float32", "float64"):
        expected = np.fft.fftfreq(n, d=d).astype(dtype or "float64")
        assert_close(dfft.fftfreq(n, d=d, dtype=dtype), expected)
        expected = np.fft.rfftfreq(n, d=d).astype(dtype or "float64")
        assert_close(dfft.rfftfreq(n, d=d, dtype=dtype), expected)
    device = devarray.asarray([0]).device
    assert dfft.fftfreq(n, device=device).device == device


@pytest.mark.parametrize("shape,axes", [((7,), None), ((4, 5), None), ((4, 5), 1),
                                        ((3, 4, 6), (0, 2)), ((3, 4, 6), (-1,)), ((0, 3), None)])
def test_shifts(backend, rng, shape, axes):
    a = rng.integers(-100, 100, shape).astype("int32")
    x = devarray.asarray(a)
    got = dfft.fftshift(x, axes=axes)
    np.testing.assert_array_equal(got.to_host(), np.fft.fftshift(a, axes=axes))
    np.testing.assert_array_equal(dfft.ifftshift(got, axes=axes).to_host(), a)


# ---- errors: clear exceptions, before anything runs --------------------------------------

def test_errors(place):
    x = devarray.asarray(np.ones((4, 6), "float32"))
    c = devarray.asarray(np.ones((4, 6), "complex64"))
    cases = [
        (TypeError, "needs a floating-point dtype, not int64",
         lambda: dfft.fft(devarray.asarray(np.arange(4)))),
        (TypeError, "needs a floating-point dtype, not bool",
         lambda: dfft.fftn(devarray.asarray(np.ones(4, bool)))),
        (TypeError, "rfft\\(\\) needs a real floating-point dtype, not complex64",
         lambda: dfft.rfft(c)),
        (TypeError, "ihfft\\(\\) needs a real floating-point dtype", lambda: dfft.ihfft(c)),
        (TypeError, "rfftn\\(\\) needs a real floating-point dtype", lambda: dfft.rfftn(c)),
        (TypeError, "takes a DeviceArray, not ndarray", lambda: dfft.fft(np.ones(4))),
        (ValueError, "at least one dimension", lambda: dfft.fft(devarray.asarray(1.0))),
        (ValueError, "n must be a positive number of points, not 0", lambda: dfft.fft(x, n=0)),
        (ValueError, "n must be a positive number of points, not -3",
         lambda: dfft.irfft(c, n=-3)),
        (ValueError, "irfft\\(\\): n must be a positive", lambda: dfft.irfft(c[:, :1])),
        (ValueError, "s must be a positive number of points, not 0",
         lambda: dfft.fftn(x, s=(0, 4))),
        (ValueError, "norm must be 'backward', 'ortho' or 'forward', not 'none'",
         lambda: dfft.ifft(c, norm="none")),
        (devarray.AxisError, "axis 2 is out of bounds", lambda: dfft.fft(x, axis=2)),
        (devarray.AxisError, "axis -3 is out of bounds", lambda: dfft.fftn(x, axes=(0, -3))),
        (ValueError, "axes must not repeat", lambda: dfft.fftn(x, axes=(1, -1))),
        (ValueError, "s and axes must have the same length",
         lambda: dfft.fftn(x, s=(4,), axes=(0, 1))),
        (ValueError, "s has 3 entries for an array of 2", lambda: dfft.fftn(x, s=(2, 2, 2))),
        (ValueError, "fftfreq\\(\\): n must be a positive", lambda: dfft.fftfreq(0)),
        (TypeError, "dtype must be a real floating-point dtype, not complex64",
         lambda: dfft.rfftfreq(4, dtype=devarray.complex64)),
        (devarray.AxisError, "axis 5 is out of bounds", lambda: dfft.fftshift(x, axes=5)),
    ]
    before = x.to_host().copy()
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    np.testing.assert_array_equal(x.to_host(), before)


def test_primitive_checks(gpu):
    """_core._fft_last_axes refuses what it cannot run, naming it."""
    c = devarray.ones((2, 8), dtype=devarray.complex64)
    with pytest.raises(TypeError, match="the r2c transform reads float32, not complex64"):
        _core._fft_last_axes(c, 2, (8,))
    with pytest.raises(ValueError, match="the c2r transform reads 5 along axis 1, not 8"):
        _core._fft_last_axes(c, 3, (8,))
    with pytest.raises(ValueError, match="kind must be 0 to 3"):
        _core._fft_last_axes(c, 4, (8,))
    with pytest.raises(ValueError, match="no more than x has axes"):
        _core._fft_last_axes(c, 0, (1, 2, 8))
    with pytest.raises(ValueError, match="extents must be positive, not 0"):
        _core._fft_last_axes(c, 0, (0, 8))


def test_primitive_refuses_host_arrays(host):
    with pytest.raises(ValueError, match="takes host arrays through NumPy"):
        _core._fft_last_axes(devarray.ones(8, dtype=devarray.complex64), 0, (8,))


def test_plan_cache_over_many_shapes(gpu, rng):
    """More lengths and batches than the plan cache holds, twice over: each
    transform is still right after its plan was evicted and made again."""
    for round_ in range(2):
        for n in range(3, 3 + 40):
            a = random(rng, (round_ + 2, n), "complex64")
            assert_close(dfft.fft(devarray.asarray(a)), np.fft.fft(a))


def test_on_device_one(gpu, rng):
    """A transform runs on the device of its input, the result stays there."""
    need_gpus(2)
    a = random(rng, (4, 64), "complex128")
    x = devarray.asarray(a, device=1)
    y = dfft.fft(x)
    assert y.device == x.device
    assert_close(y, np.fft.fft(a))
    assert math.isclose(float(devarray.real(dfft.ifft(y)[0, 0])), a[0, 0].real, rel_tol=1e-12)


def test_numpy_fft_runs_devarray_fft(backend, rng):
    """numpy.fft's functions called on DeviceArrays run devarray.fft's, on
    the device, with NumPy's positional arguments and norm=None."""
    a = random(rng, (4, 8), "complex64")
    x = devarray.asarray(a)
    assert_close(np.fft.fft(x, 6, 0), np.fft.fft(a, 6, 0))
    assert_close(np.fft.irfft(x, None, -1, None), np.fft.irfft(a))
    assert_close(np.fft.rfftn(devarray.asarray(a.real), (4, 6), (0, 1)),
                 np.fft.rfftn(a.real, (4, 6), (0, 1)))
    got = np.fft.fftshift(x, axes=0)
    np.testing.assert_array_equal(got.to_host(), np.fft.fftshift(a, axes=0))
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        np.fft.fft(x, 4, n=4)
    with pytest.raises(TypeError, match="takes at most 3 arguments after the array, got 4"):
        dfft._numpy_function("fft")(x, 4, 0, None, 1)
    with pytest.raises(TypeError, match="needs a floating-point dtype"):
        np.fft.fft(devarray.asarray(np.arange(4)))


def test_dask_fft_on_device_array_chunks(backend, rng):
    """dask.array's fft (numpy.fft on each chunk) runs on DeviceArray chunks."""
    dd = pytest.importorskip("devarray.dask", exc_type=ImportError)
    dask_array = pytest.importorskip("dask.array")
    a = random(rng, (6, 16), "complex128")
    x = dd.from_numpy(a, chunks=(2, 16))
    got = dask_array.fft.fft(x, axis=1).compute(scheduler="sync")
    assert_close(got, np.fft.fft(a, axis=1))
    got = dask_array.fft.rfft(x.real, n=10).compute(scheduler="sync")
    assert_close(got, np.fft.rfft(a.real, n=10))
