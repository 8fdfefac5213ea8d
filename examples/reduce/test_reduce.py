"""reduce.sum against NumPy, on random data of many layouts, with devarray,
CuPy and PyTorch inputs; the argument checks on the host backend, which
needs no GPU."""

import numpy as np
import pytest

import devarray
from reduce import sum as gpu_sum

RTOL = {"float32": 1e-5, "float64": 1e-12}

# (shape, a view that every library can take: no negative steps for PyTorch)
LAYOUTS = [
    ((0,), lambda a: a),
    ((1,), lambda a: a),
    ((31,), lambda a: a),
    ((1000,), lambda a: a),
    ((256 * 1024 + 17,), lambda a: a),
    ((300, 301), lambda a: a),
    ((300, 301), lambda a: a.T),
    ((300, 301), lambda a: a[1:, ::3]),
    ((7, 9, 11), lambda a: a[:, 2, ::2]),
    ((4, 5, 6, 7), lambda a: a[::2, :, 1:]),
]


def expected(a):
    """NumPy's sum, taken in float64 so that it is the reference to compare with."""
    return a.sum(dtype=np.float64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, view", LAYOUTS)
def test_sum(to_gpu, rng, dtype, shape, view):
    a = rng.random(shape).astype(dtype)
    out = gpu_sum(view(to_gpu(a)))
    assert isinstance(out, devarray.DeviceArray)
    assert out.shape == () and out.dtype == dtype
    want = expected(view(a))
    np.testing.assert_allclose(float(out), want, rtol=RTOL[dtype], atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_negative_strides(gpu, rng, dtype):
    a = rng.standard_normal((64, 48)).astype(dtype)
    d = devarray.asarray(a)
    np.testing.assert_allclose(float(gpu_sum(d[::-1, ::-2])), expected(a[::-1, ::-2]),
                               rtol=RTOL[dtype], atol=1e-4)


def test_zero_d(gpu):
    assert float(gpu_sum(devarray.asarray(np.float64(2.5)))) == 2.5


def test_deterministic(gpu, rng):
    d = devarray.asarray(rng.standard_normal(1 << 20).astype(np.float32))
    assert len({float(gpu_sum(d)) for _ in range(5)}) == 1


def test_result_stays_on_the_device(gpu, rng):
    a = rng.random(1000)
    s = gpu_sum(devarray.asarray(a))
    np.testing.assert_allclose(float(s * 2 + 1), 2 * a.sum() + 1, rtol=1e-12)


# ---- argument checks: they raise before any CUDA call, so run everywhere ----

@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "complex64"])
def test_dtype_errors(host, dtype):
    with pytest.raises(TypeError, match="expected float32 or float64, not " + dtype):
        gpu_sum(devarray.zeros(4, dtype=dtype))


def test_other_errors(host):
    with pytest.raises(TypeError, match="expected a GPU array"):
        gpu_sum(3.0)
    with pytest.raises(ValueError, match="host memory"):
        gpu_sum(devarray.zeros(4))


def test_sum_on_every_device(gpus, rng):
    """x on any GPU, whichever device is current: the scratch array and the
    result are made on x's device."""
    a = rng.random(100_000)
    for device in range(gpus):
        with devarray.Device(device):
            x = devarray.asarray(a)[::3]
        s = gpu_sum(x)
        assert s.device == devarray.Device(device)
        np.testing.assert_allclose(float(s), a[::3].sum(), rtol=1e-12)
