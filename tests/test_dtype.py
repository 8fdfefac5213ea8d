"""devarray's dtypes: the DType singletons, dtype-like conversion, buffer
formats, and promotion/casting tables checked against NumPy."""

import copy
import os
import pickle
import struct
import subprocess
import sys

import pytest

import devarray
from devarray import _core

NAMES = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
    "uint64", "float16", "float32", "float64", "complex64", "complex128",
]

# name: (kind, itemsize, typestr, char), as NumPy 2 on 64-bit Linux
EXPECTED = {
    "bool": ("b", 1, "|b1", "?"),
    "int8": ("i", 1, "|i1", "b"),
    "uint8": ("u", 1, "|u1", "B"),
    "int16": ("i", 2, "<i2", "h"),
    "uint16": ("u", 2, "<u2", "H"),
    "int32": ("i", 4, "<i4", "i"),
    "uint32": ("u", 4, "<u4", "I"),
    "int64": ("i", 8, "<i8", "l"),
    "uint64": ("u", 8, "<u8", "L"),
    "float16": ("f", 2, "<f2", "e"),
    "float32": ("f", 4, "<f4", "f"),
    "float64": ("f", 8, "<f8", "d"),
    "complex64": ("c", 8, "<c8", "F"),
    "complex128": ("c", 16, "<c16", "D"),
}

# Every string spelling we accept, and the dtype it names.
ALIASES = {
    "bool": ["bool", "bool_", "?", "b1"],
    "int8": ["int8", "i1", "byte", "b"],
    "uint8": ["uint8", "u1", "ubyte", "B"],
    "int16": ["int16", "i2", "short", "h"],
    "uint16": ["uint16", "u2", "ushort", "H"],
    "int32": ["int32", "i4", "intc", "i"],
    "uint32": ["uint32", "u4", "uintc", "I"],
    "int64": ["int64", "i8", "int", "int_", "long", "longlong", "intp", "l",
              "q", "p"],
    "uint64": ["uint64", "u8", "uint", "ulong", "ulonglong", "uintp", "L",
               "Q", "P"],
    "float16": ["float16", "f2", "half", "e"],
    "float32": ["float32", "f4", "single", "f"],
    "float64": ["float64", "f8", "double", "float", "d"],
    "complex64": ["complex64", "c8", "csingle", "F"],
    "complex128": ["complex128", "c16", "cdouble", "complex", "D"],
}
ALIAS_PAIRS = [(a, n) for n, aliases in ALIASES.items() for a in aliases]

# The type codes that may follow a byte-order character.
CODES = [a for a, _ in ALIAS_PAIRS
         if len(a) == 1 or (a[0] in "biufc" and a[1:].isdigit())]

WEAK_SCALARS = {"b": True, "i": 1, "f": 1.0, "c": 1j}

LP64 = struct.calcsize("l") == 8


def dt(name):
    return getattr(devarray, name)


@pytest.fixture
def np():
    return pytest.importorskip("numpy")


# ---- the singletons ---------------------------------------------------------


def test_singletons_are_distinct_dtype_objects():
    objs = [dt(n) for n in NAMES]
    assert len({id(o) for o in objs}) == len(NAMES)
    for num, (name, obj) in enumerate(zip(NAMES, objs)):
        assert type(obj) is devarray.DType
        assert getattr(_core, name) is obj
        assert obj.num == num


@pytest.mark.parametrize("name", NAMES)
def test_attributes(name):
    kind, itemsize, typestr, char = EXPECTED[name]
    obj = dt(name)
    assert obj.name == name
    assert obj.kind == kind
    assert obj.itemsize == itemsize
    assert obj.str == typestr
    if name in ("int64", "uint64") and not LP64:
        char = char.replace("l", "q").replace("L", "Q")
    assert obj.char == char


@pytest.mark.parametrize("name", NAMES)
def test_attributes_match_numpy(np, name):
    obj, ref = dt(name), np.dtype(name)
    assert (obj.name, obj.kind, obj.itemsize, obj.str, obj.char) == (
        ref.name, ref.kind, ref.itemsize, ref.str, ref.char)


@pytest.mark.parametrize(
    "attr", ["name", "itemsize", "kind", "str", "char", "num", "dtype"])
def test_attributes_are_read_only(attr):
    with pytest.raises(AttributeError):
        setattr(devarray.float32, attr, "x")
    with pytest.raises(AttributeError):
        devarray.float32.no_such_attribute = 1


@pytest.mark.parametrize("name", NAMES)
def test_repr_and_str(name):
    assert repr(dt(name)) == f"dtype('{name}')"
    assert str(dt(name)) == name


@pytest.mark.parametrize("name", NAMES)
def test_numpy_accepts_dtype(np, name):
    assert np.dtype(dt(name)) == np.dtype(name)
    assert dt(name).dtype == np.dtype(name)
    assert np.zeros(2, dtype=dt(name)).dtype == np.dtype(name)
    # numpy.dtype compares with anything numpy.dtype() accepts
    assert np.dtype(name) == dt(name)


def test_type_is_final():
    with pytest.raises(TypeError):
        class Sub(devarray.DType):
            pass


def test_type_attributes_are_immutable():
    with pytest.raises(TypeError):
        devarray.DType.name = "x"


@pytest.mark.parametrize("name", NAMES)
def test_pickle_and_copy_keep_the_singleton(name):
    obj = dt(name)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(obj, protocol)) is obj
    assert copy.copy(obj) is obj
    assert copy.deepcopy(obj) is obj


# ---- equality and hashing ---------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_equality_with_dtypes(name):
    for other in NAMES:
        assert (dt(name) == dt(other)) is (name == other)
        assert (dt(name) != dt(other)) is (name != other)


@pytest.mark.parametrize("alias,name", ALIAS_PAIRS)
def test_equality_with_strings(alias, name):
    assert dt(name) == alias
    assert alias == dt(name)
    assert not (dt(name) != alias)
    for other in NAMES:
        if other != name:
            assert dt(other) != alias
            assert not (dt(other) == alias)


def test_equality_with_python_types():
    assert devarray.bool == bool
    assert devarray.int64 == int
    assert devarray.float64 == float
    assert devarray.complex128 == complex
    assert devarray.int32 != int
    assert devarray.float32 != float


@pytest.mark.parametrize("name", NAMES)
def test_equality_with_numpy(np, name):
    assert dt(name) == np.dtype(name)
    assert dt(name) == getattr(np, name if name != "bool" else "bool_")
    other = "float64" if name != "float64" else "float32"
    assert dt(name) != np.dtype(other)
    assert not (dt(name) == np.dtype(other))


@pytest.mark.parametrize(
    "other", ["float", "not a dtype", "", ">f4", None, 3, 4.0, object(), list,
              [1, 2], ("f4",)])
def test_equality_with_non_dtypes(other):
    if other == "float":  # a valid alias of float64, not of float32
        assert devarray.float32 != other
        return
    assert not (devarray.float32 == other)
    assert devarray.float32 != other


@pytest.mark.parametrize("op", ["__lt__", "__le__", "__gt__", "__ge__"])
def test_no_ordering(op):
    assert getattr(devarray.float32, op)(devarray.float64) is NotImplemented
    with pytest.raises(TypeError):
        devarray.float32 < devarray.float64


@pytest.mark.parametrize("name", NAMES)
def test_hash_is_hash_of_name(name):
    assert hash(dt(name)) == hash(name)
    assert {name: 1}[dt(name)] == 1
    assert {dt(name): 1}[name] == 1
    assert len({dt(n) for n in NAMES}) == len(NAMES)


# ---- conversion of dtype-likes ----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_dtype_call_returns_singleton(name):
    obj = dt(name)
    assert devarray.DType(obj) is obj
    assert devarray.DType(name) is obj
    assert devarray.DType(dtype=name) is obj
    assert devarray.DType(obj.str) is obj


def test_dtype_call_arguments():
    with pytest.raises(TypeError):
        devarray.DType()
    with pytest.raises(TypeError):
        devarray.DType("f4", "f8")
    with pytest.raises(TypeError):
        devarray.DType(kind="f")


@pytest.mark.parametrize("alias,name", ALIAS_PAIRS)
def test_aliases(alias, name):
    if alias in ("l", "long") and not LP64:
        name = "int32"
    if alias in ("L", "ulong") and not LP64:
        name = "uint32"
    assert devarray.DType(alias) is dt(name)


@pytest.mark.parametrize("alias,name", ALIAS_PAIRS)
def test_aliases_match_numpy(np, alias, name):
    assert devarray.DType(alias).name == np.dtype(alias).name


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("prefix", ["<", "=", "|"])
def test_typestr_prefixes(code, prefix):
    assert devarray.DType(prefix + code) is devarray.DType(code)


@pytest.mark.parametrize("code", CODES)
def test_big_endian(code):
    obj = devarray.DType(code)
    if obj.itemsize == 1:
        # one byte has no byte order; NumPy accepts these as well
        assert devarray.DType(">" + code) is obj
        return
    with pytest.raises(TypeError, match="big-endian") as info:
        devarray.DType(">" + code)
    assert repr(">" + code) in str(info.value)


@pytest.mark.parametrize("code", CODES)
def test_typestr_prefixes_match_numpy(np, code):
    for prefix in "<=|>":
        typestr = prefix + code
        if prefix == ">" and np.dtype(typestr).itemsize > 1:
            continue
        assert devarray.DType(typestr).name == np.dtype(typestr).name


def test_python_types():
    assert devarray.DType(bool) is devarray.bool
    assert devarray.DType(int) is devarray.int64
    assert devarray.DType(float) is devarray.float64
    assert devarray.DType(complex) is devarray.complex128


NUMPY_TYPES = [
    ("bool_", "bool"), ("int8", "int8"), ("uint8", "uint8"),
    ("int16", "int16"), ("uint16", "uint16"), ("int32", "int32"),
    ("uint32", "uint32"), ("int64", "int64"), ("uint64", "uint64"),
    ("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
    ("complex64", "complex64"), ("complex128", "complex128"),
    ("byte", "int8"), ("ubyte", "uint8"), ("short", "int16"),
    ("ushort", "uint16"), ("intc", "int32"), ("uintc", "uint32"),
    ("longlong", "int64"), ("ulonglong", "uint64"), ("intp", "int64"),
    ("uintp", "uint64"), ("int_", "int64"), ("uint", "uint64"),
    ("half", "float16"), ("single", "float32"), ("double", "float64"),
    ("csingle", "complex64"), ("cdouble", "complex128"),
]


@pytest.mark.parametrize("attr,name", NUMPY_TYPES)
def test_numpy_scalar_types(np, attr, name):
    assert devarray.DType(getattr(np, attr)) is dt(name)


@pytest.mark.parametrize("name", NAMES)
def test_numpy_dtypes(np, name):
    assert devarray.DType(np.dtype(name)) is dt(name)
    assert devarray.DType(np.dtype(name).newbyteorder("=")) is dt(name)
    assert devarray.DType(np.empty(0, name).dtype) is dt(name)


def test_numpy_big_endian_dtype(np):
    with pytest.raises(TypeError, match="big-endian"):
        devarray.DType(np.dtype(">f8"))
    assert devarray.DType(np.dtype(">i1")) is devarray.int8


def test_dtype_like_objects():
    class DescrLike:
        str = "<f8"
        kind = "f"

    assert devarray.DType(DescrLike()) is devarray.float64

    class NotStrings:
        str = 4
        kind = "f"

    with pytest.raises(TypeError, match="not understood"):
        devarray.DType(NotStrings())


def test_attribute_errors_propagate():
    class Broken:
        @property
        def kind(self):
            raise ZeroDivisionError("boom")

    with pytest.raises(ZeroDivisionError):
        devarray.DType(Broken())
    with pytest.raises(ZeroDivisionError):
        devarray.float32 == Broken()


BAD_DTYPES = [
    "", " f4", "f4 ", "f4\x00", "\x00f4", "float_", "Float32", "f3", "i16",
    "c32", "f16", "U5", "S1", "O", "V8", "M8", "<float32", "=int", "|bool",
    "!f4", "@f4", "<", "bool8", "\udcff", 3, 4.5, None, object(), list, dict,
    type, [], ("f4", 2), b"f4",
]


@pytest.mark.parametrize("bad", BAD_DTYPES)
def test_bad_dtypes(bad):
    with pytest.raises(TypeError, match="not understood") as info:
        devarray.DType(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    "attr", ["str_", "bytes_", "object_", "void", "longdouble",
             "clongdouble", "datetime64", "timedelta64", "generic", "number",
             "floating"])
def test_bad_numpy_types(np, attr):
    with pytest.raises(TypeError, match="not understood"):
        devarray.DType(getattr(np, attr))


@pytest.mark.parametrize("spec", ["U5", "S3", "O", "V8", "M8[ns]", "f4,i4",
                                  "g"])
def test_bad_numpy_dtypes(np, spec):
    with pytest.raises(TypeError, match="not understood") as info:
        devarray.DType(np.dtype(spec))
    assert repr(np.dtype(spec)) in str(info.value)


def test_conversions_do_not_import_numpy():
    # Only the .dtype attribute may import NumPy; converting a type that
    # merely claims to come from NumPy must not, nor must importing devarray.
    code = """if True:
        import sys
        import devarray

        class Fake:
            pass

        Fake.__module__ = "numpy"
        assert "numpy" not in sys.modules
        for obj in (Fake, Fake(), "float32", "<f4", float, devarray.int8):
            try:
                devarray.DType(obj)
            except TypeError:
                pass
            devarray.float32 == obj
        assert "numpy" not in sys.modules
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# ---- buffer formats ---------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_format_of_exported_dtype(name):
    obj = dt(name)
    fmt = {"complex64": "Zf", "complex128": "Zd"}.get(name, obj.char)
    assert _core._dtype_from_format(fmt, obj.itemsize) is obj
    for prefix in "@=<":
        if fmt in "lL" and prefix != "@":
            continue  # standard 'l' is 4 bytes
        assert _core._dtype_from_format(prefix + fmt, obj.itemsize) is obj


@pytest.mark.parametrize("name", NAMES)
def test_format_of_numpy_buffers(np, name):
    view = memoryview(np.zeros(3, name))
    assert _core._dtype_from_format(view.format, view.itemsize) is dt(name)


NATIVE_CODES = "?cbBhHiIlLqQnNefd"


@pytest.mark.parametrize("code", NATIVE_CODES)
def test_native_formats(code):
    size = struct.calcsize(code)
    got = _core._dtype_from_format(code, size)
    assert got.itemsize == size
    kind = {"?": "b", "c": "u", "e": "f", "f": "f", "d": "f"}.get(
        code, "u" if code.isupper() else "i")
    assert got.kind == kind
    # memoryview.cast accepts these ('e' only since Python 3.12); the
    # format and itemsize it reports must give the same dtype
    if code == "e" and sys.version_info < (3, 12):
        return
    view = memoryview(bytes(2 * size)).cast(code)
    assert _core._dtype_from_format(view.format, view.itemsize) is got


@pytest.mark.parametrize("code", [c for c in NATIVE_CODES if c not in "nN"])
@pytest.mark.parametrize("prefix", "=<")
def test_standard_formats(code, prefix):
    size = struct.calcsize(prefix + code)
    got = _core._dtype_from_format(prefix + code, size)
    assert got.itemsize == size


@pytest.mark.parametrize("code", "?cbB")
@pytest.mark.parametrize("prefix", ">!")
def test_one_byte_formats_have_no_byte_order(code, prefix):
    assert (_core._dtype_from_format(prefix + code, 1)
            is _core._dtype_from_format(code, 1))


def test_format_special_cases():
    assert _core._dtype_from_format(None, 1) is devarray.uint8
    assert _core._dtype_from_format("c", 1) is devarray.uint8
    assert _core._dtype_from_format("?", 1) is devarray.bool
    assert _core._dtype_from_format("e", 2) is devarray.float16
    assert _core._dtype_from_format("Zf", 8) is devarray.complex64
    assert _core._dtype_from_format("<Zd", 16) is devarray.complex128
    assert _core._dtype_from_format("q", 8) is devarray.int64
    assert _core._dtype_from_format("<l", 4) is devarray.int32
    assert _core._dtype_from_format("=L", 4) is devarray.uint32
    assert _core._dtype_from_format("Q", 8) is devarray.uint64


@pytest.mark.parametrize(
    "fmt,itemsize", [(">f", 4), (">d", 8), ("!h", 2), ("!Zd", 16),
                     (">q", 8), (">e", 2)])
def test_big_endian_formats(fmt, itemsize):
    with pytest.raises(TypeError, match="big-endian") as info:
        _core._dtype_from_format(fmt, itemsize)
    assert repr(fmt) in str(info.value)


@pytest.mark.parametrize(
    "fmt,itemsize", [
        ("T{<i:a:}", 4), ("P", 8), ("x", 1), ("s", 1), ("3s", 3), ("p", 1),
        ("u", 2), ("w", 4), ("g", 16), ("Zg", 32), ("2f", 8), ("1f", 4),
        ("ff", 8), ("f ", 4), ("", 1), ("<", 1), ("<n", 8), ("=N", 8),
        ("O", 8), ("Z", 8), ("Zh", 4), ("@@f", 4),
    ])
def test_unsupported_formats(fmt, itemsize):
    with pytest.raises(TypeError, match="unsupported buffer format") as info:
        _core._dtype_from_format(fmt, itemsize)
    assert repr(fmt) in str(info.value)


@pytest.mark.parametrize(
    "fmt,itemsize", [("f", 8), ("d", 4), ("B", 2), ("Zf", 16), ("<l", 8),
                     ("=q", 4), (None, 4), ("e", 4)])
def test_format_itemsize_mismatch(fmt, itemsize):
    with pytest.raises(TypeError, match="itemsize") as info:
        _core._dtype_from_format(fmt, itemsize)
    assert repr(fmt or "B") in str(info.value)


# ---- promotion and casting --------------------------------------------------


@pytest.mark.parametrize("a", NAMES)
def test_result_type_matches_numpy(np, a):
    for b in NAMES:
        expected = np.result_type(a, b).name
        assert _core._result_type(a, b) is dt(expected), (a, b)


@pytest.mark.parametrize("a", NAMES)
def test_result_type_is_symmetric(a):
    for b in NAMES:
        assert _core._result_type(a, b) is _core._result_type(b, a)
    assert _core._result_type(a, a) is dt(a)


def test_result_type_spot_checks():
    r = _core._result_type
    assert r(devarray.int8, devarray.uint8) is devarray.int16
    assert r("int64", "uint64") is devarray.float64
    assert r("int16", "float16") is devarray.float32
    assert r("int32", "complex64") is devarray.complex128
    assert r(bool, "uint32") is devarray.uint32


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("kind", "bifc")
def test_result_type_weak_matches_numpy(np, a, kind):
    expected = np.result_type(np.empty(0, a), WEAK_SCALARS[kind]).name
    assert _core._result_type_weak(a, kind) is dt(expected)


def test_result_type_weak_rules():
    # a scalar of a kind no higher than the array's (b < i = u < f < c)
    # keeps the array's dtype
    rank = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
    w = _core._result_type_weak
    for name in NAMES:
        for scalar in "bifc":
            if rank[scalar] <= rank[dt(name).kind]:
                assert w(name, scalar) is dt(name)
    assert w("bool", "i") is devarray.int64
    assert w("uint8", "f") is devarray.float64
    assert w("int64", "c") is devarray.complex128
    assert w("float16", "c") is devarray.complex64
    assert w("float32", "c") is devarray.complex64
    assert w("float64", "c") is devarray.complex128


@pytest.mark.parametrize("kind", ["u", "x", "", "ff", 1, None])
def test_result_type_weak_bad_kind(kind):
    with pytest.raises((TypeError, ValueError)):
        _core._result_type_weak("float32", kind)


@pytest.mark.parametrize("a", NAMES)
def test_can_cast_same_kind_matches_numpy(np, a):
    for b in NAMES:
        expected = bool(np.can_cast(a, b, "same_kind"))
        assert _core._can_cast_same_kind(a, b) is expected, (a, b)


def test_can_cast_same_kind_spot_checks():
    c = _core._can_cast_same_kind
    assert c("float64", "float16") is True
    assert c("float32", "int64") is False
    assert c("int8", "uint8") is False
    assert c("uint8", "int8") is True
    assert c("complex128", "float64") is False
    assert c("bool", "complex64") is True


def test_private_functions_reject_bad_dtypes():
    with pytest.raises(TypeError, match="not understood"):
        _core._result_type("float32", "nope")
    with pytest.raises(TypeError, match="not understood"):
        _core._can_cast_same_kind(None, "f4")
    with pytest.raises(TypeError, match="not understood"):
        _core._result_type_weak("x", "f")
