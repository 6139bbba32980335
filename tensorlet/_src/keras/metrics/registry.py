"""``keras.metrics.get/serialize/deserialize``, the string names ``compile(metrics=[...])`` accepts, and
``resolve_accuracy`` (Keras's shape rule turning ``"accuracy"`` into binary/categorical/sparse accuracy).

The loss functions Keras also exposes as ``keras.metrics.mse``, ``keras.metrics.binary_crossentropy``, ... are
the objects of ``keras.losses`` (tensorlet._src.keras.losses); they are exported from there when that module
exists (same object, as in Keras).
"""

from __future__ import annotations

import inspect

from tensorlet._src.keras.metrics import accuracy as _acc
from tensorlet._src.keras.metrics import base as _base
from tensorlet._src.keras.metrics import confusion as _conf
from tensorlet._src.keras.metrics import correlation as _corr
from tensorlet._src.keras.metrics import fscore as _fs
from tensorlet._src.keras.metrics import iou as _iou
from tensorlet._src.keras.metrics import probabilistic as _prob
from tensorlet._src.keras.metrics import regression as _reg
from tensorlet._src.ops.registry import export_value, tf_export
from tensorlet._src.keras import _objects
from tensorlet._src.keras import losses as _losses
from tensorlet._src.keras.saving.serialization import deserialize_keras_object, serialize_keras_object

ALL_OBJECTS = [
    _base.Metric, _base.Mean, _base.Sum, _base.MeanMetricWrapper,
    _reg.MeanSquaredError, _reg.RootMeanSquaredError, _reg.MeanAbsoluteError, _reg.MeanAbsolutePercentageError,
    _reg.MeanSquaredLogarithmicError, _reg.CosineSimilarity, _reg.LogCoshError, _reg.R2Score,
    _conf.AUC, _conf.FalseNegatives, _conf.FalsePositives, _conf.Precision, _conf.PrecisionAtRecall, _conf.Recall,
    _conf.RecallAtPrecision, _conf.SensitivityAtSpecificity, _conf.SpecificityAtSensitivity, _conf.TrueNegatives,
    _conf.TruePositives,
    _corr.ConcordanceCorrelation, _corr.PearsonCorrelation,
    _prob.Hinge, _prob.SquaredHinge, _prob.CategoricalHinge, _prob.KLDivergence, _prob.Poisson,
    _prob.BinaryCrossentropy, _prob.CategoricalCrossentropy, _prob.SparseCategoricalCrossentropy,
    _acc.Accuracy, _acc.BinaryAccuracy, _acc.CategoricalAccuracy, _acc.SparseCategoricalAccuracy,
    _acc.TopKCategoricalAccuracy, _acc.SparseTopKCategoricalAccuracy,
    _fs.F1Score, _fs.FBetaScore,
    _iou.IoU, _iou.BinaryIoU, _iou.MeanIoU, _iou.OneHotIoU, _iou.OneHotMeanIoU,
]
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({_base.to_snake_case(cls.__name__): cls for cls in ALL_OBJECTS})
ALL_OBJECTS_DICT.update({
    "bce": _prob.BinaryCrossentropy, "BCE": _prob.BinaryCrossentropy,
    "mse": _reg.MeanSquaredError, "MSE": _reg.MeanSquaredError,
    "mae": _reg.MeanAbsoluteError, "MAE": _reg.MeanAbsoluteError,
    "mape": _reg.MeanAbsolutePercentageError, "MAPE": _reg.MeanAbsolutePercentageError,
    "msle": _reg.MeanSquaredLogarithmicError, "MSLE": _reg.MeanSquaredLogarithmicError,
})
# the per-sample functions that are metrics' own (keras.metrics.binary_accuracy, ...)
_FUNCTIONS = {f.__name__: f for f in (
    _acc.F.binary_accuracy, _acc.F.categorical_accuracy, _acc.F.sparse_categorical_accuracy,
    _acc.F.top_k_categorical_accuracy, _acc.F.sparse_top_k_categorical_accuracy,
    _corr.pearson_correlation, _corr.concordance_correlation)}


# --- keras.metrics.<loss function> aliases: the keras.losses objects ---------------------------------------------
_LOSS_ALIASES = {  # public keras.metrics name -> canonical keras.losses function
    "binary_crossentropy": "binary_crossentropy", "binary_focal_crossentropy": "binary_focal_crossentropy",
    "categorical_crossentropy": "categorical_crossentropy",
    "categorical_focal_crossentropy": "categorical_focal_crossentropy",
    "sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
    "categorical_hinge": "categorical_hinge", "hinge": "hinge", "squared_hinge": "squared_hinge", "huber": "huber",
    "poisson": "poisson", "KLD": "kl_divergence", "kld": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence", "logcosh": "log_cosh",
    "MAE": "mean_absolute_error", "mae": "mean_absolute_error", "MAPE": "mean_absolute_percentage_error",
    "mape": "mean_absolute_percentage_error", "MSE": "mean_squared_error", "mse": "mean_squared_error",
    "MSLE": "mean_squared_logarithmic_error", "msle": "mean_squared_logarithmic_error",
    # Keras 3's own names (``keras.metrics.mean_squared_error``, ...; tf.keras has only the short ones)
    "kl_divergence": "kl_divergence", "log_cosh": "log_cosh", "mean_absolute_error": "mean_absolute_error",
    "mean_absolute_percentage_error": "mean_absolute_percentage_error", "mean_squared_error": "mean_squared_error",
    "mean_squared_logarithmic_error": "mean_squared_logarithmic_error",
}
_LOSSES_MODULE = "tensorlet._src.keras.losses"


def _export_loss_aliases():
    mod = _losses
    for public, canonical in _LOSS_ALIASES.items():
        obj = getattr(mod, canonical, None)
        if obj is None:
            continue
        attr = getattr(obj, "__name__", canonical)
        if getattr(mod, attr, None) is not obj:
            attr = canonical
        export_value(f"keras.metrics.{public}", _LOSSES_MODULE, attr)


_export_loss_aliases()


def _loss_function(name):
    """A keras.losses function by its metrics-side name (``"mse"``, ``"binary_crossentropy"``), or None."""
    canonical = _LOSS_ALIASES.get(name, name)
    obj = getattr(_losses, canonical, None)
    return obj if callable(obj) and not inspect.isclass(obj) else None


# --- get / serialize / deserialize ---------------------------------------------------------------------------------


@tf_export("keras.metrics.serialize")
def serialize(metric):
    """The Keras 3 config dict of a metric (or the function reference of a metric function)."""
    return serialize_keras_object(metric)


def _module_objects():
    objects = dict(ALL_OBJECTS_DICT)
    objects.update(_FUNCTIONS)
    return objects


@tf_export("keras.metrics.deserialize")
def deserialize(config, custom_objects=None):
    """Rebuilds a metric from ``serialize``'s dict (or a metric function from its name)."""
    return deserialize_keras_object(config, module_objects=_module_objects(), custom_objects=custom_objects)


@tf_export("keras.metrics.get")
def get(identifier):
    """A metric from a name, a config dict, a class (instantiated), an instance or a function.

    >>> tf.keras.metrics.get("mse")
    <MeanSquaredError name=mean_squared_error>
    """
    return _objects.get_object(identifier, "metric", ALL_OBJECTS_DICT, deserialize, by_name=ALL_OBJECTS_DICT.get)


def serialize_fn(fn):
    """Config of a wrapped metric function (MeanMetricWrapper's ``fn``)."""
    return serialize_keras_object(fn)


def deserialize_fn(config):
    if callable(config):
        return config
    if isinstance(config, dict) and config.get("class_name") == "function":
        name = config.get("config")
        obj = _FUNCTIONS.get(name) or _loss_function(name)
        if obj is not None:
            return obj
    if isinstance(config, str):
        obj = _FUNCTIONS.get(config) or _loss_function(config)
        if obj is not None:
            return obj
    return deserialize_keras_object(config, module_objects=_module_objects())


# --- compile()'s rules -------------------------------------------------------------------------------------------


def _shape_tuple(shape):
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    return tuple(shape)


def is_binary_or_sparse_categorical(y_true_shape, y_pred_shape):
    """Keras 3's rule: binary when the prediction's last dim is 1; sparse when the labels have lower rank, or a
    last dim of 1 against a prediction whose last dim is > 1."""
    t, p = _shape_tuple(y_true_shape), _shape_tuple(y_pred_shape)
    t_last = t[-1] if t else None
    p_last = p[-1] if p else None
    is_binary = p_last == 1
    is_sparse = len(t) < len(p) or (t_last == 1 and p_last is not None and p_last > 1)
    return is_binary, is_sparse


def resolve_accuracy(y_true_shape, y_pred_shape, loss=None, name="accuracy"):
    """The metric ``compile(metrics=["accuracy"])`` (or ``"acc"``) means, decided as Keras 3 decides it.

    Keras 3 (``compile_utils.get_metric``) looks only at the shapes of the first batch -- not at the loss:
    ``y_pred.shape[-1] == 1`` -> ``BinaryAccuracy``; else labels of lower rank than the predictions, or labels
    with last dim 1 against predictions with last dim > 1 -> ``SparseCategoricalAccuracy``; else
    ``CategoricalAccuracy``.  ``loss`` is accepted for callers that know it and is ignored, as in Keras 3.
    The metric is named ``name`` (the string the user wrote).
    """
    del loss
    is_binary, is_sparse = is_binary_or_sparse_categorical(y_true_shape, y_pred_shape)
    if is_binary:
        return _acc.BinaryAccuracy(name=name)
    if is_sparse:
        return _acc.SparseCategoricalAccuracy(name=name)
    return _acc.CategoricalAccuracy(name=name)


def get_compile_metric(identifier, y_true_shape=None, y_pred_shape=None):
    """One entry of ``compile(metrics=[...])`` as a ``Metric`` named as Keras names it (``compile_utils``).

    Strings keep their spelling as the metric name (``"mae"`` -> ``MeanAbsoluteError`` named ``mae``);
    ``"accuracy"``/``"acc"`` go through ``resolve_accuracy``; plain functions are wrapped in
    ``MeanMetricWrapper`` named after the function.
    """
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        metric = resolve_accuracy(y_true_shape, y_pred_shape, name=str(identifier))
    else:
        metric = get(identifier)
    if isinstance(identifier, str):
        name = identifier
    else:
        name = getattr(metric, "name", None) or _base.to_snake_case(getattr(metric, "__name__", None)
                                                                   or type(metric).__name__)
    if not isinstance(metric, _base.Metric):
        metric = _base.MeanMetricWrapper(metric)
    metric.name = name
    return metric
