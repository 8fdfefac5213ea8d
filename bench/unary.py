"""Elementwise functions of one array (issue 31), per dtype class: bool,
int8, uint8, int32, int64, float16, float32, float64, complex64 and
complex128, each library's own function, at 2^28 elements (8- and 16-byte
items: 1 GiB), and each function's host overhead at 1,024 (bench/specs.py).
exp, sqrt, abs and isnan of float32 are elementwise.py's rows.

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).
"""

from specs import per_dtype, spec, spec_rows

# bw=True: GB/s counts the input read and the result written.
SPECS = [
    *per_dtype("unary-negative", "negative(a)", "xp.negative(a)", "int8 int64 float16 complex64",
               torch="torch.neg(a)", bw=True),
    *per_dtype("unary-abs", "abs(a)", "xp.abs(a)", "int8 int32 float16 float64 complex64",
               torch="torch.abs(a)", bw=True),
    *per_dtype("unary-sqrt", "sqrt(a)", "xp.sqrt(a)", "float16 float64 complex64",
               torch="torch.sqrt(a)", bw=True),
    *per_dtype("unary-exp", "exp(a)", "xp.exp(a)", "float16 float64 complex64 complex128",
               torch="torch.exp(a)", bw=True),
    *per_dtype("unary-log", "log(a)", "xp.log(a)", "float32 float16 float64",
               torch="torch.log(a)", bw=True),
    *per_dtype("unary-sin", "sin(a)", "xp.sin(a)", "float32 float16 float64",
               torch="torch.sin(a)", bw=True),
    *per_dtype("unary-floor", "floor(a)", "xp.floor(a)", "float32 float16 float64",
               torch="torch.floor(a)", bw=True),
    *per_dtype("unary-isnan", "isnan(a)", "xp.isnan(a)", "float16 float64 complex64",
               torch="torch.isnan(a)", bw=True),
    spec("unary-logical_not-bool", "logical_not(a)", "xp.logical_not(a)",
         torch="torch.logical_not(a)", inputs="a:bool", bw=True),
    *per_dtype("unary-bitwise_invert", "bitwise_invert(a)", "xp.bitwise_invert(a)",
               "uint8 int32", cupy="cupy.invert(a)", torch="torch.bitwise_not(a)", bw=True),
    spec("unary-sign-float32", "sign(a)", "xp.sign(a)", torch="torch.sign(a)", bw=True),
    spec("unary-round-float32", "round(a)", "xp.round(a)", torch="torch.round(a)", bw=True),
    spec("unary-square-float32", "square(a)", "xp.square(a)", torch="torch.square(a)",
         bw=True),
]


def unary_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "unary")
