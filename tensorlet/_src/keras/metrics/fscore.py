"""F-scores (Keras 3): ``FBetaScore`` and ``F1Score`` for multi-class / multi-label 2-D inputs."""

from __future__ import annotations

from tensorlet._src.ops import math_unary
from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.creation import zeros
from tensorlet._src.ops.math_binary import cast, logical_and
from tensorlet._src.ops.reduce import reduce_max, reduce_mean, reduce_sum
from tensorlet._src.keras.metrics.base import Metric, _value, epsilon, to_tensor
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.metrics.FBetaScore")
class FBetaScore(Metric):
    """``(1 + beta^2) * P * R / (beta^2 * P + R)`` per class, optionally averaged (micro/macro/weighted).

    >>> m = tf.keras.metrics.FBetaScore(beta=2.0, threshold=0.5)
    >>> m.update_state([[1, 1], [0, 1]], [[0.9, 0.2], [0.1, 0.8]]); m.result().shape
    TensorShape([2])
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError("Invalid `beta` argument value. It should be a Python float. "
                             f"Received: beta={beta} of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python float. "
                                 f"Received: threshold={threshold} of type '{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                                 f"Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim), with output_dim "
                             f"fully defined (not None). Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        shape = () if self.average == "micro" else (y_pred_shape[-1],)
        for var in ("true_positives", "false_positives", "false_negatives", "intermediate_weights"):
            setattr(self, var, self.add_variable(name=var, shape=shape, initializer="zeros", dtype=self.dtype))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, self.dtype)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        if self.threshold is None:
            top = reduce_max(y_pred, axis=-1, keepdims=True)
            y_pred = logical_and(y_pred >= top, math_unary.abs(y_pred) > 1e-9)
        else:
            y_pred = y_pred > self.threshold
        y_pred = cast(y_pred, self.dtype)
        y_true = cast(y_true, self.dtype)
        if sample_weight is not None:
            sample_weight = to_tensor(sample_weight, self.dtype)

        def weighted_sum(val):
            if sample_weight is not None:
                val = val * expand_dims(sample_weight, 1)
            return reduce_sum(val, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self):
        eps = epsilon()
        tp = _value(self.true_positives)
        precision = tp / (tp + _value(self.false_positives) + eps)
        recall = tp / (tp + _value(self.false_negatives) + eps)
        b2 = self.beta**2
        f = precision * recall / (b2 * precision + recall + eps) * (1 + b2)
        if self.average == "weighted":
            w = _value(self.intermediate_weights)
            f = reduce_sum(f * (w / (reduce_sum(w) + eps)))
        elif self.average is not None:
            f = reduce_mean(f)
        return f

    def reset_state(self):
        for v in self.variables:
            v.assign(zeros(v.shape, dtype=v.dtype))

    def get_config(self):
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


@tf_export("keras.metrics.F1Score")
class F1Score(FBetaScore):
    """The F-beta score with ``beta = 1``: ``2 * P * R / (P + R)``.

    >>> m = tf.keras.metrics.F1Score(average="micro", threshold=0.5)
    >>> m.update_state([[1, 1], [0, 1]], [[0.9, 0.2], [0.1, 0.8]]); round(float(m.result()), 4)
    0.8
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config
