"""Per-sample metric functions: the accuracy family (public ``keras.metrics.*_accuracy``) and the loss-like
functions the probabilistic/regression/hinge metrics average (Keras 3's formulas, written in tensorlet ops).
"""

from __future__ import annotations

import math

from tensorlet._src.autodiff import lazy as T
from tensorlet._src.keras.metrics.base import epsilon, floatx, set_mask, shape_for_reshape, \
    squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.registry import tf_export

# ----------------------------------------------------------------------------------------------------------------
# accuracy family


def accuracy(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return T.cast(T.equal(y_true, y_pred), floatx())


@tf_export("keras.metrics.binary_accuracy")
def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``(y_pred > threshold) == y_true``: ``binary_accuracy([[1], [0]], [[0.6], [0.7]])`` -> [1, 0]."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true)
    threshold = to_tensor(threshold, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = T.cast(T.greater(y_pred, threshold), y_true.dtype)
    return T.cast(T.equal(y_true, y_pred), floatx())


@tf_export("keras.metrics.categorical_accuracy")
def categorical_accuracy(y_true, y_pred):
    """1.0 where the argmax of one-hot ``y_true`` equals the argmax of ``y_pred``."""
    y_true = T.argmax(to_tensor(y_true), axis=-1)
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    reshape_matches = False
    org_shape = shape_for_reshape(y_true)
    if y_true.shape.rank == y_pred.shape.rank:
        y_true = T.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = T.cast(T.argmax(y_pred, axis=-1), y_true.dtype)
    matches = T.cast(T.equal(y_true, y_pred), floatx())
    if reshape_matches:
        matches = T.reshape(matches, org_shape)
    return matches


@tf_export("keras.metrics.sparse_categorical_accuracy")
def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label ``y_true`` equals the argmax of ``y_pred``."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = T.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = T.cast(T.argmax(y_pred, axis=-1), y_true.dtype)
    matches = T.cast(T.equal(y_true, y_pred), floatx())
    if reshape_matches:
        matches = T.reshape(matches, org_shape)
    if matches.shape.rank > 1 and matches.shape[-1] == 1:
        matches = T.squeeze(matches, -1)
    return matches


def _in_top_k(targets, predictions, k):
    return T.math.in_top_k(T.cast(targets, "int32"), predictions, k)


@tf_export("keras.metrics.top_k_categorical_accuracy")
def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target class is among the ``k`` largest predictions."""
    y_pred = to_tensor(y_pred)
    y_true = T.argmax(to_tensor(y_true, y_pred.dtype), axis=-1)
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_pred.shape.rank > 2:
        y_pred = T.reshape(y_pred, [-1, y_pred.shape[-1]])
    if y_true.shape.rank > 1:
        reshape_matches = True
        y_true = T.reshape(y_true, [-1])
    matches = T.cast(_in_top_k(y_true, y_pred, k), floatx())
    if reshape_matches:
        matches = T.reshape(matches, org_shape)
    return matches


@tf_export("keras.metrics.sparse_top_k_categorical_accuracy")
def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer target is among the ``k`` largest predictions (or the first ``k`` sorted ids)."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype if from_sorted_ids else "int32")
    org_shape = shape_for_reshape(y_true)
    reshape_matches = False
    if y_pred.shape.rank > 2:
        y_pred = T.reshape(y_pred, [-1, y_pred.shape[-1]])
    if y_true.shape.rank > 1:
        reshape_matches = True
        y_true = T.reshape(y_true, [-1])
    if from_sorted_ids:
        matches = T.reduce_any(T.equal(T.expand_dims(y_true, 1), y_pred[:, :k]), axis=1)
    else:
        matches = _in_top_k(y_true, y_pred, k)
    matches = T.cast(matches, floatx())
    if reshape_matches:
        matches = T.reshape(matches, org_shape)
    return matches


# ----------------------------------------------------------------------------------------------------------------
# loss-like per-sample functions (the same formulas as keras.losses.*; kept here so metrics do not depend on them)


def _pair(y_true, y_pred, squeeze=True):
    y_pred = to_tensor(y_pred)
    if not y_pred.dtype.is_floating:  # Keras's ops compute integer inputs' means and logs in float32
        y_pred = T.cast(y_pred, floatx())
    y_true = to_tensor(y_true, y_pred.dtype)
    if squeeze:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def _eps(dtype):
    return T.cast(epsilon(), dtype)


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return T.reduce_mean(T.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return T.reduce_mean(T.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = T.abs((y_true - y_pred) / T.maximum(T.abs(y_true), _eps(y_pred.dtype)))
    return 100.0 * T.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _eps(y_pred.dtype)
    first = T.math.log(T.maximum(y_pred, eps) + 1.0)
    second = T.math.log(T.maximum(y_true, eps) + 1.0)
    return T.reduce_mean(T.square(first - second), axis=-1)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return T.reduce_mean(x + T.nn.softplus(x * -2.0) - T.cast(math.log(2.0), y_pred.dtype), axis=-1)


def l2_normalize(x, axis=-1):
    """Keras's ``ops.normalize(x, order=2)``: ``x * min(rsqrt(sum(x^2)), 1 / epsilon)``."""
    if x.shape.rank == 0:
        x = T.expand_dims(x, 0)
    inv_norm = T.math.rsqrt(T.reduce_sum(T.square(x), axis=axis, keepdims=True))
    return x * T.minimum(inv_norm, T.cast(1.0 / epsilon(), x.dtype))


def cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    return T.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


def kl_divergence(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true = T.clip_by_value(y_true, _eps(y_pred.dtype), T.cast(1, y_pred.dtype))
    y_pred = T.clip_by_value(y_pred, _eps(y_pred.dtype), T.cast(1, y_pred.dtype))
    return T.reduce_sum(y_true * T.math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    return T.reduce_mean(y_pred - y_true * T.math.log(y_pred + _eps(y_pred.dtype)), axis=-1)


def _hinge_labels(y_true):
    """{0, 1} labels become {-1, 1} (only when every label is 0 or 1, as Keras decides at run time)."""
    is_binary = T.reduce_all(T.logical_or(T.equal(y_true, 0), T.equal(y_true, 1)))
    return T.where(is_binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = _hinge_labels(to_tensor(y_true, y_pred.dtype))
    return T.reduce_mean(T.maximum(1.0 - y_true * y_pred, T.zeros_like(y_pred)), axis=-1)


def squared_hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = _hinge_labels(to_tensor(y_true, y_pred.dtype))
    return T.reduce_mean(T.square(T.maximum(1.0 - y_true * y_pred, T.zeros_like(y_pred))), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    pos = T.reduce_sum(y_true * y_pred, axis=-1)
    neg = T.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return T.maximum(neg - pos + 1.0, T.zeros_like(pos))


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
    y_true = T.cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    _check_same_rank(y_true, y_pred)
    output, from_logits = _logits_of(y_pred, from_logits)
    if from_logits:
        bce = T.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=output)
    else:
        eps = epsilon()
        output = T.clip_by_value(output, T.cast(eps, output.dtype), T.cast(1.0 - eps, output.dtype))
        bce = -(y_true * T.math.log(output) + (1 - y_true) * T.math.log(1 - output))
    return T.reduce_mean(bce, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = to_tensor(y_pred)
    y_true = T.cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        num_classes = T.cast(T.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    _check_same_rank(y_true, y_pred)
    output, from_logits = _logits_of(y_pred, from_logits)
    if from_logits:
        return T.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=output, axis=axis)
    output = output / T.reduce_sum(output, axis=axis, keepdims=True)
    eps = epsilon()
    output = T.clip_by_value(output, T.cast(eps, output.dtype), T.cast(1.0 - eps, output.dtype))
    return -T.reduce_sum(y_true * T.math.log(output), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true)
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[axis] == 1:
        y_true = T.squeeze(y_true, axis=axis)
    valid = None
    if ignore_class is not None:
        valid = T.not_equal(T.cast(y_true, y_pred.dtype), T.cast(ignore_class, y_pred.dtype))
        y_true = T.where(valid, y_true, T.zeros_like(y_true))
        y_pred = T.where(T.expand_dims(valid, axis), y_pred, T.zeros_like(y_pred))
    output, from_logits = _logits_of(y_pred, from_logits)
    target = T.cast(y_true, "int64")
    if not from_logits:
        eps = epsilon()
        output = T.math.log(T.clip_by_value(output, T.cast(eps, output.dtype), T.cast(1.0 - eps, output.dtype)))
    res = T.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if valid is not None:
        res = T.where(valid, res, T.zeros_like(res))
        set_mask(res, valid)
    return res
