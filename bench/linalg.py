"""Linear algebra.  Issue 10: a @ b of two 4096 x 4096 matrices, float32
and float64, without TF32 in any library (runner.Bench turns devarray's
and CuPy's off, and says so when they were on); on the host backend 512 x
512 against NumPy, without targets.  Issue 28 (GPU only): devarray.linalg's
factorizations next to cupy.linalg's and torch.linalg's, of 4096 x 4096
matrices and of batches of small ones.

Targets: issue 10's (float32 <= 1.05x PyTorch; none for float64, measured
next to the peers); issue 28's (4096 x 4096: <= 1.05x the best peer;
batches: <= 1.0x the best peer).  Issue 31 (bench/specs.py): the host
overhead of a @ b and linalg.inv of 32 x 32 float32 (<= 0.75x PyTorch).
"""

import numpy as np

import devarray
from runner import backend_row, random_array
from specs import spec, spec_rows

MATMUL_N = 4096                # a @ b of two MATMUL_N x MATMUL_N matrices
HOST_MATMUL_N = 512            # the same on the host backend


def matmul(a, b):
    return a @ b


def matmul_rows(bench, rng, log2n):
    """a @ b in float32 and float64 (the size is MATMUL_N's, not log2n's)."""
    matmul_n = MATMUL_N if bench.gpu else HOST_MATMUL_N
    shape = "%d x %d" % (matmul_n, matmul_n)
    rows = []
    for dtype in ("float32", "float64"):
        a = random_array(rng, matmul_n * matmul_n, dtype).reshape(matmul_n, matmul_n)
        b = random_array(rng, matmul_n * matmul_n, dtype).reshape(matmul_n, matmul_n)
        target = [["peer", "torch", 1.05, "<= 1.05x PyTorch"]] if dtype == "float32" else ()
        rows.append(bench.op_row(backend_row(
            bench, "matmul-" + dtype, "a @ b (no TF32)", shape, dtype, target=target),
            matmul, [a, b]))
        del a, b
    return rows


FACTOR_N = 4096                # the large factorizations' matrices
# An op that takes up to seconds: HEAVY_REPS calls timed, after one that is
# not (the timer's first, ahead of its first event: the warm-up).
HEAVY_REPS = 5


def well_conditioned(rng, shape, dtype):
    """Random matrices with n added to the diagonal: far from singular."""
    n = shape[-1]
    return (rng.standard_normal(shape) + n * np.eye(n)).astype(dtype)


def positive_definite(rng, shape, dtype):
    a = rng.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def factorizations(bench, name, **kwargs):
    """{lib: lib's linalg function `name`} (each library's own spelling of
    the same call)."""
    functions = {"devarray": lambda *a: getattr(devarray.linalg, name)(*a, **kwargs)}
    functions["cupy"] = lambda *a: getattr(bench.cupy.linalg, name)(*a, **kwargs)
    functions["torch"] = lambda *a: getattr(bench.torch.linalg, name)(*a, **kwargs)
    return functions


def factorization_rows(bench, rng, log2n):
    """cholesky, solve, inv, qr, eigh and svd of FACTOR_N x FACTOR_N float32
    and float64; batches: 65,536 of 3 x 3 and of 8 x 8 solve, inv, det,
    cholesky and eigh, 500 of 100 x 100 eigh, 16,384 of 32 x 32 svd."""
    if not bench.gpu:
        return []
    rows = []
    large = [["best", 1.05, "<= 1.05x the best peer"]]
    for dtype in ("float32", "float64"):
        a = well_conditioned(rng, (FACTOR_N, FACTOR_N), dtype)
        spd = positive_definite(rng, (FACTOR_N, FACTOR_N), dtype)
        b = rng.standard_normal((FACTOR_N, 1)).astype(dtype)
        cases = [("cholesky", [spd], {}), ("solve", [a, b], {}), ("inv", [a], {}),
                 ("qr", [a], {}), ("eigh", [spd], {}), ("svd", [a], {"full_matrices": False})]
        for name, inputs, kwargs in cases:
            rows.append(bench.op_row(backend_row(
                bench, "%s-%s" % (name, dtype), "linalg.%s" % name,
                "%d x %d" % (FACTOR_N, FACTOR_N), dtype, target=large),
                factorizations(bench, name, **kwargs), inputs, reps=HEAVY_REPS, warmup=0))
        del a, spd, b
    small = [["best", 1.0, "<= 1.0x the best peer"]]
    for n in (3, 8):
        a = well_conditioned(rng, (65536, n, n), "float32")
        spd = positive_definite(rng, (65536, n, n), "float32")
        b = rng.standard_normal((65536, n, 1)).astype("float32")
        cases = [("solve", [a, b]), ("inv", [a]), ("det", [a]), ("cholesky", [spd]),
                 ("eigh", [spd])]
        for name, inputs in cases:
            rows.append(bench.op_row(backend_row(
                bench, "%s-65536x%d" % (name, n), "linalg.%s, batched" % name,
                "65,536 x %d x %d" % (n, n), "float32", target=small),
                factorizations(bench, name), inputs))
    cases = [("eigh", positive_definite(rng, (500, 100, 100), "float32"), {}, "500 x 100 x 100"),
             ("svd", rng.standard_normal((16384, 32, 32)).astype("float32"),
              {"full_matrices": False}, "16,384 x 32 x 32")]
    for name, x, kwargs, size in cases:
        rows.append(bench.op_row(backend_row(
            bench, "%s-batched-%s" % (name, x.shape[-1]), "linalg.%s, batched" % name, size,
            "float32", target=small), factorizations(bench, name, **kwargs), [x],
            reps=HEAVY_REPS, warmup=0))
    return rows


SPECS = [
    spec("linalg-matmul", "a @ b", "m @ p", torch="m @ p", inputs="m p", large=False),
    spec("linalg-inv", "linalg.inv(a)", "xp.linalg.inv(m)", torch="torch.linalg.inv(m)",
         inputs="m", large=False),
]


def small_rows(bench, rng, log2n):
    """The host overhead of a @ b and linalg.inv on the GPU (issue 31)."""
    return spec_rows(bench, log2n, SPECS, "linalg") if bench.gpu else []
