"""The namespaces of the array API standard's older revisions.

``x.__array_namespace__(api_version="2024.12")`` (or ``"2023.12"``) returns
one of these: devarray's own functions under a module of their own, except
the three whose results 2025.12 changed from a list to a tuple
(``meshgrid``, ``broadcast_arrays`` and ``__array_namespace_info__().devices``),
which return lists here as the older revisions say.  Code that asked for an
older revision gets exactly what it was written against; everything else
(the default, and ``"2025.12"``) gets ``devarray`` itself.
"""

import types

from . import _core

_namespaces = {}


class _Info:
    """__array_namespace_info__() of an older revision: devices() a list."""

    __slots__ = ("_info",)

    def __init__(self):
        self._info = _core.__array_namespace_info__()

    def capabilities(self):
        return self._info.capabilities()

    def default_device(self):
        return self._info.default_device()

    def default_dtypes(self, *, device=None):
        return self._info.default_dtypes(device=device)

    def dtypes(self, *, device=None, kind=None):
        return self._info.dtypes(device=device, kind=kind)

    def devices(self):
        return list(self._info.devices())


def _meshgrid(*arrays, indexing="xy"):
    return list(_core.meshgrid(*arrays, indexing=indexing))


def _broadcast_arrays(*arrays):
    return list(_core.broadcast_arrays(*arrays))


def namespace(version):
    """The namespace of the array API standard ``version`` ("2024.12" or
    "2023.12"), made on first use and kept."""
    module = _namespaces.get(version)
    if module is None:
        import devarray

        module = types.ModuleType(
            f"devarray.array_api_{version.replace('.', '_')}",
            f"devarray as the array API standard {version} specifies it "
            "(meshgrid, broadcast_arrays and devices() return lists).",
        )
        for name in devarray.__all__:
            setattr(module, name, getattr(devarray, name))
        module.__all__ = list(devarray.__all__)
        # the extensions are the same in these revisions (linalg but eig and
        # eigvals, which 2025.12 added and the older ones do not forbid)
        module.fft = devarray.fft
        module.linalg = devarray.linalg
        module.__array_api_version__ = version
        module.__array_namespace_info__ = _Info
        module.meshgrid = _meshgrid
        module.broadcast_arrays = _broadcast_arrays
        _namespaces[version] = module
    return module
