#!/usr/bin/env python3
"""devarray's benchmarks: devarray next to CuPy and PyTorch on one GPU, in one
process, or (with --host, or where there is no GPU) devarray's host backend
next to NumPy.

Prints one markdown table and a "targets met: X/Y" line, writes the results
as JSON, and on a GPU regenerates docs/benchmarks.md.  A row that fails
records its error and the run goes on; the exit status is 0 whenever the
run completed, targets met or not.  bench/README.md says how each row is
measured.

    python3 bench/run.py                  # GPU: all rows, writes the docs page
    python3 bench/run.py --host           # host backend against NumPy
    python3 bench/run.py --from-json bench.json --write-docs
"""

import argparse
import datetime
import gc
import importlib
import importlib.util
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
# Benchmark this checkout's in-place build when there is one, else whatever
# devarray is installed.
IN_PLACE = any(p.suffix in (".so", ".pyd") for p in (ROOT / "devarray").glob("_core*"))
if IN_PLACE:
    sys.path.insert(0, str(ROOT))

import devarray  # noqa: E402

LOG2_COPY = 28                 # float32 elements: the 1 GiB reference copy
SMALL = 1024                   # elements in the host-overhead rows
TRANSFER_BYTES = 256 << 20
HOST_ELEMENTS = 1 << 24        # host backend rows
MATMUL_N = 4096                # a @ b of two MATMUL_N x MATMUL_N matrices
HOST_MATMUL_N = 512            # the same on the host backend
DEVICE_REPS = 30               # median of, for one large op
WARMUP = 3
SMALL_OPS = 4000               # back-to-back small ops in one batch
SMALL_BATCHES = 5              # median of
TRANSFER_REPS = 10             # median of
HOST_REPS = 20                 # median of
IMPORT_TRIES = 5               # best of
VIEW_PAIRS = 1_000_000         # GetView + ReleaseView pairs in one batch, DeviceArray
FOREIGN_VIEW_PAIRS = 20_000    # the same, of a foreign array
# Inputs smaller than this could stay in the GPU's L2 (50 MB on an H100) or a
# CPU's last-level cache between repetitions, so two input sets alternate.
ROTATE_BELOW = 256 << 20

GPU_LIBS = ("devarray", "cupy", "torch")
HOST_LIBS = ("devarray", "numpy")
LIB_TITLES = {"devarray": "devarray", "cupy": "CuPy", "torch": "PyTorch",
              "numpy": "NumPy", "c": "C loop"}
IMPORT_CODE = ("import sys, time\n"
               "t = time.perf_counter_ns()\n"
               "import {0}\n"
               "t = time.perf_counter_ns() - t\n"
               "print(t, 'numpy' in sys.modules)\n")


def log(text):
    print(text, file=sys.stderr, flush=True)


def random_array(rng, n, dtype):
    """Random values in [0.5, 1.5) (never zero: rows divide), or 1..1023."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 1 << 10, n, dtype=dtype)
    x = rng.random(n, dtype=dtype)
    x += 0.5
    return x


def median_s(samples_ns):
    return statistics.median(samples_ns) / 1e9


def per_op_time(fn, sync):
    """Seconds per call of fn over SMALL_OPS back-to-back calls and one sync:
    the host overhead of an op whose device work is negligible."""
    for _ in range(SMALL_OPS // 10):
        fn()
    sync()
    samples = []
    for _ in range(SMALL_BATCHES):
        start = time.perf_counter_ns()
        for _ in range(SMALL_OPS):
            fn()
        sync()
        samples.append((time.perf_counter_ns() - start) / SMALL_OPS)
    return median_s(samples)


def wall_time(call, sync, reps, warmup=WARMUP):
    """Median seconds of call(i) followed by sync(); results are freed
    outside the timed region."""
    for i in range(warmup):
        call(i)
    sync()
    samples = []
    for i in range(reps):
        start = time.perf_counter_ns()
        result = call(i)
        sync()
        samples.append(time.perf_counter_ns() - start)
        del result
    return median_s(samples)


class EventTimer:
    """Device time of ops on the legacy default stream, through one library's
    CUDA events (the same events for every library measured)."""

    def __init__(self, name, make, record, elapsed_ms, sync):
        self.name = name
        self.make = make
        self.record = record
        self.elapsed_ms = elapsed_ms
        self.sync = sync

    def __call__(self, call, reps):
        for i in range(WARMUP):
            call(i)
        self.sync()
        events = [self.make() for _ in range(reps + 1)]
        # One op is queued ahead of the first event so the GPU is busy when
        # it is reached: no interval then holds host launch latency.
        keep = call(0)
        self.record(events[0])
        for i in range(reps):
            keep = call(i + 1)
            self.record(events[i + 1])
        events[-1].synchronize()
        del keep
        return statistics.median(self.elapsed_ms(events[i], events[i + 1])
                                 for i in range(reps)) / 1e3


class Bench:
    """The libraries in use: how to put a NumPy array on each, how to wait for
    each, how to time device work, and how to give memory back."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.cupy = self.torch = None
        self.notes = []
        self.upload = {"devarray": devarray.to_device}
        self.sync = {"devarray": devarray.synchronize}
        self.timer = None
        self.timer_name = "wall clock around each op and a synchronize"
        if not gpu:
            self.upload["numpy"] = lambda x: x
            self.sync["numpy"] = lambda: None
            return
        # The matmul rows compare full FP32 (devarray's default; set_tf32
        # comes with matmul, so an older devarray lacks it).
        set_tf32 = getattr(devarray, "set_tf32", None)
        if set_tf32 is not None and set_tf32(False):
            self.notes.append("devarray's TF32 was on (DEVARRAY_ALLOW_TF32?): turned off")
        self._load_cupy()
        self._load_torch()
        if self.timer is None:
            self.notes.append("no CUDA events (neither CuPy nor PyTorch is usable): "
                              "device times are wall times with a synchronize")

    def _load_cupy(self):
        # CuPy multiplies float32 matrices in TF32 only when CUPY_TF32 is
        # set (read at its first matmul): the matmul rows compare full FP32.
        if os.environ.get("CUPY_TF32", "0") != "0":
            self.notes.append("CUPY_TF32=%s ignored: CuPy's matmul runs without TF32"
                              % os.environ["CUPY_TF32"])
            os.environ["CUPY_TF32"] = "0"
        try:
            import cupy
            cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            self.notes.append("CuPy not used: %s" % one_line(exc))
            return
        self.cupy = cupy
        self.upload["cupy"] = cupy.asarray
        self.sync["cupy"] = cupy.cuda.runtime.deviceSynchronize
        if cupy.cuda.get_current_stream().ptr != 0:
            self.notes.append("CuPy's current stream is not the legacy default "
                              "stream; its events are not used")
            return
        null = cupy.cuda.Stream.null
        self.timer = EventTimer("CUDA events (CuPy's, on the legacy default stream)",
                                cupy.cuda.Event, lambda e: e.record(null),
                                cupy.cuda.get_elapsed_time,
                                cupy.cuda.runtime.deviceSynchronize)

    def _load_torch(self):
        try:
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("torch.cuda.is_available() is False")
            torch.cuda.init()
        except Exception as exc:
            self.notes.append("PyTorch not used: %s" % one_line(exc))
            return
        self.torch = torch
        # PyTorch's default already, set in case a site config changed it.
        torch.backends.cuda.matmul.allow_tf32 = False
        self.upload["torch"] = lambda x: torch.from_numpy(x).to("cuda")
        self.sync["torch"] = torch.cuda.synchronize
        if torch.cuda.current_stream().cuda_stream != 0:
            self.notes.append("PyTorch's current stream is not the legacy default "
                              "stream: its ops may overlap devarray's")
        elif self.timer is None:
            self.timer = EventTimer("CUDA events (PyTorch's, on the legacy default stream)",
                                    lambda: torch.cuda.Event(enable_timing=True),
                                    lambda e: e.record(), lambda a, b: a.elapsed_time(b),
                                    torch.cuda.synchronize)

    def release(self):
        gc.collect()
        if self.cupy is not None:
            self.cupy.get_default_memory_pool().free_all_blocks()
            self.cupy.get_default_pinned_memory_pool().free_all_blocks()
        if self.torch is not None:
            self.torch.cuda.empty_cache()

    def measure(self, row, lib, thunk):
        """row's time for lib from thunk(), or its error; a library that is
        not in use keeps None.  Memory is given back either way."""
        if lib not in self.upload:
            return
        try:
            row["times"][lib] = thunk()
        except Exception as exc:
            row["errors"][lib] = one_line(exc)
            log("  %s: %s failed: %s" % (row["op"], lib, row["errors"][lib]))
        finally:
            self.release()

    def time_op(self, lib, fn, inputs):
        """Median time of fn(*arrays) on lib's copies of the NumPy inputs."""
        upload = self.upload[lib]
        sets = [[upload(x) for x in inputs]]
        if sum(x.nbytes for x in inputs) < ROTATE_BELOW:
            sets.append([upload(x.copy()) for x in inputs])
        sync = self.sync[lib]
        sync()

        def call(i):
            return fn(*sets[i % len(sets)])

        if self.timer is None:
            return wall_time(call, sync, HOST_REPS if not self.gpu else DEVICE_REPS)
        return self.timer(call, DEVICE_REPS)

    def op_row(self, row, fn, inputs):
        """Fill row with the time of fn (one callable, or one per library)."""
        log("measuring %s (%s)" % (row["op"], row["dtype"]))
        for lib in row["times"]:
            f = fn[lib] if isinstance(fn, dict) else fn
            self.measure(row, lib, lambda: self.time_op(lib, f, inputs))
        return row

    def small_row(self, row, fn, x, upload=True):
        """Fill row with the host overhead per call of fn[lib](a), where a is
        lib's copy of x (or x itself when upload is false)."""
        log("measuring %s" % row["op"])

        def thunk(lib):
            a = self.upload[lib](x) if upload else x
            return per_op_time(lambda: fn[lib](a), self.sync[lib])

        for lib in row["times"]:
            self.measure(row, lib, lambda: thunk(lib))
        return row

    def transfer_row(self, row, fn, x, upload=True):
        """Fill row with the wall time of the synchronous transfer fn[lib](a)."""
        log("measuring %s" % row["op"])

        def thunk(lib):
            a = self.upload[lib](x) if upload else x
            return wall_time(lambda i: fn[lib](a), self.sync[lib], TRANSFER_REPS, 1)

        for lib in row["times"]:
            self.measure(row, lib, lambda: thunk(lib))
        return row


def one_line(exc):
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0] if text else "")


def new_row(key, op, size, dtype, libs, nbytes=None, vs_copy=False, target=()):
    """A table row.  target holds clauses, each a list whose last item is its
    text: ["peer", lib, f, text] devarray's time <= f * lib's time;
    ["copy", f, text] devarray's GB/s >= f * the copy row's best GB/s;
    ["under", s, text] devarray's time < s seconds; ["row", key, f, text]
    devarray's time <= f * devarray's time in row key; ["best", f, text]
    devarray's time <= f * the fastest other library's time; ["check", name,
    text] row["checks"][name] is true."""
    return {"key": key, "op": op, "size": size, "dtype": dtype,
            "times": {lib: None for lib in libs}, "errors": {}, "checks": {},
            "bytes": nbytes, "vs_copy": vs_copy, "target": [list(c) for c in target]}


def add(a, b):
    return a + b


def total(a):
    return a.sum()


def expression(a, b):
    return ((a + b) * a - b) / b


def copy_of(lib):
    return (lambda a: a.clone()) if lib == "torch" else (lambda a: a.copy())


_probe = None


def capi_probe():
    """tests/capi_probe.c, built with the system C compiler as
    tests/test_capi.py builds it, and imported (once): its time_views(obj, n)
    times n DevArray_GetView + DevArray_ReleaseView pairs in C."""
    global _probe
    if _probe is None:
        cc = shutil.which(os.environ.get("CC", "cc"))
        if cc is None:
            raise RuntimeError("no C compiler to build tests/capi_probe.c")
        directory = tempfile.mkdtemp(prefix="devarray-bench-")
        target = os.path.join(directory, "capi_probe" + sysconfig.get_config_var("EXT_SUFFIX"))
        proc = subprocess.run(
            [cc, "-shared", "-fPIC", "-O2", "-std=c11", "-I", sysconfig.get_paths()["include"],
             "-I", devarray.get_include(), str(ROOT / "tests" / "capi_probe.c"), "-o", target],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("building tests/capi_probe.c failed: " + proc.stderr.strip())
        spec = importlib.util.spec_from_file_location("capi_probe", target)
        _probe = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_probe)
    return _probe


def view_time(obj, pairs):
    """Seconds per DevArray_GetView + DevArray_ReleaseView of obj, timed in
    C over `pairs` pairs; median of SMALL_BATCHES batches."""
    probe = capi_probe()
    probe.time_views(obj, max(pairs // 10, 1))
    return statistics.median(probe.time_views(obj, pairs) for _ in range(SMALL_BATCHES)) / 1e9


def example_module(name):
    """An installed module of examples/, or a RuntimeError saying how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise RuntimeError("examples/%s is not installed: pip install --no-build-isolation "
                           "examples/%s" % (name, name)) from None


def view_row(bench, x):
    """The C API's view of a DeviceArray: what every extension call pays per argument."""
    log("measuring DevArray_GetView of a DeviceArray")
    row = new_row("view-devarray", "C API: DevArray_GetView + ReleaseView of a DeviceArray",
                  "{:,}".format(x.size), str(x.dtype), ("devarray",),
                  target=[["under", 100e-9, "< 100 ns"]])
    bench.measure(row, "devarray", lambda: view_time(devarray.to_device(x), VIEW_PAIRS))
    return row


def exchange_rows(bench, x):
    """What the C API costs an extension: a view of a DeviceArray, of a CuPy
    array, and examples/vecadd's scale() next to devarray's own a * 2.0."""
    small = "{:,}".format(x.size)
    rows = [view_row(bench, x)]

    if bench.cupy is not None:  # else the notes say why CuPy is not used
        log("measuring DevArray_GetView of a CuPy array")
        row = new_row("view-cupy", "C API: DevArray_GetView + ReleaseView of a CuPy array "
                      "(cupy.asarray(cupy array))", small, "float32", ("devarray", "cupy"),
                      target=[["peer", "cupy", 1.0, "<= cupy.asarray"]])

        def asarray_time():
            c = bench.cupy.asarray(x)
            return per_op_time(lambda: bench.cupy.asarray(c), bench.sync["cupy"])

        bench.measure(row, "devarray",
                      lambda: view_time(bench.cupy.asarray(x), FOREIGN_VIEW_PAIRS))
        bench.measure(row, "cupy", asarray_time)
        rows.append(row)

    libs = GPU_LIBS
    rows.append(bench.small_row(new_row(
        "small-scale", "host overhead: a * 2.0", small, "float32", libs),
        {lib: lambda a: a * 2.0 for lib in libs}, x))
    log("measuring vecadd.scale")
    row = new_row("ext-scale", "extension overhead: vecadd.scale(a, 2.0) (examples/vecadd)",
                  small, "float32", ("devarray",),
                  target=[["row", "small-scale", 1.2, "<= 1.2x devarray's a * 2.0"]])

    def scale_time():
        scale = example_module("vecadd").scale
        a = devarray.to_device(x)
        return per_op_time(lambda: scale(a, 2.0), devarray.synchronize)

    bench.measure(row, "devarray", scale_time)
    rows.append(row)
    return rows


def library_functions(bench, name):
    """{lib: the library's own elementwise function `name`}, looked up at the
    call, so a library without it records an error in the row."""
    return {"devarray": lambda a: getattr(devarray, name)(a),
            "cupy": lambda a: getattr(bench.cupy, name)(a),
            "torch": lambda a: getattr(bench.torch, name)(a)}


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
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
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


def fusion_rows(bench, rng, log2n, libs):
    """Issue 13's rows: a fused expression and a fused reduction at 2^log2n
    float32, the first call's latency and the per-call overhead at 1k."""
    n = 1 << log2n
    size = "2^%d" % log2n
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
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


def take(bench):
    return {"devarray": lambda x, i: devarray.take(x, i),
            "cupy": lambda x, i: bench.cupy.take(x, i),
            "torch": lambda x, i: bench.torch.take(x, i),
            "numpy": lambda x, i: np.take(x, i)}


def matmul(a, b):
    return a @ b


def part2_rows(bench, rng, log2n, matmul_n, libs, targets=True):
    """Issue 10's rows: reductions, sort, boolean-mask selection, matmul and
    take.  Sizes follow log2n (28 on a GPU: 2^28 float32, a 16384 x 16384
    matrix, sorts and takes of 2^26); targets=False (the host run) leaves
    them without targets, which the issue sets for the GPU only."""
    def row(key, op, size, dtype, nbytes=None, vs_copy=False, target=()):
        return new_row(key, op, size, dtype, libs, nbytes, vs_copy,
                       target if targets else ())

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
        rows.append(bench.op_row(row(
            "red-%s-full" % name, "%s(a)" % name, size, "float32", 4 * n + out, True, bw),
            reduction(bench, name), [a]))
        rows.append(bench.op_row(row(
            "red-%s-last" % name, "%s(a, axis=-1)" % name, shape, "float32",
            4 * n + out * rows_, True, bw), reduction(bench, name, -1), [m]))
    rows.append(bench.op_row(row(
        "red-sum-axis0", "sum(a, axis=0)", shape, "float32", 4 * n + 4 * cols, True,
        [["peer", "torch", 1.1, "<= 1.1x PyTorch"]]), reduction(bench, "sum", 0), [m]))

    # Half the elements are above the median: the result holds 2^(log2n-1).
    t = float(np.median(a))
    rows.append(bench.op_row(row(
        "mask", "d[d > t] (t the median)", size, "float32", 4 * n + 2 * n, True,
        [["best", 1.1, "<= 1.1x the better of CuPy and PyTorch"]]),
        lambda d: d[d > t], [a]))
    del a, m

    k = n >> 2
    a = random_array(rng, k, np.float32)
    rows.append(bench.op_row(row(
        "sort", "sort(a)", "2^%d" % (log2n - 2), "float32",
        target=[["peer", "cupy", 1.1, "<= 1.1x CuPy"]]), sorting(bench, "sort"), [a]))
    rows.append(bench.op_row(row(
        "argsort", "argsort(a) (stable)", "2^%d" % (log2n - 2), "float32"),
        sorting(bench, "argsort"), [a]))
    # Bytes: the int64 indices and the float32 gathered read, the result written.
    i = rng.integers(0, k, k, dtype=np.int64)
    rows.append(bench.op_row(row(
        "take", "take(x, indices) (random int64 indices)", "2^%d" % (log2n - 2),
        "float32", 16 * k), take(bench), [a, i]))
    del a, i

    for dtype in ("float32", "float64"):
        a = random_array(rng, matmul_n * matmul_n, dtype).reshape(matmul_n, matmul_n)
        b = random_array(rng, matmul_n * matmul_n, dtype).reshape(matmul_n, matmul_n)
        target = [["peer", "torch", 1.05, "<= 1.05x PyTorch"]] if dtype == "float32" else ()
        rows.append(bench.op_row(row(
            "matmul-" + dtype, "a @ b (no TF32)", "%d x %d" % (matmul_n, matmul_n), dtype,
            target=target), matmul, [a, b]))
        del a, b
    return rows


def readback_floor(bench):
    """What a 0-d read-back cannot beat: one kernel, then cudaMemcpy of 4
    bytes into host memory, through CuPy's thin runtime binding."""
    if bench.cupy is None:
        return lambda a: None
    host = np.zeros(1, np.float32)
    runtime = bench.cupy.cuda.runtime

    def floor(a):
        b = a + a
        runtime.memcpy(host.ctypes.data, b.data.ptr, 4, runtime.memcpyDeviceToHost)

    return floor


# ---- layouts (issue 13): results in the inputs' memory order, tiled transposes ----

def layout_rows(bench, rng, log2n, libs):
    """a.T + a.T (a K-order result: a contiguous problem), a + a.T and
    a.T.copy() (the tiled transposing route) on a square float32 matrix of
    2^log2n elements, against the copy bandwidth and each library's own."""
    side = 1 << (log2n // 2)
    n = side * side
    shape = "%d x %d" % (side, side)
    m = random_array(rng, n, np.float32).reshape(side, side)
    transposed_copy = {"devarray": lambda a: a.T.copy(), "cupy": lambda a: a.T.copy(),
                       "torch": lambda a: a.T.contiguous()}
    rows = [
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
    del m
    return rows


def numba_device_array(x):
    """x on the device as a numba.cuda array (the foreign producer of the
    import row), or None when Numba is missing: the row then records errors."""
    try:
        from numba import cuda
        return cuda.to_device(x)
    except Exception as exc:
        log("numba.cuda not usable: %s" % one_line(exc))
        return None


def gpu_rows(bench, log2n):
    rng = np.random.default_rng(20240501)
    n = 1 << log2n
    size = "2^%d" % log2n
    libs = GPU_LIBS
    rows = []

    x = random_array(rng, 1 << min(log2n, LOG2_COPY), np.float32)
    rows.append(bench.op_row(new_row(
        "copy", "device copy: a.copy() (torch: clone)", fmt_bytes(x.nbytes),
        "float32", libs, 2 * x.nbytes), {lib: copy_of(lib) for lib in libs}, [x]))
    del x

    x = random_array(rng, SMALL, np.float32)
    small = "{:,}".format(SMALL)
    rows.append(bench.small_row(new_row(
        "small-add", "host overhead: a + a", small, "float32", libs,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"],
                ["peer", "cupy", 0.6, "<= 0.6x CuPy"]]),
        {lib: lambda a: a + a for lib in libs}, x))
    rows.append(bench.small_row(new_row(
        "small-exp", "host overhead: exp(a)", small, "float32", libs,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]]),
        library_functions(bench, "exp"), x))
    rows.append(bench.small_row(new_row(
        "small-sum", "host overhead: a.sum()", small, "float32", libs,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]]),
        {lib: lambda a: a.sum() for lib in libs}, x))
    rows.append(bench.small_row(new_row(
        "small-item", "host overhead: float(a.sum()) (torch: .item())", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {"devarray": lambda a: float(a.sum()), "cupy": lambda a: float(a.sum()),
         "torch": lambda a: a.sum().item()}, x))
    rows.append(bench.small_row(new_row(
        "small-item-method", "host overhead: a.sum().item()", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {lib: lambda a: a.sum().item() for lib in libs}, x))
    rows.append(bench.small_row(new_row(
        "small-any", "host overhead: bool(a.any()) (torch: .any().item())", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {"devarray": lambda a: bool(devarray.any(a)), "cupy": lambda a: bool(a.any()),
         "torch": lambda a: a.any().item()}, x))
    rows.append(bench.small_row(new_row(
        "readback-floor", "the floor: a + a, then a 4-byte cudaMemcpy to the host "
        "(CuPy's runtime binding)", small, "float32", ("cupy",)),
        {"cupy": readback_floor(bench)}, x))
    rows.append(bench.small_row(new_row(
        "small-upload", "host overhead: to_device(numpy) (cupy.asarray, torch .to)",
        small, "float32", libs, target=[["peer", "cupy", 0.75, "<= 0.75x CuPy"]]),
        bench.upload, x, upload=False))
    rows.append(bench.small_row(new_row(
        "small-import", "zero-copy import of a numba.cuda array: asarray (cupy.asarray)",
        small, "float32", ("devarray", "cupy"), target=[["peer", "cupy", 1.0, "<= CuPy"]]),
        {"devarray": devarray.asarray, "cupy": lambda a: bench.cupy.asarray(a)},
        numba_device_array(x), upload=False))
    rows += exchange_rows(bench, x)
    del x

    for dtype in ("float32", "float64"):
        item = np.dtype(dtype).itemsize
        a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
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
            i = random_array(rng, n, np.int32)
            # PyTorch promotes int32 + float32 to float32, not float64: no peer.
            rows.append(bench.op_row(new_row(
                "mixed", "a + b", size, "int32 + float32 -> float64", ("devarray", "cupy"),
                (4 + 4 + 8) * n, True,
                [["row", "add-float64", 1.5, "<= 1.5x float64 a + b"]]), add, [i, a]))
            del i
        del a, b

    rows += function_rows(bench, rng, log2n)
    rows += fusion_rows(bench, rng, log2n, libs)
    rows += part2_rows(bench, rng, log2n, MATMUL_N, libs)
    rows += layout_rows(bench, rng, log2n, libs)

    x = random_array(rng, TRANSFER_BYTES // 4, np.float32)
    mib = fmt_bytes(TRANSFER_BYTES)
    rows.append(h2d_row(bench, x, libs))
    rows.append(bench.transfer_row(new_row(
        "d2h", "device->host, new array: to_host() (cupy .get, torch .cpu)", mib,
        "float32", libs, x.nbytes, target=[["peer", "cupy", 1 / 1.5, ">= 1.5x CuPy GB/s"]]),
        {"devarray": lambda a: a.to_host(), "cupy": lambda a: a.get(),
         "torch": lambda a: a.cpu()}, x))
    buf = x.copy()  # pageable and already touched: no page faults in the copies
    rows.append(bench.transfer_row(new_row(
        "d2h-out", "device->host into a pageable buffer: to_host(out=buf)", mib,
        "float32", libs, x.nbytes, target=[["peer", "cupy", 1.0, ">= CuPy GB/s"]]),
        {"devarray": lambda a: a.to_host(out=buf), "cupy": lambda a: a.get(out=buf),
         "torch": lambda a: bench.torch.from_numpy(buf).copy_(a)}, x))
    del x, buf
    # streams and graphs (issue 12)
    rows += stream_rows(bench)
    # pinned memory and streams (issue 12)
    rows += pipeline_rows(bench)
    # several GPUs (issue 14)
    rows += multi_gpu_rows(bench)
    return rows


def h2d_row(bench, x, libs):
    """The pageable upload of x onto the current GPU (the multi-GPU rows'
    reference for GPU 1)."""
    return bench.transfer_row(new_row(
        "h2d", "host->device, pageable: to_device (cupy.asarray, torch .to)",
        fmt_bytes(x.nbytes), "float32", libs, x.nbytes,
        target=[["peer", "cupy", 1.0, ">= CuPy GB/s"]]), bench.upload, x, upload=False)


# ---- streams and graphs (issue 12): what a stream and a graph cost ----------

GRAPH_OPS = 20


def graph_chain(x, y):
    """GRAPH_OPS elementwise ops on small arrays: launch-bound."""
    for _ in range(GRAPH_OPS // 4):
        x = x * 1.25 + y
        x = devarray.sqrt(devarray.abs(x)) - 0.5
    return x


def stream_rows(bench):
    """The cost of `with s:`, of a + a on a non-default stream, and of 20
    small ops issued one by one against the same 20 replayed from a CUDA
    graph (devarray only: the rows measure devarray's own mechanisms)."""
    rng = np.random.default_rng(20240504)
    small = "{:,}".format(SMALL)
    x = devarray.asarray(random_array(rng, SMALL, np.float32))
    y = devarray.asarray(random_array(rng, SMALL, np.float32))
    s = devarray.Stream(non_blocking=True)
    lib = ("devarray",)

    def enter_exit():
        with s:
            pass

    switch = new_row("stream-switch", "entering and leaving a stream: with s: pass", "-",
                     "-", lib, target=[["under", 0.3e-6, "<= 0.3 us"]])
    log("measuring %s" % switch["op"])
    bench.measure(switch, "devarray", lambda: per_op_time(enter_exit, lambda: None))

    on_stream = new_row("small-add-stream", "host overhead: a + a inside with s:", small,
                        "float32", lib, target=[["row", "small-add", 1.1,
                                                 "<= 1.1x a + a on the default stream"]])

    def add_on_stream():
        with s:
            return per_op_time(lambda: x + x, s.synchronize)

    log("measuring %s" % on_stream["op"])
    bench.measure(on_stream, "devarray", add_on_stream)

    issued = new_row("ops-%d" % GRAPH_OPS, "%d small ops issued one by one" % GRAPH_OPS,
                     small, "float32", lib)
    replayed = new_row("graph-%d" % GRAPH_OPS,
                       "the same %d ops replayed from a CUDA graph: g.replay()" % GRAPH_OPS,
                       small, "float32", lib,
                       target=[["row", issued["key"], 0.3, "<= 0.3x issuing them"]])
    log("measuring %s" % issued["op"])
    bench.measure(issued, "devarray",
                  lambda: per_op_time(lambda: graph_chain(x, y), devarray.synchronize))
    captured = []

    def replay():
        with devarray.graph_capture(s) as g:
            captured.append(graph_chain(x, y))
        return per_op_time(g.replay, s.synchronize)

    log("measuring %s" % replayed["op"])
    bench.measure(replayed, "devarray", replay)
    captured.clear()
    del x, y
    bench.release()
    return [switch, on_stream, issued, replayed]


# ---- pinned memory and streams (issue 12): a copy/compute pipeline ----------

PIPELINE_CHUNKS = 8
PIPELINE_CHUNK = (64 << 20) // 4   # float32 elements: 64 MiB
PIPELINE_STREAMS = 4


def pipeline_rows(bench):
    """8 chunks of 64 MiB float32 from pinned memory: each uploaded
    (to_device of a pinned slice), doubled, and downloaded into pinned
    memory (to_host(out=, blocking=False)); (a) on one devarray.Stream, (b)
    round-robin over 4, where the copies of one chunk overlap the other
    chunks' copies and kernels.  A devarray without Stream or empty_pinned
    records the error in both rows."""
    size = "%d x %s" % (PIPELINE_CHUNKS, fmt_bytes(PIPELINE_CHUNK * 4))
    nbytes = 2 * PIPELINE_CHUNKS * PIPELINE_CHUNK * 4
    # CuPy beside, the same pipeline with its streams (ndarray.set and
    # get(blocking=False) from and into the same page-locked buffers): what
    # the copy engines allow, the same for both libraries
    libs = ("devarray", "cupy")
    one = new_row("pipeline-1", "pinned pipeline: to_device, x * 2, to_host(blocking=False), "
                  "one Stream", size, "float32", libs, nbytes)
    many = new_row("pipeline-4", "pinned pipeline: the same over %d Streams" % PIPELINE_STREAMS,
                   size, "float32", libs, nbytes,
                   target=[["row", "pipeline-1", 1 / 1.7, ">= 1.7x faster than one Stream"],
                           ["check", "correct", "both rows' results correct"]])
    buffers = []

    def pinned_pair():
        if not buffers:
            src = devarray.empty_pinned((PIPELINE_CHUNKS, PIPELINE_CHUNK), devarray.float32)
            dst = devarray.empty_pinned((PIPELINE_CHUNKS, PIPELINE_CHUNK), devarray.float32)
            np.random.default_rng(20240503).random(out=np.asarray(src), dtype=np.float32)
            buffers.extend([np.asarray(src), np.asarray(dst)])
        return buffers

    def thunk(nstreams):
        src, dst = pinned_pair()
        dst[...] = 0
        streams = [devarray.Stream() for _ in range(nstreams)]

        def run(i):
            for k in range(PIPELINE_CHUNKS):
                with streams[k % nstreams]:
                    d = devarray.to_device(src[k])
                    (d * 2).to_host(out=dst[k], blocking=False)
                    del d

        def sync():
            for stream in streams:
                stream.synchronize()

        seconds = wall_time(run, sync, TRANSFER_REPS, 1)
        correct.append(bool(np.array_equal(dst, src * 2)))
        return seconds

    def cupy_thunk(nstreams):
        cupy = bench.cupy
        src, dst = pinned_pair()
        streams = [cupy.cuda.Stream() for _ in range(nstreams)]

        def run(i):
            for k in range(PIPELINE_CHUNKS):
                stream = streams[k % nstreams]
                with stream:
                    d = cupy.empty(PIPELINE_CHUNK, cupy.float32)
                    d.set(src[k], stream=stream)
                    (d * 2).get(stream=stream, out=dst[k], blocking=False)
                    del d

        def sync():
            for stream in streams:
                stream.synchronize()

        return wall_time(run, sync, TRANSFER_REPS, 1)

    correct = []
    for row, nstreams in ((one, 1), (many, PIPELINE_STREAMS)):
        log("measuring %s" % row["op"])
        bench.measure(row, "devarray", lambda: thunk(nstreams))
        bench.measure(row, "cupy", lambda: cupy_thunk(nstreams))
    many["checks"]["correct"] = correct == [True, True]
    buffers.clear()
    bench.release()
    return [one, many]



# ---- several GPUs (issue 14): peer copy and NCCL on devarray memory ---------

PEER_COPY_BYTES = 1 << 30
ALLREDUCE_BYTES = 256 << 20


def gpus_seen():
    """(how many GPUs devarray sees, why fewer than 2 are enough to skip)."""
    count = getattr(devarray, "device_count", None)
    if count is None:
        return 0, "devarray has no device_count() (multi-device support is not built in)"
    n = count()
    return n, "devarray sees %d" % n


def sync_devices(devices):
    """devarray.synchronize() on each device."""
    for dev in devices:
        with devarray.Device(dev):
            devarray.synchronize()


def peer_copy_floor(nbytes):
    """Seconds per cudaMemcpyPeer of nbytes from GPU 0 to GPU 1 in a bare C
    loop: bench/peer_copy.cu, built here with nvcc."""
    nvcc = shutil.which("nvcc") or os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                "bin", "nvcc")
    if not os.path.exists(nvcc):
        raise RuntimeError("no nvcc to build bench/peer_copy.cu")
    exe = os.path.join(tempfile.mkdtemp(prefix="devarray-bench-"), "peer_copy")
    proc = subprocess.run([nvcc, "-O2", "-o", exe, str(ROOT / "bench" / "peer_copy.cu")],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("building bench/peer_copy.cu failed: " + proc.stderr.strip())
    proc = subprocess.run([exe, str(nbytes), str(TRANSFER_REPS)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip())
    return float(proc.stdout)


def measure_c(row, thunk):
    """The C column of row (no library to load: bench.measure does not know it)."""
    try:
        row["times"]["c"] = thunk()
    except Exception as exc:
        row["errors"]["c"] = one_line(exc)
        log("  %s: C failed: %s" % (row["op"], row["errors"]["c"]))


def multi_gpu_rows(bench):
    """GPU 0 -> GPU 1 peer copy of 1 GiB (devarray's to_device, PyTorch's
    .to, a bare C loop of cudaMemcpyPeer), a 256 MiB NCCL all_reduce over
    two GPUs through cupy.cuda.nccl on devarray memory and on PyTorch
    tensors, and a 256 MiB pageable upload onto GPU 1 (against the h2d row's
    onto GPU 0).  With fewer than 2 GPUs the rows are skipped, saying why."""
    copy = new_row("peer-copy", "peer copy GPU 0 -> GPU 1: x.to_device(1) (torch .to('cuda:1'); "
                   "C: cudaMemcpyPeer, bench/peer_copy.cu)", fmt_bytes(PEER_COPY_BYTES),
                   "float32", ("devarray", "torch", "c"), PEER_COPY_BYTES)
    reduce = new_row("allreduce", "NCCL all_reduce over 2 GPUs (cupy.cuda.nccl): devarray "
                     "memory vs torch tensors; GB/s is the size over the time",
                     fmt_bytes(ALLREDUCE_BYTES), "float32", ("devarray", "torch"),
                     ALLREDUCE_BYTES)
    upload = new_row("h2d-device1", "host->device, pageable, onto GPU 1: to_device(x, device=1) "
                     "(the h2d row is GPU 0)", fmt_bytes(TRANSFER_BYTES), "float32",
                     ("devarray",), TRANSFER_BYTES)
    count, seen = gpus_seen()
    if count < 2:
        for row in (copy, reduce, upload):
            row["errors"]["devarray"] = "skipped: needs 2 GPUs: " + seen
        log("skipping the multi-GPU rows: needs 2 GPUs: " + seen)
        return [copy, reduce, upload]
    copy["target"] = [["peer", "c", 1.05, "<= 1.05x a bare cudaMemcpyPeer loop"],
                      ["check", "correct", "the copy equals its source"]]
    reduce["target"] = [["peer", "torch", 1.02, "<= 1.02x on torch tensors"],
                        ["check", "correct", "the sum is right"]]
    upload["target"] = [["row", "h2d", 1.05, "within 5% of the upload onto GPU 0"],
                        ["check", "correct", "the copy equals its source"]]
    n = PEER_COPY_BYTES // 4

    def devarray_copy():
        with devarray.Device(0):
            x = devarray.arange(n, dtype=devarray.float32)
        y = x.to_device(1)
        sync_devices((0, 1))
        copy["checks"]["correct"] = bool(y.device == 1 and
                                         np.array_equal(y.to_host(), x.to_host()))
        del y
        return wall_time(lambda i: x.to_device(1), lambda: sync_devices((0, 1)),
                         TRANSFER_REPS, 1)

    def torch_copy():
        torch = bench.torch
        t = torch.ones(n, device="cuda:0")

        def sync():
            torch.cuda.synchronize(0)
            torch.cuda.synchronize(1)

        return wall_time(lambda i: t.to("cuda:1"), sync, TRANSFER_REPS, 1)

    log("measuring %s" % copy["op"])
    bench.measure(copy, "devarray", devarray_copy)
    bench.measure(copy, "torch", torch_copy)
    measure_c(copy, lambda: peer_copy_floor(PEER_COPY_BYTES))

    m = ALLREDUCE_BYTES // 4

    def allreduce_time(buffers, handles):
        """buffers: [(send, recv)] per GPU, as (pointer, keep-alive) pairs."""
        if bench.cupy is None:
            raise RuntimeError("needs CuPy (cupy.cuda.nccl)")
        from cupy.cuda import nccl

        comms = nccl.NcclCommunicator.initAll([0, 1])

        def call(i):
            nccl.groupStart()
            for comm, (send, recv), h in zip(comms, buffers, handles):
                comm.allReduce(send, recv, m, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, h)
            nccl.groupEnd()

        try:
            return wall_time(call, lambda: sync_devices((0, 1)), TRANSFER_REPS)
        finally:
            for comm in comms:
                comm.destroy()

    def devarray_allreduce():
        arrays, streams = [], []
        for dev in (0, 1):
            with devarray.Device(dev):
                s = devarray.Stream()
                with s:
                    arrays.append((devarray.ones((m,), dtype=devarray.float32),
                                   devarray.empty((m,), dtype=devarray.float32)))
                streams.append(s)
        seconds = allreduce_time([(a.ptr, b.ptr) for a, b in arrays],
                                 [s.handle for s in streams])
        for s in streams:
            s.synchronize()
        reduce["checks"]["correct"] = all(
            np.all(b[:1 << 20].to_host() == 2) and np.all(b[-(1 << 20):].to_host() == 2)
            for _, b in arrays)
        return seconds

    def torch_allreduce():
        torch = bench.torch
        tensors = [(torch.ones(m, device="cuda:%d" % d), torch.empty(m, device="cuda:%d" % d))
                   for d in (0, 1)]
        streams = [torch.cuda.Stream(device=d) for d in (0, 1)]
        for d in (0, 1):
            torch.cuda.synchronize(d)
        return allreduce_time([(a.data_ptr(), b.data_ptr()) for a, b in tensors],
                              [s.cuda_stream for s in streams])

    log("measuring %s" % reduce["op"])
    bench.measure(reduce, "devarray", devarray_allreduce)
    bench.measure(reduce, "torch", torch_allreduce)

    x = np.random.default_rng(5).random(TRANSFER_BYTES // 4, dtype=np.float32)

    def devarray_upload():
        d = devarray.to_device(x, device=1)
        upload["checks"]["correct"] = bool(d.device == 1 and
                                           d.to_host().tobytes() == x.tobytes())
        del d
        # the links' own speeds: one DMA from page-locked memory per device
        pinned = devarray.empty_pinned(x.shape, "float32")
        np.asarray(pinned)[...] = x
        upload["pinned_s"] = {
            dev: wall_time(lambda i: devarray.to_device(pinned, device=dev),
                           lambda: sync_devices((dev,)), TRANSFER_REPS, 1)
            for dev in (0, 1)}
        log("  pinned uploads (the links): GPU 0 %.3f ms, GPU 1 %.3f ms"
            % (1e3 * upload["pinned_s"][0], 1e3 * upload["pinned_s"][1]))
        return wall_time(lambda i: devarray.to_device(x, device=1), lambda: sync_devices((1,)),
                         TRANSFER_REPS, 1)

    log("measuring %s" % upload["op"])
    bench.measure(upload, "devarray", devarray_upload)
    return [copy, reduce, upload]

def host_rows(bench):
    rng = np.random.default_rng(20240502)
    a = random_array(rng, HOST_ELEMENTS, np.float32)
    b = random_array(rng, HOST_ELEMENTS, np.float32)
    size = "2^%d" % (HOST_ELEMENTS.bit_length() - 1)
    target = [["peer", "numpy", 2.0, "<= 2x NumPy"]]
    rows = [
        view_row(bench, random_array(rng, SMALL, np.float32)),
        bench.op_row(new_row("host-add", "host backend: a + b", size, "float32",
                             HOST_LIBS, 12 * HOST_ELEMENTS, target=target),
                     add, [a, b]),
        bench.op_row(new_row("host-sum", "host backend: a.sum()", size, "float32",
                             HOST_LIBS, 4 * HOST_ELEMENTS, target=target),
                     total, [a]),
    ]
    del a, b
    part2 = part2_rows(bench, rng, HOST_ELEMENTS.bit_length() - 1, HOST_MATMUL_N,
                       HOST_LIBS, targets=False)
    for r in part2:
        r["key"], r["op"] = "host-" + r["key"], "host backend: " + r["op"]
    return rows + part2


def import_time(module):
    """Best of IMPORT_TRIES fresh interpreters: (seconds, whether NumPy was
    imported with it), or (None, None) when module is not installed."""
    if importlib.util.find_spec(module) is None:
        return None, None
    env = dict(os.environ)
    if IN_PLACE:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    best = numpy_loaded = None
    for _ in range(IMPORT_TRIES):
        proc = subprocess.run([sys.executable, "-c", IMPORT_CODE.format(module)],
                              capture_output=True, text=True, env=env,
                              cwd=tempfile.gettempdir(), timeout=300)
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            raise RuntimeError(lines[-1] if lines else "exit status %d" % proc.returncode)
        ns, loaded = proc.stdout.strip().splitlines()[-1].split()
        if best is None or int(ns) < best:
            best = int(ns)
        numpy_loaded = loaded == "True"
    return best / 1e9, numpy_loaded


def import_row():
    log("measuring import times")
    row = new_row("import", "import time (fresh interpreter, best of %d)" % IMPORT_TRIES,
                  "", "", GPU_LIBS,
                  target=[["under", 0.030, "< 30 ms"], ["peer", "cupy", 0.1, "<= 0.1x CuPy"],
                          ["check", "numpy not imported", "NumPy not imported"]])
    for lib in GPU_LIBS:
        try:
            seconds, numpy_loaded = import_time(lib)
        except Exception as exc:
            row["errors"][lib] = one_line(exc)
            continue
        row["times"][lib] = seconds
        if lib == "devarray" and numpy_loaded is not None:
            row["checks"]["numpy not imported"] = not numpy_loaded
    return row


def clause_met(clause, row, rows_by_key, copy_gbps):
    """True, False, or None when a peer's (or the reference's) number is
    missing.  devarray failing to run is a miss."""
    kind = clause[0]
    if kind == "check":
        return row["checks"].get(clause[1])
    t = row["times"].get("devarray")
    if t is None:
        return False
    if kind == "peer":
        peer = row["times"].get(clause[1])
        return None if peer is None else t <= clause[2] * peer
    if kind == "copy":
        return None if copy_gbps is None else row["gbps"]["devarray"] >= clause[1] * copy_gbps
    if kind == "under":
        return t < clause[1]
    if kind == "row":
        other = rows_by_key.get(clause[1], {}).get("times", {}).get("devarray")
        return None if other is None else t <= clause[2] * other
    if kind == "best":
        peers = [v for lib, v in row["times"].items() if lib != "devarray" and v is not None]
        return None if not peers else t <= clause[1] * min(peers)
    raise ValueError("unknown target clause %r" % (clause,))


def judge(rows):
    """Add GB/s, % of copy bandwidth, the ratio to the best peer and the
    verdict to each row."""
    for row in rows:
        row["gbps"] = {lib: row["bytes"] / t / 1e9
                       for lib, t in row["times"].items()
                       if t is not None and row["bytes"]}
    copy = next((r for r in rows if r["key"] == "copy"), None)
    copy_gbps = max(copy["gbps"].values(), default=None) if copy else None
    rows_by_key = {r["key"]: r for r in rows}
    for row in rows:
        t = row["times"].get("devarray")
        peers = [v for lib, v in row["times"].items() if lib != "devarray" and v is not None]
        row["ratio"] = t / min(peers) if t is not None and peers else None
        dev_gbps = row["gbps"].get("devarray")
        row["pct_copy"] = (100 * dev_gbps / copy_gbps
                           if row["vs_copy"] and dev_gbps and copy_gbps else None)
        results = [clause_met(c, row, rows_by_key, copy_gbps) for c in row["target"]]
        row["results"] = results
        if not results:
            row["met"] = None
        elif False in results:
            row["met"] = "no"
        elif None in results:
            row["met"] = "n/a"
        else:
            row["met"] = "yes"
    return copy_gbps


def summary(rows):
    yes = sum(r["met"] == "yes" for r in rows)
    judged = sum(r["met"] in ("yes", "no") for r in rows)
    unknown = sum(r["met"] == "n/a" for r in rows)
    text = "targets met: %d/%d" % (yes, judged)
    if unknown:
        text += " (%d more n/a: a peer's number is missing)" % unknown
    return text


def fmt_time(seconds):
    if seconds < 1e-6:
        return "%.1f ns" % (seconds * 1e9)
    if seconds < 1e-3:
        return "%.2f us" % (seconds * 1e6)
    if seconds < 1:
        return "%.3f ms" % (seconds * 1e3)
    return "%.2f s" % seconds


def fmt_bytes(n):
    return "%g GiB" % (n / 2**30) if n >= 2**30 else "%g MiB" % (n / 2**20)


def table(rows):
    libs = [lib for lib in ("devarray", "cupy", "torch", "numpy", "c")
            if any(lib in r["times"] for r in rows)]
    head = (["operation", "size", "dtype"] + [LIB_TITLES[lib] for lib in libs]
            + ["devarray / best peer", "GB/s", "% of copy BW", "target", "met?"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    references = {"copy"} | {c[1] for r in rows for c in r["target"] if c[0] == "row"}
    for r in rows:
        cells = [r["op"], r["size"], r["dtype"]]
        for lib in libs:
            t = r["times"].get(lib)
            skipped = r["errors"].get(lib, "").startswith("skipped: ")
            cells.append("skipped" if skipped else "error" if lib in r["errors"]
                         else "—" if t is None else fmt_time(t))
        gbps = r["gbps"].get("devarray")
        cells += ["—" if r["ratio"] is None else "%.2fx" % r["ratio"],
                  "" if gbps is None else "%.1f" % gbps,
                  "" if r["pct_copy"] is None else "%.0f%%" % r["pct_copy"],
                  "; ".join(c[-1] for c in r["target"])
                  or ("reference" if r["key"] in references else "none"),
                  r["met"] or "—"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def version_text(v):
    """CUDA's 13000 as '13.0'."""
    return None if v is None else "%d.%d" % (v // 1000, v % 1000 // 10)


def driver_version():
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                               "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.strip().splitlines()
    return lines[0].strip() if proc.returncode == 0 and lines else None


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(bench):
    info = devarray._core._device_info() if bench.gpu else None
    return {
        "gpu": bench.gpu,
        "backend": "cuda" if bench.gpu else "host",
        "device": info,
        "driver": driver_version() if bench.gpu else None,
        "cuda_driver_api": version_text(info.get("driver_version")) if info else None,
        "cuda_runtime": version_text(info.get("runtime_version")) if info else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cupy": bench.cupy.__version__ if bench.cupy else None,
        "torch": bench.torch.__version__ if bench.torch else None,
        "devarray": devarray.__version__,
        "in_place_build": IN_PLACE,
        "cpu": cpu_name(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "timer": bench.timer.name if bench.timer else bench.timer_name,
        "notes": bench.notes,
        "gpus": gpus_seen()[0] if bench.gpu else 0,
    }


def describe(env):
    """Lines naming what the run ran on."""
    lines = []
    info = env["device"]
    if info:
        cc = ".".join(str(v) for v in info.get("compute_capability", ()))
        lines.append("GPU: %s (compute capability %s, %s SMs, %.1f GiB)" % (
            info.get("name"), cc, info.get("multiprocessors"),
            info.get("total_memory", 0) / 2**30))
        lines.append("driver: %s (CUDA %s driver API); CUDA runtime: %s (devarray's, static)"
                     % (env["driver"] or "unknown", env["cuda_driver_api"], env["cuda_runtime"]))
    else:
        lines.append("backend: host (no GPU used); CPU: %s" % env["cpu"])
    versions = ["Python %s" % env["python"], "NumPy %s" % env["numpy"]]
    versions += ["%s %s" % (LIB_TITLES[k], env[k]) for k in ("cupy", "torch") if env[k]]
    versions.append("devarray %s%s" % (env["devarray"],
                                       " (in-place build)" if env["in_place_build"] else ""))
    lines.append(", ".join(versions))
    lines.append("date: %s; timing: %s" % (env["date"], env["timer"]))
    lines += ["note: %s" % n for n in env["notes"]]
    return lines


def errors_text(rows):
    return ["%s (%s), %s: %s" % (r["op"], r["dtype"], LIB_TITLES[lib], msg)
            for r in rows for lib, msg in r["errors"].items()]


def docs_page(result, multi=None):
    """The page: result's table, and multi (a --only multi-gpu run) in a
    section of its own, with its machine, in place of result's skipped
    several-GPU rows."""
    env, rows = result["env"], result["rows"]
    if multi is not None:
        keys = {r["key"] for r in multi["rows"] if r["key"] != "h2d"}
        rows = [r for r in rows if r["key"] not in keys]
    out = ["# Benchmarks", "",
           "Generated by `bench/run.py`: do not edit by hand.  On a machine with a GPU,",
           "`python3 bench/run.py` measures and rewrites this page; `python3 bench/run.py",
           "--from-json bench.json --write-docs` rewrites it from a saved run.",
           "[bench/README.md](../bench/README.md) says how each row is measured.", ""]
    out += ["- " + line for line in describe(env)]
    out += ["- command: `%s`" % result["command"], "", table(rows), "",
            summary(rows), "",
            "Times are per op (lower is better); *devarray / best peer* is devarray's",
            "time over the fastest other library's (below 1 is faster).  *GB/s* is",
            "devarray's bytes moved over its time: `a + b` reads two arrays and writes",
            "one, `sum` reads one, the copy reads and writes one, the expression counts",
            "its four separate ops, the functions (`exp(a)`, `a < b`, ...) their operands",
            "read and their result written, transfers count the bytes sent once, the",
            "reductions, `d[d > t]` and `take` as bench/README.md says (sorts and matmuls",
            "have no GB/s).  *% of copy BW*",
            "compares it with the fastest device-to-device copy measured in the first row.",
            "Device rows are timed with CUDA events on the legacy default stream, the",
            "median of %d ops queued back to back; host-overhead rows are wall time over"
            % result["reps"]["device"],
            "%d back-to-back ops with one synchronize, median of %d batches; transfers"
            % (result["reps"]["small_ops"], result["reps"]["small_batches"]),
            "are wall time of the call plus a synchronize, median of %d."
            % result["reps"]["transfer"]]
    errors = errors_text(rows)
    if errors:
        out += ["", "Errors:", ""] + ["- " + e for e in errors]
    if multi is not None:
        out += ["", "## Several GPUs", "",
                "Measured on their own machine by `%s`; the h2d row is the upload onto"
                % multi["command"],
                "GPU 0 that the upload onto GPU 1 is compared with.", ""]
        out += ["- " + line for line in describe(multi["env"])]
        out += ["- GPUs: %s" % multi["env"].get("gpus", "?"), "", table(multi["rows"]), "",
                summary(multi["rows"])]
        errors = errors_text(multi["rows"])
        if errors:
            out += ["", "Errors:", ""] + ["- " + e for e in errors]
    return "\n".join(out) + "\n"


def report(result):
    rows = result["rows"]
    print("\n".join(describe(result["env"])))
    print()
    print(table(rows))
    print()
    for e in errors_text(rows):
        print("error: " + e)
    print(summary(rows))


def measure_all(args):
    gpu = (not args.host and os.environ.get("DEVARRAY_BACKEND") != "host"
           and devarray._core._cuda_available())
    devarray.set_backend("cuda" if gpu else "host")
    bench = Bench(gpu)
    if args.only == "multi-gpu":
        if not gpu:
            raise SystemExit("--only multi-gpu needs a GPU")
        x = random_array(np.random.default_rng(20240502), TRANSFER_BYTES // 4, np.float32)
        rows = [h2d_row(bench, x, GPU_LIBS)] + multi_gpu_rows(bench)
        del x
    else:
        rows = [import_row()]
        rows += gpu_rows(bench, args.log2_size) if gpu else host_rows(bench)
    judge(rows)
    return {"version": 1,
            "command": shlex.join(["python3", "bench/run.py"] + sys.argv[1:]),
            "env": environment(bench),
            "reps": {"device": DEVICE_REPS, "small_ops": SMALL_OPS,
                     "small_batches": SMALL_BATCHES, "transfer": TRANSFER_REPS,
                     "host": HOST_REPS, "import": IMPORT_TRIES},
            "rows": rows,
            "summary": summary(rows)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", action="store_true",
                        help="run the host backend against NumPy even on a GPU machine")
    parser.add_argument("--json", metavar="PATH",
                        help="where to write the results (default $OUT/bench.json "
                             "when OUT is set, else bench.json)")
    parser.add_argument("--write-docs", action=argparse.BooleanOptionalAction,
                        default=None, help="regenerate docs/benchmarks.md "
                        "(default: when the results come from a GPU)")
    parser.add_argument("--from-json", metavar="PATH",
                        help="report and document a saved run instead of measuring")
    parser.add_argument("--only", choices=["multi-gpu"],
                        help="measure only the several-GPU rows (and the h2d row they "
                             "compare with), for docs/benchmarks.md's section of them")
    parser.add_argument("--multi-gpu-from", metavar="PATH",
                        help="a saved --only multi-gpu run: docs/benchmarks.md shows it "
                             "in a section of its own, with its machine")
    parser.add_argument("--log2-size", type=int, default=28, metavar="K",
                        help="elements in the large device rows: 2^K (default 28)")
    args = parser.parse_args()

    if args.from_json:
        result = json.loads(Path(args.from_json).read_text())
    else:
        start = time.perf_counter()
        result = measure_all(args)
        log("measured in %.0f s" % (time.perf_counter() - start))
    report(result)

    json_path = args.json
    if json_path is None and not args.from_json:
        json_path = os.path.join(os.environ["OUT"], "bench.json") if os.environ.get("OUT") \
            else "bench.json"
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1) + "\n")
        log("wrote %s" % json_path)
    write_docs = result["env"]["gpu"] if args.write_docs is None else args.write_docs
    if args.only:
        write_docs = False   # one section only: --multi-gpu-from places it
    if write_docs:
        multi = json.loads(Path(args.multi_gpu_from).read_text()) if args.multi_gpu_from \
            else None
        DOCS_PAGE.write_text(docs_page(result, multi))
        log("wrote %s" % DOCS_PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
