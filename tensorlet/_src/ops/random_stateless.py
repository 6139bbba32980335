"""tf.random.stateless_*: random numbers that are a pure function of a seed (and split / fold_in).

The seed ``[2]`` (int32 or int64) is scrambled into a Philox key and counter by the
``StatelessRandomGetKeyCounter`` primitive, exactly as TF does, so uniform, integer,
normal and truncated normal streams match TF bit for bit (float32/float16).  The
``_sample_*`` helpers below take an explicit key/counter and are shared with the stateful
API in ``random_gen.py``.
"""

from __future__ import annotations

import enum

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, tf_export

D = _dt
UNIFORM_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32, D.int64)
STATELESS_UNIFORM_DTYPES = UNIFORM_DTYPES + (D.uint32, D.uint64)
FULL_INT_DTYPES = (D.int32, D.int64, D.uint32, D.uint64)
GAMMA_DTYPES = (D.float16, D.float32, D.float64)
POISSON_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)
_TF_NAME = {"float16": "half", "float32": "float", "float64": "double"}


@tf_export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The RNG algorithms: tensorlet implements Philox (AUTO_SELECT picks it, as TF does on CPU)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALG_NAMES = {"philox": 1, "threefry": 2, "auto_select": 3}


def alg_to_int(alg) -> int:
    """TF's accepted spellings of an algorithm (name, enum, int) as an int; ThreeFry is not implemented."""
    if alg is None:
        return 3
    if isinstance(alg, Algorithm):
        v = alg.value
    elif isinstance(alg, str) and alg.lower() in _ALG_NAMES:
        v = _ALG_NAMES[alg.lower()]
    elif isinstance(alg, (int, np.integer, EagerTensor)) and int(static(alg)) in (1, 2, 3):
        v = int(static(alg))
    else:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    if v == 2:
        raise errors.UnimplementedError(None, None, "tensorlet implements only the Philox random-number algorithm "
                                                    "(alg='philox' or 'auto_select'), not ThreeFry")
    return v


def shape_tuple(shape, op_name):
    """A sample shape as a tuple, with TF's errors (a vector of non-negative int32/int64)."""
    v = static(shape)
    if hasattr(v, "as_list"):
        v = v.as_list()
    try:
        a = np.asarray(v)
    except (TypeError, ValueError):
        raise errors.invalid_argument(op_name, f"shape must be a vector of {{int32,int64}}, got {shape!r}") from None
    if a.size == 0 and a.ndim == 1:
        return ()
    if a.dtype.kind not in "iu":
        word = _TF_NAME.get(a.dtype.name, a.dtype.name) if a.dtype.kind != "O" else "None"
        raise errors.invalid_argument(op_name, f"Value for attr 'T' of {word} is not in the list of allowed values: "
                                               "int32, int64")
    if a.ndim != 1:
        raise errors.invalid_argument(op_name, f"shape must be a vector of {{int32,int64}}, got shape "
                                               f"{errors.shape_str(a.shape)}")
    for d in a.tolist():
        if d < 0:
            raise errors.invalid_argument(op_name, f"Dimension {d} must be >= 0")
    return tuple(int(d) for d in a.tolist())


def bad_dtype(dtype, accepted, extra=""):
    names = ", ".join(repr(d) for d in accepted)
    return ValueError(f"Argument `dtype` got invalid value {dtype}{extra}. Accepted dtypes are ({names}).")


def not_allowed(op_name, attr, dtype, allowed):
    names = ", ".join(_TF_NAME.get(d.name, d.name) for d in allowed)
    return errors.invalid_argument(op_name, f"Value for attr '{attr}' of {dtype.name} is not in the list of allowed "
                                            f"values: {names}")


def key_counter(seed, alg="auto_select"):
    """(key uint64[1], counter uint64[2]) tensors for a stateless seed ``[2]``."""
    alg_to_int(alg)
    return bind(R.GET_KEY_COUNTER, t(seed))


def _is_py(x, value):
    return x.__class__ in (int, float) and x == value


def suffix_shape(op_name, shape, *params):
    """Check that the params broadcast to a suffix of ``shape`` (the stateless ops' rule)."""
    try:
        b = np.broadcast_shapes(*(tuple(p.shape) for p in params))
        ok = len(b) <= len(shape) and np.broadcast_shapes(b, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise errors.invalid_argument(op_name, "Shape passed in must end with broadcasted shape.")


# --- samplers on an explicit key/counter (shared with the stateful API) -----------------

def sample_uniform(key, counter, shape, minval, maxval, dtype):
    """Uniform floats in [minval, maxval), or integers (full range when minval and maxval are None)."""
    if dtype.is_integer:
        if minval is None:
            return bind(R.UNIFORM_FULL_INT, key, counter, shape=shape, dtype=dtype._np)
        lo, hi = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
        return bind(R.UNIFORM_INT, key, counter, lo, hi, shape=shape)
    if maxval is None:
        maxval = 1
    lo, hi = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
    rnd = bind(R.UNIFORM, key, counter, shape=shape, dtype=dtype._np)
    if _is_py(minval, 0) and _is_py(maxval, 1):
        return rnd
    return mb.add(mb.multiply(rnd, mb.subtract(hi, lo)), lo)


def _sample_scaled(op, key, counter, shape, mean, stddev, dtype, op_name):
    m, s = convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    if dtype not in D.FLOATS:
        raise not_allowed(op_name, "dtype", dtype, D.FLOATS)
    rnd = bind(op, key, counter, shape=shape, dtype=dtype._np)
    if _is_py(mean, 0) and _is_py(stddev, 1):
        return rnd
    return mb.add(mb.multiply(rnd, s), m)


def sample_normal(key, counter, shape, mean, stddev, dtype, op_name):
    """``mean + stddev * N(0, 1)`` of ``dtype``."""
    return _sample_scaled(R.NORMAL, key, counter, shape, mean, stddev, dtype, op_name)


def sample_truncated_normal(key, counter, shape, mean, stddev, dtype, op_name):
    """``mean + stddev * N(0, 1)`` truncated to two standard deviations."""
    return _sample_scaled(R.TRUNCATED_NORMAL, key, counter, shape, mean, stddev, dtype, op_name)


def categorical_args(logits, num_samples, dtype):
    dtype = D.int64 if dtype is None else D.as_dtype(dtype)
    if dtype not in (D.int32, D.int64):
        raise bad_dtype(dtype, (D.int32, D.int64))
    logits = t(logits)
    if logits.dtype not in D.FLOATS:
        raise errors.op_error(errors.NotFoundError, "Multinomial", f"Could not find a kernel for Multinomial with "
                                                                   f"logits of type {logits.dtype.name} (floats only)")
    return logits, int(static(num_samples)), dtype


def sample_categorical(key, counter, logits, num_samples, dtype):
    return bind(R.MULTINOMIAL, logits, key, counter, num_samples=num_samples, dtype=dtype._np)


def sample_gamma(key, counter, out_shape, alpha, beta, dtype):
    r = bind(R.GAMMA, alpha, key, counter, shape=out_shape)
    if beta is None:
        return r
    return mb.maximum(mb.truediv(r, beta), float(np.finfo(dtype._np).tiny))


def gamma_args(alpha, beta, dtype, op_name):
    dtype = D.as_dtype(dtype)
    alpha = convert_to_tensor(alpha, dtype=dtype)
    beta = None if beta is None else convert_to_tensor(beta, dtype=dtype)
    if dtype not in GAMMA_DTYPES:
        raise not_allowed(op_name, "dtype", dtype, GAMMA_DTYPES)
    return alpha, beta, dtype


def poisson_args(lam, dtype, op_name):
    dtype = D.as_dtype(dtype)
    lam = t(lam, hint=D.float32)
    if dtype not in POISSON_DTYPES:
        raise not_allowed(op_name, "dtype", dtype, POISSON_DTYPES)
    if lam.dtype not in POISSON_DTYPES:
        raise not_allowed(op_name, "Rtype", lam.dtype, POISSON_DTYPES)
    return lam, dtype


def binomial_args(counts, probs, dtype, op_name):
    dtype = D.as_dtype(dtype)
    counts = t(counts, hint=D.float32)
    probs = convert_to_tensor(probs, dtype_hint=counts.dtype)
    if dtype not in POISSON_DTYPES:
        raise not_allowed(op_name, "dtype", dtype, POISSON_DTYPES)
    if counts.dtype not in POISSON_DTYPES:
        raise not_allowed(op_name, "T", counts.dtype, POISSON_DTYPES)
    if probs.dtype is not counts.dtype:
        probs = mb.cast(probs, counts.dtype)
    return counts, probs, dtype


def uniform_dtype_args(minval, maxval, dtype, accepted):
    dtype = D.as_dtype(dtype)
    if dtype not in accepted:
        raise bad_dtype(dtype, accepted)
    return dtype


# --- the public stateless API ----------------------------------------------------------

@tf_export("random.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None, alg="auto_select"):
    """Uniform values that depend only on ``seed``.

    >>> tf.random.stateless_uniform([2], seed=[1, 2])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([0.8440604 , 0.19204533], dtype=float32)>
    """
    dtype = uniform_dtype_args(minval, maxval, dtype, STATELESS_UNIFORM_DTYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both None "
                             f"or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype.is_unsigned:
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. Please "
                             "don't use unsigned integers in this case.")
    shape = shape_tuple(shape, "StatelessRandomUniformV2")
    key, counter = key_counter(seed, alg)
    return sample_uniform(key, counter, shape, minval, maxval, dtype)


@tf_export("random.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None, alg="auto_select"):
    """Normal values that depend only on ``seed``: ``tf.random.stateless_normal([3], seed=[1, 2])``."""
    dtype = D.as_dtype(dtype)
    shape = shape_tuple(shape, "StatelessRandomNormalV2")
    key, counter = key_counter(seed, alg)
    return sample_normal(key, counter, shape, mean, stddev, dtype, "StatelessRandomNormalV2")


@tf_export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None, alg="auto_select"):
    """Normal values within two stddevs of the mean, depending only on ``seed``."""
    dtype = D.as_dtype(dtype)
    shape = shape_tuple(shape, "StatelessTruncatedNormalV2")
    key, counter = key_counter(seed, alg)
    return sample_truncated_normal(key, counter, shape, mean, stddev, dtype, "StatelessTruncatedNormalV2")


@tf_export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=D.int64, name=None):
    """Class indices ``[batch, num_samples]`` drawn from ``logits`` ``[batch, classes]``."""
    logits, num_samples, dtype = categorical_args(logits, num_samples, dtype)
    key, counter = key_counter(seed)
    return sample_categorical(key, counter, logits, num_samples, dtype)


@tf_export("random.stateless_gamma")
def stateless_gamma(shape, seed, alpha, beta=None, dtype=D.float32, name=None):
    """Gamma(alpha, beta) samples; ``shape`` must end with the broadcast shape of alpha and beta."""
    alpha, beta, dtype = gamma_args(alpha, beta, dtype, "StatelessRandomGammaV3")
    shape = shape_tuple(shape, "StatelessRandomGammaV3")
    suffix_shape("StatelessRandomGammaV3", shape, alpha, *(() if beta is None else (beta,)))
    key, counter = key_counter(seed)
    return sample_gamma(key, counter, shape, alpha, beta, dtype)


@tf_export("random.stateless_poisson")
def stateless_poisson(shape, seed, lam, dtype=D.int32, name=None):
    """Poisson(lam) samples; ``shape`` must end with the shape of ``lam``."""
    lam, dtype = poisson_args(lam, dtype, "StatelessRandomPoisson")
    shape = shape_tuple(shape, "StatelessRandomPoisson")
    suffix_shape("StatelessRandomPoisson", shape, lam)
    key, counter = key_counter(seed)
    return bind(R.POISSON, lam, key, counter, shape=shape, dtype=dtype._np)


@tf_export("random.stateless_binomial")
def stateless_binomial(shape, seed, counts, probs, output_dtype=D.int32, name=None):
    """Binomial(counts, probs) samples; ``shape`` must end with their broadcast shape."""
    counts, probs, dtype = binomial_args(counts, probs, output_dtype, "StatelessRandomBinomial")
    shape = shape_tuple(shape, "StatelessRandomBinomial")
    suffix_shape("StatelessRandomBinomial", shape, counts, probs)
    key, counter = key_counter(seed)
    return bind(R.BINOMIAL, counts, probs, key, counter, shape=shape, dtype=dtype._np)


@tf_export("random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """Normal(means, stddevs) samples truncated to [minvals, maxvals] (broadcast to ``shape``)."""
    op = "StatelessParameterizedTruncatedNormal"
    means = t(means, hint=D.float32)
    params = [means]
    for i, x in enumerate((stddevs, minvals, maxvals)):
        p = convert_to_tensor(x, dtype_hint=means.dtype)
        if p.dtype is not means.dtype:
            raise errors.invalid_argument(op, f"cannot compute {op} as input #{i + 3}(zero-based) was expected to be a "
                                              f"{_TF_NAME.get(means.dtype.name, means.dtype.name)} tensor but is a "
                                              f"{_TF_NAME.get(p.dtype.name, p.dtype.name)} tensor")
        params.append(p)
    if means.dtype not in GAMMA_DTYPES:
        raise not_allowed(op, "dtype", means.dtype, GAMMA_DTYPES)
    shape = shape_tuple(shape, op)
    suffix_shape(op, shape, *params)
    sd = np.broadcast_to(params[1]._v, shape)
    lo, hi = np.broadcast_to(params[2]._v, shape), np.broadcast_to(params[3]._v, shape)
    if np.any(sd <= 0) or np.any(lo >= hi):
        raise errors.invalid_argument(op, "Invalid parameters")
    key, counter = key_counter(seed)
    return bind(R.PARAMETERIZED_TRUNCATED_NORMAL, *params, key, counter, shape=shape)


@tf_export("random.experimental.stateless_shuffle")
def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """``value`` with its first dimension permuted, depending only on ``seed``."""
    key, counter = key_counter(seed, alg)
    return bind(R.SHUFFLE, t(value), key, counter)


_INDEX_DTYPES = (D.int32, D.uint32, D.int64, D.uint64)


@tf_export("random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """Where ``index`` lands in a keyed permutation of ``[0, max_index]`` (seed ``[3]`` or ``[n, 3]``)."""
    index = t(index)
    seed = t(seed)
    max_index = convert_to_tensor(max_index, dtype_hint=index.dtype)
    op = "RandomIndexShuffle"
    if index.dtype not in _INDEX_DTYPES:
        raise not_allowed(op, "dtype", index.dtype, _INDEX_DTYPES)
    if seed.dtype not in _INDEX_DTYPES:
        raise not_allowed(op, "Tseed", seed.dtype, _INDEX_DTYPES)
    if max_index.dtype is not index.dtype:
        raise errors.invalid_argument(op, f"cannot compute {op} as input #2(zero-based) was expected to be a "
                                          f"{index.dtype.name} tensor but is a {max_index.dtype.name} tensor")
    return bind(R.INDEX_SHUFFLE, index, seed, max_index, rounds=int(rounds))


@tf_export("random.experimental.index_shuffle")
def index_shuffle(index, seed, max_index):
    """The position of ``index`` in a permutation of ``[0, max_index]`` fixed by ``seed`` ``[2]`` (or ``[n, 2]``).

    >>> sorted(int(tf.random.experimental.index_shuffle(i, [5, 9], 3)) for i in range(4))
    [0, 1, 2, 3]
    """
    seed = t(seed)
    v = seed.numpy()
    if v.ndim in (1, 2) and v.shape[-1] == 2:  # TF pads a [2] seed to the raw op's [3]
        pad = np.full(v.shape[:-1] + (1,), R._INDEX_SEED_PAD, v.dtype)
        seed = convert_to_tensor(np.concatenate([pad, v], axis=-1))
    return random_index_shuffle(index, seed, max_index, rounds=4)


def _seed_tensor(seed):
    s = t(seed)
    if s.dtype not in (D.int32, D.int64):
        raise ValueError(f"A seed must be an int32 or int64 tensor of shape [2], got dtype {s.dtype.name}")
    return s


@tf_export("random.split", "random.experimental.stateless_split")
def split(seed, num=2, alg="auto_select"):
    """``num`` new seeds ``[num, 2]`` derived from ``seed``: ``tf.random.split([1, 2], 3)``."""
    s = _seed_tensor(seed)
    key, counter = key_counter(s, alg)
    return bind(R.UNIFORM_FULL_INT, key, counter, shape=(int(static(num)), 2), dtype=s.dtype._np)


@tf_export("random.fold_in", "random.experimental.stateless_fold_in")
def fold_in(seed, data, alg="auto_select"):
    """A new seed ``[2]`` from ``seed`` and an integer ``data``: ``tf.random.fold_in([1, 2], 7)``."""
    _seed_tensor(seed)
    data = t(data)
    if data.dtype not in (D.int32, D.int64):
        raise ValueError(f"`data` must be an int32 or int64 scalar, got dtype {data.dtype.name}")
    if data.shape.rank != 0:
        raise errors.invalid_argument("Pack", "Shapes of all inputs must match: values[0].shape = [] != "
                                              f"values[1].shape = {errors.shape_str(data.shape.as_list())}")
    key, counter = key_counter(seed, alg)
    first = bind(R.UNIFORM_FULL_INT, key, counter, shape=(), dtype=data.dtype._np)
    # stack([first, data]) from arithmetic (exact: multiplies by 1 and 0)
    return mb.add(mb.multiply(first, np.array([1, 0], data.dtype._np)),
                  mb.multiply(data, np.array([0, 1], data.dtype._np)))


@tf_export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg):
    """A Generator state from a seed: ``tf.random.create_rng_state(1234, "philox")`` -> ``[1234, 0, 0]``.

    A Python int is cut into 64-bit words, lowest first; a vector is truncated or padded with
    zeros on the left.
    """
    size = 2 if _alg_int_any(alg) == 2 else 3
    return convert_to_tensor(_state_words(seed, size), dtype=D.int64)


def _alg_int_any(alg):
    try:
        return alg_to_int(alg)
    except errors.UnimplementedError:
        return 2


def _to_int64(v):
    v = int(v) & (2 ** 64 - 1)
    return v - 2 ** 64 if v >= 2 ** 63 else v


def _state_words(seed, size):
    if isinstance(seed, int):
        words = []
        for _ in range(size):
            words.append(_to_int64(seed))
            seed >>= 64
        return np.array(words, np.int64)
    if isinstance(seed, Tensor) or hasattr(seed, "__tf_tensor__"):
        seed = convert_to_tensor(seed).numpy()
    flat = [_to_int64(v) for v in np.asarray(seed, dtype=object).reshape(-1).tolist()][:size]
    return np.array([0] * (size - len(flat)) + flat, np.int64)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_binary as mb  # noqa: E402
from tensorlet._src.ops import random_ops as R  # noqa: E402
