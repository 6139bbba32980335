"""Keras 3's ``Trainer``: ``compile`` and the ``fit``/``evaluate``/``predict`` loops (plus ``train_on_batch`` and
friends) of a ``Model``, over the steps ``train_step``/``test_step``/``predict_step`` -- which a subclass may
override (a GAN's ``train_step`` never calls the model itself).  Each step runs through ``step_function``
(compiled with ``tf.function(jit_compile=...)`` unless ``run_eagerly=True``); data goes through the data adapters
and ``EpochIterator``; callbacks see each batch only when one of them hooks batches (``callback_hooks``).
"""

from __future__ import annotations

import warnings

import numpy as np

from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.framework.tensor import Tensor, constant
from tensorlet._src.keras import optimizers as _optimizers
from tensorlet._src.keras.engine.compile_utils import CompileLoss, CompileMetrics
from tensorlet._src.keras.metrics import Mean
from tensorlet._src.keras.optimizers.base import Optimizer
from tensorlet._src.keras.saving.serialization import deserialize_keras_object, serialize_keras_object
from tensorlet._src.keras.trainers.callback_hooks import (batch_hooks, callback_list, log_names, loop_hints,
                                                          pythonify, uses_batch_hooks)
from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import (class_weight_to_sample_weights, to_array,
                                                                            train_validation_split,
                                                                            unpack_x_y_sample_weight)
from tensorlet._src.keras.trainers.epoch_iterator import EpochIterator
from tensorlet._src.keras.trainers.multi_step import (auto_group_size, group_function, predict_groups, run_groups,
                                                       to_numpy)
from tensorlet._src.distribute.keras_step import distributed_step, loss_scale_for_replicas
from tensorlet._src.distribute.strategy import get_strategy
from tensorlet._src.keras.trainers.step_runner import step_function
from tensorlet._src.ops import array_shape
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.util import nest


class Trainer:
    """The training half of ``keras.Model`` (``Model`` is ``Trainer`` + ``Layer``)."""

    def _init_training_state(self):
        self._distribute_strategy = get_strategy()  # the strategy whose scope() made the model (Keras on TF)
        self.optimizer = None
        self.compiled = False
        self.loss = None
        self.stop_training = False
        self.history = None
        self._loss_tracker = None
        self._compile_loss = None
        self._compile_metrics = None
        self._run_eagerly = False
        self._jit_compile = None
        self.steps_per_execution = 1
        self.train_function = None
        self.test_function = None
        self.predict_function = None
        self._compile_config = None
        self._initial_epoch = None

    # --- compile --------------------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True, **kwargs):
        """Configures training: ``model.compile(optimizer="adam", loss="mse", metrics=["mae"])``."""
        for legacy in ("experimental_run_tf_function", "distribute", "target_tensors", "sample_weight_mode"):
            kwargs.pop(legacy, None)
        if kwargs:
            raise TypeError(f"compile() got an unexpected keyword argument '{next(iter(kwargs))}'")
        self.optimizer = _optimizers.get(optimizer) if optimizer is not None else None
        if auto_scale_loss and self.optimizer is not None and _policy_name(self) == "mixed_float16":
            from tensorlet._src.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer

            if not isinstance(self.optimizer, LossScaleOptimizer):  # float16 gradients underflow unscaled
                self.optimizer = LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
        self.loss = loss
        output_names = self._output_names()
        self._compile_loss = CompileLoss(loss, loss_weights, output_names=output_names) if loss is not None else None
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names=output_names) \
            if (metrics or weighted_metrics) else None
        self._loss_tracker = Mean(name="loss")
        self._run_eagerly = bool(run_eagerly)
        self._jit_compile = jit_compile
        self.steps_per_execution = int(steps_per_execution or 1)
        self.compiled = True
        self.train_function = self.test_function = self.predict_function = None
        self._compile_config = {"optimizer": optimizer if isinstance(optimizer, str) else None, "loss": loss,
                                "loss_weights": loss_weights, "metrics": metrics,
                                "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
                                "steps_per_execution": steps_per_execution, "jit_compile": jit_compile}

    def _output_names(self):
        return getattr(self, "output_names", None)

    @property
    def run_eagerly(self):
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = bool(value)
        self.train_function = self.test_function = self.predict_function = None

    @property
    def jit_compile(self):
        return self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value):
        self._jit_compile = value
        self.train_function = self.test_function = self.predict_function = None

    def get_compile_config(self):
        if self.compiled and self._compile_config is not None:
            cfg = dict(self._compile_config)
            cfg["optimizer"] = serialize_keras_object(self.optimizer)
            try:
                cfg["loss"] = serialize_keras_object(cfg["loss"])
                cfg["metrics"] = serialize_keras_object(cfg["metrics"])
                cfg["weighted_metrics"] = serialize_keras_object(cfg["weighted_metrics"])
            except TypeError:
                pass
            return cfg
        return None

    def compile_from_config(self, config):
        config = dict(config)
        config["optimizer"] = deserialize_keras_object(config.get("optimizer"))
        for k in ("loss", "metrics", "weighted_metrics"):
            if isinstance(config.get(k), dict):
                config[k] = deserialize_keras_object(config[k])
        self.compile(**config)

    # --- metrics --------------------------------------------------------------------------------------------------
    @property
    def metrics(self):
        """The loss tracker, the compiled metrics container, per-output loss trackers, then layers' metrics."""
        out = []
        if self.compiled:
            if self._loss_tracker is not None:
                out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            if self._compile_loss is not None:
                out.extend(self._compile_loss.metrics)
        out.extend(self._metrics)
        for layer in self._flatten_layers(include_self=False):
            if isinstance(layer, Trainer):  # a nested model's metrics are its own
                continue
            out.extend(layer.metrics)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def get_metrics_result(self):
        """The current metric values as a dict (``{"loss": ..., "accuracy": ...}``)."""
        out = {}
        for m in self.metrics:
            r = m.result()
            if isinstance(r, dict):
                out.update(r)
            else:
                out[m.name] = r
        return out

    def _results_from_metrics(self, template):
        """Whether a step's results (their traced structure) are the metrics' results, so that a loop which does
        not look at each step's results may read the metrics once at its end instead (``StepRunner.quiet``)."""
        if not isinstance(template, dict):
            return False
        try:
            return set(log_names(template)) == set(self.get_metrics_result())
        except Exception:  # noqa: BLE001  (metrics that cannot report yet)
            return False

    def _metrics_result_or_logs(self, logs):
        """The metrics' results, or, when a custom step returns other names, the last step's results (Keras)."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(pythonify(logs)) != set(metric_logs):
            return logs
        return metric_logs

    # --- loss -----------------------------------------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss on ``(y, y_pred)`` plus ``self.losses`` (regularization, ``add_loss``)."""
        losses = []
        if self._compile_loss is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for extra in self.losses:
            if extra.dtype.name != "float32" and extra.dtype.is_floating:
                extra = cast(extra, "float32")
            losses.append(cast(extra, "float32") if not extra.dtype.is_floating else extra)
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = losses[0]
        for v in losses[1:]:
            total = total + v
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics and returns ``get_metrics_result()``."""
        del x
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    # legacy (TF 2 guide) access, as Keras 3 keeps it
    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                      "`model.compute_loss(x, y, y_pred, sample_weight, training)`.", stacklevel=2)
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def compiled_metrics(self):
        model = self

        class DeprecatedCompiledMetric:
            def update_state(_, y, y_pred, sample_weight=None):
                warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in "
                              "self.metrics:\n    metric.update_state(y, y_pred)\n```\n", stacklevel=2)
                for metric in model.metrics:
                    if isinstance(metric, Mean):
                        metric.update_state(y_pred, sample_weight=sample_weight)
                    else:
                        metric.update_state(y, y_pred, sample_weight=sample_weight)

        return DeprecatedCompiledMetric()

    # --- steps ----------------------------------------------------------------------------------------------------
    def _call_training(self, x, training):
        return self(x, training=training)

    def train_step(self, data):
        """One optimization step on a batch; returns the metric results dict."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._call_training(x, True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            self._loss_tracker.update_state(loss, sample_weight=_first_batch_size(x))
            scale = loss_scale_for_replicas()  # 1/replicas inside a multi-replica step: gradients are summed
            if scale != 1.0:
                loss = loss * scale
            if self.optimizer is not None and hasattr(self.optimizer, "scale_loss"):
                loss = self.optimizer.scale_loss(loss)
        weights = self.trainable_weights
        if weights:
            grads = tape.gradient(loss, weights)
            self.optimizer.apply_gradients(zip(grads, weights))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One evaluation step on a batch; returns the metric results dict."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._call_training(x, False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=_first_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self._call_training(x, False)

    def _make_function(self, kind):
        step = {"train": self.train_step, "test": self.test_step, "predict": self.predict_step}[kind]
        fn = step_function(step, run_eagerly=self._run_eagerly, jit_compile=self._jit_compile, kind=kind)
        strategy = self.distribute_strategy
        if strategy.num_replicas_in_sync > 1:  # each batch split over the replicas (one SPMD program)
            fn = distributed_step(strategy, step, kind, self, single=fn)
        setattr(self, f"{kind}_function", fn)
        return fn

    def make_train_function(self, force=False):
        if self.train_function is None or force:
            self._make_function("train")
        return self.train_function

    def make_test_function(self, force=False):
        if self.test_function is None or force:
            self._make_function("test")
        return self.test_function

    def make_predict_function(self, force=False):
        if self.predict_function is None or force:
            self._make_function("predict")
        return self.predict_function

    def _assert_compiled(self):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    def _symbolic_build(self, data, kind="train"):
        """Builds the model (and metric containers) on the first batch before the step is compiled -- unless the
        loop's step is overridden: that step decides what it calls (a GAN's model has no ``call``), and whatever it
        builds is built when it first runs, as in Keras on TensorFlow."""
        if not self.built and _default_step(self, kind):
            x, _, _ = unpack_x_y_sample_weight(data)
            self._call_training(x, False)

    def _build_optimizer(self):
        """As Keras's symbolic build: the optimizer's slots exist before the first compiled step (so values a
        checkpoint restored for them land before training, outside the traced step)."""
        opt = self.optimizer
        if isinstance(opt, Optimizer) and not opt.built and self.built:
            opt.build(self.trainable_variables)

    def _run_steps(self, fn, data_list):
        logs = None
        for data in data_list:
            logs = fn(data)
        return logs

    # --- fit ------------------------------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        """Trains for ``epochs`` epochs; returns the ``History`` (``history.history["loss"]``, ...)."""
        self._assert_compiled()
        if verbose == "auto":
            verbose = 1
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split((x, y, sample_weight),
                                                                                validation_split)
        val_x = val_y = val_sw = None
        if validation_data is not None:
            val_x, val_y, val_sw = unpack_x_y_sample_weight(validation_data)
        iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
                                     shuffle=shuffle, class_weight=class_weight)
        callbacks = callback_list(callbacks, self, add_history=True, add_progbar=verbose != 0, verbose=verbose,
                                   epochs=epochs, steps=iterator.num_batches)
        self.stop_training = False
        train_fn = self.make_train_function()
        callbacks.on_train_begin()
        initial_epoch = self._initial_epoch or initial_epoch  # BackupAndRestore sets it in on_train_begin
        hooks = batch_hooks(callbacks, "train")
        group_size = self.steps_per_execution
        if group_size <= 1:  # nothing looks at single steps: fuse them anyway (multi_step.auto_group_size)
            group_size = auto_group_size(self, train_fn, iterator, epochs - initial_epoch, hooks)
        groups = (group_size, group_function(self, "train") if group_size > 1 else None)
        step_fn = groups[1] or train_fn
        loop_hints(step_fn, iterator, epochs - initial_epoch,
                   None if hooks == (True, None) else self._results_from_metrics)
        try:
            training_logs = self._fit_epochs(train_fn, groups, iterator, callbacks, hooks, initial_epoch, epochs,
                                             validation_data, (val_x, val_y, val_sw), validation_batch_size or
                                             batch_size, validation_steps, validation_freq, verbose)
        finally:
            loop_hints(step_fn, None, 0, None)
        if self.optimizer is not None and hasattr(self.optimizer, "finalize_variable_values") and epochs > 0:
            self.optimizer.finalize_variable_values(self.trainable_weights)
        callbacks.on_train_end(logs=training_logs)
        return self.history

    def _fit_epochs(self, train_fn, groups, iterator, callbacks, hooks, initial_epoch, epochs, validation_data,
                    val_data, val_batch_size, validation_steps, validation_freq, verbose):
        hooks, progbar_logs = hooks
        all_hooks = hooks and progbar_logs is None
        group_size, group_fn = groups
        first = True
        training_logs = None
        logs = {}
        val_iterator = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            last = (iterator.num_batches or 0) - 1
            if group_fn is not None:
                logs = run_groups(self, group_fn, iterator, callbacks, "train", hooks, progbar_logs, last, first,
                                        None if group_size == self.steps_per_execution else group_size)
                first = False
            for step, data in () if group_fn is not None else iterator.enumerate_epoch():
                if all_hooks:
                    callbacks.on_train_batch_begin(step)
                if first:
                    self._symbolic_build(data)
                    self._build_optimizer()
                    first = False
                logs = train_fn(data)
                if hooks:
                    if logs is None:  # a quiet step: only the progress bar looks, now and then
                        callbacks.on_train_batch_end(step, progbar_logs(self, step == last))
                    else:
                        logs = pythonify(logs)
                        callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(pythonify(self._metrics_result_or_logs(logs)))
            if validation_data is not None and self._should_eval(epoch, validation_freq):
                if val_iterator is None:
                    val_iterator = EpochIterator(*val_data, batch_size=val_batch_size,
                                                     steps_per_epoch=validation_steps, shuffle=False)
                val_logs = self.evaluate(callbacks=callbacks, return_dict=True, _iterator=val_iterator,
                                         verbose=verbose)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        return training_logs

    @staticmethod
    def _should_eval(epoch, validation_freq):
        epoch = epoch + 1
        if isinstance(validation_freq, int):
            return epoch % validation_freq == 0
        if isinstance(validation_freq, (list, tuple)):
            return epoch in validation_freq
        raise ValueError("Expected `validation_freq` to be a list or int. Received: "
                         f"validation_freq={validation_freq} of the type {type(validation_freq)}.")

    # --- evaluate -------------------------------------------------------------------------------------------------
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, **kwargs):
        """Loss and metrics on the data: a scalar, a list in ``metrics_names`` order, or a dict."""
        self._assert_compiled()
        iterator = kwargs.pop("_iterator", None)
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        if verbose == "auto":
            verbose = 1
        if iterator is None:
            iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps,
                                         shuffle=False)
        callbacks = callback_list(callbacks, self, add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                   steps=iterator.num_batches)
        test_fn = self.make_test_function()
        self.stop_evaluating = False
        callbacks.on_test_begin()
        logs = {}
        self.reset_metrics()
        hooks, progbar_logs = batch_hooks(callbacks, "test")
        group_fn = self._group_function("test")
        loop_hints(group_fn or test_fn, None, 0,
                   None if hooks and progbar_logs is None else self._results_from_metrics)
        last = (iterator.num_batches or 0) - 1
        try:
            if group_fn is not None:
                logs = run_groups(self, group_fn, iterator, callbacks, "test", hooks, progbar_logs, last,
                                        not self.built)
            for step, data in () if group_fn is not None else iterator.enumerate_epoch():
                if hooks and progbar_logs is None:
                    callbacks.on_test_batch_begin(step)
                if not self.built:
                    self._symbolic_build(data, "test")
                logs = test_fn(data)
                if hooks:
                    callbacks.on_test_batch_end(step, pythonify(logs) if logs is not None else
                                                progbar_logs(self, step == last))
                if self.stop_evaluating:
                    break
        finally:
            loop_hints(group_fn or test_fn, None, 0, None)
        logs = pythonify(self._metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def _flatten_metrics_in_order(self, logs):
        names = []
        for m in self.metrics:
            if isinstance(m, CompileMetrics):
                names += [sub.name for sub in m.metrics]
            else:
                names.append(m.name)
        results = [logs[n] for n in names if n in logs]
        results += [logs[k] for k in sorted(logs) if k not in names]
        return results[0] if len(results) == 1 else results

    # --- predict --------------------------------------------------------------------------------------------------
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for ``x`` as NumPy arrays (batches concatenated)."""
        if verbose == "auto":
            verbose = 1
        iterator = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps, shuffle=False)
        callbacks = callback_list(callbacks, self, add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                   steps=iterator.num_batches)
        predict_fn = self.make_predict_function()
        self.stop_predicting = False
        callbacks.on_predict_begin()
        batches = []
        hooks = uses_batch_hooks(callbacks, "predict")
        group_fn = self._group_function("predict")
        if group_fn is not None:
            batches = predict_groups(self, group_fn, iterator, callbacks, hooks)
        for step, data in () if group_fn is not None else iterator.enumerate_epoch():
            if hooks:
                callbacks.on_predict_batch_begin(step)
            if not self.built:
                self._symbolic_build(data, "predict")
            batch = to_numpy(predict_fn(data))
            batches.append(batch)
            if hooks:
                callbacks.on_predict_batch_end(step, {"outputs": batch})
            if self.stop_predicting:
                break
        callbacks.on_predict_end()
        if not batches:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `keras`.")
        flat = [nest.flatten(b) for b in batches]
        joined = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
        return nest.pack_sequence_as(batches[0], joined)

    # --- steps_per_execution: groups of steps in one compiled call (multi_step) ---------------------------------
    def _group_function(self, kind):
        """The ``{kind}`` function over groups of ``steps_per_execution`` batches, or ``None`` (one at a time)."""
        if self.steps_per_execution <= 1:
            return None
        return group_function(self, kind)

    # --- single batches -------------------------------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch; returns the metrics (like ``evaluate``)."""
        self._assert_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("Arguments `sample_weight` and `class_weight` cannot be specified at the same "
                                 f"time. Received: sample_weight={sample_weight}, class_weight={class_weight}")
            sample_weight = class_weight_to_sample_weights(np.asarray(y), class_weight)
        data = _single_batch(x, y, sample_weight)
        self._symbolic_build(data)
        self._build_optimizer()
        self.reset_metrics()
        logs = pythonify(self.make_train_function()(data))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One evaluation step on one batch (metrics are reset first)."""
        self._assert_compiled()
        data = _single_batch(x, y, sample_weight)
        self.reset_metrics()
        self._symbolic_build(data, "test")
        logs = pythonify(self._metrics_result_or_logs(self.make_test_function()(data)))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x):
        """The outputs for one batch as NumPy arrays."""
        data = _single_batch(x, None, None)
        out = self.make_predict_function()(data)
        return nest.map_structure(lambda t: np.asarray(t) if isinstance(t, Tensor) else t, out)


def _default_step(model, kind):
    """Whether ``model`` runs Keras's own ``{kind}_step``."""
    name = f"{kind}_step"
    return getattr(type(model), name) is getattr(Trainer, name)


def _first_batch_size(x):
    flat = nest.flatten(x)
    for t in flat:
        if t is not None and hasattr(t, "shape"):
            return array_shape.shape(t)[0]
    return None


def _single_batch(x, y, sw):
    def conv(a):
        if a is None or isinstance(a, Tensor):
            return a
        return constant(to_array(a)) if not hasattr(a, "_v") else a

    x = nest.map_structure(conv, x)
    y = nest.map_structure(conv, y) if y is not None else None
    sw = nest.map_structure(conv, sw) if sw is not None else None
    if y is None:
        return (x,)
    if sw is None:
        return (x, y)
    return (x, y, sw)


def _policy_name(model):
    policy = getattr(model, "dtype_policy", None)
    return getattr(policy, "name", policy)
