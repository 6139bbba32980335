"""Keras 3's recurrent cells: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` (one timestep each).

Weight layouts are Keras's, so ``get_weights``/``set_weights`` move weights between the two unchanged: LSTM
``kernel (in, 4u)``, ``recurrent_kernel (u, 4u)``, ``bias (4u,)`` with gates ``i, f, c, o``; GRU gates ``z, r, h`` with
``bias (2, 3u)`` (input and recurrent biases) when ``reset_after=True`` (the default), ``(3u,)`` otherwise.

>>> cell = tf.keras.layers.LSTMCell(4)
>>> h, (h2, c) = cell(tf.ones((2, 3)), [tf.zeros((2, 4)), tf.zeros((2, 4))])
>>> h.shape
TensorShape([2, 4])
"""

from __future__ import annotations


from tensorlet._src.ops import array_shape
from tensorlet._src.ops.array_blocks import concat, split
from tensorlet._src.ops.creation import zeros
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.random_stateless import stateless_uniform
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras.engine.name_scope import KerasScope
from tensorlet._src.keras import activations, constraints, initializers, regularizers


def check_units(units):
    if units <= 0:
        raise ValueError("Received an invalid value for argument `units`, expected a positive integer, "
                         f"got {units}.")


def build_sublayer(layer, input_shape):
    """Build a nested layer inside its own Keras name scope (weight paths ``outer/inner/kernel``, as Keras)."""
    with KerasScope(layer.name, layer):
        layer.build(input_shape)
    layer.built = True


def batch_dim(x):
    """The static batch size of ``x`` if known, else ``tf.shape(x)[0]`` (graph-ready)."""
    b = x.shape[0]
    return b if b is not None else array_shape.shape(x)[0]


# --- dropout masks (one per RNN call, shared by every timestep, as Keras's DropoutRNNCell) -------------------------

class DropoutRNNCell:
    """Mixin of the built-in cells: creates the dropout masks once per RNN call and reuses them for every step.

    A cell needs ``dropout``, ``recurrent_dropout`` and ``seed``; ``dropout_mask_count`` (4 for LSTM's and 3 for GRU's
    per-gate implementation) asks for one mask per gate.
    """

    dropout_mask_count = None

    def _one_mask(self, step_input, rate):
        """``1 / (1 - rate)`` where kept, 0 where dropped (stateless random ops seeded by the seed generator)."""
        u = stateless_uniform(array_shape.shape(step_input), seed=self.seed_generator.next(), dtype=step_input.dtype)
        return cast(u >= rate, step_input.dtype) * cast(1.0 / (1.0 - rate), step_input.dtype)

    def _create_dropout_mask(self, step_input, rate):
        count = self.dropout_mask_count
        if count is None:
            return self._one_mask(step_input, rate)
        return [self._one_mask(step_input, rate) for _ in range(count)]

    def get_dropout_mask(self, step_input):
        if getattr(self, "_dropout_mask", None) is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return getattr(self, "_dropout_mask", None)

    def get_recurrent_dropout_mask(self, step_input):
        if getattr(self, "_recurrent_dropout_mask", None) is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(step_input, self.recurrent_dropout)
        return getattr(self, "_recurrent_dropout_mask", None)

    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None


def _masked(x, mask, i):
    """``x * mask`` (``mask[i]`` for per-gate masks); ``x`` unchanged when there is no mask."""
    if mask is None:
        return x
    return x * (mask[i] if isinstance(mask, (list, tuple)) else mask)


class _CellBase(Layer, DropoutRNNCell):
    """What the three built-in cells share: arguments, weights' objects, dropout rates and ``get_config``."""

    _has_recurrent_activation = True

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        check_units(units)
        super().__init__(**kwargs)
        self.units = units
        self.activation = activations.get(activation)
        if self._has_recurrent_activation:
            self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.seed = seed
        from tensorlet._src.keras.random import SeedGenerator

        self.seed_generator = SeedGenerator(seed)
        self._seed_generators.append(self.seed_generator)
        self.output_size = units
        self._dropout_mask = None
        self._recurrent_dropout_mask = None

    def _add_kernels(self, input_dim, gates):
        self.kernel = self.add_weight(shape=(input_dim, self.units * gates), name="kernel",
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units * gates), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)

    def _add_bias(self, shape, initializer=None):
        if not self.use_bias:
            self.bias = None
            return
        self.bias = self.add_weight(shape=shape, name="bias", initializer=initializer or self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _masks(self, inputs, h_tm1, training):
        dp = self.get_dropout_mask(inputs) if training and 0.0 < self.dropout < 1.0 else None
        rdp = (self.get_recurrent_dropout_mask(h_tm1) if training and 0.0 < self.recurrent_dropout < 1.0
               else None)
        return dp, rdp

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [zeros((batch_size, d), dtype=self.compute_dtype) for d in sizes]

    def get_config(self):
        config = {"units": self.units, "activation": activations.serialize(self.activation)}
        if self._has_recurrent_activation:
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        config.update(self._extra_config_front())
        config.update({
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
        })
        config.update(self._extra_config_back())
        return {**super().get_config(), **config}

    def _extra_config_front(self):
        return {}

    def _extra_config_back(self):
        return {"seed": self.seed}


@tf_export("keras.layers.SimpleRNNCell")
class SimpleRNNCell(_CellBase):
    """One step of a fully connected RNN: ``h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)``.

    >>> cell = tf.keras.layers.SimpleRNNCell(4)
    >>> out, state = cell(tf.ones((2, 3)), [tf.zeros((2, 4))])
    >>> out.shape
    TensorShape([2, 4])
    """

    _has_recurrent_activation = False

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.state_size = units

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 1)
        self._add_bias((self.units,))
        self.built = True

    def call(self, sequence, states, training=False):
        nested = isinstance(states, (list, tuple))
        prev = states[0] if nested else states
        dp, rdp = self._masks(sequence, prev, training)
        h = matmul(_masked(sequence, dp, 0), self.kernel)
        if self.bias is not None:
            h = h + self.bias
        output = self.activation(h + matmul(_masked(prev, rdp, 0), self.recurrent_kernel))
        return output, ([output] if nested else output)

    def _extra_config_back(self):
        return {"seed": self.seed}


@tf_export("keras.layers.LSTMCell")
class LSTMCell(_CellBase):
    """One step of an LSTM (Hochreiter 1997), Keras's gate order ``i, f, c, o``; states ``[h, c]``.

    >>> cell = tf.keras.layers.LSTMCell(4)
    >>> out, (h, c) = cell(tf.ones((2, 3)), [tf.zeros((2, 4)), tf.zeros((2, 4))])
    >>> c.shape
    TensorShape([2, 4])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        implementation = kwargs.pop("implementation", 2)
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        self.dropout_mask_count = 4 if self.implementation == 1 else None
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 4)
        init = self.bias_initializer
        if self.use_bias and self.unit_forget_bias:
            base, ones, u = self.bias_initializer, initializers.get("ones"), self.units

            def init(shape, dtype=None, **kwargs):  # forget-gate biases start at 1
                return concat([base((u,), dtype=dtype), ones((u,), dtype=dtype), base((2 * u,), dtype=dtype)], 0)

        self._add_bias((self.units * 4,), init)
        self.built = True

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        dp, rdp = self._masks(inputs, h_tm1, training)
        if isinstance(dp, list) or isinstance(rdp, list):  # per-gate masks (implementation 1)
            ks = split(self.kernel, 4, axis=1)
            rks = split(self.recurrent_kernel, 4, axis=1)
            bs = split(self.bias, 4, axis=0) if self.bias is not None else None
            z = []
            for g in range(4):
                zg = matmul(_masked(inputs, dp, g), ks[g])
                if bs is not None:
                    zg = zg + bs[g]
                z.append(zg + matmul(_masked(h_tm1, rdp, g), rks[g]))
        else:
            zz = matmul(_masked(inputs, dp, 0), self.kernel) + matmul(h_tm1, self.recurrent_kernel)
            if self.bias is not None:
                zz = zz + self.bias
            z = split(zz, 4, axis=1)
        i = self.recurrent_activation(z[0])
        f = self.recurrent_activation(z[1])
        c = f * c_tm1 + i * self.activation(z[2])
        o = self.recurrent_activation(z[3])
        h = o * self.activation(c)
        return h, [h, c]

    def _extra_config_front(self):
        return {"unit_forget_bias": self.unit_forget_bias}


@tf_export("keras.layers.GRUCell")
class GRUCell(_CellBase):
    """One step of a GRU (Cho et al. 2014), Keras's gate order ``z, r, h``.

    ``reset_after=True`` (default; cuDNN-compatible) applies the reset gate after the recurrent matmul and keeps
    separate input and recurrent biases (``bias`` of shape ``(2, 3 * units)``).

    >>> cell = tf.keras.layers.GRUCell(4)
    >>> out, h = cell(tf.ones((2, 3)), tf.zeros((2, 4)))
    >>> out.shape
    TensorShape([2, 4])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 reset_after=True, seed=None, **kwargs):
        implementation = kwargs.pop("implementation", 2)
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        self.dropout_mask_count = 3 if self.implementation == 1 else None
        self.reset_after = reset_after
        self.state_size = units

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 3)
        self._add_bias((2, 3 * self.units) if self.reset_after else (3 * self.units,))
        self.built = True

    def call(self, inputs, states, training=False):
        nested = isinstance(states, (list, tuple))
        h_tm1 = states[0] if nested else states
        u = self.units
        dp, rdp = self._masks(inputs, h_tm1, training)
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        if isinstance(dp, list):  # per-gate input masks
            ks = split(self.kernel, 3, axis=1)
            x = [matmul(_masked(inputs, dp, g), ks[g]) for g in range(3)]
            if input_bias is not None:
                x = [a + b for a, b in zip(x, split(input_bias, 3, axis=0))]
        else:
            mx = matmul(_masked(inputs, dp, 0), self.kernel)
            if input_bias is not None:
                mx = mx + input_bias
            x = split(mx, 3, axis=1)
        rk = self.recurrent_kernel
        hz, hr, hh = (_masked(h_tm1, rdp, g) for g in range(3))
        if self.reset_after:
            if isinstance(rdp, list):
                rks = split(rk, 3, axis=1)
                inner = [matmul(hz, rks[0]), matmul(hr, rks[1]), matmul(hh, rks[2])]
                if recurrent_bias is not None:
                    inner = [a + b for a, b in zip(inner, split(recurrent_bias, 3, axis=0))]
            else:
                mi = matmul(hz, rk)
                if recurrent_bias is not None:
                    mi = mi + recurrent_bias
                inner = split(mi, 3, axis=1)
            z = self.recurrent_activation(x[0] + inner[0])
            r = self.recurrent_activation(x[1] + inner[1])
            rec_h = r * inner[2]
        else:
            rk_zr, rk_h = rk[:, : 2 * u], rk[:, 2 * u:]
            if isinstance(rdp, list):
                inner = [matmul(hz, rk_zr[:, :u]), matmul(hr, rk_zr[:, u:])]
            else:
                inner = split(matmul(hz, rk_zr), 2, axis=1)
            z = self.recurrent_activation(x[0] + inner[0])
            r = self.recurrent_activation(x[1] + inner[1])
            rec_h = matmul(r * hh, rk_h)
        hh_new = self.activation(x[2] + rec_h)
        h = z * h_tm1 + (1 - z) * hh_new
        return h, ([h] if nested else h)

    def _extra_config_back(self):
        return {"reset_after": self.reset_after, "seed": self.seed}
