"""The shared runner of devarray's benchmarks (bench/run.py names the
families' rows and runs them through it): the timing helpers, the Bench of
libraries, rows and their targets, the verdicts, the table, the JSON, the
docs/benchmarks.md page, and the command line (--from-json, --write-docs,
--multi-gpu-from, --only).  The families' modules import it first: it puts
this checkout's in-place build of devarray on sys.path.
"""

import argparse
import datetime
import gc
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
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
import inputs  # noqa: E402
import misses  # noqa: E402

SMALL = 1024                   # elements in the host-overhead rows
TRANSFER_BYTES = 256 << 20
HOST_ELEMENTS = 1 << 24        # the host backend's large rows (2^log2n there)
DEVICE_REPS = 30               # median of, for one large op
WARMUP = 3
# On the GPU, an op whose second warm-up call takes SLOW_OP_S or more (wall
# time with a synchronize) is warmed up no further and timed SLOW_REPS times.
SLOW_OP_S = 0.02
SLOW_REPS = 5
SMALL_OPS = 2000               # back-to-back small ops in one batch
SMALL_BATCHES = 5              # median of
# The one-line API rows (specs.py) are many: their host overhead is timed over
# fewer calls.
API_SMALL_OPS = 250
API_SMALL_BATCHES = 5
TRANSFER_REPS = 10             # median of
HOST_REPS = 20                 # median of
IMPORT_TRIES = 5               # best of
IMPORT_SLOW_S = 1.0            # an import slower than this (PyTorch's): best of 3
IMPORT_SLOW_TRIES = 3
# Inputs smaller than this could stay in the GPU's L2 (50 MB on an H100) or a
# CPU's last-level cache between repetitions, so two input sets alternate.
ROTATE_BELOW = 256 << 20
# Seeds of the random inputs, drawn in the table's order
GPU_SEED = 20240501
HOST_SEED = 20240502
INPUTS_SEED = 31               # added to those: bench/inputs.py's base arrays

GPU_LIBS = ("devarray", "cupy", "torch")
HOST_LIBS = ("devarray", "numpy")
LIB_TITLES = {"devarray": "devarray", "cupy": "CuPy", "torch": "PyTorch",
              "numpy": "NumPy", "c": "C loop"}


START = time.perf_counter()


def log(text):
    """A line of the log (stderr), stamped with the seconds since the start."""
    print("[%6.1f s] %s" % (time.perf_counter() - START, text), file=sys.stderr, flush=True)


def random_array(rng, n, dtype):
    """Random values in [0.5, 1.5) (never zero: rows divide), or 1..1023."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 1 << 10, n, dtype=dtype)
    x = rng.random(n, dtype=dtype)
    x += 0.5
    return x


def median_s(samples_ns):
    return statistics.median(samples_ns) / 1e9


def per_op_time(fn, sync, ops=SMALL_OPS, batches=SMALL_BATCHES):
    """Seconds per call of fn over `ops` back-to-back calls and one sync
    (median of `batches`): the host overhead of an op whose device work is
    negligible."""
    for _ in range(ops // 10):
        fn()
    sync()
    samples = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(ops):
            fn()
        sync()
        samples.append((time.perf_counter_ns() - start) / ops)
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

    def __call__(self, call, reps, warmup=WARMUP):
        for i in range(warmup):
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
        # lib: a function that copies a devarray upload into lib's own memory
        self.from_devarray = {}
        self.uploads = {}       # time_op's inputs: (lib, id, copy) -> (host, device)
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
        # The libraries' own objects are never garbage: release()'s collections
        # (hundreds of them) skip them from here on.
        gc.collect()
        gc.freeze()

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

        def cupy_copy(d):
            view = cupy.from_dlpack(d)
            if not view.flags.c_contiguous:
                raise ValueError("devarray's upload is not C-contiguous")
            y = cupy.empty(view.shape, view.dtype)
            y.data.copy_from_device(view.data, view.nbytes)
            return y

        self.from_devarray["cupy"] = cupy_copy
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
        self.from_devarray["torch"] = \
            lambda d: torch.from_dlpack(d).clone(memory_format=torch.contiguous_format)
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

    def put(self, lib, x):
        """lib's device copy of the NumPy array x, an input of timed rows.
        CuPy's and PyTorch's are copied on the device, into their own memory,
        from devarray's upload (their own uploads from pageable memory run at
        a third of its speed); where that fails, they upload it themselves."""
        copy = self.from_devarray.get(lib)
        if copy is not None:
            try:
                y = copy(devarray.to_device(x))
                self.sync[lib]()
                if tuple(y.shape) != x.shape or str(y.dtype).rpartition(".")[2] != x.dtype.name:
                    raise TypeError("%s %s from %s %s" % (y.dtype, tuple(y.shape), x.dtype,
                                                          x.shape))
                return y
            except Exception as exc:
                del self.from_devarray[lib]
                log("  %s uploads its inputs itself: %s" % (lib, one_line(exc)))
        return self.upload[lib](x)

    def put_once(self, lib, x, copy=False):
        """put(lib, x) (copy: of a copy of x), kept until the section ends
        (forget()): the rows of a section that read the same array share
        lib's copy of it."""
        key = (lib, id(x), copy)
        if key not in self.uploads:
            self.uploads[key] = (x, self.put(lib, x.copy() if copy else x))
        return self.uploads[key][1]

    def forget(self):
        """Drop the section's device copies (put_once)."""
        self.uploads.clear()
        self.release()

    def time_op(self, lib, fn, inputs, reps=None, warmup=None):
        """Median time of fn(*arrays) on lib's copies of the NumPy inputs;
        reps and warmup as time_sets'."""
        sets = [[self.put_once(lib, x) for x in inputs]]
        if sum(x.nbytes for x in inputs) < ROTATE_BELOW:
            sets.append([self.put_once(lib, x, True) for x in inputs])
        return self.time_sets(lib, fn, sets, reps, warmup)

    def time_sets(self, lib, fn, sets, reps=None, warmup=None):
        """time_op's timing of fn on lib's arrays, already uploaded: call i
        takes sets[i % len(sets)].  reps calls timed (None: DEVICE_REPS on the
        GPU, HOST_REPS on the host) after warmup calls (None: as many, WARMUP
        at most, each waited for; on the GPU, an op whose second one takes
        SLOW_OP_S or more has no third and SLOW_REPS timed calls at most).
        The timer's first call, ahead of its first event, is not timed either."""
        sync = self.sync[lib]
        sync()

        def call(i):
            return fn(*sets[i % len(sets)])

        if reps is None:
            reps = HOST_REPS if not self.gpu else DEVICE_REPS
        if warmup is None:
            for i in range(min(reps, WARMUP)):
                start = time.perf_counter()
                call(i)
                sync()
                if self.gpu and i == 1 and time.perf_counter() - start >= SLOW_OP_S:
                    reps = min(reps, SLOW_REPS)
                    break
            warmup = 0
        if self.timer is None:
            return wall_time(call, sync, reps, warmup)
        return self.timer(call, reps, warmup)

    def op_row(self, row, fn, inputs, reps=None, warmup=None):
        """Fill row with the time of fn (one callable, or one per library);
        reps and warmup as time_sets' (fewer for ops of seconds)."""
        log("measuring %s (%s)" % (row["op"], row["dtype"]))
        for lib in row["times"]:
            f = fn[lib] if isinstance(fn, dict) else fn
            self.measure(row, lib, lambda: self.time_op(lib, f, inputs, reps, warmup))
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
            a = self.put(lib, x) if upload else x
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


def backend_row(bench, key, op, size, dtype, nbytes=None, vs_copy=False, target=()):
    """A row of issue 10's, which run on either backend: on the GPU against
    CuPy and PyTorch, with its target; on the host against NumPy, its key
    and op saying so, without a target (the issue sets them for the GPU)."""
    if bench.gpu:
        return new_row(key, op, size, dtype, GPU_LIBS, nbytes, vs_copy, target)
    return new_row("host-" + key, "host backend: " + op, size, dtype, HOST_LIBS,
                   nbytes, vs_copy)


def library_functions(bench, name):
    """{lib: the library's own elementwise function `name`}, looked up at the
    call, so a library without it records an error in the row."""
    return {"devarray": lambda a: getattr(devarray, name)(a),
            "cupy": lambda a: getattr(bench.cupy, name)(a),
            "torch": lambda a: getattr(bench.torch, name)(a)}


def gpus_seen():
    """(how many GPUs devarray sees, why fewer than 2 are enough to skip)."""
    count = getattr(devarray, "device_count", None)
    if count is None:
        return 0, "devarray has no device_count() (multi-device support is not built in)"
    n = count()
    return n, "devarray sees %d" % n


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


def docs_page(result, multi=None, cluster=()):
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
            "median of %d ops queued back to back (fewer of the slowest: bench/README.md"
            % result["reps"]["device"],
            "says how many); host-overhead rows are wall time over",
            "%d back-to-back ops with one synchronize, median of %d batches; transfers"
            % (result["reps"]["small_ops"], result["reps"]["small_batches"]),
            "are wall time of the call plus a synchronize, median of %d."
            % result["reps"]["transfer"]]
    reps = result["reps"]
    if "api_small_ops" in reps:
        out += ["The API rows' host overhead (bench/specs.py's, on 1,024 elements) is the",
                "wall time over %d back-to-back calls, median of %d batches."
                % (reps["api_small_ops"], reps["api_small_batches"])]
    errors = errors_text(rows)
    if errors:
        out += ["", "Errors:", ""] + ["- " + e for e in errors]
    out += misses.section(rows)
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
    if cluster:
        out += ["", "## A dask.distributed cluster", "",
                "dask.array on DeviceArray chunks next to the same graphs on CuPy chunks,",
                "in one `dask_cuda.LocalCUDACluster` of 1, 2 and 4 workers (a GPU each),",
                "measured by `python3 bench/dask_cluster.py` (its docstring says how);",
                "both libraries' results agreed on every row."]
        for text in cluster:
            out += ["", text.strip()]
    return "\n".join(out) + "\n"



def unmeasured_references(rows):
    """Lines for the target clauses that compare with a row this run did not
    measure (bench/run.py's --only measures those it knows of): such a
    clause is n/a."""
    keys = {r["key"] for r in rows}
    lines = []
    for r in rows:
        for clause in r["target"]:
            if clause[0] == "row" and clause[1] not in keys:
                missing = clause[1]
            elif clause[0] == "copy" and "copy" not in keys:
                missing = "copy"
            else:
                continue
            lines.append("%s (%s): '%s' is n/a: the %s row was not measured"
                         % (r["op"], r["dtype"], clause[-1], missing))
    return lines


def report(result):
    rows = result["rows"]
    print("\n".join(describe(result["env"])))
    print()
    print(table(rows))
    print()
    for e in errors_text(rows):
        print("error: " + e)
    for line in unmeasured_references(rows):
        print("n/a: " + line)
    print(summary(rows))


def measure_all(args, sections):
    """The rows of sections(gpu, args.only), each section a function
    (bench, rng, log2n) -> rows, measured in order and judged, with the
    machine they ran on: the JSON's content."""
    gpu = (not args.host and os.environ.get("DEVARRAY_BACKEND") != "host"
           and devarray._core._cuda_available())
    devarray.set_backend("cuda" if gpu else "host")
    bench = Bench(gpu)
    chosen = sections(gpu, args.only)
    if not chosen:
        raise SystemExit("--only %s needs a GPU" % args.only)
    rng = np.random.default_rng(GPU_SEED if gpu else HOST_SEED)
    # the host backend's rows at 2^24 at most (--log2-size makes them smaller)
    log2n = args.log2_size if gpu else min(args.log2_size, HOST_ELEMENTS.bit_length() - 1)
    inputs.start((GPU_SEED if gpu else HOST_SEED) + INPUTS_SEED, 1 << log2n)
    rows = []
    for section in chosen:
        start = time.perf_counter()
        new = section(bench, rng, log2n)
        rows += new
        bench.forget()
        log("section %s.%s: %.1f s, %d rows" % (section.__module__, section.__name__,
                                                time.perf_counter() - start, len(new)))
    judge(rows)
    result = {"version": 1,
              "command": shlex.join(["python3", "bench/run.py"] + sys.argv[1:]),
              "env": environment(bench),
              "reps": {"device": DEVICE_REPS, "small_ops": SMALL_OPS,
                       "small_batches": SMALL_BATCHES, "api_small_ops": API_SMALL_OPS,
                       "api_small_batches": API_SMALL_BATCHES, "transfer": TRANSFER_REPS,
                       "host": HOST_REPS, "import": IMPORT_TRIES},
              "rows": rows,
              "summary": summary(rows)}
    if args.only:
        result["only"] = args.only   # a part of the table: never the whole page
    return result


def main(description, families, sections):
    """bench/run.py's command line: families are --only's choices, and
    sections(gpu, only) the functions that measure the rows (measure_all)."""
    parser = argparse.ArgumentParser(description=description)
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
    parser.add_argument("--only", choices=families, metavar="FAMILY",
                        help="measure only FAMILY's rows (%s), and the rows of other "
                             "families that their targets compare with; never writes "
                             "docs/benchmarks.md (multi-gpu: for its section of "
                             "several GPUs, --multi-gpu-from)" % ", ".join(families))
    parser.add_argument("--multi-gpu-from", metavar="PATH",
                        help="a saved --only multi-gpu run: docs/benchmarks.md shows it "
                             "in a section of its own, with its machine")
    parser.add_argument("--dask-cluster-from", metavar="PATH", nargs="+",
                        help="saved outputs of bench/dask_cluster.py: docs/benchmarks.md "
                             "shows them in a section of their own")
    parser.add_argument("--log2-size", type=int, default=28, metavar="K",
                        help="elements in the large device rows: 2^K (default 28)")
    args = parser.parse_args()

    if args.from_json:
        result = json.loads(Path(args.from_json).read_text())
    else:
        start = time.perf_counter()
        result = measure_all(args, sections)
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
    if args.only or result.get("only"):
        # a part of the page only (--multi-gpu-from places multi-gpu's)
        if write_docs and args.write_docs:
            log("not writing %s: the results are --only %s's rows"
                % (DOCS_PAGE, args.only or result["only"]))
        write_docs = False
    if write_docs:
        multi = json.loads(Path(args.multi_gpu_from).read_text()) if args.multi_gpu_from \
            else None
        cluster = [Path(p).read_text() for p in args.dask_cluster_from or ()]
        DOCS_PAGE.write_text(docs_page(result, multi, cluster))
        log("wrote %s" % DOCS_PAGE)
    return 0
