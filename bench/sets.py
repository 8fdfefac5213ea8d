"""Sets: unique_values of 2^(log2n-2) int32 drawn from 2^20 values (issue
31) and isin of 2^(log2n-2) int32 against 2^16 int32 values (issue 10;
about half of them found), each library's own; on the host backend the same at 2^22
against NumPy, without targets.  Issue 31's (bench/specs.py): unique_counts,
unique_inverse and unique_all of the same int32 (CuPy's unique with its
return_ flags, PyTorch's torch.unique; PyTorch has no unique_all),
unique_values of float32, and their host overhead at 1,024.

Targets: <= 1.0x the best peer; overhead <= 0.75x PyTorch.
"""

import numpy as np

from runner import backend_row
from specs import spec, spec_rows

import devarray  # after runner, which puts the in-place build on sys.path


def set_rows(bench, rng, log2n):
    """unique_values and isin of int32, then the SPECS' rows."""
    return ([unique_row(bench, rng, log2n), isin_row(bench, rng, log2n)]
            + spec_rows(bench, log2n, SPECS, "sets"))


def unique_row(bench, rng, log2n):
    """unique_values of 2^(log2n-2) int32 drawn from 2^20 values (cupy.unique,
    torch.unique(sorted=True))."""
    x = rng.integers(0, 1 << 20, 1 << (log2n - 2), dtype=np.int32)
    fns = {"devarray": lambda a: devarray.unique_values(a),
           "cupy": lambda a: bench.cupy.unique(a),
           "torch": lambda a: bench.torch.unique(a, sorted=True),
           "numpy": lambda a: np.unique(a)}
    return bench.op_row(backend_row(
        bench, "unique-int32", "unique_values(a), 2^20 distinct", "2^%d" % (log2n - 2),
        "int32", target=[["best", 1.0, "<= 1.0x best peer"]]), fns, [x])


def isin_row(bench, rng, log2n):
    """isin(x1, x2): 2^(log2n-2) int32 against 2^16 int32, both drawn from
    [0, 2^17), so about half of x1 is found (no GB/s: x2 is sorted and
    searched, not streamed)."""
    x1 = rng.integers(0, 1 << 17, 1 << (log2n - 2), dtype=np.int32)
    x2 = rng.integers(0, 1 << 17, 1 << 16, dtype=np.int32)
    fns = {"devarray": lambda a, b: devarray.isin(a, b),
           "cupy": lambda a, b: bench.cupy.isin(a, b),
           "torch": lambda a, b: bench.torch.isin(a, b),
           "numpy": lambda a, b: np.isin(a, b)}
    return bench.op_row(backend_row(
        bench, "isin", "isin(x1, x2), x2 of 2^16", "2^%d" % (log2n - 2), "int32",
        target=[["best", 1.0, "<= 1.0x best peer"]]), fns, [x1, x2])


# ---- issue 31 (bench/specs.py): z is int32 drawn from [0, 2^20), 2^(log2n-2)
# of them, 10 timed calls (sorts of tens of ms)

UNIQUE = dict(inputs="z", shift=-2, reps=10)
SPECS = [
    spec("set-unique_counts", "unique_counts(a), 2^20 distinct", "xp.unique_counts(z)",
         cupy="cupy.unique(z, return_counts=True)",
         torch="torch.unique(z, sorted=True, return_counts=True)", **UNIQUE),
    spec("set-unique_inverse", "unique_inverse(a), 2^20 distinct", "xp.unique_inverse(z)",
         cupy="cupy.unique(z, return_inverse=True)",
         torch="torch.unique(z, sorted=True, return_inverse=True)", **UNIQUE),
    spec("set-unique_all", "unique_all(a), 2^20 distinct", "xp.unique_all(z)",
         cupy="cupy.unique(z, return_index=True, return_inverse=True, return_counts=True)",
         **UNIQUE),
    spec("set-unique_values-float32", "unique_values(a), mostly distinct",
         "xp.unique_values(a)", cupy="cupy.unique(a)", torch="torch.unique(a, sorted=True)",
         shift=-2, reps=10, small=False),
    # the host overhead of unique_values and isin (their large rows are above)
    spec("set-unique_values", "unique_values(a)", "xp.unique_values(z)",
         cupy="cupy.unique(z)", torch="torch.unique(z, sorted=True)", inputs="z", large=False),
    spec("set-isin", "isin(x1, x2)", "xp.isin(z, q)", torch="torch.isin(z, q)",
         inputs="z q:int32", large=False),
]
