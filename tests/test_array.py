"""The DeviceArray type against NumPy 2: constructors, attributes, the
array interfaces, basic indexing and views, reshape/transpose/copy/astype,
scalar conversions, __array__ and backend selection."""

import operator
import warnings

import numpy as np
import pytest

import devarray
from _helpers import (
    DTYPES, assert_values, contiguous_strides, host, np_or_exception,
    random_array,
)

SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 3, 4), (5, 0, 2)]
DTYPE_SPELLINGS = {
    "name": lambda t: t,
    "devarray": lambda t: getattr(devarray, t),
    "numpy_dtype": lambda t: np.dtype(t),
    "numpy_type": lambda t: np.dtype(t).type,
}


def dev(a):
    return devarray.to_device(a)


def same_view(dv, dbase, nv, nbase):
    """dv = dbase[...] is the view NumPy's nv = nbase[...] is: same shape,
    strides, values and byte offset from the base."""
    assert dv.shape == nv.shape
    assert dv.strides == nv.strides
    assert_values(dv, np.asarray(nv))
    if nv.size:
        assert dv.ptr - dbase.ptr == nv.ctypes.data - nbase.ctypes.data


# ---- constructors -----------------------------------------------------------

@pytest.mark.parametrize("spelling", DTYPE_SPELLINGS)
@pytest.mark.parametrize("dt", DTYPES)
def test_zeros_ones_empty_dtype_spellings(backend, dt, spelling):
    dtype = DTYPE_SPELLINGS[spelling](dt)
    for fn, ref in ((devarray.zeros, np.zeros), (devarray.ones, np.ones)):
        d = fn((2, 3), dtype=dtype)
        assert d.dtype == dt
        assert_values(d, ref((2, 3), dtype=dt))
    e = devarray.empty((2, 3), dtype=dtype)
    assert e.dtype == dt and e.shape == (2, 3)
    assert e.strides == contiguous_strides((2, 3), np.dtype(dt).itemsize)


@pytest.mark.parametrize("pytype, expected", [
    (float, "float64"), (int, "int64"), (bool, "bool"),
    (complex, "complex128"), (None, "float64"),
])
def test_python_type_dtypes(backend, pytype, expected):
    for fn in (devarray.empty, devarray.zeros, devarray.ones):
        assert fn(3, dtype=pytype).dtype == expected
    assert devarray.zeros(2).dtype == "float64"


@pytest.mark.parametrize("shape, expected", [
    (5, (5,)), ((5,), (5,)), ([2, 3], (2, 3)), ((), ()), ([], ()),
    ((2, 0, 3), (2, 0, 3)), (np.int64(4), (4,)), ((np.int32(2), 3), (2, 3)),
])
def test_shape_spellings(backend, shape, expected):
    for fn in (devarray.empty, devarray.zeros, devarray.ones):
        d = fn(shape)
        assert d.shape == expected
        assert isinstance(d.shape, tuple)
        assert all(type(n) is int for n in d.shape)
    assert devarray.full(shape, 2.5).shape == expected


@pytest.mark.parametrize("shape, exc", [
    (-1, ValueError), ((2, -3), ValueError),
    ((2**40, 2**40), ValueError), ((2**62, 4), ValueError),
    ((2**63 - 1,), ValueError), ((2**63,), (ValueError, OverflowError)),
    (1.5, TypeError), ((2, 1.5), TypeError), ("3", TypeError),
    ((2, "a"), TypeError), (None, TypeError), ((2, None), TypeError),
])
def test_bad_shapes(backend, shape, exc):
    for fn in (devarray.empty, devarray.zeros, devarray.ones,
               lambda s: devarray.full(s, 1)):
        with pytest.raises(exc):
            fn(shape)


@pytest.mark.parametrize("dt", DTYPES)
def test_full_values(backend, rng, dt):
    value = random_array(rng, (), dt).item()  # a Python scalar in range
    d = devarray.full((4, 3), value, dtype=dt)
    assert_values(d, np.full((4, 3), value, dtype=dt))


@pytest.mark.parametrize("value", [True, 7, -2**63, 2**63 - 1, 2.5, 1e300,
                                   1 - 2j])
def test_full_infers_dtype(backend, value):
    expected = np.full(3, value)
    d = devarray.full(3, value)
    assert_values(d, expected)


@pytest.mark.parametrize("shape, value, dt", [
    (3, 300, "int8"), (3, -1, "uint8"), (2, 2**64, "uint64"),
    (2, -2**63 - 1, "int64"), ((2, 2), 70000, "int16"),
    (3, 1.5, "int8"), (3, -2.5, "uint8"), (3, 1e300, "float32"),
    (2, 2**64, None),
])
def test_full_out_of_range_like_numpy(backend, shape, value, dt):
    expected, exc = np_or_exception(lambda: np.full(shape, value, dtype=dt))
    if exc is not None or expected.dtype == object:
        with pytest.raises(exc or OverflowError):
            devarray.full(shape, value, dtype=dt)
        return
    assert_values(devarray.full(shape, value, dtype=dt), expected)


@pytest.mark.parametrize("dt", ["int16", "float32", "complex128", "bool"])
def test_like_constructors(backend, rng, dt):
    a = random_array(rng, (3, 5), dt)
    d = dev(a)
    for src_np, src in ((a, d), (a.T, d.T), (a[::-1, ::2], d[::-1, ::2])):
        for fn, ref in ((devarray.zeros_like, np.zeros_like),
                        (devarray.ones_like, np.ones_like)):
            r = fn(src)
            assert_values(r, np.ascontiguousarray(ref(src_np)))
            assert r.ptr != src.ptr
            r2 = fn(src, dtype="float16")
            assert_values(r2, np.ascontiguousarray(ref(src_np,
                                                       dtype="float16")))
        e = devarray.empty_like(src)
        assert e.shape == src.shape and e.dtype == src.dtype
        assert devarray.empty_like(src, dtype="uint8").dtype == "uint8"
        value = random_array(rng, (), dt).item()
        f = devarray.full_like(src, value)
        assert_values(f, np.ascontiguousarray(np.full_like(src_np, value)))
        f2 = devarray.full_like(src, 3, dtype="int8")
        assert_values(f2, np.full(src.shape, 3, dtype="int8"))


def test_full_like_out_of_range(backend):
    d = devarray.zeros(3, dtype="int8")
    with pytest.raises(OverflowError):
        devarray.full_like(d, 300)


def test_like_needs_array(backend):
    for fn in (devarray.zeros_like, devarray.ones_like, devarray.empty_like):
        with pytest.raises(TypeError):
            fn("not an array")


# ---- attributes -------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_attributes(backend, rng, shape, dt):
    a = random_array(rng, shape, dt)
    d = dev(a)
    assert d.shape == a.shape
    if a.size:  # NumPy 2.4 gives empty arrays zero strides; any will do
        assert d.strides == a.strides
    assert d.ndim == a.ndim
    assert d.size == a.size
    assert d.nbytes == a.nbytes
    assert d.itemsize == a.itemsize
    assert d.dtype == a.dtype and d.dtype == dt
    assert d.base is None
    assert d.readonly is False
    assert isinstance(d.ptr, int)
    if a.size:
        assert d.ptr != 0
    assert isinstance(d.device, devarray.Device) and d.device.type == backend
    if backend == "host":
        assert d.device == devarray.Device("host") and d.device.id == 0
    else:
        assert d.device.id >= 0 and d.device == d.device.id
    if a.ndim:
        assert len(d) == len(a)
    else:
        with pytest.raises(TypeError):
            len(d)
    assert_values(d, a)


def test_views_have_base(backend, rng):
    a = random_array(rng, (4, 6), "float32")
    d = dev(a)
    for view in (d[1], d[1:3], d[::-1], d.T, d.transpose(1, 0), d[None],
                 d[..., 2], d.reshape(6, 4), d.reshape(-1)):
        assert view.base is not None
    assert d.copy().base is None
    assert d.astype("float64").base is None


def _interface(d, backend):
    name = ("__array_interface__" if backend == "host"
            else "__cuda_array_interface__")
    other = ("__cuda_array_interface__" if backend == "host"
             else "__array_interface__")
    with pytest.raises(AttributeError):
        getattr(d, other)
    assert not hasattr(d, other)
    return getattr(d, name)


@pytest.mark.parametrize("dt", DTYPES)
def test_array_interfaces(backend, rng, dt):
    a = random_array(rng, (3, 5), dt)
    d = dev(a)
    iface = _interface(d, backend)
    assert iface["version"] == 3
    assert iface["typestr"] == a.__array_interface__["typestr"]
    assert iface["shape"] == (3, 5)
    assert iface["data"] == (d.ptr, False)
    assert iface["strides"] is None
    if backend == "cuda":
        assert iface["stream"] == 1
    view = d[::2, ::-1]
    viface = _interface(view, backend)
    assert viface["shape"] == (2, 5)
    assert viface["strides"] == a[::2, ::-1].strides
    assert viface["data"][0] == view.ptr


def test_readonly_in_interfaces(backend, rng):
    make = getattr(devarray._core, "_readonly_view", None)
    if make is None:
        pytest.skip("devarray._core._readonly_view is absent")
    d = dev(random_array(rng, (2, 3), "int16"))
    r = make(d)
    assert r.readonly is True and d.readonly is False
    assert r.ptr == d.ptr
    assert _interface(r, backend)["data"] == (r.ptr, True)
    assert _interface(d, backend)["data"] == (d.ptr, False)


def test_array_interface_is_consumable(host_backend_only, rng):
    """NumPy reads the host interface and sees the same memory."""
    a = random_array(rng, (4, 3), "float64")
    d = dev(a)

    class Holder:
        __array_interface__ = d.__array_interface__

    view = np.asarray(Holder())
    assert view.ctypes.data == d.ptr
    assert_values(view.copy(), a)
    t = d.T[1:]

    class Holder2:
        __array_interface__ = t.__array_interface__

    assert_values(np.asarray(Holder2()).copy(), a.T[1:])


@pytest.fixture
def host_backend_only():
    """The host backend, whatever the machine (the host array interface
    exists only there), restored afterwards."""
    previous = devarray.backend()
    devarray.set_backend("host")
    yield "host"
    devarray.set_backend(previous)


# ---- indexing ---------------------------------------------------------------

INDICES = [
    1, -1, 0, (1, 2), (1, 2, 3), (-1, -2, -3), slice(1, 3),
    slice(None, None, 2),
    slice(None, None, -1), slice(-1, 0, -2), slice(0, 100), slice(3, 1),
    slice(-100, 2), Ellipsis, (Ellipsis, 0), (0, Ellipsis), (Ellipsis, 1, 2),
    None, (None, 1), (0, None, slice(1, 3)), (slice(None), None, Ellipsis, 1),
    (), (slice(None, None, -2), slice(1, None, 3), slice(None, None, -1)),
    (1, slice(None), -2), (slice(1, 2), 0, slice(None, None, 4)),
    np.int64(2), (np.int32(1), slice(None)),
]


@pytest.mark.parametrize("dt", ["float32", "int8", "complex128", "bool"])
@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_basic_indexing(backend, rng, index, dt):
    a = random_array(rng, (4, 5, 6), dt)
    d = dev(a)
    v = d[index]
    assert isinstance(v, devarray.DeviceArray)
    # a trailing Ellipsis makes NumPy return a (0-d) view, not a scalar
    key = index if isinstance(index, tuple) else (index,)
    if not any(k is Ellipsis for k in key):
        key = key + (Ellipsis,)
    same_view(v, d, a[key], a)


def test_zero_d_indexing(backend, rng):
    a = random_array(rng, (), "float64")
    d = dev(a)
    assert_values(d[()], a)
    assert_values(d[...], a)
    assert d[None].shape == (1,)
    with pytest.raises(IndexError):
        d[0]


def test_chained_views(backend, rng):
    a = random_array(rng, (8, 9), "int32")
    d = dev(a)
    same_view(d[::-1][2:][:, ::3].T[1], d, a[::-1][2:][:, ::3].T[1], a)
    same_view(d.T[::2].T[::-3], d, a.T[::2].T[::-3], a)


@pytest.mark.parametrize("index, exc", [
    (4, IndexError), (-5, IndexError), ((0, 5), IndexError),
    ((0, 0, 6), IndexError), ((0, 0, 0, 0), IndexError),
    ((Ellipsis, Ellipsis), IndexError), (slice(None, None, 0), ValueError),
    (1.0, (TypeError, IndexError)), ("a", (TypeError, IndexError)),
    ((0, 1.5), (TypeError, IndexError)), (slice(0.5, 2), TypeError),
])
def test_bad_indices(backend, rng, index, exc):
    a = random_array(rng, (4, 5, 6), "float64")
    d = dev(a)
    _, np_exc = np_or_exception(lambda: a[index])
    assert np_exc is not None  # NumPy refuses too
    with pytest.raises(exc):
        d[index]


@pytest.mark.parametrize("index", [[0, 1], (0, [1, 2]), True])
def test_array_indices_are_copies(backend, rng, index):
    """Integer-array and boolean indices are NumPy's advanced indexing (a
    copy), never taken as something else (tests/test_array_index.py has
    the rest)."""
    a = random_array(rng, (4, 5), "float64")
    d = dev(a)
    got = d[index]
    assert got.shape == a[index].shape
    assert np.array_equal(got.to_host(), a[index])
    d[...] = 0.0
    assert np.array_equal(got.to_host(), a[index])


def test_views_share_memory(backend, rng):
    a = random_array(rng, (5, 6), "float64")
    d = dev(a)
    row = d[2]
    row += 1.0
    col = d[:, -1]
    col *= 2.0
    expected = a.copy()
    expected[2] += 1.0
    expected[:, -1] *= 2.0
    assert_values(d, expected)


# ---- transpose, reshape, copy, astype ---------------------------------------

@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1)])
def test_transpose(backend, rng, axes):
    a = random_array(rng, (2, 3, 4), "uint16")
    d = dev(a)
    if axes is None:
        same_view(d.transpose(), d, a.transpose(), a)
        same_view(d.T, d, a.T, a)
    else:
        same_view(d.transpose(axes), d, a.transpose(axes), a)
        same_view(d.transpose(*axes), d, a.transpose(*axes), a)


@pytest.mark.parametrize("axes", [(0, 0, 1), (0, 1), (0, 1, 3), (0, 1, 2, 3)])
def test_transpose_bad_axes(backend, rng, axes):
    a = random_array(rng, (2, 3, 4), "float32")
    _, exc = np_or_exception(lambda: a.transpose(axes))
    assert exc is not None
    with pytest.raises((ValueError, IndexError)):
        dev(a).transpose(axes)


def test_transpose_low_dims(backend, rng):
    for shape in [(), (5,)]:
        a = random_array(rng, shape, "float64")
        d = dev(a)
        same_view(d.T, d, a.T, a)


@pytest.mark.parametrize("new", [(6, 4), (24,), (-1,), (2, -1, 3), (4, 3, 2),
                                 (1, 24, 1), (2, 12)])
def test_reshape_contiguous_is_view(backend, rng, new):
    a = random_array(rng, (4, 6), "float32")
    d = dev(a)
    r = d.reshape(new)
    assert r.base is not None and r.ptr == d.ptr
    same_view(r, d, a.reshape(new), a)
    same_view(d.reshape(*new), d, a.reshape(*new), a)


@pytest.mark.parametrize("view", ["T", "cols", "rev"])
def test_reshape_non_contiguous_copies(backend, rng, view):
    """No strides can express these reshapes: the result is a copy."""
    a = random_array(rng, (4, 6), "int64")
    take = {"T": lambda x: x.T, "cols": lambda x: x[:, 1:5],
            "rev": lambda x: x[::-1]}[view]
    d = take(dev(a))
    expected = take(a).reshape(-1)
    r = d.reshape(-1)
    assert r.strides == (8,)
    assert_values(r, expected)


@pytest.mark.parametrize("new", [(5, 5), (-1, -1), (7, -1), (0, -1)])
def test_reshape_bad(backend, rng, new):
    a = random_array(rng, (4, 6), "float32")
    _, exc = np_or_exception(lambda: a.reshape(new))
    assert exc is ValueError
    with pytest.raises(ValueError):
        dev(a).reshape(new)


def test_reshape_empty(backend):
    d = devarray.zeros((0, 3))
    assert d.reshape(3, 0).shape == (3, 0)
    assert d.reshape(-1).shape == (0,)
    assert devarray.zeros(()).reshape(1, 1).shape == (1, 1)


@pytest.mark.parametrize("dt", DTYPES)
def test_copy(backend, rng, dt):
    a = random_array(rng, (6, 7), dt, special=True)
    d = dev(a)
    for src, ref in ((d, a), (d.T, a.T), (d[::-2, 1::3], a[::-2, 1::3])):
        c = src.copy()
        assert c.ptr != src.ptr and c.base is None
        assert c.strides == contiguous_strides(ref.shape, ref.itemsize)
        assert_values(c, np.ascontiguousarray(ref))
    c = d.copy()
    c += True if dt == "bool" else 1
    assert_values(d, a)  # the copy owns its memory


@pytest.mark.parametrize("to", DTYPES)
@pytest.mark.parametrize("frm", DTYPES)
def test_astype(backend, rng, frm, to):
    """astype casts like NumPy.  Float -> integer casts of nan/inf/values
    beyond the target are platform-defined in NumPy, so those get values in
    [-100, 100)."""
    kind_from, kind_to = np.dtype(frm).kind, np.dtype(to).kind
    if kind_from in "fc" and kind_to in "iu":
        a = rng.uniform(-100, 100, (5, 9)).astype(frm)
    else:
        a = random_array(rng, (5, 9), frm, special=True)
    d = dev(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning
        expected = a.astype(to)
        expected_view = a[::-1, ::2].astype(to)
    r = d.astype(to)
    assert r.dtype == to and r.base is None
    assert_values(r, expected)
    assert_values(d[::-1, ::2].astype(to), expected_view)


def test_astype_same_dtype_copies(backend, rng):
    d = dev(random_array(rng, (4,), "float32"))
    r = d.astype("float32")
    assert r.ptr != d.ptr
    assert_values(r, host(d))


# ---- scalar conversions -----------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=str)
def test_scalar_conversions_size1(backend, rng, dt, shape):
    """bool takes any size-1 array; float/int/complex only a 0-d one (the
    array API, and NumPy 2.4, which raises TypeError for the others);
    operator.index only a 0-d integer one, as NumPy."""
    a = random_array(rng, shape, dt)
    d = dev(a)
    zero_d = a.reshape(())
    for conv in (float, int, complex, bool, operator.index):
        expected, exc = np_or_exception(conv, a)
        if exc is not None:
            with pytest.raises(exc):
                conv(d)
            continue
        got = conv(d)
        assert type(got) is type(expected) and got == expected, (conv, got)
    assert d.item() == zero_d.item()
    assert type(d.item()) is type(zero_d.item())


@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,)], ids=str)
def test_scalar_conversions_refused(backend, rng, shape):
    d = dev(random_array(rng, shape, "int32"))
    for conv in (float, int, complex, operator.index):
        with pytest.raises(TypeError):
            conv(d)
    with pytest.raises(ValueError):
        bool(d)
    with pytest.raises(ValueError):
        d.item()


def test_bool_of_zero_d(backend):
    assert bool(devarray.to_device(np.array(0.0))) is False
    assert bool(devarray.to_device(np.array(np.nan))) is True
    assert bool(devarray.to_device(np.array([3], np.uint8))) is True


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)], ids=str)
def test_tolist_item(backend, rng, dt, shape):
    a = random_array(rng, shape, dt)
    d = dev(a)
    got, expected = d.tolist(), a.tolist()
    assert got == expected
    assert [type(x) for x in _flatten(got)] == \
        [type(x) for x in _flatten(expected)]


def _flatten(obj):
    if isinstance(obj, list):
        return [x for item in obj for x in _flatten(item)]
    return [obj]


# ---- __array__, to_host -----------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_numpy_asarray(backend, rng, dt):
    a = random_array(rng, (3, 4), dt, special=True)
    d = dev(a)
    assert_values(np.asarray(d), a)
    assert_values(np.array(d), a)
    assert_values(np.asarray(d.T[::-1]), a.T[::-1].copy())
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        target = "float32" if dt != "float32" else "int16"
        if np.dtype(dt).kind in "fc" and np.dtype(target).kind in "iu":
            return
        assert_values(np.asarray(d, dtype=target), a.astype(target))


def test_array_copy_false(backend, rng):
    a = random_array(rng, (3,), "float64")
    d = dev(a)
    with pytest.raises(ValueError):
        d.__array__(copy=False)
    assert_values(np.asarray(d.__array__(copy=True)), a)
    if backend == "host":
        # NumPy prefers __array_interface__: a zero-copy view of host memory
        v = np.asarray(d, copy=False)
        assert v.ctypes.data == d.ptr
        assert_values(v, a)
    else:
        with pytest.raises(ValueError):
            np.asarray(d, copy=False)


def test_to_host_out(backend, rng):
    a = random_array(rng, (4, 5), "float32")
    d = dev(a)
    out = np.empty((4, 5), np.float32)
    assert d.to_host(out=out) is out
    assert_values(out, a)
    raw = bytearray(a.nbytes)
    assert d.to_host(out=raw) is raw
    assert bytes(raw) == a.tobytes()
    t = d.T.to_host()
    assert_values(np.asarray(t), a.T.copy())


# ---- repr -------------------------------------------------------------------

def test_repr_exact_small(backend):
    d = devarray.to_device(np.array([1, 2, 3], np.int32))
    assert repr(d) == "DeviceArray([1, 2, 3], dtype=int32)"
    assert "1" in str(d) and "3" in str(d)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (0, 3)], ids=str)
def test_repr_all(backend, rng, dt, shape):
    a = random_array(rng, shape, dt)
    d = dev(a)
    r, s = repr(d), str(d)
    assert r.startswith("DeviceArray(") and r.endswith(")")
    if dt not in ("float64", "int64", "bool", "complex128") or not a.size:
        assert dt in r
    assert isinstance(s, str) and s


# ---- backends ---------------------------------------------------------------

def test_backend_name(backend):
    assert devarray.backend() == backend
    assert devarray.backend() in ("host", "cuda")
    d = devarray.zeros(3)
    assert d.ptr != 0


def test_set_backend_bogus(backend):
    with pytest.raises(ValueError):
        devarray.set_backend("bogus")
    assert devarray.backend() == backend


def test_mixed_backends_refused(gpu, rng):
    a = random_array(rng, (4,), "float32")
    previous = devarray.backend()
    try:
        devarray.set_backend("host")
        h = dev(a)
        devarray.set_backend("cuda")
        c = dev(a)
    finally:
        devarray.set_backend(previous)
    assert_values(h, a)
    assert_values(c, a)
    for op in (operator.add, operator.sub, operator.mul, operator.truediv):
        with pytest.raises(ValueError):
            op(h, c)
        with pytest.raises(ValueError):
            op(c, h)
    with pytest.raises(ValueError):
        c += h
