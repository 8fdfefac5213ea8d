"""Several GPUs (issue 14): a 1 GiB peer copy from GPU 0 to GPU 1 next to a
bare cudaMemcpyPeer loop (bench/peer_copy.cu), a 256 MiB NCCL all_reduce
over two GPUs (cupy.cuda.nccl) on devarray memory and on PyTorch tensors,
and a 256 MiB pageable upload onto GPU 1 against the h2d row's onto GPU 0
(transfers.py).  With fewer than 2 GPUs the rows say `skipped` and why.

Targets: issue 14's (<= 1.05x the C loop, <= 1.02x on PyTorch tensors,
within 5% of the h2d row; each result checked).
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

from runner import (ROOT, TRANSFER_BYTES, TRANSFER_REPS, fmt_bytes, gpus_seen, log,
                    new_row, one_line, wall_time)

import devarray  # after runner, which puts the in-place build on sys.path

PEER_COPY_BYTES = 1 << 30
ALLREDUCE_BYTES = 256 << 20


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


def multi_gpu_rows(bench, rng, log2n):
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

    x = rng.random(TRANSFER_BYTES // 4, dtype=np.float32)

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
