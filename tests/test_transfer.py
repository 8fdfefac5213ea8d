"""Host <-> device transfers (src/interop/buffer_in.c, sequence_in.c, host_out.c,
scalar.c, repr.c): buffer-protocol objects and nested sequences in; NumPy
arrays, filled buffers, lists, scalars and text out.  Every round trip is
checked byte for byte on random data, and every inference and error against
NumPy 2."""

import array
import ctypes
import math
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, random_array

# NumPy 2.3 made the scientific-notation cutoff depend on the dtype's
# precision; our text follows it, so exact comparisons need NumPy >= 2.3.
NUMPY_PRINTS_LIKE_US = np.lib.NumpyVersion(np.__version__) >= "2.3.0"


def as_bytes(obj):
    """The C-ordered bytes of a buffer-protocol object."""
    return np.ascontiguousarray(np.asarray(memoryview(obj))).tobytes()


def host_bytes(d):
    out = d.to_host()
    assert isinstance(out, np.ndarray)
    assert out.flags.c_contiguous
    return out.tobytes()


def random_bytes(rng, n):
    """n random bytes, none of them zero (so a copy that forgot something
    cannot pass by reading zeroed memory)."""
    return bytes(rng.integers(1, 256, size=n, dtype=np.uint8))


def nonzero_array(rng, shape, dt):
    """random_array without zeros, so every element carries information."""
    a = random_array(rng, shape, dt)
    if a.dtype.kind == "b":
        return a
    flat = a.reshape(-1)
    flat[flat == 0] = 1
    return a


# ---- bytes, bytearray, memoryview ---------------------------------------------------

def test_bytes_like(backend, rng):
    data = random_bytes(rng, 24)
    for obj in (data, bytearray(data), memoryview(data)):
        d = devarray.to_device(obj)
        assert d.dtype == "uint8" and d.shape == (24,)
        assert host_bytes(d) == data
    assert bytes(data) == data  # the source is untouched


def test_empty_bytes(backend):
    d = devarray.to_device(b"")
    assert d.shape == (0,) and d.dtype == "uint8"
    assert host_bytes(d) == b""


@pytest.mark.parametrize("fmt, shape", [
    ("B", (4, 6)), ("i", (2, 3)), ("d", (3,)), ("h", (2, 2, 3)), ("f", (1, 6)),
])
def test_memoryview_cast(backend, rng, fmt, shape):
    data = random_bytes(rng, 24)
    m = memoryview(data).cast("B").cast(fmt, shape)
    d = devarray.to_device(m)
    assert d.shape == shape
    assert d.dtype == np.asarray(m).dtype
    assert host_bytes(d) == data


@pytest.mark.parametrize("index", [
    slice(None, None, 2), slice(None, None, -1), slice(1, None, 3),
    slice(None, None, -2), slice(5, 1, -1),
], ids=str)
def test_memoryview_strided(backend, rng, index):
    src = bytearray(random_bytes(rng, 96))
    before = bytes(src)
    for m in (memoryview(src).cast("i"), memoryview(src).cast("i", (8, 3)),
              memoryview(src).cast("d", (4, 3))):
        view = m[index]
        d = devarray.to_device(view)
        expected = np.asarray(view)
        assert d.shape == expected.shape and d.dtype == expected.dtype
        assert host_bytes(d) == np.ascontiguousarray(expected).tobytes()
    assert bytes(src) == before


def test_zero_d_memoryview(backend, rng):
    data = random_bytes(rng, 8)
    m = memoryview(data).cast("d", ())
    d = devarray.to_device(m)
    assert d.shape == () and d.dtype == "float64"
    assert host_bytes(d) == data


# ---- array.array and ctypes ---------------------------------------------------------

@pytest.mark.parametrize("code", list("bBhHiIlLqQfd"))
def test_array_module(backend, rng, code):
    expected_dtype = np.asarray(memoryview(array.array(code))).dtype
    values = nonzero_array(rng, (17,), expected_dtype)
    src = array.array(code, values.tobytes())
    d = devarray.to_device(src)
    assert d.dtype == expected_dtype and d.shape == (17,)
    assert host_bytes(d) == src.tobytes()
    assert d.tolist() == src.tolist()


def test_array_module_unicode_refused(backend):
    src = array.array("u", "hello")
    fmt = memoryview(src).format
    with pytest.raises(TypeError, match=re.escape(repr(fmt))):
        devarray.to_device(src)


@pytest.mark.parametrize("ctype, dtype", [
    (ctypes.c_float, "float32"), (ctypes.c_double, "float64"),
    (ctypes.c_int8, "int8"), (ctypes.c_uint16, "uint16"),
    (ctypes.c_int32, "int32"), (ctypes.c_uint32, "uint32"),
    (ctypes.c_int64, "int64"), (ctypes.c_uint64, "uint64"),
    (ctypes.c_long, np.dtype(np.int_).name if ctypes.sizeof(ctypes.c_long) == 8 else "int32"),
    (ctypes.c_bool, "bool"), (ctypes.c_char, "uint8"),
])
def test_ctypes_arrays(backend, rng, ctype, dtype):
    n = 9
    src = (ctype * n)()
    ctypes.memmove(src, random_bytes(rng, ctypes.sizeof(src)), ctypes.sizeof(src))
    if ctype is ctypes.c_bool:
        for i in range(n):
            src[i] = bool(rng.integers(0, 2))
    before = bytes(src)
    d = devarray.to_device(src)
    assert d.dtype == dtype and d.shape == (n,)
    assert host_bytes(d) == before
    assert bytes(src) == before


def test_ctypes_2d(backend, rng):
    src = ((ctypes.c_int * 3) * 4)()
    ctypes.memmove(src, random_bytes(rng, 48), 48)
    d = devarray.to_device(src)
    assert d.dtype == "int32" and d.shape == (4, 3)
    assert host_bytes(d) == bytes(src)
    assert d.tolist() == [list(row) for row in src]


# ---- NumPy arrays -------------------------------------------------------------------

LAYOUTS = {
    "c": lambda a: a,
    "fortran": lambda a: np.asfortranarray(a),
    "sliced": lambda a: a[::2, 1:],
    "reversed": lambda a: a[::-1],
    "both_reversed": lambda a: a[::-1, ::-3],
    "transposed": lambda a: a.T,
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dt", DTYPES)
def test_numpy_layouts(backend, rng, dt, layout):
    base = random_array(rng, (6, 7), dt, special=True)
    src = LAYOUTS[layout](base)
    before = base.tobytes()
    d = devarray.to_device(src)
    assert d.dtype == dt and d.shape == src.shape
    assert d.strides == np.ascontiguousarray(src).strides
    out = d.to_host()
    assert out.dtype == src.dtype and out.shape == src.shape
    assert out.tobytes() == np.ascontiguousarray(src).tobytes()
    assert base.tobytes() == before


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (0, 3), (3, 0, 2), (2, 3, 4), (1, 1, 1, 5)],
                         ids=str)
def test_numpy_shapes(backend, rng, dt, shape):
    src = random_array(rng, shape, dt, special=True)
    d = devarray.to_device(src)
    assert d.shape == shape and d.dtype == dt
    out = d.to_host()
    assert isinstance(out, np.ndarray)
    assert out.shape == shape and out.dtype == src.dtype
    assert out.tobytes() == src.tobytes()


def test_numpy_3d_strided(backend, rng):
    base = random_array(rng, (5, 6, 7), "float32")
    for src in (base[::-2, 1::2, ::3], np.asfortranarray(base), base.transpose(2, 0, 1),
                base[:, ::-1, :][..., 2:5]):
        d = devarray.to_device(src)
        assert host_bytes(d) == np.ascontiguousarray(src).tobytes()


def test_numpy_odd_strides(backend, rng):
    # a field of a packed record: strides that are no multiple of the itemsize
    rec = np.zeros(11, dtype=[("tag", "u1"), ("value", "<f4")])
    rec["tag"] = rng.integers(1, 255, 11)
    rec["value"] = rng.standard_normal(11)
    field = rec["value"]
    assert field.strides == (5,)
    for src in (field, field[::-1], field[::3]):
        d = devarray.to_device(src)
        assert host_bytes(d) == np.ascontiguousarray(src).tobytes()
        d = devarray.to_device(src, dtype="float64")
        assert host_bytes(d) == src.astype(np.float64).tobytes()
    # broadcast: stride 0
    row = random_array(rng, (5,), "int32")
    src = np.broadcast_to(row, (4, 5))
    assert src.strides == (0, 4)
    assert host_bytes(devarray.to_device(src)) == np.ascontiguousarray(src).tobytes()
    assert host_bytes(devarray.to_device(src[:, ::-1], dtype="int8")) == \
        src[:, ::-1].astype(np.int8).tobytes()


def test_numpy_sparse_slices(backend, rng):
    """Slices whose byte span is much larger than their data."""
    base = random_array(rng, (50, 40), "complex64")
    for src in (base[::7, ::9], base[::-10], base[3:4, ::13], base.T[::5, ::-11]):
        d = devarray.to_device(src)
        assert host_bytes(d) == np.ascontiguousarray(src).tobytes()
        d = devarray.to_device(src, dtype="complex128")
        assert host_bytes(d) == src.astype(np.complex128).tobytes()


def test_numpy_asarray_path(backend, rng):
    src = random_array(rng, (3, 4), "int16")[::-1]
    d = devarray.asarray(src)
    assert host_bytes(d) == np.ascontiguousarray(src).tobytes()


def test_non_native_byte_order_refused(backend):
    with pytest.raises(TypeError):
        devarray.to_device(np.arange(3, dtype=">i4"))


def test_no_buffer_refused(backend):
    with pytest.raises(TypeError):
        devarray.to_device(object())


# ---- casting on the way in ----------------------------------------------------------

def castable_values(rng, src, dst):
    """Random values of `src` that NumPy's cast to `dst` defines (no float
    out of an integer's range, no NaN into an integer)."""
    a = random_array(rng, (5, 7), src, special=np.dtype(dst).kind not in "biu")
    if np.dtype(src).kind in "fc" and np.dtype(dst).kind in "iu":
        lo = 0 if np.dtype(dst).kind == "u" else -100
        a = (rng.integers(lo, 100, size=a.shape) + rng.random(a.shape)).astype(src)
    return a


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_to_device_dtype_cast(backend, rng, src, dst):
    a = castable_values(rng, src, dst)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # ComplexWarning
        expected = a.astype(dst)
    for layout in ("c", "reversed"):
        view = LAYOUTS[layout](a)
        d = devarray.to_device(view, dtype=dst)
        assert d.dtype == dst and d.shape == view.shape
        want = np.ascontiguousarray(LAYOUTS[layout](expected))
        if want.dtype.kind in "fc":
            # NaN payloads may differ (the GPU's float16 -> float32 makes a
            # canonical NaN); every other value must be exact
            assert_values(d, want)
        else:
            assert host_bytes(d) == want.tobytes(), (src, dst, layout)


def test_float16_rounds_once_from_double(backend):
    # halfway between two float16 values after rounding to float32 first,
    # but not in double: a cast through float32 would round wrongly
    x = np.array([1.0 + 2.0**-11 + 2.0**-40, 2049.0000001, 1e-7, 65519.99, 65520.0])
    d = devarray.to_device(x, dtype="float16")
    assert host_bytes(d) == x.astype(np.float16).tobytes()
    d = devarray.to_device(x.astype(np.int64), dtype="float16")
    assert host_bytes(d) == x.astype(np.int64).astype(np.float16).tobytes()


@pytest.mark.parametrize("dtype", ["float32", np.float32, devarray.float32, "f4"], ids=str)
def test_to_device_dtype_spellings(backend, dtype):
    d = devarray.to_device(array.array("i", [1, 2, 3]), dtype=dtype)
    assert d.dtype == "float32"
    assert d.tolist() == [1.0, 2.0, 3.0]


def test_cast_empty(backend):
    d = devarray.to_device(np.zeros((0, 4), np.int8), dtype="complex64")
    assert d.shape == (0, 4) and d.dtype == "complex64"


# ---- to_host ------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_to_host_views(backend, rng, dt):
    a = random_array(rng, (6, 5), dt, special=True)
    d = devarray.to_device(a)
    for dv, av in ((d.T, a.T), (d[::2], a[::2]), (d[::-1, 1:], a[::-1, 1:]),
                   (d[2], a[2]), (d[1, 3], a[1, 3])):
        out = dv.to_host()
        assert isinstance(out, np.ndarray)
        assert out.shape == av.shape and out.dtype == av.dtype
        assert out.tobytes() == np.ascontiguousarray(av).tobytes()


@pytest.mark.parametrize("dt", DTYPES)
def test_to_host_out_numpy(backend, rng, dt):
    a = random_array(rng, (3, 4), dt, special=True)
    d = devarray.to_device(a)
    out = np.empty((3, 4), dt)
    assert d.to_host(out=out) is out
    assert out.tobytes() == a.tobytes()
    # any shape with the same byte size and dtype: filled in C order
    flat = np.empty(12, dt)
    d.to_host(out=flat)
    assert flat.tobytes() == a.tobytes()
    # raw bytes
    raw = np.empty(a.nbytes, np.uint8)
    d.to_host(out=raw)
    assert raw.tobytes() == a.tobytes()


def test_to_host_out_non_contiguous(backend, rng):
    a = random_array(rng, (4, 6), "float64")
    d = devarray.to_device(a)
    fortran = np.empty((4, 6), order="F")
    assert d.to_host(out=fortran) is fortran
    assert np.array_equal(fortran, a)
    strided = np.zeros((8, 6))
    d.to_host(out=strided[::2])
    assert np.array_equal(strided[::2], a)
    assert not strided[1::2].any()
    backwards = np.zeros((4, 6))
    d.to_host(out=backwards[::-1])
    assert np.array_equal(backwards[::-1], a)


def test_to_host_out_builtin_buffers(backend, rng):
    a = random_array(rng, (10,), "int32")
    d = devarray.to_device(a)
    raw = bytearray(40)
    assert d.to_host(out=raw) is raw
    assert bytes(raw) == a.tobytes()
    arr = array.array("i", [0] * 10)
    assert d.to_host(out=arr) is arr
    assert arr.tolist() == a.tolist()
    mv = memoryview(bytearray(40))
    assert d.to_host(out=mv) is mv
    assert mv.tobytes() == a.tobytes()
    c = (ctypes.c_int32 * 10)()
    d.to_host(out=c)
    assert list(c) == a.tolist()


def test_to_host_out_zero_size(backend):
    d = devarray.to_device(np.zeros((0,), np.float32))
    out = bytearray()
    assert d.to_host(out=out) is out


def sentinel(n):
    return bytearray(b"\xa5" * n)


def test_to_host_out_errors(backend, rng):
    a = random_array(rng, (4, 5), "float32")
    d = devarray.to_device(a)

    short = sentinel(79)
    with pytest.raises(ValueError, match="79.*80"):
        d.to_host(out=short)
    assert short == sentinel(79)

    long_ = sentinel(81)
    with pytest.raises(ValueError):
        d.to_host(out=long_)
    assert long_ == sentinel(81)

    wrong = np.full(20, 7, np.int32)
    with pytest.raises(TypeError, match="float32"):
        d.to_host(out=wrong)
    assert (wrong == 7).all()

    wrong_kind = array.array("d", [3.0] * 10)
    with pytest.raises(TypeError, match="'d'"):
        d.to_host(out=wrong_kind)
    assert wrong_kind.tolist() == [3.0] * 10

    with pytest.raises(TypeError, match="writable"):
        d.to_host(out=bytes(80))
    readonly = np.zeros((4, 5), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        d.to_host(out=readonly)
    assert not readonly.any()
    with pytest.raises(TypeError, match="writable"):
        d.to_host(out=[0.0] * 20)


def test_to_host_without_numpy(backend):
    script = textwrap.dedent("""
        import sys
        sys.modules["numpy"] = None
        import array, devarray
        devarray.set_backend(sys.argv[1])
        d = devarray.to_device(array.array("h", [1, -2, 3, -4, 5, -6]))
        m = d.reshape(2, 3).to_host()
        assert isinstance(m, memoryview), type(m)
        assert m.format == "h" and m.shape == (2, 3) and m.strides == (6, 2)
        assert not m.readonly and m.c_contiguous
        assert m.tolist() == [[1, -2, 3], [-4, 5, -6]]
        m[0, 0] = 100  # a private copy: the device array is unchanged
        assert d.tolist() == [1, -2, 3, -4, 5, -6]
        assert type(m.obj).__name__ == "_HostBuffer"
        z = d[1].to_host()
        assert z.shape == () and z.format == "h" and z.tobytes() == array.array("h", [-2]).tobytes()
        e = d[:0].to_host()
        assert e.shape == (0,) and e.nbytes == 0
        b = devarray.asarray([True, False]).to_host()
        assert b.format == "?" and b.tolist() == [True, False]
        c = devarray.asarray([1 + 2j]).to_host()
        assert c.format == "Zd" and c.nbytes == 16
        assert d.T.to_host().tolist() == [1, -2, 3, -4, 5, -6]
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", script, backend],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# ---- tolist, item, Python scalars ---------------------------------------------------

def flatten(obj):
    if isinstance(obj, list):
        return [x for item in obj for x in flatten(item)]
    return [obj]


def same_python_values(got, expected):
    assert type(got) is type(expected)
    if isinstance(got, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            same_python_values(g, e)
    elif isinstance(got, (float, complex)):
        for g, e in ((got.real, expected.real), (got.imag, expected.imag)):
            assert (math.isnan(g) and math.isnan(e)) or \
                (g == e and math.copysign(1, g) == math.copysign(1, e)), (got, expected)
    else:
        assert got == expected


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 3), (2, 0, 3), (2, 1, 2, 2)], ids=str)
def test_tolist(backend, rng, dt, shape):
    a = random_array(rng, shape, dt, special=True)
    d = devarray.to_device(a)
    same_python_values(d.tolist(), a.tolist())


@pytest.mark.parametrize("dt", DTYPES)
def test_tolist_of_views(backend, rng, dt):
    a = random_array(rng, (4, 5), dt)
    d = devarray.to_device(a)
    same_python_values(d.T.tolist(), a.T.tolist())
    same_python_values(d[::-2, 1:].tolist(), a[::-2, 1:].tolist())


def test_tolist_extremes(backend):
    for dt in ("int64", "uint64", "int8", "uint8", "uint32"):
        info = np.iinfo(dt)
        a = np.array([info.min, info.max, 0], dt)
        got = devarray.to_device(a).tolist()
        assert got == [int(info.min), int(info.max), 0]
        assert all(type(x) is int for x in got)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1, 1)], ids=str)
def test_item_and_conversions(backend, rng, dt, shape):
    a = random_array(rng, shape, dt, special=True)
    d = devarray.to_device(a)
    same_python_values(d.item(), a.item())
    zero_d = a.reshape(())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # float/complex/int take only 0-d arrays (NumPy 2.4, the array API)
        for conv in (float, complex, bool):
            try:
                expected = conv(a)
            except (TypeError, ValueError, OverflowError) as exc:
                with pytest.raises(type(exc)):
                    conv(d)
                continue
            same_python_values(conv(d), expected)
        if np.dtype(dt).kind in "biu" and a.ndim == 0:
            assert int(d) == int(zero_d) and type(int(d)) is int


def test_item_of_view(backend, rng):
    a = random_array(rng, (3, 4), "complex64")
    d = devarray.to_device(a)
    assert d[2, 1:2].item() == a[2, 1:2].item()
    assert d.T[3, 1].item() == a.T[3, 1].item()


@pytest.mark.parametrize("shape", [(0,), (2,), (2, 3)], ids=str)
def test_item_refuses_other_sizes(backend, shape):
    d = devarray.to_device(np.ones(shape, np.float32))
    with pytest.raises(ValueError, match="size 1"):
        d.item()


# ---- nested sequences ---------------------------------------------------------------

SEQUENCES = [
    [True, False, True],
    [1, 2, 3],
    [1, -2**63],
    [2**63, 1],
    [2**64 - 1],
    [-1, 2**63],
    [True, 2**63],
    [2**63, 2**64 - 1],
    [True, 2],
    [True, 2.5],
    [1, 2.5, 3],
    [1, 2j],
    [True, 1, 1.5, 1 + 1j],
    [1e308, -1e-308, float("inf"), float("nan"), -0.0],
    [[1, 2, 3], [4, 5, 6]],
    ((1.5, 2), [3, 4]),
    [[[1], [2]], [[3], [4]]],
    [],
    [[], []],
    [[[]]],
    (),
    5,
    -2.5,
    True,
    3 + 4j,
    2**63,
    [[1 + 1j, 2], [3, 4.5]],
]


@pytest.mark.parametrize("seq", SEQUENCES, ids=repr)
def test_asarray_sequence_like_numpy(backend, seq):
    expected = np.asarray(seq)
    d = devarray.asarray(seq)
    assert d.shape == expected.shape
    assert d.dtype == expected.dtype, (d.dtype, expected.dtype)
    assert host_bytes(d) == expected.tobytes()


class MyInt(int):
    pass


class MyFloat(float):
    pass


def test_asarray_scalar_subclasses(backend):
    d = devarray.asarray([MyInt(3), MyFloat(1.5)])
    assert d.dtype == "float64" and d.tolist() == [3.0, 1.5]
    d = devarray.asarray([MyInt(3), 4])
    assert d.dtype == "int64" and d.tolist() == [3, 4]


@pytest.mark.parametrize("dt", DTYPES)
def test_asarray_sequence_with_dtype(backend, rng, dt):
    values = [[1, 0, True], [2.5, -1.25, False]]
    if np.dtype(dt).kind == "u":
        values = [[1, 0, True], [2.5, 7.75, False]]
    if np.dtype(dt).kind == "c":
        values[1][0] = 1 - 2j
    expected = np.asarray(values, dtype=dt)
    d = devarray.asarray(values, dtype=dt)
    assert d.dtype == dt and d.shape == (2, 3)
    assert host_bytes(d) == expected.tobytes()


@pytest.mark.parametrize("dt", ["float16", "float32", "complex64"])
def test_asarray_rounds_like_numpy(backend, rng, dt):
    values = (rng.standard_normal(50) * 10.0 ** rng.integers(-8, 8, 50)).tolist()
    values += [2**60 + 1, 65519.99, 1e-8, 1 / 3]
    expected = np.asarray(values, dtype=dt)
    assert host_bytes(devarray.asarray(values, dtype=dt)) == expected.tobytes()


@pytest.mark.parametrize("seq, dt", [
    ([1000], "int8"), ([-1], "uint8"), ([2**64], "uint64"), ([2**63], "int64"),
    ([-2**63 - 1], "int64"), ([70000], "float16"), ([300.5], "uint8"),
    ([2**64], None), ([-2**63 - 1], None), ([float("inf")], "int32"),
    ([10**400], "float64"), ([10**400, 1.5], None),
], ids=repr)
def test_asarray_overflow_like_numpy(backend, seq, dt):
    try:
        expected = np.asarray(seq, dtype=dt)
    except OverflowError:
        with pytest.raises(OverflowError):
            devarray.asarray(seq, dtype=dt)
        return
    if expected.dtype == object:
        # NumPy falls back to an object array; we have none
        with pytest.raises(OverflowError):
            devarray.asarray(seq, dtype=dt)
        return
    # e.g. 70000 -> float16 is inf, not an error
    assert host_bytes(devarray.asarray(seq, dtype=dt)) == expected.tobytes()


def test_asarray_out_of_bounds_message(backend):
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        devarray.asarray([1, 1000], dtype="int8")


def test_asarray_nan_to_int(backend):
    with pytest.raises(ValueError):
        devarray.asarray([float("nan")], dtype="int64")


@pytest.mark.parametrize("seq", [
    [[1, 2], [3]], [[1, 2], 3], [1, [2]], [[[1, 2]], [[3]]], [[], [1]], [[1], []],
    [[1, 2], (3, 4, 5)],
], ids=repr)
def test_asarray_ragged(backend, seq):
    with pytest.raises(ValueError):
        np.asarray(seq)
    with pytest.raises(ValueError, match="inhomogeneous"):
        devarray.asarray(seq)
    with pytest.raises(ValueError, match="inhomogeneous"):
        devarray.asarray(seq, dtype="float32")


@pytest.mark.parametrize("seq, name", [
    (["a", "b"], "str"), ([1, b"x"], "bytes"), ([1, None], "NoneType"),
    ([[1, 2], [3, object()]], "object"), ("abc", "str"), ([{}], "dict"),
], ids=lambda value: value if isinstance(value, str) else type(value).__name__)
def test_asarray_non_numbers(backend, seq, name):
    with pytest.raises(TypeError, match=name):
        devarray.asarray(seq)
    with pytest.raises(TypeError, match=name):
        devarray.asarray(seq, dtype="float64")


def test_asarray_complex_into_real(backend):
    with pytest.raises(TypeError):
        devarray.asarray([1 + 2j], dtype="float32")
    with pytest.raises(TypeError):
        devarray.asarray([1j], dtype="int16")


def test_asarray_too_deep(backend):
    deep = 1
    for _ in range(40):
        deep = [deep]
    with pytest.raises(ValueError):
        devarray.asarray(deep)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError):
        devarray.asarray(loop)


# ---- repr and str -------------------------------------------------------------------

class DeviceArray(np.ndarray):
    """NumPy prints type(a).__name__: a subclass view of this name prints
    what ours must."""


def numpy_text(a, fn):
    if fn is str and a.ndim == 0:
        return str(a[()])
    return fn(a.view(DeviceArray))


REPR_SHAPES = [(), (0,), (1,), (6,), (3, 4), (2, 3, 4), (0, 3), (2, 0), (40,),
               (1001,), (7, 200), (3, 1, 400), (2,) * 11]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", REPR_SHAPES, ids=str)
def test_repr_str_like_numpy(backend, rng, dt, shape):
    for special in (False, True):
        for scale in (1.0, 1e-6, 1e5, 1e12):
            a = random_array(rng, shape, dt, special)
            if a.dtype.kind in "fc" and scale != 1.0:
                with np.errstate(all="ignore"):
                    a = np.asarray((a * scale).astype(dt))
            d = devarray.to_device(a)
            r, s = repr(d), str(d)
            assert r.startswith("DeviceArray(") and r.endswith(")")
            if NUMPY_PRINTS_LIKE_US:
                assert r == numpy_text(a, repr)
                assert s == numpy_text(a, str)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "int8",
                                "uint64", "bool"])
def test_repr_of_views_like_numpy(backend, rng, dt):
    a = random_array(rng, (30, 50), dt, special=True)
    d = devarray.to_device(a)
    for dv, av in ((d.T, a.T), (d[::-1, ::3], a[::-1, ::3]), (d[5], a[5])):
        assert repr(dv).startswith("DeviceArray(")
        if NUMPY_PRINTS_LIKE_US:
            assert repr(dv) == numpy_text(av, repr)
            assert str(dv) == numpy_text(av, str)
    big = devarray.to_device(random_array(rng, (2000, 3), dt))
    for dv in (big.T, big[::-1]):
        text = repr(dv)
        assert "..." in text and "shape=" in text


@pytest.mark.parametrize("text, expected", [
    ([1.0, 2.5], "DeviceArray([1. , 2.5])"),
    ([[1, 2], [3, 4]], "DeviceArray([[1, 2],\n             [3, 4]])"),
    ([True, False], "DeviceArray([ True, False])"),
    ([1 + 2j], "DeviceArray([1.+2.j])"),
    ([], "DeviceArray([], dtype=float64)"),
    ([float("nan"), float("-inf"), 1.0], "DeviceArray([ nan, -inf,   1.])"),
    ([1e-5, 1.0], "DeviceArray([1.e-05, 1.e+00])"),
], ids=repr)
def test_repr_exact(backend, text, expected):
    assert repr(devarray.asarray(text)) == expected


def test_repr_dtypes_and_zero_d(backend):
    assert repr(devarray.asarray([1, 2], dtype="float32")) == \
        "DeviceArray([1., 2.], dtype=float32)"
    assert repr(devarray.asarray(3.0, dtype="float32")) == "DeviceArray(3., dtype=float32)"
    assert repr(devarray.asarray(7)) == "DeviceArray(7)"
    assert repr(devarray.to_device(np.zeros((0, 3)))) == \
        "DeviceArray([], shape=(0, 3), dtype=float64)"
    assert str(devarray.asarray([1.0, 2.0, 3.0])) == "[1. 2. 3.]"
    assert str(devarray.asarray(0.1, dtype="float32")) == "0.1"
    assert str(devarray.asarray(1 + 2j)) == "(1+2j)"
    assert str(devarray.asarray(True)) == "True"


@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "int16", "uint64"])
def test_repr_values_round_trip(backend, rng, dt):
    """Whatever the layout, the numbers in the text read back as the values."""
    for n in (1, 5, 20):
        a = random_array(rng, (n,), dt)
        if a.dtype.kind == "f":
            a = (a * 10.0 ** rng.integers(-6, 9, n)).astype(dt)
        text = repr(devarray.to_device(a))
        words = text[text.index("[") + 1:text.index("]")].replace(",", " ").split()
        if a.dtype.kind == "f":
            # at most 8 digits after the point: compare at that precision
            numbers = [float(x) for x in words]
            assert np.allclose(numbers, a.astype(np.float64), rtol=1e-7, atol=5.1e-9), \
                (text, a)
        else:
            assert [int(x) for x in words] == a.tolist(), text
