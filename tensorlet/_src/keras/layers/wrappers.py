"""Keras 3's layer wrappers: ``Wrapper`` (base), ``Bidirectional`` and ``TimeDistributed``.

>>> bi = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(4, return_sequences=True))
>>> bi(tf.ones((2, 5, 3))).shape
TensorShape([2, 5, 8])
"""

from __future__ import annotations

import copy

from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.array_blocks import concat, stack, unstack
from tensorlet._src.ops.array_select import reverse
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.rnn import _call_accepts
from tensorlet._src.keras.layers.rnn_cells import build_sublayer
from tensorlet._src.ops.registry import tf_export

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _serialize(obj):
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    return serialize_keras_object(obj)


def _deserialize(config, custom_objects=None):
    from tensorlet._src.keras.saving.serialization import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects=custom_objects)


@tf_export("keras.layers.Wrapper")
class Wrapper(Layer):
    """Base class of the layers that wrap another layer (``Bidirectional``, ``TimeDistributed``)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure wrapped "
                             "layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            build_sublayer(self.layer, input_shape)
        self.built = True

    def get_config(self):
        return {**super().get_config(), "layer": _serialize(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = _deserialize(config.pop("layer"), custom_objects)
        return cls(layer, **config)


def _clone(layer, name, **overrides):
    """A new, unbuilt layer with ``layer``'s config (Keras serializes and deserializes it)."""
    config = _serialize(layer)
    config = copy.deepcopy(config)
    config["config"]["name"] = name
    config["config"].update(overrides)
    return _deserialize(config)


def _removeprefix(s, prefix):
    return s[len(prefix):] if s.startswith(prefix) else s


@tf_export("keras.layers.Bidirectional")
class Bidirectional(Layer):
    """Runs an RNN forwards and a copy of it backwards over the sequence and merges the two outputs.

    ``merge_mode`` is ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or ``None`` (a list of both outputs);
    ``backward_layer`` replaces the automatic copy (it must have ``go_backwards=True``).  The backward outputs are
    reversed back to the input's time order before merging; weights are the forward layer's then the backward's.

    >>> tf.keras.layers.Bidirectional(tf.keras.layers.GRU(3), merge_mode="sum")(tf.ones((2, 4, 5))).shape
    TensorShape([2, 3])
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. "
                             f"Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        self.forward_layer = _clone(layer, f"forward_{_removeprefix(layer.name, 'forward_')}")
        if backward_layer is None:
            self.backward_layer = _clone(layer, f"backward_{_removeprefix(layer.name, 'backward_')}",
                                         go_backwards=True)
        else:
            self.backward_layer = backward_layer
        if hasattr(layer, "use_cudnn"):
            self.forward_layer.use_cudnn = layer.use_cudnn
            self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        if weights:
            n = len(weights)
            self.forward_layer.initial_weights = weights[: n // 2]
            self.backward_layer.initial_weights = weights[n // 2:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify_layer_config(self):
        fwd, bwd = self.forward_layer, self.backward_layer
        if fwd.go_backwards == bwd.go_backwards:
            raise ValueError("Forward layer and backward layer should have different `go_backwards` value. Received: "
                             f"forward_layer.go_backwards {fwd.go_backwards}, backward_layer.go_backwards="
                             f"{bwd.go_backwards}")
        for a in ("stateful", "return_sequences", "return_state"):
            f, b = getattr(fwd, a), getattr(bwd, a)
            if f != b:
                raise ValueError("Forward layer and backward layer are expected to have the same value for attribute "
                                 f'"{a}", got "{f}" for forward layer and "{b}" for backward layer')

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        output_shape = self.forward_layer.compute_output_shape(sequences_shape)
        state_shape = ()
        if self.return_state:
            output_shape, state_shape = output_shape[0], tuple(output_shape[1:])
        if self.merge_mode == "concat":
            output_shape = list(output_shape)
            output_shape[-1] *= 2
            output_shape = tuple(output_shape)
        elif self.merge_mode is None:
            output_shape = [output_shape, output_shape]
        if self.return_state:
            if self.merge_mode is None:
                return tuple(output_shape) + state_shape + state_shape
            return (output_shape,) + state_shape + state_shape
        return tuple(output_shape)

    def build(self, sequences_shape, initial_state_shape=None):
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                build_sublayer(sub, sequences_shape)
        self.built = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {}
        if _call_accepts(self.forward_layer.call, "training"):
            kwargs["training"] = training
        if _call_accepts(self.forward_layer.call, "mask"):
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = list(initial_state[:half]), list(initial_state[half:])
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        y = cast(y, self.compute_dtype)
        y_rev = cast(y_rev, self.compute_dtype)
        if self.return_sequences:
            y_rev = reverse(y_rev, axis=[1])
        if self.merge_mode == "concat":
            output = concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return (output,) + states
        return output

    def reset_states(self):
        self.reset_state()

    def reset_state(self):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    @property
    def states(self):
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states) + tuple(self.backward_layer.states)
        return None

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = mask if self.merge_mode else [mask, mask]
        else:
            output_mask = None if self.merge_mode else [None, None]
        if self.return_state and self.states is not None:
            state_mask = [None for _ in self.states]
            if isinstance(output_mask, list):
                return output_mask + state_mask * 2
            return [output_mask] + state_mask * 2
        return output_mask

    def get_config(self):
        config = {"merge_mode": self.merge_mode, "layer": _serialize(self.forward_layer),
                  "backward_layer": _serialize(self.backward_layer)}
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = copy.deepcopy(config)
        config["layer"] = _deserialize(config["layer"], custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = _deserialize(backward, custom_objects)
        return cls(**config)


@tf_export("keras.layers.TimeDistributed")
class TimeDistributed(Wrapper):
    """Applies a layer to every timestep (axis 1) of its input, with the same weights.

    >>> td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))
    >>> td(tf.ones((4, 10, 3))).shape
    TensorShape([4, 10, 2])
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def _get_child_input_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                             f"received: {input_shape}")
        return (input_shape[0], *input_shape[2:])

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        child = tuple(self.layer.compute_output_shape(self._get_child_input_shape(input_shape)))
        return (child[0], input_shape[1], *child[1:])

    def build(self, input_shape):
        super().build(self._get_child_input_shape(tuple(input_shape)))

    def call(self, inputs, training=None, mask=None):
        inputs = convert_to_tensor(inputs)
        if mask is not None:
            mshape, ishape = tuple(mask.shape), tuple(inputs.shape)
            if len(mshape) < 2:
                raise ValueError("The `mask` passed to the `TimeDistributed` layer must be at least 2D (e.g., "
                                 f"`(batch_size, timesteps)`), but it has {len(mshape)} dimension(s) with shape "
                                 f"{mask.shape}.")
            bad = any(a is not None and b is not None and a != b for a, b in zip(ishape[:2], mshape[:2]))
            if bad:
                raise ValueError(f"The `mask` passed to the `TimeDistributed` layer has a shape {mask.shape} that is "
                                 f"incompatible with the input shape {inputs.shape}. The first two dimensions of the "
                                 "mask (batch size and timesteps) must match the input's first two dimensions. "
                                 f"Expected mask shape prefix: ({ishape[0]}, {ishape[1]}).")
        steps = inputs.shape[1]
        if steps is None:
            raise ValueError("tensorlet's TimeDistributed needs a static number of timesteps; got inputs of shape "
                             f"{inputs.shape}.")
        kwargs = {}
        if _call_accepts(self.layer.call, "training"):
            kwargs["training"] = training
        pass_mask = mask is not None and _call_accepts(self.layer.call, "mask")
        xs = unstack(inputs, num=steps, axis=1)
        ms = unstack(mask, num=steps, axis=1) if pass_mask else None
        outputs = []
        for i in range(steps):
            kw = dict(kwargs)
            if pass_mask:
                kw["mask"] = ms[i]
            outputs.append(self.layer.call(xs[i], **kw))
        return stack(outputs, axis=1)
