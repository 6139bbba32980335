"""Gradients of math_unary / math_binary_fn / math_nary / math_clip ops where TF fixes the value by convention.

Every case of math_grad_cases.py against TF 2.21's own gradients (tests/goldens/math_grad.json, recorded by
tools/record_tf_goldens/math_grad.py): None where TF gives None, sqrt'(0) = inf, abs'(0) = 0, clip_by_value's
ties and bounds, the xlogy family at x == 0, complex inputs (conj of the derivative), first and second order.
The complex gradients are also checked against finite differences of the forward values.
"""

import json
import os

import numpy as np
import pytest

from goldens_check import compare_gradients

import tensorlet as tf

import math_grad_cases as mgc  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "math_grad.json")
with open(GOLDEN) as _f:
    EXPECTED = json.load(_f)

_TOL = {"float16": (2e-3, 1e-3), "float32": (1e-5, 1e-6), "complex64": (1e-5, 1e-6)}


def _compare(got, expected, where):
    compare_gradients(got, expected, where, _TOL, (1e-9, 1e-12))


# tf.sign of a complex tensor is div_no_nan(x, |x|) in TF and here; both conjugate DivNoNan's inputs in its gradient
@pytest.mark.parametrize("name", sorted(mgc.CASES))
def test_matches_tf(name):
    g1, g2 = mgc.run(tf, mgc.CASES[name])
    _compare(g1, EXPECTED[name]["first"], f"{name} first order")
    _compare(g2, EXPECTED[name]["second"], f"{name} second order")


def test_goldens_cover_the_table():
    assert sorted(EXPECTED) == sorted(mgc.CASES)


# --- complex gradients against finite differences -----------------------------------------------
# TF's convention: for a real loss L(z), the gradient is dL/dRe(z) + i dL/dIm(z); with output_gradients v on a
# complex output y, L = sum(Re(conj(v) * y)).

Z = np.array([0.3 + 0.4j, -1.2 + 0.5j, 0.7 - 0.9j, 1.5 + 0.2j])
V = np.array([1 + 2j, -0.5 + 1j, 2 - 1j, 0.3 - 0.7j])

COMPLEX_FNS = [tf.exp, tf.math.expm1, tf.math.log, tf.math.log1p, tf.sqrt, tf.math.rsqrt, tf.square, tf.sin, tf.cos,
               tf.tan, tf.asin, tf.acos, tf.atan, tf.sinh, tf.cosh, tf.tanh, tf.asinh, tf.acosh, tf.atanh,
               tf.math.reciprocal, tf.sigmoid, tf.negative, tf.math.conj, tf.sign,
               tf.abs, tf.math.real, tf.math.imag, tf.math.angle, lambda z: tf.add_n([z, z * z]),
               lambda z: tf.math.l2_normalize(z)]
# Not here: TF's xlogy/xdivy/xlog1py gradients do not conjugate (log(y), not conj(log(y))), so for complex inputs
# they are not dL/dRe + i dL/dIm; the goldens (c_xlogy, ...) check that tensorlet gives TF's values.


def _loss(fn, z, v):
    y = fn(tf.constant(z)).numpy()
    if y.dtype.kind == "c":
        return float(np.sum(np.real(np.conj(v) * y)))
    return float(np.sum(np.real(v) * y))


@pytest.mark.parametrize("fn", COMPLEX_FNS, ids=lambda f: getattr(f, "__name__", "composite"))
def test_complex_gradient_by_finite_differences(fn):
    z = tf.constant(Z)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = fn(z)
    v = V if y.dtype.is_complex else np.real(V)
    got = tape.gradient(y, z, output_gradients=tf.constant(v)).numpy()
    eps = 1e-6
    want = np.zeros_like(Z)
    for k in range(Z.size):
        for step in (1, 1j):
            d = np.zeros_like(Z)
            d[k] = eps * step
            slope = (_loss(fn, Z + d, v) - _loss(fn, Z - d, v)) / (2 * eps)
            want[k] += slope * step
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# --- structural conventions ----------------------------------------------------------------------------

def test_rounding_ops_give_none_and_do_not_block_other_paths():
    x = tf.constant([1.5, -0.5])
    for f in (tf.floor, tf.math.ceil, tf.math.rint, tf.round):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x) * 3.0 + x
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 1.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert tape.gradient(y, x) is None
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])


def test_predicates_are_not_differentiable():
    from tensorlet._src.ops.registry import NONDIFF, REGISTRY

    for name in ("IsNan", "IsInf", "IsFinite"):
        assert REGISTRY[name].grad is NONDIFF


def test_every_op_of_the_two_families_has_a_gradient_decision():
    from tensorlet._src.ops import math_binary_fn, math_clip, math_nary, math_unary
    from tensorlet._src.ops.registry import Op

    for mod in (math_unary, math_binary_fn, math_nary, math_clip):
        for value in vars(mod).values():
            if isinstance(value, Op):
                assert value.grad is not None, f"{value.name} has no gradient and is not marked NONDIFF"


def test_clip_by_value_gradient_through_a_variable():
    v = tf.Variable([-2.0, 0.5, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.clip_by_value(v, -1.0, 1.0) * tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0.0, 2.0, 0.0])


def test_float16_and_bfloat16_gradients_keep_dtype():
    for d in (tf.float16, tf.bfloat16):
        x = tf.constant([0.25, 0.5], d)
        for f in (tf.sqrt, tf.math.rsqrt, tf.tanh, tf.sigmoid, tf.math.log1p, tf.asin, tf.math.erf,
                  tf.math.lgamma, tf.math.reciprocal):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
            assert g.dtype == d, (f, d)
            assert np.all(np.isfinite(g.numpy().astype(np.float32))), (f, d)


def test_sparse_upstream_gradients_are_densified():
    # gather's gradient is IndexedSlices; the gradient ops of sqrt, rsqrt and reciprocal take it as a dense tensor
    x = tf.constant([1.0, 4.0, 9.0])
    for f, want in ((tf.sqrt, [0.5, 0.0, 1 / 6]), (tf.math.rsqrt, [-0.5, 0.0, -1 / 54]),
                    (tf.math.reciprocal, [-1.0, 0.0, -1 / 81])):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.gather(f(x), [0, 2])
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)
