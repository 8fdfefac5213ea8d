"""The recipes of docs/multi-gpu.md, run as written, each in its own
processes (mpiexec, torchrun), on every GPU of the machine.  What needs
two GPUs skips with a reason starting "needs 2 GPUs:" elsewhere (a failure
instead under DEVARRAY_REQUIRE_GPUS=2); the host-staged MPI recipe and the
dask one also run on devarray's host backend."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

import devarray

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 300


def run(args, backend, launcher=()):
    # the scripts import the devarray this test imported (installed or not)
    path = [os.path.dirname(os.path.dirname(os.path.abspath(devarray.__file__)))]
    path += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, DEVARRAY_BACKEND=backend, PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join(path))
    if launcher and os.path.basename(launcher[0]) == "mpiexec":
        # Open MPI refuses to run as root (the GPU machines' user) unless
        # both are set; MPICH ignores them
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([*launcher, sys.executable, *args], env=env, cwd=HERE,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout[-4000:]
    return proc.stdout


def need(module):
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip("%s is not installed" % module)


def need_mpiexec(ranks=2):
    need("mpi4py")
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec on PATH")
    return (mpiexec, "-n", str(ranks))


@pytest.mark.parametrize("mode", [[], ["--cuda-aware"]], ids=["host-staged", "dlpack"])
def test_mpi_on_host_backend(host, mode):
    out = run(["mpi_allreduce.py", *mode], "host", need_mpiexec())
    assert out.count(": OK") == 2, out


def test_mpi_host_staged_on_gpu(gpu):
    """Host staging needs no CUDA-aware MPI: it runs on one GPU too (both
    ranks on it)."""
    out = run(["mpi_allreduce.py"], "cuda", need_mpiexec())
    assert out.count("allreduce_host_staged, cuda): OK") == 2, out


def test_mpi_host_staged_on_every_gpu(gpus):
    """A rank per GPU."""
    out = run(["mpi_allreduce.py"], "cuda", need_mpiexec(gpus))
    assert out.count("allreduce_host_staged, cuda): OK") == gpus, out


def test_mpi_cuda_aware(gpu):
    if os.environ.get("DEVARRAY_CUDA_AWARE_MPI", "") in ("", "0"):
        pytest.skip("needs a CUDA-aware MPI: set DEVARRAY_CUDA_AWARE_MPI=1 where mpiexec is one")
    out = run(["mpi_allreduce.py", "--cuda-aware"], "cuda", need_mpiexec())
    assert out.count("allreduce_cuda_aware, cuda): OK") == 2, out


@pytest.mark.parametrize("backend", ["host", "cuda"])
def test_dask(request, backend):
    need("dask")
    request.getfixturevalue("host" if backend == "host" else "gpu")
    assert "OK" in run(["dask_sum.py"], backend)


def test_dask_every_gpu(gpus):
    need("dask")
    assert "dask over %s: OK" % list(range(gpus)) in run(["dask_sum.py"], "cuda")


def test_torch_allreduce(gpus):
    need("torch")
    import torch.distributed as dist

    if not dist.is_nccl_available():
        pytest.skip("this PyTorch has no NCCL backend")
    out = run(["-m", "torch.distributed.run", "--nproc-per-node=%d" % gpus,
               "torch_allreduce.py"], "cuda")
    assert out.count(" of %d: OK" % gpus) == gpus, out


def test_cupy_nccl(gpus):
    need("cupy")
    try:
        from cupy.cuda import nccl  # noqa: F401
    except ImportError as exc:
        pytest.skip("CuPy has no NCCL: %s" % exc)
    assert "%d GPUs: OK" % gpus in run(["cupy_nccl_allreduce.py"], "cuda")

