"""Keras metrics (Keras 3 semantics).  Public names are exported from the family modules; the package re-exports
the few names other Keras modules use (``get``, ``Metric``, ``Mean``, ``MeanMetricWrapper``, ...)."""

from tensorlet._src.keras.metrics.base import Mean, MeanMetricWrapper, Metric, Sum  # noqa: F401
from tensorlet._src.keras.metrics.registry import (  # noqa: F401
    deserialize,
    get,
    get_compile_metric,
    is_binary_or_sparse_categorical,
    resolve_accuracy,
    serialize,
)
