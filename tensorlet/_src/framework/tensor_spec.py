"""``tf.TensorSpec``: the shape, dtype and name of a dense tensor.

It lives in the framework layer because ``tf.function`` signatures (graph), ``tf.data`` element specs (data) and
SavedModel signatures all describe their values with it.  ``tensorlet._src.data.structure`` re-exports it.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.type_spec import TypeSpec

__all__ = ["TensorSpec"]


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
