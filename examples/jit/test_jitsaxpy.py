"""jitsaxpy: the run-time build and its disk cache (needs nvcc, not a GPU),
and saxpy against NumPy with devarray, CuPy and PyTorch inputs."""

import os
import subprocess
import sys

import numpy as np
import pytest

import devarray
import jitsaxpy

LOAD = ("import warnings; warnings.simplefilter('ignore', RuntimeWarning)\n"
        "import jitsaxpy, sys\n"
        "print(jitsaxpy.extension(build_directory=sys.argv[1]).__file__)\n")


def load_in_a_new_process(directory):
    """The path of the module that a fresh interpreter's first call loads."""
    done = subprocess.run([sys.executable, "-c", LOAD, str(directory)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert done.returncode == 0, done.stdout
    return done.stdout.strip().splitlines()[-1]


def test_second_load_comes_from_the_cache(tmp_path):
    """The first process builds the module into the cache; the second finds it
    there: the same file, untouched (a rebuild would put a new file in place)."""
    first = load_in_a_new_process(tmp_path)
    assert os.path.dirname(os.path.dirname(first)) == str(tmp_path)
    before = os.stat(first)
    second = load_in_a_new_process(tmp_path)
    after = os.stat(second)
    assert second == first
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    # one build in the cache, and nothing half-built left beside it
    entries = sorted(os.listdir(tmp_path))
    assert [e for e in entries if not e.endswith(".lock")] == [os.path.basename(
        os.path.dirname(first))], entries


@pytest.fixture(scope="module")
def saxpy(tmp_path_factory):
    """jitsaxpy.saxpy, its module built into this test run's own cache."""
    jitsaxpy.extension(build_directory=tmp_path_factory.mktemp("jit-cache"))
    return jitsaxpy.saxpy


@pytest.mark.parametrize("shape", [(0,), (5,), (1000,), (17, 33)])
def test_saxpy(saxpy, to_gpu, rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    out = saxpy(1.5, to_gpu(x), to_gpu(y))
    assert isinstance(out, devarray.DeviceArray) and out.shape == shape
    # no FMA in NumPy: allow the kernel's fused a * x + y its last bit
    np.testing.assert_allclose(out.to_host(), np.float32(1.5) * x + y, rtol=1e-6, atol=1e-6)


def test_saxpy_on_every_device(saxpy, gpus, rng):
    """x and y on any GPU, whichever device is current: the result is made
    there and the kernel runs there."""
    x = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    for device in range(gpus):
        with devarray.Device(device):
            dx, dy = devarray.asarray(x), devarray.asarray(y)
        out = saxpy(1.5, dx, dy)
        assert out.device == devarray.Device(device)
        np.testing.assert_allclose(out.to_host(), np.float32(1.5) * x + y, rtol=1e-6, atol=1e-6)


def test_errors(saxpy, host):
    with pytest.raises(TypeError, match="float32"):
        saxpy(2.0, devarray.zeros(3, dtype="float64"), devarray.zeros(3, dtype="float64"))
    with pytest.raises(ValueError, match="device memory"):
        saxpy(2.0, devarray.zeros(3, dtype="float32"), devarray.zeros(3, dtype="float32"))
