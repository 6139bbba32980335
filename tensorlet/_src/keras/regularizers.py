"""``tf.keras.regularizers``: weight penalties added to a layer's losses (Keras 3).

>>> tf.keras.regularizers.L2(0.1)(tf.constant([1.0, 2.0])).numpy()
0.5
"""

from __future__ import annotations

import math

from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.creation import eye
from tensorlet._src.ops.math_binary import cast, minimum
from tensorlet._src.ops.math_unary import rsqrt, square
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.reduce import reduce_sum
from tensorlet._src.keras import _objects, backend
from tensorlet._src.ops.registry import tf_export

_MODULE = "keras.regularizers"


def _validate(value, name):
    if not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


@tf_export("keras.Regularizer", "keras.regularizers.Regularizer")
class Regularizer:
    """Base class: ``__call__(x)`` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


@tf_export("keras.regularizers.L1L2", "keras.regularizers.l1_l2")
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _validate(0.0 if l1 is None else l1, "l1")
        self.l2 = _validate(0.0 if l2 is None else l2, "l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        reg = constant(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            reg = reg + cast(self.l1, x.dtype) * reduce_sum(math_unary.abs(x))
        if self.l2 != 0.0:
            reg = reg + cast(self.l2, x.dtype) * reduce_sum(square(x))
        return reg

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@tf_export("keras.regularizers.L1", "keras.regularizers.l1")
class L1(Regularizer):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1=0.01):
        self.l1 = _validate(0.01 if l1 is None else l1, "l1")

    def __call__(self, x):
        x = convert_to_tensor(x)
        return cast(self.l1, x.dtype) * reduce_sum(math_unary.abs(x))

    def get_config(self):
        return {"l1": self.l1}


@tf_export("keras.regularizers.L2", "keras.regularizers.l2")
class L2(Regularizer):
    """``l2 * sum(x**2)``."""

    def __init__(self, l2=0.01):
        self.l2 = _validate(0.01 if l2 is None else l2, "l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        return cast(self.l2, x.dtype) * reduce_sum(square(x))

    def get_config(self):
        return {"l2": self.l2}


@tf_export("keras.regularizers.OrthogonalRegularizer", "keras.regularizers.orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """Penalizes non-orthogonal rows (or columns) of a 2-D weight: mean |cosine| between pairs times ``factor/2``."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _validate(factor, "factor")
        if mode not in {"rows", "columns"}:
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                             f"Received: mode={mode}")
        self.mode = mode

    def __call__(self, inputs):
        inputs = convert_to_tensor(inputs)
        if len(inputs.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={inputs.shape}")
        axis = 1 if self.mode == "rows" else 0
        inv = minimum(rsqrt(reduce_sum(square(inputs), axis=axis, keepdims=True)),
                        cast(1.0 / backend.epsilon(), inputs.dtype))
        x = inputs * inv
        if self.mode == "rows":
            product, size = matmul(x, x, transpose_b=True), inputs.shape[0]
        else:
            product, size = matmul(x, x, transpose_a=True), inputs.shape[1]
        off = product * (cast(1.0, inputs.dtype) - eye(size, dtype=inputs.dtype))
        pairs = size * (size - 1.0) / 2.0
        return cast(self.factor, inputs.dtype) * cast(0.5, inputs.dtype) * reduce_sum(math_unary.abs(off)) / \
            cast(pairs, inputs.dtype)

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


ALL_OBJECTS = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)
ALL_OBJECTS_DICT = {c.__name__: c for c in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({backend.to_snake_case(c.__name__): c for c in ALL_OBJECTS})
ALL_OBJECTS_DICT["l1_l2"] = L1L2  # tf.keras 2's name (Keras 3 only knows "l1l2")


@tf_export("keras.regularizers.serialize")
def serialize(regularizer):
    """The Keras 3 config dict of a regularizer."""
    return _objects.serialize_object(regularizer)


@tf_export("keras.regularizers.deserialize")
def deserialize(config, custom_objects=None):
    """A regularizer from its config dict."""
    return _objects.deserialize_object(config, ALL_OBJECTS_DICT, custom_objects, kind="regularizer")


@tf_export("keras.regularizers.get")
def get(identifier):
    """A regularizer from a name (``"l2"``), config, class or callable; ``None`` stays ``None``."""
    return _objects.get_object(identifier, "regularizer", ALL_OBJECTS_DICT, deserialize)
