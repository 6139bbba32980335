"""Elementwise unary math: negation, abs, sign, exp/log family, roots, trig, rounding, special functions."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export, xpfn
from tensorlet._src.framework.tensor import convert_to_tensor

D = _dt
SIGNED = D.FLOATS + D.SIGNED_INTS + D.COMPLEX
# TF's allowed-type lists, in TF's order (the order of its error message)
FLT = (D.bfloat16, D.float16, D.float32, D.float64)
INEXACT = FLT + D.COMPLEX
FLT_SINT_CPLX = FLT + D.SIGNED_INTS + D.COMPLEX
ALL_NUM = FLT + D.INTS + D.COMPLEX


# --- gradients ---------------------------------------------------------------------------
# Written in tensorlet ops (so they are differentiable again and trace), with TF's formulas: a holomorphic f gets
# g * conj(f'(x)), and edge values follow from the same arithmetic TF does (sqrt'(0) = inf, abs'(0) = 0, ...).

def _cj(x):
    """conj(x) for complex tensors, x itself otherwise."""
    return conj(x) if x.dtype.is_complex else x


def _no_grad(g, ans, x):
    return None  # TF registers a gradient that returns None (floor, ceil, rint, round)


def _complex_abs_grad(g, ans, x):
    # g * x / |x|, and 0 where x == 0 (TF: div_no_nan); the division is done in real arithmetic
    scale = math_binary.divide_no_nan(g, ans)
    return math_binary_fn.complex(scale, creation.zeros_like(scale)) * x


def _tanh_grad(g, ans, x):
    cy = _cj(ans)
    return g * (1 - cy * cy)


def _sigmoid_grad(g, ans, x):
    cy = _cj(ans)
    return g * cy * (1 - cy)


def _angle_grad(g, ans, x):
    z = reciprocal(math_binary_fn.complex(imag(x), real(x)))
    return -math_binary_fn.complex(g, creation.zeros_like(g)) * z


_TWO_OVER_ROOT_PI = float(2 / np.sqrt(np.pi))
_ROOT_PI_OVER_TWO = float(np.sqrt(np.pi) / 2)
_ROOT_TWO_PI = float(np.sqrt(2 * np.pi))

NEG = defop("Neg", xpfn("negative"), dtypes=SIGNED, shape=shapes.same, grad=lambda g, ans, x: negative(g))
ABS = defop("Abs", xpfn("abs"), dtypes=D.FLOATS + D.SIGNED_INTS, shape=shapes.same,
            grad=lambda g, ans, x: g * sign(x))
COMPLEX_ABS = defop("ComplexAbs", lambda xp, x: xp.abs(x), dtypes=D.COMPLEX, grad=_complex_abs_grad)


@tf_export("math.negative", "negative")
def negative(x, name=None):
    return bind(NEG, t(x))


@tf_export("math.abs", "abs")
def abs(x, name=None):  # noqa: A001 - TF's name
    """|x|; for complex input the magnitude, as a real tensor."""
    x = t(x)
    if x.dtype.is_complex:
        return bind(COMPLEX_ABS, x)
    return bind(ABS, x)


def _no_kernel(op_name, kinds):
    """``check`` raising TF's NotFoundError for dtypes TF registers no CPU kernel for."""
    def check(x, **attrs):
        if x._v.dtype.kind in kinds:
            tf_t = "DT_" + D.from_numpy(x._v.dtype).name.upper()
            raise errors.op_error(errors.NotFoundError, op_name,
                                  f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}[T={tf_t}]"
                                  f" (TF registers no CPU kernel of {op_name} for this dtype)")
    return check


# --- sign ------------------------------------------------------------------------------

def _sign_jax(xp, x):
    return xp.where(x == 0, xp.zeros_like(x), xp.sign(x))  # TF: sign(-0.0) is +0.0


SIGN = defop("Sign", xpfn("sign"), jax_impl=_sign_jax, dtypes=FLT_SINT_CPLX, shape=shapes.same,
            grad=lambda g, ans, x: creation.zeros_like(x))  # TF: zeros, not None


@tf_export("math.sign", "sign")
def sign(x, name=None):
    """-1, 0 or 1 by the sign of ``x`` (``x / |x|`` for complex).  ``tf.sign([-2., 0., 3.])`` -> ``[-1., 0., 1.]``."""
    x = t(x)
    if x.dtype.is_complex:
        from tensorlet._src.ops.math_binary import DIVNONAN, cast

        return bind(DIVNONAN, x, cast(bind(COMPLEX_ABS, x), x.dtype))
    return bind(SIGN, x)


# --- exp/log, roots, trig and hyperbolic: one NumPy function each ------------------------

def _unary(op_name, fname, dtypes=INEXACT, **kw):
    return defop(op_name, xpfn(fname), dtypes=dtypes, shape=shapes.same, quiet=True, **kw)


# TF's dedicated gradient ops of sqrt, rsqrt and reciprocal: f(y, dy) from the output y and the upstream dy, and 0
# wherever dy == 0 (even where y is 0 or nan), as TF's kernels.  Each has its own gradient, as TF's *GradGrad.

def _zero_where_no_upstream(xp, dy, r):
    return xp.where(dy == 0, xp.zeros_like(r), r).astype(dy.dtype)  # bfloat16 * 0.5 is float32 in NumPy


def _sqrt_grad_kernel(xp, y, dy):
    r = (dy * 0.5) / xp.conj(y)
    if y.dtype.kind == "c":  # TF's complex division by 0 is nan+nanj (NumPy's gives inf+nanj)
        r = xp.where(y == 0, xp.asarray(complex(np.nan, np.nan), r.dtype), r)
    return _zero_where_no_upstream(xp, dy, r)


def _rsqrt_grad_kernel(xp, y, dy):
    cy = xp.conj(y)
    return _zero_where_no_upstream(xp, dy, (-0.5 * (dy * cy)) * (cy * cy))


def _reciprocal_grad_kernel(xp, y, dy):
    cy = xp.conj(y)
    return _zero_where_no_upstream(xp, dy, (-dy * cy) * cy)


def _sqrt_grad_grad(g, s, y, dy):
    gy = g / y  # s = 0.5 * dy / conj(y)
    return -_cj(gy) * s, gy * 0.5


def _rsqrt_grad_grad(g, s, y, dy):
    cy = _cj(y)
    return -1.5 * _cj(g) * dy * square(cy), bind(RSQRT_GRAD, cy, convert_to_tensor(g))


def _reciprocal_grad_grad(g, s, y, dy):
    cy = _cj(y)
    return _cj(g) * -2.0 * dy * cy, bind(RECIPROCAL_GRAD, cy, convert_to_tensor(g))


def _from_output(op):
    """Gradient ``op(y, g)`` of a unary op from its output (g densified: it may arrive as IndexedSlices)."""
    return lambda g, ans, x: bind(op, ans, convert_to_tensor(g))


SQRT_GRAD = defop("SqrtGrad", _sqrt_grad_kernel, dtypes=INEXACT, shape=shapes.same, quiet=True, grad=_sqrt_grad_grad)
RSQRT_GRAD = defop("RsqrtGrad", _rsqrt_grad_kernel, dtypes=INEXACT, shape=shapes.same, quiet=True,
                   grad=_rsqrt_grad_grad)
RECIPROCAL_GRAD = defop("ReciprocalGrad", _reciprocal_grad_kernel, dtypes=INEXACT, shape=shapes.same, quiet=True,
                        grad=_reciprocal_grad_grad)

EXP = _unary("Exp", "exp", grad=lambda g, ans, x: g * _cj(ans))
EXPM1 = _unary("Expm1", "expm1", grad=lambda g, ans, x: g * exp(_cj(x)))
LOG = _unary("Log", "log", grad=lambda g, ans, x: g * reciprocal(_cj(x)))
LOG1P = _unary("Log1p", "log1p", grad=lambda g, ans, x: g * reciprocal(1 + _cj(x)))
SQRT = _unary("Sqrt", "sqrt", grad=_from_output(SQRT_GRAD))  # inf at 0, as TF
SQUARE = _unary("Square", "square", dtypes=ALL_NUM, grad=lambda g, ans, x: g * (_cj(x) * 2))
SIN = _unary("Sin", "sin", grad=lambda g, ans, x: g * cos(_cj(x)))
COS = _unary("Cos", "cos", grad=lambda g, ans, x: -g * sin(_cj(x)))
TAN = _unary("Tan", "tan", grad=lambda g, ans, x: square(reciprocal(cos(_cj(x)))) * g)
ASIN = _unary("Asin", "arcsin", grad=lambda g, ans, x: g * reciprocal(sqrt(1 - square(_cj(x)))))
ACOS = _unary("Acos", "arccos", grad=lambda g, ans, x: -g * reciprocal(sqrt(1 - square(_cj(x)))))
ATAN = _unary("Atan", "arctan", grad=lambda g, ans, x: g * reciprocal(1 + square(_cj(x))))
SINH = _unary("Sinh", "sinh", grad=lambda g, ans, x: g * cosh(_cj(x)))
COSH = _unary("Cosh", "cosh", grad=lambda g, ans, x: g * sinh(_cj(x)))
TANH = _unary("Tanh", "tanh", grad=_tanh_grad)
ASINH = _unary("Asinh", "arcsinh", grad=lambda g, ans, x: g / cosh(_cj(ans)))
ACOSH = _unary("Acosh", "arccosh", grad=lambda g, ans, x: g / sinh(_cj(ans)))
ATANH = _unary("Atanh", "arctanh", grad=lambda g, ans, x: g * reciprocal(1 - square(_cj(x))))
FLOOR = _unary("Floor", "floor", dtypes=FLT, grad=_no_grad)
CEIL = _unary("Ceil", "ceil", dtypes=FLT, grad=_no_grad)
RINT = _unary("Rint", "rint", dtypes=FLT, grad=_no_grad)  # half to even
ROUND = _unary("Round", "round", dtypes=FLT_SINT_CPLX, check=_no_kernel("Round", "c"), grad=_no_grad)  # half to even
RECIPROCAL = _unary("Reciprocal", "reciprocal", dtypes=FLT_SINT_CPLX, check=_no_kernel("Reciprocal", "iu"),
                    grad=_from_output(RECIPROCAL_GRAD))
RSQRT = defop("Rsqrt", lambda xp, x: xp.reciprocal(xp.sqrt(x)), dtypes=INEXACT, shape=shapes.same, quiet=True,
              grad=_from_output(RSQRT_GRAD))

IS_NAN = defop("IsNan", xpfn("isnan"), dtypes=FLT, shape=shapes.with_dtype(D.bool), grad=NONDIFF)
IS_INF = defop("IsInf", xpfn("isinf"), dtypes=FLT, shape=shapes.with_dtype(D.bool), grad=NONDIFF)
IS_FINITE = defop("IsFinite", xpfn("isfinite"), dtypes=FLT, shape=shapes.with_dtype(D.bool), grad=NONDIFF)


@tf_export("math.exp", "exp")
def exp(x, name=None):
    """e ** x.  ``tf.exp(0.)`` -> ``1.``."""
    return bind(EXP, t(x))


@tf_export("math.expm1")
def expm1(x, name=None):
    """exp(x) - 1, accurate for small x.  ``tf.math.expm1(0.)`` -> ``0.``."""
    return bind(EXPM1, t(x))


@tf_export("math.log")
def log(x, name=None):
    """Natural logarithm; log(0) = -inf, log(<0) = nan.  ``tf.math.log(1.)`` -> ``0.``."""
    return bind(LOG, t(x))


@tf_export("math.log1p")
def log1p(x, name=None):
    """log(1 + x), accurate for small x.  ``tf.math.log1p(0.)`` -> ``0.``."""
    return bind(LOG1P, t(x))


@tf_export("math.sqrt", "sqrt")
def sqrt(x, name=None):
    """Square root (nan for negative reals).  ``tf.sqrt(4.)`` -> ``2.``."""
    return bind(SQRT, t(x))


@tf_export("math.rsqrt")
def rsqrt(x, name=None):
    """1 / sqrt(x).  ``tf.math.rsqrt(4.)`` -> ``0.5``."""
    return bind(RSQRT, t(x))


@tf_export("math.square", "square")
def square(x, name=None):
    """x * x.  ``tf.square(3)`` -> ``9``."""
    return bind(SQUARE, t(x))


@tf_export("math.sin", "sin")
def sin(x, name=None):
    """Sine.  ``tf.sin(0.)`` -> ``0.``."""
    return bind(SIN, t(x))


@tf_export("math.cos", "cos")
def cos(x, name=None):
    """Cosine.  ``tf.cos(0.)`` -> ``1.``."""
    return bind(COS, t(x))


@tf_export("math.tan", "tan")
def tan(x, name=None):
    """Tangent.  ``tf.tan(0.)`` -> ``0.``."""
    return bind(TAN, t(x))


@tf_export("math.asin", "asin")
def asin(x, name=None):
    """Inverse sine.  ``tf.asin(1.)`` -> ``1.5707964``."""
    return bind(ASIN, t(x))


@tf_export("math.acos", "acos")
def acos(x, name=None):
    """Inverse cosine.  ``tf.acos(1.)`` -> ``0.``."""
    return bind(ACOS, t(x))


@tf_export("math.atan", "atan")
def atan(x, name=None):
    """Inverse tangent.  ``tf.atan(0.)`` -> ``0.``."""
    return bind(ATAN, t(x))


@tf_export("math.sinh", "sinh")
def sinh(x, name=None):
    """Hyperbolic sine.  ``tf.sinh(0.)`` -> ``0.``."""
    return bind(SINH, t(x))


@tf_export("math.cosh", "cosh")
def cosh(x, name=None):
    """Hyperbolic cosine.  ``tf.cosh(0.)`` -> ``1.``."""
    return bind(COSH, t(x))


@tf_export("math.tanh", "nn.tanh", "tanh")
def tanh(x, name=None):
    """Hyperbolic tangent.  ``tf.tanh(0.)`` -> ``0.``."""
    return bind(TANH, t(x))


@tf_export("math.asinh", "asinh")
def asinh(x, name=None):
    """Inverse hyperbolic sine.  ``tf.asinh(0.)`` -> ``0.``."""
    return bind(ASINH, t(x))


@tf_export("math.acosh", "acosh")
def acosh(x, name=None):
    """Inverse hyperbolic cosine (nan below 1).  ``tf.acosh(1.)`` -> ``0.``."""
    return bind(ACOSH, t(x))


@tf_export("math.atanh", "atanh")
def atanh(x, name=None):
    """Inverse hyperbolic tangent (+-inf at +-1).  ``tf.atanh(0.)`` -> ``0.``."""
    return bind(ATANH, t(x))


@tf_export("math.floor", "floor")
def floor(x, name=None):
    """Largest integer not greater than x (float dtypes only).  ``tf.floor(-1.5)`` -> ``-2.``."""
    return bind(FLOOR, t(x))


@tf_export("math.ceil")
def ceil(x, name=None):
    """Smallest integer not less than x.  ``tf.math.ceil(-1.5)`` -> ``-1.``."""
    return bind(CEIL, t(x))


@tf_export("math.rint")
def rint(x, name=None):
    """Nearest integer, halves to even.  ``tf.math.rint([0.5, 1.5])`` -> ``[0., 2.]``."""
    return bind(RINT, t(x))


@tf_export("math.round", "round")
def round(x, name=None):  # noqa: A001 - TF's name
    """Nearest integer, halves to even (banker's rounding); integers are returned as they are.

    ``tf.round([0.5, 1.5, 2.5])`` -> ``[0., 2., 2.]``.
    """
    x = t(x)
    if x.dtype.is_integer:
        return x
    return bind(ROUND, x)


@tf_export("math.reciprocal")
def reciprocal(x, name=None):
    """1 / x.  ``tf.math.reciprocal(4.)`` -> ``0.25``."""
    return bind(RECIPROCAL, t(x))


@tf_export("math.is_nan")
def is_nan(x, name=None):
    """True where x is NaN.  ``tf.math.is_nan([1., float('nan')])`` -> ``[False, True]``."""
    return bind(IS_NAN, t(x))


@tf_export("math.is_inf")
def is_inf(x, name=None):
    """True where x is +-inf.  ``tf.math.is_inf([1., float('inf')])`` -> ``[False, True]``."""
    return bind(IS_INF, t(x))


@tf_export("math.is_finite")
def is_finite(x, name=None):
    """True where x is neither inf nor NaN.  ``tf.math.is_finite([1., float('inf')])`` -> ``[True, False]``."""
    return bind(IS_FINITE, t(x))


# --- sigmoid -----------------------------------------------------------------------------

def _sigmoid_np(xp, x):
    if x.dtype.kind == "c":
        return 1 / (1 + xp.exp(-x))
    import scipy.special

    return _via_f32(scipy.special.expit, x)


def _sigmoid_jax(xp, x):
    if x.dtype.kind == "c":
        return 1 / (1 + xp.exp(-x))
    import jax

    return jax.nn.sigmoid(x)


SIGMOID = defop("Sigmoid", _sigmoid_np, jax_impl=_sigmoid_jax, dtypes=INEXACT, shape=shapes.same, quiet=True,
                grad=_sigmoid_grad)


@tf_export("math.sigmoid", "nn.sigmoid", "sigmoid")
def sigmoid(x, name=None):
    """1 / (1 + exp(-x)), without overflow.  ``tf.sigmoid(0.)`` -> ``0.5``."""
    return bind(SIGMOID, t(x))


@tf_export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|.  ``tf.math.log_sigmoid(0.)`` -> ``-0.6931472``."""
    from tensorlet._src.ops.nn_activations import softplus

    return bind(NEG, softplus(bind(NEG, t(x))))  # as TF: Softplus's allowed types and errors


# --- special functions (scipy.special eagerly, jax.scipy.special when compiled) --------------

def _via_f32(fn, x):
    """Apply a scipy ufunc, computing 16-bit floats in float32, and return x's dtype."""
    d = x.dtype
    if d.itemsize == 2:
        return fn(x.astype(np.float32)).astype(d)
    return fn(x).astype(d, copy=False)


def _special(op_name, sp_name, jsp_name, fix=None, grad=None):
    def impl(xp, x):
        import scipy.special

        r = _via_f32(getattr(scipy.special, sp_name), x)
        return fix(xp, x, r) if fix is not None else r

    def jax_impl(xp, x):
        import jax.scipy.special as jsp

        fn = getattr(jsp, jsp_name)
        if x.dtype.itemsize == 2:  # jax's ndtri rejects float16; compute 16-bit floats in float32
            return fn(x.astype(np.float32)).astype(x.dtype)
        return fn(x)

    return defop(op_name, impl, jax_impl=jax_impl, dtypes=FLT, shape=shapes.same, quiet=True, grad=grad)


def _digamma_poles(xp, x, r):
    # TF (and jax): NaN at 0 and at the negative integers; scipy gives -inf/+inf at +-0
    return xp.where((x <= 0) & (xp.floor(x) == x), xp.asarray(np.nan, r.dtype), r)


def _lgamma_neg_inf(xp, x, r):
    # TF (and jax): lgamma(-inf) = +inf; scipy gives -inf
    return xp.where(xp.isneginf(x), xp.asarray(np.inf, r.dtype), r)


ERF = _special("Erf", "erf", "erf", grad=lambda g, ans, x: g * _TWO_OVER_ROOT_PI * exp(-square(x)))
ERFC = _special("Erfc", "erfc", "erfc", grad=lambda g, ans, x: g * -_TWO_OVER_ROOT_PI * exp(-square(x)))
ERFINV = _special("Erfinv", "erfinv", "erfinv", grad=lambda g, ans, x: g * _ROOT_PI_OVER_TWO * exp(square(ans)))
NDTRI = _special("Ndtri", "ndtri", "ndtri", grad=lambda g, ans, x: g * _ROOT_TWO_PI * exp(square(ans) / 2))
LGAMMA = _special("Lgamma", "gammaln", "gammaln", fix=_lgamma_neg_inf, grad=lambda g, ans, x: g * digamma(x))
DIGAMMA = _special("Digamma", "psi", "digamma", fix=_digamma_poles,
                   grad=lambda g, ans, x: g * math_special.polygamma(1, x))  # trigamma, as TF


@tf_export("math.erf")
def erf(x, name=None):
    """Gauss error function.  ``tf.math.erf(0.)`` -> ``0.``."""
    return bind(ERF, t(x))


@tf_export("math.erfc")
def erfc(x, name=None):
    """1 - erf(x), accurate for large x.  ``tf.math.erfc(0.)`` -> ``1.``."""
    return bind(ERFC, t(x))


@tf_export("math.erfinv")
def erfinv(x, name=None):
    """Inverse of erf on (-1, 1); +-inf at +-1, nan outside.  ``tf.math.erfinv(0.)`` -> ``0.``."""
    return bind(ERFINV, t(x))


@tf_export("math.ndtri")
def ndtri(x, name=None):
    """Inverse of the standard normal CDF.  ``tf.math.ndtri(0.5)`` -> ``0.``."""
    return bind(NDTRI, t(x))


@tf_export("math.lgamma")
def lgamma(x, name=None):
    """log |Gamma(x)|.  ``tf.math.lgamma(1.)`` -> ``0.``."""
    return bind(LGAMMA, t(x))


@tf_export("math.digamma")
def digamma(x, name=None):
    """Derivative of lgamma; nan at 0 and negative integers.  ``tf.math.digamma(1.)`` -> ``-0.5772157``."""
    return bind(DIGAMMA, t(x))


# --- complex parts -------------------------------------------------------------------------

def _real_dtype(x, **attrs):
    return shapes.Spec(x.shape, x.dtype.real_dtype)


REAL = defop("Real", lambda xp, x: xp.real(x).copy(), dtypes=D.COMPLEX, shape=_real_dtype,
             grad=lambda g, ans, x: math_binary_fn.complex(g, creation.zeros_like(g)))
IMAG = defop("Imag", lambda xp, x: xp.imag(x).copy(), dtypes=D.COMPLEX, shape=_real_dtype,
             grad=lambda g, ans, x: math_binary_fn.complex(creation.zeros_like(g), g))
CONJ = defop("Conj", xpfn("conj"), dtypes=D.COMPLEX, shape=shapes.same, grad=lambda g, ans, x: conj(g))
ANGLE = defop("Angle", xpfn("angle"), dtypes=D.COMPLEX, shape=_real_dtype, grad=_angle_grad)


@tf_export("math.real")
def real(input, name=None):  # noqa: A002 - TF's argument name
    """Real part; a real numeric input is returned as it is.  ``tf.math.real(1 + 2j)`` -> ``1.``."""
    x = t(input)
    if x.dtype.is_complex:
        return bind(REAL, x)
    if x.dtype.is_numeric and x.dtype is not D.bool:
        return x
    raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")


@tf_export("math.imag")
def imag(input, name=None):  # noqa: A002 - TF's argument name
    """Imaginary part; zeros for a real input.  ``tf.math.imag(1 + 2j)`` -> ``2.``."""
    x = t(input)
    if x.dtype.is_complex:
        return bind(IMAG, x)
    from tensorlet._src.ops.creation import zeros_like

    return zeros_like(x)


@tf_export("math.conj")
def conj(x, name=None):
    """Complex conjugate; real numeric input is returned as it is.  ``tf.math.conj(1 + 2j)`` -> ``1 - 2j``."""
    x = t(x)
    d = x.dtype
    if d.is_complex:
        return bind(CONJ, x)
    if d.is_floating or d.is_integer:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {d!r}.")


@tf_export("math.angle")
def angle(input, name=None):  # noqa: A002 - TF's argument name
    """Argument of a complex number; for real input pi where negative, else 0.

    ``tf.math.angle(-1 + 0j)`` -> ``3.14159...``.
    """
    x = t(input)
    if x.dtype.is_complex:
        return bind(ANGLE, x)
    if x.dtype.is_integer:  # TF multiplies pi into ones_like(input)
        raise TypeError(f"Cannot convert {np.pi!r} to EagerTensor of dtype {x.dtype.name}")
    from tensorlet._src.ops.math_binary import MUL, cast, less

    return bind(MUL, cast(less(x, 0), x.dtype), t(np.asarray(np.pi, x.dtype._np)))


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import creation, math_binary, math_binary_fn, math_special  # noqa: E402
