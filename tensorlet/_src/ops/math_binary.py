"""Binary arithmetic, comparisons, logical and bitwise ops, and casts."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import binary, same_dtype, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

D = _dt
ARITH = D.NUMERIC  # TF's AddV2/Mul/Sub allowed types
SIGNED = D.FLOATS + D.SIGNED_INTS + D.COMPLEX
REAL = D.REALS


def _int_divisor_check(op_name):
    def check(x, y):
        if y._v.dtype.kind in "iu" and not np.all(y._v):
            raise errors.invalid_argument(op_name, "Integer division by zero")
    return check


ADD = defop("AddV2", lambda xp, x, y: xp.add(x, y), dtypes=ARITH, shape=shapes.broadcast)
SUB = defop("Sub", lambda xp, x, y: xp.subtract(x, y), dtypes=ARITH, shape=shapes.broadcast)
MUL = defop("Mul", lambda xp, x, y: xp.multiply(x, y), dtypes=ARITH, shape=shapes.broadcast)
REALDIV = defop("RealDiv", lambda xp, x, y: xp.divide(x, y).astype(x.dtype, copy=False), dtypes=ARITH,
                shape=shapes.broadcast, quiet=True)
DIVNONAN = defop("DivNoNan", lambda xp, x, y: xp.where(y == 0, xp.zeros_like(x), x / xp.where(y == 0, 1, y)
                                                       ).astype(x.dtype, copy=False),
                 dtypes=D.INEXACT, shape=shapes.broadcast, quiet=True)
FLOORDIV = defop("FloorDiv", lambda xp, x, y: xp.floor_divide(x, y), dtypes=REAL, shape=shapes.broadcast,
                 check=_int_divisor_check("FloorDiv"), quiet=True, grad=NONDIFF)
FLOORMOD = defop("FloorMod", lambda xp, x, y: xp.mod(x, y), dtypes=REAL, shape=shapes.broadcast,
                 check=_int_divisor_check("FloorMod"), quiet=True)
MAXIMUM = defop("Maximum", lambda xp, x, y: xp.maximum(x, y), dtypes=REAL, shape=shapes.broadcast)
MINIMUM = defop("Minimum", lambda xp, x, y: xp.minimum(x, y), dtypes=REAL, shape=shapes.broadcast)
SQDIFF = defop("SquaredDifference", lambda xp, x, y: xp.square(x - y) if x.dtype.kind != "c"
               else (x - y) * xp.conj(x - y), dtypes=ARITH, shape=shapes.broadcast)


def _check_pow(x, y):
    if x._v.dtype.kind in "iu" and np.any(y._v < 0):
        raise errors.invalid_argument("Pow", "Integers to negative integer powers are not allowed")


MULNONAN = defop("MulNoNan", lambda xp, x, y: xp.where(y == 0, xp.zeros_like(x), x * y), dtypes=D.INEXACT,
                 shape=shapes.broadcast, quiet=True)
POW = defop("Pow", lambda xp, x, y: xp.power(x, y), dtypes=D.FLOATS + (D.int8, D.int16, D.int32, D.int64)
            + D.COMPLEX, shape=shapes.broadcast, check=_check_pow, quiet=True)


@tf_export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting.  ``tf.add([1, 2], 3)`` -> ``[4, 5]``."""
    if x.__class__ is EagerTensor and y.__class__ is EagerTensor and x._v.dtype == y._v.dtype \
            and x._v.dtype.kind != "O":
        return bind(ADD, x, y)
    x, y = same_dtype("AddV2", x, y)
    if x.dtype is D.string:
        return bind(STRING_ADD, x, y)
    return bind(ADD, x, y)


STRING_ADD = defop("Add", lambda xp, x, y: np.char.add(x.astype(bytes), y.astype(bytes)).astype(object)
                   if np.ndim(x) or np.ndim(y) else _obj0(x[()] + y[()]), dtypes=(D.string,), grad=NONDIFF)


def _obj0(v):
    a = np.empty((), object)
    a[()] = v
    return a


@tf_export("math.subtract", "subtract")
def subtract(x, y, name=None):
    return binary(SUB, x, y)


@tf_export("math.multiply", "multiply")
def multiply(x, y, name=None):
    return binary(MUL, x, y)


@tf_export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None):
    return binary(MULNONAN, x, y)


@tf_export("math.truediv", "truediv")
def truediv(x, y, name=None):
    """TF's ``/``: integers are cast to float first (int8/16 -> float32, int32/64 -> float64)."""
    x, y = same_dtype("RealDiv", x, y)
    d = x.dtype
    if d._kind in "iu":
        ft = _dt.result_type_of_truediv(d)
        x, y = cast(x, ft), cast(y, ft)
    return bind(REALDIV, x, y)


@tf_export("math.divide", "divide")
def divide(x, y, name=None):
    return truediv(x, y)


@tf_export("math.realdiv", "realdiv")
def realdiv(x, y, name=None):
    return binary(REALDIV, x, y)


@tf_export("math.divide_no_nan", "div_no_nan")
def divide_no_nan(x, y, name=None):
    x, y = same_dtype("DivNoNan", x, y)
    if x.dtype._kind in "iu":
        ft = _dt.result_type_of_truediv(x.dtype)
        x, y = cast(x, ft), cast(y, ft)
    return bind(DIVNONAN, x, y)


@tf_export("math.floordiv", "floordiv")
def floordiv(x, y, name=None):
    return binary(FLOORDIV, x, y)


@tf_export("math.floormod", "math.mod", "floormod", "mod")
def floormod(x, y, name=None):
    return binary(FLOORMOD, x, y)


@tf_export("math.pow", "pow")
def pow(x, y, name=None):  # noqa: A001 - TF's name
    return binary(POW, x, y)


@tf_export("math.maximum", "maximum")
def maximum(x, y, name=None):
    return binary(MAXIMUM, x, y)


@tf_export("math.minimum", "minimum")
def minimum(x, y, name=None):
    return binary(MINIMUM, x, y)


@tf_export("math.squared_difference", "squared_difference")
def squared_difference(x, y, name=None):
    return binary(SQDIFF, x, y)


# --- comparisons -----------------------------------------------------------------------

def _cmp(name, fn, dtypes):
    return defop(name, fn, dtypes=dtypes, shape=shapes.broadcast_bool, grad=NONDIFF)


LESS = _cmp("Less", lambda xp, x, y: xp.less(x, y), REAL)
LESS_EQUAL = _cmp("LessEqual", lambda xp, x, y: xp.less_equal(x, y), REAL)
GREATER = _cmp("Greater", lambda xp, x, y: xp.greater(x, y), REAL)
GREATER_EQUAL = _cmp("GreaterEqual", lambda xp, x, y: xp.greater_equal(x, y), REAL)
EQUAL = _cmp("Equal", lambda xp, x, y: xp.equal(x, y), None)
NOT_EQUAL = _cmp("NotEqual", lambda xp, x, y: xp.not_equal(x, y), None)


@tf_export("math.less", "less")
def less(x, y, name=None):
    return binary(LESS, x, y)


@tf_export("math.less_equal", "less_equal")
def less_equal(x, y, name=None):
    return binary(LESS_EQUAL, x, y)


@tf_export("math.greater", "greater")
def greater(x, y, name=None):
    return binary(GREATER, x, y)


@tf_export("math.greater_equal", "greater_equal")
def greater_equal(x, y, name=None):
    return binary(GREATER_EQUAL, x, y)


@tf_export("math.equal", "equal")
def equal(x, y, name=None):
    return binary(EQUAL, x, y)


@tf_export("math.not_equal", "not_equal")
def not_equal(x, y, name=None):
    return binary(NOT_EQUAL, x, y)


# --- logical ---------------------------------------------------------------------------

def _logical(name, fn):
    return defop(name, fn, dtypes=(D.bool,), shape=shapes.broadcast, grad=NONDIFF)


LOGICAL_AND = _logical("LogicalAnd", lambda xp, x, y: xp.logical_and(x, y))
LOGICAL_OR = _logical("LogicalOr", lambda xp, x, y: xp.logical_or(x, y))
LOGICAL_NOT = defop("LogicalNot", lambda xp, x: xp.logical_not(x), dtypes=(D.bool,), shape=shapes.same,
                    grad=NONDIFF)


def _bool_args(name, x, y):
    x, y = t(x, hint=D.bool), t(y, hint=D.bool)
    for i, v in enumerate((x, y)):
        if v.dtype is not D.bool:
            raise errors.invalid_argument(name, f"cannot compute {name} as input #{i}(zero-based) was expected "
                                                f"to be a bool tensor but is a {v.dtype.name} tensor")
    return x, y


@tf_export("math.logical_and", "logical_and")
def logical_and(x, y, name=None):
    return bind(LOGICAL_AND, *_bool_args("LogicalAnd", x, y))


@tf_export("math.logical_or", "logical_or")
def logical_or(x, y, name=None):
    return bind(LOGICAL_OR, *_bool_args("LogicalOr", x, y))


@tf_export("math.logical_xor", "logical_xor")
def logical_xor(x, y, name="LogicalXor"):
    x, y = _bool_args("LogicalXor", x, y)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


@tf_export("math.logical_not", "logical_not")
def logical_not(x, name=None):
    return bind(LOGICAL_NOT, t(x, hint=D.bool))


# --- bitwise ---------------------------------------------------------------------------

def _bitwise(name, fn):
    return defop(name, fn, dtypes=D.INTS, shape=shapes.broadcast, grad=NONDIFF)


BITWISE_AND = _bitwise("BitwiseAnd", lambda xp, x, y: xp.bitwise_and(x, y))
BITWISE_OR = _bitwise("BitwiseOr", lambda xp, x, y: xp.bitwise_or(x, y))
BITWISE_XOR = _bitwise("BitwiseXor", lambda xp, x, y: xp.bitwise_xor(x, y))
LEFT_SHIFT = _bitwise("LeftShift", lambda xp, x, y: xp.left_shift(x, xp.clip(y, 0, x.dtype.itemsize * 8 - 1)
                                                                   ).astype(x.dtype, copy=False))
RIGHT_SHIFT = _bitwise("RightShift", lambda xp, x, y: xp.right_shift(x, xp.clip(y, 0, x.dtype.itemsize * 8 - 1)
                                                                     ).astype(x.dtype, copy=False))
INVERT = defop("Invert", lambda xp, x: xp.invert(x), dtypes=D.INTS, shape=shapes.same, grad=NONDIFF)


@tf_export("bitwise.bitwise_and")
def bitwise_and(x, y, name=None):
    return binary(BITWISE_AND, x, y)


@tf_export("bitwise.bitwise_or")
def bitwise_or(x, y, name=None):
    return binary(BITWISE_OR, x, y)


@tf_export("bitwise.bitwise_xor")
def bitwise_xor(x, y, name=None):
    return binary(BITWISE_XOR, x, y)


@tf_export("bitwise.left_shift")
def left_shift(x, y, name=None):
    return binary(LEFT_SHIFT, x, y)


@tf_export("bitwise.right_shift")
def right_shift(x, y, name=None):
    return binary(RIGHT_SHIFT, x, y)


@tf_export("bitwise.invert")
def invert(x, name=None):
    return bind(INVERT, t(x))


# --- casts -----------------------------------------------------------------------------

def _cast_kernel(xp, x, dtype):
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = xp.real(x)
    return x.astype(dtype)


CAST = defop("Cast", _cast_kernel, quiet=True,
             dtypes=tuple(d for d in D.ALL if d._kind not in "sr"))


@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """Casts ``x`` to ``dtype``; float -> int truncates toward zero, complex -> real keeps the real part."""
    dtype = _dt.as_dtype(dtype)
    x = t(x)
    if x.dtype is dtype:
        return x
    if dtype is D.string or x.dtype is D.string:
        raise errors.op_error(errors.UnimplementedError, "Cast",
                              f"Cast {x.dtype.name} to {dtype.name} is not supported")
    return bind(CAST, x, dtype=dtype._np)


def _saturate_kernel(xp, x, dtype):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        x = xp.clip(x, max(info.min, -np.inf), info.max) if x.dtype.kind == "f" else \
            xp.clip(x.astype(np.float64) if x.dtype.kind == "u" and info.min < 0 else x, info.min, info.max)
    return x.astype(dtype)


SATURATE_CAST = defop("SaturateCast", _saturate_kernel, quiet=True, grad=NONDIFF)


@tf_export("dtypes.saturate_cast", "saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Casts with clamping to the target range instead of wrapping."""
    value = t(value)
    dtype = _dt.as_dtype(dtype)
    if value.dtype is dtype:
        return value
    if dtype._kind not in "iu":
        return cast(value, dtype)
    return bind(SATURATE_CAST, value, dtype=dtype._np)


def _bitcast_kernel(xp, x, dtype):
    src = x.dtype.itemsize
    dst = np.dtype(dtype).itemsize
    x = xp.ascontiguousarray(x)
    if src == dst:
        return x.view(dtype)
    if src > dst:
        return x.reshape(x.shape + (1,)).view(dtype)
    if x.shape[-1:] != (dst // src,):
        raise ValueError(f"Cannot bitcast from {x.dtype} to {np.dtype(dtype)}: last dimension must be {dst // src}")
    return x.view(dtype).reshape(x.shape[:-1])


def _bitcast_jax(xp, x, dtype):
    from jax import lax

    return lax.bitcast_convert_type(x, dtype)  # same trailing-dimension rule as TF's Bitcast


BITCAST = defop("Bitcast", _bitcast_kernel, jax_impl=_bitcast_jax, grad=NONDIFF)


@tf_export("bitcast")
def bitcast(input, type, name=None):  # noqa: A002 - TF's argument names
    return bind(BITCAST, t(input), dtype=_dt.as_dtype(type)._np)
