"""How fit/evaluate/predict dispatch their compiled steps: one trace per batch signature kept across fit calls,
batches passed as flat tensors (dicts, sample weights, None leaves), per-batch callback hooks only when a callback
defines one, AutoGraph on user train steps, and batches that never alias the user's arrays."""

import warnings

import numpy as np

import tensorlet as tf
from tensorlet._src.keras.trainers.epoch_iterator import EpochIterator

keras = tf.keras


def _data(n=20, seed=0):
    rs = np.random.RandomState(seed)
    x = rs.uniform(-1, 1, (n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


class CountingModel(keras.Model):
    """Counts how often its train step's Python runs: once per trace when compiled, once per batch eagerly."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.traces = 0

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.traces += 1
        return super().train_step(data)


def _counting(run_eagerly=False):
    keras.backend.clear_session()
    m = CountingModel()
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    return m


def test_one_trace_per_batch_shape_kept_across_fit_calls():
    x, y = _data(20)  # batches of 8, 8 and a last one of 4
    m = _counting()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no retracing warnings, no eager fallback
        m.fit(x, y, batch_size=8, epochs=3, verbose=0)
        assert m.traces == 2  # the full batches and the last partial one, traced once each
        m.fit(x, y, batch_size=8, epochs=2, verbose=0)
        assert m.traces == 2
        # a loop that reads each step's results (train_on_batch, per-batch callbacks) uses a variant of the step
        # that returns them (a silent fit's variant returns nothing and need not wait for the step to finish)
        m.train_on_batch(x[:8], y[:8])
        assert m.traces == 3
        batch_ends = []
        m.fit(x, y, batch_size=8, epochs=2, verbose=0,
              callbacks=[keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batch_ends.append(b))])
        assert m.traces == 4 and batch_ends == [0, 1, 2, 0, 1, 2]
        m.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert m.traces == 4
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")  # a new compile() makes new step functions
    m.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert m.traces == 6
    eager = _counting(run_eagerly=True)
    eager.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert eager.traces == 6


def test_compiled_fit_matches_eager_with_dicts_sample_weights_and_partial_batches():
    rs = np.random.RandomState(1)
    xa, xb = rs.rand(13, 2).astype(np.float32), rs.rand(13, 3).astype(np.float32)
    y = rs.rand(13, 1).astype(np.float32)
    sw = rs.rand(13).astype(np.float32)

    def run(run_eagerly):
        keras.backend.clear_session()
        a, b = keras.Input((2,), name="a"), keras.Input((3,), name="b")
        out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
        m = keras.Model({"a": a, "b": b}, out)
        m.set_weights([np.linspace(-1, 1, 5, dtype=np.float32).reshape(5, 1), np.zeros(1, np.float32)])
        m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", weighted_metrics=["mae"],
                  run_eagerly=run_eagerly)
        h = m.fit({"a": xa, "b": xb}, y, sample_weight=sw, batch_size=4, epochs=3, shuffle=False, verbose=0)
        ev = m.evaluate({"a": xa, "b": xb}, y, batch_size=5, verbose=0, return_dict=True)
        return h.history, ev, m.predict({"a": xa, "b": xb}, batch_size=6, verbose=0)

    (h1, e1, p1), (h2, e2, p2) = run(False), run(True)
    assert sorted(h1) == ["loss", "mae"] and sorted(e1) == ["loss", "mae"]
    for k in h1:
        np.testing.assert_allclose(h1[k], h2[k], rtol=1e-5)
        np.testing.assert_allclose(e1[k], e2[k], rtol=1e-5)
    assert p1.shape == (13, 1)
    np.testing.assert_allclose(p1, p2, rtol=1e-5)


class _BatchEndOnly(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_batch_end(self, batch, logs=None):
        self.seen.append((batch, sorted(logs), type(logs["loss"])))


def test_batch_hooks_called_only_when_defined_and_get_python_logs():
    x, y = _data(20)
    m = _counting()
    cb = _BatchEndOnly()
    ends = []
    lam = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: ends.append(round(logs["mae"], 6)))
    m.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[cb, lam])
    assert cb.seen == [(i, ["loss", "mae"], float) for i in (0, 1, 2)] * 2
    assert len(ends) == 6 and all(isinstance(v, float) for v in ends)
    # epoch-level callbacks still see the epoch logs when no callback hooks batches
    epochs = []
    m.fit(x, y, batch_size=8, epochs=2, verbose=0,
          callbacks=[keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: epochs.append(sorted(logs)))])
    assert epochs == [["loss", "mae"], ["loss", "mae"]]


def test_custom_step_results_of_any_structure():
    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"z_loss": loss, "a_nested": {"count": tf.cast(tf.shape(x)[0], tf.float32)}}

        def test_step(self, data):
            x, y = data[0], data[1]
            return {"b": tf.reduce_sum(y), "a": tf.reduce_sum(x)}

        def predict_step(self, data):
            out = self(data[0] if isinstance(data, tuple) else data)
            return [out, {"double": 2.0 * out}]

    keras.backend.clear_session()
    m = M()
    m.compile(optimizer=keras.optimizers.SGD(0.1))
    x, y = _data(10)
    seen = []
    cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(logs))
    m.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[cb])
    assert [sorted(s) for s in seen] == [["count", "z_loss"]] * 3  # nested dicts flattened, as Keras does
    assert [s["count"] for s in seen] == [4.0, 4.0, 2.0]
    logs = m.test_on_batch(x, y, return_dict=True)
    np.testing.assert_allclose([logs["a"], logs["b"]], [x.sum(), y.sum()], rtol=1e-5)
    ev = m.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)  # a custom step's names: its last logs
    np.testing.assert_allclose([ev["a"], ev["b"]], [x[8:].sum(), y[8:].sum()], rtol=1e-5)
    hist = m.fit(x, y, batch_size=4, epochs=2, verbose=0).history
    assert sorted(hist) == ["count", "z_loss"] and hist["count"] == [2.0, 2.0]
    out, extra = m.predict(x, batch_size=4, verbose=0)
    np.testing.assert_allclose(extra["double"], 2 * out, rtol=1e-6)


def test_user_train_step_goes_through_autograph():
    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x) - y))
                if loss > 1e6:  # a Python `if` on a tensor: needs AutoGraph inside the compiled step
                    loss = loss * 0.0
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"step_loss": loss}  # ("loss" would report the untouched loss tracker: 0.0, as in Keras)

    keras.backend.clear_session()
    m = M()
    m.compile(optimizer=keras.optimizers.SGD(0.1))
    x, y = _data(16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the step compiles: no "runs eagerly" fallback warning
        h = m.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)  # each epoch ends on the same batch
    assert h.history["step_loss"][-1] < h.history["step_loss"][0]


def test_array_batches_are_copies_and_counts_known():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.int64)
    it = EpochIterator(x, y, batch_size=4, shuffle=False)
    assert it.batch_counts() == {4: 2, 2: 1}
    batches = [b for _, b in it.enumerate_epoch()]
    x[:] = -1.0
    np.testing.assert_array_equal(batches[0][0].numpy(), np.arange(12, dtype=np.float32).reshape(4, 3))
    assert batches[2][1].dtype == tf.int64 and batches[2][1].shape == (2,)
    names = np.array(["a", "b", "c"])
    strs, = [b for _, b in EpochIterator(names, batch_size=4).enumerate_epoch()]  # a lone x batches as itself
    assert strs.dtype == tf.string
    assert EpochIterator(x, y, batch_size=4, steps_per_epoch=2).batch_counts() is None


def test_progress_bar_loop_shows_the_results_without_reading_every_step(capsys):
    x, y = _data(40)
    m = _counting()
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=1)
    assert m.traces == 1  # Keras's progress bar alone does not need the variant that returns each step's results
    out = capsys.readouterr().out
    assert out.count("5/5") >= 2
    for loss, mae in zip(h.history["loss"], h.history["mae"]):
        assert f"loss: {loss:.4f}" in out and f"mae: {mae:.4f}" in out
    ev = m.evaluate(x, y, batch_size=8, verbose=1, return_dict=True)
    out = capsys.readouterr().out
    assert f"loss: {ev['loss']:.4f}" in out and f"mae: {ev['mae']:.4f}" in out
    quiet = m.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
    seen = []
    loud = m.evaluate(x, y, batch_size=8, verbose=0, return_dict=True,
                      callbacks=[keras.callbacks.LambdaCallback(on_test_batch_end=lambda b, logs: seen.append(b))])
    assert seen == [0, 1, 2, 3, 4]
    for k in ("loss", "mae"):
        np.testing.assert_allclose([quiet[k], loud[k]], [ev[k], ev[k]], rtol=1e-6)
