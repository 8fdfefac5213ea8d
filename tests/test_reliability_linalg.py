"""Reliability of matmul / @, matrix_transpose, tensordot and vecdot: wrong
types, too few dimensions, mismatched core and batch shapes, bad axes,
read-only and ill-shaped in-place targets each raise a clear Python
exception (NumPy's type where NumPy raises), leave every argument as it
was, and devarray keeps working after them."""

import numpy as np
import pytest

import devarray
from _helpers import (
    Evil, EvilIndex, assert_values, np_or_exception, random_array, snapshot,
)


def _arrays(rng):
    return {
        "m23": random_array(rng, (2, 3), "float32"),
        "m34": random_array(rng, (3, 4), "float32"),
        "m43": random_array(rng, (4, 3), "float32"),
        "v3": random_array(rng, (3,), "float32"),
        "v4": random_array(rng, (4,), "float32"),
        "s": random_array(rng, (), "float32"),
        "b234": random_array(rng, (2, 3, 4), "int32"),
        "b345": random_array(rng, (3, 4, 5), "int32"),
        "e0": random_array(rng, (0,), "float32"),
    }


# (name, function of the operands, operand names): each compared with NumPy
NUMPY_CASES = [
    ("matmul-0d-left", lambda a, b: devarray_or_np(a).matmul(a, b), ("s", "m23")),
    ("matmul-0d-right", lambda a, b: devarray_or_np(a).matmul(a, b), ("m23", "s")),
    ("matmul-k", lambda a, b: devarray_or_np(a).matmul(a, b), ("m23", "m43")),
    ("matmul-vv", lambda a, b: devarray_or_np(a).matmul(a, b), ("v3", "v4")),
    ("matmul-mv", lambda a, b: devarray_or_np(a).matmul(a, b), ("m23", "v4")),
    ("matmul-vm", lambda a, b: devarray_or_np(a).matmul(a, b), ("v4", "m34")),
    ("matmul-batch", lambda a, b: devarray_or_np(a).matmul(a, b), ("b234", "b345")),
    ("op-batch", lambda a, b: a @ b, ("b234", "b345")),
    ("op-k", lambda a, b: a @ b, ("m34", "m34")),
    ("op-0d", lambda a, b: a @ b, ("s", "v3")),
    ("transpose-1d", lambda a: devarray_or_np(a).matrix_transpose(a), ("v3",)),
    ("transpose-0d", lambda a: devarray_or_np(a).matrix_transpose(a), ("s",)),
    ("tensordot-mismatch", lambda a, b: devarray_or_np(a).tensordot(a, b, axes=1),
     ("m23", "m43")),
    ("tensordot-pair-mismatch",
     lambda a, b: devarray_or_np(a).tensordot(a, b, axes=([1], [1])), ("m23", "m34")),
    ("tensordot-axis-range",
     lambda a, b: devarray_or_np(a).tensordot(a, b, axes=([5], [0])), ("m23", "m34")),
    ("tensordot-length",
     lambda a, b: devarray_or_np(a).tensordot(a, b, axes=([0, 1], [0])), ("m23", "m34")),
    ("vecdot-mismatch", lambda a, b: devarray_or_np(a).vecdot(a, b), ("m23", "m34")),
    ("vecdot-axis-range", lambda a, b: devarray_or_np(a).vecdot(a, b, axis=2),
     ("m23", "m23")),
    ("vecdot-axis-range-neg", lambda a, b: devarray_or_np(a).vecdot(a, b, axis=-3),
     ("m23", "m23")),
    ("vecdot-empty-mismatch", lambda a, b: devarray_or_np(a).vecdot(a, b), ("e0", "v3")),
]


def devarray_or_np(a):
    return devarray if isinstance(a, devarray.DeviceArray) else np


@pytest.mark.parametrize("name, fn, names", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_errors_like_numpy(backend, rng, name, fn, names):
    arrays = _arrays(rng)
    np_args = [arrays[n] for n in names]
    da_args = [devarray.asarray(a) for a in np_args]
    expected, exc = np_or_exception(fn, *np_args)
    assert exc is not None, f"{name}: NumPy accepts it; the case is wrong"
    before = snapshot(da_args)
    with pytest.raises(exc):
        fn(*da_args)
    assert snapshot(da_args) == before


def _own_cases(d23, d34, d33, ro):
    """(name, call, expected exception): refusals where NumPy has no exact
    counterpart or accepts something the standard does not."""
    return [
        ("matmul-list", lambda: devarray.matmul([[1.0]], d34), TypeError),
        ("matmul-ndarray", lambda: devarray.matmul(d23, np.ones((3, 4))), TypeError),
        ("matmul-arity", lambda: devarray.matmul(d23), TypeError),
        ("matmul-kw", lambda: devarray.matmul(x1=d23, x2=d34), TypeError),
        ("op-str", lambda: d23 @ "a", TypeError),
        ("op-none", lambda: d23 @ None, TypeError),
        ("op-int", lambda: d23 @ 2, ValueError),
        ("rop-float", lambda: 2.0 @ d23, ValueError),
        ("imatmul-shape", lambda: d23.__imatmul__(d34), ValueError),
        ("imatmul-readonly", lambda: ro.__imatmul__(d33), ValueError),
        ("transpose-type", lambda: devarray.matrix_transpose([[1]]), TypeError),
        ("tensordot-type", lambda: devarray.tensordot(d23, 1.0), TypeError),
        ("tensordot-negative", lambda: devarray.tensordot(d23, d34, axes=-1), ValueError),
        ("tensordot-too-many", lambda: devarray.tensordot(d23, d34, axes=3), ValueError),
        ("tensordot-axes-type", lambda: devarray.tensordot(d23, d34, axes="x"), TypeError),
        ("tensordot-axes-float", lambda: devarray.tensordot(d23, d34, axes=1.0), TypeError),
        ("tensordot-axes-triple",
         lambda: devarray.tensordot(d23, d34, axes=([1], [0], [0])), ValueError),
        ("tensordot-axes-repeated",
         lambda: devarray.tensordot(d23, d34, axes=([1, 1], [0, 0])), ValueError),
        ("tensordot-axes-side-type",
         lambda: devarray.tensordot(d23, d34, axes=([1], "0")), TypeError),
        ("tensordot-evil-index",
         lambda: devarray.tensordot(d23, d34, axes=EvilIndex()), Evil),
        ("tensordot-positional-axes", lambda: devarray.tensordot(d23, d34, 1), TypeError),
        ("tensordot-default-1d",
         lambda: devarray.tensordot(devarray.ones((3,)), devarray.ones((3,))), ValueError),
        ("vecdot-type", lambda: devarray.vecdot(d23, [1, 2, 3]), TypeError),
        ("vecdot-0d", lambda: devarray.vecdot(devarray.asarray(1.0), d23), ValueError),
        ("vecdot-axis-type", lambda: devarray.vecdot(d23, d23, axis=1.5), TypeError),
        ("vecdot-evil-axis", lambda: devarray.vecdot(d23, d23, axis=EvilIndex()), Evil),
        ("vecdot-broadcast-axis",
         lambda: devarray.vecdot(d23, devarray.ones((2, 1))), ValueError),
        ("vecdot-batch", lambda: devarray.vecdot(devarray.ones((2, 3)),
                                                 devarray.ones((4, 3))), ValueError),
    ]


def test_own_refusals(backend, rng):
    d23 = devarray.asarray(random_array(rng, (2, 3), "float32"))
    d34 = devarray.asarray(random_array(rng, (3, 4), "float32"))
    d33 = devarray.asarray(random_array(rng, (3, 3), "float32"))
    ro = devarray._core._readonly_view(devarray.asarray(random_array(rng, (3, 3), "float32")))
    for name, call, exc in _own_cases(d23, d34, d33, ro):
        before = snapshot([d23, d34, d33, ro])
        with pytest.raises(exc):
            call()
        assert snapshot([d23, d34, d33, ro]) == before, name
    # still working
    a = random_array(rng, (3, 3), "float64")
    assert_values(devarray.asarray(a) @ devarray.asarray(a), a @ a, rtol=1e-12)


def test_imatmul_casting(backend, rng):
    """a @= b refuses a product it cannot store under same_kind (float into
    int), as NumPy's TypeError, and leaves a as it was."""
    a = random_array(rng, (3, 3), "int32")
    b = random_array(rng, (3, 3), "float32")
    da, db = devarray.asarray(a), devarray.asarray(b)
    _, exc = np_or_exception(lambda x, y: x.__imatmul__(y), a.copy(), b)
    assert exc is TypeError
    before = snapshot([da, db])
    with pytest.raises(TypeError):
        da @= db
    assert snapshot([da, db]) == before


def test_imatmul_non_array(backend):
    """a @= 'x' gives NotImplemented, so Python raises TypeError."""
    d = devarray.ones((2, 2))
    with pytest.raises(TypeError):
        d @= "x"


def test_different_backends(gpu, rng):
    a = random_array(rng, (3, 3), "float32")
    on_gpu = devarray.asarray(a)
    devarray.set_backend("host")
    try:
        on_host = devarray.asarray(a)
    finally:
        devarray.set_backend(gpu)
    calls = [lambda: on_gpu @ on_host, lambda: devarray.matmul(on_host, on_gpu),
             lambda: devarray.tensordot(on_gpu, on_host, axes=1),
             lambda: devarray.vecdot(on_gpu, on_host)]
    for call in calls:
        before = snapshot([on_gpu, on_host])
        with pytest.raises(ValueError, match="backends"):
            call()
        assert snapshot([on_gpu, on_host]) == before


def test_too_many_dims(backend):
    """Batch dimensions up to the 32-axis limit work; tensordot's result
    past it raises ValueError."""
    a = devarray.ones((1,) * 30 + (2, 3))
    b = devarray.ones((3, 2))
    assert (a @ b).shape == (1,) * 30 + (2, 2)
    x = devarray.ones((1,) * 20)
    with pytest.raises(ValueError, match="dimensions"):
        devarray.tensordot(x, x, axes=0)
    assert devarray.tensordot(x, x, axes=4).shape == (1,) * 32
