"""``keras.callbacks.TensorBoard``: epoch/batch scalars, weight histograms and the model config for TensorBoard.

Writes what Keras 3 writes: ``<log_dir>/train`` and ``<log_dir>/validation`` event files; ``epoch_<metric>``
(and ``epoch_learning_rate``) at step = epoch; with ``update_freq`` "batch" or N, ``batch_<metric>`` at the
global batch number every N batches; ``evaluation_<metric>_vs_iterations`` at ``optimizer.iterations`` after
each evaluation; ``<weight.path>/histogram`` every ``histogram_freq`` epochs; the model's JSON config
(plugin ``graph_keras_model``) when ``write_graph``.  With ``update_freq="epoch"`` nothing runs per batch
except one counter increment, so training speed is unaffected.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

from tensorlet._src.ops.registry import tf_export

from tensorlet._src.keras.callbacks.callback import Callback as _Base


def _summary():
    from tensorlet._src.summary import summary_ops, writer

    return writer, summary_ops


def keras_model_summary(name, data, step=None):
    """Writes a Keras model's JSON config (plugin ``graph_keras_model``, content ``b"1"``); False on failure."""
    writer, ops = _summary()
    try:
        json_string = data.to_json()
    except Exception as exc:  # an unserializable model must not break training
        warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}", stacklevel=2)
        return False
    import numpy as np

    return ops.write(ops._tag(name), np.array(json_string.encode(), dtype=object), step=step,
                     metadata=ops._metadata("graph_keras_model", b"1"))


@tf_export("keras.callbacks.TensorBoard")
class TensorBoard(_Base):
    """Logs training to TensorBoard.

    >>> tb = tf.keras.callbacks.TensorBoard(log_dir="./logs", histogram_freq=1)  # doctest: +SKIP
    >>> model.fit(x, y, epochs=3, callbacks=[tb])  # doctest: +SKIP
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        if profile_batch:
            warnings.warn("tensorlet has no profiler; `profile_batch` is ignored.", stacklevel=2)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0
        self._epoch_start_time = 0.0
        self._batch_start_time = 0.0
        self._writers = {}
        self._prev_summary_state = []

    # --- model and writers -----------------------------------------------------------------------------------------
    def set_model(self, model):
        super().set_model(model)
        self.model = model
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        self._should_write_train_graph = False
        if self.write_graph:
            self._write_keras_model_summary()
            self._should_write_train_graph = True

    def _writer(self, which):
        w = self._writers.get(which)
        if w is None:
            writer, _ = _summary()
            w = self._writers[which] = writer.create_file_writer(
                self._train_dir if which == "train" else self._val_dir)
        return w

    @property
    def _train_writer(self):
        return self._writer("train")

    @property
    def _val_writer(self):
        return self._writer("val")

    def _write_keras_model_summary(self):
        with self._train_writer.as_default():
            if type(self.model).__name__ in ("Functional", "Sequential"):
                keras_model_summary("keras", self.model, step=0)

    def _write_keras_model_train_graph(self):
        """Writes the compiled train step's graph when ``tf.function`` exposes one (``graph_def_hook``)."""
        fn = getattr(self.model, "train_function", None)
        hook = getattr(fn, "graph_def", None) or getattr(fn, "as_graph_def", None)
        if hook is None:
            return
        try:
            graph_def = hook() if callable(hook) else hook
        except Exception:  # no graph to show (eager step)
            return
        _, ops = _summary()
        with self._train_writer.as_default():
            ops.graph(graph_def)

    def _push_writer(self, writer, step):
        if self.update_freq == "epoch":
            return
        w, _ = _summary()
        freq = self.update_freq
        ctx = (writer.as_default(step), w.record_if(lambda: step % freq == 0))
        self._prev_summary_state.append(ctx)
        ctx[0].__enter__()
        ctx[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch" or not self._prev_summary_state:
            return
        ctx = self._prev_summary_state.pop()
        ctx[1].__exit__(*sys.exc_info())
        ctx[0].__exit__(*sys.exc_info())

    def _close_writers(self):
        for w in self._writers.values():
            w.close()

    # --- hooks -----------------------------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        self._close_writers()

    def on_test_begin(self, logs=None):
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        opt = getattr(self.model, "optimizer", None)
        if opt is not None and hasattr(opt, "iterations") and logs:
            _, ops = _summary()
            with self._val_writer.as_default():
                for name, value in logs.items():
                    ops.scalar(f"evaluation_{name}_vs_iterations", value, step=opt.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_write_train_graph:
            self._write_keras_model_train_graph()
            self._should_write_train_graph = False
        if self.update_freq == "epoch" and not self.write_steps_per_second:
            return  # nothing can be recorded per batch: stay cheap
        _, ops = _summary()
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start_time
            ops.scalar("batch_steps_per_second", 1.0 / elapsed if elapsed > 0 else 0.0,
                       step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                ops.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(self.model.optimizer.iterations.numpy())
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # --- writing ---------------------------------------------------------------------------------------------------
    def _collect_learning_rate(self, logs):
        opt = getattr(self.model, "optimizer", None)
        opt = getattr(opt, "inner_optimizer", opt)
        if opt is None:
            return logs
        if hasattr(opt, "optimizers"):
            for o in opt.optimizers:
                logs[f"learning_rate_{o.name}"] = _float(o.learning_rate)
        elif hasattr(opt, "learning_rate"):
            logs["learning_rate"] = _float(opt.learning_rate)
        return logs

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        _, ops = _summary()
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            its = float(self.model.optimizer.iterations.numpy()) - self._previous_epoch_iterations
            train_logs["steps_per_second"] = its / max(time.time() - self._epoch_start_time, 1e-12)
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    ops.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    ops.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch):
        _, ops = _summary()
        with self._train_writer.as_default():
            for layer in getattr(self.model, "layers", []):
                for weight in layer.weights:
                    name = str(getattr(weight, "path", None) or weight.name).replace(":", "_")
                    ops.histogram(f"{name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{name}/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight, tag, epoch):
        import numpy as np

        _, ops = _summary()
        w = np.squeeze(np.asarray(weight.numpy()))
        if w.ndim == 1:
            w = w.reshape(1, w.shape[0], 1, 1)
        elif w.ndim == 2:
            if w.shape[0] > w.shape[1]:
                w = w.T
            w = w.reshape(1, w.shape[0], w.shape[1], 1)
        elif w.ndim == 3:
            w = np.transpose(w, (2, 0, 1))[..., None]
        else:
            return
        if w.shape[-1] in (1, 3, 4):
            lo, hi = float(w.min()), float(w.max())
            w = (w - lo) / (hi - lo) if hi > lo else np.zeros_like(w)
            ops.image(tag, w.astype(np.float32), step=epoch)


def _float(v):
    if callable(v) and not hasattr(v, "numpy"):
        v = v()
    return float(v.numpy()) if hasattr(v, "numpy") else float(v)
