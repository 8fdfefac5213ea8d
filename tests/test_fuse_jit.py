"""devarray.fuse's run-time compiler (src/runtime/jit.c, src/runtime/rtc.c).

Everywhere the build has CUDA (CI included, no GPU needed): every op's
generated kernel compiles with NVRTC.  On a GPU: compiled kernels give the
unfused chain's bytes (test_fuse.py runs with the compiler on; here its
main tests run again with the interpreter, so both engines stay covered),
NVRTC absent or refused is a warning once and the interpreter, and the
disk cache is used and survives a damaged file."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import devarray as da
import test_fuse
from _helpers import random_array

REAL = ["bool", "int8", "uint16", "int64", "uint64", "float16", "float32", "float64"]


def jit_source(f, *args):
    """f._jit_source(*args); skipped where this build cannot compile (no CUDA
    backend, no NVRTC), except in CI, whose build must (DEVARRAY_REQUIRE_CUDA)."""
    try:
        return f._jit_source(*args)
    except RuntimeError as exc:
        if os.environ.get("DEVARRAY_REQUIRE_CUDA", "") not in ("", "0"):
            raise
        pytest.skip(str(exc))


def check_compiles(fn, *args):
    """fuse(fn)'s kernel for args compiles, or fn is refused unfused too, or
    its fused form is the argument itself (an op that is a copy there)."""
    try:
        fn(*args)
    except (TypeError, ValueError):
        return
    result = jit_source(da.fuse(fn), *args)
    if result is None:
        assert da.fuse(fn)(*args) is args[0]
        return
    source, nbytes = result
    assert nbytes > 0
    assert "da_fused" in source and "da_store_" in source


@pytest.mark.parametrize("name", test_fuse.UNARY)
def test_every_unary_op_compiles(rng, name):
    op = getattr(da, name)
    for dtype in REAL:
        check_compiles(lambda x: op(x), da.asarray(random_array(rng, (8,), dtype)))


@pytest.mark.parametrize("name", test_fuse.BINARY)
def test_every_binary_op_compiles(rng, name):
    op = getattr(da, name)
    for dtype in REAL:
        a = da.asarray(random_array(rng, (8,), dtype))
        b = da.asarray(random_array(rng, (8,), dtype))
        check_compiles(lambda x, y: op(op(x, y), y), a, b)


def test_mixed_programs_compile(rng):
    a = da.asarray(random_array(rng, (8,), "int8"))
    b = da.asarray(random_array(rng, (8,), "float16"))
    c = da.asarray(random_array(rng, (1,), "uint32"))
    check_compiles(lambda x, y, z: da.where(x < y, x * 2.5, y - z) / 3, a, b, c)
    check_compiles(lambda x, y, s: (x + s) * y - s, a, b, 7)
    check_compiles(lambda x, y: (x > 0) * y + (x // 3), a, b)


def test_complex_programs_are_left_to_the_interpreter(rng):
    a = da.asarray(random_array(rng, (8,), "complex64"))
    assert jit_source(da.fuse(lambda x: x * x + 1), a) is None


def test_set_fuse_jit_returns_the_previous_setting():
    previous = da._core._set_fuse_jit(False)
    try:
        assert da._core._set_fuse_jit(True) is False
        assert da._core._set_fuse_jit(True) is True
    finally:
        da._core._set_fuse_jit(previous)


# ---- on a GPU ---------------------------------------------------------------


@pytest.fixture
def interpreter(gpu):
    """The precompiled interpreter for the test's fused calls."""
    previous = da._core._set_fuse_jit(False)
    yield
    da._core._set_fuse_jit(previous)


@pytest.mark.parametrize("name", test_fuse.UNARY)
def test_interpreter_unary(interpreter, rng, name):
    test_fuse.test_unary_every_dtype("cuda", rng, name)


@pytest.mark.parametrize("name", test_fuse.BINARY)
def test_interpreter_binary(interpreter, rng, name):
    test_fuse.test_binary_every_dtype("cuda", rng, name)


@pytest.mark.parametrize("d1", test_fuse.MIXED)
def test_interpreter_mixed(interpreter, rng, d1):
    test_fuse.test_mixed_dtypes_and_scalars("cuda", rng, d1)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", ["bool", "int16", "uint32", "float32", "float64"])
def test_interpreter_reductions(interpreter, rng, op, dtype):
    test_fuse.test_final_reduction("cuda", rng, op, dtype)


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "interpreter"])
@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_reductions_have_the_unfused_bits(gpu, rng, jit, op, dtype):
    """A fused float sum or product is one pass in the unfused reduction's
    order (kernels/reduce_ordered.cuh): its bytes at sizes around the tiles
    (512 elements) and the grid (2048 blocks), and its value near NumPy's."""
    # sums of squared differences of numbers below 1/16 and products of
    # numbers 1 +- 2^-10 (exact in float16): both stay finite in float16
    # over millions of elements
    part = (lambda x, y: (x - y) * (x - y)) if op == "sum" else (lambda x, y: x * y)
    fn = (lambda x, y: getattr(part(x, y), op)())
    f = da.fuse(fn)
    rtol = {"float16": 1e-2, "float32": 1e-4 if op == "sum" else 1e-3,
            "float64": 1e-9}[dtype]
    previous = da._core._set_fuse_jit(jit)
    try:
        for n in (1, 511, 512, 513, 2048 * 512 - 1, 2048 * 512 * 3 + 77):
            if op == "sum":
                x, y = ((rng.random(n) / 16).astype(dtype) for _ in range(2))
            else:
                x, y = (1 + rng.integers(-1, 2, n).astype(dtype) * np.float16(2**-10)
                        for _ in range(2))
            dx, dy = da.asarray(x), da.asarray(y)
            want = fn(dx, dy).to_host()
            got = f(dx, dy).to_host()
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), n
            exact = getattr(part(x, y).astype(np.float64), op)()
            np.testing.assert_allclose(got.astype(np.float64), exact, rtol=rtol)
    finally:
        da._core._set_fuse_jit(previous)


def test_compiled_large_and_ragged(gpu, rng):
    """Sizes around the kernel's tiles and grid (1024 elements a block
    iteration), each element checked against the unfused chain."""
    f = da.fuse(lambda x, y, s: ((x + y) * x - y) / (y + s))
    for n in (1, 255, 1023, 1024, 1025, 4096 * 33 + 7, 1 << 22):
        x = da.asarray(random_array(rng, (n,), "float32"))
        y = da.asarray(random_array(rng, (n,), "float32"))
        want = (((x + y) * x - y) / (y + 0.5)).to_host()
        assert f(x, y, 0.5).to_host().tobytes() == want.tobytes()


def test_compiled_from_threads(gpu, rng):
    """Threads compiling the same new programs at once (NVRTC runs without
    the GIL) all get the unfused chain's bytes."""
    x = da.asarray(random_array(rng, (5000,), "float64"))
    fns = [da.fuse(lambda a, k=k: da.sin(a) * k + da.exp(a / (k + 1))) for k in range(4)]
    wants = [(da.sin(x) * k + da.exp(x / (k + 1))).to_host().tobytes() for k in range(4)]
    errors = []

    def work(i):
        try:
            for k in range(4):
                got = fns[(k + i) % 4](x).to_host().tobytes()
                assert got == wants[(k + i) % 4]
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    import devarray as da
    rng = np.random.default_rng(5)
    x = da.asarray(rng.standard_normal(3000).astype(np.float32))
    y = da.asarray(rng.standard_normal(3000).astype(np.float32))
    f = da.fuse(lambda a, b: da.exp(a) * b - a / 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            got = f(x, y).to_host().tobytes()
        got2 = da.fuse(lambda a: a * 2 + 1)(x).to_host().tobytes()
    assert got == (da.exp(x) * y - x / 3).to_host().tobytes()
    assert got2 == (x * 2 + 1).to_host().tobytes()
    print(len([w for w in caught if issubclass(w.category, RuntimeWarning)]))
    for w in caught:
        print(w.message)
""")


def run_script(env_extra):
    env = dict(os.environ, DEVARRAY_BACKEND="cuda", **env_extra)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_nvrtc_absent_warns_once_and_interprets(gpu, tmp_path):
    lines = run_script({"DEVARRAY_NVRTC": str(tmp_path / "libnvrtc-missing.so"),
                        "DEVARRAY_CACHE_DIR": str(tmp_path / "cache")})
    assert lines[0] == "1"
    assert "interpreter" in lines[1] and "libnvrtc-missing.so" in lines[1]
    assert not (tmp_path / "cache").exists()


def test_jit_off_is_silent(gpu, tmp_path):
    lines = run_script({"DEVARRAY_JIT": "0", "DEVARRAY_CACHE_DIR": str(tmp_path)})
    assert lines == ["0"]
    assert list(tmp_path.iterdir()) == []


def test_disk_cache_is_written_reused_and_survives_damage(gpu, tmp_path):
    env = {"DEVARRAY_CACHE_DIR": str(tmp_path / "a" / "b")}
    assert run_script(env) == ["0"]
    files = sorted((tmp_path / "a" / "b").glob("fuse-sm*.cubin"))
    assert len(files) == 2
    assert all(p.read_bytes().startswith(b"DAJIT1\n") for p in files)
    stamps = [p.stat().st_mtime_ns for p in files]
    assert run_script(env) == ["0"]
    assert [p.stat().st_mtime_ns for p in files] == stamps  # read, not rewritten
    files[0].write_bytes(files[0].read_bytes()[:100])
    files[1].write_bytes(b"DAJIT1\n" + os.urandom(64))
    assert run_script(env) == ["0"]
    assert len(files[0].read_bytes()) > 100


def test_values_against_numpy(gpu, rng):
    x = random_array(rng, (10000,), "float32")
    y = random_array(rng, (10000,), "float32")
    f = da.fuse(lambda a, b: ((a + b) * a - b) / b)
    np.testing.assert_array_equal(f(da.asarray(x), da.asarray(y)).to_host(),
                                  ((x + y) * x - y) / y)
