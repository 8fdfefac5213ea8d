#!/usr/bin/env python3
"""devarray's benchmarks: devarray next to CuPy and PyTorch on one GPU, in one
process, or (with --host, or where there is no GPU) devarray's host backend
next to NumPy.

Prints one markdown table and a "targets met: X/Y" line, writes the results
as JSON, and on a GPU regenerates docs/benchmarks.md.  A row that fails
records its error and the run goes on; the exit status is 0 whenever the
run completed, targets met or not.  bench/README.md says how each row is
measured.

    python3 bench/run.py                  # GPU: all rows, writes the docs page
    python3 bench/run.py --host           # host backend against NumPy
    python3 bench/run.py --from-json bench.json --write-docs
    python3 bench/run.py --only reductions  # one family's rows

This file names the rows' sections in the table's order; each family's rows
are measured in a module of its own, and bench/runner.py times, judges and
reports them.
"""

import sys

import runner  # first: it puts this checkout's in-place build on sys.path
import binary
import casts
import creation
import elementwise
import exchange
import fft
import indexing
import linalg
import manipulation
import multi_gpu
import overhead
import random_numbers
import reductions
import scans
import search
import sets
import sort
import transfers
import unary

# The sections of the table, in its order: functions (bench, rng, log2n) ->
# rows.  A section's family is its module's name (multi_gpu: multi-gpu); a
# family whose rows sit apart in the table has several sections.
GPU_SECTIONS = (
    overhead.import_rows,
    elementwise.copy_rows,
    overhead.small_rows,
    exchange.exchange_rows,
    elementwise.device_time_rows,
    elementwise.function_rows,
    elementwise.fusion_rows,
    unary.unary_rows,
    binary.binary_rows,
    casts.cast_rows,
    reductions.reduction_rows,
    scans.scan_rows,
    search.search_rows,
    indexing.mask_rows,
    sort.sort_rows,
    sets.set_rows,
    random_numbers.random_rows,
    indexing.take_rows,
    indexing.index_rows,
    manipulation.manipulation_rows,
    creation.creation_rows,
    linalg.matmul_rows,
    linalg.factorization_rows,
    linalg.small_rows,
    fft.fft_rows,
    elementwise.layout_rows,
    transfers.transfer_rows,
    transfers.stream_rows,
    transfers.pipeline_rows,
    multi_gpu.multi_gpu_rows,
)
HOST_SECTIONS = (
    overhead.import_rows,
    exchange.view_rows,
    elementwise.host_rows,
    unary.unary_rows,
    binary.binary_rows,
    casts.cast_rows,
    reductions.reduction_rows,
    scans.scan_rows,
    search.search_rows,
    indexing.mask_rows,
    sort.sort_rows,
    sets.set_rows,
    random_numbers.random_rows,
    indexing.take_rows,
    indexing.index_rows,
    manipulation.manipulation_rows,
    creation.creation_rows,
    linalg.matmul_rows,
    fft.fft_rows,
)

# The rows of other families that a family's GPU targets compare with (a
# ["row", key, ...] clause, or the copy row of % of copy BW), each measured
# alone ahead of the family's rows by --only, so that they are judged.  The
# host rows compare with NumPy only.
REFERENCE_SECTIONS = {
    "copy": elementwise.copy_rows,
    "small-add": overhead.small_add_rows,
    "h2d": transfers.h2d_rows,
}
REFERENCES = {
    "elementwise": ("small-add",),   # fuse-small
    "unary": ("copy",),              # >= 90% copy BW
    "binary": ("copy",),             # >= 90% copy BW
    "casts": ("copy",),              # >= 90% copy BW
    "reductions": ("copy",),         # >= 90% copy BW
    "scans": ("copy",),              # >= 90% copy BW
    "search": ("copy",),             # where >= 90% copy BW
    "indexing": ("copy",),           # mask's % of copy BW, slice copies and setitem
    "manipulation": ("copy",),       # >= 90% copy BW
    "creation": ("copy",),           # >= 90% copy BW
    "random-numbers": ("copy",),     # random and integers >= 90% copy BW
    "transfers": ("small-add",),     # small-add-stream
    "multi-gpu": ("h2d",),           # h2d-device1
}


def family(section):
    """--only's name of a section's family: its module's."""
    return section.__module__.replace("_", "-")


FAMILIES = sorted({family(section) for section in GPU_SECTIONS})


def sections(gpu, only):
    """The sections to run on this backend: every one, or only's, after the
    references its targets need."""
    chosen = GPU_SECTIONS if gpu else HOST_SECTIONS
    if only is None:
        return list(chosen)
    chosen = [section for section in chosen if family(section) == only]
    if gpu and chosen:
        chosen = [REFERENCE_SECTIONS[key] for key in REFERENCES.get(only, ())] + chosen
    return chosen


if __name__ == "__main__":
    sys.exit(runner.main(__doc__.split("\n\n")[0], FAMILIES, sections))
