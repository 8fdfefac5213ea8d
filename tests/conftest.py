"""Shared fixtures.

backend      every test that takes it runs twice: on the host backend and on
             CUDA.  The CUDA run is skipped without a GPU, and fails instead
             when DEVARRAY_REQUIRE_GPU=1 (the GPU machine sets it, so a broken
             CUDA setup cannot pass as "all skipped").
gpu          the CUDA half of `backend`, for tests that only make sense on a GPU.
rng          numpy.random.Generator seeded per test; the seed is printed with a
             failing test's output (DEVARRAY_TEST_SEED=N overrides it).
numba_cuda   numba.cuda (on a GPU), with numpy.row_stack shimmed where NumPy lacks it.

DEVARRAY_TEST_DEVICE=n runs every test inside `with devarray.Device(n)`: CUDA
device n is current for devarray and for the CUDA runtime (so for CuPy and
PyTorch too), and the suite shows that nothing assumes device 0.
"""

import contextlib
import gc
import os
import warnings
import zlib

import pytest

# scikit-learn's array API dispatch (tests/test_sklearn.py) needs SciPy's
# array API support, which SciPy reads once, when the first test that
# imports it (directly or through a library) does
os.environ.setdefault("SCIPY_ARRAY_API", "1")

with warnings.catch_warnings():
    # a build or machine without CUDA may warn that it falls back to the host
    warnings.simplefilter("ignore", RuntimeWarning)
    import devarray
    from devarray import _core

BACKENDS = ("host", "cuda")
TEST_DEVICE = os.environ.get("DEVARRAY_TEST_DEVICE", "")  # _multigpu.start_device() reads it too


def _require_gpu():
    return os.environ.get("DEVARRAY_REQUIRE_GPU", "") not in ("", "0")


_unavailable_reason = None


def _cuda_unavailable_reason():
    """Why CUDA cannot be used, as set_backend("cuda") explains it."""
    global _unavailable_reason
    if _unavailable_reason is None:
        _unavailable_reason = "CUDA is not available"
        previous = _current_backend()
        try:
            devarray.set_backend("cuda")
        except RuntimeError as exc:
            _unavailable_reason = "CUDA is not available: " + str(exc).rpartition(
                "not available: ")[2]
        finally:
            if previous is not None:
                devarray.set_backend(previous)
    return _unavailable_reason


def _check_cuda():
    """Skip the calling test without a usable GPU, or fail it when one is required."""
    if _core._cuda_available():
        return
    reason = _cuda_unavailable_reason()
    if _require_gpu():
        pytest.fail("DEVARRAY_REQUIRE_GPU=1 but " + reason, pytrace=False)
    pytest.skip(reason)


def _current_backend():
    """The default backend now, or None if choosing it fails (e.g.
    DEVARRAY_BACKEND=cuda on a machine without a GPU)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return devarray.backend()
    except Exception:
        return None


@contextlib.contextmanager
def _using(name):
    previous = _current_backend()
    devarray.set_backend(name)
    try:
        yield name
    finally:
        if previous is not None:
            devarray.set_backend(previous)


@pytest.fixture(autouse=True)
def _backend_kept():
    """A test that changes the default backend gives it back: the next test
    in this process would run on the wrong one."""
    before = _current_backend()
    yield
    assert _current_backend() == before, "the test left the default backend %r" % (
        _current_backend(),)


@pytest.fixture(autouse=True)
def _test_device():
    """Device DEVARRAY_TEST_DEVICE current for the test, when it is set."""
    if not TEST_DEVICE:
        yield None
        return
    if not _core._cuda_available():
        pytest.fail("DEVARRAY_TEST_DEVICE=%s but %s" % (TEST_DEVICE, _cuda_unavailable_reason()),
                    pytrace=False)
    with devarray.Device(int(TEST_DEVICE)) as device:
        yield device


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The backend name, set as devarray's default for the test's duration."""
    if request.param == "cuda":
        _check_cuda()
    with _using(request.param) as name:
        yield name


@pytest.fixture
def gpu():
    """"cuda", set as devarray's default for the test's duration."""
    _check_cuda()
    with _using("cuda") as name:
        yield name


@pytest.fixture
def rng(request):
    np = pytest.importorskip("numpy")
    seed = os.environ.get("DEVARRAY_TEST_SEED")
    seed = int(seed) if seed else zlib.crc32(request.node.nodeid.encode())
    # captured output is shown with a failing test's report
    print("rng seed: %d (rerun with DEVARRAY_TEST_SEED=%d)" % (seed, seed))
    return np.random.default_rng(seed)


@pytest.fixture
def numba_cuda(gpu):
    np = pytest.importorskip("numpy")
    if not hasattr(np, "row_stack"):
        # numba.cuda still calls numpy.row_stack, which newer NumPy lacks
        np.row_stack = np.vstack
    cuda = pytest.importorskip("numba.cuda")
    if not cuda.is_available():
        if _require_gpu():
            pytest.fail("DEVARRAY_REQUIRE_GPU=1 but numba.cuda sees no GPU", pytrace=False)
        pytest.skip("numba.cuda sees no GPU")
    return cuda


def pytest_report_header(config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cuda = _core._cuda_available()
        line = "devarray %s from %s; CUDA device: %s" % (
            devarray.__version__, os.path.dirname(devarray.__file__), "yes" if cuda else "no")
        info_fn = getattr(_core, "_device_info", None)
        info = info_fn() if (cuda and info_fn is not None) else None
    if info:
        line += " (%s)" % info.get("name")
    if TEST_DEVICE:
        line += "; every test runs with CUDA device %s current" % TEST_DEVICE
    return line


def pytest_collection_modifyitems(config, items):
    """Tests marked `exclusive` fill the GPU: beside other pytest-xdist
    workers they would take their neighbours' memory, so under several
    workers they skip, saying how to run them alone."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    if workers < 2:
        return
    skip = pytest.mark.skip(reason="fills the GPU: run alone with `python3 -m pytest "
                            "-m exclusive`, not beside %d pytest-xdist workers" % (workers - 1))
    for item in items:
        if item.get_closest_marker("exclusive") is not None:
            item.add_marker(skip)


def pytest_collection_finish(session):
    """The collected tests and everything collection made go to the
    collector's permanent generation (gc.freeze): tests that count memory
    collect garbage first, and a full collection walking some 40,000
    collected items took about 0.5 s a call, most of the suite's time.
    What the tests make afterwards is collected as before."""
    gc.freeze()
