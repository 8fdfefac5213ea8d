"""Indexing (issue 10): boolean-mask selection d[d > t] with half the
elements selected, and take(x, indices) of random int64 indices, each
library's own; on the host backend the same at 2^24 against NumPy, without
targets.  Issue 31's (index_rows, bench/specs.py): slice copies, integer
array indexing, a precomputed mask, take_along_axis, and setitem with a
scalar, an array, a broadcast row, a mask and an integer index array, and
their host overhead at 1,024 (with d[d > t]'s and take's).

Targets: issue 10's (d[d > t] <= 1.1x the better of CuPy and PyTorch; none
for take, measured next to the peers); issue 31's (<= 1.0x the best peer,
>= 90% of the copy bandwidth where the op streams; overhead <= 0.75x
PyTorch).
"""

import numpy as np

from runner import backend_row
from specs import spec, spec_rows

import devarray  # after runner, which puts the in-place build on sys.path
from inputs import uniform


def take(bench):
    return {"devarray": lambda x, i: devarray.take(x, i),
            "cupy": lambda x, i: bench.cupy.take(x, i),
            "torch": lambda x, i: bench.torch.take(x, i),
            "numpy": lambda x, i: np.take(x, i)}


def mask_rows(bench, rng, log2n):
    """d[d > t] of 2^log2n float32, t the median."""
    n = 1 << log2n
    a = uniform("A", n)
    # Half the elements are above the median: the result holds 2^(log2n-1).
    t = float(np.median(a))
    return [bench.op_row(backend_row(
        bench, "mask", "d[d > t] (t the median)", "2^%d" % log2n, "float32", 4 * n + 2 * n,
        True, [["best", 1.1, "<= 1.1x the better of CuPy and PyTorch"]]),
        lambda d: d[d > t], [a])]


def take_rows(bench, rng, log2n):
    """take of 2^(log2n-2) random int64 indices into as many float32."""
    k = 1 << (log2n - 2)
    a = uniform("A", k)
    # Bytes: the int64 indices and the float32 gathered read, the result written.
    i = rng.integers(0, k, k, dtype=np.int64)
    return [bench.op_row(backend_row(
        bench, "take", "take(x, indices) (random int64 indices)", "2^%d" % (log2n - 2),
        "float32", 16 * k), take(bench), [a, i])]


# ---- issue 31: every kind of indexing and setitem (bench/specs.py) ---------
# bw=True: GB/s counts the inputs read and the result written; "out" is the
# result's bytes.  Gathers and scatters at random show GB/s without the
# copy-bandwidth target (copy=False).  setitem(x, key, v) is x[key] = v.

SPECS = [
    spec("index-slice-step2", "a[::2], copied", "a[::2].copy()",
         torch="a[::2].contiguous()", bw=True),
    spec("index-slice-reversed", "m[:, ::-1], copied (torch: flip)", "m[:, ::-1].copy()",
         torch="torch.flip(m, (1,))", inputs="m", bw=True, small=False),
    spec("index-slice-inner", "m[1:-1, 1:-1], copied", "m[1:-1, 1:-1].copy()",
         torch="m[1:-1, 1:-1].contiguous()", inputs="m", bw=True),
    spec("index-int-array", "a[idx] (random int64, n/4)", "a[idx]", torch="a[idx]",
         inputs="a idx", bw="idx + 2 * out", copy=False),
    spec("index-int-rows", "m[ri] (random rows)", "m[ri]", torch="m[ri]", inputs="m ri",
         bw="ri + 2 * out", small=False),
    spec("index-mask", "a[mask] (precomputed, half true)", "a[mask]", torch="a[mask]",
         inputs="a mask", bw=True, copy=False),
    spec("index-take_along_axis", "take_along_axis(m, ih, axis=-1)",
         "xp.take_along_axis(m, ih, axis=-1)", torch="torch.take_along_dim(m, ih, dim=-1)",
         inputs="m ih", bw="ih + 2 * out", copy=False),
    spec("index-set-scalar", "w[::2] = 0", "setitem(w, s_[::2], 0.0)",
         torch="setitem(w, s_[::2], 0.0)", inputs="w", bw="w / 2", copy=False),
    spec("index-set-array", "w[:] = a", "setitem(w, s_[:], a)", torch="setitem(w, s_[:], a)",
         inputs="w a", bw=True),
    spec("index-set-row", "wm[:] = v (a row)", "setitem(wm, s_[:], v)",
         torch="setitem(wm, s_[:], v)", inputs="wm v", bw="wm + v", small=False),
    spec("index-set-mask", "w[mask] = 0", "setitem(w, mask, 0.0)",
         torch="setitem(w, mask, 0.0)", inputs="w mask", bw="mask + w / 2", copy=False),
    spec("index-set-int-scalar", "w[idx] = 2.0", "setitem(w, idx, 2.0)",
         torch="setitem(w, idx, 2.0)", inputs="w idx", bw="1.5 * idx", copy=False,
         small=False),
    spec("index-set-int-array", "w[idx] = q", "setitem(w, idx, q)",
         torch="setitem(w, idx, q)", inputs="w idx q", bw="idx + 2 * q", copy=False),
    # the host overhead of issue 10's rows (their large rows are above)
    spec("index-mask-compare", "d[d > 1.0]", "a[a > 1.0]", torch="a[a > 1.0]", large=False),
    spec("index-take", "take(x, indices)", "xp.take(a, idx)", torch="torch.take(a, idx)",
         inputs="a idx", large=False),
]


def index_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "indexing")
