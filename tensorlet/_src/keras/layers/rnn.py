"""Keras 3's ``RNN`` base layer (any cell, or a list of cells), ``StackedRNNCells`` and the time loop.

The loop runs over the static number of timesteps in Python, so inside a compiled step it is traced (unrolled)
into the graph.  Masked timesteps keep the previous output and state, exactly as Keras's TensorFlow backend.

>>> layer = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(4), return_sequences=True)
>>> layer(tf.ones((2, 5, 3))).shape
TensorShape([2, 5, 4])
"""

from __future__ import annotations

import inspect

from tensorlet._src.framework.context import init_scope
from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.ops import creation
from tensorlet._src.ops.array_select import where, reverse
from tensorlet._src.ops.array_shape import expand_dims, reshape, squeeze, transpose
from tensorlet._src.ops.array_blocks import stack, unstack
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.gather_scatter import gather, tensor_scatter_nd_update
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.rnn_cells import DropoutRNNCell, batch_dim, build_sublayer
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest
from tensorlet._src.graph import subgraph
from tensorlet._src.graph.control_flow import while_loop


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def _call_accepts(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params


def _expand_to(mask_t, x):
    """``mask_t`` (batch,) reshaped to broadcast against ``x`` (batch, ...)."""
    rank = len(x.shape)
    if rank <= 1:
        return mask_t
    return reshape(mask_t, [-1] + [1] * (rank - 1))


# Above this many timesteps, a traced (compiled) RNN runs as one While loop instead of being unrolled: the graph
# stays small and compiles in about constant time.  Eagerly (and with ``unroll=True``) the loop is Python.
UNROLL_LIMIT = 16


def _traced_while_loop():
    """The graph-building ``while_loop`` while a function is being traced, else None."""
    return while_loop if subgraph.is_tracing() else None


def _bool_mask(mask):
    mask = convert_to_tensor(mask)
    if mask.dtype.name != "bool":
        mask = cast(mask, "bool")
    if len(mask.shape) == 3:
        mask = squeeze(mask, axis=2)
    return mask


def _while_rnn(while_loop, step, inputs, initial_states, go_backwards, mask, zero_output_for_mask,
               return_all_outputs):
    """``rnn_loop`` as one graph While node (time-major buffers updated with scatter, like a TensorArray)."""
    steps = inputs.shape[1]
    rank = len(inputs.shape)
    xs = transpose(inputs, [1, 0] + list(range(2, rank)))
    ms = None
    if mask is not None:
        ms = transpose(_bool_mask(mask), [1, 0])
    if go_backwards:
        xs = reverse(xs, [0])
        ms = reverse(ms, [0]) if ms is not None else None
    flat0 = nest.flatten(initial_states)
    out0, _ = step(xs[0], initial_states)  # the output's shape and dtype (dead code once compiled)
    zeros = zeros_like(out0)
    buf0 = creation.zeros([steps] + list(out0.shape), dtype=out0.dtype) if return_all_outputs else zeros
    n = len(flat0)

    def body(t, buf, carry, last, *flat):
        states = nest.pack_sequence_as(initial_states, list(flat))
        out, new_states = step(gather(xs, t), states)
        if not _is_nested(new_states):
            new_states = [new_states]
        flat_new = nest.flatten(new_states)
        if len(flat_new) != n:
            raise ValueError(f"The cell returned {len(flat_new)} states but was given {n}.")
        if ms is not None:
            m = gather(ms, t)
            flat_new = [where(_expand_to(m, a), a, b) for a, b in zip(flat_new, flat)]
            me = _expand_to(m, out)
            carry = where(me, out, carry)
            out = where(me, out, zeros) if zero_output_for_mask else carry
        if return_all_outputs:
            buf = tensor_scatter_nd_update(buf, reshape(t, [1, 1]), expand_dims(out, 0))
        return [t + 1, buf, carry, out] + list(flat_new)

    res = while_loop(lambda t, *_: t < steps, body, [constant(0), buf0, zeros, zeros] + flat0,
                     maximum_iterations=steps)
    buf, last, flat = res[1], res[3], list(res[4:])
    outputs = transpose(buf, [1, 0] + list(range(2, len(buf.shape)))) if return_all_outputs \
        else expand_dims(last, 1)
    states = nest.pack_sequence_as(initial_states, flat)
    return last, outputs, states


def rnn_loop(step, inputs, initial_states, *, go_backwards=False, mask=None, zero_output_for_mask=False,
             return_all_outputs=True, unroll=False):
    """Iterate ``step(input_t, states) -> (output_t, new_states)`` over axis 1 of ``inputs`` (batch, time, ...).

    Returns ``(last_output, outputs, final_states)``; ``outputs`` is ``(batch, time, ...)`` in processing order
    (reversed with ``go_backwards``), or ``last_output[:, None]`` when ``return_all_outputs`` is False.  Where
    ``mask[b, t]`` is False the step's state updates are discarded and the previous output repeats (zeros with
    ``zero_output_for_mask``).
    """
    steps = inputs.shape[1]
    if steps is None:
        raise ValueError("tensorlet's recurrent layers need a static number of timesteps; got inputs of shape "
                         f"{inputs.shape}. Give the time dimension in the Input shape or trace with concrete shapes.")
    if not unroll and steps > UNROLL_LIMIT:
        while_loop = _traced_while_loop()
        if while_loop is not None:
            return _while_rnn(while_loop, step, inputs, initial_states, go_backwards, mask, zero_output_for_mask,
                              return_all_outputs)
    xs = unstack(inputs, num=steps, axis=1)
    masks = None
    if mask is not None:
        masks = unstack(_bool_mask(mask), num=steps, axis=1)
    order = range(steps - 1, -1, -1) if go_backwards else range(steps)
    states = initial_states
    carry_out = None
    outputs = []
    for t in order:
        out, new_states = step(xs[t], states)
        if not _is_nested(new_states):
            new_states = [new_states]
        flat_new = nest.flatten(new_states)
        if masks is not None:
            m = masks[t]
            flat_old = nest.flatten(states)
            if len(flat_old) != len(flat_new):
                raise ValueError(f"The cell returned {len(flat_new)} states but was given {len(flat_old)}.")
            flat_new = [where(_expand_to(m, s), s, ps) for s, ps in zip(flat_new, flat_old)]
            me = _expand_to(m, out)
            carry_out = where(me, out, zeros_like(out) if carry_out is None else carry_out)
            out = where(me, out, zeros_like(out)) if zero_output_for_mask else carry_out
        states = nest.pack_sequence_as(states, flat_new) if _is_nested(states) else flat_new
        if return_all_outputs or not outputs:
            outputs.append(out)
        else:
            outputs[0] = out
    last = outputs[-1]
    if return_all_outputs:
        stacked = stack(outputs, axis=1)
    else:
        stacked = expand_dims(last, 1)
    return last, stacked, states


@tf_export("keras.layers.StackedRNNCells")
class StackedRNNCells(Layer):
    """Wraps a list of RNN cells so that they behave as one cell (each cell's output feeds the next).

    >>> cells = [tf.keras.layers.LSTMCell(8), tf.keras.layers.GRUCell(4)]
    >>> tf.keras.layers.RNN(tf.keras.layers.StackedRNNCells(cells))(tf.ones((2, 5, 3))).shape
    TensorShape([2, 4])
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(f"All cells must have a `call` method. Received cell without a `call` method: {cell}")
            if "state_size" not in dir(cell):
                raise ValueError("All cells must have a `state_size` attribute. Received cell without a "
                                 f"`state_size`: {cell}")
        self.cells = list(cells)

    @property
    def state_size(self):
        return [c.state_size for c in self.cells]

    @property
    def output_size(self):
        last = self.cells[-1]
        if getattr(last, "output_size", None) is not None:
            return last.output_size
        if isinstance(last.state_size, (list, tuple)):
            return last.state_size[0]
        return last.state_size

    def get_initial_state(self, batch_size=None):
        states = []
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if fn is not None:
                states.append(fn(batch_size=batch_size))
            elif isinstance(cell.state_size, int):
                states.append(creation.zeros((batch_size, cell.state_size), dtype=self.compute_dtype))
            else:
                states.append([creation.zeros((batch_size, d), dtype=self.compute_dtype) for d in cell.state_size])
        return states

    def call(self, inputs, states, training=False, **kwargs):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            was_list = _is_nested(cell_states)
            cell_states = list(cell_states) if was_list else [cell_states]
            kw = dict(kwargs)
            if _call_accepts(cell.call, "training"):
                kw["training"] = training
            fn = cell.call if isinstance(cell, _FAST_CELLS) else (cell.__call__ if callable(cell) else cell.call)
            inputs, cell_states = fn(inputs, cell_states, **kw)
            if _is_nested(cell_states) and len(cell_states) == 1 and not was_list:
                cell_states = cell_states[0]
            new_states.append(cell_states)
        if len(new_states) == 1:
            new_states = new_states[0]
        return inputs, new_states

    def build(self, input_shape):
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                build_sublayer(cell, input_shape)
            if getattr(cell, "output_size", None) is not None:
                dim = cell.output_size
            elif isinstance(cell.state_size, (list, tuple)):
                dim = cell.state_size[0]
            else:
                dim = cell.state_size
            input_shape = (tuple(input_shape)[0], dim)
        self.built = True

    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        return {**super().get_config(), "cells": [serialize_keras_object(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        cells = [deserialize_keras_object(c, custom_objects=custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


@tf_export("keras.layers.RNN")
class RNN(Layer):
    """Runs an RNN cell (or a list of cells, stacked) over the time axis of ``(batch, time, features)`` inputs.

    A cell has ``call(input_t, states) -> (output_t, new_states)``, a ``state_size`` (int or list) and optionally
    ``output_size`` and ``get_initial_state(batch_size)``.  ``return_sequences``, ``return_state``,
    ``go_backwards``, ``stateful`` (state kept in variables between calls; fixed batch size), ``unroll``,
    ``zero_output_for_mask`` behave as in Keras; ``call(sequences, initial_state=None, mask=None, training=None)``.

    >>> rnn = tf.keras.layers.RNN(tf.keras.layers.SimpleRNNCell(4), return_state=True)
    >>> out, state = rnn(tf.ones((2, 5, 3)))
    >>> out.shape, state.shape
    (TensorShape([2, 4]), TensorShape([2, 4]))
    """

    # the stateful layer's state variables are not weights (Keras 3 does not track them either)
    _TF_MODULE_IGNORED_PROPERTIES = Layer._TF_MODULE_IGNORED_PROPERTIES | frozenset(("states",))
    _KERAS_NOT_TRACKED = getattr(Layer, "_KERAS_NOT_TRACKED", frozenset()) | frozenset(("states",))

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if "call" not in dir(cell):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        if "state_size" not in dir(cell):
            raise ValueError("The RNN cell should have a `state_size` attribute (single integer or list of "
                             f"integers, one integer per RNN state). Received: cell={cell}")
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.supports_masking = True
        self.input_spec = None
        self.states = None
        self._expected_batch_size = None
        state_size = getattr(self.cell, "state_size", None)
        if state_size is None:
            raise ValueError("state_size must be specified as property on the RNN cell.")
        if not isinstance(state_size, (list, tuple, int)):
            raise ValueError("state_size must be an integer, or a list/tuple of integers (one for each state "
                             "tensor).")
        if isinstance(state_size, int):
            self.state_size = [state_size]
            self.single_state = True
        else:
            self.state_size = list(state_size)
            self.single_state = False

    # --- shapes and masks ---------------------------------------------------------------------------------------
    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        batch, length = sequences_shape[0], sequences_shape[1]
        states_shape = []
        for size in self.state_size:
            if isinstance(size, int):
                states_shape.append((batch, size))
            elif isinstance(size, (list, tuple)):
                states_shape.append([(batch, s) for s in size])
        output_size = getattr(self.cell, "output_size", None)
        if output_size is None:
            output_size = self.state_size[0]
        if not isinstance(output_size, int):
            raise ValueError("output_size must be an integer.")
        output_shape = (batch, length, output_size) if self.return_sequences else (batch, output_size)
        if self.return_state:
            return (output_shape, *states_shape)
        return output_shape

    def compute_mask(self, inputs, mask=None):
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    # --- building and state -------------------------------------------------------------------------------------
    def build(self, sequences_shape, initial_state_shape=None):
        if isinstance(sequences_shape, list) and sequences_shape and isinstance(sequences_shape[0], (list, tuple)):
            sequences_shape = sequences_shape[0]  # [sequences, *initial states] given as one list of shapes
        sequences_shape = tuple(sequences_shape)
        step_shape = (sequences_shape[0],) + tuple(sequences_shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            build_sublayer(self.cell, step_shape)
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError("When using `stateful=True` in a RNN, the batch size must be static. Found "
                                     f"dynamic batch size: sequence.shape={sequences_shape}")
                self._create_state_variables(sequences_shape[0])
                self._expected_batch_size = sequences_shape[0]
        self.built = True

    def _create_state_variables(self, batch_size):
        from tensorlet._src.framework.variables import Variable

        with init_scope():
            initial = self.get_initial_state(batch_size)
            self.states = nest.map_structure(
                lambda v: Variable(v, trainable=False, name=f"{self.name}/rnn_state"), initial)

    def get_initial_state(self, batch_size):
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is None:
            return [creation.zeros((batch_size, d), dtype=self.cell.compute_dtype) for d in self.state_size]
        state = fn(batch_size=batch_size)
        if not _is_nested(state):
            state = [state]
        return list(state)

    def reset_states(self):
        """Alias of ``reset_state``."""
        self.reset_state()

    def reset_state(self):
        """Sets a stateful layer's states back to zeros."""
        if self.states is not None:
            for v in nest.flatten(self.states):
                v.assign(zeros_like(v))

    # --- the forward pass ---------------------------------------------------------------------------------------
    def inner_loop(self, sequences, initial_state, mask, training=False):
        cell = self.cell
        kwargs = {}
        if _call_accepts(cell.call, "training"):
            kwargs["training"] = training
        direct = isinstance(cell, _FAST_CELLS)  # built-in cells: skip __call__'s per-step bookkeeping
        fn = cell.call if direct else (cell.__call__ if callable(cell) else cell.call)

        def step(x_t, states):
            out, new_states = fn(x_t, states, **kwargs)
            if not _is_nested(new_states):
                new_states = [new_states]
            return out, new_states

        if not _is_nested(initial_state):
            initial_state = [initial_state]
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return rnn_loop(step, sequences, initial_state, go_backwards=self.go_backwards, mask=mask,
                        zero_output_for_mask=self.zero_output_for_mask, return_all_outputs=self.return_sequences,
                        unroll=self.unroll)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        sequences = convert_to_tensor(sequences)
        if self.unroll and sequences.shape[1] is None:
            raise ValueError("Cannot unroll a RNN if the time dimension is undefined. \n- If using a Sequential "
                             "model, specify the time dimension by passing an `Input()` as your first layer.\n- If "
                             "using the functional API, specify the time dimension by passing a `shape` or "
                             "`batch_shape` argument to your `Input()`.")
        if initial_state is None:
            if self.stateful:
                initial_state = nest.map_structure(convert_to_tensor, self.states)
            else:
                initial_state = self.get_initial_state(batch_size=batch_dim(sequences))
        if self.stateful:
            actual = sequences.shape[0]
            if self._expected_batch_size is not None and actual is not None and actual != self._expected_batch_size:
                raise ValueError("If an RNN is stateful, the batch size of the input sequences must be the same as "
                                 "the batch size of the initial state. \n"
                                 f"- Expected batch size: {self._expected_batch_size}\n"
                                 f"- Received batch size: {actual}")
        if not _is_nested(initial_state):
            initial_state = [initial_state]
        initial_state = list(initial_state)
        dtype = self.cell.compute_dtype if isinstance(self.cell, Layer) else self.compute_dtype
        initial_state = nest.map_structure(lambda s: cast(convert_to_tensor(s), dtype), initial_state)
        try:
            if training:
                self._config_dropout_masks(self.cell, sequences[:, 0], initial_state)
            last_output, outputs, states = self.inner_loop(sequences, initial_state, mask, training=training)
        finally:
            self._reset_dropout_masks(self.cell)
        last_output = cast(last_output, self.compute_dtype)
        outputs = cast(outputs, self.compute_dtype)
        states = nest.map_structure(lambda s: cast(s, self.compute_dtype), states)
        if self.stateful:
            for var, value in zip(nest.flatten(self.states), nest.flatten(states)):
                var.assign(value)
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return (output, *states)
        return output

    def _config_dropout_masks(self, cell, step_input, state):
        """Create the cells' dropout masks before the loop (the same masks are used at every step)."""
        first = state[0] if isinstance(state, (list, tuple)) else state
        if isinstance(cell, DropoutRNNCell):
            cell.get_dropout_mask(step_input)
            cell.get_recurrent_dropout_mask(first)
        if isinstance(cell, StackedRNNCells):
            for c, s in zip(cell.cells, state):
                self._config_dropout_masks(c, step_input, s)
                s = list(s) if _is_nested(s) else [s]
                fn = c.call if isinstance(c, _FAST_CELLS) else (c.__call__ if callable(c) else c.call)
                step_input, _ = fn(step_input, s)

    def _reset_dropout_masks(self, cell):
        if isinstance(cell, DropoutRNNCell):
            cell.reset_dropout_mask()
            cell.reset_recurrent_dropout_mask()
        if isinstance(cell, StackedRNNCells):
            for c in cell.cells:
                self._reset_dropout_masks(c)

    # --- config -------------------------------------------------------------------------------------------------
    def _rnn_config(self):
        return {"return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask}

    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        config = self._rnn_config()
        config["cell"] = serialize_keras_object(self.cell)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)


def _fast_cells():
    from tensorlet._src.keras.layers import rnn_cells

    return (rnn_cells.SimpleRNNCell, rnn_cells.LSTMCell, rnn_cells.GRUCell)


_FAST_CELLS = _fast_cells()
