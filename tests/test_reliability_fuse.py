"""devarray.fuse misused: a clear exception at trace time naming the
operation, the arguments untouched, never a crash."""

import numpy as np
import pytest

import devarray as da
from _helpers import random_array, snapshot


def args_of(rng):
    return (da.asarray(random_array(rng, (6, 4), "float32")),
            da.asarray(random_array(rng, (6, 4), "float32")))


@pytest.mark.parametrize("fn, match", [
    (lambda x, y: x[0] + y, "indexing"),
    (lambda x, y: x.reshape((24,)) + y, "reshape"),
    (lambda x, y: x.shape, "shape"),
    (lambda x, y: x @ y, "@"),
    (lambda x, y: x + y if x > y else x, r"bool\(\)"),
    (lambda x, y: float(x), r"float\(\)"),
    (lambda x, y: [v for v in x], "iteration"),
    (lambda x, y: divmod(x, y), "divmod"),
    (lambda x, y: pow(x, y, 3), "modulo"),
    (lambda x, y: da.bitwise_and(x, y), "bitwise_and"),
    (lambda x, y: x.sum() + y, "after the final reduction"),
    (lambda x, y: (x.sum(), y.sum()), "one final reduction"),
    (lambda x, y: (x + y, y), "must return"),
    (lambda x, y: 3, "must return"),
    (lambda x, y: x.sum(axis=5), "axis"),
    (lambda x, y: da.clip(x, 0, 1), "clip"),
    (lambda x, y: da.reshape(x, (24,)), "FuseTracer"),
    (lambda x, y: da.sum(x), "FuseTracer"),
    (lambda x, y: da.max(x), "FuseTracer"),
    (lambda x, y: x + np.ones(3), "ndarray"),
])
def test_trace_time_errors(backend, rng, fn, match):
    x, y = args_of(rng)
    before = snapshot([x, y])
    with pytest.raises((TypeError, ValueError), match=match):
        da.fuse(fn)(x, y)
    assert snapshot([x, y]) == before


def test_in_place_operators_refused(backend, rng):
    x, y = args_of(rng)
    before = snapshot([x, y])

    def fn(a, b):
        a += b
        return a

    with pytest.raises(TypeError, match="in-place"):
        da.fuse(fn)(x, y)
    assert snapshot([x, y]) == before


def test_captured_array_refused(backend, rng):
    x, y = args_of(rng)
    with pytest.raises(TypeError, match="pass it as an argument"):
        da.fuse(lambda a: a + y)(x)
    with pytest.raises(TypeError, match="pass it as an argument"):
        da.fuse(lambda a: y + a)(x)


def test_scalar_only_ops_refused(backend, rng):
    x, _ = args_of(rng)
    with pytest.raises(TypeError, match="Python scalars only"):
        da.fuse(lambda a, s, t: a + (s * t))(x, 2, 3)


def test_tracer_kept_past_its_trace(backend, rng):
    x, y = args_of(rng)
    kept = []

    def fn(a, b):
        kept.append(a)
        return a + b

    da.fuse(fn)(x, y)
    with pytest.raises(TypeError, match="outside the trace"):
        kept[0] + 1


def test_bad_arguments(backend, rng):
    x, y = args_of(rng)
    f = da.fuse(lambda a, b: a + b)
    with pytest.raises(TypeError, match="ndarray"):
        f(x, np.ones((6, 4)))
    with pytest.raises(TypeError, match="positional"):
        f(x, b=y)
    with pytest.raises(TypeError):
        f(x)
    with pytest.raises(TypeError, match="function"):
        da.fuse(3)
    with pytest.raises(ValueError, match="broadcast"):
        f(x, da.zeros((5,), dtype="float32"))
    assert f(x, y).shape == (6, 4)


def test_errors_from_the_function_pass_through(backend, rng):
    x, y = args_of(rng)

    class Boom(Exception):
        pass

    def fn(a, b):
        raise Boom()

    f = da.fuse(fn)
    with pytest.raises(Boom):
        f(x, y)
    assert f.traces == 0
    with pytest.raises(ValueError, match="negative integer powers"):
        da.fuse(lambda a: a ** -1)(da.asarray(np.arange(3)))
