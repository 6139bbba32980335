"""Tensors cut into blocks and assembled from them: concat, stack/unstack, split, pad (constant and
mirror), dynamic_partition and dynamic_stitch.
"""

from __future__ import annotations

import builtins

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.ops._helpers import mismatch, same_dtype, static, t
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, int_tuple, scalar_axis

D = _dt
_sh = errors.shape_str


def _val(x):
    """The concrete array of a tensor, or None while tracing."""
    return x._v if hasattr(x, "_v") else None


# --- concat / stack / unstack / split -------------------------------------------------------------


def _concat_check(*xs, axis):
    shp = [_dims(x) for x in xs]
    if shp and axis < 0:  # a graph's ConcatV2 (Keras' Concatenate) carries axis=-1 as written
        axis += len(shp[0])
    for i, s in enumerate(shp[1:], 1):
        if len(s) != len(shp[0]):
            raise errors.invalid_argument("ConcatV2", f"ConcatOp : Ranks of all input tensors should match: "
                                                      f"shape[0] = {_sh(shp[0])} vs. shape[{i}] = {_sh(s)}")
        for d, (p, q) in enumerate(zip(shp[0], s)):
            if d != axis and p is not None and q is not None and p != q:
                raise errors.invalid_argument("ConcatV2", f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                                          f"shape[0] = {_sh(shp[0])} vs. shape[{i}] = {_sh(s)}")


def _concat_grad(g, ans, *xs, axis):
    return bind(SPLITV, dense(g), sizes=tuple(_dims(x)[axis] for x in xs), axis=axis)


CONCAT = defop("ConcatV2", lambda xp, *xs, axis: xp.concatenate(xs, axis=axis), check=_concat_check,
               grad=_concat_grad, tfdef=TFDef(consts=[("axis", -1, "int32")], from_tf=scalar_axis))


def _as_list(values):
    if isinstance(values, (Tensor, np.ndarray)) or hasattr(values, "__tf_tensor__"):
        return list(t(values))  # unpacks along the first dimension, as TF does
    return list(values)


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along an existing ``axis``.

    >>> concat([[1, 2], [3]], 0).numpy()
    array([1, 2, 3], dtype=int32)
    """
    if isinstance(values, (Tensor, np.ndarray)) or hasattr(values, "__tf_tensor__"):
        return array_identity.identity(values)  # one value, as in TF
    values = list(values)
    if len(values) == 1:
        return array_identity.identity(values[0])
    if not values:
        raise errors.invalid_argument("ConcatV2", "ConcatOp : Expected a non-empty list of tensors")
    d0 = getattr(values[0], "_v", None)
    if d0 is not None and all(v.__class__ is EagerTensor and v._v.dtype == d0.dtype for v in values):
        xs = values
    else:
        xs = same_dtype("ConcatV2", *values)
    axis = axis if axis.__class__ is int else int(static(axis))
    rank = xs[0].ndim
    if rank == 0:
        raise errors.invalid_argument("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= axis < rank:
        raise errors.invalid_argument("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                                  f"[{-rank}, {rank}), but got {axis}")
    return bind(CONCAT, *xs, axis=axis % rank)


def _pack_check(*xs, axis):
    s0 = _dims(xs[0])
    for i, x in enumerate(xs[1:], 1):
        if _dims(x) != s0:
            raise errors.invalid_argument("Pack", f"Shapes of all inputs must match: values[0].shape = {_sh(s0)} "
                                                  f"!= values[{i}].shape = {_sh(_dims(x))}")


PACK = defop("Pack", lambda xp, *xs, axis: xp.stack(xs, axis=axis), check=_pack_check,
             grad=lambda g, ans, *xs, axis: bind(UNPACK, dense(g), num=len(xs), axis=axis))


@tf_export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks same-shaped tensors along a new ``axis``.

    >>> stack([1, 2]).numpy()
    array([1, 2], dtype=int32)
    """
    values = _as_list(values)
    if not values:
        return convert_to_tensor([])
    d0 = getattr(values[0], "_v", None)
    if d0 is not None and all(v.__class__ is EagerTensor and v._v.dtype == d0.dtype for v in values):
        xs = values
    else:
        xs = same_dtype("Pack", *values)
    axis = axis if axis.__class__ is int else int(static(axis))
    rank = xs[0].ndim + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    return bind(PACK, *xs, axis=axis % rank)


_tensor.stack_hook = stack  # convert_to_tensor packs lists holding graph tensors with it


def _unpack_kernel(xp, x, num, axis):
    y = xp.moveaxis(x, axis, 0)
    return tuple(y[i, ...] for i in range(num))  # [i, ...]: 0-d arrays, never Python scalars (strings)


# missing upstream gradients arrive as zeros (the tape fills them in)
UNPACK = defop("Unpack", _unpack_kernel, n_out=None,
               grad=lambda g, ans, x, num, axis: bind(PACK, *[dense(v) for v in g], axis=axis))


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list of tensors along ``axis``, removing that dimension.

    >>> [v.numpy() for v in unstack([[1, 2], [3, 4]])]
    [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
    """
    x = t(value)
    rank = x.ndim
    axis = int(static(axis))
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    axis %= rank
    n = _dims(x)[axis]
    if num is not None and n is not None and int(num) != n:
        raise errors.invalid_argument("Unpack", f"Input shape axis {axis} must equal {int(num)}, got shape "
                                                f"{_sh(_dims(x))}")
    if n is None:
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
        n = int(num)
    return list(bind(UNPACK, x, num=n, axis=axis))


def _split_kernel(xp, x, sizes, axis):
    cuts = np.cumsum(sizes)[:-1].tolist()
    return tuple(xp.split(x, cuts, axis=axis))


def _split_grad(g, ans, x, axis, **_):
    gs = [dense(v) for v in g]
    return gs[0] if len(gs) == 1 else bind(CONCAT, *gs, axis=axis)


SPLIT = defop("Split", lambda xp, x, num_split, axis: tuple(xp.split(x, num_split, axis=axis)), n_out=None,
              grad=_split_grad, tfdef=TFDef(consts=[("axis", 0, "int32")], from_tf=scalar_axis))
SPLITV = defop("SplitV", _split_kernel, n_out=None, grad=_split_grad,
               tfdef=TFDef(consts=[("sizes", 1, "int32"), ("axis", 2, "int32")],
                           from_tf=lambda a: scalar_axis(int_tuple("sizes")(a))))


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` into ``num_or_size_splits`` equal parts, or parts of the given sizes (one may be -1).

    >>> [p.numpy().tolist() for p in split([1, 2, 3, 4, 5, 6], [1, -1, 2])]
    [[1], [2, 3, 4], [5, 6]]
    """
    x = t(value)
    rank = x.ndim
    axis = int(static(axis))
    if not -rank <= axis < rank:
        raise errors.invalid_argument("Split", f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got "
                                               f"{axis}")
    axis %= rank
    n = _dims(x)[axis]
    spec = static(num_or_size_splits)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        k = int(spec)
        if k < 1:
            raise errors.invalid_argument("Split", f"Value for attr 'num_split' of {k} must be at least minimum 1")
        if n is not None and n % k:
            raise errors.invalid_argument("Split", f"Number of ways to split should evenly divide the split "
                                                   f"dimension, but got split_dim {axis} (size = {n}) and "
                                                   f"num_split {k}")
        return list(bind(SPLIT, x, num_split=k, axis=axis))
    sizes = int_list(num_or_size_splits, "SplitV", "len")
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"Argument `num` ({num}) does not match the number of size splits ({len(sizes)})")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise errors.invalid_argument("SplitV", "There can only be one -1 in the input.")
    total = sum(s for s in sizes if s != -1)
    if n is not None:
        if (not unknown and total != n) or (unknown and total > n) or any(s < -1 for s in sizes):
            raise errors.invalid_argument(
                "SplitV", f"Determined shape must either match input shape along split_dim exactly if fully "
                          f"specified, or be less than the size of the input along split_dim if not fully "
                          f"specified.  Got: {total}")
        if unknown:
            sizes[unknown[0]] = n - total
    return list(bind(SPLITV, x, sizes=tuple(sizes), axis=axis))


# --- pad ------------------------------------------------------------------------------------------

def _pad_kernel(xp, x, paddings):
    if x.dtype == object:  # strings pad with b""
        out = np.full(tuple(d + a + b for d, (a, b) in zip(x.shape, paddings)), b"", dtype=object)
        out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, paddings))] = x
        return out
    return xp.pad(x, paddings)


def _unpad(g, x, paddings):
    return bind(SLICE, dense(g), begin=tuple(a for a, _ in paddings), size=_dims(x))


def _mirror_pad_grad_kernel(xp, g, paddings, mode):
    """Folds the reflected borders of ``g`` back onto the positions they were copied from, axis by axis."""
    off = 1 if mode == "REFLECT" else 0  # REFLECT skips the edge element, SYMMETRIC repeats it
    for ax, (a, b) in enumerate(paddings):
        if not a and not b:
            continue
        n = g.shape[ax]
        d = n - a - b
        pre = (builtins.slice(None),) * ax
        out = g[pre + (builtins.slice(a, a + d),)]
        widths = [(0, 0)] * g.ndim
        if a:
            widths[ax] = (off, d - a - off)
            out = out + xp.pad(xp.flip(g[pre + (builtins.slice(0, a),)], axis=ax), widths)
        if b:
            widths[ax] = (d - b - off, off)
            out = out + xp.pad(xp.flip(g[pre + (builtins.slice(a + d, n),)], axis=ax), widths)
        g = out
    return g


PAD = defop("Pad", _pad_kernel, grad=lambda g, ans, x, paddings: _unpad(g, x, paddings),
            tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
# TF: constant_values gets no gradient
PADV2 = defop("PadV2", lambda xp, x, c, paddings: xp.pad(x, paddings, constant_values=c),
              grad=lambda g, ans, x, c, paddings: (_unpad(g, x, paddings), None),
              tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
MIRROR_PAD = defop("MirrorPad", lambda xp, x, paddings, mode: xp.pad(x, paddings, mode=mode.lower()),
                   grad=lambda g, ans, x, paddings, mode: bind(MIRROR_PAD_GRAD, dense(g), paddings=paddings,
                                                               mode=mode),
                   tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
MIRROR_PAD_GRAD = defop("MirrorPadGrad", _mirror_pad_grad_kernel,
                        grad=lambda g, ans, x, paddings, mode: bind(MIRROR_PAD, dense(g), paddings=paddings,
                                                                    mode=mode))


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads ``tensor``: ``paddings[i] = [before, after]``; mode CONSTANT, REFLECT or SYMMETRIC.

    >>> pad([1, 2], [[1, 0]]).numpy()
    array([0, 1, 2], dtype=int32)
    """
    x = t(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    p = np.asarray(static(paddings) if not isinstance(paddings, Tensor) else t(paddings)._v)
    op_name = "Pad" if mode == "CONSTANT" else "MirrorPad"
    rank = x.ndim
    if p.dtype.kind not in "iu" and p.size:
        raise errors.invalid_argument(op_name, "Value for attr 'Tpaddings' of float is not in the list of allowed "
                                               "values: int32, int64")
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != rank:
        if not (p.size == 0 and rank == 0):
            raise errors.invalid_argument(op_name, f"The first dimension of paddings must be the rank of inputs"
                                                   f"{_sh(p.shape)} {_sh(_dims(x))}")
    pads = tuple((int(a), int(b)) for a, b in p.reshape(-1, 2))
    for a, b in pads:
        if a < 0 or b < 0:
            raise errors.invalid_argument(op_name, f"Paddings must be non-negative: {a} {b}")
    if mode != "CONSTANT":
        off = 0 if mode == "SYMMETRIC" else 1
        for (a, b), d in zip(pads, _dims(x)):
            if d is not None and (a > d - off or b > d - off):
                if off:
                    raise errors.invalid_argument("MirrorPad", f"paddings must be less than the dimension size: "
                                                               f"{a}, {b} not less than {d}")
                raise errors.invalid_argument("MirrorPad", f"paddings must be no greater than the dimension size: "
                                                           f"{a}, {b} greater than {d}")
        return bind(MIRROR_PAD, x, paddings=pads, mode=mode)
    if isinstance(constant_values, (int, float)) and not isinstance(constant_values, bool) \
            and constant_values == 0:
        return bind(PAD, x, paddings=pads)
    c = t(constant_values, dtype=x.dtype) if not isinstance(constant_values, Tensor) else t(constant_values)
    if c.dtype is not x.dtype:
        raise mismatch("PadV2", 2, x.dtype, c.dtype)
    return bind(PADV2, x, c, paddings=pads)


# --- dynamic_partition / dynamic_stitch -----------------------------------------------------------

def _partition_kernel(xp, data, partitions, num_partitions):
    return tuple(data[partitions == i] for i in range(num_partitions))


def _partition_check(data, partitions, num_partitions):
    ds, ps = tuple(data.shape), tuple(partitions.shape)
    if ds[:len(ps)] != ps:
        raise errors.invalid_argument("DynamicPartition", "data.shape must start with partitions.shape, got "
                                                          f"data.shape = {list(ds)}, partitions.shape = {list(ps)}")
    p = _val(partitions)
    if p is not None:
        bad = np.flatnonzero((np.reshape(p, -1) < 0) | (np.reshape(p, -1) >= num_partitions))
        if bad.size:
            i = int(bad[0])
            raise errors.invalid_argument("DynamicPartition", f"partitions[{i}] = {int(np.reshape(p, -1)[i])} is "
                                                              f"not in [0, {num_partitions})")


def _partition_grad(g, ans, data, partitions, num_partitions):
    # as TF: partition the positions the same way, then stitch the upstream gradients back into place
    positions = array_shape.reshape(creation.range(array_shape.size(partitions)), array_shape.shape(partitions))
    parts = bind(DYNAMIC_PARTITION, positions, partitions, num_partitions=num_partitions)
    stitched = bind(DYNAMIC_STITCH, *parts, *g, n=num_partitions)
    return array_shape.reshape(stitched, array_shape.shape(data)), None


def _stitch_rows(xp, arrays, n):
    idx, data = arrays[:n], arrays[n:]
    flat = xp.concatenate([xp.reshape(i, (-1,)) for i in idx]).astype(np.int64)
    tail = data[0].shape[idx[0].ndim:]
    rows = xp.concatenate([xp.reshape(d, (int(np.prod(i.shape)),) + tuple(tail)) for i, d in zip(idx, data)])
    size = int(flat.max()) + 1 if flat.shape[0] else 0
    return flat, rows, size, tail


def _stitch_select(xp, rows, pos, tail):
    # pos[j]: the row that last wrote output position j, or -1 where no index names j (those stay zero)
    got = rows[xp.maximum(pos, 0)] if rows.shape[0] else xp.zeros((pos.shape[0],) + tuple(tail), rows.dtype)
    mask = xp.reshape(pos >= 0, (pos.shape[0],) + (1,) * len(tail))
    return xp.where(mask, got, xp.zeros((), rows.dtype))


def _stitch_kernel(xp, *arrays, n):
    flat, rows, size, tail = _stitch_rows(xp, arrays, n)
    pos = np.full((size,), -1, np.int64)  # a fresh buffer: later indices win
    np.maximum.at(pos, flat, np.arange(flat.shape[0]))
    return _stitch_select(xp, rows, pos, tail)


def _stitch_jax(xp, *arrays, n):
    flat, rows, size, tail = _stitch_rows(xp, arrays, n)
    pos = xp.full((size,), -1, np.int64).at[flat].max(xp.arange(flat.shape[0]))
    return _stitch_select(xp, rows, pos, tail)


def _stitch_check(*inputs, n):
    idx, data = inputs[:n], inputs[n:]
    for i, (ix, d) in enumerate(zip(idx, data)):
        if tuple(d.shape)[:len(ix.shape)] != tuple(ix.shape):
            raise errors.invalid_argument("DynamicStitch", f"data[{i}].shape = {list(d.shape)} does not start with "
                                                           f"indices[{i}].shape = {list(ix.shape)}")
    tail0 = tuple(data[0].shape)[len(idx[0].shape):]
    for i, (ix, d) in enumerate(zip(idx, data)):
        if tuple(d.shape)[len(ix.shape):] != tail0:
            raise errors.invalid_argument("DynamicStitch", f"Need data[0].shape[{len(idx[0].shape)}:] = "
                                                           f"{list(tail0)} to match data[{i}].shape"
                                                           f"[{len(ix.shape)}:] = {list(d.shape)[len(ix.shape):]}")
        v = _val(ix)
        if v is not None and v.size and int(v.min()) < 0:
            raise errors.invalid_argument("DynamicStitch", f"indices[{i}] has a negative index {int(v.min())}")


DYNAMIC_PARTITION = defop("DynamicPartition", _partition_kernel, n_out=None, check=_partition_check,
                          grad=_partition_grad)
DYNAMIC_STITCH = defop("DynamicStitch", _stitch_kernel, jax_impl=_stitch_jax, check=_stitch_check,
                       grad=lambda g, ans, *inputs, n: (None,) * n + tuple(gather_scatter.gather(g, i)
                                                                           for i in inputs[:n]))


def _int32(x, what):
    if isinstance(x, Tensor):
        x = t(x)
    else:
        try:
            x = t(x, dtype=D.int32)
        except (TypeError, ValueError):
            raise TypeError(f"Cannot convert {x!r} to EagerTensor of dtype int32") from None
    if x.dtype is not D.int32:
        raise errors.invalid_argument(what, f"{what} expects int32 partitions/indices, got {x.dtype.name}")
    return x


@tf_export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors by the int32 ``partitions`` of its leading dims.

    >>> [p.numpy().tolist() for p in tf.dynamic_partition([1., 2, 3], [1, 0, 1], 2)]
    [[2.0], [1.0, 3.0]]
    """
    num_partitions = int(static(num_partitions))
    if num_partitions < 1:
        raise errors.invalid_argument("DynamicPartition", f"Value for attr 'num_partitions' of {num_partitions} "
                                                          "must be at least minimum 1")
    return list(bind(DYNAMIC_PARTITION, t(data), _int32(partitions, "DynamicPartition"),
                     num_partitions=num_partitions))


@tf_export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None):
    """Interleaves ``data`` into one tensor: ``merged[indices[m][i]] = data[m][i]``; later indices win.

    >>> tf.dynamic_stitch([[0, 2], [1]], [[1., 3.], [2.]]).numpy().tolist()
    [1.0, 2.0, 3.0]
    """
    indices, data = list(indices), list(data)
    if not indices or len(indices) != len(data):
        raise ValueError(f"dynamic_stitch needs as many data tensors as indices tensors (at least one), got "
                         f"{len(indices)} indices and {len(data)} data")
    idx = [_int32(i, "DynamicStitch") for i in indices]
    return bind(DYNAMIC_STITCH, *idx, *same_dtype("DynamicStitch", *data), n=len(idx))


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_identity, array_shape, creation, gather_scatter  # noqa: E402
from tensorlet._src.ops.array_select import SLICE  # noqa: E402
from tensorlet._src.ops.array_shape import _dims, dense, int_list  # noqa: E402
