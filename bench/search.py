"""Searching (issue 31): searchsorted of 2^26 values into 2^26 sorted ones
(float32, and int32 with side="right"), where(cond, a, b) (and a scalar
x2), nonzero of a half-true bool vector and matrix, each library's own
(PyTorch torch.searchsorted, torch.where, torch.nonzero(as_tuple=True)),
and their host overhead at 1,024 (bench/specs.py).  argmax, argmin and
count_nonzero are reductions.py's rows.

Targets: issue 31's (<= 1.0x the best peer; where >= 90% of the copy
bandwidth; overhead <= 0.75x PyTorch).
"""

from specs import spec, spec_rows

SPECS = [
    # binary searches, not streamed: no GB/s
    spec("search-searchsorted", "searchsorted(s, q)", "xp.searchsorted(s, q)",
         torch="torch.searchsorted(s, q)", inputs="s q"),
    spec("search-searchsorted-int32", "searchsorted(s, q, side='right')",
         "xp.searchsorted(s, q, side='right')", torch="torch.searchsorted(s, q, side='right')",
         inputs="s:int32 q:int32", small=False),
    spec("search-where", "where(cond, a, b)", "xp.where(mask, a, b)",
         torch="torch.where(mask, a, b)", inputs="mask a b", bw=True),
    spec("search-where-scalar", "where(cond, a, 0.0)", "xp.where(mask, a, 0.0)",
         torch="torch.where(mask, a, 0.0)", inputs="mask a", bw=True, small=False),
    # compactions (GB/s: the mask read, the int64 indices written)
    spec("search-nonzero", "nonzero(cond), half true", "xp.nonzero(mask)",
         torch="torch.nonzero(mask, as_tuple=True)", inputs="mask", bw=True, copy=False),
    spec("search-nonzero-2d", "nonzero(cond), half true", "xp.nonzero(mm)",
         torch="torch.nonzero(mm, as_tuple=True)", inputs="mm", bw=True, copy=False,
         small=False),
]


def search_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "search")
