"""The elementwise routes chosen by shape and operand (kernels/elementwise.cu,
elementwise.cuh), each against NumPy on random data at sizes around its
blocking: casts between contiguous arrays (staged through shared memory in
16 KiB tiles, stored 16 bytes a thread where the output is aligned), integer floor_divide and remainder by a scalar around the
extremes, strided copies of every itemsize (four elements
per thread, offsets stepped along the last axis; rows contiguous in both
moved in wider elements), binary ops over 2-D rows
with broadcast operands (the contiguous kernel a row at a time),
x ** 2 as a multiply, bool operands a word at a time (any nonzero byte
true) and the vector widths of the contiguous kernels (float16's short
ops, bool results of wider operands).  On the host backend the same calls run
NumPy-compatible loops."""

import numpy as np
import pytest

import devarray
from _helpers import DTYPES, assert_values, host, random_array

# Around the tile of 16 KiB of input: one element, a partial tile, a whole
# float16 tile (8192), and several tiles with a tail.
CAST_SIZES = [1, 4097, 8192, 3 * 8192 + 5]


def cast_source(rng, n, src, dst):
    """n values of dtype src that every dtype dst holds without the casts'
    undefined cases: small integers, and for floats fractions too (a float
    converted to an integer truncates); never negative when dst is
    unsigned or src is bool."""
    low = 0 if np.dtype(dst).kind in "ub" or np.dtype(src).kind in "ub" else -100
    values = rng.integers(low, 100, n).astype(np.float64)
    if np.dtype(src).kind in "fc":
        values += rng.integers(0, 4, n) / 4
    if np.dtype(src).kind == "c":
        values = values + 1j * rng.integers(low, 100, n)
    return values.astype(src)


@pytest.mark.parametrize("src", DTYPES)
def test_cast_every_pair(backend, rng, src):
    for dst in DTYPES:
        # astype refuses complex -> real (the array API drops no imaginary part)
        if dst == src or (np.dtype(src).kind == "c" and np.dtype(dst).kind != "c"):
            continue
        for n in CAST_SIZES:
            a = cast_source(rng, n + 1, src, dst)
            d = devarray.to_device(a)
            assert_values(devarray.astype(d, dst), a.astype(dst))
            # one element in: the input no longer 16-byte aligned
            assert_values(devarray.astype(d[1:], dst), a[1:].astype(dst))
            # into an element past an aligned start: the output not aligned
            w = devarray.zeros(n + 1, dtype=dst)
            w[1:] = d[:-1]
            assert_values(w[1:], a[:-1].astype(dst))


@pytest.mark.parametrize("src,dst", [("float16", "float32"), ("float32", "float16"),
                                     ("int32", "float64"), ("float64", "float32"),
                                     ("int64", "int32"), ("complex64", "complex128")])
def test_cast_full_range(backend, rng, src, dst):
    """Random values over each dtype's range (rounding, wrapping, inf and
    nan), through the tiles: the bytes NumPy gives."""
    a = random_array(rng, 5 * 8192 + 3, src, special=True)
    with np.errstate(all="ignore"):
        expected = a.astype(dst)
    assert_values(devarray.astype(devarray.to_device(a), dst), expected)


# Divisors of every magnitude, both signs, powers of two (a positive one
# multiplies with a multiplier whose shifts they end), the extremes, and
# 0, 1, -1.
DIVISORS = {
    "int32": [2, 3, 7, -7, 8, 10, 641, -65536, 2**30, 2**31 - 1, -2**31, 0, 1, -1],
    "uint32": [2, 3, 7, 10, 641, 65536, 2**31, 2**31 + 1, 2**32 - 1, 0, 1],
    "int64": [2, 7, -7, 1000, 2**31 - 1, 2**32 + 1, -2**40 - 3, 2**62, 2**63 - 1, -2**63,
              0, 1, -1],
    "uint64": [2, 7, 1000, 2**32 - 1, 2**32 + 1, 2**63, 2**63 + 5, 2**64 - 1, 0, 1],
    "int16": [7, -7, 2**14, 2**15 - 1],
    "uint16": [3, 7, 2**15, 2**16 - 1, 1],
    "int8": [3, 7, 64, 127, -128, 1],
    "uint8": [7, 128, 255],
}


@pytest.mark.parametrize("dt", sorted(DIVISORS))
def test_integer_division_by_scalar(backend, rng, dt):
    a = random_array(rng, 3 * 1024 + 5, dt, special=True)
    d = devarray.to_device(a)
    for b in DIVISORS[dt] + [int(rng.integers(2, np.iinfo(dt).max, dtype=dt))]:
        with np.errstate(all="ignore"):
            q, r = a // b, a % b
        assert_values(d // b, q)
        assert_values(d % b, r)
        assert_values(devarray.floor_divide(d[3:], b), q[3:])
        assert_values(devarray.remainder(d[3:], b), r[3:])


@pytest.mark.parametrize("itemsize_dtype", ["uint8", "int16", "float32", "float64",
                                            "complex128"])
@pytest.mark.parametrize("shape", [(3, 1000), (1000, 3), (17, 257), (2, 300, 5), (70001,)])
def test_strided_copy(backend, rng, itemsize_dtype, shape):
    """flip and reversed or stepped slices copied into C order: rows longer
    and shorter than a block of 256 threads, so a thread's four elements
    stay in a row or cross into the next."""
    a = random_array(rng, shape, itemsize_dtype)
    d = devarray.to_device(a)
    for axis in range(a.ndim):
        assert_values(devarray.asarray(devarray.flip(d, axis=axis), copy=True),
                      np.flip(a, axis=axis))
    assert_values(devarray.asarray(devarray.flip(d), copy=True), np.flip(a))
    step = (slice(None, None, 2),) * a.ndim
    assert_values(devarray.asarray(d[step], copy=True), a[step])


@pytest.mark.parametrize("dt", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("cols", [1, 3, 4, 8, 16, 40, 1000])
def test_copied_rows(backend, rng, dt, cols):
    """Copies whose rows are contiguous in the input and the output, which
    the GPU moves in elements of up to 16 bytes when the rows' bytes
    divide and every row starts aligned: a broadcast row, slices starting
    0 to 3 elements in (aligned or not), reversed rows and a batch of
    them."""
    a = random_array(rng, (37, cols + 3), dt)
    d = devarray.to_device(a)
    v, dv = a[5, :cols], d[5, :cols]
    assert_values(devarray.asarray(devarray.broadcast_to(dv, (29, cols)), copy=True),
                  np.broadcast_to(v, (29, cols)))
    for first in range(4):
        part = (slice(None), slice(first, first + cols))
        assert_values(devarray.asarray(d[part], copy=True), a[part])
        assert_values(devarray.asarray(d[::-3, first:first + cols], copy=True),
                      a[::-3, first:first + cols])
    t = random_array(rng, (3, 11, cols + 2), dt)
    assert_values(devarray.asarray(devarray.to_device(t)[:, ::2, 2:], copy=True),
                  t[:, ::2, 2:])


def test_strided_copy_beyond_32_bit_indices(gpu, rng):
    """Strided copies of more than 2^32 elements go in pieces of 32-bit
    indices: blocks of rows when a row fits (65,537 rows of 65,536), and
    single rows of one dimension fewer when it does not (2 rows of 2^32 +
    1,028, cut again along the row).  The elements around each cut are
    compared with NumPy's."""
    limit = 2**32 - 1 - 1024  # kernels/elementwise.cu's kMoveMaxElements
    a = np.frombuffer(rng.bytes(65537 * 65552), np.uint8).reshape(65537, 65552)
    got = devarray.asarray(devarray.to_device(a)[:, 16:], copy=True)
    cut = limit // 65536
    for rows in (slice(0, 2), slice(cut - 1, cut + 1), slice(65535, 65537)):
        assert_values(got[rows], a[rows, 16:])
    del got
    n = limit + 2053
    a = np.frombuffer(rng.bytes(2 * n), np.uint8).reshape(2, n)
    got = devarray.asarray(devarray.to_device(a)[:, ::-1], copy=True)
    for row in (0, 1):
        for start in (0, limit - 1000, n - 1000):
            assert_values(got[row, start:start + 2000], a[row, ::-1][start:start + 2000])

def rows_operands(rng, dt, rows, cols):
    """(name, NumPy operands, devarray operands) of binary problems that
    arrive as rows: a row vector, a column, both broadcast, a slice of a
    wider matrix (its rows 4 KiB apart, starting one element in), and the
    slice against a scalar."""
    m = random_array(rng, (rows, cols), dt)
    wide = random_array(rng, (rows, cols + 1024), dt)
    v = random_array(rng, (cols,), dt)
    c = random_array(rng, (rows,), dt)
    dm, dwide, dv, dc = (devarray.to_device(a) for a in (m, wide, v, c))
    part = (slice(None), slice(1, cols + 1))
    return [("m + v", (m, v), (dm, dv)), ("v + m", (v, m), (dv, dm)),
            ("c[:, None] + m", (c[:, None], m), (dc[:, None], dm)),
            ("m + c[:, None]", (m, c[:, None]), (dm, dc[:, None])),
            ("c[:, None] + v", (c[:, None], v), (dc[:, None], dv)),
            ("slice + m", (wide[part], m), (dwide[part], dm)),
            ("slice + 3", (wide[part], 3), (dwide[part], 3))]


def check_rows(rng, dt, rows, cols):
    ops = [("add", np.add, devarray.add), ("multiply", np.multiply, devarray.multiply)]
    if np.dtype(dt).kind != "c":
        ops.append(("greater", np.greater, devarray.greater))
    rtol = 0.0 if np.dtype(dt).kind in "biu" else 4 * float(np.finfo(dt).eps)
    for name, (x, y), (dx, dy) in rows_operands(rng, dt, rows, cols):
        for opname, numpy_op, devarray_op in ops:
            with np.errstate(all="ignore"):
                expected = numpy_op(x, y)
            assert_values(devarray_op(dx, dy), expected, rtol=rtol), (name, opname)


@pytest.mark.parametrize("dt", ["bool", "int8", "int32", "uint64", "float16", "float32",
                                "float64", "complex64", "complex128"])
@pytest.mark.parametrize("rows,cols", [(5, 64), (300, 1000), (3, 70001)])
def test_binary_rows(backend, rng, dt, rows, cols):
    """Binary ops over rows of a 2-D result (a row of the grid per matrix
    row): add, multiply and a comparison (a bool result, narrower than its
    operands)."""
    check_rows(rng, dt, rows, cols)


def test_binary_rows_beyond_grid(backend, rng):
    """More rows than CUDA's 65,535 blocks along y: the rows loop."""
    check_rows(rng, "float32", 70000, 64)


@pytest.mark.parametrize("dt", [t for t in DTYPES if np.dtype(t).kind in "iuf"])
def test_square_by_scalar_power(backend, rng, dt):
    """x ** 2 runs as x * x (NumPy's fast scalar power): NumPy's bytes, in
    place too, for integer and float exponents; x ** 3 stays a pow."""
    a = random_array(rng, 4099, dt, special=True)
    d = devarray.to_device(a)
    with np.errstate(all="ignore"):
        assert_values(d ** 2, a ** 2)
        assert_values(d ** 2.0, a ** 2.0)
        assert_values(devarray.pow(d, 2), np.power(a, 2))
        expected3 = a ** 3
    assert_values(d ** 3, expected3, rtol=0.0 if np.dtype(dt).kind in "iu"
                  else 4 * float(np.finfo(dt).eps))
    d **= 2
    assert_values(d, a ** 2)


@pytest.mark.parametrize("dt", DTYPES)
def test_masked_fill(backend, rng, dt):
    """x[mask] = scalar with a bool mask of x's shape: one where() in place.
    Against NumPy's bytes, with the mask strided, the mask x itself (bool),
    and a refused value leaving x as it was."""
    a = random_array(rng, (67, 130), dt)
    mask = rng.random((67, 260)) < 0.4
    value = True if dt == "bool" else 3 if np.dtype(dt).kind in "iu" else 2.5
    d, dmask = devarray.to_device(a), devarray.to_device(mask)
    expected = a.copy()
    expected[mask[:, ::2]] = value
    d[dmask[:, ::2]] = value
    assert_values(d, expected)
    d[(dmask[:, 1::2],)] = value
    expected[(mask[:, 1::2],)] = value
    assert_values(d, expected)
    if dt == "bool":
        d[d] = False
        assert_values(d, np.zeros_like(a))
    if np.dtype(dt).kind in "iu":
        before = devarray.to_device(a)
        with pytest.raises(OverflowError):
            before[dmask[:, ::2]] = 1 << 70
        assert_values(before, a)


BOOL_OPS = ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
            "bitwise_xor", "equal", "not_equal", "less", "less_equal", "greater",
            "greater_equal", "maximum", "minimum", "add", "multiply"]


@pytest.mark.parametrize("name", BOOL_OPS + ["logical_not", "bitwise_invert", "abs"])
def test_bool_ops_on_any_byte(backend, rng, name):
    """bool arrays holding any byte (a uint8 buffer viewed as bool): every
    nonzero byte is true and every result byte 0 or 1, as NumPy's ops on
    the bytes made 0 or 1.  Lengths around a 16-byte vector, starts off
    its alignment, and Python bool scalars on either side."""
    fn = getattr(devarray, name)
    for n in (1, 15, 16, 17, 100, 4099):
        raw = rng.integers(0, 256, n + 3, dtype=np.uint8)
        raw[rng.random(n + 3) < 0.4] = 0
        other = rng.integers(0, 4, n + 3, dtype=np.uint8)
        x, y = raw.view(np.bool_), other.view(np.bool_)
        xs, ys = raw != 0, other != 0
        dx, dy = devarray.to_device(x), devarray.to_device(y)
        np_fn = getattr(np, "invert" if name == "bitwise_invert" else name)
        for start in (0, 1, 3):
            if name in ("logical_not", "bitwise_invert", "abs"):
                cases = [(fn(dx[start:]), np_fn(xs[start:]))]
            else:
                cases = [(fn(dx[start:], dy[:n + 3 - start]),
                          np_fn(xs[start:], ys[:n + 3 - start])),
                         (fn(dx[start:], True), np_fn(xs[start:], True)),
                         (fn(False, dx[start:]), np_fn(False, xs[start:]))]
            for got, expected in cases:
                got = host(got)
                assert got.dtype == np.bool_, (name, got.dtype)
                assert np.array_equal(got.view(np.uint8), expected.view(np.uint8)), \
                    (name, n, start, got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dt", ["float16", "float32", "int16", "int32", "uint64", "float64"])
@pytest.mark.parametrize("name", ["isnan", "less", "equal", "negative", "abs", "sqrt",
                                  "floor", "add", "maximum", "exp"])
def test_vector_widths(backend, rng, dt, name):
    """The contiguous kernels' vectors: 16 bytes of float16 for its short
    ops (8 for its math functions), 32 bytes of each operand for a bool
    result of wider ones; lengths around those widths and starts off
    their alignment, an operand scalar or not, against NumPy's bytes (exp
    within 4 ulp)."""
    kind = np.dtype(dt).kind
    if kind != "f" and name in ("isnan", "sqrt", "floor", "exp"):
        pytest.skip("a float function")
    fn, np_fn = getattr(devarray, name), getattr(np, name)
    for n in (1, 7, 8, 9, 31, 33, 257, 4099):
        a = random_array(rng, n + 3, dt, special=True)
        b = random_array(rng, n + 3, dt, special=True)
        da, db = devarray.to_device(a), devarray.to_device(b)
        for start in (0, 1, 2):
            with np.errstate(all="ignore"):
                if name in ("less", "equal", "add", "maximum"):
                    scalar = a.dtype.type(1)
                    cases = [(fn(da[start:], db[:n + 3 - start]),
                              np_fn(a[start:], b[:n + 3 - start])),
                             (fn(da[start:], 1), np_fn(a[start:], scalar))]
                else:
                    cases = [(fn(da[start:]), np_fn(a[start:]))]
            # exp: the GPU's and NumPy's libm differ in the last bits
            rtol = 4 * float(np.finfo(dt).eps) if name == "exp" else 0.0
            for got, expected in cases:
                assert_values(got, expected, rtol=rtol)
