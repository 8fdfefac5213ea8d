"""The CUDA toolkit as devarray's builds see it: where nvcc is, where its
headers and static runtime are, and which GPU architectures to compile for.

One copy for both builders: setup.py (devarray's own extension) loads this
file by path, since devarray cannot be imported before it is built, and
devarray.build (third-party extensions) imports it.  So it needs nothing but
the standard library, and reports problems as ToolkitError, which each caller
turns into its own kind of error (setuptools' SetupError, devarray.build's
BuildError).
"""

import ctypes
import glob
import os
import re
import shutil
import subprocess

# Machine code for one architecture of each major generation from Turing to
# Blackwell, restricted to what the installed nvcc can target; PTX for the
# newest so later GPUs can JIT it.  A cubin runs on every GPU of its major
# version with an equal or higher minor one, so sm_80's serves 8.6, 8.7 and
# 8.9, sm_100's 10.3 and sm_120's 12.1.  Machine code of their own would
# cost a copy of every kernel each (in the wheel and in every build) for a
# minor version's scheduling differences.
DEFAULT_ARCHS = (75, 80, 90, 100, 120)


class ToolkitError(Exception):
    """The toolkit is missing something, or DEVARRAY_CUDA_ARCHS cannot be used."""


def is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_nvcc(warn):
    """(nvcc path, toolkit root) or (None, None): CUDA_HOME, CUDA_PATH, PATH,
    /usr/local/cuda, in that order.  `warn(message)` hears of a CUDA_HOME or
    CUDA_PATH that names no toolkit."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if not home:
            continue
        nvcc = os.path.join(home, "bin", "nvcc")
        if is_executable(nvcc):
            return nvcc, home
        warn("%s=%s has no bin/nvcc; looking elsewhere" % (var, home))
    nvcc = shutil.which("nvcc")
    if nvcc:
        nvcc = os.path.realpath(nvcc)
        return nvcc, os.path.dirname(os.path.dirname(nvcc))
    nvcc = "/usr/local/cuda/bin/nvcc"
    if is_executable(nvcc):
        return nvcc, "/usr/local/cuda"
    return None, None


def toolkit_dirs(home):
    """Candidate include and library directories of a toolkit, including the
    layout of distribution packages (/usr/include, /usr/lib/<multiarch>)."""
    machine = os.uname().machine
    target = {"aarch64": "sbsa-linux"}.get(machine, machine + "-linux")
    includes = [os.path.join(home, "include"),
                os.path.join(home, "targets", target, "include")]
    libs = [os.path.join(home, "lib64"), os.path.join(home, "lib"),
            os.path.join(home, "targets", target, "lib")]
    multiarch = glob.glob("/usr/lib/%s-linux-gnu" % machine)
    return includes, libs + multiarch


def find_file(name, dirs, what):
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return path
    raise ToolkitError("devarray: cannot find %s (%s) in: %s" % (what, name, ", ".join(dirs)))


def nvcc_archs(nvcc):
    """The compute capabilities (as strings, "90", "100a") nvcc can target."""
    out = subprocess.run([nvcc, "--list-gpu-arch"], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    return re.findall(r"compute_(\d+[a-z]?)", out)


def parse_archs(text):
    """"90", "8.6", "sm_90", "90a", separated by spaces, commas or semicolons."""
    archs = []
    for item in re.split(r"[\s,;]+", text.strip()):
        if not item:
            continue
        m = re.fullmatch(r"(?:sm_|compute_)?(\d+)(?:\.(\d))?([a-z]?)", item)
        if m is None:
            raise ToolkitError("devarray: DEVARRAY_CUDA_ARCHS: cannot read %r "
                               "(expected e.g. \"90\", \"8.6\" or \"sm_90a\")" % item)
        major, minor, suffix = m.groups()
        archs.append(major + (minor or "") + suffix)
    if not archs:
        raise ToolkitError("devarray: DEVARRAY_CUDA_ARCHS is empty")
    return sorted(set(archs), key=lambda a: (int(re.match(r"\d+", a).group()), a))


def requested_archs():
    """DEVARRAY_CUDA_ARCHS, parsed, or None when it is unset or blank."""
    requested = os.environ.get("DEVARRAY_CUDA_ARCHS", "").strip()
    return parse_archs(requested) if requested else None


def choose_archs(nvcc, default):
    """The architectures to compile for: DEVARRAY_CUDA_ARCHS, every one of
    which nvcc must support, else those of `default` that nvcc supports."""
    supported = nvcc_archs(nvcc)
    archs = requested_archs()
    if archs is not None:
        # nvcc lists only the plain architectures ("90"), not "90a" or "100f"
        unknown = [a for a in archs if a.rstrip("af") not in supported]
        if unknown:
            raise ToolkitError("devarray: DEVARRAY_CUDA_ARCHS: %s not supported by %s "
                               "(it lists %s)" % (", ".join(unknown), nvcc, " ".join(supported)))
    else:
        archs = [str(a) for a in default if str(a) in supported]
        if not archs:
            raise ToolkitError("devarray: %s supports none of the compute capabilities %s"
                               % (nvcc, " ".join(map(str, default))))
    return archs


def gencode_flags(archs):
    """nvcc's flags for machine code for each of `archs` and PTX for the last."""
    flags = ["-gencode=arch=compute_%s,code=sm_%s" % (a, a) for a in archs]
    newest = archs[-1]
    flags.append("-gencode=arch=compute_%s,code=compute_%s" % (newest, newest))
    return flags


# cuDeviceGetAttribute's CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR
_CC_MAJOR, _CC_MINOR = 75, 76


def visible_archs():
    """The compute capabilities ("90") of the GPUs this process can see, in
    the order parse_archs sorts them; empty without a driver or a GPU.

    Asks the driver (libcuda) through ctypes, which honours
    CUDA_VISIBLE_DEVICES, instead of importing a CUDA library: cuInit is
    what any later use of CUDA in this process would call first anyway."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    count, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return []
    found = set()
    for ordinal in range(count.value):
        device = ctypes.c_int()
        if (cuda.cuDeviceGet(ctypes.byref(device), ordinal) != 0
                or cuda.cuDeviceGetAttribute(ctypes.byref(major), _CC_MAJOR, device) != 0
                or cuda.cuDeviceGetAttribute(ctypes.byref(minor), _CC_MINOR, device) != 0):
            continue
        found.add("%d%d" % (major.value, minor.value))
    return parse_archs(" ".join(found)) if found else []
