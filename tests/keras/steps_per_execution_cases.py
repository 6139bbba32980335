"""``steps_per_execution`` programs run on real Keras 3 (tools/record_tf_goldens/keras_steps_per_execution.py) and
on tensorlet (tests/keras/test_fit_steps_per_execution.py): the batch indices the callbacks see, the history and
the weights.  Each takes the ``tf`` module and returns JSON-able results; weights are set explicitly and data is
not shuffled, so results are deterministic on both sides.  10 batches (38 samples, batch 4: the last has 2)."""

import numpy as np


def _data():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, size=(38, 3)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.25).astype(np.float32)
    return x, y


def _model(tf, n, metrics=None):
    keras = tf.keras
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    rng = np.random.RandomState(1)
    m.set_weights([rng.uniform(-1, 1, size=w.shape).astype(np.float32) for w in m.get_weights()])
    m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=metrics, steps_per_execution=n)
    return m


def _recorder(tf, rec):
    class Recorder(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            rec.append(["train_begin", batch])

        def on_train_batch_end(self, batch, logs=None):
            rec.append(["train_end", batch, sorted(logs)])

        def on_test_batch_begin(self, batch, logs=None):
            rec.append(["test_begin", batch])

        def on_test_batch_end(self, batch, logs=None):
            rec.append(["test_end", batch, sorted(logs)])

        def on_predict_batch_begin(self, batch, logs=None):
            rec.append(["predict_begin", batch])

        def on_predict_batch_end(self, batch, logs=None):
            rec.append(["predict_end", batch, list(np.asarray(logs["outputs"]).shape)])

    return Recorder()


def _weights(m):
    return [np.asarray(w).astype(np.float64).ravel().tolist() for w in m.get_weights()]


def fit_hooks(tf):
    x, y = _data()
    m = _model(tf, 4, metrics=["mae"])
    rec = []
    h = m.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[_recorder(tf, rec)])
    return {"hooks": rec, "history": {k: [float(v) for v in vs] for k, vs in h.history.items()},
            "weights": _weights(m), "iterations": int(np.asarray(m.optimizer.iterations))}


def fit_steps_per_epoch(tf):
    """steps_per_epoch=3 with steps_per_execution=4: Keras runs whole groups (4 steps an epoch)."""
    x, y = _data()
    m = _model(tf, 4)
    rec = []
    m.fit(x, y, batch_size=4, epochs=2, steps_per_epoch=3, shuffle=False, verbose=0,
          callbacks=[_recorder(tf, rec)])
    return {"hooks": rec, "iterations": int(np.asarray(m.optimizer.iterations)), "weights": _weights(m)}


def evaluate_predict_hooks(tf):
    x, y = _data()
    m = _model(tf, 4, metrics=["mae"])
    rec = []
    ev = m.evaluate(x, y, batch_size=4, verbose=0, return_dict=True, callbacks=[_recorder(tf, rec)])
    p = m.predict(x, batch_size=4, verbose=0, callbacks=[_recorder(tf, rec)])
    return {"hooks": rec, "evaluate": {k: float(v) for k, v in ev.items()},
            "predict": np.asarray(p).astype(np.float64).ravel().tolist()}


CASES = {"fit_hooks": fit_hooks, "fit_steps_per_epoch": fit_steps_per_epoch,
         "evaluate_predict_hooks": evaluate_predict_hooks}
