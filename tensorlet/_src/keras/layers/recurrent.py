"""Keras 3's recurrent layers ``SimpleRNN``, ``LSTM``, ``GRU``: an ``RNN`` over the matching built-in cell.

The weights live in the cell (``lstm/lstm_cell/kernel`` ...), in Keras's layout and order, so weights taken from
real Keras with ``get_weights`` load unchanged with ``set_weights``.

>>> lstm = tf.keras.layers.LSTM(4, return_sequences=True, return_state=True)
>>> seq, h, c = lstm(tf.ones((2, 5, 3)))
>>> seq.shape, h.shape, c.shape
(TensorShape([2, 5, 4]), TensorShape([2, 4]), TensorShape([2, 4]))
"""

from __future__ import annotations

from tensorlet._src.keras.engine.base_layer import InputSpec
from tensorlet._src.keras.layers.rnn import RNN
from tensorlet._src.keras.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import activations, constraints, initializers, regularizers

_CELL_PROPS = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
               "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
               "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")


def _cell_property(name):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's ``{name}``.")


def _check_use_cudnn(use_cudnn):
    if use_cudnn not in ("auto", True, False):
        raise ValueError("Invalid valid received for argument `use_cudnn`. Expected one of {'auto', True, False}. "
                         f"Received: use_cudnn={use_cudnn}")


class _CellRNN(RNN):
    """An RNN over one built-in cell; the cell's arguments are the layer's (read through properties)."""

    _CELL_CONFIG_BACK = ("dropout", "recurrent_dropout")

    def _layer_config(self, front, back):
        c = self.cell
        config = {"units": c.units, "activation": activations.serialize(c.activation)}
        if hasattr(c, "recurrent_activation"):
            config["recurrent_activation"] = activations.serialize(c.recurrent_activation)
        config["use_bias"] = c.use_bias
        config.update({
            "kernel_initializer": initializers.serialize(c.kernel_initializer),
            "recurrent_initializer": initializers.serialize(c.recurrent_initializer),
            "bias_initializer": initializers.serialize(c.bias_initializer),
        })
        config.update(front)
        config.update({
            "kernel_regularizer": regularizers.serialize(c.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(c.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(c.bias_regularizer),
            "activity_regularizer": regularizers.serialize(getattr(self, "activity_regularizer", None)),
            "kernel_constraint": constraints.serialize(c.kernel_constraint),
            "recurrent_constraint": constraints.serialize(c.recurrent_constraint),
            "bias_constraint": constraints.serialize(c.bias_constraint),
            "dropout": c.dropout,
            "recurrent_dropout": c.recurrent_dropout,
        })
        config.update(back)
        base = RNN.get_config(self)
        base.pop("cell", None)
        return {**base, **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)


for _name in _CELL_PROPS:
    setattr(_CellRNN, _name, _cell_property(_name))


def _cell_kwargs(kwargs):
    return {"dtype": kwargs.get("dtype", None), "trainable": kwargs.get("trainable", True)}


@tf_export("keras.layers.SimpleRNN")
class SimpleRNN(_CellRNN):
    """Fully connected RNN whose output is fed back as its state: ``h_t = tanh(x_t W + h_{t-1} U + b)``.

    >>> tf.keras.layers.SimpleRNN(4)(tf.ones((2, 5, 3))).shape
    TensorShape([2, 4])
    """

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False,
                 seed=None, **kwargs):
        cell = SimpleRNNCell(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                             recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                             kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                             bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                             recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                             dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
                             name="simple_rnn_cell", **_cell_kwargs(kwargs))
        if activity_regularizer is not None:
            kwargs["activity_regularizer"] = activity_regularizer
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll, **kwargs)
        self.input_spec = [InputSpec(ndim=3)]

    def get_config(self):
        return self._layer_config({}, {})


@tf_export("keras.layers.LSTM")
class LSTM(_CellRNN):
    """Long Short-Term Memory layer (Hochreiter 1997); states ``[h, c]``, Keras's weights and gate order.

    >>> tf.keras.layers.LSTM(4)(tf.ones((2, 5, 3))).shape
    TensorShape([2, 4])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, use_cudnn="auto", **kwargs):
        cell = LSTMCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                        kernel_initializer=kernel_initializer, unit_forget_bias=unit_forget_bias,
                        recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                        bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                        recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                        recurrent_dropout=recurrent_dropout, seed=seed, name="lstm_cell",
                        implementation=kwargs.pop("implementation", 2), **_cell_kwargs(kwargs))
        if activity_regularizer is not None:
            kwargs["activity_regularizer"] = activity_regularizer
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll, **kwargs)
        self.input_spec = InputSpec(ndim=3)
        _check_use_cudnn(use_cudnn)
        self.use_cudnn = use_cudnn

    recurrent_activation = _cell_property("recurrent_activation")
    unit_forget_bias = _cell_property("unit_forget_bias")

    def get_config(self):
        return self._layer_config({"unit_forget_bias": self.cell.unit_forget_bias}, {"seed": self.cell.seed})


@tf_export("keras.layers.GRU")
class GRU(_CellRNN):
    """Gated Recurrent Unit (Cho et al. 2014); ``reset_after=True`` by default (bias of shape ``(2, 3 * units)``).

    >>> tf.keras.layers.GRU(4, return_sequences=True)(tf.ones((2, 5, 3))).shape
    TensorShape([2, 5, 4])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=True, use_cudnn="auto", **kwargs):
        cell = GRUCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                       kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                       bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                       recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                       kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                       bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
                       reset_after=reset_after, seed=seed, name="gru_cell",
                       implementation=kwargs.pop("implementation", 2), **_cell_kwargs(kwargs))
        if activity_regularizer is not None:
            kwargs["activity_regularizer"] = activity_regularizer
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll, **kwargs)
        self.input_spec = InputSpec(ndim=3)
        _check_use_cudnn(use_cudnn)
        self.use_cudnn = use_cudnn

    recurrent_activation = _cell_property("recurrent_activation")
    reset_after = _cell_property("reset_after")

    def get_config(self):
        return self._layer_config({}, {"reset_after": self.cell.reset_after, "seed": self.cell.seed})
