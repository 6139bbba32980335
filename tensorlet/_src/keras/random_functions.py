"""``keras.random``: seeded sampling on the stateless random ops, with Keras 3's seed rules.

An int ``seed`` means the stateless seed ``[seed, 0]`` (so ``keras.random.normal((2,), seed=1)`` draws the same
bits as Keras on TensorFlow), a ``SeedGenerator`` hands out a fresh ``[seed, counter]`` per call (new numbers
every call, inside ``tf.function`` too), and ``None`` draws from a process-wide generator seeded by
``keras.utils.set_random_seed`` (or at random).

>>> normal((2,), seed=1).shape
TensorShape([2])
"""

from __future__ import annotations

import random as _py_random

from tensorlet._src.keras.backend import floatx, standardize_dtype
from tensorlet._src.keras.ops._dtypes import cast, convert
from tensorlet._src.keras.random import SeedGenerator
from tensorlet._src.keras.utils.random import _SEED_HOOKS, get_random_seed
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import random_stateless as rs
from tensorlet._src.ops.array_shape import shape as _shape
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.scan_sort import argsort

_GLOBAL = {}


def global_seed_generator():
    """The generator behind ``seed=None`` (reseeded by ``keras.utils.set_random_seed``)."""
    g = _GLOBAL.get("gen")
    if g is None:
        s = get_random_seed()
        g = _GLOBAL["gen"] = SeedGenerator(_py_random.randint(1, int(1e9)) if s is None else int(s),
                                           name="global_seed_generator")
    return g


def reset_global_seed_generator():
    _GLOBAL.pop("gen", None)


def draw_seed(seed):
    """The int32 ``[2]`` stateless seed for ``seed`` (an int, a ``SeedGenerator`` or None)."""
    if isinstance(seed, SeedGenerator):
        s = seed.next()
    elif isinstance(seed, bool) or (seed is not None and not isinstance(seed, int)):
        raise ValueError("Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
                         f"Received: seed={seed} (of type {type(seed)})")
    elif seed is None:
        s = global_seed_generator().next()
    else:
        v = (seed & 0xFFFFFFFF ^ 0x80000000) - 0x80000000
        return convert([v % (2**31 - 2), 0], "int32")
    return s if s.dtype.name == "int32" else cast(mb.floormod(s, 2**31 - 2), "int32")


def _shape_arg(shape):
    return [shape] if isinstance(shape, int) else list(shape)


@tf_export("keras.random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples (TF's stateless normal bits for the drawn seed)."""
    dtype = standardize_dtype(dtype or floatx())
    return rs.stateless_normal(_shape_arg(shape), seed=draw_seed(seed), mean=mean, stddev=stddev, dtype=dtype)


@tf_export("keras.random.uniform")
def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform samples in ``[minval, maxval)``."""
    dtype = standardize_dtype(dtype or floatx())
    return rs.stateless_uniform(_shape_arg(shape), seed=draw_seed(seed), minval=cast(minval, dtype),
                                maxval=cast(maxval, dtype), dtype=dtype)


@tf_export("keras.random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples redrawn beyond two standard deviations."""
    dtype = standardize_dtype(dtype or floatx())
    return rs.stateless_truncated_normal(_shape_arg(shape), seed=draw_seed(seed), mean=mean, stddev=stddev,
                                         dtype=dtype)


@tf_export("keras.random.randint")
def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers in ``[minval, maxval)``."""
    dtype = standardize_dtype(dtype)
    mid = dtype if dtype in ("int32", "int64") else "int64"
    out = rs.stateless_uniform(_shape_arg(shape), seed=draw_seed(seed), minval=minval, maxval=maxval, dtype=mid)
    return cast(out, dtype)


@tf_export("keras.random.categorical")
def categorical(logits, num_samples, dtype="int32", seed=None):
    """Class indices sampled from ``logits`` (``[batch, classes]``)."""
    out = rs.stateless_categorical(convert(logits), num_samples, seed=draw_seed(seed))
    return cast(out, dtype)


@tf_export("keras.random.dropout")
def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zeroes entries with probability ``rate`` and scales the rest by ``1 / (1 - rate)``."""
    x = convert(inputs)
    if rate == 1.0:
        return zeros_like(x)
    if rate == 0.0:
        return x
    if noise_shape is None:
        ns = _shape(x)
    else:
        dyn = _shape(x)
        ns = array_blocks.stack([dyn[i] if v is None else mb.cast(v, dyn.dtype) for i, v in enumerate(noise_shape)], 0)
    u = rs.stateless_uniform(ns, seed=draw_seed(seed), dtype=x.dtype.name)
    keep = mb.greater_equal(u, mb.cast(rate, x.dtype))
    scaled = mb.multiply(x, mb.cast(1.0 / (1.0 - rate), x.dtype))
    return where(keep, scaled, zeros_like(scaled))


@tf_export("keras.random.shuffle")
def shuffle(x, axis=0, seed=None):
    """``x`` permuted along ``axis``."""
    x = convert(x)
    u = rs.stateless_uniform([x.shape[axis]], seed=draw_seed(seed))
    return gather(x, argsort(u), axis=axis)


@tf_export("keras.random.gamma")
def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma samples with concentration ``alpha``."""
    dtype = standardize_dtype(dtype or floatx())
    mid = "float32" if dtype == "bfloat16" else dtype
    return cast(rs.stateless_gamma(_shape_arg(shape), seed=draw_seed(seed), alpha=alpha, dtype=mid), dtype)


@tf_export("keras.random.binomial")
def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial samples."""
    dtype = standardize_dtype(dtype or floatx())
    mid = "float32" if dtype == "bfloat16" else dtype
    return cast(rs.stateless_binomial(_shape_arg(shape), seed=draw_seed(seed), counts=counts, probs=probabilities,
                                      output_dtype=mid), dtype)


@tf_export("keras.random.beta")
def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta samples (as a ratio of two gamma draws, the second seeded ``seed + 12``)."""
    dtype = standardize_dtype(dtype or floatx())
    mid = "float32" if dtype == "bfloat16" else dtype
    s1 = draw_seed(seed)
    s2 = mb.add(s1, 12)
    shp = _shape_arg(shape)
    a = array_shape.broadcast_to(convert(alpha, mid), shp)
    b = array_shape.broadcast_to(convert(beta, mid), shp)
    ga = cast(rs.stateless_gamma(shp, seed=s1, alpha=a, dtype=mid), dtype)
    gb = cast(rs.stateless_gamma(shp, seed=s2, alpha=b, dtype=mid), dtype)
    return mb.divide(ga, mb.add(ga, gb))


def _on_set_random_seed(seed):
    reset_global_seed_generator()


_SEED_HOOKS.append(_on_set_random_seed)
