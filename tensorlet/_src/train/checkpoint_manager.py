"""``tf.train.CheckpointManager`` and the text ``checkpoint`` state file (TF's ``CheckpointState`` format).

The state file is written exactly as TF writes it (protobuf text format, paths relative to the directory)::

    model_checkpoint_path: "ckpt-10"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-10"
    all_model_checkpoint_timestamps: 1796011261.8461838
    all_model_checkpoint_timestamps: 1796011261.860067
    last_preserved_timestamp: 1796011260.7746906

It is replaced atomically (temporary file, then rename) and only after the checkpoint files it names are complete.
"""

from __future__ import annotations

import collections
import glob
import logging
import os
import time

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.train import format as _format

_log = logging.getLogger("tensorlet")
_STATE_CLASS = None


def _state_class():
    """TF's ``CheckpointState`` message, built in a private descriptor pool (no TF needed)."""
    global _STATE_CLASS
    if _STATE_CLASS is None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        fdp = descriptor_pb2.FileDescriptorProto(name="tensorlet/checkpoint_state.proto", package="tensorflow",
                                                 syntax="proto3")
        msg = fdp.message_type.add(name="CheckpointState")
        F = descriptor_pb2.FieldDescriptorProto
        for name, number, typ, label in (
                ("model_checkpoint_path", 1, F.TYPE_STRING, F.LABEL_OPTIONAL),
                ("all_model_checkpoint_paths", 2, F.TYPE_STRING, F.LABEL_REPEATED),
                ("all_model_checkpoint_timestamps", 3, F.TYPE_DOUBLE, F.LABEL_REPEATED),
                ("last_preserved_timestamp", 4, F.TYPE_DOUBLE, F.LABEL_OPTIONAL)):
            msg.field.add(name=name, number=number, type=typ, label=label)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(fdp)
        _STATE_CLASS = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.CheckpointState"))
    return _STATE_CLASS


def _state_path(checkpoint_dir, latest_filename=None):
    return os.path.join(os.fspath(checkpoint_dir), latest_filename or "checkpoint")


def _atomic_write(path: str, data: bytes) -> None:
    tmp = _format._tmp_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _format._remove(tmp)
        raise


def _relative(path: str, directory: str) -> str:
    if os.path.isabs(path) != os.path.isabs(directory):
        path, directory = os.path.abspath(path), os.path.abspath(directory)
    return os.path.relpath(path, directory or ".")


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            all_model_checkpoint_timestamps=None, last_preserved_timestamp=None,
                            latest_filename=None):
    """Rewrites ``save_dir/checkpoint`` (paths stored relative to ``save_dir``, as TF does)."""
    from google.protobuf import text_format

    save_dir = os.fspath(save_dir)
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        if model_checkpoint_path in paths:
            paths.remove(model_checkpoint_path)
        paths.append(model_checkpoint_path)
    state = _state_class()(model_checkpoint_path=_relative(model_checkpoint_path, save_dir),
                           all_model_checkpoint_paths=[_relative(p, save_dir) for p in paths])
    if all_model_checkpoint_timestamps:
        state.all_model_checkpoint_timestamps.extend(float(t) for t in all_model_checkpoint_timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = float(last_preserved_timestamp)
    os.makedirs(save_dir or ".", exist_ok=True)
    _atomic_write(_state_path(save_dir, latest_filename), text_format.MessageToString(state).encode())


@tf_export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` in ``checkpoint_dir/checkpoint`` (paths made absolute), or None.

    >>> state = tf.train.get_checkpoint_state("/tmp/ckpts")  # doctest: +SKIP
    >>> state.model_checkpoint_path  # doctest: +SKIP
    '/tmp/ckpts/ckpt-3'
    """
    from google.protobuf import text_format

    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError:
        return None
    state = _state_class()()
    try:
        text_format.Parse(text, state)
    except text_format.ParseError as e:
        _log.warning("%s: Checkpoint ignored", e)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


@tf_export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest complete checkpoint recorded in ``checkpoint_dir``, or None.

    >>> tf.train.latest_checkpoint("/tmp/ckpts")  # doctest: +SKIP
    '/tmp/ckpts/ckpt-3'
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if _format.exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def delete_checkpoint_files(prefix: str) -> None:
    for path in [prefix + _format.INDEX_SUFFIX] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        _format._remove(path)


@tf_export("train.checkpoints_iterator")
def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of ``checkpoint_dir`` as it appears (polling once a second)."""
    last = None
    while True:
        deadline = None if timeout is None else time.time() + timeout
        new = None
        while True:
            path = latest_checkpoint(checkpoint_dir)
            if path is not None and path != last:
                new = path
                break
            if deadline is not None and time.time() + 1 > deadline:
                break
            time.sleep(1)
        if new is None:
            if not timeout_fn or timeout_fn():
                return
            continue
        start = time.time()
        last = new
        yield new
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)


@tf_export("train.CheckpointManager")
class CheckpointManager:
    """Numbers checkpoints, keeps the newest ``max_to_keep`` and records them in the ``checkpoint`` file.

    >>> ckpt = tf.train.Checkpoint(step=tf.Variable(1))
    >>> manager = tf.train.CheckpointManager(ckpt, "/tmp/ckpts", max_to_keep=3)  # doctest: +SKIP
    >>> manager.save()  # doctest: +SKIP
    '/tmp/ckpts/ckpt-1'
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None,
                 last_checkpoint_step=None):
        self._checkpoint = checkpoint
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        now = time.time()
        state = get_checkpoint_state(self._directory)
        self._maybe_delete = collections.OrderedDict()
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now
        else:
            self._latest_checkpoint = state.model_checkpoint_path
            self._last_preserved_timestamp = state.last_preserved_timestamp
            if now < self._last_preserved_timestamp:  # the clock went backwards: keep everything recorded
                self._last_preserved_timestamp = now
            paths = list(state.all_model_checkpoint_paths)
            stamps = list(state.all_model_checkpoint_timestamps) or [self._last_preserved_timestamp] * len(paths)
            for path, stamp in zip(paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:  # older ones are preserved, as in TF
                    self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint prefix this manager knows (or None)."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The checkpoint prefixes still kept, oldest first."""
        return list(self._maybe_delete)

    def _step_value(self):
        s = self._step_counter
        return int(s.numpy() if hasattr(s, "numpy") else s)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a new checkpoint (``ckpt-N``), deletes the ones beyond ``max_to_keep``; returns its prefix.

        With ``checkpoint_interval``, returns None (and saves nothing) until the step counter advanced enough.
        """
        if self._checkpoint_interval is not None and check_interval:
            step = self._step_value()
            if self._last_checkpoint_step is not None and step < self._last_checkpoint_step + \
                    self._checkpoint_interval:
                return None
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = int(counter.numpy())
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = int(checkpoint_number.numpy())
        prefix = f"{self._checkpoint_prefix}-{int(checkpoint_number)}"
        path = self._checkpoint.write(prefix, options=options)
        stamp = time.time()
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = stamp
        self._latest_checkpoint = path
        doomed = self._sweep()
        self._record_state()
        for p in doomed:
            delete_checkpoint_files(p)
        if self._step_counter is not None and self._checkpoint_interval is not None:
            self._last_checkpoint_step = self._step_value()
        return path

    def _sweep(self):
        doomed = []
        if self._max_to_keep is None:
            return doomed
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            doomed.append(path)
        return doomed

    def _record_state(self):
        update_checkpoint_state(self._directory, self._latest_checkpoint, list(self._maybe_delete),
                                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                                last_preserved_timestamp=self._last_preserved_timestamp)

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path, or runs ``init_fn`` and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = self._step_value()
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
