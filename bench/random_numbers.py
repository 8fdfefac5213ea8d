"""Random numbers (issue 30): devarray.random next to cupy.random (its
module functions, cuRAND underneath) and PyTorch's generators: random of
2^log2n float32, integers in [0, 1000) of 2^log2n int32, standard_normal
of 2^log2n float32, permutation of 2^(log2n-2), and the host overhead of a
draw of 1,024 float32; on the host backend the large draws against
NumPy's Generator, without targets.

(The module is not called random.py: bench/ is first on sys.path, and that
name would hide the standard library's random.)

Targets: issue 30's: random and integers >= 90% of the copy bandwidth (a
draw only writes) and <= 1.0x both peers; standard_normal <= 1.0x both;
permutation <= 1.0x torch.randperm; the 1,024 draw's wall time per call
<= 0.75x PyTorch's.
"""

import numpy as np

from runner import GPU_LIBS, GPU_SEED, HOST_SEED, SMALL, backend_row, new_row

import devarray  # after runner, which puts the in-place build on sys.path
import devarray.random


def draws(bench, seed):
    """{draw: {lib: n -> the library's draw of n values}}, each library on
    its own generator, made once."""
    ours = devarray.random.default_rng(seed)
    theirs = np.random.default_rng(seed)
    cupy, torch = bench.cupy, bench.torch
    return {
        "random": {
            "devarray": lambda n: ours.random(n, dtype=devarray.float32),
            "cupy": lambda n: cupy.random.random(n, dtype=np.float32),
            "torch": lambda n: torch.rand(n, device="cuda"),
            "numpy": lambda n: theirs.random(n, dtype=np.float32)},
        "integers": {
            "devarray": lambda n: ours.integers(0, 1000, size=n, dtype=devarray.int32),
            "cupy": lambda n: cupy.random.randint(0, 1000, size=n, dtype=np.int32),
            "torch": lambda n: torch.randint(0, 1000, (n,), dtype=torch.int32, device="cuda"),
            "numpy": lambda n: theirs.integers(0, 1000, size=n, dtype=np.int32)},
        "standard_normal": {
            "devarray": lambda n: ours.standard_normal(n, dtype=devarray.float32),
            "cupy": lambda n: cupy.random.standard_normal(n, dtype=np.float32),
            "torch": lambda n: torch.randn(n, device="cuda"),
            "numpy": lambda n: theirs.standard_normal(n, dtype=np.float32)},
        "permutation": {
            "devarray": lambda n: ours.permutation(n),
            "cupy": lambda n: cupy.random.permutation(n),
            "torch": lambda n: torch.randperm(n, device="cuda"),
            "numpy": lambda n: theirs.permutation(n)},
    }


def random_rows(bench, rng, log2n):
    """The large draws (GB/s counts the 4 bytes written per value; none for
    permutation, a sort of random keys), then on the GPU the small one."""
    seed = GPU_SEED if bench.gpu else HOST_SEED
    fns = draws(bench, seed)
    n, size = 1 << log2n, "2^%d" % log2n
    peers = [["peer", "cupy", 1.0, "<= 1.0x cupy.random"],
             ["peer", "torch", 1.0, "<= 1.0x PyTorch"]]
    rows = []
    for name, op, dtype, target in (
            ("random", "random(n)", "float32", [["copy", 0.9, ">= 90% copy BW"]] + peers),
            ("integers", "integers(0, 1000, n)", "int32",
             [["copy", 0.9, ">= 90% copy BW"]] + peers),
            ("standard_normal", "standard_normal(n)", "float32", peers)):
        row = backend_row(bench, "random-" + name, op, size, dtype, 4 * n, True, target)
        rows.append(bench.op_row(row, {lib: lambda f=f: f(n) for lib, f in fns[name].items()},
                                 []))
    m = n >> 2
    row = backend_row(bench, "random-permutation", "permutation(n)", "2^%d" % (log2n - 2),
                      "int64", target=[["peer", "torch", 1.0, "<= 1.0x torch.randperm"]])
    rows.append(bench.op_row(
        row, {lib: lambda f=f: f(m) for lib, f in fns["permutation"].items()}, []))
    if bench.gpu:
        row = new_row("small-random", "host overhead: random(n)", "{:,}".format(SMALL),
                      "float32", GPU_LIBS, target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]])
        rows.append(bench.small_row(row, {lib: lambda _, f=fns["random"][lib]: f(SMALL)
                                          for lib in GPU_LIBS}, None, upload=False))
    return rows
