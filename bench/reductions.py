"""Reductions (issue 10): sum, prod, max, min, mean and argmax of 2^log2n
float32 over every axis and over the last axis of a matrix, and sum over
its leading axis (the columns), each library's own function; on the host
backend the same at 2^24 against NumPy, without targets.

Targets: issue 10's (>= 90% of the copy bandwidth; sum(a, axis=0) <= 1.1x
PyTorch).  The device-time block's a.sum() rows (sum-float32, sum-float64)
are elementwise.py's, beside a + b on the same inputs.
"""

import numpy as np

from runner import backend_row, random_array

import devarray  # after runner, which puts the in-place build on sys.path


# PyTorch spells the array API's max and min amax and amin (its max and min
# with a dim return values and indices).
TORCH_NAMES = {"max": "amax", "min": "amin"}


def reduction(bench, name, axis=None):
    """{lib: the library's own reduction `name` over axis (None: every axis)},
    looked up at the call, so a library (devarray included) without it
    records an error in the row instead of stopping the run."""
    kw = {} if axis is None else {"axis": axis}
    tkw = {} if axis is None else {"dim": axis}
    return {"devarray": lambda a: getattr(devarray, name)(a, **kw),
            "cupy": lambda a: getattr(bench.cupy, name)(a, **kw),
            "torch": lambda a: getattr(bench.torch, TORCH_NAMES.get(name, name))(a, **tkw),
            "numpy": lambda a: getattr(np, name)(a, **kw)}


def reduction_rows(bench, rng, log2n):
    """Each reduction over every axis of 2^log2n elements and over the last
    axis of a matrix of as many, and sum over the matrix's leading axis."""
    n = 1 << log2n
    rows_, cols = 1 << (log2n // 2), 1 << (log2n - log2n // 2)
    size, shape = "2^%d" % log2n, "%d x %d" % (rows_, cols)
    bw = [["copy", 0.9, ">= 90% copy BW"]]
    rows = []

    a = random_array(rng, n, np.float32)
    m = a.reshape(rows_, cols)
    # Bytes: the float32 input read plus the result written (int64 for argmax).
    for name in ("sum", "prod", "max", "min", "mean", "argmax"):
        out = 8 if name == "argmax" else 4
        rows.append(bench.op_row(backend_row(
            bench, "red-%s-full" % name, "%s(a)" % name, size, "float32", 4 * n + out,
            True, bw), reduction(bench, name), [a]))
        rows.append(bench.op_row(backend_row(
            bench, "red-%s-last" % name, "%s(a, axis=-1)" % name, shape, "float32",
            4 * n + out * rows_, True, bw), reduction(bench, name, -1), [m]))
    rows.append(bench.op_row(backend_row(
        bench, "red-sum-axis0", "sum(a, axis=0)", shape, "float32", 4 * n + 4 * cols, True,
        [["peer", "torch", 1.1, "<= 1.1x PyTorch"]]), reduction(bench, "sum", 0), [m]))
    return rows
