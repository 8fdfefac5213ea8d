"""Reliability of the array API's namespace names (Device, device=
arguments, __array_namespace_info__, astype, can_cast, finfo, iinfo,
isdtype, result_type): bad kinds, bad dtypes and bad devices each raise a
clear exception (the type and a word of the message are checked), leave
their arguments as they were, and leave devarray working; exceptions raised
by the arguments themselves come through unchanged."""

import numpy as np
import pytest

import devarray
from devarray import _core

from _helpers import Evil, EvilBool, EvilIndex, assert_values, random_array


class EvilDescr:
    """Looks like a numpy.dtype until its attributes are read."""

    @property
    def kind(self):
        raise Evil("kind")

    @property
    def str(self):
        raise Evil("str")


D = devarray.Device
F32 = devarray.float32
INFO = devarray.__array_namespace_info__()

NO_CUDA = not _core._cuda_available()

# (id, call(x, c) with x a float32 array and c a complex64 one, exception, word)
CASES = [
    # Device(type, id=None)
    ("Device()", lambda x, c: D(), TypeError, "type"),
    ("Device(None)", lambda x, c: D(None), TypeError, "NoneType"),
    ("Device(3.0)", lambda x, c: D(3.0), TypeError, "float"),
    ("Device(True)", lambda x, c: D(True), TypeError, "bool"),
    ("Device(-1)", lambda x, c: D(-1), ValueError, "non-negative"),
    ("Device(bytes)", lambda x, c: D(b"cuda"), TypeError, "bytes"),
    ("Device(list)", lambda x, c: D(["cuda", 0]), TypeError, "list"),
    ("Device('gpu')", lambda x, c: D("gpu"), ValueError, "unknown device 'gpu'"),
    ("Device('')", lambda x, c: D(""), ValueError, "unknown device"),
    ("Device('CUDA')", lambda x, c: D("CUDA"), ValueError, "unknown device"),
    ("Device('cuda:')", lambda x, c: D("cuda:"), ValueError, "unknown device"),
    ("Device('cuda:x')", lambda x, c: D("cuda:x"), ValueError, "unknown device"),
    ("Device('cuda:-1')", lambda x, c: D("cuda:-1"), ValueError, "unknown device"),
    ("Device('cuda:0:1')", lambda x, c: D("cuda:0:1"), ValueError, "unknown device"),
    ("Device('cuda: 1')", lambda x, c: D("cuda: 1"), ValueError, "unknown device"),
    ("Device('cuda:huge')", lambda x, c: D("cuda:12345678901"), ValueError,
     "unknown device"),
    ("Device(surrogate)", lambda x, c: D("\ud800"), ValueError, "unknown device"),
    ("Device('cuda', -1)", lambda x, c: D("cuda", -1), ValueError, "non-negative"),
    ("Device('cuda', 2**70)", lambda x, c: D("cuda", 2**70), ValueError,
     "non-negative"),
    ("Device('cuda', 2**31)", lambda x, c: D("cuda", 2**31), ValueError,
     "non-negative"),
    ("Device('cuda', 1.0)", lambda x, c: D("cuda", 1.0), TypeError, "float"),
    ("Device('cuda', '0')", lambda x, c: D("cuda", "0"), TypeError, "str"),
    ("Device('cuda', True)", lambda x, c: D("cuda", True), TypeError, "bool"),
    ("Device('host', 1)", lambda x, c: D("host", 1), ValueError, "id 0"),
    ("Device('cpu', 2)", lambda x, c: D("cpu", 2), ValueError, "id 0"),
    ("Device('cuda:0', 0)", lambda x, c: D("cuda:0", 0), ValueError, "already"),
    ("Device(Device, 1)", lambda x, c: D(D("host"), 1), TypeError, "Device"),
    ("Device(3 args)", lambda x, c: D("cuda", 0, 1), TypeError, "argument"),
    ("Device(bad kw)", lambda x, c: D("cuda", ordinal=0), TypeError, "ordinal"),
    ("Device(EvilIndex)", lambda x, c: D("cuda", EvilIndex()), Evil, "__index__"),
    # device= arguments
    ("astype device='tpu'", lambda x, c: devarray.astype(x, F32, device="tpu"),
     ValueError, "unknown device 'tpu'"),
    ("astype device=-1", lambda x, c: devarray.astype(x, F32, device=-1), ValueError,
     "non-negative"),
    ("astype device=True", lambda x, c: devarray.astype(x, F32, device=True), TypeError,
     "bool"),
    ("astype device=dtype", lambda x, c: devarray.astype(x, F32, device=F32),
     TypeError, "DType"),
    ("astype device='host:1'", lambda x, c: devarray.astype(x, F32, device="host:1"),
     ValueError, "id 0"),
    ("astype device=cuda:999",
     lambda x, c: devarray.astype(x, F32, device=D("cuda", 999)),
     RuntimeError if NO_CUDA else ValueError,
     "CUDA is not available" if NO_CUDA else "CUDA device 999"),
    ("astype device='cuda:64'", lambda x, c: devarray.astype(x, F32, device="cuda:64"),
     RuntimeError if NO_CUDA else ValueError,
     "CUDA is not available" if NO_CUDA else "CUDA device 64"),
    ("default_dtypes device='tpu'", lambda x, c: INFO.default_dtypes(device="tpu"),
     ValueError, "unknown device"),
    ("default_dtypes positional", lambda x, c: INFO.default_dtypes("host"),
     TypeError, "positional"),
    ("dtypes device=-1", lambda x, c: INFO.dtypes(device=-1), ValueError,
     "non-negative"),
    ("dtypes device=EvilIndex", lambda x, c: INFO.dtypes(device=EvilIndex()),
     Evil, "__index__"),
    # __array_namespace_info__
    ("info(1)", lambda x, c: devarray.__array_namespace_info__(1), TypeError,
     "argument"),
    ("info(kw)", lambda x, c: devarray.__array_namespace_info__(a=1), TypeError,
     "argument"),
    ("capabilities(1)", lambda x, c: INFO.capabilities(1), TypeError, "argument"),
    ("devices(1)", lambda x, c: INFO.devices(1), TypeError, "argument"),
    ("default_device(1)", lambda x, c: INFO.default_device(1), TypeError, "argument"),
    ("dtypes kind='float'", lambda x, c: INFO.dtypes(kind="float"), ValueError,
     "unknown kind 'float'"),
    ("dtypes kind='float32'", lambda x, c: INFO.dtypes(kind="float32"), ValueError,
     "unknown kind"),
    ("dtypes kind=dtype", lambda x, c: INFO.dtypes(kind=F32), TypeError,
     "kind name"),
    ("dtypes kind=list", lambda x, c: INFO.dtypes(kind=["bool"]), TypeError, "list"),
    ("dtypes kind=(bool, 3)", lambda x, c: INFO.dtypes(kind=("bool", 3)), TypeError,
     "int"),
    ("dtypes kind nested", lambda x, c: INFO.dtypes(kind=(("bool",),)), TypeError,
     "tuple"),
    ("dtypes unknown kw", lambda x, c: INFO.dtypes(kinds="bool"), TypeError, "kinds"),
    # isdtype
    ("isdtype(str)", lambda x, c: devarray.isdtype("float32", "real floating"),
     TypeError, "devarray dtype"),
    ("isdtype(numpy dtype)",
     lambda x, c: devarray.isdtype(np.dtype("float32"), "real floating"),
     TypeError, "devarray dtype"),
    ("isdtype(array)", lambda x, c: devarray.isdtype(x, "real floating"), TypeError,
     "DeviceArray"),
    ("isdtype(float)", lambda x, c: devarray.isdtype(float, "real floating"),
     TypeError, "devarray dtype"),
    ("isdtype kind='float'", lambda x, c: devarray.isdtype(F32, "float"), ValueError,
     "unknown kind 'float'"),
    ("isdtype kind='Real Floating'", lambda x, c: devarray.isdtype(F32, "Real Floating"),
     ValueError, "unknown kind"),
    ("isdtype kind='float32'", lambda x, c: devarray.isdtype(F32, "float32"),
     ValueError, "unknown kind"),
    ("isdtype kind=None", lambda x, c: devarray.isdtype(F32, None), TypeError,
     "NoneType"),
    ("isdtype kind=1", lambda x, c: devarray.isdtype(F32, 1), TypeError, "int"),
    ("isdtype kind=list", lambda x, c: devarray.isdtype(F32, ["bool"]), TypeError,
     "list"),
    ("isdtype kind nested", lambda x, c: devarray.isdtype(F32, (("bool",),)),
     TypeError, "tuple"),
    ("isdtype kind=numpy type", lambda x, c: devarray.isdtype(F32, np.float32),
     TypeError, "type"),
    ("isdtype kind=(bool, 'x')", lambda x, c: devarray.isdtype(F32, ("bool", "x")),
     ValueError, "unknown kind 'x'"),
    ("isdtype kind=EvilDescr", lambda x, c: devarray.isdtype(F32, EvilDescr()),
     TypeError, "EvilDescr"),
    ("isdtype(1 arg)", lambda x, c: devarray.isdtype(F32), TypeError, "kind"),
    # can_cast
    ("can_cast(int scalar)", lambda x, c: devarray.can_cast(1, F32), TypeError,
     "Python int"),
    ("can_cast(to float scalar)", lambda x, c: devarray.can_cast(F32, 1.0),
     TypeError, "Python float"),
    ("can_cast(to bool scalar)", lambda x, c: devarray.can_cast(F32, True),
     TypeError, "Python bool"),
    ("can_cast(to array)", lambda x, c: devarray.can_cast(F32, x), TypeError,
     "x.dtype"),
    ("can_cast('bogus')", lambda x, c: devarray.can_cast("bogus", F32), TypeError,
     "not understood"),
    ("can_cast(None)", lambda x, c: devarray.can_cast(None, F32), TypeError, "None"),
    ("can_cast(to None)", lambda x, c: devarray.can_cast(x, None), TypeError, "None"),
    ("can_cast('>f8')", lambda x, c: devarray.can_cast(x, ">f8"), TypeError,
     "big-endian"),
    ("can_cast(1 arg)", lambda x, c: devarray.can_cast(F32), TypeError, "2"),
    ("can_cast(keywords)", lambda x, c: devarray.can_cast(from_=F32, to=F32),
     TypeError, "positional"),
    ("can_cast(EvilDescr)", lambda x, c: devarray.can_cast(EvilDescr(), F32), Evil,
     "kind|str"),
    # finfo and iinfo
    ("finfo(int8)", lambda x, c: devarray.finfo(devarray.int8), ValueError, "int8"),
    ("finfo(bool)", lambda x, c: devarray.finfo(devarray.bool), ValueError, "bool"),
    ("finfo(uint64 array)", lambda x, c: devarray.finfo(devarray.zeros(1, dtype="uint64")),
     ValueError, "uint64"),
    ("finfo(1.0)", lambda x, c: devarray.finfo(1.0), TypeError, "Python float"),
    ("finfo('bogus')", lambda x, c: devarray.finfo("bogus"), TypeError,
     "not understood"),
    ("finfo(None)", lambda x, c: devarray.finfo(None), TypeError, "None"),
    ("finfo()", lambda x, c: devarray.finfo(), TypeError, "one positional"),
    ("finfo(2 args)", lambda x, c: devarray.finfo(F32, F32), TypeError,
     "one positional"),
    ("finfo(type=)", lambda x, c: devarray.finfo(type=F32), TypeError,
     "one positional"),
    ("finfo(EvilDescr)", lambda x, c: devarray.finfo(EvilDescr()), Evil, "kind|str"),
    ("iinfo(float32)", lambda x, c: devarray.iinfo(F32), ValueError, "float32"),
    ("iinfo(bool)", lambda x, c: devarray.iinfo(devarray.bool), ValueError, "bool"),
    ("iinfo(complex array)", lambda x, c: devarray.iinfo(c), ValueError, "complex64"),
    ("iinfo(1)", lambda x, c: devarray.iinfo(1), TypeError, "Python int"),
    ("iinfo([1])", lambda x, c: devarray.iinfo([1]), TypeError, "not understood"),
    ("iinfo()", lambda x, c: devarray.iinfo(), TypeError, "one positional"),
    # result_type
    ("result_type()", lambda x, c: devarray.result_type(), ValueError,
     "at least one array or dtype"),
    ("result_type(1)", lambda x, c: devarray.result_type(1), ValueError,
     "at least one array or dtype"),
    ("result_type(scalars)", lambda x, c: devarray.result_type(1, 2.0, True, 1j),
     ValueError, "Python scalars"),
    ("result_type('bogus')", lambda x, c: devarray.result_type(F32, "bogus"),
     TypeError, "not understood"),
    ("result_type(None)", lambda x, c: devarray.result_type(x, None), TypeError,
     "NoneType"),
    ("result_type(object)", lambda x, c: devarray.result_type(x, object()),
     TypeError, "object"),
    ("result_type(list)", lambda x, c: devarray.result_type(F32, [1, 2]), TypeError,
     "list"),
    ("result_type(ndarray)", lambda x, c: devarray.result_type(F32, np.ones(2)),
     TypeError, "ndarray"),
    ("result_type(numpy scalar)", lambda x, c: devarray.result_type(F32, np.int8(1)),
     TypeError, "int8"),
    ("result_type(keyword)", lambda x, c: devarray.result_type(dtype=F32), TypeError,
     "keyword"),
    ("result_type(EvilDescr)", lambda x, c: devarray.result_type(F32, EvilDescr()),
     Evil, "kind|str"),
    # astype
    ("astype(ndarray)", lambda x, c: devarray.astype(np.ones(2), F32), TypeError,
     "DeviceArray"),
    ("astype(list)", lambda x, c: devarray.astype([1.0], F32), TypeError,
     "DeviceArray"),
    ("astype(x)", lambda x, c: devarray.astype(x), TypeError, "2"),
    ("astype(x, None)", lambda x, c: devarray.astype(x, None), TypeError, "None"),
    ("astype(x, 'bogus')", lambda x, c: devarray.astype(x, "bogus"), TypeError,
     "not understood"),
    ("astype(x, 1)", lambda x, c: devarray.astype(x, 1), TypeError, "1"),
    ("astype(copy positional)", lambda x, c: devarray.astype(x, F32, True),
     TypeError, "positional"),
    ("astype(dtype keyword)", lambda x, c: devarray.astype(x, dtype=F32),
     TypeError, "positional"),
    ("astype(complex to float)", lambda x, c: devarray.astype(c, devarray.float64),
     TypeError, "imag"),
    ("astype(complex to int)", lambda x, c: devarray.astype(c, devarray.int32),
     TypeError, "real"),
    ("astype(complex to float, copy=False)",
     lambda x, c: devarray.astype(c, devarray.float32, copy=False), TypeError,
     "complex64 to float32"),
    ("astype(copy=EvilBool)", lambda x, c: devarray.astype(x, F32, copy=EvilBool()),
     Evil, "__bool__"),
]


@pytest.mark.parametrize("call, exc, word", [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_bad_input(backend, rng, call, exc, word):
    a = random_array(rng, (3, 4), "float32")
    b = random_array(rng, (3, 4), "complex64")
    x, c = devarray.asarray(a), devarray.asarray(b)
    before = [(d.shape, d.strides, d.dtype, d.ptr, d.device) for d in (x, c)]
    with pytest.raises(exc, match=word):
        call(x, c)
    assert [(d.shape, d.strides, d.dtype, d.ptr, d.device) for d in (x, c)] == before
    assert_values(x, a)
    assert_values(c, b)
    # still working
    assert_values(devarray.astype(x, "float64"), a.astype("float64"))
    assert devarray.result_type(x, 1.0) is F32


@pytest.mark.skipif(not NO_CUDA, reason="the CUDA backend is available here")
@pytest.mark.parametrize("device", ["cuda", "cuda:0", D("cuda", 0)], ids=str)
def test_cuda_device_without_cuda(device):
    """A valid CUDA place in a process without CUDA: RuntimeError with the
    reason, from every device= argument; the Device itself can be made."""
    x = devarray.asarray(np.ones(3))
    for call in (lambda: devarray.astype(x, F32, device=device),
                 lambda: INFO.dtypes(device=device),
                 lambda: INFO.default_dtypes(device=device)):
        with pytest.raises(RuntimeError, match="CUDA is not available: .+"):
            call()
    assert D(device) == D("cuda", 0)


def test_kind_errors_name_the_kinds():
    with pytest.raises(ValueError) as info:
        devarray.isdtype(F32, "floating")
    for kind in ("'bool'", "'signed integer'", "'unsigned integer'", "'integral'",
                 "'real floating'", "'complex floating'", "'numeric'"):
        assert kind in str(info.value)
