"""``tf.keras.Sequential``: a plain stack of layers.

With a first ``keras.Input`` (or a layer given ``input_shape=``) the model is built at once as a functional graph;
otherwise it is built on first call (or by ``build(input_shape)``/``fit``).

>>> model = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
>>> model(np.ones((2, 3), np.float32)).shape
TensorShape([2, 1])
"""

from __future__ import annotations

import inspect

from tensorlet._src.keras.engine import base_layer as _base
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.engine.input_layer import InputLayer
from tensorlet._src.keras.engine.keras_tensor import KerasTensor
from tensorlet._src.keras.engine.training import Model
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest
from tensorlet._src.keras import mixed_precision
from tensorlet._src.keras.engine.layer_utils import call_sig
from tensorlet._src.keras.engine.masking import get_keras_mask
from tensorlet._src.keras.engine.name_scope import KerasScope
from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import unpack_x_y_sample_weight


@tf_export("keras.Sequential", "keras.models.Sequential")
class Sequential(Model):
    """A linear stack of layers: ``Sequential([Input((784,)), Dense(128, activation="relu"), Dense(10)])``."""

    _KERAS_NOT_TRACKED = Model._KERAS_NOT_TRACKED | {"_functional"}

    def __new__(cls, *args, **kwargs):
        return Layer.__new__(cls, *args, **kwargs)

    def __init__(self, layers=None, trainable=True, name=None, **kwargs):
        Layer.__init__(self, trainable=trainable, name=name, **kwargs)
        self._init_training_state()
        self._functional = None
        self._stack = []
        if layers:
            for layer in layers:
                self.add(layer, rebuild=False)
            self._maybe_rebuild()

    # --- layers ---------------------------------------------------------------------------------------------------
    def add(self, layer, rebuild=True):
        """Appends a layer (or a ``keras.Input``) to the stack."""
        if isinstance(layer, KerasTensor) and layer._keras_history is not None:
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise ValueError("Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        if not self._is_layer_name_unique(layer):
            raise ValueError("All layers added to a Sequential model should have unique names. Name "
                             f"'{layer.name}' is already the name of a layer in this model. Update the `name` "
                             "argument to pass a unique name.")
        if isinstance(layer, InputLayer) and self._stack and isinstance(self._stack[0], InputLayer):
            raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                             f"{self._stack[0].batch_shape}. You cannot add a different Input layer to it.")
        if not self._stack and not isinstance(layer, InputLayer) and \
                getattr(layer, "_input_shape_arg", None) is not None:
            self._stack.append(InputLayer(shape=layer._input_shape_arg,
                                          batch_size=getattr(layer, "_batch_size_arg", None)))
        self._stack.append(layer)
        _base._STRUCTURE[0] += 1
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False
            self._functional = None

    def pop(self, rebuild=True):
        """Removes and returns the last layer."""
        layers = self.layers
        if not layers:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        _base._STRUCTURE[0] += 1
        self.built = False
        self._functional = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _is_layer_name_unique(self, layer):
        return all(layer is other or layer.name != other.name for other in self._stack)

    @property
    def layers(self):
        """The layers, without the input layer."""
        stack = self._stack
        if stack and isinstance(stack[0], InputLayer):
            return list(stack[1:])
        return list(stack)

    @property
    def _layers(self):
        return list(self._stack)

    def _tracked(self):
        own, extra = Layer._tracked(self)
        layers = list(self._stack)
        seen = {id(x) for x in layers}
        return own, layers + [x for x in extra if id(x) not in seen]

    # --- building -------------------------------------------------------------------------------------------------
    def _maybe_rebuild(self):
        self.built = False
        self._functional = None
        if self._stack and isinstance(self._stack[0], InputLayer) and len(self._stack) > 1:
            self.build(self._stack[0].batch_shape)
        elif self._stack and isinstance(self._stack[0], InputLayer):
            self.built = False

    def build(self, input_shape=None):
        """Builds the layers for ``input_shape`` (batch dim included, e.g. ``(None, 784)``)."""
        if input_shape is not None and hasattr(input_shape, "as_list"):
            input_shape = input_shape.as_list()
        if input_shape is None or not isinstance(input_shape, (list, tuple)) or \
                not all(d is None or isinstance(d, int) for d in input_shape):
            return
        input_shape = tuple(input_shape)
        if not self._stack:
            raise ValueError(f"Sequential model {self.name} cannot be built because it has no layers. Call "
                             "`model.add(layer)`.")
        if isinstance(self._stack[0], InputLayer):
            if self._stack[0].batch_shape != input_shape:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                                 f"{self._stack[0].batch_shape}. You cannot build it with input_shape "
                                 f"{input_shape}")
        else:
            dtype = self._stack[0].compute_dtype
            self._stack = [InputLayer(batch_shape=input_shape, dtype=dtype)] + self._stack
            _base._STRUCTURE[0] += 1
        from tensorlet._src.keras.engine.functional import Functional

        with KerasScope(self.name, self):
            x = self._build_graph()
        if x is None:
            return
        self._functional = Functional(inputs=self._stack[0].output, outputs=x)
        self._build_shapes_dict = {"input_shape": input_shape}
        self.built = True

    def _build_graph(self):
        x = self._stack[0].output
        for layer in self._stack[1:]:
            try:
                x = layer(x)
            except NotImplementedError:
                return None
            except TypeError as e:
                params = [p for p in inspect.signature(layer.call).parameters.values()
                          if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                                p.POSITIONAL_OR_KEYWORD)]
                if len(params) != 1:
                    raise ValueError("Layers added to a Sequential model can only have a single positional "
                                     f"argument, the input tensor. Layer {type(layer).__name__} has multiple "
                                     f"positional arguments: {params}") from e
                raise
        return x

    def _maybe_build(self, args, kwargs):
        if self.built:
            return
        first = args[0] if args else None
        if first is not None and hasattr(first, "shape") and not isinstance(first, (list, tuple, dict)):
            self.build(tuple(first.shape))
        self.built = True

    def _symbolic_build(self, data, kind="train"):
        if self.built:
            return
        x, _, _ = unpack_x_y_sample_weight(data)
        if hasattr(x, "shape") and not isinstance(x, (list, tuple, dict)):
            self.build((None,) + tuple(x.shape)[1:])
        if not self.built:
            Model._symbolic_build(self, data, kind)

    # --- calling --------------------------------------------------------------------------------------------------
    def call(self, inputs, training=None, mask=None):
        if self._functional is not None:
            return self._functional.call(inputs, training=training, mask=mask)
        outputs = inputs
        for layer in self.layers:
            kwargs = {}
            sig = call_sig(layer)
            if sig.has_mask and mask is not None:
                kwargs["mask"] = mask
            if sig.has_training and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            inputs = outputs
            mask = nest.map_structure(get_keras_mask, outputs)
            if all(m is None for m in nest.flatten(mask)):
                mask = None
        return outputs

    # --- functional views -----------------------------------------------------------------------------------------
    @property
    def inputs(self):
        if self._functional is not None:
            return self._functional.inputs
        raise AttributeError(f"Sequential model '{self.name}' has no defined inputs yet.")

    @property
    def outputs(self):
        if self._functional is not None:
            return self._functional.outputs
        raise AttributeError(f"Sequential model '{self.name}' has no defined outputs yet.")

    @property
    def input(self):
        return self.inputs[0]

    @property
    def output(self):
        return self.outputs[0]

    @property
    def input_shape(self):
        if self._functional is not None:
            return self._functional.input_shape
        raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.")

    @property
    def output_shape(self):
        if self._functional is not None:
            return self._functional.output_shape
        raise AttributeError(f"Sequential model '{self.name}' has no defined output shape yet.")

    @property
    def input_spec(self):
        return None

    @input_spec.setter
    def input_spec(self, value):
        pass

    def compute_output_shape(self, input_shape):
        if self._functional is not None:
            return self._functional.compute_output_shape(input_shape)
        return Layer.compute_output_shape(self, input_shape)

    def _output_names(self):
        if self._functional is not None:
            return self._functional.output_names
        return None

    # --- config ---------------------------------------------------------------------------------------------------
    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        layer_configs = [serialize_keras_object(layer) for layer in self._stack]
        config = {"name": self.name, "trainable": self.trainable, "dtype": None, "layers": layer_configs}
        config["dtype"] = mixed_precision.serialize(self.dtype_policy)
        if self._build_shapes_dict is not None:
            config["build_input_shape"] = self._build_shapes_dict["input_shape"]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        layers = [deserialize_keras_object(c, custom_objects=custom_objects) for c in config.pop("layers", [])]
        build_shape = config.pop("build_input_shape", None)
        config.pop("dtype", None)
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for layer in layers:
            model.add(layer, rebuild=False)
        model._maybe_rebuild()
        if not model.built and build_shape is not None:
            model.build(tuple(build_shape))
        return model
