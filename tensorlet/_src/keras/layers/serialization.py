"""``keras.layers.serialize`` / ``deserialize``: a layer to and from its Keras 3 config dict."""

from __future__ import annotations

from tensorlet._src.ops.registry import tf_export


@tf_export("keras.layers.serialize")
def serialize(layer):
    """The layer's config dict (``keras.saving.serialize_keras_object``)."""
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    return serialize_keras_object(layer)


@tf_export("keras.layers.deserialize")
def deserialize(config, custom_objects=None):
    """The layer a config dict describes; a config of something else is a ``ValueError``, as in Keras 3."""
    from tensorlet._src.keras.engine.base_layer import Layer
    from tensorlet._src.keras.saving.serialization import deserialize_keras_object

    obj = deserialize_keras_object(config, custom_objects=custom_objects)
    if not isinstance(obj, Layer):
        raise ValueError("`keras.layers.deserialize` was passed a `config` object that is not a "
                         f"`keras.layers.Layer`. Received: {config}")
    return obj
