"""``tf.compat.v1.train.Saver``: name-based checkpoints, in TF's TensorBundle format.

A Saver saves each variable under its name (``var.op.name``, e.g. ``dense/kernel``; the keys of ``var_list``
when it is a dict), with no object graph -- the files TF1's ``Saver`` writes and reads, so either side restores
the other's.  ``save`` writes ``save_path[-global_step].index`` / ``.data-00000-of-00001`` and updates the
``checkpoint`` state file, keeping the newest ``max_to_keep`` checkpoints.  In a TF1 graph it also writes
``<prefix>.meta``, the graph's MetaGraphDef with this Saver's ``save/`` subgraph and SaverDef (``v1_meta_graph``),
unless ``write_meta_graph=False``, as TF does.  Values are the variables' current values (tensorlet's TF1
sessions keep them in the variables), so ``sess`` may be a session or None.

>>> v = tf.Variable([1.0, 2.0], name="v")
>>> saver = tf.compat.v1.train.Saver([v])
>>> path = saver.save(None, "/tmp/doc_saver/model", global_step=3)  # doctest: +SKIP
>>> path  # doctest: +SKIP
'/tmp/doc_saver/model-3'
"""

from __future__ import annotations

import os
import time

import numpy as np

from tensorlet._src.framework import errors as _errors
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.train import checkpoint as _ck
from tensorlet._src.train import checkpoint_manager as _mgr
from tensorlet._src.train import format as _format
from tensorlet._src.train import tf_bundle as _bundle


def _op_name(var) -> str:
    name = getattr(var, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"Saver: variable {var!r} has no name")
    return name[:-2] if name.endswith(":0") else name


def _names(var_list) -> dict:
    if isinstance(var_list, dict):
        return {str(k): v for k, v in var_list.items()}
    out = {}
    for v in var_list:
        name = _op_name(v)
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


def _default_var_list():
    from tensorlet._src.framework.context import executing_eagerly

    if executing_eagerly():
        raise RuntimeError("When eager execution is enabled, `var_list` must specify a list or dict of variables "
                           "to save")
    from tensorlet._src.compat import v1_graph as v1

    return list(v1.global_variables()) + list(v1.get_collection("saveable_objects") or [])


def _step(global_step, sess):
    if isinstance(global_step, (int, np.integer)):
        return int(global_step)
    if hasattr(global_step, "_v"):
        return int(np.asarray(global_step._v))
    if sess is not None and hasattr(sess, "run"):
        return int(sess.run(global_step))
    return int(np.asarray(global_step))


@tf_export("compat.v1.train.Saver")
class Saver:
    """Saves and restores variables by name (TF1's ``tf.compat.v1.train.Saver``)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if write_version != 2:
            raise ValueError("tensorlet writes checkpoint format V2 only (write_version=2)")
        self._var_list = var_list
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._allow_empty = allow_empty
        self._pad = pad_step_number
        self._last = []  # [(path, time)]
        self._next_keep = time.time() + keep_checkpoint_every_n_hours * 3600
        self._built = None
        self._graph = None
        from tensorlet._src.compat import v1_graph as v1

        if v1._current_builder() is not None:  # a TF1 graph: its save/ nodes are written with the graph
            self._graph = v1.get_default_graph()
            self._graph._savers.append(self)
        if not defer_build:
            self.build()

    def _options(self):
        return {"max_to_keep": self._max_to_keep, "keep_checkpoint_every_n_hours": self._keep_hours}

    def _vars(self) -> dict:
        if self._built is None:
            self.build()
        return self._built

    def build(self):
        """Fixes the variables saved: ``var_list``, or the graph's global variables now (as TF builds them)."""
        var_list = self._var_list if self._var_list is not None else _default_var_list()
        names = _names(var_list)
        if not names and not self._allow_empty:
            raise ValueError("No variables to save")
        self._built = names

    @property
    def last_checkpoints(self) -> list:
        """The checkpoints this Saver kept, oldest first."""
        return [p for p, _ in self._last]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last = [(p, t) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over ``checkpoint_paths`` (those that exist) as the kept checkpoints."""
        self._last = [(p, os.path.getmtime(p + _format.INDEX_SUFFIX)) for p in checkpoint_paths
                      if _bundle.exists(p)]

    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes the variables' values to ``save_path`` (``-<global_step>`` appended); returns the path."""
        if latest_filename and os.path.basename(latest_filename) != latest_filename:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            step = _step(global_step, sess)
            prefix = f"{save_path}-{step:08d}" if self._pad else f"{save_path}-{step}"
        else:
            prefix = save_path
        save_dir = os.path.dirname(prefix)
        if save_dir and not os.path.isdir(save_dir):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        tensors = {}
        for name, var in sorted(self._vars().items()):  # (TF1 sessions keep the current value in the variable)
            stored = getattr(var, "_v", None)
            tensors[name] = stored if isinstance(stored, np.ndarray) else np.asarray(
                var.numpy() if hasattr(var, "numpy") else var)
        _bundle.write_bundle(prefix, tensors)
        graph = getattr(sess, "graph", None) or self._graph
        if write_meta_graph and graph is not None and hasattr(graph, "_savers"):
            try:
                self.export_meta_graph(f"{prefix}.{meta_graph_suffix}", graph=graph,
                                       strip_default_attrs=strip_default_attrs)
            except _errors.UnimplementedError as e:  # the checkpoint is written; only the graph cannot be
                import logging

                logging.getLogger("tensorflow").warning("Saver: %s.%s not written: %s", prefix, meta_graph_suffix,
                                                        e.message)
        now = time.time()
        self._last = [(p, t) for p, t in self._last if p != prefix] + [(prefix, now)]
        if write_state:
            self._sweep()
            _mgr.update_checkpoint_state(save_dir, prefix, self.last_checkpoints,
                                         [t for _, t in self._last], latest_filename=latest_filename)
        return prefix

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._last) > self._max_to_keep:
            path, t = self._last.pop(0)
            if t > self._next_keep:  # keep_checkpoint_every_n_hours
                self._next_keep += self._keep_hours * 3600
                continue
            _mgr.delete_checkpoint_files(path)

    def restore(self, sess, save_path):
        """Assigns every variable its value saved under its name in ``save_path``."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not _bundle.exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        reader = _ck._open(save_path)
        from tensorlet._src.framework.context import init_scope

        with init_scope():
            for name, var in sorted(self._vars().items()):
                if not reader.has(name):
                    hint = (" (an object-based checkpoint: restore it with tf.train.Checkpoint)"
                            if reader.has(_format.OBJECT_GRAPH_KEY) else "")
                    raise _errors.NotFoundError(None, "RestoreV2", f"Key {name} not found in checkpoint{hint}")
                try:
                    value = reader.get(name)
                except _format.CorruptCheckpoint as e:
                    raise _errors.DataLossError(None, "RestoreV2", str(e)) from None
                _ck._assign(var, name, reader.dtype(name), value)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False, graph=None):
        """The MetaGraphDef of this Saver's graph with its SaverDef (written to ``filename`` when given)."""
        from tensorlet._src.compat import v1_meta_graph

        g = graph if graph is not None else self._graph
        if g is None:
            raise RuntimeError("Exporting/importing meta graphs is not supported when eager execution is enabled. "
                               "No graph exists when eager execution is enabled.")
        if self not in g._savers:
            g._savers.append(self)
        return v1_meta_graph.export_meta_graph(filename, collection_list=collection_list, as_text=as_text,
                                               graph=g, export_scope=export_scope, clear_devices=clear_devices,
                                               strip_default_attrs=strip_default_attrs, _saver=self)

    def as_saver_def(self):
        from tensorboard.compat.proto import saver_pb2

        g = self._graph
        if g is not None:
            from tensorlet._src.compat import v1_graph_def

            names = v1_graph_def.build(g)[2].get(id(self))
            if names is not None:
                return saver_pb2.SaverDef(filename_tensor_name=names[0], save_tensor_name=names[1],
                                          restore_op_name=names[2], max_to_keep=self._max_to_keep, sharded=False,
                                          keep_checkpoint_every_n_hours=self._keep_hours,
                                          version=saver_pb2.SaverDef.V2)
        return saver_pb2.SaverDef(filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
                                  restore_op_name="save/restore_all", max_to_keep=self._max_to_keep, sharded=False,
                                  keep_checkpoint_every_n_hours=self._keep_hours, version=saver_pb2.SaverDef.V2)
