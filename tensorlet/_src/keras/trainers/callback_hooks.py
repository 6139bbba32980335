"""What a training loop tells its callbacks, and what it reads back to do so: the callback list of a loop, which
per-batch hooks it must call (a loop none of whose callbacks hooks batches does not read each step's results), the
results handed to Keras's own progress bar only when it will draw, and logs as Python numbers."""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.callbacks import Callback, CallbackList, ProgbarLogger
from tensorlet._src.keras.trainers.step_runner import StepRunner


def pythonify(logs):
    out = {}
    for k, v in sorted((logs or {}).items()):
        if isinstance(v, dict):
            out.update(pythonify(v))
            continue
        if hasattr(v, "numpy"):
            v = v.numpy()
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        if isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def callback_list(callbacks, model, **params):
    if isinstance(callbacks, CallbackList):
        return callbacks
    return CallbackList(callbacks, model=model, **params)


BATCH_HOOKS = {"train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
                "test": ("on_test_batch_begin", "on_test_batch_end"),
                "predict": ("on_predict_batch_begin", "on_predict_batch_end")}


def uses_batch_hooks(callbacks, kind):
    """Whether a callback overrides a per-batch hook of this loop.  When none does, the loop skips the hooks and,
    with them, reading each step's results back as Python numbers (History and a silent fit need epoch logs only).
    """
    return batch_hooks(callbacks, kind) != (False, None)


def batch_hooks(callbacks, kind):
    """How a loop calls the per-batch hooks: ``(False, None)``: no callback defines one (the loop skips them and
    does not read each step's results); ``(True, progbar_logs)``: only Keras's own progress bar does, through
    ``on_{kind}_batch_end``, and it shows the latest results at most every ``interval`` seconds, so the loop reads
    them only when the bar will draw (``progbar_logs(model, is_last_step)`` gives them); ``(True, None)``: every
    hook gets every step's results."""
    if type(callbacks) is not CallbackList:  # a subclass may hook batches itself
        return True, None
    progbar = None
    for cb in callbacks.callbacks:
        if not isinstance(cb, Callback):
            return True, None
        # hooks overridden in a subclass, or set on the instance (LambdaCallback)
        hooked = [name for name in BATCH_HOOKS[kind]
                  if getattr(getattr(cb, name, None), "__func__", None) is not getattr(Callback, name)]
        if not hooked:
            continue
        if type(cb) is ProgbarLogger and hooked == [f"on_{kind}_batch_end"] and progbar is None:
            progbar = cb
            continue
        return True, None
    return (False, None) if progbar is None else (True, ProgbarLogs(progbar))


class ProgbarLogs:
    """The results a loop that skips reading each step's results hands to Keras's progress bar: read from the
    model's metrics when the bar will draw (verbose=1, its ``interval`` elapsed, with a margin), else the last
    ones read (a bar keeps only the latest value of each metric and draws nothing in between)."""

    MARGIN = 0.005

    def __init__(self, logger):
        self.logger = logger
        self.logs = {}

    def __call__(self, model, last):
        if self.logger.draws_at(last, self.MARGIN):
            self.logs = pythonify(model.get_metrics_result())
        return self.logs


def loop_hints(step_fn, iterator, epochs, quiet_check):
    """Tells a compiled step how often each batch size will run in this loop (from ``iterator``'s counts over
    ``epochs``; ``None``: unknown) and whether the loop skips reading each step's results (``quiet_check``)."""
    if not isinstance(step_fn, StepRunner):
        return
    counts = iterator.batch_counts() if iterator is not None and epochs > 0 else None
    step_fn.expect(None if counts is None else {b: n * epochs for b, n in counts.items()})
    step_fn.quiet(quiet_check)


def log_names(logs):
    """The names of a results dict once flattened as ``pythonify`` does (nested dicts merged)."""
    names = []
    for k, v in logs.items():
        names.extend(log_names(v) if isinstance(v, dict) else [k])
    return names
