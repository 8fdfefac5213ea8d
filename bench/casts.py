"""Casts (issue 31): astype(a, dtype) (a copy) for each class pair that
matters, at 2^28 elements (an input of 8-byte items: 1 GiB), each library's
own (CuPy a.astype, PyTorch a.to), and its host overhead at 1,024
(bench/specs.py).

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).
"""

from specs import spec, spec_rows

PAIRS = ("bool float32", "int8 float32", "uint8 float32", "int32 float32", "int32 float64",
         "int64 int32", "float16 float32", "float32 float16", "float32 float64",
         "float64 float32", "float32 int32", "float32 bool", "float32 complex64",
         "complex64 complex128")


def cast(pair, small):
    src, dst = pair.split()
    return spec("cast-%s-%s" % (src, dst), "astype(a, %s)" % dst,
                "xp.astype(a, xp.%s)" % dst, cupy="a.astype(cupy.%s)" % dst,
                torch="a.to(torch.%s)" % dst, inputs="a:" + src,
                dtype="%s -> %s" % (src, dst), bw=True, small=small)


# the overhead of a cast hardly depends on the pair: four of them
SPECS = [cast(pair, pair in PAIRS[3:7]) for pair in PAIRS]


def cast_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "casts")
