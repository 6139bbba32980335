"""The object graph a checkpoint saves: which objects are reachable from the root, under which names.

Names are the ones TensorFlow uses, so checkpoint keys read the same as TF's
(``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``):

* a ``tf.Module`` (Keras layers and models subclass it), or any object whose class has a ``variables``
  property (Keras optimizers): its attributes, in assignment order, whose values are trackable (attributes
  named in the class's ``_TF_MODULE_IGNORED_PROPERTIES`` or ``_KERAS_NOT_TRACKED`` are skipped);
* a list or tuple: its elements named ``"0"``, ``"1"``, ...; a dict: its values named by their keys;
* any object with a ``_checkpoint_dependencies()`` method: the ``(name, object)`` pairs it returns (a dict or
  a sequence of pairs).  This hook replaces the attribute walk, so a class can choose TF's names for itself.

Leaves hold values ("attributes" in TF's object graph):

* a variable: ``VARIABLE_VALUE``;
* an object with ``_serialize_to_tensors()`` -> ``{attribute: tensor}`` and
  ``_restore_from_tensors({attribute: tensor})`` (TF's Trackable protocol);
* an object with ``_save_state()`` / ``_restore_state(state)`` (tf.data iterators): ``ITERATOR_STATE``.
  The state may be an array/tensor/bytes (stored as is) or JSON-like Python data with arrays inside
  (stored as a JSON string; arrays are embedded as base64).

Each object gets the key of the first path that reaches it breadth-first, as in TF.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from tensorlet._src.framework.module import Module
from tensorlet._src.framework.variables import Variable

VARIABLE_VALUE = "VARIABLE_VALUE"
ITERATOR_STATE = "ITERATOR_STATE"
_STATE_MAGIC = b"tensorlet-state-json:"


def escape_local_name(name: str) -> str:
    """TF's escaping of one path element inside a checkpoint key (``.`` -> ``..``, ``/`` -> ``.S``)."""
    return name.replace(".", "..").replace("/", ".S")


def is_variable(obj) -> bool:
    if isinstance(obj, Variable):
        return True
    return (not isinstance(obj, (Module, type)) and hasattr(obj, "assign") and hasattr(obj, "dtype")
            and hasattr(obj, "shape") and hasattr(obj, "numpy"))


def _has_hook(obj, name) -> bool:
    return not isinstance(obj, type) and callable(getattr(obj, name, None))


def _walks_attributes(obj) -> bool:
    """Modules, and other stateful objects whose class has a ``variables`` property (Keras optimizers)."""
    if isinstance(obj, Module):
        return True
    return hasattr(obj, "__dict__") and isinstance(getattr(type(obj), "variables", None), property)


def _ignored(obj) -> frozenset:
    cls = type(obj)
    return frozenset(getattr(cls, "_TF_MODULE_IGNORED_PROPERTIES", ())) | frozenset(
        getattr(cls, "_KERAS_NOT_TRACKED", ()))


def is_trackable(obj) -> bool:
    """True for objects a checkpoint can hold: variables, modules, hook objects and containers of them."""
    if isinstance(obj, (list, tuple, dict)):
        values = obj.values() if isinstance(obj, dict) else obj
        return any(is_trackable(v) for v in values)
    return (_walks_attributes(obj) or is_variable(obj) or _has_hook(obj, "_checkpoint_dependencies")
            or _has_hook(obj, "_serialize_to_tensors") or _has_hook(obj, "_save_state"))


def is_container(obj) -> bool:
    return isinstance(obj, (list, tuple, dict))


def children(obj) -> list:
    """The ``(name, child)`` dependencies of one object, in TF's order."""
    if _has_hook(obj, "_checkpoint_dependencies"):
        deps = obj._checkpoint_dependencies()
        items = deps.items() if isinstance(deps, dict) else deps
        return [(str(n), c) for n, c in items if is_trackable(c)]
    if _walks_attributes(obj):
        ignored = _ignored(obj)
        return [(k, v) for k, v in vars(obj).items()
                if k not in ignored and not k.startswith("__") and is_trackable(v)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if is_trackable(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if is_trackable(v)]
    return []


def has_values(obj) -> bool:
    return (is_variable(obj) or _has_hook(obj, "_serialize_to_tensors") or _has_hook(obj, "_save_state"))


def full_name(obj) -> str:
    """The variable's name as TF records it in the object graph (a Keras variable's ``path``)."""
    if not is_variable(obj):
        return ""
    path = getattr(obj, "path", None)  # Keras 3 variables: "sequential/dense/kernel", "adam/iteration"
    if isinstance(path, str) and path:
        return path
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        return name[:-2] if name.endswith(":0") else name
    return ""


def values_of(obj) -> dict:
    """``{attribute: ndarray}`` a leaf saves."""
    if is_variable(obj):
        stored = getattr(obj, "_v", None) if type(obj) is Variable else None
        if isinstance(stored, np.ndarray):  # the stored array itself, not a copy (assignments replace it)
            return {VARIABLE_VALUE: stored}
        return {VARIABLE_VALUE: np.asarray(obj.numpy())}
    if _has_hook(obj, "_serialize_to_tensors"):
        return {str(k): np.asarray(_numpy(v)) for k, v in obj._serialize_to_tensors().items()}
    if _has_hook(obj, "_save_state"):
        return {ITERATOR_STATE: encode_state(obj._save_state())}
    return {}


def _numpy(v):
    if hasattr(v, "numpy"):
        return v.numpy()
    return v


# --- iterator states ------------------------------------------------------------------------------------------------
def _to_json(v):
    if isinstance(v, dict):
        return {"__dict__": [[_to_json(k), _to_json(x)] for k, x in v.items()]}
    if isinstance(v, tuple):
        return {"__tuple__": [_to_json(x) for x in v]}
    if isinstance(v, list):
        return [_to_json(x) for x in v]
    if isinstance(v, bytes):
        return {"__bytes__": base64.b64encode(v).decode()}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, np.generic) and v.dtype.kind in "biuf":
        v = np.asarray(v)
    arr = np.asarray(_numpy(v))
    if arr.dtype.kind in "OSU":
        return {"__strings__": [_to_json(x.encode() if isinstance(x, str) else bytes(x)) for x in arr.reshape(-1)],
                "shape": list(arr.shape)}
    from tensorlet._src.framework import dtypes as _dt

    name = _dt.from_numpy(arr.dtype).name
    le = np.ascontiguousarray(arr, dtype=np.dtype(_dt.as_dtype(name).as_numpy_dtype).newbyteorder("<"))
    return {"__ndarray__": base64.b64encode(le.reshape(-1).view(np.uint8).tobytes()).decode(),
            "dtype": name, "shape": list(arr.shape)}


def _from_json(v):
    if isinstance(v, list):
        return [_from_json(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "__dict__" in v:
        return {_from_json(k): _from_json(x) for k, x in v["__dict__"]}
    if "__tuple__" in v:
        return tuple(_from_json(x) for x in v["__tuple__"])
    if "__bytes__" in v:
        return base64.b64decode(v["__bytes__"])
    if "__strings__" in v:
        out = np.empty(len(v["__strings__"]), dtype=object)
        out[:] = [_from_json(x) for x in v["__strings__"]]
        return out.reshape(v["shape"])
    if "__ndarray__" in v:
        from tensorlet._src.framework import dtypes as _dt

        dt = np.dtype(_dt.as_dtype(v["dtype"]).as_numpy_dtype).newbyteorder("<")
        raw = base64.b64decode(v["__ndarray__"])
        return np.frombuffer(raw, dtype=np.uint8).view(dt).reshape(v["shape"]).astype(dt.newbyteorder("="))
    raise ValueError(f"bad saved iterator state element {v!r}")


def encode_state(state) -> np.ndarray:
    """An iterator's ``_save_state()`` result as one tensor (arrays as they are, anything else as JSON)."""
    if isinstance(state, (bytes, np.ndarray)) or hasattr(state, "numpy"):
        return np.asarray(_numpy(state)) if not isinstance(state, bytes) else np.array(state, dtype=object)
    text = json.dumps(_to_json(state), separators=(",", ":")).encode()
    return np.array(_STATE_MAGIC + text, dtype=object)


def decode_state(arr: np.ndarray):
    if arr.dtype == object and arr.shape == () and isinstance(arr[()], bytes) and arr[()].startswith(_STATE_MAGIC):
        return _from_json(json.loads(arr[()][len(_STATE_MAGIC):]))
    if arr.dtype == object and arr.shape == ():
        return arr[()]
    return arr


# --- the graph ------------------------------------------------------------------------------------------------------
class ObjectGraph:
    """Breadth-first view of everything reachable from ``root``: ``nodes``, ``paths``, ``edges``."""

    def __init__(self, root, extra=()):
        self.nodes = [root]
        self.paths = [()]
        self.edges = [[]]
        ids = {id(root): 0}
        alias = getattr(root, "_checkpoint_pending_alias", None)  # Checkpoint(root): the root object is node 0
        if alias is not None:
            ids[id(alias)] = 0
        i = 0
        while i < len(self.nodes):
            obj = self.nodes[i]
            deps = children(obj)
            if i == 0 and extra:
                deps = deps + [(n, c) for n, c in extra]
            for name, child in deps:
                j = ids.get(id(child))
                if j is None:
                    j = ids[id(child)] = len(self.nodes)
                    self.nodes.append(child)
                    self.paths.append(self.paths[i] + (name,))
                    self.edges.append([])
                self.edges[i].append((j, name))
            i += 1

    def key(self, i: int, attribute: str) -> str:
        path = "/".join(escape_local_name(p) for p in self.paths[i])
        return (path + "/" if path else "") + ".ATTRIBUTES/" + attribute

    def serialize(self):
        """``(tensors, proto)``: the values to write (``{key: ndarray}``) and TF's TrackableObjectGraph."""
        from tensorboard.compat.proto import trackable_object_graph_pb2 as pb

        graph = pb.TrackableObjectGraph()
        tensors = {}
        has_vals = [False] * len(self.nodes)
        protos = []
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            protos.append(node)
            for j, name in self.edges[i]:
                node.children.add(node_id=j, local_name=name)
            for attr, value in values_of(obj).items():
                key = self.key(i, attr)
                tensors[key] = value
                node.attributes.add(name=attr, full_name=full_name(obj), checkpoint_key=key)
                has_vals[i] = True
        changed = True
        while changed:  # a node has values when anything below it has (edges may form cycles)
            changed = False
            for i in reversed(range(len(self.nodes))):
                if not has_vals[i] and any(has_vals[j] for j, _ in self.edges[i]):
                    has_vals[i] = changed = True
        for i, node in enumerate(protos):
            node.has_checkpoint_values.value = has_vals[i]
        return tensors, graph


def parse_object_graph(data: bytes):
    from tensorboard.compat.proto import trackable_object_graph_pb2 as pb

    graph = pb.TrackableObjectGraph()
    graph.ParseFromString(data)
    n = len(graph.nodes)
    for node in graph.nodes:
        for c in node.children:
            if not 0 <= c.node_id < n:
                raise ValueError(f"object graph child id {c.node_id} out of range")
    return graph
