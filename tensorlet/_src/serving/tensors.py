"""Tensors on the wire: NumPy arrays <-> ``tensorflow.TensorProto`` and TF Serving's JSON tensor formats.

The JSON rules follow TF Serving's REST API: the row format (``"instances"``: a list with one item per batch
row, or one object per row when a signature has several inputs) and the columnar format (``"inputs"``: the
whole tensor, or an object of named tensors); strings may be ``{"b64": ...}``; outputs named ``*_bytes`` of
string dtype are written back as ``{"b64": ...}``; floats are written with the shortest digits that round-trip.
"""

from __future__ import annotations

import base64
import binascii
import json
import math

import numpy as np
import orjson

from tensorlet._src.serving.errors import ServingError, invalid

# DataType enum value -> NumPy dtype (strings are object arrays of bytes).
_NP = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 7: object,
       8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16, 18: np.complex128, 19: np.float16,
       22: np.uint32, 23: np.uint64}
_NAMES = {1: "float", 2: "double", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string", 8: "complex64",
          9: "int64", 10: "bool", 14: "bfloat16", 17: "uint16", 18: "complex128", 19: "half", 22: "uint32",
          23: "uint64"}
# the TensorProto field that carries each dtype's values when tensor_content is not used
_FIELD = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val", 6: "int_val", 7: "string_val",
          9: "int64_val", 10: "bool_val", 17: "int_val", 19: "half_val", 14: "half_val", 22: "uint32_val",
          23: "uint64_val", 8: "scomplex_val", 18: "dcomplex_val"}
MAX_ELEMENTS = 1 << 31


def dtype_name(enum: int) -> str:
    return _NAMES.get(enum, f"dtype {enum}")


def np_dtype(enum: int):
    if enum == 14:
        import ml_dtypes

        return ml_dtypes.bfloat16
    try:
        return _NP[enum]
    except KeyError:
        raise invalid(f"Unsupported tensor dtype: {dtype_name(enum)}") from None


def enum_of(dtype) -> int:
    """DataType enum of a tensorlet DType or NumPy dtype."""
    if isinstance(dtype, np.dtype):
        enum = _ENUMS.get(dtype)  # seen before (every request's inputs and outputs)
        if enum is not None:
            return enum
    enum = getattr(dtype, "as_datatype_enum", None)
    if enum is not None:
        return int(enum)
    dt = np.dtype(dtype)
    if dt.kind in "OSU":
        enum = 7
    elif dt.name == "bfloat16":
        enum = 14
    else:
        enum = next((k for k, v in _NP.items() if v is not object and np.dtype(v) == dt), None)
        if enum is None:
            raise invalid(f"Unsupported tensor dtype: {dt}")
    if isinstance(dtype, np.dtype) and dt.kind not in "SU":  # (string dtypes: one per length, not cached)
        _ENUMS[dtype] = enum
    return enum


_ENUMS: dict = {}


# --- TensorProto ---------------------------------------------------------------------------------------------------
def to_numpy(proto) -> np.ndarray:
    """A ``TensorProto`` as a NumPy array (TF's rules: ``tensor_content`` or the typed field; a single value fills
    the whole shape)."""
    shape = [d.size for d in proto.tensor_shape.dim]
    if any(s < 0 for s in shape):
        raise invalid(f"Tensor shape has a negative dimension: {shape}")
    n = math.prod(shape)
    if n > MAX_ELEMENTS:
        raise invalid(f"Tensor of shape {shape} is too large")
    dt = np_dtype(proto.dtype)
    if proto.dtype == 7:
        vals = list(proto.string_val)
        if len(vals) not in (n, 1) and not (n == 0 and not vals):
            raise invalid(f"Tensor has {len(vals)} string values but its shape {shape} needs {n}")
        arr = np.empty(n, dtype=object)
        arr[:] = vals * n if len(vals) == 1 else vals
        return arr.reshape(shape)
    content = proto.tensor_content  # (each read of the field is a new copy of its bytes: read it once)
    if content:
        itemsize = np.dtype(dt).itemsize
        if len(content) != n * itemsize:
            raise invalid(f"Tensor content of {len(content)} bytes does not match shape {shape} of "
                          f"{dtype_name(proto.dtype)}")
        return np.frombuffer(content, dtype=dt).reshape(shape).copy()
    vals = getattr(proto, _FIELD[proto.dtype])
    if proto.dtype in (19, 14):
        vals = np.asarray(vals, dtype=np.uint16).view(dt)
    elif proto.dtype in (8, 18):
        vals = np.asarray(vals).reshape(-1, 2)
        vals = vals[:, 0] + 1j * vals[:, 1]
    vals = np.asarray(vals, dtype=dt)
    if vals.size == n:
        return vals.reshape(shape)
    if vals.size == 0:
        return np.zeros(shape, dtype=dt)
    if vals.size < n:  # TF repeats the last value to fill the shape
        return np.concatenate([vals, np.full(n - vals.size, vals[-1], dtype=dt)]).reshape(shape)
    raise invalid(f"Tensor has {vals.size} values but its shape {shape} needs {n}")


def to_proto(array, proto=None):
    """A NumPy array (or tensor) as a ``TensorProto``: numbers in ``tensor_content``, strings in ``string_val``."""
    from tensorlet._src.serving import protos

    proto = protos.TensorProto() if proto is None else proto
    arr = np.asarray(array.numpy() if hasattr(array, "numpy") else array)
    enum = enum_of(arr.dtype)
    proto.dtype = enum
    for d in arr.shape:
        proto.tensor_shape.dim.add().size = d
    if enum == 7:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1))
    else:
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    return proto


# --- JSON in -------------------------------------------------------------------------------------------------------
def _debug(val) -> str:
    return json.dumps(val, separators=(",", ":"), ensure_ascii=False, allow_nan=True)


def _type_string(val) -> str:
    if val is None:
        return "Null"
    if val is True:
        return "True"
    if val is False:
        return "False"
    if isinstance(val, dict):
        return "Object"
    if isinstance(val, list):
        return "Array"
    if isinstance(val, str):
        return "String"
    return "Number"


def is_b64(val) -> bool:
    return isinstance(val, dict) and len(val) == 1 and isinstance(val.get("b64"), str)


def _b64(val) -> bytes:
    if not is_b64(val):
        raise invalid(f"JSON Value: {_debug(val)} not formatted correctly for base64 data")
    try:
        return base64.b64decode(val["b64"], validate=True)
    except (binascii.Error, ValueError):
        try:  # TF Serving also accepts the URL-safe alphabet and missing padding
            s = val["b64"]
            return base64.b64decode(s + "=" * (-len(s) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError):
            raise invalid("Unable to base64 decode") from None


def _scalar(val, enum):
    def type_error():
        return invalid(f"JSON Value: {_debug(val)} Type: {_type_string(val)} is not of expected type: "
                       f"{dtype_name(enum)}")

    if enum == 7:
        if isinstance(val, str):
            return val.encode()
        if isinstance(val, dict):
            return _b64(val)
        raise type_error()
    if isinstance(val, bool):
        if enum == 10:
            return val
        raise type_error()
    if enum in (1, 2, 19, 14):
        if isinstance(val, (int, float)):
            return val
        raise type_error()
    if enum in (3, 4, 5, 6, 9, 17, 22, 23):
        if isinstance(val, int):
            return val
        raise type_error()
    if enum == 10:
        raise type_error()
    raise ServingError(12, f"Conversion of JSON Value: {_debug(val)} to type: {dtype_name(enum)}")


def _dense_shape(val):
    shape = []
    while isinstance(val, list):
        shape.append(len(val))
        if not val:
            break
        val = val[0]
    return shape


def _fill(val, level, shape, enum, out):
    rank = len(shape)
    if not isinstance(val, list):
        if level != rank:
            raise invalid(f"JSON Value: {_debug(val)} found at incorrect level: {level + 1} in the JSON DOM. "
                          f"Expected at level: {rank}")
        out.append(_scalar(val, enum))
        return
    if level >= rank:
        raise invalid(f"Encountered list at unexpected level: {level} expected < {rank}")
    if len(val) != shape[level]:
        raise invalid(f"Encountered list at unexpected size: {len(val)} at level: {level} expected size: "
                      f"{shape[level]}")
    for v in val:
        _fill(v, level + 1, shape, enum, out)


_FAST_KINDS = {1: "iuf", 2: "iuf", 19: "iuf", 3: "iu", 9: "iu", 4: "iu", 5: "iu", 6: "iu", 17: "iu", 22: "iu",
               23: "iu", 10: "b"}


def from_json(val, enum: int) -> np.ndarray:
    """One JSON value (nested lists of scalars) as an array of DataType ``enum``, with TF Serving's checks."""
    if enum in _FAST_KINDS and isinstance(val, list):
        try:  # the common case: a regular nested list of numbers
            arr = np.array(val)
        except (ValueError, OverflowError):
            arr = None
        if arr is not None and arr.dtype.kind in _FAST_KINDS[enum] and arr.size:
            try:
                return arr.astype(np_dtype(enum), copy=False)
            except OverflowError:
                pass
    shape = _dense_shape(val)
    out = []
    _fill(val, 0, shape, enum, out)
    if enum == 7:
        arr = np.empty(len(out), dtype=object)
        arr[:] = out
        return arr.reshape(shape)
    try:
        return np.array(out, dtype=np_dtype(enum)).reshape(shape)
    except OverflowError:
        raise invalid(f"JSON Value: {_debug(val)} is out of range for type: {dtype_name(enum)}") from None


def parse_json(body: bytes) -> dict:
    if not body:
        raise invalid("JSON Parse error: The document is empty")
    try:
        doc = orjson.loads(body)  # fast path; NaN/Infinity and huge integers go to the json module
    except orjson.JSONDecodeError:
        doc = None
    try:
        if doc is None:
            doc = json.loads(body)
    except UnicodeDecodeError:
        raise invalid("JSON Parse error: Invalid encoding in string. at offset: 0") from None
    except json.JSONDecodeError as e:
        raise invalid(f"JSON Parse error: {e.msg} at offset: {e.pos}") from None
    except RecursionError:
        raise invalid("JSON Parse error: The document is nested too deeply") from None
    if not isinstance(doc, dict):
        raise invalid(f"JSON Value: {_debug(doc)} Is not object")
    return doc


def signature_name(doc) -> str:
    name = doc.get("signature_name", "")
    if not isinstance(name, str):
        raise invalid(f"JSON Value: {_debug(doc)} not formatted correctly. 'signature_name' key must be a string "
                      f"value.")
    return name


def predict_inputs(doc, input_dtypes: dict, signame: str):
    """The input tensors of a REST predict body, and its format ('row' or 'columnar')."""
    if not input_dtypes:
        raise invalid(f"Failed to get input map for signature: {signame or 'DEFAULT'}")
    if "instances" in doc:
        if "inputs" in doc:
            raise invalid(f"JSON Value: {_debug(doc)} Not formatted correctly expecting only one of 'inputs' or "
                          f"'instances' keys to exist ")
        inst = doc["instances"]
        if not isinstance(inst, list):
            raise invalid(f"JSON Value: {_debug(doc)} Expecting 'instances' to be an list/array")
        if not inst:
            raise invalid(f"JSON Value: {_debug(doc)} No values in 'instances' array")
        return _rows(inst, input_dtypes), "row"
    if "inputs" in doc:
        return _columns(doc["inputs"], input_dtypes), "columnar"
    raise invalid("Missing 'inputs' or 'instances' key")


def _is_object(v):
    return isinstance(v, dict) and not is_b64(v)


def _rows(inst, dtypes):
    names = sorted(dtypes)
    if not isinstance(inst[0], dict) and len(dtypes) > 1:
        raise invalid("instances is a plain list, but expecting list of objects as multiple input tensors required "
                      "as per tensorinfo_map")
    objects = _is_object(inst[0])
    if not objects:
        name = names[0]
        for i, elem in enumerate(inst):
            if _is_object(elem):
                raise invalid(f"Expecting value/list but got object at item {i} of input list")
        if dtypes[name] in _FAST_KINDS:
            try:
                arr = from_json(inst, dtypes[name])
                if arr.ndim >= 1:
                    return {name: arr}
            except ServingError:
                pass  # fall through for TF Serving's per-item message
        items = []
        for i, elem in enumerate(inst):
            try:
                items.append(_item(elem, name, dtypes, items[0] if items else None))
            except ServingError as e:
                raise invalid(f"Failed to process element: {i} of 'instances' list. Error: {e}") from None
        return {name: np.stack(items) if items[0].dtype != object else _stack_obj(items)}
    per = {n: [] for n in names}
    for i, elem in enumerate(inst):
        if not _is_object(elem):
            raise invalid(f"Expecting object but got list at item {i} of input list")
        for key, v in elem.items():
            if key not in dtypes:
                raise invalid(f"Failed to process element: {i} key: {key} of 'instances' list. Error: "
                              f"{invalid(f'JSON object: does not have named input: {key}')}")
            try:
                per[key].append(_item(v, key, dtypes, per[key][0] if per[key] else None))
            except ServingError as e:
                raise invalid(f"Failed to process element: {i} key: {key} of 'instances' list. Error: {e}") from None
        if set(elem) != set(names):
            raise invalid(f"Failed to process element: {i} of 'instances' list. JSON object: {_debug(elem)} keys must "
                          f"be equal to: {','.join(names)}")
    return {n: np.stack(v) if v[0].dtype != object else _stack_obj(v) for n, v in per.items()}


def _stack_obj(items):
    out = np.empty((len(items),) + items[0].shape, dtype=object)
    for i, a in enumerate(items):
        out[i, ...] = a
    return out


def _item(val, name, dtypes, first):
    arr = from_json(val, dtypes[name])
    if first is not None:
        if arr.size != first.size:
            raise invalid(f"Expecting tensor size: {first.size} but got: {arr.size}")
        if arr.shape != first.shape:
            raise invalid(f"Expecting shape {_shape_text(first.shape)} but got: {_shape_text(arr.shape)}")
    return arr


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _columns(val, dtypes):
    if not _is_object(val):
        if len(dtypes) > 1:
            raise invalid("inputs is a plain value/list, but expecting an object as multiple input tensors required "
                          "as per tensorinfo_map")
        name = next(iter(dtypes))
        return {name: from_json(val, dtypes[name])}
    out = {}
    for name in sorted(dtypes):
        if name not in val:
            raise invalid(f"Missing named input: {name} in 'inputs' object.")
        out[name] = from_json(val[name], dtypes[name])
    return out


# --- JSON out ------------------------------------------------------------------------------------------------------
def _float_token(x, np_type) -> str:
    if math.isfinite(x):
        s = f"{x:g}"
        if np_type(float(s)) != np_type(x):
            s = f"{x:.{9 if np_type is np.float32 else 17}g}"
        if "." not in s and "e" not in s:
            s += ".0"
        return s
    if math.isnan(x):
        return "NaN"
    return "-Infinity" if x < 0 else "Infinity"


def _tokens(arr: np.ndarray, as_bytes: bool) -> list:
    kind = arr.dtype.kind
    flat = arr.reshape(-1)
    if kind == "f" or arr.dtype.name == "bfloat16":  # (bfloat16: ml_dtypes' kind "V"; read from JSON like half)
        np_type = np.float32 if arr.dtype.itemsize <= 4 else np.float64
        return [_float_token(x, np_type) for x in flat.astype(np.float64).tolist()]
    if kind == "b":
        return ["true" if x else "false" for x in flat.tolist()]
    if kind in "iu":
        return [str(x) for x in flat.tolist()]
    if kind == "O" or kind in "SU":
        out = []
        for x in flat.tolist():
            b = x if isinstance(x, bytes) else str(x).encode()
            if as_bytes:
                out.append('{"b64": "' + base64.b64encode(b).decode() + '"}')
            else:
                out.append(json.dumps(b.decode("utf-8", errors="replace"), ensure_ascii=False))
        return out
    raise invalid(f"Failed to write JSON value for tensor type: {arr.dtype}")


def _nest(tokens, shape, start=0):
    if not shape:
        return tokens[start]
    step = math.prod(shape[1:])
    return "[" + ", ".join(_nest(tokens, shape[1:], start + i * step) for i in range(shape[0])) + "]"


def json_value(arr: np.ndarray, as_bytes=False) -> str:
    return _nest(_tokens(arr, as_bytes), list(arr.shape))


def _bytes_name(name, arr):
    return name.endswith("_bytes") and arr.dtype.kind in "OSU"


def predict_response(outputs: dict, fmt: str) -> str:
    if not outputs:
        raise invalid("Cannot convert empty tensor map to JSON")
    names = sorted(outputs)
    if fmt == "columnar":
        if len(names) == 1:
            body = json_value(outputs[names[0]], _bytes_name(names[0], outputs[names[0]]))
        else:
            body = "{" + ", ".join(f"{json.dumps(n)}: {json_value(outputs[n], _bytes_name(n, outputs[n]))}"
                                   for n in names) + "}"
        return '{\n    "outputs": ' + body + "\n}"
    batch = -1
    for n in names:
        a = outputs[n]
        if a.ndim == 0:
            raise invalid(f"Tensor name: {n} has no shape information ")
        if batch >= 0 and a.shape[0] != batch:
            raise invalid(f"Tensor name: {n} has inconsistent batch size: {a.shape[0]} expecting: {batch}")
        batch = a.shape[0]
    cols = {}
    for n in names:
        a = outputs[n]
        toks, inner = _tokens(a, _bytes_name(n, a)), list(a.shape[1:])
        step = math.prod(inner)
        cols[n] = [_nest(toks, inner, i * step) for i in range(batch)]
    if len(names) == 1:
        rows = cols[names[0]]
    else:
        rows = ["{" + ", ".join(f"{json.dumps(n)}: {cols[n][i]}" for n in names) + "}" for i in range(batch)]
    return '{\n    "predictions": [' + ",\n        ".join(rows) + "\n    ]\n}"
