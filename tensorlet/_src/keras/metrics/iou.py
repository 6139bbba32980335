"""Intersection-over-union metrics (Keras 3): ``IoU``, ``MeanIoU``, ``BinaryIoU``, ``OneHotIoU``,
``OneHotMeanIoU``.  State is a ``(num_classes, num_classes)`` confusion matrix (rows: labels, columns:
predictions), ``int64`` by default as in Keras."""

from __future__ import annotations

import warnings

from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_shape import reshape
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.creation import ones_like, zeros, zeros_like
from tensorlet._src.ops.gather_scatter import gather, scatter_nd
from tensorlet._src.ops.linalg import diag_part
from tensorlet._src.ops.math_binary import cast, greater, logical_and, not_equal
from tensorlet._src.ops.reduce import argmax, reduce_sum
from tensorlet._src.keras.metrics.base import Metric, _value, broadcast_like, epsilon, squeeze_or_expand_to_same_rank, \
    to_tensor
from tensorlet._src.ops.registry import tf_export


def confusion_matrix(labels, predictions, num_classes, weights=None, dtype="int32"):
    """``(num_classes, num_classes)`` counts of (label, prediction) pairs, weighted by ``weights``."""
    labels = to_tensor(labels, dtype)
    predictions = to_tensor(predictions, dtype)
    labels, predictions = squeeze_or_expand_to_same_rank(labels, predictions)
    values = ones_like(predictions) if weights is None else to_tensor(weights, dtype)
    indices = cast(stack([labels, predictions], axis=1), "int64")
    n = int(num_classes)
    return scatter_nd(indices, cast(values, dtype), [n, n])


class _IoUBase(Metric):
    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int")
        self._direction = "up"
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(name="total_confusion_matrix", shape=(num_classes, num_classes),
                                          initializer="zeros", dtype=self.dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.sparse_y_true:
            y_true = argmax(to_tensor(y_true), axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = argmax(to_tensor(y_pred), axis=self.axis)
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, self.dtype)
        if y_pred.shape.rank > 1:
            y_pred = reshape(y_pred, [-1])
        if y_true.shape.rank > 1:
            y_true = reshape(y_true, [-1])
        if sample_weight is None:
            sample_weight = 1
        elif "float" in str(getattr(sample_weight, "dtype", "")) and "int" in self.dtype:
            warnings.warn("You are passing weight as `float`, but dtype is `int`. This may result in an incorrect "
                          "weight due to type casting Consider using integer weights.", stacklevel=2)
        sample_weight = to_tensor(sample_weight, self.dtype)
        if sample_weight.shape.rank > 1:
            sample_weight = reshape(sample_weight, [-1])
        sample_weight = broadcast_like(sample_weight, y_true)
        num_cls = cast(self.num_classes, y_true.dtype)
        in_bounds = logical_and(logical_and(y_true >= 0, y_true < num_cls),
                                  logical_and(y_pred >= 0, y_pred < num_cls))
        if self.ignore_class is not None:
            in_bounds = logical_and(in_bounds, not_equal(y_true, cast(self.ignore_class, y_true.dtype)))
        y_true = where(in_bounds, y_true, zeros_like(y_true))
        y_pred = where(in_bounds, y_pred, zeros_like(y_pred))
        sample_weight = where(in_bounds, sample_weight, zeros_like(sample_weight))
        current = confusion_matrix(y_true, y_pred, self.num_classes, weights=sample_weight, dtype=self.dtype)
        return self.total_cm.assign(self.total_cm + current)

    def reset_state(self):
        self.total_cm.assign(zeros(self.total_cm.shape, dtype=self.total_cm.dtype))


@tf_export("keras.metrics.IoU")
class IoU(_IoUBase):
    """Mean IoU ``TP / (TP + FP + FN)`` over ``target_class_ids``.

    >>> m = tf.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    >>> _ = m.update_state([0, 0, 1, 1], [0, 1, 0, 1]); round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, num_classes=num_classes, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis, dtype=dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        cm = _value(self.total_cm)
        sum_over_row = cast(reduce_sum(cm, axis=0), self.dtype)
        sum_over_col = cast(reduce_sum(cm, axis=1), self.dtype)
        true_positives = cast(diag_part(cm), self.dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        ids = constant(self.target_class_ids, dtype="int32")
        true_positives = cast(gather(true_positives, ids), "float32")
        denominator = cast(gather(denominator, ids), "float32")
        valid = cast(greater(denominator, 1e-9), "float32")
        num_valid = reduce_sum(valid)
        iou = true_positives / (denominator + epsilon())
        iou = where(cast(valid, "bool"), iou, zeros_like(iou))
        return reduce_sum(iou, axis=self.axis) / (num_valid + epsilon())

    def get_config(self):
        config = {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                  "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                  "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}
        return {**super().get_config(), **config}


@tf_export("keras.metrics.BinaryIoU")
class BinaryIoU(IoU):
    """IoU of binary predictions thresholded at ``threshold`` (``y_pred >= threshold`` is class 1)."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, "float32")
        y_pred = cast(y_pred >= self.threshold, self.dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self._dtype}


@tf_export("keras.metrics.MeanIoU")
class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes.

    >>> m = tf.keras.metrics.MeanIoU(num_classes=2)
    >>> _ = m.update_state([0, 0, 1, 1], [0, 1, 0, 1]); round(float(m.result()), 4)
    0.3333
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(name=name, num_classes=num_classes, target_class_ids=list(range(num_classes)), axis=axis,
                         dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@tf_export("keras.metrics.OneHotIoU")
class OneHotIoU(IoU):
    """IoU for one-hot labels (and one-hot/probability predictions)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids, "name": self.name,
                "dtype": self._dtype, "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


@tf_export("keras.metrics.OneHotMeanIoU")
class OneHotMeanIoU(MeanIoU):
    """MeanIoU for one-hot labels (and one-hot/probability predictions)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes=num_classes, axis=axis, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}
