#!/usr/bin/env bash
# Download the dask.distributed stack for a GPU machine that has no network
# (Python 3.12, x86-64): one consistent set, pinned by dask-cuda.
# dask-cuda 26.10 needs rapids-dask-dependency 26.10, which pins dask and
# distributed to 2026.7.1; the rest are their requirements that the GPU
# image lacks (it has numpy, pandas, psutil, msgpack, cloudpickle, pyyaml,
# toolz, fsspec, click, jinja2, sortedcontainers, urllib3, nvidia-ml-py).
#
#   bash tests/dask_wheels.sh [DIR]          # default .whl-dask
#
# Then, there: pip install --no-index --no-deps --target /tmp/site DIR/*.whl
set -euo pipefail
dir=${1:-.whl-dask}
mkdir -p "$dir"
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$dir" \
    dask==2026.7.1 distributed==2026.7.1 'dask-cuda==26.10.*' \
    'rapids-dask-dependency==26.10.*' partd locket tblib tornado zict
ls "$dir"
