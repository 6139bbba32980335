"""Training API: data kinds (arrays, dicts, tf.data, generators, PyDataset), fit arguments, evaluate/predict forms,
custom train steps (Keras 3 and TF 2 guide style), compiled vs eager steps, callbacks and output."""

import warnings

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.engine.functional import Functional

keras = tf.keras


def _data(n=16, seed=0):
    rs = np.random.RandomState(seed)
    x = rs.uniform(-1, 1, (n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def _model(seed=1, compile_kw=None):
    keras.backend.clear_session()
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])
    rs = np.random.RandomState(seed)
    m.set_weights([rs.uniform(-0.5, 0.5, tuple(w.shape)).astype(np.float32) for w in m.weights])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"], **(compile_kw or {}))
    return m


def test_fit_decreases_loss_and_eager_equals_compiled():
    x, y = _data()
    h1 = _model().fit(x, y, batch_size=4, epochs=4, shuffle=False, verbose=0).history
    h2 = _model(compile_kw={"run_eagerly": True}).fit(x, y, batch_size=4, epochs=4, shuffle=False, verbose=0).history
    assert sorted(h1) == ["loss", "mae"]
    assert all(a > b for a, b in zip(h1["loss"], h1["loss"][1:]))
    np.testing.assert_allclose(h1["loss"], h2["loss"], rtol=1e-5)
    np.testing.assert_allclose(h1["mae"], h2["mae"], rtol=1e-5)


def test_data_kinds_give_same_history():
    x, y = _data()
    ref = _model().fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    got_ds = _model().fit(ds, epochs=2, verbose=0).history["loss"]

    def gen():
        while True:
            for i in range(0, 16, 4):
                yield x[i:i + 4], y[i:i + 4]

    got_gen = _model().fit(gen(), steps_per_epoch=4, epochs=2, verbose=0).history["loss"]

    class Seq(keras.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[4 * i:4 * i + 4], y[4 * i:4 * i + 4]

    got_seq = _model().fit(Seq(), epochs=2, verbose=0, shuffle=False).history["loss"]
    for got in (got_ds, got_gen, got_seq):
        np.testing.assert_allclose(got, ref, rtol=1e-5)
    with pytest.raises(ValueError, match="`y` should not be passed"):
        _model().fit(ds, y, verbose=0)


def test_dict_inputs_and_multi_output_losses():
    keras.backend.clear_session()
    a = keras.Input((2,), name="a")
    b = keras.Input((1,), name="b")
    h = keras.layers.Dense(3)(keras.layers.Dense(3)(a) + keras.layers.Dense(3)(b))
    m = keras.Model({"a": a, "b": b}, [keras.layers.Dense(1, name="o1")(h), keras.layers.Dense(2, name="o2")(h)])
    m.compile(optimizer="sgd", loss={"o1": "mse", "o2": "mae"}, loss_weights={"o1": 1.0, "o2": 0.5})
    rs = np.random.RandomState(0)
    xs = {"a": rs.rand(8, 2).astype("float32"), "b": rs.rand(8, 1).astype("float32")}
    ys = {"o1": rs.rand(8, 1).astype("float32"), "o2": rs.rand(8, 2).astype("float32")}
    h = m.fit(xs, ys, batch_size=4, epochs=1, verbose=0).history
    assert sorted(h) == ["loss", "o1_loss", "o2_loss"]
    np.testing.assert_allclose(h["loss"][0], h["o1_loss"][0] + 0.5 * h["o2_loss"][0], rtol=1e-5)
    p = m.predict(xs, batch_size=3, verbose=0)
    assert isinstance(p, list) and p[0].shape == (8, 1) and p[1].shape == (8, 2)
    ev = m.evaluate(xs, ys, verbose=0)
    assert isinstance(ev, list) and len(ev) == 3


def test_fit_arguments():
    x, y = _data(20)
    m = _model()
    h = m.fit(x, y, batch_size=5, epochs=4, initial_epoch=1, validation_split=0.2, validation_freq=2, verbose=0)
    assert h.epoch == [1, 2, 3]
    assert len(h.history["loss"]) == 3 and len(h.history["val_loss"]) == 2  # epochs 2 and 4 (1-based)
    h = _model().fit(x, y, batch_size=5, epochs=2, steps_per_epoch=2, verbose=0)
    assert len(h.history["loss"]) == 2
    with pytest.raises(ValueError, match="not sufficient to split"):
        _model().fit(x[:1], y[:1], validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match="You must call `compile\\(\\)`"):
        keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]).fit(x, y, verbose=0)


def test_evaluate_predict_and_batch_methods():
    x, y = _data()
    m = _model()
    loss, mae = m.evaluate(x, y, batch_size=8, verbose=0)
    d = m.evaluate(x, y, verbose=0, return_dict=True)
    np.testing.assert_allclose([d["loss"], d["mae"]], [loss, mae], rtol=1e-6)
    pred = m.predict(x, batch_size=5, verbose=0)
    assert isinstance(pred, np.ndarray) and pred.shape == (16, 1)
    np.testing.assert_allclose(np.mean((pred - y) ** 2), loss, rtol=1e-5)
    np.testing.assert_allclose(m.predict_on_batch(x[:3]), pred[:3], rtol=1e-6)
    before = m.test_on_batch(x, y)
    m.train_on_batch(x, y)
    assert m.test_on_batch(x, y)[0] < before[0]


def test_custom_train_step_tf2_guide_style():
    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    keras.backend.clear_session()
    inp = keras.Input((3,))
    model = CustomModel(inp, keras.layers.Dense(1)(inp))
    # a functional model with the subclass's methods (Keras 3 rewrites CustomModel.__bases__; tensorlet leaves the
    # class alone and gives the instance a functional variant of it)
    assert isinstance(model, CustomModel) and isinstance(model, Functional) and CustomModel.__bases__ == (keras.Model,)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hist = model.fit(x, y, epochs=2, verbose=0)
    # the nested compile_metrics result is flattened into the logs, as Keras's pythonify_logs does
    assert sorted(hist.history) == ["loss", "mae"]


def test_subclassed_model_fit_and_callbacks():
    class MNISTModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = keras.layers.Dense(8, activation="relu")
            self.drop = keras.layers.Dropout(0.1)
            self.d2 = keras.layers.Dense(1)

        def call(self, x, training=False):
            return self.d2(self.drop(self.d1(x), training=training))

    keras.backend.clear_session()
    keras.utils.set_random_seed(3)
    model = MNISTModel()
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    x, y = _data(32)
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=100.0)
    h = model.fit(x, y, epochs=5, batch_size=8, verbose=0, callbacks=[stop])
    assert len(h.history["loss"]) == 2  # no improvement of 100 after the first epoch
    assert [w.path for w in model.weights] == ["mnist_model/dense/kernel", "mnist_model/dense/bias",
                                               "mnist_model/dense_1/kernel", "mnist_model/dense_1/bias"]


def test_verbose_two_prints_one_line_per_epoch(capsys):
    x, y = _data()
    _model().fit(x, y, epochs=2, batch_size=8, verbose=2)
    out = capsys.readouterr().out
    assert out.count("Epoch 1/2") == 1 and out.count("Epoch 2/2") == 1 and "loss:" in out


def test_class_weight_and_sample_weight_errors():
    x, y = _data()
    with pytest.raises(ValueError, match="`class_weight` and `sample_weight` at the same time"):
        _model().fit(x, y, class_weight={0: 1.0}, sample_weight=np.ones(16), verbose=0)
    with pytest.raises(ValueError, match="No loss to compute"):
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        m.compile(optimizer="sgd")
        m.fit(x, y, verbose=0, epochs=1)
