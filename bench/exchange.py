"""Exchange and the C API: the zero-copy import of a foreign (numba.cuda)
array through its __cuda_array_interface__, DevArray_GetView +
DevArray_ReleaseView of a DeviceArray and of a CuPy array timed in C
(tests/capi_probe.c), and examples/vecadd's scale() next to devarray's own
a * 2.0: what an extension built on devarray.h pays per call.

Targets: bench/README.md's table, from the issue that set them (< 100 ns a
view of a DeviceArray, a CuPy array's <= cupy.asarray, vecadd.scale <= 1.2x
devarray's a * 2.0, the import <= CuPy).
"""

import importlib
import importlib.util
import os
import shutil
import statistics
import subprocess
import sysconfig
import tempfile

import numpy as np

from runner import (GPU_LIBS, ROOT, SMALL, SMALL_BATCHES, log, new_row, one_line,
                    per_op_time, random_array)

import devarray  # after runner, which puts the in-place build on sys.path

VIEW_PAIRS = 1_000_000         # GetView + ReleaseView pairs in one batch, DeviceArray
FOREIGN_VIEW_PAIRS = 20_000    # the same, of a foreign array


def numba_device_array(x):
    """x on the device as a numba.cuda array (the foreign producer of the
    import row), or None when Numba is missing: the row then records errors."""
    try:
        from numba import cuda
        return cuda.to_device(x)
    except Exception as exc:
        log("numba.cuda not usable: %s" % one_line(exc))
        return None


_probe = None


def capi_probe():
    """tests/capi_probe.c, built with the system C compiler as
    tests/test_capi.py builds it, and imported (once): its time_views(obj, n)
    times n DevArray_GetView + DevArray_ReleaseView pairs in C."""
    global _probe
    if _probe is None:
        cc = shutil.which(os.environ.get("CC", "cc"))
        if cc is None:
            raise RuntimeError("no C compiler to build tests/capi_probe.c")
        directory = tempfile.mkdtemp(prefix="devarray-bench-")
        target = os.path.join(directory, "capi_probe" + sysconfig.get_config_var("EXT_SUFFIX"))
        proc = subprocess.run(
            [cc, "-shared", "-fPIC", "-O2", "-std=c11", "-I", sysconfig.get_paths()["include"],
             "-I", devarray.get_include(), str(ROOT / "tests" / "capi_probe.c"), "-o", target],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("building tests/capi_probe.c failed: " + proc.stderr.strip())
        spec = importlib.util.spec_from_file_location("capi_probe", target)
        _probe = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_probe)
    return _probe


def view_time(obj, pairs):
    """Seconds per DevArray_GetView + DevArray_ReleaseView of obj, timed in
    C over `pairs` pairs; median of SMALL_BATCHES batches."""
    probe = capi_probe()
    probe.time_views(obj, max(pairs // 10, 1))
    return statistics.median(probe.time_views(obj, pairs) for _ in range(SMALL_BATCHES)) / 1e9


def example_module(name):
    """An installed module of examples/, or a RuntimeError saying how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise RuntimeError("examples/%s is not installed: pip install --no-build-isolation "
                           "examples/%s" % (name, name)) from None


def view_row(bench, x):
    """The C API's view of a DeviceArray: what every extension call pays per argument."""
    log("measuring DevArray_GetView of a DeviceArray")
    row = new_row("view-devarray", "C API: DevArray_GetView + ReleaseView of a DeviceArray",
                  "{:,}".format(x.size), str(x.dtype), ("devarray",),
                  target=[["under", 100e-9, "< 100 ns"]])
    bench.measure(row, "devarray", lambda: view_time(devarray.to_device(x), VIEW_PAIRS))
    return row


def view_rows(bench, rng, log2n):
    """The DeviceArray view row alone: the host run's."""
    return [view_row(bench, random_array(rng, SMALL, np.float32))]


def exchange_rows(bench, rng, log2n):
    """The zero-copy import of a numba.cuda array, and what the C API costs
    an extension: a view of a DeviceArray, of a CuPy array, and
    examples/vecadd's scale() next to devarray's own a * 2.0."""
    x = random_array(rng, SMALL, np.float32)
    small = "{:,}".format(x.size)
    rows = [bench.small_row(new_row(
        "small-import", "zero-copy import of a numba.cuda array: asarray (cupy.asarray)",
        small, "float32", ("devarray", "cupy"), target=[["peer", "cupy", 1.0, "<= CuPy"]]),
        {"devarray": devarray.asarray, "cupy": lambda a: bench.cupy.asarray(a)},
        numba_device_array(x), upload=False)]
    rows.append(view_row(bench, x))

    if bench.cupy is not None:  # else the notes say why CuPy is not used
        log("measuring DevArray_GetView of a CuPy array")
        row = new_row("view-cupy", "C API: DevArray_GetView + ReleaseView of a CuPy array "
                      "(cupy.asarray(cupy array))", small, "float32", ("devarray", "cupy"),
                      target=[["peer", "cupy", 1.0, "<= cupy.asarray"]])

        def asarray_time():
            c = bench.cupy.asarray(x)
            return per_op_time(lambda: bench.cupy.asarray(c), bench.sync["cupy"])

        bench.measure(row, "devarray",
                      lambda: view_time(bench.cupy.asarray(x), FOREIGN_VIEW_PAIRS))
        bench.measure(row, "cupy", asarray_time)
        rows.append(row)

    libs = GPU_LIBS
    rows.append(bench.small_row(new_row(
        "small-scale", "host overhead: a * 2.0", small, "float32", libs),
        {lib: lambda a: a * 2.0 for lib in libs}, x))
    log("measuring vecadd.scale")
    row = new_row("ext-scale", "extension overhead: vecadd.scale(a, 2.0) (examples/vecadd)",
                  small, "float32", ("devarray",),
                  target=[["row", "small-scale", 1.2, "<= 1.2x devarray's a * 2.0"]])

    def scale_time():
        scale = example_module("vecadd").scale
        a = devarray.to_device(x)
        return per_op_time(lambda: scale(a, 2.0), devarray.synchronize)

    bench.measure(row, "devarray", scale_time)
    rows.append(row)
    return rows

