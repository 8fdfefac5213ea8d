"""devarray.random: random numbers drawn on the device, the same bits on the host.

    import devarray as da
    rng = da.random.default_rng(42)
    x = rng.random((1000, 1000), dtype=da.float32)     # on the current device
    k = rng.integers(0, 10, size=100)                   # int64 in [0, 10)
    streams = rng.spawn(8)                              # independent Generators

Imported at the first use of `devarray.random`, never by `import devarray`.

NumPy's Generator API over Philox4x32-10, the counter-based generator of
Random123 and cuRAND (kernels/philox.h).  A bit generator is a 64-bit key
and a 128-bit counter; a draw of n elements takes each element from a
fixed number k of 32-bit words (k = 1 for float32 and 32-bit raw words, 2
for float64, and integers of a range up to 2**32, 4 for wider ranges):
element i uses words [k i, k i + k) of the stream whose word w is word
w % 4 of Philox(key, counter + w // 4).  So an element depends only on
the key, the counter and its index, never on the launch layout, and the
CUDA kernels (kernels/random.cu) and the host backend
(src/host/host_random.c) give the same bits.  A draw advances the counter
by the counters it used (ceil(n k / 4)), so the next draw starts on fresh
blocks; a refused call (low >= high, a negative size, an unsupported
dtype) raises before it changes any state.  The normal draws call log,
sqrt, sin and cos, and the exponential ones log1p, whose last bit may
differ between the host's libm and CUDA's: there host and GPU agree
within a few ulp, not bit for bit (docs/random.md).

permutation, shuffle and choice are made of such draws and of devarray's
exact operations (a stable argsort of random 64-bit keys; integer weights,
their cumulative sum and searchsorted), so they too give the same bits on
every backend.

Seeds become keys through a SeedSequence, NumPy's algorithm
(devarray/_seedsequence.py, NumPy not needed): its first two words are
the key, its next two the counter's high 64 bits; the low 64 bits start at
0.  `jumped()` adds 2**64 to the counter (a stream that draws fewer than
2**64 counters, 2**68 bytes, never meets the next jumped one); `spawn()`
makes children from the seed sequence's children, as NumPy does.
"""

import math
import numbers
import operator
import struct
import threading

import devarray
from devarray import _core
from devarray._seedsequence import SeedSequence

__all__ = ["default_rng", "Generator", "Philox", "SeedSequence"]

# _core._random_fill's kinds (kernels/launch.h, DA_RANDOM_*)
_BITS32, _BITS64, _UNIFORM_F32, _UNIFORM_F64, _INT_R32, _INT_R64, _NORMAL_F32, _NORMAL_F64 = \
    range(8)

_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1
_JUMP = 1 << 64

_FLOATS = ("float32", "float64")
_INTEGER_BOUNDS = {
    "bool": (0, 1),
    "int8": (-(1 << 7), (1 << 7) - 1), "uint8": (0, (1 << 8) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1), "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1), "uint64": (0, (1 << 64) - 1),
}


# ---- checks (every one before any state changes) ---------------------------------

def _shape(size, out, name):
    """The shape of a draw: size (None, an int or a sequence of ints),
    or out's when out is given (size then must agree)."""
    if out is not None:
        if not isinstance(out, devarray.DeviceArray):
            raise TypeError("%s(): out must be a DeviceArray, not %s"
                            % (name, type(out).__name__))
        if size is not None and _shape(size, None, name) != tuple(out.shape):
            raise ValueError("%s(): size must match out.shape when used together" % name)
        return tuple(out.shape)
    if size is None:
        return ()
    try:
        shape = (operator.index(size),)
    except TypeError:
        try:
            shape = tuple(operator.index(s) for s in size)
        except TypeError:
            raise TypeError("%s(): size must be None, an int or a sequence of ints, not %r"
                            % (name, size)) from None
    if any(s < 0 for s in shape):
        raise ValueError("%s(): negative dimensions are not allowed: size %r" % (name, size))
    return shape


def _dtype(dtype, allowed, name):
    try:
        dt = devarray.DType(dtype)
    except (TypeError, ValueError):
        raise TypeError("%s(): unsupported dtype %r" % (name, dtype)) from None
    if dt.name not in allowed:
        raise TypeError("%s(): unsupported dtype %s (it takes %s)"
                        % (name, dt.name, ", ".join(allowed)))
    return dt


def _real(value, what, name):
    """A Python float from a real scalar (arrays are not supported)."""
    if isinstance(value, (devarray.DeviceArray, str, bytes)) or hasattr(value, "__len__"):
        raise TypeError("%s(): %s must be a real scalar, not %s (array parameters are not "
                        "supported)" % (name, what, type(value).__name__))
    if isinstance(value, complex):
        raise TypeError("%s(): %s must be real, not complex" % (name, what))
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError("%s(): %s must be a real scalar, not %s"
                        % (name, what, type(value).__name__)) from None


def _integer(value, what, name):
    if isinstance(value, devarray.DeviceArray) or hasattr(value, "__len__"):
        raise TypeError("%s(): %s must be an int, not %s (array bounds are not supported)"
                        % (name, what, type(value).__name__))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s(): %s must be an int, not %s"
                        % (name, what, type(value).__name__)) from None


def _float32(value, what, name):
    """value rounded to float32, which must be finite where value is."""
    try:
        rounded = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        rounded = math.inf
    if math.isinf(rounded) and not math.isinf(value):
        raise OverflowError("%s(): %s %r is outside float32's range" % (name, what, value))
    return rounded


def _place(array, device, name, what="out"):
    """array must be on device= when both are given."""
    if device is None:
        return
    # the place devarray's creation functions give device= (the same converter)
    wanted = devarray.empty((0,), dtype=array.dtype, device=device).device
    if array.device != wanted:
        raise ValueError("%s(): %s is on %s, not on device=%r"
                         % (name, what, array.device, device))


def _on_device(x, device, name, what):
    """x as a DeviceArray: a DeviceArray as it is (on device= when that is
    given), anything else copied to device=."""
    if isinstance(x, devarray.DeviceArray):
        _place(x, device, name, what)
        return x
    return devarray.asarray(x, device=device)


def _axis(axis, ndim, name):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise devarray.AxisError("%s(): axis %d is out of bounds for an array of %d "
                                 "dimensions" % (name, axis, ndim))
    return axis % ndim


# ---- the bit generator -------------------------------------------------------------

class Philox:
    """Philox4x32-10: a 64-bit key and a 128-bit counter.

    Philox(seed=None, *, counter=None, key=None): seed is None (fresh
    entropy), an int, a sequence of ints or a SeedSequence (devarray's or
    NumPy's); the seed sequence's first two 32-bit words are the key and
    its next two the counter's high 64 bits.  key (an int < 2**64) and
    counter (an int < 2**128, default 0) set the state directly instead;
    seed is then only the source of spawn().
    """

    def __init__(self, seed=None, *, counter=None, key=None):
        if isinstance(seed, Philox):
            raise TypeError("Philox(seed): seed is a Philox; use it, or its spawn() or "
                            "jumped()")
        if seed is not None and hasattr(seed, "generate_state"):
            seed_seq = seed
        elif seed is not None and hasattr(seed, "bit_generator"):
            raise TypeError("Philox(seed): cannot seed from a %s" % type(seed).__name__)
        else:
            seed_seq = SeedSequence(seed)
        if key is None:
            words = [int(w) for w in seed_seq.generate_state(4, "uint32")]
            key_value = words[0] | words[1] << 32
            counter_value = (words[2] | words[3] << 32) << 64
        else:
            key_value = _bounded(key, 64, "key")
            counter_value = 0
        if counter is not None:
            counter_value = _bounded(counter, 128, "counter")
        # dask.array.random gives each chunk of a draw its own stream
        # through this name, as it does NumPy's bit generators: it spawns
        # `bit_generator._seed_seq`, and each chunk draws from
        # devarray.random.default_rng(child) (docs/random.md)
        self._seed_seq = seed_seq
        self._key = key_value
        self._counter = counter_value
        self._lock = threading.Lock()

    @classmethod
    def _from_state(cls, key, counter, seed_seq):
        bit_generator = cls.__new__(cls)
        bit_generator._seed_seq = seed_seq
        bit_generator._key = key
        bit_generator._counter = counter
        bit_generator._lock = threading.Lock()
        return bit_generator

    def __reduce__(self):
        with self._lock:
            return (Philox._from_state, (self._key, self._counter, self._seed_seq))

    def __repr__(self):
        return "Philox(key=0x%016x, counter=0x%032x)" % (self._key, self._counter)

    @property
    def key(self):
        """The key, an int < 2**64 (word 0 the low 32 bits)."""
        return self._key

    @property
    def counter(self):
        """The counter of the next draw's first block, an int < 2**128."""
        return self._counter

    @property
    def seed_seq(self):
        return self._seed_seq

    @property
    def state(self):
        with self._lock:
            return {"bit_generator": "Philox4x32",
                    "state": {"key": self._key, "counter": self._counter}}

    @state.setter
    def state(self, value):
        try:
            name, inner = value["bit_generator"], value["state"]
            key, counter = inner["key"], inner["counter"]
        except (TypeError, KeyError):
            raise ValueError("state must be a dict like Philox.state's") from None
        if name != "Philox4x32":
            raise ValueError("state is of bit generator %r, not Philox4x32" % (name,))
        key, counter = _bounded(key, 64, "key"), _bounded(counter, 128, "counter")
        with self._lock:
            self._key, self._counter = key, counter

    def advance(self, delta):
        """Move the counter on by delta (an int >= 0) blocks of four words,
        as if draws had used them (mod 2**128).  Returns self."""
        delta = operator.index(delta)
        if delta < 0:
            raise ValueError("advance(delta): delta must be non-negative, not %d" % delta)
        with self._lock:
            self._counter = (self._counter + delta) & _MASK128
        return self

    def jumped(self, jumps=1):
        """A new Philox with this key and the counter moved on by
        jumps * 2**64: as many streams as jumps, each of 2**64 counters
        (2**66 words), that never overlap."""
        jumps = operator.index(jumps)
        if jumps < 0:
            raise ValueError("jumped(jumps): jumps must be non-negative, not %d" % jumps)
        with self._lock:
            return Philox._from_state(self._key, (self._counter + jumps * _JUMP) & _MASK128,
                                      self._seed_seq)

    def spawn(self, n_children):
        """n_children new Philox bit generators seeded from the seed
        sequence's spawn(): independent of this one and of each other."""
        if not hasattr(self._seed_seq, "spawn"):
            raise TypeError("spawn() needs a seed sequence that can spawn, not %s"
                            % type(self._seed_seq).__name__)
        return [Philox(seq) for seq in self._seed_seq.spawn(n_children)]

    def _fill(self, out, kind, **params):
        """One draw into out, the counter moved on by the blocks it used
        (only when the draw was made)."""
        with self._lock:
            key = (self._key & _MASK32, self._key >> 32)
            counter = (self._counter & _MASK64, self._counter >> 64)
            blocks = _core._random_fill(out, kind, key, counter, **params)
            self._counter = (self._counter + blocks) & _MASK128
        return out


def _bounded(value, bits, what):
    value = operator.index(value)
    if not 0 <= value < 1 << bits:
        raise ValueError("%s must be in [0, 2**%d), not %d" % (what, bits, value))
    return value


# ---- the generator -------------------------------------------------------------------

class Generator:
    """NumPy's Generator API over a Philox bit generator, drawing on the
    device (`device=`, as devarray's creation functions; `out=` writes
    into an existing C-contiguous DeviceArray).  size=None gives a 0-d
    DeviceArray rather than a Python scalar."""

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, Philox):
            raise TypeError("Generator(bit_generator) takes a devarray.random.Philox, not %s"
                            % type(bit_generator).__name__)
        self._bit_generator = bit_generator

    def __repr__(self):
        return "Generator(%r)" % (self._bit_generator,)

    def __reduce__(self):
        return (Generator, (self._bit_generator,))

    @property
    def bit_generator(self):
        return self._bit_generator

    def spawn(self, n_children):
        """n_children independent Generators (the bit generator's spawn())."""
        return [Generator(b) for b in self._bit_generator.spawn(n_children)]

    def _new(self, shape, dtype, out, device, name):
        if out is None:
            return devarray.empty(shape, dtype=dtype, device=device)
        if out.dtype != dtype:
            raise TypeError("%s(): out has dtype %s, not %s" % (name, out.dtype, dtype.name))
        _place(out, device, name)
        return out

    def random(self, size=None, dtype=devarray.float64, out=None, *, device=None):
        """Floats uniform in [0, 1): multiples of 2**-53 (float64) or 2**-24
        (float32), each equally likely."""
        dt = _dtype(dtype, _FLOATS, "random")
        shape = _shape(size, out, "random")
        kind = _UNIFORM_F64 if dt.name == "float64" else _UNIFORM_F32
        return self._bit_generator._fill(self._new(shape, dt, out, device, "random"), kind)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=devarray.float64, *, device=None):
        """low + (high - low) * random(): floats in [low, high) (high itself
        may come out, by rounding, as in NumPy).  high - low must be finite
        and non-negative; float32 computes in float32 from low and
        high - low rounded to float32."""
        dt = _dtype(dtype, _FLOATS, "uniform")
        low, high = _real(low, "low", "uniform"), _real(high, "high", "uniform")
        span = high - low
        if span != span or span in (float("inf"), float("-inf")):
            raise OverflowError("uniform(): high - low must be finite, not %r" % span)
        if span < 0:
            raise ValueError("uniform(): high - low must be non-negative (low %r, high %r)"
                             % (low, high))
        if dt.name == "float32":
            low, span = _float32(low, "low", "uniform"), _float32(span, "high - low", "uniform")
        shape = _shape(size, None, "uniform")
        kind = _UNIFORM_F64 if dt.name == "float64" else _UNIFORM_F32
        return self._bit_generator._fill(devarray.empty(shape, dtype=dt, device=device), kind,
                                         loc=low, scale=span)

    def integers(self, low, high=None, size=None, dtype=devarray.int64, endpoint=False, *,
                 device=None):
        """Integers uniform in [low, high) ([low, high] with endpoint=True);
        high=None draws from [0, low).  dtype: bool or an integer dtype,
        whose range must hold low and the largest value.

        Each element takes two 32-bit words when the range has at most
        2**32 values, four otherwise, and maps them to the range by
        Lemire's multiply-shift without rejection (a fixed number of words
        per element keeps the stream independent of the launch layout):
        every value's probability is within 2**-64 (two words) or 2**-128
        (four) of 1 / range."""
        dt = _dtype(dtype, tuple(_INTEGER_BOUNDS), "integers")
        low = _integer(low, "low", "integers")
        if high is None:
            low, high = 0, low
        else:
            high = _integer(high, "high", "integers")
        last = high if endpoint else high - 1
        if low > last:
            raise ValueError("integers(): low > high" if endpoint else
                             "integers(): low >= high")
        lo_bound, hi_bound = _INTEGER_BOUNDS[dt.name]
        if low < lo_bound:
            raise ValueError("integers(): low is out of bounds for %s" % dt.name)
        if last > hi_bound:
            raise ValueError("integers(): high is out of bounds for %s" % dt.name)
        shape = _shape(size, None, "integers")
        span = last - low + 1
        kind = _INT_R32 if span <= 1 << 32 else _INT_R64
        return self._bit_generator._fill(devarray.empty(shape, dtype=dt, device=device), kind,
                                         low=low, range=span & _MASK64)

    def standard_normal(self, size=None, dtype=devarray.float64, out=None, *, device=None):
        """Normal floats of mean 0 and standard deviation 1 (Box-Muller on
        fixed words: 53-bit uniforms for float64, 24-bit for float32, so
        no value beyond 8.57 or 5.77 standard deviations).  The host and
        the GPU agree within a few ulp (log, sin and cos)."""
        dt = _dtype(dtype, _FLOATS, "standard_normal")
        shape = _shape(size, out, "standard_normal")
        kind = _NORMAL_F64 if dt.name == "float64" else _NORMAL_F32
        return self._bit_generator._fill(self._new(shape, dt, out, device, "standard_normal"),
                                         kind)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=devarray.float64, *, device=None):
        """loc + scale * standard_normal(); scale must be non-negative."""
        dt = _dtype(dtype, _FLOATS, "normal")
        loc, scale = _real(loc, "loc", "normal"), _real(scale, "scale", "normal")
        if not scale >= 0:
            raise ValueError("normal(): scale must be non-negative, not %r" % scale)
        if dt.name == "float32":
            loc, scale = _float32(loc, "loc", "normal"), _float32(scale, "scale", "normal")
        shape = _shape(size, None, "normal")
        kind = _NORMAL_F64 if dt.name == "float64" else _NORMAL_F32
        return self._bit_generator._fill(devarray.empty(shape, dtype=dt, device=device), kind,
                                         loc=loc, scale=scale)

    # ---- exponentials ----

    def standard_exponential(self, size=None, dtype=devarray.float64, method="zig", out=None,
                             *, device=None):
        """Exponential floats of rate 1, by inversion: -log1p(-u) of
        random()'s u (so no value beyond 36.7 for float64, 16.6 for
        float32).  method is NumPy's argument, accepted for its signature:
        every draw here is by inversion.  The host and the GPU agree within
        a few ulp (log1p)."""
        dt = _dtype(dtype, _FLOATS, "standard_exponential")
        shape = _shape(size, out, "standard_exponential")
        return self._exponential(shape, dt, 1.0, out, device, "standard_exponential")

    def exponential(self, scale=1.0, size=None, dtype=devarray.float64, *, device=None):
        """scale * standard_exponential(); scale must be non-negative."""
        dt = _dtype(dtype, _FLOATS, "exponential")
        scale = _real(scale, "scale", "exponential")
        if not scale >= 0:
            raise ValueError("exponential(): scale must be non-negative, not %r" % scale)
        if dt.name == "float32":
            scale = _float32(scale, "scale", "exponential")
        shape = _shape(size, None, "exponential")
        return self._exponential(shape, dt, scale, None, device, "exponential")

    def _exponential(self, shape, dt, scale, out, device, name):
        kind = _UNIFORM_F64 if dt.name == "float64" else _UNIFORM_F32
        u = self._bit_generator._fill(self._new(shape, dt, out, device, name), kind)
        u *= -1.0
        e = devarray.log1p(u)
        e *= -scale  # the negation and the scale in one rounding
        if out is None:
            return e
        out[...] = e
        return out

    # ---- permutations and samples ----

    def _order(self, n, device):
        """A random permutation of range(n), int64 on device: the stable
        argsort of n random 64-bit keys (ceil(n / 2) counters).  Two keys
        tie with probability below n**2 / 2**65, and a tie keeps its two
        indices in order, on every backend alike."""
        keys = devarray.empty((n,), dtype=devarray.uint64, device=device)
        return devarray.argsort(self._bit_generator._fill(keys, _BITS64), stable=True)

    def permutation(self, x, axis=0, *, device=None):
        """For an int x, range(x) permuted (int64; empty for x <= 0, as
        NumPy's); else a copy of the array x (a DeviceArray stays on its
        device, anything else goes to device=) with its subarrays along
        axis permuted."""
        if isinstance(x, numbers.Integral):
            return self._order(max(operator.index(x), 0), device)
        arr = _on_device(x, device, "permutation", "x")
        axis = _axis(axis, arr.ndim, "permutation")
        return devarray.take(arr, self._order(arr.shape[axis], arr.device), axis=axis)

    def shuffle(self, x, axis=0):
        """Permute the DeviceArray x in place along axis, as permutation()
        would; returns None."""
        if not isinstance(x, devarray.DeviceArray):
            raise TypeError("shuffle(): x must be a DeviceArray, not %s" % type(x).__name__)
        if x.ndim == 0:
            raise TypeError("shuffle(): x must have at least one dimension")
        axis = _axis(axis, x.ndim, "shuffle")
        if x.readonly:
            raise ValueError("shuffle(): x is read-only")
        x[...] = devarray.take(x, self._order(x.shape[axis], x.device), axis=axis)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, *, device=None):
        """Elements of a (an int n: range(n), as int64), picked along axis.

        replace=True: independent picks, uniform (integers()) or with the
        probabilities p.  replace=False: distinct picks, in the order of a
        stream of such picks with the repeats left out, which is NumPy's
        sequential sampling without replacement (each pick uniform, or in
        proportion to p, among those not yet picked).  Uniform samples
        come from the order of random keys (permutation()) when size is
        more than a sixteenth of the population, else from rounds of
        integers() that each draw the picks still missing.  The
        picks are in random order either way, so shuffle=False (NumPy's
        speed-up) gives the same result.

        p is resolved exactly, in integers: floor(p * 2**s) with s as
        large as keeps their sum below 2**62, so each item's probability
        is its weight's share to about 2**-60, and a pick is
        searchsorted(cumulative_sum(weights), integers(0, total)), the
        same on every backend.  Without replacement each round zeroes the
        picked weights and scales the rest anew, as NumPy's renormalised
        rounds do.  p must be 1-D, of a's length, non-negative, and sum to
        1 within sqrt(eps) of float64 (of p's dtype when that is coarser)."""
        arr = _population_array(a, device)
        if arr is not None and arr.ndim > 0:
            axis = _axis(axis, arr.ndim, "choice")
            n = arr.shape[axis]
        else:
            n = _population(arr, a)
            arr = None
        shape = _shape(size, None, "choice")
        k = math.prod(shape)
        if k and n <= 0:
            raise ValueError("choice(): a must be a positive integer unless no samples are "
                             "taken" if arr is None else
                             "choice(): a cannot be empty unless no samples are taken")
        home = arr.device if arr is not None else \
            devarray.empty((0,), dtype=devarray.int64, device=device).device
        if p is not None:
            p, cdf, total = _weights(p, n, home)
        if k and not replace:
            if k > n:
                raise ValueError("choice(): cannot take a larger sample than the population "
                                 "when replace is False (size %d, population %d)" % (k, n))
            if p is not None and int(devarray.count_nonzero(p > 0)) < k:
                raise ValueError("choice(): fewer non-zero entries in p than size")

        if k == 0:
            picks = devarray.empty((0,), dtype=devarray.int64, device=home)
        elif replace and p is None:
            picks = self.integers(0, n, size=k, device=home)
        elif replace:
            picks = devarray.searchsorted(cdf, self.integers(0, total, size=k, device=home),
                                          side="right")
        elif p is not None:
            remaining = p

            def weighted(missing, found):
                nonlocal cdf, total
                if found.shape[0]:
                    remaining[found] = 0.0
                    weights, _ = _fixed_point(remaining, n)
                    cdf = devarray.cumulative_sum(weights)
                    total = int(cdf[-1])
                return devarray.searchsorted(
                    cdf, self.integers(0, total, size=missing, device=home), side="right")

            picks = _distinct(weighted, k, home)
        elif k * _DENSE_SAMPLE > n:
            picks = self._order(n, home)[:k].copy()  # not a view that keeps all n
        else:
            picks = _distinct(
                lambda missing, found: self.integers(0, n, size=missing, device=home), k, home)

        if arr is None:
            return picks.reshape(shape)
        taken = devarray.take(arr, picks, axis=axis)
        return taken.reshape(arr.shape[:axis] + shape + arr.shape[axis + 1:])


# ---- choice's pieces ----------------------------------------------------------------

# choice(replace=False, p=None) sorts keys for the whole population when the
# sample is more than 1/_DENSE_SAMPLE of it, else draws rounds of integers
_DENSE_SAMPLE = 16


def _population_array(a, device):
    """choice's a as a DeviceArray (_on_device), or None for an int or
    what devarray cannot make an array of."""
    if isinstance(a, devarray.DeviceArray):
        _place(a, device, "choice", "a")
        return a
    if isinstance(a, numbers.Integral):
        return None
    try:
        return devarray.asarray(a, device=device)
    except (TypeError, ValueError):
        return None


def _population(arr, a):
    """The population of choice(a) where a is an int, or arr, a 0-d array,
    holds one; ValueError for anything else."""
    try:
        return operator.index(arr.item() if arr is not None else a)
    except TypeError:
        raise ValueError("choice(): a must be a sequence or an integer, not %s"
                         % type(a).__name__) from None


def _weights(p, n, home):
    """p, checked as NumPy checks it, as a float64 copy on home; its
    cumulative fixed-point weights (_fixed_point) and their total."""
    p = _on_device(p, home, "choice", "p")
    if p.ndim != 1:
        raise ValueError("choice(): p must be 1-dimensional")
    if p.shape[0] != n:
        raise ValueError("choice(): a and p must have the same size (%d and %d)"
                         % (n, p.shape[0]))
    if devarray.isdtype(p.dtype, "complex floating"):
        raise TypeError("choice(): p must be real, not %s" % p.dtype)
    atol = math.sqrt(devarray.finfo(devarray.float64).eps)
    if devarray.isdtype(p.dtype, "real floating"):
        atol = max(atol, math.sqrt(devarray.finfo(p.dtype).eps))
    p = devarray.astype(p, devarray.float64, copy=True)  # choice() zeroes its picks in it
    if n and bool(devarray.any(devarray.isnan(p))):
        raise ValueError("choice(): probabilities contain NaN")
    if n and bool(devarray.any(p < 0)):
        raise ValueError("choice(): probabilities are not non-negative")
    if n and bool(devarray.all(devarray.isfinite(p))):
        weights, shift = _fixed_point(p, n)
        cdf = devarray.cumulative_sum(weights)
        total = int(cdf[-1])
        if abs(math.ldexp(total, -shift) - 1.0) <= atol:
            return p, cdf, total
    raise ValueError("choice(): probabilities do not sum to 1 (within %.3g)" % atol)


def _fixed_point(p, n):
    """The integer weights floor(p * 2**s) (int64) of p, n non-negative
    finite float64, with s as large as keeps their sum below 2**62; and s.

    A first pass with s0 from max(p) (each weight below 2**62 / n) gives
    their sum, less than n below sum(p) * 2**s0: the second pass scales by
    the powers of two that still fit.  Products by powers of two, floor
    and integer sums are exact, so every backend gets the same weights."""
    top = float(devarray.max(p))
    s0 = 62 - n.bit_length() - math.frexp(top)[1]
    rough = int(devarray.sum(_floor_scaled(p, s0)))
    shift = s0 + 62 - (rough + n).bit_length()
    return _floor_scaled(p, shift), shift


def _floor_scaled(p, shift):
    """floor(p * 2**shift) as int64, the power of two applied in two halves
    (2.0**shift alone may overflow)."""
    half = shift // 2
    return devarray.floor(p * 2.0 ** half * 2.0 ** (shift - half)).astype(devarray.int64)


def _distinct(draw, k, device):
    """The first k distinct values of a stream of int64 draws, in the order
    they come: each round appends draw(missing, picks), the missing draws,
    and keeps the first occurrence of each value (each round adds at least
    one where the draws can only give values not yet picked, or almost
    surely where they are uniform over a population much larger than k)."""
    picks = devarray.empty((0,), dtype=devarray.int64, device=device)
    while picks.shape[0] < k:
        both = devarray.concat([picks, draw(k - picks.shape[0], picks)])
        picks = devarray.take(both, devarray.sort(devarray.unique_all(both).indices))
    return picks


def default_rng(seed=None):
    """A Generator over Philox: seed is None (fresh entropy from the
    operating system), an int, a sequence of ints, a SeedSequence
    (devarray's or NumPy's), a Philox, or a Generator (returned as it is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
