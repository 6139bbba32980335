"""Correlation metrics (Keras 3): Pearson and concordance correlation along an axis (Keras's formulas,
including its use of ``y_pred``'s mean in the concordance covariance term)."""

from __future__ import annotations

from tensorlet._src.ops.math_unary import square
from tensorlet._src.ops.reduce import reduce_mean, reduce_std, reduce_variance
from tensorlet._src.keras.metrics.base import MeanMetricWrapper, epsilon, squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.registry import tf_export


def _pair(y_true, y_pred):
    y_pred = to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


@tf_export("keras.metrics.pearson_correlation")
def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson correlation of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    t = y_true - reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / reduce_std(t, axis=axis, keepdims=True)
    p = p / reduce_std(p, axis=axis, keepdims=True)
    return reduce_mean(t * p, axis=axis)


@tf_export("keras.metrics.concordance_correlation")
def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient along ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    t_mean = reduce_mean(y_true, axis=axis, keepdims=True)
    p_mean = reduce_mean(y_pred, axis=axis, keepdims=True)
    t_var = reduce_variance(y_true - t_mean, axis=axis, keepdims=True)
    p_var = reduce_variance(y_pred - p_mean, axis=axis, keepdims=True)
    covar = (y_true - p_mean) * (y_pred - p_mean)
    norm = t_var + p_var + square(t_mean - p_mean)
    return reduce_mean(2 * covar / (norm + epsilon()), axis=axis)


@tf_export("keras.metrics.PearsonCorrelation")
class PearsonCorrelation(MeanMetricWrapper):
    """Mean Pearson correlation (per sample along ``axis``)."""

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(fn=pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


@tf_export("keras.metrics.ConcordanceCorrelation")
class ConcordanceCorrelation(MeanMetricWrapper):
    """Mean concordance correlation (per sample along ``axis``)."""

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(fn=concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}
