"""Regression metrics (Keras 3): MSE, RMSE, MAE, MAPE, MSLE, cosine similarity, log-cosh, R2 score."""

from __future__ import annotations

import warnings

from tensorlet._src.framework.context import executing_eagerly
from tensorlet._src.ops.array_shape import size, expand_dims
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_unary import is_inf, sqrt, square
from tensorlet._src.ops.reduce import reduce_mean, reduce_sum
from tensorlet._src.keras.metrics import functions as F
from tensorlet._src.keras.metrics.base import Mean, MeanMetricWrapper, Metric, _value, broadcast_like, \
    squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.registry import tf_export


class _SimpleWrapper(MeanMetricWrapper):
    _FN = None
    _DIRECTION = "down"

    def __init__(self, name=None, dtype=None):
        super().__init__(type(self)._FN, name=name, dtype=dtype)
        self._direction = self._DIRECTION

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


@tf_export("keras.metrics.MeanSquaredError")
class MeanSquaredError(_SimpleWrapper):
    """Mean of ``(y_true - y_pred) ** 2``.

    >>> m = tf.keras.metrics.MeanSquaredError()
    >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]]); float(m.result())
    0.25
    """

    _FN = staticmethod(F.mean_squared_error)

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.MeanAbsoluteError")
class MeanAbsoluteError(_SimpleWrapper):
    """Mean of ``abs(y_true - y_pred)``.

    >>> m = tf.keras.metrics.MeanAbsoluteError()
    >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]]); float(m.result())
    0.25
    """

    _FN = staticmethod(F.mean_absolute_error)

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.MeanAbsolutePercentageError")
class MeanAbsolutePercentageError(_SimpleWrapper):
    """Mean of ``100 * abs((y_true - y_pred) / y_true)``."""

    _FN = staticmethod(F.mean_absolute_percentage_error)

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.MeanSquaredLogarithmicError")
class MeanSquaredLogarithmicError(_SimpleWrapper):
    """Mean of ``(log(y_true + 1) - log(y_pred + 1)) ** 2``."""

    _FN = staticmethod(F.mean_squared_logarithmic_error)

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.LogCoshError")
class LogCoshError(_SimpleWrapper):
    """Mean of ``log(cosh(y_pred - y_true))``."""

    _FN = staticmethod(F.log_cosh)

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.CosineSimilarity")
class CosineSimilarity(MeanMetricWrapper):
    """Mean cosine similarity between labels and predictions along ``axis``.

    >>> m = tf.keras.metrics.CosineSimilarity(axis=1)
    >>> m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]); round(float(m.result()), 4)
    0.5
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(F.cosine_similarity, name, dtype=dtype, axis=axis)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


@tf_export("keras.metrics.RootMeanSquaredError")
class RootMeanSquaredError(Mean):
    """``sqrt(mean((y_pred - y_true) ** 2))``.

    >>> m = tf.keras.metrics.RootMeanSquaredError()
    >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]]); float(m.result())
    0.5
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return sqrt(super().result())


@tf_export("keras.metrics.R2Score")
class R2Score(Metric):
    """Coefficient of determination, per output then aggregated (``uniform_average`` by default).

    >>> m = tf.keras.metrics.R2Score()
    >>> m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]]); round(float(m.result()), 4)
    0.5714
    """

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one of {valid}. "
                             f"Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value >= 0. "
                             f"Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", name="num_samples")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                             f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim fully "
                             f"defined (not None). Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        n = y_pred_shape[-1]
        self.squared_sum = self.add_variable(name="squared_sum", shape=[n], initializer="zeros")
        self.sum = self.add_variable(name="sum", shape=[n], initializer="zeros")
        self.total_mse = self.add_variable(name="residual", shape=[n], initializer="zeros")
        self.count = self.add_variable(name="count", shape=[n], initializer="zeros")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        sample_weight = to_tensor(1 if sample_weight is None else sample_weight, self.dtype)
        if sample_weight.shape.rank == 1:
            sample_weight = expand_dims(sample_weight, axis=1)
        sample_weight = broadcast_like(sample_weight, y_true)
        weighted = y_true * sample_weight
        self.sum.assign(self.sum + reduce_sum(weighted, axis=0))
        self.squared_sum.assign(self.squared_sum + reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign(self.total_mse + reduce_sum(square(y_true - y_pred) * sample_weight, axis=0))
        self.count.assign(self.count + reduce_sum(sample_weight, axis=0))
        self.num_samples.assign(self.num_samples + cast(size(y_true), self.num_samples.dtype))

    def result(self):
        s, c = _value(self.sum), _value(self.count)
        mean = s / c
        total = _value(self.squared_sum) - s * mean
        raw = 1 - _value(self.total_mse) / total
        raw = where(is_inf(raw), zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            r2 = reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = reduce_sum(total * raw) / reduce_sum(total)
        else:
            r2 = raw
        if self.num_regressors != 0:
            n = cast(_value(self.num_samples), "float32")
            p = float(self.num_regressors)
            if executing_eagerly():
                nv = float(n.numpy())
                if p > nv - 1:
                    warnings.warn("More independent predictors than datapoints in adjusted R2 score. Falling back "
                                  "to standard R2 score.", stacklevel=2)
                elif p == nv - 1:
                    warnings.warn("Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                                  stacklevel=2)
            adjusted = 1.0 - (1.0 - cast(r2, "float32")) * (n - 1.0) / (n - p - 1.0)
            r2 = where(p < n - 1.0, cast(adjusted, r2.dtype), r2)
        return r2

    def get_config(self):
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}
