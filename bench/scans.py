"""Scans (issue 31): cumulative_sum of 2^28 elements, over the last and the
leading axis of a 16384 x 16384 matrix, of int32 (an int64 result) and
float64; cumulative_prod; each library's own (CuPy cumsum and cumprod,
PyTorch torch.cumsum and torch.cumprod), and their host overhead at 1,024
(bench/specs.py).

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).
"""

from specs import spec, spec_rows

# bw=True: GB/s counts the input read and the result written.
SPECS = [
    spec("scan-cumsum", "cumulative_sum(a)", "xp.cumulative_sum(a)", cupy="cupy.cumsum(a)",
         torch="torch.cumsum(a, 0)", bw=True),
    spec("scan-cumsum-last", "cumulative_sum(m, axis=-1)", "xp.cumulative_sum(m, axis=-1)",
         cupy="cupy.cumsum(m, axis=-1)", torch="torch.cumsum(m, -1)", inputs="m", bw=True),
    spec("scan-cumsum-axis0", "cumulative_sum(m, axis=0)", "xp.cumulative_sum(m, axis=0)",
         cupy="cupy.cumsum(m, axis=0)", torch="torch.cumsum(m, 0)", inputs="m", bw=True,
         small=False),
    spec("scan-cumsum-int32", "cumulative_sum(a) (int64 result)", "xp.cumulative_sum(a)",
         cupy="cupy.cumsum(a)", torch="torch.cumsum(a, 0, dtype=torch.int64)",
         inputs="a:int32", bw=True, small=False),
    spec("scan-cumsum-float64", "cumulative_sum(a)", "xp.cumulative_sum(a)",
         cupy="cupy.cumsum(a)", torch="torch.cumsum(a, 0)", inputs="a:float64", bw=True,
         small=False),
    spec("scan-cumprod", "cumulative_prod(a)", "xp.cumulative_prod(a)",
         cupy="cupy.cumprod(a)", torch="torch.cumprod(a, 0)", bw=True),
]


def scan_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "scans")
