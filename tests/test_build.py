"""devarray.build: load() compiles, caches on disk, serialises concurrent
builds and reports compiler errors; CUDAExtension and BuildExtension build
from a setup.py; `import devarray` stays without them.

The extensions here are compiled by nvcc (with a __global__ kernel) but their
functions run on the host, so no GPU is needed; without nvcc the building
tests are skipped.  Every build targets one architecture
(DEVARRAY_CUDA_ARCHS=90) to keep them quick on CI's two cores.  Builds run in
new processes where the point is what another process sees, through a
toolkit whose nvcc logs each call, so a test can tell a compile from a cache
hit.

    python -m pytest -q tests/test_build.py
"""

import glob
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import devarray
from devarray import _toolkit

NVCC, CUDA_HOME = _toolkit.find_nvcc(lambda message: None)
needs_nvcc = pytest.mark.skipif(
    NVCC is None, reason="nvcc not found ($CUDA_HOME, $CUDA_PATH, PATH, /usr/local/cuda)")

# one architecture: a build takes seconds instead of minutes
ARCHS = "90"
# where the devarray under test is, for the builds in new processes
DEVARRAY_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(devarray.__file__)))

MODULE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime_api.h>

#ifndef NVCC_FLAG
#define NVCC_FLAG 0
#endif

extern "C" int helper_value(void);

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

static PyObject *twice(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(2 * n);
}

/* [0, 1, .., n - 1] * a, computed by `scale` on the GPU */
static PyObject *scaled(PyObject *self, PyObject *args)
{
    (void)self;
    int n;
    float a;
    float host[64];
    float *dev = NULL;
    if (!PyArg_ParseTuple(args, "if", &n, &a))
        return NULL;
    if (n < 0 || n > 64) {
        PyErr_SetString(PyExc_ValueError, "n must be in [0, 64]");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        host[i] = (float)i;
    cudaError_t err = cudaMalloc(&dev, sizeof host);
    if (err == cudaSuccess)
        err = cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice);
    if (err == cudaSuccess) {
        scale<<<1, 64>>>(dev, a, n);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess)
        err = cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dev);
    if (err != cudaSuccess) {
        PyErr_SetString(PyExc_RuntimeError, cudaGetErrorString(err));
        return NULL;
    }
    PyObject *out = PyList_New(n);
    for (int i = 0; out != NULL && i < n; i++) {
        PyObject *item = PyFloat_FromDouble(host[i]);
        if (item == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static PyObject *info(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return Py_BuildValue("{s:i,s:i,s:s}", "nvcc_major", __CUDACC_VER_MAJOR__,
                         "nvcc_flag", NVCC_FLAG, "runtime", cudaGetErrorString(cudaSuccess));
}
%(helper_call)s
static PyMethodDef methods[] = {
    {"twice", twice, METH_O, "2 * n, on the host."},
    {"info", info, METH_NOARGS, "What the build was."},
    {"scaled", scaled, METH_VARARGS, "[0, .., n - 1] * a, on the GPU."},
    %(helper_method)s
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "%(name)s", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_%(name)s(void)
{
    return PyModule_Create(&module);
}
"""

HELPER_CALL = r"""
static PyObject *helper(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyLong_FromLong(helper_value());
}
"""

HELPER_C = r"""
#ifndef C_FLAG
#define C_FLAG 0
#endif
int helper_value(void) { return C_FLAG; }
"""

USES_CAPI = r"""
#include <devarray.h>

/* (ndim, size, dtype, on the host) of any array, through devarray's C API */
static PyObject *describe(PyObject *self, PyObject *obj)
{
    (void)self;
    DevArray_View view;
    if (DevArray_GetView(obj, &view, DEVARRAY_VIEW_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *out = Py_BuildValue("(iLiO)", view.ndim, (long long)view.size, view.dtype,
                                  view.device < 0 ? Py_True : Py_False);
    DevArray_ReleaseView(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"describe", describe, METH_O, "(ndim, size, dtype, on_host) of an array."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "uses_capi", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_uses_capi(void)
{
    if (import_devarray() < 0)
        return NULL;
    return PyModule_Create(&module);
}
"""

# Runs in a new process: load argv[1] from the sources argv[2:], print twice(21).
LOADER = "import sys, devarray.build; print(devarray.build.load(sys.argv[1], sys.argv[2:]).twice(21))"


def write_module(directory, name, helper=False):
    """name.cu (and helper.c if `helper`) in `directory`; the list of paths."""
    source = directory / (name + ".cu")
    source.write_text(MODULE % {
        "name": name,
        "helper_call": HELPER_CALL if helper else "",
        "helper_method": '{"helper", helper, METH_NOARGS, "helper_value()."},' if helper else "",
    })
    if not helper:
        return [source]
    other = directory / "helper.c"
    other.write_text(HELPER_C)
    return [source, other]


@pytest.fixture
def logging_toolkit(tmp_path):
    """A CUDA_HOME whose bin/nvcc appends its arguments to $NVCC_LOG, waits
    $NVCC_SLEEP seconds before a compile, then runs the real nvcc; the rest
    of the real toolkit is linked in.  nvcc runs without LD_PRELOAD: it
    crashes with the libasan that tests/sanitize.sh preloads."""
    home = tmp_path / "cuda"
    (home / "bin").mkdir(parents=True)
    for entry in os.listdir(CUDA_HOME):
        if entry != "bin":
            (home / entry).symlink_to(os.path.join(CUDA_HOME, entry))
    nvcc = home / "bin" / "nvcc"
    nvcc.write_text(textwrap.dedent("""\
        #!/bin/sh
        [ -n "$NVCC_LOG" ] && echo "$*" >> "$NVCC_LOG"
        case " $* " in *" -c "*) sleep "${NVCC_SLEEP:-0}";; esac
        unset LD_PRELOAD
        exec %s "$@"
        """ % NVCC))
    nvcc.chmod(0o755)
    return home


@pytest.fixture
def build_env(tmp_path, logging_toolkit, monkeypatch):
    """The environment for builds, in this process and in new ones."""
    values = {
        "DEVARRAY_CUDA_ARCHS": ARCHS,
        "DEVARRAY_CACHE_DIR": str(tmp_path / "cache"),
        "CUDA_HOME": str(logging_toolkit),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [DEVARRAY_PARENT, env.get("PYTHONPATH")]))
    return env


def start_load(env, name, sources, log, **popen):
    """load() in a new process, its nvcc calls logged to `log`."""
    env = dict(env, NVCC_LOG=str(log))
    return subprocess.Popen([sys.executable, "-c", LOADER, name, *map(str, sources)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, **popen)


def finish(proc, timeout=300):
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out
    return out


def compiles(log):
    """The nvcc calls in `log` that compiled something."""
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [line for line in f if "-c" in line.split()]


def built(cache, name):
    return glob.glob(os.path.join(cache, name + "-*", name + "*.so"))


def test_import_devarray_does_not_import_build():
    code = ("import devarray, sys; "
            "assert 'devarray.build' not in sys.modules, 'devarray.build imported'; "
            "assert 'devarray._toolkit' not in sys.modules, 'devarray._toolkit imported'")
    env = dict(os.environ, PYTHONPATH=DEVARRAY_PARENT)
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


def test_architectures_and_gencode_flags():
    assert _toolkit.parse_archs("9.0, sm_80;86 90a 80") == ["80", "86", "90", "90a"]
    assert _toolkit.gencode_flags(["80", "90"]) == [
        "-gencode=arch=compute_80,code=sm_80",
        "-gencode=arch=compute_90,code=sm_90",
        "-gencode=arch=compute_90,code=compute_90",
    ]
    with pytest.raises(_toolkit.ToolkitError, match="cannot read 'nine'"):
        _toolkit.parse_archs("nine")


@needs_nvcc
def test_load_builds_once_and_a_new_process_takes_the_cache(tmp_path, build_env):
    sources = write_module(tmp_path, "cached")
    cache = build_env["DEVARRAY_CACHE_DIR"]
    first, second = tmp_path / "first.log", tmp_path / "second.log"

    assert finish(start_load(build_env, "cached", sources, first)) == "42\n"
    assert len(compiles(first)) == 1
    [so] = built(cache, "cached")
    stamp = os.stat(so).st_mtime_ns

    assert finish(start_load(build_env, "cached", sources, second)) == "42\n"
    with open(second) as f:
        assert f.read().split("\n")[:-1] == ["--version"]  # asked its version, nothing more
    assert built(cache, "cached") == [so]
    assert os.stat(so).st_mtime_ns == stamp

    # a change to the source is a new build beside the first
    with open(sources[0], "a") as f:
        f.write("\n// changed\n")
    assert finish(start_load(build_env, "cached", sources, second)) == "42\n"
    assert len(compiles(second)) == 1
    assert len(built(cache, "cached")) == 2


@needs_nvcc
def test_load_in_process_with_c_sources_and_flags(tmp_path, build_env):
    from devarray.build import load

    sources = write_module(tmp_path, "mixed", helper=True)
    module = load("mixed", sources, extra_cflags=["-DC_FLAG=3"],
                  extra_cuda_cflags=["-DNVCC_FLAG=4"])
    assert module.twice(5) == 10
    assert module.helper() == 3
    info = module.info()
    assert info["nvcc_flag"] == 4
    assert info["runtime"] == "no error"  # the static CUDA runtime is linked in
    assert info["nvcc_major"] >= 11
    assert load("mixed", sources, extra_cflags=["-DC_FLAG=3"],
                extra_cuda_cflags=["-DNVCC_FLAG=4"]) is module
    # the cache keeps builds only; the module and its log
    [entry] = glob.glob(os.path.join(build_env["DEVARRAY_CACHE_DIR"], "mixed-*", ""))
    assert sorted(os.listdir(entry)) == sorted(["build.log", os.path.basename(module.__file__)])


@needs_nvcc
def test_load_finds_devarray_h(tmp_path, build_env, backend):
    from devarray.build import load

    source = tmp_path / "uses_capi.cu"
    source.write_text(USES_CAPI)
    module = load("uses_capi", [source])
    array = devarray.empty((2, 3), dtype=devarray.float32)
    assert module.describe(array) == (2, 6, devarray.float32.num, backend == "host")


@needs_nvcc
def test_load_reports_the_compilers_message(tmp_path, build_env):
    from devarray.build import BuildError, load

    broken = tmp_path / "broken.cu"
    broken.write_text("__global__ void k(float *x)\n{\n    x[0] = ;\n}\n")
    with pytest.raises(BuildError) as info:
        load("broken", [broken])
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert re.search(r"broken\.cu\(3\): error", message), message  # nvcc's own words
    assert "bin/nvcc -c %s " % broken in message  # the command
    # nothing half-built is left to be picked up
    cache = build_env["DEVARRAY_CACHE_DIR"]
    assert [p for p in os.listdir(cache) if not p.endswith(".lock")] == []


@needs_nvcc
def test_concurrent_loads_build_once(tmp_path, build_env):
    sources = write_module(tmp_path, "raced")
    log = tmp_path / "nvcc.log"
    # the first to take the lock compiles slowly enough for the other to wait on it
    env = dict(build_env, NVCC_SLEEP="2")
    procs = [start_load(env, "raced", sources, log) for _ in range(2)]
    assert [finish(p) for p in procs] == ["42\n", "42\n"]
    assert len(compiles(log)) == 1
    assert len(built(build_env["DEVARRAY_CACHE_DIR"], "raced")) == 1


@needs_nvcc
def test_a_killed_build_does_not_block_the_next(tmp_path, build_env):
    sources = write_module(tmp_path, "killed")
    cache = build_env["DEVARRAY_CACHE_DIR"]
    log = tmp_path / "nvcc.log"
    # its own session, so that its nvcc, left running when it dies, can be ended
    victim = start_load(dict(build_env, NVCC_SLEEP="300"), "killed", sources, log,
                        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not compiles(log):  # holds the lock and is compiling
            assert victim.poll() is None, victim.communicate()[0]
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.1)
        victim.send_signal(signal.SIGKILL)
        victim.communicate()
        # its nvcc still runs; the lock went with the process anyway
        assert finish(start_load(build_env, "killed", sources, tmp_path / "next.log"),
                      timeout=200) == "42\n"
    finally:
        try:
            os.killpg(victim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert len(built(cache, "killed")) == 1
    assert glob.glob(os.path.join(cache, ".killed-*")) == []  # its half-build was cleared


@needs_nvcc
def test_load_for_the_visible_gpu_runs_its_kernel(tmp_path, build_env, gpu, monkeypatch):
    from devarray.build import load

    monkeypatch.delenv("DEVARRAY_CUDA_ARCHS")
    archs = _toolkit.visible_archs()
    assert archs, "devarray sees a GPU, the driver through ctypes none"
    module = load("ongpu", write_module(tmp_path, "ongpu"))
    assert module.scaled(5, 2.5) == [0.0, 2.5, 5.0, 7.5, 10.0]
    with open(os.path.join(os.path.dirname(module.__file__), "build.log")) as f:
        log = f.read()
    assert "code=sm_%s " % archs[-1] in log and "code=compute_%s " % archs[-1] in log


@needs_nvcc
def test_setup_py_with_cuda_extension(tmp_path, build_env):
    pytest.importorskip("setuptools")
    write_module(tmp_path, "viasetup", helper=True)
    (tmp_path / "setup.py").write_text(textwrap.dedent("""\
        from setuptools import setup
        from devarray.build import BuildExtension, CUDAExtension

        setup(name="viasetup",
              ext_modules=[CUDAExtension(
                  "viasetup", ["viasetup.cu", "helper.c"],
                  extra_compile_args={"cxx": ["-DC_FLAG=3"], "nvcc": ["-DNVCC_FLAG=4"]})],
              cmdclass={"build_ext": BuildExtension})
        """))
    env = dict(build_env, NVCC_LOG=str(tmp_path / "nvcc.log"))
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp_path,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    assert build.returncode == 0, build.stdout
    assert len(compiles(tmp_path / "nvcc.log")) == 1
    code = ("import viasetup; i = viasetup.info(); "
            "print(viasetup.twice(21), viasetup.helper(), i['nvcc_flag'], i['runtime'])")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    assert run.returncode == 0, run.stdout
    assert run.stdout == "42 3 4 no error\n"
