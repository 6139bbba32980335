"""``tf.experimental.numpy.random``: NumPy's random functions on tensorlet's random ops (seeded through
``tf.random.set_seed``, as TF's tnp does); float results are float64 as in NumPy."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.numpy_api.arrays import _shape
from tensorlet._src.numpy_api.core import _cast, _tf, export, result_dtype

# --- tnp.random ----------------------------------------------------------------------------------------

@export("random.seed")
def seed(s):
    """Seed tnp.random (through ``tf.random.set_seed``, as TF's tnp does)."""
    _tf("random.set_seed")(int(s))


@export("random.uniform")
def uniform(low=0.0, high=1.0, size=None):
    shape = [] if size is None else _shape(size)
    d = _dt.as_dtype(result_dtype(low, high))
    d = d if d.is_floating else _dt.float64
    return _tf("random.uniform")(shape, minval=low, maxval=high, dtype=d)


@export("random.random")
def random(size=None):
    return uniform(0.0, 1.0, size)


@export("random.rand")
def rand(*size):
    return uniform(0.0, 1.0, list(size))


@export("random.standard_normal")
def standard_normal(size=None):
    return _tf("random.normal")([] if size is None else _shape(size), dtype=_dt.float64)


@export("random.randn")
def randn(*args):
    return standard_normal(list(args))


@export("random.randint")
def randint(low, high=None, size=None, dtype=np.int64):
    if high is None:
        low, high = 0, low
    return _tf("random.uniform")([] if size is None else _shape(size), minval=low, maxval=high,
                                 dtype=_dt.as_dtype(np.dtype(dtype)))


@export("random.poisson")
def poisson(lam=1.0, size=None):
    return _cast(_tf("random.poisson")([] if size is None else _shape(size), lam, dtype=_dt.float64),
                       _dt.int64)
