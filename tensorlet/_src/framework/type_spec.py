"""``tf.types.experimental.TraceType`` and ``tf.TypeSpec``: how ``tf.function`` and ``tf.data`` describe values.

A ``TraceType`` is what a ``tf.function`` keys its traces on (TF's protocol: subtyping, the most specific common
supertype, a placeholder for tracing, equality and hashing); every ``TypeSpec`` is one.  They live at the bottom
(framework) so every layer can describe its composite values: ``RaggedTensorSpec`` (ops), ``SparseTensorSpec``
(io), ``TensorArraySpec`` (graph), ``DatasetSpec`` / ``OptionalSpec`` (data).  ``tf.TensorSpec`` is in
``tensor_spec.py``; nested-structure helpers are in ``tensorlet._src.data.structure``.
"""

from __future__ import annotations

from tensorlet._src.framework.api_export import tf_export

__all__ = ["TraceType", "TypeSpec"]

_ABSTRACT = ("__eq__", "__hash__", "is_subtype_of", "most_specific_common_supertype", "placeholder_value")


@tf_export("types.experimental.TraceType")
class TraceType:
    """The type ``tf.function`` traces a value under (TF's abstract base: a subclass defines ``__eq__``,
    ``__hash__``, ``is_subtype_of``, ``most_specific_common_supertype`` and ``placeholder_value``).

    >>> isinstance(tf.TensorSpec([2], tf.float32), tf.types.experimental.TraceType)
    True
    """

    __slots__ = ()
    _tl_abstract: tuple = _ABSTRACT

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        # the abstract methods no class in the MRO above TraceType defines (ABCMeta's rule, ``__hash__ = None``
        # included, without making isinstance checks on every spec go through ABCMeta)
        cls._tl_abstract = tuple(m for m in _ABSTRACT if not any(
            m in k.__dict__ for k in cls.__mro__[:cls.__mro__.index(TraceType)]))

    def __new__(cls, *args, **kwargs):
        if cls._tl_abstract:
            raise TypeError(f"Can't instantiate abstract class {cls.__name__} with abstract methods "
                            f"{', '.join(sorted(cls._tl_abstract))}")
        return object.__new__(cls)

    def is_subtype_of(self, other) -> bool:
        raise NotImplementedError

    def most_specific_common_supertype(self, others):
        raise NotImplementedError

    def placeholder_value(self, placeholder_context):
        raise NotImplementedError

    def to_tensors(self, value):
        """The tensors ``value`` (of this type) contributes to a traced call: none by default."""
        return []

    def from_tensors(self, tensors):
        """A value of this type rebuilt from ``to_tensors``'s tensors (an iterator): none by default."""
        return None

    def flatten(self):
        """The TensorSpecs of ``to_tensors``'s tensors."""
        return []

    def cast(self, value, cast_context):
        """``value`` converted to this type (unchanged by default)."""
        return value


@tf_export("TypeSpec")
class TypeSpec(TraceType):
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

    def placeholder_value(self, placeholder_context):
        """The value a trace sees for an argument of this type (built from one placeholder per component)."""
        raise NotImplementedError(f"{type(self).__name__}.placeholder_value: tf.function builds placeholders "
                                  "from the spec's components")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def most_specific_compatible_type(self, other):
        r = self.most_specific_common_supertype([other])
        if r is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return r
