"""keras.callbacks.TensorBoard: the files, tags and steps Keras 3 writes (recorded from real Keras)."""

import json
import os
import time

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.callbacks.tensorboard import TensorBoard

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "ckpt", "summaries.json")))


class FakeWeight:
    def __init__(self, path, shape):
        self.path = path
        self.name = path.rsplit("/", 1)[1]
        self._v = tf.Variable(np.random.RandomState(len(path)).randn(*shape).astype(np.float32))

    def numpy(self):
        return self._v.numpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._v.numpy(), dtype=dtype)


class FakeLayer:
    def __init__(self, name, shapes):
        self.name = name
        self.weights = [FakeWeight(f"sequential/{name}/{w}", s) for w, s in shapes]


class FakeOptimizer:
    def __init__(self, iterations=0):
        self.name = "SGD"
        self.iterations = tf.Variable(iterations, dtype=tf.int64)
        self.learning_rate = tf.Variable(0.01)


class Sequential:
    """Enough of a Keras model for the callback (the class name matters for the model-config summary)."""

    def __init__(self, iterations=0):
        self.name = "sequential"
        self.layers = [FakeLayer("d1", [("kernel", (4, 3)), ("bias", (3,))]),
                       FakeLayer("d2", [("kernel", (3, 1)), ("bias", (1,))])]
        self.optimizer = FakeOptimizer(iterations)

    def to_json(self):
        return json.dumps({"class_name": "Sequential", "config": {"name": self.name}})


def fit(model, cb, epochs=2, steps=5, val_steps=2):
    """Calls the hooks in the order Keras 3's fit() calls them."""
    cb.set_model(model)
    cb.on_train_begin()
    for epoch in range(epochs):
        cb.on_epoch_begin(epoch)
        for b in range(steps):
            cb.on_train_batch_begin(b)
            model.optimizer.iterations.assign_add(1)
            cb.on_train_batch_end(b, {"loss": 1.0 / (b + 1), "mae": 0.5})
        cb.on_test_begin()
        for b in range(val_steps):
            cb.on_test_batch_begin(b)
            cb.on_test_batch_end(b, {"loss": 0.3, "mae": 0.2})
        cb.on_test_end({"loss": 0.3, "mae": 0.2})
        cb.on_epoch_end(epoch, {"loss": 0.25, "mae": 0.5, "val_loss": 0.3, "val_mae": 0.2})
    cb.on_train_end()


def layout(logdir):
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.util import tensor_util

    out = []
    for root, _, files in sorted(os.walk(logdir)):
        for f in sorted(files):
            for e in event_file_loader.EventFileLoader(os.path.join(root, f)).Load():
                for v in e.summary.value:
                    arr = tensor_util.make_ndarray(v.tensor)
                    dtype = "string" if arr.dtype == object else arr.dtype.name
                    out.append([os.path.relpath(root, logdir), e.step, v.tag, v.metadata.plugin_data.plugin_name,
                                dtype, list(arr.shape)])
    return out


@pytest.mark.parametrize("label,kw,start", [
    ("epoch", dict(histogram_freq=1, update_freq="epoch", write_graph=False), 0),
    ("int2", dict(histogram_freq=0, update_freq=2, write_graph=False), 10),
])
def test_layout_matches_keras(tmp_path, label, kw, start):
    fit(Sequential(iterations=start), TensorBoard(str(tmp_path), **kw))
    assert layout(str(tmp_path)) == GOLDEN["keras_callback"][label]


def test_values_and_model_config(tmp_path):
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.util import tensor_util

    model = Sequential()
    fit(model, TensorBoard(str(tmp_path), histogram_freq=2, write_graph=True), epochs=3)
    train = os.path.join(str(tmp_path), "train")
    (f,) = os.listdir(train)
    events = [(e.step, v) for e in event_file_loader.EventFileLoader(os.path.join(train, f)).Load()
              for v in e.summary.value]
    step, graph = events[0]
    assert (step, graph.tag, graph.metadata.plugin_data.plugin_name, graph.metadata.plugin_data.content) == \
        (0, "keras", "graph_keras_model", b"1")
    assert json.loads(tensor_util.make_ndarray(graph.tensor).reshape(-1)[0])["class_name"] == "Sequential"
    hist = [(s, v.tag) for s, v in events if v.tag.endswith("/histogram")]
    assert sorted({s for s, _ in hist}) == [0, 2]  # every histogram_freq epochs
    kernel = [v for s, v in events if v.tag == "sequential/d1/kernel/histogram"][0]
    table = tensor_util.make_ndarray(kernel.tensor)
    assert table[:, 2].sum() == 12 and table[0, 0] == model.layers[0].weights[0].numpy().min()
    lr = [tensor_util.make_ndarray(v.tensor) for s, v in events if v.tag == "epoch_learning_rate"]
    np.testing.assert_allclose(lr, [0.01] * 3)


def test_epoch_mode_costs_nothing_per_batch(tmp_path):
    """update_freq='epoch': the per-batch hooks must be negligible next to any real train step (<= 5%)."""
    cb = TensorBoard(str(tmp_path), update_freq="epoch", write_graph=False)
    cb.set_model(Sequential())
    cb.on_train_begin()
    logs = {"loss": 0.5, "mae": 0.1}
    n = 20000
    t0 = time.perf_counter()
    for b in range(n):
        cb.on_train_batch_begin(b)
        cb.on_train_batch_end(b, logs)
    per_batch = (time.perf_counter() - t0) / n
    cb.on_train_end()
    # a tiny Dense train step takes well over 200 us eagerly; 5% of that is 10 us
    assert per_batch < 10e-6, per_batch
    assert not os.listdir(os.path.join(str(tmp_path), "train")) or all(
        os.path.getsize(os.path.join(str(tmp_path), "train", f)) < 200
        for f in os.listdir(os.path.join(str(tmp_path), "train")))


def test_with_real_keras_fit(tmp_path):
    keras = tf.keras
    try:
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d1"),
                                  keras.layers.Dense(1, name="d2")], name="sequential")  # as in the golden
        model.compile(keras.optimizers.SGD(0.01), "mse", metrics=["mae"])
    except (AttributeError, NotImplementedError) as e:
        pytest.skip(f"keras Sequential/compile not available yet: {e}")
    x, y = np.ones((20, 4), np.float32), np.ones((20, 1), np.float32)
    cb = keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, write_graph=False)
    model.fit(x, y, batch_size=4, epochs=2, validation_data=(x[:8], y[:8]), callbacks=[cb], verbose=0)
    assert layout(str(tmp_path)) == GOLDEN["keras_callback"]["epoch"]
