"""all_reduce of devarray memory with CuPy's NCCL bindings
(cupy.cuda.nccl), one process driving every GPU: devarray's pointers and
stream handles go straight to ncclAllReduce, no copy.

    python3 examples/multigpu/cupy_nccl_allreduce.py        # every GPU

Ordering: each GPU's data is made on a devarray.Stream of that GPU, and
NCCL is given the same stream's handle, so the all_reduce runs after the
writes; s.synchronize() waits for it before the results are read."""

import numpy as np
from cupy.cuda import nccl

import devarray

N = 1 << 20


def rank_data(rank):
    return np.random.default_rng(rank).integers(-100, 100, N).astype(np.float32)


def main():
    n = devarray.device_count()
    if n < 2:
        raise SystemExit("needs 2 GPUs: devarray sees %d" % n)
    comms = nccl.NcclCommunicator.initAll(list(range(n)))
    arrays, streams = [], []
    for dev in range(n):
        with devarray.Device(dev):
            s = devarray.Stream()
            with s:
                arrays.append(devarray.asarray(rank_data(dev)))
            streams.append(s)
    nccl.groupStart()   # one thread issues for every GPU: group the calls
    for comm, d, s in zip(comms, arrays, streams):
        comm.allReduce(d.ptr, d.ptr, d.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, s.handle)
    nccl.groupEnd()
    for s in streams:
        s.synchronize()
    expected = sum(rank_data(r) for r in range(n))
    for dev, d in enumerate(arrays):
        assert d.device == dev
        assert np.array_equal(d.to_host(), expected), "GPU %d: wrong result" % dev
    for comm in comms:
        comm.destroy()
    print("%d GPUs: OK" % n)


if __name__ == "__main__":
    main()
