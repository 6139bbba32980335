"""TF2's core initializers (``tf.constant_initializer``, ``tf.zeros_initializer``, ``tf.ones_initializer``,
``tf.random_normal_initializer``, ``tf.random_uniform_initializer``): ``init(shape, dtype)`` returns a tensor.

Seeded random initializers draw from the stateless generators with seed ``[seed, 0]``, as TF's do, so they give
TF's numbers; unseeded ones use the global generator.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.ops._helpers import t, to_shape_tuple
from tensorlet._src.ops.registry import tf_export


class _Initializer:
    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _float_dtype(dtype, who):
    d = D.as_dtype(dtype)
    if not (d.is_floating or d.is_complex):
        raise ValueError(f"Expected float or complex dtype, got {d.name}.") if who == "normal" else ValueError(
            f"Argument `dtype` expected to be numeric or boolean. Received {d.name}.")
    return d


@tf_export("zeros_initializer")
class Zeros(_Initializer):
    """All zeros.  ``tf.zeros_initializer()([2])`` -> ``[0., 0.]``."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        return creation.zeros(list(to_shape_tuple(shape)), D.as_dtype(dtype))


@tf_export("ones_initializer")
class Ones(_Initializer):
    """All ones.  ``tf.ones_initializer()([2], tf.int32)`` -> ``[1, 1]``."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        return creation.ones(list(to_shape_tuple(shape)), D.as_dtype(dtype))


@tf_export("constant_initializer")
class Constant(_Initializer):
    """A constant ``value`` (a scalar, or a list/array with as many elements as the shape).

    >>> tf.constant_initializer([1., 2.])([2]).numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "numpy")):
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        shape = list(to_shape_tuple(shape))
        v = t(self.value) if dtype is None else t(self.value, dtype=D.as_dtype(dtype))
        if v.shape.rank == 0:
            return creation.fill(shape, v)
        if int(np.prod(shape)) != int(np.prod(v.shape)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {v} (converted from "
                            f"{self.value}) has {int(np.prod(v.shape))} elements, but got `shape` {shape} with "
                            f"{int(np.prod(shape))} elements).")
        return array_shape.reshape(v, shape)

    def get_config(self):
        return {"value": self.value}


@tf_export("random_uniform_initializer")
class RandomUniform(_Initializer):
    """Uniform values in ``[minval, maxval)``.  Seeded: TF's stateless draws with seed ``[seed, 0]``.

    >>> tf.random_uniform_initializer(-1., 1., seed=5)([3]).shape
    TensorShape([3])
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=D.float32, **kwargs):
        d = D.as_dtype(dtype)
        if not (d.is_floating or d.is_integer):
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {d.name}.")
        shape = list(to_shape_tuple(shape))
        if self.seed is not None:
            return random_stateless.stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dtype=d)
        return random_gen.uniform(shape, self.minval, self.maxval, dtype=d)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


@tf_export("random_normal_initializer")
class RandomNormal(_Initializer):
    """Normal values with ``mean`` and ``stddev``.  Seeded: TF's stateless draws with seed ``[seed, 0]``.

    >>> tf.random_normal_initializer(seed=3)([2, 2]).shape
    TensorShape([2, 2])
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=D.float32, **kwargs):
        d = D.as_dtype(dtype)
        if not d.is_floating:
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {d.name}.")
        shape = list(to_shape_tuple(shape))
        if self.seed is not None:
            return random_stateless.stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dtype=d)
        return random_gen.normal(shape, self.mean, self.stddev, dtype=d)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


from tensorlet._src.ops import array_shape, creation, random_gen, random_stateless  # noqa: E402
