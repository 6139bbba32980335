"""Binary arithmetic, comparisons, logical and bitwise ops, and casts."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework import variables as _variables
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import binary, same_dtype, scalar_like, t
from tensorlet._src.ops.registry import NONDIFF, bind, bind2, defop, tf_export, xpfn
from tensorlet._src.ops.tfdef import TFDef

D = _dt
_OBJECT = np.dtype(object)
ARITH = D.NUMERIC  # TF's AddV2/Mul/Sub allowed types
SIGNED = D.FLOATS + D.SIGNED_INTS + D.COMPLEX
REAL = D.REALS


def _int_divisor_check(op_name):
    def check(x, y):
        if y._v.dtype.kind in "iu" and not np.all(y._v):
            raise errors.invalid_argument(op_name, "Integer division by zero")
    return check


def _conj(x):
    if x.__class__ is EagerTensor:
        return math_unary.conj(x) if x._v.dtype.kind == "c" else x
    return math_unary.conj(x) if x.dtype.is_complex else x


ADD = defop("AddV2", xpfn("add"), dtypes=ARITH, shape=shapes.broadcast,
            grad=lambda g, ans, x, y: (unbroadcast(g, x, y), unbroadcast(g, y, x)))
SUB = defop("Sub", xpfn("subtract"), dtypes=ARITH, shape=shapes.broadcast,
            grad=lambda g, ans, x, y: (unbroadcast(g, x, y), unbroadcast(-g, y, x)))
MUL = defop("Mul", xpfn("multiply"), dtypes=ARITH, shape=shapes.broadcast,
            grad=lambda g, ans, x, y: (unbroadcast(g * _conj(y), x, y), unbroadcast(_conj(x) * g, y, x)))
REALDIV = defop("RealDiv", xpfn("divide"), dtypes=ARITH, shape=shapes.broadcast, quiet=True,
                grad=lambda g, ans, x, y: (unbroadcast(g / _conj(y), x, y),
                                           unbroadcast(g * _conj(-x / y / y), y, x)))
DIVNONAN = defop("DivNoNan", lambda xp, x, y: xp.where(y == 0, xp.zeros_like(x), x / xp.where(y == 0, 1, y)
                                                       ).astype(x.dtype, copy=False),
                 dtypes=D.INEXACT, shape=shapes.broadcast, quiet=True,
                 grad=lambda g, ans, x, y: _div_no_nan_grad(g, _conj(x), _conj(y), x, y))


def _div_no_nan_grad(g, cx, cy, x, y):
    """TF's DivNoNan gradient (on conjugated inputs for complex)."""
    return (unbroadcast(divide_no_nan(g, cy), x, y),
            unbroadcast(g * divide_no_nan(divide_no_nan(-cx, cy), cy), y, x))
FLOORDIV = defop("FloorDiv", xpfn("floor_divide"), dtypes=REAL, shape=shapes.broadcast,
                 check=_int_divisor_check("FloorDiv"), quiet=True, grad=NONDIFF)
FLOORMOD = defop("FloorMod", xpfn("mod"), dtypes=REAL, shape=shapes.broadcast,
                 check=_int_divisor_check("FloorMod"), quiet=True,
                 grad=lambda g, ans, x, y: (unbroadcast(g, x, y), unbroadcast(-g * floordiv(x, y), y, x)))


def _select_grad(mask_fn):
    def grad(g, ans, x, y):
        mask = mask_fn(x, y)
        zeros = creation.zeros_like(g)
        return (unbroadcast(array_select.where(mask, g, zeros), x, y),
                unbroadcast(array_select.where(mask, zeros, g), y, x))
    return grad


MAXIMUM = defop("Maximum", xpfn("maximum"), dtypes=REAL, shape=shapes.broadcast,
                grad=_select_grad(lambda x, y: greater_equal(x, y)))
MINIMUM = defop("Minimum", xpfn("minimum"), dtypes=REAL, shape=shapes.broadcast,
                grad=_select_grad(lambda x, y: less_equal(x, y)))
def _sqdiff_grad(g, ans, x, y):
    gx = g * cast(2, g.dtype) * _conj(x - y)
    return unbroadcast(gx, x, y), unbroadcast(-gx, y, x)


SQDIFF = defop("SquaredDifference", lambda xp, x, y: xp.square(x - y) if x.dtype.kind != "c"
               else (x - y) * xp.conj(x - y), dtypes=ARITH, shape=shapes.broadcast, grad=_sqdiff_grad)


def _check_pow(x, y):
    if x._v.dtype.kind in "iu" and np.any(y._v < 0):
        raise errors.invalid_argument("Pow", "Integers to negative integer powers are not allowed")


MULNONAN = defop("MulNoNan", lambda xp, x, y: xp.where(y == 0, xp.zeros_like(x), x * y), dtypes=D.INEXACT,
                 shape=shapes.broadcast, quiet=True,
                 grad=lambda g, ans, x, y: (unbroadcast(multiply_no_nan(g, y), x, y),
                                            unbroadcast(multiply_no_nan(x, g), y, x)))


def _pow_grad(g, z, x0, y0):
    """TF's Pow gradient (on conjugates for complex inputs); d/dy is 0 where x <= 0 (x == 0 for complex)."""
    x, y, z = _conj(x0), _conj(y0), _conj(z)
    gx = g * y * pow(x, y - cast(1, y.dtype))
    if x.dtype.is_complex:
        mask = not_equal(x, cast(0, x.dtype))
    else:
        mask = greater(x, cast(0, x.dtype))
    safe_x = array_select.where(mask, x, creation.ones_like(x))
    log_x = array_select.where(mask, math_unary.log(safe_x), creation.zeros_like(x))
    x, y = x0, y0
    return unbroadcast(gx, x, y), unbroadcast(g * z * log_x, y, x)
POW = defop("Pow", xpfn("power"), dtypes=D.FLOATS + (D.int8, D.int16, D.int32, D.int64)
            + D.COMPLEX, shape=shapes.broadcast, check=_check_pow, quiet=True, grad=_pow_grad)


@tf_export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting.  ``tf.add([1, 2], 3)`` -> ``[4, 5]``."""
    if x.__class__ is EagerTensor:
        d = x._v.dtype
        if y.__class__ is EagerTensor:
            if d is y._v.dtype and d is not _OBJECT:
                return bind2(ADD, x, y)
        elif y.__class__ is float or y.__class__ is int:
            ys = scalar_like(y, d)
            if ys is not None:
                return bind2(ADD, x, ys)
    x, y = same_dtype("AddV2", x, y)
    if x.dtype is D.string:
        return bind(STRING_ADD, x, y)
    return bind2(ADD, x, y)


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
    if x.__class__ is EagerTensor and y.__class__ is EagerTensor:
        d = x._v.dtype
        if d is y._v.dtype and d.kind in "fc":
            return bind2(REALDIV, x, y)
    x, y = same_dtype("RealDiv", x, y)
    d = x.dtype
    if d._kind in "iu":
        ft = _dt.result_type_of_truediv(d)
        x, y = cast(x, ft), cast(y, ft)
    return bind2(REALDIV, x, y)


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


LESS = _cmp("Less", xpfn("less"), REAL)
LESS_EQUAL = _cmp("LessEqual", xpfn("less_equal"), REAL)
GREATER = _cmp("Greater", xpfn("greater"), REAL)
GREATER_EQUAL = _cmp("GreaterEqual", xpfn("greater_equal"), REAL)
EQUAL = _cmp("Equal", xpfn("equal"), None)
NOT_EQUAL = _cmp("NotEqual", xpfn("not_equal"), None)


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


LOGICAL_AND = _logical("LogicalAnd", xpfn("logical_and"))
LOGICAL_OR = _logical("LogicalOr", xpfn("logical_or"))
LOGICAL_NOT = defop("LogicalNot", xpfn("logical_not"), dtypes=(D.bool,), shape=shapes.same,
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


BITWISE_AND = _bitwise("BitwiseAnd", xpfn("bitwise_and"))
BITWISE_OR = _bitwise("BitwiseOr", xpfn("bitwise_or"))
BITWISE_XOR = _bitwise("BitwiseXor", xpfn("bitwise_xor"))
LEFT_SHIFT = _bitwise("LeftShift", lambda xp, x, y: xp.left_shift(x, xp.clip(y, 0, x.dtype.itemsize * 8 - 1)
                                                                   ).astype(x.dtype, copy=False))
RIGHT_SHIFT = _bitwise("RightShift", lambda xp, x, y: xp.right_shift(x, xp.clip(y, 0, x.dtype.itemsize * 8 - 1)
                                                                     ).astype(x.dtype, copy=False))
INVERT = defop("Invert", xpfn("invert"), dtypes=D.INTS, shape=shapes.same, grad=NONDIFF)


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
    if x.dtype.names or np.dtype(dtype).names:  # TF's quantized dtypes: cast through their storage integers
        return _quantized_cast(x, np.dtype(dtype))
    if x.dtype.itemsize == 1 and x.dtype.kind in "fV" and np.dtype(dtype).kind in "iu":  # float8 to integers
        return _narrow_float_cast(x, dtype)
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = xp.real(x)
    return x.astype(dtype)


def _narrow_float_cast(x, dtype):
    return x.astype(np.float32).astype(dtype)  # float8 -> integer wraps through int32 as TF, not saturating


def _quantized_cast(x, dtype):
    if x.dtype.names:
        x = x.view(x.dtype[0])
    if x.dtype.kind == "c":
        x = np.real(x)
    if x.dtype.kind == "V":
        x = x.astype(np.float32)
    if not dtype.names:
        return x.astype(dtype)
    return x.astype(dtype[0]).view(dtype)


def _cast_grad(g, ans, x, dtype):
    # TF's _CastGrad passes gradients between float16/32/64, bfloat16 and complex types only (not float8)
    if x.dtype._kind in "fc" and ans.dtype._kind in "fc" and x.dtype not in _NARROW and ans.dtype not in _NARROW:
        return cast(g, x.dtype)
    return None


# ml_dtypes' narrow types TF's Cast kernel accepts (int4/uint4 only to and from integers and bool)
_CASTABLE_NARROW = (D.float8_e5m2, D.float8_e4m3fn, D.int4, D.uint4)
CAST = defop("Cast", _cast_kernel, quiet=True, grad=_cast_grad,
             shape=lambda x, dtype: shapes.Spec(x.shape, D.from_numpy(np.dtype(dtype))),
             dtypes=tuple(d for d in D.ALL if d._kind not in "sr") + D.QUANTIZED + _CASTABLE_NARROW,
             tfdef=TFDef(rename={"dtype": "DstT"}, drop=("Truncate",)),
             lower_check=lambda node: "casts a TF quantized dtype (no XLA form)" if any(
                 t.dtype._kind == "q" for t in (*node.inputs, *node.outputs)) else None)


@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """Casts ``x`` to ``dtype``; float -> int truncates toward zero, complex -> real keeps the real part."""
    dtype = _dt.as_dtype(dtype)
    x = t(x)
    if x.dtype is dtype:
        return x
    if dtype is D.string or x.dtype is D.string or not _castable(x.dtype, dtype):
        raise errors.op_error(errors.UnimplementedError, "Cast",
                              f"Cast {x.dtype.name} to {dtype.name} is not supported")
    return bind(CAST, x, dtype=dtype._np)


_NARROW = frozenset(D.EXPERIMENTAL)


def _castable(src, dst):
    """TF's Cast kernels for ml_dtypes' narrow types: float8 from floats only (to anything numeric), int4/uint4
    to and from integers and bool only; the other narrow types not at all."""
    if src in _NARROW and (src not in _CASTABLE_NARROW or (src._kind in "iu" and dst._kind not in "iub")):
        return False
    if dst in _NARROW:
        return dst in _CASTABLE_NARROW and src._kind in ("f" if dst._kind == "f" else "iub")
    return True


_variables.cast_hook = cast  # Variable(t, dtype=...) casts through the registry


def _saturate_kernel(xp, x, dtype):
    """Clamp into ``dtype``'s range, then cast.  For float input the bounds are the nearest floats inside the
    range (float32 cannot hold 2**31 - 1: the upper bound becomes 2147483520), as TF does."""
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        if _dt.is_float_np(x.dtype):
            ft = x.dtype.type
            lo, hi = ft(info.min), ft(info.max)
            if float(lo) < info.min:
                lo = np.nextafter(lo, ft(0))
            if float(hi) > info.max:
                hi = np.nextafter(hi, ft(0))
            x = xp.clip(x, lo, hi)
        elif x.dtype.kind in "iu":
            src = np.iinfo(x.dtype)
            x = xp.clip(x, max(info.min, src.min), min(info.max, src.max)).astype(x.dtype)
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


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_select, creation, math_unary  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
