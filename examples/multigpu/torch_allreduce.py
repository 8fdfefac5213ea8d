"""all_reduce of devarray memory with torch.distributed's NCCL backend, one
process per GPU, zero-copy: each rank's DeviceArray is shared with PyTorch
through DLPack (torch.from_dlpack), reduced in place by NCCL, and read back
through the same DeviceArray.

    torchrun --nproc-per-node=2 examples/multigpu/torch_allreduce.py

Ordering: devarray and PyTorch both issue on the legacy default stream
unless told otherwise; torch.from_dlpack passes PyTorch's current stream to
DeviceArray.__dlpack__, which makes it wait for devarray's stream, and a
blocking all_reduce makes PyTorch's current stream wait for NCCL's.  So d
may be read by devarray right after all_reduce returns."""

import os

import numpy as np
import torch
import torch.distributed as dist

import devarray

N = 1 << 20


def rank_data(rank):
    """Rank r's contribution: small integers, so the float32 sum is exact."""
    return np.random.default_rng(rank).integers(-100, 100, N).astype(np.float32)


def main():
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    with devarray.Device(local):
        d = devarray.asarray(rank_data(rank))   # devarray owns the memory
        t = torch.from_dlpack(d)                # a view of it, no copy
        assert t.data_ptr() == d.ptr and t.device.index == local
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        got = d.to_host()                       # the reduced values, through devarray
    expected = sum(rank_data(r) for r in range(world))
    assert np.array_equal(got, expected), "rank %d: wrong all_reduce result" % rank
    dist.destroy_process_group()
    print("rank %d of %d: OK" % (rank, world))


if __name__ == "__main__":
    main()
