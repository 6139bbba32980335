"""Confusion-matrix metrics (Keras 3): TruePositives/FalsePositives/TrueNegatives/FalseNegatives, Precision,
Recall, the ...At... family and AUC (ROC/PR, Keras's threshold grid and Riemann sums, numerically as Keras).

For every threshold ``t`` a prediction counts as positive when ``y_pred > t``.  Evenly spaced thresholds (AUC's
default grid) use Keras's bucketed update: each prediction falls in bucket ``ceil(p * (n - 1)) - 1``, a
segment sum counts the buckets and a reversed cumulative sum gives the counts per threshold.
"""

from __future__ import annotations

import enum

import numpy as np

from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops import array_shape
from tensorlet._src.ops import scan_sort
from tensorlet._src.ops.array_select import one_hot, where
from tensorlet._src.ops.array_shape import expand_dims, reshape, transpose
from tensorlet._src.ops.creation import ones_like, zeros, zeros_like
from tensorlet._src.ops.math_binary import (
    cast, equal, greater, greater_equal, logical_and, logical_not, maximum, minimum, multiply,
)
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import ceil, log, sigmoid
from tensorlet._src.ops.nn_activations import relu
from tensorlet._src.ops.reduce import reduce_max, reduce_mean, reduce_sum
from tensorlet._src.ops.scan_sort import cumsum
from tensorlet._src.ops.segment import unsorted_segment_sum
from tensorlet._src.keras.metrics.base import Metric, _value, broadcast_like, divide_no_nan, epsilon, \
    squeeze_or_expand_to_same_rank, to_tensor
from tensorlet._src.ops.creation import range as _tf_range
from tensorlet._src.ops.registry import tf_export

NEG_INF = -1e10


class ConfusionMatrix(enum.Enum):
    TRUE_POSITIVES = "tp"
    FALSE_POSITIVES = "fp"
    TRUE_NEGATIVES = "tn"
    FALSE_NEGATIVES = "fn"


class AUCCurve(enum.Enum):
    ROC = "ROC"
    PR = "PR"
    PRGAIN = "PRGAIN"

    @staticmethod
    def from_str(key):
        for c in AUCCurve:
            if key in (c.value, c.value.lower()):
                return c
        raise ValueError(f'Invalid AUC curve value: "{key}". Expected values are ["PR", "ROC", "PRGAIN"]')


class AUCSummationMethod(enum.Enum):
    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"

    @staticmethod
    def from_str(key):
        for c in AUCSummationMethod:
            if key in (c.value, c.value.capitalize()):
                return c
        raise ValueError(f'Invalid AUC summation method value: "{key}". Expected values are '
                         '["interpolation", "majoring", "minoring"]')


def _to_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    if isinstance(x, np.ndarray):
        return list(x.tolist()) if x.ndim else [x.item()]
    return [x]


def parse_init_thresholds(thresholds, default_threshold=0.5):
    if thresholds is not None:
        bad = [t for t in _to_list(thresholds) if t is None or t < 0 or t > 1]
        if bad:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")
    return _to_list(default_threshold if thresholds is None else thresholds)


def is_evenly_distributed_thresholds(thresholds):
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=epsilon()))


def _filter_top_k(x, k):
    """Keeps the top-``k`` values of the last axis and sets the rest to ``NEG_INF``."""
    _, idx = scan_sort.top_k(x, k)
    depth = x.shape[-1] if x.shape[-1] is not None else array_shape.shape(x)[-1]
    mask = reduce_sum(one_hot(idx, depth, dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def _segment_counts(values, buckets, num_thresholds, rows=None):
    """Per-bucket sums of ``values`` (buckets < 0 are dropped); with ``rows``, one histogram per row."""
    if rows is None:
        return unsorted_segment_sum(values, buckets, num_thresholds)
    # (not ``T.range``: caching ``range`` in the lazy module would shadow the builtin there)
    offsets = expand_dims(_tf_range(rows) * num_thresholds, 1)
    ids = where(buckets < 0, -ones_like(buckets), buckets + offsets)
    flat = unsorted_segment_sum(reshape(values, [-1]), reshape(ids, [-1]), rows * num_thresholds)
    return reshape(flat, [rows, num_thresholds])


def _update_optimized(variables, y_true, y_pred, thresholds, num_thresholds, multi_label, sample_weights,
                      label_weights, thresholds_with_epsilon):
    if sample_weights is None:
        sample_weights = 1.0
    else:
        sample_weights = broadcast_like(cast(sample_weights, y_pred.dtype), y_pred)
        if not multi_label:
            sample_weights = reshape(sample_weights, [-1])
    if label_weights is None:
        label_weights = 1.0
    else:
        label_weights = broadcast_like(expand_dims(label_weights, 0), y_pred)
        if not multi_label:
            label_weights = reshape(label_weights, [-1])
    weights = cast(multiply(sample_weights, label_weights), y_true.dtype)
    y_pred = clip_by_value(y_pred, cast(0.0, y_pred.dtype), cast(1.0, y_pred.dtype))
    y_true = cast(cast(y_true, "bool"), y_true.dtype)
    if not multi_label:
        y_true = reshape(y_true, [-1])
        y_pred = reshape(y_pred, [-1])
    true_labels = y_true * weights
    false_labels = (1.0 - y_true) * weights
    buckets = ceil(y_pred * (cast(num_thresholds, y_pred.dtype) - 1)) - 1
    if thresholds_with_epsilon:
        buckets = relu(buckets)
    buckets = cast(buckets, "int32")
    if multi_label:
        true_labels = transpose(true_labels)
        false_labels = transpose(false_labels)
        buckets = transpose(buckets)
        rows = y_pred.shape[-1]
        tp = transpose(cumsum(_segment_counts(true_labels, buckets, num_thresholds, rows), axis=1, reverse=True))
        fp = transpose(cumsum(_segment_counts(false_labels, buckets, num_thresholds, rows), axis=1,
                                  reverse=True))
        total_true = reduce_sum(true_labels, axis=1)
        total_false = reduce_sum(false_labels, axis=1)
    else:
        tp = cumsum(_segment_counts(true_labels, buckets, num_thresholds), reverse=True)
        fp = cumsum(_segment_counts(false_labels, buckets, num_thresholds), reverse=True)
        total_true = reduce_sum(true_labels)
        total_false = reduce_sum(false_labels)
    updates = {ConfusionMatrix.TRUE_POSITIVES: lambda: tp, ConfusionMatrix.FALSE_POSITIVES: lambda: fp,
               ConfusionMatrix.TRUE_NEGATIVES: lambda: total_false - fp,
               ConfusionMatrix.FALSE_NEGATIVES: lambda: total_true - tp}
    for key, var in variables.items():
        var.assign(var + cast(updates[key](), var.dtype))


def update_confusion_matrix_variables(variables, y_true, y_pred, thresholds, top_k=None, class_id=None,
                                      sample_weight=None, multi_label=False, label_weights=None,
                                      thresholds_distributed_evenly=False):
    """Adds this batch's weighted TP/FP/TN/FN counts (per threshold) to ``variables`` ({ConfusionMatrix: var})."""
    if multi_label and label_weights is not None:
        raise ValueError("`label_weights` for multilabel data should be handled outside of "
                         "`update_confusion_matrix_variables` when `multi_label` is True.")
    if not variables:
        return
    invalid = [k for k in variables if k not in list(ConfusionMatrix)]
    if invalid:
        raise ValueError(f'Invalid keys: "{invalid}". Valid variable key options are: "{list(ConfusionMatrix)}"')
    dtype = list(variables.values())[0].dtype
    y_true = to_tensor(y_true, dtype)
    y_pred = to_tensor(y_pred, dtype)
    thresholds_list = [float(t) for t in _to_list(thresholds)]
    with_epsilon = thresholds_list[0] < 0.0 or thresholds_list[-1] > 1.0
    num_thresholds = len(thresholds_list)
    thresholds = constant(np.asarray(thresholds_list, dtype=dtype.as_numpy_dtype))

    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = expand_dims(to_tensor(sample_weight, dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                             f"num_classes), found shape: {y_pred.shape}")
        y_true = y_true[..., class_id:class_id + 1]
        y_pred = y_pred[..., class_id:class_id + 1]
    if label_weights is not None:
        label_weights = to_tensor(label_weights, dtype)

    if thresholds_distributed_evenly:
        return _update_optimized(variables, y_true, y_pred, thresholds, num_thresholds, multi_label,
                                 sample_weight, label_weights, with_epsilon)

    if multi_label:  # (T, N, L): thresholds along the first axis, one count per label
        preds = expand_dims(y_pred, 0)
        labels = expand_dims(cast(y_true, "bool"), 0)
        thresh = reshape(thresholds, [num_thresholds, 1, 1])
    else:  # (T, N * L): everything flattened
        preds = reshape(y_pred, [1, -1])
        labels = reshape(cast(y_true, "bool"), [1, -1])
        thresh = reshape(thresholds, [num_thresholds, 1])
    pred_is_pos = greater(preds, thresh)
    label_is_pos = broadcast_like(labels, pred_is_pos)
    weights = None
    if sample_weight is not None:
        sw = broadcast_like(cast(sample_weight, y_pred.dtype), y_pred)
        weights = expand_dims(sw, 0) if multi_label else reshape(sw, [1, -1])
    if label_weights is not None and not multi_label:
        lw = reshape(broadcast_like(expand_dims(label_weights, 0), y_pred), [1, -1])
        weights = lw if weights is None else weights * lw

    def add(label, pred, var):
        both = logical_and(label, pred)
        if weights is not None:
            w = broadcast_like(cast(weights, var.dtype), both)
            result = where(both, w, zeros_like(w))
        else:
            result = cast(both, var.dtype)
        var.assign(var + reduce_sum(result, axis=1))

    pred_is_neg = logical_not(pred_is_pos)
    label_is_neg = logical_not(label_is_pos)
    conds = {ConfusionMatrix.TRUE_POSITIVES: (label_is_pos, pred_is_pos),
             ConfusionMatrix.FALSE_NEGATIVES: (label_is_pos, pred_is_neg),
             ConfusionMatrix.FALSE_POSITIVES: (label_is_neg, pred_is_pos),
             ConfusionMatrix.TRUE_NEGATIVES: (label_is_neg, pred_is_neg)}
    for key in (ConfusionMatrix.TRUE_POSITIVES, ConfusionMatrix.FALSE_NEGATIVES, ConfusionMatrix.FALSE_POSITIVES,
                ConfusionMatrix.TRUE_NEGATIVES):
        if key in variables:
            add(*conds[key], variables[key])


# ----------------------------------------------------------------------------------------------------------------


class _ConfusionMatrixConditionCount(Metric):
    def __init__(self, confusion_matrix_cond, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._confusion_matrix_cond = confusion_matrix_cond
        self.init_thresholds = thresholds
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=0.5)
        self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(self.thresholds)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), initializer="zeros", name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        return update_confusion_matrix_variables({self._confusion_matrix_cond: self.accumulator}, y_true, y_pred,
                                                 thresholds=self.thresholds, sample_weight=sample_weight,
                                                 thresholds_distributed_evenly=self._thresholds_distributed_evenly)

    def result(self):
        acc = _value(self.accumulator)
        return acc[0] if len(self.thresholds) == 1 else acc

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


@tf_export("keras.metrics.FalsePositives")
class FalsePositives(_ConfusionMatrixConditionCount):
    """Weighted count of false positives (``y_pred > threshold`` where ``y_true`` is 0).

    >>> m = tf.keras.metrics.FalsePositives()
    >>> m.update_state([0, 1, 0, 0], [0, 0, 1, 1]); float(m.result())
    2.0
    """

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(ConfusionMatrix.FALSE_POSITIVES, thresholds=thresholds, name=name, dtype=dtype)


@tf_export("keras.metrics.FalseNegatives")
class FalseNegatives(_ConfusionMatrixConditionCount):
    """Weighted count of false negatives."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(ConfusionMatrix.FALSE_NEGATIVES, thresholds=thresholds, name=name, dtype=dtype)


@tf_export("keras.metrics.TrueNegatives")
class TrueNegatives(_ConfusionMatrixConditionCount):
    """Weighted count of true negatives."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(ConfusionMatrix.TRUE_NEGATIVES, thresholds=thresholds, name=name, dtype=dtype)


@tf_export("keras.metrics.TruePositives")
class TruePositives(_ConfusionMatrixConditionCount):
    """Weighted count of true positives."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(ConfusionMatrix.TRUE_POSITIVES, thresholds=thresholds, name=name, dtype=dtype)


class _PrecisionRecallBase(Metric):
    _SECOND = None  # the second confusion-matrix count ("false_positives" or "false_negatives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=default)
        self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(self.thresholds)
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), initializer="zeros", name="true_positives")
        setattr(self, self._SECOND, self.add_variable(shape=(n,), initializer="zeros", name=self._SECOND))

    def update_state(self, y_true, y_pred, sample_weight=None):
        second = (ConfusionMatrix.FALSE_POSITIVES if self._SECOND == "false_positives"
                  else ConfusionMatrix.FALSE_NEGATIVES)
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives, second: getattr(self, self._SECOND)},
            y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly, top_k=self.top_k,
            class_id=self.class_id, sample_weight=sample_weight)

    def result(self):
        tp = _value(self.true_positives)
        res = divide_no_nan(tp, tp + _value(getattr(self, self._SECOND)))
        return res[0] if len(self.thresholds) == 1 else res

    def reset_state(self):
        n = len(self.thresholds)
        self.true_positives.assign(zeros((n,)))
        getattr(self, self._SECOND).assign(zeros((n,)))

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


@tf_export("keras.metrics.Precision")
class Precision(_PrecisionRecallBase):
    """``TP / (TP + FP)`` at one or more thresholds (or among the ``top_k`` predictions, or for ``class_id``).

    >>> m = tf.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); round(float(m.result()), 4)
    0.6667
    """

    _SECOND = "false_positives"


@tf_export("keras.metrics.Recall")
class Recall(_PrecisionRecallBase):
    """``TP / (TP + FN)`` at one or more thresholds (or among the ``top_k`` predictions, or for ``class_id``).

    >>> m = tf.keras.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); round(float(m.result()), 4)
    0.6667
    """

    _SECOND = "false_negatives"


class SensitivitySpecificityBase(Metric):
    """Shared state of the ...At... metrics: TP/FP/TN/FN on an evenly spaced grid of thresholds."""

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        self.value = value
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
            self._thresholds_distributed_evenly = True
        n = len(self.thresholds)
        for var in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, var, self.add_variable(shape=(n,), initializer="zeros", name=var))

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives, ConfusionMatrix.TRUE_NEGATIVES: self.true_negatives,
             ConfusionMatrix.FALSE_POSITIVES: self.false_positives,
             ConfusionMatrix.FALSE_NEGATIVES: self.false_negatives},
            y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly, class_id=self.class_id,
            sample_weight=sample_weight)

    def reset_state(self):
        n = len(self.thresholds)
        for v in (self.true_positives, self.false_positives, self.true_negatives, self.false_negatives):
            v.assign(zeros((n,)))

    def get_config(self):
        return {**super().get_config(), "class_id": self.class_id}

    def _find_max_under_constraint(self, constrained, dependent):
        feasible = greater_equal(constrained, self.value)
        return maximum(reduce_max(where(feasible, dependent, zeros_like(dependent))), 0.0)

    def _rates(self):
        tp, fp = _value(self.true_positives), _value(self.false_positives)
        tn, fn = _value(self.true_negatives), _value(self.false_negatives)
        return (divide_no_nan(tp, tp + fn), divide_no_nan(tn, tn + fp), divide_no_nan(tp, tp + fp))


def _check_unit(arg, value):
    if value < 0 or value > 1:
        raise ValueError(f"Argument `{arg}` must be in the range [0, 1]. Received: {arg}={value}")


@tf_export("keras.metrics.SensitivityAtSpecificity")
class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """Best sensitivity (recall) where specificity >= ``specificity``."""

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("specificity", specificity)
        self.specificity = specificity
        self.num_thresholds = num_thresholds
        super().__init__(specificity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        sens, spec, _ = self._rates()
        return self._find_max_under_constraint(spec, sens)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "specificity": self.specificity}


@tf_export("keras.metrics.SpecificityAtSensitivity")
class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """Best specificity where sensitivity >= ``sensitivity``."""

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("sensitivity", sensitivity)
        self.sensitivity = sensitivity
        self.num_thresholds = num_thresholds
        super().__init__(sensitivity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        sens, spec, _ = self._rates()
        return self._find_max_under_constraint(sens, spec)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "sensitivity": self.sensitivity}


@tf_export("keras.metrics.PrecisionAtRecall")
class PrecisionAtRecall(SensitivitySpecificityBase):
    """Best precision where recall >= ``recall``."""

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("recall", recall)
        self.recall = recall
        self.num_thresholds = num_thresholds
        super().__init__(value=recall, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        rec, _, prec = self._rates()
        return self._find_max_under_constraint(rec, prec)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "recall": self.recall}


@tf_export("keras.metrics.RecallAtPrecision")
class RecallAtPrecision(SensitivitySpecificityBase):
    """Best recall where precision >= ``precision``."""

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("precision", precision)
        self.precision = precision
        self.num_thresholds = num_thresholds
        super().__init__(value=precision, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        rec, _, prec = self._rates()
        return self._find_max_under_constraint(prec, rec)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "precision": self.precision}


@tf_export("keras.metrics.AUC")
class AUC(Metric):
    """Area under the ROC or PR curve, from TP/FP/TN/FN on ``num_thresholds`` thresholds (Riemann sums).

    >>> m = tf.keras.metrics.AUC(num_thresholds=3)
    >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]); round(float(m.result()), 4)
    0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        self._direction = "up"
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(
                np.array([0.0] + thresholds + [1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        self._thresholds = np.array([0.0 - epsilon()] + thresholds + [1.0 + epsilon()])
        self.curve = curve if isinstance(curve, AUCCurve) else AUCCurve.from_str(curve)
        self.summation_method = (summation_method if isinstance(summation_method, AUCSummationMethod)
                                 else AUCSummationMethod.from_str(summation_method))
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else to_tensor(label_weights, self.dtype)
        self._from_logits = from_logits
        self._built = False
        if self.multi_label:
            if num_labels:
                self._build([None, num_labels])
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self):
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {len(shape)}. "
                                 f"Full shape received for `y_pred`: {shape}")
            self._num_labels = shape[1]
            var_shape = [self.num_thresholds, self._num_labels]
        else:
            var_shape = [self.num_thresholds]
        self._build_input_shape = shape
        for var in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, var, self.add_variable(shape=var_shape, initializer="zeros", name=var))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = to_tensor(y_pred)
        if not self._built:
            self._build(tuple(y_pred.shape))
        if self._from_logits:
            y_pred = sigmoid(y_pred)
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives, ConfusionMatrix.TRUE_NEGATIVES: self.true_negatives,
             ConfusionMatrix.FALSE_POSITIVES: self.false_positives,
             ConfusionMatrix.FALSE_NEGATIVES: self.false_negatives},
            y_true, y_pred, self._thresholds, thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _by_label(self, per_threshold):
        if not self.multi_label:
            return reduce_sum(per_threshold)
        by_label = reduce_sum(per_threshold, axis=0)
        if self.label_weights is None:
            return reduce_mean(by_label)
        return divide_no_nan(reduce_sum(by_label * self.label_weights), reduce_sum(self.label_weights))

    def interpolate_pr_auc(self):
        """PR-AUC interpolating TP and P linearly between thresholds (Davis & Goadrich 2006)."""
        n = self.num_thresholds
        tp, fp, fn = _value(self.true_positives), _value(self.false_positives), _value(self.false_negatives)
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = divide_no_nan(dtp, maximum(dp, 0.0))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = where(logical_and(p[: n - 1] > 0, p[1:] > 0),
                               divide_no_nan(p[: n - 1], maximum(p[1:], 0.0)), ones_like(p[1:]))
        increment = divide_no_nan(prec_slope * (dtp + intercept * log(safe_p_ratio)),
                                  maximum(tp[1:] + fn[1:], 0.0))
        return self._by_label(increment)

    def result(self):
        if self.curve == AUCCurve.PR and self.summation_method == AUCSummationMethod.INTERPOLATION:
            return self.interpolate_pr_auc()
        n = self.num_thresholds
        tp, fp = _value(self.true_positives), _value(self.false_positives)
        tn, fn = _value(self.true_negatives), _value(self.false_negatives)
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == AUCCurve.ROC:
            x, y = divide_no_nan(fp, fp + tn), recall
        elif self.curve == AUCCurve.PR:
            x, y = recall, divide_no_nan(tp, tp + fp)
        else:  # PR gain
            scale = divide_no_nan(tp + fn, tn + fp)
            recall_gain = 1.0 - scale * divide_no_nan(fn, tp)
            precision_gain = 1.0 - scale * divide_no_nan(fp, tp)
            zero = equal(tp, 0.0)
            recall_gain = maximum(where(zero, zeros_like(tp), recall_gain), 0.0)
            precision_gain = where(zero, ones_like(tp), precision_gain)
            x, y = recall_gain, precision_gain
        if self.summation_method == AUCSummationMethod.INTERPOLATION:
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == AUCSummationMethod.MINORING:
            heights = minimum(y[: n - 1], y[1:])
        else:
            heights = maximum(y[: n - 1], y[1:])
        return self._by_label((x[: n - 1] - x[1:]) * heights)

    def reset_state(self):
        if self._built:
            shape = (self.num_thresholds, self._num_labels) if self.multi_label else (self.num_thresholds,)
            for v in (self.true_positives, self.false_positives, self.true_negatives, self.false_negatives):
                v.assign(zeros(shape))

    def get_config(self):
        lw = self.label_weights
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve.value,
                  "summation_method": self.summation_method.value, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": None if lw is None else lw.numpy().tolist(),
                  "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}
