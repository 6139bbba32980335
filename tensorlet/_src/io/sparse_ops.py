"""``tf.sparse`` functions over ``SparseTensor`` (indices, values, dense_shape).

Index bookkeeping (sorting, reshaping, slicing) is done on the eager index arrays with NumPy; values always go
through tensorlet ops (``gather``, segment sums, ...), so gradients reach the values as in TF.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.io.sparse import SparseTensor, to_dense
from tensorlet._src.ops.array_blocks import concat as _concat
from tensorlet._src.ops.gather_scatter import boolean_mask, gather
from tensorlet._src.ops.math_binary import maximum as _maximum, minimum as _minimum
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.segment import segment_mean as _segment_mean, segment_sum as _segment_sum
from tensorlet._src.ops.segment import unsorted_segment_max, unsorted_segment_sqrt_n, unsorted_segment_sum

D = _dt


def _np(t):
    return np.asarray(convert_to_tensor(t).numpy())


def _parts(sp):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp).__name__}")
    return _np(sp.indices).astype(np.int64).reshape(-1, len(_np(sp.dense_shape))), _np(sp.dense_shape).astype(
        np.int64)


def _make(indices, values, shape):
    return SparseTensor(convert_to_tensor(np.asarray(indices, np.int64).reshape(-1, len(shape))), values,
                        convert_to_tensor(np.asarray(shape, np.int64)))


def _linear(idx, shape):
    return np.ravel_multi_index(idx.T, shape) if idx.size else np.zeros(0, np.int64)


@tf_export("sparse.reorder")
def reorder(sp_input, name=None):
    """The same SparseTensor with its indices in row-major order."""
    idx, shape = _parts(sp_input)
    order = np.argsort(_linear(idx, shape), kind="stable")
    return _make(idx[order], gather(sp_input.values, order), shape)


@tf_export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    idx, old = _parts(sp_input)
    new = [int(d) for d in np.asarray(shape).reshape(-1)]
    n = int(np.prod(old))
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        new[new.index(-1)] = n // known if known else 0
    if int(np.prod(new)) != n:
        raise errors.InvalidArgumentError(None, None, f"Input to reshape is a SparseTensor with {n} dense values, "
                                                      f"but the requested shape has {int(np.prod(new))}")
    flat = _linear(idx, old)
    new_idx = np.stack(np.unravel_index(flat, new), 1) if flat.size else np.zeros((0, len(new)), np.int64)
    return _make(new_idx, sp_input.values, new)


@tf_export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    idx, shape = _parts(sp_input)
    axis = -1 if axis is None else int(axis)
    rank = len(shape)
    axis = axis + rank + 1 if axis < 0 else axis
    new_idx = np.insert(idx, axis, 0, axis=1)
    return _make(new_idx, sp_input.values, np.insert(shape, axis, 1))


@tf_export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    idx, shape = _parts(sp_input)
    perm = list(range(len(shape)))[::-1] if perm is None else [int(p) for p in np.asarray(perm).reshape(-1)]
    return reorder(_make(idx[:, perm], sp_input.values, shape[perm]))


@tf_export("sparse.reset_shape")
def reset_shape(sp_input, new_shape=None):
    idx, shape = _parts(sp_input)
    if new_shape is None:
        new = idx.max(0) + 1 if idx.size else np.zeros_like(shape)
    else:
        new = np.asarray(new_shape, np.int64).reshape(-1)
        if np.any(new < shape):
            raise ValueError(f"new_shape {new.tolist()} must be at least the current shape {shape.tolist()}")
    return _make(idx, sp_input.values, new)


@tf_export("sparse.retain")
def retain(sp_input, to_retain):
    idx, shape = _parts(sp_input)
    keep = _np(to_retain).astype(bool)
    return _make(idx[keep], boolean_mask(sp_input.values, keep), shape)


@tf_export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """``op`` on the values of the SparseTensor arguments (which must share indices)."""
    sps = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sps:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sps[0]
    for s in sps[1:]:
        if not np.array_equal(_np(s.indices), _np(first.indices)):
            raise errors.InvalidArgumentError(None, None, "Inputs must have identical indices.")
    a2 = [a.values if isinstance(a, SparseTensor) else a for a in args]
    k2 = {k: (v.values if isinstance(v, SparseTensor) else v) for k, v in kwargs.items()}
    return first.with_values(op(*a2, **k2))


@tf_export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=D.float32, name=None):
    n = int(num_rows)
    m = n if num_columns is None else int(num_columns)
    k = min(n, m)
    d = D.as_dtype(dtype)
    return _make(np.stack([np.arange(k), np.arange(k)], 1), convert_to_tensor(np.ones(k, d.as_numpy_dtype)), [n, m])


@tf_export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """Rows with no value get one at column 0 holding ``default_value``; returns (sparse, empty_row_indicator)."""
    idx, shape = _parts(sp_input)
    present = np.zeros(shape[0], bool)
    present[idx[:, 0]] = True
    empty = np.nonzero(~present)[0]
    extra = np.zeros((empty.size, len(shape)), np.int64)
    extra[:, 0] = empty
    vals = _concat([sp_input.values, convert_to_tensor(np.full(empty.size, _np(default_value),
                                                                sp_input.dtype.as_numpy_dtype))], 0)
    out = reorder(_make(np.concatenate([idx, extra]), vals, shape))
    return out, convert_to_tensor(~present)


@tf_export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    idx, shape = _parts(sp_input)
    start = np.asarray(start, np.int64).reshape(-1)
    size = np.asarray(size, np.int64).reshape(-1)
    end = np.minimum(start + size, shape)
    keep = np.all((idx >= start) & (idx < end), axis=1)
    return _make(idx[keep] - start, boolean_mask(sp_input.values, keep), np.maximum(end - start, 0))


@tf_export("sparse.concat")
def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None, expand_nonconcat_dim=False):
    parts = [_parts(s) for s in sp_inputs]
    rank = len(parts[0][1])
    axis = axis + rank if axis < 0 else axis
    shapes = np.stack([p[1] for p in parts])
    if expand_nonconcat_dims or expand_nonconcat_dim:
        out_shape = shapes.max(0)
    else:
        out_shape = shapes[0].copy()
    out_shape[axis] = shapes[:, axis].sum()
    offs = np.concatenate([[0], np.cumsum(shapes[:, axis])[:-1]])
    idx = []
    for (i, _s), off in zip(parts, offs):
        j = i.copy()
        j[:, axis] += off
        idx.append(j)
    return reorder(_make(np.concatenate(idx), _concat([s.values for s in sp_inputs], 0), out_shape))


@tf_export("sparse.split")
def split(sp_input=None, num_split=None, axis=None, name=None):
    idx, shape = _parts(sp_input)
    n, k = int(shape[axis]), int(num_split)
    sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    out, start = [], 0
    for sz in sizes:
        st = np.zeros(len(shape), np.int64)
        st[axis] = start
        sz_v = shape.copy()
        sz_v[axis] = sz
        out.append(slice(sp_input, st, sz_v))
        start += sz
    return out


@tf_export("sparse.add")
def add(a, b, threshold=0):
    """Sum of two SparseTensors (the union of their indices), or of a SparseTensor and a dense tensor (dense)."""
    if not isinstance(b, SparseTensor):
        return to_dense(a) + convert_to_tensor(b, dtype=a.dtype)
    if not isinstance(a, SparseTensor):
        return convert_to_tensor(a, dtype=b.dtype) + to_dense(b)
    ia, shape = _parts(a)
    ib, _ = _parts(b)
    lin = np.concatenate([_linear(ia, shape), _linear(ib, shape)])
    uniq, inv = np.unique(lin, return_inverse=True)
    vals = unsorted_segment_sum(_concat([a.values, b.values], 0), convert_to_tensor(inv.astype(np.int64)), uniq.size)
    idx = np.stack(np.unravel_index(uniq, shape), 1) if uniq.size else np.zeros((0, len(shape)), np.int64)
    if threshold:
        keep = np.abs(_np(vals)) >= threshold
        return _make(idx[keep], boolean_mask(vals, keep), shape)
    return _make(idx, vals, shape)


def _same_index_binary(fn):
    def op(sp_a, sp_b, name=None):
        ia, shape = _parts(sp_a)
        ib, _ = _parts(sp_b)
        lin = np.union1d(_linear(ia, shape), _linear(ib, shape))
        da, db = to_dense(sp_a), to_dense(sp_b)
        idx = np.stack(np.unravel_index(lin, shape), 1) if lin.size else np.zeros((0, len(shape)), np.int64)
        from tensorlet._src.ops.gather_scatter import gather_nd

        t = convert_to_tensor(idx)
        return _make(idx, fn(gather_nd(da, t), gather_nd(db, t)), shape)
    return op


def _named(fn, name, public):
    fn.__name__ = fn.__qualname__ = name
    return tf_export(public)(fn)


maximum = _named(_same_index_binary(_maximum), "maximum", "sparse.maximum")
minimum = _named(_same_index_binary(_minimum), "minimum", "sparse.minimum")


@tf_export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    from tensorlet._src.ops.reduce import reduce_sum as dense_sum

    out = dense_sum(to_dense(sp_input), axis=axis, keepdims=bool(keepdims))
    return _from_dense_out(out) if output_is_sparse else out


@tf_export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Max over the present values only (missing entries are not zeros here, as in TF)."""
    idx, shape = _parts(sp_input)
    rank = len(shape)
    axes = list(range(rank)) if axis is None else sorted(a % rank for a in np.atleast_1d(axis))
    keep = [d for d in range(rank) if d not in axes]
    out_shape = shape[keep]
    seg = _linear(idx[:, keep], out_shape) if keep else np.zeros(len(idx), np.int64)
    n = int(np.prod(out_shape)) if keep else 1
    from tensorlet._src.ops.array_shape import reshape as dense_reshape

    out = dense_reshape(unsorted_segment_max(sp_input.values, convert_to_tensor(seg), n), out_shape.tolist())
    if keepdims:
        full = shape.copy()
        full[axes] = 1
        out = dense_reshape(out, full.tolist())
    return _from_dense_out(out) if output_is_sparse else out


def _from_dense_out(t):
    from tensorlet._src.io.sparse import from_dense

    return from_dense(t)


@tf_export("sparse.sparse_dense_matmul", "sparse.matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a 2-D SparseTensor ``sp_a`` and a dense matrix ``b`` (differentiable in values and b)."""
    from tensorlet._src.ops.array_shape import expand_dims as dense_expand, transpose as dense_transpose

    idx, shape = _parts(sp_a)
    b = convert_to_tensor(b, dtype=sp_a.dtype)
    if adjoint_b:
        b = dense_transpose(b)
    rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
    nrows = int(shape[1] if adjoint_a else shape[0])
    contrib = dense_expand(sp_a.values, 1) * gather(b, convert_to_tensor(cols))
    return unsorted_segment_sum(contrib, convert_to_tensor(rows), nrows)


@tf_export("sparse.softmax")
def softmax(sp_input, name=None):
    """Softmax over the present values of each innermost row."""
    from tensorlet._src.ops.math_unary import exp

    idx, shape = _parts(sp_input)
    seg = _linear(idx[:, :-1], shape[:-1]) if len(shape) > 1 else np.zeros(len(idx), np.int64)
    n = int(np.prod(shape[:-1]))
    seg_t = convert_to_tensor(seg)
    m = gather(unsorted_segment_max(sp_input.values, seg_t, n), seg_t)
    e = exp(sp_input.values - m)
    return sp_input.with_values(e / gather(unsorted_segment_sum(e, seg_t, n), seg_t))


@tf_export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """Dense bool ``[..., vocab_size]``: true at the ids listed in each row of the SparseTensor."""
    idx, shape = _parts(sp_input)
    ids = _np(sp_input.values).astype(np.int64)
    out = np.zeros(tuple(shape[:-1]) + (int(vocab_size),), bool)
    if ids.size:
        out[tuple(idx[:, :-1].T) + (ids,)] = True
    return convert_to_tensor(out)


def _segment_sqrt_n(data, segment_ids):
    ids = _np(segment_ids)
    return unsorted_segment_sqrt_n(data, segment_ids, int(ids.max()) + 1 if ids.size else 0)


def _sparse_segment(fn):
    def op(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
        rows = gather(convert_to_tensor(data), convert_to_tensor(indices))
        if num_segments is not None:
            from tensorlet._src.ops.segment import unsorted_segment_mean

            uf = {_segment_sum: unsorted_segment_sum, _segment_mean: unsorted_segment_mean,
                  _segment_sqrt_n: unsorted_segment_sqrt_n}[fn]
            return uf(rows, segment_ids, num_segments)
        return fn(rows, segment_ids)
    return op


segment_sum = _named(_sparse_segment(_segment_sum), "segment_sum", "sparse.segment_sum")
segment_mean = _named(_sparse_segment(_segment_mean), "segment_mean", "sparse.segment_mean")
segment_sqrt_n = _named(_sparse_segment(_segment_sqrt_n), "segment_sqrt_n", "sparse.segment_sqrt_n")
