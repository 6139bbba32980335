"""``keras.layers.TFSMLayer``: a SavedModel endpoint as a Keras layer (its variables are the layer's weights)."""

from __future__ import annotations

from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.ops.registry import tf_export


def _endpoint(obj, name):
    if name in getattr(obj, "__dict__", {}) and callable(obj.__dict__[name]):
        return obj.__dict__[name]
    sigs = getattr(obj, "signatures", {})
    if name in sigs:
        return sigs[name]
    raise ValueError(f"The endpoint '{name}' is neither an attribute of the reloaded SavedModel, nor an entry in the "
                     "`signatures` field of the reloaded SavedModel. Select another endpoint via the `call_endpoint` "
                     f"argument. Available endpoints for this SavedModel: {list(sigs.keys())}")


def _used_variables(fns):
    seen, trainable, non_trainable = set(), [], []
    for fn in fns:
        cfs = getattr(fn, "concrete_functions", None) or [fn]
        for cf in cfs:
            for v in cf.graph.variables:
                if id(v) not in seen:
                    seen.add(id(v))
                    (trainable if v.trainable else non_trainable).append(v)
    return trainable, non_trainable


@tf_export("keras.layers.TFSMLayer")
class TFSMLayer(Layer):
    """Reloads a SavedModel (from ``model.export()`` or ``tf.saved_model.save``) as a layer.

    ``call_endpoint`` names a function attribute of the loaded object (``"serve"`` after ``model.export``) or a
    signature (``"serving_default"``, which returns a dict).  The variables the endpoint uses become the layer's
    weights, so the reloaded layer can be fine-tuned.

    >>> model.export("/tmp/artifact")  # doctest: +SKIP
    >>> layer = tf.keras.layers.TFSMLayer("/tmp/artifact", call_endpoint="serve")  # doctest: +SKIP
    >>> layer(x)  # doctest: +SKIP
    """

    def __init__(self, filepath, call_endpoint="serve", call_training_endpoint=None, trainable=True, name=None,
                 dtype=None):
        from tensorlet._src.saved_model.load import load

        super().__init__(trainable=trainable, name=name, dtype=dtype)
        obj = load(filepath)
        object.__setattr__(self, "_reloaded_obj", obj)
        self.filepath = str(filepath)
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        object.__setattr__(self, "call_endpoint_fn", _endpoint(obj, call_endpoint))
        fns = [self.call_endpoint_fn]
        if call_training_endpoint:
            object.__setattr__(self, "call_training_endpoint_fn", _endpoint(obj, call_training_endpoint))
            fns.append(self.call_training_endpoint_fn)
        trainable_vars, non_trainable_vars = _used_variables(fns)
        self._trainable_variables.extend(trainable_vars)
        self._non_trainable_variables.extend(non_trainable_vars)
        self.built = True

    def call(self, inputs, training=False, **kwargs):
        if training and self.call_training_endpoint:
            return self.call_training_endpoint_fn(inputs, **kwargs)
        return self.call_endpoint_fn(inputs, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.update({"filepath": self.filepath, "call_endpoint": self.call_endpoint,
                       "call_training_endpoint": self.call_training_endpoint})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """Recreates the layer; refused in safe mode (it loads an external SavedModel), as in Keras."""
        if safe_mode is None:
            try:
                from tensorlet._src.keras.saving import serialization

                safe_mode = serialization._SAFE_MODE[0]
            except (ImportError, AttributeError):
                safe_mode = True
        if safe_mode is not False:
            raise ValueError("Requested the deserialization of a `TFSMLayer`, which loads an external SavedModel. "
                             "This carries a potential risk of arbitrary code execution and thus it is disallowed by "
                             "default. If you trust the source of the artifact, you can override this error by "
                             "passing `safe_mode=False` to the loading function, or calling "
                             "`keras.config.enable_unsafe_deserialization().")
        config = dict(config)
        return cls(**config)
