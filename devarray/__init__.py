"""devarray: a GPU array type for Python, written in C.

DeviceArray owns CUDA device memory (or host memory on the host backend, for
machines without a GPU) and implements + - * / and sum() with CUDA kernels.
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
