"""Linear algebra (issue 10): a @ b of two 4096 x 4096 matrices, float32 and
float64, without TF32 in any library (runner.Bench turns devarray's and
CuPy's off, and says so when they were on); on the host backend 512 x 512
against NumPy, without targets.

Targets: issue 10's (float32 <= 1.05x PyTorch; none for float64, measured
next to the peers).
"""

from runner import backend_row, random_array

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
