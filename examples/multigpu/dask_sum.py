"""dask.array over every GPU with devarray chunks and dask's threaded
scheduler: chunks placed round-robin on the GPUs, an elementwise expression
run where each chunk lives, and a sum whose partial results are gathered
on the first GPU, all with dask's own functions.  The values are small integers, so the float32 sums
are exact whatever order the chunks are added in.

    python3 examples/multigpu/dask_sum.py

On one GPU (or devarray's host backend) the same code runs with every
chunk in one place."""

import dask
import dask.array as da
import numpy as np

import devarray
import devarray.dask as dd


def devices():
    """Every GPU devarray sees, or None (the host backend): one place."""
    if devarray.backend() != "cuda":
        return None
    return list(range(devarray.device_count()))


def main():
    rng = np.random.default_rng(0)
    a = rng.integers(-10, 10, (4096, 1024)).astype(np.float32)
    x = dd.from_numpy(a, chunks=(512, 1024), devices=devices())
    y = (x + 1) * x
    with dask.config.set(scheduler="threads"):
        total = y.sum(axis=0).compute()          # a DeviceArray on the first GPU
        peak = da.maximum(y, 0).max().compute()  # dask's ufuncs run devarray's
    assert np.array_equal(total.to_host(), ((a + 1) * a).sum(axis=0))
    assert float(peak) == float(((a + 1) * a).max())
    print("dask over %s: OK" % (devices() or [devarray.backend()]))


if __name__ == "__main__":
    main()
