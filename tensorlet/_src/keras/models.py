"""``tf.keras.models`` helpers built on configs: ``clone_model`` and ``model_from_json``.

>>> model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
>>> clone = tf.keras.models.clone_model(model)
>>> [tuple(w.shape) for w in clone.weights]
[(3, 2), (2,)]
"""

from __future__ import annotations

import json

from tensorlet._src.ops.registry import tf_export


@tf_export("keras.models.clone_model")
def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False, **kwargs):
    """A new model with the same architecture and freshly initialized weights (weights are not copied)."""
    from tensorlet._src.keras.engine.functional import Functional
    from tensorlet._src.keras.engine.sequential import Sequential
    from tensorlet._src.keras.saving.serialization import deserialize_keras_object, serialize_keras_object

    def clone_layer(layer):
        if clone_function is not None:
            return clone_function(layer)
        return layer.__class__.from_config(layer.get_config())

    if isinstance(model, Sequential):
        from tensorlet._src.keras.engine.input_layer import InputLayer

        layers = [clone_layer(layer) if not isinstance(layer, InputLayer) else
                  InputLayer.from_config(layer.get_config()) for layer in model._layers]
        new = Sequential(name=model.name, trainable=model.trainable)
        if input_tensors is not None:
            new.add(input_tensors if not isinstance(input_tensors, (list, tuple)) else input_tensors[0],
                    rebuild=False)
            layers = [lay for lay in layers if not isinstance(lay, InputLayer)]
        for layer in layers:
            new.add(layer, rebuild=False)
        new._maybe_rebuild()
        if not new.built and model.built and model._build_shapes_dict:
            new.build(model._build_shapes_dict["input_shape"])
        return new
    if isinstance(model, Functional):
        config = model.get_config()
        if clone_function is None:
            return type(model).from_config(config) if type(model) is not Functional else \
                Functional.from_config(config)
        return Functional.from_config(config)
    # subclassed model: rebuild from its config
    try:
        return deserialize_keras_object(serialize_keras_object(model))
    except (TypeError, NotImplementedError) as e:
        raise ValueError("Arguments `clone_function` and `input_tensors` are only supported for Sequential models "
                         f"or Functional models. Received model of type '{type(model).__name__}', which could not be "
                         f"cloned from its config: {e}") from e


@tf_export("keras.models.model_from_json")
def model_from_json(json_string, custom_objects=None):
    """A model (uncompiled, fresh weights) from ``model.to_json()``'s string."""
    from tensorlet._src.keras.saving.serialization import deserialize_keras_object

    return deserialize_keras_object(json.loads(json_string), custom_objects=custom_objects)


def model_to_json(model, **kwargs):
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    return json.dumps(serialize_keras_object(model), default=_default, **kwargs)


def _default(obj):
    if isinstance(obj, tuple):
        return list(obj)
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
