#!/usr/bin/env python3
"""devarray chunks next to CuPy chunks in a dask.distributed cluster.

For each worker count (1, 2, 4, as many as there are GPUs) it starts a
dask_cuda.LocalCUDACluster of that many workers (one per GPU), runs the same
workloads on a dask array of DeviceArray chunks and on one of CuPy chunks in
that cluster, and prints one Markdown table: the best of --repeat times after
a warm-up, and devarray's time over CuPy's.

- `(x + 1).sum()`: bandwidth-bound, --sum-gib of float32 (default 32 GiB),
  4 chunks per worker of the largest cluster, gathered as one scalar;
- `x.T @ x` of a tall float32 matrix of 4096 columns (--matmul-gib, 8 GiB),
  persisted on the workers;
- a rechunk from rows to columns of a square float32 matrix (--rechunk-gib,
  8 GiB): every output chunk takes a piece of every input chunk, persisted;
- a chunk of --transfer-gib (1 GiB) made on one worker and read by a task
  on another (2 workers and more).

The input arrays are made on the workers (nothing goes from the client) and
persisted before the timing.  Spilling is off (device_memory_limit=None), so
that a time is the work's, not dask-cuda's.  --smoke runs every row tiny, on
one GPU or on devarray's host backend (without CuPy: devarray rows only).

    python3 bench/dask_cluster.py                     # every GPU: 1, 2, 4 workers
    python3 bench/dask_cluster.py --protocol ucx      # distributed-ucxx installed
    python3 bench/dask_cluster.py --smoke             # a check that it runs

--profile adds tables that split the sum row's and the x.T @ x row's time:
the same graph on chunks of one row (dask's own cost, with the partial
products of x.T @ x as large as ever), and one chunk's work timed on a
worker without dask, times the chunks per worker (the GPU's); and a table
of distributed's fine performance metrics of the x.T @ x row (time spent
executing, serializing and on the network, summed over the workers).
"""

import argparse
import collections
import importlib.util
import math
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this checkout's in-place build when there is one, else the installed devarray
if any((ROOT / "devarray").glob("_core*.so")):
    sys.path.insert(0, str(ROOT))

import dask.array as da  # noqa: E402
import distributed  # noqa: E402
import numpy as np  # noqa: E402

import devarray  # noqa: E402
import devarray.dask  # noqa: E402,F401  (the client receives DeviceArray results)
from devarray import _core  # noqa: E402

MATMUL_COLUMNS = 4096
SUM_COLUMNS = 8192
CHUNKS_PER_WORKER = 4
SMOKE_GIB = 1 / 64             # 16 MiB per workload, 1 MiB moved
LIB_TITLES = {"devarray": "devarray", "cupy": "CuPy"}


def log(text):
    print(text, file=sys.stderr, flush=True)


def cupy_usable():
    """Whether CuPy imports and sees a GPU (the CuPy column's condition)."""
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception as exc:  # noqa: BLE001 - any failure means no CuPy column
        log("CuPy is not usable: %s" % exc)
        return False


# ---- run on the workers ------------------------------------------------------

def fill(lib, shape, dtype, value):
    """A new array of lib ("devarray" or "cupy") on the worker's device."""
    if lib == "cupy":
        import cupy
        return cupy.full(shape, value, dtype=dtype)
    return devarray.full(shape, value, dtype=dtype)


def fill_block(lib, dtype, block_info=None):
    """A chunk of the values 1 to 4, by its place in the grid."""
    info = block_info[None]
    return fill(lib, info["chunk-shape"], dtype, 1 + sum(info["chunk-location"]) % 4)


def first_element(x):
    """A task that needs all of x on its worker, and returns little."""
    return float(x.reshape(-1)[0])


def same(block):
    return block


def chunk_sum(lib, x):
    """The sum row's work on one chunk, its result read back (float waits)."""
    return float((x + 1).sum())


def chunk_gram(lib, x):
    """The x.T @ x row's work on one chunk, finished on the GPU."""
    product = x.T @ x
    finish_device_work(lib)
    return product


def one_chunk_seconds(lib, chunk_job, shape, repeat):
    """The best time of chunk_job on one chunk of shape on this worker's GPU:
    the GPU's share of one task of a row, without dask."""
    x = fill(lib, shape, "float32", 1.0)
    best = math.inf
    for i in range(repeat + 1):
        start = time.perf_counter()
        chunk_job(lib, x)
        if i:
            best = min(best, time.perf_counter() - start)
    return best


def finish_device_work(lib):
    """Wait for the work queued on this worker's GPU: a task ends when its
    kernels are queued, not run, so a persisted result is only done here."""
    if lib == "cupy":
        import cupy
        cupy.cuda.Device().synchronize()
    else:
        devarray.synchronize()


def worker_seconds(dask_worker):
    """distributed's fine performance metrics of this worker, in seconds, by
    "execute <task prefix> <activity>" and "<gather-dep|get-data> <activity>"
    (the receiving and the sending side of transfers)."""
    seconds = collections.defaultdict(float)
    for key, value in dask_worker.digests_total.items():
        if isinstance(key, tuple) and key[-1] == "seconds":
            context, activity = key[0], key[-2]
            label = ("%s %s %s" % (context, key[2], activity) if context == "execute"
                     else "%s %s" % (context, activity))
            seconds[label] += value
    return dict(seconds)


def cluster_seconds(client):
    """worker_seconds summed over the workers."""
    total = collections.defaultdict(float)
    for per_worker in client.run(worker_seconds).values():
        for label, value in per_worker.items():
            total[label] += value
    return total


def release_memory():
    """Give both libraries' cached device memory back between runs, so that
    neither starts with the other's cache in the way."""
    if "cupy" in sys.modules:
        sys.modules["cupy"].get_default_memory_pool().free_all_blocks()
    devarray.release_memory()


# ---- on the client -------------------------------------------------------------

def meta(lib, dtype):
    if lib == "cupy":
        import cupy
        return cupy.empty((0, 0), dtype=dtype)
    return devarray.empty((0, 0), dtype=dtype)


def made_on_workers(client, lib, shape, row_chunk, dtype="float32"):
    """A persisted dask array of lib chunks of rows, made by the workers."""
    chunks = (tuple(min(row_chunk, shape[0] - r) for r in range(0, shape[0], row_chunk)),
              (shape[1],))
    x = da.map_blocks(fill_block, lib, np.dtype(dtype), chunks=chunks, dtype=dtype,
                      meta=meta(lib, dtype))
    return persisted(client, lib, x)


def best_time(job, x, repeat):
    """Best of `repeat` wall times of job(x), after a warm-up, and the last
    result.  Each run starts from x under new keys (an identity task per
    chunk): the same graph again would find its results still held."""
    best, result = math.inf, None
    for i in range(repeat + 1):
        fresh = x.map_blocks(same, name="%s-run-%d" % (x.name, i))
        start = time.perf_counter()
        result = job(fresh)
        if i:
            best = min(best, time.perf_counter() - start)
    return best, result


def persisted(client, lib, x):
    """x persisted, with its GPU work finished on every worker."""
    y = client.persist(x)
    distributed.wait(y)
    client.run(finish_device_work, lib)
    return y


def row_count(gib, columns, chunks):
    """Rows of float32 of `columns` for about gib GiB, a multiple of chunks."""
    rows = int(gib * (1 << 30)) // (4 * columns)
    return max(chunks, rows - rows % chunks)


def sum_graph(x):
    return float((x + 1).sum().compute())


def time_sum(client, lib, args, chunks):
    rows = row_count(args.sum_gib, SUM_COLUMNS, chunks)
    x = made_on_workers(client, lib, (rows, SUM_COLUMNS), rows // chunks)
    return best_time(sum_graph, x, args.repeat)


def row_profile(client, lib, args, chunks, n_workers, wall, profiled):
    """Where a row's time goes: the same graph on chunks of one row (dask's
    cost: scheduling, the identity tasks, moving the partial results, which
    for x.T @ x are as large as with full chunks, the result to the
    client), and the GPU's work per worker (one chunk's time, measured on a
    worker without dask, times the chunks each worker holds)."""
    graph, chunk_job, columns, gib = profiled
    rows = row_count(gib, columns, chunks)
    tiny = made_on_workers(client, lib, (chunks, columns), 1)
    floor, _ = best_time(graph, tiny, args.repeat)
    worker = sorted(client.scheduler_info()["workers"])[0]
    one = client.run(one_chunk_seconds, lib, chunk_job, (rows // chunks, columns), args.repeat,
                     workers=[worker])[worker]
    return (n_workers, LIB_TITLES[lib], wall, floor, one * chunks / n_workers)


def profile_table(title, profiles):
    lines = ["%s:" % title, "",
             "| workers | chunks | wall | dask alone (1-row chunks) | array work per worker "
             "| dask + work |",
             "| ---: | --- | ---: | ---: | ---: | ---: |"]
    for n_workers, lib, wall, floor, work in profiles:
        lines.append("| %d | %s | %.4f s | %.4f s | %.4f s | %.4f s |"
                     % (n_workers, lib, wall, floor, work, floor + work))
    return "\n".join(lines)


def gram_graph(client, lib):
    return lambda x: persisted(client, lib, x.T @ x)


def metrics_table(metrics):
    """The x.T @ x row's worker seconds per run, summed over the workers,
    by activity (those of 1 ms or more somewhere)."""
    columns = sorted(metrics)
    labels = sorted({label for m in metrics.values() for label, value in m.items()
                     if value >= 1e-3})
    lines = ["The x.T @ x row's seconds per run on the workers, summed over them "
             "(distributed's fine performance metrics):", "",
             "| activity | " + " | ".join("%d, %s" % c for c in columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for label in labels:
        lines.append("| %s | " % label + " | ".join(
            "%.4f" % metrics[c].get(label, 0.0) for c in columns) + " |")
    return "\n".join(lines)


def time_matmul(client, lib, args, chunks):
    rows = row_count(args.matmul_gib, args.matmul_columns, chunks)
    x = made_on_workers(client, lib, (rows, args.matmul_columns), rows // chunks)
    seconds, product = best_time(gram_graph(client, lib), x, args.repeat)
    return seconds, float(product[0, 0].compute())


def time_rechunk(client, lib, args, chunks):
    n = math.isqrt(int(args.rechunk_gib * (1 << 30)) // 4)
    n = max(chunks, n - n % chunks)
    x = made_on_workers(client, lib, (n, n), n // chunks)
    seconds, columns = best_time(
        lambda x: persisted(client, lib, x.rechunk((n, n // chunks), method="tasks")), x,
        args.repeat)
    return seconds, float(columns[n - 1, n - 1].compute())


def time_transfer(client, lib, args, workers):
    """A chunk made on workers[0] and read by a task on workers[1]: a new
    chunk each time (a worker keeps what it fetched)."""
    n = int(args.transfer_gib * (1 << 30)) // 4
    best = math.inf
    for i in range(args.repeat + 1):
        chunk = client.submit(fill, lib, (n,), "float32", 2.0, workers=[workers[0]],
                              pure=False)
        distributed.wait(chunk)
        client.run(finish_device_work, lib, workers=[workers[0]])
        start = time.perf_counter()
        value = client.submit(first_element, chunk, workers=[workers[1]]).result()
        if i:
            best = min(best, time.perf_counter() - start)
    return best, value


def size(gib):
    return "%g GiB" % gib if gib >= 1 else "%g MiB" % (gib * 1024)


def workloads(args):
    """(title, timer) of the rows every cluster runs."""
    return [
        ("`(x + 1).sum()`, %s float32" % size(args.sum_gib), time_sum),
        ("`x.T @ x`, %s float32, %d columns" % (size(args.matmul_gib), args.matmul_columns),
         time_matmul),
        ("rechunk rows to columns, %s float32" % size(args.rechunk_gib), time_rechunk),
    ]


def start_cluster(backend, n_workers, args):
    quiet = dict(dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"})
    if backend == "cuda":
        from dask_cuda import LocalCUDACluster
        return LocalCUDACluster(n_workers=n_workers, protocol=args.protocol,
                                preload=["devarray.dask"], device_memory_limit=None,
                                memory_limit=None, **quiet)
    return distributed.LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                                    protocol=args.protocol, preload=["devarray.dask"],
                                    env={"DEVARRAY_BACKEND": "host"}, **quiet)


def run_row(timer, client, lib, args, extra):
    """(seconds, value) of one row and library, or (the error, None)."""
    try:
        return timer(client, lib, args, extra)
    except Exception as exc:  # noqa: BLE001 - a failed row is reported, the run goes on
        log("    failed: %s: %s" % (type(exc).__name__, exc))
        return "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:200]), None


def measure(backend, libs, args):
    """Rows of (title, workers, {lib: (seconds or error, value)}); with
    --profile also the profiles of the sum and x.T @ x rows by timer, and the
    x.T @ x row's worker metrics by (workers, library)."""
    rows, profiles, metrics = [], collections.defaultdict(list), {}
    chunks = CHUNKS_PER_WORKER * max(args.workers)
    # per profiled row: (graph, one chunk's job, columns, GiB)
    profiled = {
        time_sum: lambda client, lib: (sum_graph, chunk_sum, SUM_COLUMNS, args.sum_gib),
        time_matmul: lambda client, lib: (gram_graph(client, lib), chunk_gram,
                                          args.matmul_columns, args.matmul_gib),
    }
    transfer = "%s chunk from one worker to another (%s)" % (size(args.transfer_gib),
                                                            args.protocol)
    for n_workers in args.workers:
        log("%d worker(s)" % n_workers)
        results = collections.defaultdict(dict)
        with start_cluster(backend, n_workers, args) as cluster, \
                distributed.Client(cluster) as client:
            for lib in libs:
                for title, timer in workloads(args):
                    log("  %s: %s" % (lib, title))
                    before = cluster_seconds(client) if args.profile else None
                    results[title][lib] = run_row(timer, client, lib, args, chunks)
                    if args.profile and timer is time_matmul:
                        after = cluster_seconds(client)
                        metrics[n_workers, LIB_TITLES[lib]] = {
                            label: (after[label] - before.get(label, 0.0)) / (args.repeat + 1)
                            for label in after}
                    wall = results[title][lib][0]
                    if args.profile and timer in profiled and isinstance(wall, float):
                        profiles[timer].append(row_profile(
                            client, lib, args, chunks, n_workers, wall,
                            profiled[timer](client, lib)))
                if n_workers >= 2:
                    log("  %s: %s" % (lib, transfer))
                    workers = sorted(client.scheduler_info()["workers"])
                    results[transfer][lib] = run_row(time_transfer, client, lib, args, workers)
                client.run(release_memory)
        rows += [(title, n_workers, per_lib) for title, per_lib in results.items()]
    return rows, profiles, metrics


def cell(seconds):
    return "%.4f s" % seconds if isinstance(seconds, float) else "error"


def table(rows, libs):
    """The Markdown table, and the errors and disagreements to print under it."""
    compare = "cupy" in libs
    lines = ["| workload | workers | " + " | ".join(LIB_TITLES[lib] for lib in libs)
             + (" | devarray / CuPy |" if compare else " |"),
             "| --- | ---: |" + " ---: |" * (len(libs) + compare)]
    notes = []
    for title, workers, per_lib in rows:
        seconds = {lib: per_lib[lib][0] for lib in libs}
        line = "| %s | %d | " % (title, workers) + " | ".join(cell(seconds[lib]) for lib in libs)
        if compare:
            both = all(isinstance(seconds[lib], float) for lib in libs)
            line += " | %.2fx" % (seconds["devarray"] / seconds["cupy"]) if both else " | n/a"
            # the same values from both libraries: the rows compare like with like
            values = [per_lib[lib][1] for lib in libs]
            if both and not math.isclose(values[0], values[1], rel_tol=1e-3):
                notes.append("%s, %d workers: devarray gave %r, CuPy %r"
                             % (title, workers, values[0], values[1]))
        lines.append(line + " |")
        notes += ["%s, %d workers, %s: %s" % (title, workers, LIB_TITLES[lib], seconds[lib])
                  for lib in libs if not isinstance(seconds[lib], float)]
    return "\n".join(lines), notes


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default=None,
                        help="worker counts, comma-separated (default 1,2,4 up to the GPUs)")
    parser.add_argument("--sum-gib", type=float, default=32.0)
    parser.add_argument("--matmul-gib", type=float, default=8.0)
    parser.add_argument("--matmul-columns", type=int, default=MATMUL_COLUMNS)
    parser.add_argument("--rechunk-gib", type=float, default=8.0)
    parser.add_argument("--transfer-gib", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3, help="best of N, after a warm-up")
    parser.add_argument("--protocol", default="tcp", choices=["tcp", "ucx"])
    parser.add_argument("--profile", action="store_true",
                        help="split the sum and x.T @ x rows' time into dask's and the GPU's")
    parser.add_argument("--smoke", action="store_true",
                        help="every row tiny, on one GPU or on the host backend")
    args = parser.parse_args()
    if args.smoke:
        args.sum_gib = args.matmul_gib = args.rechunk_gib = SMOKE_GIB
        args.transfer_gib = SMOKE_GIB / 16
        args.matmul_columns = 256
        args.repeat = 1
    return args


def main():
    args = parse_args()
    with warnings.catch_warnings():
        # where CUDA is missing, devarray warns that it uses the host backend
        warnings.simplefilter("ignore", RuntimeWarning)
        gpus = devarray.device_count() if _core._cuda_available() else 0
    backend = "cuda" if gpus else "host"
    devarray.set_backend(backend)
    if backend == "cuda" and importlib.util.find_spec("dask_cuda") is None:
        sys.exit("bench/dask_cluster.py: dask_cuda is not installed (tests/dask_wheels.sh)")
    if args.workers:
        args.workers = [int(n) for n in args.workers.split(",")]
    elif args.smoke:
        args.workers = [1] if gpus == 1 else [1, 2]
    else:
        args.workers = [n for n in (1, 2, 4) if n <= max(gpus, 1)]
    if backend == "cuda" and max(args.workers) > gpus:
        sys.exit("bench/dask_cluster.py: %d workers asked for, %d GPUs"
                 % (max(args.workers), gpus))
    libs = ["devarray"] + (["cupy"] if backend == "cuda" and cupy_usable() else [])
    info = _core._device_info() if backend == "cuda" else None
    import dask
    print("devarray %s (%s backend%s), dask %s, distributed %s%s; protocol %s; best of %d"
          % (devarray.__version__, backend,
             ", %d x %s" % (gpus, info.get("name")) if info else "",
             dask.__version__, distributed.__version__,
             ", CuPy %s" % sys.modules["cupy"].__version__ if "cupy" in libs else "",
             args.protocol, args.repeat))
    print()
    rows, profiles, metrics = measure(backend, libs, args)
    text, notes = table(rows, libs)
    print(text)
    for line in notes:
        print("- " + line)
    for timer, title in ((time_sum, "Where the sum row's time goes"),
                         (time_matmul, "Where the x.T @ x row's time goes")):
        if profiles[timer]:
            print()
            print(profile_table(title, profiles[timer]))
    if metrics:
        print()
        print(metrics_table(metrics))


if __name__ == "__main__":
    main()
