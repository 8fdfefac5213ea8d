"""The fft extension (issue 28): devarray.fft on cuFFT next to cupy.fft and
torch.fft on the same GPU; on the host backend against numpy.fft (which
devarray's host backend runs), without targets.

Targets: issue 28's (each transform <= 1.0x the best peer; fft of 1,024
complex64: host overhead per call <= 0.75x PyTorch's).
"""

import numpy as np

import devarray
from runner import GPU_LIBS, backend_row, new_row

SMALL = 1024


def complex_array(rng, shape, dtype="complex64"):
    return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)


def transforms(bench, name, **kwargs):
    """{lib: the library's transform `name`} (fft2 is devarray's fftn over
    the last two axes)."""
    devarray_name = "fftn" if name == "fft2" else name
    functions = {"devarray": lambda a: getattr(devarray.fft, devarray_name)(a, **kwargs)}
    if bench.gpu:
        functions["cupy"] = lambda a: getattr(bench.cupy.fft, name)(a, **kwargs)
        functions["torch"] = lambda a: getattr(bench.torch.fft, name)(a, **kwargs)
    else:
        functions["numpy"] = lambda a: getattr(np.fft, name)(a, **kwargs)
    return functions


def fft_rows(bench, rng, log2n):
    """fft of 2^24 complex64, rfft and irfft of 2^26 float32, fft2 of
    4096 x 4096 complex64, 1,024 rfft of 4,096 float32 (on the host
    backend 2^20, 2^22, 1024 x 1024 and 256 x 4096), and on the GPU the
    host overhead of fft of 1,024 complex64."""
    big = 1 << (24 if bench.gpu else 20)
    real_n = 1 << (26 if bench.gpu else 22)
    side = 4096 if bench.gpu else 1024
    batch = 1024 if bench.gpu else 256
    best = [["best", 1.0, "<= 1.0x the best peer"]]
    cases = [
        ("fft-c64", "fft.fft", "{:,}".format(big), "complex64", [complex_array(rng, big)], transforms(bench, "fft")),
        ("rfft-f32", "fft.rfft", "{:,}".format(real_n), "float32",
         [rng.random(real_n, dtype=np.float32)], transforms(bench, "rfft")),
        ("irfft-f32", "fft.irfft (to n real points)", "{:,}".format(real_n), "float32",
         [complex_array(rng, real_n // 2 + 1)], transforms(bench, "irfft", n=real_n)),
        ("fft2-c64", "fft.fftn over both axes (CuPy, PyTorch: fft2)",
         "%d x %d" % (side, side), "complex64", [complex_array(rng, (side, side))],
         transforms(bench, "fft2")),
        ("rfft-batched-f32", "fft.rfft of each row", "%d x 4,096" % batch, "float32",
         [rng.random((batch, 4096), dtype=np.float32)], transforms(bench, "rfft")),
    ]
    rows = []
    for key, op, size, dtype, inputs, functions in cases:
        rows.append(bench.op_row(backend_row(bench, key, op, size, dtype, target=best),
                                 functions, inputs))
    if bench.gpu:
        rows.append(bench.small_row(new_row(
            "small-fft", "host overhead: fft.fft(a)", "{:,}".format(SMALL), "complex64",
            GPU_LIBS, target=[["peer", "torch", 0.75, "<= 0.75x PyTorch"]]),
            transforms(bench, "fft"), complex_array(rng, SMALL)))
    return rows
