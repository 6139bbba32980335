"""``tf.IndexedSlicesSpec`` and ``tf.NoneTensorSpec``: the TypeSpecs of ``IndexedSlices`` and of ``None`` values."""

from __future__ import annotations

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops.indexed_slices import IndexedSlices
from tensorlet._src.ops.registry import tf_export


@tf_export("IndexedSlicesSpec")
class IndexedSlicesSpec(TypeSpec):
    """The type of an ``IndexedSlices``: dense shape, values dtype, indices dtype, dense-shape dtype.

    >>> tf.IndexedSlicesSpec([None, 4], tf.float32)
    IndexedSlicesSpec(TensorShape([None, 4]), tf.float32, tf.int64, None, TensorShape([None]))
    """

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    def __init__(self, shape=None, dtype=D.float32, indices_dtype=D.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = TensorShape(shape)
        self._values_dtype = D.as_dtype(dtype)
        self._indices_dtype = D.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else D.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape(indices_shape).with_rank(1) if indices_shape is not None else \
            TensorShape([None])

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._values_dtype)
    name = property(lambda self: None)

    @property
    def value_type(self):
        return IndexedSlices

    def _key(self):
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._values_dtype, self._indices_dtype))

    def __repr__(self):
        return "IndexedSlicesSpec(" + ", ".join(repr(v) for v in self._key()) + ")"

    @classmethod
    def from_value(cls, value):
        ds = value.dense_shape
        return cls(value.shape if ds is not None else None, value.values.dtype, value.indices.dtype,
                   None if ds is None else ds.dtype, value.indices.shape)

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value
        if isinstance(o, IndexedSlices):
            o = IndexedSlicesSpec.from_value(o)
        if not isinstance(o, IndexedSlicesSpec):
            return False
        return (self._values_dtype is o._values_dtype and self._indices_dtype is o._indices_dtype
                and self._shape.is_compatible_with(o._shape))

    def is_subtype_of(self, other) -> bool:
        return self.is_compatible_with(other) and other._shape.is_compatible_with(self._shape) and all(
            b is None or a == b for a, b in zip(self._shape._dims or (), other._shape._dims or ()))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, IndexedSlicesSpec) or o._values_dtype is not self._values_dtype or \
                    o._indices_dtype is not self._indices_dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return IndexedSlicesSpec(shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype)

    @property
    def _component_specs(self):
        values_shape = TensorShape([None]).concatenate(self._shape[1:]) if self._shape.rank is not None else \
            TensorShape(None)
        specs = [TensorSpec(values_shape, self._values_dtype), TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return specs

    def _to_components(self, value):
        c = [value.values, value.indices]
        return c + [value.dense_shape] if self._dense_shape_dtype is not None else c

    def _from_components(self, components):
        return IndexedSlices(*components)


class NoneTensor:
    """The value a ``NoneTensorSpec`` describes: a stand-in for ``None`` inside composite structures."""

    def __repr__(self):
        return "NoneTensor()"


@tf_export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """The type of a ``None`` value (it has no components).

    >>> tf.NoneTensorSpec().is_compatible_with(tf.NoneTensorSpec())
    True
    """

    __slots__ = ()

    @property
    def value_type(self):
        return NoneTensor

    @classmethod
    def from_value(cls, value):
        return cls()

    def is_compatible_with(self, spec_or_value) -> bool:
        return isinstance(spec_or_value, (NoneTensorSpec, NoneTensor)) or spec_or_value is None

    def is_subtype_of(self, other) -> bool:
        return isinstance(other, NoneTensorSpec)

    def most_specific_common_supertype(self, others):
        return self if all(isinstance(o, NoneTensorSpec) for o in others) else None

    def __eq__(self, other):
        return isinstance(other, NoneTensorSpec)

    def __hash__(self):
        return hash("NoneTensorSpec")

    def __repr__(self):
        return "NoneTensorSpec()"

    @property
    def _component_specs(self):
        return []

    def _to_components(self, value):
        return []

    def _from_components(self, components):
        return NoneTensor()
