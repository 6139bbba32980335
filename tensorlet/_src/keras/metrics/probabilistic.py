"""Loss-valued metrics (Keras 3): cross-entropies, KL divergence, Poisson, hinge family."""

from __future__ import annotations

from tensorlet._src.keras.metrics import functions as F
from tensorlet._src.keras.metrics.base import MeanMetricWrapper
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.metrics.KLDivergence")
class KLDivergence(MeanMetricWrapper):
    """Mean of ``sum(y_true * log(y_true / y_pred))`` over the last axis."""

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(fn=F.kl_divergence, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


@tf_export("keras.metrics.Poisson")
class Poisson(MeanMetricWrapper):
    """Mean of ``y_pred - y_true * log(y_pred)``."""

    def __init__(self, name="poisson", dtype=None):
        super().__init__(fn=F.poisson, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


@tf_export("keras.metrics.BinaryCrossentropy")
class BinaryCrossentropy(MeanMetricWrapper):
    """Mean binary cross-entropy.

    >>> m = tf.keras.metrics.BinaryCrossentropy()
    >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]]); round(float(m.result()), 4)
    0.8149
    """

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(F.binary_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing}


@tf_export("keras.metrics.CategoricalCrossentropy")
class CategoricalCrossentropy(MeanMetricWrapper):
    """Mean categorical cross-entropy of one-hot labels."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(F.categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


@tf_export("keras.metrics.SparseCategoricalCrossentropy")
class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """Mean categorical cross-entropy of integer labels."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None,
                 axis=-1):
        super().__init__(F.sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "ignore_class": self.ignore_class, "axis": self.axis}


class _HingeBase(MeanMetricWrapper):
    _FN = None

    def __init__(self, name, dtype=None):
        super().__init__(fn=type(self)._FN, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


@tf_export("keras.metrics.Hinge")
class Hinge(_HingeBase):
    """Mean of ``max(1 - y_true * y_pred, 0)`` ({0, 1} labels are mapped to {-1, 1})."""

    _FN = staticmethod(F.hinge)

    def __init__(self, name="hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.SquaredHinge")
class SquaredHinge(_HingeBase):
    """Mean of ``max(1 - y_true * y_pred, 0) ** 2``."""

    _FN = staticmethod(F.squared_hinge)

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)


@tf_export("keras.metrics.CategoricalHinge")
class CategoricalHinge(_HingeBase):
    """Mean of ``max(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)``, ``neg = max((1 - y_true) * y_pred)``."""

    _FN = staticmethod(F.categorical_hinge)

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(name=name, dtype=dtype)
