"""Manipulation (issue 31): the functions that copy, at 2^28 float32 (a
16384 x 16384 matrix, or 512 x 512 x 1024): flip, roll, concat, stack,
moveaxis and permute_dims with a copy, tile, repeat, reshape of a
transposed view, broadcast_to with a copy, each library's own (CuPy
concatenate and transpose; PyTorch flip, roll, cat, stack, movedim,
permute, tile, repeat_interleave, .contiguous()); their host overhead at
1,024, and that of the views (expand_dims, squeeze, reshape, permute_dims)
(bench/specs.py).

Targets: issue 31's (<= 1.0x the best peer, >= 90% of the copy bandwidth;
overhead <= 0.75x PyTorch).
"""

from specs import spec, spec_rows

# bw=True: GB/s counts the inputs read and the result written.
SPECS = [
    spec("manip-flip", "flip(a)", "xp.flip(a)", torch="torch.flip(a, (0,))", bw=True),
    spec("manip-flip-axis0", "flip(m, axis=0)", "xp.flip(m, axis=0)",
         torch="torch.flip(m, (0,))", inputs="m", bw=True, small=False),
    spec("manip-flip-last", "flip(m, axis=-1)", "xp.flip(m, axis=-1)",
         torch="torch.flip(m, (-1,))", inputs="m", bw=True, small=False),
    spec("manip-flip-all", "flip(m)", "xp.flip(m)", torch="torch.flip(m, (0, 1))",
         inputs="m", bw=True, small=False),
    spec("manip-roll", "roll(a, 12345)", "xp.roll(a, 12345)", torch="torch.roll(a, 12345)",
         bw=True),
    spec("manip-roll-axis1", "roll(m, 123, axis=1)", "xp.roll(m, 123, axis=1)",
         torch="torch.roll(m, 123, 1)", inputs="m", bw=True, small=False),
    spec("manip-roll-both", "roll(m, (5, 7), axis=(0, 1))", "xp.roll(m, (5, 7), axis=(0, 1))",
         torch="torch.roll(m, (5, 7), (0, 1))", inputs="m", bw=True, small=False),
    spec("manip-concat-axis0", "concat([g, g], axis=0)", "xp.concat([g, g], axis=0)",
         cupy="cupy.concatenate([g, g], axis=0)", torch="torch.cat([g, g], 0)", inputs="g",
         bw="2 * g + out"),
    spec("manip-concat-axis1", "concat([h, h], axis=1)", "xp.concat([h, h], axis=1)",
         cupy="cupy.concatenate([h, h], axis=1)", torch="torch.cat([h, h], 1)", inputs="h",
         bw="2 * h + out", small=False),
    spec("manip-stack", "stack([e, f])", "xp.stack([e, f])", torch="torch.stack([e, f])",
         inputs="e f", bw=True),
    spec("manip-stack-axis1", "stack([e, f], axis=1)", "xp.stack([e, f], axis=1)",
         torch="torch.stack([e, f], 1)", inputs="e f", bw=True, small=False),
    spec("manip-moveaxis-copy", "moveaxis(t, 0, -1), copied",
         "xp.moveaxis(t, 0, -1).copy()", torch="torch.movedim(t, 0, -1).contiguous()",
         inputs="t", bw=True),
    spec("manip-permute-copy", "permute_dims(t, (2, 1, 0)), copied",
         "xp.permute_dims(t, (2, 1, 0)).copy()", cupy="cupy.transpose(t, (2, 1, 0)).copy()",
         torch="torch.permute(t, (2, 1, 0)).contiguous()", inputs="t", bw=True, small=False),
    spec("manip-tile", "tile(h, (1, 2))", "xp.tile(h, (1, 2))", torch="torch.tile(h, (1, 2))",
         inputs="h", bw=True),
    spec("manip-tile-1d", "tile(e, (2,))", "xp.tile(e, (2,))", torch="torch.tile(e, (2,))",
         inputs="e", bw=True, small=False),
    spec("manip-repeat", "repeat(e, 2)", "xp.repeat(e, 2)",
         torch="torch.repeat_interleave(e, 2)", inputs="e", bw=True),
    spec("manip-repeat-axis0", "repeat(g, 2, axis=0)", "xp.repeat(g, 2, axis=0)",
         torch="torch.repeat_interleave(g, 2, dim=0)", inputs="g", bw=True, small=False),
    spec("manip-reshape-T", "reshape(m.T, (-1,)) (a copy)", "xp.reshape(m.T, (-1,))",
         torch="torch.reshape(m.T, (-1,))", inputs="m", bw=True),
    spec("manip-broadcast-copy", "broadcast_to(v, (R, C)), copied",
         "xp.broadcast_to(v, (R, C)).copy()", torch="torch.broadcast_to(v, (R, C)).contiguous()",
         inputs="v", bw=True),
    # views: the host overhead only
    spec("manip-expand_dims", "expand_dims(a, axis=0)", "xp.expand_dims(a, axis=0)",
         torch="torch.unsqueeze(a, 0)", large=False),
    spec("manip-squeeze", "squeeze(r, axis=0)", "xp.squeeze(r, axis=0)",
         torch="torch.squeeze(r, 0)", inputs="r", large=False),
    spec("manip-reshape", "reshape(a, (R, C))", "xp.reshape(a, (R, C))",
         torch="torch.reshape(a, (R, C))", large=False),
    spec("manip-permute_dims", "permute_dims(m, (1, 0))", "xp.permute_dims(m, (1, 0))",
         cupy="cupy.transpose(m, (1, 0))", torch="torch.permute(m, (1, 0))", inputs="m",
         large=False),
]


def manipulation_rows(bench, rng, log2n):
    return spec_rows(bench, log2n, SPECS, "manipulation")
