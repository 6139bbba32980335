"""Rearranging and value-dependent array ops: ``space_to_depth``/``depth_to_space``, ``dynamic_partition``,
``dynamic_stitch``, ``invert_permutation``, ``histogram_fixed_width`` and ``get_static_value``."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

_FORMATS = ("NHWC", "NCHW")


def _val(x):
    """The concrete array of a tensor, or None while tracing."""
    return x._v if hasattr(x, "_v") else None


# --- space_to_depth / depth_to_space --------------------------------------------------

def _nhwc(xp, x, data_format):
    return xp.transpose(x, (0, 2, 3, 1)) if data_format == "NCHW" else x


def _from_nhwc(xp, x, data_format):
    return xp.transpose(x, (0, 3, 1, 2)) if data_format == "NCHW" else x


def _s2d_kernel(xp, x, block_size, data_format):
    b = block_size
    y = _nhwc(xp, x, data_format)
    n, h, w, c = y.shape
    y = xp.reshape(y, (n, h // b, b, w // b, b, c))
    y = xp.reshape(xp.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h // b, w // b, b * b * c))
    return _from_nhwc(xp, y, data_format)


def _d2s_kernel(xp, x, block_size, data_format):
    b = block_size
    y = _nhwc(xp, x, data_format)
    n, h, w, c = y.shape
    y = xp.reshape(y, (n, h, w, b, b, c // (b * b)))
    y = xp.reshape(xp.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h * b, w * b, c // (b * b)))
    return _from_nhwc(xp, y, data_format)


def _dims(op_name, x, data_format):
    shape = tuple(x.shape)
    if len(shape) != 4:
        raise errors.invalid_argument(op_name, f"Input rank should be 4 instead of {len(shape)}")
    if data_format == "NCHW":
        return shape[2], shape[3], shape[1]
    return shape[1], shape[2], shape[3]


def _s2d_check(x, block_size, data_format):
    h, w, _ = _dims("SpaceToDepth", x, data_format)
    if (h is not None and h % block_size) or (w is not None and w % block_size):
        raise errors.invalid_argument("SpaceToDepth", f"Image width {w} and height {h} should be divisible by "
                                                      f"block_size: {block_size}")


def _d2s_check(x, block_size, data_format):
    _, _, c = _dims("DepthToSpace", x, data_format)
    if c is not None and c % (block_size * block_size):
        raise errors.invalid_argument("DepthToSpace", f"Input depth dimension {c} should be divisible by: "
                                                      f"{block_size * block_size}")


SPACE_TO_DEPTH = defop("SpaceToDepth", _s2d_kernel, check=_s2d_check,
                       grad=lambda g, ans, x, block_size, data_format:
                       bind(DEPTH_TO_SPACE, g, block_size=block_size, data_format=data_format))
DEPTH_TO_SPACE = defop("DepthToSpace", _d2s_kernel, check=_d2s_check,
                       grad=lambda g, ans, x, block_size, data_format:
                       bind(SPACE_TO_DEPTH, g, block_size=block_size, data_format=data_format))


def _block_attrs(op_name, block_size, data_format):
    block_size = int(static(block_size))
    if block_size < 2:
        raise errors.invalid_argument(op_name, f"Value for attr 'block_size' of {block_size} must be at least "
                                               "minimum 2")
    if data_format not in _FORMATS:
        raise errors.invalid_argument(op_name, f"Unsupported data_format {data_format!r}: expected one of "
                                               f"{_FORMATS}")
    return block_size


@tf_export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002 (TF's argument name)
    """Moves ``block_size x block_size`` spatial blocks into the depth dimension.

    >>> tf.nn.space_to_depth(tf.reshape(tf.range(4), (1, 2, 2, 1)), 2).shape
    TensorShape([1, 1, 1, 4])
    """
    b = _block_attrs("SpaceToDepth", block_size, data_format)
    return bind(SPACE_TO_DEPTH, t(input), block_size=b, data_format=data_format)


@tf_export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002 (TF's argument name)
    """Moves depth into ``block_size x block_size`` spatial blocks (inverse of ``space_to_depth``).

    >>> tf.nn.depth_to_space(tf.reshape(tf.range(4), (1, 1, 1, 4)), 2).shape
    TensorShape([1, 2, 2, 1])
    """
    b = _block_attrs("DepthToSpace", block_size, data_format)
    return bind(DEPTH_TO_SPACE, t(input), block_size=b, data_format=data_format)


# --- dynamic_partition / dynamic_stitch -----------------------------------------------

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
    positions = array_ops.reshape(creation.range(array_misc.size(partitions)), array_misc.shape(partitions))
    parts = bind(DYNAMIC_PARTITION, positions, partitions, num_partitions=num_partitions)
    stitched = bind(DYNAMIC_STITCH, *parts, *g, n=num_partitions)
    return array_ops.reshape(stitched, array_misc.shape(data)), None


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


# --- invert_permutation / histogram_fixed_width / get_static_value ----------------------

def _invperm_check(x):
    if len(x.shape) != 1:
        raise errors.invalid_argument("InvertPermutation", "invert_permutation expects a 1D vector.")
    v = _val(x)
    if v is not None:
        n = v.shape[0]
        bad = v[(v < 0) | (v >= n)]
        if bad.size:
            raise errors.invalid_argument("InvertPermutation", f"{int(bad[0])} is not between 0 and {n}")
        vals, counts = np.unique(v, return_counts=True)
        if (counts > 1).any():
            raise errors.invalid_argument("InvertPermutation", f"{int(vals[counts > 1][0])} is duplicated in "
                                                               "the input.")


INVERT_PERMUTATION = defop("InvertPermutation", lambda xp, x: xp.argsort(x).astype(x.dtype),
                           dtypes=(D.int32, D.int64), check=_invperm_check, grad=NONDIFF)


@tf_export("math.invert_permutation")
def invert_permutation(x, name=None):
    """The inverse of a permutation vector: ``y[x[i]] = i``.

    >>> tf.math.invert_permutation([3, 4, 0, 2, 1]).numpy().tolist()
    [2, 4, 3, 0, 1]
    """
    return bind(INVERT_PERMUTATION, t(x))


def _bins(xp, values, value_range, nbins):
    v = values.astype(np.float64)
    lo, hi = value_range[0].astype(np.float64), value_range[1].astype(np.float64)
    idx = xp.floor((v - lo) / ((hi - lo) / nbins))
    return xp.reshape(xp.clip(idx, 0, nbins - 1).astype(np.int64), (-1,))


def _hist_kernel(xp, values, value_range, nbins, dtype):
    return np.bincount(_bins(xp, values, value_range, nbins), minlength=nbins).astype(dtype)


def _hist_jax(xp, values, value_range, nbins, dtype):
    return xp.bincount(_bins(xp, values, value_range, nbins), length=nbins).astype(dtype)


def _hist_check(values, value_range, nbins, dtype):
    if tuple(value_range.shape) != (2,):
        raise errors.invalid_argument("HistogramFixedWidth", "value_range should be a vector of 2 elements.")
    r = _val(value_range)
    if r is not None and not r[0] < r[1]:
        raise errors.invalid_argument("HistogramFixedWidth", "value_range should satisfy value_range[0] < "
                                                             f"value_range[1], but got '[{r[0]}, {r[1]}]'")


HISTOGRAM_FIXED_WIDTH = defop("HistogramFixedWidth", _hist_kernel, jax_impl=_hist_jax,
                              dtypes=(D.int32, D.int64, D.float32, D.float64, D.float16, D.bfloat16),
                              check=_hist_check, grad=NONDIFF)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """Counts ``values`` in ``nbins`` equal bins over ``value_range`` (outliers go to the end bins).

    >>> tf.histogram_fixed_width([1., 2, 3, -5, 10], [0., 5.], nbins=3).numpy().tolist()
    [2, 2, 1]
    """
    dtype = D.as_dtype(dtype)
    if dtype not in (D.int32, D.int64):
        raise TypeError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: int32, int64")
    nbins = int(static(nbins))
    if nbins <= 0:
        raise errors.invalid_argument("HistogramFixedWidth", f"nbins should be a positive number, but got '{nbins}'")
    values, value_range = same_dtype("HistogramFixedWidth", values, value_range)
    return bind(HISTOGRAM_FIXED_WIDTH, values, value_range, nbins=nbins, dtype=dtype.as_numpy_dtype)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The NumPy value of ``tensor`` if it is known now (an eager tensor), else None; non-tensors pass through.

    >>> tf.get_static_value(tf.constant([1, 2])).tolist()
    [1, 2]
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if isinstance(tensor, Tensor) or hasattr(tensor, "__tf_tensor__"):
        return None
    return tensor


# --- space_to_batch / batch_to_space --------------------------------------------------

def _s2b_kernel(xp, x, block_shape, paddings):
    m = len(block_shape)
    y = xp.pad(x, ((0, 0),) + tuple(paddings) + ((0, 0),) * (x.ndim - 1 - m))
    batch, rest = y.shape[0], y.shape[1 + m:]
    split = [batch]
    for d, b in zip(y.shape[1:1 + m], block_shape):
        split += [d // b, b]
    y = xp.reshape(y, tuple(split) + tuple(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, y.ndim))
    y = xp.transpose(y, perm)
    return xp.reshape(y, (batch * int(np.prod(block_shape)),) + tuple(split[1::2]) + tuple(rest))


def _b2s_kernel(xp, x, block_shape, crops):
    m = len(block_shape)
    batch = x.shape[0] // int(np.prod(block_shape))
    spatial, rest = x.shape[1:1 + m], x.shape[1 + m:]
    y = xp.reshape(x, tuple(block_shape) + (batch,) + tuple(spatial) + tuple(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(1 + 2 * m, y.ndim))
    y = xp.reshape(xp.transpose(y, perm), (batch,) + tuple(s * b for s, b in zip(spatial, block_shape)) + tuple(rest))
    key = (slice(None),) + tuple(slice(c0, y.shape[1 + i] - c1) for i, (c0, c1) in enumerate(crops))
    return y[key]


def _block_check(op_name, x, block_shape, pads, what):
    m = len(block_shape)
    if len(x.shape) < m + 1:
        raise errors.invalid_argument(op_name, f"input rank should be >= {m + 1} instead of {len(x.shape)}")
    if len(pads) != m or any(len(p) != 2 for p in pads):
        raise errors.invalid_argument(op_name, f"{what} should have shape [{m}, 2] instead of "
                                               f"{list(np.shape(np.array(pads, dtype=object)))}")
    for i, b in enumerate(block_shape):
        if b < 1:
            raise errors.invalid_argument(op_name, f"All values in block_shape must be positive, got value, {b} at "
                                                   f"index {i}.")
    if any(v < 0 for p in pads for v in p):
        raise errors.invalid_argument(op_name, f"{what.capitalize()} must be non-negative")


def _s2b_check(x, block_shape, paddings):
    _block_check("SpaceToBatchND", x, block_shape, paddings, "paddings")
    for i, (b, (p0, p1)) in enumerate(zip(block_shape, paddings)):
        d = x.shape[1 + i]
        if d is not None and (d + p0 + p1) % b:
            raise errors.invalid_argument("SpaceToBatchND", f"padded_shape[{i}]={d + p0 + p1} is not divisible by "
                                                            f"block_shape[{i}]={b}")


def _b2s_check(x, block_shape, crops):
    _block_check("BatchToSpaceND", x, block_shape, crops, "crops")
    prod = int(np.prod(block_shape))
    if x.shape[0] is not None and x.shape[0] % prod:
        raise errors.invalid_argument("BatchToSpaceND", f"Input batch dimension ({x.shape[0]}) is not divisible by "
                                                        f"product of block sizes ({prod})")
    for i, (b, (c0, c1)) in enumerate(zip(block_shape, crops)):
        d = x.shape[1 + i]
        if d is not None and d * b - c0 - c1 < 0:
            raise errors.invalid_argument("BatchToSpaceND", f"cropped_shape[{i}]={d * b - c0 - c1} must be "
                                                            "non-negative")


SPACE_TO_BATCH = defop("SpaceToBatchND", _s2b_kernel, check=_s2b_check,
                       grad=lambda g, ans, x, block_shape, paddings:
                       bind(BATCH_TO_SPACE, g, block_shape=block_shape, crops=paddings))
BATCH_TO_SPACE = defop("BatchToSpaceND", _b2s_kernel, check=_b2s_check,
                       grad=lambda g, ans, x, block_shape, crops:
                       bind(SPACE_TO_BATCH, g, block_shape=block_shape, paddings=crops))


def _block_args(block_shape, pads):
    block_shape = static(block_shape)
    if isinstance(block_shape, int):
        block_shape = [block_shape]
    pads = static(pads)
    return tuple(int(b) for b in block_shape), tuple(tuple(int(v) for v in p) for p in pads)


@tf_export("space_to_batch_nd")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 (TF's argument name)
    """Zero-pads the spatial dims of ``input`` and moves ``block_shape`` blocks of them into the batch dim.

    >>> tf.space_to_batch_nd(tf.zeros((1, 4, 4, 1)), [2, 2], [[0, 0], [0, 0]]).shape
    TensorShape([4, 2, 2, 1])
    """
    block_shape, paddings = _block_args(block_shape, paddings)
    return bind(SPACE_TO_BATCH, t(input), block_shape=block_shape, paddings=paddings)


@tf_export("space_to_batch", "nn.space_to_batch")
def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002 (TF's argument name)
    """``tf.space_to_batch_nd`` (TF 2's ``space_to_batch``).

    >>> tf.space_to_batch(tf.zeros((1, 4, 4, 1)), [2, 2], [[0, 0], [0, 0]]).shape
    TensorShape([4, 2, 2, 1])
    """
    return space_to_batch_nd(input, block_shape, paddings, name)


@tf_export("batch_to_space")
def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002 (TF's argument name)
    """Moves blocks of the batch dim back into the spatial dims, then crops them (inverse of ``space_to_batch``).

    >>> tf.batch_to_space(tf.zeros((4, 2, 2, 1)), [2, 2], [[0, 0], [0, 0]]).shape
    TensorShape([1, 4, 4, 1])
    """
    if isinstance(static(block_shape), int):  # as TF 2: an int means the same block along two spatial dims
        block_shape = [static(block_shape)] * 2
    block_shape, crops = _block_args(block_shape, crops)
    return bind(BATCH_TO_SPACE, t(input), block_shape=block_shape, crops=crops)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_misc, array_ops, creation, gather_scatter  # noqa: E402
