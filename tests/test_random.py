"""devarray.random: Philox4x32-10 against Random123's known answers and a
Python reference of the counter mapping, the documented methods of
exponentials, permutations and choice, the host and CUDA backends bit for
bit, statistical sanity at fixed seeds (thresholds a broken generator
fails), counter bookkeeping, and refused calls that leave the state as it
was."""

import math
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")

import devarray  # noqa: E402
import devarray.random as drandom  # noqa: E402
from devarray import _core  # noqa: E402

BITS32, BITS64, UNIFORM_F32, UNIFORM_F64, INT_R32, INT_R64, NORMAL_F32, NORMAL_F64 = range(8)
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


# ---- a reference Philox4x32-10 in Python ---------------------------------------------

def philox(counter, key):
    """Philox4x32-10 of four counter words under two key words."""
    c, k = list(counter), list(key)
    for round_ in range(10):
        if round_:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
    return c


def reference_words(key, counter, nwords):
    """The stream's words: word w is word w % 4 of counter + w // 4."""
    words = []
    for j in range((nwords + 3) // 4):
        c = (counter + j) & ((1 << 128) - 1)
        words += philox([(c >> s) & M32 for s in (0, 32, 64, 96)], key)
    return words[:nwords]


def split(key, counter):
    return (key & M32, key >> 32), (counter & M64, counter >> 64)


def fill(kind, dtype, n, key, counter, **params):
    out = devarray.empty((n,), dtype=dtype)
    k, c = split(key, counter)
    blocks = _core._random_fill(out, kind, k, c, **params)
    return out.to_host(), blocks


# ---- known answers (Random123's kat_vectors for philox4x32_10) ---------------------

KNOWN = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((M32, M32, M32, M32), (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter, key, expected", KNOWN)
def test_known_answers_through_the_primitive(backend, counter, key, expected):
    out = devarray.empty((4,), dtype="uint32")
    c = (counter[0] | counter[1] << 32, counter[2] | counter[3] << 32)
    assert _core._random_fill(out, BITS32, key, c) == 1
    assert out.tolist() == list(expected)


@pytest.mark.parametrize("counter, key, expected", KNOWN)
def test_reference_matches_known_answers(counter, key, expected):
    assert philox(counter, key) == list(expected)


# ---- the counter mapping -------------------------------------------------------------

KEY = 0x0123456789ABCDEF
# low 64 bits two blocks short of wrapping: draws carry into the high half
COUNTER = (0xFEDCBA9876543210 << 64) | (M64 - 1)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 13, 64])
def test_bits32_is_the_word_stream(backend, n):
    words, blocks = fill(BITS32, "uint32", n, KEY, COUNTER)
    key = (KEY & M32, KEY >> 32)
    assert words.tolist() == reference_words(key, COUNTER, n)
    assert blocks == (n + 3) // 4


@pytest.mark.parametrize("n", [1, 2, 3, 9])
def test_bits64_and_uniform_f64_read_word_pairs(backend, n):
    key = (KEY & M32, KEY >> 32)
    words = reference_words(key, COUNTER, 2 * n)
    u64 = [words[2 * i] | words[2 * i + 1] << 32 for i in range(n)]
    bits, blocks = fill(BITS64, "uint64", n, KEY, COUNTER)
    assert bits.tolist() == u64 and blocks == (n + 1) // 2
    floats, _ = fill(UNIFORM_F64, "float64", n, KEY, COUNTER)
    assert floats.tolist() == [(u >> 11) * 2.0 ** -53 for u in u64]


def test_uniform_f32_takes_the_top_24_bits(backend):
    key = (KEY & M32, KEY >> 32)
    words = reference_words(key, COUNTER, 10)
    floats, blocks = fill(UNIFORM_F32, "float32", 10, KEY, COUNTER)
    assert floats.tolist() == [(w >> 8) * 2.0 ** -24 for w in words] and blocks == 3


@pytest.mark.parametrize("low, span, dtype", [
    (0, 1, "int64"), (-5, 10, "int8"), (0, 2, "bool"), (7, 1000003, "int32"),
    (-(1 << 31), 1 << 32, "int32"), (0, 3 << 30, "uint32"), (0, 1 << 32, "uint64"),
])
def test_integers_within_2_pow_32_multiply_shift_two_words(backend, low, span, dtype):
    key = (KEY & M32, KEY >> 32)
    n = 11
    words = reference_words(key, COUNTER, 2 * n)
    expected = [low + ((words[2 * i] | words[2 * i + 1] << 32) * span >> 64) for i in range(n)]
    got, blocks = fill(INT_R32, dtype, n, KEY, COUNTER, low=low, range=span)
    assert [int(v) for v in got.tolist()] == expected and blocks == (n + 1) // 2


@pytest.mark.parametrize("low, span, dtype", [
    (0, (1 << 32) + 1, "int64"), (-(1 << 63), 0, "int64"), (0, 0, "uint64"),
    (12345, 10 ** 18, "int64"), (0, (1 << 64) - 1, "uint64"),
])
def test_integers_beyond_2_pow_32_multiply_shift_four_words(backend, low, span, dtype):
    key = (KEY & M32, KEY >> 32)
    n = 5
    words = reference_words(key, COUNTER, 4 * n)
    full = span or 1 << 64
    expected = []
    for i in range(n):
        w = words[4 * i: 4 * i + 4]
        u128 = w[0] | w[1] << 32 | w[2] << 64 | w[3] << 96
        value = (low + (u128 * full >> 128)) & M64
        expected.append(value - (1 << 64) if dtype == "int64" and value >> 63 else value)
    got, blocks = fill(INT_R64, dtype, n, KEY, COUNTER, low=low, range=span)
    assert [int(v) for v in got.tolist()] == expected and blocks == n


@pytest.mark.parametrize("kind, dtype", [(BITS32, "uint32"), (UNIFORM_F32, "float32"),
                                         (UNIFORM_F64, "float64"), (NORMAL_F32, "float32"),
                                         (NORMAL_F64, "float64"), (INT_R32, "int16"),
                                         (INT_R64, "uint64")])
def test_elements_depend_on_key_counter_and_index_only(backend, kind, dtype):
    params = {"low": 3, "range": 1000} if kind in (INT_R32, INT_R64) else {}
    long_draw, blocks = fill(kind, dtype, 1000, KEY, COUNTER, **params)
    per = 1000 // blocks
    for n in (1, 7, 999):
        assert fill(kind, dtype, n, KEY, COUNTER, **params)[0].tobytes() == \
            long_draw[:n].tobytes()
    later, _ = fill(kind, dtype, 1000 - 3 * per, KEY, COUNTER + 3, **params)
    assert later.tobytes() == long_draw[3 * per:].tobytes()


def test_primitive_refuses_what_it_cannot_do(backend):
    out = devarray.empty((4,), dtype="float32")
    with pytest.raises(TypeError):
        _core._random_fill(out, BITS64, (0, 0), (0, 0))
    with pytest.raises(ValueError):
        _core._random_fill(out, 99, (0, 0), (0, 0))
    with pytest.raises(OverflowError):
        _core._random_fill(out, BITS32 + 2, (1 << 32, 0), (0, 0))
    ints = devarray.empty((4,), dtype="int32")
    with pytest.raises(ValueError):
        _core._random_fill(ints, INT_R32, (0, 0), (0, 0), low=0, range=(1 << 32) + 1)
    with pytest.raises(ValueError):
        _core._random_fill(devarray.empty((4, 4), dtype="uint32")[:, ::2], BITS32,
                           (0, 0), (0, 0))


# ---- seeding ---------------------------------------------------------------------------

@pytest.mark.parametrize("entropy", [0, 1, 42, 2 ** 32, 2 ** 100 + 7, [1, 2, 3], list(range(9)),
                                     []])
def test_seed_sequence_is_numpys(entropy):
    ours, theirs = drandom.SeedSequence(entropy), np.random.SeedSequence(entropy)
    assert list(ours.generate_state(8)) == theirs.generate_state(8).tolist()
    assert list(ours.generate_state(3, "uint64")) == \
        theirs.generate_state(3, np.uint64).tolist()
    for a, b in zip(ours.spawn(3), theirs.spawn(3)):
        assert list(a.generate_state(4)) == b.generate_state(4).tolist()
        assert list(a.spawn(2)[1].generate_state(4)) == b.spawn(2)[1].generate_state(4).tolist()


def test_seeds_of_every_form_agree(backend):
    expected = drandom.default_rng(1234).random(16).to_host()
    for seed in (drandom.SeedSequence(1234), np.random.SeedSequence(1234),
                 drandom.Philox(1234), np.int64(1234)):
        assert drandom.default_rng(seed).random(16).to_host().tobytes() == expected.tobytes()
    rng = drandom.default_rng(5)
    assert drandom.default_rng(rng) is rng
    assert drandom.default_rng([1, 2]).random(4).to_host().tobytes() != \
        drandom.default_rng([2, 1]).random(4).to_host().tobytes()
    assert drandom.default_rng().random(4).to_host().tobytes() != \
        drandom.default_rng().random(4).to_host().tobytes()


@pytest.mark.parametrize("seed", [-1, 1.5, "7", np.random.default_rng(0)])
def test_bad_seeds_are_refused(seed):
    with pytest.raises((TypeError, ValueError)):
        drandom.default_rng(seed)


def test_the_seed_sets_key_and_counter_high_half():
    words = drandom.SeedSequence(99).generate_state(4)
    bg = drandom.Philox(99)
    assert bg.key == words[0] | words[1] << 32
    assert bg.counter == (words[2] | words[3] << 32) << 64
    assert drandom.Philox(key=5, counter=7).state == \
        {"bit_generator": "Philox4x32", "state": {"key": 5, "counter": 7}}


# ---- counters, jumps, spawns -------------------------------------------------------------

@pytest.mark.parametrize("call, blocks", [
    (lambda g: g.random(10, dtype="float32"), 3),
    (lambda g: g.random(10), 5),
    (lambda g: g.random(), 1),
    (lambda g: g.random((0, 5)), 0),
    (lambda g: g.uniform(-1, 1, size=(3, 3), dtype="float32"), 3),
    (lambda g: g.integers(0, 10, size=10), 5),
    (lambda g: g.integers(0, 2 ** 40, size=3), 3),
    (lambda g: g.integers(-2 ** 63, 2 ** 63, size=2), 2),
    (lambda g: g.standard_normal(5), 3),
    (lambda g: g.normal(1.0, 2.0, size=9, dtype="float32"), 3),
    (lambda g: g.standard_exponential(5), 3),
    (lambda g: g.exponential(2.0, size=9, dtype="float32"), 3),
    (lambda g: g.permutation(5), 3),
    (lambda g: g.shuffle(devarray.zeros((4, 7)), axis=1), 4),
    (lambda g: g.choice(10, size=3), 2),
    (lambda g: g.choice(10, size=0, p=[0.1] * 10), 0),
    (lambda g: g.choice(4, size=(2, 3), p=[0.5, 0.25, 0.25, 0]), 6),
    (lambda g: g.choice(10, size=9, replace=False), 5),
])
def test_each_draw_advances_by_the_counters_it_used(backend, call, blocks):
    g = drandom.Generator(drandom.Philox(key=1, counter=M64))
    call(g)
    assert g.bit_generator.counter == M64 + blocks


def test_consecutive_draws_continue_the_stream(backend):
    g = drandom.Generator(drandom.Philox(key=77))
    first, second = g.random(8).to_host(), g.random(8).to_host()
    whole = drandom.Generator(drandom.Philox(key=77)).random(16).to_host()
    assert np.concatenate([first, second]).tobytes() == whole.tobytes()


def test_advance_jumped_and_state(backend):
    bg = drandom.Philox(3)
    start = bg.counter
    jumped = bg.jumped(2)
    assert jumped.key == bg.key and jumped.counter == (start + 2 * 2 ** 64) % 2 ** 128
    assert bg.counter == start  # jumped() leaves the original as it was
    ahead = drandom.Philox(3).advance(2 * 2 ** 64)
    assert drandom.Generator(ahead).random(6).to_host().tobytes() == \
        drandom.Generator(jumped).random(6).to_host().tobytes()
    assert drandom.Generator(bg).random(6).to_host().tobytes() != \
        drandom.Generator(drandom.Philox(3).jumped()).random(6).to_host().tobytes()
    copy = drandom.Philox(key=0)
    copy.state = bg.state
    assert drandom.Generator(copy).random(4).to_host().tobytes() == \
        drandom.Generator(bg).random(4).to_host().tobytes()
    with pytest.raises(ValueError):
        bg.advance(-1)
    with pytest.raises(ValueError):
        bg.jumped(-1)


def test_spawn_gives_distinct_reproducible_streams(backend):
    children = drandom.default_rng(8).spawn(4)
    draws = [c.random(32).to_host().tobytes() for c in children]
    assert len(set(draws)) == 4
    again = [c.random(32).to_host().tobytes() for c in drandom.default_rng(8).spawn(4)]
    assert draws == again
    keyed = drandom.Generator(drandom.Philox(np.random.SeedSequence(8)))
    assert [c.random(32).to_host().tobytes() for c in keyed.spawn(4)] == draws


def test_pickling_keeps_the_state(backend):
    import pickle

    g = drandom.default_rng(11)
    g.random(3)
    h = pickle.loads(pickle.dumps(g))
    assert h.random(10).to_host().tobytes() == g.random(10).to_host().tobytes()


# ---- the Generator's values ------------------------------------------------------------

def test_shapes_dtypes_and_out(backend):
    g = drandom.default_rng(0)
    assert g.random().shape == () and g.random().dtype == devarray.float64
    assert g.random((2, 3), dtype=devarray.float32).shape == (2, 3)
    assert g.integers(5, size=(4,)).dtype == devarray.int64
    assert g.integers(0, 2, size=5, dtype=bool).dtype == devarray.bool
    out = devarray.zeros((3, 4), dtype="float32")
    assert g.random(dtype="float32", out=out) is out
    assert g.standard_normal(out=out, dtype="float32") is out
    g1, g2 = drandom.default_rng(4), drandom.default_rng(4)
    out = devarray.empty((5, 2))
    g1.random(out=out)
    assert out.to_host().tobytes() == g2.random((5, 2)).to_host().tobytes()


def test_integers_stay_in_range(backend):
    g = drandom.default_rng(2)
    for low, high, dtype, endpoint in [(0, 10, "int64", False), (-3, 3, "int8", True),
                                       (0, 256, "uint8", False), (-128, 127, "int8", True),
                                       (0, 2 ** 64, "uint64", False),
                                       (-2 ** 63, 2 ** 63 - 1, "int64", True),
                                       (10, 11, "int16", False), (0, 1, "bool", True)]:
        x = g.integers(low, high, size=5000, dtype=dtype, endpoint=endpoint).to_host()
        top = high if endpoint else high - 1
        assert int(x.min()) >= low and int(x.max()) <= top
        if top - low < 300:
            assert set(x.astype(np.int64).tolist()) == set(range(low, top + 1))


def test_uniform_and_normal_parameters(backend):
    g = drandom.default_rng(3)
    x = g.uniform(-2.0, 6.0, size=100000).to_host()
    assert x.min() >= -2.0 and x.max() < 6.0 and abs(x.mean() - 2.0) < 0.05
    y = g.normal(10.0, 3.0, size=100000, dtype="float32").to_host()
    assert y.dtype == np.float32 and abs(y.mean() - 10.0) < 0.1 and abs(y.std() - 3.0) < 0.1
    assert (g.uniform(5.0, 5.0, size=10).to_host() == 5.0).all()


# ---- exponentials, permutations and samples: the documented methods ---------------

def twin(seed=77):
    """A new generator, the same one for the same seed, its counter near the
    wrap of the low half."""
    return drandom.Generator(drandom.Philox(key=KEY ^ seed, counter=COUNTER))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_exponential_is_minus_log1p_of_random(backend, dtype):
    g, h = twin(), twin()
    e = g.standard_exponential(1001, dtype=dtype).to_host()
    u = h.random(1001, dtype=dtype).to_host()
    assert e.dtype == np.dtype(dtype) and g.bit_generator.counter == h.bit_generator.counter
    expected = -np.log1p(-u)
    # log1p of the backend's math library against NumPy's: within 2 ulp
    assert np.all(np.abs(e - expected) <= 2 * np.spacing(np.maximum(expected, 1e-30)))
    assert e.min() >= 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential_is_scale_times_standard_exponential(backend, dtype):
    e = twin().exponential(2.5, size=(3, 7), dtype=dtype).to_host()
    standard = twin().standard_exponential((3, 7), dtype=dtype).to_host()
    assert e.shape == (3, 7) and e.dtype == np.dtype(dtype)
    assert e.tobytes() == (standard * np.asarray(2.5, dtype=dtype)).tobytes()
    assert (twin().exponential(0.0, size=5).to_host() == 0).all()
    out = devarray.empty((2, 5), dtype=dtype)
    assert twin().standard_exponential(dtype=dtype, out=out) is out
    assert out.to_host().tobytes() == twin().standard_exponential((2, 5), dtype=dtype) \
        .to_host().tobytes()


def key_order(key, counter, n):
    """The reference permutation: range(n) ordered by the 64-bit keys of a
    bits64 draw, ties in index order."""
    words = reference_words((key & M32, key >> 32), counter, 2 * n)
    keys = [words[2 * i] | words[2 * i + 1] << 32 for i in range(n)]
    return sorted(range(n), key=lambda i: (keys[i], i))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_permutation_is_the_order_of_random_keys(backend, n):
    g = twin()
    perm = g.permutation(n)
    assert perm.dtype == devarray.int64 and perm.shape == (n,)
    assert perm.tolist() == key_order(KEY ^ 77, COUNTER, n)
    assert sorted(perm.tolist()) == list(range(n))
    assert g.bit_generator.counter == COUNTER + (n + 1) // 2
    assert twin().permutation(-3).tolist() == []  # NumPy's arange(-3)


def test_permutation_of_an_array_moves_subarrays_along_axis(backend):
    base = np.arange(5 * 6 * 4, dtype=np.float32).reshape(5, 6, 4)
    for axis in (0, 1, -1):
        x = devarray.asarray(base)
        got = twin().permutation(x, axis=axis).to_host()
        order = key_order(KEY ^ 77, COUNTER, base.shape[axis])
        assert got.tobytes() == np.take(base, order, axis=axis).tobytes()
        assert x.to_host().tobytes() == base.tobytes()  # a copy: x is as it was
    assert twin().permutation([3, 1, 2]).tolist() == [[3, 1, 2][i] for i in key_order(
        KEY ^ 77, COUNTER, 3)]


def test_shuffle_permutes_in_place_along_axis_only(backend):
    base = np.arange(6 * 9, dtype=np.int32).reshape(6, 9)
    x = devarray.asarray(base)
    assert twin().shuffle(x, axis=1) is None
    shuffled = x.to_host()
    assert shuffled.tobytes() == twin().permutation(devarray.asarray(base), axis=1) \
        .to_host().tobytes()
    # each row keeps its elements, each column moved whole
    assert (np.sort(shuffled, axis=1) == base).all()
    assert ((shuffled - shuffled[:, :1]) == (shuffled[0] - shuffled[0, 0])).all()
    assert shuffled.tolist() != base.tolist()
    # a strided view: the other columns stay where they are
    y = devarray.asarray(base)
    view = y[:, ::2]
    twin().shuffle(view)
    after = y.to_host()
    assert (after[:, 1::2] == base[:, 1::2]).all()
    assert after[:, ::2].tobytes() == np.take(base[:, ::2], key_order(KEY ^ 77, COUNTER, 6),
                                              axis=0).tobytes()


def test_choice_with_replacement_is_integers(backend):
    picks = twin().choice(1000, size=(4, 5))
    assert picks.dtype == devarray.int64 and picks.shape == (4, 5)
    assert picks.to_host().tobytes() == twin().integers(0, 1000, size=(4, 5)).to_host().tobytes()
    assert twin().choice(7).shape == ()
    base = np.arange(3 * 10 * 2).reshape(3, 10, 2)
    got = twin().choice(devarray.asarray(base), size=(2, 2), axis=1).to_host()
    idx = twin().integers(0, 10, size=4).to_host()
    assert got.shape == (3, 2, 2, 2)
    assert got.tobytes() == np.take(base, idx, axis=1).reshape(3, 2, 2, 2).tobytes()
    assert twin().choice([10, 20, 30], size=()).shape == ()


def fixed_point(p):
    """choice's integer weights of p, in Python integers: floor(p * 2**s)
    for the largest s that keeps their sum below 2**62."""
    n = len(p)
    s0 = 62 - n.bit_length() - math.frexp(max(p))[1]
    rough = sum(math.floor(math.ldexp(v, s0)) for v in p)
    s = s0 + 62 - (rough + n).bit_length()
    weights = [math.floor(math.ldexp(v, s)) for v in p]
    assert sum(weights) < 1 << 62 and sum(weights) > 1 << 60
    return weights


P8 = [0.1, 0.0, 0.25, 0.05, 0.3, 0.0, 0.2, 0.1]


def test_choice_with_p_is_searchsorted_on_integer_weights(backend):
    import bisect
    import itertools

    cdf = list(itertools.accumulate(fixed_point(P8)))
    g = twin()
    picks = g.choice(8, size=999, p=P8)
    u = twin().integers(0, cdf[-1], size=999).to_host().tolist()
    assert picks.tolist() == [bisect.bisect_right(cdf, v) for v in u]
    assert g.bit_generator.counter == COUNTER + 999
    assert not set(picks.tolist()) & {1, 5}


@pytest.mark.parametrize("n, k", [(10, 10), (100, 7), (100, 90), (10 ** 12, 50)])
def test_choice_without_replacement_gives_distinct_picks(backend, n, k):
    picks = twin().choice(n, size=k, replace=False).tolist()
    assert len(set(picks)) == k and min(picks) >= 0 and max(picks) < n
    if k * 16 > n:  # from the order of random keys
        assert picks == key_order(KEY ^ 77, COUNTER, n)[:k]
    # shuffle=False is NumPy's speed-up: the same picks here
    assert twin().choice(n, size=k, replace=False, shuffle=False).tolist() == picks


def test_choice_without_replacement_with_p(backend):
    for seed in range(20):
        picks = twin(seed).choice(8, size=6, replace=False, p=P8).tolist()
        assert sorted(picks) == [0, 2, 3, 4, 6, 7]
    # the remaining weights are scaled anew each round: a weight of 1e-300
    # next to 1 is still picked second
    assert twin().choice(3, size=2, replace=False, p=[1.0, 1e-300, 0.0]).tolist() == [0, 1]
    picks = twin().choice(devarray.arange(16.0).reshape(2, 8), size=(2, 2), replace=False,
                          p=P8, axis=1).to_host()
    assert picks.shape == (2, 2, 2) and len(set(picks[0].ravel().tolist())) == 4
    assert (picks[1] == picks[0] + 8).all()


def test_choice_p_tolerance_is_numpys(backend):
    near = [0.5, 0.5, 1e-7]  # sums to 1 + 1e-7: beyond float64's sqrt(eps)
    with pytest.raises(ValueError):
        twin().choice(3, p=near)
    # float32 probabilities get float32's sqrt(eps), as in NumPy
    assert twin().choice(3, size=4, p=np.asarray(near, dtype=np.float32)).shape == (4,)
    assert twin().choice(3, size=4, p=devarray.asarray(near, dtype="float32")).shape == (4,)
    assert twin().choice(3, size=0, p=[0.2, 0.8, 0.0]).shape == (0,)
    assert twin().choice(0, size=0).shape == (0,) and twin().choice([], size=(2, 0)).shape == \
        (2, 0)


# ---- statistics at fixed seeds ------------------------------------------------------------
# The thresholds are far from what a good generator gives (a p-value near
# 1e-4 or smaller), and far below what the usual bugs give: a repeated
# word, a stuck counter, low bits where high ones belong, a wrong scale.

N = 1 << 20


def ks_uniform(x):
    x = np.sort(x.astype(np.float64))
    i = np.arange(1, x.size + 1)
    return max(float((i / x.size - x).max()), float((x - (i - 1) / x.size).max()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_moments_and_ks(backend, dtype):
    x = drandom.default_rng(2024).random(N, dtype=dtype).to_host()
    assert 0.0 <= x.min() and x.max() < 1.0
    sigma = math.sqrt(1 / 12 / N)
    assert abs(x.mean() - 0.5) < 5 * sigma
    assert abs(x.astype(np.float64).var() - 1 / 12) < 5 * math.sqrt(1 / 180 / N)
    assert ks_uniform(x) < 1.95 / math.sqrt(N)  # KS at p = 0.001
    # neighbours are uncorrelated (a repeated or shifted word is not)
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 5 / math.sqrt(N)


def chi_square(counts, expected):
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("low, high, bins", [(0, 10, 10), (-7, 13, 20), (0, 3 << 30, 3),
                                             (0, 10 ** 15, 10)])
def test_integers_chi_square(backend, low, high, bins):
    x = drandom.default_rng(7).integers(low, high, size=N).to_host()
    width = (high - low) // bins  # bins * width == high - low in every case
    counts = np.bincount((x - low) // width, minlength=bins)
    assert counts.size == bins
    # chi-square's 99.9th percentile is below dof + 4.5 sqrt(2 dof) + 10
    dof = bins - 1
    assert chi_square(counts, N / bins) < dof + 4.5 * math.sqrt(2 * dof) + 10


def test_integers_low_bits_are_uniform(backend):
    # the low bit of a value in [0, 2**32) is the bit just below the
    # multiply-shift's top: a generator feeding the wrong words fails here
    x = drandom.default_rng(9).integers(0, 2 ** 32, size=N, dtype="uint32").to_host()
    for bit in (0, 7, 31):
        ones = int(((x >> bit) & 1).sum())
        assert abs(ones - N / 2) < 5 * math.sqrt(N / 4)


def normal_cdf(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_moments_and_chi_square(backend, dtype):
    z = drandom.default_rng(31).standard_normal(N, dtype=dtype).to_host().astype(np.float64)
    assert abs(z.mean()) < 5 / math.sqrt(N)
    assert abs(z.var() - 1) < 5 * math.sqrt(2 / N)
    edges = np.linspace(-4, 4, 41)
    counts = np.histogram(z, bins=np.concatenate([[-np.inf], edges, [np.inf]]))[0]
    cdf = [0.0] + [normal_cdf(e) for e in edges] + [1.0]
    expected = N * np.diff(cdf)
    dof = len(counts) - 1
    assert chi_square(counts, expected) < dof + 4.5 * math.sqrt(2 * dof) + 10
    assert abs(np.corrcoef(z[:-1], z[1:])[0, 1]) < 5 / math.sqrt(N)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential_moments_and_ks(backend, dtype):
    e = drandom.default_rng(41).standard_exponential(N, dtype=dtype).to_host().astype(np.float64)
    assert e.min() >= 0
    assert abs(e.mean() - 1) < 5 / math.sqrt(N)
    assert abs(e.var() - 1) < 5 * math.sqrt(8 / N)  # the variance of a variance estimate: 8/N
    assert ks_uniform(-np.expm1(-e)) < 1.95 / math.sqrt(N)  # the CDF of each value is uniform
    assert abs(np.corrcoef(e[:-1], e[1:])[0, 1]) < 5 / math.sqrt(N)


def test_permutation_is_uniform(backend):
    # where each value lands: a 16 x 16 table of (position, value) buckets of
    # one long permutation, N / 256 in each for a uniform one
    n = 1 << 16
    perm = drandom.default_rng(43).permutation(n).to_host()
    table = np.bincount((np.arange(n) >> 12) * 16 + (perm >> 12), minlength=256)
    assert chi_square(table, n / 256) < 255 + 4.5 * math.sqrt(2 * 255) + 10
    # ascents, (n - 1) / 2 on average (variance (n + 1) / 12): keys too
    # narrow tie, and ties keep their values ascending
    ascents = int((perm[1:] > perm[:-1]).sum())
    assert abs(ascents - (n - 1) / 2) < 5 * math.sqrt((n + 1) / 12)
    # all 24 orders of 4 elements, 100 times each on average
    g = drandom.default_rng(44)
    codes = [int(np.dot(g.permutation(4).to_host(), [64, 16, 4, 1])) for _ in range(2400)]
    counts = np.unique(codes, return_counts=True)[1]
    assert counts.size == 24
    assert chi_square(counts, 100) < 23 + 4.5 * math.sqrt(2 * 23) + 10


def test_choice_with_p_frequencies(backend):
    picks = drandom.default_rng(45).choice(8, size=N, p=P8).to_host()
    counts = np.bincount(picks, minlength=8)
    assert counts[1] == 0 and counts[5] == 0
    p = np.asarray(P8)
    live = p > 0
    dof = int(live.sum()) - 1
    assert chi_square(counts[live], N * p[live]) < dof + 4.5 * math.sqrt(2 * dof) + 10


def test_choice_without_replacement_frequencies(backend):
    # uniform, from rounds of integers: every item equally often, and every
    # position too
    g = drandom.default_rng(46)
    picks = np.stack([g.choice(1000, size=20, replace=False).to_host() for _ in range(2000)])
    assert all(len(set(row)) == 20 for row in picks.tolist())
    counts = np.bincount(picks.ravel(), minlength=1000)
    assert chi_square(counts, 40) < 999 + 4.5 * math.sqrt(2 * 999) + 10
    first = np.bincount(picks[:, 0] // 100, minlength=10)
    assert chi_square(first, 200) < 9 + 4.5 * math.sqrt(18) + 10
    # with p: ordered pairs (i, j) come with probability p_i p_j / (1 - p_i)
    p = [0.6, 0.3, 0.1]
    g = drandom.default_rng(47)
    pairs = [tuple(g.choice(3, size=2, replace=False, p=p).tolist()) for _ in range(3000)]
    expected = {(i, j): 3000 * p[i] * p[j] / (1 - p[i])
                for i in range(3) for j in range(3) if i != j}
    counts = np.array([pairs.count(pair) for pair in expected])
    assert len(set(pairs)) == 6 and set(pairs) <= set(expected)
    assert chi_square(counts, np.array(list(expected.values()))) < 5 + 4.5 * math.sqrt(10) + 10


# ---- refused calls change nothing ---------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda g: g.integers(5, 5), ValueError),
    (lambda g: g.integers(5, 4, endpoint=True), ValueError),
    (lambda g: g.integers(0), ValueError),
    (lambda g: g.integers(-1, 10, dtype="uint8"), ValueError),
    (lambda g: g.integers(0, 257, dtype="uint8"), ValueError),
    (lambda g: g.integers(0, 3, dtype="bool"), ValueError),
    (lambda g: g.integers(0, 10, dtype="float32"), TypeError),
    (lambda g: g.integers(0.5, 10), TypeError),
    (lambda g: g.integers(0, 10, size=-1), ValueError),
    (lambda g: g.random(size=(2, -3)), ValueError),
    (lambda g: g.random(size=1.5), TypeError),
    (lambda g: g.random(dtype="int32"), TypeError),
    (lambda g: g.random(dtype="float16"), TypeError),
    (lambda g: g.random(dtype="not a dtype"), TypeError),
    (lambda g: g.random(out=devarray.empty((3,), dtype="float32")), TypeError),
    (lambda g: g.random(4, out=devarray.empty((3,))), ValueError),
    (lambda g: g.random(out=devarray.empty((4, 4))[:, ::2]), ValueError),
    (lambda g: g.uniform(1.0, 0.0), ValueError),
    (lambda g: g.uniform(-1e308, 1e308), OverflowError),
    (lambda g: g.uniform(0, 1e300, dtype="float32"), OverflowError),
    (lambda g: g.normal(0.0, -1.0), ValueError),
    (lambda g: g.standard_normal(dtype="complex64"), TypeError),
    (lambda g: g.standard_exponential(dtype="int32"), TypeError),
    (lambda g: g.standard_exponential(size=-1), ValueError),
    (lambda g: g.standard_exponential(out=devarray.empty((3,), dtype="float32")), TypeError),
    (lambda g: g.standard_exponential(out=devarray.empty((4, 4))[:, ::2]), ValueError),
    (lambda g: g.standard_exponential(out=devarray.broadcast_to(devarray.zeros(3), (2, 3))),
     ValueError),
    (lambda g: g.exponential(-1.0), ValueError),
    (lambda g: g.exponential(float("nan")), ValueError),
    (lambda g: g.exponential(1.0, size=(2, -1)), ValueError),
    (lambda g: g.exponential(1e300, dtype="float32"), OverflowError),
    (lambda g: g.exponential(dtype="float16"), TypeError),
    (lambda g: g.permutation(devarray.asarray(3)), devarray.AxisError),
    (lambda g: g.permutation(devarray.zeros((2, 3)), axis=2), devarray.AxisError),
    (lambda g: g.shuffle([1, 2, 3]), TypeError),
    (lambda g: g.shuffle(devarray.asarray(3)), TypeError),
    (lambda g: g.shuffle(devarray.arange(4), axis=1), devarray.AxisError),
    (lambda g: g.shuffle(devarray.broadcast_to(devarray.arange(3), (2, 3))), ValueError),
    (lambda g: g.choice(-1), ValueError),
    (lambda g: g.choice(0), ValueError),
    (lambda g: g.choice([]), ValueError),
    (lambda g: g.choice(2.5), ValueError),
    (lambda g: g.choice("abc"), ValueError),
    (lambda g: g.choice(5, size=-1), ValueError),
    (lambda g: g.choice(5, size=(2, -1)), ValueError),
    (lambda g: g.choice(5, size=2.0), TypeError),
    (lambda g: g.choice(5, 6, replace=False), ValueError),
    (lambda g: g.choice(devarray.zeros((2, 3)), axis=2), devarray.AxisError),
    (lambda g: g.choice(3, p=[0.5, 0.6, -0.1]), ValueError),
    (lambda g: g.choice(3, p=[0.5, 0.4, 0.0]), ValueError),
    (lambda g: g.choice(3, p=[0.5, 0.5, 1e-7]), ValueError),
    (lambda g: g.choice(3, p=[0.5, 0.5, float("nan")]), ValueError),
    (lambda g: g.choice(3, p=[float("inf"), 0.0, 0.0]), ValueError),
    (lambda g: g.choice(3, p=[0.0, 0.0, 0.0]), ValueError),
    (lambda g: g.choice(3, p=[10.0, -9.0, 0.0]), ValueError),
    (lambda g: g.choice(3, p=[0.5, 0.5]), ValueError),
    (lambda g: g.choice(3, p=[[1.0, 0.0, 0.0]]), ValueError),
    (lambda g: g.choice(3, p=[1 + 0j, 0, 0]), TypeError),
    (lambda g: g.choice(3, size=0, p=[0.5, 0.4, 0.0]), ValueError),
    (lambda g: g.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]), ValueError),
])
def test_refused_calls_leave_the_state(backend, call, error):
    g = drandom.default_rng(123)
    before = g.bit_generator.state
    with pytest.raises(error):
        call(g)
    assert g.bit_generator.state == before
    assert g.random(4).to_host().tobytes() == drandom.default_rng(123).random(4).to_host().tobytes()


# ---- host and CUDA: the same bits ------------------------------------------------------

DRAWS = {
    "random64": lambda g, s: g.random(s),
    "random32": lambda g, s: g.random(s, dtype="float32"),
    "uniform64": lambda g, s: g.uniform(-3.5, 2.25, size=s),
    "uniform32": lambda g, s: g.uniform(-3.5, 2.25, size=s, dtype="float32"),
    "int64": lambda g, s: g.integers(-1000, 1000, size=s),
    "int64wide": lambda g, s: g.integers(-2 ** 62, 2 ** 62, size=s),
    "uint64full": lambda g, s: g.integers(0, 2 ** 64, size=s, dtype="uint64"),
    "int32": lambda g, s: g.integers(0, 7, size=s, dtype="int32"),
    "int8": lambda g, s: g.integers(-128, 127, size=s, dtype="int8", endpoint=True),
    "uint16": lambda g, s: g.integers(0, 60000, size=s, dtype="uint16"),
    "bool": lambda g, s: g.integers(0, 2, size=s, dtype="bool"),
}
SHAPES = [(), (1,), (7,), (1000,), (33, 17), (2, 3, 129)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_host_and_cuda_draw_the_same_bits(gpu, name, shape):
    results = []
    for device in ("host", "cuda"):
        g = drandom.default_rng(20260101)
        g.random(3)  # a counter other than the seed's
        results.append(DRAWS[name](_On(g, device), shape).to_host())
    assert results[0].dtype == results[1].dtype and results[0].shape == results[1].shape
    assert results[0].tobytes() == results[1].tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_host_and_cuda_with_out_jumped_and_spawned(gpu, dtype):
    for make in (lambda: drandom.default_rng(5),
                 lambda: drandom.Generator(drandom.Philox(5).jumped(3)),
                 lambda: drandom.default_rng(5).spawn(3)[2]):
        host = devarray.empty((17, 5), dtype=dtype, device="host")
        cuda = devarray.empty((17, 5), dtype=dtype, device="cuda")
        make().random(dtype=dtype, out=host)
        make().random(dtype=dtype, out=cuda)
        assert host.to_host().tobytes() == cuda.to_host().tobytes()


@pytest.mark.parametrize("dtype, ulps", [("float32", 4), ("float64", 4)])
def test_host_and_cuda_normals_within_a_few_ulp(gpu, dtype, ulps):
    host = drandom.default_rng(6).normal(1.0, 2.0, size=100001, dtype=dtype, device="host")
    cuda = drandom.default_rng(6).normal(1.0, 2.0, size=100001, dtype=dtype, device="cuda")
    h, c = host.to_host(), cuda.to_host()
    assert np.all(np.abs(h - c) <= ulps * np.spacing(np.maximum(np.abs(h), 1)))


@pytest.mark.parametrize("dtype, ulps", [("float32", 4), ("float64", 4)])
def test_host_and_cuda_exponentials_within_a_few_ulp(gpu, dtype, ulps):
    for draw in (lambda g, d: g.standard_exponential(100001, dtype=dtype, device=d),
                 lambda g, d: g.exponential(3.5, size=(7, 1001), dtype=dtype, device=d)):
        h = draw(drandom.default_rng(16), "host").to_host()
        c = draw(drandom.default_rng(16), "cuda").to_host()
        assert h.shape == c.shape and h.dtype == c.dtype
        assert np.all(np.abs(h - c) <= ulps * np.spacing(np.maximum(np.abs(h), 1e-30)))
    host = devarray.empty((33, 17), dtype=dtype, device="host")
    cuda = devarray.empty((33, 17), dtype=dtype, device="cuda")
    drandom.default_rng(17).standard_exponential(dtype=dtype, out=host)
    drandom.default_rng(17).standard_exponential(dtype=dtype, out=cuda)
    h, c = host.to_host(), cuda.to_host()
    assert np.all(np.abs(h - c) <= ulps * np.spacing(np.maximum(np.abs(h), 1e-30)))


GRID = np.arange(7 * 9 * 2, dtype=np.float32).reshape(7, 9, 2)


def skewed(n):
    """Probabilities growing as i**2, every seventh one zero."""
    w = np.where(np.arange(n) % 7 == 3, 0.0, (1.0 + np.arange(n)) ** 2)
    return (w / w.sum()).tolist()


P50 = skewed(50)


def _shuffled(g, device, axis):
    x = devarray.asarray(GRID, device=device)
    g.shuffle(x, axis=axis)
    return x


SAMPLES = {
    "permutation": lambda g, d: g.permutation(1001, device=d),
    "permutation-long": lambda g, d: g.permutation(1 << 17, device=d),
    "permutation-axis1": lambda g, d: g.permutation(devarray.asarray(GRID, device=d), axis=1),
    "shuffle-axis0": lambda g, d: _shuffled(g, d, 0),
    "shuffle-axis2": lambda g, d: _shuffled(g, d, 2),
    "choice": lambda g, d: g.choice(1000, size=(33, 17), device=d),
    "choice-array": lambda g, d: g.choice(devarray.asarray(GRID, device=d), size=(5, 2), axis=1),
    "choice-p": lambda g, d: g.choice(50, size=(3, 1000), p=P50, device=d),
    "choice-p-scalar": lambda g, d: g.choice(50, p=P50, device=d),
    "choice-distinct-keys": lambda g, d: g.choice(1000, size=900, replace=False, device=d),
    "choice-distinct-rounds": lambda g, d: g.choice(10 ** 7, size=(40, 50), replace=False,
                                                    device=d),
    "choice-distinct-p": lambda g, d: g.choice(50, size=40, replace=False, p=P50, device=d),
    "choice-distinct-p-array": lambda g, d: g.choice(devarray.asarray(GRID[:, :, 0], device=d),
                                                     size=5, replace=False, p=skewed(9),
                                                     axis=1),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_host_and_cuda_permute_and_choose_the_same(gpu, name):
    results, counters = [], []
    for device in ("host", "cuda"):
        g = drandom.default_rng(20260102)
        g.random(3)
        results.append(SAMPLES[name](g, device).to_host())
        counters.append(g.bit_generator.counter)
    assert results[0].dtype == results[1].dtype and results[0].shape == results[1].shape
    assert results[0].tobytes() == results[1].tobytes()
    assert counters[0] == counters[1]


@pytest.mark.parametrize("name", ["permutation", "choice-p", "choice-distinct-rounds"])
def test_host_and_cuda_samples_after_jumped_and_spawned(gpu, name):
    for make in (lambda: drandom.Generator(drandom.Philox(9).jumped(2)),
                 lambda: drandom.default_rng(9).spawn(2)[1]):
        host, cuda = SAMPLES[name](make(), "host"), SAMPLES[name](make(), "cuda")
        assert host.to_host().tobytes() == cuda.to_host().tobytes()


class _On:
    """A Generator whose draws go to one device."""

    def __init__(self, g, device):
        self.g, self.device = g, device

    def __getattr__(self, name):
        method = getattr(self.g, name)
        return lambda *a, **k: method(*a, device=self.device, **k)


# ---- loading ------------------------------------------------------------------------------

def test_draws_need_no_numpy():
    code = ("import sys, warnings\nwarnings.simplefilter('ignore')\n"
            "sys.modules['numpy'] = None\n"
            "import devarray, devarray.random as r\n"
            "g = r.default_rng(3)\n"
            "x = devarray.arange(6).reshape((2, 3))\n"
            "g.shuffle(x, axis=1)\n"
            "assert sorted(x.tolist()[0]) == [0, 1, 2]\n"
            "assert sorted(g.permutation(5).tolist()) == list(range(5))\n"
            "assert len(set(g.choice(10 ** 9, 3, replace=False).tolist())) == 3\n"
            "assert len(set(g.choice(10, 4, replace=False, p=[0.1] * 10).tolist())) == 4\n"
            "assert g.choice([1.5, 2.5], 4).shape == (4,)\n"
            "assert float(g.standard_exponential(100).min()) >= 0\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_devarray_does_not_import_random():
    code = ("import sys, warnings\nwarnings.simplefilter('ignore')\nimport devarray\n"
            "assert 'devarray.random' not in sys.modules, 'imported'\n"
            "assert devarray.random.default_rng is not None\n"
            "assert 'devarray.random' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
