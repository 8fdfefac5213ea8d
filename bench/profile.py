#!/usr/bin/env python3
"""Profile one benchmark operation of devarray, CuPy and PyTorch under
Nsight Compute, to explain a row of docs/benchmarks.md that misses its
target: each library's kernels for the operation, with their time and DRAM
throughput side by side.

    ncu --csv --metrics gpu__time_duration.sum,\\
dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,\\
dram__bytes_write.sum python3 bench/profile.py isnan > isnan.csv

Each library runs the operation WARMUP times, then once inside a
profiler range (cuProfilerStart/Stop), so with `--profile-from-start off`
ncu lists only the measured calls, in order: devarray's kernels, then
CuPy's, then PyTorch's.
"""

import argparse
import ctypes
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if any((ROOT / "devarray").glob("_core*.so")):
    sys.path.insert(0, str(ROOT))

import devarray  # noqa: E402
from elementwise import expression  # noqa: E402
from random_numbers import draws  # noqa: E402

WARMUP = 2


def cuda_profiler():
    """The driver's cuProfilerStart/Stop: every runtime's calls end there,
    and devarray links its runtime statically."""
    driver = ctypes.CDLL("libcuda.so.1")
    return driver.cuProfilerStart, driver.cuProfilerStop


FUSED = {}


def fused(module, fn):
    """fn fused by the library (devarray.fuse, cupy.fuse; PyTorch eager has
    no fusion), made once so the profiled call is not a first call."""
    if (module, fn) not in FUSED:
        fuse = getattr(module, "fuse", None)
        FUSED[module, fn] = fuse(fn) if fuse is not None and module.__name__ != "torch" else fn
    return FUSED[module, fn]


def sum_of_squares(a, b):
    return ((a - b) ** 2).sum()


def either(module, *names):
    """The first of `names` that the library has (its spelling of a
    function: unique_values / unique, repeat_interleave / repeat)."""
    return next(getattr(module, n) for n in names if hasattr(module, n))


def rows_of(x, m):
    """x[ri] for a fixed random permutation ri of x's rows, made on the host
    (the upload is a copy, not a kernel, so ncu does not list it)."""
    ri = np.random.default_rng(1).permutation(x.shape[0])
    if m.__name__ == "torch":
        return x[m.as_tensor(ri, device="cuda")]
    return x[m.asarray(ri)]


def operations(log2n):
    """name -> (input shape, dtype, call(x, library module)[, host_input's
    options]); the input is uniform in [0, 1) (integers: in [1, 2^20), the
    unique rows' values)."""
    n = 1 << log2n
    side = 1 << (log2n // 2)
    return {
        "isnan": ((n,), "float32", lambda x, m: m.isnan(x)),
        "sum": ((n,), "float32", lambda x, m: m.sum(x)),
        "sum_axis0": ((side, side), "float32", lambda x, m: m.sum(x, axis=0)),
        "sum_axis1": ((side, side), "float32", lambda x, m: m.sum(x, axis=1)),
        "max": ((n,), "float32", lambda x, m: m.max(x)),
        "argmax": ((n,), "float32", lambda x, m: m.argmax(x)),
        "sort": ((n >> 2,), "float32", lambda x, m: m.sort(x)),
        "mask": ((n,), "float32", lambda x, m: x[x > 0.5]),
        "matmul": ((4096, 4096), "float32", lambda x, m: m.matmul(x, x)),
        "add_transpose": ((side, side), "float32", lambda x, m: x + x.T),
        "fuse_sumsq": ((n,), "float32", lambda x, m: fused(m, sum_of_squares)(x, x)),
        "any_small": ((1024,), "float32", lambda x, m: bool(m.any(x))),
        # the families that miss (docs/benchmarks.md, "Why rows miss")
        "exp_f16": ((n,), "float16", lambda x, m: m.exp(x)),
        "sin_f16": ((n,), "float16", lambda x, m: m.sin(x)),
        "div_f16": ((n,), "float16", lambda x, m: x / x),
        "floordiv7_i32": ((n,), "int32", lambda x, m: x // 7),
        "and_bool": ((n,), "bool", lambda x, m: x & x),
        "clip": ((n,), "float32", lambda x, m: m.clip(x, 0.25, 0.75)),
        "argmax_axis0": ((side, side), "float32", lambda x, m: m.argmax(x, axis=0)),
        "count_nonzero_axis1": ((side, side), "float32",
                                lambda x, m: m.count_nonzero(x, axis=1)),
        "sum_f16_axis1": ((side, side), "float16", lambda x, m: m.sum(x, axis=1)),
        "cumsum": ((n,), "float32", lambda x, m: m.cumsum(x, 0)
                   if m is not devarray else m.cumulative_sum(x)),
        "sort_i16": ((n >> 2,), "int16", lambda x, m: m.sort(x)),
        "sort_f16": ((n >> 2,), "float16", lambda x, m: m.sort(x)),
        "unique_i32": ((n >> 2,), "int32", lambda x, m: either(m, "unique_values", "unique")(x)),
        "rows": ((side, side), "float32", rows_of),
        "repeat": ((n >> 1,), "float32",
                   lambda x, m: either(m, "repeat_interleave", "repeat")(x, 2)),
        "concat_axis1": ((side, side >> 1), "float32",
                         lambda x, m: m.concatenate([x, x], axis=1)
                         if m is not devarray else m.concat([x, x], axis=1)),
        # math compiled without FMA contraction
        "exp_c64": ((n >> 1,), "complex64", lambda x, m: m.exp(x)),
        "log_f64": ((n >> 1,), "float64", lambda x, m: m.log(x)),
        "pow_f32": ((n,), "float32", lambda x, m: x ** x),
        "pow_i32": ((n,), "int32", lambda x, m: x ** x, {"high": 1024}),
        "floordiv_f32": ((n,), "float32", lambda x, m: x // x),
        "floordiv7_i64": ((n >> 1,), "int64", lambda x, m: x // 7),
        # copies that read less than they write, or not 16-byte aligned
        "astype_c128": ((n >> 1,), "complex64",
                        lambda x, m: x.to(m.complex128) if m.__name__ == "torch"
                        else m.astype(x, m.complex128) if m is devarray
                        else x.astype(m.complex128)),
        "outer_add": ((side,), "float32", lambda x, m: x[:, None] + x[None, :]),
        "slice_copy": ((side, side), "float32", lambda x, m: copied(m, x[1:-1, 1:-1])),
        "roll_axis1": ((side, side), "float32",
                       lambda x, m: m.roll(x, 123, 1) if m.__name__ == "torch"
                       else m.roll(x, 123, axis=1)),
        "reshape_T": ((side, side), "float32", lambda x, m: m.reshape(x.T, (-1,))),
        "repeat_axis0": ((side >> 1, side), "float32",
                         lambda x, m: m.repeat_interleave(x, 2, dim=0)
                         if m.__name__ == "torch" else m.repeat(x, 2, axis=0)),
        # moments, scans over a leading axis, gathers and scatters
        "var": ((n,), "float32", lambda x, m: m.var(x)),
        "var_axis0": ((side, side), "float32",
                      lambda x, m: m.var(x, 0) if m.__name__ == "torch" else m.var(x, axis=0)),
        "cumsum_axis0": ((side, side), "float32",
                         lambda x, m: m.cumsum(x, 0) if m is not devarray
                         else m.cumulative_sum(x, axis=0)),
        "gather": ((n,), "float32", lambda x, m: x[random_index(m, n, n >> 2)]),
        "scatter": ((n,), "float32", scatter_scalar),
        "nonzero": ((n,), "bool", lambda x, m: m.nonzero(x)),
        # random numbers (they read no input: a 1-element one is uploaded)
        "random": ((1,), "float32", lambda x, m: draw(m, "random", n)),
        "integers": ((1,), "float32", lambda x, m: draw(m, "integers", n)),
        "normal": ((1,), "float32", lambda x, m: draw(m, "standard_normal", n)),
        "permutation": ((1,), "float32", lambda x, m: draw(m, "permutation", n >> 2)),
        # small batched factorisations and a fused elementwise chain
        "cholesky3": ((65536, 3, 3), "float32", lambda x, m: m.linalg.cholesky(x), {"spd": True}),
        "cholesky8": ((65536, 8, 8), "float32", lambda x, m: m.linalg.cholesky(x), {"spd": True}),
        "fuse_chain": ((n,), "float32", lambda x, m: fused(m, expression)(x, x)),
        # a batch of short vendor calls
        "rfft_rows": ((1024, 4096), "float32", lambda x, m: m.fft.rfft(x)),
    }


def copied(m, view):
    """A contiguous copy of a view (PyTorch: .contiguous())."""
    return view.contiguous() if m.__name__ == "torch" else view.copy()


INDEXES = {}


def random_index(m, n, count):
    """`count` random int64 indices below n, the same for every library,
    uploaded once (a copy, which ncu does not list)."""
    if (m.__name__, n, count) not in INDEXES:
        host = np.random.default_rng(2).integers(0, n, count)
        INDEXES[m.__name__, n, count] = (m.as_tensor(host, device="cuda")
                                         if m.__name__ == "torch" else m.asarray(host))
    return INDEXES[m.__name__, n, count]


def scatter_scalar(x, m):
    """w[idx] = 2.0 into x (profile.py's inputs are its own to change)."""
    x[random_index(m, x.shape[0], x.shape[0] >> 2)] = 2.0


DRAWS = {}


def draw(m, kind, n):
    """A draw of n values as bench/random_numbers.py makes it, each
    library on its own generator, made at the first draw (libraries() has
    imported CuPy and PyTorch by then)."""
    if not DRAWS:
        peers = types.SimpleNamespace(cupy=sys.modules.get("cupy"),
                                      torch=sys.modules.get("torch"))
        DRAWS.update(draws(peers, 0))
    return DRAWS[kind][m.__name__](n)


def host_input(shape, dtype, high=1 << 20, spd=False):
    """Uniform values (integers below `high`); with spd, a stack of
    symmetric positive definite matrices."""
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, high, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (rng.random(shape, dtype=np.float32)
                + 1j * rng.random(shape, dtype=np.float32)).astype(dtype)
    x = rng.random(shape, dtype=np.float32).astype(dtype)
    if spd:
        x = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=dtype)
    return x


def libraries():
    libs = {"devarray": (devarray.asarray, devarray, lambda: None)}
    try:
        import cupy
        libs["cupy"] = (cupy.asarray, cupy, cupy.cuda.Device().synchronize)
    except ImportError:
        pass
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        libs["torch"] = (lambda a: torch.as_tensor(a, device="cuda"), torch,
                         torch.cuda.synchronize)
    except ImportError:
        pass
    return libs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("operation", help="one of: " + ", ".join(operations(28)))
    parser.add_argument("--log2-size", type=int, default=28)
    args = parser.parse_args()
    ops = operations(args.log2_size)
    if args.operation not in ops:
        parser.error(f"operation must be one of {', '.join(ops)}")
    shape, dtype, call, *options = ops[args.operation]
    host = host_input(shape, dtype, **(options[0] if options else {}))
    start, stop = cuda_profiler()
    for name, (to_device, module, sync) in libraries().items():
        x = to_device(host)
        for _ in range(WARMUP):
            call(x, module)
        sync()
        devarray.synchronize()
        start()
        call(x, module)
        sync()
        devarray.synchronize()
        stop()
        print(f"profiled {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
