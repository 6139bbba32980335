"""``shuffle``, ``Dataset.random`` and ``sample_from_datasets``: TF's algorithms and seed semantics.

Seeds follow TF exactly: the Python-level pair comes from ``tf.random``'s ``get_seed`` rules (global seed,
op seed, 87654321 default graph seed); ``(0, 0)`` means "fresh nondeterministic seeds".  A dataset owns a
seed generator shared by all its iterators: with ``reshuffle_each_iteration=True`` each new iterator draws
two Philox words ``(seed, seed2)`` from the generator's stream, otherwise it reuses the base seeds.  Each
iterator then draws ``Random() % n`` from ``PhiloxRandom(seed, seed2)`` (words in order) to pick the buffer
slot, swapping the front element into it -- so orders equal TF's element for element.

>>> [int(x) for x in tf.data.Dataset.range(10).shuffle(4, seed=1)]
[0, 4, 5, 1, 2, 7, 9, 8, 6, 3]
"""

from __future__ import annotations

import os
import threading

import numpy as np

from tensorlet._src.data.dataset_ops import INFINITE, DatasetV2, static_int
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import constant, convert_to_tensor, Tensor
from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.math_unary import log

__all__ = ["SeedGenerator", "WordStream", "ShuffleDataset", "RandomDataset", "sample_from_datasets", "data_seeds"]

_U64 = np.uint64
_M64 = 2 ** 64
_CHUNK = 4096  # Philox words generated per NumPy call


def _philox_words(seed, seed2, start, n):
    """Words ``start .. start+n`` of ``PhiloxRandom(seed, seed2)``'s output stream (as Python ints)."""
    from tensorlet._src.ops.random_ops import philox

    b0 = start // 4
    b1 = (start + n + 3) // 4
    key = np.array([seed % _M64], _U64)
    counter = np.array([0, seed2 % _M64], _U64)
    w = philox(np, key, counter, np.arange(b0, b1, dtype=_U64))
    words = np.stack(w, axis=-1).reshape(-1)
    off = start - 4 * b0
    return words[off:off + n].astype(np.int64).tolist()


class WordStream:
    """Sequential 32-bit words of ``PhiloxRandom(seed, seed2)`` (TF's SingleSampleAdapter)."""

    __slots__ = ("seed", "seed2", "pos", "_buf", "_i")

    def __init__(self, seed, seed2, pos=0):
        self.seed, self.seed2, self.pos = seed, seed2, pos
        self._buf = []
        self._i = 0

    def next(self) -> int:
        if self._i >= len(self._buf):
            self._buf = _philox_words(self.seed, self.seed2, self.pos, _CHUNK)
            self.pos += _CHUNK
            self._i = 0
        w = self._buf[self._i]
        self._i += 1
        return w

    def take(self, n) -> list:
        out = []
        while len(out) < n:
            if self._i >= len(self._buf):
                self._buf = _philox_words(self.seed, self.seed2, self.pos, max(_CHUNK, n - len(out)))
                self.pos += len(self._buf)
                self._i = 0
            k = min(n - len(out), len(self._buf) - self._i)
            out.extend(self._buf[self._i:self._i + k])
            self._i += k
        return out


def data_seeds(seed):
    """TF's ``tf.data`` seed pair for an op seed: ``(seed, seed2)`` ints, ``(0, 0)`` when unseeded."""
    from tensorlet._src.ops.random_gen import get_seed

    if isinstance(seed, Tensor):
        seed = int(seed.numpy())
    g, op = get_seed(seed)
    if g is None:
        return 0, 0
    return int(g), int(op)


class SeedGenerator:
    """A dataset's seed source (TF's Fixed/RandomSeedGenerator over RandomSeeds)."""

    def __init__(self, seed, seed2, reshuffle):
        if (seed | seed2) == 0:
            seed = int.from_bytes(os.urandom(8), "little") - 2 ** 63
            seed2 = int.from_bytes(os.urandom(8), "little") - 2 ** 63
        self.seed, self.seed2 = seed, seed2
        self.reshuffle = bool(reshuffle)
        self.draws = 0
        self._lock = threading.Lock()

    def generate(self):
        """Seeds for a new iterator."""
        with self._lock:
            k = self.draws
            self.draws += 1
        if not self.reshuffle:
            return self.seed, self.seed2
        w = _philox_words(self.seed, self.seed2, 2 * k, 2)
        return w[0], w[1]

    def get_state(self):
        return (self.seed, self.seed2, self.draws)

    def set_state(self, state):
        self.seed, self.seed2, self.draws = (int(v) for v in state)


# --- shuffle -------------------------------------------------------------------------------------

def shuffle_stream(items, buffer_size, cap, words: WordStream):
    """TF's shuffle buffer over any iterator (elements or indices)."""
    buf = []
    start = end = 0
    exhausted = False
    nxt = words.next
    it = iter(items)
    while True:
        while not exhausted and end - start < buffer_size:
            try:
                x = next(it)
            except StopIteration:
                exhausted = True
                break
            p = end % cap
            if p == len(buf):
                buf.append(x)
            else:
                buf[p] = x
            end += 1
        n = end - start
        if n == 0:
            return
        i = (start + nxt() % n) % cap
        j = start % cap
        x = buf[i]
        buf[i] = buf[j]
        buf[j] = None
        start += 1
        yield x


def _shuffle_all(idx, words: WordStream):
    """The whole input fits the buffer: TF's sampling loop without refills (a permutation of ``idx``)."""
    n = len(idx)
    r = words.take(n)
    out = [0] * n
    for k in range(n):
        j = k + r[k] % (n - k)
        out[k] = idx[j]
        idx[j] = idx[k]
    return out


class ShuffleDataset(DatasetV2):
    def __init__(self, input_dataset, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        self._input = input_dataset
        self._buffer_size = static_int(buffer_size, "buffer_size")
        if self._buffer_size <= 0 and self._buffer_size != -2:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero or "
                                                          "UNKNOWN_CARDINALITY")
        s, s2 = data_seeds(seed)
        self._seedgen = SeedGenerator(s, s2, True if reshuffle_each_iteration is None else reshuffle_each_iteration)
        self._set_spec(input_dataset.element_spec)

    def _inputs(self):
        return [self._input]

    def _seed_generators(self):
        return [self._seedgen]

    def _card(self):
        return self._input._card()

    def _cap(self):
        n = self._input._card()
        b = self._buffer_size if self._buffer_size > 0 else 2 ** 62
        return max(1, min(b, n)) if n >= 0 else b

    def _gen(self, ictx):
        s, s2 = self._seedgen.generate()
        b = self._buffer_size if self._buffer_size > 0 else 2 ** 62
        return shuffle_stream(self._input._gen(ictx), b, self._cap(), WordStream(s, s2))

    def _index_plan(self):
        plan = self._input._index_plan()
        if plan is None:
            return None
        b = self._buffer_size if self._buffer_size > 0 else 2 ** 62
        n = self._input._card()

        def chunks(ictx):
            s, s2 = self._seedgen.generate()
            words = WordStream(s, s2)
            if 0 <= n <= b:
                idx = [i for c in plan.chunks(ictx) for i in c.tolist()]
                if len(idx) == n:
                    yield np.asarray(_shuffle_all(idx, words), np.int64)
                    return
                it = iter(idx)
            else:
                it = (i for c in plan.chunks(ictx) for i in c.tolist())
            out = []
            for i in shuffle_stream(it, b, self._cap(), words):
                out.append(i)
                if len(out) == 1024:
                    yield np.asarray(out, np.int64)
                    out = []
            if out:
                yield np.asarray(out, np.int64)

        return plan.derive(chunks)


ShuffleDataset.__name__ = ShuffleDataset.__qualname__ = "_ShuffleDataset"


# --- Dataset.random -------------------------------------------------------------------------------

class RandomDataset(DatasetV2):
    """Infinite int64 scalars: the words of TF's Philox stream for the dataset's seeds."""

    def __init__(self, seed=None, rerandomize_each_iteration=None, name=None):
        s, s2 = data_seeds(seed)
        self._seedgen = SeedGenerator(s, s2, bool(rerandomize_each_iteration))
        self._set_spec(TensorSpec([], _dt.int64))

    def _seed_generators(self):
        return [self._seedgen]

    def _card(self):
        return INFINITE

    def _gen(self, ictx):
        s, s2 = self._seedgen.generate()
        words = WordStream(s, s2)
        i64 = np.int64
        while True:
            buf = words.take(_CHUNK)
            for w in buf:
                yield (i64(w),)


RandomDataset.__name__ = RandomDataset.__qualname__ = "_RandomDataset"


def tf_multinomial_row(logits, seed) -> int:
    """One draw of TF's ``StatelessMultinomial`` for one row of logits (bit-exact with TF): the seed is scrambled
    into a Philox key/counter, two words make a double in [0, 1) (20 + 32 mantissa bits), and the class is found by
    ``upper_bound`` in the unnormalized CDF of ``exp(logits - max)``."""
    from tensorlet._src.ops.random_ops import _key_counter_kernel, philox

    key, counter = _key_counter_kernel(np, np.asarray(seed, np.int64).reshape(2))
    w = philox(np, key, counter, np.zeros(1, _U64))
    x0, x1 = int(w[0][0]), int(w[1][0])
    u = (((x0 & 0xFFFFF) << 32) | x1) * 2.0 ** -52
    row = np.asarray(logits, np.float64)
    fin = np.isfinite(row)
    mx = row[fin].max() if fin.any() else 0.0
    cdf = np.cumsum(np.where(fin, np.exp(row - mx), 0.0))
    return int(np.searchsorted(cdf, u * cdf[-1], side="right"))


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """TF's construction: a selector ``random(seed).batch(2).map(stateless_multinomial(log(weights)))``."""
    from tensorlet._src.data.transformations import DirectedInterleaveDataset, MapDataset, ZipDataset

    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(weights, DatasetV2):
        if weights is None:
            logits = constant([[1.0] * len(datasets)])
        else:
            if isinstance(weights, Tensor):
                if not weights.shape.is_compatible_with([len(datasets)]):
                    raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                                     f"`[len(datasets)]` but is {weights.shape}.")
            else:
                if len(datasets) != len(weights):
                    raise ValueError(f"Invalid `weights`. `weights` should have the same length as `datasets` but "
                                     f"got `len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`.")
                pairs = [(d, w) for d, w in zip(datasets, weights) if w > 0]
                datasets, weights = ([d for d, _ in pairs], [w for _, w in pairs]) if pairs else \
                    ([datasets[0].take(0)], [1.0])
            weights = convert_to_tensor(weights)
            if weights.dtype not in (_dt.float32, _dt.float64):
                raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` "
                                f"but is {weights.dtype}.")
            logits = expand_dims(log(weights), 0)
        if len(datasets) == 1:
            return datasets[0]

        lg = np.asarray(logits)

        def select(s):
            return np.int64(tf_multinomial_row(lg[0], s.numpy()))

        selector = MapDataset(RandomDataset(seed, rerandomize_each_iteration).batch(2), select)
    else:
        logits_ds = weights.map(lambda *p: log(p))

        def select_varying(lg, s):
            return np.int64(tf_multinomial_row(np.reshape(lg.numpy(), (-1,)), s.numpy()))

        selector = MapDataset(ZipDataset((logits_ds, RandomDataset(seed, rerandomize_each_iteration).batch(2))),
                              select_varying)
    return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)
