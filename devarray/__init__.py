"""devarray: a GPU array type for Python, written in C.

DeviceArray owns CUDA device memory on any GPU of the machine (or host memory
on the host backend, for machines without a GPU).  The module implements the
main namespace of the Python array API standard (2025.12) on CUDA kernels:
elementwise functions and operators, creation and manipulation, reductions
and statistics, searching, sorting, sets, indexing and matmul.  Memory is
exchanged without copies through DLPack and the CUDA Array Interface.
NumPy is optional and imported only by the conversions that need it.
"""

from . import _core
from ._core import *  # noqa: F403  (every public name of _core, __all__ below)
from ._core import __array_api_version__, __array_namespace_info__  # not in *
from ._version import __version__

__all__ = [*_core.__all__, "__version__", "get_include"]


def get_include():
    """The directory of devarray.h, for an extension's include path."""
    import os

    return os.path.join(os.path.dirname(__file__), "include")

# the array API's fft extension (devarray/fft.py; cuFFT is loaded at first use)
from . import fft  # noqa: E402


def __getattr__(name):
    # devarray.linalg imports NumPy, devarray.random builds its seeding
    # machinery: each is loaded at its first use, not here
    if name in ("linalg", "random"):
        import importlib

        return importlib.import_module("devarray." + name)
    raise AttributeError(f"module 'devarray' has no attribute {name!r}")
