"""Callbacks that write files (Keras 3): ``ModelCheckpoint``, ``BackupAndRestore``, ``CSVLogger``.

``BackupAndRestore`` keeps one state file per backup directory: ``latest.state.npz`` holds the model's weights
(``get_weights`` order), the optimizer's variables and a JSON metadata string (epoch, batch), written to a
temporary name and renamed into place, so a crash never leaves a half-written backup.  Nothing is pickled.
"""

from __future__ import annotations

import collections
import collections.abc
import csv
import json
import os
import re
import shutil
import warnings

import numpy as np

from tensorlet._src.keras.callbacks.callback import Callback
from tensorlet._src.keras.callbacks.monitor import MonitorCallback
from tensorlet._src.keras.utils.io_utils import print_msg
from tensorlet._src.ops.registry import tf_export


def _path_to_string(path):
    return os.fspath(path) if isinstance(path, os.PathLike) else path


@tf_export("keras.callbacks.ModelCheckpoint")
class ModelCheckpoint(MonitorCallback):
    """Saves the model (``.keras``/``.h5``) or its weights (``.weights.h5``) every epoch or every ``save_freq``
    batches; ``filepath`` may contain ``{epoch:02d}`` and any log key (``{val_loss:.2f}``).

    >>> ckpt = tf.keras.callbacks.ModelCheckpoint("/tmp/m-{epoch:02d}.weights.h5", save_weights_only=True)
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = _path_to_string(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}. Expected save_freq are 'epoch' or integer "
                             "values")
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                                 "must end in `.weights.h5` (Keras weights format). Received: "
                                 f"filepath={self.filepath}")
        elif not any(self.filepath.endswith(ext) for ext in (".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch, batch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            return True
        if isinstance(current, np.ndarray) and current.ndim > 0:
            warnings.warn("Can save best model only when `monitor` is a scalar value. Received: "
                          f"{current}. Falling back to `save_best_only=False`.", stacklevel=2)
            return True
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to {current:.5f}, "
                          f"saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best_str}")
        return False

    def _save_model(self, epoch, batch, logs):
        filepath = self._get_file_path(epoch, batch, logs)
        try:
            if self._should_save_model(epoch, batch, logs, filepath) and _writes_checkpoints(self.model):
                dirname = os.path.dirname(filepath)
                if dirname and not os.path.exists(dirname):
                    os.makedirs(dirname, exist_ok=True)
                if self.save_weights_only:
                    self.model.save_weights(filepath, overwrite=True)
                else:
                    self.model.save(filepath, overwrite=True)
                if self.verbose > 0:
                    print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")
        except IsADirectoryError as e:
            raise OSError("Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an "
                          f"existing directory: {filepath}") from e

    def _get_file_path(self, epoch, batch, logs):
        logs = logs or {}
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from e

    def _checkpoint_exists(self, filepath):
        return os.path.exists(filepath)

    def _get_most_recently_modified_file_matching_pattern(self, pattern):
        """The newest file matching ``pattern``'s format (ties broken by the largest name)."""
        dir_name, base_name = os.path.dirname(pattern), os.path.basename(pattern)
        regex = f"^{re.sub(r'{.*}', r'.*', base_name)}$"
        latest_time, latest, n_latest, largest = 0, None, 0, None
        if os.path.exists(dir_name):
            for fn in os.listdir(dir_name):
                if re.match(regex, fn):
                    path = os.path.join(dir_name, fn)
                    mtime = os.path.getmtime(path)
                    if largest is None or path > largest:
                        largest = path
                    if mtime > latest_time:
                        latest_time, latest, n_latest = mtime, path, 1
                    elif mtime == latest_time:
                        n_latest += 1
        return latest if n_latest == 1 else largest


# ----------------------------------------------------------------------------------------------------------------


def _atomic_savez(path, arrays):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _atomic_write_text(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@tf_export("keras.callbacks.BackupAndRestore")
class BackupAndRestore(Callback):
    """Backs up the model, optimizer and epoch under ``backup_dir`` so an interrupted ``fit`` resumes where it
    stopped (from the last completed epoch) when run again with the same callback.

    >>> backup = tf.keras.callbacks.BackupAndRestore(backup_dir="/tmp/backup")
    """

    STATE_FILE = "latest.state.npz"
    METADATA_FILE = "training_metadata.json"

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = _path_to_string(backup_dir)
        self._state_path = os.path.join(self.backup_dir, self.STATE_FILE)
        self._metadata_path = os.path.join(self.backup_dir, self.METADATA_FILE)
        self._prev_state_path = f"{self._state_path}.bkp"
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. Expected "
                             "either 'epoch' or an integer value.")

    # --- restore ------------------------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        try:
            self._load_model(self._state_path)
        except (OSError, ValueError, KeyError) as e:
            if not os.path.exists(self._prev_state_path):
                raise e
            self._load_model(self._prev_state_path)

    def _load_model(self, path):
        if not getattr(self.model, "built", True):
            raise ValueError("To use the BackupAndRestore callback, you model must be built before you call "
                             f"`fit()`. Model {self.model} is unbuilt. You can build it beforehand by calling it "
                             "on a batch of data.")
        if not os.path.exists(path):
            return
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["__metadata__"]))
            model_weights = [data[f"model_{i}"] for i in range(meta["num_model_weights"])]
            opt_values = [data[f"optimizer_{i}"] for i in range(meta["num_optimizer_variables"])]
        self.model.set_weights(model_weights)
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and opt_values:
            if not getattr(optimizer, "built", True) and hasattr(optimizer, "build"):
                optimizer.build(self.model.trainable_variables)
            variables = list(optimizer.variables)
            if len(variables) != len(opt_values):
                raise ValueError(f"The backup in {path} has {len(opt_values)} optimizer variables but the "
                                 f"optimizer has {len(variables)}.")
            for v, value in zip(variables, opt_values):
                v.assign(value)
        self.model._initial_epoch = meta["epoch"]

    # --- save ---------------------------------------------------------------------------------------------------
    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model()

    def _save_model(self):
        if not _writes_checkpoints(self.model):
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._state_path):
            shutil.copyfile(self._state_path, self._prev_state_path)
        weights = [np.asarray(w) for w in self.model.get_weights()]
        optimizer = getattr(self.model, "optimizer", None)
        opt_vars = [np.asarray(v) for v in getattr(optimizer, "variables", None) or []] if optimizer else []
        meta = {"epoch": self._current_epoch, "batch": self._last_batch_seen, "num_model_weights": len(weights),
                "num_optimizer_variables": len(opt_vars)}
        arrays = {f"model_{i}": w for i, w in enumerate(weights)}
        arrays.update({f"optimizer_{i}": v for i, v in enumerate(opt_vars)})
        arrays["__metadata__"] = np.array(json.dumps(meta))
        _atomic_savez(self._state_path, arrays)
        _atomic_write_text(self._metadata_path, json.dumps({"epoch": self._current_epoch,
                                                            "batch": self._last_batch_seen}))

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        add_batches = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir) and _writes_checkpoints(self.model):
            shutil.rmtree(self.backup_dir)


def _writes_checkpoints(model) -> bool:
    """False on the workers of a multi-worker strategy other than the chief: only the chief writes (as TF)."""
    strategy = getattr(model, "distribute_strategy", None)
    return getattr(strategy, "should_checkpoint", True)


# ----------------------------------------------------------------------------------------------------------------


@tf_export("keras.callbacks.CSVLogger")
class CSVLogger(Callback):
    """Streams each epoch's logs to a CSV file (``epoch`` first, then the keys sorted).

    >>> log = tf.keras.callbacks.CSVLogger("/tmp/training.log", separator=",", append=False)
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = _path_to_string(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115  (closed in on_train_end)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(k):
            is_zero_dim_ndarray = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable) and not is_zero_dim_ndarray:
                return f'"[{", ".join(map(str, k))}]"'
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
            if not any(k.startswith("val_") for k in self.keys) and self.keys:
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:
            sep = self.sep

            class CustomDialect(csv.excel):
                delimiter = sep

            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + (self.keys or []),
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
