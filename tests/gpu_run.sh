#!/usr/bin/env bash
# The full check on a GPU machine (no network; Python with numpy, pytest,
# hypothesis and the interop libraries preinstalled): build in place, show the
# device, run `python3 -m devarray`, the test suite with GPU tests required,
# the array API conformance suite (when .array-api-tests is there), the
# worked examples (examples/: built, installed aside and tested), and the
# benchmarks when present.  Every step runs even after one fails; the
# exit status is non-zero if any did.  Logs go to $OUT (default /tmp/out).
#
#   bash tests/gpu_run.sh            # from the repository root
#   DEVARRAY_CUDA_ARCHS="80 90" bash tests/gpu_run.sh
#   GPU_RUN_SKIP="array_api bench" bash tests/gpu_run.sh
#
# GPU_RUN_SKIP names steps to leave out, by their log names (nvidia-smi,
# build, main, pytest, pytest-device1, pytest-exclusive, array_api,
# examples, bench), so a run longer than a remote machine's per-command
# limit can be split in two.
#
# Several GPUs: the suite requires them all (DEVARRAY_REQUIRE_GPUS), runs a
# second time with device 1 current (DEVARRAY_TEST_DEVICE=1), and the
# examples' engines run on every GPU; the dask stack comes from wheels in
# .whl-dask when the machine has no dask, and UCX's from .whl-ucx when it is
# there too (tests/dask_wheels.sh).
set -euo pipefail

cd "$(dirname "$0")/.."
export DEVARRAY_CUDA_ARCHS=${DEVARRAY_CUDA_ARCHS:-90}
export DEVARRAY_REQUIRE_GPU=1
export DEVARRAY_REQUIRE_CUDA=1
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"

steps=()
failed=0

gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
if [ "${gpus:-0}" -ge 2 ]; then
    export DEVARRAY_REQUIRE_GPUS=$gpus
    # NVLink multicast stays off on the lent multi-GPU machines
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
fi
if [ -d .whl-dask ] && ! python3 -c "import distributed" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target build/dask-site \
        .whl-dask/*.whl $(ls .whl-ucx/*.whl 2>/dev/null)
    export PYTHONPATH=$PWD/build/dask-site${PYTHONPATH:+:$PYTHONPATH}
fi

# step NAME LOG COMMAND...: run COMMAND, tee its output to $OUT/LOG, record
# the status and the time, and carry on whatever happens.
step() {
    local name=$1 log=$2
    shift 2
    case " ${GPU_RUN_SKIP:-} " in
        *" ${log%.log} "*) steps+=("skipped     $name"); return 0 ;;
    esac
    echo
    echo "=== $name: $*"
    local start=$SECONDS rc=0
    "$@" 2>&1 | tee "$OUT/$log" || rc=$?
    local took=$((SECONDS - start))
    if [ "$rc" -eq 0 ]; then
        steps+=("ok      ${took}s  $name")
    else
        steps+=("FAILED  ${took}s  $name (exit $rc, log $OUT/$log)")
        failed=1
    fi
}

step "nvidia-smi" nvidia-smi.log \
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
step "build (sm ${DEVARRAY_CUDA_ARCHS})" build.log \
    python3 setup.py build_ext --inplace
step "python3 -m devarray" main.log python3 -m devarray
# pytest-xdist, where installed, spreads the suite over a few processes (each
# with its own CUDA context): device time is what a GPU session is short of
workers=()
if python3 -c "import xdist" 2>/dev/null; then
    workers=(-n "${PYTEST_WORKERS:-8}")
fi
step "pytest" pytest.log python3 -m pytest -q -rs "${workers[@]}" -m "not exclusive" tests
if [ "${gpus:-0}" -ge 2 ]; then
    step "pytest (device 1 current)" pytest-device1.log env DEVARRAY_TEST_DEVICE=1 \
        python3 -m pytest -q -rs "${workers[@]}" -m "not exclusive" tests
fi
# tests that fill the GPU would make their neighbours run out of memory
step "pytest (exclusive)" pytest-exclusive.log python3 -m pytest -q -rs -m exclusive tests
# The array API conformance suite (tests/array_api_tests.sh) on the CUDA
# backend, when a checkout of data-apis/array-api-tests is at
# .array-api-tests (an ignored folder: the device tool carries it, and the
# suite's wheels in .whl, when asked to).
if [ -d .array-api-tests ]; then
    step "array-api-tests" array_api.log env DEVARRAY_BACKEND=cuda \
        ARRAY_API_REPORT="$OUT/array_api.json" PYTEST_WORKERS="${workers[1]:-}" \
        bash tests/array_api_tests.sh .array-api-tests
fi
# The worked examples, built against the in-place devarray and installed
# into a directory of their own: no network here, so no build isolation and
# no dependencies, and the machine's Python is left as it is.
examples_site=$PWD/build/examples-site
examples() {
    if ! python3 -c "import setuptools.command.bdist_wheel" 2>/dev/null &&
        ! python3 -c "import wheel" 2>/dev/null; then
        echo "examples: pip needs bdist_wheel: setuptools>=70.1, or the wheel package" >&2
        return 1
    fi
    rm -rf "$examples_site" &&
        PYTHONPATH=$PWD python3 -m pip install --no-build-isolation --no-deps \
            --target "$examples_site" examples/vecadd examples/reduce examples/jit &&
        PYTHONPATH=$examples_site:$PWD${PYTHONPATH:+:$PYTHONPATH} python3 -m pytest -q -rs examples
}
step "examples (build, install, pytest)" examples.log examples
if [ -f bench/run.py ]; then
    # the exchange rows time examples/vecadd when it is installed
    step "bench" bench.log env PYTHONPATH="$examples_site${PYTHONPATH:+:$PYTHONPATH}" python3 bench/run.py
fi

echo
echo "=== summary ($(python3 --version 2>&1), DEVARRAY_CUDA_ARCHS=$DEVARRAY_CUDA_ARCHS, ${gpus:-?} GPUs)"
printf '  %s\n' "${steps[@]}"
exit "$failed"
