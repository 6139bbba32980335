"""Keras 3's loss functions (``tf.keras.losses.mse``, ``binary_crossentropy``, ...): per-sample values, TF backend
formulas, including Keras's clipping of probabilities to ``[epsilon, 1 - epsilon]``.

A probability tensor that came out of ``softmax``/``sigmoid`` (a Keras activation) remembers its logits; the
crossentropies then compute from those logits, as Keras does.

>>> tf.keras.losses.mse([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
array([0.5], dtype=float32)
"""

from __future__ import annotations

import math
import warnings

from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops import math_binary
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.array_select import one_hot, where
from tensorlet._src.ops.array_shape import shape, expand_dims, squeeze
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import equal, logical_or, maximum, minimum, not_equal
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import log, rsqrt, sigmoid, square
from tensorlet._src.ops.nn_activations import softmax, softplus
from tensorlet._src.ops.nn_losses import (
    sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits,
)
from tensorlet._src.ops.reduce import reduce_all, reduce_max, reduce_mean, reduce_sum
from tensorlet._src.keras import backend
from tensorlet._src.keras.engine.masking import set_keras_mask
from tensorlet._src.keras.losses.base import squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.registry import tf_export

_L = "keras.losses."


def _pair(y_true, y_pred, cast=False):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    return y_true, y_pred


def _eps(dtype):
    return constant(backend.epsilon(), dtype=dtype)


def _c(value, x):
    return constant(value, dtype=x.dtype)


@tf_export(_L + "mean_squared_error", _L + "mse", _L + "MSE")
def mean_squared_error(y_true, y_pred):
    """``mean((y_true - y_pred)**2, axis=-1)``."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    return reduce_mean(square(y_true - y_pred), axis=-1)


@tf_export(_L + "mean_absolute_error", _L + "mae", _L + "MAE")
def mean_absolute_error(y_true, y_pred):
    """``mean(|y_true - y_pred|, axis=-1)``."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    return reduce_mean(math_unary.abs(y_true - y_pred), axis=-1)


@tf_export(_L + "mean_absolute_percentage_error", _L + "mape", _L + "MAPE")
def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(|(y_true - y_pred) / max(|y_true|, eps)|, axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _eps(y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = math_unary.abs((y_true - y_pred) / maximum(math_unary.abs(y_true), eps))
    return 100.0 * reduce_mean(diff, axis=-1)


@tf_export(_L + "mean_squared_logarithmic_error", _L + "msle", _L + "MSLE")
def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))**2, axis=-1)``."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    eps = _eps(y_pred.dtype)
    first = log(maximum(y_pred, eps) + 1.0)
    second = log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(first - second), axis=-1)


def _l2_normalize(x, axis):
    inv = rsqrt(reduce_sum(square(x), axis=axis, keepdims=True))
    return x * minimum(inv, _c(1.0 / backend.epsilon(), x))


@tf_export(_L + "cosine_similarity")
def cosine_similarity(y_true, y_pred, axis=-1):
    """Negative cosine similarity along ``axis`` (-1 means identical directions)."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    return -reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


@tf_export(_L + "huber")
def huber(y_true, y_pred, delta=1.0):
    """Quadratic for ``|error| <= delta``, linear beyond."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    delta = math_binary.cast(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = math_unary.abs(error)
    half = _c(0.5, abs_error)
    return reduce_mean(where(abs_error <= delta, half * square(error),
                                 delta * abs_error - half * square(delta)), axis=-1)


@tf_export(_L + "log_cosh", _L + "logcosh")
def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)`` computed stably."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    log2 = _c(math.log(2.0), y_pred)
    x = y_pred - y_true
    return reduce_mean(x + softplus(x * -2.0) - log2, axis=-1)


@tf_export(_L + "kl_divergence", _L + "kld", _L + "KLD", _L + "kullback_leibler_divergence")
def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to ``[eps, 1]``."""
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _eps(y_pred.dtype)
    y_true = clip_by_value(y_true, eps, _c(1, y_true))
    y_pred = clip_by_value(y_pred, eps, _c(1, y_pred))
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


@tf_export(_L + "poisson")
def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + eps), axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + _eps(y_pred.dtype)), axis=-1)


def _hinge_labels(y_true):
    binary = reduce_all(logical_or(equal(y_true, 0), equal(y_true, 1)))
    return where(binary, 2.0 * y_true - 1.0, y_true)


@tf_export(_L + "hinge")
def hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)`` (0/1 labels become -1/1)."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return reduce_mean(maximum(1.0 - y_true * y_pred, _c(0.0, y_pred)), axis=-1)


@tf_export(_L + "squared_hinge")
def squared_hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0)**2, axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, _c(0.0, y_pred))), axis=-1)


@tf_export(_L + "categorical_hinge")
def categorical_hinge(y_true, y_pred):
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, _c(0.0, y_pred))


# --- crossentropies -------------------------------------------------------------------------------------------------

def _logits(output, from_logits, op, fn_name):
    from tensorlet._src.keras.activations import get_logits

    logits = get_logits(output)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a {op} '
                      "activation and thus does not represent logits. Was this intended?", stacklevel=3)
    return logits, True


def _check_shapes(target, output, same_shape=True):
    if len(target.shape) != len(output.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    if same_shape:
        for e1, e2 in zip(target.shape, output.shape):
            if e1 is not None and e2 is not None and e1 != e2:
                raise ValueError("Arguments `target` and `output` must have the same shape. Received: "
                                 f"target.shape={target.shape}, output.shape={output.shape}")


def backend_binary_crossentropy(target, output, from_logits=False):
    target, output = to_tensor(target), to_tensor(output)
    _check_shapes(target, output)
    output, from_logits = _logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = backend.epsilon()
    output = clip_by_value(output, _c(eps, output), _c(1.0 - eps, output))
    bce = target * log(output)
    bce = bce + (1 - target) * log(1 - output)
    return -bce


def backend_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target, output = to_tensor(target), to_tensor(output)
    if len(target.shape) < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    _check_shapes(target, output)
    output, from_logits = _logits(output, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / reduce_sum(output, axis=axis, keepdims=True)
    eps = backend.epsilon()
    output = clip_by_value(output, _c(eps, output), _c(1.0 - eps, output))
    return -reduce_sum(target * log(output), axis=axis)


def backend_sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    if axis != -1 and axis != len(output.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits(output, from_logits, "Softmax", "sparse_categorical_crossentropy")
    target = math_binary.cast(to_tensor(target), "int64")
    output = to_tensor(output)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}")
    if len(target.shape) != len(output.shape[:-1]):
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    for e1, e2 in zip(target.shape, output.shape[:-1]):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError("Arguments `target` and `output` must have the same shape up until the last dimension: "
                             f"target.shape={target.shape}, output.shape={output.shape}")
    if not from_logits:
        eps = backend.epsilon()
        output = log(clip_by_value(output, _c(eps, output), _c(1 - eps, output)))
    return sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


@tf_export(_L + "binary_crossentropy")
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Mean binary crossentropy over ``axis`` (labels smoothed toward 0.5 by ``label_smoothing``)."""
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(backend_binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


@tf_export(_L + "binary_focal_crossentropy")
def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                              label_smoothing=0.0, axis=-1):
    """Binary crossentropy scaled by ``(1 - p_t)**gamma`` (and ``alpha`` balancing when asked)."""
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = sigmoid(y_pred)
    bce = backend_binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal = math_binary.pow(1.0 - p_t, _c(gamma, p_t)) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal
    return reduce_mean(focal, axis=axis)


def _smooth(y_true, y_pred, label_smoothing):
    if label_smoothing:
        num_classes = math_binary.cast(shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return y_true


def _warn_one_class(name, y_pred):
    if y_pred.shape[-1] == 1:
        warnings.warn(f"In loss {name}, expected y_pred.shape to be (batch_size, num_classes) with num_classes > 1. "
                      f"Received: y_pred.shape={y_pred.shape}. Consider using 'binary_crossentropy' if you only have "
                      "2 classes.", SyntaxWarning, stacklevel=3)


@tf_export(_L + "categorical_crossentropy")
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Crossentropy between one-hot ``y_true`` and probabilities (or logits) ``y_pred`` along ``axis``."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    _warn_one_class("categorical_crossentropy", y_pred)
    y_true = _smooth(y_true, y_pred, label_smoothing)
    return backend_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


@tf_export(_L + "categorical_focal_crossentropy")
def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                                   axis=-1):
    """Categorical crossentropy scaled by ``alpha * (1 - p)**gamma``."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    _warn_one_class("categorical_focal_crossentropy", y_pred)
    y_true = _smooth(y_true, y_pred, label_smoothing)
    if from_logits:
        y_pred = softmax(y_pred, axis=axis)
    output = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    eps = backend.epsilon()
    output = clip_by_value(output, _c(eps, output), _c(1.0 - eps, output))
    cce = -y_true * log(output)
    factor = math_binary.pow(1.0 - output, _c(gamma, output)) * alpha
    return reduce_sum(factor * cce, axis=axis)


@tf_export(_L + "sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Crossentropy with integer labels; ``ignore_class`` entries get 0 loss and are masked out of the mean."""
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[axis] == 1:
        y_true = squeeze(y_true, axis=axis)
    valid = None
    if ignore_class is not None:
        valid = not_equal(y_true, math_binary.cast(ignore_class, y_true.dtype))
        y_true = where(valid, y_true, zeros_like(y_true))
        y_pred = where(expand_dims(valid, axis), y_pred, zeros_like(y_pred))
    res = backend_sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)
    if valid is not None:
        res = where(valid, res, zeros_like(res))
        set_keras_mask(res, valid)
    return res


@tf_export(_L + "dice")
def dice(y_true, y_pred, axis=None):
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps)``."""
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    inter = reduce_sum(y_true * y_pred, axis=axis)
    d = (2.0 * inter) / (reduce_sum(y_true, axis=axis) + reduce_sum(y_pred, axis=axis) + backend.epsilon())
    return 1 - d


@tf_export(_L + "tversky")
def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - TP / (TP + alpha * FP + beta * FN + eps)``."""
    y_pred = to_tensor(y_pred)
    y_true = math_binary.cast(to_tensor(y_true), y_pred.dtype)
    inter = reduce_sum(y_true * y_pred, axis=axis)
    fp = reduce_sum((1 - y_pred) * y_true, axis=axis)
    fn = reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - inter / (inter + fp * alpha + fn * beta + backend.epsilon())


@tf_export(_L + "categorical_generalized_cross_entropy")
def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """``(1 - p_true**q) / q`` for integer labels."""
    y_pred = to_tensor(y_pred)
    onehot = math_binary.cast(one_hot(math_binary.cast(to_tensor(y_true), "int64"), shape(y_pred)[-1]), y_pred.dtype)
    p = reduce_sum(y_pred * onehot, axis=-1)
    return (1 - math_binary.pow(p, _c(q, p))) / q
