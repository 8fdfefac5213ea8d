"""Host overhead per op: the wall time of small ops (1,024 float32) issued
back to back, the 0-d read-backs (float(a.sum()), .item(), bool(any)) next
to their floor, the upload of a small NumPy array, and the import time of
each library in a fresh interpreter.

Targets: bench/README.md's table, from the issue that set them (<= 0.75x
PyTorch's overhead, a + a also <= 0.6x CuPy's and the upload <= 0.75x
CuPy's; the read-backs <= 0.9x PyTorch; import < 30 ms and <= 0.1x CuPy's).
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

from runner import (GPU_LIBS, IMPORT_SLOW_S, IMPORT_SLOW_TRIES, IMPORT_TRIES, IN_PLACE, ROOT,
                    SMALL, library_functions, log, new_row, one_line, random_array)

import devarray  # after runner, which puts the in-place build on sys.path

IMPORT_CODE = ("import sys, time\n"
               "t = time.perf_counter_ns()\n"
               "import {0}\n"
               "t = time.perf_counter_ns() - t\n"
               "print(t, 'numpy' in sys.modules)\n")


def import_time(module):
    """Best of IMPORT_TRIES fresh interpreters (IMPORT_SLOW_TRIES when the
    third is still over IMPORT_SLOW_S): (seconds, whether NumPy was imported
    with it), or (None, None) when module is not installed."""
    if importlib.util.find_spec(module) is None:
        return None, None
    env = dict(os.environ)
    if IN_PLACE:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    best = numpy_loaded = None
    for i in range(IMPORT_TRIES):
        if i == IMPORT_SLOW_TRIES and best > IMPORT_SLOW_S * 1e9:
            break
        proc = subprocess.run([sys.executable, "-c", IMPORT_CODE.format(module)],
                              capture_output=True, text=True, env=env,
                              cwd=tempfile.gettempdir(), timeout=300)
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            raise RuntimeError(lines[-1] if lines else "exit status %d" % proc.returncode)
        ns, loaded = proc.stdout.strip().splitlines()[-1].split()
        if best is None or int(ns) < best:
            best = int(ns)
        numpy_loaded = loaded == "True"
    return best / 1e9, numpy_loaded


def import_rows(bench, rng, log2n):
    """Each library's import in fresh interpreters; the row checks that
    importing devarray does not import NumPy."""
    log("measuring import times")
    row = new_row("import", "import time (fresh interpreter, best of %d; of %d when over %g s)"
                  % (IMPORT_TRIES, IMPORT_SLOW_TRIES, IMPORT_SLOW_S),
                  "", "", GPU_LIBS,
                  target=[["under", 0.030, "< 30 ms"], ["peer", "cupy", 0.1, "<= 0.1x CuPy"],
                          ["check", "numpy not imported", "NumPy not imported"]])
    for lib in GPU_LIBS:
        try:
            seconds, numpy_loaded = import_time(lib)
        except Exception as exc:
            row["errors"][lib] = one_line(exc)
            continue
        row["times"][lib] = seconds
        if lib == "devarray" and numpy_loaded is not None:
            row["checks"]["numpy not imported"] = not numpy_loaded
    return [row]


def readback_floor(bench):
    """What a 0-d read-back cannot beat: one kernel, then cudaMemcpy of 4
    bytes into host memory, through CuPy's thin runtime binding."""
    if bench.cupy is None:
        return lambda a: None
    host = np.zeros(1, np.float32)
    runtime = bench.cupy.cuda.runtime

    def floor(a):
        b = a + a
        runtime.memcpy(host.ctypes.data, b.data.ptr, 4, runtime.memcpyDeviceToHost)

    return floor


def small_add_row(bench, x):
    """a + a on lib's copy of x: the host overhead that other rows compare with."""
    return bench.small_row(new_row(
        "small-add", "host overhead: a + a", "{:,}".format(SMALL), "float32", GPU_LIBS,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"],
                ["peer", "cupy", 0.6, "<= 0.6x CuPy"]]),
        {lib: lambda a: a + a for lib in GPU_LIBS}, x)


def small_add_rows(bench, rng, log2n):
    """small-add alone, for a --only run whose targets compare with it."""
    return [small_add_row(bench, random_array(rng, SMALL, np.float32))]


def small_rows(bench, rng, log2n):
    """The host overhead of a + a, exp(a), a.sum(), the read-backs and the
    upload of 1,024 float32."""
    libs = GPU_LIBS
    x = random_array(rng, SMALL, np.float32)
    small = "{:,}".format(SMALL)
    rows = [small_add_row(bench, x)]
    rows.append(bench.small_row(new_row(
        "small-exp", "host overhead: exp(a)", small, "float32", libs,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]]),
        library_functions(bench, "exp"), x))
    rows.append(bench.small_row(new_row(
        "small-sum", "host overhead: a.sum()", small, "float32", libs,
        target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]]),
        {lib: lambda a: a.sum() for lib in libs}, x))
    rows.append(bench.small_row(new_row(
        "small-item", "host overhead: float(a.sum()) (torch: .item())", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {"devarray": lambda a: float(a.sum()), "cupy": lambda a: float(a.sum()),
         "torch": lambda a: a.sum().item()}, x))
    rows.append(bench.small_row(new_row(
        "small-item-method", "host overhead: a.sum().item()", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {lib: lambda a: a.sum().item() for lib in libs}, x))
    rows.append(bench.small_row(new_row(
        "small-any", "host overhead: bool(a.any()) (torch: .any().item())", small, "float32",
        libs, target=[["peer", "torch", 0.9, "<= 0.9x PyTorch"]]),
        {"devarray": lambda a: bool(devarray.any(a)), "cupy": lambda a: bool(a.any()),
         "torch": lambda a: a.any().item()}, x))
    rows.append(bench.small_row(new_row(
        "readback-floor", "the floor: a + a, then a 4-byte cudaMemcpy to the host "
        "(CuPy's runtime binding)", small, "float32", ("cupy",)),
        {"cupy": readback_floor(bench)}, x))
    rows.append(bench.small_row(new_row(
        "small-upload", "host overhead: to_device(numpy) (cupy.asarray, torch .to)",
        small, "float32", libs, target=[["peer", "cupy", 0.75, "<= 0.75x CuPy"]]),
        bench.upload, x, upload=False))
    return rows
