"""Builds the reduce extension from reduce.cu with devarray's build helper.

    pip install --no-build-isolation .

(--no-build-isolation: the build uses the devarray installed in this
environment, which the module must then run against.)
"""

from setuptools import setup

from devarray.build import BuildExtension, CUDAExtension

setup(ext_modules=[CUDAExtension("reduce", ["reduce.cu"])],
      cmdclass={"build_ext": BuildExtension})
