"""Allreduce of devarray memory with mpi4py, one process per GPU.

    mpiexec -n 2 python3 examples/multigpu/mpi_allreduce.py               # host-staged
    mpiexec -n 2 python3 examples/multigpu/mpi_allreduce.py --cuda-aware  # device buffers

mpi4py knows nothing of CUDA streams: it reads the buffer's address (from
DLPack or __cuda_array_interface__) and the MPI library reads or writes the
memory at once.  So the data must be ready before the MPI call: the writer
synchronizes first, devarray.synchronize() (every stream of the device) or
s.synchronize() for the stream s that wrote it.  After the call the memory
is complete (MPI's blocking calls return when it is).

--cuda-aware hands the DeviceArray itself to MPI, which needs an MPI built
with CUDA support (Open MPI with UCX/CUDA, MVAPICH2-GDR, MPICH with
--with-cuda, ...): with an MPI without it, the call crashes or corrupts
memory, as MPI cannot tell.  The default stages through host memory
(to_host, MPI on the NumPy array, asarray back), which works with any MPI.
On devarray's host backend both paths run on the CPU."""

import sys

import numpy as np
from mpi4py import MPI

import devarray

N = 1 << 20


def rank_data(rank):
    """Rank r's contribution: small integers, so the float32 sum is exact."""
    return np.random.default_rng(rank).integers(-100, 100, N).astype(np.float32)


def on_my_device(rank, fn):
    """fn() with this rank's GPU current (several GPUs), or as is."""
    count = getattr(devarray, "device_count", None)
    if devarray.backend() != "cuda" or count is None or count() < 2:
        return fn()
    with devarray.Device(rank % count()):
        return fn()


def allreduce_host_staged(comm, d):
    host = d.to_host()          # waits for the device: the data are complete
    comm.Allreduce(MPI.IN_PLACE, host, op=MPI.SUM)
    return devarray.asarray(host)


def allreduce_cuda_aware(comm, d):
    devarray.synchronize()      # mpi4py ignores streams: d must be written first
    comm.Allreduce(MPI.IN_PLACE, d, op=MPI.SUM)
    return d


def main():
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    reduce = allreduce_cuda_aware if "--cuda-aware" in sys.argv[1:] else allreduce_host_staged

    def run():
        d = devarray.asarray(rank_data(rank)) * 1   # written by a devarray kernel
        return reduce(comm, d).to_host()

    got = on_my_device(rank, run)
    expected = sum(rank_data(r) for r in range(world))
    assert np.array_equal(got, expected), "rank %d: wrong Allreduce result" % rank
    print("rank %d of %d (%s, %s): OK" % (rank, world, reduce.__name__, devarray.backend()))


if __name__ == "__main__":
    main()
