"""``tf.contrib.summary`` (TF 1.x, as ``tf.compat.v1.contrib.summary``), writing real TensorBoard events.

Summaries are written only inside a recording block (``always_record_summaries()``,
``record_summaries_every_n_global_steps(n)``) and to the default writer; the step defaults to the global step.

>>> writer = tf.compat.v1.contrib.summary.create_file_writer("/tmp/tb")  # doctest: +SKIP
>>> with writer.as_default(), tf.compat.v1.contrib.summary.always_record_summaries():  # doctest: +SKIP
...     tf.compat.v1.contrib.summary.scalar("loss", 0.5, step=1)
"""

from __future__ import annotations

import contextlib
import threading

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.summary import summary_ops
from tensorlet._src.summary import writer as _writer
from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.summary.summary_ops import write
from tensorlet._src.summary.writer import record_if

_tls = threading.local()


def _stack():
    if not hasattr(_tls, "record"):
        _tls.record = []
    return _tls.record


@contextlib.contextmanager
def _recording(cond):
    _stack().append(cond)
    try:
        yield
    finally:
        _stack().pop()


@tf_export("compat.v1.contrib.summary.should_record_summaries")
def should_record_summaries():
    """Whether summaries are recorded here (False outside every ``record_summaries`` block)."""
    st = _stack()
    if not st:
        return False
    cond = st[-1]
    if callable(cond):
        cond = cond()
    return bool(cond.numpy()) if hasattr(cond, "numpy") else bool(cond)


@tf_export("compat.v1.contrib.summary.always_record_summaries")
def always_record_summaries():
    """Records every summary in the block."""
    return _recording(True)


@tf_export("compat.v1.contrib.summary.never_record_summaries")
def never_record_summaries():
    """Records nothing in the block."""
    return _recording(False)


@tf_export("compat.v1.contrib.summary.record_summaries_every_n_global_steps")
def record_summaries_every_n_global_steps(n, global_step=None):
    """Records in the block when ``global_step % n == 0`` (checked on entering it)."""
    if global_step is None:
        from tensorlet._src.compat.v1_train import get_or_create_global_step

        global_step = get_or_create_global_step()
    value = int(convert_to_tensor(global_step).numpy()) if hasattr(global_step, "numpy") else int(global_step)
    return _recording(value % n == 0)


@tf_export("compat.v1.contrib.summary.create_file_writer", "compat.v1.contrib.summary.create_summary_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A TensorBoard event-file writer for ``logdir`` (``set_as_default()``/``as_default()`` to use it)."""
    return _writer.create_file_writer(logdir, max_queue=max_queue, flush_millis=flush_millis,
                                        filename_suffix=filename_suffix, name=name)


@tf_export("compat.v1.contrib.summary.flush")
def flush(writer=None, name=None):
    """Writes queued events of ``writer`` (default: the default writer)."""
    _writer.flush(writer)


def _step(step):
    if step is not None:
        return step
    from tensorlet._src.compat.v1_train import get_global_step

    gs = get_global_step()
    if gs is None:
        raise ValueError("No step given and no global step: pass step= or create "
                         "tf.compat.v1.train.get_or_create_global_step().")
    return gs


def _tag(name, family):
    return f"{family}/{name}" if family else name


def _write(fn, name, tensor, family, step, **kw):
    if not should_record_summaries():
        return constant(False)
    from tensorlet._src.summary.writer import _state

    if _state()["writer"] is None:
        return constant(False)
    with record_if(True):
        return fn(_tag(name, family), tensor, step=_step(step), **kw)


@tf_export("compat.v1.contrib.summary.scalar")
def scalar(name, tensor, family=None, step=None):
    """Writes a scalar (Scalars dashboard) when recording."""
    return _write(summary_ops.scalar, name, tensor, family, step)


@tf_export("compat.v1.contrib.summary.histogram")
def histogram(name, tensor, family=None, step=None):
    """Writes a histogram (Histograms dashboard) when recording."""
    return _write(summary_ops.histogram, name, tensor, family, step)


@tf_export("compat.v1.contrib.summary.image")
def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Writes up to ``max_images`` images ``[k, h, w, c]`` when recording."""
    return _write(summary_ops.image, name, tensor, family, step, max_outputs=max_images)


@tf_export("compat.v1.contrib.summary.audio")
def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    """Writes audio clips ``[k, t, c]`` when recording."""
    return _write(summary_ops.audio, name, tensor, family, step, sample_rate=sample_rate, max_outputs=max_outputs)


@tf_export("compat.v1.contrib.summary.generic")
def generic(name, tensor, metadata=None, family=None, step=None):
    """Writes a raw tensor summary when recording."""
    return _write(write, name, tensor, family, step, metadata=metadata)


@tf_export("compat.v1.contrib.summary.all_summary_ops")
def all_summary_ops():
    """TF1 graph collections of summary ops: eagerly None."""
    return None


@tf_export("compat.v1.contrib.summary.initialize")
def initialize(graph=None, session=None):
    """Initialises summary writers (eagerly nothing to do)."""
    return None


@tf_export("compat.v1.contrib.summary.eval_dir")
def eval_dir(model_dir, name=None):
    """``model_dir/eval`` (or ``eval_<name>``)."""
    import os

    return os.path.join(model_dir, "eval" if not name else "eval_" + name)
