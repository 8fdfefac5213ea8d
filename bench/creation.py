"""Creation (issue 31): zeros, ones, full, arange (int64), linspace, eye,
tril, triu, zeros_like and meshgrid (two copies) of 2^28 elements, each
library's own (PyTorch's on device="cuda"), and their host overhead at
1,024, with empty and asarray of a device array (bench/specs.py).

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth:
GB/s counts the bytes written; overhead <= 0.75x PyTorch).
"""

from specs import spec, spec_rows

CUDA = 'device="cuda"'
# bw: the result written (tril and triu read m too)
SPECS = [
    spec("create-zeros", "zeros(n)", "xp.zeros(n, dtype=xp.float32)",
         torch="torch.zeros(n, dtype=torch.float32, %s)" % CUDA, inputs="", bw="out"),
    spec("create-ones", "ones(n)", "xp.ones(n, dtype=xp.float32)",
         torch="torch.ones(n, dtype=torch.float32, %s)" % CUDA, inputs="", bw="out"),
    spec("create-full", "full(n, 1.5)", "xp.full(n, 1.5, dtype=xp.float32)",
         torch="torch.full((n,), 1.5, dtype=torch.float32, %s)" % CUDA, inputs="",
         bw="out"),
    spec("create-empty", "empty(n)", "xp.empty(n, dtype=xp.float32)",
         torch="torch.empty(n, dtype=torch.float32, %s)" % CUDA, inputs="", large=False),
    spec("create-arange", "arange(n)", "xp.arange(n, dtype=xp.int64)",
         torch="torch.arange(n, dtype=torch.int64, %s)" % CUDA, inputs="", dtype="int64",
         bw="out"),
    spec("create-linspace", "linspace(0, 1, n)", "xp.linspace(0.0, 1.0, n, dtype=xp.float32)",
         torch="torch.linspace(0.0, 1.0, n, dtype=torch.float32, %s)" % CUDA, inputs="",
         bw="out"),
    spec("create-eye", "eye(R, C)", "xp.eye(R, C, dtype=xp.float32)",
         torch="torch.eye(R, C, dtype=torch.float32, %s)" % CUDA, inputs="", bw="out",
         size="{R} x {C}"),
    spec("create-zeros_like", "zeros_like(a)", "xp.zeros_like(a)", torch="torch.zeros_like(a)",
         bw="out"),
    spec("create-tril", "tril(m)", "xp.tril(m)", torch="torch.tril(m)", inputs="m", bw=True),
    spec("create-triu", "triu(m, k=1)", "xp.triu(m, k=1)", torch="torch.triu(m, 1)",
         inputs="m", bw=True, small=False),
    spec("create-meshgrid", "meshgrid(v, u) (two R x C arrays)", "xp.meshgrid(v, u)",
         torch="[g.contiguous() for g in torch.meshgrid(v, u, indexing='xy')]",
         inputs="v u", bw=True, size="2 x {R} x {C}"),
    spec("create-asarray", "asarray(a) of a device array", "xp.asarray(a)",
         torch="torch.as_tensor(a)", large=False),
]


def creation_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "creation")
