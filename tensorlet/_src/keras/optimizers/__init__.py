"""``tf.keras.optimizers``: Keras 3 optimizers, ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from tensorlet._src.keras import _objects
from tensorlet._src.keras.optimizers.adam import Adam, Adamax, AdamW, Nadam
from tensorlet._src.keras.optimizers.base import Optimizer
from tensorlet._src.keras.optimizers.ftrl import Ftrl, Lion
from tensorlet._src.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from tensorlet._src.keras.optimizers.rmsprop import Adadelta, Adagrad, RMSprop
from tensorlet._src.keras.optimizers.sgd import SGD
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras.optimizers.legacy import Optimizer as LegacyOptimizer

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lion", "LossScaleOptimizer", "Nadam",
           "Optimizer", "RMSprop", "SGD", "deserialize", "get", "serialize"]

ALL_OBJECTS = (Optimizer, Adam, SGD, RMSprop, Adadelta, AdamW, Adagrad, Adamax, Nadam, Ftrl, Lion, LossScaleOptimizer)
ALL_OBJECTS_DICT = {c.__name__.lower(): c for c in ALL_OBJECTS}


@tf_export("keras.optimizers.serialize")
def serialize(optimizer):
    """The Keras 3 config dict of an optimizer."""
    return _objects.serialize_object(optimizer)


@tf_export("keras.optimizers.deserialize")
def deserialize(config, custom_objects=None):
    """An optimizer from its config dict (class names are matched case-insensitively for built-ins)."""
    config = dict(config)
    if config["class_name"].lower() in ALL_OBJECTS_DICT:
        config["class_name"] = config["class_name"].lower()
    return _objects.deserialize_object(config, ALL_OBJECTS_DICT, custom_objects, kind="optimizer")


@tf_export("keras.optimizers.get")
def get(identifier):
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer instance.

    >>> tf.keras.optimizers.get("sgd").name
    'sgd'
    """
    return _objects.get_object(identifier, "optimizer", ALL_OBJECTS_DICT, deserialize, by_name=_by_name,
                               instantiate=False, accept=lambda obj: isinstance(obj, (Optimizer, LegacyOptimizer)))


def _by_name(name):
    try:
        return deserialize({"class_name": name, "config": {}})
    except (TypeError, ValueError):
        return None
