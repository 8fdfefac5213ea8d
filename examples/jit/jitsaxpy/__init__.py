"""jitsaxpy: a CUDA kernel compiled when it is first used, not when the
package is installed.

The package ships saxpy.cu as a source file; the first call of saxpy() (or
extension()) builds it with devarray.build.load(), which keeps the built
module in a disk cache (~/.cache/devarray/extensions, or $DEVARRAY_CACHE_DIR)
keyed by the source, the flags, the toolkit and the Python and devarray
versions: later calls, in this process or any other, import it without
compiling.  Installing needs no CUDA toolkit; the first call does.
"""

import os

__all__ = ["extension", "saxpy"]

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "saxpy.cu")

_extension = None


def extension(build_directory=None, verbose=False):
    """The compiled module (built on the first call of this process, or taken
    from the cache).  build_directory and verbose are devarray.build.load()'s;
    they matter only on the first call."""
    global _extension
    if _extension is None:
        # devarray.build is imported only here: `import devarray` never
        # imports it, and neither does importing this package
        from devarray.build import load

        _extension = load("_saxpy", [SOURCE], build_directory=build_directory, verbose=verbose)
    return _extension


def saxpy(a, x, y):
    """a * x + y for float32 GPU arrays x and y of one shape (C-contiguous),
    as a new DeviceArray."""
    return extension().saxpy(a, x, y)
