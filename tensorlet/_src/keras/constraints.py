"""``tf.keras.constraints``: projections applied to a weight after each optimizer update (Keras 3).

>>> tf.keras.constraints.NonNeg()(tf.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations


from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast, maximum
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import sqrt, square
from tensorlet._src.ops.reduce import reduce_sum
from tensorlet._src.keras import _objects, backend
from tensorlet._src.ops.registry import tf_export

_MODULE = "keras.constraints"


def _norms(w, axis):
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


@tf_export("keras.constraints.Constraint")
class Constraint:
    """Base class: ``__call__(w)`` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@tf_export("keras.constraints.MaxNorm", "keras.constraints.max_norm")
class MaxNorm(Constraint):
    """Rescales slices along ``axis`` whose L2 norm exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_by_value(norms, cast(0, norms.dtype), cast(self.max_value, norms.dtype))
        return w * (desired / (cast(backend.epsilon(), norms.dtype) + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@tf_export("keras.constraints.NonNeg", "keras.constraints.non_neg")
class NonNeg(Constraint):
    """Clips negative weights to zero."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        return maximum(w, zeros_like(w))


@tf_export("keras.constraints.UnitNorm", "keras.constraints.unit_norm")
class UnitNorm(Constraint):
    """Scales slices along ``axis`` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return w / (cast(backend.epsilon(), norms.dtype) + norms)

    def get_config(self):
        return {"axis": self.axis}


@tf_export("keras.constraints.MinMaxNorm", "keras.constraints.min_max_norm")
class MinMaxNorm(Constraint):
    """Moves slice norms into ``[min_value, max_value]`` at ``rate``."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        dt = norms.dtype
        clipped = clip_by_value(norms, cast(self.min_value, dt), cast(self.max_value, dt))
        desired = cast(self.rate, dt) * clipped + cast(1 - self.rate, dt) * norms
        return w * (desired / (cast(backend.epsilon(), dt) + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


ALL_OBJECTS = (Constraint, MaxNorm, NonNeg, UnitNorm, MinMaxNorm)
ALL_OBJECTS_DICT = {c.__name__: c for c in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({backend.to_snake_case(c.__name__): c for c in ALL_OBJECTS})


@tf_export("keras.constraints.serialize")
def serialize(constraint):
    """The Keras 3 config dict of a constraint."""
    return _objects.serialize_object(constraint)


@tf_export("keras.constraints.deserialize")
def deserialize(config, custom_objects=None):
    """A constraint from its config dict."""
    return _objects.deserialize_object(config, ALL_OBJECTS_DICT, custom_objects, kind="constraint")


@tf_export("keras.constraints.get")
def get(identifier):
    """A constraint from a name (``"non_neg"``), config, class or callable; ``None`` stays ``None``."""
    return _objects.get_object(identifier, "constraint", ALL_OBJECTS_DICT, deserialize)
