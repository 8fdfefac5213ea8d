"""Sorting (issue 10): stable sort and argsort of 2^(log2n-2) float32, each
library's own (torch.sort(stable=True), which returns the indices too; NumPy
kind="stable"); sort of 2^(log2n-2) int32 (issue 31); on the host backend
the same at 2^22 against NumPy, without targets.  Issue 31's (bench/specs.py):
sort of int64, float64, int16, uint8 and float16, argsort of int32, sort of
each row of a matrix, and the host overhead of sort and argsort at 1,024.
unique_values and isin are sets.py's.

Targets: issue 10's (sort <= 1.1x CuPy; none for argsort, measured next to
the peers); int32 sort <= 1.0x the best peer; issue 31's (<= 1.05x the best
peer: both sort with CUB; overhead <= 0.75x PyTorch).
"""

import numpy as np

from runner import backend_row
from specs import spec, spec_rows

import devarray  # after runner, which puts the in-place build on sys.path
from inputs import uniform


def sorting(bench, name):
    """{lib: stable sort or argsort of a 1-D array}.  torch.sort returns the
    indices too (its API has no values-only sort)."""
    if name == "sort":
        return {"devarray": lambda a: devarray.sort(a),
                "cupy": lambda a: bench.cupy.sort(a),
                "torch": lambda a: bench.torch.sort(a, stable=True).values,
                "numpy": lambda a: np.sort(a, kind="stable")}
    return {"devarray": lambda a: devarray.argsort(a),
            "cupy": lambda a: bench.cupy.argsort(a),
            "torch": lambda a: bench.torch.argsort(a, stable=True),
            "numpy": lambda a: np.argsort(a, kind="stable")}


def sort_rows(bench, rng, log2n):
    """sort(a) and argsort(a) of 2^(log2n-2) float32 (no GB/s: a radix sort
    makes several passes), sort of int32, then the SPECS' rows."""
    size = "2^%d" % (log2n - 2)
    a = uniform("A", 1 << (log2n - 2))
    return [
        bench.op_row(backend_row(
            bench, "sort", "sort(a)", size, "float32",
            target=[["peer", "cupy", 1.1, "<= 1.1x CuPy"]]), sorting(bench, "sort"), [a]),
        bench.op_row(backend_row(bench, "argsort", "argsort(a) (stable)", size, "float32"),
                     sorting(bench, "argsort"), [a]),
        bench.op_row(backend_row(
            bench, "sort-int32", "sort(a)", size, "int32",
            target=[["best", 1.0, "<= 1.0x best peer"]]), sorting(bench, "sort"),
            [rng.integers(-(1 << 31), 1 << 31, 1 << (log2n - 2), dtype=np.int32)]),
    ] + spec_rows(bench, log2n, SPECS, "sort")


# ---- issue 31: sorts per dtype class (bench/specs.py), 2^(log2n-2) elements,
# 10 timed calls (tens of ms each)

SORT = dict(numpy="xp.sort(a, kind='stable')", torch="torch.sort(a, stable=True).values",
            vendor="CUB", shift=-2, reps=10, small=False)
SPECS = [
    *[spec("sort-" + t, "sort(a)", "xp.sort(a)", inputs="a:" + t, **SORT)
      for t in ("int64", "float64", "int16", "uint8", "float16")],
    spec("argsort-int32", "argsort(a) (stable)", "xp.argsort(a)",
         numpy="xp.argsort(a, kind='stable')", torch="torch.argsort(a, stable=True)",
         inputs="a:int32", vendor="CUB", shift=-2, reps=10, small=False),
    spec("sort-rows-float32", "sort(m, axis=-1) (each row)", "xp.sort(m, axis=-1)",
         numpy="xp.sort(m, axis=-1, kind='stable')",
         torch="torch.sort(m, dim=-1, stable=True).values", inputs="m", vendor="CUB",
         shift=-2, reps=10, small=False),
    # the host overhead of sort and argsort (their large rows are above)
    spec("sort", "sort(a)", "xp.sort(a)", numpy="xp.sort(a, kind='stable')",
         torch="torch.sort(a, stable=True).values", large=False),
    spec("argsort", "argsort(a) (stable)", "xp.argsort(a)",
         numpy="xp.argsort(a, kind='stable')", torch="torch.argsort(a, stable=True)",
         large=False),
]
