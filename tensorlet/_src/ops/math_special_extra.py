"""``tf.math.special``: Bessel J/Y/K, Dawson's integral, the exponential integral, Fresnel integrals, Spence.

Eagerly the kernels are scipy.special's; compiled, jax.scipy.special's where jax has the function (dawsn, expi,
fresnel, spence) and otherwise a host call into the same scipy function (jax has no Bessel J0/J1/Y/K).  Half
precision is computed in float32, as TF's Eigen kernels do.  Gradients are TF's (special_math_ops.py).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import bind, defop, tf_export

FLT = (D.bfloat16, D.float16, D.float32, D.float64)


def _sp(name):
    import scipy.special

    if name in ("fresnel_s", "fresnel_c"):  # scipy's fresnel() returns (S, C)
        return lambda x: scipy.special.fresnel(x)[name == "fresnel_c"]
    return getattr(scipy.special, name)


def _fix(xp, fname, x, r):
    """TF's (Eigen's) values outside the real domain, where scipy gives nan or a complex-plane value."""
    inf = xp.asarray(np.inf, r.dtype)
    if fname == "y0":
        return xp.where(x <= 0, -inf, r)
    if fname == "y1":
        return xp.where(x < 0, -inf, xp.where(x == 0, xp.asarray(np.nan, r.dtype), r))
    if fname in ("k0", "k0e", "k1", "k1e"):
        return xp.where(x <= 0, inf, r)
    if fname == "expi":
        return xp.where(x < 0, xp.asarray(np.nan, r.dtype), xp.where(x == 0, -inf, r))
    return r


def _np_kernel(fname):
    def impl(xp, x):
        d = x.dtype
        xin = x.astype(np.float32) if d.itemsize == 2 else x
        return _fix(np, fname, xin, np.asarray(_sp(fname)(xin))).astype(d)
    return impl


def _jax_kernel(fname, jax_name=None):
    def jax_impl(xp, x):
        import jax
        import jax.numpy as jnp

        d = x.dtype
        xin = x.astype(jnp.float32) if d.itemsize == 2 else x
        if jax_name is not None:
            import jax.scipy.special as jsp

            if jax_name == "fresnel_s":
                r = jsp.fresnel(xin)[0]
            elif jax_name == "fresnel_c":
                r = jsp.fresnel(xin)[1]
            else:
                r = getattr(jsp, jax_name)(xin)
        else:
            fn = _sp(fname)
            r = jax.pure_callback(lambda a: np.asarray(fn(a)).astype(a.dtype),
                                  jax.ShapeDtypeStruct(xin.shape, xin.dtype), xin, vmap_method="expand_dims")
        return _fix(jnp, fname, xin, r).astype(d)
    return jax_impl


def _special(op_name, fname, grad, jax_name=None):
    return defop(op_name, _np_kernel(fname), jax_impl=_jax_kernel(fname, jax_name), dtypes=FLT, shape=shapes.same,
                 quiet=True, grad=grad)


def _safe_recip(x):
    """1/x, with 1 where x == 0 (the callers replace those entries)."""
    return 1 / array_select.where(math_binary.equal(x, 0), creation.ones_like(x), x)


def _j1_grad(g, ans, x):
    d = bessel_j0(x) - ans * _safe_recip(x)
    return g * array_select.where(math_binary.equal(x, 0), creation.ones_like(x) * 0.5, d)


BESSEL_J0 = _special("BesselJ0", "j0", lambda g, ans, x: g * -bessel_j1(x))
BESSEL_J1 = _special("BesselJ1", "j1", _j1_grad)
BESSEL_Y0 = _special("BesselY0", "y0", lambda g, ans, x: g * -bessel_y1(x))
BESSEL_Y1 = _special("BesselY1", "y1", lambda g, ans, x: g * (bessel_y0(x) - ans / x))
BESSEL_K0 = _special("BesselK0", "k0", lambda g, ans, x: g * -bessel_k1(x))
BESSEL_K0E = _special("BesselK0e", "k0e", lambda g, ans, x: g * (ans - bessel_k1e(x)))
BESSEL_K1 = _special("BesselK1", "k1", lambda g, ans, x: g * (-bessel_k0(x) - ans / x))
BESSEL_K1E = _special("BesselK1e", "k1e", lambda g, ans, x: g * (ans * (1 - 1 / x) - bessel_k0e(x)))
DAWSN = _special("Dawsn", "dawsn", lambda g, ans, x: g * (1 - 2 * x * ans), "dawsn")
EXPINT = _special("Expint", "expi", lambda g, ans, x: g * math_unary.exp(x) / x, "expi")
FRESNEL_COS = _special("FresnelCos", "fresnel_c",
                       lambda g, ans, x: g * math_unary.cos(float(np.pi / 2) * math_unary.square(x)), "fresnel_c")
FRESNEL_SIN = _special("FresnelSin", "fresnel_s",
                       lambda g, ans, x: g * math_unary.sin(float(np.pi / 2) * math_unary.square(x)), "fresnel_s")


def _spence_grad(g, ans, x):
    d = math_unary.log(x) * _safe_recip(1 - x)
    return g * array_select.where(math_binary.equal(x, 1), -creation.ones_like(x), d)


SPENCE = _special("Spence", "spence", _spence_grad, "spence")


@tf_export("math.special.bessel_j0")
def bessel_j0(x, name=None):
    """Bessel function of the first kind of order 0.  ``tf.math.special.bessel_j0(1.)`` -> ``0.7651977``."""
    return bind(BESSEL_J0, t(x))


@tf_export("math.special.bessel_j1")
def bessel_j1(x, name=None):
    """Bessel function of the first kind of order 1.  ``tf.math.special.bessel_j1(1.)`` -> ``0.44005057``."""
    return bind(BESSEL_J1, t(x))


@tf_export("math.special.bessel_y0")
def bessel_y0(x, name=None):
    """Bessel function of the second kind of order 0.  ``tf.math.special.bessel_y0(1.)`` -> ``0.08825696``."""
    return bind(BESSEL_Y0, t(x))


@tf_export("math.special.bessel_y1")
def bessel_y1(x, name=None):
    """Bessel function of the second kind of order 1.  ``tf.math.special.bessel_y1(1.)`` -> ``-0.7812128``."""
    return bind(BESSEL_Y1, t(x))


@tf_export("math.special.bessel_k0")
def bessel_k0(x, name=None):
    """Modified Bessel function of the second kind of order 0.  ``tf.math.special.bessel_k0(1.)`` -> ``0.42102444``."""
    return bind(BESSEL_K0, t(x))


@tf_export("math.special.bessel_k0e")
def bessel_k0e(x, name=None):
    """exp(x) K0(x).  ``tf.math.special.bessel_k0e(1.)`` -> ``1.1444631``."""
    return bind(BESSEL_K0E, t(x))


@tf_export("math.special.bessel_k1")
def bessel_k1(x, name=None):
    """Modified Bessel function of the second kind of order 1.  ``tf.math.special.bessel_k1(1.)`` -> ``0.6019072``."""
    return bind(BESSEL_K1, t(x))


@tf_export("math.special.bessel_k1e")
def bessel_k1e(x, name=None):
    """exp(x) K1(x).  ``tf.math.special.bessel_k1e(1.)`` -> ``1.636153``."""
    return bind(BESSEL_K1E, t(x))


@tf_export("math.special.dawsn")
def dawsn(x, name=None):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt.  ``tf.math.special.dawsn(1.)`` -> ``0.5380795``."""
    return bind(DAWSN, t(x))


@tf_export("math.special.expint")
def expint(x, name=None):
    """The exponential integral Ei(x).  ``tf.math.special.expint(1.)`` -> ``1.8951178``."""
    return bind(EXPINT, t(x))


@tf_export("math.special.fresnel_cos")
def fresnel_cos(x, name=None):
    """Fresnel cosine integral int_0^x cos(pi t^2 / 2) dt.  ``tf.math.special.fresnel_cos(1.)`` -> ``0.7798934``."""
    return bind(FRESNEL_COS, t(x))


@tf_export("math.special.fresnel_sin")
def fresnel_sin(x, name=None):
    """Fresnel sine integral int_0^x sin(pi t^2 / 2) dt.  ``tf.math.special.fresnel_sin(1.)`` -> ``0.43825915``."""
    return bind(FRESNEL_SIN, t(x))


@tf_export("math.special.spence")
def spence(x, name=None):
    """Spence's function int_1^x log(t) / (1 - t) dt.  ``tf.math.special.spence(2.)`` -> ``-0.8224670``."""
    return bind(SPENCE, t(x))


from tensorlet._src.ops import array_select, creation, math_binary, math_unary  # noqa: E402
