"""``tf.keras.Model``: a layer with training (``compile``/``fit``/``evaluate``/``predict``) and Keras 3's step API.

``Model(inputs, outputs)`` builds a functional model (see ``functional.py``); subclasses define ``call``.
``train_step(data)`` returns a dict of metric results; override it to customize ``fit``.  The step functions run
through ``step_function`` (compiled with ``tf.function(jit_compile=...)`` unless ``run_eagerly=True``).

>>> model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
>>> model.compile(optimizer="sgd", loss="mse")
>>> history = model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, verbose=0)
>>> len(history.history["loss"])
2
"""

from __future__ import annotations

import collections.abc
import warnings

import numpy as np

from tensorlet._src.autodiff import lazy as T
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.keras.engine import data_adapter as _da
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

_GRAPH_BROKEN = set()  # step kinds whose compiled form failed to trace (they then run eagerly)


def step_function(fn, run_eagerly=False, jit_compile=None, kind="train"):
    """The ONE place where Keras compiles a step: a ``_StepRunner`` over ``tf.function``, or ``fn`` itself.

    ``run(data)`` runs ``fn(data)`` compiled: one ``tf.function`` per input signature (structure, shapes and
    dtypes of the batch), so the last, smaller batch of an epoch compiles once more instead of retracing.  The
    batch is passed as flat positional tensors and the results come back flat, then are rebuilt here, which keeps
    every call on ``tf.function``'s fast path.  If a signature's first (tracing) call fails, that signature runs
    eagerly from then on (an error in the step itself is then raised by the eager run), with a warning, so
    training keeps working while the graph compiler grows.  ``fit``/``evaluate`` tell the runner how often each
    batch shape will run (compile early) and whether they read each step's results (see ``_StepRunner``).
    """
    if run_eagerly:
        return fn
    try:
        import tensorlet

        tf_function = tensorlet.function
    except (ImportError, AttributeError):
        return fn
    jit = bool(jit_compile) if jit_compile not in (None, "auto") else None
    return _StepRunner(fn, tf_function, jit, kind)


class _StepRunner:
    """Calls a Keras step compiled per batch signature (see ``step_function``).

    ``expect(counts)`` tells the runner how often each batch size will run in the coming loop (``{32: 312, 8:
    2}``); a train step signature that will run at least twice is compiled with XLA on its first call (the tiered
    executor would compile it on its second), so every compile happens in the first epoch.

    ``quiet(check)``: while set, the loop does not look at each step's results (no callback hooks batches), so a
    signature whose results ``check(template)`` finds readable later from the metrics runs a variant of the step
    that returns nothing: the compiled call then returns without waiting for the step to finish, and the next
    batch is prepared while it runs.  Such calls return ``None``.
    """

    def __init__(self, fn, tf_function, jit, kind):
        self.python_function = fn
        self._tf_function = tf_function
        self._jit = jit
        self._kind = kind
        self._fast = ({}, {})  # [quiet] (np dtype, shape) per element of a flat tuple batch -> run(batch)
        self._by_key = ({}, {})  # [quiet] (structure, leaf signatures) -> run(batch, flat leaves)
        self._expected = None
        self._quiet_check = None
        self._converted = None

    def expect(self, counts):
        self._expected = counts

    def quiet(self, check):
        self._quiet_check = check

    def __call__(self, data):
        q = self._quiet_check is not None
        if data.__class__ is tuple:
            key = []
            for t in data:
                if t.__class__ is not EagerTensor:
                    break
                v = t._v
                key.append((v.dtype, v.shape))
            else:
                run = self._fast[q].get(tuple(key))
                if run is not None:
                    return run(data)
        flat = nest.flatten(data)
        if all(x.__class__ is EagerTensor or x is None for x in flat):
            key = (_structure_key(data), tuple(None if x is None else (x._v.dtype, x._v.shape) for x in flat))
        else:  # composite or symbolic leaves: the structured call, keyed as tf.function would
            key = ("structured", _signature(data))
        run = self._by_key[q].get(key)
        if run is not None:
            return run(data, flat)
        if q and self._first_quiet(key, data, flat):
            return None
        if q:  # this signature's results are needed: its quiet calls run the step with results
            self._by_key[1][key] = lambda b, fl: self._loud(key, b, fl)
            if key[0] != "structured" and data.__class__ is tuple and None not in flat:
                self._fast[1][key[1]] = lambda b: self._loud(key, b, list(b))
        return self._loud(key, data, flat)

    def _loud(self, key, data, flat):
        run = self._by_key[0].get(key)
        if run is not None:
            return run(data, flat)
        if key[0] == "structured":
            f = self._tf_function(self.python_function, jit_compile=self._jit)
            return self._guarded(key, data, lambda: self._install(key, lambda b, fl: f(b))(data, flat))
        flat_step, positions, out_template = self._flat_fn(data, flat, quiet=False)
        tensors = [flat[i] for i in positions]
        plain = data.__class__ is tuple and len(positions) == len(data)  # a flat tuple of tensors
        jits = self._jit_choices(flat)

        def first(f):
            result = f(*tensors)
            unpack = _unpacker(out_template[0])
            if plain:
                self._fast[0][key[1]] = lambda b: unpack(f(*b))
            self._install(key, lambda b, fl: unpack(f(*[fl[i] for i in positions])))
            return unpack(result)

        def attempt():
            f = self._tf_function(flat_step, jit_compile=jits[0], autograph=False)
            f.get_concrete_function(*tensors)  # an error while tracing goes to the eager fallback at once
            try:
                return first(f)
            except Exception:  # noqa: BLE001
                if len(jits) == 1:
                    raise
            # XLA could not compile it: the tiered executor runs it
            return first(self._tf_function(flat_step, jit_compile=jits[1], autograph=False))

        return self._guarded(key, data, attempt)

    def _first_quiet(self, key, data, flat):
        """Compiles and runs the result-less variant of the step for this signature; False (nothing run) when its
        results are needed, or when it cannot be traced or compiled (the step with results then handles errors and
        fallbacks).  A failed first call writes no variables, so the step can run again."""
        if key[0] == "structured":
            return False
        flat_step, positions, out_template = self._flat_fn(data, flat, quiet=True)
        tensors = [flat[i] for i in positions]
        jits = self._jit_choices(flat)
        f = self._tf_function(flat_step, jit_compile=jits[0], autograph=False)
        try:
            f.get_concrete_function(*tensors)
            if not out_template or not self._quiet_check(out_template[0]):
                return False
        except Exception:  # noqa: BLE001
            return False
        for i, jit in enumerate(jits):
            if i:
                f = self._tf_function(flat_step, jit_compile=jit, autograph=False)
            try:
                f(*tensors)
            except Exception:  # noqa: BLE001
                continue
            self._install_quiet(key, f, positions, data.__class__ is tuple and len(positions) == len(data))
            return True
        return False

    def _install_quiet(self, key, f, positions, plain):
        def run_plain(batch):
            f(*batch)

        def run(batch, flat):
            f(*[flat[i] for i in positions])

        if plain:
            self._fast[1][key[1]] = run_plain
        self._by_key[1][key] = run

    def _jit_choices(self, flat):
        """``jit_compile`` for a new signature, then the fallback if XLA cannot compile it: a train step signature
        that will run at least twice compiles with XLA on its first call (the tiered executor as fallback)."""
        if self._jit is None and self._kind == "train" and self._expected is not None and \
                self._expected.get(_batch_dim(flat), 0) >= 2:
            return (True, None)
        return (self._jit,)

    def _flat_fn(self, data, flat, quiet):
        """The step as a function of the batch's tensors, flat and positional (``tf.function``'s fast path), with
        flat results; the results' structure is recorded while tracing."""
        positions = [i for i, x in enumerate(flat) if x is not None]
        n_leaves, python = len(flat), self._python()
        template = nest.pack_sequence_as(data, [None] * n_leaves)  # the structure, without the batch's tensors
        out_template = []

        def flat_step(*tensors):
            leaves = [None] * n_leaves
            for i, t in zip(positions, tensors):
                leaves[i] = t
            out = python(nest.pack_sequence_as(template, leaves))
            out_template[:] = [out]
            return () if quiet else tuple(nest.flatten(out))

        flat_step.__name__ = flat_step.__qualname__ = getattr(self.python_function, "__name__", self._kind + "_step")
        return flat_step, positions, out_template

    def _python(self):
        if self._converted is None:
            fn = self.python_function
            try:
                from tensorlet._src.graph.autograph import convert

                fn = convert(fn)  # the flat wrapper is tensorlet code, which AutoGraph does not descend into
            except ImportError:
                pass
            self._converted = fn
        return self._converted

    def _install(self, key, run):
        self._by_key[0][key] = run
        return run

    def _guarded(self, key, data, call):
        """The first call of a signature; if it cannot be compiled, that signature runs eagerly from then on."""
        try:
            return call()
        except Exception as e:  # noqa: BLE001
            fn = self.python_function
            self._install(key, lambda b, fl: fn(b))
            out = fn(data)  # a genuine error in the step raises here, eagerly
            if self._kind not in _GRAPH_BROKEN:
                _GRAPH_BROKEN.add(self._kind)
                warnings.warn(f"The Keras {self._kind} step could not be compiled ({type(e).__name__}: {e}); it "
                              "runs eagerly.", stacklevel=5)
            return out


def _batch_dim(flat):
    for x in flat:
        if x is not None and x._v.ndim:
            return x._v.shape[0]
    return None


def _structure_key(x):
    """The nesting of a batch (container types and dict keys), with leaves reduced to tensor/None."""
    cls = x.__class__
    if cls is tuple or cls is list or isinstance(x, (tuple, list)):
        return (cls, tuple(_structure_key(v) for v in x))
    if isinstance(x, collections.abc.Mapping):
        return (cls, tuple((repr(k), _structure_key(x[k])) for k in sorted(x, key=repr)))
    return None if x is None else 0


def _unpacker(template):
    """flat step outputs -> the step's structured outputs (a flat dict of results is the common case)."""
    if not nest.is_nested(template):
        return lambda outs: outs[0]
    if template.__class__ is dict and not any(nest.is_nested(v) for v in template.values()):
        keys = list(template)
        try:
            ordered = sorted(keys)
        except TypeError:
            ordered = keys
        if ordered == keys:
            return lambda outs: dict(zip(keys, outs))
        return lambda outs: (lambda d: {k: d[k] for k in keys})(dict(zip(ordered, outs)))
    return lambda outs: nest.pack_sequence_as(template, list(outs))


def _signature(data):
    key = []
    for x in nest.flatten(data):
        shape = getattr(x, "shape", None)
        if shape is not None and hasattr(x, "dtype"):
            key.append((tuple(shape), x.dtype))
        else:
            key.append((type(x), x if isinstance(x, (int, float, str, bool, type(None))) else id(x)))
    return tuple(key)


def _pythonify(logs):
    out = {}
    for k, v in sorted((logs or {}).items()):
        if isinstance(v, dict):
            out.update(_pythonify(v))
            continue
        if hasattr(v, "numpy"):
            v = v.numpy()
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        if isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def _callback_list(callbacks, model, **params):
    try:
        from tensorlet._src.keras.callbacks import CallbackList
    except ImportError:
        CallbackList = None
    if CallbackList is not None and isinstance(callbacks, CallbackList):
        return callbacks
    if CallbackList is not None:
        return CallbackList(callbacks, model=model, **params)
    return _MiniCallbackList(callbacks, model=model, **params)


_BATCH_HOOKS = {"train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
                "test": ("on_test_batch_begin", "on_test_batch_end"),
                "predict": ("on_predict_batch_begin", "on_predict_batch_end")}


def _uses_batch_hooks(callbacks, kind):
    """Whether a callback overrides a per-batch hook of this loop.  When none does, the loop skips the hooks and,
    with them, reading each step's results back as Python numbers (History and a silent fit need epoch logs only).
    """
    return _batch_hooks(callbacks, kind) != (False, None)


def _batch_hooks(callbacks, kind):
    """How a loop calls the per-batch hooks: ``(False, None)``: no callback defines one (the loop skips them and
    does not read each step's results); ``(True, progbar_logs)``: only Keras's own progress bar does, through
    ``on_{kind}_batch_end``, and it shows the latest results at most every ``interval`` seconds, so the loop reads
    them only when the bar will draw (``progbar_logs(model, is_last_step)`` gives them); ``(True, None)``: every
    hook gets every step's results."""
    try:
        from tensorlet._src.keras.callbacks import Callback, CallbackList, ProgbarLogger
    except ImportError:
        return True, None
    if type(callbacks) is not CallbackList:  # a subclass may hook batches itself
        return True, None
    progbar = None
    for cb in callbacks.callbacks:
        if not isinstance(cb, Callback):
            return True, None
        # hooks overridden in a subclass, or set on the instance (LambdaCallback)
        hooked = [name for name in _BATCH_HOOKS[kind]
                  if getattr(getattr(cb, name, None), "__func__", None) is not getattr(Callback, name)]
        if not hooked:
            continue
        if type(cb) is ProgbarLogger and hooked == [f"on_{kind}_batch_end"] and progbar is None:
            progbar = cb
            continue
        return True, None
    return (False, None) if progbar is None else (True, _ProgbarLogs(progbar))


class _ProgbarLogs:
    """The results a loop that skips reading each step's results hands to Keras's progress bar: read from the
    model's metrics when the bar will draw (verbose=1, its ``interval`` elapsed, with a margin), else the last
    ones read (a bar keeps only the latest value of each metric and draws nothing in between)."""

    MARGIN = 0.005

    def __init__(self, logger):
        self.logger = logger
        self.logs = {}

    def __call__(self, model, last):
        logger = self.logger
        if getattr(logger, "verbose", 1) != 1:
            return self.logs  # verbose=2 draws once per epoch, from the epoch's logs
        bar = getattr(logger, "progbar", None)
        try:
            due = bar is None or last or bar.clock() - bar._last_update >= bar.interval - self.MARGIN
        except (AttributeError, TypeError):
            due = True
        if due:
            self.logs = _pythonify(model.get_metrics_result())
        return self.logs


class _MiniHistory:
    def __init__(self):
        self.history = {}
        self.epoch = []
        self.params = {}
        self.model = None

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class _MiniCallbackList:
    """Used only when ``keras.callbacks`` is not available: forwards hooks to the given callbacks."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        self.callbacks = list(callbacks or [])
        if add_history:
            self.callbacks.append(_MiniHistory())
        self.params = params
        for cb in self.callbacks:
            if hasattr(cb, "set_model"):
                cb.set_model(model)
            if hasattr(cb, "set_params"):
                cb.set_params(params)

    def __getattr__(self, name):
        if not name.startswith("on_"):
            raise AttributeError(name)

        def hook(*args, **kwargs):
            for cb in self.callbacks:
                fn = getattr(cb, name, None)
                if fn is not None:
                    fn(*args, **kwargs)

        return hook


def _loop_hints(step_fn, iterator, epochs, quiet_check):
    """Tells a compiled step how often each batch size will run in this loop (from ``iterator``'s counts over
    ``epochs``; ``None``: unknown) and whether the loop skips reading each step's results (``quiet_check``)."""
    if not isinstance(step_fn, _StepRunner):
        return
    counts = iterator.batch_counts() if iterator is not None and epochs > 0 else None
    step_fn.expect(None if counts is None else {b: n * epochs for b, n in counts.items()})
    step_fn.quiet(quiet_check)


def _log_names(logs):
    """The names of a results dict once flattened as ``_pythonify`` does (nested dicts merged)."""
    names = []
    for k, v in logs.items():
        names.extend(_log_names(v) if isinstance(v, dict) else [k])
    return names


def _first_batch_size(x):
    flat = nest.flatten(x)
    for t in flat:
        if t is not None and hasattr(t, "shape"):
            return T.shape(t)[0]
    return None


@tf_export("keras.Model", "keras.models.Model")
class Model(Layer):
    """A trainable model: ``Model(inputs, outputs)`` (functional) or a subclass defining ``call``.

    >>> inputs = tf.keras.Input((4,))
    >>> model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    >>> model.predict(np.ones((3, 4)), verbose=0).shape
    (3, 2)
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and (len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs):
            from tensorlet._src.keras.engine.functional import Functional

            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        from tensorlet._src.keras.engine import functional as _f

        if (len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs) and not isinstance(self, _f.Functional):
            # a subclass calling super().__init__(inputs=..., outputs=...): a functional graph with custom methods
            _inject_functional(type(self), _f.Functional)
            _f.Functional.__init__(self, *args, **kwargs)
            return
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        Layer.__init__(self, trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._init_training_state()

    def _init_training_state(self):
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
        from tensorlet._src.keras import optimizers as _optimizers
        from tensorlet._src.keras.engine.compile_utils import CompileLoss, CompileMetrics
        from tensorlet._src.keras.metrics import Mean

        self.optimizer = _optimizers.get(optimizer) if optimizer is not None else None
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
            from tensorlet._src.keras.saving.serialization import serialize_keras_object

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
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

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
            if isinstance(layer, Model):
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
        not look at each step's results may read the metrics once at its end instead (``_StepRunner.quiet``)."""
        if not isinstance(template, dict):
            return False
        try:
            return set(_log_names(template)) == set(self.get_metrics_result())
        except Exception:  # noqa: BLE001  (metrics that cannot report yet)
            return False

    def _metrics_result_or_logs(self, logs):
        """The metrics' results, or, when a custom step returns other names, the last step's results (Keras)."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(_pythonify(logs)) != set(metric_logs):
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
                extra = T.cast(extra, "float32")
            losses.append(T.cast(extra, "float32") if not extra.dtype.is_floating else extra)
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
                from tensorlet._src.keras.metrics import Mean

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
        from tensorlet._src.autodiff.tape import GradientTape

        x, y, sample_weight = _da.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._call_training(x, True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            self._loss_tracker.update_state(loss, sample_weight=_first_batch_size(x))
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
        x, y, sample_weight = _da.unpack_x_y_sample_weight(data)
        y_pred = self._call_training(x, False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=_first_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch."""
        x, _, _ = _da.unpack_x_y_sample_weight(data)
        return self._call_training(x, False)

    def _make_function(self, kind):
        step = {"train": self.train_step, "test": self.test_step, "predict": self.predict_step}[kind]
        fn = step_function(step, run_eagerly=self._run_eagerly, jit_compile=self._jit_compile, kind=kind)
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

    def _symbolic_build(self, data):
        """Builds the model (and metric containers) on the first batch before the step is compiled."""
        if not self.built:
            x, _, _ = _da.unpack_x_y_sample_weight(data)
            self._call_training(x, False)

    def _build_optimizer(self):
        """As Keras's symbolic build: the optimizer's slots exist before the first compiled step (so values a
        checkpoint restored for them land before training, outside the traced step)."""
        from tensorlet._src.keras.optimizers.base import Optimizer

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
            (x, y, sample_weight), validation_data = _da.train_validation_split((x, y, sample_weight),
                                                                                validation_split)
        val_x = val_y = val_sw = None
        if validation_data is not None:
            val_x, val_y, val_sw = _da.unpack_x_y_sample_weight(validation_data)
        iterator = _da.EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
                                     shuffle=shuffle, class_weight=class_weight)
        callbacks = _callback_list(callbacks, self, add_history=True, add_progbar=verbose != 0, verbose=verbose,
                                   epochs=epochs, steps=iterator.num_batches)
        self.stop_training = False
        train_fn = self.make_train_function()
        callbacks.on_train_begin()
        initial_epoch = self._initial_epoch or initial_epoch  # BackupAndRestore sets it in on_train_begin
        hooks = _batch_hooks(callbacks, "train")
        _loop_hints(train_fn, iterator, epochs - initial_epoch,
                    None if hooks == (True, None) else self._results_from_metrics)
        try:
            training_logs = self._fit_epochs(train_fn, iterator, callbacks, hooks, initial_epoch, epochs,
                                             validation_data, (val_x, val_y, val_sw), validation_batch_size or
                                             batch_size, validation_steps, validation_freq, verbose)
        finally:
            _loop_hints(train_fn, None, 0, None)
        if self.optimizer is not None and hasattr(self.optimizer, "finalize_variable_values") and epochs > 0:
            self.optimizer.finalize_variable_values(self.trainable_weights)
        callbacks.on_train_end(logs=training_logs)
        return self.history

    def _fit_epochs(self, train_fn, iterator, callbacks, hooks, initial_epoch, epochs, validation_data, val_data,
                    val_batch_size, validation_steps, validation_freq, verbose):
        hooks, progbar_logs = hooks
        all_hooks = hooks and progbar_logs is None
        first = True
        training_logs = None
        logs = {}
        val_iterator = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            last = (iterator.num_batches or 0) - 1
            for step, data in iterator.enumerate_epoch():
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
                        logs = _pythonify(logs)
                        callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(_pythonify(self._metrics_result_or_logs(logs)))
            if validation_data is not None and self._should_eval(epoch, validation_freq):
                if val_iterator is None:
                    val_iterator = _da.EpochIterator(*val_data, batch_size=val_batch_size,
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
            iterator = _da.EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps,
                                         shuffle=False)
        callbacks = _callback_list(callbacks, self, add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                   steps=iterator.num_batches)
        test_fn = self.make_test_function()
        self.stop_evaluating = False
        callbacks.on_test_begin()
        logs = {}
        self.reset_metrics()
        hooks, progbar_logs = _batch_hooks(callbacks, "test")
        _loop_hints(test_fn, None, 0, None if hooks and progbar_logs is None else self._results_from_metrics)
        last = (iterator.num_batches or 0) - 1
        try:
            for step, data in iterator.enumerate_epoch():
                if hooks and progbar_logs is None:
                    callbacks.on_test_batch_begin(step)
                if not self.built:
                    self._symbolic_build(data)
                logs = test_fn(data)
                if hooks:
                    callbacks.on_test_batch_end(step, _pythonify(logs) if logs is not None else
                                                progbar_logs(self, step == last))
                if self.stop_evaluating:
                    break
        finally:
            _loop_hints(test_fn, None, 0, None)
        logs = _pythonify(self._metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def _flatten_metrics_in_order(self, logs):
        from tensorlet._src.keras.engine.compile_utils import CompileMetrics

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
        iterator = _da.EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps, shuffle=False)
        callbacks = _callback_list(callbacks, self, add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                   steps=iterator.num_batches)
        predict_fn = self.make_predict_function()
        self.stop_predicting = False
        callbacks.on_predict_begin()
        batches = []
        hooks = _uses_batch_hooks(callbacks, "predict")
        for step, data in iterator.enumerate_epoch():
            if hooks:
                callbacks.on_predict_batch_begin(step)
            if not self.built:
                self._symbolic_build(data)
            batch = predict_fn(data)
            if batch.__class__ is EagerTensor:
                batch = np.asarray(batch)
            else:
                batch = nest.map_structure(lambda t: np.asarray(t) if isinstance(t, Tensor) else t, batch)
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

    # --- single batches -------------------------------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch; returns the metrics (like ``evaluate``)."""
        self._assert_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("Arguments `sample_weight` and `class_weight` cannot be specified at the same "
                                 f"time. Received: sample_weight={sample_weight}, class_weight={class_weight}")
            sample_weight = _da.class_weight_to_sample_weights(np.asarray(y), class_weight)
        data = _single_batch(x, y, sample_weight)
        self._symbolic_build(data)
        self._build_optimizer()
        self.reset_metrics()
        logs = _pythonify(self.make_train_function()(data))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One evaluation step on one batch (metrics are reset first)."""
        self._assert_compiled()
        data = _single_batch(x, y, sample_weight)
        self.reset_metrics()
        self._symbolic_build(data)
        logs = _pythonify(self._metrics_result_or_logs(self.make_test_function()(data)))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x):
        """The outputs for one batch as NumPy arrays."""
        data = _single_batch(x, None, None)
        out = self.make_predict_function()(data)
        return nest.map_structure(lambda t: np.asarray(t) if isinstance(t, Tensor) else t, out)

    # --- misc -----------------------------------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Prints the layer table as Keras 3 does (``Total params: 1,290 (5.04 KB)``)."""
        from tensorlet._src.keras.engine import summary_utils

        summary_utils.print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                                    expand_nested=expand_nested, show_trainable=show_trainable,
                                    layer_range=layer_range)

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or by ``index`` into ``model.layers``."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            names = [layer.name for layer in self.layers]
            raise ValueError(f"No such layer: {name}. Existing layers are: {names}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def layers(self):
        """The model's direct sub-layers, in order."""
        from tensorlet._src.keras.engine.node import _Operation

        return [layer for layer in self._layers if not isinstance(layer, _Operation)]

    @property
    def distribute_strategy(self):
        return None

    def save_weights(self, filepath, overwrite=True, **kwargs):
        from tensorlet._src.keras.saving import saving_api  # written by the saving helper

        return saving_api.save_weights(self, filepath, overwrite=overwrite, **kwargs)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        from tensorlet._src.keras.saving import saving_api

        return saving_api.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def save(self, filepath, overwrite=True, **kwargs):
        from tensorlet._src.keras.saving import saving_api

        return saving_api.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):  # noqa: A002
        """Writes a SavedModel with ``serve``/``serving_default`` signatures calling the model (inference)."""
        from tensorlet._src.saved_model.keras_export import export_keras_model

        return export_keras_model(self, filepath, format=format, verbose=verbose, input_signature=input_signature,
                                  **kwargs)

    def to_json(self, **kwargs):
        """The model's config as a JSON string (``keras.models.model_from_json`` reverses it)."""
        from tensorlet._src.keras.models import model_to_json

        return model_to_json(self, **kwargs)

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable}
        if type(self).__init__ is not Model.__init__:
            auto = self._auto_config
            from tensorlet._src.keras.engine.base_layer import _json_friendly

            if type(self).get_config is Model.get_config and auto is not None and _json_friendly(auto):
                config.update(auto)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.engine import functional as _f

        if "layers" in config and "input_layers" in config and "output_layers" in config:
            return _f.functional_from_config(cls, config, custom_objects=custom_objects)
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError(f"Unable to revive model from config. When overriding the `get_config()` method, make "
                            f"sure that the returned config contains all items used as arguments in the  "
                            f"constructor to {cls}, which is the default behavior. You can override this default "
                            f"behavior by defining a `from_config(cls, config)` class method to specify how to "
                            f"create an instance of {cls.__name__} from its config.\n\nReceived config={config}\n\n"
                            f"Error encountered during deserialization: {e}") from e

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _inject_functional(cls, functional):
    """Makes a Model subclass that calls ``super().__init__(inputs, outputs)`` a Functional subclass (as Keras)."""
    if issubclass(cls, functional):
        return
    bases = []
    for base in cls.__bases__:
        if base is Model:
            bases.append(functional)
        else:
            if isinstance(base, type) and issubclass(base, Model):
                _inject_functional(base, functional)
            bases.append(base)
    cls.__bases__ = tuple(bases)


def _single_batch(x, y, sw):
    def conv(a):
        if a is None or isinstance(a, Tensor):
            return a
        from tensorlet._src.framework.tensor import constant

        return constant(_da._to_array(a)) if not hasattr(a, "_v") else a

    x = nest.map_structure(conv, x)
    y = nest.map_structure(conv, y) if y is not None else None
    sw = nest.map_structure(conv, sw) if sw is not None else None
    if y is None:
        return (x,)
    if sw is None:
        return (x, y)
    return (x, y, sw)
