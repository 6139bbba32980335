"""``tf.TypeSpec``: the base of value type descriptions (tensors, ragged and sparse tensors, datasets).

It lives at the bottom (framework) so every layer can describe its composite values: ``RaggedTensorSpec`` (ops),
``SparseTensorSpec`` (io), ``DatasetSpec`` (data).  ``tf.TensorSpec`` and nested-structure helpers are in
``tensorlet._src.data.structure``.
"""

from __future__ import annotations

from tensorlet._src.framework.api_export import tf_export

__all__ = ["TypeSpec"]


@tf_export("TypeSpec")
class TypeSpec:
    """Base class of value type descriptions (``tf.TensorSpec``, ``tf.RaggedTensorSpec``, ``tf.data.DatasetSpec``)."""

    __slots__ = ()

    @property
    def value_type(self):
        raise NotImplementedError

    def is_compatible_with(self, spec_or_value) -> bool:
        raise NotImplementedError

    def most_specific_common_supertype(self, others):
        raise NotImplementedError

    def is_subtype_of(self, other) -> bool:
        raise NotImplementedError

    def most_specific_compatible_type(self, other):
        r = self.most_specific_common_supertype([other])
        if r is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return r
