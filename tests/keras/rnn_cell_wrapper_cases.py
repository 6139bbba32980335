"""tf.nn.RNNCellDropoutWrapper / RNNCellResidualWrapper / RNNCellDeviceWrapper around Keras 3 cells, run by
real TF (tools/record_tf_goldens/rnn_cell_wrappers.py -> tests/goldens/rnn_cell_wrappers.json) and by tensorlet
(tests/keras/test_rnn_cell_wrappers.py).  Random dropout masks are checked by properties in the test."""

import numpy as np

X = np.linspace(-1, 1, 6).reshape(2, 3).astype("float32")


def _cell(tf, cls="SimpleRNNCell"):
    return getattr(tf.keras.layers, cls)(3, kernel_initializer="ones", recurrent_initializer="ones",
                                         bias_initializer="zeros")


def _residual(tf):
    cell = _cell(tf)
    w = tf.nn.RNNCellResidualWrapper(cell)
    before = [w.state_size, w.output_size, w.built, cell.built]
    out, state = w(tf.constant(X), [tf.zeros([2, 3])])
    cfg = w.get_config()
    return [out, *state, before + [w.built, cell.built, w.wrapped_cell is cell if hasattr(w, "wrapped_cell")
                                   else None, sorted(cfg), cfg["cell"]["class_name"]]]


def _residual_fn(tf):
    w = tf.nn.RNNCellResidualWrapper(_cell(tf), residual_fn=lambda i, o: i * 10.0 + o)
    return w(tf.constant(X), [tf.zeros([2, 3])])[0]


def _residual_lstm(tf):
    w = tf.nn.RNNCellResidualWrapper(_cell(tf, "LSTMCell"))
    out, (h, c) = w(tf.constant(X), [tf.zeros([2, 3]), tf.zeros([2, 3])])
    return [out, h, c, w.state_size]


def _dropout_keep_all(tf):
    w = tf.nn.RNNCellDropoutWrapper(_cell(tf), input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0)
    out, state = w(tf.constant(X), [tf.zeros([2, 3])])
    return [out, *state, sorted(w.get_config()), w.get_config()["input_keep_prob"]]


def _device(tf):
    w = tf.nn.RNNCellDeviceWrapper(_cell(tf), "/cpu:0")
    out, state = w(tf.constant(X), [tf.zeros([2, 3])])
    return [out, *state, sorted(w.get_config()), w.get_config()["device"]]


def _initial_state(tf):
    return [tf.nn.RNNCellResidualWrapper(_cell(tf)).get_initial_state(batch_size=2, dtype=tf.float32),
            *tf.nn.RNNCellDeviceWrapper(_cell(tf, "LSTMCell"), "/cpu:0").get_initial_state(batch_size=1,
                                                                                            dtype=tf.float64)]


def _error(make):
    try:
        make()
    except (ValueError, TypeError) as e:
        return [type(e).__name__, str(e)]
    return "no error"


def _rebuild_built_cell(tf):
    cell = _cell(tf)
    tf.nn.RNNCellResidualWrapper(cell)(tf.constant(X), [tf.zeros([2, 3])])
    return tf.nn.RNNCellDropoutWrapper(cell)(tf.constant(X), [tf.zeros([2, 3])])


CASES = {
    "residual": _residual,
    "residual_fn": _residual_fn,
    "residual_lstm": _residual_lstm,
    "dropout_keep_all": _dropout_keep_all,
    "device": _device,
    "initial_state": _initial_state,
    "keep_prob_range": lambda tf: _error(lambda: tf.nn.RNNCellDropoutWrapper(_cell(tf), input_keep_prob=1.5)),
    "state_filter_not_callable": lambda tf: _error(
        lambda: tf.nn.RNNCellDropoutWrapper(_cell(tf), dropout_state_filter_visitor=3)),
    "variational_needs_dtype": lambda tf: _error(
        lambda: tf.nn.RNNCellDropoutWrapper(_cell(tf), variational_recurrent=True)),
    "variational_needs_input_size": lambda tf: _error(
        lambda: tf.nn.RNNCellDropoutWrapper(_cell(tf), input_keep_prob=0.5, variational_recurrent=True,
                                            dtype=tf.float32)),
    "wrapping_a_built_cell": _rebuild_built_cell,
}
