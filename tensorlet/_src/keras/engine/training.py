"""``tf.keras.Model``: a layer with training (``compile``/``fit``/``evaluate``/``predict``, from ``Trainer``) and
Keras 3's step API.

``Model(inputs, outputs)`` builds a functional model (see ``functional.py``); subclasses define ``call``, or call
``super().__init__(inputs=..., outputs=...)`` to be a functional model with methods of their own.
``train_step(data)`` returns a dict of metric results; override it to customize ``fit``.

>>> model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
>>> model.compile(optimizer="sgd", loss="mse")
>>> history = model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
>>> len(history.history["loss"])
2
"""

from __future__ import annotations

from tensorlet._src.distribute.strategy import get_strategy
from tensorlet._src.keras.engine import summary_utils
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.engine.layer_utils import json_friendly
from tensorlet._src.keras.engine.node import _Operation
from tensorlet._src.keras.trainers.trainer import Trainer
from tensorlet._src.ops.registry import tf_export


def _functional_args(args, kwargs):
    return len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs


@tf_export("keras.Model", "keras.models.Model")
class Model(Trainer, Layer):
    """A trainable model: ``Model(inputs, outputs)`` (functional) or a subclass defining ``call``.

    >>> inputs = tf.keras.Input((4,))
    >>> model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    >>> model.predict(np.ones((3, 4)), verbose=0).shape
    (3, 2)
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_args(args, kwargs):
            from tensorlet._src.keras.engine.functional import Functional

            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        from tensorlet._src.keras.engine.functional import Functional

        if _functional_args(args, kwargs) and not isinstance(self, Functional):
            # a subclass calling super().__init__(inputs=..., outputs=...): this instance becomes a functional model
            # that keeps the subclass's methods (its class: the subclass with Functional behind it)
            self.__class__ = _functional_variant(type(self), Functional)
            Functional.__init__(self, *args, **kwargs)
            return
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        Layer.__init__(self, trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._init_training_state()

    # --- misc -----------------------------------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Prints the layer table as Keras 3 does (``Total params: 1,290 (5.04 KB)``)."""
        summary_utils.print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                                    expand_nested=expand_nested, show_trainable=show_trainable,
                                    layer_range=layer_range)

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or by ``index`` into ``model.layers``."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            names = [layer.name for layer in self.layers]
            raise ValueError(f"No such layer: {name}. Existing layers are: {names}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def layers(self):
        """The model's direct sub-layers, in order."""
        return [layer for layer in self._layers if not isinstance(layer, _Operation)]

    @property
    def distribute_strategy(self):
        """The ``tf.distribute`` strategy the model was created under (the default strategy outside scopes)."""
        strategy = self.__dict__.get("_distribute_strategy")
        return strategy if strategy is not None else get_strategy()

    def save_weights(self, filepath, overwrite=True, **kwargs):
        from tensorlet._src.keras.saving import saving_api  # written by the saving helper

        return saving_api.save_weights(self, filepath, overwrite=overwrite, **kwargs)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        from tensorlet._src.keras.saving import saving_api

        return saving_api.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def save(self, filepath, overwrite=True, **kwargs):
        from tensorlet._src.keras.saving import saving_api

        return saving_api.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):  # noqa: A002
        """Writes a SavedModel with ``serve``/``serving_default`` signatures calling the model (inference)."""
        from tensorlet._src.saved_model.keras_export import export_keras_model

        return export_keras_model(self, filepath, format=format, verbose=verbose, input_signature=input_signature,
                                  **kwargs)

    def to_json(self, **kwargs):
        """The model's config as a JSON string (``keras.models.model_from_json`` reverses it)."""
        from tensorlet._src.keras.models import model_to_json

        return model_to_json(self, **kwargs)

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable}
        if type(self).__init__ is not Model.__init__:
            auto = self._auto_config
            if type(self).get_config is Model.get_config and auto is not None and json_friendly(auto):
                config.update(auto)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.engine import functional as _f

        if "layers" in config and "input_layers" in config and "output_layers" in config:
            return _f.functional_from_config(cls, config, custom_objects=custom_objects)
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError(f"Unable to revive model from config. When overriding the `get_config()` method, make "
                            f"sure that the returned config contains all items used as arguments in the  "
                            f"constructor to {cls}, which is the default behavior. You can override this default "
                            f"behavior by defining a `from_config(cls, config)` class method to specify how to "
                            f"create an instance of {cls.__name__} from its config.\n\nReceived config={config}\n\n"
                            f"Error encountered during deserialization: {e}") from e

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_FUNCTIONAL_VARIANTS = {}


def _functional_variant(cls, functional):
    """``cls`` with ``Functional`` after it in the method order (``class C(cls, Functional)``), named as ``cls`` and
    serialized under ``cls``'s registered name; one per class.  ``cls`` itself is left as it is."""
    variant = _FUNCTIONAL_VARIANTS.get(cls)
    if variant is None:
        variant = type(cls.__name__, (cls, functional), {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                                         "__doc__": cls.__doc__})
        variant._keras_functional_of = cls  # get_registered_name answers for cls
        _FUNCTIONAL_VARIANTS[cls] = variant
    return variant
