"""``tf.compat.v1.losses``: TF1's weighted losses (default reduction ``SUM_BY_NONZERO_WEIGHTS``).

>>> float(tf.compat.v1.losses.sparse_softmax_cross_entropy([1, 0], [[1., 2.], [3., 1.]]))  # doctest: +ELLIPSIS
0.2200...
"""

from __future__ import annotations

from tensorlet._src.framework.context import executing_eagerly
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops import math_unary
from tensorlet._src.framework.dtypes import float32
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.array_shape import shape, size, broadcast_to, squeeze
from tensorlet._src.ops.array_identity import stop_gradient
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.math_binary import cast, divide_no_nan, equal, minimum, multiply, squared_difference
from tensorlet._src.ops.math_unary import log
from tensorlet._src.ops.nn_activations import relu
from tensorlet._src.ops.nn_losses import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from tensorlet._src.ops.reduce import reduce_sum


@tf_export("compat.v1.losses.Reduction")
class Reduction:
    """How a weighted loss is reduced."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


LOSSES = "losses"


def _num_present(losses, weights):
    present = where(equal(weights, 0.0), zeros_like(weights), ones_like(weights))
    present = broadcast_to(present, shape(losses))
    return reduce_sum(present)


@tf_export("compat.v1.losses.compute_weighted_loss")
def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights`` reduced by ``reduction`` (computed in float32, returned in the losses' dtype)."""
    Reduction.validate(reduction)
    losses = convert_to_tensor(losses)
    input_dtype = losses.dtype
    losses = cast(losses, float32)
    weights = cast(convert_to_tensor(weights), float32)
    weighted = multiply(losses, weights)
    if reduction == Reduction.NONE:
        loss = weighted
    else:
        loss = reduce_sum(weighted)
        if reduction == Reduction.MEAN:
            loss = divide_no_nan(loss, reduce_sum(ones_like(losses) * weights))
        elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
            loss = divide_no_nan(loss, _num_present(losses, weights))
        elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
            loss = divide_no_nan(loss, cast(size(losses), float32))
    loss = cast(loss, input_dtype)
    add_loss(loss, loss_collection)
    return loss


@tf_export("compat.v1.losses.add_loss")
def add_loss(loss, loss_collection=LOSSES):
    """Adds ``loss`` to a TF1 graph's loss collection (eagerly there is no collection: nothing happens)."""
    if loss_collection and not executing_eagerly():
        from tensorlet import compat

        adder = getattr(compat.v1, "add_to_collection", None)
        if adder is not None:
            adder(loss_collection, loss)


@tf_export("compat.v1.losses.get_losses")
def get_losses(scope=None, loss_collection=LOSSES):
    """The losses of a TF1 graph's collection (eagerly: ``[]``)."""
    if executing_eagerly():
        return []
    from tensorlet import compat

    getter = getattr(compat.v1, "get_collection", None)
    return list(getter(loss_collection, scope)) if getter is not None else []


def _prep(labels, predictions, weights):
    predictions = convert_to_tensor(predictions)
    labels = cast(convert_to_tensor(labels), predictions.dtype)
    return labels, predictions, weights


@tf_export("compat.v1.losses.absolute_difference")
def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``|predictions - labels|``."""
    labels, predictions, weights = _prep(labels, predictions, weights)
    return compute_weighted_loss(math_unary.abs(predictions - labels), weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.mean_squared_error")
def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``(predictions - labels)^2``."""
    labels, predictions, weights = _prep(labels, predictions, weights)
    return compute_weighted_loss(squared_difference(predictions, labels), weights, scope, loss_collection,
                                 reduction)


@tf_export("compat.v1.losses.huber_loss")
def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Quadratic below ``delta``, linear above."""
    labels, predictions, weights = _prep(labels, predictions, weights)
    abs_error = math_unary.abs(predictions - labels)
    delta = cast(delta, abs_error.dtype)
    quadratic = minimum(abs_error, delta)
    losses = 0.5 * quadratic * quadratic + delta * (abs_error - quadratic)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.log_loss")
def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Binary log loss of probabilities ``predictions``."""
    labels, predictions, weights = _prep(labels, predictions, weights)
    losses = (-labels * log(predictions + epsilon)
              - (1 - labels) * log(1 - predictions + epsilon))
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.hinge_loss")
def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``relu(1 - (2 * labels - 1) * logits)`` for 0/1 labels."""
    labels, logits, weights = _prep(labels, logits, weights)
    signed = 2 * labels - 1
    return compute_weighted_loss(relu(1 - signed * logits), weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.cosine_distance")
def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """``1 - sum(labels * predictions, axis)`` for unit-normalised inputs."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    labels, predictions, weights = _prep(labels, predictions, weights)
    losses = 1 - reduce_sum(labels * predictions, axis=axis, keepdims=True)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.sparse_softmax_cross_entropy")
def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross entropy of integer ``labels`` (``[batch]`` or ``[batch, 1]``) against ``logits``."""
    labels = convert_to_tensor(labels)
    logits = convert_to_tensor(logits)
    if labels.shape.rank is not None and logits.shape.rank is not None and labels.shape.rank == logits.shape.rank:
        labels = squeeze(labels, axis=[-1])
    losses = sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.softmax_cross_entropy")
def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross entropy of one-hot labels (optionally smoothed) against ``logits``."""
    logits = convert_to_tensor(logits)
    labels = cast(convert_to_tensor(onehot_labels), logits.dtype)
    if label_smoothing:
        num_classes = cast(shape(labels)[-1], logits.dtype)
        labels = labels * (1 - label_smoothing) + label_smoothing / num_classes
    losses = softmax_cross_entropy_with_logits(stop_gradient(labels), logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@tf_export("compat.v1.losses.sigmoid_cross_entropy")
def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Sigmoid cross entropy of 0/1 labels (optionally smoothed towards 1/2) against ``logits``."""
    logits = convert_to_tensor(logits)
    labels = cast(convert_to_tensor(multi_class_labels), logits.dtype)
    if label_smoothing:
        labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
    losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)
