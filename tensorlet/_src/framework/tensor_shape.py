"""``tf.TensorShape``: a possibly partially known shape (TF 2 semantics: dims are ints or None)."""

from __future__ import annotations

__all__ = ["TensorShape", "Dimension", "dimension_value", "as_shape"]


def _dim(d):
    if d is None:
        return None
    if isinstance(d, Dimension):
        return d.value
    if hasattr(d, "__index__"):
        v = d.__index__()
    elif hasattr(d, "numpy"):  # a scalar tensor
        v = int(d.numpy())
    else:
        raise TypeError(f"Dimension value must be integer or None, got {d!r} of type {type(d).__name__}.")
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


class Dimension:
    """TF1-style dimension object, kept for old code (``tf.compat.v1.Dimension``)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = _dim(value)

    def __int__(self):
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        if self.value is None or other is None:
            return None
        return self.value == other

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Dimension({self.value!r})"

    def __str__(self):
        return "?" if self.value is None else str(self.value)


def dimension_value(d):
    return d.value if isinstance(d, Dimension) else d


class TensorShape:
    """The static shape of a tensor: ``TensorShape([None, 28, 28, 1])``."""

    __slots__ = ("_dims",)

    def __tf_tensor__(self, dtype=None, name=None):
        """``tf.convert_to_tensor(shape)`` (``tf.reduce_prod(kernel.shape)``): int32, int64 if a dim needs it."""
        import numpy as np

        from tensorlet._src.framework import dtypes as _dt
        from tensorlet._src.framework.tensor import _wrap

        if self._dims is None or any(d is None for d in self._dims):
            raise ValueError(f"Cannot convert a partially known TensorShape {self} to a Tensor.")
        if dtype is not None and _dt.as_dtype(dtype) not in (_dt.int32, _dt.int64):
            raise TypeError(f"Cannot convert TensorShape {self} to dtype {_dt.as_dtype(dtype)!r}. Allowed dtypes are "
                            "tf.int32 and tf.int64.")
        big = any(d > 2147483647 for d in self._dims)
        np_dtype = (_dt.as_dtype(dtype).as_numpy_dtype if dtype is not None else
                    (np.int64 if big else np.int32))
        return _wrap(np.asarray(self._dims, np_dtype).reshape(len(self._dims)))

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int, Dimension)) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
            self._dims = (_dim(dims),)
        else:
            if hasattr(dims, "numpy"):
                dims = dims.numpy().tolist()
            self._dims = tuple(_dim(d) for d in dims)

    @classmethod
    def _from_tuple(cls, dims: tuple) -> TensorShape:
        s = object.__new__(cls)
        s._dims = dims
        return s

    # --- queries -------------------------------------------------------------
    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # --- compatibility -------------------------------------------------------
    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")
        out = []
        for a, b in zip(self._dims, other._dims):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Shapes {self} and {other} are not compatible")
            out.append(a if a is not None else b)
        return TensorShape._from_tuple(tuple(out))

    def most_specific_compatible_shape(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape._from_tuple(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape._from_tuple(self._dims + other._dims)

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    # --- python protocol -----------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if self._dims is None:
                return TensorShape(None)
            return TensorShape._from_tuple(self._dims[key])
        if self._dims is None:
            return None
        return self._dims[key]

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)
