"""Registry ops <-> TF NodeDefs, checked against TF's OpDefs (recorded from TF into ``tf_opdefs.json``).

``tf_opdefs.json`` is written by tools/record_tf_goldens/tf_saved_models.py from TF's op registry: for each op
its input/output args (``type`` / ``type_attr`` / ``number_attr`` / ``type_list_attr``), attrs (type, default,
allowed values, minimum) and statefulness.  Export maps a graph node to ``(TF op, inputs, AttrValues)``; import
maps a TF node back to a registry op and attrs.  See ``tensorlet/_src/ops/tfdef.py`` for the per-op
declarations.  Also here: TensorProto and TensorShapeProto conversions with size checks.
"""

from __future__ import annotations

import functools
import inspect
import json
import os

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import REGISTRY, xpfn
from tensorlet._src.ops.tfdef import TFDef
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import SavedModelError, UnknownOp, Unsupported

MAX_ELEMENTS = 1 << 28  # a Const/restored tensor larger than this is refused unless its bytes are all present
_PLAIN = TFDef()


@functools.cache
def opdefs() -> dict:
    with open(os.path.join(os.path.dirname(__file__), "tf_opdefs.json"), encoding="utf-8") as f:
        return json.load(f)["ops"]


def opdef(name):
    return opdefs().get(name)


# --- dtypes, shapes, tensors ---------------------------------------------------------------------------------
def dtype_enum(d) -> int:
    return _dt.as_dtype(d).as_datatype_enum


def dtype_of(enum, where, handles=False):
    d = _dt._BY_ENUM.get(int(enum))
    if d is None or (not handles and d.name in ("resource", "variant")):
        raise SavedModelError(f"{where}: unsupported dtype enum {enum}")
    return d


def shape_proto(shape, proto=None):
    proto = P.TensorShapeProto() if proto is None else proto
    proto.SetInParent()
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        proto.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.dim.add(size=-1 if d is None else int(d))
    return proto


def shape_from(proto, where) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    if len(proto.dim) > 64:
        raise SavedModelError(f"{where}: shape of rank {len(proto.dim)}")
    dims = []
    for d in proto.dim:
        if d.size < -1 or d.size >= 1 << 62:
            raise SavedModelError(f"{where}: bad dimension {d.size}")
        dims.append(None if d.size == -1 else int(d.size))
    return TensorShape(dims)


def tensor_proto(arr, proto=None):
    arr = np.asarray(arr)
    proto = P.TensorProto() if proto is None else proto
    if arr.dtype.kind in "OSU":
        proto.dtype = P.DT_STRING
        flat = [x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1).tolist()]
        proto.string_val.extend(flat)
    else:
        d = _dt._FROM_NP[arr.dtype]
        proto.dtype = d.as_datatype_enum
        proto.tensor_content = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    shape_proto(TensorShape(arr.shape), proto.tensor_shape)
    return proto


_VAL_FIELD = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val",
              "int8": "int_val", "uint8": "int_val", "uint16": "int_val", "int64": "int64_val",
              "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val", "float16": "half_val",
              "bfloat16": "half_val", "complex64": "scomplex_val", "complex128": "dcomplex_val"}


def array_from(proto, where) -> np.ndarray:
    """A TensorProto's value (TF's rules: ``tensor_content`` or the typed field; fewer values repeat the last)."""
    d = dtype_of(proto.dtype, where)
    shape = shape_from(proto.tensor_shape, where)
    if shape.rank is None or None in shape.as_list():
        raise SavedModelError(f"{where}: a tensor value needs a fully known shape")
    dims = tuple(shape.as_list())
    n = int(np.prod(dims, dtype=np.float64)) if dims else 1
    if d.name == "string":
        vals = list(proto.string_val)
        if len(vals) not in (n, 1) and not (n == 0 and not vals):
            raise SavedModelError(f"{where}: string tensor of shape {list(dims)} has {len(vals)} values")
        if len(vals) == 1 and n != 1:
            if n > MAX_ELEMENTS:
                raise SavedModelError(f"{where}: tensor of {n} elements is too large")
            vals = vals * n
        return np.array(vals, dtype=object).reshape(dims)
    npd = d._np
    if proto.tensor_content:
        if len(proto.tensor_content) != n * npd.itemsize:
            raise SavedModelError(f"{where}: tensor content of {len(proto.tensor_content)} bytes does not match "
                                  f"shape {list(dims)} of {d.name}")
        return np.frombuffer(proto.tensor_content, dtype=npd.newbyteorder("<")).astype(npd).reshape(dims)
    field = _VAL_FIELD.get(d.name)
    if field is None:
        raise SavedModelError(f"{where}: cannot read a {d.name} tensor")
    vals = list(getattr(proto, field))
    if len(vals) > n * (2 if d._kind == "c" else 1):
        raise SavedModelError(f"{where}: tensor of shape {list(dims)} holds {len(vals)} values")
    if n > MAX_ELEMENTS:
        raise SavedModelError(f"{where}: tensor of {n} elements is too large")
    if d.name in ("float16", "bfloat16"):
        raw = np.array(vals, dtype=np.uint16).view(npd)
    elif d._kind == "c":
        raw = np.array(vals, dtype=npd.type(0).real.dtype).view(npd)
    else:
        raw = np.array(vals).astype(npd)
    out = np.zeros(n, dtype=npd)
    if raw.size:
        out[:raw.size] = raw
        out[raw.size:] = raw[-1]
    return out.reshape(dims)


# --- attr values ---------------------------------------------------------------------------------------------
def _np_dtype(v):
    return _dt.as_dtype(v)


def attr_value(kind, v, where) -> P.AttrValue:
    av = P.AttrValue()
    try:
        if kind == "int":
            av.i = int(v)
        elif kind == "float":
            av.f = float(v)
        elif kind == "bool":
            av.b = bool(v)
        elif kind == "string":
            av.s = v if isinstance(v, bytes) else str(v).encode()
        elif kind == "type":
            av.type = dtype_enum(v)
        elif kind == "shape":
            av.shape.SetInParent()
            shape_proto(TensorShape(v), av.shape)
        elif kind == "tensor":
            tensor_proto(v, av.tensor)
        elif kind == "list(int)":
            av.list.i.extend(int(x) for x in np.asarray(v).reshape(-1).tolist()) if len(v) else av.list.SetInParent()
        elif kind == "list(float)":
            av.list.f.extend(float(x) for x in v) if len(v) else av.list.SetInParent()
        elif kind == "list(string)":
            av.list.s.extend(x if isinstance(x, bytes) else str(x).encode() for x in v) if len(v) else \
                av.list.SetInParent()
        elif kind == "list(type)":
            av.list.type.extend(dtype_enum(x) for x in v) if len(v) else av.list.SetInParent()
        elif kind == "list(shape)":
            av.list.SetInParent()
            for s in v:
                shape_proto(TensorShape(s), av.list.shape.add())
        else:
            raise Unsupported(f"{where}: attr of TF type {kind} cannot be written")
    except (TypeError, ValueError) as e:
        raise Unsupported(f"{where}: attr value {v!r} is not a TF {kind}: {e}") from None
    return av


def attr_python(av, where):
    """An AttrValue as a Python value: ints, floats, bools, str, DType, TensorShape, arrays, lists as tuples."""
    kind = av.WhichOneof("value")
    if kind is None:
        return None
    if kind == "i":
        return int(av.i)
    if kind == "f":
        return float(av.f)
    if kind == "b":
        return bool(av.b)
    if kind == "s":
        try:
            return av.s.decode()
        except UnicodeDecodeError:
            return av.s
    if kind == "type":
        return dtype_of(av.type, where, handles=True)
    if kind == "shape":
        return shape_from(av.shape, where)
    if kind == "tensor":
        return array_from(av.tensor, where)
    if kind == "func":
        return av.func.name
    if kind == "list":
        lst = av.list
        if lst.i:
            return tuple(int(x) for x in lst.i)
        if lst.f:
            return tuple(float(x) for x in lst.f)
        if lst.b:
            return tuple(bool(x) for x in lst.b)
        if lst.s:
            return tuple(x.decode(errors="replace") for x in lst.s)
        if lst.type:
            return tuple(dtype_of(x, where, handles=True) for x in lst.type)
        if lst.shape:
            return tuple(shape_from(s, where) for s in lst.shape)
        if lst.tensor:
            return tuple(array_from(t, where) for t in lst.tensor)
        if lst.func:
            return tuple(f.name for f in lst.func)
        return ()
    raise SavedModelError(f"{where}: unsupported attr kind {kind}")


def default_python(spec):
    d = spec.get("default")
    if d is None:
        return None
    (kind, v), = d.items()
    if kind == "list":
        return tuple(v)
    if kind == "type":
        return _dt._BY_ENUM.get(v)
    return v


# --- export --------------------------------------------------------------------------------------------------
def _arg_groups(args, n, where):
    """Splits ``n`` values over OpDef args: [(arg, count)]; at most one variadic arg takes the remainder."""
    variadic = [a for a in args if "number_attr" in a or "type_list_attr" in a]
    fixed = len(args) - len(variadic)
    if len(variadic) > 1 or (not variadic and n != fixed) or n < fixed:
        raise Unsupported(f"{where}: {n} values do not fit TF's {len(args)} arguments")
    return [(a, n - fixed if a in variadic else 1) for a in args]


def _infer_types(args, dtypes, attrs, where):
    groups = _arg_groups(args, len(dtypes), where)
    i = 0
    for a, count in groups:
        ds = dtypes[i:i + count]
        i += count
        if "number_attr" in a:
            attrs.setdefault(a["number_attr"], ("int", count))
        if "type_list_attr" in a:
            attrs.setdefault(a["type_list_attr"], ("list(type)", ds))
        elif "type_attr" in a and ds:
            attrs.setdefault(a["type_attr"], ("type", ds[0]))
        elif "type" in a and ds and any(dtype_enum(d) != a["type"] for d in ds):
            raise Unsupported(f"{where}: input {a['name']} must be {a['type']}, got {[str(d) for d in ds]}")


def node_to_tf(node, in_dtypes, out_dtypes, where):
    """``(TF op name, consts to insert [(index, array)], {attr: AttrValue})`` for a registry-op node."""
    op = node.op
    td = op.tfdef or _PLAIN
    name = td.op or op.name
    od = opdef(name)
    if not op.serializable:
        raise Unsupported(f"{where}: op {op.name} calls a Python function (tf.py_function / tf.numpy_function), "
                          "and a SavedModel holds no Python code")
    if od is None:
        raise Unsupported(f"{where}: op {op.name} has no TensorFlow kernel, so it cannot be written to a "
                          "SavedModel TensorFlow reads")
    attrs = dict(node.attrs)
    if td.to_tf is not None:
        try:
            attrs = td.to_tf(attrs, node)
        except ValueError as e:
            raise Unsupported(f"{where}: {e}") from None
    in_dtypes = list(in_dtypes)
    consts = []
    for attr, idx, dt in sorted(td.consts, key=lambda c: c[1] if c[1] >= 0 else 1 << 30):
        value = np.asarray(attrs.pop(attr), dtype=dt) if dt else np.asarray(attrs.pop(attr))
        idx = len(in_dtypes) if idx < 0 else idx
        consts.append((idx, value))
        in_dtypes.insert(idx, _dt._FROM_NP[value.dtype])
    specs = {a["name"]: a for a in od["attrs"]}
    typed = {}
    for k, v in attrs.items():
        if v is None:
            continue
        k = td.rename.get(k, k)
        spec = specs.get(k)
        if spec is None:
            raise Unsupported(f"{where}: op {op.name} attr {k!r} has no counterpart in TF's {name} OpDef")
        typed[k] = (spec["type"], v)
    _infer_types(od["inputs"], in_dtypes, typed, f"{where} inputs")
    _infer_types(od["outputs"], list(out_dtypes), typed, f"{where} outputs")
    out = {}
    for k, (kind, v) in typed.items():
        out[k] = attr_value(specs[k]["type"] if k in specs else kind, v, f"{where} attr {k}")
        allowed = specs.get(k, {}).get("allowed")
        if allowed is not None and specs[k]["type"] in ("type", "string"):
            got = out[k].type if specs[k]["type"] == "type" else out[k].s.decode(errors="replace")
            if got not in allowed["list"]:
                shown = _dt._BY_ENUM[got].name if specs[k]["type"] == "type" else got
                raise Unsupported(f"{where}: TF's {name} does not allow {k}={shown}")
    for k, spec in specs.items():
        if k not in out and "default" not in spec:
            raise Unsupported(f"{where}: TF's {name} requires attr {k!r}, which tensorlet's {op.name} does not give")
    return name, consts, out


# --- import --------------------------------------------------------------------------------------------------
def known_value(x):
    """The NumPy value, known while loading, of an interpreter value: an eager tensor's, or a traced constant's;
    None for a graph tensor computed from the function's inputs, or for anything that is not a tensor."""
    if hasattr(x, "node"):
        v = getattr(x, "_const", None)
        return None if v is None else np.asarray(v)
    return np.asarray(x.numpy()) if hasattr(x, "numpy") else None


def _load_io_ops():
    """The io package's ops (ReadFile, DecodePng, ...) register when their modules load."""
    import importlib
    import pkgutil

    import tensorlet._src.io as io_pkg

    for info in pkgutil.iter_modules(io_pkg.__path__):
        importlib.import_module(f"tensorlet._src.io.{info.name}")


_TABLE = {"size": -1, "table": {}}


def _by_tf_name():
    """{TF op name: [registry ops]}, rebuilt when ops were registered since (op families load lazily)."""
    if _TABLE["size"] != len(REGISTRY):
        # a snapshot (one C-level copy under the GIL): another thread may be registering ops as its lazily imported
        # op families load (a background compile's lowering), which would break a loop over the dict itself
        registered = list(REGISTRY.values())
        table = {}
        for op in registered:
            td = op.tfdef or _PLAIN
            table.setdefault(td.op or op.name, []).append(op)
        for ops in table.values():  # ops that need constant inputs first; the dynamic variant last
            ops.sort(key=lambda o: -len((o.tfdef or _PLAIN).consts))
        _TABLE.update(size=len(registered), table=table)
    return _TABLE["table"]


def import_candidates(tf_name):
    ops = _by_tf_name().get(tf_name)
    if ops is None and opdef(tf_name) is not None:
        _load_io_ops()  # file and codec ops register only when the io package loads
        ops = _by_tf_name().get(tf_name)
    return ops or []


@functools.cache
def _kernel_params(op, n_inputs):
    """Attr names the kernel accepts (None: any)."""
    if isinstance(op.impl, xpfn):
        return frozenset()
    params = list(inspect.signature(op.impl).parameters.values())[1:]
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return frozenset(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)
    return frozenset(p.name for p in params[n_inputs:])


@functools.cache
def _kernel_defaults(op):
    if isinstance(op.impl, xpfn):
        return {}
    return {p.name: p.default for p in inspect.signature(op.impl).parameters.values()
            if p.default is not inspect.Parameter.empty}


def output_counts(od, attrs):
    """The number of values of each output arg of a TF node with decoded ``attrs``."""
    out = []
    for a in od["outputs"]:
        if "number_attr" in a:
            out.append(int(attrs.get(a["number_attr"], 0)))
        elif "type_list_attr" in a:
            out.append(len(attrs.get(a["type_list_attr"], ())))
        else:
            out.append(1)
    return out


def tf_to_op(tf_name, od, attrs, inputs, is_const, where):
    """``(registry op, tensorlet inputs, attrs)`` for a TF node, or raises naming the op."""
    cands = [op for op in import_candidates(tf_name) if op.serializable]
    if not cands and import_candidates(tf_name):
        raise SavedModelError(f"{where}: op {tf_name} calls Python code, which a SavedModel never loads")
    if not cands:
        raise UnknownOp(f"{where}: Op type not registered '{tf_name}' in tensorlet: the SavedModel uses an op "
                        "this version does not have")
    specs = {a["name"]: a for a in od["attrs"]}
    derived = set()
    for a in od["inputs"] + od["outputs"]:
        derived.update(a[k] for k in ("type_attr", "number_attr", "type_list_attr") if k in a)
    last = None
    for op in cands:
        td = op.tfdef or _PLAIN
        if not all(0 <= (i if i >= 0 else len(inputs) + i) < len(inputs) and
                   is_const(inputs[i if i >= 0 else len(inputs) + i]) for _, i, _ in td.consts):
            last = f"{where}: {tf_name} needs constant {', '.join(c[0] for c in td.consts)} here"
            continue
        out = {}
        skip = set()
        for attr, i, _ in td.consts:
            j = i if i >= 0 else len(inputs) + i
            skip.add(j)
            out[attr] = np.asarray(inputs[j])
        rest = [x for j, x in enumerate(inputs) if j not in skip]
        back = {v: k for k, v in td.rename.items()}
        for k, v in attrs.items():
            if k.startswith("_") or k in td.drop:
                continue
            if k in derived and k not in back and k not in _kept_types(op):
                continue
            out[back.get(k, k)] = v
        if td.from_tf is not None:
            try:
                out = td.from_tf(out)
            except (TypeError, ValueError, KeyError) as e:
                raise SavedModelError(f"{where}: cannot map {tf_name} attrs: {e}") from None
        allowed = _kernel_params(op, len(rest))
        if allowed is not None:
            for k in list(out):
                if k in allowed:
                    continue
                tfk = td.rename.get(k, k)
                if tfk in specs and _same(out[k], default_python(specs[tfk])):
                    del out[k]
                    continue
                raise SavedModelError(f"{where}: {tf_name} attr {tfk}={out[k]!r} is not supported by tensorlet")
        defaults = _kernel_defaults(op)
        for k, v in list(out.items()):
            if isinstance(v, _dt.DType):
                out[k] = v._np
            elif isinstance(v, str) and isinstance(defaults.get(k), bytes):  # kernels taking bytes attrs
                out[k] = v.encode()
        return op, rest, out
    raise SavedModelError(last)


def _kept_types(op):
    """Type attrs the kernel itself takes (``out_type``, ``output_type``, ``Targmax``...)."""
    params = _kernel_params(op, 0)
    return params or frozenset()


def _same(a, b):
    try:
        if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
            return tuple(a) == tuple(b or ())
        return a == b or (a in ("", None) and b in ("", None))
    except (TypeError, ValueError):
        return False
