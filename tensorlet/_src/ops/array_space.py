"""Moving blocks of elements between spatial dimensions and the batch or depth dimension:
space_to_depth / depth_to_space and space_to_batch(_nd) / batch_to_space.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, defop, tf_export

_FORMATS = ("NHWC", "NCHW")


# --- space_to_depth / depth_to_space --------------------------------------------------------------

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


# --- space_to_batch / batch_to_space --------------------------------------------------------------

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
