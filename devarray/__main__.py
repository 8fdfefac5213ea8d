"""python -m devarray: say what devarray runs on, check a round trip and an op
against plain Python, and time them.  Needs nothing but devarray (no NumPy).
Exit status 0 when every check passes, 1 otherwise."""

import array
import math
import random
import sys
import time
import warnings

import devarray
from devarray import _core

N = 1 << 16       # elements in the checked array
OPS = 1000        # d + d ops in the timing loop
ROUND_TRIPS = 20  # to_device/to_host pairs timed


def describe_device():
    info_fn = getattr(_core, "_device_info", None)
    info = info_fn() if info_fn is not None else None
    if not info:
        return None
    text = str(info.get("name", "unknown device"))
    cc = info.get("compute_capability")
    if isinstance(cc, (tuple, list)):
        cc = ".".join(str(x) for x in cc)
    details = []
    if cc is not None:
        details.append("compute capability %s" % cc)
    memory = info.get("total_memory")
    if memory:
        details.append("%.1f GiB" % (memory / 2**30))
    if details:
        text += " (%s)" % ", ".join(details)
    return text


def per_call_us(fn, count):
    devarray.synchronize()
    start = time.perf_counter()
    for _ in range(count):
        fn()
    devarray.synchronize()
    return (time.perf_counter() - start) / count * 1e6


def main():
    print("devarray %s (Python %s)" % (devarray.__version__, sys.version.split()[0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        name = devarray.backend()
    print("backend: %s" % name)
    for w in caught:
        print("  note: %s" % w.message)
    built = getattr(_core, "_built_with_cuda", None)
    if built is False:
        print("  note: this build has no CUDA backend (nvcc was not found when it was "
              "built; see docs/install.md)")
    device = describe_device() if name == "cuda" else None
    if device:
        print("device: %s" % device)

    ok = True
    rng = random.Random(12345)
    host = array.array("f", (rng.random() for _ in range(N)))

    d = devarray.to_device(host)
    back = array.array("f", bytes(len(host) * host.itemsize))
    d.to_host(out=back)
    same = back.tobytes() == host.tobytes()
    ok &= same
    print("round trip of %d float32: %s" % (N, "ok" if same else "MISMATCH"))

    # Python's float(x) is exact for a float32 and 2 * x is exact in float32,
    # so fsum is the correctly rounded true sum.  A float32 tree sum is within
    # about log2(N) float32 epsilons of it (all terms are positive).
    expected = math.fsum(2.0 * x for x in host)
    got = float((d + d).sum())
    tolerance = (math.log2(N) + 1) * 2.0**-23 * expected
    close = abs(got - expected) <= tolerance
    ok &= close
    print("(d + d).sum(): %.6f, expected %.6f: %s"
          % (got, expected, "ok" if close else "MISMATCH (tolerance %.3g)" % tolerance))

    add_us = per_call_us(lambda: d + d, OPS)
    print("d + d on %d float32: %.2f us per op (%d ops)" % (N, add_us, OPS))
    small = devarray.to_device(array.array("f", [1.0] * 16))
    small_us = per_call_us(lambda: small + small, OPS)
    print("d + d on 16 float32: %.2f us per op (%d ops)" % (small_us, OPS))

    def round_trip():
        devarray.to_device(host).to_host(out=back)

    trip_us = per_call_us(round_trip, ROUND_TRIPS)
    print("round trip of %d float32 (%d KiB): %.1f us" % (N, N * 4 // 1024, trip_us))

    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
