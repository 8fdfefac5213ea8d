"""Reductions (issue 10): sum, prod, max, min, mean and argmax of 2^log2n
float32 over every axis and over the last axis of a matrix, and sum over
its leading axis (the columns), each library's own function; on the host
backend the same at 2^24 against NumPy, without targets.  Issue 31's
(bench/specs.py): the same over the leading axis, var, std,
argmin, count_nonzero, any and all (of bool) over every axis, the last and
the leading one, sum of int32 and float16, and each function's host
overhead at 1,024.

Targets: issue 10's (>= 90% of the copy bandwidth; sum(a, axis=0) <= 1.1x
PyTorch); issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).  The device-time block's a.sum() rows
(sum-float32, sum-float64) are elementwise.py's, beside a + b on the same
inputs.
"""

import numpy as np

from runner import backend_row
from specs import spec, spec_rows

import devarray  # after runner, which puts the in-place build on sys.path
from inputs import uniform


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

    a = uniform("A", n)
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
    del a, m
    return rows + spec_rows(bench, log2n, SPECS, "reductions")


# ---- issue 31: every reduction and statistic over every axis, the last and
# the leading one (bench/specs.py) ------------------------------------------

AXES = {"full": ("a", "", ""), "last": ("m", ", axis=-1", ", dim=-1"),
        "axis0": ("m", ", axis=0", ", dim=0")}


def reductions(name, axes, torch=None, kw="", tkw="", inputs=None, large=True, small=None):
    """name over each of axes (AXES' keys, space-separated): key
    red-name-axis; torch.<torch or name>; kw and tkw extra arguments;
    inputs ("a", "m" by default) of each axis.  The first one has the
    overhead row."""
    specs = []
    for i, axis in enumerate(axes.split()):
        x, ax, dim = AXES[axis]
        x = inputs.split()[i] if inputs else x
        specs.append(spec(
            "red-%s-%s" % (name, axis), "%s(%s%s%s)" % (name, x, ax, kw),
            "xp.%s(%s%s%s)" % (name, x, ax, kw),
            torch="torch.%s(%s%s%s)" % (torch or name, x, dim, tkw), inputs=x, bw=True,
            large=large, small=i == 0 if small is None else small))
    return specs


SPECS = [
    # issue 10's reductions over the leading axis (their overhead rows below)
    *reductions("prod", "axis0", small=False), *reductions("max", "axis0", "amax", small=False),
    *reductions("min", "axis0", "amin", small=False), *reductions("mean", "axis0", small=False),
    *reductions("argmax", "axis0", small=False),
    *reductions("var", "full last axis0", tkw=", correction=0"),
    *reductions("std", "full last axis0", tkw=", correction=0"),
    *reductions("argmin", "full last axis0"),
    *reductions("count_nonzero", "full last axis0"),
    *reductions("any", "full last axis0", inputs="mask mm mm"),
    *reductions("all", "full last axis0", inputs="mask mm mm"),
    spec("red-sum-int32-full", "sum(a) (int64 result)", "xp.sum(a)", torch="torch.sum(a)",
         inputs="a:int32", bw=True, small=False),
    spec("red-sum-float16-last", "sum(a, axis=-1)", "xp.sum(m, axis=-1)",
         torch="torch.sum(m, dim=-1)", inputs="m:float16", bw=True, small=False),
    # the host overhead of issue 10's reductions (their large rows are above)
    *[r for name, torch in (("sum", "sum"), ("prod", "prod"), ("max", "amax"),
                            ("min", "amin"), ("mean", "mean"), ("argmax", "argmax"))
      for r in reductions(name, "last", torch, large=False, small=True)],
]
