"""Distributed values: one value per replica (``PerReplica``), or one synchronized value (``Mirrored``).

Under a multi-replica strategy the replicas of one step run as a single SPMD program, so a per-replica value
is kept as its components, and (when it came from splitting a global batch or from a compiled step) also as one
stacked array whose leading axis is the replica, which the next compiled step takes without copying.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops.registry import tf_export


@tf_export("distribute.DistributedValues")
class DistributedValues:
    """Values of one logical value on each replica (``values``, in replica order)."""

    def __init__(self, values, stacked=None):
        self._values = tuple(values)
        self._stacked = stacked  # optional ndarray/jax array of shape [num_replicas, ...]

    @property
    def values(self):
        return self._values

    def _stacked_array(self):
        """The components stacked along a new leading replica axis."""
        if self._stacked is None:
            self._stacked = np.stack([np.asarray(array_of(v)) for v in self._values])
        return self._stacked

    def _stacked_graph(self):
        """The components stacked along a new leading replica axis, as a (traced) tensor."""
        from tensorlet._src.ops.array_blocks import stack

        if isinstance(self._stacked, Tensor):
            return self._stacked
        return stack([convert_to_tensor(v) for v in self._values], axis=0)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        body = ",\n".join(f"  {i}: {v!s}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"


@tf_export("distribute.experimental.PerReplica")
class PerReplica(DistributedValues):
    """A different value on each replica (a split batch, a per-replica loss).

    A composite value, as in TF: ``tf.nest.flatten(v, expand_composites=True)`` gives its components, so it
    crosses ``tf.function`` boundaries as its component tensors.
    """

    @property
    def _type_spec(self):
        return PerReplicaSpec([_spec_of(v) for v in self._values])


class PerReplicaSpec(TypeSpec):
    """The type of a PerReplica: one spec per replica."""

    __slots__ = ("_value_specs",)

    def __init__(self, value_specs):
        self._value_specs = tuple(value_specs)

    @property
    def value_type(self):
        return PerReplica

    def _to_components(self, value):
        return list(value.values)

    def _from_components(self, components):
        return PerReplica(components)

    @property
    def _component_specs(self):
        return self._value_specs

    def is_compatible_with(self, spec_or_value) -> bool:
        other = spec_or_value._type_spec if isinstance(spec_or_value, PerReplica) else spec_or_value
        return isinstance(other, PerReplicaSpec) and len(other._value_specs) == len(self._value_specs) and all(
            a.is_compatible_with(b) for a, b in zip(self._value_specs, other._value_specs))

    def __eq__(self, other):
        return isinstance(other, PerReplicaSpec) and self._value_specs == other._value_specs

    def __hash__(self):
        return hash(self._value_specs)

    def __repr__(self):
        return f"PerReplicaSpec({', '.join(map(repr, self._value_specs))})"


def _spec_of(v):
    from tensorlet._src.data.structure import TensorSpec

    t = v if isinstance(v, Tensor) else convert_to_tensor(v)
    return TensorSpec(t.shape, t.dtype)


class Mirrored(DistributedValues):
    """The same value on every replica (a reduced result, a broadcast input)."""


def array_of(v):
    """The NumPy (or device) array of a tensor, variable or array-like value."""
    if isinstance(v, (EagerTensor, Variable)):
        return v._v
    if isinstance(v, Tensor):
        return convert_to_tensor(v)._v
    return np.asarray(v)


def per_replica_from_stacked(stacked) -> PerReplica:
    """A PerReplica over the rows of ``stacked`` (leading axis = replica)."""
    host = np.asarray(stacked)
    return PerReplica([_wrap(host[i]) for i in range(host.shape[0])], stacked=stacked)


def regroup(values: list, wrap=PerReplica):
    """A list of N structures (one per replica) -> one structure of PerReplica leaves."""
    from tensorlet._src.util import nest

    flats = [nest.flatten(v) for v in values]
    leaves = [wrap([f[i] for f in flats]) for i in range(len(flats[0]))]
    return nest.pack_sequence_as(values[0], leaves)


def select_replica(i: int, structure):
    """Replica ``i``'s component of every distributed leaf of ``structure``."""
    from tensorlet._src.util import nest

    return nest.map_structure(lambda x: x.values[i] if isinstance(x, DistributedValues) else x, structure)
