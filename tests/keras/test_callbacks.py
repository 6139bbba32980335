"""keras.callbacks: the hooks' protocol, History, EarlyStopping, ReduceLROnPlateau, LearningRateScheduler,
ModelCheckpoint, CSVLogger, LambdaCallback, TerminateOnNaN and BackupAndRestore -- on a scripted fake model (exact
sequences of monitored values, as Keras's own callback tests do) and on small real models through ``fit``."""

import csv
import json
import os
import re

import numpy as np
import pytest

import tensorlet as tf

C = tf.keras.callbacks


class FakeOptimizer:
    def __init__(self, lr=0.1):
        self.learning_rate = lr
        self.built = True
        self.variables = [tf.Variable(3, dtype=tf.int64), tf.Variable([1.0, 2.0])]


class FakeModel:
    """Enough of a Model for callbacks: weights, an optimizer, save/save_weights recorders, stop_training."""

    def __init__(self):
        self.weights = [np.zeros((2, 2), np.float32), np.zeros(2, np.float32)]
        self.optimizer = FakeOptimizer()
        self.stop_training = False
        self.saved = []
        self.built = True
        self.metrics = []
        self._initial_epoch = None

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [np.array(w) for w in weights]

    def save(self, path, overwrite=True):
        self.saved.append(("model", path))

    def save_weights(self, path, overwrite=True):
        self.saved.append(("weights", path))


def run_epochs(callbacks, model, epoch_logs, on_epoch=None, start=0):
    """A minimal fit loop: returns the epochs that ran."""
    cbl = C.CallbackList(callbacks, add_history=True, model=model, verbose=0, epochs=len(epoch_logs), steps=2)
    cbl.on_train_begin()
    start = model._initial_epoch or start
    ran = []
    for epoch in range(start, len(epoch_logs)):
        cbl.on_epoch_begin(epoch)
        if on_epoch:
            on_epoch(epoch)
        for b in range(2):
            cbl.on_train_batch_begin(b)
            cbl.on_train_batch_end(b, {"loss": epoch_logs[epoch].get("loss", 0.0)})
        cbl.on_epoch_end(epoch, dict(epoch_logs[epoch]))
        ran.append(epoch)
        if model.stop_training:
            break
    cbl.on_train_end()
    return ran


def test_callback_list_order_pythonify_and_history():
    events = []

    class Rec(C.Callback):
        def on_train_begin(self, logs=None):
            events.append(("train_begin", self.params["epochs"], self.model is model))

        def on_epoch_end(self, epoch, logs=None):
            events.append(("epoch_end", epoch, logs))

        def on_batch_end(self, batch, logs=None):  # the alias on_train_batch_end calls
            events.append(("batch_end", batch))

    model = FakeModel()
    run_epochs([Rec()], model, [{"loss": tf.constant(0.5), "acc": np.float32(0.25), "out": {"b": 1}}])
    assert events[0] == ("train_begin", 1, True)
    assert events[1:3] == [("batch_end", 0), ("batch_end", 1)]
    name, epoch, logs = events[3]
    assert list(logs) == ["acc", "loss", "b"] and type(logs["loss"]) is float and logs["loss"] == 0.5  # Keras order
    assert model.history.history == {"acc": [0.25], "loss": [0.5], "b": [1.0]} and model.history.epoch == [0]
    with pytest.raises(ValueError, match="`on_xxx_end` called without corresponding `on_xxx_begin`"):
        C.CallbackList([]).on_test_end()


def test_early_stopping_patience_baseline_and_restore():
    losses = [1.0, 0.5, 0.6, 0.55, 0.7, 0.2]
    model = FakeModel()
    stop = C.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True, verbose=1)

    def train(epoch):
        model.weights = [np.full((2, 2), epoch, np.float32), np.full(2, epoch, np.float32)]

    ran = run_epochs([stop], model, [{"loss": v} for v in losses], on_epoch=train)
    assert ran == [0, 1, 2, 3] and stop.stopped_epoch == 3 and stop.best == 0.5 and stop.best_epoch == 1
    assert model.weights[0][0, 0] == 1.0  # restored from epoch index 1

    worse = [{"loss": v} for v in (0.9, 0.95, 0.97, 0.99)]
    assert run_epochs([C.EarlyStopping(monitor="loss", patience=2)], FakeModel(), worse) == [0, 1, 2]
    # a baseline not reached: the epochs before count towards the patience
    assert run_epochs([C.EarlyStopping(monitor="loss", patience=2, baseline=0.1)], FakeModel(), worse) == [0, 1]
    # while the value keeps improving Keras never stops, baseline or not
    better = [{"loss": v} for v in (0.9, 0.8, 0.7, 0.6)]
    assert run_epochs([C.EarlyStopping(monitor="loss", patience=1, baseline=0.1)], FakeModel(), better) == \
        [0, 1, 2, 3]

    model = FakeModel()  # mode max, min_delta, start_from_epoch
    stop = C.EarlyStopping(monitor="val_acc", mode="max", min_delta=0.05, patience=1, start_from_epoch=2)
    assert run_epochs([stop], model, [{"val_acc": v} for v in (0.1, 0.1, 0.5, 0.52, 0.9)]) == [0, 1, 2, 3]


def test_early_stopping_direction_from_metric_and_missing_monitor():
    model = FakeModel()
    auc = tf.keras.metrics.AUC(name="auc")
    model.metrics = [type("CompileMetrics", (), {"metrics": [auc], "name": "compile_metrics"})()]
    stop = C.EarlyStopping(monitor="val_auc", patience=1)
    assert run_epochs([stop], model, [{"val_auc": v} for v in (0.5, 0.7, 0.6, 0.8)]) == [0, 1, 2]
    stop = C.EarlyStopping(monitor="val_thing")
    with pytest.raises(ValueError, match="isn't able to automatically determine whether that metric should be max"):
        run_epochs([stop], FakeModel(), [{"val_thing": 1.0}])
    with pytest.warns(UserWarning, match="Early stopping conditioned on metric `val_loss` which is not available"):
        run_epochs([C.EarlyStopping()], FakeModel(), [{"loss": 1.0}])


def test_reduce_lr_on_plateau_and_scheduler(capsys):
    model = FakeModel()
    red = C.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, cooldown=1, min_lr=0.02, verbose=1)
    run_epochs([red], model, [{"loss": v} for v in (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)])
    # cooldown 1 + patience 1 on a flat loss: a reduction every epoch from the 2nd, floored at min_lr
    assert model.optimizer.learning_rate == 0.02
    assert model.history.history["learning_rate"] == [0.1, 0.1, 0.05, 0.025, 0.02, 0.02]
    out = capsys.readouterr().out
    assert "Epoch 2: ReduceLROnPlateau reducing learning rate to 0.05." in out
    assert "Epoch 4: ReduceLROnPlateau reducing learning rate to 0.02." in out
    with pytest.raises(ValueError, match="does not support a factor >= 1.0"):
        C.ReduceLROnPlateau(factor=1.0)

    model = FakeModel()
    sched = C.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr, verbose=1)
    run_epochs([sched], model, [{"loss": 1.0}] * 3)
    assert model.history.history["learning_rate"] == [0.1, 0.05, 0.025]
    assert "Epoch 3: LearningRateScheduler setting learning rate to 0.025." in capsys.readouterr().out
    model = FakeModel()
    run_epochs([C.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))], model, [{"loss": 1.0}] * 2)
    assert model.optimizer.learning_rate == 0.02
    with pytest.raises(ValueError, match="The output of the `schedule` function should be a float"):
        run_epochs([C.LearningRateScheduler(lambda epoch: "x")], FakeModel(), [{"loss": 1.0}])


def test_model_checkpoint_paths_best_only_and_batch_frequency(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "ckpt-{epoch:02d}-{val_loss:.2f}.keras")
    ck = C.ModelCheckpoint(path, save_best_only=True)
    run_epochs([ck], model, [{"val_loss": v} for v in (0.9, 0.95, 0.5)])
    assert model.saved == [("model", str(tmp_path / "ckpt-01-0.90.keras")), ("model", str(tmp_path /
                                                                                         "ckpt-03-0.50.keras"))]
    model = FakeModel()
    ck = C.ModelCheckpoint(str(tmp_path / "sub" / "w-{epoch}-{batch}.weights.h5"), save_weights_only=True,
                           save_freq=3)
    run_epochs([ck], model, [{"loss": 1.0}] * 3)
    assert [p for _, p in model.saved] == [str(tmp_path / "sub" / "w-2-1.weights.h5"),
                                           str(tmp_path / "sub" / "w-3-2.weights.h5")]
    assert os.path.isdir(tmp_path / "sub")
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        C.ModelCheckpoint("x.keras", save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        C.ModelCheckpoint("x.ckpt")
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        C.ModelCheckpoint("x.keras", save_freq="batch")
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        run_epochs([C.ModelCheckpoint(str(tmp_path / "{nope}.keras"))], FakeModel(), [{"loss": 1.0}])


def test_csv_logger_format_and_append(tmp_path):
    fn = str(tmp_path / "log.csv")
    run_epochs([C.CSVLogger(fn)], FakeModel(), [{"loss": 0.5, "acc": 0.25}, {"loss": 0.25, "acc": 0.5}])
    with open(fn, newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["epoch", "acc", "loss", "val_acc", "val_loss"], ["0", "0.25", "0.5", "NA", "NA"],
                    ["1", "0.5", "0.25", "NA", "NA"]]
    assert open(fn, "rb").read().count(b"\r\n") == 3  # csv.excel line ends, as Keras writes them
    run_epochs([C.CSVLogger(fn, separator=";", append=True)], FakeModel(), [{"loss": 1.0, "acc": 1.0}])
    with open(fn, newline="") as f:
        assert list(csv.reader(f, delimiter=";"))[-1] == ["0", "1.0", "1.0", "NA", "NA"]
    assert len(open(fn).read().splitlines()) == 4  # no second header


def test_lambda_and_terminate_on_nan(capsys):
    seen = []
    lam = C.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append((epoch, logs["loss"])),
                           on_train_end=lambda logs: seen.append("end"))
    model = FakeModel()
    ran = run_epochs([lam, C.TerminateOnNaN()], model, [{"loss": 1.0}, {"loss": float("nan")}, {"loss": 1.0}])
    assert ran == [0, 1] and seen[0] == (0, 1.0) and seen[-1] == "end"
    assert "Batch 0: Invalid loss, terminating training" in capsys.readouterr().out
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 0"):
        run_epochs([C.TerminateOnNaN(raise_error=True)], FakeModel(), [{"loss": float("inf")}])


def test_backup_and_restore_resumes_after_a_crash(tmp_path):
    backup = str(tmp_path / "backup")
    model = FakeModel()

    def train(epoch):
        model.weights = [w + 1 for w in model.weights]
        model.optimizer.variables[0].assign_add(1)
        if epoch == 2:
            raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        run_epochs([C.BackupAndRestore(backup)], model, [{"loss": 1.0}] * 4, on_epoch=train)
    assert sorted(os.listdir(backup)) == ["latest.state.npz", "training_metadata.json"]
    assert json.load(open(os.path.join(backup, "training_metadata.json"))) == {"epoch": 2, "batch": 0}

    fresh = FakeModel()  # a new process: same architecture, fresh weights
    ran = run_epochs([C.BackupAndRestore(backup)], fresh, [{"loss": 1.0}] * 4)
    assert fresh._initial_epoch == 2 and ran == [2, 3]
    np.testing.assert_array_equal(fresh.weights[0], np.full((2, 2), 2.0))  # as after epochs 0 and 1
    assert int(fresh.optimizer.variables[0].numpy()) == 5
    assert not os.path.exists(backup)  # deleted once training completed


def test_backup_and_restore_double_checkpoint_recovers_from_a_corrupt_file(tmp_path):
    backup = str(tmp_path / "b")
    model = FakeModel()

    def crash_at_2(epoch):
        model.weights = [np.full_like(w, epoch + 1) for w in model.weights]
        if epoch == 2:
            raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        run_epochs([C.BackupAndRestore(backup, double_checkpoint=True)], model, [{"loss": 1.0}] * 4,
                   on_epoch=crash_at_2)
    with open(os.path.join(backup, "latest.state.npz"), "wb") as f:
        f.write(b"truncated")
    fresh = FakeModel()
    run_epochs([C.BackupAndRestore(backup, double_checkpoint=True, delete_checkpoint=False)], fresh,
               [{"loss": 1.0}] * 4)
    assert fresh._initial_epoch == 1  # the previous backup (after epoch index 0)
    with pytest.raises(ValueError, match="Empty `backup_dir` argument passed"):
        C.BackupAndRestore("")


# --- through Model.fit -------------------------------------------------------------------------------------------


def _data():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 3).astype("float32")
    return x, x.sum(1, keepdims=True)


def _model():
    tf.keras.utils.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    m.compile(tf.keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
    return m


def test_fit_with_callbacks_end_to_end(tmp_path, capsys):
    x, y = _data()
    model = _model()
    fn = str(tmp_path / "log.csv")
    h = model.fit(x, y, epochs=3, batch_size=16, verbose=2, validation_split=0.25,
                  callbacks=[C.CSVLogger(fn), C.EarlyStopping(patience=5, restore_best_weights=True),
                             C.LearningRateScheduler(lambda e, lr: lr * 0.5)])
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("3/3 - ")]
    assert len(lines) == 3
    for ln in lines:
        assert re.fullmatch(r"3/3 - \d+s - \d+(s|ms|us)/step - loss: \d\.\d{4} - mae: \d\.\d{4} - val_loss: "
                            r"\d\.\d{4} - val_mae: \d\.\d{4} - learning_rate: 0\.\d{4}", ln), ln
    assert out.splitlines()[0] == "Epoch 1/3"
    assert set(h.history) == {"loss", "mae", "val_loss", "val_mae", "learning_rate"}
    assert np.allclose(h.history["learning_rate"], [0.005, 0.0025, 0.00125])
    rows = list(csv.reader(open(fn, newline="")))
    assert rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"] and len(rows) == 4  # before the scheduler


def test_fit_resumes_from_backup_after_a_crash(tmp_path):
    x, y = _data()
    backup = str(tmp_path / "backup")

    class Crash(C.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2:
                raise RuntimeError("killed")

    ref_losses = _model().fit(x, y, epochs=4, batch_size=16, verbose=0, shuffle=False).history["loss"]
    with pytest.raises(RuntimeError, match="killed"):
        _model().fit(x, y, epochs=4, batch_size=16, verbose=0, shuffle=False,
                     callbacks=[C.BackupAndRestore(backup), Crash()])
    seen = []
    h = _model().fit(x, y, epochs=4, batch_size=16, verbose=0, shuffle=False,
                     callbacks=[C.BackupAndRestore(backup),
                                C.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))])
    assert seen == [2, 3]  # weights, Adam's slots and the epoch came back: training continues where it stopped
    np.testing.assert_allclose(h.history["loss"], ref_losses[2:], rtol=1e-5)
    assert not os.path.exists(backup)
