"""Clipping and normalization: clip_by_value, clip_by_norm, global_norm, clip_by_global_norm, l2_normalize."""

from __future__ import annotations

import collections.abc

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import broadcast_static, is_tensor_like, mismatch, of_dtype, t as _t
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
FLT = mu.FLT
# Minimum/Maximum's types (tf.clip_by_value is minimum then maximum in TF)
CLIP_TYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.uint16, D.int32, D.uint32,
              D.int64, D.uint64)


# --- clipping and norms ---------------------------------------------------------------------------

def _clip_by_value_grad(g, ans, x, lo, hi):
    # tf.clip_by_value is maximum(minimum(t, max), min) in TF, so its gradient is theirs chained: minimum passes g
    # to t where t <= max (else to max), then maximum passes it on where minimum(t, max) >= min (else to min).
    zeros = creation.zeros_like(g)
    to_min = mb.greater_equal(mb.minimum(x, hi), lo)
    g_inner = array_select.where(to_min, g, zeros)
    to_x = mb.less_equal(x, hi)
    return (unbroadcast(array_select.where(to_x, g_inner, zeros), x),
            unbroadcast(array_select.where(to_min, zeros, g), lo),
            unbroadcast(array_select.where(to_x, zeros, g_inner), hi))


CLIP_BY_VALUE = defop("ClipByValue", lambda xp, x, lo, hi: xp.maximum(xp.minimum(x, hi), lo), dtypes=CLIP_TYPES,
                      shape=lambda x, lo, hi, **attrs: shapes.Spec(x.shape, x.dtype), grad=_clip_by_value_grad)


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max) elementwise, with bounds broadcast to ``t`` (TF computes
    ``maximum(minimum(t, max), min)``, so a min above the max wins).

    ``tf.clip_by_value([-2., 0.5, 3.], -1., 1.)`` -> ``[-1., 0.5, 1.]``.
    """
    values = _t(t)
    d = values.dtype
    lo = of_dtype(clip_value_min, d, "ClipByValue", 1)
    hi = of_dtype(clip_value_max, d, "ClipByValue", 2)
    if lo.shape.rank != 0 or hi.shape.rank != 0:
        out = broadcast_static("ClipByValue", values, lo, hi)
        if not values.shape.is_compatible_with(out):
            raise ValueError(f"Shapes {values.shape} and {out} are incompatible")
    return bind(CLIP_BY_VALUE, values, lo, hi)


def _reduce_sum(x, axis, keepdims=False):
    from tensorlet._src.ops.reduce import reduce_sum

    return reduce_sum(x, axis, keepdims=keepdims)


def _where(cond, a, b):
    from tensorlet._src.ops.array_select import where

    return where(cond, a, b)


@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales ``t`` so that its L2 norm over ``axes`` (all by default) is at most ``clip_norm``.

    ``tf.clip_by_norm([3., 4.], 1.)`` -> ``[0.6, 0.8]``.
    """
    values = _t(t)
    if np.isscalar(clip_norm):
        if clip_norm < 0:
            clip_norm = 0
    else:
        clip_norm = mb.cast(mb.maximum(clip_norm, 0), values.dtype)
    l2sum = _reduce_sum(mb.multiply(values, values), axes, keepdims=True)
    pred = mb.greater(l2sum, 0)
    # sqrt only of positive sums, so that gradients stay finite at zero
    from tensorlet._src.ops.creation import ones_like

    l2norm = _where(pred, mu.sqrt(_where(pred, l2sum, ones_like(l2sum))), l2sum)
    intermediate = mb.multiply(values, clip_norm)
    if not values.shape.is_compatible_with(intermediate.shape):
        raise ValueError(f"Shapes {values.shape} and {intermediate.shape} are incompatible")
    return mb.truediv(intermediate, mb.maximum(l2norm, clip_norm))


def _tensor_list(t_list):
    if is_tensor_like(t_list) or not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return [_t(v) if v is not None else None for v in t_list]


@tf_export("linalg.global_norm")
def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in ``t_list``); None entries are skipped.

    ``tf.linalg.global_norm([[3.], [4.]])`` -> ``5.``.
    """
    values = [v for v in _tensor_list(t_list) if v is not None]
    if not values:
        return _t(np.float32(0.0))
    for v in values:
        if v.dtype not in FLT:  # TF stacks L2Loss(v) of each tensor, then sums
            raise errors.invalid_argument(
                "L2Loss", f"Value for attr 'T' of {v.dtype.name} is not in the list of allowed values: "
                          "half, bfloat16, float, double")
    d = values[0].dtype
    for i, v in enumerate(values):
        if v.dtype is not d:
            raise mismatch("Pack", i, d, v.dtype)
    sums = [_reduce_sum(mu.square(v), None) for v in values]
    return mu.sqrt(add_n(sums))


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(list_clipped, global_norm)``; None entries pass through, and an inf/nan norm gives nan values.
    ``tf.clip_by_global_norm([[3.], [4.]], 1.)[0]`` -> ``[[0.6], [0.8]]``.
    """
    values = _tensor_list(t_list)
    use_norm = global_norm(values) if use_norm is None else _t(use_norm)
    one = _t(np.asarray(1.0, use_norm.dtype._np))
    scale = mb.multiply(clip_norm, mb.minimum(mb.truediv(one, use_norm), mb.truediv(one, clip_norm)))
    scale = mb.add(scale, mb.subtract(use_norm, use_norm))  # nan when the norm is inf or nan
    clipped = [None if v is None else mb.multiply(v, mb.cast(scale, v.dtype)) for v in values]
    return clipped, use_norm


@tf_export("math.l2_normalize", "nn.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)); ``axis`` None normalizes over all elements.

    ``tf.math.l2_normalize([3., 4.])`` -> ``[0.6, 0.8]``.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    x = _t(x)
    if x.dtype.is_complex:
        re, im = mu.real(x), mu.imag(x)
        square_sum = _reduce_sum(mb.add(mu.square(re), mu.square(im)), axis, keepdims=True)
        inv = mu.rsqrt(mb.maximum(square_sum, of_dtype(epsilon, square_sum.dtype, "Maximum", 1)))
        return math_binary_fn.complex(mb.multiply(re, inv), mb.multiply(im, inv))
    square_sum = _reduce_sum(mu.square(x), axis, keepdims=True)
    inv = mu.rsqrt(mb.maximum(square_sum, of_dtype(epsilon, square_sum.dtype, "Maximum", 1)))
    return mb.multiply(x, inv)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_select, creation  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops import math_binary as mb  # noqa: E402
from tensorlet._src.ops import math_binary_fn  # noqa: E402
from tensorlet._src.ops.math_nary import add_n  # noqa: E402
