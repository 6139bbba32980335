"""Gradient cases of tf.linalg whose values TF fixes by convention: norms at zero and at ties, complex inputs
(TF's conj conventions), decompositions (through sign/phase-invariant losses), first and second order.

Shared by tools/record_tf_goldens/linalg_grad.py (runs them with real TensorFlow into tests/goldens/linalg_grad.json)
and tests/autodiff/test_grad_linalg.py (runs them with tensorlet and compares).  Each case's ``fn`` takes the ``tf``
module first and returns a real scalar loss, so one table serves both; this module imports only NumPy.
"""

from __future__ import annotations

import numpy as np
from grad_encoding import encode  # noqa: F401  (used by the recorder and the test)

INF = float("inf")


def mat(shape, k=1.3, s=1.0, shift=0.0, dtype="float64"):
    """Deterministic, generic test values (``k`` picks the seed; NumPy's legacy RandomState stream is stable across
    versions), uniform in [-s, s]; ``shift`` is added to the diagonal of square matrices."""
    rng = np.random.RandomState(int(k * 1000))
    a = rng.uniform(-s, s, shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-s, s, shape)
    if shift:
        a = a + shift * np.eye(shape[-1])
    return a.astype(dtype)


def spd(n, dtype="float64", batch=()):
    a = mat(batch + (n, n), k=0.9, dtype=dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def spectrum(n, dtype="float64"):
    """A non-symmetric matrix with real eigenvalues 1..n (slightly perturbed), well separated."""
    p = mat((n, n), k=0.8, shift=n + 1.0, dtype=dtype)
    lam = np.arange(1.0, n + 1) + 0.1 * np.sin(np.arange(n))
    return (p @ np.diag(lam) @ np.linalg.inv(p)).astype(dtype)


def wsum(tf, y, k=0.37):
    """A generic real linear functional of ``y``: sum(w * y), real part for complex ``y`` (complex weights)."""
    n = int(np.prod(y.shape))
    i = np.arange(n)
    w = np.cos(i * k + 0.2) + 0.5
    if y.dtype.is_complex:
        w = w + 1j * np.sin(i * k * 1.7 + 0.3)
        return tf.math.real(tf.reduce_sum(y * tf.constant(w.reshape(y.shape).astype(y.dtype.as_numpy_dtype))))
    return tf.reduce_sum(y * tf.constant(w.reshape(y.shape).astype(y.dtype.as_numpy_dtype)))


def _c(fn, *inputs, order=1, rtol=None, tf_second_order_wrong=False):
    """``inputs``: arrays (float/complex ones are watched); ``order`` 2 also records the gradient of the (summed)
    gradients.  ``rtol``: float64 tolerance where TF (Eigen) and LAPACK differ more than usual (normal equations).
    ``tf_second_order_wrong``: TF's second-order values disagree with finite differences of its own first-order
    gradients (complex SVD), so the test checks tensorlet's against finite differences instead."""
    return {"fn": fn, "inputs": [np.asarray(x) for x in inputs], "order": order, "rtol": rtol,
            "tf_second_order_wrong": tf_second_order_wrong}


# --- invariant losses of the decompositions -----------------------------------------------------------------

def _abs2(tf, x):
    return tf.math.real(x * tf.math.conj(x)) if x.dtype.is_complex else x * x


def _qr_loss(tf, a, full=False):
    q, r = tf.linalg.qr(a, full_matrices=full)
    k = min(q.shape[-1], r.shape[-2])
    w = tf.cast(tf.constant(np.linspace(0.5, 1.5, k)), q.dtype)
    # q diag(w) r is invariant to the factors' column signs/phases, as are |q|^2 and |r|^2
    return wsum(tf, tf.linalg.matmul(q[..., :, :k] * w, r[..., :k, :])) + wsum(tf, _abs2(tf, q), 0.5) + \
        wsum(tf, _abs2(tf, r), 0.6)


def _svd_loss(tf, a, full=False):
    s, u, v = tf.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    w = tf.cast(tf.constant(np.linspace(0.5, 1.5, k)), u.dtype)
    return wsum(tf, s) + wsum(tf, tf.linalg.matmul(u[..., :, :k] * w, v[..., :, :k], adjoint_b=True), 0.4) + \
        wsum(tf, _abs2(tf, u), 0.5) + wsum(tf, _abs2(tf, v), 0.6)


def _eigh_loss(tf, a):
    e, v = tf.linalg.eigh(a)
    w = tf.cast(tf.constant(np.linspace(0.5, 1.5, e.shape[-1])), v.dtype)
    return wsum(tf, e) + wsum(tf, tf.linalg.matmul(v * w, v, adjoint_b=True), 0.4) + wsum(tf, _abs2(tf, v), 0.5)


def _eig_loss(tf, a):
    """Invariant to the eigenvalues' order and the eigenvectors' phases (TF and LAPACK order them differently)."""
    e, v = tf.linalg.eig(a)
    n = e.shape[-1]
    rows = tf.constant(np.linspace(0.5, 1.5, n)[:, None])
    pair = tf.reduce_sum(_abs2(tf, v) * rows * tf.math.real(e)[..., None, :])
    return tf.math.real(tf.reduce_sum(e * e * (0.7 + 0.2j))) + tf.math.imag(tf.reduce_sum(e * e * e)) * 0.3 + pair


def _power_sum(tf, e, k):
    """Re((0.5 - 1j) sum(e^k)): invariant to the eigenvalues' order (products, not Pow: see test_grad_linalg)."""
    p = e
    for _ in range(k - 1):
        p = p * e
    return tf.math.real(tf.reduce_sum(p * (0.5 - 1j)))


def _slogdet_loss(tf, a):
    sign, logabs = tf.linalg.slogdet(a)
    return wsum(tf, sign) + wsum(tf, logabs, 0.8)


A3 = mat((3, 3), shift=4.0)
C3 = mat((3, 3), shift=4.0, dtype="complex128")
T32 = mat((3, 2), k=0.7)
W23 = mat((2, 3), k=1.1)
CT32 = mat((3, 2), k=0.7, dtype="complex128")
B32 = mat((3, 2), k=2.1)
CB32 = mat((3, 2), k=2.1, dtype="complex128")

CASES = {
    # --- norms: TF's values at zero, at ties, for complex inputs -------------------------------------------------
    **{f"norm_zeros_vec_{o}": _c(lambda tf, x, o=o: tf.norm(x, ord=o), np.zeros((2, 3)))
       for o in ("euclidean", 1, INF, 3, 0.5)},
    **{f"norm_zeros_mat_{o}": _c(lambda tf, x, o=o: tf.norm(x, ord=o, axis=(0, 1)), np.zeros((2, 3)))
       for o in ("fro", 1, INF, 2)},
    "norm_partial_zero_p3": _c(lambda tf, x: tf.norm(x, ord=3), np.array([[1.0, -2, 0], [0, 3, -1]])),
    "norm_partial_zero_p05": _c(lambda tf, x: tf.norm(x, ord=0.5), np.array([[1.0, -2, 0], [0, 3, -1]])),
    "norm_zero_rows_axis": _c(lambda tf, x: wsum(tf, tf.norm(x, axis=1)), np.array([[0.0, 0], [3, -4]])),
    "norm_ties_inf": _c(lambda tf, x: tf.norm(x, ord=INF), np.array([1.0, -3, 3, 2]), order=2),
    "norm_ties_mat1": _c(lambda tf, x: tf.norm(x, ord=1, axis=(0, 1)), np.array([[1.0, -2], [2, 1]])),
    "norm_ties_matinf": _c(lambda tf, x: tf.norm(x, ord=INF, axis=(0, 1)), np.array([[1.0, -2], [2, 1]])),
    "norm_ties_mat2": _c(lambda tf, x: tf.norm(x, ord=2, axis=(0, 1)), np.eye(2)),
    "norm_euclid_axis_keepdims": _c(lambda tf, x: wsum(tf, tf.norm(x, axis=1, keepdims=True)), mat((2, 3, 4)),
                                    order=2),
    "norm_fro_axes": _c(lambda tf, x: wsum(tf, tf.norm(x, ord="fro", axis=(2, 0))), mat((2, 3, 4)), order=2),
    "norm_p3_axis": _c(lambda tf, x: wsum(tf, tf.norm(x, ord=3, axis=-1)), mat((2, 3)), order=2),
    "norm_mat1_axes": _c(lambda tf, x: wsum(tf, tf.norm(x, ord=1, axis=(2, 1))), mat((2, 3, 4)), order=2),
    "norm_matinf_axes": _c(lambda tf, x: wsum(tf, tf.norm(x, ord=INF, axis=(0, 2))), mat((2, 3, 4)), order=2),
    "norm_mat2_axes": _c(lambda tf, x: wsum(tf, tf.norm(x, ord=2, axis=(2, 0), keepdims=True)), mat((3, 2, 4)),
                         order=2),
    "norm_f32": _c(lambda tf, x: wsum(tf, tf.norm(x, axis=0)), mat((3, 2), dtype="float32")),
    "norm_c_euclid": _c(lambda tf, x: tf.math.real(tf.norm(x) * (1 + 2j)), mat((3,), dtype="complex128"),
                        order=2),
    "norm_c_euclid_imag": _c(lambda tf, x: tf.math.imag(tf.norm(x)) + tf.math.real(tf.norm(x)) * 0,
                             mat((3,), dtype="complex128")),
    "norm_c_euclid_zeros": _c(lambda tf, x: tf.math.real(tf.norm(x)), np.zeros(2, np.complex128)),
    "norm_c_1": _c(lambda tf, x: tf.norm(x, ord=1), np.array([1 + 2j, -3j, 0]), order=2),
    "norm_c_inf": _c(lambda tf, x: wsum(tf, tf.norm(x, ord=INF, axis=-1)), mat((2, 3), dtype="complex128")),
    "norm_c_p3": _c(lambda tf, x: tf.norm(x, ord=3), mat((4,), dtype="complex128")),
    "norm_c_mat1": _c(lambda tf, x: tf.norm(x, ord=1, axis=(0, 1)), mat((3, 2), dtype="complex128")),
    "norm_c_mat2": _c(lambda tf, x: tf.norm(x, ord=2, axis=(0, 1)), mat((3, 2), dtype="complex128"), order=2,
                      tf_second_order_wrong=True),
    "normalize": _c(lambda tf, x: wsum(tf, tf.linalg.normalize(x, axis=-1)[0]), mat((2, 3)), order=2),
    # --- structure ops (complex: the gradients are the transposed maps, no conjugation) ---------------------------
    "band_part_c": _c(lambda tf, x: wsum(tf, tf.linalg.band_part(x, 1, 0)), mat((3, 4), dtype="complex128")),
    "diag_c_range": _c(lambda tf, v: wsum(tf, tf.linalg.diag(v, k=(-1, 1), align="LEFT_RIGHT")),
                       mat((3, 3), dtype="complex128")),
    "diag_rect_padding": _c(lambda tf, v: wsum(tf, tf.linalg.diag(v, k=-1, num_rows=3, num_cols=2,
                                                                  padding_value=9.0)), mat((2,))),
    "diag_part_c_range": _c(lambda tf, x: wsum(tf, tf.linalg.diag_part(x, k=(-2, 1), align="LEFT_LEFT",
                                                                       padding_value=5)),
                            mat((4, 3), dtype="complex128")),
    "set_diag_c_range": _c(lambda tf, x, v: wsum(tf, tf.linalg.set_diag(x, v, k=(0, 1))),
                           mat((3, 4), dtype="complex128"), mat((2, 3), k=0.3, dtype="complex128")),
    "tensor_diag_c": _c(lambda tf, v: wsum(tf, tf.linalg.tensor_diag(v)), mat((2, 2), dtype="complex128")),
    "tensor_diag_part": _c(lambda tf, x: wsum(tf, tf.linalg.tensor_diag_part(x)), mat((2, 3, 2, 3))),
    "trace_c": _c(lambda tf, x: tf.math.real(tf.linalg.trace(x) * (2 - 1j)), mat((2, 3, 3), dtype="complex128")),
    "cross": _c(lambda tf, a, b: wsum(tf, tf.linalg.cross(a, b)), mat((2, 3)), mat((2, 3), k=0.5), order=2),
    "cross_f32": _c(lambda tf, a, b: wsum(tf, tf.linalg.cross(a, b)), mat((3,), dtype="float32"),
                    mat((3,), k=0.5, dtype="float32")),
    "matvec_c": _c(lambda tf, a, b: wsum(tf, tf.linalg.matvec(a, b, adjoint_a=True)), mat((3, 2), dtype="complex128"),
                   mat((3,), k=0.4, dtype="complex128")),
    # --- inverse, determinants ------------------------------------------------------------------------------------
    "inv": _c(lambda tf, a: wsum(tf, tf.linalg.inv(a)), A3, order=2),
    "inv_adjoint_c": _c(lambda tf, a: wsum(tf, tf.linalg.inv(a, adjoint=True)), C3, order=2),
    "inv_c": _c(lambda tf, a: wsum(tf, tf.linalg.inv(a)), C3),
    "det": _c(lambda tf, a: tf.linalg.det(a), A3, order=2),
    "det_c": _c(lambda tf, a: tf.math.real(tf.linalg.det(a) * (1 + 2j)), C3, order=2),
    "det_batch_f32": _c(lambda tf, a: wsum(tf, tf.linalg.det(a)), mat((2, 2, 2), shift=3.0, dtype="float32")),
    "slogdet": _c(_slogdet_loss, mat((3, 3), shift=-0.5), order=2),
    "slogdet_c": _c(_slogdet_loss, C3, order=2),
    "logdet": _c(lambda tf, a: tf.linalg.logdet(a), spd(3), order=2),
    "logdet_c": _c(lambda tf, a: tf.linalg.logdet(a), spd(3, "complex128")),
    # --- Cholesky: TF's gradient is symmetric (Hermitian) although only the lower triangle is read ------------------
    "cholesky_nonsym_input": _c(lambda tf, a: wsum(tf, tf.linalg.cholesky(a)),
                                np.tril(spd(3)) + np.triu(mat((3, 3), k=2.0), 1), order=2),
    "cholesky_c": _c(lambda tf, a: wsum(tf, tf.linalg.cholesky(a)), spd(3, "complex128"), order=2),
    "cholesky_solve": _c(lambda tf, c, b: wsum(tf, tf.linalg.cholesky_solve(c, b)), np.linalg.cholesky(spd(3)), B32,
                         order=2),
    # --- QR, SVD, eigen-decompositions (sign/phase-invariant losses) ------------------------------------------------
    "qr_tall": _c(_qr_loss, mat((4, 3), k=0.7), order=2),
    "qr_wide": _c(_qr_loss, mat((3, 5), k=0.7), order=2),
    "qr_wide_full": _c(lambda tf, a: _qr_loss(tf, a, full=True), mat((2, 4), k=0.7)),
    "qr_square_batch": _c(_qr_loss, mat((2, 3, 3), k=0.9)),
    "qr_c_tall": _c(_qr_loss, mat((4, 3), k=0.7, dtype="complex128"), order=2),
    "qr_c_wide": _c(_qr_loss, mat((2, 4), k=0.7, dtype="complex128")),
    "svd_tall": _c(_svd_loss, mat((4, 3), k=0.7), order=2),
    "svd_wide": _c(_svd_loss, mat((3, 5), k=0.7), order=2),
    "svd_square": _c(_svd_loss, mat((3, 3), k=0.9)),
    "svd_full_near_square": _c(lambda tf, a: _svd_loss(tf, a, full=True), mat((4, 3), k=0.7)),
    "svd_full_near_square_wide": _c(lambda tf, a: _svd_loss(tf, a, full=True), mat((2, 3), k=0.7)),
    "svd_values": _c(lambda tf, a: wsum(tf, tf.linalg.svd(a, compute_uv=False)), mat((3, 4), k=0.7), order=2),
    "svd_c_tall": _c(_svd_loss, mat((4, 3), k=0.7, dtype="complex128"), order=2, tf_second_order_wrong=True),
    "svd_c_wide": _c(_svd_loss, mat((2, 4), k=0.7, dtype="complex128"), order=2, tf_second_order_wrong=True),
    "svd_c_square": _c(_svd_loss, mat((3, 3), k=0.8, dtype="complex128"), order=2, tf_second_order_wrong=True),
    "svd_c_values_wide": _c(lambda tf, a: wsum(tf, tf.linalg.svd(a, compute_uv=False)),
                            mat((2, 3), dtype="complex128"), order=2),
    "svd_c_values": _c(lambda tf, a: wsum(tf, tf.linalg.svd(a, compute_uv=False)), mat((3, 2), dtype="complex128")),
    "pinv": _c(lambda tf, a: wsum(tf, tf.linalg.pinv(a)), mat((4, 3), k=0.7), order=2),
    "eigh": _c(_eigh_loss, mat((3, 3), k=0.9), order=2),  # not symmetric: only its lower triangle is read
    "eigh_c": _c(_eigh_loss, mat((3, 3), k=0.9, dtype="complex128"), order=2),
    "eigvalsh": _c(lambda tf, a: wsum(tf, tf.linalg.eigvalsh(a)), mat((2, 3, 3), k=0.9), order=2),
    "eigvalsh_c": _c(lambda tf, a: wsum(tf, tf.math.real(tf.linalg.eigvalsh(a))), mat((3, 3), dtype="complex128")),
    "eig_real_spectrum": _c(_eig_loss, spectrum(3), order=2),
    "eig_complex_pair": _c(_eig_loss, np.array([[1.0, -2.0, 0.3], [1.5, 0.5, 0.2], [0.1, 0.4, 3.0]])),
    "eig_c": _c(_eig_loss, mat((3, 3), k=0.9, dtype="complex128"), order=2),
    "eigvals": _c(lambda tf, a: _power_sum(tf, tf.linalg.eigvals(a), 2), spectrum(3)),
    "eigvals_c": _c(lambda tf, a: _power_sum(tf, tf.linalg.eigvals(a), 3),
                    mat((3, 3), k=0.9, dtype="complex128")),
    # --- solvers ---------------------------------------------------------------------------------------------------
    "solve": _c(lambda tf, a, b: wsum(tf, tf.linalg.solve(a, b)), A3, B32, order=2),
    "solve_adjoint_c": _c(lambda tf, a, b: wsum(tf, tf.linalg.solve(a, b, adjoint=True)), C3, CB32, order=2),
    "triangular_solve": _c(lambda tf, a, b: wsum(tf, tf.linalg.triangular_solve(a, b)), A3, B32, order=2),
    "triangular_solve_upper_adjoint_c": _c(
        lambda tf, a, b: wsum(tf, tf.linalg.triangular_solve(a, b, lower=False, adjoint=True)), C3, CB32, order=2),
    "triangular_solve_broadcast": _c(lambda tf, a, b: wsum(tf, tf.linalg.triangular_solve(a, b)),
                                     mat((1, 3, 3), shift=4.0), mat((2, 3, 2), k=2.1)),
    "lstsq": _c(lambda tf, a, b: wsum(tf, tf.linalg.lstsq(a, b)), mat((4, 2), k=0.7), mat((4, 2), k=2.1), order=2),
    "lstsq_wide_l2": _c(lambda tf, a, b: wsum(tf, tf.linalg.lstsq(a, b, l2_regularizer=0.3)), mat((2, 3), k=0.7),
                        mat((2, 2), k=2.1), order=2, rtol=1e-6),
    "lstsq_wide_c": _c(lambda tf, a, b: wsum(tf, tf.linalg.lstsq(a, b)), mat((2, 3), k=0.7, dtype="complex128"),
                       mat((2, 2), k=2.1, dtype="complex128")),
    # --- matrix exponential ----------------------------------------------------------------------------------------
    "expm": _c(lambda tf, a: wsum(tf, tf.linalg.expm(a)), mat((3, 3), s=0.6), order=2),
    "expm_c": _c(lambda tf, a: wsum(tf, tf.linalg.expm(a)), mat((2, 2), s=0.6, dtype="complex128"), order=2),
}


def run(tf, spec):
    """(first-order gradients, second-order gradients or None) of ``spec`` under module ``tf``."""
    xs = [tf.constant(x) for x in spec["inputs"]]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = spec["fn"](tf, *xs)
        g1 = inner.gradient(y, xs)
    g2 = None
    if spec["order"] == 2:
        g2 = outer.gradient([g for g in g1 if g is not None], xs)
    return g1, g2
