"""The complex64/complex128 loops of the elementwise functions
(kernels/ops_complex.h): NumPy's dtypes and values on random data with
special values, on both backends; the special values the array API fixes;
where we follow the spec instead of NumPy; complex promotion of real arrays
with complex Python scalars (NEP 50); TypeError where complex has no loop.

Tolerances, as a bound on |got - expected| / |expected| (complex magnitude)
in units of the dtype's eps:
- exact for functions that only move, compare or round parts (conj, real,
  imag, positive, round, isfinite, isinf, isnan, the comparisons, maximum,
  minimum);
- 4 eps for a few roundings of arithmetic (square, reciprocal, sign): the
  backends compute the same formula, NumPy's SIMD loops may use FMA;
- 8 eps for the transcendental functions: the host runs glibc's <complex.h>
  and the GPU thrust::complex (FreeBSD msun); run side by side on 20k random
  points of |z| from 1e-6 to 100 plus special values (both compiled for the
  host), they differed by at most 3.1 ulp (tan, tanh), and CUDA's device
  libm adds up to 2 ulp per real call (CUDA C Programming Guide, appendix
  on math functions);
- pow: 8 eps * (1 + |x2 log x1|), since exp(w log z) magnifies the one
  rounding of log by |w log z| (measured: 4.8 ulp times that, at most).
"""

import cmath
import math

import numpy as np
import pytest

import devarray
from _helpers import COMPLEX_DTYPES, assert_values, host, np_or_exception, random_array

inf, nan = math.inf, math.nan

TRANSCENDENTAL = [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
    "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan",
    "tanh",
]
ARITHMETIC = ["reciprocal", "sign", "square"]
EXACT = ["conj", "imag", "isfinite", "isinf", "isnan", "positive", "real", "round"]
COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater",
               "greater_equal", "maximum", "minimum"]
# the inputs whose result has an infinity of unspecified sign (C99 Annex G:
# "sign unspecified"), where glibc and thrust pick differently
UNSPECIFIED_INF_SIGN = {"sin", "cos", "sinh", "cosh", "exp", "asin", "asinh",
                        "acos", "acosh", "expm1"}


def rtol(name, dtype):
    e = float(np.finfo(dtype).eps)
    if name in TRANSCENDENTAL:
        return 8 * e
    if name in ARITHMETIC:
        return 4 * e
    return 0.0


def spec_expm1(a):
    """exp(z) - 1 as the spec wants it where NumPy's formula gives nan
    (inf + 0j, +-inf with nan, ...): for a non-finite part, exp(z) less 1;
    for a real z, expm1(x) + 0j, +0 for either zero."""
    out = np.expm1(a)
    for i, z in np.ndenumerate(a):
        z = complex(z)
        if z.imag == 0 and not math.isnan(z.real):
            out[i] = complex(0.0 if z.real == 0 else math.expm1(z.real), z.imag)
        elif not (math.isfinite(z.real) and math.isfinite(z.imag)):
            e = np.exp(np.asarray(z, dtype=a.dtype))
            out[i] = complex(e.real - 1, e.imag)
    return out


def spec_log1p(a):
    """log(1 + z), accurate near 0 where NumPy's log(hypot(1 + x, y)) is
    not: the real part from log1p(x(2 + x) + y^2) / 2 in long double."""
    out = np.log1p(a)
    with np.errstate(all="ignore"):
        x = a.real.astype(np.longdouble)
        y = a.imag.astype(np.longdouble)
        near = (np.abs(x) < 0.5) & (np.abs(y) < 0.5)
        re = np.log1p(x * (2 + x) + y * y) / 2
    out.real[near] = re[near].astype(out.real.dtype)
    return out


def spec_sign(a):
    """NumPy's sign, but nan + nanj when either part is nan (the spec;
    NumPy gives 1 + 0j for inf + nanj)."""
    out = np.sign(a)
    out[np.isnan(a.real) | np.isnan(a.imag)] = complex(nan, nan)
    return out


def spec_square(a):
    """z * z by the textbook product, as multiply: NumPy's square fuses it
    (FMA), which turns inf - inf into -inf where the product gives nan."""
    with np.errstate(all="ignore"):
        return a * a


REFERENCE = {"expm1": spec_expm1, "log1p": spec_log1p, "sign": spec_sign,
             "square": spec_square}


def reference(name, *args):
    with np.errstate(all="ignore"):
        if name in REFERENCE:
            return REFERENCE[name](*args)
        return getattr(np, name)(*args)


def assert_close(name, got, expected, inputs, rtol_value):
    """assert_values, but where an input part is not finite and Annex G
    leaves the sign of an infinite result part open, only that it is
    infinite."""
    if isinstance(got, devarray.DeviceArray):
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        got = host(got)
    if name in UNSPECIFIED_INF_SIGN and expected.dtype.kind == "c":
        nonfinite = ~np.isfinite(inputs)
        for part in ("real", "imag"):
            g, e = getattr(got, part), getattr(expected, part)
            loose = nonfinite & np.isinf(g) & np.isinf(e)
            g[loose] = e[loose]
    assert_values(got, expected, rtol=rtol_value)


def complex_data(rng, dtype, shape=(7, 9)):
    """Random complex values with special ones (nan, +-inf, signed zeros in
    either part) mixed in, and every pair of special parts once."""
    a = random_array(rng, shape, dtype, special=True)
    parts = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 0.5]
    grid = np.array([complex(x, y) for x in parts for y in parts], dtype=dtype)
    return np.concatenate([a.reshape(-1), grid])


@pytest.mark.parametrize("name", TRANSCENDENTAL + ARITHMETIC + EXACT)
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_unary_matches_numpy(backend, rng, name, dtype):
    a = complex_data(rng, dtype)
    expected = np.asarray(reference(name, a))
    got = getattr(devarray, name)(devarray.asarray(a))
    assert_close(name, got, expected, a, rtol(name, dtype))


@pytest.mark.parametrize("name", ["log1p", "expm1", "log", "sqrt", "asinh",
                                  "atanh", "sin", "tan"])
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_small_arguments_keep_their_digits(backend, rng, name, dtype):
    """|z| from 1e-12 to 1e-3, where 1 + z rounds: log1p and expm1 (which
    NumPy computes without care for log1p: spec_log1p) and the odd
    functions stay within their tolerance of an accurate reference."""
    scale = 10.0 ** rng.uniform(-12, -3, size=200)
    a = ((rng.standard_normal(200) + 1j * rng.standard_normal(200)) * scale).astype(dtype)
    if np.dtype(dtype) == np.complex64:
        # long double NumPy is accurate enough for float32's digits
        expected = reference(name, a.astype(np.clongdouble)).astype(dtype)
    else:
        expected = reference(name, a)
    got = getattr(devarray, name)(devarray.asarray(a))
    assert_close(name, got, np.asarray(expected), a, rtol(name, dtype))


@pytest.mark.parametrize("name", COMPARISONS)
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_comparisons_are_numpys_lexicographic_order(backend, rng, name, dtype):
    a = complex_data(rng, dtype)
    b = rng.permutation(a)
    b[::3] = a[::3]  # equal pairs
    b[1::5] = a[1::5].real + 1j * rng.standard_normal(a[1::5].size)  # ties in re
    expected = np.asarray(reference(name, a, b))
    got = getattr(devarray, name)(devarray.asarray(a), devarray.asarray(b))
    assert_values(got, expected)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_pow_matches_numpy(backend, rng, dtype):
    a = complex_data(rng, dtype)
    b = random_array(rng, a.shape, dtype) / 10
    b[::4] = np.round(b[::4].real * 10)  # integral exponents, NumPy's own loop
    b[1::7] = 0
    expected = np.asarray(reference("pow", a, b))
    got = host(devarray.pow(devarray.asarray(a), devarray.asarray(b)))
    with np.errstate(all="ignore"):
        scale = 1 + np.abs(b.astype(np.complex128) * np.log(a.astype(np.complex128)))
    finite = (np.isfinite(a) & np.isfinite(b) & np.isfinite(expected)
              & np.isfinite(scale))
    e = float(np.finfo(dtype).eps)
    err = np.abs(got[finite].astype(np.complex128) - expected[finite])
    bound = 8 * e * scale[finite] * np.abs(expected[finite].astype(np.complex128))
    assert got.dtype == expected.dtype
    assert np.all(err <= bound), (a[finite][err > bound][:4], b[finite][err > bound][:4])
    # x**0 is 1 for any x, nan included (the spec); 0**w as NumPy
    assert np.all(got[b == 0] == 1)


C = complex
PI = math.pi
# (function, input, expected) from the special cases of the array API
# 2025.12 for complex operands (sqrt's whole table, with the erratum of
# data-apis/array-api#987: sqrt(-inf + yj) is +0 + inf j and sqrt(+inf + yj)
# is +inf + 0j for finite y > 0, where 2024.12 printed NaN + NaN j and
# +0 + inf j); the sign of a zero is checked.
SPECIAL_CASES = [
    ("exp", C(0.0, 0.0), C(1.0, 0.0)),
    ("exp", C(-0.0, 0.0), C(1.0, 0.0)),
    ("exp", C(1.0, inf), C(nan, nan)),
    ("exp", C(inf, 0.0), C(inf, 0.0)),
    ("exp", C(-inf, 1.0), C(0.0 * math.cos(1.0), 0.0 * math.sin(1.0))),
    ("exp", C(nan, 0.0), C(nan, 0.0)),
    ("expm1", C(0.0, 0.0), C(0.0, 0.0)),
    ("expm1", C(-0.0, 0.0), C(0.0, 0.0)),
    ("expm1", C(1.0, inf), C(nan, nan)),
    ("expm1", C(inf, 0.0), C(inf, 0.0)),
    ("expm1", C(-inf, 1.0), C(-1.0, 0.0)),
    ("expm1", C(nan, 0.0), C(nan, 0.0)),
    ("expm1", C(nan, 1.0), C(nan, nan)),
    ("log", C(-0.0, 0.0), C(-inf, PI)),
    ("log", C(0.0, 0.0), C(-inf, 0.0)),
    ("log", C(1.0, inf), C(inf, PI / 2)),
    ("log", C(-inf, 1.0), C(inf, PI)),
    ("log", C(inf, 1.0), C(inf, 0.0)),
    ("log", C(-inf, inf), C(inf, 3 * PI / 4)),
    ("log", C(inf, inf), C(inf, PI / 4)),
    ("log", C(inf, nan), C(inf, nan)),
    ("log", C(-inf, nan), C(inf, nan)),
    ("log", C(nan, inf), C(inf, nan)),
    ("log", C(nan, 1.0), C(nan, nan)),
    ("log1p", C(-1.0, 0.0), C(-inf, 0.0)),
    ("log1p", C(1.0, inf), C(inf, PI / 2)),
    ("log1p", C(-inf, 1.0), C(inf, PI)),
    ("log1p", C(inf, nan), C(inf, nan)),
    ("log1p", C(nan, inf), C(inf, nan)),
    ("log2", C(0.0, 0.0), C(-inf, 0.0)),
    ("log10", C(inf, nan), C(inf, nan)),
    ("sqrt", C(0.0, 0.0), C(0.0, 0.0)),
    ("sqrt", C(-0.0, 0.0), C(0.0, 0.0)),
    ("sqrt", C(nan, inf), C(inf, inf)),
    ("sqrt", C(-inf, inf), C(inf, inf)),
    ("sqrt", C(inf, inf), C(inf, inf)),
    ("sqrt", C(-2.0, inf), C(inf, inf)),
    ("sqrt", C(1.0, nan), C(nan, nan)),
    ("sqrt", C(-0.0, nan), C(nan, nan)),
    ("sqrt", C(-inf, 1.0), C(0.0, inf)),
    ("sqrt", C(-inf, 1e30), C(0.0, inf)),
    ("sqrt", C(inf, 1.0), C(inf, 0.0)),
    ("sqrt", C(inf, 1e30), C(inf, 0.0)),
    ("sqrt", C(inf, nan), C(inf, nan)),
    ("sqrt", C(nan, 1.0), C(nan, nan)),
    ("sqrt", C(nan, 0.0), C(nan, nan)),
    ("sqrt", C(nan, nan), C(nan, nan)),
    ("tanh", C(0.0, 0.0), C(0.0, 0.0)),
    ("tanh", C(0.0, inf), C(0.0, nan)),
    ("tanh", C(0.0, nan), C(0.0, nan)),
    ("tanh", C(1.0, inf), C(nan, nan)),
    ("tanh", C(inf, 1.0), C(1.0, 0.0)),
    ("tanh", C(inf, 2.0), C(1.0, 0.0)),  # C99 gives 1 - 0j: sin(4) < 0
    ("tanh", C(nan, 0.0), C(nan, 0.0)),
    ("tan", C(0.0, 0.0), C(0.0, 0.0)),
    ("sinh", C(0.0, 0.0), C(0.0, 0.0)),
    ("sinh", C(inf, 0.0), C(inf, 0.0)),
    ("sinh", C(nan, 0.0), C(nan, 0.0)),
    ("cosh", C(0.0, 0.0), C(1.0, 0.0)),
    ("cosh", C(inf, 0.0), C(inf, 0.0)),
    ("acosh", C(0.0, 0.0), C(0.0, PI / 2)),
    ("acosh", C(1.0, inf), C(inf, PI / 2)),
    ("acosh", C(-inf, 1.0), C(inf, PI)),
    ("acosh", C(inf, inf), C(inf, PI / 4)),
    ("acosh", C(inf, nan), C(inf, nan)),
    ("asinh", C(0.0, 0.0), C(0.0, 0.0)),
    ("asinh", C(1.0, inf), C(inf, PI / 2)),
    ("asinh", C(inf, 1.0), C(inf, 0.0)),
    ("asinh", C(inf, inf), C(inf, PI / 4)),
    ("atanh", C(0.0, 0.0), C(0.0, 0.0)),
    ("atanh", C(0.0, nan), C(0.0, nan)),
    ("atanh", C(1.0, 0.0), C(inf, 0.0)),
    ("atanh", C(1.0, inf), C(0.0, PI / 2)),
    ("atanh", C(inf, 1.0), C(0.0, PI / 2)),
    ("atanh", C(inf, nan), C(0.0, nan)),
    ("sign", C(0.0, 0.0), C(0.0, 0.0)),
    ("sign", C(-0.0, -0.0), C(0.0, 0.0)),
    ("sign", C(inf, nan), C(nan, nan)),
    ("sign", C(nan, 1.0), C(nan, nan)),
    ("sign", C(3.0, -4.0), C(0.6, -0.8)),
    ("sign", C(3e38, 3e38), C(math.sqrt(0.5), math.sqrt(0.5))),
    ("round", C(2.5, -3.5), C(2.0, -4.0)),
    ("round", C(-0.5, 0.5), C(-0.0, 0.0)),
    ("round", C(inf, nan), C(inf, nan)),
    ("conj", C(1.0, 0.0), C(1.0, -0.0)),
    ("conj", C(nan, -inf), C(nan, inf)),
]


# sign of the imaginary part unspecified: no conjugate pair
SPECIAL_CASES_ONE_SIDED = [
    ("acosh", C(0.0, nan), C(nan, PI / 2)),
]


def _same(got, want, dtype):
    """Equal part by part: nan matches nan, zeros match with their sign,
    finite values within 2 eps."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        g, w = float(g), float(w)
        if math.isnan(w):
            if not math.isnan(g):
                return False
        elif w == 0 or math.isinf(w):
            if g != w or math.copysign(1, g) != math.copysign(1, w):
                return False
        elif not abs(g - w) <= 2 * np.finfo(dtype).eps * abs(w):
            return False
    return True


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_special_cases_of_the_spec(backend, dtype):
    failures = []
    for name, z, want in SPECIAL_CASES + SPECIAL_CASES_ONE_SIDED:
        # each case and its conjugate (f(conj(z)) == conj(f(z)) is part of
        # the spec for these functions), as one array per function
        zs = np.array([z, z.conjugate()], dtype=dtype)
        wants = np.array([want, want.conjugate()], dtype=dtype)
        if (name, z, want) in SPECIAL_CASES_ONE_SIDED:
            zs, wants = zs[:1], wants[:1]
        if name == "sign" and z.real == 0:
            wants[1] = want  # sign(0) is +0 + 0j, not a conjugate
        got = host(getattr(devarray, name)(devarray.asarray(zs)))
        for g, w, x in zip(got, wants, zs):
            if not _same(g, w, dtype):
                failures.append(f"{name}({x!r}) = {g!r}, spec: {w!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_sqrt_of_minus_inf_and_nan(backend, dtype):
    """sqrt(-inf + nan j) is nan + inf j, the sign of the infinity left
    unspecified by the standard."""
    got = host(devarray.sqrt(devarray.asarray(np.array([C(-inf, nan)], dtype=dtype))))[0]
    assert math.isnan(got.real) and math.isinf(got.imag)


def test_isfinite_isinf_isnan_and_equality_of_special_values(backend):
    a = np.array([C(1, 2), C(inf, 0), C(0, -inf), C(nan, 0), C(0, nan),
                  C(inf, nan), C(-0.0, 0.0)], dtype="complex128")
    d = devarray.asarray(a)
    assert host(devarray.isfinite(d)).tolist() == [True] + [False] * 5 + [True]
    t, f = True, False
    assert host(devarray.isinf(d)).tolist() == [f, t, t, f, f, t, f]
    assert host(devarray.isnan(d)).tolist() == [f, f, f, t, t, t, f]
    # nan in any part is unequal, even to itself; -0 == +0
    assert host(devarray.equal(d, d)).tolist() == [t, t, t, f, f, f, t]
    assert host(devarray.not_equal(d, d)).tolist() == [f, f, f, t, t, t, f]


@pytest.mark.parametrize("name", ["real", "imag", "abs"])
def test_real_valued_results_have_the_real_dtype(backend, rng, name):
    for dtype, real in (("complex64", "float32"), ("complex128", "float64")):
        a = random_array(rng, (3, 4), dtype)[:, ::2]
        got = getattr(devarray, name)(devarray.asarray(a))
        assert got.dtype == np.dtype(real)
        assert_values(got, getattr(np, name)(a), rtol=4 * np.finfo(real).eps)


@pytest.mark.parametrize("array_dtype", ["float16", "float32", "float64", "int8",
                                         "int64", "bool"])
@pytest.mark.parametrize("scalar", [1j, 2.5 - 0.5j])
@pytest.mark.parametrize("name", ["add", "multiply", "divide", "pow", "equal",
                                  "not_equal"])
def test_real_array_with_complex_scalar_promotes_like_numpy(backend, rng, name,
                                                            array_dtype, scalar):
    """NEP 50: a complex Python scalar is weak, so float32 with 1j is
    complex64, float64 (and integers, via the default float) complex128."""
    a = random_array(rng, (5,), array_dtype)
    if name == "pow" and a.dtype.kind in "iu":
        a = a % 7  # moderate powers: exp(w log z) magnifies rounding by |w log z|
    d = devarray.asarray(a)
    for np_args, da_args in (((a, scalar), (d, scalar)), ((scalar, a), (scalar, d))):
        expected, exc = np_or_exception(getattr(np, name), *np_args)
        if exc is not None:
            with pytest.raises(exc):
                getattr(devarray, name)(*da_args)
            continue
        expected = np.asarray(expected)
        got = getattr(devarray, name)(*da_args)
        assert got.dtype == expected.dtype
        scale = 1.0
        if name == "pow":  # see the module's docstring
            with np.errstate(all="ignore"):
                z, w = (np.asarray(v, dtype=np.complex128) for v in np_args)
                m = np.abs(w * np.log(z))
            m = m[np.isfinite(m)]  # 0 ** w: exact
            scale += float(m.max()) if m.size else 0.0
        assert_values(got, expected, rtol=0 if expected.dtype.kind == "b"
                      else 8 * scale * np.finfo(expected.dtype).eps)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("other", ["float32", "float64", "int16", "complex64"])
def test_complex_with_real_array_promotes_like_numpy(backend, rng, dtype, other):
    a = random_array(rng, (4, 3), dtype)
    b = random_array(rng, (3,), other)
    for name in ("add", "equal", "maximum"):
        expected = np.asarray(getattr(np, name)(a, b))
        got = getattr(devarray, name)(devarray.asarray(a), devarray.asarray(b))
        assert_values(got, expected, rtol=0 if name != "add" else 2 * np.finfo(dtype).eps)


# The functions NumPy 2 does not define for complex either (or the spec
# restricts to real input and NumPy refuses): each a TypeError.
NOT_FOR_COMPLEX = ["ceil", "floor", "trunc", "signbit", "copysign", "atan2",
                   "hypot", "floor_divide", "remainder", "logaddexp",
                   "nextafter", "bitwise_and", "bitwise_or", "bitwise_xor",
                   "bitwise_invert", "bitwise_left_shift",
                   "bitwise_right_shift", "logical_and"]


@pytest.mark.parametrize("name", NOT_FOR_COMPLEX)
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_functions_without_complex_loop_raise_type_error(backend, rng, name, dtype):
    fn = getattr(devarray, name, None)
    if fn is None:
        pytest.skip(f"devarray.{name} is not defined on this branch yet")
    a = random_array(rng, (3,), dtype)
    d = devarray.asarray(a)
    nin = 2 if name not in ("ceil", "floor", "trunc", "signbit", "bitwise_invert") else 1
    np_fn = getattr(np, {"bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
                         "bitwise_right_shift": "right_shift"}.get(name, name), None)
    if np_fn is not None and name != "logical_and":
        with pytest.raises(TypeError):
            np_fn(*([a] * nin))
    if name == "logical_and":
        # NumPy's logical functions take complex (nonzero is true): so do we
        got = fn(d, d)
        assert_values(got, np.logical_and(a, a))
        return
    before = a.copy()
    with pytest.raises(TypeError, match=name):
        fn(*([d] * nin))
    assert np.array_equal(host(d), before)


def test_conjugate_symmetry_of_the_library_functions(backend, rng):
    """f(conj(z)) == conj(f(z)) for the functions the spec says it of, on
    random points off the branch cuts."""
    a = random_array(rng, (64,), "complex128")
    d, dc = devarray.asarray(a), devarray.asarray(np.conj(a))
    for name in TRANSCENDENTAL:
        f, fc = host(getattr(devarray, name)(d)), host(getattr(devarray, name)(dc))
        np.testing.assert_allclose(fc, np.conj(f), rtol=4e-16, atol=0, err_msg=name)


def test_cmath_agrees_on_a_few_points(backend):
    """An oracle independent of NumPy for the library functions."""
    zs = [C(0.3, -1.7), C(-2.0, 0.25), C(5.0, 5.0)]
    d = devarray.asarray(np.array(zs, dtype="complex128"))
    for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh",
                 "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
                 "log10"):
        got = host(getattr(devarray, name)(d))
        for g, z in zip(got, zs):
            w = getattr(cmath, name)(z)
            assert abs(g - w) <= 8 * 2.0 ** -52 * abs(w), (name, z, g, w)
