"""devarray without NumPy: in a subprocess where `import numpy` fails,
arrays are made from the buffer protocol, computed on and copied back as
memoryviews; and a plain `import devarray` never imports NumPy."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NO_NUMPY_SCRIPT = textwrap.dedent(r"""
    import sys
    sys.modules["numpy"] = None  # any import of numpy now raises ImportError
    import array
    import struct

    import devarray

    assert sys.modules["numpy"] is None
    assert devarray.backend() == sys.argv[1], devarray.backend()

    values = [1.5, -2.0, 3.25, 0.5, 7.0, -0.125, 1e3]
    src = array.array("f", values)
    d = devarray.to_device(src)
    assert d.dtype == devarray.float32 and d.dtype == "float32"
    assert d.shape == (7,)

    s = (d + d).sum()
    assert isinstance(s, devarray.DeviceArray) and s.shape == ()
    assert float(s) == 2 * sum(values), float(s)
    assert s.item() == 2 * sum(values)

    m = d.to_host()
    assert isinstance(m, memoryview), type(m)
    assert m.format == "f" and m.shape == (7,) and m.itemsize == 4
    assert m.tobytes() == src.tobytes()
    assert d.tolist() == values

    r = (d * 2 - 1).to_host()
    assert r.tolist() == [v * 2 - 1 for v in values]

    # 2-d float16 and complex64, exactly representable values
    h = devarray.to_device(array.array("f", values[:6])).astype("float16")
    h = h.reshape(2, 3)
    mh = h.to_host()
    assert isinstance(mh, memoryview)
    assert mh.format == "e" and mh.shape == (2, 3), (mh.format, mh.shape)
    assert mh.nbytes == 12 and mh.itemsize == 2
    assert mh.tobytes() == struct.pack("<6e", *values[:6])
    assert h.tolist() == [values[:3], values[3:6]]

    re = devarray.to_device(array.array("f", values[:6])).reshape(2, 3)
    im = devarray.to_device(array.array("f", values[1:7])).reshape(2, 3)
    z = re.astype("complex64") + im * 1j
    assert z.dtype == "complex64"
    mz = z.to_host()
    assert isinstance(mz, memoryview)
    assert mz.format == "Zf" and mz.shape == (2, 3), (mz.format, mz.shape)
    assert mz.nbytes == 48 and mz.itemsize == 8
    pairs = [x for pair in zip(values[:6], values[1:7]) for x in pair]
    assert mz.tobytes() == struct.pack("<12f", *pairs)
    expected = [complex(a, b) for a, b in zip(values[:6], values[1:7])]
    assert z.tolist() == [expected[:3], expected[3:]]

    # a transposed (non-contiguous) array comes back packed, in its shape
    t = h.T.to_host()
    assert t.shape == (3, 2) and t.format == "e"
    assert t.tobytes() == struct.pack("<6e", *[values[i] for i in
                                                (0, 3, 1, 4, 2, 5)])

    # to_host into a caller's buffer
    out = array.array("f", bytes(28))
    assert d.to_host(out=out) is out
    assert out.tolist() == values

    assert sys.modules["numpy"] is None
    print("OK")
""")


def run_python(args, backend):
    env = dict(os.environ)
    env["DEVARRAY_BACKEND"] = backend
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable] + args, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_without_numpy(backend):
    proc = run_python(["-c", NO_NUMPY_SCRIPT, backend], backend)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("OK")


def _imported_modules(importtime_stderr):
    """Module names from `python -X importtime` output lines
    'import time: self | cumulative | <indent>name'."""
    names = []
    for line in importtime_stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        names.append(line.rsplit("|", 1)[1].strip())
    return names


def test_import_does_not_import_numpy(backend):
    proc = run_python(["-X", "importtime", "-c", "import devarray"], backend)
    assert proc.returncode == 0, proc.stderr
    names = _imported_modules(proc.stderr)
    assert "devarray" in names, proc.stderr[-2000:]
    assert "devarray._core" in names
    numpy_names = [n for n in names if n == "numpy" or n.startswith("numpy.")]
    assert not numpy_names, numpy_names[:5]


def test_ops_do_not_import_numpy(backend):
    """Making arrays, arithmetic, sum and Python conversions need no
    NumPy, even where it is installed."""
    script = textwrap.dedent("""
        import sys
        import devarray
        d = devarray.full((3, 4), 1.5, dtype="float32")
        e = devarray.asarray([[1, 2, 3, 4]] * 3)
        r = ((d + e) * 2 - 1 / d).sum(axis=0)
        f = float(r.sum()), r.tolist(), d[1, 2].item(), int(e[0, 1])
        d += e
        print("numpy" in sys.modules)
    """)
    proc = run_python(["-c", script], backend)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
