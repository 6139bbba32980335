"""``keras.ops`` elementwise functions (also ``keras.ops.numpy.*``): Keras 3's dtype rules over tensorlet ops.

Binary functions promote their operands with ``result_type`` (Python scalars weakly typed); float-valued unary
functions return the input's float dtype, or floatx for integers and bools.

>>> add(np.int8(3) * np.ones(2, "int8"), 1).dtype.name
'int8'
"""

from __future__ import annotations

import math as _math
import sys

import numpy as np

from tensorlet._src.graph.control_flow import while_loop
from tensorlet._src.keras.backend import floatx, standardize_dtype
from tensorlet._src.keras.ops._dtypes import cast, convert, dtype_of, float_of, promote, result_type
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops.array_select import where as _where
from tensorlet._src.ops.creation import ones_like as _ones_like, zeros_like as _zeros_like
from tensorlet._src.ops.math_binary_fn import atan2 as _atan2, complex as _complex
from tensorlet._src.ops.math_clip import clip_by_value as _clip
from tensorlet._src.ops.math_special import bessel_i0 as _i0, nextafter as _nextafter
from tensorlet._src.ops.reduce import reduce_all, reduce_any
from tensorlet._src.ops.registry import tf_export


def export(name, *spaces):
    """``keras.ops.<name>`` plus ``keras.ops.<space>.<name>`` for each namespace in ``spaces``."""
    return tf_export(f"keras.ops.{name}", *(f"keras.ops.{s}.{name}" for s in spaces))


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return export(name, "numpy")(fn)


def _alias(name, target, space="numpy"):
    def fn(*args, **kwargs):
        return target(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = target.__doc__
    fn.__module__ = sys._getframe(1).f_globals["__name__"]  # the module that holds the alias exports it
    return export(name, *([space] if space else []))(fn)


def _is_int(d):
    return d == "bool" or "int" in d


# ---- float-valued unary functions -------------------------------------------------------------------------------


def _float_unary(name, f, doc=None):
    def fn(x):
        x = convert(x)
        return f(cast(x, float_of(x.dtype)))

    return _named(fn, name, doc or f"Elementwise ``{name}``; integers compute in floatx.")


def _log_base(b):
    return lambda x: mb.divide(mu.log(x), mb.cast(_math.log(b), x.dtype))


sin = _float_unary("sin", mu.sin)
cos = _float_unary("cos", mu.cos)
tan = _float_unary("tan", mu.tan)
arcsin = _float_unary("arcsin", mu.asin)
arccos = _float_unary("arccos", mu.acos)
arctan = _float_unary("arctan", mu.atan)
sinh = _float_unary("sinh", mu.sinh)
cosh = _float_unary("cosh", mu.cosh)
tanh = _float_unary("tanh", mu.tanh)
arcsinh = _float_unary("arcsinh", mu.asinh)
arccosh = _float_unary("arccosh", mu.acosh)
arctanh = _float_unary("arctanh", mu.atanh)
log = _float_unary("log", mu.log)
log1p = _float_unary("log1p", mu.log1p)
log2 = _float_unary("log2", _log_base(2))
log10 = _float_unary("log10", _log_base(10))
floor = _float_unary("floor", mu.floor)
ceil = _float_unary("ceil", mu.ceil)
sqrt = _float_unary("sqrt", mu.sqrt)


def _exp_like(name, f):
    def fn(x):
        x = convert(x)
        d = standardize_dtype(x.dtype)
        return f(cast(x, floatx()) if _is_int(d) else x)

    return _named(fn, name, f"Elementwise ``{name}``; integers compute in floatx.")


exp = _exp_like("exp", mu.exp)
expm1 = _exp_like("expm1", mu.expm1)
exp2 = _exp_like("exp2", lambda x: mb.pow(mb.cast(2, x.dtype), x))


@export("cbrt", "numpy")
def cbrt(x):
    """Cube root (sign-preserving)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if d == "int64":
        x = cast(x, "float64")
    elif d not in ("bfloat16", "float16", "float64"):
        x = cast(x, floatx())
    return mb.multiply(mu.sign(x), mb.pow(mu.abs(x), mb.cast(1.0 / 3.0, x.dtype)))


@export("i0", "numpy")
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    d = "float64" if d in ("int64", "float64") else (d if d in ("bfloat16", "float16") else floatx())
    return _i0(cast(x, d))


@export("sinc", "numpy")
def sinc(x):
    """``sin(pi x) / (pi x)`` with ``sinc(0) == 1``."""
    x = convert(x)
    x = cast(x, float_of(x.dtype))
    px = mb.multiply(x, mb.cast(np.pi, x.dtype))
    safe = _where(mb.equal(x, mb.cast(0, x.dtype)), _ones_like(px), px)
    return _where(mb.equal(x, mb.cast(0, x.dtype)), _ones_like(px), mb.divide(mu.sin(safe), safe))


@export("deg2rad", "numpy")
def deg2rad(x):
    """Degrees to radians."""
    x = convert(x)
    x = cast(x, float_of(x.dtype))
    return mb.multiply(x, mb.cast(np.pi / 180.0, x.dtype))


@export("rad2deg", "numpy")
def rad2deg(x):
    """Radians to degrees."""
    x = convert(x)
    x = cast(x, float_of(x.dtype))
    return mb.multiply(x, mb.cast(180.0 / np.pi, x.dtype))


@export("angle", "numpy")
def angle(x):
    """The argument of complex values (0 or pi for reals)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if "complex" not in d:
        x = cast(x, float_of(d))
    return mu.angle(x)


# ---- dtype-preserving unary functions ---------------------------------------------------------------------------


@export("absolute", "numpy")
def absolute(x):
    """Absolute value (dtype kept; unsigned and bool values are returned as they are)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if "uint" in d or d == "bool":
        return x
    return mu.abs(x)


abs = _alias("abs", absolute)  # noqa: A001 - Keras's name


@export("fabs", "numpy")
def fabs(x):
    """Absolute value in floating point."""
    x = convert(x)
    if _is_int(standardize_dtype(x.dtype)):
        x = cast(x, floatx())
    return mu.abs(x)


@export("negative", "numpy")
def negative(x):
    """``-x``."""
    return mu.negative(convert(x))


@export("square", "numpy")
def square(x):
    """``x * x`` (bools become int32)."""
    x = convert(x)
    if x.dtype.name == "bool":
        x = cast(x, "int32")
    return mu.square(x)


@export("sign", "numpy")
def sign(x):
    """-1, 0 or 1 (dtype kept)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if "uint" in d or d == "bool":
        return cast(mb.not_equal(x, mb.cast(0, x.dtype)), d)
    return mu.sign(x)


@export("reciprocal", "numpy")
def reciprocal(x):
    """``1 / x`` in floating point."""
    x = convert(x)
    return mu.reciprocal(cast(x, float_of(x.dtype)))


@export("round", "numpy")
def round(x, decimals=0):  # noqa: A001 - Keras's name
    """Rounds half to even, at ``decimals`` decimal places (negative decimals for integers)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if _is_int(d):
        if decimals >= 0:
            return x
        f = 10 ** (-decimals)
        xf = cast(x, floatx())
        return cast(mb.multiply(mu.round(mb.divide(xf, mb.cast(f, xf.dtype))), mb.cast(f, xf.dtype)), d)
    if decimals == 0:
        return mu.round(x)
    f = mb.cast(10.0 ** decimals, x.dtype)
    return mb.divide(mu.round(mb.multiply(x, f)), f)


@export("trunc", "numpy")
def trunc(x):
    """Rounds towards zero (integers unchanged)."""
    x = convert(x)
    if _is_int(standardize_dtype(x.dtype)):
        return x
    return _where(mb.less(x, mb.cast(0, x.dtype)), mu.ceil(x), mu.floor(x))


@export("signbit", "numpy")
def signbit(x):
    """True where the sign bit is set (``-0.0`` included)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if d == "bool" or "uint" in d:
        return mb.not_equal(x, x) if d == "bool" else mb.less(x, mb.cast(0, x.dtype))
    if "int" in d:
        return mb.less(x, mb.cast(0, x.dtype))
    xf = cast(x, "float32") if d in ("float16", "bfloat16") else x
    bits = mb.bitcast(xf, "int64" if xf.dtype.name == "float64" else "int32")
    return mb.less(bits, mb.cast(0, bits.dtype))


@export("conjugate", "numpy")
def conjugate(x):
    """Complex conjugate (reals unchanged)."""
    x = convert(x)
    return mu.conj(x)


conj = _alias("conj", conjugate)


@export("real", "numpy")
def real(x):
    """The real part."""
    return mu.real(convert(x))


@export("imag", "numpy")
def imag(x):
    """The imaginary part (zeros for reals)."""
    x = convert(x)
    if "complex" not in x.dtype.name:
        return _zeros_like(x)
    return mu.imag(x)


@export("isnan", "numpy")
def isnan(x):
    """True where ``x`` is NaN (never for integers)."""
    x = convert(x)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        return mb.not_equal(_ones_like(x, dtype="bool"), True)
    return mu.is_nan(x)


@export("isinf", "numpy")
def isinf(x):
    """True where ``x`` is infinite."""
    x = convert(x)
    if not x.dtype.is_floating:
        return mb.not_equal(_ones_like(x, dtype="bool"), True)
    return mu.is_inf(x)


@export("isfinite", "numpy")
def isfinite(x):
    """True where ``x`` is finite (always for integers)."""
    x = convert(x)
    if not x.dtype.is_floating:
        return _ones_like(x, dtype="bool")
    return mu.is_finite(x)


@export("isposinf", "numpy")
def isposinf(x):
    """True where ``x`` is +inf."""
    x = convert(x)
    if not x.dtype.is_floating:
        return _zeros_like(x, dtype="bool")
    return mb.equal(x, mb.cast(np.inf, x.dtype))


@export("isneginf", "numpy")
def isneginf(x):
    """True where ``x`` is -inf."""
    x = convert(x)
    if not x.dtype.is_floating:
        return _zeros_like(x, dtype="bool")
    return mb.equal(x, mb.cast(-np.inf, x.dtype))


@export("isreal", "numpy")
def isreal(x):
    """True where the imaginary part is zero."""
    x = convert(x)
    if x.dtype.is_complex:
        return mb.equal(mu.imag(x), mb.cast(0, mu.imag(x).dtype))
    return _ones_like(x, dtype="bool")


@export("logical_not", "numpy")
def logical_not(x):
    """``not x`` elementwise."""
    return mb.logical_not(cast(x, "bool"))


@export("bitwise_invert", "numpy")
def bitwise_invert(x):
    """Bitwise NOT."""
    x = convert(x)
    return mb.logical_not(x) if x.dtype.name == "bool" else mb.invert(x)


bitwise_not = _alias("bitwise_not", bitwise_invert)


# ---- binary functions --------------------------------------------------------------------------------------------


def _binary(name, f, to_float=False, doc=None, weak=False):
    def fn(x1, x2):
        if to_float:
            dt = result_type(dtype_of(x1, weak), dtype_of(x2, weak), float)
            a, b = convert(x1, dt), convert(x2, dt)
        else:
            a, b = promote(x1, x2, weak=weak)
        return f(a, b)

    return _named(fn, name, doc or f"Elementwise ``{name}`` with Keras's dtype promotion.")


def _bool_safe(f, bool_f):
    return lambda a, b: bool_f(a, b) if a.dtype.name == "bool" else f(a, b)


add = _binary("add", _bool_safe(mb.add, mb.logical_or), weak=True)
subtract = _binary("subtract", mb.subtract, weak=True)
multiply = _binary("multiply", _bool_safe(mb.multiply, mb.logical_and), weak=True)
divide = _binary("divide", mb.divide, to_float=True, weak=True)
true_divide = _binary("true_divide", mb.divide, to_float=True, weak=True)
power = _binary("power", mb.pow, weak=True)
maximum = _binary("maximum", _bool_safe(mb.maximum, mb.logical_or), weak=True)
minimum = _binary("minimum", _bool_safe(mb.minimum, mb.logical_and), weak=True)
fmax = _binary("fmax", lambda a, b: _where(mu.is_nan(a), b, _where(mu.is_nan(b), a, mb.maximum(a, b)))
               if a.dtype.is_floating else mb.maximum(a, b), weak=True)
fmin = _binary("fmin", lambda a, b: _where(mu.is_nan(a), b, _where(mu.is_nan(b), a, mb.minimum(a, b)))
               if a.dtype.is_floating else mb.minimum(a, b), weak=True)
equal = _binary("equal", mb.equal)
not_equal = _binary("not_equal", mb.not_equal)
greater = _binary("greater", mb.greater)
greater_equal = _binary("greater_equal", mb.greater_equal)
less = _binary("less", mb.less)
less_equal = _binary("less_equal", mb.less_equal)
arctan2 = _binary("arctan2", _atan2, to_float=True)
logaddexp = _binary("logaddexp", lambda a, b: mb.add(
    mb.maximum(a, b), mu.log1p(mu.exp(mu.negative(mu.abs(mb.subtract(a, b)))))), to_float=True)
logaddexp2 = _binary("logaddexp2", lambda a, b: mb.add(mb.maximum(a, b), mb.divide(
    mu.log1p(mb.pow(mb.cast(2, a.dtype), mu.negative(mu.abs(mb.subtract(a, b))))), mb.cast(_math.log(2), a.dtype))),
    to_float=True)


@export("nextafter", "numpy")
def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2`` (computed in float64, then cast to the promoted dtype)."""
    dt = result_type(dtype_of(x1, False), dtype_of(x2, False), float)
    return cast(_nextafter(cast(x1, "float64"), cast(x2, "float64")), dt)


def _floor_divide(a, b):
    if a.dtype.name == "bool":
        a, b = cast(a, "int32"), cast(b, "int32")
    return mb.floordiv(a, b)


floor_divide = _binary("floor_divide", _floor_divide, weak=True)


@export("mod", "numpy")
def mod(x1, x2):
    """Floored remainder (Python's ``%``)."""
    dt = result_type(dtype_of(x1, False), dtype_of(x2, False))
    dt = "int32" if dt == "bool" else dt
    return mb.floormod(convert(x1, dt), convert(x2, dt))


@export("fmod", "numpy")
def fmod(x1, x2):
    """Truncated remainder (C's ``fmod``: the sign of ``x1``)."""
    dt = result_type(dtype_of(x1, False), dtype_of(x2, False))
    dt = "int32" if dt == "bool" else dt
    a, b = convert(x1, dt), convert(x2, dt)
    if "int" in dt:
        q = mb.truediv(a, b)
        q = cast(trunc(q), dt)
        return mb.subtract(a, mb.multiply(q, b))
    return mb.subtract(a, mb.multiply(trunc(mb.divide(a, b)), b))


@export("divide_no_nan", "numpy")
def divide_no_nan(x1, x2):
    """``x1 / x2``, 0 where ``x2 == 0``."""
    dt = result_type(dtype_of(x1), dtype_of(x2), float)  # Python scalars weak, as in Keras
    return mb.divide_no_nan(convert(x1, dt), convert(x2, dt))


def _int_result(name, f):
    def fn(x1, x2):
        a, b = promote(x1, x2, weak=False)
        d = a.dtype.name
        if d in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"):
            d = floatx()
        elif d == "int64":
            d = "float64"
        return f(cast(a, d), cast(b, d))

    return _named(fn, name, f"Elementwise ``{name}`` (integers compute in floating point).")


hypot = _int_result("hypot", lambda a, b: mu.sqrt(mb.add(mu.square(a), mu.square(b))))
heaviside = _int_result("heaviside", lambda a, b: _where(
    mb.less(a, mb.cast(0, a.dtype)), _zeros_like(a), _where(mb.greater(a, mb.cast(0, a.dtype)), _ones_like(a),
                                                             mb.add(_zeros_like(a), b))))


def _logical(name, f):
    def fn(x1, x2):
        return f(cast(x1, "bool"), cast(x2, "bool"))

    return _named(fn, name, f"Elementwise ``{name}``.")


logical_and = _logical("logical_and", mb.logical_and)
logical_or = _logical("logical_or", mb.logical_or)
logical_xor = _logical("logical_xor", mb.logical_xor)


def _bitwise(name, f, bool_f=None):
    def fn(x, y):
        a, b = promote(x, y, weak=False)
        if a.dtype.name == "bool" and bool_f is not None:
            return bool_f(a, b)
        return f(a, b)

    return _named(fn, name, f"Bitwise ``{name}``.")


bitwise_and = _bitwise("bitwise_and", mb.bitwise_and, mb.logical_and)
bitwise_or = _bitwise("bitwise_or", mb.bitwise_or, mb.logical_or)
bitwise_xor = _bitwise("bitwise_xor", mb.bitwise_xor, mb.logical_xor)
bitwise_left_shift = _bitwise("bitwise_left_shift", mb.left_shift)
bitwise_right_shift = _bitwise("bitwise_right_shift", mb.right_shift)
left_shift = _bitwise("left_shift", mb.left_shift)
right_shift = _bitwise("right_shift", mb.right_shift)


@export("ldexp", "numpy")
def ldexp(x1, x2):
    """``x1 * 2**x2`` (``x2`` integer)."""
    dt = result_type(dtype_of(x1, False), dtype_of(x2, False), float)
    x2 = convert(x2)
    if standardize_dtype(x2.dtype) not in ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                                           "int64"):
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2 dtype={x2.dtype.name}")
    a = convert(x1, dt)
    return mb.multiply(a, mb.pow(mb.cast(2, dt), cast(x2, dt)))


@export("gcd", "numpy")
def gcd(x1, x2):
    """Greatest common divisor (integers)."""
    a, b = promote(x1, x2, weak=False)
    if not a.dtype.is_integer:
        raise TypeError("Arguments to gcd must be integers.")
    a, b = mu.abs(a), mu.abs(b)
    a, b = mb.add(a, mb.multiply(b, mb.cast(0, b.dtype))), mb.add(b, mb.multiply(a, mb.cast(0, a.dtype)))

    def body(a, b):
        nz = mb.not_equal(b, mb.cast(0, b.dtype))
        safe = _where(nz, b, _ones_like(b))
        return _where(nz, b, a), _where(nz, mb.floormod(a, safe), _zeros_like(b))

    a, b = while_loop(lambda a, b: reduce_any(mb.not_equal(b, mb.cast(0, b.dtype))), body, (a, b))
    return a


@export("lcm", "numpy")
def lcm(x1, x2):
    """Least common multiple (integers)."""
    a, b = promote(x1, x2, weak=False)
    if not (a.dtype.is_integer and b.dtype.is_integer):
        raise TypeError(f"Arguments to lcm must be integers. Received: x1.dtype={a.dtype.name}, "
                        f"x2.dtype={b.dtype.name}")
    g = gcd(a, b)
    safe = _where(mb.equal(g, mb.cast(0, g.dtype)), _ones_like(g), g)
    r = mu.abs(mb.multiply(a, mb.floordiv(b, safe)))
    return _where(mb.equal(g, mb.cast(0, g.dtype)), _zeros_like(r), r)


@export("clip", "numpy")
def clip(x, x_min, x_max):
    """Limits values to ``[x_min, x_max]`` (bools become int32)."""
    x = convert(x)
    d = standardize_dtype(x.dtype)
    if d == "bool":
        x = cast(x, "int32")
        d = "int32"
    return _clip(x, convert(x_min, d), convert(x_max, d))


@export("polar", "nn")
def polar(abs_, angle):
    """The complex number with magnitude ``abs_`` and phase ``angle``."""
    a = convert(abs_)
    t = convert(angle)
    d = float_of(result_type(a.dtype, t.dtype))
    a, t = cast(a, d), cast(t, d)
    return _complex(mb.multiply(a, mu.cos(t)), mb.multiply(a, mu.sin(t)))


@export("nan_to_num", "numpy")
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN and +-inf with finite numbers (the dtype's extremes by default)."""
    x = convert(x)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(x.dtype.as_numpy_dtype)
    pos = float(info.max) if posinf is None else posinf
    neg = float(info.min) if neginf is None else neginf
    x = _where(mu.is_nan(x), mb.add(_zeros_like(x), mb.cast(nan, x.dtype)), x)
    x = _where(mb.equal(x, mb.cast(np.inf, x.dtype)), mb.add(_zeros_like(x), mb.cast(pos, x.dtype)), x)
    return _where(mb.equal(x, mb.cast(-np.inf, x.dtype)), mb.add(_zeros_like(x), mb.cast(neg, x.dtype)), x)


@export("isclose", "numpy")
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """``|x1 - x2| <= atol + rtol * |x2|`` for floats (NaNs equal with ``equal_nan``); equality otherwise."""
    a, b = promote(x1, x2, weak=False)
    if "float" not in a.dtype.name:
        return mb.equal(a, b)
    r = mb.less_equal(mu.abs(mb.subtract(a, b)), mb.add(mb.cast(atol, a.dtype), mb.multiply(mb.cast(rtol, a.dtype),
                                                                                              mu.abs(b))))
    if equal_nan:
        r = mb.logical_or(r, mb.logical_and(mu.is_nan(a), mu.is_nan(b)))
    return r


@export("allclose", "numpy")
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """True when every element is ``isclose``."""
    return reduce_all(isclose(x1, x2, rtol, atol, equal_nan))
