"""Recurrent layers: masks, statefulness, dropout, initial weights, naming, errors, custom cells, finite differences.

Numerics against real Keras are in test_rnn_layers.py; the expected messages and paths here are Keras 3.15's.
"""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.engine.base_layer import Layer, get_keras_mask, set_keras_mask
from tensorlet._src.keras.layers import recurrent, rnn, rnn_cells, wrappers
from tensorlet._src.keras.layers.core import Dense

LSTM, GRU, SimpleRNN = recurrent.LSTM, recurrent.GRU, recurrent.SimpleRNN
LSTMCell, GRUCell, SimpleRNNCell = rnn_cells.LSTMCell, rnn_cells.GRUCell, rnn_cells.SimpleRNNCell
RNN, StackedRNNCells = rnn.RNN, rnn.StackedRNNCells
Bidirectional, TimeDistributed = wrappers.Bidirectional, wrappers.TimeDistributed

RNG = np.random.RandomState(0)
X = RNG.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
MASK = np.array([[True, True, False, True, False], [False, True, True, True, True]])


# --- masks ----------------------------------------------------------------------------------------------------------
def test_keras_mask_on_the_input_is_used_and_propagated():
    layer = LSTM(4, return_sequences=True)
    explicit = layer(X, mask=tf.constant(MASK))
    x = tf.constant(X)
    set_keras_mask(x, tf.constant(MASK))
    got = layer(x)
    np.testing.assert_allclose(got.numpy(), explicit.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(get_keras_mask(got).numpy(), MASK)
    last = LSTM(4)(x)
    assert get_keras_mask(last) is None
    out, h, c = LSTM(4, return_sequences=True, return_state=True)(x)
    np.testing.assert_array_equal(get_keras_mask(out).numpy(), MASK)
    assert get_keras_mask(h) is None and get_keras_mask(c) is None


def test_masked_steps_keep_the_previous_state_and_output():
    # the layers' initial weights fixed, whatever ran earlier in the process (the last check compares two float32
    # computations relatively: with some weights an output near 0 differs by ~4e-8 absolute, over 1e-6 relative)
    tf.keras.utils.set_random_seed(0)
    layer = GRU(3, return_sequences=True, return_state=True)
    h0 = RNG.uniform(-1, 1, (2, 3)).astype(np.float32)
    mask = np.array([[False] * 5, [True, True, False, False, False]])
    seq, h = layer(X, initial_state=[h0], mask=tf.constant(mask))
    seq, h = seq.numpy(), h.numpy()
    np.testing.assert_array_equal(h[0], h0[0])  # fully masked row: the initial state survives
    np.testing.assert_array_equal(seq[0], 0.0)  # ... and the outputs are zeros (the "previous output" at t=0)
    np.testing.assert_array_equal(seq[1, 2:], np.broadcast_to(seq[1, 1], (3, 3)))
    np.testing.assert_array_equal(h[1], seq[1, 1])
    # the same as running only the first two steps
    ref = GRU(3, return_state=True)
    ref(X[:, :2])
    ref.set_weights(layer.get_weights())
    np.testing.assert_allclose(ref(X[1:, :2], initial_state=[h0[1:]])[1].numpy()[0], h[1], rtol=1e-6)


def test_bidirectional_mask_and_zero_output_for_mask():
    bi = Bidirectional(LSTM(2, return_sequences=True), merge_mode=None)
    assert bi.forward_layer.zero_output_for_mask and bi.backward_layer.zero_output_for_mask
    fwd, bwd = bi(X, mask=tf.constant(MASK))
    np.testing.assert_array_equal(fwd.numpy()[~MASK], 0.0)
    np.testing.assert_array_equal(bwd.numpy()[~MASK], 0.0)
    assert not Bidirectional(LSTM(2)).forward_layer.zero_output_for_mask


def test_integer_mask_is_accepted():
    layer = SimpleRNN(2, return_sequences=True)
    a = layer(X, mask=tf.constant(MASK))
    b = layer(X, mask=tf.constant(MASK.astype(np.int32)))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# --- stateful -------------------------------------------------------------------------------------------------------
def test_stateful_carries_state_and_resets():
    layer = LSTM(3, stateful=True, return_state=True)
    out1, h1, c1 = layer(X)
    out2, h2, c2 = layer(X)
    assert not np.allclose(out1.numpy(), out2.numpy())
    np.testing.assert_allclose(layer.states[0].numpy(), h2.numpy())
    np.testing.assert_allclose(layer.states[1].numpy(), c2.numpy())
    # the second call started from the first call's final state
    fresh = LSTM(3, return_state=True)
    fresh(X)
    fresh.set_weights(layer.get_weights())
    np.testing.assert_allclose(fresh(X, initial_state=[h1, c1])[0].numpy(), out2.numpy(), rtol=1e-6)
    layer.reset_states()
    np.testing.assert_array_equal(layer.states[0].numpy(), 0.0)
    np.testing.assert_allclose(layer(X)[0].numpy(), out1.numpy(), rtol=1e-6)
    assert len(layer.weights) == 3 and len(layer.get_weights()) == 3  # states are not weights


def test_stateful_errors():
    layer = LSTM(3, stateful=True)
    with pytest.raises(ValueError, match="When using `stateful=True` in a RNN, the batch size must be static"):
        layer.build((None, 4, 5))
    layer = GRU(3, stateful=True)
    layer(X)
    with pytest.raises(ValueError, match="- Expected batch size: 2\n- Received batch size: 3"):
        layer(np.ones((3, 5, 3), np.float32))
    with pytest.raises(AttributeError, match="Layer must be stateful."):
        Bidirectional(LSTM(2)).reset_state()


def test_bidirectional_stateful_states():
    bi = Bidirectional(SimpleRNN(2, stateful=True))
    assert bi.states is None
    bi(X)
    assert len(bi.states) == 2
    bi.reset_states()
    assert all(np.all(s.numpy() == 0) for s in bi.states)


# --- dropout --------------------------------------------------------------------------------------------------------
def test_dropout_mask_is_shared_by_all_timesteps():
    layer = SimpleRNN(8, dropout=0.5, return_sequences=True, activation=None, use_bias=False)
    x = np.ones((2, 4, 8), np.float32)
    layer(x)
    layer.set_weights([np.eye(8, dtype=np.float32), np.zeros((8, 8), np.float32)])
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.0 in y and 2.0 in y
    np.testing.assert_array_equal(y, np.broadcast_to(y[:, :1], y.shape))
    np.testing.assert_array_equal(layer(x).numpy(), 1.0)  # inference: no dropout
    assert layer.cell._dropout_mask is None  # masks do not outlive the call
    assert not np.array_equal(layer(x, training=True).numpy(), y)  # a new mask per call


def test_lstm_and_gru_dropout_train_vs_inference():
    for layer in (LSTM(4, dropout=0.3, recurrent_dropout=0.3), GRU(4, dropout=0.3, recurrent_dropout=0.2),
                  GRU(4, dropout=0.3, reset_after=False), LSTM(4, dropout=0.4)):
        ref = layer(X).numpy()
        np.testing.assert_array_equal(layer(X, training=False).numpy(), ref)
        with tf.GradientTape() as tape:
            y = layer(X, training=True)
            loss = tf.reduce_sum(y * y)
        assert not np.allclose(y.numpy(), ref)
        grads = tape.gradient(loss, layer.trainable_weights)
        assert all(g is not None for g in grads)
    assert LSTM(2, recurrent_dropout=0.1).cell.implementation == 1
    assert LSTM(2).cell.implementation == 2
    assert LSTM(2, dropout=2).dropout == 1.0


# --- weights --------------------------------------------------------------------------------------------------------
def test_weight_shapes_paths_and_initial_values():
    lstm = LSTM(3, name="enc")
    lstm(X)
    assert [(w.path, tuple(w.shape)) for w in lstm.weights] == [
        ("enc/lstm_cell/kernel", (3, 12)), ("enc/lstm_cell/recurrent_kernel", (3, 12)), ("enc/lstm_cell/bias", (12,))]
    np.testing.assert_array_equal(lstm.cell.bias.numpy(), [0] * 3 + [1] * 3 + [0] * 6)
    rk = lstm.cell.recurrent_kernel.numpy()
    np.testing.assert_allclose(rk @ rk.T, np.eye(3), atol=1e-5)  # orthogonal
    no_ufb = LSTM(3, unit_forget_bias=False, bias_initializer="ones")
    no_ufb(X)
    np.testing.assert_array_equal(no_ufb.cell.bias.numpy(), 1.0)
    gru = GRU(4, name="g")
    gru(X)
    assert [tuple(w.shape) for w in gru.weights] == [(3, 12), (4, 12), (2, 12)]
    gru_before = GRU(4, reset_after=False)
    gru_before(X)
    assert tuple(gru_before.cell.bias.shape) == (12,)
    bi = Bidirectional(LSTM(2, name="enc"), name="bi")
    bi(X)
    assert [w.path for w in bi.weights][:1] == ["bi/forward_enc/lstm_cell/kernel"]
    assert [w.path for w in bi.weights][3:4] == ["bi/backward_enc/lstm_cell/kernel"]
    assert bi.forward_layer.name == "forward_enc" and bi.backward_layer.name == "backward_enc"
    assert bi.backward_layer.go_backwards and not bi.forward_layer.go_backwards
    stacked = RNN([LSTMCell(3), GRUCell(2)])
    stacked(X)
    assert [tuple(w.shape) for w in stacked.weights] == [(3, 12), (3, 12), (12,), (3, 6), (2, 6), (2, 6)]
    # the cells' auto names count up per process (lstm_cell, lstm_cell_1, ...), as in Keras
    lstm_cell, gru_cell = (c.name for c in stacked.cell.cells)
    assert lstm_cell.startswith("lstm_cell") and gru_cell.startswith("gru_cell")
    assert [w.path for w in stacked.weights][2:4] == [f"{stacked.name}/{stacked.cell.name}/{lstm_cell}/bias",
                                                      f"{stacked.name}/{stacked.cell.name}/{gru_cell}/kernel"]
    td = TimeDistributed(Dense(2, name="d"), name="td")
    td(X)
    assert [w.path for w in td.weights] == ["td/d/kernel", "td/d/bias"]


def test_regularizers_and_freezing():
    layer = LSTM(3, kernel_regularizer="l2", recurrent_regularizer="l1")
    layer(X)
    losses = [float(v) for v in layer.losses]
    k, rk = layer.cell.kernel.numpy(), layer.cell.recurrent_kernel.numpy()
    np.testing.assert_allclose(sorted(losses), sorted([0.01 * np.sum(k * k), 0.01 * np.sum(np.abs(rk))]), rtol=1e-5)
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 3


# --- cells ----------------------------------------------------------------------------------------------------------
def test_cells_called_directly():
    x = X[:, 0]
    h, states = LSTMCell(4)(x, [np.zeros((2, 4), np.float32)] * 2)
    assert isinstance(states, list) and len(states) == 2 and states[0] is h
    h, state = GRUCell(4)(x, np.zeros((2, 4), np.float32))
    assert state is h
    h, state = GRUCell(4)(x, [np.zeros((2, 4), np.float32)])
    assert isinstance(state, list) and state[0] is h
    h, state = SimpleRNNCell(4)(x, [np.zeros((2, 4), np.float32)])
    assert isinstance(state, list)
    init = LSTMCell(4).get_initial_state(batch_size=2)
    assert [tuple(s.shape) for s in init] == [(2, 4), (2, 4)]


class MinimalRNNCell(Layer):
    """The custom cell of Keras's RNN docstring."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="uniform", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="uniform",
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        prev_output = states[0]
        output = tf.matmul(inputs, self.kernel) + tf.matmul(prev_output, self.recurrent_kernel)
        return output, [output]


def test_custom_cell_matches_numpy():
    layer = RNN(MinimalRNNCell(3), return_sequences=True, go_backwards=True)
    y = layer(X).numpy()
    k, rk = layer.cell.kernel.numpy(), layer.cell.recurrent_kernel.numpy()
    h = np.zeros((2, 3), np.float32)
    expected = []
    for t in reversed(range(5)):
        h = X[:, t] @ k + h @ rk
        expected.append(h)
    np.testing.assert_allclose(y, np.stack(expected, 1), rtol=1e-5)
    stacked = RNN([MinimalRNNCell(3), MinimalRNNCell(2)], return_state=True)
    out, s1, s2 = stacked(X)
    assert tuple(out.shape) == (2, 2) and tuple(s1.shape) == (2, 3)
    np.testing.assert_array_equal(out.numpy(), s2.numpy())
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(stacked(X)[0])
    assert all(g is not None for g in tape.gradient(loss, stacked.trainable_weights))


def test_gradients_match_finite_differences_float64():
    layer = Bidirectional(LSTM(2, return_sequences=True, dtype="float64"), merge_mode="mul", dtype="float64")
    x = RNG.uniform(-1, 1, (2, 4, 3))
    mask = tf.constant(MASK[:, :4])
    layer(x, mask=mask)
    u = RNG.uniform(-1, 1, (2, 4, 2))

    def f(xv):
        return float(tf.reduce_sum(layer(tf.constant(xv), mask=mask) * u))

    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(layer(xt, mask=mask) * u)
    g = tape.gradient(loss, xt).numpy()
    eps = 1e-6
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fd[idx] = (f(xp) - f(xm)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    assert np.all(g[1, 0] == 0)  # a masked step gets no gradient


# --- errors ---------------------------------------------------------------------------------------------------------
def test_errors():
    with pytest.raises(ValueError, match="Received an invalid value for argument `units`, expected a positive "
                                         "integer, got 0."):
        LSTM(0)
    with pytest.raises(ValueError, match="Invalid merge mode. Received: x. Merge mode should be one of"):
        Bidirectional(LSTM(3), merge_mode="x")
    with pytest.raises(ValueError, match="Please initialize `Bidirectional` layer with a `keras.layers.Layer` "
                                         "instance. Received: x"):
        Bidirectional("x")
    with pytest.raises(ValueError, match="Forward layer and backward layer should have different `go_backwards`"):
        Bidirectional(LSTM(3), backward_layer=LSTM(3))
    with pytest.raises(ValueError, match='expected to have the same value for attribute "return_sequences"'):
        Bidirectional(LSTM(3), backward_layer=LSTM(3, go_backwards=True, return_sequences=True))
    with pytest.raises(ValueError, match="`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                                         r"dimensions, received: \(2, 5\)"):
        TimeDistributed(Dense(2))(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        LSTM(3)(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="Invalid valid received for argument `use_cudnn`"):
        GRU(3, use_cudnn="yes")
    with pytest.raises(ValueError, match="The RNN cell should have a `state_size` attribute"):
        RNN(Dense(3))
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to LSTM"):
        LSTM(3, time_major=True)


def test_time_distributed_passes_the_mask_to_the_inner_layer():
    seen = []

    class Probe(Layer):
        def call(self, inputs, mask=None):
            seen.append(None if mask is None else mask.numpy())
            return inputs * 2.0

    td = TimeDistributed(Probe())
    x = np.ones((2, 5, 3, 2), np.float32)
    m = np.ones((2, 5, 3), bool)
    np.testing.assert_array_equal(td(x, mask=tf.constant(m)).numpy(), 2.0)
    assert len(seen) == 5 and seen[0].shape == (2, 3)
    with pytest.raises(ValueError, match="incompatible with the input shape"):
        td(x, mask=tf.constant(np.ones((2, 4), bool)))


# --- compiled ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("jit", [False, True])
def test_inside_tf_function(jit):
    mask = tf.constant(MASK)
    bi = Bidirectional(GRU(3, return_sequences=True, return_state=True), merge_mode="ave")
    eager = bi(X, mask=mask)

    @tf.function(jit_compile=jit)
    def step(x, m):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = bi(x, mask=m)
            loss = tf.add_n([tf.reduce_sum(t * t) for t in y])
        return y, tape.gradient(loss, [x] + bi.trainable_weights)

    y, grads = step(tf.constant(X), mask)
    for a, b in zip(y, eager):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    xt = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.add_n([tf.reduce_sum(t * t) for t in bi(xt, mask=mask)])
    for a, b in zip(grads, tape.gradient(loss, [xt] + bi.trainable_weights)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    # a stateful layer updates its state variables from inside the function
    layer = LSTM(4, stateful=True)
    first, second = layer(X).numpy(), layer(X).numpy()
    layer.reset_states()
    f = tf.function(lambda x: layer(x), jit_compile=jit)
    np.testing.assert_allclose(f(tf.constant(X)).numpy(), first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f(tf.constant(X)).numpy(), second, rtol=1e-5, atol=1e-6)
    # dropout draws new masks on every call of the compiled function
    drop = SimpleRNN(6, dropout=0.5)
    g = tf.function(lambda x: drop(x, training=True), jit_compile=jit)
    assert not np.array_equal(g(tf.constant(X)).numpy(), g(tf.constant(X)).numpy())


def test_docstring_examples():
    import doctest

    from tensorlet._src.keras.layers import conv_lstm

    for mod in (rnn_cells, rnn, recurrent, wrappers, conv_lstm):
        runner = doctest.DocTestRunner()
        for test in doctest.DocTestFinder().find(mod, globs={"tf": tf, "np": np}):
            runner.run(test)
        result = runner.summarize(verbose=False)
        assert result.failed == 0 and result.attempted > 0, mod.__name__


def _compiled_step(layer):
    @tf.function(jit_compile=True)
    def step(x, m):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nest.flatten(layer(x, mask=m))
            loss = tf.add_n([tf.reduce_sum(t * t) for t in y])
        return y, tape.gradient(loss, [x] + layer.trainable_weights)

    return step


def test_long_sequences_compile_to_one_while_loop():
    steps = rnn.UNROLL_LIMIT + 4
    x = RNG.uniform(-1, 1, (2, steps, 3)).astype(np.float32)
    mask = np.ones((2, steps), bool)
    mask[0, 3] = mask[0, -2:] = mask[1, :2] = False
    layers = [RNN([GRUCell(3), SimpleRNNCell(2)], go_backwards=True, return_state=True),
              LSTM(2, return_sequences=True, zero_output_for_mask=True)]
    for layer in layers:
        eager_tape = tf.GradientTape()
        xt = tf.constant(x)
        with eager_tape:
            eager_tape.watch(xt)
            eager = tf.nest.flatten(layer(xt, mask=tf.constant(mask)))
            eager_loss = tf.add_n([tf.reduce_sum(t * t) for t in eager])
        eager_grads = eager_tape.gradient(eager_loss, [xt] + layer.trainable_weights)

        step = _compiled_step(layer)
        graph = step.get_concrete_function(tf.constant(x), tf.constant(mask)).graph
        assert "While" in {n.op.name for n in graph.nodes}
        y, grads = step(tf.constant(x), tf.constant(mask))
        for a, b in zip(y + grads, eager + eager_grads):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)
    stateful = SimpleRNN(2, stateful=True)
    first, second = stateful(x).numpy(), stateful(x).numpy()
    stateful.reset_states()
    f = tf.function(lambda v: stateful(v))
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), second, rtol=1e-5, atol=1e-6)
