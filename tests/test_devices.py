"""Devices (issue 14): device_count, the per-thread current device
(`with devarray.Device(n):`), device= on creation functions, to_device, and
the errors for ordinals out of range and operands on two devices.  Runs on
the host backend and on one GPU; what needs two GPUs is in
test_multi_gpu.py (and one test here, skipped with that reason)."""

import threading

import numpy as np
import pytest

import devarray
from devarray import _core

from _helpers import assert_values, random_array
from _multigpu import need_gpus, start_device

COUNT = devarray.device_count()
# the device current when a test starts (DEVARRAY_TEST_DEVICE, else 0)
START = start_device() if COUNT else 0


def current():
    """The thread's current CUDA ordinal, as 'cuda' alone names it."""
    return devarray.Device("cuda").id


def ordinal_error():
    """What a CUDA ordinal out of range raises here, and the message's start."""
    if COUNT == 0:
        return RuntimeError, "CUDA is not available"
    return ValueError, f"CUDA device {COUNT} does not exist: this process sees {COUNT}"


# ---- device_count ---------------------------------------------------------------

def test_device_count_matches_the_namespace():
    assert isinstance(COUNT, int) and COUNT >= 0
    assert (COUNT > 0) == _core._cuda_available()
    devices = devarray.__array_namespace_info__().devices()
    assert [d for d in devices if d.type == "cuda"] == [devarray.Device("cuda", i)
                                                          for i in range(COUNT)]
    assert devices[-1] == devarray.Device("host")


def test_device_of_an_int_is_a_cuda_ordinal():
    for n in (0, 1, 7):
        assert devarray.Device(n) == devarray.Device("cuda", n) == n
    assert devarray.Device(np.int64(2)) == devarray.Device("cuda", 2)


# ---- ordinals out of range ------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda n: devarray.zeros(3, device=n),
    lambda n: devarray.asarray([1.0, 2.0], device=devarray.Device(n)),
    lambda n: devarray.arange(4, device=f"cuda:{n}"),
    lambda n: devarray.Device(n).__enter__(),
    lambda n: devarray.from_dlpack(np.arange(3.0), device=n),
], ids=["zeros", "asarray", "arange", "enter", "from_dlpack"])
def test_ordinal_out_of_range(make):
    exc, message = ordinal_error()
    before = current()
    with pytest.raises(exc, match=message):
        make(COUNT)
    with pytest.raises(exc, match=str(COUNT + 5)):
        make(COUNT + 5)
    assert current() == before


def test_to_device_ordinal_out_of_range(backend, rng):
    a = random_array(rng, (5,), "float32")
    d = devarray.asarray(a)
    exc, message = ordinal_error()
    with pytest.raises(exc, match=message):
        d.to_device(COUNT)
    assert_values(d, a)   # the source is untouched


def test_negative_and_non_int_ordinals():
    with pytest.raises(ValueError, match="non-negative"):
        devarray.Device(-1)
    with pytest.raises(TypeError, match="bool"):
        devarray.Device(True)
    with pytest.raises(TypeError, match="float"):
        devarray.zeros(2, device=1.0)


# ---- the Device context ---------------------------------------------------------

def test_exit_without_enter_raises():
    before = current()
    with pytest.raises(RuntimeError, match="innermost"):
        devarray.Device(0).__exit__(None, None, None)
    assert current() == before


def test_host_device_cannot_be_entered():
    with pytest.raises(ValueError, match="host"):
        with devarray.Device("host"):
            pass
    assert current() == START


def test_context_restores_on_exception(gpu):
    assert current() == START
    with pytest.raises(KeyError):
        with devarray.Device(0) as d:
            assert d == devarray.Device(0) and current() == 0
            raise KeyError("boom")
    assert current() == START
    # a failed entry leaves nothing entered
    with pytest.raises(ValueError):
        devarray.Device(COUNT).__enter__()
    with pytest.raises(RuntimeError, match="innermost"):
        devarray.Device(0).__exit__(None, None, None)


def test_context_nesting_and_order(gpu):
    with devarray.Device(0):
        with devarray.Device(0):
            z = devarray.zeros(4)
        with pytest.raises(RuntimeError, match="innermost"):
            devarray.Device("host").__exit__(None, None, None)
        assert z.device == 0
    with pytest.raises(RuntimeError, match="innermost"):
        devarray.Device(0).__exit__(None, None, None)


def test_context_is_per_thread(gpu):
    errors = []

    def other():
        try:
            # nothing was entered on this thread
            devarray.Device(0).__exit__(None, None, None)
        except RuntimeError as exc:
            errors.append(exc)

    with devarray.Device(0):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert len(errors) == 1 and "innermost" in str(errors[0])


# ---- device= on creation functions ----------------------------------------------

CREATORS = {
    "asarray": lambda dev: devarray.asarray([1.5, 2.5, 3.5], device=dev),
    "zeros": lambda dev: devarray.zeros((2, 3), device=dev),
    "ones": lambda dev: devarray.ones(3, dtype="int32", device=dev),
    "empty": lambda dev: devarray.empty(3, device=dev),
    "full": lambda dev: devarray.full(3, 7, device=dev),
    "arange": lambda dev: devarray.arange(5, device=dev),
    "linspace": lambda dev: devarray.linspace(0, 1, 5, device=dev),
    "eye": lambda dev: devarray.eye(3, device=dev),
    "zeros_like": lambda dev: devarray.zeros_like(devarray.ones(3), device=dev),
    "ones_like": lambda dev: devarray.ones_like(devarray.ones(3), device=dev),
    "empty_like": lambda dev: devarray.empty_like(devarray.ones(3), device=dev),
    "full_like": lambda dev: devarray.full_like(devarray.ones(3), 2, device=dev),
    "from_dlpack": lambda dev: devarray.from_dlpack(np.arange(3.0), device=dev),
    "to_device": lambda dev: devarray.to_device(np.arange(4.0), device=dev),
    "to_device_pinned": lambda dev: devarray.to_device(devarray.empty_pinned(4),
                                                        device=dev),
    "astype": lambda dev: devarray.astype(devarray.ones(3), devarray.float32, device=dev),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_keyword_on_creation(gpu, name):
    make = CREATORS[name]
    expected = make("host").to_host()
    with devarray.Device(0):
        for dev in (0, devarray.Device(0), "cuda:0", "cuda"):
            d = make(dev)
            assert d.device == devarray.Device("cuda", 0) and d.device == 0
            if name not in ("empty", "empty_like", "to_device_pinned"):
                assert_values(d, np.asarray(expected))


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_keyword_host(name):
    saved = devarray.backend()
    devarray.set_backend("host")
    try:
        assert CREATORS[name]("host").device == devarray.Device("host")
        if COUNT == 0:
            with pytest.raises(RuntimeError, match="CUDA is not available"):
                CREATORS[name](0)
    finally:
        devarray.set_backend(saved)


def test_to_device_same_gpu_is_the_array(gpu, rng):
    a = random_array(rng, (4, 3), "float64")
    d = devarray.asarray(a, device=0)
    assert d.to_device(0) is d and d.to_device(devarray.Device(0)) is d
    h = d.to_device("host")
    back = h.to_device(0)
    assert back.device == 0 and back is not d
    assert_values(back, a)


def test_results_stay_on_the_operands_device(gpu, rng):
    a = random_array(rng, (6,), "float32")
    d = devarray.asarray(a, device=0)
    with devarray.Device(0):
        for r in (d + 1, d * d, d.sum(), devarray.sort(d), d[devarray.asarray([0, 2])]):
            assert r.device == 0


# ---- operands on two devices ----------------------------------------------------

def test_cross_device_operands_name_both_devices(rng):
    need_gpus(2)
    a = devarray.asarray(random_array(rng, (4,), "float32"), device=0)
    b = devarray.asarray(random_array(rng, (4,), "float32"), device=1)
    with pytest.raises(ValueError, match="cuda:0 and cuda:1"):
        a + b
    with pytest.raises(ValueError, match="cuda:1 and cuda:0"):
        b * a


def test_cross_backend_operands_name_both_places(gpu, rng):
    a = devarray.asarray(random_array(rng, (4,), "float32"), device="cuda:0")
    h = devarray.asarray(random_array(rng, (4,), "float32"), device="host")
    with pytest.raises(ValueError, match="cuda:0 and host"):
        a + h
    with pytest.raises(ValueError, match="host and cuda:0"):
        devarray.where(h > 0, h, a)


def test_memory_stats_take_an_ordinal(gpu):
    before = devarray.memory_stats(0)["in_use_bytes"]
    d = devarray.zeros(1 << 20, dtype="uint8", device=0)
    assert devarray.memory_stats(0)["in_use_bytes"] >= before + d.nbytes
    assert devarray.memory_stats()["in_use_bytes"] == devarray.memory_stats(START)["in_use_bytes"]
    exc, message = ordinal_error()
    with pytest.raises(exc, match=message):
        devarray.memory_stats(COUNT)
