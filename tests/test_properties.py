"""Property tests (Hypothesis): on random dtypes (all 14), shapes (0-d, empty,
up to 6-d), broadcast pairs, strided views (steps of either sign, new axes,
transposes) and buffer formats, devarray's + - * / (in place too), unary
operators and sum equal NumPy's, or raise the same builtin exception where
NumPy raises; transfers and list round trips are byte-exact.

Every test takes `backend`, so it runs on the host backend and on CUDA.
Integers and bools must match exactly, floats within a few units of their
dtype's epsilon (NaN equal to NaN), float sums within the error bound of a
sum.  Failing examples are printed with a reproduction blob; examples are
not saved (database=None) so the tests leave no files behind.  The examples
are the same on every run; DEVARRAY_HYPOTHESIS_EXPLORE=2000 draws that many
fresh ones per test.
"""

import array
import operator
import os

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import devarray  # noqa: E402
from _helpers import DTYPES, assert_values, check_like_numpy, np_or_exception  # noqa: E402

# Deterministic by default (the same examples on every run, so CI results do
# not flicker); DEVARRAY_HYPOTHESIS_EXPLORE=N draws N fresh random examples
# per test instead, to hunt for new failures.
_EXPLORE = int(os.environ.get("DEVARRAY_HYPOTHESIS_EXPLORE", "0") or 0)
PROPERTY_SETTINGS = settings(
    max_examples=_EXPLORE or 100,
    derandomize=not _EXPLORE,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}
INPLACE_OPS = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
}


# ---- strategies ----------------------------------------------------------------------

def elements(dtype, finite=False, bound=None):
    """Values of `dtype`: integers over their whole range; floats with NaN,
    infinities and subnormals unless `finite`; complex numbers always finite
    and moderate (their non-finite arithmetic is implementation-defined)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        return hnp.from_dtype(dt)
    if dt.kind == "f":
        if bound is None:
            return hnp.from_dtype(dt, allow_nan=not finite, allow_infinity=not finite)
        bounded = hnp.from_dtype(dt, min_value=-bound, max_value=bound)
        if finite:
            return bounded
        return st.one_of(bounded, st.sampled_from([np.nan, np.inf, -np.inf]))
    magnitude = bound if bound is not None else (1e15 if dt.itemsize == 16 else 1e6)
    return st.complex_numbers(max_magnitude=magnitude, allow_nan=False,
                              allow_infinity=False, width=dt.itemsize * 8)


def arrays(dtype, shape, **kwargs):
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype, **kwargs))


dtypes = st.sampled_from(DTYPES)
shapes = hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4)


@st.composite
def views(draw, dtype, shape=None, **kwargs):
    """(base, index, transpose): a random view of a random array, as the
    ingredients to make the same view of a NumPy array and a DeviceArray.
    The index mixes integers, slices with steps of either sign, newaxis and
    Ellipsis; the axes are then permuted."""
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=5))
    base = draw(arrays(dtype, shape, **kwargs))
    index = draw(hnp.basic_indices(shape, min_dims=0, max_dims=6, allow_newaxis=True,
                                   allow_ellipsis=True))
    ndim = base[index].ndim
    axes = draw(st.permutations(range(ndim))) if ndim > 1 else None
    return base, index, axes


def make_view(x, index, axes):
    """x[index] with its axes permuted.  NumPy gives a scalar, not a 0-d view,
    when integers consume every axis; an Ellipsis makes it a view, as
    devarray always gives."""
    v = x[index]
    if isinstance(x, np.ndarray) and not isinstance(v, np.ndarray):
        v = x[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
    return v.transpose(axes) if axes is not None else v


def python_scalars(kind_of_array):
    """Python scalars of every kind; non-finite floats only with real arrays."""
    finite = kind_of_array == "c"
    return st.one_of(
        st.booleans(),
        st.integers(-(2 ** 70), 2 ** 70),
        st.integers(-300, 300),
        st.floats(allow_nan=not finite, allow_infinity=not finite),
        st.complex_numbers(max_magnitude=1e6, allow_nan=False, allow_infinity=False),
    )


def rtol_for(dtype, op=None):
    dt = np.dtype(dtype)
    if dt.kind not in "fc":
        return 0.0
    eps = float(np.finfo(dt).eps)
    return (8 if dt.kind == "c" else 2) * eps


# ---- arithmetic ----------------------------------------------------------------------

@PROPERTY_SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(OPS)), dta=dtypes, dtb=dtypes,
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=6,
                                                min_side=0, max_side=3))
def test_array_op_array(backend, data, op, dta, dtb, shapes):
    a = data.draw(arrays(dta, shapes.input_shapes[0]), label="a")
    b = data.draw(arrays(dtb, shapes.input_shapes[1]), label="b")
    da, db = devarray.to_device(a), devarray.to_device(b)
    check_like_numpy(OPS[op], (a, b), (da, db), rtol=rtol_for)
    assert_values(da, a)
    assert_values(db, b)


@PROPERTY_SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(OPS)), dtype=dtypes, shape=shapes,
       scalar_first=st.booleans())
def test_array_op_python_scalar(backend, data, op, dtype, shape, scalar_first):
    a = data.draw(arrays(dtype, shape), label="a")
    s = data.draw(python_scalars(np.dtype(dtype).kind), label="scalar")
    da = devarray.to_device(a)
    if scalar_first:
        check_like_numpy(lambda x, y: OPS[op](y, x), (a, s), (da, s), rtol=rtol_for)
    else:
        check_like_numpy(OPS[op], (a, s), (da, s), rtol=rtol_for)
    assert_values(da, a)


@PROPERTY_SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(OPS)), dta=dtypes, dtb=dtypes)
def test_views_op_views(backend, data, op, dta, dtb):
    """Strided operands: a view of one array with an operand broadcastable
    to it, itself a view of another."""
    base_a, index_a, axes_a = data.draw(views(dta), label="view a")
    va = make_view(base_a, index_a, axes_a)
    shape_b = data.draw(hnp.broadcastable_shapes(va.shape, min_dims=0, max_dims=6,
                                                 max_side=4), label="shape b")
    b_padded = data.draw(arrays(dtb, tuple(2 * n for n in shape_b)), label="b")
    b_index = tuple(slice(None, None, -2) for _ in shape_b)
    vb = b_padded[b_index]           # every stride negative, every other element
    da = make_view(devarray.to_device(base_a), index_a, axes_a)
    db = devarray.to_device(b_padded)[b_index]
    assert_values(da, va)
    assert_values(db, vb)
    check_like_numpy(OPS[op], (va, vb), (da, db), rtol=rtol_for)


@PROPERTY_SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(INPLACE_OPS)), dta=dtypes, dtb=dtypes,
       use_scalar=st.booleans())
def test_inplace_ops(backend, data, op, dta, dtb, use_scalar):
    """In place, on a view: NumPy's result, or its exception with the
    target unchanged (same_kind casting, shape, overflowing scalars)."""
    base, index, axes = data.draw(views(dta), label="target")
    if use_scalar:
        other = data.draw(python_scalars(np.dtype(dta).kind), label="scalar")
        other_np = other_da = other
    else:
        target_shape = make_view(base, index, axes).shape
        shape_b = data.draw(hnp.broadcastable_shapes(target_shape, min_dims=0,
                                                     max_dims=6, max_side=4),
                            label="shape b")
        other_np = data.draw(arrays(dtb, shape_b), label="b")
        other_da = devarray.to_device(other_np)
    expected_base = base.copy()
    d_base = devarray.to_device(base)
    target_np = make_view(expected_base, index, axes)
    target_da = make_view(d_base, index, axes)
    _, exc = np_or_exception(INPLACE_OPS[op], target_np, other_np)
    if exc is not None:
        with pytest.raises(exc):
            INPLACE_OPS[op](target_da, other_da)
        assert_values(d_base, base)      # unchanged
        return
    result = INPLACE_OPS[op](target_da, other_da)
    assert result is target_da
    assert_values(d_base, expected_base, rtol=rtol_for(dta))


@st.composite
def overlapping_slices(draw):
    n = draw(st.integers(1, 40))
    length = draw(st.integers(0, n))

    def one():
        step = draw(st.sampled_from([1, 2, 3, -1, -2]))
        if length == 0:
            return slice(0, 0, step)
        span = (length - 1) * abs(step) + 1 if length else 0
        assume(span <= n)
        start = draw(st.integers(0, n - span)) if span else 0
        if step > 0:
            return slice(start, start + span, step)
        first = start + span - 1
        stop = first - span
        return slice(first, stop if stop >= 0 else None, step)

    return n, one(), one()


@PROPERTY_SETTINGS
@given(data=st.data(), op=st.sampled_from(["+=", "-=", "*="]),
       dtype=st.sampled_from(["int64", "uint8", "float64", "complex64"]),
       slices=overlapping_slices())
def test_inplace_with_overlapping_operands(backend, data, op, dtype, slices):
    """x[s1] op= x[s2] with overlapping slices reads x[s2] as it was before,
    as NumPy does."""
    n, s1, s2 = slices
    x = data.draw(arrays(dtype, (n,), finite=True, bound=1e3), label="x")
    assert x[s1].shape == x[s2].shape
    expected = x.copy()
    with np.errstate(all="ignore"):
        INPLACE_OPS[op](expected[s1], expected[s2])
    d = devarray.to_device(x)
    INPLACE_OPS[op](d[s1], d[s2])
    assert_values(d, expected, rtol=rtol_for(dtype))


@PROPERTY_SETTINGS
@given(data=st.data(), dtype=dtypes, op=st.sampled_from(["neg", "pos", "abs"]))
def test_unary(backend, data, dtype, op):
    base, index, axes = data.draw(views(dtype), label="a")
    v = make_view(base, index, axes)
    d = make_view(devarray.to_device(base), index, axes)
    func = {"neg": operator.neg, "pos": operator.pos, "abs": abs}[op]
    check_like_numpy(func, (v,), (d,), rtol=rtol_for)


# ---- sum -----------------------------------------------------------------------------

@st.composite
def axes_for(draw, ndim):
    """None, an int (either sign) or a tuple of distinct axes."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1, ()]))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(k - ndim if draw(st.booleans()) else k for k in chosen)


def assert_sum_close(got, expected, a, axis, keepdims):
    """Integers and bools exactly; floats within n eps of the sum of
    magnitudes along the axes (NumPy itself sums pairwise only along a
    contiguous axis, one element after another otherwise)."""
    assert isinstance(got, devarray.DeviceArray)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind not in "fc":
        assert_values(got, expected)
        return
    g = np.asarray(got.to_host())
    with np.errstate(all="ignore"):
        scale = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
        scale = np.asarray(scale.sum(axis=axis, keepdims=keepdims))
        n = max(1, a.size // max(1, expected.size))
        part = np.float16 if a.dtype == np.float16 else expected.dtype
        bound = 2 * float(np.finfo(part).eps) * (n + 2) * scale
        for gp, ep in ([(g.real, expected.real), (g.imag, expected.imag)]
                       if expected.dtype.kind == "c" else [(g, expected)]):
            gp = gp.astype(np.float64)
            ep = ep.astype(np.float64)
            finite = np.isfinite(ep)
            assert np.array_equal(np.isnan(gp), np.isnan(ep)), (g, expected)
            assert np.array_equal(gp[~finite & ~np.isnan(ep)],
                                  ep[~finite & ~np.isnan(ep)]), (g, expected)
            err = np.abs(gp - ep)
            assert np.all(err[finite] <= bound[finite] + float(np.finfo(part).tiny)), \
                (g, expected, bound)


@PROPERTY_SETTINGS
@given(data=st.data(), dtype=dtypes, keepdims=st.booleans(), strided=st.booleans(),
       with_nan=st.booleans())
def test_sum(backend, data, dtype, keepdims, strided, with_nan):
    # float16 partial sums must stay below its maximum (65504) in any order
    bound = 10 if dtype == "float16" else 1e3
    if strided:
        base, index, axes = data.draw(views(dtype, finite=not with_nan, bound=bound),
                                      label="a")
    else:
        base = data.draw(arrays(dtype, shapes, finite=not with_nan, bound=bound),
                         label="a")
        index, axes = (), None
    a = make_view(base, index, axes)
    d = make_view(devarray.to_device(base), index, axes)
    axis = data.draw(axes_for(a.ndim), label="axis")
    expected, exc = np_or_exception(lambda x: x.sum(axis=axis, keepdims=keepdims), a)
    if exc is not None:
        with pytest.raises(exc):
            d.sum(axis=axis, keepdims=keepdims)
        return
    got = d.sum(axis=axis, keepdims=keepdims)
    assert_sum_close(got, expected, a, axis, keepdims)
    got = devarray.sum(d, axis=axis, keepdims=keepdims)
    assert_sum_close(got, expected, a, axis, keepdims)


# ---- round trips ---------------------------------------------------------------------

@PROPERTY_SETTINGS
@given(data=st.data(), dtype=dtypes, order=st.sampled_from(["C", "F", "view"]))
def test_transfer_round_trip_is_byte_exact(backend, data, dtype, order):
    """to_device(numpy array or view) and back: the same bytes in C order,
    whatever the layout (Fortran, negative strides, new axes), NaN payloads
    included."""
    if order == "view":
        base, index, axes = data.draw(views(dtype), label="a")
        a = make_view(base, index, axes)
    else:
        a = data.draw(arrays(dtype, shapes), label="a")
        if order == "F":
            a = np.asfortranarray(a)
    d = devarray.to_device(a)
    assert d.dtype == a.dtype and d.shape == a.shape
    h = d.to_host()
    assert h.dtype == a.dtype and h.shape == a.shape
    assert h.tobytes() == np.ascontiguousarray(a).tobytes()
    # and once more through a DeviceArray view and the buffer protocol
    out = np.empty_like(a, order="C")
    d.to_host(out=out)
    assert out.tobytes() == h.tobytes()
    assert devarray.to_device(memoryview(np.ascontiguousarray(a))).to_host().tobytes() \
        == h.tobytes()


@PROPERTY_SETTINGS
@given(data=st.data(), dtype=dtypes, shape=shapes)
def test_list_round_trip(backend, data, dtype, shape):
    """asarray(a.tolist(), dtype) and tolist() give the values back exactly
    (NaN as NaN), and asarray infers NumPy's dtype from the list.  (A list
    loses the extents after an empty one: [] for shape (0, 3).)"""
    a = data.draw(arrays(dtype, shape), label="a")
    lst = a.tolist()
    a = np.array(lst, dtype=dtype)
    d = devarray.asarray(lst, dtype=dtype)
    assert_values(d, a)
    if np.dtype(dtype).kind == "f":
        # zeros keep their sign
        assert np.array_equal(np.signbit(np.asarray(d.to_host())), np.signbit(a))
    back = devarray.to_device(a).tolist()
    assert type(back) is type(lst)
    assert_values(np.asarray(back, dtype=dtype).reshape(a.shape), a)
    if a.size > 0:
        inferred = devarray.asarray(lst)
        assert inferred.dtype == np.asarray(lst).dtype
    if a.ndim > 0:
        as_tuples = devarray.asarray(_tuples(lst), dtype=dtype)
        assert_values(as_tuples, a)


def _tuples(x):
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


# (array.array typecode or struct format, NumPy dtype it must become)
ARRAY_TYPECODES = ["b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "f", "d"]
CAST_FORMATS = ["b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "f", "d", "?", "n", "N",
                "c"]


@PROPERTY_SETTINGS
@given(data=st.data(), typecode=st.sampled_from(ARRAY_TYPECODES),
       n=st.integers(0, 50))
def test_array_array_round_trip(backend, data, typecode, n):
    dt = np.dtype(typecode)
    values = data.draw(st.lists(elements(dt, finite=True), min_size=n, max_size=n))
    src = array.array(typecode, [v.item() if hasattr(v, "item") else v for v in
                                 np.asarray(values, dtype=dt)])
    d = devarray.to_device(src)
    assert d.shape == (n,) and d.itemsize == src.itemsize
    assert d.dtype == np.dtype(typecode), (d.dtype, typecode)
    assert d.to_host().tobytes() == src.tobytes()
    out = array.array(typecode, bytes(src.itemsize * n))
    assert d.to_host(out=out) is out and out == src


@PROPERTY_SETTINGS
@given(data=st.data(), fmt=st.sampled_from(CAST_FORMATS),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_memoryview_formats_round_trip(backend, data, fmt, shape):
    """Buffers in each native struct format (memoryview.cast), any shape:
    the dtype NumPy gives that format, the same bytes back."""
    itemsize = memoryview(b"\0" * 16).cast(fmt).itemsize
    nbytes = itemsize * int(np.prod(shape))
    raw = bytearray(data.draw(st.binary(min_size=nbytes, max_size=nbytes), label="bytes"))
    if fmt == "?":
        raw = bytearray(b & 1 for b in raw)     # bools must be 0 or 1
    mv = memoryview(raw).cast(fmt, shape)
    d = devarray.to_device(mv)
    expected = np.frombuffer(raw, dtype={"c": np.uint8, "n": np.intp, "N": np.uintp,
                                         "?": np.bool_}.get(fmt, fmt))
    assert d.shape == tuple(shape) and d.itemsize == itemsize
    assert d.dtype == expected.dtype
    assert d.to_host().tobytes() == bytes(raw)
    assert devarray.asarray(mv).to_host().tobytes() == bytes(raw)


@PROPERTY_SETTINGS
@given(data=st.data(), dtype=dtypes, byteorder=st.sampled_from(["=", "<", "|"]),
       strided=st.booleans())
def test_numpy_byte_order_prefixes(backend, data, dtype, byteorder, strided):
    """Explicitly little-endian or native NumPy buffers ('<f8', '=i2') are
    accepted; their exported formats carry the prefix."""
    dt = np.dtype(dtype)
    if dt.itemsize == 1 or dt.kind == "b":
        dt = dt.newbyteorder("|") if byteorder == "|" else dt
    elif byteorder == "|":
        dt = dt.newbyteorder("=")
    else:
        dt = dt.newbyteorder(byteorder)
    a = data.draw(arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5)),
                  label="a").astype(dt)
    if strided:
        a = a[..., ::-2]
    d = devarray.to_device(a)
    assert d.to_host().tobytes() == np.ascontiguousarray(a).tobytes()


# ---- failures Hypothesis found, kept as fixed examples -------------------------------

@pytest.mark.parametrize("dtype, scalar", [
    ("int8", 128), ("int8", -1000), ("uint8", -1), ("uint64", -1), ("int64", 2 ** 63),
    ("bool", 2 ** 63), ("int32", 2 ** 70), ("int16", -(2 ** 100)),
])
@pytest.mark.parametrize("scalar_first", [False, True])
def test_true_divide_by_python_int_out_of_dtype_range(backend, dtype, scalar, scalar_first):
    """int / int computes in float64, so NumPy converts the Python int to
    float64 and never range-checks it against the array's integer dtype;
    in place, the float64 result cannot be cast back (TypeError)."""
    a = np.array([0, 1, 3, 100], dtype=dtype)
    d = devarray.to_device(a)
    if scalar_first:
        check_like_numpy(lambda x, y: y / x, (a, scalar), (d, scalar), rtol=rtol_for)
    else:
        check_like_numpy(operator.truediv, (a, scalar), (d, scalar), rtol=rtol_for)
        target = devarray.to_device(a)
        with pytest.raises(TypeError):
            target /= scalar
        assert_values(target, a)
