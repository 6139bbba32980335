"""Special functions: incomplete gamma/beta, zeta, polygamma, Bessel, nextafter, and small math composites."""

from __future__ import annotations

import functools

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import broadcast_static, is_tensor_like, of_dtype, same_dtype, t
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop, tf_export

F32_64 = (D.float32, D.float64)
FLT = (D.bfloat16, D.float16, D.float32, D.float64)


def _check_broadcast(op_name, *xs):
    try:
        np.broadcast_shapes(*(tuple(x.shape) for x in xs))
    except ValueError:
        dims = " vs. ".join("[" + ",".join(str(d) for d in x.shape) + "]" for x in xs)
        raise errors.invalid_argument(op_name, f"Incompatible shapes: {dims}") from None


def _sp(name):
    import scipy.special

    return getattr(scipy.special, name)


def _nan_where(xp, cond, r):
    return xp.where(cond, xp.asarray(np.nan, r.dtype), r)


# --- composites -------------------------------------------------------------------------------

@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x == 0.  ``tf.math.reciprocal_no_nan([0., 2.])`` -> ``[0., 0.5]``."""
    x = t(x)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise errors.invalid_argument("DivNoNan", f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                                                  "values: half, float, bfloat16, double, complex64, complex128")
    return math_binary.divide_no_nan(creation.ones_like(x), x)


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value, name=None):
    """Fraction of zeros in ``value`` as float32.  ``tf.math.zero_fraction([0, 1])`` -> ``0.5``."""
    value = t(value)
    return reduce.reduce_mean(math_binary.cast(math_binary.equal(value, creation.zeros_like(value)), D.float32))


def _monotonic(x, strict):
    x = t(x)
    if not (x.dtype.is_floating or x.dtype.is_integer or x.dtype.is_complex):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    flat = array_shape.reshape(x, [-1])
    a, b = flat[1:], flat[:-1]
    return reduce.reduce_all(math_binary.greater(a, b) if strict else math_binary.greater_equal(a, b))


@tf_export("math.is_non_decreasing")
def is_non_decreasing(x, name=None):
    """True if the flattened ``x`` never decreases.  ``tf.math.is_non_decreasing([1, 1, 2])`` -> ``True``."""
    return _monotonic(x, False)


@tf_export("math.is_strictly_increasing")
def is_strictly_increasing(x, name=None):
    """True if the flattened ``x`` strictly increases.  ``tf.math.is_strictly_increasing([1, 2])`` -> ``True``."""
    return _monotonic(x, True)


@tf_export("math.lbeta")
def lbeta(x, name=None):
    """log|Beta(x)| reduced over the last axis.  ``tf.math.lbeta([1., 2.])`` -> ``-0.6931472``."""
    x = t(x)
    return reduce.reduce_sum(math_unary.lgamma(x), axis=-1) - math_unary.lgamma(reduce.reduce_sum(x, axis=-1))


@tf_export("math.erfcinv")
def erfcinv(x, name=None):
    """Inverse of erfc on (0, 2).  ``tf.math.erfcinv(1.)`` -> ``0.``."""
    x = t(x)
    return -math_unary.ndtri(x * 0.5) * float(1 / np.sqrt(2))


# --- primitives: scipy.special eagerly, jax.scipy.special when compiled --------------------------

def _igamma_fix(xp, a, x, r):
    # TF: nan for a <= 0, x < 0 or nan inputs
    return _nan_where(xp, (a <= 0) | (x < 0) | xp.isnan(a) | xp.isnan(x), r)


def _igamma_np(xp, a, x):
    return _igamma_fix(xp, a, x, _sp("gammainc")(a, x).astype(a.dtype))


@functools.cache
def _jitted(name):
    """One jitted kernel per special function: op-by-op dispatch would compile each of its steps per shape."""
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    fns = {
        "igamma": lambda a, x: _igamma_fix(jnp, a, x, jsp.gammainc(a, x)),
        "igammac": lambda a, x: _igamma_fix(jnp, a, x, jsp.gammaincc(a, x)),
        "betainc": lambda a, b, x: _betainc_fix(jnp, a, b, x, jsp.betainc(a, b, x)),
        "zeta": lambda s, q: _zeta_fix(jnp, s, q, jsp.zeta(s, q)),
    }
    return jax.jit(fns[name])


def _igamma_jax(xp, a, x):
    return _jitted("igamma")(a, x)


def _igammac_np(xp, a, x):
    return _igamma_fix(xp, a, x, _sp("gammaincc")(a, x).astype(a.dtype))


def _igammac_jax(xp, a, x):
    return _jitted("igammac")(a, x)


def _igamma_grad_a_np(xp, a, x):
    """d/da P(a, x) from the series P = sum_n exp((a+n) log x - x - lgamma(a+n+1)) (positive terms)."""
    import scipy.special as sp

    d = a.dtype
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    xmax = float(np.max(x[np.isfinite(x)], initial=0.0)) if x.size else 0.0
    n = np.arange(int(xmax + 12 * np.sqrt(xmax) + 60), dtype=np.float64).reshape((-1,) + (1,) * a.ndim)
    lx = np.log(np.where(x > 0, x, 1.0))
    term = np.exp((a + n) * lx - x - sp.gammaln(a + n + 1))
    r = np.sum(term * (lx - sp.psi(a + n + 1)), axis=0)
    r = np.where(x == 0, 0.0, r)
    return _nan_where(np, (a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x), r).astype(d)


def _igamma_grad_a_jax(xp, a, x):
    import jax

    return jax.lax.igamma_grad_a(a, x)


def _igamma_dx(x, a):
    # d/dx P(a, x) = exp(-x + (a-1) log x - lgamma(a))
    return math_unary.exp(-x + (a - 1) * math_unary.log(x) - math_unary.lgamma(a))


def _igamma_grad(sign):
    def grad(g, ans, a, x):
        da = _grad_a(a, x)
        return (unbroadcast(sign * g * da, a), unbroadcast(sign * g * _igamma_dx(x, a), x))
    return grad


def _grad_a(a, x):
    shape = array_shape.shape(a + x)
    return bind(IGAMMA_GRAD_A, array_shape.broadcast_to(a, shape), array_shape.broadcast_to(x, shape))


IGAMMA_GRAD_A = defop("IgammaGradA", _igamma_grad_a_np, jax_impl=_igamma_grad_a_jax, dtypes=F32_64,
                      shape=shapes.same, quiet=True, grad=NO_GRADIENT)  # TF registers no gradient for it
IGAMMA = defop("Igamma", _igamma_np, jax_impl=_igamma_jax, dtypes=F32_64, shape=shapes.broadcast, quiet=True,
               grad=_igamma_grad(1.0))
IGAMMAC = defop("Igammac", _igammac_np, jax_impl=_igammac_jax, dtypes=F32_64, shape=shapes.broadcast, quiet=True,
                grad=_igamma_grad(-1.0))


def _binary(op, op_name, a, x):
    a, x = same_dtype(op_name, a, x)
    if a.shape != x.shape:
        _check_broadcast(op_name, a, x)
    return bind(op, a, x)


@tf_export("math.igamma")
def igamma(a, x, name=None):
    """Regularized lower incomplete gamma P(a, x).  ``tf.math.igamma(1., 1.)`` -> ``0.63212055``."""
    return _binary(IGAMMA, "Igamma", a, x)


@tf_export("math.igammac")
def igammac(a, x, name=None):
    """Regularized upper incomplete gamma Q(a, x).  ``tf.math.igammac(1., 1.)`` -> ``0.36787945``."""
    return _binary(IGAMMAC, "Igammac", a, x)


def _betainc_fix(xp, a, b, x, r):
    bad = (a <= 0) | (b <= 0) | (x < 0) | (x > 1) | xp.isnan(a) | xp.isnan(b) | xp.isnan(x)
    return _nan_where(xp, bad, r)


def _betainc_np(xp, a, b, x):
    return _betainc_fix(xp, a, b, x, _sp("betainc")(a, b, x).astype(a.dtype))


def _betainc_jax(xp, a, b, x):
    return _jitted("betainc")(a, b, x)


def _betainc_grad(g, ans, a, b, x):
    # only x has a gradient in TF: d/dx = x^(a-1) (1-x)^(b-1) / B(a, b)
    log_beta = math_unary.lgamma(a) + math_unary.lgamma(b) - math_unary.lgamma(a + b)
    dx = math_unary.exp(math_binary_fn.xlogy(a - 1, x) + math_binary_fn.xlog1py(b - 1, -x) - log_beta)
    return None, None, unbroadcast(g * dx, x)


BETAINC = defop("Betainc", _betainc_np, jax_impl=_betainc_jax, dtypes=F32_64, quiet=True, grad=_betainc_grad)


@tf_export("math.betainc")
def betainc(a, b, x, name=None):
    """Regularized incomplete beta I_x(a, b).  ``tf.math.betainc(1., 1., 0.5)`` -> ``0.5``."""
    a, b, x = same_dtype("Betainc", a, b, x)
    shape = None
    for nm, v in (("a", a), ("b", b), ("x", x)):
        if v.shape.rank == 0:
            continue
        if shape is None:
            shape, first = v.shape, nm
        elif tuple(v.shape) != tuple(shape):
            dims = [("[" + ",".join(str(d) for d in s) + "]") for s in (shape, v.shape)]
            raise errors.invalid_argument("Betainc", f"Shapes of {first} and {nm} are inconsistent: "
                                                     f"{dims[0]} vs. {dims[1]}")
    if shape is not None:
        a, b, x = (array_shape.broadcast_to(v, shape) if v.shape.rank == 0 else v for v in (a, b, x))
    return bind(BETAINC, a, b, x)


def _zeta_fix(xp, s, q, r):
    # TF (Eigen): nan for s < 1; inf for s == 1 and at the poles q = 0, -1, ...
    r = xp.where((q <= 0) & (xp.floor(q) == q), xp.asarray(np.inf, r.dtype), r)
    r = xp.where(s == 1, xp.asarray(np.inf, r.dtype), r)
    return _nan_where(xp, (s < 1) | xp.isnan(s) | xp.isnan(q), r)


def _zeta_np(xp, s, q):
    return _zeta_fix(xp, s, q, _sp("zeta")(s, q).astype(s.dtype))


def _zeta_jax(xp, s, q):
    return _jitted("zeta")(s, q)


ZETA = defop("Zeta", _zeta_np, jax_impl=_zeta_jax, dtypes=F32_64, shape=shapes.broadcast, quiet=True,
             grad=lambda g, ans, s, q: (None, unbroadcast(g * -s * zeta(s + 1, q), q)))  # none for s, as TF


@tf_export("math.zeta")
def zeta(x, q, name=None):
    """Hurwitz zeta function sum_n (n + q)^-x.  ``tf.math.zeta(2., 1.)`` -> ``1.644934``."""
    return _binary(ZETA, "Zeta", x, q)


def _next_after_grad(g, ans, x1, x2):
    # as TF: the identity for x1, zeros for x2
    return unbroadcast(g, x1), unbroadcast(g * 0, x2)


NEXT_AFTER = defop("NextAfter", lambda xp, a, b: xp.nextafter(a, b), dtypes=F32_64, shape=shapes.broadcast,
                   grad=_next_after_grad)


@tf_export("math.nextafter")
def nextafter(x1, x2, name=None):
    """The next representable value after x1 towards x2.  ``tf.math.nextafter(1., 2.)`` -> ``1.0000001``."""
    return _binary(NEXT_AFTER, "NextAfter", x1, x2)


# --- Bessel functions -------------------------------------------------------------------------

def _bessel(op_name, fname, grad):
    def impl(xp, x):
        d = x.dtype
        return _sp(fname)(x.astype(np.float32) if d.itemsize == 2 else x).astype(d)

    def jax_impl(xp, x):
        import jax.scipy.special as jsp

        fn = getattr(jsp, fname)
        return fn(x.astype(np.float32)).astype(x.dtype) if x.dtype.itemsize == 2 else fn(x)

    return defop(op_name, impl, jax_impl=jax_impl, dtypes=FLT, shape=shapes.same, quiet=True, grad=grad)


def _i1e_grad(g, ans, x):
    # d/dx i1e = i0e - i1e (sign(x) + 1/x), which is 1/2 at x = 0
    safe = array_select.where(math_binary.equal(x, 0), creation.ones_like(x), x)
    d = bessel_i0e(x) - ans * (math_unary.sign(x) + 1 / safe)
    return g * array_select.where(math_binary.equal(x, 0), creation.ones_like(x) * 0.5, d)


BESSEL_I0E = _bessel("BesselI0e", "i0e", lambda g, ans, x: g * (bessel_i1e(x) - math_unary.sign(x) * ans))
BESSEL_I1E = _bessel("BesselI1e", "i1e", _i1e_grad)


@tf_export("math.bessel_i0e", "math.special.bessel_i0e")
def bessel_i0e(x, name=None):
    """Exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x).

    ``tf.math.bessel_i0e(1.)`` -> ``0.46575963``.
    """
    return bind(BESSEL_I0E, t(x))


@tf_export("math.bessel_i1e", "math.special.bessel_i1e")
def bessel_i1e(x, name=None):
    """Exponentially scaled modified Bessel function of order 1, exp(-|x|) I1(x).

    ``tf.math.bessel_i1e(1.)`` -> ``0.20791042``.
    """
    return bind(BESSEL_I1E, t(x))


@tf_export("math.bessel_i0", "math.special.bessel_i0")
def bessel_i0(x, name=None):
    """Modified Bessel function of order 0.  ``tf.math.bessel_i0(1.)`` -> ``1.2660658``."""
    x = t(x)
    return math_unary.exp(math_unary.abs(x)) * bessel_i0e(x)


@tf_export("math.bessel_i1", "math.special.bessel_i1")
def bessel_i1(x, name=None):
    """Modified Bessel function of order 1.  ``tf.math.bessel_i1(1.)`` -> ``0.5651591``."""
    x = t(x)
    return math_unary.exp(math_unary.abs(x)) * bessel_i1e(x)


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
    first = next((t(v) for v in vs if is_tensor_like(v)), None)
    if first is None:
        first = t(vs[0])
    return [of_dtype(v, first.dtype, op_name, i) for i, v in enumerate(vs)]


@tf_export("math.polygamma")
def polygamma(a, x, name=None):
    """The polygamma function: the a-th derivative of digamma at x (a a non-negative integer, else nan).

    ``tf.math.polygamma(1., 1.)`` -> ``1.644934`` (pi**2 / 6).
    """
    a, x = _matching("Polygamma", a, x)
    if a.shape != x.shape:
        broadcast_static("Polygamma", a, x)
    return bind(POLYGAMMA, a, x)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import (  # noqa: E402
    array_select,
    array_shape,
    creation,
    math_binary,
    math_binary_fn,
    math_unary,
    reduce,
)
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
