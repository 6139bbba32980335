"""``compile(steps_per_execution=N)``: N steps in one compiled call, with Keras 3's callback semantics (batch
indices and results recorded from Keras 3.15 / TF 2.21 by tools/record_tf_goldens/keras_steps_per_execution.py),
and the same weights and history as one step at a time."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from steps_per_execution_cases import CASES, _data, _model  # noqa: E402
from test_engine_goldens import _compare, _norm  # noqa: E402

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens",
                                     "keras_steps_per_execution.json")))


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name):
    tf.keras.backend.clear_session()
    _compare(_norm(CASES[name](tf)), GOLDEN[name], name, rtol=1e-4, atol=1e-5)


def _fit(n, run_eagerly=False, **kw):
    x, y = _data()
    m = _model(tf, n, metrics=["mae"])
    m.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"], steps_per_execution=n,
              run_eagerly=run_eagerly)
    h = m.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0, **kw)
    return m, h.history


@pytest.mark.parametrize("n,run_eagerly", [(4, False), (3, True), (16, False)])
def test_same_as_one_step_at_a_time(n, run_eagerly):
    m1, h1 = _fit(1)
    mn, hn = _fit(n, run_eagerly)
    for k in h1:
        np.testing.assert_allclose(hn[k], h1[k], rtol=1e-5, atol=1e-6, err_msg=k)
    for a, b in zip(mn.get_weights(), m1.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert int(mn.optimizer.iterations.numpy()) == 30
    x, y = _data()
    np.testing.assert_allclose(mn.predict(x, batch_size=4, verbose=0), m1.predict(x, batch_size=4, verbose=0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mn.evaluate(x, y, batch_size=4, verbose=0), m1.evaluate(x, y, batch_size=4, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_stop_training_stops_after_the_group():
    class Stop(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch >= 4:
                self.model.stop_training = True

    m, h = _fit(4, callbacks=[Stop()])
    assert int(m.optimizer.iterations.numpy()) == 8  # two groups of 4, then the loop stops
    assert len(h["loss"]) == 1


def test_custom_train_step_and_validation():
    class Custom(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
            self.calls = tf.Variable(0)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.calls.assign_add(1)
            return {"my_loss": loss}

    x, y = _data()
    m = Custom()
    m.compile(optimizer="sgd", loss="mse", steps_per_execution=4)
    h = m.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_data=(x, y))
    assert int(m.calls.numpy()) == 20
    assert sorted(h.history) == ["my_loss", "val_loss"]
    assert np.isfinite(h.history["my_loss"]).all() and np.isfinite(h.history["val_loss"]).all()


def test_fit_fuses_steps_when_no_callback_looks_at_batches():
    """steps_per_execution=1 and no batch hook: fit runs groups of steps (multi_step.auto_group_size) with the
    same results as a fit whose callback sees every batch (which runs one step at a time)."""
    from tensorlet._src.keras.trainers import multi_step

    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, size=(multi_step.AUTO_MIN_STEPS + 13, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    seen = []
    hooked = tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b))
    results = []
    for callbacks in ([], [hooked]):
        m = _model(tf, 1, metrics=["mae"])
        h = m.fit(x, y, batch_size=1, epochs=1, shuffle=False, verbose=0, callbacks=callbacks)
        results.append((m.get_weights(), h.history, m))
    assert seen == list(range(len(x)))
    (w0, h0, m0), (w1, h1, _) = results
    assert m0._group_functions_cache["train"][1] is not None  # the fused function ran
    for a, b in zip(w0, w1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h0["loss"], h1["loss"], rtol=1e-5)
    assert int(m0.optimizer.iterations.numpy()) == len(x)


def test_fit_does_not_fuse_steps_of_models_with_convolutions():
    # XLA:CPU's own convolutions run 6-7x slower inside a loop (benchmarks/bench_conv.py)
    from tensorlet._src.keras.trainers.multi_step import _convolutions_fuse_well

    K = tf.keras
    seed = K.Sequential([K.Input((28, 28, 1)), K.layers.Conv2D(16, 3, activation="relu"), K.layers.MaxPooling2D(),
                         K.layers.Conv2D(64, 3), K.layers.Flatten(), K.layers.Dense(10)])
    depthwise = K.Sequential([K.Input((28, 28, 3)), K.layers.DepthwiseConv2D(3), K.layers.Flatten()])
    large = K.Sequential([K.Input((224, 224, 3)), K.layers.Conv2D(16, 3), K.layers.Flatten()])
    conv1d = K.Sequential([K.Input((20, 3)), K.layers.Conv1D(4, 3), K.layers.Flatten()])
    mlp = K.Sequential([K.Input((8,)), K.layers.Dense(4)])
    got = [_convolutions_fuse_well(m) for m in (seed, depthwise, large, conv1d, mlp)]
    assert got == [False, False, False, False, True]


def test_values_read_before_a_step_are_not_overwritten():
    """The compiled step donates the variables' buffers: a tensor read from a variable before it keeps its value."""
    x, y = _data()
    m = _model(tf, 4)
    m.fit(x, y, batch_size=4, epochs=1, verbose=0)
    kernel = m.layers[0].kernel
    before = kernel.value()
    copy = np.array(before)
    m.fit(x, y, batch_size=4, epochs=1, verbose=0)
    np.testing.assert_array_equal(np.asarray(before), copy)
    assert not np.array_equal(kernel.numpy(), copy)


def test_fit_with_progress_bar_fuses_steps_and_counts_all(capsys):
    from tensorlet._src.keras.trainers import multi_step

    rng = np.random.RandomState(4)
    x = rng.uniform(-1, 1, size=(multi_step.AUTO_MIN_STEPS + 5, 3)).astype(np.float32)
    m = _model(tf, 1)
    m.fit(x, x[:, :1], batch_size=1, epochs=1, shuffle=False, verbose=1)
    assert m._group_functions_cache["train"][1] is not None
    out = capsys.readouterr().out
    assert f"{len(x)}/{len(x)}" in out and f"{len(x) + 1}/" not in out
    assert int(m.optimizer.iterations.numpy()) == len(x)
