"""tf.random's stateful API: ``set_seed`` with TF 2's seed rules, ``uniform`` & co, and ``Generator``.

Nothing here is a primitive: every call picks a Philox key/counter and runs the pure
samplers of ``random_ops`` (through the helpers of ``random_stateless``).

Seed rules (TF 2, eager).  A random call uses an op-seed pair ``(global, op)``:

* no global seed and no op seed: a fresh nondeterministic pair for each call;
* global seed, no op seed: ``op`` is the next draw of ``random.Random(global)`` (restarted
  by ``set_seed``), so ``set_seed(1); a = uniform(); b = uniform()`` gives a != b and
  the same a, b again after ``set_seed(1)``;
* op seed only: ``global`` is ``DEFAULT_GRAPH_SEED`` (87654321);
* both: ``(global, op)``.

Seeds are reduced modulo 2**31 - 1 and (0, 0) becomes (0, 2**31 - 1), as in TF.  A pair
names the Philox stream ``key = global, counter = [offset, op]``; like TF's kernel cache,
each (op, dtype, pair) keeps its own offset, which advances 256 blocks per sample, so
repeated calls with one op seed give new values and ``set_seed`` restarts every stream.
This reproduces TF's numbers for uniform, integer uniform, normal and truncated normal.

A ``Generator`` keeps TF's Philox state ``[counter low, counter high, key]`` (int64[3]) in a
``tf.Variable``; each call reads it and writes it back advanced (the ``RngStateAdvance``
primitive), so a traced function can thread it like any other variable.
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops import random_ops as R
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, tf_export

D = _dt
DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_U64 = 2 ** 64


class _Seeds:
    """The process-wide seed state (TF keeps it in the eager context)."""

    def __init__(self):
        self.global_seed = None
        self.rng = None  # random.Random(global_seed): op seeds for calls without one
        self.offsets = {}  # (op, dtype, global, op seed) -> next counter offset (TF's kernel cache)


_seeds = _Seeds()


@tf_export("random.set_seed")
def set_seed(seed):
    """Sets the global random seed; restarts every seeded random sequence.

    >>> tf.random.set_seed(1); a = tf.random.uniform([]); tf.random.set_seed(1)
    >>> bool(tf.random.uniform([]) == a)
    True
    """
    seed = static(seed)
    _seeds.global_seed = seed
    if seed is None:
        _seeds.rng = None
    else:
        import random  # imported here: the stdlib random module costs ~5 ms at `import tensorlet`

        _seeds.rng = random.Random(seed)
    _seeds.offsets.clear()


def _truncate(seed):
    return static(seed) % _MAXINT32


def get_seed(op_seed):
    """TF's ``(global, op)`` seed pair for a random op; ``(None, None)`` means nondeterministic.

    Other families that draw random numbers under TF's seed rules (dropout, initializers)
    should take their seeds from here so that they consume the same sequence as TF.
    """
    g = _seeds.global_seed
    if g is not None:
        if op_seed is None:
            op_seed = _seeds.rng.randint(0, _MAXINT32)
        seeds = (_truncate(g), _truncate(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate(op_seed))
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _nondeterministic_ints(n):
    return [int.from_bytes(os.urandom(8), "little") for _ in range(n)]


def stream(op_name, dtype, op_seed, nsamples):
    """(key, counter) tensors for one stateful call of ``op_name``, advancing its stream."""
    from tensorlet._src.framework.context import ctx

    if ctx.interp is not None and hasattr(ctx.interp, "read_variable"):
        return _graph_stream(op_seed, nsamples)
    had_op_seed = op_seed is not None
    g, op = get_seed(op_seed)
    if g is None:
        g, op = _nondeterministic_ints(2)
        offset = 0
    elif had_op_seed:
        k = (op_name, dtype.name, g, op)
        offset = _seeds.offsets.get(k, 0)
        _seeds.offsets[k] = (offset + nsamples * R.BLOCKS_PER_SAMPLE) % _U64
    else:
        offset = 0  # a fresh op seed from the global sequence: a new stream
    return (convert_to_tensor(np.array([g % _U64], np.uint64)),
            convert_to_tensor(np.array([offset, op % _U64], np.uint64)))


_graph_counter = []  # the hidden uint64 variable traced stateful random ops advance on every run


def _graph_stream(op_seed, nsamples):
    """A stateful random op inside a traced function: its counter comes from a variable that every run of the
    function advances, so each call draws new numbers (deterministically under tf.random.set_seed)."""
    from tensorlet._src.framework.context import init_scope
    from tensorlet._src.framework.variables import Variable
    from tensorlet._src.ops.array_blocks import stack

    g, op = get_seed(op_seed)
    if g is None:
        g, op = _nondeterministic_ints(2)
    if not _graph_counter:
        with init_scope():
            _graph_counter.append(Variable(np.uint64(0), trainable=False, name="graph_rng_counter"))
    var = _graph_counter[0]
    base = var.value()
    var.assign_add(np.uint64(nsamples * R.BLOCKS_PER_SAMPLE))
    key = convert_to_tensor(np.array([g % _U64], np.uint64))
    counter = stack([base, convert_to_tensor(np.uint64(op % _U64))])
    return key, counter


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


# --- stateful functions (TF 2's tf.random.*) ----------------------------------------------

@tf_export("random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform values in [minval, maxval): ``tf.random.uniform([2, 3])``, ``tf.random.uniform([4], 0, 9, tf.int32)``."""
    dtype = D.as_dtype(dtype)
    if dtype not in S.UNIFORM_DTYPES:
        raise S.bad_dtype(dtype, S.UNIFORM_DTYPES)
    if dtype.is_integer and maxval is None:
        raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
    op = "RandomUniformInt" if dtype.is_integer else "RandomUniform"
    shape = S.shape_tuple(shape, op)
    key, counter = stream(op, dtype, seed, _size(shape))
    return S.sample_uniform(key, counter, shape, minval, maxval, dtype)


@tf_export("random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values: ``tf.random.normal([2, 3], mean=1.0, stddev=0.5)``."""
    dtype = D.as_dtype(dtype)
    shape = S.shape_tuple(shape, "RandomStandardNormal")
    convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    key, counter = stream("RandomStandardNormal", dtype, seed, _size(shape))
    return S.sample_normal(key, counter, shape, mean, stddev, dtype, "RandomStandardNormal")


@tf_export("random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values redrawn until within two stddevs of the mean: ``tf.random.truncated_normal([3])``."""
    dtype = D.as_dtype(dtype)
    shape = S.shape_tuple(shape, "TruncatedNormal")
    convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    key, counter = stream("TruncatedNormal", dtype, seed, _size(shape))
    return S.sample_truncated_normal(key, counter, shape, mean, stddev, dtype, "TruncatedNormal")


@tf_export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices ``[batch, num_samples]`` drawn from ``logits`` ``[batch, classes]``.

    >>> tf.random.categorical(tf.math.log([[0.5, 0.5]]), 5).shape
    TensorShape([1, 5])
    """
    logits, num_samples, dtype = S.categorical_args(logits, num_samples, dtype)
    n = logits.shape.as_list()[0] * max(num_samples, 0) if logits.shape.rank == 2 else 0
    key, counter = stream("Multinomial", dtype, seed, n)
    return S.sample_categorical(key, counter, logits, num_samples, dtype)


@tf_export("random.shuffle")
def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted: ``tf.random.shuffle([1, 2, 3])``."""
    value = t(value)
    n = value.shape.as_list()[0] if value.shape.rank else 1
    key, counter = stream("RandomShuffle", value.dtype, seed, n)
    return bind(R.SHUFFLE, value, key, counter)


@tf_export("random.gamma")
def gamma(shape, alpha, beta=None, dtype=D.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape ``shape + broadcast(alpha, beta).shape``."""
    alpha, beta, dtype = S.gamma_args(alpha, beta, dtype, "RandomGamma")
    shape = S.shape_tuple(shape, "RandomGamma")
    pshape = _broadcast_args(alpha, beta)
    out = shape + pshape
    key, counter = stream("RandomGamma", dtype, seed, _size(out))
    return S.sample_gamma(key, counter, out, alpha, beta, dtype)


def _broadcast_args(alpha, beta):
    a = tuple(alpha.shape.as_list())
    if beta is None:
        return a
    b = tuple(beta.shape.as_list())
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        raise errors.invalid_argument("BroadcastArgs", f"Incompatible shapes: {errors.shape_str(a)} vs. "
                                                       f"{errors.shape_str(b)}") from None


@tf_export("random.poisson")
def poisson(shape, lam, dtype=D.float32, seed=None, name=None):
    """Poisson(lam) samples of shape ``shape + lam.shape``: ``tf.random.poisson([10], [0.5, 1.5])``."""
    lam, dtype = S.poisson_args(lam, dtype, "RandomPoissonV2")
    shape = S.shape_tuple(shape, "RandomPoissonV2")
    out = shape + tuple(lam.shape.as_list())
    key, counter = stream("RandomPoissonV2", dtype, seed, _size(out))
    return bind(R.POISSON, lam, key, counter, shape=out, dtype=dtype._np)


# --- Generator ------------------------------------------------------------------------------

_STATE_SIZE = 3


def _state_tensor(state):
    """A state (list, array, tensor) as an int64 tensor; Python ints past int64 wrap (TF's rule)."""
    if isinstance(state, Tensor) or hasattr(state, "__tf_tensor__"):
        s = t(state)
        return s if s.dtype is D.int64 else mb.cast(s, D.int64)
    return convert_to_tensor(np.array(_wrap_ints(state), dtype=np.int64))


def _wrap_ints(x):
    if isinstance(x, (list, tuple)):
        return [_wrap_ints(v) for v in x]
    if isinstance(x, int) and x >= 2 ** 63:
        return x - _U64
    return x


def _assert_shape(shape, expected):
    if tuple(shape) != tuple(expected):
        raise ValueError(f"Shapes {tuple(shape)} and {list(expected)} are incompatible")


@tf_export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random-number generator whose Philox state lives in a ``tf.Variable``.

    >>> g = tf.random.Generator.from_seed(1234)
    >>> g.normal(shape=(2, 3)).shape
    TensorShape([2, 3])
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if alg is not None or state is not None:
                raise AssertionError("Generator(copy_from=...) takes no `state` or `alg`")
            self._state_var = Variable(copy_from.state.value(), trainable=False, name="StateVar")
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise AssertionError("Generator() needs `copy_from`, or both `state` and `alg`; use "
                                 "tf.random.Generator.from_seed(...) or .from_non_deterministic_state()")
        self._alg = S.alg_to_int(alg)
        if isinstance(state, Variable):
            _assert_shape(state.shape.as_list(), [_STATE_SIZE])
            self._state_var = state
        else:
            state = _state_tensor(state)
            _assert_shape(state.shape.as_list(), [_STATE_SIZE])
            self._state_var = Variable(state, trainable=False, name="StateVar")

    # --- constructors ---------------------------------------------------------------------
    @classmethod
    def from_state(cls, state, alg):
        """A generator from a state ``[counter low, counter high, key]``."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator from an integer (or vector) seed: ``tf.random.Generator.from_seed(1)``."""
        alg = S.alg_to_int(alg if alg is not None else "philox")
        return cls(state=S.create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator with an OS-random state."""
        alg = S.alg_to_int(alg if alg is not None else "philox")
        words = [w - _U64 if w >= 2 ** 63 else w for w in _nondeterministic_ints(_STATE_SIZE)]
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a scalar key and a counter ``[2]``."""
        return cls(state=_key_counter_state(key, counter), alg=alg)

    def reset(self, state):
        """Replace the state."""
        state = _state_tensor(state)
        _assert_shape(state.shape.as_list(), [_STATE_SIZE])
        self._state_var.assign(state)

    def reset_from_seed(self, seed):
        """Restart from a seed, as ``from_seed`` would."""
        self._state_var.assign(S.create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        self._state_var.assign(_key_counter_state(key, counter))

    # --- properties -----------------------------------------------------------------------
    @property
    def state(self):
        """The ``tf.Variable`` holding ``[counter low, counter high, key]`` (int64)."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg

    @property
    def key(self):
        """The key part of the state (an int64 scalar tensor)."""
        return self._state_var.value()[_STATE_SIZE - 1]

    # --- state updates ----------------------------------------------------------------------
    def _key_counter(self, nsamples, per_sample=R.BLOCKS_PER_SAMPLE):
        key, counter, new = bind(R.RNG_STATE_ADVANCE, self._state_var.value(), delta=nsamples * per_sample)
        self._state_var.assign(new)
        return key, counter

    def skip(self, delta):
        """Advance the state as ``normal([delta])`` would; returns the state before the skip."""
        old = self._state_var.value()
        self._key_counter(int(static(delta)))
        return old

    # --- distributions ---------------------------------------------------------------------
    def uniform(self, shape, minval=0, maxval=None, dtype=D.float32, name=None):
        """Uniform values in [minval, maxval); integers need both bounds (or neither: full range)."""
        dtype = D.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
            allowed = S.FULL_INT_DTYPES if minval is None else (D.int32, D.int64)
            op = "StatelessRandomUniformFullIntV2" if minval is None else "StatelessRandomUniformIntV2"
            if dtype not in allowed:
                raise S.not_allowed(op, "dtype", dtype, allowed)
        elif dtype not in D.FLOATS:
            raise S.not_allowed("StatelessRandomUniformV2", "dtype", dtype, D.FLOATS)
        shape = S.shape_tuple(shape, "StatelessRandomUniformV2")
        if not dtype.is_integer:
            convert_to_tensor(minval, dtype=dtype), convert_to_tensor(1 if maxval is None else maxval, dtype=dtype)
        key, counter = self._key_counter(_size(shape))
        return S.sample_uniform(key, counter, shape, minval, maxval, dtype)

    def uniform_full_int(self, shape, dtype=D.uint64, name=None):
        """Integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
        dtype = D.as_dtype(dtype)
        if dtype not in S.FULL_INT_DTYPES:
            raise S.not_allowed("StatelessRandomUniformFullIntV2", "dtype", dtype, S.FULL_INT_DTYPES)
        shape = S.shape_tuple(shape, "StatelessRandomUniformFullIntV2")
        key, counter = self._key_counter(_size(shape))
        return bind(R.UNIFORM_FULL_INT, key, counter, shape=shape, dtype=dtype._np)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        dtype = D.as_dtype(dtype)
        shape = S.shape_tuple(shape, "StatelessRandomNormalV2")
        convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
        key, counter = self._key_counter(_size(shape))
        return S.sample_normal(key, counter, shape, mean, stddev, dtype, "StatelessRandomNormalV2")

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        dtype = D.as_dtype(dtype)
        shape = S.shape_tuple(shape, "StatelessTruncatedNormalV2")
        convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
        key, counter = self._key_counter(_size(shape))
        return S.sample_truncated_normal(key, counter, shape, mean, stddev, dtype, "StatelessTruncatedNormalV2")

    def binomial(self, shape, counts, probs, dtype=D.int32, name=None):
        """Binomial(counts, probs) samples; counts/probs broadcast against the last dims of ``shape``."""
        counts, probs, dtype = S.binomial_args(counts, probs, dtype, "StatefulRandomBinomial")
        shape = S.shape_tuple(shape, "StatefulRandomBinomial")
        S.suffix_shape("StatefulRandomBinomial", shape, counts, probs)
        key, counter = self._key_counter(_size(shape), per_sample=R.BLOCKS_PER_SAMPLE * 100)  # TF's skip
        return bind(R.BINOMIAL, counts, probs, key, counter, shape=shape, dtype=dtype._np)

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops, as an int64 ``[2, count]`` tensor."""
        keys = self.uniform_full_int([int(static(count))], dtype=D.int64)
        return mb.multiply(keys, np.array([[1], [0]], np.int64))  # stack([keys, zeros])

    def split(self, count=1):
        """``count`` new generators, independent of each other and of this one (which advances)."""
        keys = self.uniform_full_int([int(static(count))], dtype=D.int64).numpy().tolist()
        return [Generator(state=[0, 0, k], alg=self._alg) for k in keys]


def _key_counter_state(key, counter):
    key, counter = _state_tensor(key), _state_tensor(counter)
    _assert_shape(counter.shape.as_list(), [_STATE_SIZE - 1])
    _assert_shape(key.shape.as_list(), [])
    return np.concatenate([counter.numpy(), key.numpy().reshape(1)])


_global_generator = None


@tf_export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The process-wide Generator (created from a nondeterministic state on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


@tf_export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Replace the global generator (existing references to the old one keep it)."""
    global _global_generator
    _global_generator = generator


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_binary as mb  # noqa: E402
from tensorlet._src.ops import random_stateless as S  # noqa: E402
