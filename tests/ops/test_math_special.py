"""Special functions (incomplete gamma/beta, zeta, Bessel, nextafter) and small math composites against
NumPy/scipy."""

import numpy as np
import pytest
import scipy.special as sp
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops.math_special import IGAMMA_GRAD_A
from tensorlet._src.ops.registry import bind

UN = [((2, 3),), ((),), ((0, 4),)]
BIN = [((2, 3), (2, 3)), ((4, 1), (3,)), ((), (5,)), ((0, 2), (2,))]
FLOATS = ("float16", "bfloat16", "float32", "float64")
F32_64 = ("float32", "float64")


def _hi(f):
    """Reference computed in float64, rounded to the first input's dtype."""
    def ref(*xs):
        with np.errstate(all="ignore"):
            return np.asarray(f(*[x.astype(np.float64) for x in xs])).astype(xs[0].dtype)
    return ref


def _with_zeros(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype, (-3, 3))
    return [np.where(rng.random(shapes[0]) < 0.4, 0, x).astype(x.dtype)]


def _recip_no_nan_ref(x):
    return np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)).astype(x.dtype)


def _zero_fraction_ref(x):
    with np.errstate(all="ignore"):
        return np.float32(np.mean(x == 0)) if x.size else np.float32(np.nan)


def _monotonic_gen(rng, shapes, dtype):
    x = np.sort(make(rng, shapes[0], dtype, (-5, 5)).reshape(-1)).reshape(shapes[0])
    if rng.random() < 0.5 and x.size > 1:
        x = x[::-1].copy() if x.ndim == 1 else x
    return [x]


def _igamma_grad_a_ref(a, x):
    h = 1e-6
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    return ((sp.gammainc(a64 + h, x64) - sp.gammainc(a64 - h, x64)) / (2 * h)).astype(a.dtype)


_A3 = np.array([1.5, 2.0, 3.5])
_B3 = np.array([2.0, 0.7, 3.0])

CASES = [
    Case(tf.math.reciprocal_no_nan, _recip_no_nan_ref, UN[:2], ("float16", "float64"), ops=("DivNoNan",),
         gen=_with_zeros,
         grad=False),  # exact zeros are a discontinuity: the smooth case below checks gradients
    Case(tf.math.reciprocal_no_nan, np.reciprocal, UN[:2], F32_64, ops=("DivNoNan",), domain=(0.5, 2.0),
         id="reciprocal_no_nan_smooth"),
    Case(tf.math.zero_fraction, _zero_fraction_ref, UN, FLOATS + ("int32", "bool"), ops=("Equal",),
         gen=lambda rng, s, d: _with_zeros(rng, s, d) if d != "bool" else [make(rng, s[0], d)]),
    Case(tf.nn.zero_fraction, _zero_fraction_ref, UN[:1], ("int64",), ops=("Equal",), id="nn.zero_fraction"),
    Case(tf.math.is_non_decreasing, lambda x: np.all(np.diff(x.reshape(-1)) >= 0), UN,
         ("float32", "int32", "int64"), ops=("GreaterEqual",), gen=_monotonic_gen),
    Case(tf.math.is_strictly_increasing, lambda x: np.all(np.diff(x.reshape(-1)) > 0), UN + [((2, 2),)],
         ("float64", "int32"), ops=("Greater",), gen=_monotonic_gen),
    Case(tf.math.lbeta, _hi(lambda x: np.sum(sp.gammaln(x), -1) - sp.gammaln(np.sum(x, -1))),
         [((2, 3),), ((3, 0),)], ("float16", "float64"),
         ops=("Lgamma", "Sum"), domain=(0.2, 4.0)),
    Case(tf.math.erfcinv, _hi(lambda x: -sp.ndtri(x / 2) / np.sqrt(2)), UN[:2], ("float32", "float64"),
         ops=("Ndtri",), domain=(0.05, 1.95)),
    Case(lambda x: tf.math.igamma(tf.constant(_A3, x.dtype), x), _hi(lambda x: sp.gammainc(_A3, x)),
         [((3,),)], F32_64, ops=("Igamma",), domain=(0.2, 5.0), id="igamma_x"),
    Case(tf.math.igamma, _hi(sp.gammainc), BIN[1:], F32_64, ops=("Igamma",), domain=(0.2, 5.0),
         grad=False),  # wrt a through IgammaGradA, which TF (and tensorlet) cannot differentiate again
    Case(lambda x: tf.math.igammac(tf.constant(_A3, x.dtype), x), _hi(lambda x: sp.gammaincc(_A3, x)),
         [((3,),)], F32_64, ops=("Igammac",), domain=(0.2, 5.0), id="igammac_x"),
    Case(tf.math.igammac, _hi(sp.gammaincc), BIN[1:3], ("float32",), ops=("Igammac",), domain=(0.2, 5.0),
         grad=False),  # as igamma: second order wrt a has no gradient in TF
    Case(lambda a, x: bind(IGAMMA_GRAD_A, a, x),
         _igamma_grad_a_ref, [((2, 3), (2, 3))], F32_64, ops=("IgammaGradA",), domain=(0.3, 6.0),
         rtol=1e-4, atol=1e-6, id="IgammaGradA",
         grad=False),  # TF registers no gradient for IgammaGradA
    Case(lambda x: tf.math.betainc(tf.constant(_A3, x.dtype), tf.constant(_B3, x.dtype), x),
         _hi(lambda x: sp.betainc(_A3, _B3, x)), [((3,),)], F32_64, ops=("Betainc",), domain=(0.05, 0.95),
         id="betainc_x"),
    Case(tf.math.betainc, _hi(sp.betainc), [((2, 3), (2, 3), (2, 3)), ((), (4,), ()), ((0,), (0,), (0,))],
         F32_64, ops=("Betainc",), gen=lambda rng, s, d: [make(rng, s[0], d, (0.3, 4)), make(rng, s[1], d, (0.3, 4)),
                                                          make(rng, s[2], d, (0.01, 0.99))],
         grad=False),  # TF gives no gradient wrt a and b: checked by betainc_x
    Case(lambda q: tf.math.zeta(tf.constant(_B3 + 1, q.dtype), q), _hi(lambda q: sp.zeta(_B3 + 1, q)),
         [((3,),), ((2, 3),)], F32_64, ops=("Zeta",), domain=(0.5, 4.0), id="zeta_q"),
    Case(tf.math.zeta, _hi(sp.zeta), BIN, F32_64, ops=("Zeta",),
         gen=lambda rng, s, d: [make(rng, s[0], d, (1.2, 5)), make(rng, s[1], d, (0.3, 4))],
         grad=False),  # TF gives no gradient wrt x: checked by zeta_q
    Case(tf.math.nextafter, np.nextafter, BIN, F32_64, ops=("NextAfter",)),
    Case(tf.math.bessel_i0e, _hi(sp.i0e), UN, FLOATS, ops=("BesselI0e",), domain=(-5, 5)),
    Case(tf.math.special.bessel_i1e, _hi(sp.i1e), UN, FLOATS, ops=("BesselI1e",), domain=(-5, 5)),
    Case(tf.math.bessel_i0, _hi(sp.i0), UN, ("float16", "float32", "float64"), ops=("BesselI0e",), domain=(-4, 4)),
    Case(tf.math.special.bessel_i1, _hi(sp.i1), UN, F32_64, ops=("BesselI1e",), domain=(-4, 4)),
]

ERRORS = [
    Err(lambda: tf.math.reciprocal_no_nan(tf.constant([1, 2])), tf.errors.InvalidArgumentError, "DivNoNan"),
    Err(lambda: tf.math.is_non_decreasing(tf.constant(["a"])), TypeError, "Expected x to be numeric"),
    Err(lambda: tf.math.lbeta(tf.constant(1.0)), tf.errors.InvalidArgumentError, "reduction dimension"),
    Err(lambda: tf.math.lbeta(tf.constant([1, 2])), tf.errors.InvalidArgumentError, "Lgamma"),
    Err(lambda: tf.math.igamma(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])),
        tf.errors.InvalidArgumentError, r"Incompatible shapes: \[2\] vs. \[3\]"),
    Err(lambda: tf.math.igamma(tf.constant([1.0]), tf.constant([1.0], tf.float64)),
        tf.errors.InvalidArgumentError, "expected to be a float tensor but is a double tensor"),
    Err(lambda: tf.math.igammac(tf.constant([1.0], tf.float16), tf.constant([1.0], tf.float16)),
        (tf.errors.InvalidArgumentError, tf.errors.NotFoundError), "Igammac"),
    Err(lambda: tf.math.betainc(tf.constant([1.0, 2]), tf.constant([1.0, 2]), tf.constant([0.5, 0.2, 0.3])),
        tf.errors.InvalidArgumentError, r"Shapes of a and x are inconsistent: \[2\] vs. \[3\]"),
    Err(lambda: tf.math.betainc(tf.constant(1.0), tf.constant([1.0, 2]), tf.constant([[0.5, 0.2], [0.1, 0.1]])),
        tf.errors.InvalidArgumentError, r"Shapes of b and x are inconsistent"),
    Err(lambda: tf.math.zeta(tf.constant([2.0], tf.float16), tf.constant([1.0], tf.float16)),
        tf.errors.InvalidArgumentError, "Zeta"),
    Err(lambda: tf.math.nextafter(tf.constant([1, 2]), tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        "NextAfter"),
    Err(lambda: tf.math.bessel_i0e(tf.constant([1, 2])), tf.errors.InvalidArgumentError, "BesselI0e"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_edge_values_match_tf():
    # values recorded from TF 2.21
    nan, inf = np.nan, np.inf
    a = tf.constant([-1.0, 0, 1, inf, 1])
    x = tf.constant([1.0, 1, 0, 1, inf])
    np.testing.assert_array_equal(tf.math.igamma(a, x).numpy(), [nan, nan, 0, 0, 1])
    np.testing.assert_array_equal(tf.math.igammac(a, x).numpy(), [nan, nan, 1, 1, 0])
    z = tf.math.zeta(tf.constant([1.0, 0.5, 2, 2, 2]), tf.constant([1.0, 1, 0, -1, -1.5])).numpy()
    np.testing.assert_allclose(z, [inf, nan, inf, inf, 9.379247], rtol=1e-6)
    b = tf.math.betainc(tf.constant([0.0, -1, 1, 1]), tf.constant([1.0, 1, 0, 1]), tf.constant([0.5, 0.5, 0.5, 1.5]))
    assert np.isnan(b.numpy()).all()
    assert tf.math.zero_fraction(tf.constant([], tf.float32)).dtype == tf.float32
    assert bool(tf.math.is_non_decreasing(5)) and bool(tf.math.is_strictly_increasing([]))
    np.testing.assert_array_equal(tf.math.lbeta(tf.zeros([2, 0])).numpy(), [-inf, -inf])


def test_zero_fraction_is_one_object():
    assert tf.nn.zero_fraction is tf.math.zero_fraction


@pytest.mark.parametrize("fn", [tf.math.igamma, tf.math.igammac])
def test_igamma_gradients_match_tf(fn):
    a = tf.constant([1.5, 2.0])
    x = tf.constant([0.7, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([a, x])
        y = fn(a, x)
    da, dx = tape.gradient(y, [a, x])
    s = 1 if fn is tf.math.igamma else -1
    np.testing.assert_allclose(da.numpy(), s * np.array([-0.34701878, -0.19742544]), rtol=1e-5)
    np.testing.assert_allclose(dx.numpy(), s * np.array([0.46881115, 0.14936121]), rtol=1e-5)


def test_igamma_second_order_wrt_a_has_no_gradient_as_tf():
    a = tf.constant([1.5])
    with tf.GradientTape() as outer:
        outer.watch(a)
        with tf.GradientTape() as inner:
            inner.watch(a)
            y = tf.math.igamma(a, 2.0)
        g = inner.gradient(y, a)
    with pytest.raises(LookupError):
        outer.gradient(g, a)


def test_bessel_and_nextafter_gradients_match_tf():
    x = tf.constant([1.5, -2.0, 0.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y0 = tf.math.bessel_i0e(x)
        y1 = tf.math.bessel_i1e(x)
        n = tf.math.nextafter(x, tf.constant(0.0))
    np.testing.assert_allclose(tape.gradient(y0, x).numpy(), [-0.14839426, 0.09323901, 0.0], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(y1, x).numpy(), [0.00236797, -0.01439565, 0.5], rtol=1e-4)
    np.testing.assert_array_equal(tape.gradient(n, x).numpy(), [1.0, 1.0, 1.0])
test_compiled = compiled_tests(CASES)
