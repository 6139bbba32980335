"""JSON encoding of the static values a SavedModel stores: op attrs, Python values in function signatures.

Every value is plain JSON (null, bool, int, str, list) or a *tagged* object ``{"t": tag, "v": payload}``; a
JSON object is never anything else, so decoding is unambiguous.  Decoding builds only the types listed in
``_DECODERS`` (numbers, strings, bytes, tuples, dicts, slices, dtypes, shapes, arrays, references to the
file's graphs/variables/ops) and checks every size against the data it describes before allocating.  No
value ever names a Python class or function to call.
"""

from __future__ import annotations

import base64
import binascii
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape

MAX_DEPTH = 48  # nesting of tagged values
MAX_RANK = 64
INLINE_ARRAY_BYTES = 1024  # arrays up to this size live in the JSON; larger ones in constants/


class SavedModelError(OSError, ValueError):
    """A SavedModel directory is missing, malformed, or uses something tensorlet refuses to load."""


class Unsupported(ValueError):
    """A value that cannot be saved (a Python callable, an object without a file representation)."""


def dtype_name(d) -> str:
    return _dt.as_dtype(d).name


def _dtype_from(name, where):
    if not isinstance(name, str):
        raise SavedModelError(f"{where}: dtype must be a string, got {name!r}")
    d = _dt._BY_NAME.get(name)
    if d is None or d.name != name or d.name in ("resource", "variant"):
        raise SavedModelError(f"{where}: unknown dtype {name!r}")
    return d


def shape_to_json(shape):
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    return None if shape.rank is None else list(shape.as_list())


def shape_from_json(v, where) -> TensorShape:
    if v is None:
        return TensorShape(None)
    if not isinstance(v, list) or len(v) > MAX_RANK:
        raise SavedModelError(f"{where}: bad shape {_short(v)}")
    for d in v:
        if d is not None and (type(d) is not int or d < 0 or d >= 1 << 62):
            raise SavedModelError(f"{where}: bad dimension {_short(d)} in shape")
    return TensorShape(v)


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


# --- arrays -------------------------------------------------------------------------------------------------------
_NUMERIC = {d.name: np.dtype(d.as_numpy_dtype).newbyteorder("<") for d in _dt.NUMERIC + (_dt.bool,)}


def array_to_json(arr: np.ndarray, external):
    """An array as a tagged value; arrays over INLINE_ARRAY_BYTES go to ``external(arr) -> key``."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "OSU":
        flat = [x.encode() if isinstance(x, str) else bytes(x) for x in arr.reshape(-1).tolist()]
        if sum(len(b) for b in flat) > INLINE_ARRAY_BYTES and external is not None:
            return {"t": "array", "v": {"dtype": "string", "shape": list(arr.shape), "key": external(arr)}}
        return {"t": "array", "v": {"dtype": "string", "shape": list(arr.shape),
                                    "strings": [base64.b64encode(b).decode() for b in flat]}}
    name = _dt.from_numpy(arr.dtype).name
    if arr.nbytes > INLINE_ARRAY_BYTES and external is not None:
        return {"t": "array", "v": {"dtype": name, "shape": list(arr.shape), "key": external(arr)}}
    le = np.ascontiguousarray(arr, dtype=_NUMERIC[name])
    return {"t": "array", "v": {"dtype": name, "shape": list(arr.shape),
                                "data": base64.b64encode(le.reshape(-1).view(np.uint8).tobytes()).decode()}}


def _b64(s, where) -> bytes:
    if not isinstance(s, str):
        raise SavedModelError(f"{where}: expected base64 text")
    try:
        return base64.b64decode(s.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise SavedModelError(f"{where}: invalid base64 data") from None


def array_from_json(v, where, constants):
    if not isinstance(v, dict):
        raise SavedModelError(f"{where}: bad array")
    name = v.get("dtype")
    if name != "string":
        _dtype_from(name, where)
        if name not in _NUMERIC:
            raise SavedModelError(f"{where}: arrays of dtype {name!r} cannot be stored")
    shape = v.get("shape")
    if not isinstance(shape, list) or len(shape) > MAX_RANK or not all(
            type(d) is int and 0 <= d < 1 << 62 for d in shape):
        raise SavedModelError(f"{where}: bad array shape {_short(shape)}")
    n = math.prod(shape)
    if "key" in v:
        key = v["key"]
        if constants is None or not isinstance(key, str):
            raise SavedModelError(f"{where}: array refers to constant {_short(key)} but the SavedModel has no "
                                  "constants file")
        arr = constants(key, where)
        if arr.shape != tuple(shape) or (_dt.from_numpy(arr.dtype).name != name):
            raise SavedModelError(f"{where}: constant {key!r} does not have the declared dtype/shape")
        return arr
    if name == "string":
        items = v.get("strings")
        if not isinstance(items, list) or len(items) != n:
            raise SavedModelError(f"{where}: string array has {len(items) if isinstance(items, list) else '?'} "
                                  f"items, its shape {shape} needs {n}")
        out = np.empty(n, dtype=object)
        for i, s in enumerate(items):
            out[i] = _b64(s, where)
        return out.reshape(shape)
    raw = _b64(v.get("data"), where)
    dt = _NUMERIC[name]
    if len(raw) != n * dt.itemsize:
        raise SavedModelError(f"{where}: array data has {len(raw)} bytes, shape {shape} and dtype {name} need "
                              f"{n * dt.itemsize}")
    arr = np.frombuffer(raw, dtype=dt).reshape(shape)
    return arr.astype(dt.newbyteorder("="))


# --- values -------------------------------------------------------------------------------------------------------
class Encoder:
    """Turns attr values into JSON.  ``refs`` hooks: ``graph(g)``, ``variable(v)``, ``op(op)``, ``external(arr)``
    each return the JSON payload for that reference (or raise Unsupported)."""

    def __init__(self, graph=None, variable=None, op=None, external=None, where="", extra=None):
        self.extra = extra  # extra(x) -> JSON or None: encodings of values only the caller knows
        self.graph_ref = graph
        self.variable_ref = variable
        self.op_ref = op
        self.external = external
        self.where = where

    def encode(self, x, depth=0):
        if depth > MAX_DEPTH:
            raise Unsupported(f"{self.where}: value nested too deeply")
        if self.extra is not None:
            r = self.extra(x)
            if r is not None:
                return r
        if x is None or x is True or x is False or x.__class__ is str:
            return x
        if x.__class__ is int:
            return x
        if x.__class__ is float:
            return x if math.isfinite(x) else {"t": "float", "v": repr(x)}
        if x.__class__ is complex:
            return {"t": "complex", "v": [self.encode(x.real), self.encode(x.imag)]}
        if isinstance(x, (np.ndarray, np.generic)):
            try:
                if isinstance(x, np.ndarray):
                    return array_to_json(x, self.external)
                return {"t": "scalar", "v": array_to_json(np.asarray(x), None)["v"]}
            except TypeError:
                raise Unsupported(f"{self.where}: cannot save an array of NumPy dtype {x.dtype}") from None
        if isinstance(x, (bytes, bytearray)):
            return {"t": "bytes", "v": base64.b64encode(bytes(x)).decode()}
        if x.__class__ is tuple:
            return {"t": "tuple", "v": [self.encode(i, depth + 1) for i in x]}
        if x.__class__ is list:
            return [self.encode(i, depth + 1) for i in x]
        if isinstance(x, tuple) and hasattr(x, "_fields"):  # namedtuples: stored as plain tuples
            return {"t": "tuple", "v": [self.encode(i, depth + 1) for i in x]}
        if x.__class__ is dict:
            return {"t": "dict", "v": [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in x.items()]}
        if x.__class__ in (frozenset, set):
            return {"t": x.__class__.__name__, "v": [self.encode(i, depth + 1) for i in sorted(x, key=repr)]}
        if x.__class__ is slice:
            return {"t": "slice", "v": [self.encode(x.start, depth + 1), self.encode(x.stop, depth + 1),
                                        self.encode(x.step, depth + 1)]}
        if x is Ellipsis:
            return {"t": "ellipsis", "v": None}
        if isinstance(x, np.dtype):
            return {"t": "npdtype", "v": _dt.from_numpy(x).name}
        if isinstance(x, _dt.DType):
            return {"t": "dtype", "v": x.name}
        if isinstance(x, TensorShape):
            return {"t": "shape", "v": shape_to_json(x)}
        if isinstance(x, type) and issubclass(x, np.generic):
            return {"t": "nptype", "v": _dt.from_numpy(x).name}
        if x.__class__.__name__ == "Graph" and self.graph_ref is not None and hasattr(x, "nodes"):
            return {"t": "graph", "v": self.graph_ref(x)}
        if x.__class__.__name__ in ("Op", "IOOp") and self.op_ref is not None:
            return {"t": "op", "v": self.op_ref(x)}
        if self.variable_ref is not None and hasattr(x, "assign") and hasattr(x, "dtype"):
            return {"t": "var", "v": self.variable_ref(x)}
        if callable(x):
            raise Unsupported(f"{self.where}: holds the Python callable {getattr(x, '__name__', type(x).__name__)!r}, "
                              "which cannot be saved (a SavedModel holds no Python code)")
        raise Unsupported(f"{self.where}: cannot save a value of type {type(x).__name__}")


class Decoder:
    """Rebuilds values written by ``Encoder``; refs resolve through ``graph(i)``, ``variable(i)``, ``op(name)``
    and ``constants(key, where)``."""

    def __init__(self, graph=None, variable=None, op=None, constants=None, where="", extra=None):
        self.extra = extra or {}  # tag -> fn(payload): tags only the caller knows
        self.graph_ref = graph
        self.variable_ref = variable
        self.op_ref = op
        self.constants = constants
        self.where = where

    def decode(self, v, depth=0):
        if depth > MAX_DEPTH:
            raise SavedModelError(f"{self.where}: value nested too deeply")
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return v
        if isinstance(v, list):
            return [self.decode(i, depth + 1) for i in v]
        if not isinstance(v, dict) or set(v) != {"t", "v"} or not isinstance(v["t"], str):
            raise SavedModelError(f"{self.where}: malformed value {_short(v)}")
        tag = v["t"]
        if tag in self.extra:
            return self.extra[tag](v["v"])
        fn = _DECODERS.get(tag)
        if fn is None:
            raise SavedModelError(f"{self.where}: unknown value type {_short(v['t'])}")
        return fn(self, v["v"], depth + 1)

    def _list(self, p, depth):
        if not isinstance(p, list):
            raise SavedModelError(f"{self.where}: malformed value {_short(p)}")
        return [self.decode(i, depth) for i in p]


def _hashable(x, where):
    try:
        hash(x)
    except TypeError:
        raise SavedModelError(f"{where}: unhashable dict key or set item") from None
    return x


def _dec_float(d, p, depth):
    if p not in ("nan", "inf", "-inf"):
        raise SavedModelError(f"{d.where}: bad float {_short(p)}")
    return float(p)


def _dec_complex(d, p, depth):
    parts = d._list(p, depth)
    if len(parts) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in parts):
        raise SavedModelError(f"{d.where}: bad complex value")
    return complex(parts[0], parts[1])


def _dec_scalar(d, p, depth):
    arr = array_from_json(p, d.where, None)
    if arr.shape != ():
        raise SavedModelError(f"{d.where}: a scalar must have shape ()")
    return arr[()]


def _dec_dict(d, p, depth):
    if not isinstance(p, list):
        raise SavedModelError(f"{d.where}: malformed dict")
    out = {}
    for item in p:
        if not isinstance(item, list) or len(item) != 2:
            raise SavedModelError(f"{d.where}: malformed dict item")
        out[_hashable(d.decode(item[0], depth), d.where)] = d.decode(item[1], depth)
    return out


def _dec_slice(d, p, depth):
    parts = d._list(p, depth)
    if len(parts) != 3 or not all(x is None or (isinstance(x, int) and not isinstance(x, bool)) for x in parts):
        raise SavedModelError(f"{d.where}: bad slice")
    return slice(*parts)


def _dec_graph(d, p, depth):
    if d.graph_ref is None or type(p) is not int:
        raise SavedModelError(f"{d.where}: unexpected graph reference")
    return d.graph_ref(p)


def _dec_var(d, p, depth):
    if d.variable_ref is None or type(p) is not int:
        raise SavedModelError(f"{d.where}: unexpected variable reference")
    return d.variable_ref(p)


def _dec_op(d, p, depth):
    if d.op_ref is None or not isinstance(p, str):
        raise SavedModelError(f"{d.where}: unexpected op reference")
    return d.op_ref(p)


def _dec_set(kind):
    def dec(d, p, depth):
        return kind(_hashable(x, d.where) for x in d._list(p, depth))

    return dec


_DECODERS = {
    "float": _dec_float,
    "complex": _dec_complex,
    "scalar": _dec_scalar,
    "array": lambda d, p, depth: array_from_json(p, d.where, d.constants),
    "bytes": lambda d, p, depth: _b64(p, d.where),
    "tuple": lambda d, p, depth: tuple(d._list(p, depth)),
    "dict": _dec_dict,
    "frozenset": _dec_set(frozenset),
    "set": _dec_set(set),
    "slice": _dec_slice,
    "ellipsis": lambda d, p, depth: Ellipsis,
    "npdtype": lambda d, p, depth: np.dtype(_dtype_from(p, d.where).as_numpy_dtype),
    "nptype": lambda d, p, depth: np.dtype(_dtype_from(p, d.where).as_numpy_dtype).type,
    "dtype": lambda d, p, depth: _dtype_from(p, d.where),
    "shape": lambda d, p, depth: shape_from_json(p, d.where),
    "graph": _dec_graph,
    "var": _dec_var,
    "op": _dec_op,
}
