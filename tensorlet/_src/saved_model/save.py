"""``tf.saved_model.save``: the object graph, every traced concrete function, signatures, variables, assets.

The directory layout (format ``tensorlet-saved-model``, version 1) is described in docs/formats.md::

    saved_model.json                          objects, functions (graph IR as JSON), signatures, variables
    variables/variables.index                 a tensorlet checkpoint of the variables (object-graph keys)
    variables/variables.data-00000-of-00001
    constants/constants.index (+ .data-...)   constants over 1 KiB used by the graphs (when there are any)
    assets/                                   copies of the files of tf.saved_model.Asset objects

Everything is written to a temporary directory first; ``saved_model.json`` is moved into place last.
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import shutil
import zlib

import numpy as np

from tensorlet._src.framework.context import ctx
from tensorlet._src.graph.concrete import ConcreteFunction, _Leaf
from tensorlet._src.graph.function import Function, _SpecLike
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model import signatures as _sigs
from tensorlet._src.saved_model.asset import Asset
from tensorlet._src.saved_model.codec import Encoder, Unsupported, dtype_name, shape_to_json
from tensorlet._src.saved_model.graph_io import GraphWriter
from tensorlet._src.train import format as _format
from tensorlet._src.train import trackable as _tr

FORMAT = "tensorlet-saved-model"
VERSION = 1
JSON_NAME = "saved_model.json"
TAGS = ["serve"]

_PARAM_KINDS = {inspect.Parameter.POSITIONAL_ONLY: "positional_only",
                inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
                inspect.Parameter.VAR_POSITIONAL: "var_positional",
                inspect.Parameter.KEYWORD_ONLY: "keyword_only",
                inspect.Parameter.VAR_KEYWORD: "var_keyword"}


def _is_function(x) -> bool:
    from tensorlet._src.saved_model.load import RestoredFunction

    return isinstance(x, (Function, RestoredFunction))


def _function_children(obj) -> list:
    """tf.functions, concrete functions and assets held by ``obj`` (instance attributes, then class methods)."""
    if isinstance(obj, (list, tuple, dict)) or not hasattr(obj, "__dict__"):
        return []
    ignored = _tr._ignored(obj)
    out, names = [], set()
    for k, v in vars(obj).items():
        if k.startswith("__") or k in ignored:
            continue
        if _is_function(v) or isinstance(v, (ConcreteFunction, Asset)):
            out.append((k, v))
            names.add(k)
    for cls in type(obj).__mro__:
        for k, v in sorted(vars(cls).items()):
            if isinstance(v, Function) and k not in names and not k.startswith("__") and k not in ignored:
                names.add(k)
                out.append((k, getattr(obj, k)))
    return out


def children_of(obj) -> list:
    if isinstance(obj, (Asset, ConcreteFunction)) or _is_function(obj):
        return []
    kids = list(_tr.children(obj))
    seen = {n for n, _ in kids}
    kids += [(n, c) for n, c in _function_children(obj) if n not in seen]
    return kids


def _concretes(fn) -> list:
    from tensorlet._src.saved_model.load import RestoredFunction

    if isinstance(fn, RestoredFunction):
        return list(fn.concrete_functions)
    out, seen = [], set()
    for cf in list(fn._cache.values()):
        if id(cf) not in seen:
            seen.add(id(cf))
            out.append(cf)
    if not out and fn.input_signature is not None:
        out.append(fn.get_concrete_function())
    return out


def _params(fn):
    """The Python parameters of a tf.function: [[name, kind, default-or-absent], ...] (None if unknown)."""
    from tensorlet._src.saved_model.load import RestoredFunction

    if isinstance(fn, RestoredFunction):
        return fn._params_json
    sig = fn._signature
    if sig is None:
        return None
    out = []
    for p in sig.parameters.values():
        entry = [p.name, _PARAM_KINDS[p.kind]]
        if p.default is not inspect.Parameter.empty:
            try:
                entry.append(Encoder(where=f"default of argument {p.name}").encode(p.default))
            except Unsupported:
                entry.append({"t": "unsaved_default", "v": None})
        out.append(entry)
    return out


class _Builder:
    def __init__(self, root):
        self.root = root
        self.objects, self._obj_ids, self._keep = [], {}, []
        self.variables, self._var_ids = [], {}
        self.functions, self._fn_ids = [], {}
        self.assets, self._asset_ids, self._asset_names = [], {}, set()
        self.constants = {}
        self.writer = None

    # --- tables --------------------------------------------------------------------------------------------
    def variable_index(self, v) -> int:
        i = self._var_ids.get(id(v))
        if i is None:
            i = self._var_ids[id(v)] = len(self.variables)
            self.variables.append(v)
            self._keep.append(v)
        return i

    def external(self, arr) -> str:
        key = f"c{len(self.constants)}"
        self.constants[key] = np.asarray(arr)
        return key

    def asset_index(self, asset) -> int:
        i = self._asset_ids.get(id(asset))
        if i is None:
            base = os.path.basename(os.path.normpath(asset._path)) or "asset"
            name, n = base, 1
            while name in self._asset_names:
                name, n = f"{base}_{n}", n + 1
            self._asset_names.add(name)
            i = self._asset_ids[id(asset)] = len(self.assets)
            self.assets.append((asset, name))
        return i

    def function_index(self, cf) -> int:
        i = self._fn_ids.get(id(cf))
        if i is None:
            i = self._fn_ids[id(cf)] = len(self.functions)
            self._keep.append(cf)
            self.functions.append(None)
            self.functions[i] = self._write_concrete(cf)
        return i

    # --- the object graph --------------------------------------------------------------------------------------
    def walk(self):
        queue = [self.root]
        self._obj_ids[id(self.root)] = 0
        self.objects.append(None)
        i = 0
        while i < len(queue):
            obj = queue[i]
            entry = self._describe(obj)
            kids = []
            for name, child in children_of(obj):
                j = self._obj_ids.get(id(child))
                if j is None:
                    j = self._obj_ids[id(child)] = len(queue)
                    queue.append(child)
                    self._keep.append(child)
                    self.objects.append(None)
                kids.append([name, j])
            if "children" in entry:
                entry["children"] = kids
            self.objects[i] = entry
            i += 1
        self._queue = queue

    def _describe(self, obj) -> dict:
        if _tr.is_variable(obj):
            return {"kind": "variable", "variable": self.variable_index(obj)}
        if _is_function(obj):
            return {"kind": "function", "name": getattr(obj, "_name", getattr(obj, "__name__", "function")),
                    "concrete_functions": [], "params": None}
        if isinstance(obj, ConcreteFunction):
            return {"kind": "concrete_function", "function": None}
        if isinstance(obj, Asset):
            return {"kind": "asset", "asset": self.asset_index(obj)}
        if isinstance(obj, (list, tuple, dict)):
            return {"kind": type(obj).__name__ if type(obj) in (list, tuple, dict) else
                    ("dict" if isinstance(obj, dict) else "list"), "children": []}
        return {"kind": "user_object", "class": type(obj).__name__, "children": []}

    def write_functions(self):
        asset_paths = {}
        for i, (asset, _) in enumerate(self.assets):
            asset_paths[asset._path.encode()] = i
        self.writer = GraphWriter(self.variable_index, self.external, asset_paths)
        for obj, entry in zip(self._queue, self.objects):
            if entry["kind"] == "function":
                try:
                    cfs = _concretes(obj)
                except Exception as e:
                    raise ValueError(f"tf.saved_model.save could not trace tf.function {entry['name']!r}: {e}") from e
                entry["concrete_functions"] = [self.function_index(cf) for cf in cfs]
                entry["params"] = _params(obj)
                sig = getattr(obj, "input_signature", None)
                if sig is not None:
                    entry["input_signature"] = self._encoder(None, "input_signature").encode(tuple(sig))
            elif entry["kind"] == "concrete_function":
                entry["function"] = self.function_index(obj)

    def _encoder(self, graph, where):
        inputs = {id(t): i for i, t in enumerate(graph.inputs)} if graph is not None else {}

        def extra(x):
            if isinstance(x, GraphTensor):
                i = inputs.get(id(x))
                if i is None:
                    raise Unsupported(f"{where}: a tensor that is not an input of the function")
                return {"t": "input", "v": i}
            if isinstance(x, _Leaf):
                return {"t": "output", "v": x.i}
            if isinstance(x, _SpecLike):
                return {"t": "spec", "v": [shape_to_json(x.shape), dtype_name(x.dtype), getattr(x, "name", None)]}
            return None

        return Encoder(where=where, extra=extra)

    def _write_concrete(self, cf) -> dict:
        where = f"concrete function {cf.name!r}"
        gi = self.writer.add(cf.graph)
        entry = {"name": cf.name, "graph": gi,
                 "inputs": self._encoder(cf.graph, f"{where} inputs").encode(cf._structured_inputs),
                 "outputs": self._encoder(cf.graph, f"{where} outputs").encode(cf._out_template)}
        if cf._jit is not None:
            entry["jit_compile"] = bool(cf._jit)
        return entry

    # --- writing ----------------------------------------------------------------------------------------------
    def checkpoint_tensors(self):
        """{checkpoint key: array} for the variables (object-graph keys, as tf.train.Checkpoint writes them)."""
        graph = _tr.ObjectGraph(self.root)
        tensors, proto = graph.serialize()
        keys = {}
        for i, obj in enumerate(graph.nodes):
            if _tr.is_variable(obj):
                keys[id(obj)] = graph.key(i, _tr.VARIABLE_VALUE)
        entries = []
        for i, v in enumerate(self.variables):
            key = keys.get(id(v))
            if key is None:
                key = f"_saved_model_captured/{i}/.ATTRIBUTES/{_tr.VARIABLE_VALUE}"
                tensors[key] = np.asarray(v.numpy())
            path = getattr(v, "path", None)  # Keras variables: "dense/kernel", TF's name for them
            name = path if isinstance(path, str) and path else v.name
            entries.append({"name": name, "dtype": v.dtype.name, "shape": shape_to_json(v.shape),
                            "trainable": bool(v.trainable), "key": key})
        tensors[_format.OBJECT_GRAPH_KEY] = np.array(proto.SerializeToString(), dtype=object)
        return tensors, entries


def _write_json(path, doc):
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode()
    with open(path, "wb") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _place(tmp, export_dir):
    """Moves the finished ``tmp`` directory to ``export_dir``; ``saved_model.json`` arrives last."""
    if not os.path.exists(export_dir):
        os.makedirs(os.path.dirname(os.path.abspath(export_dir)), exist_ok=True)
        os.rename(tmp, export_dir)
        return
    if not os.path.isdir(export_dir):
        raise FileExistsError(f"tf.saved_model.save: {export_dir} exists and is not a directory")
    trash = os.path.join(export_dir, f".old-{secrets.token_hex(4)}")
    os.makedirs(trash)
    try:
        for name in os.listdir(tmp):
            if name == JSON_NAME:
                continue
            dst = os.path.join(export_dir, name)
            if os.path.lexists(dst):
                os.rename(dst, os.path.join(trash, name))
            os.rename(os.path.join(tmp, name), dst)
        for stale in ("constants",):  # parts an older save had and this one does not
            dst = os.path.join(export_dir, stale)
            if os.path.lexists(dst) and not os.path.exists(os.path.join(tmp, stale)):
                os.rename(dst, os.path.join(trash, stale))
        os.replace(os.path.join(tmp, JSON_NAME), os.path.join(export_dir, JSON_NAME))
    finally:
        shutil.rmtree(trash, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


@tf_export("saved_model.save")
def save(obj, export_dir, signatures=None, options=None):
    """Saves ``obj`` (a ``tf.Module``, Keras model, ...): its tf.functions (every traced signature), variables
    and assets, in tensorlet's SavedModel directory layout (docs/formats.md).

    >>> class Adder(tf.Module):
    ...     @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    ...     def add(self, x):
    ...         return x + 1.0
    >>> tf.saved_model.save(Adder(), "/tmp/adder")  # doctest: +SKIP
    >>> tf.saved_model.load("/tmp/adder").signatures["serving_default"](x=tf.constant([1.0]))  # doctest: +SKIP
    {'output_0': <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.], dtype=float32)>}
    """
    if ctx.interp is not None:
        raise AssertionError("tf.saved_model.save is not supported inside a traced @tf.function. Move the call to "
                             "the outer eagerly-executed context.")
    export_dir = os.fspath(export_dir)
    if not _tr.is_trackable(obj) and not _function_children(obj):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj} with type {type(obj)}.")
    b = _Builder(obj)
    b.walk()
    sig_specs = _sigs.resolve(obj, signatures, b)
    b.write_functions()
    signature_table = {name: s.to_json(b) for name, s in sig_specs.items()}
    tensors, var_entries = b.checkpoint_tensors()

    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    inside = os.path.isdir(export_dir)
    tmp = os.path.join(export_dir if inside else parent,
                       f".tmp-{os.path.basename(os.path.abspath(export_dir))}-{secrets.token_hex(4)}")
    try:
        os.makedirs(os.path.join(tmp, "assets"))
        _format.write(os.path.join(tmp, "variables", "variables"), tensors)
        if b.constants:
            _format.write(os.path.join(tmp, "constants", "constants"), b.constants)
        assets = []
        for asset, name in b.assets:
            src = asset._path
            dst = os.path.join(tmp, "assets", name)
            if os.path.isdir(src):
                shutil.copytree(src, dst)
            else:
                shutil.copyfile(src, dst)
            assets.append({"filename": name})
        with open(os.path.join(tmp, "variables", "variables" + _format.INDEX_SUFFIX), "rb") as f:
            index_crc = zlib.crc32(f.read())
        in_graph = {id(o) for o in b._queue}
        doc = {"format": FORMAT, "version": VERSION, "tags": TAGS,
               "variables_index_crc32": index_crc, "objects": b.objects, "variables": var_entries,
               "captured_variables": [i for i, v in enumerate(b.variables) if id(v) not in in_graph],
               "functions": b.functions, "graphs": b.writer.graphs, "signatures": signature_table,
               "assets": assets}
        _write_json(os.path.join(tmp, JSON_NAME), doc)
        _place(tmp, export_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _format._fsync_dir(os.path.join(export_dir, JSON_NAME))
