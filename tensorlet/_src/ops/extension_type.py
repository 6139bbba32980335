"""``tf.experimental.ExtensionType``: user-defined composite tensors.

A subclass declares typed fields; the class gets a constructor that converts and checks them, immutability, a
``Spec`` (its ``TypeSpec``) and the composite protocol (``_type_spec._to_components`` / ``_from_components``) that
``tf.nest(expand_composites=True)``, ``tf.function`` (inputs, outputs, trace keys) and ``tf.data`` use::

    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

Tensor and composite fields are the components; every other field (Python values, dtypes, shapes) is static and
part of the spec, so a new static value retraces a ``tf.function`` as in TF.
"""

from __future__ import annotations

import abc
import collections.abc
import sys
import typing

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TypeSpec

__all__ = ["ExtensionType", "BatchableExtensionType", "ExtensionTypeSpec", "ExtensionTypeBatchEncoder", "as_dict"]

_MISSING = object()
_RESERVED = {"Spec", "_type_spec", "_tl_fields", "_tl_ctor"}


class _Field(typing.NamedTuple):
    name: str
    annotation: object
    default: object


def _type_name(t) -> str:
    return getattr(t, "__name__", repr(t))


def _convert(value, ann, where):
    """``value`` checked/converted for a field annotated ``ann`` (TF's rules, TypeError naming the field)."""
    origin = typing.get_origin(ann)
    if ann is typing.Any or ann is object:
        return value
    if origin is typing.Union:
        args = typing.get_args(ann)
        if value is None and type(None) in args:
            return None
        for a in args:
            if a is type(None):
                continue
            try:
                return _convert(value, a, where)
            except (TypeError, ValueError):
                pass
        raise TypeError(f"{where}: expected {ann}, got {type(value).__name__!r}")
    if origin in (tuple, collections.abc.Sequence):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{where}: expected 'tuple', got {type(value).__name__!r}")
        args = typing.get_args(ann)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if args and len(args) != len(value):
            raise TypeError(f"{where}: expected a tuple of length {len(args)}, got {len(value)}")
        return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args))) if args \
            else tuple(value)
    if origin in (collections.abc.Mapping, dict):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"{where}: expected 'Mapping', got {type(value).__name__!r}")
        args = typing.get_args(ann) or (typing.Any, typing.Any)
        return _FrozenDict({_convert(k, args[0], where): _convert(v, args[1], f"{where}[{k!r}]")
                            for k, v in value.items()})
    if not isinstance(ann, type):
        return value
    if issubclass(ann, Tensor):
        if isinstance(value, Tensor):
            return value
        if getattr(value, "_type_spec", None) is not None and not isinstance(value, Tensor):
            raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}")
        try:
            return convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}") from e
    if ann is TensorShape:
        return TensorShape(value)
    if ann is _dt.DType:
        return _dt.as_dtype(value)
    if ann in (int, str, bytes, bool):
        if not isinstance(value, ann) or (ann is int and isinstance(value, bool)):
            raise TypeError(f"{where}: expected {_type_name(ann)!r}, got {type(value).__name__!r}")
        return value
    if ann is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"{where}: expected 'float', got {type(value).__name__!r}")
        return float(value)
    if not isinstance(value, ann):
        raise TypeError(f"{where}: expected {_type_name(ann)!r}, got {type(value).__name__!r}")
    return value


class _FrozenDict(dict):
    """The immutable mapping TF stores in Mapping fields."""

    def _immutable(self, *a, **k):
        raise TypeError("'ImmutableDict' object does not support item assignment")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _immutable

    def __hash__(self):
        return hash(tuple(sorted(self.items(), key=repr)))


# --- value <-> (spec, components) -------------------------------------------------------------------------------

def _is_component(v) -> bool:
    return isinstance(v, Tensor) or (getattr(v, "_type_spec", None) is not None and not isinstance(v, type))


def _spec_tree(v):
    """A field value with each tensor replaced by its TensorSpec and each composite by its TypeSpec."""
    if isinstance(v, Tensor):
        return TensorSpec(v.shape, v.dtype)
    if _is_component(v):
        return v._type_spec
    if isinstance(v, tuple):
        return tuple(_spec_tree(x) for x in v)
    if isinstance(v, _FrozenDict):
        return _FrozenDict({k: _spec_tree(x) for k, x in v.items()})
    return v


def _leaves(v, out):
    if _is_component(v):
        out.append(v)
    elif isinstance(v, tuple):
        for x in v:
            _leaves(x, out)
    elif isinstance(v, _FrozenDict):
        for k in sorted(v, key=repr):
            _leaves(v[k], out)
    return out


def _spec_leaves(s, out):
    if isinstance(s, TypeSpec):
        out.append(s)
    elif isinstance(s, tuple):
        for x in s:
            _spec_leaves(x, out)
    elif isinstance(s, _FrozenDict):
        for k in sorted(s, key=repr):
            _spec_leaves(s[k], out)
    return out


def _rebuild(s, it):
    if isinstance(s, TypeSpec):
        return next(it)
    if isinstance(s, tuple):
        return tuple(_rebuild(x, it) for x in s)
    if isinstance(s, _FrozenDict):
        vals = {k: None for k in s}
        for k in sorted(s, key=repr):
            vals[k] = _rebuild(s[k], it)
        return _FrozenDict(vals)
    return s


def _static(s):
    """The hashable static part of a spec tree (its TypeSpecs stand in as their class)."""
    if isinstance(s, TypeSpec):
        return type(s).__name__
    if isinstance(s, tuple):
        return tuple(_static(x) for x in s)
    if isinstance(s, _FrozenDict):
        return tuple((k, _static(s[k])) for k in sorted(s, key=repr))
    if isinstance(s, TensorShape):
        return ("shape", tuple(s.as_list()) if s.rank is not None else None)
    try:
        hash(s)
        return s
    except TypeError:
        return ("id", id(s))


def _map_specs(fn, s):
    if isinstance(s, TypeSpec):
        return fn(s)
    if isinstance(s, tuple):
        return tuple(_map_specs(fn, x) for x in s)
    if isinstance(s, _FrozenDict):
        return _FrozenDict({k: _map_specs(fn, x) for k, x in s.items()})
    return s


def _spec_fmt(v):
    return repr(dict(v)) if isinstance(v, _FrozenDict) else repr(v)


@tf_export("experimental.ExtensionTypeSpec")
class ExtensionTypeSpec(TypeSpec):
    """The ``TypeSpec`` of an ExtensionType (each subclass gets its own ``Spec`` subclass of this)."""

    __slots__ = ("_tl_values",)
    _tl_value_type = None

    def __init__(self, *args, **kwargs):
        cls = self._tl_value_type
        if cls is None:
            raise TypeError("ExtensionTypeSpec is abstract; use the `Spec` of an ExtensionType subclass")
        fields = cls._tl_fields
        values = {}
        names = [f.name for f in fields]
        if len(args) > len(names):
            raise TypeError(f"too many positional arguments: {len(args)} > {len(names)}")
        for n, a in zip(names, args):
            values[n] = a
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"multiple values for argument {k!r}")
            values[k] = v
        for n in names:
            if n not in values:
                raise TypeError(f"missing a required argument: {n!r}")
        object.__setattr__(self, "_tl_values", tuple(values[n] for n in names))

    @classmethod
    def _tl_make(cls, values):
        s = object.__new__(cls)
        object.__setattr__(s, "_tl_values", tuple(values))
        return s

    def __setattr__(self, name, value):
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionTypeSpec.")

    def __getattr__(self, name):
        cls = type(self)._tl_value_type
        if cls is not None and name != "_tl_values":
            for f, v in zip(cls._tl_fields, object.__getattribute__(self, "_tl_values")):
                if f.name == name:
                    return v
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def value_type(self):
        return self._tl_value_type

    @classmethod
    def from_value(cls, value):
        return value._type_spec

    # --- the composite protocol ---
    def _to_components(self, value):
        out = []
        for f in self._tl_value_type._tl_fields:
            _leaves(object.__getattribute__(value, f.name), out)
        return out

    def _from_components(self, components):
        it = iter(components)
        cls = self._tl_value_type
        obj = object.__new__(cls)
        for f, s in zip(cls._tl_fields, self._tl_values):
            object.__setattr__(obj, f.name, _rebuild(s, it))
        return obj

    @property
    def _static_key(self):
        return tuple(_static(v) for v in self._tl_values)

    @property
    def _component_specs(self):
        out = []
        for v in self._tl_values:
            _spec_leaves(v, out)
        if all(isinstance(s, TensorSpec) for s in out):
            return out
        return None

    def _tl_map(self, fn):
        return type(self)._tl_make([_map_specs(fn, v) for v in self._tl_values])

    # --- type relations ---
    def _leaf_pairs(self, other):
        if type(other) is not type(self) or self._static_key != other._static_key:
            return None
        a, b = [], []
        for x, y in zip(self._tl_values, other._tl_values):
            _spec_leaves(x, a)
            _spec_leaves(y, b)
        return list(zip(a, b)) if len(a) == len(b) else None

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        pairs = self._leaf_pairs(other) if other is not None else None
        return pairs is not None and all(a.is_compatible_with(b) for a, b in pairs)

    def is_subtype_of(self, other):
        pairs = self._leaf_pairs(other)
        return pairs is not None and all(a.is_subtype_of(b) for a, b in pairs)

    def most_specific_common_supertype(self, others):
        out = self
        for o in others:
            pairs = out._leaf_pairs(o)
            if pairs is None:
                return None
            sup = []
            for a, b in pairs:
                s = a.most_specific_common_supertype([b])
                if s is None:
                    return None
                sup.append(s)
            out = out._tl_map(lambda _s, _it=iter(sup): next(_it))
        return out

    def _batch(self, batch_size):
        return self._tl_map(lambda s: s._batch(batch_size))

    def _unbatch(self):
        return self._tl_map(lambda s: s._unbatch())

    def __eq__(self, other):
        return type(other) is type(self) and self._tl_values == other._tl_values

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), self._static_key, tuple(
            (tuple(s.shape.as_list()) if s.shape.rank is not None else None, s.dtype) if isinstance(s, TensorSpec)
            else s for s in _spec_leaves(self._tl_values, []))))

    def __repr__(self):
        cls = self._tl_value_type
        body = ", ".join(f"{f.name}={_spec_fmt(v)}" for f, v in zip(cls._tl_fields, self._tl_values))
        return f"{cls.__qualname__}.Spec({body})"

    def __reduce__(self):
        raise TypeError("tensorlet never pickles values")


def _fields_of(cls) -> tuple:
    """The declared fields of ``cls`` and its ExtensionType bases, in declaration order."""
    fields: dict = {}
    for klass in reversed(cls.__mro__):
        ann = klass.__dict__.get("__annotations__", {})
        if not ann:
            continue
        mod = sys.modules.get(klass.__module__)
        try:
            hints = typing.get_type_hints(klass, vars(mod) if mod else None, dict(vars(klass)))
        except Exception:  # noqa: BLE001  (a forward reference that does not resolve: keep the raw annotation)
            hints = {}
        for name in ann:
            if name.startswith("__") or typing.get_origin(ann[name]) is typing.ClassVar:
                continue
            if name in _RESERVED:
                raise ValueError(f"The field name {name!r} is reserved.")
            a = hints.get(name, ann[name])
            if typing.get_origin(a) is typing.ClassVar:
                continue
            if a is list or typing.get_origin(a) is list:
                raise TypeError(f"In field {name!r}: Unsupported type annotation {a!r}")
            default = klass.__dict__.get(name, _MISSING)
            fields[name] = _Field(name, a, default)
    return tuple(fields.values())


@tf_export("experimental.ExtensionType")
class ExtensionType:
    """Base class for user-defined composite tensors: typed, immutable fields; a generated ``Spec``."""

    _tl_fields = ()
    Spec = ExtensionTypeSpec

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._tl_fields = _fields_of(cls)
        for f in cls._tl_fields:  # class attributes holding defaults would shadow nothing: keep them off the class
            if f.name in cls.__dict__:
                delattr(cls, f.name)
        user_spec = cls.__dict__.get("Spec")
        base = user_spec if isinstance(user_spec, type) else next(
            (b.Spec for b in cls.__mro__[1:] if "Spec" in b.__dict__), ExtensionTypeSpec)
        bases = (base,) if issubclass(base, ExtensionTypeSpec) else (base, ExtensionTypeSpec)
        spec = abc.ABCMeta("Spec", bases, {"__slots__": (), "_tl_value_type": cls, "__module__": cls.__module__,
                                    "__qualname__": f"{cls.__qualname__}.Spec"})
        spec.__name__ = f"{cls.__name__}.Spec"
        cls.Spec = spec
        user_init = cls.__dict__.get("__init__")
        if user_init is not None:
            cls.__init__ = _wrap_user_init(user_init)

    def __init__(self, *args, **kwargs):
        fields = type(self)._tl_fields
        if type(self) is ExtensionType or type(self) is BatchableExtensionType:
            raise AssertionError("Cannot create an instance of ExtensionType because ExtensionType is an abstract "
                                 "base class.")
        names = [f.name for f in fields]
        if len(args) > len(names):
            raise TypeError(f"too many positional arguments: expected at most {len(names)}, got {len(args)}")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"multiple values for argument {k!r}")
            values[k] = v
        for f in fields:
            if f.name not in values:
                if f.default is _MISSING:
                    raise TypeError(f"missing a required argument: {f.name!r}")
                values[f.name] = f.default
        for f in fields:
            object.__setattr__(self, f.name, _convert(values[f.name], f.annotation, f.name))
        self._tl_after_init()

    def _tl_after_init(self):
        for f in type(self)._tl_fields:
            if f.name not in self.__dict__:
                raise ValueError(f"Field {f.name} was not set by the custom constructor of "
                                 f"{type(self).__name__}.")
            object.__setattr__(self, f.name, _convert(self.__dict__[f.name], f.annotation, f.name))
        validate = getattr(self, "__validate__", None)
        if validate is not None:
            validate()

    def __setattr__(self, name, value):
        if self.__dict__.get("_tl_ctor"):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")

    def __delattr__(self, name):
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")

    @property
    def _type_spec(self):
        cls = type(self)
        return cls.Spec._tl_make([_spec_tree(self.__dict__[f.name]) for f in cls._tl_fields])

    def __repr__(self):
        body = ", ".join(f"{f.name}={_spec_fmt(self.__dict__[f.name])}" for f in type(self)._tl_fields)
        return f"{type(self).__qualname__}({body})"

    def __eq__(self, other):
        from tensorlet._src.ops import math_binary, reduce

        if type(other) is not type(self):
            return convert_to_tensor(False)
        if self._type_spec._static_key != other._type_spec._static_key:
            return convert_to_tensor(False)
        a, b = _leaves_of(self), _leaves_of(other)
        result = convert_to_tensor(True)
        for x, y in zip(a, b):
            if not isinstance(x, Tensor) or not isinstance(y, Tensor):
                x, y = _leaves_flat(x), _leaves_flat(y)
            else:
                x, y = [x], [y]
            for u, v in zip(x, y):
                if u.dtype != v.dtype or (u.shape.rank is not None and v.shape.rank is not None and
                                          u.shape.is_fully_defined() and v.shape.is_fully_defined() and
                                          u.shape != v.shape):
                    return convert_to_tensor(False)
                result = math_binary.logical_and(result, reduce.reduce_all(math_binary.equal(u, v)))
        return result

    def __ne__(self, other):
        from tensorlet._src.ops import math_binary

        return math_binary.logical_not(self.__eq__(other))

    __hash__ = None

    def __reduce__(self):
        raise TypeError("tensorlet never pickles values")


def _leaves_of(value):
    out = []
    for f in type(value)._tl_fields:
        _leaves(value.__dict__[f.name], out)
    return out


def _leaves_flat(v):
    if isinstance(v, Tensor):
        return [v]
    out = []
    for c in v._type_spec._to_components(v):
        out.extend(_leaves_flat(c))
    return out


def _wrap_user_init(user_init):
    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_tl_ctor", True)
        try:
            user_init(self, *args, **kwargs)
        finally:
            del self.__dict__["_tl_ctor"]
        self._tl_after_init()

    __init__.__wrapped__ = user_init
    return __init__


@tf_export("experimental.BatchableExtensionType")
class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values can be batched and unbatched (``tf.data`` ``batch``/``unbatch``,
    ``tf.map_fn``): each tensor field gains/loses an outer dimension."""


@tf_export("experimental.ExtensionTypeBatchEncoder")
class ExtensionTypeBatchEncoder:
    """How a BatchableExtensionType's spec is batched: its component specs each gain an outer dimension."""

    def batch(self, spec, batch_size):
        return spec._batch(batch_size)

    def unbatch(self, spec):
        return spec._unbatch()

    def encode(self, spec, value, minimum_rank=0):
        return spec._to_components(value)

    def decode(self, spec, encoded_value):
        return spec._from_components(encoded_value)

    def encoding_specs(self, spec):
        return _spec_leaves(spec._tl_values, [])


@tf_export("experimental.extension_type.as_dict")
def as_dict(value):
    """The fields of an ExtensionType value as a dict (``{'values': ..., 'mask': ...}``)."""
    return {f.name: value.__dict__[f.name] for f in type(value)._tl_fields}
