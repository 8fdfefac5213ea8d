#!/usr/bin/env bash
# Static analysis of the C sources (src/ and its layer folders, with the
# kernels/ headers they include), with and without the CUDA backend
# compiled in.
#
#   bash tests/lint.sh            # PYTHON=... for another interpreter's headers
#                                 # LINT_JOBS=N processes (default: every core)
#
# cppcheck (required): --enable=warning,performance,portability, with its
# python and posix library configurations so that CPython's macros
# (Py_RETURN_NONE, Py_BEGIN_ALLOW_THREADS, ...) are understood.
# clang-tidy (when installed): the clang static analyzer and a small set of
# bugprone checks, compiled against the real Python (and CUDA) headers.
# Fails on any finding, except the few listed in KNOWN below, each with the
# reason it is not a bug.  No suppression lives in src/.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# both analysers work file by file: one process per core
JOBS=${LINT_JOBS:-$(nproc)}
status=0

if ! command -v cppcheck >/dev/null; then
    echo "lint: cppcheck is not installed (apt-get install cppcheck)" >&2
    exit 2
fi

cuda_include=""
for home in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    if [ -n "$home" ] && [ -f "$home/include/cuda_runtime_api.h" ]; then
        cuda_include="$home/include"
        break
    fi
done
if [ -z "$cuda_include" ] && command -v nvcc >/dev/null; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
    [ -f "$home/include/cuda_runtime_api.h" ] && cuda_include="$home/include"
fi

echo "=== cppcheck $(cppcheck --version | sed 's/Cppcheck //')"
# nvcc's and NVRTC's macros: the branches of the kernels/ headers that test
# them are CUDA C++, never part of a C compile.  Given only -U, cppcheck
# would check every file once more with each of them defined (2.3 times
# the time of the -D run, for code no C compiler sees).
cuda_compilers_only=(-U__CUDACC__ -U__CUDA_ARCH__ -UDA_NO_COMPLEX_LOOPS)
for config in -DDEVARRAY_HAVE_CUDA -UDEVARRAY_HAVE_CUDA; do
    echo "--- $config"
    cppcheck --enable=warning,performance,portability --library=python --library=posix \
        --inline-suppr --error-exitcode=1 --std=c11 --quiet -j "$JOBS" -I src -I kernels \
        "$config" "${cuda_compilers_only[@]}" src/ || status=1
done

# clang-tidy findings that are not bugs: "file:check  reason".
KNOWN=(
    # ins[k] == NULL (a scalar operand) only ever comes with a non-NULL
    # `scalars`; the analyzer cannot see the callers' pairing.
    "src/core/elementwise.c:clang-analyzer-core.NullDereference"
    # a buffer requested with PyBUF_RECORDS_RO has a shape whenever it has
    # strides (PEP 3118: PyBUF_STRIDES implies PyBUF_ND)
    "src/interop/buffer_in.c:clang-analyzer-core.NullDereference"
)

if command -v clang-tidy >/dev/null; then
    echo
    echo "=== $(clang-tidy --version | grep -i 'version' | head -n 1 | sed 's/^ *//')"
    py_include=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    checks='-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling'
    checks+=',bugprone-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier'
    # style, not bugs: macro arguments used as names or types, digit
    # arithmetic narrowed to char, int products of small bounded values,
    # memcpy of "nan"/"inf" into a sized buffer, identical branches kept for
    # symmetry
    checks+=',-bugprone-macro-parentheses,-bugprone-narrowing-conversions'
    checks+=',-bugprone-implicit-widening-of-multiplication-result'
    checks+=',-bugprone-not-null-terminated-result,-bugprone-branch-clone'
    flags=(-std=c11 -Isrc -Ikernels "-I$py_include")
    if [ -n "$cuda_include" ]; then
        flags+=(-DDEVARRAY_HAVE_CUDA "-I$cuda_include")
    else
        echo "lint: no CUDA headers found: clang-tidy checks the host-only build"
    fi
    tidy=$(mktemp -d)
    trap 'rm -rf "$tidy"' EXIT
    log=$tidy/all.log
    # one clang-tidy per file, JOBS at a time, each into a log of its own
    for file in src/*.c src/*/*.c; do
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
            wait -n || true
        done
        clang-tidy --quiet -checks="$checks" "$file" -- "${flags[@]}" \
            >"$tidy/$(basename "$file").log" 2>/dev/null &
    done
    wait || true
    cat "$tidy"/*.c.log >"$log"
    findings=0
    while IFS= read -r line; do
        file=$(printf '%s\n' "$line" | sed -E 's#^.*/(src/[^:]+):.*#\1#; s#^(src/[^:]+):.*#\1#')
        check=$(printf '%s\n' "$line" | sed -E 's/.*\[([^]]+)\]$/\1/')
        known=0
        for entry in "${KNOWN[@]}"; do
            if [ "$entry" = "$file:$check" ]; then
                known=1
            fi
        done
        if [ "$known" -eq 1 ]; then
            echo "known (see tests/lint.sh): $line"
        else
            echo "$line"
            findings=$((findings + 1))
        fi
    done < <(grep -E ': (warning|error): ' "$log" | sed -E 's#^.*/(src/|kernels/)#\1#' || true)
    if [ "$findings" -gt 0 ]; then
        echo "lint: clang-tidy: $findings finding(s)" >&2
        status=1
    fi
else
    echo "lint: clang-tidy is not installed; only cppcheck ran"
fi

if [ "$status" -eq 0 ]; then
    echo "lint: OK"
fi
exit "$status"
