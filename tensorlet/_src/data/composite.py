"""Composite elements in tf.data: RaggedTensor and SparseTensor leaves.

A composite leaf travels through a pipeline as the eager composite value itself (its spec in ``element_spec``
is its ``RaggedTensorSpec`` / ``SparseTensorSpec``); a RaggedTensorSpec of ragged_rank 0 (the rows of a
ragged_rank-1 tensor) travels as its dense array, as TF decodes it to a ``tf.Tensor``.  Slicing, batching and
unbatching work on the components with NumPy: batching ragged elements adds a ragged dimension (ragged_rank+1),
batching sparse elements prefixes each index with the element's position (dense shape: the largest of each
dimension), as TF does.  ``ragged_batch`` / ``dense_to_ragged_batch`` encode dense components whose shape is not
fully defined as ragged first (ragged_rank = the last unknown axis).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap
from tensorlet._src.framework.tensor_spec import TensorSpec


def is_composite(v) -> bool:
    """A RaggedTensor / SparseTensor value (anything with a component-based TypeSpec)."""
    if isinstance(v, (Tensor, np.ndarray, np.generic)) or (v.__class__.__module__.startswith("tensorlet._src.data")
                                                         and v.__class__.__name__ != "Optional"):
        return False  # datasets and iterators have specs too, but are not element values
    ts = getattr(v, "_type_spec", None)
    return ts is not None and hasattr(ts, "_to_components")


def is_composite_spec(spec) -> bool:
    return not isinstance(spec, TensorSpec) and hasattr(spec, "_from_components") and \
        type(spec).__name__ in ("RaggedTensorSpec", "SparseTensorSpec")


def _is_sparse_spec(spec):
    return type(spec).__name__ == "SparseTensorSpec"


def check_eager(v):
    for c in v._type_spec._to_components(v):
        if not isinstance(c, EagerTensor):
            raise TypeError(f"tf.data needs concrete tensors, got a {type(v).__name__} of {type(c).__name__}")
    return v


def _np(x):
    return x._v if isinstance(x, EagerTensor) else np.asarray(x)


# --- ragged -----------------------------------------------------------------------------------------

def _ragged_parts(v):
    """(flat values, [row splits per ragged level]) of a RaggedTensor, or (array, []) of a dense row."""
    if isinstance(v, np.ndarray) or isinstance(v, EagerTensor):
        return _np(v), []
    return _np(v.flat_values), [_np(s) for s in v.nested_row_splits]


def _ragged_value(flat, splits, spec):
    """A RaggedTensor of ``spec`` from NumPy components; dims the spec knows (uniform rows) stay static, as TF's
    ``RaggedTensorSpec`` decoding keeps them."""
    if not splits:
        return flat
    from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor

    sd = spec.row_splits_dtype._np
    rt = RaggedTensor.from_nested_row_splits(_wrap(flat), [_wrap(np.asarray(s, sd)) for s in splits], validate=False)
    dims = spec.shape.as_list() if spec.shape.rank is not None else []
    node = rt
    for axis in range(1, len(splits) + 1):
        if axis < len(dims) and dims[axis] is not None and isinstance(node, RaggedTensor):
            node._uniform_row_length = dims[axis]
        node = node.values if isinstance(node, RaggedTensor) else node
    return rt


def _ragged_rows(v, spec):
    flat, splits = _ragged_parts(v)
    row_spec = spec._unbatch()
    out = []
    for i in range(len(splits[0]) - 1):
        a, b = int(splits[0][i]), int(splits[0][i + 1])
        sub = []
        for s in splits[1:]:
            seg = s[a:b + 1]
            sub.append(seg - seg[0])
            a, b = int(seg[0]), int(seg[-1])
        out.append(_ragged_value(flat[a:b], sub, row_spec))
    return out


def _ragged_batch(col, spec, j):
    """Elements (ragged or dense rows) -> one RaggedTensor with a new outer ragged dimension."""
    parts = [_ragged_parts(v) for v in col]
    k = len(parts[0][1])
    inner = [p[0].shape[1:] for p in parts]
    for i, s in enumerate(inner):
        if s != inner[0]:
            raise errors.InvalidArgumentError(
                None, "IteratorGetNext", f"Cannot batch tensors with different shapes in component {j}. First "
                                         f"element had shape {errors.shape_str(parts[0][0].shape)} and element {i} "
                                         f"had shape {errors.shape_str(parts[i][0].shape)}.")
    nrows = [len(p[1][0]) - 1 if k else p[0].shape[0] for p in parts]
    outer = np.concatenate([[0], np.cumsum(nrows)])
    levels = []
    for lev in range(k):
        off, segs = 0, []
        for _, sp in parts:
            s = sp[lev]
            segs.append(s[:-1] + off)
            off += int(s[-1])
        segs.append(np.asarray([off]))
        levels.append(np.concatenate(segs))
    flat = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0,), spec.dtype._np)
    return _ragged_value(flat, [outer] + levels, spec)


# --- sparse -----------------------------------------------------------------------------------------

def _sparse_rows(v, spec):
    idx, vals, shape = (_np(c) for c in spec._to_components(v)) if hasattr(spec, "_to_components") else v
    row_spec = spec._unbatch()
    out = []
    for i in range(int(shape[0])):
        m = idx[:, 0] == i
        out.append(row_spec._from_components([_wrap(np.ascontiguousarray(idx[m][:, 1:])), _wrap(vals[m]),
                                              _wrap(shape[1:].copy())]))
    return out


def _sparse_batch(col, spec):
    comps = [[_np(c) for c in v._type_spec._to_components(v)] for v in col]
    rank = len(comps[0][2])
    idx = [np.concatenate([np.full((len(c[0]), 1), i, np.int64), c[0].reshape(-1, rank)], 1)
           for i, c in enumerate(comps)]
    shape = np.max(np.stack([c[2] for c in comps]), 0) if comps else np.zeros((rank,), np.int64)
    values = np.concatenate([c[1] for c in comps])
    return spec._from_components([_wrap(np.concatenate(idx).astype(np.int64)), _wrap(values),
                                  _wrap(np.concatenate([[len(comps)], shape]).astype(np.int64))])


# --- entry points for the dataset nodes ------------------------------------------------------------

def rows(v, spec):
    """The rows of composite leaf ``v`` (whose spec is ``spec``), as leaves of ``spec._unbatch()``."""
    if _is_sparse_spec(spec):
        return _sparse_rows(v, spec)
    if isinstance(v, (np.ndarray, EagerTensor)):  # a ragged_rank-0 value is a dense array
        return list(_np(v))
    return _ragged_rows(v, spec)


def num_rows(v, spec) -> int:
    if _is_sparse_spec(spec):
        return int(_np(v.dense_shape)[0])
    if isinstance(v, (np.ndarray, EagerTensor)):
        return _np(v).shape[0]
    return len(_np(v.nested_row_splits[0])) - 1


def batch(col, spec, j=0):
    """Batch one column of composite elements; ``spec`` is the element spec."""
    if _is_sparse_spec(spec):
        return _sparse_batch(col, spec._batch(None))
    return _ragged_batch(col, spec._batch(None), j)


def to_ragged_spec(spec, row_splits_dtype):
    """TF's dense_to_ragged: a TensorSpec whose shape is not fully defined becomes a RaggedTensorSpec."""
    if not isinstance(spec, TensorSpec) or spec.shape.rank is None or spec.shape.is_fully_defined():
        return spec
    from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensorSpec

    rr = max(i for i, d in enumerate(spec.shape.as_list()) if d is None)
    return RaggedTensorSpec(spec.shape, spec.dtype, rr, row_splits_dtype)


def to_ragged_value(v, spec):
    """A dense leaf re-encoded for ``spec`` (from ``to_ragged_spec``)."""
    if not is_composite_spec(spec) or spec.ragged_rank == 0 or not isinstance(v, np.ndarray):
        return v
    from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor

    return RaggedTensor.from_tensor(_wrap(v), ragged_rank=spec.ragged_rank, row_splits_dtype=spec.row_splits_dtype)
