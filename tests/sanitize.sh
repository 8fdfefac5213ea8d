#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer, on the
# host backend (no GPU needed; the CUDA kernels are not built).
#
#   PYTHON=/path/to/venv/bin/python3 bash tests/sanitize.sh [pytest args]
#
# PYTHON defaults to python3 and needs numpy, pytest and hypothesis; CC
# defaults to gcc.  With no pytest arguments the whole suite (tests/) runs.
# The build happens in a temporary copy of the repository, so the checkout and
# its in-place build are left alone.  Fails when the build or a test fails, or
# when any sanitizer report appears in the output (even in a passing test).
# UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0 lists every undefined-
# behaviour report instead of stopping at the first.
#
# How: setup.py compiles the .c files of src/ with
# DEVARRAY_SANITIZE=address,undefined (-fsanitize=... -fno-omit-frame-pointer)
# and DEVARRAY_DEBUG=1 (-O0 -g, assertions on).  CFLAGS=-fno-wrapv undoes the
# -fwrapv of Python's own CFLAGS, which would hide signed overflow from
# UBSan: devarray's C code does not rely on it (kernels/ops.h wraps integers
# in unsigned arithmetic on purpose), so a signed overflow it reports is a
# real bug.  The interpreter is not
# instrumented, so gcc's libasan is preloaded (it has to come first).
# PYTHONMALLOC=malloc sends Python's small allocations (the PyMem_Malloc
# blocks of conversions, objects) through malloc, where ASan sees them.  Leak
# detection is off: the interpreter does not free everything at exit, and
# tests/test_reliability.py measures leaks directly.  pytest captures
# sys.stdout/sys.stderr only (--capture=sys): the sanitizers write to file
# descriptor 2, and fd capture would hide reports from passing tests and lose
# the report of one that aborts.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
CC=${CC:-gcc}
export CC

libasan=$("$CC" -print-file-name=libasan.so)
if [ ! -e "$libasan" ]; then
    echo "sanitize: $CC has no libasan.so (got '$libasan'); install libasan for $CC" >&2
    exit 2
fi
# The shared object must link the same runtime as the one preloaded: gcc's.
if ! "$CC" --version 2>/dev/null | grep -qi 'gcc\|free software foundation'; then
    echo "sanitize: warning: CC=$CC does not look like gcc; libasan may not match" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/devarray-sanitize.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A copy of the sources without build outputs.
tar -C "$root" --exclude=./build --exclude='*.so' --exclude='*.o' \
    --exclude=__pycache__ --exclude=.git --exclude=.hypothesis \
    --exclude=.pytest_cache -cf - . | tar -C "$work" -xf -

echo "=== build (host backend, -fsanitize=address,undefined) in $work"
(
    cd "$work"
    CFLAGS="-fno-wrapv${CFLAGS:+ $CFLAGS}" \
        DEVARRAY_NO_CUDA=1 DEVARRAY_SANITIZE=address,undefined DEVARRAY_DEBUG=1 \
        "$PYTHON" setup.py build_ext --inplace >"$work/build.log" 2>&1 || {
        cat "$work/build.log"
        echo "sanitize: build failed" >&2
        exit 1
    }
    tail -n 2 "$work/build.log"
)

if [ $# -eq 0 ]; then
    set -- tests
fi
# tests/test_layout.py compiles src/ with cc and reads the symbols: it runs
# none of devarray's code, and under the preloaded sanitizer its compiles
# took 37 s of a worker for nothing

echo "=== pytest $* (DEVARRAY_BACKEND=host, LD_PRELOAD=$libasan)"
log="$work/pytest.log"
status=0
(
    cd "$work"
    # allocator_may_return_null: a test asking for an impossible size gets
    # MemoryError, as without ASan, instead of an ASan abort.
    # verify_asan_link_order=0: the interpreter is not instrumented.
    env LD_PRELOAD="$libasan" \
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1:verify_asan_link_order=0 \
        UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
        PYTHONMALLOC=malloc \
        DEVARRAY_BACKEND=host \
        PYTHONPATH="$work${PYTHONPATH:+:$PYTHONPATH}" \
        "$PYTHON" -m pytest -p no:cacheprovider --capture=sys \
        --ignore=tests/test_layout.py "$@"
) 2>&1 | tee "$log" || status=$?

reports=$(grep -c -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$log" || true)
if [ "$reports" -gt 0 ]; then
    echo
    echo "sanitize: FAILED: $reports sanitizer report(s):" >&2
    grep -n -A 30 -E 'ERROR: AddressSanitizer|runtime error:' "$log" | head -n 200 >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize: FAILED: pytest exited with status $status (no sanitizer report)" >&2
    exit "$status"
fi
echo "sanitize: OK (no sanitizer reports)"
