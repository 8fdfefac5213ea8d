"""SeedSequence: NumPy's seeding algorithm, without NumPy.

devarray.random turns seeds into Philox keys the way NumPy does, through
a SeedSequence (O'Neill's seed_seq design as NumPy 1.17+ implements it in
numpy/random/bit_generator.pyx): the entropy (an int or a sequence of
ints, each cut into 32-bit words) and the spawn key are hashed into a pool
of 4 words, from which generate_state() hashes out any number of words.
This module computes the same words as numpy.random.SeedSequence for the
same entropy and spawn key (tests/test_random.py compares them where NumPy
is installed), so devarray.random.default_rng(42) and
default_rng(numpy.random.SeedSequence(42)) give the same stream, and
NumPy is not needed for either.
"""

import operator
import secrets

__all__ = ["SeedSequence"]

_POOL_SIZE = 4
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_XSHIFT = 16
_MASK32 = 0xFFFFFFFF


def _int_words(n):
    """A non-negative int as 32-bit words, least significant first ([0]
    for 0)."""
    if n < 0:
        raise ValueError("expected non-negative integer")
    words = [n & _MASK32]
    n >>= 32
    while n:
        words.append(n & _MASK32)
        n >>= 32
    return words


def _words(x):
    """An int or a (nested) sequence of ints as 32-bit words, as NumPy's
    _coerce_to_uint32_array does."""
    if isinstance(x, (float, complex, str, bytes)):
        raise TypeError("a seed must be an int or a sequence of ints, not %s"
                        % type(x).__name__)
    try:
        return _int_words(operator.index(x))
    except TypeError:
        pass
    try:
        items = list(x)
    except TypeError:
        raise TypeError("a seed must be an int or a sequence of ints, not %s"
                        % type(x).__name__) from None
    words = []
    for item in items:
        words.extend(_words(item))
    return words


class _Hash:
    """The hash whose multiplier changes at each use (hashmix)."""

    __slots__ = ("const",)

    def __init__(self):
        self.const = _INIT_A

    def __call__(self, value):
        value ^= self.const
        self.const = (self.const * _MULT_A) & _MASK32
        value = (value * self.const) & _MASK32
        return value ^ (value >> _XSHIFT)


def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _XSHIFT)


class SeedSequence:
    """Entropy and a spawn key hashed into well-mixed words.

    SeedSequence(entropy=None, *, spawn_key=(), pool_size=4): entropy is a
    non-negative int, a sequence of them, or None for 128 fresh bits from
    the operating system (`secrets`).  The same as NumPy's
    numpy.random.SeedSequence, word for word."""

    def __init__(self, entropy=None, *, spawn_key=(), pool_size=_POOL_SIZE):
        pool_size = operator.index(pool_size)
        if pool_size < _POOL_SIZE:
            raise ValueError("The size of the entropy pool should be at least %d"
                             % _POOL_SIZE)
        if entropy is None:
            entropy = secrets.randbits(128)
        run_entropy = _words(entropy)
        spawn_key = tuple(operator.index(k) for k in spawn_key)
        spawn_entropy = _words(spawn_key) if spawn_key else []
        if spawn_entropy and len(run_entropy) < pool_size:
            # NumPy pads to the pool size when there is a spawn key, so that
            # a child's words cannot equal a parent's of longer entropy
            run_entropy = run_entropy + [0] * (pool_size - len(run_entropy))
        self.entropy = entropy
        self.spawn_key = spawn_key
        self.pool_size = pool_size
        self.n_children_spawned = 0
        self.pool = self._mix_entropy(run_entropy + spawn_entropy)

    def _mix_entropy(self, entropy):
        hashmix = _Hash()
        pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(self.pool_size)]
        # every word of the pool affects every other
        for src in range(self.pool_size):
            for dst in range(self.pool_size):
                if src != dst:
                    pool[dst] = _mix(pool[dst], hashmix(pool[src]))
        # entropy beyond the pool's size, mixed into each word
        for src in range(self.pool_size, len(entropy)):
            for dst in range(self.pool_size):
                pool[dst] = _mix(pool[dst], hashmix(entropy[src]))
        return tuple(pool)

    @property
    def state(self):
        return {"entropy": self.entropy, "spawn_key": self.spawn_key,
                "pool_size": self.pool_size, "n_children_spawned": self.n_children_spawned}

    def generate_state(self, n_words, dtype="uint32"):
        """n_words words as a tuple of ints: 32-bit ones for dtype uint32,
        64-bit ones (pairs of 32-bit words, the first the low half) for
        uint64.  (NumPy's returns an ndarray of the same values.)"""
        name = getattr(dtype, "__name__", None) or getattr(dtype, "name", None) or str(dtype)
        if name not in ("uint32", "uint64"):
            raise ValueError("only support uint32 or uint64")
        n_words = operator.index(n_words)
        count = n_words * 2 if name == "uint64" else n_words
        const = _INIT_B
        out = []
        for i in range(count):
            value = self.pool[i % self.pool_size] ^ const
            const = (const * _MULT_B) & _MASK32
            value = (value * const) & _MASK32
            out.append(value ^ (value >> _XSHIFT))
        if name == "uint64":
            out = [out[2 * i] | out[2 * i + 1] << 32 for i in range(n_words)]
        return tuple(out)

    def spawn(self, n_children):
        """n_children new SeedSequences, each with this one's entropy and
        its own spawn key (this one's plus a child number never used
        before)."""
        n_children = operator.index(n_children)
        if n_children < 0:
            raise ValueError("n_children must be non-negative, not %d" % n_children)
        first = self.n_children_spawned
        children = [type(self)(self.entropy, spawn_key=self.spawn_key + (i,),
                               pool_size=self.pool_size)
                    for i in range(first, first + n_children)]
        self.n_children_spawned += n_children
        return children

    def __repr__(self):
        return "SeedSequence(entropy=%r, spawn_key=%r)" % (self.entropy, self.spawn_key)
