"""Ops that pick elements by position or condition, or reorder them: where / select, slice, reverse, roll,
one_hot, sequence_mask, unravel_index and invert_permutation.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.ops._helpers import mismatch, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, int_tuple

D = _dt
_sh = errors.shape_str


def _val(x):
    """The concrete array of a tensor, or None while tracing."""
    return x._v if hasattr(x, "_v") else None


# --- where ----------------------------------------------------------------------------------------


def _where_check(c):
    if np.ndim(getattr(c, "_v", 1)) == 0 and getattr(c, "_v", None) is not None:
        raise errors.invalid_argument("Where", "WhereOp : Unhandled input dimensions: 0")


# Output size depends on the data: compiled code needs a static bound (tracing supplies one or falls back).
WHERE = defop("Where", lambda xp, c: xp.argwhere(c).astype(np.int64), check=_where_check, grad=NONDIFF)


def _select_check(c, x, y):
    try:
        np.broadcast_shapes(_dims(c), _dims(x), _dims(y))
    except (ValueError, TypeError):
        raise errors.invalid_argument("SelectV2", f"condition {_sh(_dims(c))}, then {_sh(_dims(x))}, and else "
                                                  f"{_sh(_dims(y))} must be broadcastable") from None


def _select_grad(g, ans, c, x, y):
    """TF: the condition gets None; each branch gets ``g`` where it was selected and 0 elsewhere, unbroadcast."""
    g = dense(g)
    zeros = cr.zeros_like(g)
    return None, unbroadcast(bind(SELECT, c, g, zeros), x), unbroadcast(bind(SELECT, c, zeros, g), y)


SELECT = defop("SelectV2", lambda xp, c, x, y: xp.where(c, x, y), check=_select_check, grad=_select_grad)


@tf_export("where")
def where(condition, x=None, y=None, name=None):
    """With ``x`` and ``y``: elementwise ``x if condition else y`` (broadcasting).  Alone: the int64
    coordinates ``[N, rank]`` of the true (nonzero) elements of ``condition``.

    >>> where([True, False], [1, 2], [3, 4]).numpy()
    array([1, 4], dtype=int32)
    """
    if x is None and y is None:
        return bind(WHERE, t(condition))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    c = t(condition, dtype=D.bool) if not isinstance(condition, Tensor) else t(condition)
    if c.dtype is not D.bool:
        raise errors.invalid_argument("SelectV2", f"cannot compute SelectV2 as input #0(zero-based) was expected "
                                                  f"to be a bool tensor but is a {c.dtype.name} tensor")
    x_is_t = isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")
    y_is_t = isinstance(y, Tensor) or hasattr(y, "__tf_tensor__")
    if x_is_t or not y_is_t:
        x = t(x)
        y = t(y) if y_is_t else convert_to_tensor(y, dtype=x.dtype)
    else:
        y = t(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    if x.dtype is not y.dtype:
        raise mismatch("SelectV2", 2, x.dtype, y.dtype)
    return bind(SELECT, c, x, y)


# --- slice ----------------------------------------------------------------------------------------

def _slice_grad(g, ans, x, begin, size):
    return bind(PAD, dense(g), paddings=tuple((b, d - b - s) for b, s, d in zip(begin, size, _dims(x))))


SLICE = defop("Slice", lambda xp, x, begin, size: x[tuple(builtins.slice(b, b + s) for b, s in zip(begin, size))],
              grad=_slice_grad,
              tfdef=TFDef(consts=[("begin", 1, "int32"), ("size", 2, "int32")], from_tf=int_tuple("begin", "size")))


@tf_export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the end).

    >>> slice([[1, 2, 3], [4, 5, 6]], [0, 1], [2, -1]).numpy().tolist()
    [[2, 3], [5, 6]]
    """
    x = t(input_)
    dyn = _dynamic_shape(begin)
    if dyn is not None:  # traced with a start known only at run time (random crops): lax.dynamic_slice
        s = int_list(size, "Slice", "Index")
        dims = _dims(x)
        if dims is None or -1 in s:
            raise ValueError("tf.slice with a `begin` known only at run time (inside tf.function) needs an explicit "
                             f"`size` without -1 (XLA needs the result's shape), got size={s}")
        s = tuple(s)
        from tensorlet._src.ops.dynamic_shape import SLICE_DYN
        from tensorlet._src.ops.math_binary import cast

        return bind(SLICE_DYN, x, cast(dyn, _dt.int32), size=s)
    b = int_list(begin, "Slice", "Index")
    s = int_list(size, "Slice", "Index")
    dims = _dims(x)
    if len(b) != len(dims) or len(s) != len(dims):
        raise errors.invalid_argument("Slice", f"Expected begin and size arguments to be 1-D tensors of size "
                                               f"{len(dims)}, but got shapes [{len(b)}] and [{len(s)}] instead.")
    for i, d in enumerate(dims):
        if d is None:
            continue
        if not 0 <= b[i] <= d:
            raise errors.invalid_argument("Slice", f"Expected begin[{i}] in [0, {d}], but got {b[i]}")
        if s[i] == -1:
            s[i] = d - b[i]
        if not 0 <= s[i] <= d - b[i]:
            raise errors.invalid_argument("Slice", f"Expected size[{i}] in [0, {d - b[i]}], but got {s[i]}")
    return bind(SLICE, x, begin=tuple(b), size=tuple(s))


# --- reverse / roll -------------------------------------------------------------------------------

REVERSE = defop("ReverseV2", lambda xp, x, axis: xp.flip(x, axis=axis) if axis else x,
                 grad=lambda g, ans, x, axis: bind(REVERSE, dense(g), axis=axis),
                tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=int_tuple("axis")))


@tf_export("reverse")
def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along each dimension in the list ``axis``.

    >>> reverse([[1, 2]], [1]).numpy().tolist()
    [[2, 1]]
    """
    x = t(tensor)
    a = static(axis)
    if isinstance(a, (int, np.integer)):
        raise errors.invalid_argument("ReverseV2", "'dims' must be 1-dimension, not 0")
    axes = int_list(a, "ReverseV2", "idx")
    rank = x.ndim
    out = []
    for i, ax in enumerate(axes):
        if not -rank <= ax < rank:
            raise errors.invalid_argument("ReverseV2", f"'axis'[{i}] = {ax} is out of valid range [0, {rank - 1}")
        if ax % rank in out:
            raise errors.invalid_argument("ReverseV2", f"axis {ax % rank} specified more than once.")
        out.append(ax % rank)
    return bind(REVERSE, x, axis=tuple(out))


ROLL = defop("Roll", lambda xp, x, shift, axis: xp.roll(x, shift, axis) if axis else x,
              grad=lambda g, ans, x, shift, axis: bind(ROLL, dense(g), shift=tuple(-s for s in shift), axis=axis))


@tf_export("roll")
def roll(input, shift, axis, name=None):  # noqa: A002 - TF's argument name
    """Rolls elements along ``axis`` by ``shift`` (scalars or equal-length lists).

    >>> roll([0, 1, 2, 3, 4], 2, 0).numpy()
    array([3, 4, 0, 1, 2], dtype=int32)
    """
    x = t(input)
    s = int_list(shift, "Roll", "shift")
    a = int_list(axis, "Roll", "axis")
    if len(s) != len(a):
        raise errors.invalid_argument("Roll", "shift and axis must have the same size")
    rank = x.ndim
    for ax in a:
        if not -rank <= ax < rank:
            raise errors.invalid_argument("Roll", f"axis {ax} is out of range")
    return bind(ROLL, x, shift=tuple(s), axis=tuple(ax % rank for ax in a))


# --- sequence_mask / one_hot ----------------------------------------------------------------------


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (default: the largest length).

    >>> sequence_mask([1, 3], 4).numpy().tolist()
    [[True, False, False, False], [True, True, True, False]]
    """
    from tensorlet._src.ops.math_binary import cast, less

    lengths = t(lengths)
    if maxlen is None:
        v = getattr(lengths, "_v", None)
        if v is not None:
            m = np.max(v) if v.size else 0
            maxlen = t(np.asarray(m).astype(v.dtype))
        else:
            from tensorlet._src.ops.reduce import reduce_max

            maxlen = reduce_max(lengths)
        maxlen = cast(maxlen, D.int32) if lengths.dtype is D.int32 else maxlen
    maxlen = t(maxlen)
    row = cr.range(maxlen)
    lens = expand_dims(lengths, -1)
    if lens.dtype is not row.dtype:
        lens = cast(lens, row.dtype)
    mask = less(row, lens)
    dtype = _dt.as_dtype(dtype)
    return mask if dtype is D.bool else cast(mask, dtype)


def _one_hot_kernel(xp, indices, on, off, depth, axis):
    ax = indices.ndim if axis == -1 else axis
    r = xp.arange(depth).reshape((depth,) + (1,) * (indices.ndim - ax))
    hit = xp.expand_dims(indices, ax).astype(np.int64) == r
    return xp.where(hit, on, off)


ONE_HOT = defop("OneHot", _one_hot_kernel, dtypes=(D.uint8, D.int8, D.int32, D.int64), grad=NONDIFF,
                tfdef=TFDef(consts=[("depth", 1, "int32")], from_tf=lambda a: {**a, "depth": int(a["depth"])}))


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encoding: a new axis of size ``depth``; out-of-range indices give all ``off_value``.

    >>> one_hot([0, 2], 3).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    idx = t(indices)
    on = None if on_value is None else t(on_value)
    off = None if off_value is None else t(off_value)
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
        if on is not None and on.dtype is not dtype:
            raise TypeError(f"dtype {on.dtype!s} of on_value does not match dtype parameter {dtype!s}")
        if off is not None and off.dtype is not dtype:
            raise TypeError(f"dtype {off.dtype!s} of off_value does not match dtype parameter {dtype!s}")
    if on is not None and off is not None and on.dtype is not off.dtype:
        raise TypeError(f"dtype {on.dtype!s} of on_value does not match dtype {off.dtype!s} of off_value")
    dtype = dtype or (on.dtype if on is not None else off.dtype if off is not None else D.float32)
    on = on if on is not None else cr._scalar(dtype, True)
    off = off if off is not None else cr._scalar(dtype, False)
    depth = int(static(depth))
    if depth < 0:
        raise errors.invalid_argument("OneHot", f"depth must be non-negative, got: {depth}")
    axis = -1 if axis is None else int(static(axis))
    if axis != -1 and not 0 <= axis < idx.ndim + 1:
        raise errors.invalid_argument("OneHot", f"Expected axis to be -1 or between [0, {idx.ndim + 1}).  But "
                                                f"received: {axis}")
    if idx.dtype not in ONE_HOT.dtypes:
        word = {"float32": "float", "float64": "double"}.get(idx.dtype.name, idx.dtype.name)
        raise errors.invalid_argument("OneHot", f"Value for attr 'TI' of {word} is not in the list of allowed "
                                                f"values: uint8, int8, int32, int64")
    return bind(ONE_HOT, idx, on, off, depth=depth, axis=axis)


# --- unravel_index --------------------------------------------------------------------------------


def _unravel_check(idx, dims):
    v = getattr(idx, "_v", None)
    if v is not None and v.size and np.max(v) >= math.prod(dims):
        raise errors.invalid_argument("UnravelIndex", "index is out of bound as with dims")


def _unravel_kernel(xp, idx, dims):
    out = []
    for i, d in enumerate(dims):
        s = np.asarray(math.prod(dims[i + 1:]), idx.dtype)
        q = (idx - xp.fmod(idx, s)) // s  # C's truncating division, as TF
        out.append(xp.fmod(q, np.asarray(d, idx.dtype)))
    return xp.stack(out, axis=0)


UNRAVEL = defop("UnravelIndex", _unravel_kernel, dtypes=(D.int32, D.int64), check=_unravel_check, grad=NONDIFF)


@tf_export("unravel_index")
def unravel_index(indices, dims, name=None):
    """Flat indices into coordinates of an array of shape ``dims``: shape ``[len(dims)] + indices.shape``.

    >>> unravel_index([1, 5], [2, 3]).numpy().tolist()
    [[0, 1], [1, 2]]
    """
    idx = t(indices)
    return bind(UNRAVEL, idx, dims=tuple(int_list(dims, "UnravelIndex", "idx")))


# --- invert_permutation ---------------------------------------------------------------------------

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


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import creation as cr  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops.array_blocks import PAD  # noqa: E402
from tensorlet._src.ops.array_shape import _dims, _dynamic_shape, dense, expand_dims, int_list  # noqa: E402
