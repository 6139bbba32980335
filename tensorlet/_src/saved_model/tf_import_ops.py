"""TF ops whose outputs differ from the tensorlet op of the same name, as the loader meets them in TF-written
functions: ``StringSplitV2`` (TF returns the pieces as a SparseTensor's indices/values/shape; tensorlet's op
returns values/row_splits) and ``RaggedTensorToTensor`` (a ragged tensor given as row partition tensors, padded
into a dense one), both in Keras' ``TextVectorization`` (split -> lookup -> pad to ``output_sequence_length``;
NumPy kernels: a function using them runs on the NumPy executor); ``Bucketize`` (Keras' ``Discretization``).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import NONDIFF, bind, defop
from tensorlet._src.ops.shapes import Spec
from tensorlet._src.saved_model.codec import CorruptSavedModel
from tensorlet._src.saved_model.tf_ops import known_value


def _split_kernel(xp, x, sep=b"", maxsplit=-1):
    from tensorlet._src.ops.strings_split import _split_v2_kernel

    x = np.asarray(x, object).reshape(-1)
    values, splits = _split_v2_kernel(xp, x, sep, maxsplit)
    counts = np.diff(np.asarray(splits, np.int64))
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    cols = np.concatenate([np.arange(c, dtype=np.int64) for c in counts]) if len(counts) else np.zeros(0, np.int64)
    shape = np.array([len(counts), counts.max() if len(counts) else 0], np.int64)
    return np.stack([rows, cols], axis=1).reshape(-1, 2), values, shape


def _split_shape(x, **attrs):
    return (Spec(TensorShape([None, 2]), D.int64), Spec(TensorShape([None]), D.string),
            Spec(TensorShape([2]), D.int64))


SPLIT_TF = defop("TFStringSplitV2", _split_kernel, shape=_split_shape, n_out=3, grad=NONDIFF, no_lowering=True,
                 no_lowering_reason="string op")


def _to_splits(parts, types, nvals):
    """Row partition tensors (TF's FIRST_DIM_SIZE / VALUE_ROWIDS / ROW_SPLITS) as a list of row_splits."""
    splits, nrows, i = [], None, 0
    if types and types[0] == "FIRST_DIM_SIZE":
        nrows, i = int(np.asarray(parts[0]).reshape(())), 1
    for t, p in zip(types[i:], parts[i:]):
        p = np.asarray(p, np.int64).reshape(-1)
        if t == "ROW_SPLITS":
            splits.append(p)
            nrows = len(p) - 1
        elif t == "VALUE_ROWIDS":
            if nrows is None:
                raise errors.invalid_argument("RaggedTensorToTensor", "VALUE_ROWIDS needs a FIRST_DIM_SIZE first")
            if p.size and (p.min() < 0 or p.max() >= nrows):
                raise errors.invalid_argument("RaggedTensorToTensor", "value_rowids out of range")
            counts = np.bincount(p, minlength=nrows)
            splits.append(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
            nrows = int(counts.sum())
        else:
            raise errors.invalid_argument("RaggedTensorToTensor", f"Unsupported partition type {t}")
    return splits


def _r2t_kernel(xp, values, default, *parts, out_shape=None, types=()):
    values = np.asarray(values)
    splits = _to_splits(parts, types, len(values))
    nrows = len(splits[0]) - 1 if splits else len(values)
    # ragged dims' natural sizes
    dims, width = [nrows], [np.diff(s) for s in splits]
    for w in width:
        dims.append(int(w.max()) if w.size else 0)
    dims += list(values.shape[1:])
    if out_shape is not None:
        if len(out_shape) != len(dims):
            raise errors.invalid_argument("RaggedTensorToTensor", f"shape {list(out_shape)} has rank {len(out_shape)}, "
                                                                  f"the ragged tensor rank {len(dims)}")
        dims = [d if s is None or s < 0 else int(s) for d, s in zip(dims, out_shape)]
    out = np.empty(dims, values.dtype)
    out[...] = np.asarray(default, values.dtype)
    k = len(splits)
    # index of each value along every ragged dim: walk the splits from the innermost out
    idx = np.arange(len(values), dtype=np.int64)
    pos = []
    for s in reversed(splits):
        row = np.searchsorted(s, idx, side="right") - 1
        pos.append(idx - s[row])
        idx = row
    pos.append(idx)
    pos = pos[::-1]  # [outer row, col of ragged dim 1, ..., col of ragged dim k]
    keep = np.ones(len(values), bool)
    for j in range(k + 1):
        keep &= pos[j] < dims[j]
    sel = tuple(p[keep] for p in pos)
    if values.ndim > 1:
        inner = tuple(slice(0, d) for d in dims[k + 1:])
        out[sel] = values[keep][(slice(None),) + inner]
    else:
        out[sel] = values[keep]
    return out


def _r2t_shape(values, default, *parts, out_shape=None, types=()):
    ragged = sum(t != "FIRST_DIM_SIZE" for t in types)
    rank = 1 + ragged + max(0, (values.shape.rank or 1) - 1)
    dims = [None] * rank
    if out_shape is not None and len(out_shape) == rank:
        dims = [None if s is None or s < 0 else int(s) for s in out_shape]
    return Spec(TensorShape(dims), values.dtype)


R2T = defop("TFRaggedTensorToTensor", _r2t_kernel, shape=_r2t_shape, grad=NONDIFF, no_lowering=True,
            no_lowering_reason="ragged op")

def _bucketize_kernel(xp, x, boundaries=()):
    b = xp.asarray(np.asarray(boundaries, np.float64).astype(np.dtype(x.dtype)))
    return xp.searchsorted(b, x, side="right").astype(np.int32)


BUCKETIZE = defop("TFBucketize", _bucketize_kernel, grad=NONDIFF,
                  shape=lambda x, boundaries=(): Spec(x.shape, D.int32))

_OUTPUTS = {"StringSplitV2": ("indices", "values", "shape"), "RaggedTensorToTensor": ("result",),
            "Bucketize": ("output",)}
OPS = frozenset(_OUTPUTS)


def opdef(op):
    """The output names of ``op`` (for ``node:output:index`` refs) where tf_opdefs.json does not list it."""
    return {"attrs": [], "inputs": [], "outputs": [{"name": n} for n in _OUTPUTS[op]]}


def _const(x, what, where):
    v = known_value(x)
    if v is None:
        raise CorruptSavedModel(f"{where}: {what} must be a constant")
    return v


def run(op, ins, attrs, where):
    if op == "Bucketize":  # (Keras' Discretization)
        if len(ins) != 1:
            raise CorruptSavedModel(f"{where}: needs one input")
        return [bind(BUCKETIZE, ins[0], boundaries=tuple(float(b) for b in attrs.get("boundaries") or ()))]
    if op == "StringSplitV2":
        if len(ins) != 2:
            raise CorruptSavedModel(f"{where}: needs input and sep")
        sep = _const(ins[1], "sep", where).reshape(()).item()
        sep = sep if isinstance(sep, bytes) else str(sep).encode()
        return list(bind(SPLIT_TF, ins[0], sep=sep, maxsplit=int(attrs.get("maxsplit", -1))))
    types = tuple(t.decode() if isinstance(t, bytes) else str(t) for t in attrs.get("row_partition_types") or ())
    if len(ins) < 3 + len(types) or not types:
        raise CorruptSavedModel(f"{where}: needs shape, values, default_value and {len(types)} row partitions")
    raw = _const(ins[0], "shape", where)  # a scalar (-1): the shape is unknown
    out_shape = None if raw.ndim == 0 else tuple(None if d < 0 else int(d) for d in raw.reshape(-1).tolist())
    return [bind(R2T, ins[1], ins[2], *ins[3:3 + len(types)], out_shape=out_shape, types=types)]
