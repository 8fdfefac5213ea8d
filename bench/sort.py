"""Sorting (issue 10): stable sort and argsort of 2^(log2n-2) float32, each
library's own (torch.sort(stable=True), which returns the indices too; NumPy
kind="stable"); sort and unique_values of 2^(log2n-2) int32 (issue 31);
and isin of 2^(log2n-2) int32 against 2^16 int32 values
(about half of them found); on the host backend the same at 2^22 against
NumPy, without targets.

Targets: issue 10's (sort <= 1.1x CuPy; none for argsort, measured next to
the peers); int32 sort and unique_values, isin <= 1.0x the best peer.
"""

import numpy as np

from runner import backend_row, random_array

import devarray  # after runner, which puts the in-place build on sys.path


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
    makes several passes)."""
    size = "2^%d" % (log2n - 2)
    a = random_array(rng, 1 << (log2n - 2), np.float32)
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
        unique_row(bench, rng, log2n),
        isin_row(bench, rng, log2n),
    ]


def unique_row(bench, rng, log2n):
    """unique_values of 2^(log2n-2) int32 drawn from 2^20 values (cupy.unique,
    torch.unique(sorted=True))."""
    x = rng.integers(0, 1 << 20, 1 << (log2n - 2), dtype=np.int32)
    fns = {"devarray": lambda a: devarray.unique_values(a),
           "cupy": lambda a: bench.cupy.unique(a),
           "torch": lambda a: bench.torch.unique(a, sorted=True),
           "numpy": lambda a: np.unique(a)}
    return bench.op_row(backend_row(
        bench, "unique-int32", "unique_values(a), 2^20 distinct", "2^%d" % (log2n - 2),
        "int32", target=[["best", 1.0, "<= 1.0x best peer"]]), fns, [x])


def isin_row(bench, rng, log2n):
    """isin(x1, x2): 2^(log2n-2) int32 against 2^16 int32, both drawn from
    [0, 2^17), so about half of x1 is found (no GB/s: x2 is sorted and
    searched, not streamed)."""
    x1 = rng.integers(0, 1 << 17, 1 << (log2n - 2), dtype=np.int32)
    x2 = rng.integers(0, 1 << 17, 1 << 16, dtype=np.int32)
    fns = {"devarray": lambda a, b: devarray.isin(a, b),
           "cupy": lambda a, b: bench.cupy.isin(a, b),
           "torch": lambda a, b: bench.torch.isin(a, b),
           "numpy": lambda a, b: np.isin(a, b)}
    return bench.op_row(backend_row(
        bench, "isin", "isin(x1, x2), x2 of 2^16", "2^%d" % (log2n - 2), "int32",
        target=[["best", 1.0, "<= 1.0x best peer"]]), fns, [x1, x2])
