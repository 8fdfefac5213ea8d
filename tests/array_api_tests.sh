#!/usr/bin/env bash
# The array API conformance suite (data-apis/array-api-tests) against the
# in-place devarray, on the backend DEVARRAY_BACKEND chooses (unset: CUDA
# when a device is there, else host).  Runs the files issues 9 and 10 must
# pass, skips only what tests/array_api_skips.txt lists (each with its
# reason), writes a JSON report and prints a pass/fail/skip table per file.
# Exit status: pytest's.
#
#   bash tests/array_api_tests.sh [SUITE_DIR [PYTEST_ARGS...]]
#   DEVARRAY_BACKEND=host bash tests/array_api_tests.sh .array-api-tests -x
#
# SUITE_DIR (default .array-api-tests, relative to the repository root) is a
# checkout of data-apis/array-api-tests with its array-api submodule (the
# spec) filled in.  The suite needs hypothesis>=6.151, ndindex and
# pytest-json-report; when one is missing they are installed from the
# wheels in .whl (no network) into build/array-api-site, which goes first
# on PYTHONPATH, leaving the machine's Python as it is.
#   ARRAY_API_REPORT   the JSON report (default build/array-api-tests.json)
#   ARRAY_API_FILES    the suite's test files to run, space-separated (default
#                      issue 9's eight and issue 10's seven, e.g.
#                      "test_special_cases.py")
#   PYTEST_WORKERS     pytest-xdist workers (default none: one process)
#   ARRAY_API_SEED     a Hypothesis seed instead of --derandomize (other
#                      draws than the fixed ones: a judge that does not
#                      derandomize may draw them)
#   PYTHON             the interpreter (default python3)
#   ARRAY_API_VERSION  the revision of the standard judged: 2025.12 (the
#                      default: devarray itself) or 2024.12 or 2023.12 (the
#                      namespace x.__array_namespace__(api_version=...) gives)
#
# Settings, as the judge's: ARRAY_API_TESTS_VERSION=$ARRAY_API_VERSION and
# --max-examples=50.  Also --derandomize unless ARRAY_API_SEED is set
# (Hypothesis draws from a seed fixed per test, so two runs of one tree
# agree) and --disable-deadline (a slow shared machine would fail tests on
# time, which conformance does not judge).
# A file that fails to import (a missing name at its top) counts as an
# error and the other files still run.  The rootdir is the suite's, as the
# ids of the skips file are relative to it (pytest would otherwise take the
# common ancestor of every path-like argument).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
PYTHON=${PYTHON:-python3}
suite=${1:-.array-api-tests}
[ $# -gt 0 ] && shift
case $suite in /*) ;; *) suite=$root/$suite ;; esac
report=${ARRAY_API_REPORT:-$root/build/array-api-tests.json}
case $report in /*) ;; *) report=$root/$report ;; esac

if [ ! -f "$suite/conftest.py" ] || [ ! -d "$suite/array-api/src/array_api_stubs" ]; then
    echo "array_api_tests: $suite is not array-api-tests with its array-api submodule" >&2
    exit 2
fi

# The suite's requirements, from .whl when the interpreter lacks them.
site=$root/build/array-api-site
export PYTHONPATH=$site:$root${PYTHONPATH:+:$PYTHONPATH}
have_requirements() {
    "$PYTHON" - <<'EOF'
import importlib.metadata as md
import ndindex, pytest_jsonreport  # noqa: F401
major, minor = (int(x) for x in md.version("hypothesis").split(".")[:2])
assert (major, minor) >= (6, 151), md.version("hypothesis")
EOF
}
if ! have_requirements 2>/dev/null; then
    echo "array_api_tests: installing the suite's requirements from .whl into $site"
    rm -rf "$site"
    "$PYTHON" -m pip install --no-index --find-links "$root/.whl" --target "$site" \
        --no-deps --quiet "hypothesis>=6.151" sortedcontainers ndindex \
        pytest-json-report pytest-metadata
    have_requirements
fi

workers=()
if [ -n "${PYTEST_WORKERS:-}" ]; then
    workers=(-n "$PYTEST_WORKERS")
fi
draws=(--derandomize)
if [ -n "${ARRAY_API_SEED:-}" ]; then
    draws=(--hypothesis-seed="$ARRAY_API_SEED")
fi

mkdir -p "$(dirname "$report")"
if [ -n "${ARRAY_API_FILES:-}" ]; then
    read -r -a files <<<"$ARRAY_API_FILES"
else
    files=(test_has_names.py test_constants.py test_creation_functions.py
        test_data_type_functions.py test_manipulation_functions.py
        test_operators_and_elementwise_functions.py test_array_object.py
        test_special_cases.py
        test_statistical_functions.py test_searching_functions.py
        test_sorting_functions.py test_set_functions.py
        test_indexing_functions.py test_utility_functions.py test_linalg.py test_fft.py)
fi
version=${ARRAY_API_VERSION:-2025.12}
case $version in
    2025.12) module=devarray ;;
    2024.12 | 2023.12)
        module="exec('import devarray; xp = devarray.empty(0).__array_namespace__(api_version=\"$version\")')" ;;
    *) echo "array_api_tests: ARRAY_API_VERSION $version is not 2025.12, 2024.12 or 2023.12" >&2
        exit 2 ;;
esac
rc=0
(
    cd "$suite"
    ARRAY_API_TESTS_MODULE=$module ARRAY_API_TESTS_VERSION=$version \
        "$PYTHON" -m pytest -q -p no:cacheprovider --rootdir=. "${workers[@]}" \
        --max-examples=50 "${draws[@]}" --disable-deadline \
        --continue-on-collection-errors -W "ignore:case for:UserWarning" \
        --skips-file="$root/tests/array_api_skips.txt" \
        --json-report --json-report-file="$report" --json-report-omit=log \
        "${files[@]/#/array_api_tests/}" "$@"
) || rc=$?

echo
echo "=== array-api-tests $version per file (backend ${DEVARRAY_BACKEND:-default}, report $report)"
"$PYTHON" "$root/tests/array_api_summary.py" "$report" || true
exit "$rc"
