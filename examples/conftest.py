"""Fixtures of the examples' tests (examples/*/test_*.py).  Run them from the
repository root, after installing the examples:

    pip install --no-build-isolation examples/vecadd examples/reduce examples/jit
    python3 -m pytest examples

gpu        devarray on its CUDA backend for the test's duration.  Skipped
           without a GPU, failed instead when DEVARRAY_REQUIRE_GPU=1 (the rule
           of tests/conftest.py: a broken GPU machine cannot pass as "all
           skipped").
host       devarray on its host backend: tests of argument checks, which
           raise before any CUDA call, run everywhere.
to_gpu     a function putting a NumPy array on the GPU with one library:
           devarray, CuPy or PyTorch (the tests taking it run once each).
           Where CuPy or PyTorch is not installed or sees no GPU, its cases
           are skipped, or fail under DEVARRAY_REQUIRE_GPU=1.
rng        a NumPy Generator seeded from the test's name.
gpus       the number of GPUs devarray sees, at least 2, on its CUDA backend:
           tests of several GPUs skip on fewer (tests/_multigpu.py's rule:
           failed instead under DEVARRAY_REQUIRE_GPUS=2).
"""

import contextlib
import importlib
import importlib.util
import os
import warnings
import zlib

import numpy as np
import pytest

with warnings.catch_warnings():
    # without a GPU devarray warns that it falls back to the host backend
    warnings.simplefilter("ignore", RuntimeWarning)
    import devarray
    from devarray import _core


def _load_multigpu():
    """tests/_multigpu.py, the suite's one rule for tests of several GPUs."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests", "_multigpu.py")
    spec = importlib.util.spec_from_file_location("devarray_tests_multigpu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_multigpu = _load_multigpu()


def _require_gpu():
    return os.environ.get("DEVARRAY_REQUIRE_GPU", "") not in ("", "0")


def _no_gpu(reason):
    if _require_gpu():
        pytest.fail("DEVARRAY_REQUIRE_GPU=1 but " + reason, pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def _backend(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        previous = devarray.backend()
    devarray.set_backend(name)
    try:
        yield name
    finally:
        devarray.set_backend(previous)


@pytest.fixture
def gpu():
    if not _core._cuda_available():
        try:
            devarray.set_backend("cuda")  # raises, saying why
        except RuntimeError as exc:
            _no_gpu("CUDA is not available: " + str(exc).rpartition("not available: ")[2])
    with _backend("cuda") as name:
        yield name


@pytest.fixture
def gpus(request):
    _multigpu.need_gpus(2)
    request.getfixturevalue("gpu")
    return _multigpu.gpu_count()


@pytest.fixture
def host():
    with _backend("host") as name:
        yield name


def _require(name):
    """Import `name`; skip without it, or fail under DEVARRAY_REQUIRE_GPU=1
    (tests/test_interop.py's rule: the GPU machine has CuPy and PyTorch)."""
    if not _require_gpu():
        return pytest.importorskip(name)
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        pytest.fail("DEVARRAY_REQUIRE_GPU=1 but %s cannot be imported: %s" % (name, exc),
                    pytrace=False)


def _cupy():
    cupy = _require("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # CuPy raises its own CUDARuntimeError without a driver
        count = 0
    if count == 0:
        _no_gpu("CuPy sees no GPU")
    return cupy.asarray


def _torch():
    torch = _require("torch")
    if not torch.cuda.is_available():
        _no_gpu("PyTorch sees no GPU")
    return lambda x: torch.from_numpy(x).to("cuda")


@pytest.fixture(params=["devarray", "cupy", "torch"])
def to_gpu(request, gpu):
    if request.param == "cupy":
        return _cupy()
    if request.param == "torch":
        return _torch()
    return devarray.asarray


@pytest.fixture
def rng(request):
    seed = zlib.crc32(request.node.nodeid.encode())
    print("rng seed: %d" % seed)
    return np.random.default_rng(seed)
