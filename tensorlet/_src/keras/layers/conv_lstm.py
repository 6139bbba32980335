"""Keras 3's convolutional LSTMs ``ConvLSTM1D``/``2D``/``3D``: an LSTM whose input and recurrent transformations
are convolutions (kernel ``kernel_size + (in, 4 * filters)``, recurrent kernel ``kernel_size + (filters,
4 * filters)``, bias ``(4 * filters,)``; gates ``i, f, c, o``).

>>> layer = tf.keras.layers.ConvLSTM2D(4, 3, padding="same", return_sequences=True)
>>> layer(tf.ones((2, 5, 8, 8, 3))).shape
TensorShape([2, 5, 8, 8, 4])
"""

from __future__ import annotations

from tensorlet._src.ops.array_blocks import concat, split
from tensorlet._src.ops.array_shape import reshape
from tensorlet._src.ops.creation import zeros
from tensorlet._src.ops.nn_conv import convolution
from tensorlet._src.keras.engine.base_layer import InputSpec
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.keras.layers.recurrent import _cell_property
from tensorlet._src.keras.layers.rnn import RNN
from tensorlet._src.keras.layers.rnn_cells import _CellBase, _masked
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import activations, constraints, initializers, regularizers

_TF_PAD = {"valid": "VALID", "same": "SAME"}


class ConvLSTMCell(_CellBase):
    """One step of an N-D convolutional LSTM (inputs ``(batch, *spatial, channels)`` with ``channels_last``)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(filters, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.rank = rank
        if rank > 3:
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. Received: rank={rank}")
        self.filters = filters
        self.kernel_size = U.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.standardize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = U.standardize_padding(padding)
        self.data_format = U.standardize_data_format(data_format)
        self.dilation_rate = U.standardize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please provide "
                             f"`strides=1` or `dilation_rate=1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.unit_forget_bias = unit_forget_bias
        self.dropout_mask_count = 4
        self.input_spec = InputSpec(ndim=rank + 2)
        self.state_size = -1  # the states' shapes come from get_initial_state

    def build(self, inputs_shape, states_shape=None):
        inputs_shape = tuple(inputs_shape)
        if self.data_format == "channels_first":
            channel_axis, self.spatial_dims = 1, inputs_shape[2:]
        else:
            channel_axis, self.spatial_dims = -1, inputs_shape[1:-1]
        if None in self.spatial_dims:
            raise ValueError("ConvLSTM layers only support static input shapes for the spatial dimension. Received "
                             f"invalid input shape: input_shape={inputs_shape}")
        if inputs_shape[channel_axis] is None:
            raise ValueError("The channel dimension of the inputs (last axis) should be defined. Found None. Full "
                             f"input shape received: input_shape={inputs_shape}")
        self.input_spec = InputSpec(ndim=self.rank + 3, shape=(None,) + inputs_shape[1:])
        self.input_dim = inputs_shape[channel_axis]
        f = self.filters
        self.kernel = self.add_weight(shape=self.kernel_size + (self.input_dim, 4 * f), name="kernel",
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=self.kernel_size + (f, 4 * f), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        init = self.bias_initializer
        if self.use_bias and self.unit_forget_bias:
            base, ones = self.bias_initializer, initializers.get("ones")

            def init(shape, dtype=None, **kwargs):
                return concat([base((f,), dtype=dtype), ones((f,), dtype=dtype), base((2 * f,), dtype=dtype)], 0)

        self._add_bias((4 * f,), init)
        self.built = True

    def _conv(self, x, w, strides, padding, dilations):
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, self.rank)
        y = convolution(x, w, strides=list(strides), padding=_TF_PAD[padding], dilations=list(dilations))
        return U.to_channels_first(y, self.rank) if cf else y

    def _bias(self, b):
        if self.data_format == "channels_last":
            return reshape(b, (1,) * (self.rank + 1) + (self.filters,))
        return reshape(b, (1, self.filters) + (1,) * self.rank)

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        dp, rdp = self._masks(inputs, h_tm1, training)
        ks = split(self.kernel, 4, axis=self.rank + 1)
        rks = split(self.recurrent_kernel, 4, axis=self.rank + 1)
        bs = split(self.bias, 4) if self.bias is not None else [None] * 4
        ones = (1,) * self.rank
        z = []
        for g in range(4):
            x = self._conv(_masked(inputs, dp, g), ks[g], self.strides, self.padding, self.dilation_rate)
            if bs[g] is not None:
                x = x + self._bias(bs[g])
            z.append(x + self._conv(_masked(h_tm1, rdp, g), rks[g], ones, "same", ones))
        i = self.recurrent_activation(z[0])
        f = self.recurrent_activation(z[1])
        c = f * c_tm1 + i * self.activation(z[2])
        o = self.recurrent_activation(z[3])
        h = o * self.activation(c)
        return h, [h, c]

    def compute_output_shape(self, inputs_shape, states_shape=None):
        out = U.conv_output_shape(inputs_shape, self.filters, self.kernel_size, self.strides, self.padding,
                                  self.data_format, self.dilation_rate)
        return out, [out, out]

    def get_initial_state(self, batch_size=None):
        if self.data_format == "channels_last":
            shape = (None,) + tuple(self.spatial_dims) + (self.input_dim,)
        else:
            shape = (None, self.input_dim) + tuple(self.spatial_dims)
        state = (batch_size,) + tuple(self.compute_output_shape(shape)[0][1:])
        return [zeros(state, dtype=self.compute_dtype), zeros(state, dtype=self.compute_dtype)]

    def get_config(self):
        config = {"filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
                  "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate}
        base = super().get_config()
        base.pop("units", None)
        return {**{k: base[k] for k in ("name", "trainable", "dtype") if k in base}, **config,
                **{k: v for k, v in base.items() if k not in ("name", "trainable", "dtype")}}

    def _extra_config_front(self):
        return {"unit_forget_bias": self.unit_forget_bias}


class ConvLSTM(RNN):
    """The N-D convolutional LSTM layer (``ConvLSTM1D``/``2D``/``3D`` fix the rank)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, **kwargs):
        cell = ConvLSTMCell(rank=rank, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                            recurrent_activation=recurrent_activation, use_bias=use_bias,
                            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
                            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell",
                            dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, **kwargs)
        self.input_spec = InputSpec(ndim=rank + 3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        batch, steps = sequences_shape[0], sequences_shape[1]
        state_shape = tuple(self.cell.compute_output_shape((batch,) + sequences_shape[2:])[0][1:])
        output_shape = (batch, steps) + state_shape if self.return_sequences else (batch,) + state_shape
        if self.return_state:
            return output_shape, (batch,) + state_shape, (batch,) + state_shape
        return output_shape

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        output_mask = mask if self.return_sequences else None
        return [output_mask, None, None] if self.return_state else output_mask

    def get_config(self):
        c = self.cell
        config = {"filters": c.filters, "kernel_size": c.kernel_size, "strides": c.strides, "padding": c.padding,
                  "data_format": c.data_format, "dilation_rate": c.dilation_rate,
                  "activation": activations.serialize(c.activation),
                  "recurrent_activation": activations.serialize(c.recurrent_activation),
                  "use_bias": c.use_bias,
                  "kernel_initializer": initializers.serialize(c.kernel_initializer),
                  "recurrent_initializer": initializers.serialize(c.recurrent_initializer),
                  "bias_initializer": initializers.serialize(c.bias_initializer),
                  "unit_forget_bias": c.unit_forget_bias,
                  "kernel_regularizer": regularizers.serialize(c.kernel_regularizer),
                  "recurrent_regularizer": regularizers.serialize(c.recurrent_regularizer),
                  "bias_regularizer": regularizers.serialize(c.bias_regularizer),
                  "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                  "kernel_constraint": constraints.serialize(c.kernel_constraint),
                  "recurrent_constraint": constraints.serialize(c.recurrent_constraint),
                  "bias_constraint": constraints.serialize(c.bias_constraint),
                  "dropout": c.dropout, "recurrent_dropout": c.recurrent_dropout, "seed": c.seed}
        base = RNN.get_config(self)
        base.pop("cell", None)
        return {**base, **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


for _name in ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
              "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
              "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout"):
    setattr(ConvLSTM, _name, _cell_property(_name))


def _rank_layer(rank, export, doc):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, **kwargs):
        ConvLSTM.__init__(self, rank=rank, filters=filters, kernel_size=kernel_size, strides=strides,
                          padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                          activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                          kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                          bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
                          kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                          bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                          kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                          bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
                          seed=seed, return_sequences=return_sequences, return_state=return_state,
                          go_backwards=go_backwards, stateful=stateful, **kwargs)

    name = f"ConvLSTM{rank}D"
    cls = type(name, (ConvLSTM,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                   "__qualname__": name})
    return tf_export(export)(cls)


ConvLSTM1D = _rank_layer(1, "keras.layers.ConvLSTM1D", """1-D convolutional LSTM.

    Inputs ``(batch, time, steps, channels)`` (``channels_last``).

    >>> tf.keras.layers.ConvLSTM1D(2, 3)(tf.ones((1, 4, 6, 3))).shape
    TensorShape([1, 4, 2])
    """)
ConvLSTM2D = _rank_layer(2, "keras.layers.ConvLSTM2D", """2-D convolutional LSTM.

    Inputs ``(batch, time, rows, cols, channels)`` (``channels_last``).

    >>> tf.keras.layers.ConvLSTM2D(2, 3)(tf.ones((1, 4, 6, 6, 3))).shape
    TensorShape([1, 4, 4, 2])
    """)
ConvLSTM3D = _rank_layer(3, "keras.layers.ConvLSTM3D", """3-D convolutional LSTM.

    Inputs ``(batch, time, d1, d2, d3, channels)`` (``channels_last``).

    >>> tf.keras.layers.ConvLSTM3D(2, 3)(tf.ones((1, 2, 4, 4, 4, 1))).shape
    TensorShape([1, 2, 2, 2, 2])
    """)
