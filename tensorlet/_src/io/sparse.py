"""``tf.sparse.SparseTensor`` (``tf.SparseTensor``), its ``tf.SparseTensorSpec``, ``tf.sparse.to_dense`` and
``tf.sparse.from_dense``.

A ``SparseTensor`` is three tensors: ``indices`` (int64 ``[N, rank]``), ``values`` (``[N]``) and
``dense_shape`` (int64 ``[rank]``).  It is what ``tf.io.VarLenFeature`` parses to.  ``to_dense`` is an op
(TF's ``SparseToDense``: it checks that indices are in bounds and in order, with TF's messages) with a
gradient for the values; ``from_dense`` is a composite of ``where``/``gather_nd``.

This module is imported with ``import tensorlet`` (``tf.SparseTensor`` is a top-level name), so it keeps
its imports to the framework.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.data.structure import TensorSpec, TypeSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.ops import array_shape, math_unary
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_shape import broadcast_to
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.gather_scatter import gather_nd
from tensorlet._src.ops.math_binary import multiply, not_equal, truediv
from tensorlet._src.ops.math_unary import negative
from tensorlet._src.ops.reduce import reduce_sum

__all__ = ["SparseTensor", "SparseTensorSpec", "to_dense", "from_dense"]


def _dims_merge(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


@tf_export("sparse.SparseTensor", "SparseTensor")
class SparseTensor:
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` of a ``dense_shape`` tensor, the rest is zero.

    >>> st = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> st.shape
    TensorShape([3, 4])
    """

    __slots__ = ("_indices", "_values", "_dense_shape", "_shape", "__weakref__")

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype=_dt.int64)
        values = convert_to_tensor(values)
        dense_shape = convert_to_tensor(dense_shape, dtype=_dt.int64)
        ishape = indices.shape.with_rank(2)
        vshape = values.shape.with_rank(1)
        sshape = dense_shape.shape.with_rank(1)
        _dims_merge(ishape[0], vshape[0])
        _dims_merge(ishape[1], sshape[0])
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._shape = _static_shape(dense_shape)

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A ``SparseTensor`` from a ``SparseTensor`` (returned as is) or anything with the three fields."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        v = sparse_tensor_value
        return cls(v.indices, v.values, v.dense_shape)

    @classmethod
    def _make(cls, indices, values, dense_shape, shape=None):
        """Build without conversion or checks (the three tensors are already right)."""
        st = object.__new__(cls)
        st._indices, st._values, st._dense_shape = indices, values, dense_shape
        st._shape = shape if shape is not None else _static_shape(dense_shape)
        return st

    indices = property(lambda self: self._indices, doc="int64 ``[N, rank]``: where the values are.")
    values = property(lambda self: self._values, doc="``[N]``: the values.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 ``[rank]``: the shape of the dense tensor.")
    dtype = property(lambda self: self._values.dtype, doc="The dtype of the values.")
    shape = property(lambda self: self._shape, doc="The static ``TensorShape`` (dims may be unknown).")

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(TensorShape(shape))

    def with_values(self, new_values):
        """The same indices and shape with other values (``[N]``)."""
        new_values = convert_to_tensor(new_values)
        new_values.shape.with_rank(1)
        _dims_merge(self._values.shape[0], new_values.shape[0])
        return SparseTensor._make(self._indices, new_values, self._dense_shape, self._shape)

    @property
    def _type_spec(self):
        return SparseTensorSpec(self._shape, self.dtype)

    def consumers(self):
        return []

    def __repr__(self):
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __str__ = __repr__

    # elementwise with a scalar or a dense tensor broadcast to the dense shape (TF's sparse-dense cwise ops)
    def _cwise(self, other, fn):
        other = convert_to_tensor(other, dtype_hint=self.dtype)
        if other.shape.rank == 0:
            return self.with_values(fn(self._values, other))
        dense = broadcast_to(other, self._dense_shape)
        return self.with_values(fn(self._values, gather_nd(dense, self._indices)))

    def __mul__(self, other):
        return self._cwise(other, multiply)

    def __truediv__(self, other):
        return self._cwise(other, truediv)

    def __div__(self, other):
        return self.__truediv__(other)

    def __neg__(self):
        return self.with_values(negative(self._values))

    def __abs__(self):
        return self.with_values(math_unary.abs(self._values))

    def __bool__(self):
        raise TypeError("Using a SparseTensor as a Python bool is not allowed.")


def _static_shape(dense_shape) -> TensorShape:
    if isinstance(dense_shape, EagerTensor):
        return TensorShape([int(d) for d in dense_shape._v.tolist()])
    const = getattr(dense_shape, "_const", None)  # a graph tensor folded at trace time
    if const is not None:
        return TensorShape([int(d) for d in np.asarray(const).tolist()])
    n = dense_shape.shape[0] if dense_shape.shape.rank == 1 else None
    return TensorShape(None) if n is None else TensorShape([None] * n)


@tf_export("SparseTensorSpec")
class SparseTensorSpec(TypeSpec):
    """The type of a ``SparseTensor``: its (possibly partial) shape and dtype.

    >>> tf.SparseTensorSpec([None, 4], tf.int64)
    SparseTensorSpec(TensorShape([None, 4]), tf.int64)
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dt.float32):
        self._shape = TensorShape(shape)
        self._dtype = _dt.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: None)

    @property
    def value_type(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value
        if isinstance(o, (SparseTensorSpec, SparseTensor)):
            return self._dtype is o.dtype and self._shape.is_compatible_with(o.shape)
        return False

    def is_subtype_of(self, other) -> bool:
        if not isinstance(other, SparseTensorSpec) or other._dtype is not self._dtype:
            return False
        o, s = other._shape._dims, self._shape._dims
        if o is None:
            return True
        return s is not None and len(s) == len(o) and all(b is None or a == b for a, b in zip(s, o))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, SparseTensorSpec) or o._dtype is not self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return SparseTensorSpec(shape, self._dtype)

    # --- components (how tf.function / tf.data flatten a SparseTensor) --------------------------------
    @property
    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], _dt.int64), TensorSpec([None], self._dtype), TensorSpec([rank], _dt.int64)]

    def _to_components(self, value):
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        indices, values, dense_shape = components
        return SparseTensor._make(indices, values, dense_shape, self._shape.merge_with(_static_shape(dense_shape))
                                  if self._shape.rank is not None else None)

    # --- batching (tf.data) ---------------------------------------------------------------------------
    def _batch(self, batch_size):
        dims = self._shape._dims
        b = None if batch_size is None or (isinstance(batch_size, int) and batch_size < 0) else int(batch_size)
        return SparseTensorSpec(None if dims is None else (b,) + tuple(dims), self._dtype)

    def _unbatch(self):
        dims = self._shape._dims
        if dims is not None and not dims:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(None if dims is None else dims[1:], self._dtype)

    def __eq__(self, other):
        return (type(other) is SparseTensorSpec and self._dtype is other._dtype
                and self._shape._dims == other._shape._dims)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("SparseTensorSpec", self._shape._dims, self._dtype))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"

    def __reduce__(self):
        return SparseTensorSpec, (self._shape.dims, self._dtype.name)


# --- to_dense: TF's SparseToDense, with its checks ----------------------------------------------------------

def _index_str(row):
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def _check_sparse_to_dense(indices, output_shape, values, default_value, validate_indices=True):
    idx = indices._v
    shape = output_shape._v
    if idx.ndim != 2 or idx.shape[1] != shape.shape[0]:
        raise errors.invalid_argument("SparseToDense", f"indices must be a 2-D tensor of shape [N, {shape.shape[0]}]"
                                                       f", got {errors.shape_str(idx.shape)}")
    if not validate_indices or idx.shape[0] == 0:
        return
    bad = (idx < 0) | (idx >= shape)
    if bad.any():
        i = int(np.argmax(bad.any(axis=1)))
        raise errors.invalid_argument(
            "SparseToDense", f"indices[{i}] = {_index_str(idx[i])} is out of bounds: need 0 <= index < "
                             f"{_index_str(shape)}")
    if idx.shape[0] > 1:
        flat = np.ravel_multi_index(idx.T, shape) if shape.size else np.zeros(idx.shape[0], np.int64)
        step = np.diff(flat)
        if (step <= 0).any():
            i = int(np.argmax(step <= 0)) + 1
            what = "repeated" if step[i - 1] == 0 else "out of order"
            raise errors.invalid_argument(
                "SparseToDense", f"indices[{i}] = {_index_str(idx[i])} is {what}. Many sparse ops require sorted "
                                 "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")


def _sparse_to_dense_kernel(xp, indices, output_shape, values, default_value, validate_indices=True):
    shape = tuple(int(d) for d in np.asarray(output_shape).tolist())
    out = xp.full(shape, default_value, dtype=values.dtype) if values.dtype != object else \
        np.full(shape, default_value, dtype=object)
    if indices.shape[0] == 0:
        return out
    idx = tuple(indices[:, k] for k in range(indices.shape[1]))
    if xp is np:
        out[idx] = values
        return out
    return out.at[idx].set(values)


def _sparse_to_dense_grad(g, ans, indices, output_shape, values, default_value, validate_indices=True):
    gv = gather_nd(g, indices)
    gd = reduce_sum(g) - reduce_sum(gv)
    return None, None, gv, gd


def _sparse_to_dense_shape(indices, output_shape, values, default_value, validate_indices=True):
    from tensorlet._src.ops.shapes import Spec

    n = output_shape.shape[0] if output_shape.shape.rank == 1 else None
    const = getattr(output_shape, "_const", None)
    if const is not None:
        return Spec(TensorShape([int(d) for d in np.asarray(const).tolist()]), values.dtype)
    return Spec(TensorShape(None) if n is None else TensorShape([None] * n), values.dtype)


SPARSE_TO_DENSE = io_op("SparseToDense", _sparse_to_dense_kernel, check=_check_sparse_to_dense,
                        grad=_sparse_to_dense_grad, shape=_sparse_to_dense_shape)


@tf_export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of a ``SparseTensor``: ``default_value`` (0 / ``b""``) where it has no value.

    >>> st = tf.sparse.SparseTensor([[0, 1]], [7], [2, 2])
    >>> tf.sparse.to_dense(st).numpy().tolist()
    [[0, 7], [0, 0]]
    """
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor. Received: {sp_input!r}")
    values = sp_input.values
    if default_value is None:
        default_value = b"" if values.dtype is _dt.string else 0
    default = convert_to_tensor(default_value, dtype=values.dtype)
    return bind(SPARSE_TO_DENSE, sp_input.indices, sp_input.dense_shape, values, default,
                validate_indices=bool(validate_indices))


@tf_export("sparse.from_dense")
def from_dense(tensor, name=None):
    """A ``SparseTensor`` of the non-zero (non-empty for strings) entries of a dense tensor.

    >>> tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]])).indices.numpy().tolist()
    [[0, 1], [1, 0]]
    """
    x = convert_to_tensor(tensor)
    indices = where(not_equal(x, zeros_like(x)))
    values = gather_nd(x, indices)
    shape = array_shape.shape(x, out_type=_dt.int64)
    return SparseTensor._make(indices, values, shape, x.shape)
