"""``tf.TensorSpec`` / ``tf.TypeSpec`` and nested element structures (``element_spec``).

Self-contained: depends only on the framework's dtypes, TensorShape and tensors, so
``tf.function`` input signatures can use it without loading the rest of ``tf.data``.

>>> tf.TensorSpec(shape=(None, 28), dtype=tf.float32)
TensorSpec(shape=(None, 28), dtype=tf.float32, name=None)
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape, as_shape
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

__all__ = ["TypeSpec", "TensorSpec", "type_spec_from_value", "spec_of", "flat_specs", "relax", "is_spec_tree",
           "Optional"]


@tf_export("TypeSpec")
class TypeSpec:
    """Base class of value type descriptions (``tf.TensorSpec``, ``tf.data.DatasetSpec``)."""

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


@tf_export("TensorSpec")
class TensorSpec(TypeSpec):
    """Describes a dense tensor: shape (dims may be ``None``), dtype, optional name.

    >>> s = tf.TensorSpec([None, 3], tf.int32)
    >>> s.is_compatible_with(tf.zeros([2, 3], tf.int32))
    True
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dt.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._name = name

    # --- construction ----------------------------------------------------------
    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor (or anything ``convert_to_tensor`` accepts)."""
        if not isinstance(tensor, Tensor):
            tensor = convert_to_tensor(tensor)
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, spec.name if name is None else name)

    @classmethod
    def _make(cls, shape: TensorShape, dtype, name=None):
        s = object.__new__(cls)
        s._shape = shape
        s._dtype = dtype
        s._name = name
        return s

    # --- properties --------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @property
    def value_type(self):
        return Tensor

    # --- relations ---------------------------------------------------------------
    def is_compatible_with(self, spec_or_tensor) -> bool:
        """Same dtype and compatible shape (names are ignored); for specs and tensors/variables."""
        other = spec_or_tensor
        if isinstance(other, TensorSpec) or isinstance(other, Tensor) or (
                hasattr(other, "__tf_tensor__") and hasattr(other, "dtype") and hasattr(other, "shape")):
            return self._dtype is _dt.as_dtype(other.dtype) and self._shape.is_compatible_with(other.shape)
        return False

    def is_subtype_of(self, other) -> bool:
        if type(other) is not type(self) or other._dtype is not self._dtype:
            return False
        if other._name is not None and other._name != self._name:
            return False
        o = other._shape._dims
        if o is None:
            return True
        s = self._shape._dims
        if s is None or len(s) != len(o):
            return False
        return all(b is None or a == b for a, b in zip(s, o))

    def most_specific_common_supertype(self, others):
        """The tightest spec every one of ``[self] + others`` is a subtype of (``None`` if dtypes differ)."""
        shape = self._shape
        name = self._name
        for o in others:
            if type(o) is not type(self) or o._dtype is not self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
            if o._name != name:
                name = None
        return type(self)._make(shape, self._dtype, name)

    # --- batching (used by tf.data) -------------------------------------------------
    def _batch(self, batch_size):
        dims = self._shape._dims
        b = None if batch_size is None or (isinstance(batch_size, int) and batch_size < 0) else int(batch_size)
        shape = TensorShape(None) if dims is None else TensorShape._from_tuple((b,) + dims)
        return TensorSpec._make(shape, self._dtype)

    def _unbatch(self):
        dims = self._shape._dims
        if dims is not None and not dims:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec._make(TensorShape(None) if dims is None else TensorShape._from_tuple(dims[1:]),
                                self._dtype)

    # --- python protocol -------------------------------------------------------------
    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype is other._dtype and self._shape._dims == other._shape._dims
                and self._name == other._name)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._shape._dims, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return TensorSpec, (self._shape.dims, self._dtype.name, self._name)

    def _to_json(self):
        return {"shape": self._shape.dims, "dtype": self._dtype.name, "name": self._name}

    @classmethod
    def _from_json(cls, d):
        return cls(d["shape"], d["dtype"], d.get("name"))


@tf_export("type_spec_from_value")
def type_spec_from_value(value):
    """The ``TypeSpec`` of a value: ``tf.type_spec_from_value(tf.constant(1.))`` is a scalar float32 spec."""
    ts = getattr(value, "_type_spec", None)
    if isinstance(ts, TypeSpec):
        return ts
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


@tf_export("experimental.Optional", "data.experimental.Optional")
class Optional:
    """A value that may be absent: ``it.get_next_as_optional()``; ``has_value()``, ``get_value()``."""

    def __init__(self, value, spec, present):
        self._value, self._spec, self._present = value, spec, present

    @staticmethod
    def from_value(value):
        from tensorlet._src.data.dataset_ops import spec_of_value

        return Optional(value, spec_of_value(value), True)

    @staticmethod
    def empty(element_spec):
        return Optional(None, element_spec, False)

    @property
    def element_spec(self):
        return self._spec

    def has_value(self, name=None):
        from tensorlet._src.framework.tensor import _wrap

        return _wrap(np.asarray(self._present))

    def get_value(self, name=None):
        if not self._present:
            from tensorlet._src.framework import errors

            raise errors.InvalidArgumentError(None, None, "The optional does not have a value.")
        return self._value

    def __repr__(self):
        return f"<tf.experimental.Optional has_value={self._present}>"


from collections.abc import Mapping as _Mapping  # noqa: E402
