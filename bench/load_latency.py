#!/usr/bin/env python3
"""How long devarray.build.load() takes: the first call (a build), a call in a
new process that finds the build in the cache, and what a compile error looks
like.  Uses examples/jit's saxpy.cu and a fresh cache directory.

    python3 bench/load_latency.py
"""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SOURCE = os.path.join(ROOT, "examples", "jit", "jitsaxpy", "saxpy.cu")

LOAD = """
import sys, time
sys.path.insert(0, %(root)r)
start = time.perf_counter()
from devarray.build import load
module = load("_saxpy", [%(source)r], build_directory=%(cache)r)
print("%%.3f" %% (time.perf_counter() - start))
"""


def timed_load(cache):
    """Seconds a new interpreter spends importing devarray.build and loading."""
    done = subprocess.run([sys.executable, "-c", LOAD % dict(root=ROOT, source=SOURCE,
                                                            cache=cache)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main():
    with tempfile.TemporaryDirectory() as cache:
        first = timed_load(cache)
        second = timed_load(cache)
        print("load() of examples/jit/jitsaxpy/saxpy.cu, fresh cache: first call %.2f s "
              "(build), new process %.1f ms (cache)" % (first, second * 1e3))
        broken = os.path.join(cache, "broken.cu")
        with open(broken, "w") as f:
            f.write("__global__ void k(float *x) { x[0] = ; }\n")
        from devarray.build import BuildError, load
        try:
            load("_broken", [broken], build_directory=cache)
        except BuildError as error:
            print("a syntax error raises %s:\n%s" % (type(error).__name__,
                                                    str(error)[:600]))
        else:
            raise SystemExit("a broken source loaded")


if __name__ == "__main__":
    main()
