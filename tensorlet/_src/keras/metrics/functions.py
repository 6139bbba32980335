"""Per-sample metric functions: the accuracy family (public ``keras.metrics.*_accuracy``) and the loss-like
functions the probabilistic/regression/hinge metrics average (Keras 3's formulas, written in tensorlet ops).
"""

from __future__ import annotations

import math

from tensorlet._src.ops import array_shape
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.array_shape import shape, expand_dims, reshape
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast, equal, greater, logical_or, maximum, minimum, not_equal
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import log, rsqrt, square
from tensorlet._src.ops.nn_activations import softplus
from tensorlet._src.ops.nn_losses import (
    sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits,
)
from tensorlet._src.ops.reduce import argmax, reduce_all, reduce_any, reduce_max, reduce_mean, reduce_sum
from tensorlet._src.ops.scan_sort import in_top_k
from tensorlet._src.keras.engine.masking import set_keras_mask
from tensorlet._src.keras.metrics.base import epsilon, floatx, shape_for_reshape, \
    squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.registry import tf_export

# ----------------------------------------------------------------------------------------------------------------
# accuracy family


def accuracy(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return cast(equal(y_true, y_pred), floatx())


@tf_export("keras.metrics.binary_accuracy")
def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``(y_pred > threshold) == y_true``: ``binary_accuracy([[1], [0]], [[0.6], [0.7]])`` -> [1, 0]."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true)
    threshold = to_tensor(threshold, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = cast(greater(y_pred, threshold), y_true.dtype)
    return cast(equal(y_true, y_pred), floatx())


@tf_export("keras.metrics.categorical_accuracy")
def categorical_accuracy(y_true, y_pred):
    """1.0 where the argmax of one-hot ``y_true`` equals the argmax of ``y_pred``."""
    y_true = argmax(to_tensor(y_true), axis=-1)
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    reshape_matches = False
    org_shape = shape_for_reshape(y_true)
    if y_true.shape.rank == y_pred.shape.rank:
        y_true = array_shape.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = cast(argmax(y_pred, axis=-1), y_true.dtype)
    matches = cast(equal(y_true, y_pred), floatx())
    if reshape_matches:
        matches = reshape(matches, org_shape)
    return matches


@tf_export("keras.metrics.sparse_categorical_accuracy")
def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label ``y_true`` equals the argmax of ``y_pred``."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = array_shape.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = cast(argmax(y_pred, axis=-1), y_true.dtype)
    matches = cast(equal(y_true, y_pred), floatx())
    if reshape_matches:
        matches = reshape(matches, org_shape)
    if matches.shape.rank > 1 and matches.shape[-1] == 1:
        matches = array_shape.squeeze(matches, -1)
    return matches


def _in_top_k(targets, predictions, k):
    return in_top_k(cast(targets, "int32"), predictions, k)


@tf_export("keras.metrics.top_k_categorical_accuracy")
def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target class is among the ``k`` largest predictions."""
    y_pred = to_tensor(y_pred)
    y_true = argmax(to_tensor(y_true, y_pred.dtype), axis=-1)
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_pred.shape.rank > 2:
        y_pred = reshape(y_pred, [-1, y_pred.shape[-1]])
    if y_true.shape.rank > 1:
        reshape_matches = True
        y_true = reshape(y_true, [-1])
    matches = cast(_in_top_k(y_true, y_pred, k), floatx())
    if reshape_matches:
        matches = reshape(matches, org_shape)
    return matches


@tf_export("keras.metrics.sparse_top_k_categorical_accuracy")
def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer target is among the ``k`` largest predictions (or the first ``k`` sorted ids)."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype if from_sorted_ids else "int32")
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_pred.shape.rank > 2:
        y_pred = reshape(y_pred, [-1, y_pred.shape[-1]])
    if y_true.shape.rank > 1:
        reshape_matches = True
        y_true = reshape(y_true, [-1])
    if from_sorted_ids:
        matches = reduce_any(equal(expand_dims(y_true, 1), y_pred[:, :k]), axis=1)
    else:
        matches = _in_top_k(y_true, y_pred, k)
    matches = cast(matches, floatx())
    if reshape_matches:
        matches = reshape(matches, org_shape)
    return matches


# ----------------------------------------------------------------------------------------------------------------
# loss-like per-sample functions (the same formulas as keras.losses.*; kept here so metrics do not depend on them)


def _pair(y_true, y_pred, squeeze=True):
    y_pred = to_tensor(y_pred)
    if not y_pred.dtype.is_floating:  # Keras's ops compute integer inputs' means and logs in float32
        y_pred = cast(y_pred, floatx())
    y_true = to_tensor(y_true, y_pred.dtype)
    if squeeze:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def _eps(dtype):
    return cast(epsilon(), dtype)


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(math_unary.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_unary.abs((y_true - y_pred) / maximum(math_unary.abs(y_true), _eps(y_pred.dtype)))
    return 100.0 * reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _eps(y_pred.dtype)
    first = log(maximum(y_pred, eps) + 1.0)
    second = log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(first - second), axis=-1)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + softplus(x * -2.0) - cast(math.log(2.0), y_pred.dtype), axis=-1)


def l2_normalize(x, axis=-1):
    """Keras's ``ops.normalize(x, order=2)``: ``x * min(rsqrt(sum(x^2)), 1 / epsilon)``."""
    if x.shape.rank == 0:
        x = expand_dims(x, 0)
    inv_norm = rsqrt(reduce_sum(square(x), axis=axis, keepdims=True))
    return x * minimum(inv_norm, cast(1.0 / epsilon(), x.dtype))


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


def kl_divergence(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true = clip_by_value(y_true, _eps(y_pred.dtype), cast(1, y_pred.dtype))
    y_pred = clip_by_value(y_pred, _eps(y_pred.dtype), cast(1, y_pred.dtype))
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    return reduce_mean(y_pred - y_true * log(y_pred + _eps(y_pred.dtype)), axis=-1)


def _hinge_labels(y_true):
    """{0, 1} labels become {-1, 1} (only when every label is 0 or 1, as Keras decides at run time)."""
    is_binary = reduce_all(logical_or(equal(y_true, 0), equal(y_true, 1)))
    return where(is_binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = _hinge_labels(to_tensor(y_true, y_pred.dtype))
    return reduce_mean(maximum(1.0 - y_true * y_pred, zeros_like(y_pred)), axis=-1)


def squared_hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = _hinge_labels(to_tensor(y_true, y_pred.dtype))
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, zeros_like(y_pred))), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, zeros_like(pos))


def _logits_of(output, from_logits):
    """Keras's TF backend uses the pre-activation logits a sigmoid/softmax layer attached to its output."""
    logits = getattr(output, "_keras_logits", None)
    if logits is not None:
        return logits, True
    return output, from_logits


def _check_same_rank(target, output):
    if target.shape.rank != output.shape.rank:
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_pred = to_tensor(y_pred)
    y_true = cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    _check_same_rank(y_true, y_pred)
    output, from_logits = _logits_of(y_pred, from_logits)
    if from_logits:
        bce = sigmoid_cross_entropy_with_logits(labels=y_true, logits=output)
    else:
        eps = epsilon()
        output = clip_by_value(output, cast(eps, output.dtype), cast(1.0 - eps, output.dtype))
        bce = -(y_true * log(output) + (1 - y_true) * log(1 - output))
    return reduce_mean(bce, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = to_tensor(y_pred)
    y_true = cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        num_classes = cast(shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    _check_same_rank(y_true, y_pred)
    output, from_logits = _logits_of(y_pred, from_logits)
    if from_logits:
        return softmax_cross_entropy_with_logits(labels=y_true, logits=output, axis=axis)
    output = output / reduce_sum(output, axis=axis, keepdims=True)
    eps = epsilon()
    output = clip_by_value(output, cast(eps, output.dtype), cast(1.0 - eps, output.dtype))
    return -reduce_sum(y_true * log(output), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true)
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[axis] == 1:
        y_true = array_shape.squeeze(y_true, axis=axis)
    valid = None
    if ignore_class is not None:
        valid = not_equal(cast(y_true, y_pred.dtype), cast(ignore_class, y_pred.dtype))
        y_true = where(valid, y_true, zeros_like(y_true))
        y_pred = where(expand_dims(valid, axis), y_pred, zeros_like(y_pred))
    output, from_logits = _logits_of(y_pred, from_logits)
    target = cast(y_true, "int64")
    if not from_logits:
        eps = epsilon()
        output = log(clip_by_value(output, cast(eps, output.dtype), cast(1.0 - eps, output.dtype)))
    res = sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if valid is not None:
        res = where(valid, res, zeros_like(res))
        set_keras_mask(res, valid)
    return res
