"""Summary writers: ``tf.summary.create_file_writer``, the default writer, step and ``record_if`` state.

Events are TensorBoard's protos (``tensorboard.compat.proto.event_pb2``) framed by TensorBoard's own
``RecordWriter`` into ``events.out.tfevents.<time>.<host>.<pid>.<n>.v2`` files, as TF names them.
Events are queued in memory and written when ``max_queue`` events are waiting, when ``flush_millis``
passed since the last write, on ``flush()``, when an ``as_default()`` block exits, on ``close()`` and at
interpreter exit; no background thread.
"""

from __future__ import annotations

import atexit
import itertools
import os
import socket
import threading
import time
import weakref

from tensorlet._src.ops.registry import tf_export

_uid = itertools.count()
_live = weakref.WeakSet()
_tls = threading.local()


def _state():
    st = _tls.__dict__
    if "writer" not in st:
        st["writer"] = None
        st["step"] = None
        st["record_if"] = []
    return st


@tf_export("summary.SummaryWriter")
class SummaryWriter:
    """Base class of summary writers (``create_file_writer`` / ``create_noop_writer`` return subclasses)."""

    def set_as_default(self, step=None):
        """Makes this the default writer for the current thread (and sets the step if given)."""
        self._check_open()
        st = _state()
        st["writer"] = self
        if step is not None:
            st["step"] = step

    def as_default(self, step=None):
        """``with writer.as_default(step=3):`` -- the default writer (and step) inside the block."""
        self._check_open()
        return _DefaultContext(self, step)

    def init(self):
        """(Re)opens the writer."""

    def flush(self):
        """Writes queued events to disk."""

    def close(self):
        """Flushes and closes; the writer can no longer be used."""

    def _check_open(self):
        pass

    def _recording(self) -> bool:
        return False

    def _write_event(self, event):
        pass


class _DefaultContext:
    __slots__ = ("_writer", "_step", "_old")

    def __init__(self, writer, step):
        self._writer = writer
        self._step = step

    def __enter__(self):
        st = _state()
        self._old = (st["writer"], st["step"])
        st["writer"] = self._writer
        if self._step is not None:
            st["step"] = self._step
        return self._writer

    def __exit__(self, *exc):
        st = _state()
        st["writer"] = self._old[0]
        if self._step is not None:
            st["step"] = self._old[1]
        self._writer.flush()
        return False


class _NoopWriter(SummaryWriter):
    """Writes nothing (``tf.summary.create_noop_writer``)."""


class _FileWriter(SummaryWriter):
    """Writes events to one tfevents file in ``logdir``."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._logdir = os.fspath(logdir)
        self._max_queue = 10 if max_queue is None else int(max_queue)
        self._flush_secs = (120000 if flush_millis is None else int(flush_millis)) / 1000.0
        self._suffix = ".v2" if filename_suffix is None else filename_suffix
        self._lock = threading.Lock()
        self._file = None
        self._closed = True
        self.init()

    def init(self):
        with self._lock:
            if not self._closed:
                return
            from tensorboard.compat.proto import event_pb2
            from tensorboard.summary.writer.record_writer import RecordWriter

            os.makedirs(self._logdir, exist_ok=True)
            now = time.time()
            name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}.{next(_uid)}"
                    f"{self._suffix}")
            self._path = os.path.join(self._logdir, name)
            self._file = open(self._path, "wb")
            self._records = RecordWriter(self._file)
            self._queue = []
            self._closed = False
            self._last_flush = now
            first = event_pb2.Event(wall_time=now, file_version="brain.Event:2")
            first.source_metadata.writer = "tensorlet"
            self._records.write(first.SerializeToString())
            self._file.flush()
            _live.add(self)

    @property
    def logdir(self):
        return self._logdir

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def _recording(self) -> bool:
        return not self._closed

    def _write_event(self, event):
        data = event.SerializeToString()
        with self._lock:
            if self._closed:
                raise RuntimeError(f"SummaryWriter {self!r} is already closed")
            self._queue.append(data)
            if len(self._queue) > self._max_queue or time.time() - self._last_flush >= self._flush_secs:
                self._flush_locked()

    def _flush_locked(self):
        for data in self._queue:
            self._records.write(data)
        self._queue = []
        self._file.flush()
        self._last_flush = time.time()

    def flush(self):
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._flush_locked()
            self._file.close()
            self._closed = True
        _live.discard(self)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


@atexit.register
def _flush_all():
    for w in list(_live):
        try:
            w.flush()
        except Exception:
            pass


@tf_export("summary.create_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A writer of TensorBoard event files in ``logdir`` (created if missing).

    >>> writer = tf.summary.create_file_writer("/tmp/logs")  # doctest: +SKIP
    >>> with writer.as_default(step=1):  # doctest: +SKIP
    ...     tf.summary.scalar("loss", 0.5)
    """
    if logdir is None:
        raise ValueError("logdir cannot be None")
    if hasattr(logdir, "numpy"):
        logdir = logdir.numpy()
    if isinstance(logdir, bytes):
        logdir = logdir.decode()
    if filename_suffix is not None and hasattr(filename_suffix, "numpy"):
        filename_suffix = filename_suffix.numpy().decode()
    return _FileWriter(logdir, max_queue, flush_millis, filename_suffix)


@tf_export("summary.create_noop_writer")
def create_noop_writer():
    """A writer that writes nothing (summaries under it return False)."""
    return _NoopWriter()


@tf_export("summary.flush")
def flush(writer=None, name=None):
    """Flushes ``writer`` (default: the current default writer)."""
    if writer is None:
        writer = _state()["writer"]
    if writer is not None:
        writer.flush()


@tf_export("summary.experimental.set_step")
def set_step(step):
    """Sets the default step (an int, tensor or variable; read each time a summary is written)."""
    _state()["step"] = step


@tf_export("summary.experimental.get_step")
def get_step():
    """The default step set by ``set_step``/``as_default(step=)`` (None if unset)."""
    return _state()["step"]


class _RecordIf:
    __slots__ = ("_cond",)

    def __init__(self, condition):
        self._cond = condition

    def __enter__(self):
        _state()["record_if"].append(self._cond)

    def __exit__(self, *exc):
        _state()["record_if"].pop()
        return False


@tf_export("summary.record_if")
def record_if(condition):
    """``with tf.summary.record_if(cond):`` -- summaries are written only while ``cond`` (bool, tensor or
    callable) is true."""
    return _RecordIf(condition)


def _truthy(cond) -> bool:
    if callable(cond):
        cond = cond()
    if hasattr(cond, "numpy"):
        cond = cond.numpy()
    return bool(cond)


def recording_writer():
    """The default writer if summaries should be written now, else None."""
    st = _state()
    w = st["writer"]
    if w is None or not w._recording():
        return None
    conds = st["record_if"]
    if conds and not _truthy(conds[-1]):
        return None
    return w


@tf_export("summary.should_record_summaries")
def should_record_summaries():
    """A bool tensor: is there a default writer and does ``record_if`` allow writing?"""
    from tensorlet._src.framework.tensor import constant

    return constant(recording_writer() is not None)
