"""Elementwise functions of two arrays (issue 31), per dtype class, each
library's own operator or function at 2^28 elements (8- and 16-byte items:
1 GiB); a scalar operand; broadcast operands (an outer sum, a row and a
column vector over a 16384 x 16384 matrix); clip with scalar and array
bounds; and each function's host overhead at 1,024 (bench/specs.py).
a + b of float32 and float64 are elementwise.py's rows.

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).
"""

from specs import per_dtype, spec, spec_rows

AB = "a:{t} b:{t}"

# bw=True: GB/s counts the inputs read and the result written.
SPECS = [
    *per_dtype("binary-add", "a + b", "a + b", "int8 uint8 int32 int64 float16 complex64 "
               "complex128", torch="a + b", inputs=AB, bw=True, small=False),
    *per_dtype("binary-multiply", "a * b", "a * b", "int32 float16 float64 complex64",
               torch="a * b", inputs=AB, bw=True),
    *per_dtype("binary-divide", "a / b", "a / b", "float32 float16 float64 complex64",
               torch="a / b", inputs=AB, bw=True),
    *per_dtype("binary-floor_divide", "a // b", "a // b", "int32 int64 float32",
               torch="torch.floor_divide(a, b)", inputs=AB, bw=True),
    *per_dtype("binary-remainder", "a % b", "a % b", "int32 int64 float32",
               torch="torch.remainder(a, b)", inputs=AB, bw=True),
    *per_dtype("binary-pow", "pow(a, b)", "xp.pow(a, b)", "float32 float64 int32",
               cupy="cupy.power(a, b)", torch="torch.pow(a, b)", inputs=AB, bw=True),
    *per_dtype("binary-maximum", "maximum(a, b)", "xp.maximum(a, b)",
               "float32 int32 float16 float64", torch="torch.maximum(a, b)", inputs=AB,
               bw=True),
    *per_dtype("binary-atan2", "atan2(a, b)", "xp.atan2(a, b)", "float32",
               cupy="cupy.arctan2(a, b)", torch="torch.atan2(a, b)", inputs=AB, bw=True),
    *per_dtype("binary-equal", "a == b", "a == b", "int32 float32 complex64", torch="a == b",
               inputs=AB, bw=True),
    *per_dtype("binary-logical_and", "logical_and(a, b)", "xp.logical_and(a, b)", "bool",
               torch="torch.logical_and(a, b)", inputs=AB, bw=True),
    *per_dtype("binary-bitwise_and", "a & b", "a & b", "bool uint8 int32 int64",
               torch="a & b", inputs=AB, bw=True),
    # a Python scalar operand
    spec("binary-add-scalar", "a + 1.5", "a + 1.5", torch="a + 1.5", bw=True),
    spec("binary-rsub-scalar", "2.0 - a", "2.0 - a", torch="2.0 - a", bw=True),
    spec("binary-mul-scalar-float64", "a * 2.5", "a * 2.5", torch="a * 2.5",
         inputs="a:float64", bw=True),
    spec("binary-pow-scalar", "a ** 2", "a ** 2", torch="a ** 2", bw=True),
    spec("binary-less-scalar", "a < 1.0", "a < 1.0", torch="a < 1.0", bw=True),
    spec("binary-floordiv-scalar-int32", "a // 7", "a // 7", torch="a // 7",
         inputs="a:int32", bw=True),
    spec("binary-mod-scalar-int32", "a % 7", "a % 7", torch="a % 7", inputs="a:int32",
         bw=True),
    spec("binary-floordiv-scalar-int64", "a // 7", "a // 7", torch="a // 7",
         inputs="a:int64", bw=True),
    # broadcast operands: u of R and v of C against an R x C result
    spec("binary-outer-add", "u[:, None] + v[None, :]", "u[:, None] + v[None, :]",
         torch="u[:, None] + v[None, :]", inputs="u v", bw=True),
    spec("binary-add-row", "m + v (v a row)", "m + v", torch="m + v", inputs="m v", bw=True),
    spec("binary-add-column", "m + u[:, None] (u a column)", "m + u[:, None]",
         torch="m + u[:, None]", inputs="m u", bw=True),
    spec("binary-mul-row-float64", "m * v (v a row)", "m * v", torch="m * v",
         inputs="m:float64 v:float64", bw=True),
    # clip
    spec("binary-clip-scalar", "clip(a, 0.75, 1.25)", "xp.clip(a, 0.75, 1.25)",
         torch="torch.clamp(a, 0.75, 1.25)", bw=True),
    spec("binary-clip-scalar-int32", "clip(a, 100, 900)", "xp.clip(a, 100, 900)",
         torch="torch.clamp(a, 100, 900)", inputs="a:int32", bw=True),
    spec("binary-clip-arrays", "clip(a, b, c) (array bounds)", "xp.clip(a, b, c)",
         torch="torch.clamp(a, b, c)", inputs="a b c", bw=True),
]


def binary_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "binary")
