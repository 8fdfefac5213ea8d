"""Why rows miss their targets: the "Why rows miss" section of
docs/benchmarks.md.

Each cause says what bounds a group of rows, from the Nsight Compute profile
it rests on where there is one (`ncu ... python3 bench/profile.py OP`,
bench/README.md says how: kernel time, DRAM and SM throughput as % of peak),
and matches its rows by operation and dtype.  bench/run.py writes each cause
that matches a missed row of the run, with those rows, and lists the missed
rows that no cause matches, so a new miss shows until it is explained.  The
profiles quoted were taken on an NVIDIA H200 (nvidia-h200) on 2026-11-28
and 2026-11-29.
"""


def op(*names):
    """A row whose operation starts with one of names."""
    return lambda r: r["op"].startswith(names)


def dtype(*names):
    return lambda r: r["dtype"] in names


def all_of(*tests):
    return lambda r: all(t(r) for t in tests)


def any_of(*tests):
    return lambda r: any(t(r) for t in tests)


def host_overhead(r):
    return r["op"].startswith("host overhead")


def at_limit(r):
    """Within 6% of the best peer where devarray moves at least 95% of the
    copy bandwidth, within 2% where every library calls the same vendor
    routine, or ahead of both peers within a point of the 90% clause."""
    vendor = r["op"].startswith(("fft.", "linalg.svd", "linalg.solve", "linalg.inv"))
    if r["ratio"] is None:
        return False
    pct = r["pct_copy"] or 0
    return (vendor and r["ratio"] <= 1.02) or (r["ratio"] <= 1.06 and pct >= 95) or (
        r["ratio"] <= 1.0 and pct >= 89)


CAUSES = [
    ("At the memory limit, or in a shared vendor routine", at_limit,
     "devarray moves at least 95% of the copy bandwidth and is within 6% of "
     "the fastest peer (elementwise, 1-byte operands, creation, leading-axis "
     "reductions), or all three libraries call the same cuFFT/cuSOLVER "
     "routine: DRAM (or the vendor routine) bounds them.  Up to about 1% is "
     "the timer's noise: repeated runs of one kernel differ by that much "
     "(float32 `a + b` measured 737.7 and 738.1 us, int64 `a + b` 736.5 and "
     "738.1 us, in two runs of this bench a day apart).  The rest is the "
     "access pattern (PyTorch's leading-axis reduction reads 1-2% closer to "
     "the copy rate; its 1-byte kernels store 4 bytes a thread where ours "
     "store 16), not profiled row by row.  int8 `abs` leads both peers "
     "(0.86x) at 89.9-90.0% of the copy rate from run to run."),
    ("float16 math functions: float math per element",
     all_of(dtype("float16"), any_of(op("negative", "abs", "sqrt", "exp", "log", "sin",
                                      "floor", "isnan", "a + b", "a * b", "a / b",
                                      "maximum")), lambda r: not host_overhead(r)),
     "float16 computes in float, each element converted and back around its "
     "op.  The ops of a few instructions now load 16-byte vectors as every "
     "other dtype does (kernels/elementwise.cuh, is_short_op: `-a` 285 -> "
     "255 us, `isnan` 245 -> 188 us, both ahead of PyTorch; `abs`, `floor` "
     "and `sqrt` within 0-3%); the math functions and the division keep "
     "8-byte vectors, because a 16-byte vector's eight inlined copies of a "
     "function made the float16 kernels a quarter of the float32 unit's "
     "machine code and the wheel has a 15 MB limit.  ncu: `exp` 333 us at "
     "66% of DRAM peak and 69% of SM peak, PyTorch (8 elements a thread) "
     "254 us at 86% DRAM; `x / x` 575 us at 94% SM (compute-bound: the IEEE "
     "float division per element), PyTorch 289 us at 60% SM; `sin` 530 us "
     "at 84% SM against PyTorch's 366 us at 84%.  What bounds them is "
     "instruction throughput; the way out is packed half2 math for the ops "
     "that have it, within the size budget."),
    ("Math functions compiled without FMA contraction",
     all_of(op("sqrt", "exp", "log", "sin", "pow", "a // b"),
          dtype("float32", "float64", "complex64", "complex128", "int32")),
     "Every kernel is compiled with `--fmad=false` so that results match "
     "the host backend bit for bit; each multiply-add of the libdevice "
     "functions and of NumPy's floor-division formula is then two "
     "instructions, and integer pow runs in 64-bit class arithmetic.  ncu "
     "shows these kernels bound by instruction issue, not DRAM: complex64 "
     "`exp` (2^27) 723 us at 61% DRAM and 83% SM (PyTorch 520 us at 85% "
     "DRAM, 76% SM; CuPy 771 us); float64 `log` 686 us at 64% DRAM, 84% SM "
     "(PyTorch 546 us at 81%, 84%); float32 `x ** x` 1,181 us at 89% SM "
     "(PyTorch 1,035 us at 90% SM: both instruction-bound, ours with more "
     "instructions); int32 `x ** x` 2,061 us at 92% SM (PyTorch 1,451 us at "
     "91%); float32 `x // x` 918 us at 92% SM (PyTorch 872 us at 77%).  The "
     "way out is fewer instructions per element (contracted multiply-adds "
     "where the host backend can match them, 32-bit integer pow), not "
     "memory access."),
    ("Integer division by a positive scalar: a multiply-high per element",
     op("a // 7", "a % 7"),
     "Division by a positive scalar now multiplies by a multiplier the host "
     "works out once per launch (Granlund and Montgomery; "
     "kernels/division.cuh), where the GPU's division routine made it "
     "compute-bound.  ncu of int32 `a // 7`: 689 us at 85% of SM peak before, "
     "537 us at 82% DRAM and 60% SM now; PyTorch's 504 us reads at 88%.  "
     "int64 `a // 7` (a 64-bit multiply-high) 576 -> 561 us against 525 us; "
     "ncu: 579 us at 76% DRAM and 59% SM with 59% of warps active (36 "
     "registers a thread), PyTorch's 519 us at 85% DRAM and 41% SM: neither "
     "DRAM nor issue is saturated, so what bounds it is the latency from "
     "each load through the multiply-high to its store, with fewer warps "
     "to hide it."),
    ("Widening casts and copies that read less than they write",
     any_of(op("astype"), op("tile", "repeat(g", "broadcast_to", "reshape(m.T",
                             "a.T.copy", "moveaxis", "permute_dims", "wm[:] = v",
                             "m[:, ::-1]", "m[1:-1", "roll", "meshgrid",
                             "stack([e, f], axis=1)", "u[:, None]", "a + a.T")),
     "These rows lead both peers (0.1-0.8x) or tie them, and miss only the "
     ">= 90% of copy bandwidth clause, but for one cast.  Contiguous casts "
     "convert their staged tile 16 bytes of output a thread, reading the "
     "tile in whole words (kernels/cast.cuh: int8 -> float32 495 -> 349 us, "
     "64% -> 90% of the copy rate; float16 -> float32 516 -> 417 us); "
     "`complex64 -> complex128` is 1.05x CuPy's kernel of an element a "
     "thread, at 94%: ncu shows it in devarray's strided kernel "
     "(`strided_kernel`, 803 us at 83% DRAM and 39% SM) against CuPy's "
     "contiguous copy (782 us at 85%); a scratch variant with 4 KiB tiles "
     "copied it in 776 us (slower for the narrower casts, so not taken).  "
     "Copies whose rows are contiguous in both arrays move "
     "them in elements of up to 16 bytes (kernels/elementwise.cu, "
     "move_width: `broadcast_to` copied 376 -> 258 us, 98%; `tile` and "
     "`repeat` along axis 0 566 -> 425 us, 89%; `meshgrid` 1,008 -> 621 us), "
     "and the transposing tiles take their strides from the host and issue "
     "every load before the first store into the tile "
     "(kernels/transpose.cuh: a.T copied 754 -> 587 us, 86%; `a + a.T` "
     "1,540 -> 934 us, 81% of the copy rate, its target 80%).  What is "
     "left, under ncu: the tiled copy's grid-stride loops and edge tests "
     "(`reshape(m.T, (-1,))`: `tiled_move_kernel` 620 us at 71% DRAM, 65% "
     "SM; a scratch kernel of one whole tile per block, neither of them, "
     "copied a.T in 561 us, 91%); rows not aligned for wide elements "
     "(`m[1:-1, 1:-1]` and `roll(m, 123, axis=1)`: `strided_move_kernel` of "
     "4-byte elements, 620 us at 71% DRAM and 70% SM, the index arithmetic "
     "of an element a thread; `repeat(g, 2, axis=0)` moves 16-byte elements "
     "at 76% DRAM and 32% SM, 432 us); `permute_dims(t, (2, 1, 0))` takes "
     "the tiles now with their rows along axis 0 (4,206 -> 614 us, 82%; "
     "strided before, at 12% as both peers are); `u[:, None] + v[None, :]` "
     "writes 1 GiB from 128 KiB of input at 64% DRAM and 93% SM (342 us; "
     "PyTorch 676 us at 87% SM): the broadcast index arithmetic per element "
     "bounds it.  (`arange` and `linspace` store a 16-byte vector a "
     "thread now, kernels/creation.cu: `linspace(0, 1, 2^28)` 815 -> 251 us, "
     "at the copy rate.)"),
    ("Moments below the copy rate",
     op("std(", "var(", "host overhead: std"),
     "var and std lead both peers (0.7-0.9x) at 85-90% of the copy rate.  "
     "`std(a)` of 1,024 elements is the moments launch and a square root "
     "in place, two launches, whose host time moves with the machine as "
     "every host-overhead row's does: 7.6, 9.2 and 11.1 us in the three "
     "runs of 2026-11-29 against PyTorch's 8.5, 10.0 and 9.2 us.  "
     "ncu of `var` of 2^28 float32: kernels/moments.cu's kernel 307 us at "
     "73% DRAM and 79% SM (40 registers, 70% of warps active), then one "
     "block merges the splits' moments (17.9 us for the 3,168 splits of the "
     "profiled build; the landed plan makes 4,224); over axis 0 of 16384 x "
     "16384, 311 us at 72% DRAM, 79% SM, and a 5.8 us merge.  "
     "PyTorch's Welford kernel: 372 us at 60% DRAM.  The bound is "
     "instructions per element (a merge per batch of 8 rows, and 64-bit "
     "addresses for each 4-byte load), not DRAM.  Tried in scratch builds "
     "and not taken: splits in whole waves of the blocks that fit (float32 "
     "`var(a)` 292 against 293 us), with batches of 64 bytes a thread as "
     "well (float64 `var(a)` 297 -> 269 us, but float32 `var(m, axis=0)` "
     "285 -> 302 us).  16-byte loads of adjacent "
     "elements are the next step, within the wheel's size.  (count_nonzero, any and all were two passes, `x != 0` into a "
     "bool array and then a sum of it; they are one pass over the elements' "
     "bits now, kernels/nonzero_reduce.cu: `count_nonzero(m, axis=-1)` "
     "417 -> 235 us, `any(mask)` 149 -> 66 us, all at or above 92% of the "
     "copy rate.)"),
    ("Arg-reductions over a leading axis below 90% of the copy rate",
     op("argmax(m, axis=0)", "argmin(m, axis=0)"),
     "Read in place by columns rather than copied with the axis moved "
     "last (1.01 ms -> 314 us, 0.94x PyTorch).  ncu: 322 us at 70% DRAM, "
     "48% SM, each thread loading one float at a time.  The float4 loads "
     "that `sum(axis=0)` uses did not take it to the copy rate: a scratch "
     "build with a thread's four adjacent columns in one load measured "
     "309 against 313 us (ncu: 322 us at 70% DRAM, 45% SM, 50% of warps "
     "active at 62 registers), and with the next rows' loads issued before "
     "the comparisons 392 us (86 registers).  Between rounds of loads each "
     "column's comparisons form a dependent chain (a NaN test, a compare, "
     "the selects of a value and a 64-bit index per element): latency "
     "bounds it, not DRAM or issue.  (float64 went 538 -> 509 us, 99% of "
     "the copy rate, for 15.6 KB more machine code in CI's architectures; "
     "not taken for that.)"),
    ("Scans: CUB's decoupled look-back at 52% of DRAM peak",
     op("cumulative_sum", "cumulative_prod", "host overhead: cumulative"),
     "ncu of `cumulative_sum` of 2^28 float32: CUB's DeviceScanKernel 847 us "
     "at 52% DRAM, the same kernel PyTorch runs (856 us).  Bounded by the "
     "scan's tile look-back, not by memory; the rows tie PyTorch.  Integer "
     "input to an int64 result reads 4 and writes 8 bytes per element.  "
     "Over axis 0 (0.37x PyTorch, 22% of the copy rate) devarray moves the "
     "axis last, scans the rows with CUB's DeviceScanByKey and moves it "
     "back: ncu 621 us (71% DRAM), 1,356 us (33% DRAM) and 621 us, three "
     "passes where PyTorch's one outer-dimension scan takes 6.65 ms at 7% "
     "DRAM and CuPy's batch scan 23 ms."),
    ("float16 and int16 sorts",
     op("sort(a)"),
     "ncu of float16 `sort` (2^26): key-and-index pairs through two onesweep "
     "passes (1.46 ms) and then a gather of the values by index that reads "
     "4.2 GB (1.51 ms); PyTorch sorts the 2-byte keys themselves (two passes, "
     "1.49 ms).  -0.0 and +0.0 must keep their input order, which a sort of "
     "the keys alone loses.  int16 now sorts widened int32 keys on 16 bits "
     "(3.06 -> 1.09 ms; ncu: widen 204 us, two passes 796 us, narrow 201 us); "
     "CuPy's native 16-bit sort (two passes of 409 us over half the bytes) "
     "is 1.02 ms, 1.07x ours against a 1.05x target.  A 16-bit CUB "
     "instantiation would close it and costs about 130 KB of machine code "
     "per architecture that the 15 MB wheel does not have."),
    ("searchsorted: a chain of dependent loads per query", op("searchsorted(s, q)"),
     "A binary search per query, a thread each (kernels/search.cu), as CuPy "
     "runs it: log2(n) loads of the sorted array per query, each waiting for "
     "the one before, so latency bounds all three libraries.  9.90 and "
     "9.88 ms against CuPy's 9.87 and 9.85 in the last two runs (1.003x), "
     "10.16 against 10.25 in the one before (0.99x): a tie within the "
     "timer's run-to-run spread.  Not profiled."),
    ("unique: two passes over the sorted values below the copy rate",
     any_of(op("unique_"), op("host overhead: unique")),
     "ncu of `unique_values` of 2^26 int32: the sort (1.57 ms) matches "
     "PyTorch's; then a warp per chunk of 2,048 sorted values counts the runs "
     "that start in it (204 us, 28% DRAM, 24% SM), a scan of the 32,768 "
     "counts (5 us), and the same kernel numbers the runs and writes the "
     "values (277 us, 21% DRAM, 57% SM) (kernels/unique.cu; before: int64 "
     "head flags 313 us, a scan of all n 330 us, a scatter 421 us).  PyTorch "
     "runs one DeviceSelect (152 us).  Both passes are latency-bound: each "
     "lane loads one element a round.  A first cut measured 129 and 237 us: "
     "separate counting and scatter kernels (4 KB more machine code per "
     "dtype and architecture), and the previous element loaded from a "
     "selected address rather than under a condition; which of the two "
     "costs the difference is not measured yet.  Vector loads as the "
     "elementwise kernels make are the next step."),
    ("Random gathers and scatters: latency of random sectors",
     op("a[idx]", "w[idx]", "m[ri]", "isin", "nonzero", "host overhead: a[idx]",
        "host overhead: w[idx]", "host overhead: take", "host overhead: nonzero"),
     "Random single-element gathers and scatters read one 32-byte sector per "
     "4-byte element; all three libraries are within 10% of each other there.  "
     "ncu of `a[idx]`: the gather kernels tie (devarray 1,906 us, CuPy "
     "1,909, PyTorch 1,918, each at 55% DRAM reading 4.75 GB of sectors for "
     "268 MB of values); the row's 4% is outside the kernel, where devarray "
     "reads back a word that says whether an index was out of bounds (a "
     "synchronisation the peers do not make, so that the call itself raises "
     "IndexError; not timed apart).  `w[idx] = 2.0`: the "
     "scatter ties (4,208 us against 4,153 and 4,159, 24-25% DRAM each); "
     "before it devarray checks every index in a pass of its own, so that a "
     "bad index raises before any element is written (120 us at 94% DRAM, "
     "four indices a thread in flight: 235 us at 48% with one), and fills "
     "the scalar into an array of the indices' length (60 us).  The check "
     "and the scatter are queued together, the scatter writing nothing if "
     "the check stored a bad index, with one read-back after both (there "
     "were two: `w[idx] = q` of 1,024 elements 35.0 -> 26.6 us).  `nonzero`: "
     "CUB 3.0's count and DeviceSelect (119 + 887 us, 31% DRAM) against "
     "PyTorch's build of the same two kernels (120 + 767 us, 36%).  "
     "`m[ri]` (whole rows) runs a warp per row in 16-byte "
     "units (1.76 ms -> 573 us; ncu 542 us at 82% DRAM, PyTorch's "
     "vectorised gather 584 us under ncu).  The host-overhead rows are the "
     "index checks and result allocation in C and that read-back, a "
     "synchronisation per call where PyTorch's calls return before their "
     "kernels run."),
    ("Random numbers: Philox and the transforms",
     op("integers(", "standard_normal", "permutation", "random("),
     "Every draw is Philox4x32-10 (kernels/random.h, the same values on both "
     "backends), 10 rounds of 32-bit multiplies per 4 words, and `integers` "
     "and the normal then transform each word.  ncu: `random` 431 us at 50% "
     "DRAM and 71% SM (PyTorch 553 us); `integers` 916 us at 24% DRAM and "
     "90% SM (PyTorch 845 us at 68% SM); `standard_normal` 874 us at 25% "
     "DRAM and 81% SM (PyTorch 784 us at 77%): instruction-bound, the "
     "rounds and transforms compiled without FMA contraction.  `permutation` "
     "is the stable argsort of 2^26 random 64-bit keys: ncu shows the keys "
     "(227 + 408 us), a histogram (303 us) and eight onesweep passes of "
     "880 us at 51% DRAM; CuPy sorts 32-bit keys in four passes of 758 us "
     "(3.3 ms in all), PyTorch runs seven passes of 894 us."),
    ("Manipulation copies of two inputs",
     op("concat([h, h], axis=1)", "repeat(e, 2)"),
     "`concat(axis=1)` copies each input's rows in 16-byte elements now "
     "(595 -> 545 us, 93% of the copy rate; PyTorch's one batched kernel "
     "544 us, so 1.00x at the timer's noise).  `repeat(e, 2)` is one "
     "strided move with a broadcast input along its last axis, at 28% DRAM "
     "and 81% SM under ncu (a division per element); a kernel that writes "
     "each input element's copies together would take it to the copy "
     "rate."),
    ("Fused elementwise chains", op("fuse:"),
     "The fused `((a + b) * a - b) / b` runs at 87-89% of the copy rate, "
     "0.67-0.68x PyTorch's four eager kernels against the 0.3x its target asks, which "
     "no kernel that reads two arrays and writes one can reach (the three "
     "moves take 0.67x of PyTorch's time at the copy rate); ncu (the "
     "profile passes one array as both operands): 614 us at 72% DRAM and "
     "48% SM with 93% of warps active, where PyTorch's first eager kernel "
     "moves the same bytes at 88%.  (The fused float reduction, "
     "`((a - b) ** 2).sum()`, is one pass now: 530 us, 95% of the copy "
     "rate, from 1.31 ms.)"),
    ("A small matrix product: one cuBLAS call", op("host overhead: a @ b"),
     "`a @ b` of two 32 x 32 float32 matrices is a cublasSetStream and one "
     "cublasSgemm_v2 (src/runtime/cublas.c), the routine PyTorch calls too, "
     "so the row measures what each library does around the same vendor "
     "call: 11.0, 11.8 and 12.0 us against PyTorch's 13.8, 14.7 and 14.4 us "
     "in the last three runs (0.80-0.83x; the target asks 0.75x).  How much "
     "of it is cuBLAS's own host time is not measured (ncu sees kernels, "
     "not host time)."),
    ("Float sums in devarray's fixed order",
     all_of(op("a.sum()"), dtype("float32")),
     "A float sum of one contiguous array combines in the fixed order that "
     "fused reductions share (kernels/reduce_ordered.cuh), which depends on "
     "the element count alone, reading one 4-byte element a lane, "
     "coalesced; CuPy's CUB reduction (and devarray's earlier one) "
     "reads 16-byte vectors in an order of its own, which depends on the "
     "GPU's SM count and the pointer's alignment.  254.7 us against 237.7 us "
     "(262.5 against 242.2, 261.7 against 241.9 and 254.3 against 237.4 in "
     "the runs before).  The same route reads float64 8 bytes a lane "
     "and leads CuPy (248.7 us against 262.0 us, a scratch timing in the same "
     "process), and for float32, 16-byte loads passed to their lanes through "
     "a warp's shared memory measured no faster (261.5 us; float16 takes "
     "them: 163 us against 185 us); an 8-byte load a lane is the next to "
     "try.  ncu: 262 us at 85% DRAM and 17% SM against CuPy's CUB "
     "reduction at 93% (240 us) and PyTorch's at 88% (255 us): the loads "
     "of 4 bytes a lane bound it."),
    ("float16 sums over the last axis: an older CUB",
     all_of(op("sum(a, axis=-1)"), dtype("float16")),
     "ncu: devarray's DeviceSegmentedReduce (CUDA 13.0's CUB 3.0) 150 us at "
     "75% DRAM; CuPy's bundled CUB 3.1 has DeviceFixedSizeSegmentedReduce, "
     "130 us at 86%.  The toolkit's next CUB brings the same kernel."),
    ("Host overhead in Python-level paths", host_overhead,
     "These functions are C, but do more than one launch or a read-back "
     "(std: mean then moments; mean over an axis: sum then divide; "
     "concat/stack/roll: a copy per input; searchsorted and any(mask): noise "
     "around 0.75-0.9x PyTorch, any(mask) 4.7, 5.0 and 6.9 us in three runs of "
     "the same one launch as all(mask)).  (A float sum of up to 4,096 elements is one "
     "block again, which stores the answer itself: float(a.sum()) of 1,024 "
     "21.8 -> 16.9 us, 0.73x PyTorch.)  Fusing their launches is the fix.  "
     "Host times move by 10-20% from run to run across all three "
     "libraries (devarray's `a + a` 3.8, 6.3 and 4.4 us in the three runs of "
     "2026-11-29, PyTorch's 6.1, 10.1 and 6.7 us), so rows near their target "
     "move with the machine, and within a run: on 2026-11-29 `floor(a)` "
     "and `maximum(a, b)` took 5.8 and 5.3 us in their families' sections, "
     "where `exp(a)` and `a + a`, the same C path, took 3.9 and 3.8 us in "
     "the overhead section.  ncu does not apply here (host time); the "
     "launches per call are what to count."),
    ("Short vendor calls and replayed graphs: launch latency",
     op("fft.rfft of each row", "the same 20 ops replayed"),
     "Calls of about 16 us (a batched cuFFT of 4 MiB) are within a "
     "microsecond of both peers, whose order changes from run to run (this "
     "row was 0.91x in an earlier run).  ncu of `rfft` of 1,024 rows of "
     "4,096 float32: the three libraries launch the same cuFFT kernel "
     "(`vector_fft_symm_r2c<4096>`, 1,024 blocks of 128 threads) and it "
     "takes 15.6 us in devarray, 15.5 in CuPy and 15.6 in PyTorch, at 23% "
     "DRAM and 44% SM each: the row's difference is outside the kernel, in "
     "the call's host time.  A replayed graph of 20 kernels on "
     "1,024 elements takes 1.7 us a kernel node, the GPU's launch latency "
     "within a graph; its ratio to issuing the ops one by one moved with "
     "the eager time (103.6 to 146.9 us in the last runs)."),
    ("Extension and exchange paths", op("C API", "pinned pipeline"),
     "`DevArray_GetView` of a CuPy array reads `__cuda_array_interface__`, a "
     "Python dict that CuPy builds on every access (2.3 us against CuPy's "
     "own 0.46 us fast path for its own type).  The pinned pipeline over 4 "
     "Streams is bounded by the host's PCIe copies (85 GB/s, CuPy's 87)."),
]


def explain(rows):
    """(cause title, cause text, its missed rows) for each cause that matches
    a missed row of `rows` (a row goes to its first matching cause), and the
    missed rows that none matches."""
    missed = [r for r in rows if r["met"] == "no"]
    found, rest = [], []
    groups = {title: [] for title, _, _ in CAUSES}
    for r in missed:
        for title, match, _ in CAUSES:
            if match(r):
                groups[title].append(r)
                break
        else:
            rest.append(r)
    for title, _, text in CAUSES:
        if groups[title]:
            found.append((title, text, groups[title]))
    return found, rest


def miss_label(row):
    ratio = "" if row["ratio"] is None else ", %.2fx" % row["ratio"]
    return "%s (%s, %s%s)" % (row["op"], row["size"], row["dtype"], ratio)


def section(rows):
    """The page's "Why rows miss": bench/misses.py's causes of the rows that
    missed, and the missed rows no cause explains."""
    found, rest = explain(rows)
    if not found and not rest:
        return []
    out = ["", "## Why rows miss", "",
           "Each missed row under the cause that bounds it (bench/misses.py, from",
           "Nsight Compute profiles of `bench/profile.py` where it says so)."]
    for title, text, hit in found:
        out += ["", "### " + title, "", text, "",
                "Rows: " + "; ".join(miss_label(r) for r in hit) + "."]
    if rest:
        out += ["", "### Not explained yet", ""] + ["- " + miss_label(r) for r in rest]
    return out
