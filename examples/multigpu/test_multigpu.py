"""The recipes of docs/multi-gpu.md, run as written, each in its own
processes (mpiexec, torchrun).  What needs two GPUs skips with a reason
starting "needs 2 GPUs:" elsewhere (a failure instead under
DEVARRAY_REQUIRE_GPUS=2); the host-staged MPI recipe and the dask one also
run on devarray's host backend."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

import devarray
from devarray import _core

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


def need_mpiexec():
    need("mpi4py")
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec on PATH")
    return (mpiexec, "-n", "2")


@pytest.fixture
def two_gpus(request):
    count = getattr(devarray, "device_count", None)
    cuda = _core._cuda_available()
    seen = ("devarray has no usable CUDA backend here" if not cuda
            else "devarray has no device_count() (multi-device support is not built in)"
            if count is None else "devarray sees %d" % count())
    if not cuda or count is None or count() < 2:
        reason = "needs 2 GPUs: " + seen
        required = os.environ.get("DEVARRAY_REQUIRE_GPUS", "")
        if required.isdigit() and int(required) >= 2:
            pytest.fail("DEVARRAY_REQUIRE_GPUS=%s but %s" % (required, reason), pytrace=False)
        pytest.skip(reason)
    return request.getfixturevalue("gpu")


@pytest.mark.parametrize("mode", [[], ["--cuda-aware"]], ids=["host-staged", "dlpack"])
def test_mpi_on_host_backend(host, mode):
    out = run(["mpi_allreduce.py", *mode], "host", need_mpiexec())
    assert out.count(": OK") == 2, out


def test_mpi_host_staged_on_gpu(gpu):
    """Host staging needs no CUDA-aware MPI: it runs on one GPU too (both
    ranks on it) and on two (one each)."""
    out = run(["mpi_allreduce.py"], "cuda", need_mpiexec())
    assert out.count("allreduce_host_staged, cuda): OK") == 2, out


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


def test_dask_two_gpus(two_gpus):
    need("dask")
    assert "dask over [0, 1" in run(["dask_sum.py"], "cuda")


def test_torch_allreduce(two_gpus):
    need("torch")
    import torch.distributed as dist

    if not dist.is_nccl_available():
        pytest.skip("this PyTorch has no NCCL backend")
    out = run(["-m", "torch.distributed.run", "--nproc-per-node=2", "torch_allreduce.py"],
              "cuda")
    assert out.count(" of 2: OK") == 2, out


def test_cupy_nccl(two_gpus):
    need("cupy")
    try:
        from cupy.cuda import nccl  # noqa: F401
    except ImportError as exc:
        pytest.skip("CuPy has no NCCL: %s" % exc)
    assert "GPUs: OK" in run(["cupy_nccl_allreduce.py"], "cuda")

