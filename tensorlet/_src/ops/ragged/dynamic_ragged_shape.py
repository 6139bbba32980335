"""``tf.experimental.DynamicRaggedShape``: the shape of a (possibly ragged) tensor, as TF 2.21 returns it from
``tf.shape(ragged)``.

A shape is a tuple of ``RowPartition``s (the ragged - or uniform - dimensions from axis 1 on) plus the
``inner_shape`` of the flat values (a 1-D int tensor).  ``tf.ones`` / ``tf.zeros`` / ``tf.broadcast_to`` accept
one and build a RaggedTensor; broadcasting a dense tensor to a ragged shape gathers it at each value's
coordinates, so it is differentiable and traces.

>>> tf.shape(tf.ragged.constant([[1, 2], [], [3, 4, 5]]))
<DynamicRaggedShape lengths=[3, (2, 0, 3)] num_row_partitions=1>
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops import array_shape, creation
from tensorlet._src.ops.array_blocks import concat, stack
from tensorlet._src.ops.array_shape import broadcast_to as _dense_broadcast_to, reshape
from tensorlet._src.ops.dispatch import dispatch_for
from tensorlet._src.ops.gather_scatter import gather, gather_nd
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor
from tensorlet._src.ops.ragged.row_partition import RowPartition

__all__ = ["DynamicRaggedShape"]


def _static(t):
    return t._v if t.__class__ is EagerTensor else None


@tf_export("experimental.DynamicRaggedShape")
class DynamicRaggedShape:
    """The shape of a RaggedTensor or Tensor: ``row_partitions`` (axes 1..k) and the flat values' ``inner_shape``.

    >>> tf.experimental.DynamicRaggedShape.from_lengths([2, (2, 1), 3]).static_lengths()
    [2, (2, 1), 3]
    """

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True, static_inner_shape=None):
        row_partitions = tuple(row_partitions)
        for rp in row_partitions:
            if not isinstance(rp, RowPartition):
                raise TypeError(f"row_partitions contains {rp} which is not a RowPartition")
        if dtype is None:
            if row_partitions:
                dtype = row_partitions[0].dtype
            elif isinstance(inner_shape, Tensor):
                dtype = inner_shape.dtype
            elif isinstance(inner_shape, np.ndarray) and inner_shape.dtype == np.int32:
                dtype = _dt.int32
            else:
                dtype = _dt.int64
        dtype = _dt.as_dtype(dtype)
        inner = convert_to_tensor(inner_shape, dtype_hint=dtype)
        self._inner_shape = inner if inner.dtype is dtype else cast(inner, dtype)
        if self._inner_shape.shape.rank != 1:
            raise ValueError(f"Shape {self._inner_shape.shape} must have rank 1")
        self._row_partitions = _with_nvals([rp.with_dtype(dtype) for rp in row_partitions], self._inner_shape)
        for axis in range(1, len(self._row_partitions)):
            nrows, nvals = self._row_partitions[axis].static_nrows, _static_nvals(self._row_partitions[axis - 1])
            if nrows is not None and nvals is not None and nrows != nvals:
                raise ValueError(f"RowPartitions in DynamicRaggedShape do not align between {axis - 1} and {axis}")
        if self._row_partitions and validate:
            nv, first = _static_nvals(self._row_partitions[-1]), _static(self._inner_shape)
            if nv is not None and first is not None and first.size and int(first[0]) != nv:
                raise ValueError("Last row partition does not match flat_values.")
        self._static_inner_shape = TensorShape(static_inner_shape) if static_inner_shape is not None else None

    # --- factories --------------------------------------------------------------------------------------
    @classmethod
    def from_tensor(cls, t, dtype=None):
        if isinstance(t, RaggedTensor):
            fv = t.flat_values
            return cls(t._nested_row_partitions, array_shape.shape(fv, out_type=_dt.int32), dtype=dtype)
        t = convert_to_tensor(t)
        return cls._from_inner_shape(array_shape.shape(t, out_type=_dt.int32), dtype=dtype)

    @classmethod
    def _from_inner_shape(cls, inner_shape, dtype=None):
        return cls((), inner_shape, dtype=dtype)

    @classmethod
    def from_row_partitions(cls, row_partitions, dtype=None):
        row_partitions = tuple(row_partitions)
        if not row_partitions:
            raise ValueError("row_partitions cannot be empty")
        return cls(row_partitions, reshape(row_partitions[-1].nvals(), [1]), dtype=dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=_dt.int64):
        if not isinstance(lengths, list):
            raise ValueError("lengths should be a list")
        for x in lengths:
            if not (isinstance(x, int) or (isinstance(x, tuple) and all(isinstance(v, int) for v in x))):
                raise ValueError(f"element of lengths should be int or tuple of ints: instead {x!r}")
        dtype = _dt.as_dtype(dtype)
        if not lengths:
            return cls((), np.zeros([0], dtype._np), dtype=dtype)
        if num_row_partitions is None:
            ragged = [i for i, x in enumerate(lengths) if isinstance(x, tuple)]
            num_row_partitions = ragged[-1] if ragged else 0
        if isinstance(lengths[0], tuple):
            raise ValueError("the first element of lengths must be an int")
        rps, nrows = [], lengths[0]
        for x in lengths[1:num_row_partitions + 1]:
            if isinstance(x, tuple):
                if len(x) != nrows:
                    raise ValueError("Shape not consistent.")
                rp = RowPartition.from_row_lengths(np.asarray(x, dtype._np), dtype=dtype)
                nrows = int(sum(x))
            else:
                rp = RowPartition.from_uniform_row_length(np.asarray(x, dtype._np), nrows=nrows, dtype=dtype)
                nrows = nrows * x
            rps.append(rp)
        inner = lengths[num_row_partitions + 1:]
        if any(isinstance(x, tuple) for x in inner):
            raise ValueError("Shape not consistent.")
        return cls(rps, np.asarray([nrows] + inner, dtype._np), dtype=dtype)

    # --- properties ------------------------------------------------------------------------------------
    @property
    def row_partitions(self):
        return self._row_partitions

    @property
    def num_row_partitions(self):
        return len(self._row_partitions)

    @property
    def dtype(self):
        return self._inner_shape.dtype

    @property
    def inner_shape(self):
        return self._inner_shape

    @property
    def inner_rank(self):
        return self._inner_shape.shape[0]

    @property
    def rank(self):
        r = self.inner_rank
        return None if r is None else r + self.num_row_partitions

    def _static_inner(self):
        v = _static(self._inner_shape)
        if v is not None:
            return [int(d) for d in v]
        if self._static_inner_shape is not None and self._static_inner_shape.rank is not None:
            return self._static_inner_shape.as_list()
        return [None] * (self.inner_rank or 0)

    def static_lengths(self, ragged_lengths=True):
        inner = self._static_inner()
        if not self._row_partitions:
            return inner
        out = [self._row_partitions[0].static_nrows]
        for rp in self._row_partitions:
            if rp.is_uniform():
                out.append(rp.static_uniform_row_length)
            elif ragged_lengths and _static(rp.row_splits()) is not None:
                out.append(tuple(int(v) for v in np.diff(_static(rp.row_splits()))))
            else:
                out.append(None)
        return out + inner[1:]

    def is_uniform(self, axis):
        rank = self.rank
        if rank is not None and not -rank <= axis < rank:
            raise IndexError(f"Expected axis={axis} < rank={rank}")
        if axis < 0:
            axis += rank
        if axis == 0 or axis > self.num_row_partitions:
            return True
        return self._row_partitions[axis - 1].is_uniform()

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise TypeError(f"DynamicRaggedShape indices must be integers in tensorlet, got {index!r}")
        rank = self.rank
        if rank is not None and index >= rank:
            raise IndexError(f"Expected axis={index} < rank={rank}")
        if index < 0:
            if rank is None:
                raise ValueError("Rank must be known to use __getitem__ with a negative index.")
            index += rank
        k = self.num_row_partitions
        if index == 0:
            return self._row_partitions[0].nrows() if k else self._inner_shape[0]
        if index <= k:
            rp = self._row_partitions[index - 1]
            if not rp.is_uniform():
                raise ValueError(f"Index {index} is not uniform")
            return rp.uniform_row_length()
        return self._inner_shape[index - k]

    def with_dtype(self, dtype):
        dtype = _dt.as_dtype(dtype)
        if dtype is self.dtype:
            return self
        return DynamicRaggedShape(self._row_partitions, cast(self._inner_shape, dtype), dtype=dtype)

    def __repr__(self):
        lengths = _lengths_text(self.static_lengths())
        return f"<DynamicRaggedShape lengths={lengths} num_row_partitions={self.num_row_partitions}>"

    @property
    def _type_spec(self):
        inner = TensorShape(self._static_inner()) if self.inner_rank is not None else TensorShape(None)
        return DynamicRaggedShapeSpec(tuple(rp._type_spec for rp in self._row_partitions), inner, self.dtype)

    Spec = None  # set below (TF's DynamicRaggedShape.Spec)


def _with_nvals(rps, inner_shape):
    """The partitions with each one's number of values recorded where it is known (the next partition's rows,
    or the inner shape's first dimension), as TF's shapes carry them."""
    out = []
    for i, rp in enumerate(rps):
        if rp._nvals is None:
            n = rps[i + 1].static_nrows if i + 1 < len(rps) else None
            if n is None and i + 1 == len(rps):
                v = _static(inner_shape)
                n = int(v[0]) if v is not None and v.size else None
            if n is not None:
                rp = RowPartition(rp._row_splits, rp._row_lengths, rp._value_rowids, rp._nrows,
                                  rp._uniform_row_length, convert_to_tensor(n, rp.dtype), internal=True)
        out.append(rp)
    return tuple(out)


def _static_nvals(rp):
    n = rp.static_nvals
    if n is not None:
        return n
    s = _static(rp.row_splits())
    return None if s is None or not s.size else int(s[-1])


def _lengths_text(lengths):
    return "[" + ", ".join(repr(int(x) if isinstance(x, np.integer) else x) for x in lengths) + "]"


class DynamicRaggedShapeSpec(TypeSpec):
    """``DynamicRaggedShape.Spec``: the row partitions' specs, the static inner shape and the dtype."""

    __slots__ = ("_row_partitions", "_static_inner_shape", "_dtype")

    def __init__(self, row_partitions, static_inner_shape, dtype):
        self._row_partitions = tuple(row_partitions)
        self._static_inner_shape = TensorShape(static_inner_shape)
        self._dtype = _dt.as_dtype(dtype)

    value_type = property(lambda self: DynamicRaggedShape)

    def _key(self):
        return (self._row_partitions, self._static_inner_shape, self._dtype)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        s = self._static_inner_shape
        return hash((self._row_partitions, s._dims if s.rank is not None else None, self._dtype))

    def __repr__(self):
        return (f"DynamicRaggedShape.Spec(row_partitions={self._row_partitions!r}, static_inner_shape="
                f"{self._static_inner_shape!r}, dtype={self._dtype!r})")

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        return isinstance(o, DynamicRaggedShapeSpec) and o._dtype is self._dtype and \
            len(o._row_partitions) == len(self._row_partitions) and \
            all(a.is_compatible_with(b) for a, b in zip(self._row_partitions, o._row_partitions)) and \
            self._static_inner_shape.is_compatible_with(o._static_inner_shape)

    def is_subtype_of(self, other) -> bool:
        return self.is_compatible_with(other) and all(
            a.is_subtype_of(b) for a, b in zip(self._row_partitions, other._row_partitions))

    def most_specific_common_supertype(self, others):
        rps, inner = list(self._row_partitions), self._static_inner_shape
        for o in others:
            if not isinstance(o, DynamicRaggedShapeSpec) or o._dtype is not self._dtype or \
                    len(o._row_partitions) != len(rps):
                return None
            rps = [a.most_specific_common_supertype([b]) for a, b in zip(rps, o._row_partitions)]
            if any(r is None for r in rps):
                return None
            inner = inner.most_specific_compatible_shape(o._static_inner_shape)
        return DynamicRaggedShapeSpec(rps, inner, self._dtype)

    @property
    def _component_specs(self):
        return [c for rp in self._row_partitions for c in rp._component_specs] + [
            TensorSpec(TensorShape([self._static_inner_shape.rank]), self._dtype)]

    def _to_components(self, value):
        return [rp.row_splits() for rp in value.row_partitions] + [value.inner_shape]

    def _from_components(self, components):
        rps = [RowPartition.from_row_splits(s, validate=False) for s in components[:-1]]
        return DynamicRaggedShape(rps, components[-1], dtype=self._dtype, validate=False)


DynamicRaggedShape.Spec = DynamicRaggedShapeSpec
DynamicRaggedShapeSpec.__qualname__ = "DynamicRaggedShape.Spec"


# --- broadcasting to a ragged shape ------------------------------------------------------------------

def _coordinates(rps):
    """For each flat value of a shape with row partitions ``rps``: its index along axes 0..k (k = len(rps))."""
    coords = [rps[-1].offsets_in_rows()]
    rows = rps[-1].value_rowids()
    for rp in reversed(rps[:-1]):
        coords.append(gather(rp.offsets_in_rows(), rows))
        rows = gather(rp.value_rowids(), rows)
    coords.append(rows)
    return coords[::-1]


def _cannot_broadcast(detail=""):
    raise errors.InvalidArgumentError(None, None, "Cannot broadcast" + (f": {detail}" if detail else ""))


def _nested_rebuild(flat_values, rps):
    rt = flat_values
    for rp in reversed(rps):
        rt = RaggedTensor._from_row_partition(rt, rp, validate=False)
    return rt


def ragged_broadcast_to(x, shape):
    """``x`` (a tensor, or a RaggedTensor of the same row partitions) broadcast to DynamicRaggedShape ``shape``."""
    rps = shape.row_partitions
    k = len(rps)
    if isinstance(x, RaggedTensor):
        mine = x._nested_row_partitions
        if k and x.row_splits.dtype is not shape.dtype:
            raise ValueError("Cannot coerce row_splits.dtype")
        if x.shape.rank != shape.rank or len(mine) > k or not all(
                _same_splits(a, b) for a, b in zip(mine, rps)):
            _cannot_broadcast("tensorlet broadcasts a RaggedTensor only to a shape with its own row partitions")
        fv = x.flat_values
        if len(mine) < k:
            _cannot_broadcast("tensorlet broadcasts a RaggedTensor only to a shape with its own row partitions")
        inner = shape.inner_shape
        return _nested_rebuild(_dense_broadcast_to(fv, inner), mine)
    x = convert_to_tensor(x)
    rank = shape.rank
    if x.shape.rank is None or rank is None:
        raise ValueError("broadcast_to a DynamicRaggedShape needs known ranks")
    if x.shape.rank > rank:
        raise ValueError(f"Cannot broadcast a tensor of rank {x.shape.rank} to a shape of rank {rank}")
    if k == 0:
        return _dense_broadcast_to(x, shape.inner_shape)
    dims = [1] * (rank - x.shape.rank) + x.shape.as_list()
    if None in dims:
        raise ValueError("broadcast_to a DynamicRaggedShape needs a statically shaped input")
    x = reshape(x, dims)
    coords = _coordinates(rps)
    idx = []
    for axis, (d, c) in enumerate(zip(dims[:k + 1], coords)):
        if d == 1:
            idx.append(c * 0)
            continue
        lengths = rps[axis - 1].row_lengths() if axis else reshape(rps[0].nrows(), [1])
        lv = _static(lengths)
        if lv is not None and np.any(lv != d):
            _cannot_broadcast(f"dimension {axis} of the input is {d}, the shape's lengths there are "
                              f"{lv.tolist()}")
        idx.append(c)
    flat = gather_nd(x, cast(stack(idx, axis=1), _dt.int64))
    inner = concat([reshape(shape.inner_shape[0], [1]), shape.inner_shape[1:]], 0)
    flat = _dense_broadcast_to(flat, cast(inner, _dt.int32))
    return _nested_rebuild(flat, rps)


def _same_splits(a, b):
    sa, sb = _static(a.row_splits()), _static(b.row_splits())
    if sa is None or sb is None:
        return True  # only known when the graph runs: trusted, as TF's asserts would be
    return sa.shape == sb.shape and bool(np.all(sa == sb))


@dispatch_for(array_shape.shape, RaggedTensor)
def _ragged_shape(input, out_type=None, name=None):  # noqa: A002 - TF's argument name
    return DynamicRaggedShape.from_tensor(input, dtype=out_type or _dt.int32)


@dispatch_for(array_shape.broadcast_to, DynamicRaggedShape, RaggedTensor)
def _broadcast_to(input, shape, name=None):  # noqa: A002 - TF's argument name
    if not isinstance(shape, DynamicRaggedShape):
        shape = DynamicRaggedShape._from_inner_shape(convert_to_tensor(shape, dtype_hint=_dt.int32))
    return ragged_broadcast_to(input, shape)


@dispatch_for(creation.ones, DynamicRaggedShape)
def _ones(shape, dtype=_dt.float32, name=None, layout=None):
    return ragged_broadcast_to(convert_to_tensor(1, _dt.as_dtype(dtype)), shape)


@dispatch_for(creation.zeros, DynamicRaggedShape)
def _zeros_ragged(shape, dtype=_dt.float32, name=None, layout=None):
    dtype = _dt.as_dtype(dtype)
    return ragged_broadcast_to(convert_to_tensor(b"" if dtype is _dt.string else 0, dtype), shape)


@dispatch_for(array_shape.broadcast_dynamic_shape, DynamicRaggedShape)
def _broadcast_dynamic_shape(shape_x, shape_y):
    a = shape_x if isinstance(shape_x, DynamicRaggedShape) else DynamicRaggedShape._from_inner_shape(shape_x)
    b = shape_y if isinstance(shape_y, DynamicRaggedShape) else DynamicRaggedShape._from_inner_shape(shape_y)
    dtype = _dt.int64 if _dt.int64 in (a.dtype, b.dtype) else a.dtype
    big, small = (a, b) if (a.num_row_partitions, a.rank or 0) >= (b.num_row_partitions, b.rank or 0) else (b, a)
    probe = creation.ones(small, _dt.int8) if small.num_row_partitions else _dense_ones(small)
    return DynamicRaggedShape.from_tensor(ragged_broadcast_to(probe, big)).with_dtype(dtype)


def _dense_ones(shape):
    return creation.ones(cast(shape.inner_shape, _dt.int32), _dt.int8)
