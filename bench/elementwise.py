"""Elementwise ops on large device arrays, against the copy bandwidth and
each library's own: the device copy (the copy bandwidth itself), a + b and
a.sum() in float32 and float64, an unfused expression and a mixed-dtype add
(int32 + float32 -> float64), math functions and comparisons, devarray.fuse
(issue 13), and the results in their inputs' memory order (the layout rows,
issue 13); on the host backend, a + b and a.sum() against NumPy.

Targets: bench/README.md's table, from the issues that set them (a + b and
the functions >= 90% of the copy bandwidth and <= PyTorch, sum >= 0.97x
CuPy's speed), issue 13's for fuse and the layouts.  The a.sum() rows sit
here, beside a + b, because they time the same inputs in the same block of
the table.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

from runner import (GPU_LIBS, HOST_LIBS, ROOT, SMALL, fmt_bytes, library_functions, log,
                    new_row, one_line, random_array)

import devarray  # after runner, which puts the in-place build on sys.path
from inputs import uniform

LOG2_COPY = 28                 # float32 elements: the 1 GiB reference copy


def add(a, b):
    return a + b


def total(a):
    return a.sum()


def expression(a, b):
    return ((a + b) * a - b) / b


def copy_of(lib):
    return (lambda a: a.clone()) if lib == "torch" else (lambda a: a.copy())


def copy_rows(bench, rng, log2n):
    """The device copy: the copy bandwidth that % of copy BW refers to."""
    libs = GPU_LIBS
    x = uniform("A", 1 << min(log2n, LOG2_COPY))
    return [bench.op_row(new_row(
        "copy", "device copy: a.copy() (torch: clone)", fmt_bytes(x.nbytes),
        "float32", libs, 2 * x.nbytes), {lib: copy_of(lib) for lib in libs}, [x])]


def device_time_rows(bench, rng, log2n):
    """a + b and a.sum() in float32 and float64 at 2^log2n, the unfused
    expression and int32 + float32 -> float64."""
    n = 1 << log2n
    size = "2^%d" % log2n
    libs = GPU_LIBS
    rows = []
    for dtype in ("float32", "float64"):
        item = np.dtype(dtype).itemsize
        a, b = uniform("A", n, dtype), uniform("B", n, dtype)
        rows.append(bench.op_row(new_row(
            "add-" + dtype, "a + b", size, dtype, libs, 3 * item * n, True,
            [["copy", 0.9, ">= 90% copy BW"], ["peer", "torch", 1.0, "<= PyTorch"]]),
            add, [a, b]))
        rows.append(bench.op_row(new_row(
            "sum-" + dtype, "a.sum()", size, dtype, libs, item * n, True,
            [["peer", "cupy", 1 / 0.97, ">= 0.97x CuPy speed"]]), total, [a]))
        if dtype == "float32":
            rows.append(bench.op_row(new_row(
                "expr-float32", "((a + b) * a - b) / b", size, dtype, libs,
                4 * 3 * item * n, True, [["peer", "torch", 1.0, "<= PyTorch"]]),
                expression, [a, b]))
            i = uniform("C", n, np.int32)
            # PyTorch promotes int32 + float32 to float32, not float64: no peer.
            rows.append(bench.op_row(new_row(
                "mixed", "a + b", size, "int32 + float32 -> float64", ("devarray", "cupy"),
                (4 + 4 + 8) * n, True,
                [["row", "add-float64", 1.5, "<= 1.5x float64 a + b"]]), add, [i, a]))
            del i
        del a, b
    return rows


def less(a, b):
    return a < b


def function_rows(bench, rng, log2n):
    """Elementwise functions beyond + at 2^log2n float32: math functions, a
    predicate and a comparison (a result dtype other than the operands'),
    each against the copy bandwidth and each library's own function."""
    n = 1 << log2n
    size = "2^%d" % log2n
    target = [["copy", 0.9, ">= 90% copy BW"], ["peer", "torch", 1.0, "<= PyTorch"],
              ["peer", "cupy", 1.0, "<= CuPy"]]
    a, b = uniform("A", n), uniform("B", n)
    rows = []
    # bytes per element: the float32 read plus the result written
    for name, dtype, nbytes in (("exp", "float32", 8), ("sqrt", "float32", 8),
                                ("abs", "float32", 8), ("isnan", "float32 -> bool", 5)):
        rows.append(bench.op_row(new_row(
            name + "-float32", name + "(a)", size, dtype, GPU_LIBS, nbytes * n, True, target),
            library_functions(bench, name), [a]))
    rows.append(bench.op_row(new_row(
        "less-float32", "a < b", size, "float32 -> bool", GPU_LIBS, 9 * n, True, target),
        less, [a, b]))
    return rows


# ---- fusion (fuse): devarray.fuse against PyTorch eager, cupy.fuse and the
# unfused chain.

def sum_of_squares(a, b):
    return ((a - b) ** 2).sum()


def fused_functions(bench, fn):
    """{lib: fn fused by the library}: devarray.fuse, cupy.fuse, and PyTorch
    eager (no fusion without a compiler)."""
    fused = {"devarray": devarray.fuse(fn), "torch": fn}
    if bench.cupy is not None:
        fused["cupy"] = bench.cupy.fuse(fn)
    return fused


def fusion_rows(bench, rng, log2n):
    """Issue 13's rows: a fused expression and a fused reduction at 2^log2n
    float32, the first call's latency and the per-call overhead at 1k."""
    libs = GPU_LIBS
    n = 1 << log2n
    size = "2^%d" % log2n
    a, b = uniform("A", n), uniform("B", n)
    rows = [bench.op_row(new_row(
        "fuse-expr-float32", "fuse: ((a + b) * a - b) / b", size, "float32", libs,
        3 * 4 * n, True,
        [["peer", "torch", 0.3, "<= 0.3x PyTorch eager"],
         ["peer", "cupy", 0.6, "<= 0.6x cupy.fuse"],
         ["row", "expr-float32", 0.5, "<= 0.5x devarray unfused"]]),
        fused_functions(bench, expression), [a, b])]
    # bytes: the two operands read once (the copy row reads and writes)
    rows.append(bench.op_row(new_row(
        "fuse-sumsq-float32", "fuse: ((a - b) ** 2).sum()", size, "float32", libs,
        2 * 4 * n, True, [["copy", 0.9, ">= 90% copy BW (read)"]]),
        fused_functions(bench, sum_of_squares), [a, b]))
    del a, b
    x = random_array(rng, SMALL, np.float32)
    small = "{:,}".format(SMALL)
    rows.append(first_compile_row())
    rows.append(bench.small_row(new_row(
        "fuse-first-call", "fuse: first call (trace + launch) of ((a + b) * a - b) / b, "
        "its kernel compiled earlier in the process",
        small, "float32", ("devarray",), target=[["under", 1e-3, "< 1 ms"]]),
        {"devarray": lambda v: devarray.fuse(expression)(v, v)}, x))
    fused = devarray.fuse(expression)
    rows.append(bench.small_row(new_row(
        "fuse-small", "host overhead: fused ((a + b) * a - b) / b", small, "float32",
        ("devarray",), target=[["row", "small-add", 1.2, "<= 1.2x devarray's a + a"]]),
        {"devarray": lambda v: fused(v, v)}, x))
    return rows


FIRST_COMPILE = """
import time
import devarray, numpy
x = devarray.asarray(numpy.ones(1000, numpy.float32))
devarray.synchronize()
start = time.perf_counter()
r = devarray.fuse(lambda a, b: ((a + b) * a - b) / b)(x, x)
devarray.synchronize()
print(time.perf_counter() - start)
"""


def first_compile_row(tries=3):
    """The first call of a new fused function in a fresh process with an
    empty kernel cache: trace, NVRTC loaded, compile, load, launch (best of
    `tries` processes)."""
    log("measuring the first compile of a fused function")
    row = new_row("fuse-first-compile", "fuse: first call in a new process, empty kernel "
                  "cache (NVRTC load + compile + launch)", "1,000", "float32", ("devarray",),
                  target=[["under", 0.2, "< 200 ms"]])
    best = None
    for _ in range(tries):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, DEVARRAY_CACHE_DIR=cache,
                       PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
            try:
                out = subprocess.run([sys.executable, "-c", FIRST_COMPILE], env=env,
                                     capture_output=True, text=True, timeout=120, check=True)
                seconds = float(out.stdout.split()[-1])
            except Exception as exc:
                row["errors"]["devarray"] = one_line(exc)
                return row
        best = seconds if best is None else min(best, seconds)
    row["times"]["devarray"] = best
    return row


# ---- layouts (issue 13): results in the inputs' memory order, tiled transposes ----

def layout_rows(bench, rng, log2n):
    """a.T + a.T (a K-order result: a contiguous problem), a + a.T and
    a.T.copy() (the tiled transposing route) on a square float32 matrix of
    2^log2n elements, against the copy bandwidth and each library's own."""
    side = 1 << (log2n // 2)
    n = side * side
    shape = "%d x %d" % (side, side)
    m = uniform("A", n).reshape(side, side)
    libs = GPU_LIBS
    transposed_copy = {"devarray": lambda a: a.T.copy(), "cupy": lambda a: a.T.copy(),
                       "torch": lambda a: a.T.contiguous()}
    return [
        bench.op_row(new_row(
            "layout-TT", "a.T + a.T", shape, "float32", libs, 3 * 4 * n, True,
            [["peer", "torch", 1.05, "<= 1.05x PyTorch"]]), lambda a: a.T + a.T, [m]),
        bench.op_row(new_row(
            "layout-aT", "a + a.T", shape, "float32", libs, 3 * 4 * n, True,
            [["copy", 0.8, ">= 80% copy BW"]]), lambda a: a + a.T, [m]),
        bench.op_row(new_row(
            "layout-Tcopy", "a.T.copy() (torch: a.T.contiguous())", shape, "float32", libs,
            2 * 4 * n, True, [["copy", 0.8, ">= 80% copy BW"]]), transposed_copy, [m]),
    ]


def host_rows(bench, rng, log2n):
    """The host backend's a + b and a.sum() at 2^log2n float32 against NumPy."""
    n = 1 << log2n
    a, b = uniform("A", n), uniform("B", n)
    size = "2^%d" % log2n
    target = [["peer", "numpy", 2.0, "<= 2x NumPy"]]
    return [
        bench.op_row(new_row("host-add", "host backend: a + b", size, "float32",
                             HOST_LIBS, 12 * n, target=target),
                     add, [a, b]),
        bench.op_row(new_row("host-sum", "host backend: a.sum()", size, "float32",
                             HOST_LIBS, 4 * n, target=target),
                     total, [a]),
    ]
