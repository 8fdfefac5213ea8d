"""One-line rows (issue 31): a spec names an operation once, in each
library's spelling, and spec_rows measures it twice on the GPU:

- device time at 2^log2n elements (an input of 8- or 16-byte items at 1 GiB,
  2^27 or 2^26 of them), with GB/s where bytes are counted, against CuPy and
  PyTorch: <= 1.0x the best peer (1.05x where both call the same vendor
  library), >= 90% of the copy bandwidth where memory-bound;
- host overhead per call at 1,024 elements (wall time of back-to-back calls):
  <= 0.75x PyTorch's (CuPy's where PyTorch has no such call).

On the host backend the device-time rows run at 2^(log2n-4) against NumPy,
without targets, and the overhead rows are left out.

    spec("manip-flip-axis0", "flip(m, axis=0)", "xp.flip(m, axis=0)",
         torch="torch.flip(m, (0,))", inputs="m", bw=True)

`xp` is the expression for devarray, NumPy and CuPy with `xp` bound to each
namespace (devarray's is the array API's); cupy= and numpy= override it
where they spell it otherwise (False: that library has no such call);
torch= is PyTorch's (None: none).  Every expression sees its inputs by
name, n, R and C (the elements, a matrix's rows and columns), s_ (NumPy's
index maker) and setitem (operator.setitem: `a[i] = v` as an expression).

inputs: names from INPUTS, each with a dtype (`a:int8`; float32 if none).
bw: None (no GB/s), True (the inputs' bytes plus the result's), or an
expression of the inputs' names and `out` (their bytes and the result's),
e.g. "2 * g + out".  copy=False shows GB/s without the copy-bandwidth target
(gathers, scatters, compactions).
"""

import operator
import time

import numpy as np

from runner import (API_SMALL_BATCHES, API_SMALL_OPS, GPU_SEED, HOST_SEED, ROTATE_BELOW,
                    log, new_row, one_line, per_op_time)

import devarray  # after runner, which puts the in-place build on sys.path
from inputs import scaled, uniform

SMALL_LOG2 = 10          # the overhead rows' 1,024 elements
HOST_SHIFT = 4           # the host backend's rows at 2^(log2n - 4)
HOST_REPS = 5            # median of, on the host backend
MAX_INPUT_BYTES = 1 << 30
SPEC_SEED = 31           # added to the run's seed: other families' inputs stay theirs


def _vector(frac):
    return lambda n, R, C: (n // frac,)


def _three(n, R, C):
    k = n.bit_length() - 1
    side = 1 << (k // 3)
    return (side, side, n // (side * side))


# name: (shape from n, R, C; the values: a base array "A", "B" or "C" cut to
# the shape and converted to the token's dtype, or a kind of its own).
INPUTS = {
    "a": (_vector(1), "A"), "b": (_vector(1), "B"), "c": (_vector(1), "C"),
    "w": (_vector(1), "A"),                    # written by setitem rows
    "e": (_vector(2), "A"), "f": (_vector(2), "B"),
    "q": (_vector(4), "B"),
    "s": (_vector(4), "sorted"),               # sorted values of the dtype
    "z": (_vector(1), "draws"),                # integers in [0, 2^20)
    "m": (lambda n, R, C: (R, C), "A"), "p": (lambda n, R, C: (R, C), "B"),
    "wm": (lambda n, R, C: (R, C), "A"),       # written by setitem rows
    "g": (lambda n, R, C: (R // 2, C), "A"), "h": (lambda n, R, C: (R, C // 2), "A"),
    "v": (lambda n, R, C: (C,), "B"), "u": (lambda n, R, C: (R,), "A"),
    "r": (lambda n, R, C: (1, n), "A"),
    "t": (_three, "A"),
    "mask": (_vector(1), "mask"),              # bool, about half true
    "mm": (lambda n, R, C: (R, C), "mask"),
    "idx": (_vector(4), "index"),              # int64 in [0, n)
    "ri": (lambda n, R, C: (R,), "index"),     # int64 in [0, R)
    "ih": (lambda n, R, C: (R, C // 2), "index"),  # int64 in [0, C)
}
FIXED_DTYPES = {"mask": "bool", "mm": "bool", "idx": "int64", "ri": "int64", "ih": "int64",
                "z": "int32"}

KEYS = set()


class Spec:
    def __init__(self, key, op, exprs, inputs, dtype, bw, copy, best, best_text, reps,
                 shift, large, small, size):
        if key in KEYS:
            raise ValueError("two specs have the key %r" % key)
        KEYS.add(key)
        self.key, self.op, self.exprs = key, op, exprs
        self.inputs = inputs            # [(name, dtype)]
        self.dtype = dtype or (inputs[0][1] if inputs else "float32")
        self.bw, self.copy, self.best, self.best_text = bw, copy, best, best_text
        self.reps, self.shift, self.large, self.small = reps, shift, large, small
        self.size = size

    def size_text(self, k, small):
        """The size column: the first input's shape (size, a format of n,
        R and C, where there is none)."""
        n, R = 1 << k, 1 << (k // 2)
        if self.size:
            return self.size.format(n=n, R=R, C=n // R)
        shape = INPUTS[self.inputs[0][0]][0](n, R, n // R) if self.inputs else (n,)
        return size_text(shape, small)

    def libs(self, gpu):
        order = ("devarray", "cupy", "torch") if gpu else ("devarray", "numpy")
        return tuple(lib for lib in order if self.exprs.get(lib) is not None)

    def log2(self, log2n, gpu):
        """The elements' exponent of the large row: log2n (on the host
        log2n - HOST_SHIFT) plus shift, less while an input is over 1 GiB."""
        k = log2n + self.shift - (0 if gpu else HOST_SHIFT)
        while k > SMALL_LOG2 and max(self.input_bytes(k), default=0) > MAX_INPUT_BYTES:
            k -= 1
        return k

    def input_bytes(self, k):
        n, R = 1 << k, 1 << (k // 2)
        return [int(np.prod(INPUTS[name][0](n, R, n // R))) * np.dtype(dtype).itemsize
                for name, dtype in self.inputs]

    def function(self, lib, n, bench):
        R = 1 << ((n.bit_length() - 1) // 2)
        ns = {"n": n, "R": R, "C": n // R, "s_": np.s_, "setitem": operator.setitem}
        if lib == "torch":
            ns["torch"] = bench.torch
        else:
            ns["xp"] = {"devarray": devarray, "numpy": np, "cupy": bench.cupy}[lib]
            ns[lib] = ns["xp"]
        names = ", ".join(name for name, _ in self.inputs)
        return eval("lambda %s: %s" % (names, self.exprs[lib]), ns)


def spec(key, op, xp, *, cupy=None, numpy=None, torch=None, inputs="a", dtype=None,
         bw=None, copy=True, vendor=None, reps=None, shift=0, large=True, small=True,
         size=None):
    """A row of the table (and its overhead row): see the module's docstring.
    vendor names the library both peers call (the target is then 1.05x the
    best peer); reps, fewer timed calls for an op of tens of ms; shift, a
    size of 2^(log2n + shift); large=False or small=False leaves out the
    device-time or the overhead row; size, the size column's text where
    the rows have no input (a format of n, R and C)."""
    tokens = [t.partition(":") for t in inputs.split()]
    parsed = [(name, FIXED_DTYPES.get(name, dtype_ or "float32")) for name, _, dtype_ in tokens]
    for name, _ in parsed:
        if name not in INPUTS:
            raise ValueError("%s: unknown input %r" % (key, name))
    exprs = {"devarray": xp,
             "cupy": xp if cupy is None else cupy or None,
             "numpy": xp if numpy is None else numpy or None,
             "torch": torch}
    best, text = (1.05, "<= 1.05x best peer (both on %s)" % vendor) if vendor \
        else (1.0, "<= 1.0x best peer")
    return Spec(key, op, exprs, parsed, dtype, bw, copy, best, text, reps, shift, large, small,
                size)


def per_dtype(key, op, xp, dtypes, *, inputs="a:{t}", **kwargs):
    """One spec per dtype in `dtypes` (space-separated), key `key-dtype`,
    `{t}` in inputs standing for the dtype; the first one only has an
    overhead row (the call's overhead hardly depends on the dtype)."""
    small = kwargs.pop("small", True)
    return [spec("%s-%s" % (key, t), op, xp, inputs=inputs.format(t=t),
                 small=small and i == 0, **kwargs)
            for i, t in enumerate(dtypes.split())]


# ---- inputs -----------------------------------------------------------------

class Inputs:
    """The NumPy inputs of one family's rows, made once each: the values of
    bench/inputs.py's arrays, drawn and converted once per run (a part of one
    of them, reshaped), except index arrays, sorted copies, the draws of z
    and, on the host backend, the copies that setitem rows write."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.rng = np.random.default_rng((GPU_SEED if gpu else HOST_SEED) + SPEC_SEED)
        self.arrays = {}

    def get(self, name, dtype, k):
        key = (name, dtype, k)
        if key not in self.arrays:
            self.arrays[key] = self.make(name, np.dtype(dtype), 1 << k)
        return self.arrays[key]

    def make(self, name, dtype, n):
        R = 1 << ((n.bit_length() - 1) // 2)
        shape_of, kind = INPUTS[name]
        shape = shape_of(n, R, n // R)
        size = int(np.prod(shape))
        if kind == "mask":
            return uniform("B", size, "bool").reshape(shape)
        if kind == "index":
            high = {"idx": n, "ri": R, "ih": n // R}[name]
            return self.rng.integers(0, high, shape, dtype=np.int64)
        if kind == "draws":
            return scaled(uniform("A", size), 1 << 20, -(1 << 19), dtype).reshape(shape)
        out = uniform("A" if kind == "sorted" else kind, size, dtype)
        if kind == "sorted":
            out = np.sort(out)
        elif name in ("w", "wm") and not self.gpu:
            out = out.copy()     # NumPy's setitem rows write it (on the GPU, an upload)
        return out.reshape(shape)


def nbytes_of(result):
    if result is None:
        return 0
    if isinstance(result, (tuple, list)):
        return sum(nbytes_of(r) for r in result)
    if hasattr(result, "nbytes"):
        return int(result.nbytes)
    return result.numel() * result.element_size()     # an older PyTorch


def size_text(shape, small):
    if len(shape) == 1:
        n = shape[0]
        return "{:,}".format(n) if small or n & (n - 1) else "2^%d" % (n.bit_length() - 1)
    return " x ".join("{:,}".format(d) if small else str(d) for d in shape)


# ---- rows ---------------------------------------------------------------------

def large_row(bench, s, k):
    libs = s.libs(bench.gpu)
    if not bench.gpu:
        return new_row("host-" + s.key, "host backend: " + s.op, s.size_text(k, False),
                       s.dtype, libs)
    target = [["best", s.best, s.best_text]] if len(libs) > 1 else []
    if s.bw and s.copy:
        target.append(["copy", 0.9, ">= 90% copy BW"])
    return new_row(s.key, s.op, s.size_text(k, False), s.dtype, libs,
                   vs_copy=bool(s.bw and s.copy), target=target)


def row_bytes(s, host, result):
    """The bytes a row's op reads and writes (spec.bw), from its inputs'
    and the result's sizes."""
    sizes = {name: x.nbytes for (name, _), x in zip(s.inputs, host)}
    out = nbytes_of(result)
    if s.bw is True:
        return sum(sizes.values()) + out
    return eval(s.bw, {"__builtins__": {}}, dict(sizes, out=out))


def measure_large(bench, family, specs, log2n, inputs):
    """The device-time rows, one library at a time: each input is uploaded
    once for the rows that use it and dropped after the last of them."""
    plan = [(s, s.log2(log2n, bench.gpu)) for s in specs if s.large]
    rows = [large_row(bench, s, k) for s, k in plan]
    reps = None if bench.gpu else HOST_REPS
    for lib in [lib for lib in ("devarray", "cupy", "torch", "numpy") if lib in bench.upload]:
        start, count, cache = time.perf_counter(), 0, {}
        for i, ((s, k), row) in enumerate(zip(plan, rows)):
            if lib not in row["times"]:
                continue
            count += 1
            try:
                host = [inputs.get(name, dtype, k) for name, dtype in s.inputs]
                sets = [[], []] if sum(x.nbytes for x in host) < ROTATE_BELOW else [[]]
                for copy, arrays in enumerate(sets):
                    for (name, dtype), x in zip(s.inputs, host):
                        key = (name, dtype, k, copy)
                        if key not in cache:
                            cache[key] = bench.put(lib, x.copy() if copy else x)
                        arrays.append(cache[key])
                fn = s.function(lib, 1 << k, bench)
                row["times"][lib] = bench.time_sets(lib, fn, sets, s.reps or reps)
                if s.bw and row["bytes"] is None:
                    row["bytes"] = row_bytes(s, host, fn(*sets[0]))
            except Exception as exc:
                row["errors"][lib] = one_line(exc)
                log("  %s: %s failed: %s" % (row["key"], lib, row["errors"][lib]))
            later = {(name, dtype, k2) for s2, k2 in plan[i + 1:] for name, dtype in s2.inputs}
            for key in [key for key in cache if key[:3] not in later]:
                del cache[key]
        cache.clear()
        bench.release()
        if lib == "devarray" and bench.gpu and hasattr(devarray, "release_memory"):
            devarray.release_memory()
        log("%s: %d rows of %s in %.1f s" % (family, count, lib, time.perf_counter() - start))
    return rows


def measure_small(bench, family, specs, inputs):
    """The overhead rows: wall time per call of back-to-back calls on 1,024
    elements, API_SMALL_OPS a batch, median of API_SMALL_BATCHES."""
    start, rows = time.perf_counter(), []
    for s in [s for s in specs if s.small]:
        libs = s.libs(True)
        peer = "torch" if "torch" in libs else "cupy" if "cupy" in libs else None
        target = [] if peer is None else [[
            "peer", peer, 0.75, "<= 0.75x PyTorch" if peer == "torch"
            else "<= 0.75x CuPy (no PyTorch call)"]]
        row = new_row("small-" + s.key, "host overhead: " + s.op, s.size_text(SMALL_LOG2, True),
                      s.dtype, libs, target=target)
        for lib in [lib for lib in libs if lib in bench.upload]:
            try:
                arrays = [bench.upload[lib](inputs.get(name, dtype, SMALL_LOG2))
                          for name, dtype in s.inputs]
                fn = s.function(lib, 1 << SMALL_LOG2, bench)
                row["times"][lib] = per_op_time(lambda: fn(*arrays), bench.sync[lib],
                                                API_SMALL_OPS, API_SMALL_BATCHES)
            except Exception as exc:
                row["errors"][lib] = one_line(exc)
                log("  %s: %s failed: %s" % (row["key"], lib, row["errors"][lib]))
        rows.append(row)
    bench.release()
    log("%s: %d overhead rows in %.1f s" % (family, len(rows), time.perf_counter() - start))
    return rows


def spec_rows(bench, log2n, specs, family):
    """specs' rows: the device-time rows, then on the GPU the overhead rows."""
    large = sum(s.large for s in specs)
    small = sum(s.small for s in specs) if bench.gpu else 0
    log("%s: %d device-time rows, %d overhead rows" % (family, large, small))
    inputs = Inputs(bench.gpu)
    rows = measure_large(bench, family, specs, log2n, inputs)
    if bench.gpu:
        rows += measure_small(bench, family, specs, inputs)
    return rows
