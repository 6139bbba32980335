"""Two-argument elementwise functions beyond arithmetic: atan2, the x*f(y) family (xlogy, xdivy, xlog1py),
tf.complex and scalar_mul.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import binary, broadcast_static, t as _t
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops.registry import bind, defop, tf_export, xpfn

D = _dt
FLT = mu.FLT
# Xlogy/Xdivy/Xlog1py list their types in this order
XLOGY_TYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.complex64, D.complex128)


# --- atan2 and the x*f(y) family ------------------------------------------------------------------

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
    return unbroadcast(x * gi, y, x), unbroadcast(-y * gi, x, y)


def _nonzero(x):
    """1 where x != 0, else 0, in x's dtype: the xlogy family's gradient w.r.t. x is 0 wherever x == 0 (TF)."""
    return mb.cast(mb.not_equal(x, mb.cast(0, x.dtype)), x.dtype)


def _xlogy_grad(g, ans, x, y):
    return unbroadcast(xlogy(_nonzero(x), y) * g, x, y), unbroadcast(xdivy(x, y) * g, y, x)


def _xdivy_grad(g, ans, x, y):
    return unbroadcast(xdivy(_nonzero(x), y) * g, x, y), unbroadcast(xdivy(-x, mu.square(y)) * g, y, x)


def _xlog1py_grad(g, ans, x, y):
    return unbroadcast(xlog1py(_nonzero(x), y) * g, x, y), unbroadcast(xdivy(x, y + 1) * g, y, x)


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


# --- tf.complex -----------------------------------------------------------------------------------

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
                grad=lambda g, ans, re, im: (unbroadcast(mu.real(g), re, im), unbroadcast(mu.imag(g), im, re)))


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
        broadcast_static("Complex", real, imag)
    return bind(COMPLEX, real, imag)


# --- scalar_mul -----------------------------------------------------------------------------------

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


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops import math_binary as mb  # noqa: E402
