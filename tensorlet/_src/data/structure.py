"""``tf.TensorSpec`` / ``tf.TypeSpec`` and nested element structures (``element_spec``).

Self-contained: depends only on the framework's dtypes, TensorShape and tensors, so
``tf.function`` input signatures can use it without loading the rest of ``tf.data``.

>>> tf.TensorSpec(shape=(None, 28), dtype=tf.float32)
TensorSpec(shape=(None, 28), dtype=tf.float32, name=None)
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape, as_shape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.graph.tensor_array import TensorArray
from tensorlet._src.graph.tensor_array_spec import TensorArraySpec
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

__all__ = ["TypeSpec", "TensorSpec", "type_spec_from_value", "spec_of", "flat_specs", "relax", "is_spec_tree",
           "Optional"]


@tf_export("type_spec_from_value")
def type_spec_from_value(value):
    """The ``TypeSpec`` of a value: ``tf.type_spec_from_value(tf.constant(1.))`` is a scalar float32 spec."""
    ts = getattr(value, "_type_spec", None)
    if isinstance(ts, TypeSpec):
        return ts
    if isinstance(value, TensorArray):  # not a composite in TF either: its spec comes from a converter
        return TensorArraySpec.from_value(value)
    try:
        return TensorSpec.from_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} with type {type(value).__name__}") from None


# --- nested structures of specs ---------------------------------------------------------

def is_spec_tree(structure) -> bool:
    return all(isinstance(s, TypeSpec) for s in nest.flatten(structure))


def spec_of(value):
    """Nested specs of a nested value (tensors, arrays, Python scalars, datasets)."""
    return nest.pack_sequence_as(value, [type_spec_from_value(v) for v in nest.flatten(value)])


def flat_specs(element_spec):
    return nest.flatten(element_spec)


def relax(a, b):
    """Per-leaf most specific compatible spec of two nested specs (same structure required)."""
    fa, fb = nest.flatten(a), nest.flatten(b)
    out = []
    for x, y in zip(fa, fb):
        r = x.most_specific_common_supertype([y])
        if r is None:
            raise TypeError(f"Incompatible types: {x} vs. {y}")
        out.append(r)
    return nest.pack_sequence_as(a, out)


def np_spec(array: np.ndarray) -> TensorSpec:
    return TensorSpec._make(TensorShape._from_tuple(array.shape), _dt.from_numpy(array.dtype))


def shape_of(spec) -> TensorShape:
    return as_shape(spec.shape)


# --- tf.data's nesting: tuples, namedtuples and dicts are structure; lists are values -----------------------

def is_struct(x) -> bool:
    """tf.data nests tuples (incl. namedtuples) and mappings; a list is one value (it becomes one tensor)."""
    return isinstance(x, (tuple, dict)) or (not isinstance(x, (list, str, bytes, np.ndarray, Tensor))
                                             and isinstance(x, _Mapping))


def _keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def dflatten(x) -> list:
    """Leaves in TF's order (dict values by sorted key)."""
    if x.__class__ is tuple and not any(is_struct(v) for v in x):
        return list(x)
    if not is_struct(x):
        return [x]
    out = []
    _dflat(x, out)
    return out


def _dflat(x, out):
    if isinstance(x, tuple):
        for v in x:
            _dflat(v, out) if is_struct(v) else out.append(v)
    elif is_struct(x):
        for k in _keys(x):
            v = x[k]
            _dflat(v, out) if is_struct(v) else out.append(v)
    else:
        out.append(x)


def dpack(template, leaves):
    """Inverse of :func:`dflatten` (keeps the template's dict key order and namedtuple types)."""
    if template.__class__ is tuple and len(template) == len(leaves) and not any(is_struct(v) for v in template):
        return tuple(leaves)
    if not is_struct(template):
        return leaves[0]
    it = iter(leaves)
    return _dpack(template, it)


def _dpack(t, it):
    if isinstance(t, tuple):
        vals = [_dpack(v, it) if is_struct(v) else next(it) for v in t]
        return type(t)(*vals) if hasattr(type(t), "_fields") else tuple(vals)
    if is_struct(t):
        got = {k: (_dpack(t[k], it) if is_struct(t[k]) else next(it)) for k in _keys(t)}
        try:
            return type(t)((k, got[k]) for k in t)
        except TypeError:
            return {k: got[k] for k in t}
    return next(it)


def dmap(fn, *structs):
    """Apply ``fn`` leafwise over one or more structures of the same shape."""
    flats = [dflatten(s) for s in structs]
    return dpack(structs[0], [fn(*xs) for xs in zip(*flats)])


def same_structure(a, b) -> bool:
    """True when two tf.data structures nest the same way (types of containers and dict keys)."""
    if is_struct(a) != is_struct(b):
        return False
    if not is_struct(a):
        return True
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
    if isinstance(b, tuple) or set(a) != set(b):
        return False
    return all(same_structure(a[k], b[k]) for k in a)


def spec_repr(spec) -> str:
    return repr(spec)


from collections.abc import Mapping as _Mapping  # noqa: E402
from tensorlet._src.data.optional import Optional  # noqa: E402,F401  (re-exported: iterators use it)
