"""More elementwise math: atan2, xlogy family, tf.complex, add_n, clipping and norms, polyval, scalar_mul."""

from __future__ import annotations

import collections.abc
import functools

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import binary, mismatch, t as _t
from tensorlet._src.ops.registry import bind, defop, tf_export, xpfn

D = _dt
FLT = mu.FLT
# Xlogy/Xdivy/Xlog1py list their types in this order
XLOGY_TYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.complex64, D.complex128)
# Minimum/Maximum's types (tf.clip_by_value is minimum then maximum in TF)
CLIP_TYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.uint16, D.int32, D.uint32,
              D.int64, D.uint64)
ADDN_TYPES = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.complex64, D.int64, D.bfloat16, D.uint16,
              D.complex128, D.float16, D.uint32, D.uint64)


def _is_tensor(v) -> bool:
    return isinstance(v, Tensor) or hasattr(v, "__tf_tensor__")


def _of_dtype(v, dtype, op_name, index):
    """``v`` as a tensor of ``dtype``: Python values are converted to it (TypeError if they cannot be), tensors of
    another dtype are TF's InvalidArgumentError."""
    if _is_tensor(v):
        v = _t(v)
        if v.dtype is not dtype:
            raise mismatch(op_name, index, dtype, v.dtype)
        return v
    return _t(v, dtype=dtype)


def _broadcast(op_name, *xs) -> TensorShape:
    out = xs[0].shape
    try:
        for x in xs[1:]:
            out = shapes.broadcast_shapes(out, x.shape)
    except ValueError:
        text = " vs. ".join(errors.shape_str(x.shape.as_list()) for x in xs if x.shape.rank != 0)
        raise errors.invalid_argument(op_name, f"Incompatible shapes: {text}") from None
    return out


# --- atan2 and the x*f(y) family ------------------------------------------------------------

def _xlogy(xp, x, y):
    r = x * xp.log(y)
    return xp.where(x == 0, xp.zeros_like(r), r)


def _xdivy(xp, x, y):
    r = x / y
    return xp.where(x == 0, xp.zeros_like(r), r)


def _xlog1py(xp, x, y):
    r = x * xp.log1p(y)
    return xp.where(x == 0, xp.zeros_like(r), r)


def _atan2_grad(g, ans, y, x):
    gi = g / (mu.square(y) + mu.square(x))
    return unbroadcast(x * gi, y), unbroadcast(-y * gi, x)


def _nonzero(x):
    """1 where x != 0, else 0, in x's dtype: the xlogy family's gradient w.r.t. x is 0 wherever x == 0 (TF)."""
    return mb.cast(mb.not_equal(x, mb.cast(0, x.dtype)), x.dtype)


def _xlogy_grad(g, ans, x, y):
    return unbroadcast(xlogy(_nonzero(x), y) * g, x), unbroadcast(xdivy(x, y) * g, y)


def _xdivy_grad(g, ans, x, y):
    return unbroadcast(xdivy(_nonzero(x), y) * g, x), unbroadcast(xdivy(-x, mu.square(y)) * g, y)


def _xlog1py_grad(g, ans, x, y):
    return unbroadcast(xlog1py(_nonzero(x), y) * g, x), unbroadcast(xdivy(x, y + 1) * g, y)


ATAN2 = defop("Atan2", xpfn("arctan2"), dtypes=FLT, shape=shapes.broadcast, quiet=True, grad=_atan2_grad)
XLOGY = defop("Xlogy", _xlogy, dtypes=XLOGY_TYPES, shape=shapes.broadcast, quiet=True, grad=_xlogy_grad)
XDIVY = defop("Xdivy", _xdivy, dtypes=XLOGY_TYPES, shape=shapes.broadcast, quiet=True, grad=_xdivy_grad)
XLOG1PY = defop("Xlog1py", _xlog1py, dtypes=XLOGY_TYPES, shape=shapes.broadcast, quiet=True, grad=_xlog1py_grad)


@tf_export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """Angle of the point (x, y), in [-pi, pi].  ``tf.atan2(1., 0.)`` -> ``1.5707964``."""
    return binary(ATAN2, y, x)


@tf_export("math.xlogy")
def xlogy(x, y, name=None):
    """x * log(y), and 0 wherever x == 0 (even if y is 0 or nan).  ``tf.math.xlogy(0., 0.)`` -> ``0.``."""
    return binary(XLOGY, x, y)


@tf_export("math.xdivy")
def xdivy(x, y, name=None):
    """x / y, and 0 wherever x == 0.  ``tf.math.xdivy(0., 0.)`` -> ``0.``."""
    return binary(XDIVY, x, y)


@tf_export("math.xlog1py")
def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 wherever x == 0.  ``tf.math.xlog1py(0., -1.)`` -> ``0.``."""
    return binary(XLOG1PY, x, y)


# --- polygamma ---------------------------------------------------------------------------------

def _polygamma(xp, sp, n, x):
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1, digamma for n = 0, nan unless n is a non-negative
    integer.  At the poles (x = 0, -1, ..., -inf) it is inf for odd n and nan for even n, as TF (Eigen's zeta)."""
    n, x = xp.broadcast_arrays(n, x)
    valid = (n >= 0) & (xp.floor(n) == n) & xp.isfinite(n)
    nn = xp.where(valid, n, 1)  # keep the special functions inside their domain
    odd = xp.fmod(nn, 2) == 1
    fact = xp.exp(sp.gammaln(nn + 1))
    r = xp.where(odd, fact, -fact) * sp.zeta(nn + 1, x)
    r = xp.where(xp.isposinf(x), 0, r)  # zeta(s, inf) = 0 (jax's zeta gives nan there)
    r = xp.where(nn == 0, sp.digamma(x), r)
    pole = (x <= 0) & (xp.floor(x) == x)
    r = xp.where(pole, xp.where(odd, np.inf, np.nan), r)
    return xp.where(valid, r, np.nan)


class _ScipySpecial:
    def __getattr__(self, name):
        import scipy.special

        return getattr(scipy.special, "psi" if name == "digamma" else name)


def _polygamma_np(xp, n, x):
    d = x.dtype  # scipy's zeta computes in float64; round to float32 after
    return _polygamma(xp, _ScipySpecial(), n.astype(np.float64), x.astype(np.float64)).astype(d)


@functools.cache
def _polygamma_jit():
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    # one jitted kernel: op-by-op dispatch would compile each of its ~20 steps per shape
    return jax.jit(lambda n, x: _polygamma(jnp, jsp, n, x).astype(x.dtype))


def _polygamma_jax(xp, n, x):
    return _polygamma_jit()(n, x)


POLYGAMMA = defop("Polygamma", _polygamma_np, jax_impl=_polygamma_jax, dtypes=(D.float32, D.float64),
                  shape=shapes.broadcast, quiet=True,
                  grad=lambda g, ans, n, x: (None, unbroadcast(g * polygamma(n + 1, x), x)))  # none for n, as TF


def _matching(op_name, *vs):
    """TF's argument matching: a tensor argument sets the dtype (else the first argument does); the others are
    converted to it."""
    first = next((_t(v) for v in vs if _is_tensor(v)), None)
    if first is None:
        first = _t(vs[0])
    return [_of_dtype(v, first.dtype, op_name, i) for i, v in enumerate(vs)]


@tf_export("math.polygamma")
def polygamma(a, x, name=None):
    """The polygamma function: the a-th derivative of digamma at x (a a non-negative integer, else nan).

    ``tf.math.polygamma(1., 1.)`` -> ``1.644934`` (pi**2 / 6).
    """
    a, x = _matching("Polygamma", a, x)
    if a.shape != x.shape:
        _broadcast("Polygamma", a, x)
    return bind(POLYGAMMA, a, x)


# --- tf.complex ------------------------------------------------------------------------------

def _complex_np(xp, re, im):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)),
                   np.complex64 if re.dtype == np.float32 else np.complex128)
    out.real = re  # filled part by part: re + 1j * im would turn an infinite imag into nan
    out.imag = im
    return out


def _complex_jax(xp, re, im):
    from jax import lax

    return lax.complex(*xp.broadcast_arrays(re, im))


def _complex_shape(re, im, **attrs):
    return shapes.Spec(shapes.broadcast_shapes(re.shape, im.shape),
                       D.complex64 if re.dtype is D.float32 else D.complex128)


COMPLEX = defop("Complex", _complex_np, jax_impl=_complex_jax, dtypes=(D.float32, D.float64), shape=_complex_shape,
                grad=lambda g, ans, re, im: (unbroadcast(mu.real(g), re), unbroadcast(mu.imag(g), im)))


@tf_export("dtypes.complex", "complex")
def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """real + imag * 1j from two float32 (-> complex64) or float64 (-> complex128) tensors.

    ``tf.complex(1., 2.)`` -> ``(1+2j)`` (complex64).
    """
    real, imag = _t(real), _t(imag)
    if not (real.dtype is imag.dtype and real.dtype in (D.float32, D.float64)):
        raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                        f"{imag.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]")
    if real.shape != imag.shape:
        _broadcast("Complex", real, imag)
    return bind(COMPLEX, real, imag)


# --- add_n ---------------------------------------------------------------------------------

def _add_n_check(*xs):
    s0 = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != s0:
            raise errors.invalid_argument(
                "AddN", f"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: "
                        f"{errors.shape_str(s0.as_list())} != input {i}: {errors.shape_str(x.shape.as_list())}")


def _add_n_shape(*xs, **attrs):
    return shapes.Spec(xs[0].shape, xs[0].dtype)


ADD_N = defop("AddN", lambda xp, *xs: functools.reduce(xp.add, xs), dtypes=ADDN_TYPES, check=_add_n_check,
              shape=_add_n_shape, grad=lambda g, ans, *xs: [g] * len(xs))


@tf_export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """Sum of a list of tensors of one shape and dtype.  ``tf.add_n([[1, 2], [3, 4]])`` -> ``[4, 6]``."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    inputs = [_t(x) for x in inputs]
    if len(inputs) == 1:
        return inputs[0]
    d = inputs[0].dtype
    for i, x in enumerate(inputs):
        if x.dtype is not d:
            raise mismatch("AddN", i, d, x.dtype)
    return bind(ADD_N, *inputs)


# --- scalar_mul, polyval ----------------------------------------------------------------------

@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    """scalar * x for a 0-D ``scalar`` (converted to x's dtype).

    ``tf.math.scalar_mul(2, [1., 2.])`` -> ``[2., 4.]``.
    """
    x = _t(x)
    scalar = _t(scalar, dtype=x.dtype)
    if scalar.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return bind(mb.MUL, scalar, x)


@tf_export("math.polyval")
def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's rule; ``coeffs`` is a list.

    ``tf.math.polyval([1., 2., 3.], 2.)`` -> ``11.``.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = _t(x)
    if not coeffs:
        from tensorlet._src.ops.creation import zeros_like

        return zeros_like(x)
    coeffs = [_t(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = mb.add(c, mb.multiply(p, x))
    return p


# --- clipping and norms -----------------------------------------------------------------------

def _clip_by_value_grad(g, ans, x, lo, hi):
    # tf.clip_by_value is maximum(minimum(t, max), min) in TF, so its gradient is theirs chained: minimum passes g
    # to t where t <= max (else to max), then maximum passes it on where minimum(t, max) >= min (else to min).
    zeros = creation.zeros_like(g)
    to_min = mb.greater_equal(mb.minimum(x, hi), lo)
    g_inner = array_misc.where(to_min, g, zeros)
    to_x = mb.less_equal(x, hi)
    return (unbroadcast(array_misc.where(to_x, g_inner, zeros), x), unbroadcast(array_misc.where(to_min, zeros, g), lo),
            unbroadcast(array_misc.where(to_x, zeros, g_inner), hi))


CLIP_BY_VALUE = defop("ClipByValue", lambda xp, x, lo, hi: xp.maximum(xp.minimum(x, hi), lo), dtypes=CLIP_TYPES,
                      shape=lambda x, lo, hi, **attrs: shapes.Spec(x.shape, x.dtype), grad=_clip_by_value_grad)


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max) elementwise, with bounds broadcast to ``t`` (TF computes
    ``maximum(minimum(t, max), min)``, so a min above the max wins).

    ``tf.clip_by_value([-2., 0.5, 3.], -1., 1.)`` -> ``[-1., 0.5, 1.]``.
    """
    values = _t(t)
    d = values.dtype
    lo = _of_dtype(clip_value_min, d, "ClipByValue", 1)
    hi = _of_dtype(clip_value_max, d, "ClipByValue", 2)
    if lo.shape.rank != 0 or hi.shape.rank != 0:
        out = _broadcast("ClipByValue", values, lo, hi)
        if not values.shape.is_compatible_with(out):
            raise ValueError(f"Shapes {values.shape} and {out} are incompatible")
    return bind(CLIP_BY_VALUE, values, lo, hi)


def _reduce_sum(x, axis, keepdims=False):
    from tensorlet._src.ops.reduce import reduce_sum

    return reduce_sum(x, axis, keepdims=keepdims)


def _where(cond, a, b):
    from tensorlet._src.ops.array_misc import where

    return where(cond, a, b)


@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales ``t`` so that its L2 norm over ``axes`` (all by default) is at most ``clip_norm``.

    ``tf.clip_by_norm([3., 4.], 1.)`` -> ``[0.6, 0.8]``.
    """
    values = _t(t)
    if np.isscalar(clip_norm):
        if clip_norm < 0:
            clip_norm = 0
    else:
        clip_norm = mb.cast(mb.maximum(clip_norm, 0), values.dtype)
    l2sum = _reduce_sum(mb.multiply(values, values), axes, keepdims=True)
    pred = mb.greater(l2sum, 0)
    # sqrt only of positive sums, so that gradients stay finite at zero
    from tensorlet._src.ops.creation import ones_like

    l2norm = _where(pred, mu.sqrt(_where(pred, l2sum, ones_like(l2sum))), l2sum)
    intermediate = mb.multiply(values, clip_norm)
    if not values.shape.is_compatible_with(intermediate.shape):
        raise ValueError(f"Shapes {values.shape} and {intermediate.shape} are incompatible")
    return mb.truediv(intermediate, mb.maximum(l2norm, clip_norm))


def _tensor_list(t_list):
    if _is_tensor(t_list) or not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return [_t(v) if v is not None else None for v in t_list]


@tf_export("linalg.global_norm")
def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in ``t_list``); None entries are skipped.

    ``tf.linalg.global_norm([[3.], [4.]])`` -> ``5.``.
    """
    values = [v for v in _tensor_list(t_list) if v is not None]
    if not values:
        return _t(np.float32(0.0))
    for v in values:
        if v.dtype not in FLT:  # TF stacks L2Loss(v) of each tensor, then sums
            raise errors.invalid_argument(
                "L2Loss", f"Value for attr 'T' of {v.dtype.name} is not in the list of allowed values: "
                          "half, bfloat16, float, double")
    d = values[0].dtype
    for i, v in enumerate(values):
        if v.dtype is not d:
            raise mismatch("Pack", i, d, v.dtype)
    sums = [_reduce_sum(mu.square(v), None) for v in values]
    return mu.sqrt(add_n(sums))


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(list_clipped, global_norm)``; None entries pass through, and an inf/nan norm gives nan values.
    ``tf.clip_by_global_norm([[3.], [4.]], 1.)[0]`` -> ``[[0.6], [0.8]]``.
    """
    values = _tensor_list(t_list)
    use_norm = global_norm(values) if use_norm is None else _t(use_norm)
    one = _t(np.asarray(1.0, use_norm.dtype._np))
    scale = mb.multiply(clip_norm, mb.minimum(mb.truediv(one, use_norm), mb.truediv(one, clip_norm)))
    scale = mb.add(scale, mb.subtract(use_norm, use_norm))  # nan when the norm is inf or nan
    clipped = [None if v is None else mb.multiply(v, mb.cast(scale, v.dtype)) for v in values]
    return clipped, use_norm


@tf_export("math.l2_normalize", "nn.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)); ``axis`` None normalizes over all elements.

    ``tf.math.l2_normalize([3., 4.])`` -> ``[0.6, 0.8]``.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    x = _t(x)
    if x.dtype.is_complex:
        re, im = mu.real(x), mu.imag(x)
        square_sum = _reduce_sum(mb.add(mu.square(re), mu.square(im)), axis, keepdims=True)
        inv = mu.rsqrt(mb.maximum(square_sum, _of_dtype(epsilon, square_sum.dtype, "Maximum", 1)))
        return complex(mb.multiply(re, inv), mb.multiply(im, inv))
    square_sum = _reduce_sum(mu.square(x), axis, keepdims=True)
    inv = mu.rsqrt(mb.maximum(square_sum, _of_dtype(epsilon, square_sum.dtype, "Maximum", 1)))
    return mb.multiply(x, inv)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_misc, creation  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops import math_binary as mb  # noqa: E402
