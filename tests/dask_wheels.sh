#!/usr/bin/env bash
# Download the dask.distributed stack for a GPU machine that has no network
# (Python 3.12, x86-64): one consistent set, pinned by dask-cuda.
# dask-cuda 26.10 needs rapids-dask-dependency 26.10, which pins dask and
# distributed to 2026.7.1; the rest are their requirements that the GPU
# image lacks (it has numpy, pandas, psutil, msgpack, cloudpickle, pyyaml,
# toolz, fsspec, click, jinja2, sortedcontainers, urllib3, nvidia-ml-py,
# cuda-bindings, cuda-core).
#
#   bash tests/dask_wheels.sh [DIR [UCX_DIR]]    # default .whl-dask .whl-ucx
#
# UCX_DIR gets protocol="ucx" (54 MB, kept apart so that a run without UCX
# carries less): distributed-ucxx-cu13 0.52, which needs ucxx and libucxx
# 0.52, libucx 1.19 to 1.21, rmm and librmm 26.10, rapids-logger 0.3.
# Then, there: pip install --no-index --no-deps --target /tmp/site DIR/*.whl
set -euo pipefail
dir=${1:-.whl-dask}
ucx_dir=${2:-.whl-ucx}
download() {
    local to=$1
    shift
    mkdir -p "$to"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform any -d "$to" "$@"
    ls "$to"
}
download "$dir" dask==2026.7.1 distributed==2026.7.1 'dask-cuda==26.10.*' \
    'rapids-dask-dependency==26.10.*' partd locket tblib tornado zict
download "$ucx_dir" 'distributed-ucxx-cu13==0.52.*' 'ucxx-cu13==0.52.*' 'libucxx-cu13==0.52.*' \
    'libucx-cu13>=1.19,<1.22' 'rmm-cu13==26.10.*' 'librmm-cu13==26.10.*' 'rapids-logger==0.3.*'
