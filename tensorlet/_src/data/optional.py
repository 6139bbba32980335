"""``tf.experimental.Optional`` (a value that may be absent) and its type, ``tf.OptionalSpec``.

An Optional is a composite: its components are a scalar bool "has a value" tensor followed by the element's
component tensors (zeros of the element spec's shapes when it is empty; TF's is one variant tensor), so it is an
argument, result and ``input_signature`` entry of ``tf.function`` and expands under
``tf.nest.flatten(expand_composites=True)``.  Inside a graph ``has_value()`` is that bool tensor.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

__all__ = ["Optional", "OptionalSpec"]


def _leaf_spec(v):
    ts = getattr(v, "_type_spec", None)
    if isinstance(ts, TypeSpec):
        return ts
    return TensorSpec.from_tensor(v)


@tf_export("experimental.Optional", "data.experimental.Optional")
class Optional:
    """A value that may be absent: ``it.get_next_as_optional()``; ``has_value()``, ``get_value()``.

    >>> o = tf.experimental.Optional.from_value(tf.constant(3))
    >>> o.has_value().numpy(), o.get_value().numpy()
    (np.True_, np.int32(3))
    """

    def __init__(self, value, spec, present):
        self._value, self._spec, self._present = value, spec, present

    @staticmethod
    def from_value(value):
        from tensorlet._src.data import structure as S

        # tf.data's structure rules: tuples and dicts nest, a list is one tensor
        leaves = [v if isinstance(v, Tensor) or getattr(v, "_type_spec", None) is not None else
                  convert_to_tensor(v) for v in S.dflatten(value)]
        value = S.dpack(value, leaves)
        return Optional(value, S.dpack(value, [_leaf_spec(v) for v in leaves]), True)

    @staticmethod
    def empty(element_spec):
        return Optional(None, element_spec, False)

    @property
    def element_spec(self):
        return self._spec

    @property
    def _type_spec(self):
        return OptionalSpec(self._spec)

    def has_value(self, name=None):
        if isinstance(self._present, Tensor):
            return self._present
        return _wrap(np.asarray(self._present))

    def get_value(self, name=None):
        if isinstance(self._present, EagerTensor):
            present = bool(self._present.numpy())
        elif isinstance(self._present, Tensor):  # traced: which branch runs is decided at run time
            return self._value
        else:
            present = self._present
        if not present:
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value.")
        return self._value

    def __repr__(self):
        p = self._present
        return f"<tf.experimental.Optional has_value={bool(p.numpy()) if isinstance(p, EagerTensor) else p}>"


@tf_export("OptionalSpec")
class OptionalSpec(TypeSpec):
    """The type of a ``tf.experimental.Optional``: the spec of the value it may hold.

    >>> tf.OptionalSpec(tf.TensorSpec([], tf.int32))
    OptionalSpec(TensorSpec(shape=(), dtype=tf.int32, name=None),)
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    value_type = property(lambda self: Optional)

    @staticmethod
    def from_value(value):
        return OptionalSpec(value.element_spec)

    def _serialize(self):
        return (self._element_spec,)

    def __eq__(self, other):
        return type(other) is type(self) and nest.flatten(self._element_spec) == nest.flatten(other._element_spec) \
            and _same_structure(self._element_spec, other._element_spec)

    def __hash__(self):
        return hash((type(self).__name__, tuple(nest.flatten(self._element_spec))))

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"

    # --- relations: leafwise over the element spec ---------------------------------------------------
    def _pairs(self, other):
        if not isinstance(other, OptionalSpec) or not _same_structure(self._element_spec, other._element_spec):
            return None
        return list(zip(nest.flatten(self._element_spec), nest.flatten(other._element_spec)))

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        pairs = self._pairs(o)
        return pairs is not None and all(a.is_compatible_with(b) for a, b in pairs)

    def is_subtype_of(self, other) -> bool:
        pairs = self._pairs(other)
        return pairs is not None and all(a.is_subtype_of(b) for a, b in pairs)

    def most_specific_common_supertype(self, others):
        leaves = nest.flatten(self._element_spec)
        for o in others:
            pairs = self._pairs(o)
            if pairs is None:
                return None
            leaves = [a.most_specific_common_supertype([b]) for a, (_, b) in zip(leaves, pairs)]
            if any(x is None for x in leaves):
                return None
        return OptionalSpec(nest.pack_sequence_as(self._element_spec, leaves)
                            if nest.is_nested(self._element_spec) else leaves[0])

    # --- components: has_value, then each element leaf's components ------------------------------------
    def _leaf_parts(self):
        return [[s] if isinstance(s, TensorSpec) else list(s._component_specs)
                for s in nest.flatten(self._element_spec)]

    @property
    def _component_specs(self):
        return [TensorSpec(TensorShape([]), _dt.bool)] + [c for p in self._leaf_parts() for c in p]

    def _to_components(self, value):
        if value._value is None:  # empty: stand-in zeros of the element's component shapes
            return [value.has_value()] + [_zeros(c) for p in self._leaf_parts() for c in p]
        out = [value.has_value()]
        for v, s in zip(nest.flatten(value._value), nest.flatten(self._element_spec)):
            out.extend([v] if isinstance(s, TensorSpec) else s._to_components(v))
        return out

    def _from_components(self, components):
        present, it = components[0], iter(components[1:])
        if isinstance(present, EagerTensor) and not bool(present.numpy()):
            return Optional(None, self._element_spec, False)
        leaves = []
        for s, parts in zip(nest.flatten(self._element_spec), self._leaf_parts()):
            got = [next(it) for _ in parts]
            leaves.append(got[0] if isinstance(s, TensorSpec) else s._from_components(got))
        value = nest.pack_sequence_as(self._element_spec, leaves)
        return Optional(value, self._element_spec, present)


def _zeros(spec):
    shape = [d or 0 for d in spec.shape.as_list()] if spec.shape.rank is not None else []
    if spec.dtype is _dt.string:
        return convert_to_tensor(np.full(shape, b"", dtype=object))
    return convert_to_tensor(np.zeros(shape, spec.dtype._np))


def _same_structure(a, b) -> bool:
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return True
