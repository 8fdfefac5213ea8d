"""Indexing (issue 10): boolean-mask selection d[d > t] with half the
elements selected, and take(x, indices) of random int64 indices, each
library's own; on the host backend the same at 2^24 against NumPy, without
targets.

Targets: issue 10's (d[d > t] <= 1.1x the better of CuPy and PyTorch; none
for take, measured next to the peers).
"""

import numpy as np

from runner import backend_row, random_array

import devarray  # after runner, which puts the in-place build on sys.path


def take(bench):
    return {"devarray": lambda x, i: devarray.take(x, i),
            "cupy": lambda x, i: bench.cupy.take(x, i),
            "torch": lambda x, i: bench.torch.take(x, i),
            "numpy": lambda x, i: np.take(x, i)}


def mask_rows(bench, rng, log2n):
    """d[d > t] of 2^log2n float32, t the median."""
    n = 1 << log2n
    a = random_array(rng, n, np.float32)
    # Half the elements are above the median: the result holds 2^(log2n-1).
    t = float(np.median(a))
    return [bench.op_row(backend_row(
        bench, "mask", "d[d > t] (t the median)", "2^%d" % log2n, "float32", 4 * n + 2 * n,
        True, [["best", 1.1, "<= 1.1x the better of CuPy and PyTorch"]]),
        lambda d: d[d > t], [a])]


def take_rows(bench, rng, log2n):
    """take of 2^(log2n-2) random int64 indices into as many float32."""
    k = 1 << (log2n - 2)
    a = random_array(rng, k, np.float32)
    # Bytes: the int64 indices and the float32 gathered read, the result written.
    i = rng.integers(0, k, k, dtype=np.int64)
    return [bench.op_row(backend_row(
        bench, "take", "take(x, indices) (random int64 indices)", "2^%d" % (log2n - 2),
        "float32", 16 * k), take(bench), [a, i])]
