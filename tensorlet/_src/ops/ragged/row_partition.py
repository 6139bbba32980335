"""``tf.experimental.RowPartition``: how a flat list of values splits into rows (one ragged dimension).

It holds ``row_splits`` (int64, or int32 when built from int32 tensors) plus whatever else it was built from
(row lengths, value row ids, a uniform row length, nrows / nvals); everything else is computed from those with
ops, so it traces like RaggedTensor.  Validation follows TF: eager arguments are checked at once
(``InvalidArgumentError``), ranks and dtypes always (``ValueError``).

>>> tf.experimental.RowPartition.from_row_lengths([2, 0, 3])
tf.RowPartition(row_splits=[0 2 2 5])
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
from tensorlet._src.ops.array_blocks import concat
from tensorlet._src.ops.array_shape import reshape, shape as _shape
from tensorlet._src.ops.creation import range as _range, zeros
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import add, cast, multiply, subtract
from tensorlet._src.ops.ragged.ragged_tensor import segment_ids
from tensorlet._src.ops.reduce import reduce_max
from tensorlet._src.ops.scan_sort import cumsum
from tensorlet._src.ops.segment import unsorted_segment_sum

__all__ = ["RowPartition", "RowPartitionSpec"]


def _static(t):
    return t._v if t.__class__ is EagerTensor else None


def _vector(x, what, dtype_hint=_dt.int64):
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype_hint=dtype_hint)
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape {t.shape} must have rank 1")
    if t.dtype not in (_dt.int32, _dt.int64):
        raise ValueError(f"{what} must have dtype int32 or int64")
    return t


def _scalar(x, dtype):
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype_hint=dtype)
    if t.shape.rank is not None and t.shape.rank != 0:
        raise ValueError(f"Shape {t.shape} must have rank 0")
    return cast(t, dtype) if t.dtype is not dtype else t


def _invalid(factory, what, detail):
    raise errors.InvalidArgumentError(None, None, f"Arguments to {factory} do not form a valid {what}{detail}")


def _check_splits(splits, factory="from_row_splits"):
    s = _static(splits)
    if s is None:
        return
    if s.size == 0 or s[0] != 0:
        _invalid(factory, "RaggedTensor", ":zero\nCondition x == y did not hold.")
    if np.any(np.diff(s) < 0):
        _invalid(factory, "RaggedTensor", ":monotonic.  \nCondition x >= 0 did not hold element-wise")


@tf_export("experimental.RowPartition")
class RowPartition:
    """The row structure of one ragged dimension (TF's ``RowPartition``): use a ``from_*`` factory."""

    def __init__(self, row_splits, row_lengths=None, value_rowids=None, nrows=None, uniform_row_length=None,
                 nvals=None, internal=False):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the factory methods "
                             "instead (e.g., RowPartition.from_row_lengths())")
        self._row_splits = row_splits
        self._row_lengths = row_lengths
        self._value_rowids = value_rowids
        self._nrows = nrows
        self._uniform_row_length = uniform_row_length
        self._nvals = nvals

    # --- factories ------------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits = _cast(_vector(row_splits, "row_splits", dtype_hint or _dt.int64), dtype)
        if validate:
            _check_splits(splits)
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = _cast(_vector(row_lengths, "row_lengths", dtype_hint or _dt.int64), dtype)
        ls = _static(lengths)
        if validate and ls is not None and np.any(ls < 0):
            _invalid("from_row_lengths", "RowPartition", ".  \nCondition x >= 0 did not hold element-wise")
        splits = concat([zeros([1], lengths.dtype), cumsum(lengths)], 0)
        return cls(splits, row_lengths=lengths, internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None, dtype_hint=None):
        ids = _cast(_vector(value_rowids, "value_rowids", dtype_hint or _dt.int64), dtype)
        iv = _static(ids)
        if nrows is None:
            nrows = (int(iv.max()) + 1 if iv.size else 0) if iv is not None else add(reduce_max(ids), 1)
        nrows = _scalar(nrows, ids.dtype)
        nv = _static(nrows)
        if validate and iv is not None:
            if np.any(np.diff(iv) < 0):
                _invalid("from_value_rowids", "RowPartition", ": value_rowids must be sorted")
            if iv.size and (iv[0] < 0 or (nv is not None and iv[-1] >= int(nv))):
                _invalid("from_value_rowids", "RowPartition", ": value_rowids out of range")
        ones = cast(ids * 0 + 1, ids.dtype)
        lengths = unsorted_segment_sum(ones, ids, nrows)
        splits = concat([zeros([1], ids.dtype), cumsum(lengths)], 0)
        return cls(splits, value_rowids=ids, nrows=nrows, internal=True)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        starts = _cast(_vector(row_starts, "row_starts", dtype_hint or _dt.int64), dtype)
        nvals = _scalar(nvals, starts.dtype)
        splits = concat([starts, reshape(nvals, [1])], 0)
        if validate:
            _check_splits(splits, "from_row_starts")
        return cls(splits, nvals=nvals, internal=True)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        limits = _cast(_vector(row_limits, "row_limits", dtype_hint or _dt.int64), dtype)
        splits = concat([zeros([1], limits.dtype), limits], 0)
        if validate:
            _check_splits(splits, "from_row_limits")
        return cls(splits, internal=True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None, validate=True, dtype=None,
                                dtype_hint=None):
        if nvals is None and nrows is None:
            raise ValueError("Either nvals or nrows must be specified")
        dt = dtype or (uniform_row_length.dtype if isinstance(uniform_row_length, Tensor) else
                       dtype_hint or _dt.int64)
        length = _scalar(uniform_row_length, dt)
        lv = _static(length)
        if validate and lv is not None and lv < 0:
            _invalid("from_uniform_row_length", "RowPartition", ": uniform_row_length must be >= 0")
        if nrows is None:
            nv = _static(_scalar(nvals, dt))
            if nv is not None and lv is not None:
                nrows = 0 if lv == 0 else int(nv) // int(lv)
                if validate and lv and int(nv) % int(lv):
                    _invalid("from_uniform_row_length", "RowPartition", ": uniform_row_length must evenly "
                                                                        "divide nvals")
            else:
                nrows = _scalar(nvals, dt) // length
        nrows = _scalar(nrows, dt)
        if nvals is None:
            nvals = multiply(nrows, length)
        splits = multiply(_range(add(nrows, 1) if _static(nrows) is None else int(_static(nrows)) + 1, dtype=dt),
                          length)
        return cls(splits, nrows=nrows, uniform_row_length=length, nvals=_scalar(nvals, dt), internal=True)

    # --- encodings -----------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._row_splits.dtype

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        if self._row_lengths is not None:
            return self._row_lengths
        return subtract(self._row_splits[1:], self._row_splits[:-1])

    def value_rowids(self):
        if self._value_rowids is not None:
            return self._value_rowids
        return segment_ids(self._row_splits)

    def nrows(self):
        if self._nrows is not None:
            return self._nrows
        n = self._row_splits.shape[0]
        if n is not None:
            return convert_to_tensor(n - 1, self.dtype)
        return subtract(_shape(self._row_splits, out_type=self.dtype)[0], 1)

    def nvals(self):
        if self._nvals is not None:
            return self._nvals
        return self._row_splits[-1]

    def row_starts(self):
        return self._row_splits[:-1]

    def row_limits(self):
        return self._row_splits[1:]

    def uniform_row_length(self):
        return self._uniform_row_length

    def is_uniform(self):
        return self._uniform_row_length is not None

    def offsets_in_rows(self):
        """The position of each value within its row."""
        ids = self.value_rowids()
        return subtract(_range(self.nvals(), dtype=self.dtype), gather(self._row_splits, ids))

    @property
    def static_nrows(self):
        v = _static(self._nrows) if self._nrows is not None else None
        if v is not None:
            return int(v)
        n = self._row_splits.shape[0]
        return None if n is None else n - 1

    @property
    def static_nvals(self):
        if self._nvals is not None:
            v = _static(self._nvals)
            if v is not None:
                return int(v)
        if self._value_rowids is not None and self._value_rowids.shape[0] is not None:
            return self._value_rowids.shape[0]
        return None

    @property
    def static_uniform_row_length(self):
        v = _static(self._uniform_row_length) if self._uniform_row_length is not None else None
        return None if v is None else np.asarray(v)[()]  # TF's constant value: a NumPy scalar

    def with_dtype(self, dtype):
        dtype = _dt.as_dtype(dtype)
        if dtype not in (_dt.int32, _dt.int64):
            raise ValueError("dtype must be int32 or int64")
        if dtype is self.dtype:
            return self

        def c(t):
            return None if t is None else cast(t, dtype)

        return RowPartition(c(self._row_splits), c(self._row_lengths), c(self._value_rowids), c(self._nrows),
                            c(self._uniform_row_length), c(self._nvals), internal=True)

    # --- composite protocol ------------------------------------------------------------------------
    @property
    def _type_spec(self):
        return RowPartitionSpec(self.static_nrows, self.static_nvals, self.static_uniform_row_length, self.dtype)

    def __repr__(self):
        if self._uniform_row_length is not None:
            return f"tf.RowPartition(nrows={_text(self.nrows())}, uniform_row_length={_text(self._uniform_row_length)})"
        return f"tf.RowPartition(row_splits={_text(self._row_splits)})"


def _cast(t, dtype):
    if dtype is None:
        return t
    dtype = _dt.as_dtype(dtype)
    return t if t.dtype is dtype else cast(t, dtype)


def _text(t):
    v = _static(t)
    return str(np.asarray(v)) if v is not None else repr(t)


class RowPartitionSpec(TypeSpec):
    """The type of a RowPartition: static nrows, nvals, uniform row length and dtype."""

    __slots__ = ("_nrows", "_nvals", "_uniform_row_length", "_dtype")

    def __init__(self, nrows=None, nvals=None, uniform_row_length=None, dtype=_dt.int64):
        self._nrows, self._nvals, self._uniform_row_length = nrows, nvals, uniform_row_length
        self._dtype = _dt.as_dtype(dtype)

    value_type = property(lambda self: RowPartition)

    def _key(self):
        return (self._nrows, self._nvals, self._uniform_row_length, self._dtype)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"RowPartitionSpec(nrows={self._nrows}, nvals={self._nvals}, uniform_row_length="
                f"{self._uniform_row_length}, dtype={self._dtype!r})")

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        if not isinstance(o, RowPartitionSpec) or o._dtype is not self._dtype:
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._key()[:3], o._key()[:3]))

    def is_subtype_of(self, other) -> bool:
        return isinstance(other, RowPartitionSpec) and other._dtype is self._dtype and all(
            b is None or a == b for a, b in zip(self._key()[:3], other._key()[:3]))

    def most_specific_common_supertype(self, others):
        key = list(self._key()[:3])
        for o in others:
            if not isinstance(o, RowPartitionSpec) or o._dtype is not self._dtype:
                return None
            key = [a if a == b else None for a, b in zip(key, o._key()[:3])]
        return RowPartitionSpec(*key, self._dtype)

    @property
    def _component_specs(self):
        n = None if self._nrows is None else self._nrows + 1
        return [TensorSpec(TensorShape([n]), self._dtype)]

    def _to_components(self, value):
        return [value.row_splits()]

    def _from_components(self, components):
        return RowPartition.from_row_splits(components[0], validate=False)
