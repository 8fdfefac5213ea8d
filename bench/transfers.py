"""Transfers, streams and graphs: pageable host-to-device and device-to-host
copies of 256 MiB (into a new array and into a buffer); what `with s:`, an
op on a non-default stream and a replayed CUDA graph cost (issue 12); and a
copy/compute pipeline from pinned memory on one devarray.Stream and over 4
(issue 12), with CuPy's streams beside it.

Targets: bench/README.md's table, from the issues that set them (CuPy's
GB/s for the transfers, 1.5x it into a new host array), issue 12's for the
streams, graphs and pipeline.
"""

import numpy as np

from runner import (GPU_LIBS, SMALL, TRANSFER_BYTES, TRANSFER_REPS, fmt_bytes, log,
                    new_row, per_op_time, random_array, wall_time)

import devarray  # after runner, which puts the in-place build on sys.path


def h2d_row(bench, x):
    """The pageable upload of x onto the current GPU (the multi-GPU rows'
    reference for GPU 1)."""
    return bench.transfer_row(new_row(
        "h2d", "host->device, pageable: to_device (cupy.asarray, torch .to)",
        fmt_bytes(x.nbytes), "float32", GPU_LIBS, x.nbytes,
        target=[["peer", "cupy", 1.0, ">= CuPy GB/s"]]), bench.upload, x, upload=False)


def h2d_rows(bench, rng, log2n):
    """h2d alone, for a --only run whose targets compare with it."""
    return [h2d_row(bench, random_array(rng, TRANSFER_BYTES // 4, np.float32))]


def transfer_rows(bench, rng, log2n):
    """Host to device, device to a new host array, device into a pageable
    buffer: 256 MiB float32, each library's own call."""
    libs = GPU_LIBS
    x = random_array(rng, TRANSFER_BYTES // 4, np.float32)
    mib = fmt_bytes(TRANSFER_BYTES)
    rows = [h2d_row(bench, x)]
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
    return rows


# ---- streams and graphs (issue 12): what a stream and a graph cost ----------

GRAPH_OPS = 20


def graph_chain(x, y):
    """GRAPH_OPS elementwise ops on small arrays: launch-bound."""
    for _ in range(GRAPH_OPS // 4):
        x = x * 1.25 + y
        x = devarray.sqrt(devarray.abs(x)) - 0.5
    return x


def stream_rows(bench, rng, log2n):
    """The cost of `with s:`, of a + a on a non-default stream, and of 20
    small ops issued one by one against the same 20 replayed from a CUDA
    graph (devarray only: the rows measure devarray's own mechanisms)."""
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


def pipeline_rows(bench, rng, log2n):
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
            rng.random(out=np.asarray(src), dtype=np.float32)
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
