"""Recurrent-layer cases shared by tests/keras/test_rnn_layers.py and tools/record_tf_goldens/keras_rnn.py.

Each case builds a layer with ``tf.keras.layers`` (``tf`` is real TensorFlow in the recorder, tensorlet in the tests),
calls it once to build it, sets every weight to ``det(shape, 0.7 + 0.11 * i)`` with ``set_weights``, and then, under a
``GradientTape``, calls it ``calls`` times (stateful layers carry their state from one call to the next) and takes
``L = sum_j sum(out_j * det(out_j.shape, 0.37 + 0.05 * j))`` over the flattened outputs of all the calls.  Recorded:
the outputs and ``dL/d(x, initial states..., trainable weights...)``.
"""

from __future__ import annotations

import numpy as np

X = (2, 5, 3)  # batch, timesteps, features
MASK = [[True, True, False, True, False], [False, True, True, True, True]]
RIGHT_MASK = [[True, True, True, False, False], [True, True, True, True, True]]


def det(shape, k=1.3, s=0.6):
    """Deterministic values ``s * sin(k * i + 0.4)`` over the flattened shape (float32)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + 0.4) * s).reshape(tuple(shape)).astype(np.float32)


def _c(make, x=X, mask=None, init=None, calls=1, kwargs=None):
    return {"make": make, "x": x, "mask": mask, "init": init, "calls": calls, "kwargs": kwargs or {}}


CASES = {
    # SimpleRNN
    "simple_rnn": _c(lambda L: L.SimpleRNN(4)),
    "simple_rnn_seq_state": _c(lambda L: L.SimpleRNN(4, return_sequences=True, return_state=True)),
    "simple_rnn_relu_nobias_back": _c(lambda L: L.SimpleRNN(4, activation="relu", use_bias=False,
                                                            go_backwards=True, return_sequences=True)),
    "simple_rnn_mask": _c(lambda L: L.SimpleRNN(4, return_sequences=True, return_state=True), mask=MASK),
    "simple_rnn_init": _c(lambda L: L.SimpleRNN(4, return_state=True), init=[(2, 4)]),
    # LSTM
    "lstm": _c(lambda L: L.LSTM(4)),
    "lstm_seq_state": _c(lambda L: L.LSTM(4, return_sequences=True, return_state=True)),
    "lstm_back": _c(lambda L: L.LSTM(4, go_backwards=True, return_sequences=True, return_state=True)),
    "lstm_mask": _c(lambda L: L.LSTM(4, return_sequences=True, return_state=True), mask=MASK),
    "lstm_mask_back": _c(lambda L: L.LSTM(4, go_backwards=True, return_state=True), mask=MASK),
    "lstm_mask_zero_out": _c(lambda L: L.LSTM(4, return_sequences=True, zero_output_for_mask=True), mask=MASK),
    "lstm_init": _c(lambda L: L.LSTM(4, return_sequences=True, return_state=True), init=[(2, 4), (2, 4)]),
    "lstm_unroll_mask": _c(lambda L: L.LSTM(4, unroll=True, return_sequences=True), mask=RIGHT_MASK),
    "lstm_acts_nobias": _c(lambda L: L.LSTM(4, activation="relu", recurrent_activation="hard_sigmoid",
                                            use_bias=False, return_sequences=True)),
    "lstm_stateful": _c(lambda L: L.LSTM(4, stateful=True, return_state=True), calls=2),
    # GRU
    "gru": _c(lambda L: L.GRU(4)),
    "gru_seq_state": _c(lambda L: L.GRU(4, return_sequences=True, return_state=True)),
    "gru_reset_before": _c(lambda L: L.GRU(4, reset_after=False, return_sequences=True)),
    "gru_nobias": _c(lambda L: L.GRU(4, use_bias=False, return_sequences=True)),
    "gru_mask_back": _c(lambda L: L.GRU(4, go_backwards=True, return_sequences=True, return_state=True), mask=MASK),
    "gru_init_stateful": _c(lambda L: L.GRU(4, stateful=True, return_sequences=True), init=[(2, 4)], calls=2),
    # RNN with cells
    "rnn_lstm_cell": _c(lambda L: L.RNN(L.LSTMCell(4), return_sequences=True, return_state=True)),
    "rnn_stacked": _c(lambda L: L.RNN([L.LSTMCell(4), L.GRUCell(2), L.SimpleRNNCell(3)], return_state=True),
                      mask=MASK),
    "rnn_stacked_cells_init": _c(lambda L: L.RNN(L.StackedRNNCells([L.GRUCell(3), L.LSTMCell(2)]),
                                                 return_sequences=True),
                                 init=[(2, 3), [(2, 2), (2, 2)]]),
    # Bidirectional
    "bi_lstm_concat": _c(lambda L: L.Bidirectional(L.LSTM(4, return_sequences=True))),
    "bi_gru_sum": _c(lambda L: L.Bidirectional(L.GRU(4), merge_mode="sum")),
    "bi_simple_mul_state": _c(lambda L: L.Bidirectional(L.SimpleRNN(4, return_sequences=True, return_state=True),
                                                        merge_mode="mul")),
    "bi_lstm_ave_mask": _c(lambda L: L.Bidirectional(L.LSTM(4, return_sequences=True), merge_mode="ave"), mask=MASK),
    "bi_lstm_none_init": _c(lambda L: L.Bidirectional(L.LSTM(4, return_sequences=True, return_state=True),
                                                      merge_mode=None),
                            init=[(2, 4), (2, 4), (2, 4), (2, 4)]),
    "bi_backward_layer": _c(lambda L: L.Bidirectional(L.LSTM(4, return_sequences=True),
                                                      backward_layer=L.GRU(2, return_sequences=True,
                                                                           go_backwards=True))),
    "bi_gru_concat_mask_last": _c(lambda L: L.Bidirectional(L.GRU(4)), mask=MASK),
    # TimeDistributed
    "time_distributed_dense": _c(lambda L: L.TimeDistributed(L.Dense(2, activation="tanh"))),
    "time_distributed_gru": _c(lambda L: L.TimeDistributed(L.GRU(2, return_sequences=True)), x=(2, 3, 4, 3)),
    # convolutional LSTMs
    "conv_lstm2d_same": _c(lambda L: L.ConvLSTM2D(2, 3, padding="same", return_sequences=True), x=(2, 3, 4, 4, 2)),
    "conv_lstm2d_mask_back": _c(lambda L: L.ConvLSTM2D(2, (2, 1), go_backwards=True, return_sequences=True,
                                                       return_state=True), x=(2, 5, 3, 3, 1), mask=MASK),
    "conv_lstm1d_strides": _c(lambda L: L.ConvLSTM1D(2, 2, strides=2, return_state=True, use_bias=False),
                              x=(2, 3, 5, 2)),
    "conv_lstm1d_dilation_cf": _c(lambda L: L.ConvLSTM1D(2, 2, dilation_rate=2, data_format="channels_first",
                                                         unit_forget_bias=False), x=(2, 3, 2, 5)),
    "conv_lstm3d": _c(lambda L: L.ConvLSTM3D(1, 2, return_sequences=True), x=(1, 2, 3, 3, 3, 1)),
}


def flatten(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten(o)]
    return [out]


def _states(tf, shapes, flat):
    """Initial states ``det(shape, 2.3 + 0.2 * i)`` in the nesting of ``shapes``; ``flat`` collects them in order."""
    out = []
    for s in shapes:
        if isinstance(s, list):
            out.append(_states(tf, s, flat))
        else:
            flat.append(tf.constant(det(s, 2.3 + 0.2 * len(flat))))
            out.append(flat[-1])
    return out


def run_case(tf, name):
    """Return (outputs, gradients) as lists of NumPy arrays (``tf``: tensorflow or tensorlet)."""
    c = CASES[name]
    layer = c["make"](tf.keras.layers)
    x = tf.constant(det(c["x"], 1.1))
    kwargs = dict(c["kwargs"])
    if c["mask"] is not None:
        kwargs["mask"] = tf.constant(np.array(c["mask"]))
    init = []
    if c["init"] is not None:
        kwargs["initial_state"] = _states(tf, c["init"], init)
    layer(x, **kwargs)
    layer.set_weights([det(w.shape, 0.7 + 0.11 * i) for i, w in enumerate(layer.get_weights())])
    if getattr(layer, "stateful", False):
        layer.reset_states()
    with tf.GradientTape() as tape:
        tape.watch(x)
        for s in init:
            tape.watch(s)
        outs = []
        for _ in range(c["calls"]):
            outs += flatten(layer(x, **kwargs))
        loss = tf.add_n([tf.reduce_sum(o * det(o.shape, 0.37 + 0.05 * j)) for j, o in enumerate(outs)])
    sources = [x] + init + list(layer.trainable_weights)
    grads = tape.gradient(loss, sources)
    return [o.numpy() for o in outs], [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]


# get_config() of these layers (explicit names, so no counters) must equal Keras's
CONFIGS = {
    "lstm": lambda L: L.LSTM(3, name="l", return_sequences=True, dropout=0.25, unit_forget_bias=False),
    "gru": lambda L: L.GRU(3, name="g", reset_after=False, activation="relu", seed=4),
    "simple_rnn": lambda L: L.SimpleRNN(2, name="s", use_bias=False, go_backwards=True, stateful=True),
    "lstm_cell": lambda L: L.LSTMCell(3, name="c", recurrent_activation="hard_sigmoid"),
    "gru_cell": lambda L: L.GRUCell(3, name="c", recurrent_dropout=0.5),
    "simple_rnn_cell": lambda L: L.SimpleRNNCell(3, name="c", activation=None),
    "rnn_stacked": lambda L: L.RNN(L.StackedRNNCells([L.LSTMCell(3, name="a"), L.GRUCell(2, name="b")], name="st"),
                                   name="r", return_state=True),
    "bidirectional": lambda L: L.Bidirectional(L.GRU(3, name="g", return_sequences=True), name="b",
                                               merge_mode="sum"),
    "conv_lstm2d": lambda L: L.ConvLSTM2D(3, (2, 3), name="c", strides=(1, 2), padding="same", dropout=0.5,
                                          return_sequences=True),
    "bidirectional_backward_layer": lambda L: L.Bidirectional(
        L.LSTM(3, name="f"), backward_layer=L.SimpleRNN(3, name="s", go_backwards=True), name="b"),
}

# compute_output_shape(input_shape) must equal Keras's
OUTPUT_SHAPES = {
    "lstm_state": (lambda L: L.LSTM(3, return_state=True), (None, 7, 5)),
    "gru_seq": (lambda L: L.GRU(3, return_sequences=True), (4, None, 5)),
    "rnn_stacked_state": (lambda L: L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_state=True, return_sequences=True),
                          (None, 7, 5)),
    "bi_concat_seq": (lambda L: L.Bidirectional(L.GRU(3, return_sequences=True)), (None, 7, 5)),
    "bi_concat_state": (lambda L: L.Bidirectional(L.LSTM(3, return_sequences=True, return_state=True)),
                        (None, 7, 5)),
    "bi_none_state": (lambda L: L.Bidirectional(L.LSTM(3, return_state=True), merge_mode=None), (None, 7, 5)),
    "bi_sum": (lambda L: L.Bidirectional(L.SimpleRNN(3), merge_mode="sum"), (2, 7, 5)),
    "conv_lstm2d_state": (lambda L: L.ConvLSTM2D(4, 3, strides=2, return_state=True), (None, 6, 9, 9, 3)),
    "conv_lstm1d_seq_cf": (lambda L: L.ConvLSTM1D(4, 3, padding="same", data_format="channels_first",
                                                  return_sequences=True), (2, None, 3, 7)),
}


def _plain(obj):
    """Tuples to lists, recursively (JSON's view of a config or a shape)."""
    if isinstance(obj, (list, tuple)):
        return [_plain(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def configs(tf):
    return {k: _plain(make(tf.keras.layers).get_config()) for k, make in CONFIGS.items()}


def output_shapes(tf):
    return {k: _plain(make(tf.keras.layers).compute_output_shape(shape)) for k, (make, shape) in OUTPUT_SHAPES.items()}
