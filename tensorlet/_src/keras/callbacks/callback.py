"""Keras 3 callback protocol: ``Callback``, ``CallbackList``, and the simple callbacks ``History``,
``ProgbarLogger``, ``LambdaCallback``, ``TerminateOnNaN``.

The training loop calls a ``CallbackList``; it turns the logs into plain Python floats (sorted by name, nested
dicts flattened, as Keras's ``pythonify_logs``) before every hook.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.utils.io_utils import print_msg
from tensorlet._src.keras.utils.progbar import Progbar
from tensorlet._src.ops.registry import tf_export


def pythonify_logs(logs):
    """Sorted, flattened logs with tensors converted to Python floats (non-scalars to NumPy arrays)."""
    from tensorlet._src.framework.tensor import Tensor
    from tensorlet._src.framework.variables import Variable

    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        try:
            if isinstance(value, (Tensor, Variable)):
                value = np.asarray(value)
            value = float(value)
        except (TypeError, ValueError):
            pass
        result[key] = value
    return result


@tf_export("keras.callbacks.Callback")
class Callback:
    """Base class of callbacks: override the ``on_*`` hooks.

    >>> class Printer(tf.keras.callbacks.Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         print(epoch, logs["loss"])
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    @model.setter
    def model(self, model):  # TF2-era callbacks assign ``self.model`` in ``set_model``
        self._model = model

    def on_batch_begin(self, batch, logs=None):
        """A backwards-compatible alias of ``on_train_batch_begin``."""

    def on_batch_end(self, batch, logs=None):
        """A backwards-compatible alias of ``on_train_batch_end``."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of an epoch (training only)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch with the epoch's metrics (and ``val_*`` ones)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called before a batch of ``evaluate`` (and of validation in ``fit``)."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after a batch of ``evaluate``."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a batch of ``predict``."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after a batch of ``predict``."""

    def on_train_begin(self, logs=None):
        """Called when ``fit`` starts."""

    def on_train_end(self, logs=None):
        """Called when ``fit`` ends."""

    def on_test_begin(self, logs=None):
        """Called when ``evaluate`` (or validation) starts."""

    def on_test_end(self, logs=None):
        """Called when ``evaluate`` (or validation) ends."""

    def on_predict_begin(self, logs=None):
        """Called when ``predict`` starts."""

    def on_predict_end(self, logs=None):
        """Called when ``predict`` ends."""


def _flatten(callbacks):
    out = []
    for c in callbacks:
        if isinstance(c, (list, tuple)):
            out.extend(_flatten(c))
        elif c is not None:
            out.append(c)
    return out


@tf_export("keras.callbacks.CallbackList")
class CallbackList(Callback):
    """Calls every callback of a list; adds ``History``/``ProgbarLogger`` when asked.

    ``CallbackList(callbacks, add_history=True, add_progbar=verbose != 0, model=model, verbose=1, epochs=2,
    steps=157)``: keyword arguments other than the flags become ``params``.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = _flatten(callbacks) if callbacks else []
        self._in_begin_end_block_count = 0
        self._add_default_callbacks(add_history, add_progbar)
        self.set_model(model)
        self.set_params(params)

    def _add_default_callbacks(self, add_history, add_progbar):
        self._progbar = None
        self._history = None
        for cb in self.callbacks:
            if isinstance(cb, ProgbarLogger):
                self._progbar = cb
            elif isinstance(cb, History):
                self._history = cb
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        self.params = params
        if params:
            for cb in self.callbacks:
                cb.set_params(params)

    def set_model(self, model):
        if not model:
            return
        super().set_model(model)
        if self._history:
            model.history = self._history
        for cb in self.callbacks:
            cb.set_model(model)

    def _on_end(self):
        self._in_begin_end_block_count -= 1
        if self._in_begin_end_block_count < 0:
            raise ValueError("`on_xxx_end` called without corresponding `on_xxx_begin`")

    def _call(self, hook, *args):
        logs = pythonify_logs(args[-1]) if args else None
        for cb in self.callbacks:
            getattr(cb, hook)(*args[:-1], logs)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_batch_end", batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs)

    def on_train_begin(self, logs=None):
        self._in_begin_end_block_count += 1
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)
        self._on_end()

    def on_test_begin(self, logs=None):
        self._in_begin_end_block_count += 1
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)
        self._on_end()

    def on_predict_begin(self, logs=None):
        self._in_begin_end_block_count += 1
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)
        self._on_end()

    def __iter__(self):
        return iter(self.callbacks)


@tf_export("keras.callbacks.History")
class History(Callback):
    """Records each epoch's logs into ``history`` (``fit`` returns it).

    >>> h = tf.keras.callbacks.History(); h.on_train_begin()
    >>> h.model = type("M", (), {})(); h.on_epoch_end(0, {"loss": 0.5}); h.history
    {'loss': [0.5]}
    """

    def __init__(self):
        super().__init__()
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


@tf_export("keras.callbacks.ProgbarLogger")
class ProgbarLogger(Callback):
    """Prints Keras's progress bar (``verbose=1``) or one line per epoch (``verbose=2``)."""

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        verbose = params["verbose"]
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params["epochs"]
        self.target = params["steps"]

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def draws_at(self, last_step, margin=0.0):
        """Whether the next ``on_*_batch_end`` will draw the bar (so the logs passed to it must be current): always at
        an epoch's last step, else when the bar's redraw interval has passed; never for ``verbose=2`` (one line
        per epoch, from the epoch's logs)."""
        if self.verbose != 1:
            return False
        return self.progbar is None or last_step or self.progbar.will_draw(margin)

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update_progbar(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._update_progbar(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize_progbar(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs=None):
        self._finalize_progbar(logs)

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                                   stateless_metrics=set())

    def _update_progbar(self, batch, logs=None):
        logs = logs or {}
        self._maybe_init_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize_progbar(self, logs):
        logs = logs or {}
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(logs.items()), finalize=True)


@tf_export("keras.callbacks.LambdaCallback")
class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch))``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end, "on_train_begin": on_train_begin,
                 "on_train_end": on_train_end, "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


@tf_export("keras.callbacks.TerminateOnNaN")
class TerminateOnNaN(Callback):
    """Stops training when the batch loss is NaN or infinite (or raises, with ``raise_error=True``)."""

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                                   "Terminating training immediately.")
            print_msg(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
