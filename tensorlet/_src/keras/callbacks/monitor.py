"""Callbacks that watch a metric or drive the learning rate (Keras 3): ``EarlyStopping``, ``ReduceLROnPlateau``,
``LearningRateScheduler``."""

from __future__ import annotations

import warnings

import numpy as np

from tensorlet._src.keras.callbacks.callback import Callback
from tensorlet._src.keras.utils.io_utils import print_msg
from tensorlet._src.ops.registry import tf_export


def _less(a, b):
    return bool(np.less(a, b))


def _greater(a, b):
    return bool(np.greater(a, b))


def _compiled_metrics(model):
    """The metrics compile() made (inside the model's compile-metrics containers), and the top-level ones."""
    out = []
    for m in getattr(model, "metrics", None) or []:
        out.append(m)
        inner = getattr(m, "metrics", None)
        if isinstance(inner, (list, tuple)):
            for sub in inner:
                out.append(sub)
                deeper = getattr(sub, "metrics", None)
                if isinstance(deeper, (list, tuple)):
                    out.extend(deeper)
    return out


class MonitorCallback(Callback):
    """Base of callbacks comparing a monitored value with the best so far (``mode`` min/max/auto)."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = _less
        elif self.mode == "max":
            self.monitor_op = _greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = _less
            for m in _compiled_metrics(self.model):
                if getattr(m, "name", None) == name and hasattr(m, "_direction"):
                    self.monitor_op = _greater if m._direction == "up" else _less
            if self.monitor_op is None:
                raise ValueError(f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't "
                                 "able to automatically determine whether that metric should be maximized or "
                                 "minimized. Pass `mode='max'` in order to monitor based on the highest metric "
                                 "value, or pass `mode='min'` in order to use the lowest value.")
        if self.monitor_op is _less:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return self.monitor_op(monitor_value - self.min_delta, reference_value)


@tf_export("keras.callbacks.EarlyStopping")
class EarlyStopping(MonitorCallback):
    """Stops training when ``monitor`` has not improved for ``patience`` epochs.

    >>> stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=3, restore_best_weights=True)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(list(logs.keys()))}", stacklevel=2)
        return value


def _lr(optimizer):
    return float(np.asarray(optimizer.learning_rate))


def _optimizers(model):
    opt = model.optimizer
    subs = getattr(opt, "optimizers", None)
    return list(subs) if subs is not None else None


@tf_export("keras.callbacks.ReduceLROnPlateau")
class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stalls for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def _reduce_optimizer_lr(self, optimizer, epoch, name=""):
        old_lr = _lr(optimizer)
        if old_lr > np.float32(self.min_lr):
            new_lr = max(old_lr * self.factor, self.min_lr)
            optimizer.learning_rate = new_lr
            if self.verbose > 0:
                name_str = f" {name}" if name else ""
                print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing{name_str} learning rate to {new_lr}.")
            return True
        return False

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs or {}
        subs = _optimizers(self.model)
        if subs is not None:
            for opt in subs:
                logs[f"learning_rate_{opt.name}"] = _lr(opt)
        else:
            logs["learning_rate"] = _lr(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(list(logs.keys()))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                reduced = False
                if subs is not None:
                    for opt in subs:
                        reduced = self._reduce_optimizer_lr(opt, epoch, f"{opt.name}") or reduced
                else:
                    reduced = self._reduce_optimizer_lr(self.model.optimizer, epoch)
                if reduced:
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

    def in_cooldown(self):
        return self.cooldown_counter > 0


@tf_export("keras.callbacks.LearningRateScheduler")
class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch start to ``schedule(epoch, lr)`` (or ``schedule(epoch)``).

    >>> sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def _update_optimizer_lr(self, optimizer, epoch):
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:  # new API
            learning_rate = self.schedule(epoch, _lr(optimizer))
        except TypeError:  # support for the old API (schedule(epoch))
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        return learning_rate

    def on_epoch_begin(self, epoch, logs=None):
        subs = _optimizers(self.model)
        if subs is not None:
            for opt in subs:
                lr = self._update_optimizer_lr(opt, epoch)
                if self.verbose > 0:
                    print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting {opt.name} learning rate to {lr}.")
        else:
            lr = self._update_optimizer_lr(self.model.optimizer, epoch)
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        subs = _optimizers(self.model)
        if subs is not None:
            for opt in subs:
                logs[f"learning_rate_{opt.name}"] = _lr(opt)
        else:
            logs["learning_rate"] = _lr(self.model.optimizer)
