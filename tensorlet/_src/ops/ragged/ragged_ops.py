"""Public ops on RaggedTensors: ``tf.ragged.*`` and the dispatch handlers that let ``tf.add``, ``tf.reduce_sum``,
``tf.concat``, ``tf.gather``, ... take RaggedTensors (registered in ``ops/dispatch.py``'s table).

Everything is a composite over the components (``flat_values`` and the row splits), so gradients flow to
``flat_values`` and the code traces.  Elementwise ops apply to ``flat_values``; a dense operand is broadcast into
the ragged shape first (a scalar or a tensor over the uniform inner dimensions applies as is).
"""

from __future__ import annotations

import importlib

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import EXPORTS, tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_shape import broadcast_to, expand_dims, reshape
from tensorlet._src.ops.array_blocks import concat, stack
from tensorlet._src.ops.creation import range as _range, zeros
from tensorlet._src.ops.dispatch import dispatch_for
from tensorlet._src.ops.gather_scatter import boolean_mask, gather, gather_nd
from tensorlet._src.ops.math_binary import (add, cast, equal, floordiv, greater, less, logical_not, maximum, multiply,
                                            subtract)
from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor, _static, ragged_range, segment_ids
from tensorlet._src.ops.reduce import reduce_max
from tensorlet._src.ops.scan_sort import cumsum
from tensorlet._src.ops.segment import unsorted_segment_sum

__all__ = ["constant", "map_flat_values", "row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def _public(name):
    """The plain public function exported as ``tf.<name>`` (its dispatching twin unwrapped)."""
    mod, attr = EXPORTS[name]
    fn = getattr(importlib.import_module(mod), attr)
    return getattr(fn, "__wrapped__", fn)


# --- tf.ragged.constant ----------------------------------------------------------------------

def _depth(x):
    """Nesting depth of the scalars in ``x`` (None for empty lists, which fit any depth)."""
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0):
        depths = {_depth(v) for v in x} - {None}
        if len(depths) > 1:
            raise ValueError("all scalar values must have the same nesting depth")
        return 1 + depths.pop() if depths else None
    return 0


@tf_export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dt.int64):
    """A RaggedTensor from a nested Python list: ``tf.ragged.constant([[1, 2], [3]])``."""
    row_splits_dtype = _dt.as_dtype(row_splits_dtype)
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor")
    depth = _depth(pylist)
    if depth is None:  # only empty lists: as deep as ragged_rank and inner_shape say, else as they nest
        depth = (ragged_rank + 1 + (len(inner_shape) if inner_shape is not None else 0) if ragged_rank is not None
                 else _list_depth(pylist))
    if depth == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    inner = 0 if inner_shape is None else len(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - inner)
        if ragged_rank == 0:  # TF: a list without ragged dimensions is a plain Tensor
            if _depth(pylist) is None:
                return convert_to_tensor(np.zeros([0] + list(inner_shape or []), (_dt.as_dtype(dtype) if dtype
                                                                                   else _dt.float32)._np))
            out = convert_to_tensor(pylist, dtype=dtype)
            return out if inner_shape is None else reshape(out, [-1] + list(inner_shape))
    if inner_shape is not None and depth - 1 - ragged_rank != inner:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} and "
                         f"dim(inner_shape)={inner}")
    if ragged_rank >= depth and depth:
        raise ValueError(f"pylist has scalar values depth {depth}, but ragged_rank={ragged_rank} requires scalar "
                         f"value depth greater than ragged_rank")
    level = list(pylist)
    nested_splits = []
    for _ in range(ragged_rank):
        lengths = [len(r) for r in level]
        nested_splits.append(np.concatenate([[0], np.cumsum(lengths)]).astype(row_splits_dtype.as_numpy_dtype))
        level = [v for r in level for v in r]
    if level:
        try:
            flat = convert_to_tensor(level, dtype=dtype)
        except ValueError as e:
            raise ValueError(f"inner values must have a uniform shape: {e}") from None
    else:
        tail = tuple(inner_shape) if inner_shape is not None else (0,) * max(depth - 1 - ragged_rank, 0)
        flat = convert_to_tensor(np.zeros((0,) + tail, (_dt.as_dtype(dtype) if dtype else _dt.float32)
                                          .as_numpy_dtype))
    return RaggedTensor.from_nested_row_splits(flat, [convert_to_tensor(s) for s in nested_splits], validate=False)


def _list_depth(x):
    """How deeply lists nest in ``x`` (a list holding only empty lists): ``[]`` is 1, ``[[]]`` is 2."""
    if not isinstance(x, (list, tuple)):
        return 0
    return 1 + max((_list_depth(v) for v in x), default=0)


# --- tf.ragged functions -------------------------------------------------------------------------

@tf_export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """Apply ``op`` to the flat values of the RaggedTensor arguments (which must share row partitions)."""
    partitions = []

    def strip(v):
        if isinstance(v, RaggedTensor):
            partitions.append(v)
            return v.flat_values
        if isinstance(v, list):
            return [strip(x) for x in v]
        if isinstance(v, tuple):
            return tuple(strip(x) for x in v)
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        return v

    args2 = [strip(a) for a in args]
    kwargs2 = {k: strip(v) for k, v in kwargs.items()}
    if not partitions:
        return op(*args, **kwargs)
    first = partitions[0]
    for other in partitions[1:]:
        _check_same_splits(first, other)
    out = op(*args2, **kwargs2)
    fv = first.flat_values
    if isinstance(out, Tensor) and out.shape.rank and fv.shape[0] is not None and out.shape[0] is not None \
            and out.shape[0] != fv.shape[0]:
        raise ValueError(f"tf.ragged.map_flat_values requires that the output of `op` have the same outer-"
                         f"dimension size as flat_values of any ragged inputs. (output shape: {out.shape}; "
                         f"expected outer dimension size: {fv.shape[0]})")
    return first.with_flat_values(out)


def _check_same_splits(a, b):
    if a.ragged_rank != b.ragged_rank:
        raise ValueError("Ragged tensors have different ragged ranks")
    for x, y in zip(a.nested_row_splits, b.nested_row_splits):
        if x is y:
            continue
        xs, ys = _static(x), _static(y)
        if xs is not None and ys is not None and (xs.shape != ys.shape or np.any(xs != ys)):
            raise errors.InvalidArgumentError(None, None, "Inputs must have identical ragged splits. "
                                                          f"Condition x == y did not hold. x = {xs}, y = {ys}")


@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    splits = convert_to_tensor(splits, dtype_hint=_dt.int64)
    if splits.dtype not in (_dt.int32, _dt.int64):
        raise ValueError(f"splits must have dtype int32 or int64, got {splits.dtype.name}")
    out_type = splits.dtype if out_type is None else _dt.as_dtype(out_type)
    return segment_ids(cast(splits, out_type))


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    ids = convert_to_tensor(segment_ids, dtype_hint=_dt.int64)
    out_type = ids.dtype if out_type is None else _dt.as_dtype(out_type)
    if num_segments is None:
        s = _static(ids)
        num_segments = (int(s.max()) + 1 if s.size else 0) if s is not None else add(reduce_max(ids), 1)
    ones = cast(expand_dims(ids, 1) * 0 + 1, out_type)[:, 0]
    counts = unsorted_segment_sum(ones, ids, num_segments)
    return concat([zeros([1], out_type), cumsum(counts)], 0)


@tf_export("ragged.range")
def range_(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dt.int64):
    """``tf.ragged.range([3, 5], [5, 8])`` -> ``[[3, 4], [5, 6, 7]]``; scalars broadcast."""
    if limits is None:
        starts, limits = 0, starts
    row_splits_dtype = _dt.as_dtype(row_splits_dtype)
    vals = [convert_to_tensor(v, dtype=dtype) if dtype is not None else v for v in (starts, limits, deltas)]
    ts = [v for v in vals if isinstance(v, Tensor)]
    dt = ts[0].dtype if ts else convert_to_tensor(vals[1]).dtype
    starts, limits, deltas = [convert_to_tensor(v, dtype=dt) for v in vals]
    n = max([x.shape[0] if x.shape.rank else 1 for x in (starts, limits, deltas)])
    starts, limits, deltas = [broadcast_to(x, [n]) if not x.shape.rank else x for x in (starts, limits, deltas)]
    d = _static(deltas)
    if d is not None and np.any(d == 0):
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0 [Op:RaggedRange]")
    span = subtract(limits, starts)
    if dt.is_integer:
        s = where(less(deltas, 0), convert_to_tensor(-1, dtype=dt), convert_to_tensor(1, dtype=dt))
        size = floordiv(add(span, subtract(deltas, s)), deltas)
    else:
        from tensorlet._src.ops.math_unary import ceil

        size = ceil(span / deltas)
    size = cast(maximum(size, cast(0, size.dtype)), row_splits_dtype)
    _pos, splits = ragged_range(zeros([n], row_splits_dtype), size, row_splits_dtype)
    rowids = segment_ids(splits)
    values = add(gather(starts, rowids), multiply(cast(_pos, dt), gather(deltas, rowids)))
    return RaggedTensor.from_row_splits(values, splits, validate=False)


range_.__name__ = "range"


@tf_export("ragged.stack")
def ragged_stack(values, axis=0, name=None):
    """Stack RaggedTensors or dense tensors of different lengths: ``tf.ragged.stack([[1, 2], [3]])``."""
    values = list(values)
    if axis == 0 and not any(isinstance(v, RaggedTensor) for v in values):
        ts = [convert_to_tensor(v) for v in values]
        if len({tuple(t.shape.as_list()) for t in ts}) > 1 and all(t.shape.rank == ts[0].shape.rank for t in ts):
            rows = [RaggedTensor.from_tensor(expand_dims(t, 0), row_splits_dtype=_dt.int32) for t in ts]
            return _concat(rows, 0)
    return _stack(values, axis)


@tf_export("ragged.boolean_mask")
def ragged_boolean_mask(data, mask, name=None):
    return _boolean_mask(data, mask)


@tf_export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Rows of ``data`` grouped by ``partitions``: ``result[p]`` are the rows whose partition is ``p``."""
    from tensorlet._src.ops.scan_sort import argsort

    partitions = convert_to_tensor(partitions, dtype_hint=_dt.int32)
    order = argsort(partitions, stable=True)
    rows = gather(data, order)
    return RaggedTensor.from_value_rowids(rows, gather(partitions, order), num_partitions, validate=False)


# --- broadcasting a dense operand into a ragged shape ---------------------------------------------

def _dense_like(rt, d):
    """The flat-values form of dense ``d`` broadcast to ``rt``'s shape (``d`` must broadcast to it)."""
    fv = rt.flat_values
    inner = fv.shape.rank - 1
    if d.shape.rank is not None and d.shape.rank <= inner:
        return d  # broadcasts against the uniform inner dims of every value
    if rt.ragged_rank != 1:
        raise ValueError(f"tensorlet broadcasts a dense operand of shape {d.shape} into a RaggedTensor of ragged "
                         f"rank {rt.ragged_rank} only over its uniform inner dimensions")
    rank = rt.shape.rank
    while d.shape.rank < rank:
        d = expand_dims(d, 0)
    n = rt.nrows()
    rowids = rt.value_rowids()
    b = d.shape[1]
    if b == 1:
        full = broadcast_to(d[:, 0], concat([reshape(cast(n, _dt.int64), [1]),
                                              cast(convert_to_tensor(fv.shape.as_list()[1:], _dt.int64),
                                                   _dt.int64)], 0) if fv.shape.rank > 1 else
                            reshape(cast(n, _dt.int64), [1]))
        return gather(full, rowids)
    lengths = _static(rt.row_lengths())
    if lengths is not None and np.any(lengths != b):
        raise errors.InvalidArgumentError(None, None, f"Unable to broadcast: dimension size mismatch in dimension "
                                                      f"1. lengths={lengths.tolist()} dim_size={b}")
    col = subtract(_range(fv.shape[0] if fv.shape[0] is not None else cast(reduce_max(rt.row_splits), _dt.int64),
                          dtype=rt.row_splits_dtype), gather(rt.row_splits, rowids))
    full = broadcast_to(d, [int(_static(n)), b] + d.shape.as_list()[2:]) if _static(n) is not None else d
    return gather_nd(full, stack([rowids, col], 1))


def _as_operand(x, like_dtype):
    if isinstance(x, (RaggedTensor, Tensor)):
        return x
    try:
        return convert_to_tensor(x, dtype_hint=like_dtype)
    except (TypeError, ValueError):
        return x


def _binary_handler(fn):
    def handler(x, y, *args, **kwargs):
        rx, ry = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
        if rx and ry:
            _check_same_splits(x, y)
            return x.with_flat_values(fn(x.flat_values, y.flat_values, *args, **kwargs))
        rt = x if rx else y
        other = _as_operand(y if rx else x, rt.dtype)
        if isinstance(other, Tensor):
            other = _dense_like(rt, other)
        if rx:
            return rt.with_flat_values(fn(rt.flat_values, other, *args, **kwargs))
        return rt.with_flat_values(fn(other, rt.flat_values, *args, **kwargs))

    return handler


def _unary_handler(fn):
    def handler(x, *args, **kwargs):
        if not isinstance(x, RaggedTensor):
            return fn(x, *args, **kwargs)
        return x.with_flat_values(fn(x.flat_values, *args, **kwargs))

    return handler


UNARY = (
    "math.abs", "math.acos", "math.acosh", "math.asin", "math.asinh", "math.atan", "math.atanh", "math.ceil",
    "math.cos", "math.cosh", "math.digamma", "math.erf", "math.erfc", "math.exp", "math.expm1", "math.floor",
    "math.imag", "math.real", "math.conj", "math.is_finite", "math.is_inf", "math.is_nan", "math.lgamma",
    "math.log", "math.log1p", "math.log_sigmoid", "math.logical_not", "math.negative", "math.reciprocal",
    "math.rint", "math.round", "math.rsqrt", "math.sigmoid", "math.sign", "math.sin", "math.sinh",
    "math.softplus", "math.sqrt", "math.square", "math.tan", "math.tanh", "math.erfinv", "math.ndtri",
    "math.bessel_i0e", "math.bessel_i1e", "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.leaky_relu",
    "nn.gelu", "nn.softsign", "nn.silu", "cast", "dtypes.saturate_cast", "identity", "zeros_like", "ones_like",
    "clip_by_value", "bitwise.invert", "strings.length", "strings.lower", "strings.upper", "strings.strip",
    "strings.to_number", "strings.regex_full_match", "strings.regex_replace", "strings.substr", "strings.as_string",
    "strings.to_hash_bucket", "strings.to_hash_bucket_fast", "strings.to_hash_bucket_strong",
    "strings.unicode_script", "debugging.check_numerics", "stop_gradient",
)
BINARY = (
    "math.add", "math.subtract", "math.multiply", "math.divide", "math.truediv", "math.floordiv",
    "math.floormod", "math.pow", "math.maximum", "math.minimum", "math.equal", "math.not_equal", "math.less",
    "math.less_equal", "math.greater", "math.greater_equal", "math.logical_and", "math.logical_or",
    "math.logical_xor", "math.squared_difference", "math.atan2", "realdiv", "math.divide_no_nan",
    "math.xdivy", "math.xlogy", "math.xlog1py", "bitwise.bitwise_and", "bitwise.bitwise_or",
    "bitwise.bitwise_xor", "bitwise.left_shift", "bitwise.right_shift", "math.truncatediv", "math.truncatemod",
    "math.zeta", "math.igamma", "math.igammac", "math.polygamma", "math.nextafter",
)


def _register_elementwise():
    done = set()
    for names, make in ((UNARY, _unary_handler), (BINARY, _binary_handler)):
        for n in names:
            if n not in EXPORTS:
                continue
            fn = _public(n)
            if fn in done:
                continue
            done.add(fn)
            dispatch_for(fn, RaggedTensor)(make(fn))


# --- reductions ----------------------------------------------------------------------------------

_SEGMENT = {"reduce_sum": "math.unsorted_segment_sum", "reduce_prod": "math.unsorted_segment_prod",
            "reduce_min": "math.unsorted_segment_min", "reduce_max": "math.unsorted_segment_max",
            "reduce_mean": "math.unsorted_segment_sum", "reduce_any": "math.unsorted_segment_max",
            "reduce_all": "math.unsorted_segment_min"}


def _segment_reduce(kind, values, ids, n):
    seg = _public(_SEGMENT[kind])
    if kind == "reduce_any":
        return greater(unsorted_segment_sum(cast(values, _dt.int32), ids, n), 0)
    if kind == "reduce_all":
        return equal(unsorted_segment_sum(cast(logical_not(values), _dt.int32), ids, n), 0)
    out = seg(values, ids, n)
    if kind == "reduce_mean":
        ones = cast(expand_dims(ids, 1) * 0 + 1, values.dtype)[:, 0]
        count = unsorted_segment_sum(ones, ids, n)
        for _ in range(values.shape.rank - 1):
            count = expand_dims(count, -1)
        out = out / count
    return out


def _reduce_one(kind, rt, axis):
    dense_fn = _public(kind)
    if not isinstance(rt, RaggedTensor):
        return dense_fn(rt, axis=axis)
    rr = rt.ragged_rank
    if axis > rr:
        return rt.with_flat_values(dense_fn(rt.flat_values, axis=axis - rr))
    if axis == rr:  # the innermost ragged dimension: one segment per innermost row
        inner = rt
        outer_splits = []
        while isinstance(inner.values, RaggedTensor):
            outer_splits.append(inner.row_splits)
            inner = inner.values
        out = _segment_reduce(kind, inner.values, inner.value_rowids(), inner.nrows())
        return RaggedTensor.from_nested_row_splits(out, outer_splits, validate=False) if outer_splits else out
    if axis == 0 and rr == 1:  # column-wise over the rows that have that column
        rowids = rt.value_rowids()
        col = subtract(_range(rt.row_splits[-1], dtype=rt.row_splits_dtype), gather(rt.row_splits, rowids))
        width = reduce_max(concat([rt.row_lengths(), zeros([1], rt.row_splits_dtype)], 0))
        return _segment_reduce(kind, rt.values, col, width)
    raise ValueError(f"tensorlet reduces a RaggedTensor of ragged rank {rr} over axis {axis} only over its "
                     f"innermost ragged axis or a uniform axis")


def _reduce_handler(kind):
    def handler(input_tensor, axis=None, keepdims=False, name=None):
        rt = input_tensor
        rank = rt.shape.rank
        if axis is None:
            out = _public(kind)(rt.flat_values)
            return out
        axes = [int(a) for a in (np.atleast_1d(_static(axis)) if isinstance(axis, Tensor)
                                 else (axis if isinstance(axis, (list, tuple)) else [axis]))]
        axes = sorted({a + rank if a < 0 else a for a in axes}, reverse=True)
        if any(a < 0 or a >= rank for a in axes):
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        out = rt
        if axes == list(range(max(axes), -1, -1)) and max(axes) >= rt.ragged_rank:
            out = _public(kind)(rt.flat_values, axis=list(range(0, max(axes) - rt.ragged_rank + 1)))
        else:
            for a in axes:
                out = _reduce_one(kind, out, a)
        if keepdims:
            for a in sorted(axes):
                out = expand_dims(out, a) if isinstance(out, Tensor) else _expand_dims(out, a)
        return out

    return handler


# --- array ops ------------------------------------------------------------------------------------

def _to_ragged(x, ragged_rank=1):
    if isinstance(x, RaggedTensor):
        return x
    return RaggedTensor.from_tensor(convert_to_tensor(x), ragged_rank=ragged_rank)


def _concat(values, axis, name=None):
    values = list(values)
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_to_ragged(v, rr) if not isinstance(v, RaggedTensor) else v for v in values]
    splits_dtype = _dt.int64 if any(r.row_splits_dtype is _dt.int64 for r in rts) else _dt.int32
    rts = [r.with_row_splits_dtype(splits_dtype) for r in rts]
    rank = rts[0].shape.rank
    if axis < 0:
        axis += rank
    if len(rts) == 1:
        return rts[0]
    if axis == 0:
        offs = [r.row_splits[-1] for r in rts]
        splits = [rts[0].row_splits]
        total = offs[0]
        for r, off in zip(rts[1:], offs[1:]):
            splits.append(add(r.row_splits[1:], total))
            total = add(total, off)
        return RaggedTensor.from_row_splits(_concat_values([r.values for r in rts]), concat(splits, 0),
                                            validate=False)
    if axis == 1:
        out = rts[0]
        for r in rts[1:]:
            out = _concat_rows(out, r)
        return out
    return rts[0].with_values(_concat([r.values for r in rts], axis - 1))


def _concat_values(vs):
    if any(isinstance(v, RaggedTensor) for v in vs):
        return _concat(vs, 0)
    return concat(vs, 0)


def _concat_rows(a, b):
    """Row i of the result is a[i] followed by b[i]."""
    la = a.row_lengths()
    out_splits = add(a.row_splits, b.row_splits)
    rowids = segment_ids(out_splits)
    pos = subtract(_range(out_splits[-1], dtype=a.row_splits_dtype), gather(out_splits, rowids))
    la_r = gather(la, rowids)
    from_a = less(pos, la_r)
    idx = where(from_a, add(gather(a.row_splits, rowids), pos),
                add(add(a.row_splits[-1], gather(b.row_splits, rowids)), subtract(pos, la_r)))
    values = _concat_values([a.values, b.values])
    picked = _gather(values, idx) if isinstance(values, RaggedTensor) else gather(values, idx)
    return RaggedTensor.from_row_splits(picked, out_splits, validate=False)


def _expand_dims(rt, axis):
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(rt, len(rt), 1).with_row_splits_dtype(rt.row_splits_dtype)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(rt, 1).with_row_splits_dtype(rt.row_splits_dtype)
    return rt.with_values(_expand_dims(rt.values, axis - 1) if isinstance(rt.values, RaggedTensor)
                          else expand_dims(rt.values, axis - 1))


def _stack(values, axis=0, name=None):
    values = list(values)
    if not any(isinstance(v, RaggedTensor) for v in values):
        values = [_to_ragged(v) if convert_to_tensor(v).shape.rank >= 2 else v for v in values]
        if not any(isinstance(v, RaggedTensor) for v in values):
            return stack(values, axis)
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_to_ragged(v, rr) for v in values]
    rank = rts[0].shape.rank
    if axis < 0:
        axis += rank + 1
    return _concat([_expand_dims(r, axis) for r in rts], axis)


def _gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(_public("gather")(params, indices.flat_values, axis=axis,
                                                          batch_dims=batch_dims))
    if axis not in (None, 0) or batch_dims:
        raise ValueError("tensorlet gathers from a RaggedTensor along axis 0 only")
    indices = convert_to_tensor(indices, dtype_hint=_dt.int64)
    if indices.shape.rank == 0:
        return params[indices]
    idx = cast(indices, params.row_splits_dtype)
    flat_idx = reshape(idx, [-1])
    n = _static(params.nrows())
    fi = _static(flat_idx)
    if n is not None and fi is not None and np.any((fi < 0) | (fi >= n)):
        bad = int(fi[(fi < 0) | (fi >= n)][0])
        raise errors.InvalidArgumentError(None, None, f"indices[{int(np.argmax((fi < 0) | (fi >= n)))}] = {bad} "
                                                      f"is not in [0, {n}) [Op:GatherV2]")
    starts = gather(params.row_splits[:-1], flat_idx)
    limits = gather(params.row_splits[1:], flat_idx)
    value_idx, splits = ragged_range(starts, limits, params.row_splits_dtype)
    vals = params.values
    new_values = _gather(vals, value_idx) if isinstance(vals, RaggedTensor) else gather(vals, value_idx)
    out = RaggedTensor.from_row_splits(new_values, splits, validate=False)
    if indices.shape.rank > 1:
        for d in reversed(indices.shape.as_list()[1:]):
            n_out = int(_static(out.nrows())) // d
            out = RaggedTensor.from_row_splits(out, _range(0, n_out * d + 1, d, dtype=out.row_splits_dtype),
                                               validate=False)
    return out


def _boolean_mask(data, mask, axis=None, name=None):
    if isinstance(mask, RaggedTensor):
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_nested_row_splits(
                reshape(data, [-1] + data.shape.as_list()[mask.ragged_rank + 1:]), mask.nested_row_splits)
        _check_same_splits(data, mask)
        if mask.ragged_rank != 1:
            raise ValueError("tensorlet's ragged boolean_mask supports ragged rank 1 masks")
        keep = cast(mask.values, data.row_splits_dtype)
        lengths = unsorted_segment_sum(keep, mask.value_rowids(), mask.nrows())
        return RaggedTensor.from_row_lengths(boolean_mask(data.values, mask.values), lengths, validate=False)
    mask = convert_to_tensor(mask)
    if mask.shape.rank == 1:
        return _gather(data, reshape(where(mask), [-1]))
    raise ValueError("tensorlet's ragged boolean_mask takes a ragged mask or a 1-D mask over rows")


def _where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        if not isinstance(condition, RaggedTensor) or condition.ragged_rank != 1:
            raise ValueError("tensorlet's ragged where(condition) supports ragged rank 1")
        idx = where(condition.values)
        rows = gather(condition.value_rowids(), idx[:, 0])
        col = subtract(idx[:, 0], gather(condition.row_splits, rows))
        return concat([expand_dims(rows, 1), expand_dims(col, 1), idx[:, 1:]], 1)
    base = next(v for v in (condition, x, y) if isinstance(v, RaggedTensor))
    parts = []
    for v in (condition, x, y):
        if isinstance(v, RaggedTensor):
            _check_same_splits(base, v)
            parts.append(v.flat_values)
        else:
            parts.append(_dense_like(base, _as_operand(v, base.dtype)))
    return base.with_flat_values(where(*parts))


def _size(input, out_type=None, name=None):  # noqa: A002 - TF's argument name
    from tensorlet._src.ops.array_shape import size

    return size(input.flat_values, out_type=out_type or _dt.int32)


def _rank(input, name=None):  # noqa: A002 - TF's argument name
    return convert_to_tensor(input.shape.rank, dtype=_dt.int32)


def _expand_dims_handler(input, axis, name=None):  # noqa: A002 - TF's argument name
    rank = input.shape.rank
    return _expand_dims(input, axis + rank + 1 if axis < 0 else axis)


def _register_array():
    reg = [("concat", _concat), ("stack", _stack), ("gather", _gather), ("boolean_mask", _boolean_mask),
           ("where", _where), ("size", _size), ("rank", _rank), ("expand_dims", _expand_dims_handler)]
    for n, h in reg:
        if n in EXPORTS:
            dispatch_for(_public(n), RaggedTensor)(h)
    for kind in _SEGMENT:
        dispatch_for(_public(kind), RaggedTensor)(_reduce_handler(kind))


# --- indexing and operators ---------------------------------------------------------------------

def _getitem(rt, key):
    if not isinstance(key, tuple):
        key = (key,)
    if not key:
        return rt
    if any(k is Ellipsis or k is None for k in key):
        raise ValueError("tensorlet's RaggedTensor indexing does not take Ellipsis or tf.newaxis")
    first, rest = key[0], key[1:]
    if isinstance(first, slice):
        out = _slice_rows(rt, first)
        if not rest:
            return out
        inner = _getitem_inner(out, rest)
        return inner
    i = first
    n = len(rt) if rt.row_splits.shape[0] is not None else None
    if isinstance(i, Tensor):
        i = int(_static(i)) if _static(i) is not None else i
    if isinstance(i, (int, np.integer)):
        i = int(i)
        if n is not None and not -n <= i < n:
            raise IndexError(f"Index {i} out of range for a RaggedTensor with {n} rows")
        if i < 0:
            i += n
    start, limit = rt.row_splits[i], rt.row_splits[i + 1]
    row = rt.values[start:limit]
    return _getitem(row, rest) if rest and isinstance(row, RaggedTensor) else (row[rest] if rest else row)


def _slice_rows(rt, s):
    n = len(rt)
    start, stop, step = s.indices(n)
    if step != 1:
        return _gather(rt, list(range(start, stop, step)))
    stop = max(stop, start)
    splits = rt.row_splits[start:stop + 1]
    values = rt.values[rt.row_splits[start]:rt.row_splits[stop]] if not isinstance(rt.values, RaggedTensor) \
        else _slice_rows(rt.values, slice(int(_static(rt.row_splits)[start]), int(_static(rt.row_splits)[stop])))
    return RaggedTensor.from_row_splits(values, subtract(splits, splits[0]), validate=False)


def _getitem_inner(rt, key):
    """``rt[:, key...]``: index within each row."""
    k, rest = key[0], key[1:]
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    lengths = subtract(limits, starts)
    dt = rt.row_splits_dtype
    if isinstance(k, slice):
        if k.step not in (None, 1):
            raise ValueError("tensorlet slices ragged rows with step 1 only")
        a = 0 if k.start is None else k.start
        b = None if k.stop is None else k.stop
        lo = starts + a if a >= 0 else maximum(starts, add(limits, cast(a, dt)))
        lo = where(less(limits, lo), limits, lo)
        if b is None:
            hi = limits
        elif b >= 0:
            hi = where(less(limits, add(starts, cast(b, dt))), limits, add(starts, cast(b, dt)))
        else:
            hi = add(limits, cast(b, dt))
        hi = maximum(hi, lo)
        idx, splits = ragged_range(lo, hi, dt)
        vals = _gather(rt.values, idx) if isinstance(rt.values, RaggedTensor) else gather(rt.values, idx)
        out = RaggedTensor.from_row_splits(vals, splits, validate=False)
        if rest:
            return out.with_values(_getitem_inner(out.values, rest) if isinstance(out.values, RaggedTensor)
                                   else out.values[(slice(None),) + rest])
        return out
    j = int(k)
    ls = _static(lengths)
    if ls is not None and np.any((ls <= j) if j >= 0 else (ls < -j)):
        raise ValueError(f"slice index {j} of dimension 1 out of bounds for some rows of the RaggedTensor "
                         f"(row lengths {ls.tolist()})")
    pos = add(starts, cast(j, dt)) if j >= 0 else add(limits, cast(j, dt))
    vals = _gather(rt.values, pos) if isinstance(rt.values, RaggedTensor) else gather(rt.values, pos)
    if rest:
        return _getitem(vals, (slice(None),) + rest) if isinstance(vals, RaggedTensor) else \
            vals[(slice(None),) + rest]
    return vals


def _install_operators():
    def binop(public, swap=False):
        fn = _public(public)
        h = _binary_handler(fn)
        if swap:
            return lambda self, other: h(other, self)
        return lambda self, other: h(self, other)

    table = {"__add__": "math.add", "__sub__": "math.subtract", "__mul__": "math.multiply",
             "__truediv__": "math.truediv", "__floordiv__": "math.floordiv", "__mod__": "math.floormod",
             "__pow__": "math.pow", "__lt__": "math.less", "__le__": "math.less_equal", "__gt__": "math.greater",
             "__ge__": "math.greater_equal", "__and__": "math.logical_and", "__or__": "math.logical_or",
             "__xor__": "math.logical_xor"}
    for dunder, public in table.items():
        setattr(RaggedTensor, dunder, binop(public))
        if dunder not in ("__lt__", "__le__", "__gt__", "__ge__"):
            setattr(RaggedTensor, "__r" + dunder[2:], binop(public, swap=True))
    neg, ab, lnot = _public("math.negative"), _public("math.abs"), _public("math.logical_not")
    RaggedTensor.__neg__ = lambda self: self.with_flat_values(neg(self.flat_values))
    RaggedTensor.__abs__ = lambda self: self.with_flat_values(ab(self.flat_values))
    RaggedTensor.__invert__ = lambda self: self.with_flat_values(lnot(self.flat_values))
    RaggedTensor.__getitem__ = _getitem


_register_elementwise()
_register_array()
_install_operators()
