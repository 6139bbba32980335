"""tf.math.special's Bessel J/Y/K, dawsn, expint, Fresnel and Spence against scipy (computed in float64)."""

import numpy as np
import scipy.special as sp
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

UN = [((2, 3),), ((),), ((0, 4),)]
FLOATS = ("float16", "bfloat16", "float32", "float64")


def _hi(f):
    def ref(x):
        with np.errstate(all="ignore"):
            return np.asarray(f(x.astype(np.float64))).astype(x.dtype)
    return ref


S = tf.math.special
CASES = [
    Case(S.bessel_j0, _hi(sp.j0), UN, FLOATS, ops=("BesselJ0",), domain=(-5, 5)),
    Case(S.bessel_j1, _hi(sp.j1), UN, ("float32", "float64"), ops=("BesselJ1",), domain=(-5, 5)),
    Case(S.bessel_y0, _hi(sp.y0), UN[:2], ("float16", "float64"), ops=("BesselY0",), domain=(0.5, 5)),
    Case(S.bessel_y1, _hi(sp.y1), UN[:2], ("float32", "float64"), ops=("BesselY1",), domain=(0.5, 5)),
    Case(S.bessel_k0, _hi(sp.k0), UN[:2], ("float32", "float64"), ops=("BesselK0",), domain=(0.3, 4)),
    Case(S.bessel_k0e, _hi(sp.k0e), UN, ("float32", "float64"), ops=("BesselK0e",), domain=(0.3, 4)),
    Case(S.bessel_k1, _hi(sp.k1), UN[:2], ("float32", "float64"), ops=("BesselK1",), domain=(0.3, 4)),
    Case(S.bessel_k1e, _hi(sp.k1e), UN[:2], ("float16", "float64"), ops=("BesselK1e",), domain=(0.3, 4)),
    Case(S.dawsn, _hi(sp.dawsn), UN, FLOATS, ops=("Dawsn",)),
    Case(S.expint, _hi(sp.expi), UN[:2], ("float32", "float64"), ops=("Expint",), domain=(0.2, 3)),
    Case(S.fresnel_cos, _hi(lambda x: sp.fresnel(x)[1]), UN, ("float32", "float64"), ops=("FresnelCos",)),
    Case(S.fresnel_sin, _hi(lambda x: sp.fresnel(x)[0]), UN[:2], ("float32", "float64"), ops=("FresnelSin",)),
    Case(S.spence, _hi(sp.spence), UN, ("float32", "float64"), ops=("Spence",), domain=(0.1, 3)),
]

ERRORS = [
    Err(lambda: S.bessel_j0(tf.constant([1, 2])), tf.errors.InvalidArgumentError, "BesselJ0"),
    Err(lambda: S.spence(tf.constant([1], tf.int64)), tf.errors.InvalidArgumentError, "Spence"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)


def test_values_recorded_from_tf():
    # TF 2.21: special values at the edges of the domains
    x = tf.constant([-2.0, -1.0, 0.0])
    inf, nan = np.inf, np.nan
    expect = {"bessel_y0": [-inf, -inf, -inf], "bessel_y1": [-inf, -inf, nan], "bessel_k0": [inf, inf, inf],
              "bessel_k0e": [inf, inf, inf], "bessel_k1": [inf, inf, inf], "bessel_k1e": [inf, inf, inf],
              "expint": [nan, nan, -inf], "spence": [nan, nan, 1.644934], "bessel_j1": [-0.5767248, -0.4400506, 0]}
    for n, want in expect.items():
        np.testing.assert_allclose(getattr(S, n)(x).numpy(), want, rtol=1e-6, err_msg=n)
        np.testing.assert_allclose(tf.function(getattr(S, n), jit_compile=True)(x).numpy(), want, rtol=1e-6,
                                   err_msg=n)
    with tf.GradientTape() as tape:
        v = tf.constant([1.0, 0.0])
        tape.watch(v)
        y = S.spence(v[:1]) + S.bessel_j1(v[1:])
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [-1.0, 0.5])
