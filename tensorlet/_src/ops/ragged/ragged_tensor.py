"""``tf.RaggedTensor``: rows of different lengths, as a flat ``values`` tensor plus ``row_splits``.

A RaggedTensor of ragged rank k is ``values`` (a dense tensor, or a RaggedTensor of rank k-1) and one int64 (or
int32) ``row_splits`` vector per ragged dimension: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.  All
of it is written with tensorlet ops on those two component tensors, so gradients reach ``flat_values`` through
the tape and the same code traces into graphs.  It lives in the ops layer because ops return it (string
splitting); public ops accept it through the dispatch table (``ops/dispatch.py``, handlers in ``ragged_ops.py``).

>>> rt = tf.RaggedTensor.from_row_splits([1, 2, 3], row_splits=[0, 2, 3])
>>> rt
<tf.RaggedTensor [[1, 2], [3]]>
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops.array_select import sequence_mask, where
from tensorlet._src.ops.array_blocks import concat
from tensorlet._src.ops.array_shape import expand_dims, reshape
from tensorlet._src.ops.creation import range as _range, zeros
from tensorlet._src.ops.gather_scatter import boolean_mask, gather, scatter_nd
from tensorlet._src.ops.math_binary import add, cast, equal, logical_not, maximum, minimum, multiply, subtract
from tensorlet._src.ops.reduce import reduce_all, reduce_max
from tensorlet._src.ops.scan_sort import cumsum
from tensorlet._src.ops.segment import unsorted_segment_sum

__all__ = ["RaggedTensor", "RaggedTensorSpec", "is_ragged", "ragged_range", "convert_to_tensor_or_ragged"]


def _splits(x, dtype=None, name="row_splits"):
    t = convert_to_tensor(x, dtype_hint=_dt.int64) if not isinstance(x, Tensor) else x
    if dtype is None:
        dtype = t.dtype if t.dtype in (_dt.int32, _dt.int64) else _dt.int64
    if t.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"{name} must have dtype int32 or int64, got {t.dtype.name}")
    if t.dtype is not dtype:
        t = cast(t, dtype)
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"{name} must be a vector, got shape {t.shape}")
    return t


def _eager(t) -> bool:
    return t.__class__ is EagerTensor


def _static(t):
    """The NumPy value of an eager tensor, else None (graph tensors)."""
    return t._v if t.__class__ is EagerTensor else None


def _validate_splits(splits, nvals, what="row_splits"):
    s = _static(splits)
    if s is None:
        return
    if s.size == 0 or s[0] != 0:
        raise errors.InvalidArgumentError(None, None, f"Arguments to from_row_splits do not form a valid "
                                                      f"RaggedTensor:zeroth element of {what} must be 0")
    if np.any(np.diff(s) < 0):
        raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid "
                                                      "RaggedTensor:monotonic")
    if nvals is not None and s[-1] != nvals:
        raise errors.InvalidArgumentError(None, None, f"Arguments to from_row_splits do not form a valid "
                                                      f"RaggedTensor:last element of {what} must equal the number "
                                                      f"of values ({s[-1]} vs. {nvals})")


def _nrows_of(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    d = values.shape[0] if values.shape.rank else None
    if d is not None:
        return d
    from tensorlet._src.ops.array_shape import shape as _shape

    return _shape(values, out_type=_dt.int64)[0]


def segment_ids(splits):
    """The row id of each value (``[0, 0, 2, ...]``) from row splits: a repeat eagerly, a search when traced."""
    sv = _static(splits)
    dt = splits.dtype
    if sv is not None:
        return convert_to_tensor(np.repeat(np.arange(len(sv) - 1, dtype=dt.as_numpy_dtype), np.diff(sv)))
    from tensorlet._src.ops.scan_sort import searchsorted

    total = splits[-1]
    return searchsorted(splits[1:], _range(total, dtype=dt), side="right", out_type=dt)


def ragged_range(starts, limits, dtype=_dt.int64):
    """(values, row_splits) of the concatenated ranges ``[starts[i], limits[i])`` (step 1), with ops."""
    starts = cast(starts, dtype)
    limits = cast(limits, dtype)
    lengths = maximum(subtract(limits, starts), cast(0, dtype))
    splits = concat([zeros([1], dtype), cumsum(lengths)], 0)
    rowids = segment_ids(splits)
    total = splits[-1]
    pos = subtract(_range(total, dtype=dtype), gather(splits, rowids))
    return add(gather(starts, rowids), pos), splits


@tf_export("RaggedTensor")
class RaggedTensor:
    """A tensor with one or more ragged dimensions: ``tf.ragged.constant([[1, 2], [3]])``."""

    __slots__ = ("_values", "_row_splits", "_row_lengths", "_value_rowids", "_nrows", "_uniform_row_length")
    # TF's Tensor operators apply (``rt + 1``, ``-rt``, ``rt[0]``): installed by ragged_ops through dispatch.
    __array_priority__ = 100

    def __init__(self, values, row_partition=None, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods instead "
                             "(e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_partition
        self._row_lengths = None
        self._value_rowids = None
        self._nrows = None
        self._uniform_row_length = None

    @classmethod
    def _make(cls, values, splits):
        return cls(values, splits, internal=True)

    # --- factories ----------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        values = _as_values(values)
        row_splits = _splits(row_splits)
        if validate:
            _validate_splits(row_splits, _nrows_static(values))
        return cls._make(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        values = _as_values(values)
        lengths = _splits(row_lengths, name="row_lengths")
        ls = _static(lengths)
        if validate and ls is not None and np.any(ls < 0):
            raise errors.InvalidArgumentError(None, None, "Arguments to from_row_lengths do not form a valid "
                                                          "RaggedTensor:negative row lengths")
        splits = concat([zeros([1], lengths.dtype), cumsum(lengths)], 0)
        if validate:
            _validate_splits(splits, _nrows_static(values))
        rt = cls._make(values, splits)
        rt._row_lengths = lengths
        return rt

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        values = _as_values(values)
        starts = _splits(row_starts, name="row_starts")
        nvals = cast(_nrows_of(values), starts.dtype)
        return cls.from_row_splits(values, concat([starts, reshape(nvals, [1])], 0), validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        values = _as_values(values)
        limits = _splits(row_limits, name="row_limits")
        return cls.from_row_splits(values, concat([zeros([1], limits.dtype), limits], 0), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        values = _as_values(values)
        rowids = _splits(value_rowids, name="value_rowids")
        ids = _static(rowids)
        if nrows is None:
            nrows = (int(ids.max()) + 1 if ids.size else 0) if ids is not None else add(reduce_max(rowids), 1)
        if validate and ids is not None:
            if np.any(np.diff(ids) < 0):
                raise errors.InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form a valid "
                                                              "RaggedTensor:value_rowids must be sorted")
            if ids.size and (ids[0] < 0 or (not isinstance(nrows, Tensor) and ids[-1] >= int(nrows))):
                raise errors.InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form a valid "
                                                              "RaggedTensor:value_rowids out of range")
        lengths = unsorted_segment_sum(cast(expand_dims(rowids, 1) * 0 + 1, rowids.dtype)[:, 0], rowids, nrows)
        splits = concat([zeros([1], rowids.dtype), cumsum(lengths)], 0)
        rt = cls._make(values, splits)
        rt._value_rowids = rowids
        return rt

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        values = _as_values(values)
        n = _nrows_static(values)
        if n is None:
            n = _nrows_of(values)
        k = int(uniform_row_length)
        if nrows is None:
            nrows = (n // k if k else 0) if not isinstance(n, Tensor) else n // k
        splits = multiply(_range(cast(nrows, _dt.int64) + 1 if isinstance(nrows, Tensor) else int(nrows) + 1,
                                 dtype=_dt.int64), cast(k, _dt.int64))
        rt = cls._make(values, splits)
        rt._uniform_row_length = k
        return rt

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        if isinstance(nested_row_splits, (Tensor, np.ndarray)):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = _as_values(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = _as_values(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True):
        result = _as_values(flat_values)
        rowids = list(nested_value_rowids)
        nrows = list(nested_nrows) if nested_nrows is not None else [None] * len(rowids)
        for ids, n in reversed(list(zip(rowids, nrows))):
            result = cls.from_value_rowids(result, ids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=_dt.int64):
        tensor = convert_to_tensor(tensor)
        row_splits_dtype = _dt.as_dtype(row_splits_dtype)
        rank = tensor.shape.rank
        if ragged_rank < 1 or rank is None or ragged_rank >= rank:
            raise ValueError(f"ragged_rank must be greater than 0 and less than the rank of tensor ({rank}); "
                             f"got {ragged_rank}")
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if ragged_rank > 1:
            # flatten the outer dimensions, make the inner ones ragged, then add uniform outer partitions
            dims = tensor.shape.as_list()
            inner = cls.from_tensor(reshape(tensor, [-1] + dims[ragged_rank:]) if all(d is not None for d in dims)
                                    else tensor, lengths=lengths, padding=padding, ragged_rank=1,
                                    row_splits_dtype=row_splits_dtype)
            for k in range(ragged_rank - 1, 0, -1):
                inner = cls.from_uniform_row_length(inner, dims[k])
                inner = inner.with_row_splits_dtype(row_splits_dtype)
            return inner
        dims = tensor.shape.as_list()
        n, m = dims[0], dims[1]
        if padding is not None:
            padding = convert_to_tensor(padding, dtype=tensor.dtype)
            is_pad = equal(tensor, padding)
            if tensor.shape.rank > 2:
                is_pad = reduce_all(is_pad, axis=list(range(2, tensor.shape.rank)))
            pos = multiply(cast(logical_not(is_pad), row_splits_dtype),
                           _range(1, m + 1, dtype=row_splits_dtype))
            lengths = reduce_max(concat([pos, zeros([n, 1], row_splits_dtype)], 1), axis=1)
        if lengths is not None:
            lengths = cast(convert_to_tensor(lengths), row_splits_dtype)
            lengths = minimum(lengths, cast(m, row_splits_dtype))
            mask = sequence_mask(lengths, m)
            values = boolean_mask(tensor, mask)
            return cls.from_row_lengths(values, lengths, validate=False)
        values = reshape(tensor, [n * m] + dims[2:])
        rt = cls.from_row_splits(values, _range(0, n * m + 1, max(m, 1) if m else 1, dtype=row_splits_dtype)
                                 if m else zeros([n + 1], row_splits_dtype), validate=False)
        rt._uniform_row_length = m
        return rt

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dt.int64):
        indices = convert_to_tensor(st_input.indices)
        shape = _static(convert_to_tensor(st_input.dense_shape))
        if shape is None or len(shape) != 2:
            raise ValueError("from_sparse requires a 2-D SparseTensor with a known dense_shape")
        return cls.from_value_rowids(st_input.values, cast(indices[:, 0], row_splits_dtype), int(shape[0]),
                                     validate=False)

    # --- components ----------------------------------------------------------------
    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def _row_partition(self):
        """This tensor's outer ragged dimension as a ``tf.experimental.RowPartition``."""
        from tensorlet._src.ops.ragged.row_partition import RowPartition

        return RowPartition(self._row_splits, self._row_lengths, self._value_rowids, internal=True)

    @property
    def _nested_row_partitions(self):
        rps, rt = [], self
        while isinstance(rt, RaggedTensor):
            rps.append(rt._row_partition)
            rt = rt._values
        return tuple(rps)

    @classmethod
    def _from_row_partition(cls, values, row_partition, validate=True):
        """A RaggedTensor of ``values`` split into rows by ``row_partition`` (TF's internal factory)."""
        rt = cls.from_row_splits(values, row_partition.row_splits(), validate=validate)
        rt._row_lengths = row_partition._row_lengths
        rt._value_rowids = row_partition._value_rowids
        return rt

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def uniform_row_length(self):
        return None if self._uniform_row_length is None else convert_to_tensor(self._uniform_row_length,
                                                                                dtype=self.row_splits_dtype)

    @property
    def shape(self) -> TensorShape:
        n = self._row_splits.shape[0]
        nrows = None if n is None else n - 1
        inner = self._values.shape
        row = self._uniform_row_length
        dims = [nrows, row] + (inner.as_list()[1:] if inner.rank is not None else [])
        if inner.rank is None:
            return TensorShape(None)
        return TensorShape(dims)

    def get_shape(self):
        return self.shape

    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype,
                                flat_values_spec=None)

    def nrows(self, out_type=None, name=None):
        n = self._row_splits.shape[0]
        dt = _dt.as_dtype(out_type) if out_type is not None else self.row_splits_dtype
        if n is not None:
            return convert_to_tensor(n - 1, dtype=dt)
        from tensorlet._src.ops.array_shape import shape as _shape

        return cast(subtract(_shape(self._row_splits, out_type=_dt.int64)[0], 1), dt)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        if axis == 0:
            return self.nrows()
        if axis == 1:
            if self._row_lengths is None:
                self._row_lengths = subtract(self._row_splits[1:], self._row_splits[:-1])
            return self._row_lengths
        if axis < 0:
            raise ValueError("row_lengths: negative axis is not supported")
        inner = self._values.row_lengths(axis - 1) if isinstance(self._values, RaggedTensor) else None
        if inner is None:
            raise ValueError(f"axis={axis} is not a ragged dimension")
        return self.with_values(inner)

    def nested_row_lengths(self, name=None):
        out = []
        rt = self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt._values
        return tuple(out)

    def value_rowids(self, name=None):
        if self._value_rowids is None:
            self._value_rowids = segment_ids(self._row_splits)
        return self._value_rowids

    def nested_value_rowids(self, name=None):
        out = []
        rt = self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        dt = _dt.as_dtype(out_type) if out_type is not None else self.row_splits_dtype
        nrows = cast(self.nrows(), dt)
        lengths = self.row_lengths()
        width = cast(reduce_max(concat([lengths, zeros([1], lengths.dtype)], 0)), dt)
        if isinstance(self._values, RaggedTensor):
            inner = self._values.bounding_shape(out_type=dt)[1:]
        else:
            from tensorlet._src.ops.array_shape import shape as _shape

            inner = _shape(self._values, out_type=dt)[1:]
        shape = concat([reshape(nrows, [1]), reshape(width, [1]), inner], 0)
        return shape if axis is None else shape[axis]

    # --- rebuilding -----------------------------------------------------------------
    def with_values(self, new_values):
        new_values = _as_values(new_values)
        rt = RaggedTensor._make(new_values, self._row_splits)
        rt._row_lengths, rt._value_rowids, rt._uniform_row_length = (self._row_lengths, self._value_rowids,
                                                                     self._uniform_row_length)
        return rt

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        dtype = _dt.as_dtype(dtype)
        if dtype not in (_dt.int32, _dt.int64):
            raise ValueError(f"dtype must be int32 or int64, got {dtype.name}")
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) \
            else self._values
        if dtype is self.row_splits_dtype and values is self._values:
            return self
        rt = RaggedTensor._make(values, cast(self._row_splits, dtype))
        rt._uniform_row_length = self._uniform_row_length
        return rt

    def merge_dims(self, outer_axis, inner_axis):
        rank = self.shape.rank
        if outer_axis < 0:
            outer_axis += rank
        if inner_axis < 0:
            inner_axis += rank
        if not 0 <= outer_axis <= inner_axis < rank:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis})")
        out = self
        for _ in range(inner_axis - outer_axis):
            out = _merge_adjacent(out, outer_axis)
        return out

    # --- conversion -----------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        dense = _to_dense(self, default_value)
        if shape is not None:
            dense = _fit_shape(dense, shape, default_value, self.dtype)
        return dense

    def to_list(self):
        rows = self._rows_numpy()
        return [_tolist(r) for r in rows]

    def numpy(self):
        rows = self._rows_numpy()
        values = self.flat_values
        if not _eager(values):
            raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
        if not rows:
            inner = np.asarray(self._values.numpy()) if not isinstance(self._values, RaggedTensor) else None
            return np.zeros((0, 0) + (inner.shape[1:] if inner is not None else ()),
                            dtype=values._v.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def _rows_numpy(self):
        splits = _static(self._row_splits)
        if splits is None:
            raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
        values = self._values.numpy() if isinstance(self._values, RaggedTensor) else np.asarray(
            _static(self._values) if _eager(self._values) else self._values.numpy())
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    # --- printing -------------------------------------------------------------------
    def __repr__(self):
        if _eager(self.flat_values) and all(_eager(s) for s in self.nested_row_splits):
            with np.printoptions(formatter={"all": _formatter}):
                text = _formatter(self.numpy())
            return f"<tf.RaggedTensor {text}>"
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __iter__(self):
        if not _eager(self._row_splits):
            raise TypeError("RaggedTensor is not iterable inside tf.function")
        return (self[i] for i in range(int(self._row_splits._v.shape[0]) - 1))

    def __len__(self):
        n = self._row_splits.shape[0]
        if n is None:
            raise TypeError("len is not well defined for a RaggedTensor with an unknown number of rows")
        return n - 1

    def consumers(self):
        return []

    def __tf_tensor__(self, dtype=None, name=None):
        raise TypeError("Failed to convert a RaggedTensor to a Tensor: use rt.to_tensor() (or tf.ragged "
                        "ops, which accept it)")


# --- helpers ---------------------------------------------------------------------------

def is_ragged(x) -> bool:
    return isinstance(x, RaggedTensor)


def convert_to_tensor_or_ragged(x, dtype=None):
    if isinstance(x, RaggedTensor):
        if dtype is not None and _dt.as_dtype(dtype) is not x.dtype:
            raise ValueError(f"RaggedTensor dtype {x.dtype.name} does not match requested {dtype}")
        return x
    return convert_to_tensor(x, dtype=dtype)


def _as_values(values):
    if isinstance(values, RaggedTensor):
        return values
    t = convert_to_tensor(values)
    if t.shape.rank == 0:
        raise ValueError("values must have rank >= 1")
    return t


def _nrows_static(values):
    if isinstance(values, RaggedTensor):
        n = values._row_splits.shape[0]
        return None if n is None else n - 1
    return values.shape[0] if values.shape.rank else None


def _tolist(x):
    if isinstance(x, np.ndarray):
        if x.dtype == object and x.ndim == 1 and x.size and isinstance(x[0], np.ndarray):
            return [_tolist(r) for r in x]
        return x.tolist()
    return x


def _formatter(x):
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _merge_adjacent(x, k):
    """Merge axes ``k`` and ``k + 1`` of ``x`` (a RaggedTensor or a dense tensor)."""
    if not isinstance(x, RaggedTensor):
        dims = x.shape.as_list()
        return reshape(x, dims[:k] + [-1] + dims[k + 2:])
    if k == 0:
        return x.values
    v = x.values
    if k == 1:
        if isinstance(v, RaggedTensor):  # rows of x now index v's values: remap the outer splits
            return RaggedTensor.from_row_splits(v.values, gather(v.row_splits, x.row_splits), validate=False)
        d = v.shape[1]
        splits = multiply(x.row_splits, cast(d, x.row_splits_dtype))
        return RaggedTensor.from_row_splits(_merge_adjacent(v, 0), splits, validate=False)
    return x.with_values(_merge_adjacent(v, k - 1))


def _to_dense(rt, default_value):
    values = rt.values
    if isinstance(values, RaggedTensor):
        values = _to_dense(values, default_value)
    dtype = values.dtype
    rowids = rt.value_rowids()
    splits = rt.row_splits
    nrows = rt.nrows(out_type=_dt.int64)
    lengths = rt.row_lengths()
    width = reduce_max(concat([lengths, zeros([1], lengths.dtype)], 0))
    col = subtract(_range(_nrows_of(values) if not isinstance(_nrows_of(values), Tensor) else _nrows_of(values),
                          dtype=splits.dtype), gather(splits, rowids))
    idx = cast(concat([expand_dims(rowids, 1), expand_dims(col, 1)], 1), _dt.int64)
    inner = values.shape.as_list()[1:]
    from tensorlet._src.ops.array_shape import shape as _shape

    out_shape = concat([reshape(cast(nrows, _dt.int64), [1]), reshape(cast(width, _dt.int64), [1]),
                        _shape(values, out_type=_dt.int64)[1:]], 0) if None in inner or not _eager(width) \
        else [int(_static(nrows)), int(_static(width))] + inner
    if dtype is _dt.string:
        from tensorlet._src.ops.gather_scatter import tensor_scatter_nd_update
        from tensorlet._src.ops.creation import fill

        base = fill(out_shape, convert_to_tensor(b"" if default_value is None else default_value, dtype=dtype))
        return tensor_scatter_nd_update(base, idx, values)
    dense = scatter_nd(idx, values, out_shape)
    if default_value is not None:
        dv = convert_to_tensor(default_value, dtype=dtype)
        present = scatter_nd(idx, cast(expand_dims(rowids, 1) * 0 + 1, dtype)[:, 0], out_shape[:2]
                             if isinstance(out_shape, list) else out_shape[:2])
        mask = cast(present, _dt.bool)
        for _ in inner:
            mask = expand_dims(mask, -1)
        dense = where(mask, dense, dv)
    return dense


def _fit_shape(dense, shape, default_value, dtype):
    """Pad or truncate ``dense`` to ``shape`` (None dims keep their size), as ``to_tensor(shape=...)``."""
    from tensorlet._src.ops.array_blocks import pad
    from tensorlet._src.ops.array_select import slice as _slice

    shape = TensorShape(shape)
    if shape.rank is None:
        return dense
    cur = dense.shape.as_list()
    want = [c if w is None else w for c, w in zip(cur, shape.as_list())]
    dense = _slice(dense, [0] * len(cur), [min(c, w) for c, w in zip(cur, want)])
    pads = [[0, max(w - c, 0)] for c, w in zip(cur, want)]
    if any(p[1] for p in pads):
        dense = pad(dense, pads, constant_values=0 if default_value is None else default_value)
    return dense


# --- the spec ----------------------------------------------------------------------------

@tf_export("RaggedTensorSpec")
class RaggedTensorSpec(TypeSpec):
    """The type of a RaggedTensor: shape, dtype, ragged_rank, row_splits_dtype.

    >>> tf.RaggedTensorSpec([2, None], tf.int32)
    RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=_dt.float32, ragged_rank=None, row_splits_dtype=_dt.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._row_splits_dtype = _dt.as_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if rank is not None and (ragged_rank >= rank or ragged_rank < 0):
            raise ValueError(f"ragged_rank must be non-negative and less than rank ({rank}); got {ragged_rank}")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)

    @property
    def value_type(self):
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    @classmethod
    def from_value(cls, value):
        return value._type_spec

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value
        if isinstance(other, RaggedTensor):
            other = other._type_spec
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype is other._dtype and self._ragged_rank == other._ragged_rank and
                self._row_splits_dtype is other._row_splits_dtype and self._shape.is_compatible_with(other._shape))

    def is_subtype_of(self, other):
        if not isinstance(other, RaggedTensorSpec) or not self.is_compatible_with(other):
            return False
        o = other._shape.dims
        if o is None:
            return True
        s = self._shape.dims
        return s is not None and all(b is None or a == b for a, b in zip(s, o))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, RaggedTensorSpec) or o._dtype is not self._dtype or \
                    o._ragged_rank != self._ragged_rank or o._row_splits_dtype is not self._row_splits_dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    # components: (flat_values, *nested_row_splits), the form tf.function and tf.data pass around
    @property
    def _component_specs(self):
        """``TensorSpec`` of each component as TF traces them: flat values ``[None, inner...]``, the outer
        splits ``[nrows + 1]``, inner splits ``[None]`` (so a new total of values does not retrace)."""
        dims = self._shape.as_list() if self._shape.rank is not None else None
        inner = dims[self._ragged_rank + 1:] if dims is not None else None
        flat = TensorShape([None] + inner) if inner is not None else TensorShape(None)
        nrows = dims[0] if dims is not None else None
        outer = TensorShape([None if nrows is None else nrows + 1])
        from tensorlet._src.framework.tensor_spec import TensorSpec

        return [TensorSpec(flat, self._dtype), TensorSpec(outer, self._row_splits_dtype)] + \
            [TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]

    def _to_components(self, value):
        return (value.flat_values,) + tuple(value.nested_row_splits)

    def _from_components(self, components):
        flat, *splits = components
        return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)

    def _batch(self, batch_size):
        b = None if batch_size is None or batch_size < 0 else int(batch_size)
        dims = [b] + (self._shape.as_list() if self._shape.rank is not None else [None])
        return RaggedTensorSpec(TensorShape(dims if self._shape.rank is not None else None), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        dims = self._shape.as_list()[1:] if self._shape.rank is not None else None
        return RaggedTensorSpec(dims, self._dtype, self._ragged_rank - 1, self._row_splits_dtype)

    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype is other._dtype and self._shape == other._shape
                and self._ragged_rank == other._ragged_rank and self._row_splits_dtype is other._row_splits_dtype)

    def __hash__(self):
        return hash((tuple(self._shape.as_list()) if self._shape.rank is not None else None, self._dtype,
                     self._ragged_rank, self._row_splits_dtype))

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")

