"""``tf.keras.initializers``: Keras 3's weight initializers.

Random initializers draw from TF's stateless random ops with the seed ``[seed, 0]`` (Keras 3's TensorFlow backend),
so a seeded initializer gives the same values as Keras and the same values on every call.  An unseeded one draws its
seed from Python's ``random`` when constructed (as Keras does), so ``keras.utils.set_random_seed`` makes it
reproducible.

>>> init = tf.keras.initializers.GlorotUniform(seed=1)
>>> init((2, 3)).shape
TensorShape([2, 3])
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.ops.array_shape import reshape, transpose
from tensorlet._src.ops.creation import eye, ones, zeros
from tensorlet._src.ops.linalg_decomp import qr
from tensorlet._src.ops.linalg import diag_part
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_unary import sign
from tensorlet._src.ops.random_stateless import stateless_normal, stateless_truncated_normal, stateless_uniform
from tensorlet._src.keras import _objects, backend
from tensorlet._src.ops.registry import tf_export

_MODULE = "keras.initializers"


def _dtype(dtype):
    from tensorlet._src.framework import dtypes as D

    return D.as_dtype(dtype if dtype is not None else backend.floatx())


def _shape(shape):
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return tuple(int(d) for d in shape)


@tf_export("keras.Initializer", "keras.initializers.Initializer")
class Initializer:
    """Base class: subclasses implement ``__call__(shape, dtype=None)``."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError("Initializer subclasses must implement the `__call__()` method.")

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def clone(self):
        return self.__class__.from_config(self.get_config())


@tf_export("keras.initializers.Constant", "keras.initializers.constant")
class Constant(Initializer):
    """Fills with ``value``: ``Constant(2.0)((2,))`` -> ``[2., 2.]``."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return cast(self.value, dtype) * ones(_shape(shape), dtype=dtype)

    def get_config(self):
        value = self.value
        if hasattr(value, "numpy"):
            value = value.numpy().tolist()
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        return {"value": value}


@tf_export("keras.initializers.Zeros", "keras.initializers.zeros")
class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None):
        return zeros(_shape(shape), dtype=_dtype(dtype))


@tf_export("keras.initializers.Ones", "keras.initializers.ones")
class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None):
        return ones(_shape(shape), dtype=_dtype(dtype))


@tf_export("keras.initializers.Identity", "keras.initializers.identity", "keras.initializers.IdentityInitializer")
class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        dtype = _dtype(dtype)
        return cast(self.gain, dtype) * eye(shape[0], shape[1], dtype=dtype)

    def get_config(self):
        return {"gain": self.gain}


class RandomInitializer(Initializer):
    """Base of the random initializers: keeps ``seed`` (int, SeedGenerator or None -> drawn from ``random``)."""

    def __init__(self, seed=None):
        self._init_seed = seed
        if seed is None:
            seed = _objects.default_seed()
        elif isinstance(seed, dict):
            seed = _objects.deserialize_object(seed, {}, kind="seed")
        elif not (isinstance(seed, int) or hasattr(seed, "next")):
            raise ValueError("`seed` argument should be an instance of `keras.random.SeedGenerator()` or an "
                             f"integer. Received: seed={seed}")
        self.seed = seed

    def _seed(self):
        return _objects.seed_pair(self.seed)

    def get_config(self):
        seed = self._init_seed
        if seed is not None and not isinstance(seed, int) and hasattr(seed, "get_config"):
            seed = _objects.serialize_object(seed)
        return {"seed": seed}


@tf_export("keras.initializers.RandomNormal", "keras.initializers.random_normal")
class RandomNormal(RandomInitializer):
    """Normal values (``mean``, ``stddev``)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return stateless_normal(_shape(shape), seed=self._seed(), mean=self.mean, stddev=self.stddev,
                                         dtype=_dtype(dtype))

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


@tf_export("keras.initializers.RandomUniform", "keras.initializers.random_uniform")
class RandomUniform(RandomInitializer):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        return stateless_uniform(_shape(shape), seed=self._seed(), minval=cast(self.minval, dtype),
                                          maxval=cast(self.maxval, dtype), dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


@tf_export("keras.initializers.TruncatedNormal", "keras.initializers.truncated_normal")
class TruncatedNormal(RandomInitializer):
    """Normal values redrawn beyond two standard deviations."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return stateless_truncated_normal(_shape(shape), seed=self._seed(), mean=self.mean,
                                                   stddev=self.stddev, dtype=_dtype(dtype))

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


def compute_fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) of a weight shape, Keras's rule (receptive field times channels for conv kernels)."""
    shape = _shape(shape)
    if input_axes is not None and output_axes is not None:
        return int(math.prod(shape[a] for a in input_axes)), int(math.prod(shape[a] for a in output_axes))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    rf = math.prod(shape[:-2])
    return shape[-2] * rf, shape[-1] * rf


@tf_export("keras.initializers.VarianceScaling", "keras.initializers.variance_scaling")
class VarianceScaling(RandomInitializer):
    """Scale-aware initializer: ``scale / fan`` variance, uniform or (truncated) normal."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, input_axes=None,
                 output_axes=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of {modes}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        dists = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in dists:
            raise ValueError(f"Invalid `distribution` argument: {distribution}.Please use one of {dists}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes = input_axes
        self.output_axes = output_axes
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out}.get(self.mode, (fan_in + fan_out) / 2.0)
        scale = self.scale / max(1.0, fan)
        if self.distribution == "truncated_normal":
            return stateless_truncated_normal(shape, seed=self._seed(), mean=0.0,
                                                       stddev=math.sqrt(scale) / 0.87962566103423978, dtype=dtype)
        if self.distribution == "untruncated_normal":
            return stateless_normal(shape, seed=self._seed(), mean=0.0, stddev=math.sqrt(scale),
                                             dtype=dtype)
        limit = math.sqrt(3.0 * scale)
        return stateless_uniform(shape, seed=self._seed(), minval=cast(-limit, dtype),
                                          maxval=cast(limit, dtype), dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "input_axes": self.input_axes, "output_axes": self.output_axes}


def _preset(cls_name, scale, mode, distribution, names):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        VarianceScaling.__init__(self, scale=scale, mode=mode, distribution=distribution, seed=seed,
                                 input_axes=input_axes, output_axes=output_axes)

    def get_config(self):
        return {"seed": RandomInitializer.get_config(self)["seed"], "input_axes": self.input_axes,
                "output_axes": self.output_axes}

    doc = f"VarianceScaling(scale={scale}, mode={mode!r}, distribution={distribution!r})."
    cls = type(cls_name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config, "__doc__": doc,
                                              "__module__": __name__, "__qualname__": cls_name})
    return tf_export(*names)(cls)


GlorotUniform = _preset("GlorotUniform", 1.0, "fan_avg", "uniform",
                        ("keras.initializers.GlorotUniform", "keras.initializers.glorot_uniform"))
GlorotNormal = _preset("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                       ("keras.initializers.GlorotNormal", "keras.initializers.glorot_normal"))
LecunNormal = _preset("LecunNormal", 1.0, "fan_in", "truncated_normal",
                      ("keras.initializers.LecunNormal", "keras.initializers.lecun_normal"))
LecunUniform = _preset("LecunUniform", 1.0, "fan_in", "uniform",
                       ("keras.initializers.LecunUniform", "keras.initializers.lecun_uniform"))
HeNormal = _preset("HeNormal", 2.0, "fan_in", "truncated_normal",
                   ("keras.initializers.HeNormal", "keras.initializers.he_normal"))
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform",
                    ("keras.initializers.HeUniform", "keras.initializers.he_uniform"))


@tf_export("keras.initializers.Orthogonal", "keras.initializers.orthogonal", "keras.initializers.OrthogonalInitializer")
class Orthogonal(RandomInitializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal matrix, times ``gain``."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. Received: "
                             f"shape={shape} of rank {len(shape)}.")
        dtype = _dtype(dtype)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = stateless_normal((max(rows, cols), min(rows, cols)), seed=self._seed(), dtype=dtype)
        q, r = qr(a)
        q = q * sign(diag_part(r))
        if rows < cols:
            q = transpose(q)
        return cast(self.gain, dtype) * reshape(q, shape)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}


ALL_OBJECTS = (Initializer, Constant, Identity, Ones, Zeros, GlorotNormal, GlorotUniform, HeNormal, HeUniform,
               LecunNormal, LecunUniform, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling)
ALL_OBJECTS_DICT = {c.__name__: c for c in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({backend.to_snake_case(c.__name__): c for c in ALL_OBJECTS})
ALL_OBJECTS_DICT.update({"IdentityInitializer": Identity, "normal": RandomNormal, "one": Ones,
                         "OrthogonalInitializer": Orthogonal, "uniform": RandomUniform, "zero": Zeros})


@tf_export("keras.initializers.serialize")
def serialize(initializer):
    """The Keras 3 config dict of an initializer."""
    return _objects.serialize_object(initializer)


@tf_export("keras.initializers.deserialize")
def deserialize(config, custom_objects=None):
    """An initializer from its config dict (or name)."""
    return _objects.deserialize_object(config, ALL_OBJECTS_DICT, custom_objects, kind="initializer")


@tf_export("keras.initializers.get")
def get(identifier):
    """An initializer from a name (``"glorot_uniform"``), config dict, class, callable, or a tensor/array value.

    >>> tf.keras.initializers.get("ones")((2,)).numpy()
    array([1., 1.], dtype=float32)
    """
    if isinstance(identifier, (np.ndarray, np.generic)) or _is_tensor(identifier):
        value = identifier

        def initialize_fn(shape, dtype=None):
            if tuple(_shape(shape)) != tuple(np.shape(value)):
                raise ValueError(f"Expected `shape` to be {tuple(np.shape(value))} for direct tensor as initializer."
                                 f" Received shape={tuple(shape)}")
            return cast(value, _dtype(dtype))

        return initialize_fn
    return _objects.get_object(identifier, "initializer", ALL_OBJECTS_DICT, deserialize,
                               by_name=lambda name: deserialize({"class_name": name, "config": {}}))


def _is_tensor(x):
    from tensorlet._src.framework.tensor import Tensor
    from tensorlet._src.framework.variables import Variable

    return isinstance(x, (Tensor, Variable))
