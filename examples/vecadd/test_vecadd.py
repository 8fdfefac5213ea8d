"""vecadd against NumPy, on random data, with devarray, CuPy and PyTorch
inputs; the argument checks on the host backend, which needs no GPU."""

import numpy as np
import pytest

import devarray
from vecadd import add, scale

SHAPES = [(0,), (1,), (1000,), (33, 65), (2, 3, 4, 5)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_add(to_gpu, rng, dtype, shape):
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    out = add(to_gpu(a), to_gpu(b))
    assert isinstance(out, devarray.DeviceArray)
    assert out.shape == shape and out.dtype == dtype
    np.testing.assert_array_equal(out.to_host(), a + b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [2.0, -0.1, 3])
def test_scale(to_gpu, rng, dtype, alpha):
    x = rng.standard_normal((1000,)).astype(dtype)
    out = scale(to_gpu(x), alpha)
    assert out.dtype == dtype
    # NumPy's rule (NEP 50): a Python scalar takes the array's dtype
    np.testing.assert_array_equal(out.to_host(), x * alpha)


def test_large(gpu, rng):
    """More elements than one grid covers: the grid-stride loop."""
    a = rng.standard_normal(65535 * 256 + 3).astype(np.float32)
    b = rng.standard_normal(a.size).astype(np.float32)
    np.testing.assert_array_equal(add(devarray.asarray(a), devarray.asarray(b)).to_host(), a + b)


def test_results_feed_devarray(gpu, rng):
    """The result is an ordinary DeviceArray, ordered on devarray's stream."""
    a = rng.standard_normal((256, 256)).astype(np.float64)
    d = devarray.asarray(a)
    total = (scale(add(d, d), 0.5) - d).sum()
    assert float(total) == 0.0


def test_not_contiguous(gpu, rng):
    d = devarray.asarray(rng.standard_normal((8, 6)).astype(np.float32))
    with pytest.raises(ValueError, match="not C-contiguous"):
        add(d.T, d.T)
    with pytest.raises(ValueError, match="not C-contiguous"):
        scale(d[:, ::2], 2.0)


# ---- argument checks: they raise before any CUDA call, so run everywhere ----

def test_dtype_errors(host):
    f32 = devarray.zeros(4, dtype="float32")
    with pytest.raises(TypeError, match="expected float32 or float64, not int32"):
        add(devarray.zeros(4, dtype="int32"), devarray.zeros(4, dtype="int32"))
    with pytest.raises(TypeError, match="same dtype"):
        add(f32, devarray.zeros(4, dtype="float64"))
    with pytest.raises(TypeError, match="not float16"):
        scale(devarray.zeros(4, dtype="float16"), 2.0)


def test_shape_errors(host):
    with pytest.raises(ValueError, match="same shape"):
        add(devarray.zeros(4), devarray.zeros(5))
    with pytest.raises(ValueError, match="same shape"):
        add(devarray.zeros((2, 2)), devarray.zeros(4))


def test_other_errors(host):
    with pytest.raises(TypeError, match="expected a GPU array"):
        add(devarray.zeros(4), [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(TypeError, match="must be real number"):
        scale(devarray.zeros(4), "2")
    with pytest.raises(TypeError, match="2 arguments"):
        add(devarray.zeros(4))
    with pytest.raises(ValueError, match="host memory"):
        add(devarray.zeros(4), devarray.zeros(4))


def test_results_land_on_the_inputs_device(gpus, rng):
    """Inputs on any GPU, whichever device is current: the result is made
    there (DevArray_EmptyOn) and the kernel runs there."""
    a = rng.standard_normal(5000)
    b = rng.standard_normal(5000)
    for device in range(gpus):
        with devarray.Device(device):
            da, db = devarray.asarray(a), devarray.asarray(b)
        out = add(da, db)
        assert out.device == devarray.Device(device)
        np.testing.assert_array_equal(out.to_host(), a + b)
        np.testing.assert_array_equal(scale(db, 3.0).to_host(), b * 3.0)
