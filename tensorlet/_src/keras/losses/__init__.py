"""``tf.keras.losses``: Keras 3 losses (classes and functions), ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from tensorlet._src.keras import _objects
from tensorlet._src.keras.losses.base import Loss, LossFunctionWrapper, Reduction
from tensorlet._src.keras.losses.classes import (BinaryCrossentropy, BinaryFocalCrossentropy, CategoricalCrossentropy,
                                                 CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
                                                 CategoricalHinge, CosineSimilarity, Dice, Hinge, Huber, KLDivergence,
                                                 LogCosh, MeanAbsoluteError, MeanAbsolutePercentageError,
                                                 MeanSquaredError, MeanSquaredLogarithmicError, Poisson,
                                                 SparseCategoricalCrossentropy, SquaredHinge, Tversky)
from tensorlet._src.keras.losses.functions import (binary_crossentropy, binary_focal_crossentropy,
                                                   categorical_crossentropy, categorical_focal_crossentropy,
                                                   categorical_generalized_cross_entropy, categorical_hinge,
                                                   cosine_similarity, dice, hinge, huber, kl_divergence, log_cosh,
                                                   mean_absolute_error, mean_absolute_percentage_error,
                                                   mean_squared_error, mean_squared_logarithmic_error, poisson,
                                                   sparse_categorical_crossentropy, squared_hinge, tversky)
from tensorlet._src.ops.registry import tf_export

__all__ = ["Loss", "LossFunctionWrapper", "Reduction", "deserialize", "get", "serialize"]

ALL_OBJECTS = (Loss, LossFunctionWrapper, KLDivergence, Poisson, BinaryCrossentropy, BinaryFocalCrossentropy,
               CategoricalCrossentropy, CategoricalFocalCrossentropy, SparseCategoricalCrossentropy, MeanSquaredError,
               MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity, LogCosh,
               Huber, Hinge, SquaredHinge, CategoricalHinge, Dice, Tversky, CategoricalGeneralizedCrossEntropy,
               kl_divergence, poisson, binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
               categorical_focal_crossentropy, sparse_categorical_crossentropy, mean_squared_error,
               mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
               cosine_similarity, log_cosh, huber, hinge, squared_hinge, categorical_hinge, dice, tversky,
               categorical_generalized_cross_entropy)
ALL_OBJECTS_DICT = {o.__name__: o for o in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({"bce": binary_crossentropy, "BCE": binary_crossentropy, "kld": kl_divergence,
                         "KLD": kl_divergence, "mae": mean_absolute_error, "MAE": mean_absolute_error,
                         "mse": mean_squared_error, "MSE": mean_squared_error, "mape": mean_absolute_percentage_error,
                         "MAPE": mean_absolute_percentage_error, "msle": mean_squared_logarithmic_error,
                         "MSLE": mean_squared_logarithmic_error, "logcosh": log_cosh,
                         "kullback_leibler_divergence": kl_divergence, "huber_loss": huber})


@tf_export("keras.losses.serialize")
def serialize(loss):
    """The Keras 3 config of a loss object or function."""
    return _objects.serialize_object(loss)


@tf_export("keras.losses.deserialize")
def deserialize(name, custom_objects=None):
    """A loss from its name or config."""
    return _objects.deserialize_object(name, ALL_OBJECTS_DICT, custom_objects, kind="loss")


@tf_export("keras.losses.get")
def get(identifier):
    """A loss from a name (``"mse"``, ``"categorical_crossentropy"``, ``"MeanSquaredError"``), a config, a class or a
    callable; names of functions give the function, names of classes a new instance.

    >>> tf.keras.losses.get("mse").__name__
    'mean_squared_error'
    """
    return _objects.get_object(identifier, "loss", ALL_OBJECTS_DICT, deserialize)
