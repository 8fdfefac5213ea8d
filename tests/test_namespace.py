"""The array API's namespace names (src/api/namespace.c, src/ops/dtypefuncs.c,
src/interop/deviceobject.c): __array_api_version__, the constants, Device,
__array_namespace_info__, and the data type functions astype, can_cast,
finfo, iinfo, isdtype and result_type, against NumPy 2 on every dtype (and
pair, and triple), with arrays on both backends."""

import itertools
import math
import operator
import pickle
import warnings

import numpy as np
import pytest

import devarray
from devarray import _core

from _helpers import DTYPES, assert_values, host, random_array

KINDS = ["bool", "signed integer", "unsigned integer", "integral",
         "real floating", "complex floating", "numeric"]
SCALARS = [True, 1, 1.0, 1j]


def dt(name):
    return devarray.DType(name)


def np_info():
    return np.__array_namespace_info__()


# ---- version and constants ---------------------------------------------------

def test_version_and_constants():
    assert devarray.__array_api_version__ == "2025.12"
    for name, value in (("e", math.e), ("pi", math.pi), ("inf", math.inf)):
        got = getattr(devarray, name)
        assert type(got) is float and got == value, name
    assert type(devarray.nan) is float and math.isnan(devarray.nan)
    assert devarray.newaxis is None
    for name in ("e", "pi", "inf", "nan", "newaxis", "astype", "can_cast",
                 "finfo", "iinfo", "isdtype", "result_type", "Device"):
        assert name in devarray.__all__, name


# ---- Device -------------------------------------------------------------------

@pytest.mark.parametrize("spelling, args, expected", [
    ("cuda:0", (), ("cuda", 0)),
    ("cuda:3", (), ("cuda", 3)),
    ("cuda", (5,), ("cuda", 5)),
    ("cuda", (np.int64(2),), ("cuda", 2)),
    ("host", (), ("host", 0)),
    ("host", (0,), ("host", 0)),
    ("cpu", (), ("host", 0)),
    ("host:0", (), ("host", 0)),
])
def test_device_spellings(spelling, args, expected):
    d = devarray.Device(spelling, *args)
    assert (d.type, d.id) == expected
    assert d == devarray.Device(*expected)
    assert devarray.Device(d) is d


def test_device_cuda_without_id_is_the_working_device():
    d = devarray.Device("cuda")
    if _core._cuda_available():
        assert d == _core._device_info()["device"]
    else:
        assert d.id == 0


def test_device_repr_str_and_attributes():
    assert repr(devarray.Device("cuda", 0)) == "Device('cuda', 0)"
    assert repr(devarray.Device("cuda", 17)) == "Device('cuda', 17)"
    assert repr(devarray.Device("host")) == "Device('host')"
    assert str(devarray.Device("cuda", 2)) == "cuda:2"
    assert str(devarray.Device("cpu")) == "host"
    assert type(devarray.Device("host")).__name__ == "Device"


@pytest.mark.parametrize("ordinal", [0, 1, 15, 16, 1000])
def test_cuda_device_acts_as_its_int_id(ordinal):
    """The compatibility contract: x.device used to be the int CUDA id."""
    d = devarray.Device("cuda", ordinal)
    assert operator.index(d) == ordinal and int(d) == ordinal
    assert d == ordinal and ordinal == d and not d != ordinal
    assert d != ordinal + 1 and d != -1
    assert hash(d) == hash(ordinal)
    assert {ordinal: "found"}[d] == "found"
    assert list(range(ordinal + 1))[d] == ordinal
    assert d != True and d != 1.0 and d != "cuda:%d" % ordinal  # noqa: E712


def test_host_device_is_not_an_int():
    h = devarray.Device("host")
    assert h != 0 and not h == 0
    assert h != devarray.Device("cuda", 0)
    with pytest.raises(TypeError, match="host"):
        operator.index(h)
    with pytest.raises(TypeError):
        [0][h]


def test_device_equality_and_hash():
    devices = [devarray.Device("host"), devarray.Device("cpu"),
               devarray.Device("cuda", 0), devarray.Device("cuda:0"),
               devarray.Device("cuda", 1), devarray.Device("cuda", 100),
               devarray.Device("cuda", 100)]
    for a, b in itertools.product(devices, repeat=2):
        same = (a.type, a.id) == (b.type, b.id)
        assert (a == b) is same and (a != b) is (not same)
        if same:
            assert hash(a) == hash(b)
    assert len(set(devices)) == 4


def test_device_is_immutable_and_final():
    d = devarray.Device("cuda", 1)
    for name in ("type", "id", "other"):
        with pytest.raises(AttributeError):
            setattr(d, name, 0)
    with pytest.raises(TypeError):
        type("Sub", (devarray.Device,), {})


@pytest.mark.parametrize("d", [devarray.Device("host"), devarray.Device("cuda", 0),
                               devarray.Device("cuda", 40)], ids=str)
def test_device_pickles(d):
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(d, protocol))
        assert back == d and type(back) is devarray.Device


def test_array_device(backend, rng):
    d = devarray.asarray(random_array(rng, (3,), "float32"))
    assert isinstance(d.device, devarray.Device)
    assert d.device == devarray.Device(backend)
    assert d.device in devarray.__array_namespace_info__().devices()
    assert d[1:].device == d.device and (d + 1).device == d.device


# ---- __array_namespace_info__ ---------------------------------------------------

def test_info_is_one_object():
    info = devarray.__array_namespace_info__()
    assert info is devarray.__array_namespace_info__()
    assert isinstance(info, devarray.__array_namespace_info__)


def test_info_capabilities():
    caps = devarray.__array_namespace_info__().capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True,
                    "max dimensions": 32}
    assert type(caps["max dimensions"]) is int


def test_info_default_device(backend):
    info = devarray.__array_namespace_info__()
    assert info.default_device() == devarray.Device(backend)
    assert devarray.empty(2).device == info.default_device()


def test_info_devices():
    devices = devarray.__array_namespace_info__().devices()
    assert type(devices) is tuple
    assert devices[-1] == devarray.Device("host")
    if _core._cuda_available():
        # every GPU, in ordinal order, then the host
        cuda = [devarray.Device("cuda", i) for i in range(devarray.device_count())]
        assert devarray.device_count() >= 1
        assert devices == (*cuda, devarray.Device("host"))
    else:
        assert devices == (devarray.Device("host"),)


@pytest.mark.parametrize("version", ["2024.12", "2023.12"])
def test_older_revision_namespace(backend, rng, version):
    """__array_namespace__(api_version=...) of 2024.12 and 2023.12: lists where
    2025.12 made tuples, everything else devarray's own."""
    a = rng.standard_normal((3,)).astype("float32")
    b = rng.integers(-9, 9, (1, 4)).astype("int32")
    xp = devarray.asarray(a).__array_namespace__(api_version=version)
    assert xp.__array_api_version__ == version
    assert devarray.__array_api_version__ == "2025.12"
    grids = xp.meshgrid(xp.asarray(a), xp.asarray(b[0]), indexing="ij")
    assert type(grids) is list
    for g, e in zip(grids, np.meshgrid(a, b[0], indexing="ij")):
        assert_values(g, e)
    assert xp.meshgrid() == []
    shaped = xp.broadcast_arrays(xp.asarray(a[:, None]), xp.asarray(b))
    assert type(shaped) is list
    for g, e in zip(shaped, np.broadcast_arrays(a[:, None], b)):
        assert_values(g, e)
    with pytest.raises(ValueError):
        xp.meshgrid(xp.asarray(a), indexing="xz")
    with pytest.raises(ValueError):
        xp.broadcast_arrays(xp.asarray(a), xp.asarray(b[0]))
    info, newest = xp.__array_namespace_info__(), devarray.__array_namespace_info__()
    assert info.devices() == list(newest.devices())
    assert type(info.devices()) is list
    assert info.default_device() == newest.default_device()
    assert info.capabilities() == newest.capabilities()
    assert info.default_dtypes(device="host") == newest.default_dtypes(device="host")
    assert (info.dtypes(kind="integral", device="host")
            == newest.dtypes(kind="integral", device="host"))


@pytest.mark.parametrize("device", [None, "host", "cpu", devarray.Device("host")],
                         ids=str)
def test_info_default_dtypes(device):
    got = devarray.__array_namespace_info__().default_dtypes(device=device)
    expected = np_info().default_dtypes()
    assert list(got) == list(expected)
    for key, value in got.items():
        assert value is dt(expected[key].name), key


def test_info_default_dtypes_on_cuda(gpu):
    info = devarray.__array_namespace_info__()
    assert info.default_dtypes(device="cuda") == info.default_dtypes()


def _kind_arguments():
    yield None
    yield from KINDS
    yield ()
    yield ("bool", "complex floating")
    yield ("signed integer", "integral", "real floating")


@pytest.mark.parametrize("kind", list(_kind_arguments()), ids=repr)
def test_info_dtypes(kind):
    """NumPy's own lists, less float16 (not an array API dtype)."""
    got = devarray.__array_namespace_info__().dtypes(kind=kind)
    expected = np_info().dtypes(kind=kind)
    assert got == {name: dt(name) for name in expected}
    if kind is None:
        assert list(got) == list(expected)
    for name, value in got.items():
        assert value is dt(name)
    assert "float16" not in got


def test_info_dtypes_device():
    info = devarray.__array_namespace_info__()
    assert info.dtypes(device="host") == info.dtypes(device=None) == info.dtypes()
    assert len(info.dtypes()) == 13


# ---- finfo and iinfo ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64",
                                  "complex128"])
def test_finfo(backend, name):
    ref = np.finfo(np.dtype(name))
    real = np.dtype(name).type(0).real.dtype.name
    for arg in (dt(name), name, devarray.zeros(2, dtype=name),
                devarray.zeros(2, dtype=name).dtype):
        info = devarray.finfo(arg)
        assert info is devarray.finfo(dt(name))
        assert isinstance(info, devarray.finfo)
        assert info.bits == ref.bits and type(info.bits) is int
        for field in ("eps", "max", "min", "smallest_normal"):
            got = getattr(info, field)
            assert type(got) is float and got == float(getattr(ref, field)), field
        assert info.dtype is dt(real)
    assert "dtype=%s" % real in repr(info) and "eps=" in repr(info)


@pytest.mark.parametrize("name", [t for t in DTYPES if np.dtype(t).kind in "iu"])
def test_iinfo(backend, name):
    ref = np.iinfo(np.dtype(name))
    for arg in (dt(name), name, devarray.zeros(2, dtype=name),
                devarray.zeros(2, dtype=name).dtype):
        info = devarray.iinfo(arg)
        assert info is devarray.iinfo(dt(name))
        assert isinstance(info, devarray.iinfo)
        for field in ("bits", "max", "min"):
            got = getattr(info, field)
            assert type(got) is int and got == int(getattr(ref, field)), field
        assert info.dtype is dt(name)
    assert repr(info) == "iinfo(bits=%d, max=%d, min=%d, dtype=%s)" % (
        ref.bits, ref.max, ref.min, name)


# ---- isdtype -----------------------------------------------------------------------

def _np_isdtype(name, kind):
    def convert(k):
        return np.dtype(k.name) if isinstance(k, devarray.DType) else k
    kind = tuple(convert(k) for k in kind) if isinstance(kind, tuple) else convert(kind)
    return bool(np.isdtype(np.dtype(name), kind))


def _isdtype_kinds():
    yield from KINDS
    yield from (dt(t) for t in DTYPES)
    yield ()
    yield ("bool", dt("float32"))
    yield ("unsigned integer", "complex floating", dt("int8"))
    yield (dt("int64"), dt("uint64"))


@pytest.mark.parametrize("kind", list(_isdtype_kinds()), ids=repr)
def test_isdtype(kind):
    for name in DTYPES:
        got = devarray.isdtype(dt(name), kind)
        assert type(got) is bool
        assert got == _np_isdtype(name, kind), (name, kind)


def test_isdtype_keywords():
    assert devarray.isdtype(dtype=devarray.float16, kind="real floating") is True


# ---- can_cast ---------------------------------------------------------------------

def test_can_cast_every_pair():
    for a, b in itertools.product(DTYPES, repeat=2):
        expected = bool(np.can_cast(np.dtype(a), np.dtype(b)))
        assert devarray.can_cast(dt(a), dt(b)) is expected, (a, b)
        assert devarray.can_cast(a, b) is expected, (a, b)


def test_can_cast_arrays(backend):
    for a, b in itertools.product(DTYPES, repeat=2):
        x = devarray.empty((2,), dtype=a)
        assert devarray.can_cast(x, dt(b)) is bool(np.can_cast(np.dtype(a), np.dtype(b)))


def test_can_cast_contains_the_promotion_lattice():
    """What array-api-tests checks: from_ casts to every promotion of it."""
    for a, b in itertools.product(DTYPES, repeat=2):
        to = devarray.result_type(dt(a), dt(b))
        assert devarray.can_cast(dt(a), to) and devarray.can_cast(dt(b), to)


# ---- result_type -------------------------------------------------------------------

def _np_result_type(args):
    converted = []
    for a in args:
        if isinstance(a, devarray.DType):
            converted.append(np.dtype(a.name))
        elif isinstance(a, devarray.DeviceArray):
            converted.append(np.empty(0, dtype=a.dtype.name))
        else:
            converted.append(a)
    return np.result_type(*converted).name


def test_result_type_every_pair_and_triple():
    """Triples are where NumPy's promotion is not left to right (int8,
    uint8, float16 is float16), so every one is checked in every order."""
    dtypes = [dt(t) for t in DTYPES]
    for n in (1, 2, 3):
        for args in itertools.product(dtypes, repeat=n):
            got = devarray.result_type(*args)
            assert got is dt(_np_result_type(args)), args


def test_result_type_four_dtypes(rng):
    dtypes = [dt(t) for t in DTYPES]
    for _ in range(2000):
        args = [dtypes[i] for i in rng.integers(0, len(dtypes), 4)]
        assert devarray.result_type(*args).name == _np_result_type(args), args


def test_result_type_with_scalars():
    """NEP 50: Python scalars are weak, in any position and any number."""
    for name in DTYPES:
        for count in (1, 2, 3):
            for scalars in itertools.product(SCALARS, repeat=count):
                args = (dt(name),) + scalars
                for order in set(itertools.permutations(range(len(args)))):
                    ordered = [args[i] for i in order]
                    got = devarray.result_type(*ordered)
                    assert got.name == _np_result_type(ordered), ordered


def test_result_type_arrays_and_dtypes(backend, rng):
    dtypes = [dt(t) for t in DTYPES]
    arrays = {t: devarray.empty((1,), dtype=t) for t in DTYPES}
    for _ in range(500):
        picks = rng.integers(0, len(DTYPES), 3)
        args = [arrays[DTYPES[picks[0]]], dtypes[picks[1]], arrays[DTYPES[picks[2]]]]
        if rng.random() < 0.5:
            args.append(SCALARS[rng.integers(0, 4)])
        rng.shuffle(args)
        assert devarray.result_type(*args).name == _np_result_type(args), args


def test_result_type_strong_scalar_subclasses_and_dtype_likes():
    """numpy.float64 is a float subclass, so strong (float64), as in NumPy;
    Python types and names are dtype-likes."""
    assert devarray.result_type(devarray.float32, np.float64(1.0)) is devarray.float64
    assert devarray.result_type(devarray.float32, 1.0) is devarray.float32
    assert devarray.result_type(devarray.int8, int) is devarray.int64
    assert devarray.result_type("int8", "uint8") is devarray.int16
    assert devarray.result_type(devarray.int8, np.dtype("int16")) is devarray.int16


# ---- astype ------------------------------------------------------------------------

def _astype_input(rng, frm, to):
    if np.dtype(frm).kind in "fc" and np.dtype(to).kind in "iu":
        # NaN, inf and out-of-range float -> int casts are implementation-defined
        return rng.uniform(-100, 100, (4, 7)).astype(frm)
    return random_array(rng, (4, 7), frm, special=True)


@pytest.mark.parametrize("to", DTYPES)
@pytest.mark.parametrize("frm", DTYPES)
def test_astype(backend, rng, frm, to):
    a = _astype_input(rng, frm, to)
    d = devarray.asarray(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = a.astype(to)
        expected_view = a[::-1, ::3].astype(to)
    if np.dtype(frm).kind == "c" and to != "bool" and np.dtype(to).kind != "c":
        # the standard leaves complex -> real unspecified: the function
        # refuses it, the method keeps NumPy's real part
        with pytest.raises(TypeError, match="complex"):
            devarray.astype(d, dt(to))
        assert_values(d.astype(dt(to)), expected)
        return
    for copy in (True, False):
        r = devarray.astype(d, dt(to), copy=copy)
        assert r.dtype is dt(to) and r.device == d.device
        if frm == to and not copy:
            assert r is d
        else:
            assert r is not d and r.base is None and r.ptr != d.ptr
        assert_values(r, expected)
    assert_values(devarray.astype(d[::-1, ::3], to), expected_view)
    assert_values(d, a)  # the input is untouched


def test_astype_device_same_place(backend, rng):
    d = devarray.asarray(random_array(rng, (5,), "float32"))
    assert devarray.astype(d, "float32", copy=False, device=d.device) is d
    assert devarray.astype(d, "float32", copy=False, device=backend) is d
    r = devarray.astype(d, "float32", device=d.device)
    assert r is not d and r.device == d.device


@pytest.mark.parametrize("to_backend", ["host", "cuda"])
@pytest.mark.parametrize("pair", [("float32", "float32"), ("int16", "float64"),
                                  ("complex64", "complex128"), ("uint8", "bool")])
def test_astype_moves_between_backends(gpu, rng, pair, to_backend):
    frm, to = pair
    a = random_array(rng, (3, 5), frm)
    source = "cuda" if to_backend == "host" else "host"
    devarray.set_backend(source)
    d = devarray.asarray(a)[:, ::2]
    devarray.set_backend("cuda")
    r = devarray.astype(d, to, copy=False, device=to_backend)
    assert r.device == devarray.Device(to_backend) and r.dtype is dt(to)
    assert_values(r, a[:, ::2].astype(to))
    assert_values(d, a[:, ::2])
    assert host(r).shape == (3, 3)
