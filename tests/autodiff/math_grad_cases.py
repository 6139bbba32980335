"""Gradient cases of math_unary / math_binary_fn / math_clip whose values TF fixes by convention: edges, complex inputs.

Shared by tools/record_tf_goldens/math_grad.py (runs them with real TensorFlow into tests/goldens/math_grad.json)
and tests/autodiff/test_grad_math.py (runs them with tensorlet and compares).  Each case's ``fn`` takes the ``tf``
module first, so one table serves both; this module imports only NumPy.
"""

from __future__ import annotations

import numpy as np
from grad_encoding import encode  # noqa: F401  (used by the recorder and the test)

NAN, INF = float("nan"), float("inf")
Z = [0.3 + 0.4j, -1.2 + 0.5j, 0.7 - 0.9j]  # generic complex points
GZ = [1 + 2j, -0.5 + 1j, 2 - 1j]  # upstream gradient for complex outputs
GR = [1.0, -2.0, 0.5]  # upstream gradient for real outputs of complex inputs


def _c(fn, *inputs, dtype="float64", og=None, order=1):
    """``inputs``: lists in ``dtype`` (or ``(values, dtype)`` pairs); every float/complex input is watched.
    ``og``: output_gradients; ``order`` 2 also records the gradient of the (summed) gradients."""
    return {"fn": fn, "inputs": [i if isinstance(i, tuple) else (i, dtype) for i in inputs], "og": og,
            "order": order}


def _clip_by_global_norm(tf, a, b):
    clipped, norm = tf.clip_by_global_norm([a, b], 1.0)
    return tf.reduce_sum(clipped[0]) + 2 * tf.reduce_sum(clipped[1]) + norm


CASES = {
    # --- real edges -------------------------------------------------------------------------
    "floor": _c(lambda tf, x: tf.floor(x), [1.5, -0.5]),
    "ceil": _c(lambda tf, x: tf.math.ceil(x), [1.5, -0.5]),
    "rint": _c(lambda tf, x: tf.math.rint(x), [1.5, -0.5]),
    "round": _c(lambda tf, x: tf.round(x), [1.5, -0.5]),
    "floor_plus_x": _c(lambda tf, x: tf.floor(x) + x, [1.5, -0.5]),
    "sign": _c(lambda tf, x: tf.sign(x), [1.5, 0.0, -2.0]),
    "abs": _c(lambda tf, x: tf.abs(x), [-2.0, 0.0, -0.0, 3.0], order=2),
    "negative": _c(lambda tf, x: tf.negative(x), [1.0, -2.0], og=[3.0, 4.0]),
    "sqrt": _c(lambda tf, x: tf.sqrt(x), [0.0, 4.0, 0.25], order=2),
    # TF's SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 wherever the upstream gradient is 0, even at x = 0 or nan
    "sqrt_zero_upstream": _c(lambda tf, x: tf.sqrt(x), [0.0, 4.0, NAN], og=[0.0, 0.0, 0.0], order=2),
    "rsqrt_zero_upstream": _c(lambda tf, x: tf.math.rsqrt(x), [0.0, 4.0, NAN], og=[0.0, 0.0, 0.0], order=2),
    "reciprocal_zero_upstream": _c(lambda tf, x: tf.math.reciprocal(x), [0.0, 4.0, NAN], og=[0.0, 0.0, 0.0],
                                   order=2),
    "c_sqrt_zero": _c(lambda tf, z: tf.sqrt(z), [0j, 0j, complex(NAN, 0), 4j], dtype="complex128",
                      og=[0j, 1 + 0j, 0j, 1j]),
    "c_rsqrt_zero": _c(lambda tf, z: tf.math.rsqrt(z), [0j, 0j, 4j], dtype="complex128", og=[0j, 1 + 0j, 1j]),
    "c_reciprocal_zero": _c(lambda tf, z: tf.math.reciprocal(z), [0j, 0j, 4j], dtype="complex128",
                            og=[0j, 1 + 0j, 1j]),
    "rsqrt": _c(lambda tf, x: tf.math.rsqrt(x), [0.0, 4.0, 0.5], order=2),
    "reciprocal": _c(lambda tf, x: tf.math.reciprocal(x), [0.0, -0.0, 2.0, -0.5], order=2),
    "log": _c(lambda tf, x: tf.math.log(x), [0.0, 2.0, -1.0], order=2),
    "log1p": _c(lambda tf, x: tf.math.log1p(x), [-1.0, 1.0], order=2),
    "exp": _c(lambda tf, x: tf.exp(x), [0.0, 1.5, -800.0], order=2),
    "expm1": _c(lambda tf, x: tf.math.expm1(x), [0.0, 1.5], order=2),
    "square": _c(lambda tf, x: tf.square(x), [0.0, -1.5], order=2),
    "tanh": _c(lambda tf, x: tf.tanh(x), [-30.0, 0.0, 0.7, 30.0], order=2),
    "sigmoid": _c(lambda tf, x: tf.sigmoid(x), [-30.0, 0.0, 0.7, 30.0, -800.0], order=2),
    "sin_cos_tan": _c(lambda tf, x: tf.sin(x) + 2 * tf.cos(x) + 3 * tf.tan(x), [0.0, 0.5, -1.2], order=2),
    "asin": _c(lambda tf, x: tf.asin(x), [1.0, 0.5, -1.0], order=2),
    "acos": _c(lambda tf, x: tf.acos(x), [1.0, 0.5, -1.0], order=2),
    "atan": _c(lambda tf, x: tf.atan(x), [0.0, 2.0], order=2),
    "sinh_cosh": _c(lambda tf, x: tf.sinh(x) + 2 * tf.cosh(x), [0.0, -1.5], order=2),
    "asinh": _c(lambda tf, x: tf.asinh(x), [0.0, 2.0], order=2),
    "acosh": _c(lambda tf, x: tf.acosh(x), [1.0, 2.0], order=2),
    "atanh": _c(lambda tf, x: tf.atanh(x), [1.0, 0.5, -1.0], order=2),
    "erf_erfc": _c(lambda tf, x: tf.math.erf(x) + 2 * tf.math.erfc(x), [0.0, 1.0, -2.0], order=2),
    "erfinv": _c(lambda tf, x: tf.math.erfinv(x), [0.0, 0.5, 1.0], order=2),
    "ndtri": _c(lambda tf, x: tf.math.ndtri(x), [0.5, 0.9, 0.0], order=2),
    "lgamma": _c(lambda tf, x: tf.math.lgamma(x), [0.5, 1.0, -0.5, 0.0], order=2),
    "digamma": _c(lambda tf, x: tf.math.digamma(x), [0.5, 1.0, -0.5, 0.0, -1.0], order=2),
    "polygamma": _c(lambda tf, n, x: tf.math.polygamma(n, x), [1.0, 2.0, 0.0], [2.0, 3.0, 1.5], order=2),
    "polygamma_bcast": _c(lambda tf, n, x: tf.math.polygamma(n, x), [[1.0], [3.0]], [2.0, 3.0, 0.5]),
    "sigmoid_f32": _c(lambda tf, x: tf.sigmoid(x), [-5.0, 0.0, 3.0], dtype="float32", order=2),
    "tanh_f16": _c(lambda tf, x: tf.tanh(x), [-1.0, 0.0, 0.5], dtype="float16"),
    # --- clipping --------------------------------------------------------------------------
    "clip": _c(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), [-2.0, -1.0, 0.0, 1.0, 2.0, NAN], -1.0, 1.0),
    "clip_bcast": _c(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), [[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]],
                     [-1.0, 0.0, 1.0], [[0.5], [2.0]]),
    "clip_min_above_max": _c(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), [-3.0, 0.0, 1.0, 2.0, 5.0], 1.0,
                             -1.0),
    "clip_ties": _c(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), [1.0, 1.0, 0.5], 1.0, 1.0),
    "clip_nan_upstream": _c(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), [-2.0, 0.0, 2.0], -1.0, 1.0,
                            og=[NAN, 1.0, INF]),
    "clip_python_bounds": _c(lambda tf, x: tf.clip_by_value(x, -1.0, 1.0), [-2.0, 0.5, 1.0], order=2),
    "clip_by_norm": _c(lambda tf, x: tf.clip_by_norm(x, 1.0), [3.0, 4.0], order=2),
    "clip_by_norm_zero": _c(lambda tf, x: tf.clip_by_norm(x, 1.0), [0.0, 0.0]),
    "l2_normalize": _c(lambda tf, x: tf.math.l2_normalize(x), [3.0, 4.0], order=2),
    "l2_normalize_zero": _c(lambda tf, x: tf.math.l2_normalize(x), [0.0, 0.0]),
    "global_norm": _c(lambda tf, a, b: tf.linalg.global_norm([a, b]), [3.0], [[4.0, 0.0]], order=2),
    "global_norm_zero": _c(lambda tf, a, b: tf.linalg.global_norm([a, b]), [0.0], [[0.0, 0.0]]),
    "clip_by_global_norm": _c(_clip_by_global_norm, [3.0], [[4.0, 1.0]], order=2),
    # --- binary and n-ary ------------------------------------------------------------------
    "xlogy": _c(lambda tf, x, y: tf.math.xlogy(x, y), [0.0, 0.0, 1.0, 2.0, 0.0], [0.0, 1.0, 0.0, 3.0, -1.0],
                order=2),
    "xdivy": _c(lambda tf, x, y: tf.math.xdivy(x, y), [0.0, 0.0, 1.0, 2.0], [0.0, 1.0, 0.0, 3.0], order=2),
    "xlog1py": _c(lambda tf, x, y: tf.math.xlog1py(x, y), [0.0, 0.0, 1.0, 2.0], [-1.0, 1.0, -1.0, 3.0], order=2),
    "xlogy_bcast": _c(lambda tf, x, y: tf.math.xlogy(x, y), [[0.0], [2.0]], [0.5, 3.0, 1.0]),
    "atan2": _c(lambda tf, y, x: tf.atan2(y, x), [0.0, 1.0, 0.0, -2.0], [0.0, 2.0, -1.0, 0.5], order=2),
    "atan2_bcast": _c(lambda tf, y, x: tf.atan2(y, x), [[1.0], [-2.0]], [0.5, 3.0]),
    "add_n": _c(lambda tf, a, b, c: tf.add_n([a, b, c]), [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], og=[1.0, -2.0]),
    "add_n_same_input": _c(lambda tf, a: tf.add_n([a, a, a * a]), [1.0, 2.0], order=2),
    "polyval": _c(lambda tf, c0, c1, c2, x: tf.math.polyval([c0, c1, c2], x), [2.0], [-1.0], [0.5], [1.5, -2.0],
                  order=2),
    "scalar_mul": _c(lambda tf, s, x: tf.math.scalar_mul(s, x), 2.0, [1.0, -3.0]),
    "log_sigmoid": _c(lambda tf, x: tf.math.log_sigmoid(x), [-100.0, 0.0, 50.0], order=2),
    "real_of_real": _c(lambda tf, x: tf.math.real(x), [1.0, -2.0]),
    "imag_of_real": _c(lambda tf, x: tf.math.imag(x), [1.0, -2.0]),
    "angle_of_real": _c(lambda tf, x: tf.math.angle(x), [1.0, -2.0]),
    "conj_of_real": _c(lambda tf, x: tf.math.conj(x), [1.0, -2.0]),
    # --- complex: TF's convention (conj of the derivative for holomorphic ops) -------------------
    **{f"c_{name}": _c(fn, Z, dtype="complex128", og=GZ, order=2) for name, fn in {
        "exp": lambda tf, z: tf.exp(z),
        "expm1": lambda tf, z: tf.math.expm1(z),
        "log": lambda tf, z: tf.math.log(z),
        "log1p": lambda tf, z: tf.math.log1p(z),
        "sqrt": lambda tf, z: tf.sqrt(z),
        "rsqrt": lambda tf, z: tf.math.rsqrt(z),
        "square": lambda tf, z: tf.square(z),
        "sin": lambda tf, z: tf.sin(z),
        "cos": lambda tf, z: tf.cos(z),
        "tan": lambda tf, z: tf.tan(z),
        "asin": lambda tf, z: tf.asin(z),
        "acos": lambda tf, z: tf.acos(z),
        "atan": lambda tf, z: tf.atan(z),
        "sinh": lambda tf, z: tf.sinh(z),
        "cosh": lambda tf, z: tf.cosh(z),
        "tanh": lambda tf, z: tf.tanh(z),
        "asinh": lambda tf, z: tf.asinh(z),
        "acosh": lambda tf, z: tf.acosh(z),
        "atanh": lambda tf, z: tf.atanh(z),
        "reciprocal": lambda tf, z: tf.math.reciprocal(z),
        "sigmoid": lambda tf, z: tf.sigmoid(z),
        "negative": lambda tf, z: tf.negative(z),
        "conj": lambda tf, z: tf.math.conj(z),
        "sign": lambda tf, z: tf.sign(z),
        "l2_normalize": lambda tf, z: tf.math.l2_normalize(z),
    }.items()},
    **{f"c_{name}": _c(fn, Z, dtype="complex128", og=GR, order=2) for name, fn in {
        "abs": lambda tf, z: tf.abs(z),
        "real": lambda tf, z: tf.math.real(z),
        "imag": lambda tf, z: tf.math.imag(z),
        "angle": lambda tf, z: tf.math.angle(z),
    }.items()},
    "c_abs_zero": _c(lambda tf, z: tf.abs(z), [0j, 3 - 4j], dtype="complex128"),
    "c_sign_zero": _c(lambda tf, z: tf.sign(z), [0j, 3 - 4j], dtype="complex128"),
    "c_exp_c64": _c(lambda tf, z: tf.exp(z), Z, dtype="complex64", og=GZ),
    "c_xlogy": _c(lambda tf, x, y: tf.math.xlogy(x, y), [0j] + Z, [1 + 1j] + GZ, dtype="complex128",
                  og=GZ + [1j], order=2),
    "c_xdivy": _c(lambda tf, x, y: tf.math.xdivy(x, y), [0j] + Z, [1 + 1j] + GZ, dtype="complex128",
                  og=GZ + [1j], order=2),
    "c_xlog1py": _c(lambda tf, x, y: tf.math.xlog1py(x, y), [0j] + Z, [1 + 1j] + GZ, dtype="complex128",
                    og=GZ + [1j], order=2),
    "c_complex": _c(lambda tf, re, im: tf.complex(re, im), [[1.0], [-2.0]], [0.5, 3.0, -1.0],
                    og=[GZ, [1j, -1.0, 2 + 2j]]),
    "c_complex_square": _c(lambda tf, re, im: tf.square(tf.complex(re, im)), [1.0, -2.0], [0.5, 3.0], og=GZ[:2],
                           order=2),
    "c_add_n": _c(lambda tf, a, b: tf.add_n([a, b]), Z, GZ, dtype="complex128", og=GZ),
}


def run(tf, spec):
    """(first-order gradients, second-order gradients or None) of ``spec`` under module ``tf``."""
    xs = [tf.constant(np.asarray(v, dtype)) for v, dtype in spec["inputs"]]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = spec["fn"](tf, *xs)
        og = None if spec["og"] is None else tf.constant(np.asarray(spec["og"], y.dtype.as_numpy_dtype))
        g1 = inner.gradient(y, xs, output_gradients=og)
    g2 = None
    if spec["order"] == 2:
        g2 = outer.gradient([g for g in g1 if g is not None], xs)
    return g1, g2
