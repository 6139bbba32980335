"""``tf.TensorArraySpec``: the type of a ``tf.TensorArray`` (element shape, dtype, ``dynamic_size``,
``infer_shape``), with TF 2.21's relations.

As in TF a TensorArray is not a composite tensor (``tf.nest`` keeps it whole, ``tf.function`` traces it by
identity); the spec describes it for ``tf.type_spec_from_value`` and ``tf.data`` element specs.  Its one
component is the array's stacked buffer ``[size, *element_shape]`` (TF's is a variant handle), so a spec in an
``input_signature`` gives the function a TensorArray over a placeholder buffer.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.graph.tensor_array import TensorArray
from tensorlet._src.ops.registry import tf_export

__all__ = ["TensorArraySpec"]


@tf_export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """The type of a ``tf.TensorArray``.

    >>> tf.TensorArraySpec([2], tf.float32)
    TensorArraySpec(TensorShape([2]), tf.float32, False, True)
    """

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=_dt.float32, dynamic_size=False, infer_shape=True):
        self._element_shape = TensorShape(element_shape)
        self._dtype = _dt.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    value_type = property(lambda self: TensorArray)

    @staticmethod
    def from_value(value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return TensorArraySpec(value.element_shape, value.dtype, value.dynamic_size, value._infer_shape)

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def __eq__(self, other):
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __hash__(self):
        s = self._element_shape
        return hash((type(self).__name__, s._dims if s.rank is not None else None, self._dtype,
                     self._dynamic_size, self._infer_shape))

    def __repr__(self):
        return "TensorArraySpec(" + ", ".join(repr(v) for v in self._serialize()) + ")"

    # --- relations (TF's: infer_shape is not part of compatibility) ----------------------------------
    def is_subtype_of(self, other) -> bool:
        return (isinstance(other, TensorArraySpec) and self._dtype == other._dtype
                and self._dynamic_size == other._dynamic_size)

    def most_specific_common_supertype(self, others):
        if not all(isinstance(o, TensorArraySpec) for o in others):
            return False  # TF returns False here, not None
        # TF 2.21 passes a generator to TensorShape.most_specific_common_supertype, whose first check uses it
        # up: the common element shape is always this spec's own
        shape = self._element_shape
        if not all(self._dtype == o._dtype and self._dynamic_size == o._dynamic_size for o in others):
            return None
        return TensorArraySpec(shape, self._dtype, self._dynamic_size,
                               self._infer_shape and all(o._infer_shape for o in others))

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value
        if not isinstance(o, TypeSpec):
            if not isinstance(o, TensorArray):
                return False  # TF builds the value's spec (a TensorSpec for tensors, numbers, lists)
            o = TensorArraySpec.from_value(o)
        return (isinstance(o, TensorArraySpec) and self._dtype.is_compatible_with(o._dtype)
                and self._element_shape.is_compatible_with(o._element_shape)
                and self._dynamic_size == o._dynamic_size)

    # --- components: the stacked buffer ---------------------------------------------------------------
    @property
    def _component_specs(self):
        s = self._element_shape
        shape = TensorShape([None]).concatenate(s) if s.rank is not None else TensorShape(None)
        return [TensorSpec(shape, self._dtype)]

    def _to_components(self, value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return [value.stack()]

    def _from_components(self, components):
        (buf,) = components
        shape = self._element_shape if self._element_shape.rank is not None else None
        if isinstance(buf, EagerTensor):
            n = int(buf.shape[0]) if buf.shape.rank else 0
            ta = TensorArray(self._dtype, size=n, dynamic_size=self._dynamic_size, infer_shape=self._infer_shape,
                             element_shape=shape)
            return ta.unstack(buf) if n else ta
        n = buf.shape[0] if buf.shape.rank else None
        ta = TensorArray(self._dtype, size=0 if n is None else n, dynamic_size=self._dynamic_size,
                         infer_shape=self._infer_shape, element_shape=shape, flow=buf)
        ta._size = n
        return ta
