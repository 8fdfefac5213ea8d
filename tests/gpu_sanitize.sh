#!/usr/bin/env bash
# compute-sanitizer over devarray's CUDA tests, on a GPU machine:
#
#   bash tests/gpu_sanitize.sh        # after tests/gpu_run.sh built in place
#
# memcheck (out-of-bounds and misaligned accesses, leaks of device memory)
# runs the CUDA half of the arithmetic, sum, array and transfer suites and
# of the array API part 2 (reductions, scans, searches, sorts, sets,
# indexing by arrays, matmul); racecheck (shared-memory hazards: the
# reductions, block scans, the tiled matmul and transposes and the fused
# interpreter use shared memory) runs their CUDA tests.  Each tool exits non-zero on its first report; logs go
# to $OUT (default /tmp/out).  SANITIZE_FILES replaces the memcheck list;
# SANITIZE_STREAMS_ONLY=1 runs only the streams pass (all three tools over
# the stream, graph and pinned-memory tests); SANITIZE_MULTI_GPU=1 only the
# several-GPU pass: memcheck over tests/test_multi_gpu.py and
# tests/test_devices.py, racecheck and synccheck over their tests of
# streams, events and the staging ring across devices.
set -uo pipefail

cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export DEVARRAY_REQUIRE_GPU=1 PYTHONUNBUFFERED=1
failed=0

sanitize() {
    local tool=$1 log=$2
    shift 2
    echo "=== compute-sanitizer --tool $tool: $*"
    compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
        "$@" > "$OUT/$log" 2>&1
    local rc=$?
    tail -n 3 "$OUT/$log"
    grep -E "ERROR SUMMARY" "$OUT/$log" | tail -n 1
    [ "$rc" -eq 0 ] || failed=1
}

part2="tests/test_reduce.py tests/test_statistics.py tests/test_scan.py
    tests/test_search.py tests/test_sort.py tests/test_sets.py tests/test_array_index.py
    tests/test_linalg.py"
# the stream, event, graph and pinned-memory tests under every tool.  Left
# out: the control test that switches the free ordering off (a tool that
# serialises the streams hides the race it shows), and, for memcheck only,
# the graphs whose temporaries are freed inside the capture: memcheck checks
# every node of such a graph against the allocation that reuses the address
# last (a temporary's writes are reported out of bounds of the 8-byte result
# allocated after its free), while the same graph with the temporary kept
# alive reports 0 errors and both give the right values.
streams="tests/test_streams.py tests/test_reliability_streams.py tests/test_pinned.py
    tests/test_reliability_pinned.py"
if [ -n "${SANITIZE_MULTI_GPU:-}" ]; then
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    # left out: the test that breaks a device on purpose (a trap is an error
    # to the tool), the one that exhausts a device's memory on purpose (the
    # tool reports the refused cudaMallocAsync and its cudaGetLastError as
    # API errors), and JAX's (XLA's autotuning under the tool takes minutes)
    sanitize memcheck multi-memcheck.log python3 -m pytest -q -x -p no:cacheprovider \
        tests/test_multi_gpu.py tests/test_devices.py \
        -k "not (failing_device or out_of_memory or jax)"
    for tool in racecheck synccheck; do
        sanitize "$tool" "multi-$tool.log" python3 -m pytest -q -x -p no:cacheprovider \
            tests/test_multi_gpu.py -k "stream or staging or event or synchronize"
    done
    exit "$failed"
fi
for tool in memcheck racecheck synccheck; do
    skip="host or without_ordering"
    [ "$tool" = memcheck ] && skip="$skip or graph"
    # racecheck instruments cuBLAS's shared memory too: the 4096^2 products
    # that keep a stream busy in the free test take minutes under it
    [ "$tool" = racecheck ] && skip="$skip or free_waits"
    # shellcheck disable=SC2086
    sanitize "$tool" "streams-$tool.log" python3 -m pytest -q -x -p no:cacheprovider \
        $streams -k "not ($skip)"
done
[ -n "${SANITIZE_STREAMS_ONLY:-}" ] && exit "$failed"
# shellcheck disable=SC2086
sanitize memcheck memcheck.log python3 -m pytest -q -x -p no:cacheprovider \
    ${SANITIZE_FILES:-tests/test_arith.py tests/test_ufunc.py tests/test_sum.py
    tests/test_array.py tests/test_transfer.py $part2} \
    -k "cuda or gpu"
# shellcheck disable=SC2086
sanitize racecheck racecheck.log python3 -m pytest -q -x -p no:cacheprovider \
    tests/test_sum.py tests/test_reduce.py tests/test_scan.py tests/test_linalg.py \
    tests/test_layout_order.py tests/test_fuse.py -k "cuda or gpu"
exit "$failed"
