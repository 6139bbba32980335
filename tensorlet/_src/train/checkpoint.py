"""``tf.train.Checkpoint``: save and restore an object graph; deferred restoration; checkpoint readers.

Restoring matches the checkpoint's object graph against the Python objects by dependency name, starting at
the root.  Values for variables that exist are assigned at once.  Where the checkpoint has a dependency the
Python object does not have *yet* (a Keras layer not built, an optimizer without its slots), the object is
registered as *pending*; when it later gains the dependency, ``maybe_restore(owner, name, value)`` (or
``restore_pending(owner)``) assigns the saved values.  That call costs one dict test when nothing is pending.

Hook points for the rest of tensorlet (see docs/formats.md):

* ``maybe_restore(owner, name, value)`` -- after ``owner`` (a Module/Layer/optimizer) gained dependency
  ``name`` (e.g. from ``Module.__setattr__``, ``Layer.add_weight``);
* ``restore_pending(owner)`` -- after ``owner`` created a batch of variables (``Layer.build``,
  ``Optimizer.build``), including ones appended to lists.
"""

from __future__ import annotations

import os
import weakref

import numpy as np

from tensorlet._src.framework import errors as _errors
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.train import format as _format
from tensorlet._src.train import tf_bundle as _bundle
from tensorlet._src.train import trackable as _tr

_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}

# id(owner) -> [weakref to owner, [(restoration, node id, object to walk), ...]]
_PENDING: dict = {}
_in_pending = [False]


def _tf_type_name(name: str) -> str:
    return _TF_TYPE_NAMES.get(name, name)


# --- readers ------------------------------------------------------------------------------------------------------
def _open(prefix):
    """A reader for ``prefix``: TF's TensorBundle (what tensorlet writes), or tensorlet's earlier JSON index."""
    prefix = os.fspath(prefix)
    if os.path.isdir(prefix):
        sm = os.path.join(prefix, "variables", "variables")
        if _format.exists(sm):
            prefix = sm
        else:
            raise _errors.DataLossError(
                None, "RestoreV2", f"Unable to open table file {prefix}: FAILED_PRECONDITION: {prefix}; Is a "
                "directory: perhaps your file is in a different file format and you need to use a different "
                "restore operator?")
    if not _format.exists(prefix):
        raise _errors.NotFoundError(
            None, "RestoreV2", "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {prefix}")
    try:
        return _bundle.read_bundle(prefix)
    except (_format.CorruptCheckpoint, ValueError) as e:
        raise _errors.DataLossError(None, "RestoreV2", f"Unable to read checkpoint {prefix}: {e}") from None
    except OSError as e:
        raise _errors.DataLossError(None, "RestoreV2", f"Unable to open checkpoint {prefix}: {e}") from None


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        from tensorlet._src.train.checkpoint_manager import latest_checkpoint

        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


class CheckpointReader:
    """Reads a checkpoint's tensors by key (what ``tf.train.load_checkpoint`` returns)."""

    def __init__(self, prefix):
        self._reader = _open(prefix)

    def has_tensor(self, name) -> bool:
        return self._reader.has(name)

    def get_tensor(self, name):
        if not self._reader.has(name):
            raise _errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        try:
            arr = self._reader.get(name)
        except _format.CorruptCheckpoint as e:
            raise _errors.DataLossError(None, None, str(e)) from None
        return arr[()] if arr.ndim == 0 else arr

    def get_variable_to_shape_map(self) -> dict:
        return {k: list(self._reader.shape(k)) for k in self._reader.keys()}

    def get_variable_to_dtype_map(self) -> dict:
        from tensorlet._src.framework import dtypes as _dt

        return {k: _dt.as_dtype(self._reader.dtype(k)) for k in self._reader.keys()}

    def debug_string(self) -> bytes:
        return "".join(f"{k} ({self._reader.dtype(k)}) {list(self._reader.shape(k))}\n"
                       for k in sorted(self._reader.keys())).encode()


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A reader for a checkpoint prefix, or for the latest checkpoint of a directory.

    >>> reader = tf.train.load_checkpoint("/tmp/ckpts")  # doctest: +SKIP
    >>> reader.get_tensor("x/.ATTRIBUTES/VARIABLE_VALUE")  # doctest: +SKIP
    np.float32(2.0)
    """
    return CheckpointReader(_resolve(ckpt_dir_or_file))


@tf_export("train.list_variables")
def list_variables(ckpt_dir_or_file):
    """Sorted ``(key, shape)`` pairs of a checkpoint.

    >>> tf.train.list_variables("/tmp/ckpts")  # doctest: +SKIP
    [('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('x/.ATTRIBUTES/VARIABLE_VALUE', [])]
    """
    reader = load_checkpoint(ckpt_dir_or_file)
    return [(k, s) for k, s in sorted(reader.get_variable_to_shape_map().items())]


@tf_export("train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The value saved under ``name`` (a trailing ``:0`` is ignored), as NumPy."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


# --- options ------------------------------------------------------------------------------------------------------
@tf_export("train.CheckpointOptions")
class CheckpointOptions:
    """Options for ``save``/``write``/``restore`` (accepted for compatibility; saving is synchronous)."""

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint", "experimental_write_callbacks",
                 "enable_async", "experimental_skip_slot_variables", "experimental_sharding_callback")

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_skip_slot_variables=False,
                 experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async or experimental_enable_async_checkpoint
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


# --- restoring ----------------------------------------------------------------------------------------------------
class _Restoration:
    """One ``restore()`` call: the checkpoint's graph and which nodes got bound to which Python objects."""

    def __init__(self, reader, graph, save_path):
        self.reader = reader
        self.graph = graph
        self.save_path = save_path
        # node id -> id() of the Python object bound to it (ids only: a pending restoration must not keep the
        # objects alive; the pending registry holds weak references)
        self.matched = {}
        self.restored_keys = set()
        self._subtree_vals = {}
        self.expect_partial = False

    def unused_nodes(self) -> list:
        """Ids of the checkpoint's nodes holding values that no Python object received (yet)."""
        return [nid for nid, node in enumerate(self.graph.nodes) if node.attributes and (
            nid not in self.matched or any(a.checkpoint_key not in self.restored_keys for a in node.attributes))]

    def __del__(self):
        # as TF when its restore coordinator goes away: warn about values nothing used, unless expect_partial()
        try:
            if self.expect_partial:
                return
            unused = self.unused_nodes()
            if unused:
                from tensorlet._src.framework.context import get_logger

                log = get_logger()
                log.warning(_UNRESTORED_MSG)
                for nid in unused:
                    log.warning("Value in checkpoint could not be found in the restored object: %s",
                                _path_text(self, nid))
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def node_has_values(self, nid) -> bool:
        node = self.graph.nodes[nid]
        return bool(node.attributes) or (node.HasField("has_checkpoint_values") and node.has_checkpoint_values.value)

    def walk(self, nid, obj, owner=None):
        stack = [(nid, obj, owner)]
        seen = set()
        while stack:
            nid, o, own = stack.pop()
            if nid in seen:
                continue
            seen.add(nid)
            ident = id(o._checkpoint_pending_alias) if isinstance(o, _RootProxy) else id(o)
            prev = self.matched.get(nid)
            if prev is None:
                self.matched[nid] = ident
                self._restore_values(nid, o)
            elif prev != ident:
                if not _tr.is_container(o):
                    continue  # the node's values went to another object already
                self.matched[nid] = ident  # a list/dict replaced by a new one (e.g. rebuilt in build())
            node = self.graph.nodes[nid]
            if not node.children:
                continue
            if not _tr.is_container(o):
                own = (o, nid)
            kids = {}
            for name, child in _tr.children(o):
                kids.setdefault(name, child)
            missing = False
            for c in node.children:
                child = kids.get(c.local_name)
                if child is None:
                    missing = missing or self.node_has_values(c.node_id)
                else:
                    stack.append((c.node_id, child, own))
            if missing and own is not None:
                _register_pending(self, own)

    def _restore_values(self, nid, obj):
        attrs = self.graph.nodes[nid].attributes
        if not attrs:
            return
        values = {}
        for a in attrs:
            if not self.reader.has(a.checkpoint_key):
                raise _errors.NotFoundError(None, "RestoreV2", f"Key {a.checkpoint_key} not found in checkpoint")
            values[a.name] = a.checkpoint_key
        if _tr.is_variable(obj) and _tr.VARIABLE_VALUE in values:
            key = values[_tr.VARIABLE_VALUE]
            _assign(obj, key, self.reader.dtype(key), self._read(key))
            self.restored_keys.add(key)
        elif callable(getattr(obj, "_restore_from_tensors", None)):
            from tensorlet._src.framework.tensor import convert_to_tensor

            obj._restore_from_tensors({n: convert_to_tensor(self._read(k)) for n, k in values.items()})
            self.restored_keys.update(values.values())
        elif callable(getattr(obj, "_restore_state", None)) and _tr.ITERATOR_STATE in values:
            key = values[_tr.ITERATOR_STATE]
            obj._restore_state(_tr.decode_state(self._read(key)))
            self.restored_keys.add(key)

    def _read(self, key):
        try:
            return self.reader.get(key)
        except _format.CorruptCheckpoint as e:
            raise _errors.DataLossError(None, "RestoreV2", str(e)) from None

    def subtree(self, nid):
        out, stack = set(), [nid]
        while stack:
            n = stack.pop()
            if n in out:
                continue
            out.add(n)
            stack.extend(c.node_id for c in self.graph.nodes[n].children)
        return out

    def complete(self, nid) -> bool:
        """True when every node below ``nid`` that holds values was bound and restored."""
        for n in self.subtree(nid):
            node = self.graph.nodes[n]
            if node.attributes and (n not in self.matched or any(
                    a.checkpoint_key not in self.restored_keys for a in node.attributes)):
                return False
        return True


def _assign(var, key, saved_dtype, value):
    want = var.dtype.name
    if saved_dtype != want:
        raise _errors.InvalidArgumentError(
            None, "RestoreV2", f"tensor_name = {key}; expected dtype {_tf_type_name(want)} does not equal original "
            f"dtype {_tf_type_name(saved_dtype)} [Op:RestoreV2]")
    shape = var.shape
    if shape.rank is not None and not shape.is_compatible_with(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to restore "
                         f"variable with shape {shape} and name {var.name}.")
    var.assign(value)


def _weak(obj):
    try:
        return weakref.ref(obj)
    except TypeError:  # not weak-referenceable: held strongly (rare: hook objects with __slots__)
        return (lambda o: lambda: o)(obj)


def _install_setattr_hook():
    """Lets ``tf.Module.__setattr__`` report new attributes, where the core module offers the hook."""
    from tensorlet._src.framework import module as _module

    if hasattr(_module, "setattr_hook") and _module.setattr_hook is None:
        _module.setattr_hook = maybe_restore


def _register_pending(restoration, own):
    obj, nid = own
    alias = getattr(obj, "_checkpoint_pending_alias", None)  # Checkpoint(root): pending on the root object
    key_obj = alias if alias is not None else obj
    k = id(key_obj)
    entry = _PENDING.get(k)
    if entry is None:
        try:
            ref = weakref.ref(key_obj, lambda _r, k=k, pending=_PENDING: pending.pop(k, None))
        except TypeError:
            ref = (lambda o: lambda: o)(key_obj)
        entry = _PENDING[k] = [ref, []]
        _install_setattr_hook()
    for r, n, _ in entry[1]:
        if r is restoration and n == nid:
            return
    ref = _weak(obj)
    if alias is not None:  # walk the proxy while its Checkpoint lives, then the root object itself
        root_ref = _weak(alias)
        ref = (lambda a, b: lambda: a() or b())(ref, root_ref)
    entry[1].append((restoration, nid, ref))


def restore_pending(owner=None) -> None:
    """Restores saved values into dependencies ``owner`` gained since ``restore()`` (all owners if None)."""
    if not _PENDING or _in_pending[0]:
        return
    keys = list(_PENDING) if owner is None else [id(owner)]
    if owner is not None and keys[0] not in _PENDING:
        return
    from tensorlet._src.framework.context import init_scope

    _in_pending[0] = True
    scope = init_scope()  # values are assigned eagerly, also when the owner is built while a function is traced
    scope.__enter__()
    try:
        for k in keys:
            entry = _PENDING.get(k)
            if entry is None:
                continue
            if entry[0]() is None:
                _PENDING.pop(k, None)
                continue
            todo, entry[1] = entry[1], []
            still = []
            for restoration, nid, ref in todo:
                walk_obj = ref()
                if walk_obj is None:
                    continue
                restoration.walk(nid, walk_obj, (walk_obj, nid))
                if not restoration.complete(nid):
                    still.append((restoration, nid, ref))
            cur = _PENDING.get(k)
            if cur is not None:
                seen = {(id(r), n) for r, n, _ in cur[1]}
                cur[1].extend(t for t in still if (id(t[0]), t[1]) not in seen)
                if not cur[1]:
                    _PENDING.pop(k, None)
    finally:
        scope.__exit__(None, None, None)
        _in_pending[0] = False


def maybe_restore(owner, name=None, value=None) -> None:
    """Hook: ``owner`` gained dependency ``name`` (=``value``); assigns any value pending for it."""
    if _PENDING and id(owner) in _PENDING:
        restore_pending(owner)


# --- status objects -----------------------------------------------------------------------------------------------
_UNRESTORED_MSG = (
    "Detecting that an object or model or tf.train.Checkpoint is being deleted with unrestored values. See the "
    "following logs for the specific values in question. To silence these warnings, use `status.expect_partial()`. "
    "See https://www.tensorflow.org/api_docs/python/tf/train/Checkpoint#restorefor details about the status object "
    "returned by the restore function.")


def _path_text(restoration, nid):
    # breadth-first path of a node in the checkpoint's graph, TF's "(root).a.b" spelling
    parents = {0: None}
    order = [0]
    for n in order:
        for c in restoration.graph.nodes[n].children:
            if c.node_id not in parents:
                parents[c.node_id] = (n, c.local_name)
                order.append(c.node_id)
    names = []
    while parents.get(nid):
        nid, name = parents[nid]
        names.append(name)
    return ".".join(["(root)"] + names[::-1])


def _proto_text(node) -> str:
    from google.protobuf import text_format

    return text_format.MessageToString(node)


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: assertions about how the checkpoint matched the objects."""

    def __init__(self, restoration, checkpoint):
        self._restoration = restoration
        self._checkpoint = checkpoint

    def _python_leaves(self):
        graph = _tr.ObjectGraph(self._checkpoint._graph_root())
        return [o for o in graph.nodes if _tr.has_values(o)]

    def assert_consumed(self):
        """Raises AssertionError unless every checkpointed value and every Python object were matched."""
        restore_pending()
        r = self._restoration
        matched_ids = set(r.matched.values())
        for nid, node in enumerate(r.graph.nodes):
            if not node.attributes:
                continue
            if nid not in r.matched:
                raise AssertionError(f"Unresolved object in checkpoint {_path_text(r, nid)}: {_proto_text(node)}")
            if any(a.checkpoint_key not in r.restored_keys for a in node.attributes):
                raise AssertionError(f"Object {_proto_text(node)} not assigned a value from checkpoint.")
        self._check_unused(matched_ids)
        return self

    def _check_unused(self, matched_ids):
        unused = [o for o in self._python_leaves() if id(o) not in matched_ids]
        if unused:
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {min(len(unused), 10)} of {len(unused)} unmatched "
                f"objects: {unused[:10]}")

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a Python object that exists now got no value from the checkpoint."""
        restore_pending()
        r = self._restoration
        for nid in r.matched:
            node = r.graph.nodes[nid]
            if node.attributes and any(a.checkpoint_key not in r.restored_keys for a in node.attributes):
                raise AssertionError(f"Object {_proto_text(node)} not assigned a value from checkpoint.")
        self._check_unused(set(r.matched.values()))
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if nothing but the root object matched."""
        restore_pending()
        r = self._restoration
        if len(r.matched) <= 1:
            matched_ids = set(r.matched.values())
            unused = [o for o in _tr.ObjectGraph(self._checkpoint._graph_root()).nodes if id(o) not in matched_ids]
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this means that the "
                f"checkpoint does not match the Python program. The following objects have no matching checkpointed "
                f"value: {unused}")
        return self

    def expect_partial(self):
        """Silences the warning about checkpointed values nothing used (logged when the restore is finished with,
        as in TF); returns self."""
        self._restoration.expect_partial = True
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run in eager mode (values were assigned by ``restore``)."""

    def initialize_or_restore(self, session=None):
        """Nothing to run in eager mode."""


class InitializationOnlyStatus:
    """``restore(None)``: nothing restored; the assertions fail, as in TF."""

    _MSG = "No checkpoint specified (save_path=None); nothing is being restored."

    def assert_consumed(self):
        raise AssertionError(self._MSG)

    def assert_existing_objects_matched(self):
        raise AssertionError(self._MSG)

    def assert_nontrivial_match(self):
        raise AssertionError(self._MSG)

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        raise AssertionError(self._MSG)

    def initialize_or_restore(self, session=None):
        """Variables are initialized when created in eager mode."""


# --- the Checkpoint -----------------------------------------------------------------------------------------------
def _not_trackable(what, value):
    return ValueError(f"`Checkpoint` was expecting {what} to be a trackable object (an object derived from "
                      f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is part "
                      "of the TensorFlow Python API and manages state), please open an issue.")


class _RootProxy:
    """Node 0 when ``Checkpoint(root, **kwargs)``: the root's dependencies plus the attached ones."""

    def __init__(self, checkpoint):
        self._ckpt = weakref.ref(checkpoint)
        self._checkpoint_pending_alias = checkpoint._root

    def _checkpoint_dependencies(self):
        ck = self._ckpt()
        return _tr.children(ck._root) + ck._attached()


@tf_export("train.Checkpoint")
class Checkpoint:
    """Saves and restores the variables reachable from the objects given as keyword arguments.

    >>> x = tf.Variable(10.0)
    >>> ckpt = tf.train.Checkpoint(x=x)
    >>> path = ckpt.save("/tmp/doc_ckpt/ckpt")  # doctest: +SKIP
    >>> x.assign(11.0)  # doctest: +SKIP
    >>> ckpt.restore(tf.train.latest_checkpoint("/tmp/doc_ckpt"))  # doctest: +SKIP
    >>> float(x)  # doctest: +SKIP
    10.0
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_deps", {})
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_save_counter", None)
        if root is not None and not _tr.is_trackable(root):
            raise _not_trackable("root", root)
        object.__setattr__(self, "_proxy", _RootProxy(self) if root is not None else None)
        if root is not None:  # TF attaches the root to itself as dependency "root" (sorted with the others)
            kwargs["root"] = root
        for k, v in sorted(kwargs.items(), key=lambda kv: kv[0]):
            if not _tr.is_trackable(v):
                raise _not_trackable(k, v)
            setattr(self, k, v)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if not name.startswith("_"):
            if _tr.is_trackable(value):
                self._deps[name] = value
            else:
                self._deps.pop(name, None)
            if _PENDING:
                maybe_restore(self._root if self._root is not None else self, name, value)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        self._deps.pop(name, None)

    def _attached(self):
        deps = list(self._deps.items())
        if self._save_counter is not None:
            deps.append(("save_counter", self._save_counter))
        return deps

    def _checkpoint_dependencies(self):
        return self._attached()

    def _graph_root(self):
        return self._proxy if self._proxy is not None else self

    @property
    def save_counter(self):
        """An int64 variable counting ``save()`` calls (numbers the checkpoint files)."""
        self._maybe_create_save_counter()
        return self._save_counter

    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            from tensorlet._src.framework import dtypes as _dt
            from tensorlet._src.framework.context import init_scope
            from tensorlet._src.framework.variables import Variable

            with init_scope():
                counter = Variable(0, dtype=_dt.int64, trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)

    def write(self, file_prefix, options=None):
        """Writes a checkpoint at ``file_prefix`` (no counter, no ``checkpoint`` state file); returns the path."""
        file_prefix = os.fspath(file_prefix)
        graph = _tr.ObjectGraph(self._graph_root())
        tensors, proto = graph.serialize()
        tensors[_format.OBJECT_GRAPH_KEY] = np.array(proto.SerializeToString(), dtype=object)
        _bundle.write_bundle(file_prefix, tensors)
        return file_prefix

    def save(self, file_prefix, options=None):
        """Writes ``{file_prefix}-{save_counter}`` and records it in the directory's ``checkpoint`` file."""
        from tensorlet._src.train.checkpoint_manager import update_checkpoint_state

        file_prefix = os.fspath(file_prefix)
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{file_prefix}-{int(counter.numpy())}", options=options)
        update_checkpoint_state(os.path.dirname(path), path, [path])
        return path

    def read(self, save_path, options=None):
        """Restores from ``save_path`` (a prefix written by ``write``); unlike ``restore`` it does not create
        ``save_counter``.  Returns a load status."""
        return self._restore(save_path, create_counter=False)

    def restore(self, save_path, options=None):
        """Restores the values saved at ``save_path``; values for objects created later are restored then.

        Returns a status with ``assert_consumed()``, ``assert_existing_objects_matched()``,
        ``assert_nontrivial_match()`` and ``expect_partial()``.
        """
        return self._restore(save_path, create_counter=True)

    def _restore(self, save_path, create_counter):
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        try:
            reader = _open(save_path)
        except _errors.NotFoundError as e:
            raise _errors.NotFoundError(
                None, "RestoreV2", f"Error when restoring from checkpoint or SavedModel at {save_path}: {e.message}"
                "\nPlease double-check that the path is correct. You may be missing the checkpoint suffix (e.g. the "
                "'-1' in 'path/to/ckpt-1').") from None
        if not reader.has(_format.OBJECT_GRAPH_KEY):
            raise ValueError(f"The checkpoint at {save_path} has no object graph (a name-based TF1 checkpoint); "
                             "tensorlet restores object-based checkpoints only.")
        try:
            graph = _tr.parse_object_graph(reader.get(_format.OBJECT_GRAPH_KEY)[()])
        except Exception as e:  # protobuf's DecodeError or a bad node id
            raise _errors.DataLossError(None, "RestoreV2", f"Unable to read the object graph of {save_path}: "
                                                            f"{e}") from None
        if create_counter:
            self._maybe_create_save_counter()
        restoration = _Restoration(reader, graph, save_path)
        root = self._graph_root()
        from tensorlet._src.framework.context import init_scope

        with init_scope():
            restoration.walk(0, root, (root, 0))
        return CheckpointLoadStatus(restoration, self)
