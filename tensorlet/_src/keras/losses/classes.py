"""Keras 3's loss classes (``tf.keras.losses.MeanSquaredError`` ...): a function plus reduction and weighting.

>>> float(tf.keras.losses.MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]]))
0.5
"""

from __future__ import annotations

from tensorlet._src.keras.losses import functions as F
from tensorlet._src.keras.losses.base import Loss, LossFunctionWrapper
from tensorlet._src.ops.registry import tf_export

_L = "keras.losses."
_SOB = "sum_over_batch_size"


class _Simple(LossFunctionWrapper):
    """A wrapper whose config is only ``name`` and ``reduction`` (as Keras writes it)."""

    _fn = None
    _default_name = None

    def __init__(self, reduction=_SOB, name=None, dtype=None, **kwargs):
        super().__init__(type(self)._fn, name=name or self._default_name, reduction=reduction, dtype=dtype,
                         **kwargs)

    def get_config(self):
        return Loss.get_config(self)


def _simple(cls_name, fn, default_name, doc):
    cls = type(cls_name, (_Simple,), {"_fn": staticmethod(fn), "_default_name": default_name, "__doc__": doc,
                                      "__module__": __name__, "__qualname__": cls_name})
    return tf_export(_L + cls_name)(cls)


MeanSquaredError = _simple("MeanSquaredError", F.mean_squared_error, "mean_squared_error",
                           "Mean of squared errors.")
MeanAbsoluteError = _simple("MeanAbsoluteError", F.mean_absolute_error, "mean_absolute_error",
                            "Mean of absolute errors.")
MeanAbsolutePercentageError = _simple("MeanAbsolutePercentageError", F.mean_absolute_percentage_error,
                                      "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _simple("MeanSquaredLogarithmicError", F.mean_squared_logarithmic_error,
                                      "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
LogCosh = _simple("LogCosh", F.log_cosh, "log_cosh", "Logarithm of the hyperbolic cosine of the error.")
Hinge = _simple("Hinge", F.hinge, "hinge", "Hinge loss (0/1 labels become -1/1).")
SquaredHinge = _simple("SquaredHinge", F.squared_hinge, "squared_hinge", "Squared hinge loss.")
CategoricalHinge = _simple("CategoricalHinge", F.categorical_hinge, "categorical_hinge", "Categorical hinge loss.")
KLDivergence = _simple("KLDivergence", F.kl_divergence, "kl_divergence", "Kullback-Leibler divergence.")
Poisson = _simple("Poisson", F.poisson, "poisson", "Poisson loss ``y_pred - y_true * log(y_pred)``.")


@tf_export(_L + "CosineSimilarity")
class CosineSimilarity(_Simple):
    """Negative cosine similarity along ``axis``."""

    _fn = staticmethod(F.cosine_similarity)

    def __init__(self, axis=-1, reduction=_SOB, name="cosine_similarity", dtype=None):
        super().__init__(reduction=reduction, name=name, dtype=dtype, axis=axis)


@tf_export(_L + "Huber")
class Huber(_Simple):
    """Huber loss with threshold ``delta``."""

    _fn = staticmethod(F.huber)

    def __init__(self, delta=1.0, reduction=_SOB, name="huber_loss", dtype=None):
        super().__init__(reduction=reduction, name=name, dtype=dtype, delta=delta)


@tf_export(_L + "BinaryCrossentropy")
class BinaryCrossentropy(LossFunctionWrapper):
    """Binary crossentropy of probabilities (or logits with ``from_logits=True``).

    >>> bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=_SOB, name="binary_crossentropy",
                 dtype=None):
        super().__init__(F.binary_crossentropy, name=name, reduction=reduction, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis}


@tf_export(_L + "BinaryFocalCrossentropy")
class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Focal loss for binary labels: easy examples are down-weighted by ``(1 - p_t)**gamma``."""

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction=_SOB, name="binary_focal_crossentropy", dtype=None):
        super().__init__(F.binary_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self):
        return {**Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis, "apply_class_balancing": self.apply_class_balancing, "alpha": self.alpha,
                "gamma": self.gamma}


@tf_export(_L + "CategoricalCrossentropy")
class CategoricalCrossentropy(LossFunctionWrapper):
    """Crossentropy with one-hot labels (``label_smoothing``, ``axis``)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=_SOB,
                 name="categorical_crossentropy", dtype=None):
        super().__init__(F.categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis}


@tf_export(_L + "CategoricalFocalCrossentropy")
class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Focal loss for one-hot labels."""

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1, reduction=_SOB,
                 name="categorical_focal_crossentropy", dtype=None):
        super().__init__(F.categorical_focal_crossentropy, name=name, reduction=reduction, dtype=dtype, alpha=alpha,
                         gamma=gamma, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self):
        return {**Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis, "alpha": self.alpha, "gamma": self.gamma}


@tf_export(_L + "SparseCategoricalCrossentropy")
class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Crossentropy with integer labels; ``ignore_class`` labels do not count.

    >>> loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    """

    def __init__(self, from_logits=False, ignore_class=None, reduction=_SOB, axis=-1,
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(F.sparse_categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def get_config(self):
        return {**Loss.get_config(self), "from_logits": self.from_logits, "ignore_class": self.ignore_class}


@tf_export(_L + "Dice")
class Dice(LossFunctionWrapper):
    """Dice loss for segmentation."""

    def __init__(self, reduction=_SOB, name="dice", axis=None, dtype=None):
        super().__init__(F.dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "axis": self.axis}


@tf_export(_L + "Tversky")
class Tversky(LossFunctionWrapper):
    """Tversky loss (Dice with separate false-positive/negative weights)."""

    def __init__(self, alpha=0.5, beta=0.5, reduction=_SOB, name="tversky", axis=None, dtype=None):
        super().__init__(F.tversky, name=name, reduction=reduction, dtype=dtype, alpha=alpha, beta=beta, axis=axis)
        self.alpha = alpha
        self.beta = beta
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "alpha": self.alpha, "beta": self.beta, "axis": self.axis}


@tf_export(_L + "CategoricalGeneralizedCrossEntropy")
class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized crossentropy ``(1 - p**q) / q`` (robust to noisy labels)."""

    def __init__(self, q=0.5, reduction=_SOB, name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(F.categorical_generalized_cross_entropy, name=name, reduction=reduction, dtype=dtype, q=q)
        self.q = q

    def get_config(self):
        return {**Loss.get_config(self), "q": self.q}
