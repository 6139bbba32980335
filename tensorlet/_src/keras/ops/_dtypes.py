"""Keras 3's dtype promotion (``keras.backend.result_type``) and the argument conversion ``keras.ops`` shares.

Unlike ``tf.*`` (no implicit promotion), ``keras.ops`` promotes along JAX's lattice: Python ``int``/``float`` are
*weak* (they adopt the other operand's kind), ``int32 + float16 -> float16``, ``uint8 + int8 -> int16``, and a weak
result resolves to the precision of ``floatx()``.  On the TensorFlow backend 64-bit dtypes stay 64-bit except
``uint64`` (-> ``uint32``).

>>> result_type("int32", float)
'float32'
>>> result_type("uint8", "int8")
'int16'
"""

from __future__ import annotations

import functools

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor as _tf_convert
from tensorlet._src.framework.variables import Variable
from tensorlet._src.keras.backend import floatx, standardize_dtype
from tensorlet._src.ops.math_binary import cast as _tf_cast
from tensorlet._src.ops.registry import tf_export

_INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
_FLOATS = ("bfloat16", "float16", "float32", "float64")
_WEAK = ("int", "float")

# each dtype -> the dtypes directly above it (JAX's promotion lattice, as Keras uses it)
_UP = {
    "bool": ["int"],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"], "uint32": ["int64", "uint64"], "uint64": ["float"],
    "int": ["uint8", "int8", "complex64"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["float"],
    "float": ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64", "complex64"],
    "float64": ["complex128"], "complex64": ["complex128"], "complex128": [],
}


def _closure():
    ub = {}
    for n in _UP:
        seen, todo = {n}, [n]
        while todo:
            for m in _UP[todo.pop()]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        ub[n] = frozenset(seen)
    return ub


_UB = _closure()
_TO_TF = {"uint64": "uint32"}  # the TF backend keeps int64/float64/complex128


@functools.lru_cache(512)
def _join(*nodes):
    nodes = set(nodes)
    for n in nodes:
        if n not in _UB:
            raise ValueError(f"dtype={n!r} is not a valid dtype for Keras type promotion.")
    common = frozenset.intersection(*(_UB[n] for n in nodes))
    best = set(common & nodes) or {c for c in common if common <= _UB[c]}
    if len(best) != 1:
        raise ValueError(f"Input dtypes {tuple(sorted(nodes))} have no available implicit dtype promotion path. "
                         "Try explicitly casting inputs to the desired output type.")
    return best.pop()


def _weak_kind(d):
    if d == "bool":
        return d
    for k in ("complex", "float", "int"):
        if k in d:
            return "float" if k == "float" and d == "bfloat16" else k
    raise ValueError(f"Invalid dtype: {d}")


def _resolve(d, bits):
    if d == "bool":
        return d
    if d == "int":
        return f"int{bits}"
    return f"float{bits}"


def _one(arg):
    if arg is int or arg is float:
        return ("int64" if arg is int else "float32"), True
    if arg is bool:
        return "bool", False
    if arg is complex:
        return "complex128", True
    return standardize_dtype(arg), False


@tf_export("keras.backend.result_type")
def result_type(*dtypes):
    """The dtype Keras's promotion rules give for ``dtypes`` (dtypes, dtype names, or the Python types int/float).

    >>> result_type("int32", "float16")
    'float16'
    """
    if not dtypes:
        return floatx()
    if any(isinstance(d, str) and d.startswith("float8") for d in dtypes):
        raise ValueError(f"There is no implicit conversions from float8 dtypes to others. Received: {dtypes}")
    pairs = [_one(floatx() if d is None else d) for d in dtypes]
    names = [p[0] for p in pairs]
    weak = [p[1] for p in pairs]
    if len(names) == 1:
        out, out_weak = names[0], weak[0]
    elif len(set(names)) == 1 and not all(weak):
        out, out_weak = names[0], False
    elif all(weak):
        out, out_weak = _join(*set(names)), True
    else:
        out = _join(*{_weak_kind(n) if w else n for n, w in zip(names, weak)})
        out_weak = out in _WEAK
    if out_weak and out != "bool":
        out = _resolve(_weak_kind(out) if out not in _WEAK else out, floatx()[-2:])
    return _TO_TF.get(out, out)


@tf_export("keras.backend.is_int_dtype")
def is_int_dtype(dtype):
    """True for (unsigned) integer dtypes."""
    return standardize_dtype(dtype) in _INTS


def dtype_of(x, weak=True):
    """A value's dtype name, or the Python type (int/float/bool) for Python scalars (weak types); with
    ``weak=False`` Python scalars count as the tensors they convert to (int32/float32)."""
    if not weak and isinstance(x, (bool, int, float)):
        return standardize_dtype(convert(x).dtype)
    if isinstance(x, bool):
        return bool
    if isinstance(x, int):
        return int
    if isinstance(x, float):
        return float
    d = getattr(x, "dtype", None)
    if d is not None:
        return standardize_dtype(d)
    return standardize_dtype(convert(x).dtype)


def convert(x, dtype=None):
    """``keras.ops.convert_to_tensor``: a tensor (Python floats become floatx, ints int32), cast to ``dtype``."""
    if isinstance(x, Variable):
        x = x.value()
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype.name != dtype:
            return _tf_cast(x, dtype)
        return x
    if dtype is None:
        if isinstance(x, float) or (isinstance(x, (list, tuple)) and _has_float(x)):
            dtype = floatx()
        elif isinstance(x, np.ndarray) and x.dtype == np.uint64:
            dtype = "uint32"
    if dtype is not None and isinstance(x, np.ndarray) and x.dtype.name != dtype and x.dtype.kind not in "OSU":
        return _tf_cast(_tf_convert(x), dtype)
    if dtype is not None and not isinstance(x, (np.ndarray, np.generic)):
        try:
            return _tf_convert(x, dtype=dtype)
        except (TypeError, ValueError):
            return _tf_cast(_tf_convert(x), dtype)
    return _tf_convert(x) if dtype is None else _tf_convert(np.asarray(x).astype(_dt.as_dtype(dtype).as_numpy_dtype))


def _has_float(x):
    for v in x:
        if isinstance(v, float) or (isinstance(v, (list, tuple)) and _has_float(v)):
            return True
    return False


def promote(*xs, weak=True):
    """Converts ``xs`` to tensors of their Keras result dtype (Python scalars weakly typed unless ``weak`` is
    False: most ``keras.ops`` convert their arguments to tensors before promoting)."""
    dt = result_type(*(dtype_of(x, weak) for x in xs))
    return [convert(x, dt) for x in xs]


def cast(x, dtype):
    x = convert(x)
    dtype = standardize_dtype(dtype)
    return x if x.dtype.name == dtype else _tf_cast(x, dtype)


def float_of(dtype):
    """The dtype a float-valued unary op returns: float dtypes stay, others become floatx (``result_type(d, float)``,
    with int64 also going to floatx)."""
    d = standardize_dtype(dtype)
    if d == "int64":
        return floatx()
    return result_type(d, float)
