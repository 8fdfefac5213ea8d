"""Sorting (issue 10): stable sort and argsort of 2^(log2n-2) float32, each
library's own (torch.sort(stable=True), which returns the indices too; NumPy
kind="stable"); on the host backend the same at 2^22 against NumPy, without
targets.

Targets: issue 10's (sort <= 1.1x CuPy; none for argsort, measured next to
the peers).
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
    ]
