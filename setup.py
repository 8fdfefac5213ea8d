"""Build devarray._core.

The extension is every C11 file in src/ and its layer folders.  When nvcc
is found, every .cu file in kernels/ is compiled by nvcc into an object file
that is linked into the same shared object, together with the *static* CUDA
runtime, so importing devarray needs only the NVIDIA driver (libcuda), never
libcudart.so.  Without nvcc the build succeeds with the host backend only,
and says so.

Environment (docs/install.md has the details):
  CUDA_HOME, CUDA_PATH       the toolkit; else nvcc on PATH; else /usr/local/cuda
  DEVARRAY_CUDA_ARCHS        e.g. "90" or "80,90": machine code for each, PTX
                             for the highest (default: 75 80 90 100 120)
  DEVARRAY_REQUIRE_CUDA=1    no nvcc is an error instead of a host-only build
  DEVARRAY_NO_CUDA=1         host-only build even when nvcc is there
  DEVARRAY_DEBUG=1           -O0 -g, assertions on
  DEVARRAY_SANITIZE=address,undefined
                             -fsanitize=... for compiling and linking src/*.c
  DEVARRAY_WERROR=1          warnings are errors (C and CUDA)
  DEVARRAY_COMPILER_LAUNCHER e.g. "ccache": a command put before every nvcc and
                             C compiler call (CI caches the kernels this way,
                             so the wheel built from the sdist reuses them)
"""

import glob
import hashlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, SetupError

try:
    from distutils import log
except ImportError:  # a setuptools without the distutils shim
    import logging

    log = logging.getLogger("devarray.setup")

ROOT = os.path.dirname(os.path.abspath(__file__))


def load_toolkit():
    """devarray/_toolkit.py, by path: nvcc discovery and architectures, shared
    with devarray.build, and importable before devarray is built."""
    spec = importlib.util.spec_from_file_location(
        "devarray_toolkit", os.path.join(ROOT, "devarray", "_toolkit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


toolkit = load_toolkit()

C_FLAGS = ["-std=c11", "-Wall", "-Wextra", "-fvisibility=hidden"]
NVCC_FLAGS = [
    "-std=c++17",
    "--fmad=false",  # no FMA contraction: results match the host backend
    "-Xcompiler", "-fPIC,-fvisibility=hidden,-Wall,-Wextra",
    # the size mode: every fatbin entry about 30% smaller than in the
    # default mode; the driver R580 that CUDA 13 needs anyway reads it
    "--compress-mode=size", "-Xfatbin=-compress-all",
    "--threads", "0",  # one host thread per target architecture
]


def env_flag(name):
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def warn(message):
    """Say `message` loudly: in setuptools' log and on stderr (pip -v shows both)."""
    text = "devarray: WARNING: " + message
    log.warn(text)
    bar = "*" * 78
    print("\n%s\n%s\n%s\n" % (bar, text, bar), file=sys.stderr, flush=True)


def compiler_launcher():
    """DEVARRAY_COMPILER_LAUNCHER split into words (empty when unset)."""
    return shlex.split(os.environ.get("DEVARRAY_COMPILER_LAUNCHER", ""))


def compile_in_parallel(compiler, jobs):
    """Make `compiler` (a distutils CCompiler) compile the sources of one
    extension `jobs` at a time: distutils compiles them one after the other,
    and src/ has some seventy files.  The same steps as CCompiler.compile,
    with the per-object loop in a thread pool (each object is its own
    compiler process)."""
    def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            # list() re-raises the first CompileError
            list(pool.map(one, [obj for obj in objects if obj in build]))
        return objects

    compiler.compile = compile


def mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


# The headers the run-time compiler (src/runtime/rtc.c) builds fused kernels with.
NVRTC_HEADERS = ["dtypes.h", "ops.h", "ops_int.h", "ops_math.h", "optable.h",
                 "reduce_ordered.cuh"]


class BuildExt(build_ext):
    """build_ext that compiles kernels/*.cu with nvcc (when there is one) and
    links the objects, with the static CUDA runtime, into devarray._core."""

    CONFIGURED = ("sources", "extra_compile_args", "extra_link_args", "extra_objects",
                  "define_macros", "include_dirs", "depends")

    def build_extensions(self):
        # A Python built with a shared libpython (pyenv's, for one) puts
        # -Wl,-rpath,<its lib dir> into LDSHARED.  _core never links libpython,
        # so that RUNPATH serves nothing, and in a wheel it would name a
        # directory of the machine that built it.
        rpath = "-Wl,-rpath," + (sysconfig.get_config_var("LIBDIR") or "")
        self.compiler.linker_so = [a for a in self.compiler.linker_so if a != rpath]
        launcher = compiler_launcher()
        if launcher:
            self.compiler.compiler_so = launcher + self.compiler.compiler_so
        compile_in_parallel(self.compiler, os.cpu_count() or 1)
        build_ext.build_extensions(self)

    def build_extension(self, ext):
        debug = env_flag("DEVARRAY_DEBUG")
        werror = env_flag("DEVARRAY_WERROR")
        sanitize = os.environ.get("DEVARRAY_SANITIZE", "").strip()

        # Configure from the Extension as setup() made it, so that building it
        # twice in one run (setuptools' editable installs can) adds nothing twice.
        if not hasattr(ext, "devarray_original"):
            ext.devarray_original = {k: list(getattr(ext, k)) for k in self.CONFIGURED}
        for key, value in ext.devarray_original.items():
            setattr(ext, key, list(value))
        ext.extra_compile_args += C_FLAGS
        # -g0 overrides the -g of Python's own CFLAGS: debug information
        # would be a tenth of the wheel, and DEVARRAY_DEBUG=1 builds have it
        ext.extra_compile_args += ["-O0", "-g", "-UNDEBUG"] if debug else ["-O3", "-g0", "-DNDEBUG"]
        if werror:
            ext.extra_compile_args.append("-Werror")
        if sanitize:
            san = ["-fsanitize=" + sanitize, "-fno-omit-frame-pointer"]
            ext.extra_compile_args += san
            ext.extra_link_args += san

        cuda = self.configure_cuda(ext, debug, werror)
        print("devarray: building %s with the %s backend%s%s" % (
            ext.name, "CUDA and host" if cuda else "host",
            ", debug" if debug else "", ", sanitize=" + sanitize if sanitize else ""),
            flush=True)

        # distutils rebuilds only when a source or a `depends` entry is newer
        # than the extension; a changed configuration must rebuild too.  The
        # stamp is written after a successful build only.
        config = json.dumps([ext.extra_compile_args, ext.extra_link_args,
                             ext.define_macros, ext.include_dirs, ext.extra_objects])
        stamp = os.path.join(self.build_temp, "devarray-config.json")
        old = None
        if os.path.exists(stamp):
            with open(stamp) as f:
                old = f.read()
        force = self.force
        self.force = force or old != config
        try:
            build_ext.build_extension(self, ext)
        finally:
            self.force = force
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, "w") as f:
            f.write(config)

    def configure_cuda(self, ext, debug, werror):
        """Compile kernels/*.cu and add what linking them needs to `ext`.
        Returns whether the CUDA backend is built."""
        no_cuda = env_flag("DEVARRAY_NO_CUDA")
        require = env_flag("DEVARRAY_REQUIRE_CUDA")
        if no_cuda and require:
            raise SetupError("devarray: DEVARRAY_NO_CUDA and DEVARRAY_REQUIRE_CUDA are both set")
        if no_cuda:
            warn("DEVARRAY_NO_CUDA is set: building the host backend only")
            return False
        nvcc, home = toolkit.find_nvcc(warn)
        if nvcc is None:
            message = ("nvcc not found (looked at $CUDA_HOME, $CUDA_PATH, PATH and "
                       "/usr/local/cuda): building the HOST BACKEND ONLY; devarray "
                       "will not use a GPU.  Set CUDA_HOME to a CUDA toolkit to build "
                       "the CUDA backend.")
            if require:
                raise SetupError("devarray: DEVARRAY_REQUIRE_CUDA is set but " + message)
            warn(message)
            return False

        includes, libdirs = toolkit.toolkit_dirs(home)
        try:
            include = os.path.dirname(
                toolkit.find_file("cuda_runtime_api.h", includes, "CUDA headers"))
            cudart = toolkit.find_file("libcudart_static.a", libdirs, "static CUDA runtime")
            archs = toolkit.choose_archs(nvcc, toolkit.DEFAULT_ARCHS)
        except toolkit.ToolkitError as exc:
            raise SetupError(str(exc)) from None
        gencode = toolkit.gencode_flags(archs)
        log.info("devarray: nvcc %s, architectures %s (+ PTX %s)", nvcc, " ".join(archs), archs[-1])

        flags = [nvcc, "-c", "-DDEVARRAY_HAVE_CUDA", "-I", "kernels"] + NVCC_FLAGS + gencode
        flags += ["-O0", "-g", "-lineinfo"] if debug else ["-O3", "-DNDEBUG"]
        if werror:
            # -Xcompiler=-Werror: ccache 4.7 (CI's launcher) finds no input
            # file in a call with "-Xcompiler -Werror" and does not cache it
            flags += ["-Werror", "all-warnings", "-Xcompiler=-Werror"]
        sources = sorted(glob.glob("kernels/*.cu"))
        if not sources:
            raise SetupError("devarray: nvcc was found but there is no kernels/*.cu")
        objects = self.compile_cuda(flags, sources)

        ext.sources.append(self.embed_nvrtc_headers())
        ext.define_macros.append(("DEVARRAY_HAVE_CUDA", None))
        ext.include_dirs.append(include)
        ext.extra_objects += objects + [cudart]
        ext.depends += objects + [cudart]
        # --exclude-libs keeps the static runtime's symbols inside _core, so it
        # never binds to (or lends its symbols to) another libcudart in the
        # process; --as-needed drops the libraries nothing uses.
        ext.extra_link_args += ["-Wl,--exclude-libs,ALL", "-Wl,--as-needed",
                                "-lstdc++", "-lpthread", "-ldl", "-lrt", "-Wl,--no-as-needed"]
        return True

    def embed_nvrtc_headers(self):
        """A C file, in the build directory, holding the op table's headers
        as strings: src/runtime/rtc.c compiles fused kernels with them at run
        time.  Rewritten only when its text changes, so nothing rebuilds
        needlessly."""
        texts = []
        for name in NVRTC_HEADERS:
            with open(os.path.join("kernels", name), encoding="utf-8") as f:
                texts.append(f.read())
        body = ["/* Generated by setup.py from kernels/: do not edit. */",
                "const int nvrtc_header_count = %d;" % len(NVRTC_HEADERS),
                "const char *const nvrtc_header_names[] = {%s};" % ", ".join(
                    json.dumps(name) for name in NVRTC_HEADERS),
                "const char *const nvrtc_header_texts[] = {"]
        # json.dumps escapes quotes, backslashes and newlines as C does
        body += ["    %s," % json.dumps(text) for text in texts]
        body += ["};", ""]
        text = "\n".join(body)
        path = os.path.join(self.build_temp, "generated", "rtc_headers.c")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return path

    def compile_cuda(self, flags, sources):
        """Compile each .cu (in parallel) into build_temp, skipping those whose
        object is newer than the .cu and every kernels/ header and was made
        with the same command."""
        headers = glob.glob("kernels/*.h") + glob.glob("kernels/*.cuh")
        newest_header = max([mtime(h) for h in headers] + [0])
        launcher = compiler_launcher()
        jobs = []
        objects = []
        for src in sources:
            obj = os.path.join(self.build_temp, os.path.splitext(src)[0] + ".o")
            # the launcher (a cache) changes how, not what: not in the signature
            command = flags + [src, "-o", obj]
            objects.append(obj)
            stamp = obj + ".cmd"
            signature = hashlib.sha256("\0".join(command).encode()).hexdigest()
            obj_time = mtime(obj)
            old_signature = None
            if os.path.exists(stamp):
                with open(stamp) as f:
                    old_signature = f.read()
            if (self.force or obj_time is None or obj_time < max(mtime(src), newest_header)
                    or old_signature != signature):
                jobs.append((src, obj, launcher + command, stamp, signature))
            else:
                log.info("devarray: %s is up to date", obj)
        if not jobs:
            return objects

        for src, obj, command, stamp, signature in jobs:
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            if os.path.exists(stamp):
                os.remove(stamp)
            print(" ".join(command), flush=True)

        def run(command):
            return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  universal_newlines=True)

        failed = []
        workers = min(len(jobs), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            procs = pool.map(run, [job[2] for job in jobs])
            for (src, obj, command, stamp, signature), proc in zip(jobs, procs):
                if proc.stdout:
                    print(proc.stdout, end="", flush=True)
                if proc.returncode != 0:
                    failed.append(src)
                    continue
                with open(stamp, "w") as f:
                    f.write(signature)
        if failed:
            raise CompileError("devarray: nvcc failed on " + ", ".join(failed))
        return objects


def main():
    os.chdir(ROOT)  # the globs and the object paths are relative to the project
    # src/ holds module.c and a folder per layer (docs/design.md)
    sources = sorted(glob.glob("src/*.c") + glob.glob("src/*/*.c"))
    # The kernels are listed as dependencies too, which also puts them in an sdist.
    depends = sorted(glob.glob("src/*/*.h") + glob.glob("kernels/*.h")
                     + glob.glob("kernels/*.cuh") + glob.glob("kernels/*.cu"))
    core = Extension("devarray._core", sources=sources, depends=depends,
                     include_dirs=["src", "kernels"])
    setup(ext_modules=[core], cmdclass={"build_ext": BuildExt})


if __name__ == "__main__":
    main()
