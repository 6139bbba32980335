"""TensorFlow's dtypes as objects over NumPy dtypes.

A ``DType`` is a singleton per TF type; ``as_dtype`` accepts everything TF accepts
(DType, name, NumPy dtype or type, Python type, enum value).  ``from_numpy`` is
the hot-path mapping used by tensors (a single dict lookup).
"""

from __future__ import annotations

import builtins
import sys

import numpy as np

__all__ = ["DType", "as_dtype"]

# ml_dtypes (bfloat16) takes ~1-2 s to import (its extension module), so it loads only when first needed:
# ``bfloat16._np`` resolves it on first use, and an array can only be bfloat16 once the user (or jax) imported
# it.  Kernels test for bfloat16 with the helpers below, which never import it.


class DType:
    """A TensorFlow element type.  ``tf.float32``, ``tf.int32``, ``tf.string``, ..."""

    __slots__ = ("_name", "_np", "_enum", "_kind", "__weakref__")

    def __init__(self, name: str, np_type, enum: int, kind: str):
        self._name = name
        self._np = np_type
        self._enum = enum
        # kind: 'f' float, 'i' signed int, 'u' unsigned, 'b' bool, 'c' complex,
        # 's' string, 'r' resource/variant
        self._kind = kind

    name = property(lambda self: self._name)
    as_numpy_dtype = property(lambda self: object if self._kind in "sr" else
                              self._np if self._kind == "q" else self._np.type)
    as_datatype_enum = property(lambda self: self._enum)
    base_dtype = property(lambda self: self)
    is_floating = property(lambda self: self._kind == "f")
    is_integer = property(lambda self: self._kind in "iu")
    is_unsigned = property(lambda self: self._kind in "ub")
    is_complex = property(lambda self: self._kind == "c")
    is_bool = property(lambda self: self._kind == "b")
    is_numeric = property(lambda self: self._kind in "fiucq")
    is_quantized = property(lambda self: self._kind == "q")
    is_numpy_compatible = property(lambda self: self._kind != "r")

    @property
    def real_dtype(self) -> DType:
        if self is complex64:
            return float32
        if self is complex128:
            return float64
        return self

    @property
    def size(self) -> int:
        if self._kind in "sr":
            return 1
        return np.dtype(self._np).itemsize

    def __getattr__(self, name):
        # only reached for an unset slot: bfloat16's (or an ml_dtypes type's) NumPy dtype, resolved (and
        # registered) on first use
        if name == "_np" and self._name == "bfloat16":
            return _resolve_bfloat16()
        if name == "_np" and self._name in _ML_LAZY:
            return _resolve_ml(self)
        raise AttributeError(f"'DType' object has no attribute {name!r}")

    def _info(self):
        if self._kind == "q":
            raise TypeError(f"Cannot find minimum value of {self} with quantized type {self}.")
        if self._kind == "f":
            return finfo(self._np)
        if self._kind in "iu":
            return iinfo(self._np)
        raise TypeError(f"Cannot find minimum/maximum value for {self._name}.")

    @property
    def min(self):
        if self._kind == "b":
            return False
        return self._info().min

    @property
    def max(self):
        if self._kind == "b":
            return True
        return self._info().max

    @property
    def limits(self):
        return (self.min, self.max)

    def is_compatible_with(self, other) -> bool:
        return self is as_dtype(other)

    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return "tf." + self._name

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


_OBJ = np.dtype(object)

float16 = DType("float16", np.dtype(np.float16), 19, "f")
bfloat16 = DType.__new__(DType)  # its NumPy dtype (slot _np) is set by _resolve_bfloat16
bfloat16._name, bfloat16._enum, bfloat16._kind = "bfloat16", 14, "f"
float32 = DType("float32", np.dtype(np.float32), 1, "f")
float64 = DType("float64", np.dtype(np.float64), 2, "f")
int8 = DType("int8", np.dtype(np.int8), 6, "i")
int16 = DType("int16", np.dtype(np.int16), 5, "i")
int32 = DType("int32", np.dtype(np.int32), 3, "i")
int64 = DType("int64", np.dtype(np.int64), 9, "i")
uint8 = DType("uint8", np.dtype(np.uint8), 4, "u")
uint16 = DType("uint16", np.dtype(np.uint16), 17, "u")
uint32 = DType("uint32", np.dtype(np.uint32), 22, "u")
uint64 = DType("uint64", np.dtype(np.uint64), 23, "u")
bool = DType("bool", np.dtype(np.bool_), 10, "b")  # noqa: A001 - TF's public name
complex64 = DType("complex64", np.dtype(np.complex64), 8, "c")
complex128 = DType("complex128", np.dtype(np.complex128), 18, "c")
string = DType("string", _OBJ, 7, "s")
resource = DType("resource", _OBJ, 20, "r")
variant = DType("variant", _OBJ, 21, "r")

half = float16
double = float64

ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16,
       uint32, uint64, bool, complex64, complex128, string, resource, variant)

# TF's quantized types: NumPy structured dtypes over the storage integer, as TF's ``as_numpy_dtype``
qint8 = DType("qint8", np.dtype([("qint8", np.int8)]), 11, "q")
quint8 = DType("quint8", np.dtype([("quint8", np.uint8)]), 12, "q")
qint32 = DType("qint32", np.dtype([("qint32", np.int32)]), 13, "q")
qint16 = DType("qint16", np.dtype([("qint16", np.int16)]), 15, "q")
quint16 = DType("quint16", np.dtype([("quint16", np.uint16)]), 16, "q")
QUANTIZED = (qint8, quint8, qint16, quint16, qint32)
QUANTIZED_DTYPES = frozenset(QUANTIZED)


def _ml(name, enum, kind):
    d = DType.__new__(DType)  # its NumPy dtype (slot _np) is resolved from ml_dtypes on first use
    d._name, d._enum, d._kind = name, enum, kind
    return d


# tf.dtypes.experimental: the narrow types of ml_dtypes (loaded lazily, as bfloat16)
float8_e5m2 = _ml("float8_e5m2", 24, "f")
float8_e4m3fn = _ml("float8_e4m3fn", 25, "f")
float8_e4m3fnuz = _ml("float8_e4m3fnuz", 26, "f")
float8_e4m3b11fnuz = _ml("float8_e4m3b11fnuz", 27, "f")
float8_e5m2fnuz = _ml("float8_e5m2fnuz", 28, "f")
int4 = _ml("int4", 29, "i")
uint4 = _ml("uint4", 30, "u")
int2 = _ml("int2", 31, "i")
uint2 = _ml("uint2", 32, "u")
float4_e2m1fn = _ml("float4_e2m1fn", 33, "f")
EXPERIMENTAL = (float8_e5m2, float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2fnuz, int4, uint4,
                int2, uint2, float4_e2m1fn)
_ML_LAZY = {d._name: d for d in EXPERIMENTAL}

# numpy dtype -> DType (the hot path: Tensor.dtype is one lookup here)
class _FromNumpy(dict):
    """The table; a miss on a bfloat16 NumPy dtype (made before we resolved ours) registers it."""

    def __missing__(self, key):
        if is_bfloat16_np(key):
            _resolve_bfloat16()
            return bfloat16
        ml = _ML_LAZY.get(getattr(key, "name", None) if isinstance(key, np.dtype) else getattr(key, "__name__", None))
        if ml is not None and np.dtype(key).kind == "V":
            _resolve_ml(ml)
            return ml
        raise KeyError(key)


_FROM_NP: dict = _FromNumpy({d._np: d for d in ALL if d._kind != "r" and d is not bfloat16})
_FROM_NP.update({d._np: d for d in QUANTIZED})
_FROM_NP[_OBJ] = string
for _c in ("S", "U"):
    _FROM_NP[np.dtype(_c)] = string

_BY_NAME = {d._name: d for d in ALL + QUANTIZED + EXPERIMENTAL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "bool_": bool,
                 "complex": complex128, "str": string, "bytes": string})
_BY_ENUM = {d._enum: d for d in ALL + QUANTIZED + EXPERIMENTAL}
_PY = {builtins.float: float32, builtins.bool: bool, builtins.complex: complex128,
       builtins.str: string, builtins.bytes: string, builtins.object: string}

FLOATS = (float16, bfloat16, float32, float64)
INTS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
SIGNED_INTS = (int8, int16, int32, int64)
COMPLEX = (complex64, complex128)
REALS = FLOATS + INTS
NUMERIC = REALS + COMPLEX
INEXACT = FLOATS + COMPLEX


def from_numpy(np_dtype) -> DType:
    """DType of a NumPy dtype; raises TypeError for types TF does not have."""
    try:
        return _FROM_NP[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        d = np.dtype(np_dtype)
    except TypeError:
        d = None
    if d is not None:
        if d.kind in "SUO":
            return string
        r = _FROM_NP.get(d)
        if r is not None:
            return r
        if d.name == "bfloat16" and d.kind == "V":
            _resolve_bfloat16()
            return bfloat16
        if d.name in _ML_LAZY and d.kind == "V":
            return _ML_LAZY[d.name] if _resolve_ml(_ML_LAZY[d.name]) is not None else None
    raise TypeError(f"Cannot convert the argument `type_value`: {np_dtype!r} to a TensorFlow DType.")


def as_dtype(type_value) -> DType:
    """Converts ``type_value`` (DType, name, NumPy type, Python type, enum) to a ``DType``."""
    if type_value.__class__ is DType:
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, builtins.int) and not isinstance(type_value, builtins.bool):
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, type) and type_value in _PY:
        return _PY[type_value]
    else:
        inner = getattr(type_value, "dtype", None)
        if isinstance(inner, DType):
            return inner
        if isinstance(type_value, np.dtype) or (isinstance(type_value, type) and issubclass(type_value, np.generic)):
            return from_numpy(type_value)
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")


def _resolve_bfloat16():
    import ml_dtypes  # noqa: PLC0415 - deliberately lazy (see the module docstring)

    d = np.dtype(ml_dtypes.bfloat16)
    bfloat16._np = d
    _FROM_NP[d] = bfloat16
    return d


def _resolve_ml(dt):
    import ml_dtypes  # noqa: PLC0415 - deliberately lazy (see the module docstring)

    d = np.dtype(getattr(ml_dtypes, dt._name))
    dt._np = d
    _FROM_NP[d] = dt
    return d


def bfloat16_loaded() -> builtins.bool:
    """Whether ml_dtypes was imported (no array can be bfloat16 before that)."""
    return "ml_dtypes" in sys.modules


def is_bfloat16_np(d) -> builtins.bool:
    """Whether NumPy dtype ``d`` is bfloat16, without importing ml_dtypes."""
    return (d.name if isinstance(d, np.dtype) else getattr(d, "__name__", None)) == "bfloat16"


def is_float_np(d) -> builtins.bool:
    """A floating NumPy dtype, bfloat16 included (whose NumPy kind is 'V')."""
    d = np.dtype(d)
    return d.kind == "f" or is_bfloat16_np(d)


def is_low_float_np(d) -> builtins.bool:
    """float16 or bfloat16: kernels accumulate these in float32."""
    d = np.dtype(d)
    return d == np.float16 or is_bfloat16_np(d)


def iinfo(d):
    """``np.iinfo`` that also knows ml_dtypes' int4/uint4/int2/uint2."""
    d = np.dtype(d)
    if d.kind == "V":
        import ml_dtypes  # noqa: PLC0415 - lazy, see the module docstring

        return ml_dtypes.iinfo(d)
    return np.iinfo(d)


def finfo(d):
    """``np.finfo`` that also knows bfloat16 and float8 (through ml_dtypes, already loaded if an array is one)."""
    d = np.dtype(d)
    if d.kind == "V":
        import ml_dtypes  # noqa: PLC0415 - lazy, see the module docstring

        return ml_dtypes.finfo(d)
    return np.finfo(d)


def result_type_of_truediv(d: DType) -> DType:
    """TF's truediv: small ints -> float32, 32/64-bit ints -> float64, others unchanged."""
    if d in (int8, int16, uint8, uint16):
        return float32
    if d in (int32, int64, uint32, uint64):
        return float64
    return d
