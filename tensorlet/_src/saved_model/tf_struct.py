"""TF's ``StructuredValue`` (struct.proto): function input signatures, outputs and argument specs.

Encoding takes Python structures of tensors/specs (``spec_of(x)`` gives ``(shape, dtype, name)``) and plain
values; decoding builds only tuples, lists, dicts, named-tuple-like dicts, numbers, strings, None, dtypes,
shapes and ``TensorSpec``s — never a class named by the file.
"""

from __future__ import annotations

from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import SavedModelError, Unsupported
from tensorlet._src.saved_model.tf_ops import dtype_enum, dtype_of, shape_from, shape_proto

MAX_DEPTH = 64


def encode(value, spec_of, where, out=None, depth=0):
    """``value`` as a StructuredValue; ``spec_of(x)`` returns ``(shape, dtype, name)`` for tensor-like leaves."""
    out = P.StructuredValue() if out is None else out
    if depth > MAX_DEPTH:
        raise Unsupported(f"{where}: structure nested too deeply")
    spec = spec_of(value)
    if spec is not None:
        shape, dtype, name = spec
        ts = out.tensor_spec_value
        if name:
            ts.name = name
        shape_proto(shape, ts.shape)
        ts.dtype = dtype_enum(dtype)
    elif value is None:
        out.none_value.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        out.int64_value = value
    elif isinstance(value, float):
        out.float64_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, TensorShape):
        shape_proto(value, out.tensor_shape_value)
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        nt = out.named_tuple_value
        nt.name = type(value).__name__
        for k, v in zip(value._fields, value):
            pair = nt.values.add(key=k)
            encode(v, spec_of, where, pair.value, depth + 1)
    elif isinstance(value, (list, tuple)):
        holder = out.list_value if isinstance(value, list) else out.tuple_value
        holder.SetInParent()
        for v in value:
            encode(v, spec_of, where, holder.values.add(), depth + 1)
    elif isinstance(value, dict):
        out.dict_value.SetInParent()
        for k in sorted(value, key=str):
            if not isinstance(k, str):
                raise Unsupported(f"{where}: dict key {k!r} is not a string")
            encode(value[k], spec_of, where, out.dict_value.fields[k], depth + 1)
    else:
        raise Unsupported(f"{where}: cannot encode a {type(value).__name__} in a SavedModel signature")
    return out


class Spec:
    """A decoded ``TensorSpecProto``: shape, dtype, name."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype, name):
        self.shape, self.dtype, self.name = shape, dtype, name

    def __repr__(self):
        return f"Spec({self.shape}, {self.dtype.name}, {self.name!r})"


def decode(sv, where, depth=0):
    """A StructuredValue as Python: tuples, lists, dicts, scalars, None, ``Spec`` leaves."""
    if depth > MAX_DEPTH:
        raise SavedModelError(f"{where}: structure nested too deeply")
    kind = sv.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(sv, kind)
    if kind == "tensor_shape_value":
        return shape_from(sv.tensor_shape_value, where)
    if kind == "tensor_dtype_value":
        return dtype_of(sv.tensor_dtype_value, where)
    if kind in ("tensor_spec_value", "bounded_tensor_spec_value"):
        ts = getattr(sv, kind)
        return Spec(shape_from(ts.shape, where), dtype_of(ts.dtype, where), ts.name or None)
    if kind == "list_value":
        return [decode(v, where, depth + 1) for v in sv.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(v, where, depth + 1) for v in sv.tuple_value.values)
    if kind == "dict_value":
        return {k: decode(sv.dict_value.fields[k], where, depth + 1) for k in sorted(sv.dict_value.fields)}
    if kind == "named_tuple_value":
        return {p.key: decode(p.value, where, depth + 1) for p in sv.named_tuple_value.values}
    raise SavedModelError(f"{where}: unsupported structured value {kind} (composite tensors are not loaded)")


def fullargspec(names, defaults=None, out=None, kwonly=()):
    """TF's FunctionSpec.fullargspec: a FullArgSpec named tuple of the Python parameters."""
    out = P.StructuredValue() if out is None else out
    nt = out.named_tuple_value
    nt.name = "FullArgSpec"

    def put(key):
        return nt.values.add(key=key).value

    args = put("args").list_value
    args.SetInParent()
    for n in names:
        args.values.add(string_value=n)
    put("varargs").none_value.SetInParent()
    put("varkw").none_value.SetInParent()
    d = put("defaults")
    if defaults:
        for v in defaults:
            encode(v, lambda x: None, "defaults", d.tuple_value.values.add())
    else:
        d.none_value.SetInParent()
    kw = put("kwonlyargs").list_value
    kw.SetInParent()
    for n in kwonly:
        kw.values.add(string_value=n)
    put("kwonlydefaults").none_value.SetInParent()
    put("annotations").dict_value.SetInParent()
    return out
