"""Skips for tests that need several GPUs (tests/test_multi_gpu.py,
tests/test_devices.py, tests/test_dask.py).

A test that needs n GPUs skips with a reason starting "needs n GPUs:" on a
machine with fewer (or with a devarray that has no device_count() yet), so
that a one-GPU run stays green; DEVARRAY_REQUIRE_GPUS=n turns those skips
into failures, so a broken n-GPU machine cannot pass as "all skipped"."""

import os

import pytest

import devarray
from devarray import _core


def gpu_count():
    """How many GPUs devarray sees: 0 without CUDA, None when this devarray
    has no device_count() (multi-device support not built in)."""
    if not _core._cuda_available():
        return 0
    count = getattr(devarray, "device_count", None)
    return None if count is None else count()


def start_device():
    """The CUDA device every test starts with current: DEVARRAY_TEST_DEVICE
    (tests/conftest.py), 0 by default."""
    return int(os.environ.get("DEVARRAY_TEST_DEVICE") or 0)


def need_gpus(n):
    """Skip the calling test unless devarray sees n GPUs (or fail it under
    DEVARRAY_REQUIRE_GPUS >= n)."""
    count = gpu_count()
    if count is not None and count >= n:
        return
    seen = ("devarray has no device_count() (multi-device support is not built in)"
            if count is None else "devarray sees %d" % count
            if _core._cuda_available() else "devarray has no usable CUDA backend here")
    reason = "needs %d GPUs: %s" % (n, seen)
    required = os.environ.get("DEVARRAY_REQUIRE_GPUS", "")
    if required.isdigit() and int(required) >= n:
        pytest.fail("DEVARRAY_REQUIRE_GPUS=%s but %s" % (required, reason), pytrace=False)
    pytest.skip(reason)
