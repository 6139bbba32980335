"""Activation and noise layers: ``LeakyReLU``, ``ReLU``, ``ELU``, ``PReLU``, ``Softmax`` (with masks), and
``ActivityRegularization``, ``GaussianNoise``, ``GaussianDropout``, ``AlphaDropout`` (identity unless training).
"""

from __future__ import annotations

import math

from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast, greater, greater_equal
from tensorlet._src.ops.math_unary import exp
from tensorlet._src.ops.nn_activations import relu, softmax
from tensorlet._src.ops.reduce import reduce_logsumexp
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import activations, constraints, initializers, regularizers


class _Elementwise(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


@tf_export("keras.layers.LeakyReLU")
class LeakyReLU(_Elementwise):
    """``x`` for x >= 0, ``negative_slope * x`` otherwise.

    >>> tf.keras.layers.LeakyReLU()(tf.constant([-1.0, 2.0])).numpy()
    array([-0.3,  2. ], dtype=float32)
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            import warnings

            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=2)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError("The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                             f"Expected a float. Received: negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        config = super().get_config()
        config.update({"negative_slope": self.negative_slope})
        return config


@tf_export("keras.layers.ReLU")
class ReLU(_Elementwise):
    """Rectified linear unit with optional ``max_value``, ``negative_slope`` and ``threshold``.

    >>> tf.keras.layers.ReLU(max_value=1.0)(tf.constant([-1.0, 0.5, 2.0])).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be None or a negative value. Received: "
                             f"negative_slope={negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be None or a negative value. Received: "
                             f"threshold={threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                            threshold=self.threshold)

    def get_config(self):
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


@tf_export("keras.layers.ELU")
class ELU(_Elementwise):
    """Exponential linear unit: ``alpha * (exp(x) - 1)`` for x < 0."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        config = super().get_config()
        config.update({"alpha": self.alpha})
        return config


@tf_export("keras.layers.PReLU")
class PReLU(Layer):
    """Parametric ReLU: ``relu(x) - alpha * relu(-x)`` with a learned ``alpha`` (shared over ``shared_axes``)."""

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for i in self.shared_axes or ():
            param_shape[i - 1] = 1
        self.alpha = self.add_weight(shape=param_shape, name="alpha", initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        axes = {i: input_shape[i] for i in range(1, len(input_shape)) if i not in (self.shared_axes or ())} \
            if self.shared_axes else {}
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs):
        return relu(inputs) - U.cast_like(self.alpha, inputs) * relu(-inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"alpha_initializer": initializers.serialize(self.alpha_initializer),
                       "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                       "alpha_constraint": constraints.serialize(self.alpha_constraint),
                       "shared_axes": self.shared_axes})
        return config


@tf_export("keras.layers.Softmax")
class Softmax(_Elementwise):
    """Softmax over ``axis`` (int or tuple); masked positions get 0.

    >>> tf.keras.layers.Softmax()(tf.constant([[1.0, 1.0]])).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        x = inputs
        if mask is not None:
            if len(mask.shape) > len(x.shape):
                raise ValueError(f"The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
                                 f"Received: inputs.shape={tuple(x.shape)}, mask.shape={tuple(mask.shape)}")
            if mask.dtype.name != "bool":
                mask = greater(mask, cast(0.5, mask.dtype))
            x = where(mask, x, cast(-3e4 if x.dtype.name == "float16" else -1e9, x.dtype))
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            y = exp(x - reduce_logsumexp(x, axis=list(self.axis), keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            y = softmax(x, axis=axis)
        if mask is not None:
            y = where(mask, y, zeros_like(y))
        return y

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis})
        return config


@tf_export("keras.layers.ActivityRegularization")
class ActivityRegularization(_Elementwise):
    """Identity that adds ``l1 * sum(|x|) + l2 * sum(x**2)`` to ``layer.losses``."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        from tensorlet._src.keras.regularizers import L1L2

        super().__init__(activity_regularizer=L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return inputs

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config


def _check_rate(value, name):
    if not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float value between 0 and 1. "
                         f"Received: {name}={value}")


@tf_export("keras.layers.GaussianNoise")
class GaussianNoise(_Elementwise):
    """Adds N(0, stddev) noise in training (stateless draws from a seed generator)."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(stddev, "stddev")
        self.stddev, self.seed = stddev, seed
        if stddev > 0:
            self.seed_generator = U.seed_generator(self, seed)

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            return inputs + U.normal(U.shape(inputs), self.seed_generator, inputs.dtype, 0.0, self.stddev)
        return inputs

    def get_config(self):
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config


@tf_export("keras.layers.GaussianDropout")
class GaussianDropout(_Elementwise):
    """Multiplies by N(1, sqrt(rate / (1 - rate))) noise in training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate, "rate")
        self.rate, self.seed = rate, seed
        if rate > 0:
            self.seed_generator = U.seed_generator(self, seed)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            std = math.sqrt(self.rate / (1.0 - self.rate))
            return inputs * U.normal(U.shape(inputs), self.seed_generator, inputs.dtype, 1.0, std)
        return inputs

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


@tf_export("keras.layers.AlphaDropout")
class AlphaDropout(_Elementwise):
    """Dropout that keeps SELU's self-normalizing mean and variance (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate, "rate")
        self.rate, self.seed, self.noise_shape = rate, seed, noise_shape
        if rate > 0:
            self.seed_generator = U.seed_generator(self, seed)

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        shape = U.shape(inputs)
        if self.noise_shape is not None:
            shape = [U.dim(inputs, i) if v is None else v for i, v in enumerate(self.noise_shape)]
        alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
        alpha_p = -alpha * scale
        kept = cast(greater_equal(U.uniform(shape, self.seed_generator, inputs.dtype), self.rate), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (inputs * kept + alpha_p * (1 - kept)) + b

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape})
        return config
