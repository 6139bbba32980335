"""``tf.experimental.numpy``: NumPy's API on tensors (results are ``tf.Tensor``, which is ``tnp.ndarray``).

Every function is a composite of tensorlet's public ops, so it runs eagerly, traces into ``tf.function`` and is
differentiable where the ops are.  Dtypes follow NumPy (as TF's tnp does): Python ints are int64, floats
float64, and mixed operands promote with ``np.result_type``; a Python scalar next to a tensor is "weak" (it
keeps the tensor's dtype unless it needs a higher kind: ``int32 tensor + 1.5`` is float64).

>>> tnp.add(tf.constant([1, 2]), 1.5).dtype
tf.float64
"""

from __future__ import annotations

import importlib

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import EXPORTS, export_value, tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable

_NS = "experimental.numpy."


def _tf(name):
    """The public function ``tf.<name>`` (resolved through the export table, unwrapped from dispatch)."""
    mod, attr = EXPORTS[name]
    fn = getattr(importlib.import_module(mod), attr)
    return getattr(fn, "__wrapped__", fn)


def _cast(x, dtype):
    """``tf.cast``, except that a Python/NumPy scalar is converted straight to ``dtype`` (no float32 detour)."""
    dtype = _dt.as_dtype(dtype)
    if isinstance(x, (int, float, complex, bool, np.generic)):
        return convert_to_tensor(np.asarray(x, dtype.as_numpy_dtype))
    return _tf("cast")(x, dtype)


def export(*names):
    return tf_export(*[_NS + n for n in names])


# --- dtypes and conversion ----------------------------------------------------------------

_SCALAR_DEFAULT = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _np_dtype(x):
    if isinstance(x, (Tensor, Variable)):
        return x.dtype.as_numpy_dtype if x.dtype is not _dt.string else np.dtype(object)
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    return None


def _is_weak(x):
    return type(x) in _SCALAR_DEFAULT


def result_dtype(*xs):
    """NumPy's promotion over tensors/arrays, with Python scalars weak."""
    strong = [d for d in (_np_dtype(x) for x in xs) if d is not None]
    weak = [x for x in xs if _is_weak(x)]
    others = [x for x in xs if _np_dtype(x) is None and not _is_weak(x) and x is not None]
    for o in others:  # nested lists: their NumPy default dtype
        strong.append(np.asarray(o).dtype if not isinstance(o, str) else np.dtype(object))
    if not strong:
        return np.result_type(*[_SCALAR_DEFAULT[type(w)] for w in weak]) if weak else np.dtype(np.float64)
    r = np.result_type(*strong)
    for w in weak:
        k = np.dtype(_SCALAR_DEFAULT[type(w)]).kind
        if _KIND_RANK.get(k, 0) > _KIND_RANK.get(r.kind, 0):
            r = np.result_type(r, _SCALAR_DEFAULT[type(w)])
    return r


def _to_np_default(x):
    a = np.asarray(x)
    if a.dtype.kind in "US":
        return a.astype(object)
    return a


@export("asarray", "asanyarray")
def asarray(a, dtype=None):
    """A tensor from ``a`` with NumPy's dtype inference (``tnp.asarray([1, 2]).dtype`` is int64)."""
    if isinstance(a, Variable):
        a = a.value()
    if isinstance(a, Tensor):
        return a if dtype is None else _cast(a, _dt.as_dtype(dtype))
    if isinstance(a, (list, tuple)) and any(isinstance(v, (Tensor, Variable)) for v in _leaves(a)):
        d = result_dtype(*_leaves(a)) if dtype is None else np.dtype(_dt.as_dtype(dtype).as_numpy_dtype)
        return _tf("stack")([asarray(v, d) for v in a])
    arr = _to_np_default(a) if dtype is None else np.asarray(a, dtype=_dt.as_dtype(dtype).as_numpy_dtype)
    return convert_to_tensor(arr)


def _leaves(a):
    if isinstance(a, (list, tuple)):
        for v in a:
            yield from _leaves(v)
    else:
        yield a


@export("array")
def array(val, dtype=None, copy=True, ndmin=0):
    t = asarray(val, dtype)
    while t.shape.rank is not None and t.shape.rank < ndmin:
        t = _tf("expand_dims")(t, 0)
    return _tf("identity")(t) if copy else t


@export("ascontiguousarray")
def ascontiguousarray(a, dtype=None):
    return array(a, dtype, ndmin=1)


def _promoted(*xs):
    d = result_dtype(*xs)
    td = _dt.as_dtype(d)
    return [asarray(x, td) for x in xs], td


def _floaty(x):
    """Unary float functions: integers and bools become float64 (NumPy's default float)."""
    t = asarray(x)
    if t.dtype.is_integer or t.dtype is _dt.bool:
        t = _cast(t, _dt.float64)
    return t


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        return [int(v) for v in np.atleast_1d(axis.numpy())]
    return list(axis) if isinstance(axis, (list, tuple)) else axis


# --- elementwise ------------------------------------------------------------------------

def _unary(tf_name, floaty=False, keep_int=False):
    f = None

    def fn(x):
        nonlocal f
        if f is None:
            f = _tf(tf_name)
        return f(_floaty(x) if floaty else asarray(x))

    return fn


_UNARY = {
    "abs": ("math.abs", False), "absolute": ("math.abs", False), "fabs": ("math.abs", True),
    "negative": ("math.negative", False), "sign": ("math.sign", False), "square": ("math.square", False),
    "sqrt": ("math.sqrt", True), "exp": ("math.exp", True), "expm1": ("math.expm1", True), "log": ("math.log", True),
    "log1p": ("math.log1p", True), "sin": ("math.sin", True), "cos": ("math.cos", True), "tan": ("math.tan", True),
    "arcsin": ("math.asin", True), "arccos": ("math.acos", True), "arctan": ("math.atan", True),
    "sinh": ("math.sinh", True), "cosh": ("math.cosh", True), "tanh": ("math.tanh", True),
    "arcsinh": ("math.asinh", True), "arccosh": ("math.acosh", True), "arctanh": ("math.atanh", True),
    "floor": ("math.floor", True), "ceil": ("math.ceil", True), "reciprocal": ("math.reciprocal", True),
    "isnan": ("math.is_nan", True), "isinf": ("math.is_inf", True), "isfinite": ("math.is_finite", True),
    "conj": ("math.conj", False), "conjugate": ("math.conj", False), "logical_not": ("math.logical_not", False),
    "bitwise_not": ("bitwise.invert", False), "rint": ("math.rint", True),
}


def _define(table, make, note):
    """Module functions named as NumPy's, one per table entry, each exported under tf.experimental.numpy."""
    for name, (tf_name, floaty) in table.items():
        fn = make(tf_name, floaty)
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"NumPy's ``{name}`` (``tf.{tf_name}``{note})."
        globals()[name] = fn
        export_value(_NS + name, __name__, name)


_define(_UNARY, _unary, "")


def _binary(tf_name, floaty=False):
    f = None

    def fn(x1, x2):
        nonlocal f
        if f is None:
            f = _tf(tf_name)
        (a, b), d = _promoted(x1, x2)
        if floaty and (d.is_integer or d is _dt.bool):
            a, b = _cast(a, _dt.float64), _cast(b, _dt.float64)
        return f(a, b)

    return fn


_BINARY = {
    "add": ("math.add", False), "subtract": ("math.subtract", False), "multiply": ("math.multiply", False),
    "true_divide": ("math.truediv", True), "divide": ("math.truediv", True),
    "floor_divide": ("math.floordiv", False), "mod": ("math.floormod", False), "remainder": ("math.floormod", False),
    "power": ("math.pow", False), "maximum": ("math.maximum", False), "minimum": ("math.minimum", False),
    "equal": ("math.equal", False), "not_equal": ("math.not_equal", False), "less": ("math.less", False),
    "less_equal": ("math.less_equal", False), "greater": ("math.greater", False),
    "greater_equal": ("math.greater_equal", False), "arctan2": ("math.atan2", True),
    "logical_and": ("math.logical_and", False), "logical_or": ("math.logical_or", False),
    "logical_xor": ("math.logical_xor", False), "bitwise_and": ("bitwise.bitwise_and", False),
    "bitwise_or": ("bitwise.bitwise_or", False), "bitwise_xor": ("bitwise.bitwise_xor", False),
    "float_power": ("math.pow", True), "nextafter": ("math.nextafter", True),
}
_define(_BINARY, _binary, ", NumPy promotion")


@export("positive")
def positive(x):
    return asarray(x)


@export("exp2")
def exp2(x):
    x = _floaty(x)
    return _tf("math.pow")(_cast(2.0, x.dtype), x)


@export("log2")
def log2(x):
    x = _floaty(x)
    return _tf("math.log")(x) / _cast(np.log(2.0), x.dtype)


@export("log10")
def log10(x):
    x = _floaty(x)
    return _tf("math.log")(x) / _cast(np.log(10.0), x.dtype)


@export("cbrt")
def cbrt(x):
    x = _floaty(x)
    return _tf("math.sign")(x) * _tf("math.pow")(_tf("math.abs")(x), _cast(1.0 / 3.0, x.dtype))


@export("deg2rad")
def deg2rad(x):
    x = _floaty(x)
    return x * _cast(np.pi / 180.0, x.dtype)


@export("rad2deg")
def rad2deg(x):
    x = _floaty(x)
    return x * _cast(180.0 / np.pi, x.dtype)


@export("fix")
def fix(x):
    x = _floaty(x)
    return _tf("where")(x < 0, _tf("math.ceil")(x), _tf("math.floor")(x))


@export("around", "round")
def around(a, decimals=0):
    a = asarray(a)
    if a.dtype.is_integer:
        return a
    if decimals == 0:
        return _tf("math.rint")(a)
    f = _cast(10.0 ** decimals, a.dtype)
    return _tf("math.rint")(a * f) / f


@export("signbit")
def signbit(x):
    x = asarray(x)
    if x.dtype.is_unsigned or x.dtype is _dt.bool:
        return _tf("zeros_like")(x, dtype=_dt.bool)
    if x.dtype.is_integer:
        return _tf("math.less")(x, _cast(0, x.dtype))
    neg_zero = _tf("math.logical_and")(_tf("math.equal")(x, 0), _tf("math.less")(_tf("math.reciprocal")(x), 0))
    return _tf("math.logical_or")(_tf("math.less")(x, 0), neg_zero)


@export("sinc")
def sinc(x):
    x = _floaty(x)
    px = x * _cast(np.pi, x.dtype)
    safe = _tf("where")(_tf("math.equal")(x, 0), _tf("ones_like")(x), px)
    return _tf("where")(_tf("math.equal")(x, 0), _tf("ones_like")(x), _tf("math.sin")(safe) / safe)


@export("hypot")
def hypot(x1, x2):
    (a, b), d = _promoted(x1, x2)
    if d.is_integer or d is _dt.bool:
        a, b = _cast(a, _dt.float64), _cast(b, _dt.float64)
    return _tf("math.sqrt")(a * a + b * b)


@export("heaviside")
def heaviside(x1, x2):
    (a, b), d = _promoted(x1, x2)
    zero = _tf("zeros_like")(a)
    return _tf("where")(a < zero, zero, _tf("where")(_tf("math.equal")(a, zero), b + zero, zero + 1))


@export("logaddexp")
def logaddexp(x1, x2):
    (a, b), d = _promoted(_floaty(x1), _floaty(x2))
    m = _tf("math.maximum")(a, b)
    return m + _tf("math.log1p")(_tf("math.exp")(-_tf("math.abs")(a - b)))


@export("logaddexp2")
def logaddexp2(x1, x2):
    (a, b), d = _promoted(_floaty(x1), _floaty(x2))
    ln2 = _cast(np.log(2.0), d)
    m = _tf("math.maximum")(a, b)
    return m + _tf("math.log1p")(_tf("math.pow")(_cast(2.0, d), -_tf("math.abs")(a - b))) / ln2


@export("divmod")
def divmod(x1, x2):  # noqa: A001 - NumPy's name
    return floor_divide(x1, x2), mod(x1, x2)  # noqa: F821 - defined by the table above


@export("gcd")
def gcd(x1, x2):
    (a, b), d = _promoted(x1, x2)
    a, b = _tf("math.abs")(a), _tf("math.abs")(b)
    wl = _tf("while_loop")
    zero = _tf("zeros_like")(b)

    def cond(a, b):
        return _tf("reduce_any")(_tf("math.not_equal")(b, zero))

    def body(a, b):
        nz = _tf("math.not_equal")(b, zero)
        safe = _tf("where")(nz, b, zero + 1)
        return _tf("where")(nz, b, a), _tf("where")(nz, _tf("math.floormod")(a, safe), zero)

    return wl(cond, body, (a, b))[0]


@export("lcm")
def lcm(x1, x2):
    (a, b), d = _promoted(x1, x2)
    g = gcd(a, b)
    safe = _tf("where")(_tf("math.equal")(g, 0), g + 1, g)
    return _tf("math.abs")(_tf("math.floordiv")(a, safe) * b)


@export("real")
def real(val):
    return _tf("math.real")(asarray(val))


@export("imag")
def imag(val):
    return _tf("math.imag")(asarray(val))


@export("angle")
def angle(z, deg=False):
    z = asarray(z)
    if z.dtype.is_complex:
        r = _tf("math.angle")(z)
    else:
        z = _floaty(z)
        r = _tf("where")(z < 0, _cast(np.pi, z.dtype) + 0 * z, 0 * z)
    return rad2deg(r) if deg else r


@export("isreal")
def isreal(x):
    x = asarray(x)
    return _tf("math.equal")(_tf("math.imag")(x), 0) if x.dtype.is_complex else _tf("ones_like")(x, dtype=_dt.bool)


@export("iscomplex")
def iscomplex(x):
    return _tf("math.logical_not")(isreal(x))


@export("iscomplexobj")
def iscomplexobj(x):
    return asarray(x).dtype.is_complex


@export("isrealobj")
def isrealobj(x):
    return not asarray(x).dtype.is_complex


@export("isneginf")
def isneginf(x):
    x = _floaty(x)
    return _tf("math.logical_and")(_tf("math.is_inf")(x), x < 0)


@export("isposinf")
def isposinf(x):
    x = _floaty(x)
    return _tf("math.logical_and")(_tf("math.is_inf")(x), x > 0)


@export("isscalar")
def isscalar(num):
    if isinstance(num, (Tensor, Variable)):
        return num.shape.rank == 0
    return np.isscalar(num)


@export("clip")
def clip(a, a_min, a_max):
    a = asarray(a)
    if a_min is None:
        return minimum(a, a_max)  # noqa: F821
    if a_max is None:
        return maximum(a, a_min)  # noqa: F821
    (a, lo, hi), _d = _promoted(a, a_min, a_max)
    return _tf("math.minimum")(_tf("math.maximum")(a, lo), hi)


@export("isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    (a, b), d = _promoted(a, b)
    if d.is_integer or d is _dt.bool:
        a, b = _cast(a, _dt.float64), _cast(b, _dt.float64)
    diff = _tf("math.abs")(a - b)
    tol = _cast(atol, a.dtype) + _cast(rtol, a.dtype) * _tf("math.abs")(b)
    close = _tf("math.logical_or")(_tf("math.less_equal")(diff, tol), _tf("math.equal")(a, b))
    if equal_nan:
        close = _tf("math.logical_or")(close, _tf("math.logical_and")(_tf("math.is_nan")(a), _tf("math.is_nan")(b)))
    return close


@export("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _tf("reduce_all")(isclose(a, b, rtol, atol, equal_nan))


@export("array_equal")
def array_equal(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape.as_list() != a2.shape.as_list():
        return convert_to_tensor(False)
    (a1, a2), _d = _promoted(a1, a2)
    return _tf("reduce_all")(_tf("math.equal")(a1, a2))


# --- constants and dtypes ------------------------------------------------------------------

pi, e, inf = np.pi, np.e, np.inf
newaxis = None
for _n in ("pi", "e", "inf", "newaxis"):
    export_value(_NS + _n, __name__, _n)
bool_, int_, float_, complex_, object_, string_, unicode_ = (np.bool_, np.int64, np.float64, np.complex128,
                                                             np.object_, np.bytes_, np.str_)
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64, complex64, complex128 = np.float16, np.float32, np.float64, np.complex64, np.complex128
inexact = np.inexact
for _n in ("bool_", "int_", "float_", "complex_", "object_", "string_", "unicode_", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128",
           "inexact"):
    export_value(_NS + _n, __name__, _n)


@export("finfo")
def finfo(dtype):
    return np.finfo(_dt.as_dtype(dtype).as_numpy_dtype if not isinstance(dtype, type) else dtype)


@export("iinfo")
def iinfo(int_type):
    return np.iinfo(_dt.as_dtype(int_type).as_numpy_dtype if not isinstance(int_type, type) else int_type)


@export("issubdtype")
def issubdtype(arg1, arg2):
    a = _dt.as_dtype(arg1).as_numpy_dtype if isinstance(arg1, _dt.DType) else arg1
    b = _dt.as_dtype(arg2).as_numpy_dtype if isinstance(arg2, _dt.DType) else arg2
    return np.issubdtype(a, b)


@export("promote_types")
def promote_types(type1, type2):
    a = _dt.as_dtype(type1).as_numpy_dtype if isinstance(type1, _dt.DType) else type1
    b = _dt.as_dtype(type2).as_numpy_dtype if isinstance(type2, _dt.DType) else type2
    return np.promote_types(a, b)


@export("result_type")
def result_type(*arrays_and_dtypes):
    conv = [_dt.as_dtype(x).as_numpy_dtype if isinstance(x, _dt.DType) else x for x in arrays_and_dtypes]
    if all(isinstance(x, type) or isinstance(x, np.dtype) or isinstance(x, str) for x in conv):
        return np.result_type(*conv)
    return result_dtype(*conv)

