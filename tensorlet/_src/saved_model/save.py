"""``tf.saved_model.save``: walks the object graph (objects, variables, tf.functions, assets) and writes a
SavedModel in TensorFlow's format (``tf_save`` / ``tf_export``; docs/formats.md, "SavedModel").

Everything is written to a temporary directory first; ``saved_model.pb`` is moved into place last.
"""

from __future__ import annotations

import os
import secrets
import shutil

from tensorlet._src.framework.context import ctx
from tensorlet._src.graph.concrete import ConcreteFunction
from tensorlet._src.graph.function import Function
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model.asset import Asset
from tensorlet._src.saved_model.codec import Unsupported
from tensorlet._src.train import trackable as _tr

TAGS = ["serve"]


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
            if isinstance(v, Function) and k not in names and (k == "__call__" or not k.startswith("__")) \
                    and k not in ignored:
                names.add(k)
                out.append((k, getattr(obj, k)))
    return out


class SignatureMap:
    """The root's ``signatures`` child (TF's ``signature_map`` object): one child per signature, in the order given."""

    def __init__(self, specs):
        self.specs = specs


class SignatureNode:
    """One signature in the map: written as a bare concrete function (its wrapper)."""

    def __init__(self, spec):
        self.spec = spec


def children_of(obj, keras_functions=None) -> list:
    """An object's children as TF lists them: its dependencies, then its tf.functions; a tf.function's children
    are its concrete functions (``trace_<k>``); a built Keras model also has ``_default_save_signature``
    (``keras_functions``: the builder's cache of those, one per model and save)."""
    if isinstance(obj, (Asset, ConcreteFunction, SignatureNode)):
        return []
    if isinstance(obj, SignatureMap):
        return [(name, SignatureNode(spec)) for name, spec in obj.specs.items()]
    if _is_function(obj):
        return [(f"trace_{k}", cf) for k, cf in enumerate(_concretes(obj))]
    own = getattr(obj, "_saved_model_children", None)  # an object listing its children itself, empty lists too
    kids = list(own()) if callable(own) and not isinstance(obj, type) else list(_tr.children(obj))
    seen = {n for n, _ in kids}
    if keras_functions is not None:
        from tensorlet._src.saved_model import keras_export

        fn = keras_export.default_save_function(obj, keras_functions)
        if fn is not None and "_default_save_signature" not in seen:
            kids.append(("_default_save_signature", fn))
            seen.add("_default_save_signature")
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


class _Builder:
    def __init__(self, root):
        self.root = root
        self.objects, self._obj_ids, self._keep = [], {}, []
        self.variables, self._var_ids = [], {}
        self.assets, self._asset_ids, self._asset_names = [], {}, set()
        self.keras_functions = {}  # id(model) -> (model, its _default_save_signature tf.function)
        self._trace_of = {}  # id(concrete function) -> the tf.function it is a trace_<k> child of

    # --- tables --------------------------------------------------------------------------------------------
    def variable_index(self, v) -> int:
        i = self._var_ids.get(id(v))
        if i is None:
            i = self._var_ids[id(v)] = len(self.variables)
            self.variables.append(v)
            self._keep.append(v)
        return i

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

    # --- the object graph --------------------------------------------------------------------------------------
    def walk(self, signatures=None):
        """Breadth-first from the root, as TF numbers objects; ``signatures`` ({key: SignatureSpec}) become the
        root's last child, ``signatures``."""
        sig_map = SignatureMap(signatures or {})
        queue = [self.root]
        self._obj_ids[id(self.root)] = 0
        self.objects.append(None)
        i = 0
        while i < len(queue):
            obj = queue[i]
            entry = self._describe(obj)
            kids = []
            listed = children_of(obj, self.keras_functions)
            if i == 0:
                listed = [(n, c) for n, c in listed if n != "signatures"] + [("signatures", sig_map)]
            for name, child in listed:
                if _is_function(obj):
                    self._trace_of.setdefault(id(child), obj)
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
                    "concrete_functions": [], "params": None, "children": []}
        if isinstance(obj, ConcreteFunction):
            return {"kind": "concrete_function", "function": None, "of": self._trace_of.get(id(obj))}
        if isinstance(obj, Asset):
            return {"kind": "asset", "asset": self.asset_index(obj)}
        if isinstance(obj, SignatureMap):
            return {"kind": "signature_map", "children": []}
        if isinstance(obj, SignatureNode):
            return {"kind": "signature", "spec": obj.spec}
        if isinstance(obj, (list, tuple, dict)):
            return {"kind": type(obj).__name__ if type(obj) in (list, tuple, dict) else
                    ("dict" if isinstance(obj, dict) else "list"), "children": []}
        return {"kind": "user_object", "class": type(obj).__name__, "children": []}

def _place(tmp, export_dir, final, stale=()):
    """Moves the finished ``tmp`` directory to ``export_dir``; the file ``final`` arrives last, and parts an
    older save had that this one lacks (``stale``) are removed."""
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
            if name == final:
                continue
            dst = os.path.join(export_dir, name)
            if os.path.lexists(dst):
                os.rename(dst, os.path.join(trash, name))
            os.rename(os.path.join(tmp, name), dst)
        for part in stale:
            dst = os.path.join(export_dir, part)
            if os.path.lexists(dst) and not os.path.exists(os.path.join(tmp, part)):
                os.rename(dst, os.path.join(trash, part))
        os.replace(os.path.join(tmp, final), os.path.join(export_dir, final))
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
    from tensorlet._src.saved_model import tf_save

    try:
        tf_save.write(obj, export_dir, signatures)
    except Unsupported as e:
        raise ValueError(f"tf.saved_model.save: {e}") from None
