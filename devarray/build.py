"""devarray.build: compile CUDA extensions that use devarray, ahead of time
from a setup.py or just in time from running code.

In a setup.py (authors of PyTorch extensions will know the shape)::

    from setuptools import setup
    from devarray.build import BuildExtension, CUDAExtension

    setup(name="myext",
          ext_modules=[CUDAExtension("myext", ["myext.cu", "glue.c"],
                                     extra_compile_args={"cxx": ["-O2"],
                                                         "nvcc": ["--use_fast_math"]})],
          cmdclass={"build_ext": BuildExtension})

At run time, compiled on the first call and taken from a disk cache after::

    from devarray.build import load
    myext = load("myext", ["myext.cu"])

Both build the same way: nvcc, found as devarray's own build finds it
($CUDA_HOME, $CUDA_PATH, PATH, /usr/local/cuda), compiles each .cu with
--std=c++17 -O3 -fPIC and warnings on (-Wall -Wextra), for the architectures
in DEVARRAY_CUDA_ARCHS, else those of the GPUs this process sees, else
devarray's default list, with PTX for the newest; C and C++ sources go to the
host compiler with -fPIC -O3 -Wall -Wextra; the include path has
devarray.get_include(), Python's headers and the toolkit's; and the static
CUDA runtime is linked in with its symbols kept inside the extension
(-Wl,--exclude-libs,ALL), so the extension needs only the driver and cannot
clash with another CUDA runtime in the process.

`import devarray` never imports this module, and this module imports
setuptools only when CUDAExtension or BuildExtension is used, so that load()
works where setuptools is not installed.
"""

import fcntl
import glob
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import devarray

from . import _toolkit
from ._version import __version__

if TYPE_CHECKING:
    from setuptools import Extension

__all__ = ["BuildError", "BuildExtension", "CUDAExtension", "load"]

NVCC_FLAGS = ["--std=c++17", "-O3", "-Xcompiler", "-fPIC,-Wall,-Wextra",
              "-Xfatbin=-compress-all", "--threads", "0"]
C_FLAGS = ["-fPIC", "-O3", "-Wall", "-Wextra"]
CXX_FLAGS = C_FLAGS + ["-std=c++17"]
# After the static runtime: --exclude-libs keeps its symbols inside the
# extension; libstdc++ for the nvcc objects even when the linker is the C one.
LINK_FLAGS = ["-Wl,--exclude-libs,ALL", "-Wl,--as-needed", "-lstdc++", "-lpthread",
              "-ldl", "-lrt", "-Wl,--no-as-needed"]

CUDA_SUFFIXES = (".cu",)
C_SUFFIXES = (".c",)
CXX_SUFFIXES = (".cc", ".cpp", ".cxx")
# Not compiled, but hashed by load(): list the headers your sources include
# and a change to them rebuilds.
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".cuh", ".inl")

PathLike = Union[str, "os.PathLike[str]"]


class BuildError(RuntimeError):
    """An extension did not build: the message holds the failing command and
    the compiler's output."""


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning)


def _find_nvcc() -> Tuple[str, str]:
    """(nvcc, toolkit root), looked for as devarray's own setup.py does."""
    nvcc, home = _toolkit.find_nvcc(_warn)
    if nvcc is None:
        raise BuildError("devarray.build: nvcc not found (looked at $CUDA_HOME, $CUDA_PATH, "
                         "PATH and /usr/local/cuda); set CUDA_HOME to a CUDA toolkit")
    return nvcc, home


def _toolkit_paths(home: str) -> Tuple[str, str]:
    """(the toolkit's include directory, its libcudart_static.a)."""
    includes, libdirs = _toolkit.toolkit_dirs(home)
    include = os.path.dirname(_toolkit.find_file("cuda_runtime_api.h", includes, "CUDA headers"))
    cudart = _toolkit.find_file("libcudart_static.a", libdirs, "static CUDA runtime")
    return include, cudart


def _default_archs() -> Sequence[Union[int, str]]:
    """What to build for when DEVARRAY_CUDA_ARCHS is not set: the visible
    GPUs, else devarray's own list."""
    return _toolkit.visible_archs() or _toolkit.DEFAULT_ARCHS


def _python_includes() -> List[str]:
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["include"], paths["platinclude"]]))


def _host_compiler(variable: str) -> List[str]:
    """$CC or $CXX, else the compiler Python was built with, as setuptools picks it."""
    return shlex.split(os.environ.get(variable) or sysconfig.get_config_var(variable) or
                       {"CC": "cc", "CXX": "c++"}[variable])


def _language(source: str) -> Optional[str]:
    """"cuda", "c", "c++", "header", or None for a file type we do not know."""
    suffix = os.path.splitext(source)[1]
    for language, suffixes in (("cuda", CUDA_SUFFIXES), ("c", C_SUFFIXES),
                               ("c++", CXX_SUFFIXES), ("header", HEADER_SUFFIXES)):
        if suffix in suffixes:
            return language
    return None


def _run(command: List[str], log: List[str], verbose: bool) -> None:
    """Run `command`, adding it and its output to `log`; BuildError if it fails."""
    text = "$ " + shlex.join(command)
    if verbose:
        print(text, file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
    except OSError as exc:
        raise BuildError("devarray.build: cannot run %s: %s" % (command[0], exc)) from None
    log.append(text + "\n" + proc.stdout)
    if verbose and proc.stdout:
        print(proc.stdout, end="", file=sys.stderr, flush=True)
    if proc.returncode != 0:
        raise BuildError("devarray.build: %s failed (exit status %d):\n%s\n%s" % (
            os.path.basename(command[0]), proc.returncode, text, proc.stdout.rstrip()))


# ---- load(): build at run time, cached on disk ------------------------------

_loaded: Dict[str, Any] = {}


def _cache_root(build_directory: Optional[PathLike]) -> str:
    if build_directory is not None:
        return os.fspath(build_directory)
    root = os.environ.get("DEVARRAY_CACHE_DIR")
    if root:
        return root
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "devarray", "extensions")


def _fingerprint(name: str, sources: List[str], flags: List[List[str]], nvcc: str,
                 archs: Sequence[Union[int, str]]) -> str:
    """The cache key: everything that changes what the build produces."""
    digest = hashlib.sha256()
    nvcc_version = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, universal_newlines=True).stdout
    digest.update(json.dumps([
        name, flags, [str(a) for a in archs], nvcc_version, __version__, sys.version,
        sys.implementation.cache_tag, importlib.machinery.EXTENSION_SUFFIXES[0],
        _host_compiler("CC"), _host_compiler("CXX"),
    ]).encode())
    for source in sources:
        digest.update(b"\0" + os.path.basename(source).encode() + b"\0")
        with open(source, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()[:20]


def _compile_and_link(name: str, sources: List[str], output: str, nvcc: str, home: str,
                      archs: Sequence[Union[int, str]], flags: List[List[str]],
                      verbose: bool) -> List[str]:
    """Build the shared object `output` from `sources`, objects next to it.
    Returns the log: each command and what it printed."""
    extra_cflags, extra_cuda_cflags, extra_ldflags = flags
    try:
        cuda_include, cudart = _toolkit_paths(home)
        gencode = _toolkit.gencode_flags(_toolkit.choose_archs(nvcc, archs))
    except _toolkit.ToolkitError as exc:
        raise BuildError(str(exc)) from None
    includes = ["-I" + d for d in [devarray.get_include(), *_python_includes(), cuda_include]]
    directory = os.path.dirname(output)
    log: List[str] = []
    objects = []
    for index, source in enumerate(sources):
        language = _language(source)
        if language == "header":
            continue
        obj = os.path.join(directory, "%d-%s.o" % (index, os.path.basename(source)))
        if language == "cuda":
            command = [nvcc, "-c", source, "-o", obj, *NVCC_FLAGS, *gencode, *includes,
                       *extra_cuda_cflags]
        elif language == "c":
            command = [*_host_compiler("CC"), "-c", source, "-o", obj, *C_FLAGS, *includes,
                       *extra_cflags]
        else:
            command = [*_host_compiler("CXX"), "-c", source, "-o", obj, *CXX_FLAGS, *includes,
                       *extra_cflags]
        _run(command, log, verbose)
        objects.append(obj)
    _run([*_host_compiler("CXX"), "-shared", "-o", output, *objects, cudart, *LINK_FLAGS,
          *extra_ldflags], log, verbose)
    for obj in objects:
        os.remove(obj)
    return log


def _import(name: str, path: str) -> Any:
    """The extension module at `path`; the same object each time in a process."""
    module = _loaded.get(path)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[path] = module
    return module


def load(name: str, sources: Sequence[PathLike], extra_cflags: Optional[Sequence[str]] = None,
         extra_cuda_cflags: Optional[Sequence[str]] = None,
         extra_ldflags: Optional[Sequence[str]] = None,
         build_directory: Optional[PathLike] = None, verbose: bool = False) -> Any:
    """Compile `sources` into the extension module `name` and import it.

    name               the module's name: the sources define PyInit_<name>
    sources            .cu (nvcc), .c and .cc/.cpp/.cxx (the host compiler);
                       headers (.h .hh .hpp .cuh .inl) are not compiled, but a
                       change to one listed here rebuilds
    extra_cflags       more flags for the C and C++ compiler
    extra_cuda_cflags  more flags for nvcc
    extra_ldflags      more flags for the link (the C++ compiler driver)
    build_directory    where builds are kept; default $DEVARRAY_CACHE_DIR, else
                       $XDG_CACHE_HOME/devarray/extensions, where XDG_CACHE_HOME
                       defaults to ~/.cache
    verbose            print each command and its output on stderr

    Each build lives in <build_directory>/<name>-<hash>/, the hash taken over
    the sources' contents, the flags, the Python version and ABI, devarray's
    version, `nvcc --version` and the architectures.  A load whose hash is
    already built, in this process or any other, imports that module without
    compiling.  Builds of the same hash wait for each other on a file lock
    (flock, which the OS releases when its holder dies, so a killed build
    leaves nothing stuck), and a build is renamed into place only once
    complete.  A failed build raises BuildError with the command and the
    compiler's output.
    """
    if not name.isidentifier():
        raise ValueError("devarray.build.load: the module name must be an identifier, not %r"
                         % (name,))
    paths = [os.path.abspath(os.fspath(s)) for s in sources]
    unknown = [p for p in paths if _language(p) is None]
    if unknown:
        raise ValueError("devarray.build.load: cannot build %s (known: %s)" % (
            ", ".join(unknown), " ".join(CUDA_SUFFIXES + C_SUFFIXES + CXX_SUFFIXES
                                         + HEADER_SUFFIXES)))
    flags = [list(extra_cflags or []), list(extra_cuda_cflags or []), list(extra_ldflags or [])]
    nvcc, home = _find_nvcc()
    try:
        requested = _toolkit.requested_archs()
    except _toolkit.ToolkitError as exc:
        raise BuildError(str(exc)) from None
    # choose_archs checks them against nvcc at build time; which of them nvcc
    # keeps follows from its version, which the hash covers
    archs = requested if requested is not None else _default_archs()

    root = _cache_root(build_directory)
    entry = "%s-%s" % (name, _fingerprint(name, paths, flags, nvcc, archs))
    final = os.path.join(root, entry)
    output = os.path.join(final, name + importlib.machinery.EXTENSION_SUFFIXES[0])
    if os.path.exists(output):
        return _import(name, output)

    os.makedirs(root, exist_ok=True)
    # os.open's descriptor is not inherited by the compilers (PEP 446), so the
    # lock goes with this process, however it ends.
    lock = os.open(os.path.join(root, entry + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(output):  # else built by another process while we waited
            _build_locked(name, paths, root, entry, final, output, nvcc, home, archs, flags,
                          verbose)
    finally:
        os.close(lock)
    return _import(name, output)


def _build_locked(name: str, sources: List[str], root: str, entry: str, final: str,
                  output: str, nvcc: str, home: str, archs: Sequence[Union[int, str]],
                  flags: List[List[str]], verbose: bool) -> None:
    """Build into a fresh directory and rename it to `final`, holding the lock."""
    # leftovers of builds that were killed, or an entry that lost its module
    for stale in glob.glob(os.path.join(root, "." + entry + ".*")):
        shutil.rmtree(stale, ignore_errors=True)
    shutil.rmtree(final, ignore_errors=True)
    if verbose:
        print("devarray.build: building %s in %s" % (name, final), file=sys.stderr, flush=True)
    work = tempfile.mkdtemp(prefix="." + entry + ".", dir=root)
    try:
        log = _compile_and_link(name, sources, os.path.join(work, os.path.basename(output)),
                                nvcc, home, archs, flags, verbose)
        with open(os.path.join(work, "build.log"), "w") as f:
            f.write("\n".join(log))
        os.rename(work, final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


# ---- CUDAExtension and BuildExtension, for a setup.py -----------------------


def CUDAExtension(name: str, sources: Sequence[str], **kwargs: Any) -> "Extension":
    """A setuptools Extension for BuildExtension to build: its .cu sources go
    through nvcc, the rest through the usual compiler, with devarray's and
    Python's headers on the include path; the toolkit's headers and the
    static CUDA runtime are added when it is built, so that defining it needs
    no toolkit (an sdist does not).

    extra_compile_args may be {"cxx": [...], "nvcc": [...]}: flags for the
    C/C++ compiler and for nvcc; a plain list goes to both, as in PyTorch's
    torch.utils.cpp_extension.  Other keywords are setuptools.Extension's.
    """
    from setuptools import Extension

    kwargs["include_dirs"] = [*(kwargs.get("include_dirs") or []), devarray.get_include(),
                              *_python_includes()]
    ext = Extension(name, list(sources), **kwargs)
    ext.devarray_cuda = True
    return ext


def _split_compile_args(args: Union[None, Sequence[str], Dict[str, Sequence[str]]],
                        error: type) -> Tuple[List[str], List[str]]:
    """(C/C++ flags, nvcc flags) from an Extension's extra_compile_args."""
    if isinstance(args, dict):
        unknown = sorted(set(args) - {"cxx", "nvcc"})
        if unknown:
            raise error("devarray.build: extra_compile_args has %s; the keys are \"cxx\" "
                        "and \"nvcc\"" % ", ".join(map(repr, unknown)))
        return list(args.get("cxx", [])), list(args.get("nvcc", []))
    return list(args or []), list(args or [])


def _newer(sources: Sequence[str], target: str) -> bool:
    """Whether `target` is missing or older than one of `sources`."""
    try:
        built = os.stat(target).st_mtime
    except OSError:
        return True
    return any(not os.path.exists(s) or os.stat(s).st_mtime > built for s in sources)


def _make_build_extension() -> type:
    from setuptools.command.build_ext import build_ext
    from setuptools.errors import CompileError, SetupError

    class BuildExtension(build_ext):
        """setuptools' build_ext, able to build CUDAExtension: each .cu is
        compiled by nvcc into build_temp (again when it or one of the
        extension's `depends` is newer than its object), the objects and the
        static CUDA runtime are linked into the extension."""

        CHANGED = ("sources", "extra_compile_args", "extra_link_args", "extra_objects",
                   "include_dirs", "depends")

        def build_extension(self, ext):
            saved = {k: getattr(ext, k) for k in self.CHANGED}
            try:
                cxx_args, nvcc_args = _split_compile_args(ext.extra_compile_args, SetupError)
                ext.extra_compile_args = ["-Wall", "-Wextra", *cxx_args]
                cuda_sources = [s for s in ext.sources if _language(s) == "cuda"]
                if cuda_sources or getattr(ext, "devarray_cuda", False):
                    self.add_cuda(ext, cuda_sources, nvcc_args)
                super().build_extension(ext)
            finally:
                for key, value in saved.items():
                    setattr(ext, key, value)

        def add_cuda(self, ext, cuda_sources, nvcc_args):
            """Compile `cuda_sources` and make `ext` link them and the runtime."""
            try:
                nvcc, home = _find_nvcc()
                cuda_include, cudart = _toolkit_paths(home)
                requested = _toolkit.requested_archs()
                archs = _toolkit.choose_archs(
                    nvcc, requested if requested is not None else _default_archs())
            except (BuildError, _toolkit.ToolkitError) as exc:
                raise SetupError(str(exc)) from None
            print("devarray.build: %s: nvcc %s, architectures %s (+ PTX %s)" % (
                ext.name, nvcc, " ".join(archs), archs[-1]), flush=True)

            include_dirs = [*ext.include_dirs, cuda_include, *(self.include_dirs or [])]
            command = [nvcc, "-c", *NVCC_FLAGS, *_toolkit.gencode_flags(archs)]
            command += ["-I" + d for d in include_dirs]
            for macro in [*(self.define or []), *ext.define_macros]:
                command.append("-D" + macro[0] if macro[1] is None else "-D%s=%s" % macro)
            command += ["-U" + m for m in [*(self.undef or []), *ext.undef_macros]]
            objects = []
            for source in cuda_sources:
                relative = os.path.splitdrive(source)[1].lstrip(os.sep)
                obj = os.path.join(self.build_temp, os.path.splitext(relative)[0] + ".o")
                objects.append(obj)
                if not (self.force or _newer([source, *ext.depends], obj)):
                    continue
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                full = [*command, source, "-o", obj, *nvcc_args]
                print(shlex.join(full), flush=True)
                proc = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      universal_newlines=True)
                if proc.stdout:
                    print(proc.stdout, end="", flush=True)
                if proc.returncode != 0:
                    raise CompileError("devarray.build: nvcc failed on %s" % source)

            ext.sources = [s for s in ext.sources if _language(s) != "cuda"]
            ext.include_dirs = [*ext.include_dirs, cuda_include]
            ext.extra_objects = [*ext.extra_objects, *objects, cudart]
            ext.depends = [*ext.depends, *objects, cudart]
            ext.extra_link_args = [*ext.extra_link_args, *LINK_FLAGS]

    BuildExtension.__qualname__ = "BuildExtension"
    return BuildExtension


def __getattr__(name: str) -> Any:
    # BuildExtension subclasses setuptools' build_ext: made on first use, so
    # that importing this module (for load()) does not import setuptools.
    if name == "BuildExtension":
        cls = _make_build_extension()
        globals()["BuildExtension"] = cls
        return cls
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
