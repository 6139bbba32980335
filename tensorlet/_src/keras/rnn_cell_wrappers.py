"""``tf.nn.RNNCellDropoutWrapper`` / ``RNNCellResidualWrapper`` / ``RNNCellDeviceWrapper``: TF 2.21's deprecated
wrappers around one RNN cell (a Keras cell here, as with Keras 3 in TF).

In TF 2.21 they are legacy ``tf.keras`` (Keras 2) layers, not Keras 3 layers: called as ``wrapper(inputs,
state)`` they build the wrapped cell and run its ``call``; ``keras.layers.RNN`` does not take them.  Here they
are ``tf.Module``s with the same contract and checks: dropout of inputs / new state / outputs with keep
probabilities (or one mask per sequence with ``variational_recurrent``), inputs added to outputs, a device scope.
This module imports no Keras code, so ``tf.nn`` stays cheap to load.
"""

from __future__ import annotations

import hashlib
import numbers

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.module import Module
from tensorlet._src.framework.tensor import EagerTensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class _CellWrapper(Module):
    """Common part: holds ``cell``; ``__call__`` builds it on the first call and runs ``call``."""

    def __init__(self, cell, name=None, dtype=None, trainable=True, **kwargs):
        super().__init__(name=name)
        self.cell = cell
        self._dtype = None if dtype is None else _dt.as_dtype(dtype)
        self.trainable = trainable
        self.built = False

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def dtype(self):
        return None if self._dtype is None else self._dtype.name

    def build(self, inputs_shape):
        if getattr(self.cell, "built", False):  # Keras 3 cells refuse a second build, and TF builds again
            raise ValueError("You cannot add new elements of state (variables or sub-layers) to a layer that is "
                             "already built. All state must be created in the `__init__()` method or in the "
                             "`build()` method.")
        self.cell.build(inputs_shape)
        self.built = True

    def __call__(self, inputs, state, **kwargs):
        if not self.built:
            self.build(nest.map_structure(lambda x: convert_to_tensor(x).shape, inputs))
        return self.call(inputs, state, **kwargs)

    def call(self, inputs, state, **kwargs):
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.call, **kwargs)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        from tensorlet._src.ops.creation import zeros

        if inputs is not None:
            batch_size = convert_to_tensor(inputs).shape[0]
            dtype = dtype or convert_to_tensor(inputs).dtype
        dtype = _dt.as_dtype(dtype or _dt.float32)

        def one(size):
            return zeros([batch_size] + TensorShape(size).as_list(), dtype)

        size = self.state_size
        if isinstance(size, (list, tuple)):
            return [one(s) for s in size]
        return one(size)

    def zero_state(self, batch_size, dtype):
        return self.cell.zero_state(batch_size, dtype)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype,
                "cell": {"class_name": type(self.cell).__name__, "config": self.cell.get_config()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)


def _gen_seed(seed, salt_prefix, index):
    """TF's per-tensor seed: md5 of the seed and a salt (so each dropped tensor gets its own stream)."""
    if seed is None:
        return None
    text = (str(seed) + f"{salt_prefix}_{index}").encode("utf-8")
    return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF


@tf_export("nn.RNNCellDropoutWrapper")
class DropoutWrapper(_CellWrapper):
    """Dropout on a cell's inputs, outputs and new state: ``tf.nn.RNNCellDropoutWrapper(cell,
    output_keep_prob=0.8)``; ``keep_prob`` values must lie in [0, 1]."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor
        for prob, attr in ((input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")):
            t = convert_to_tensor(prob)
            if isinstance(t, EagerTensor):
                v = float(t.numpy())
                if v < 0 or v > 1:
                    raise ValueError(f"Parameter {attr} must be between 0 and 1: {int(v)}")
                setattr(self, "_" + attr, v)
            else:
                setattr(self, "_" + attr, t)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._noise = {"input": None, "state": None, "output": None}
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._noise["input"] = self._batch_noise("input", input_size)
            self._noise["state"] = self._batch_noise("state", cell.state_size)
            self._noise["output"] = self._batch_noise("output", cell.output_size)

    @property
    def wrapped_cell(self):
        return self.cell

    def _batch_noise(self, salt, sizes):
        from tensorlet._src.ops.random_gen import uniform

        flat = sizes if isinstance(sizes, (list, tuple)) else [sizes]
        noise = [uniform([1] + TensorShape(s).as_list(), seed=_gen_seed(self._seed, salt, i), dtype=self._dtype)
                 for i, s in enumerate(flat)]
        return noise if isinstance(sizes, (list, tuple)) else noise[0]

    def _dropout(self, values, salt, keep_prob, keep=None):
        from tensorlet._src.ops import math_binary, math_unary
        from tensorlet._src.ops.nn_norm import dropout

        flat = nest.flatten(values)
        mask = [True] * len(flat) if keep is None else keep
        noise = self._noise[salt]
        noise = nest.flatten(noise) if noise is not None else None
        out = []
        for i, (v, do) in enumerate(zip(flat, mask)):
            if not do:
                out.append(v)
            elif not self._variational_recurrent:
                out.append(dropout(v, rate=1.0 - keep_prob, seed=_gen_seed(self._seed, salt, i)))
            else:  # one mask per sequence: floor(keep + noise) is 1 with probability keep
                binary = math_unary.floor(math_binary.add(noise[i], keep_prob))
                out.append(math_binary.multiply(math_binary.divide(v, keep_prob), binary))
        return nest.pack_sequence_as(values, out) if nest.is_nested(values) else out[0]

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def active(p):
            return not isinstance(p, float) or p < 1

        if active(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if active(self._state_keep_prob):
            # TF's default filter: every state tensor except an LSTMStateTuple's c
            keep = [bool(self._dropout_state_filter(s)) if self._dropout_state_filter else True
                    for s in nest.flatten(new_state)]
            new_state = self._dropout(new_state, "state", self._state_keep_prob, keep)
        if active(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state

    def get_config(self):
        config = {"input_keep_prob": self._input_keep_prob, "output_keep_prob": self._output_keep_prob,
                  "state_keep_prob": self._state_keep_prob, "variational_recurrent": self._variational_recurrent,
                  "input_size": self._input_size, "seed": self._seed}
        return {**super().get_config(), **config}


@tf_export("nn.RNNCellResidualWrapper")
class ResidualWrapper(_CellWrapper):
    """Adds the cell's inputs to its outputs (or applies ``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state
        nest.assert_same_structure(inputs, outputs)

        def add(i, o):
            i = convert_to_tensor(i)
            if not i.shape.is_compatible_with(o.shape):
                raise ValueError(f"Shapes {i.shape} and {o.shape} are incompatible")
            return i + o

        return nest.map_structure(add, inputs, outputs), new_state


@tf_export("nn.RNNCellDeviceWrapper")
class DeviceWrapper(_CellWrapper):
    """Runs the cell under ``tf.device(device)``."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        from tensorlet._src.framework.device import device

        with device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        from tensorlet._src.framework.device import device

        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

    def get_config(self):
        return {**super().get_config(), "device": self._device}


