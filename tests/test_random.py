"""devarray.random: Philox4x32-10 against Random123's known answers and a
Python reference of the counter mapping, the host and CUDA backends bit for
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


class _On:
    """A Generator whose draws go to one device."""

    def __init__(self, g, device):
        self.g, self.device = g, device

    def __getattr__(self, name):
        method = getattr(self.g, name)
        return lambda *a, **k: method(*a, device=self.device, **k)


# ---- loading ------------------------------------------------------------------------------

def test_import_devarray_does_not_import_random():
    code = ("import sys, warnings\nwarnings.simplefilter('ignore')\nimport devarray\n"
            "assert 'devarray.random' not in sys.modules, 'imported'\n"
            "assert devarray.random.default_rng is not None\n"
            "assert 'devarray.random' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
