"""Memory a user can see and bound: memory_stats, reset_peak_memory,
release_memory and set_memory_limit, on both backends (docs/memory.md).

Counts are per place (each CUDA device, the host) and per process; the
tests measure differences from what the place held when they started."""

import gc

import pytest

import devarray

np = pytest.importorskip("numpy")

KEYS = {"in_use_bytes", "peak_bytes", "held_bytes", "limit_bytes"}


@pytest.fixture(autouse=True)
def no_limit_left():
    """Whatever a test does, the place it ran on has no limit afterwards."""
    yield
    for device in devarray.__array_namespace_info__().devices():
        devarray.set_memory_limit(None, device=device)


def stats():
    gc.collect()
    devarray.synchronize()
    return devarray.memory_stats()


def test_stats_count_what_arrays_hold(backend, rng):
    before = stats()
    assert set(before) == KEYS and before["limit_bytes"] is None
    assert all(isinstance(before[k], int) for k in KEYS - {"limit_bytes"})
    n = int(rng.integers(5000, 100_000))
    x = devarray.empty(n, dtype="uint8")
    after = stats()
    assert after["in_use_bytes"] == before["in_use_bytes"] + n
    assert after["peak_bytes"] >= after["in_use_bytes"]
    assert after["held_bytes"] >= after["in_use_bytes"]
    a = rng.random(n // 8)
    u = devarray.asarray(a)
    y = u * 2
    grown = stats()["in_use_bytes"] - after["in_use_bytes"]
    assert 2 * a.nbytes <= grown <= 2 * a.nbytes + 4096  # the upload and the product
    np.testing.assert_array_equal(y.to_host(), a * 2)
    del x, u, y
    assert stats()["in_use_bytes"] == before["in_use_bytes"]


def test_peak_and_its_reset(backend, rng):
    devarray.reset_peak_memory()
    start = stats()
    assert start["peak_bytes"] == start["in_use_bytes"]
    n = int(rng.integers(1 << 20, 4 << 20))
    x = devarray.ones(n, dtype="uint8")
    del x
    after = stats()
    assert after["in_use_bytes"] == start["in_use_bytes"]
    assert after["peak_bytes"] >= start["in_use_bytes"] + n
    devarray.reset_peak_memory()
    assert stats()["peak_bytes"] == after["in_use_bytes"]


def test_limit_hit_mid_expression_leaks_nothing(backend, rng):
    a = rng.random(50_000)
    x = devarray.asarray(a)
    before = stats()["in_use_bytes"]
    # room for two more arrays like x (and a scalar's block), not three
    limit = before + 2 * a.nbytes + 4096
    devarray.set_memory_limit(limit)
    assert devarray.memory_stats()["limit_bytes"] == limit
    with pytest.raises(MemoryError, match="its memory limit is %d bytes" % limit):
        (x + 1) + (x * 2) + (x - 1)  # the third temporary is past the limit
    assert stats()["in_use_bytes"] == before
    np.testing.assert_array_equal(x.to_host(), a)
    assert_close = np.testing.assert_allclose
    assert_close(((x + 1) * 2).to_host(), (a + 1) * 2)  # two at a time still fit
    devarray.set_memory_limit(None)
    assert devarray.memory_stats()["limit_bytes"] is None
    assert_close(((x + 1) + (x * 2) + (x - 1)).to_host(), (a + 1) + (a * 2) + (a - 1))


def test_limit_below_what_is_in_use_refuses_only_new_memory(backend, rng):
    a = rng.random(1000)
    x = devarray.asarray(a)
    devarray.set_memory_limit(0)
    with pytest.raises(MemoryError, match="memory limit is 0 bytes"):
        devarray.empty(1)
    assert devarray.empty(0).shape == (0,)    # nothing to allocate
    x *= 3                                    # in place: no new memory
    devarray.set_memory_limit(None)
    np.testing.assert_array_equal(x.to_host(), a * 3)


@pytest.mark.parametrize("limit, exc", [(-1, ValueError), (-(1 << 70), ValueError),
                                        (1.5, TypeError), (True, TypeError),
                                        ("1", TypeError)])
def test_bad_limits_raise_and_change_nothing(backend, limit, exc):
    devarray.set_memory_limit(1 << 40)
    with pytest.raises(exc, match="set_memory_limit: the limit must be"):
        devarray.set_memory_limit(limit)
    assert devarray.memory_stats()["limit_bytes"] == 1 << 40


def test_huge_limit_is_kept(backend):
    devarray.set_memory_limit(1 << 62)
    assert devarray.memory_stats()["limit_bytes"] == 1 << 62
    devarray.set_memory_limit(1 << 70)   # past 2**63: no limit
    assert devarray.memory_stats()["limit_bytes"] is None


@pytest.mark.parametrize("device, exc", [("tpu", ValueError), (2.0, TypeError)])
@pytest.mark.parametrize("name", ["memory_stats", "reset_peak_memory", "release_memory"])
def test_bad_devices_raise(name, device, exc):
    with pytest.raises(exc):
        getattr(devarray, name)(device=device)
    with pytest.raises(exc):
        devarray.set_memory_limit(None, device=device)


def test_host_holds_what_it_uses(rng):
    a = rng.random(10_000)
    x = devarray.asarray(a, device="host")
    s = devarray.memory_stats("host")
    assert s["held_bytes"] == s["in_use_bytes"] >= a.nbytes
    devarray.release_memory("host")
    assert devarray.memory_stats("host") == s
    np.testing.assert_array_equal(x.to_host(), a)


def test_host_and_cuda_counts_are_apart(gpu, rng):
    host = devarray.memory_stats("host")["in_use_bytes"]
    x = devarray.asarray(rng.random(100_000), device="cuda")
    assert devarray.memory_stats("host")["in_use_bytes"] == host
    devarray.set_memory_limit(0, device="host")
    y = x + 1                                  # the GPU has no limit
    with pytest.raises(MemoryError, match="on the host"):
        devarray.asarray(y, device="host")
    assert devarray.memory_stats("host")["in_use_bytes"] == host


def test_release_gives_cached_memory_back(gpu, rng):
    big = devarray.empty(256 << 20, dtype="uint8")
    smalls = [devarray.asarray(rng.random(64)) for _ in range(2000)]  # 512 B each
    del big, smalls
    cached = stats()
    assert cached["held_bytes"] >= cached["in_use_bytes"] + (256 << 20)
    devarray.release_memory()
    released = stats()
    assert released["in_use_bytes"] == cached["in_use_bytes"]
    assert released["held_bytes"] <= cached["held_bytes"] - (256 << 20)
    assert released["held_bytes"] >= released["in_use_bytes"]
    # memory comes back for arrays big and small, with the right values
    a = rng.random(1 << 20)
    smalls = [devarray.asarray(a[k:k + 64]) + k for k in range(600)]
    np.testing.assert_array_equal((devarray.asarray(a) * 2).to_host(), a * 2)
    for k in range(0, 600, 37):
        np.testing.assert_array_equal(smalls[k].to_host(), a[k:k + 64] + k)


def test_release_inside_a_graph_capture_is_refused(gpu, rng):
    a = rng.random(1000)
    x = devarray.asarray(a)
    s = devarray.Stream(non_blocking=True)
    with devarray.graph_capture(s) as g:
        y = x + 1
        with pytest.raises(RuntimeError, match="releasing cached memory waits"):
            devarray.release_memory()
    g.replay()
    devarray.synchronize()
    np.testing.assert_array_equal(y.to_host(), a + 1)
