"""Gradients of tf.linalg: TF's conventions, checked against real TF 2.21, plus finite-difference checks.

* ``FD_CASES``: shapes and wrappers the op CASES in tests/ops/test_linalg.py do not reach (their gradient check
  uses each case's first shape), checked against finite differences, first and second order, float64:
  tall/square QR and SVD, the near-square full SVD, Cholesky and logdet on symmetrized inputs (TF's Cholesky
  gradient is the symmetric one), wide minimum-norm least squares, expm/solves in batches.
* ``test_matches_tf``: every case of linalg_grad_cases.py against TF's own gradients (tests/goldens/linalg_grad.json,
  recorded by tools/record_tf_goldens/linalg_grad.py): norms at zero and at ties, complex inputs (TF's conj
  conventions), decompositions through sign/phase-invariant losses, first and second order.
"""

import json
import os

import numpy as np
import pytest

from goldens_check import compare_gradients

import tensorlet as tf

HERE = os.path.dirname(__file__)
import linalg_grad_cases as lgc  # noqa: E402
from gradcheck import check_case_gradients  # noqa: E402
from opcheck import Case  # noqa: E402
from test_linalg import (  # noqa: E402
    _minnorm_ref, _qr_fn, _qr_ref, _svd_fn, _svd_full_abs_fn, _svd_full_abs_ref, _svd_ref, gen_rand, gen_spd,
    gen_wellcond)


def _sym(a):
    return (a + tf.linalg.adjoint(a)) / 2


F = ("float64",)
FD_CASES = [
    Case(_qr_fn(False), _qr_ref(False), [((5, 3),)], F, ops=("Qr",), gen=gen_rand, id="qr_tall"),
    Case(_qr_fn(False), _qr_ref(False), [((2, 3, 3),)], F, ops=("Qr",), gen=gen_rand, id="qr_square"),
    Case(_svd_fn, _svd_ref, [((5, 3),)], F, ops=("Svd",), gen=gen_rand, id="svd_tall"),
    Case(_svd_fn, _svd_ref, [((2, 3, 3),)], F, ops=("Svd",), gen=gen_rand, id="svd_square"),
    Case(_svd_full_abs_fn, _svd_full_abs_ref, [((4, 3),)], F, ops=("Svd",), gen=gen_rand, id="svd_full_tall"),
    Case(lambda x: tf.linalg.cholesky(_sym(x)), lambda x: np.linalg.cholesky(x), [((2, 3, 3),)], F,
         ops=("Cholesky",), gen=gen_spd, id="cholesky_sym"),
    Case(lambda x: tf.linalg.logdet(_sym(x)), lambda x: np.linalg.slogdet(x)[1], [((3, 3),)], F,
         ops=("Cholesky", "LogMatrixDeterminant"), gen=gen_spd, id="logdet_sym"),
    Case(lambda a, b: tf.linalg.lstsq(a, b, fast=False), _minnorm_ref, [((3, 5), (3, 2))], F,
         ops=("MatrixSolveLs",), gen=gen_rand, id="lstsq_slow_wide"),
    Case(lambda a, b: tf.linalg.lstsq(a, b, fast=False), _minnorm_ref, [((2, 4, 3), (2, 4, 1))], F,
         ops=("MatrixSolveLs",), gen=gen_rand, id="lstsq_slow_batch"),
    Case(lambda a, b: tf.linalg.solve(a, b, adjoint=True), lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b),
         [((2, 3, 3), (2, 3, 2))], F, ops=("MatrixSolve",), gen=gen_wellcond, id="solve_adjoint_batch"),
    Case(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False), None, [((3, 3), (2, 3, 2))], F,
         ops=("MatrixTriangularSolve",), gen=gen_wellcond, id="triangular_solve_upper_broadcast"),
    Case(lambda a: tf.linalg.inv(a, adjoint=True), None, [((2, 3, 3),)], F, ops=("MatrixInverse",),
         gen=gen_wellcond, id="inv_adjoint_batch"),
    Case(lambda a: tf.linalg.expm(a), None, [((2, 3, 3),)], F, ops=("MatrixExponential",), gen=gen_rand,
         id="expm_batch"),
    Case(lambda a: tf.linalg.det(a), None, [((2, 3, 3),)], F, ops=("MatrixDeterminant",), gen=gen_wellcond,
         id="det_batch"),
    Case(lambda a: tf.linalg.slogdet(a), None, [((2, 3, 3),)], F, ops=("LogMatrixDeterminant",), gen=gen_rand,
         id="slogdet_batch"),
    Case(lambda a: tf.linalg.eigvalsh(a), None, [((2, 3, 3),)], F, ops=("SelfAdjointEigV2",), gen=gen_rand,
         id="eigvalsh_batch"),
    Case(lambda x: tf.norm(x, ord=2, axis=(2, 0), keepdims=True), None, [((3, 2, 4),)], F, ops=("Norm",),
         id="norm_2_matrix_keepdims"),
    Case(lambda x: tf.norm(x, ord=np.inf, axis=(1, 0)), None, [((3, 4, 2),)], F, ops=("Norm",),
         id="norm_inf_matrix_swapped"),
    Case(lambda x: tf.linalg.pinv(x), None, [((4, 3),)], F, ops=("Svd",), gen=gen_rand, id="pinv_tall"),
    # rank 2 of 3 kept under the perturbations (a = b @ c): the minimum-norm solution's gradient where TF has none
    Case(lambda b, c, rhs: tf.linalg.lstsq(b @ c, rhs, fast=False), None, [((4, 2), (2, 3), (4, 2))], F,
         ops=("MatrixSolveLs",), gen=gen_rand, id="lstsq_slow_rank_deficient"),
    Case(lambda b, c, rhs: tf.linalg.lstsq(b @ c, rhs, fast=False), None, [((2, 3), (3, 4), (2, 1))], F,
         ops=("MatrixSolveLs",), gen=gen_rand, id="lstsq_slow_rank_deficient_wide"),
]


@pytest.mark.parametrize("case", FD_CASES, ids=[c.id for c in FD_CASES])
def test_finite_differences(case):
    check_case_gradients(case)


# --- against TF's own gradients -------------------------------------------------------------------------------

GOLDEN = os.path.join(os.path.dirname(HERE), "goldens", "linalg_grad.json")
with open(GOLDEN) as _f:
    EXPECTED = json.load(_f)

_TOL = {"float32": (2e-5, 1e-6), "complex64": (2e-5, 1e-6)}


def _compare(got, expected, where, rtol64=None):
    # LAPACK here, Eigen in TF: the last bits differ
    compare_gradients(got, expected, where, _TOL, (rtol64 or 1e-7, 1e-9))


def _second_order_by_differences(spec, eps=1e-6):
    """Gradient of Re(sum(first-order gradient)) (what ``run`` takes the second order of) by central differences
    along the real and imaginary directions of each entry, in TF's convention d/dRe + i d/dIm."""
    def h(x):
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = spec["fn"](tf, xt)
        return float(np.real(np.sum(tape.gradient(y, xt).numpy())))

    x0 = spec["inputs"][0]
    out = np.zeros(x0.shape, np.complex128)
    for idx in np.ndindex(x0.shape):
        for unit in (1, 1j):
            xp, xm = x0.copy(), x0.copy()
            xp[idx] += eps * unit
            xm[idx] -= eps * unit
            out[idx] += (h(xp) - h(xm)) / (2 * eps) * unit
    return out


@pytest.mark.parametrize("name", sorted(lgc.CASES))
def test_matches_tf(name):
    spec = lgc.CASES[name]
    g1, g2 = lgc.run(tf, spec)
    _compare(g1, EXPECTED[name]["first"], f"{name} first order", spec["rtol"])
    if not spec["tf_second_order_wrong"]:
        _compare(g2, EXPECTED[name]["second"], f"{name} second order", spec["rtol"])
        return
    # TF's complex SVD second order disagrees with finite differences of TF's own first-order gradient (checked
    # with TF 2.21); tensorlet's agrees with them, so it is checked that way.
    np.testing.assert_allclose(g2[0].numpy(), _second_order_by_differences(spec), rtol=1e-5, atol=1e-6,
                               err_msg=f"{name} second order")


# --- where TF raises, and where tensorlet deliberately does more -----------------------------------------------

def _grad(f, *xs):
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return tape.gradient(y, ts)


def test_qr_full_tall_has_no_gradient_like_tf():
    with pytest.raises(NotImplementedError, match="QrGrad not implemented when nrows > ncols and full_matrices"):
        _grad(lambda a: tf.reduce_sum(tf.linalg.qr(a, full_matrices=True)[0]), lgc.mat((3, 2)))


def test_svd_full_far_from_square_has_no_gradient_like_tf():
    with pytest.raises(NotImplementedError, match=r"abs\(m - n\) > 1 when full_matrices is True. Received: m=2 "
                                                  r"and n=4"):
        _grad(lambda a: tf.reduce_sum(tf.linalg.svd(a, full_matrices=True)[1]), lgc.mat((4, 2)))
    # compute_uv=False does not care about full_matrices
    (g,) = _grad(lambda a: tf.reduce_sum(tf.linalg.svd(a, full_matrices=True, compute_uv=False)), lgc.mat((4, 2)))
    assert g.shape == (4, 2)


def test_det_gradient_of_singular_matrix_raises_like_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        _grad(tf.linalg.det, np.array([[1.0, 2.0], [2.0, 4.0]]))


def test_lstsq_minimum_norm_gradient_matches_fast_path_for_full_rank():
    """TF raises ValueError for the gradient of lstsq(fast=False); tensorlet differentiates the minimum-norm
    solution, which for full-rank matrices (complex too) equals the fast path's gradient (recorded from TF)."""
    for shape_a, shape_b in (((4, 3), (4, 2)), ((2, 3), (2, 2))):
        a = lgc.mat(shape_a, k=0.7, dtype="complex128")
        b = lgc.mat(shape_b, k=2.1, dtype="complex128")
        slow = _grad(lambda x, y: lgc.wsum(tf, tf.linalg.lstsq(x, y, fast=False)), a, b)
        fast = _grad(lambda x, y: lgc.wsum(tf, tf.linalg.lstsq(x, y)), a, b)
        for s, f in zip(slow, fast):
            np.testing.assert_allclose(s.numpy(), f.numpy(), rtol=1e-8, atol=1e-10)


def test_lstsq_complex128_with_l2_is_disabled_like_tf():
    a = np.ones((3, 2), np.complex128) + np.eye(3, 2)
    with pytest.raises(NotImplementedError, match="disabled for complex128 and l2_regularizer != 0"):
        tf.linalg.lstsq(a, a[:, :1], l2_regularizer=0.1)
    assert tf.linalg.lstsq(a, a[:, :1], l2_regularizer=0.0).shape == (2, 1)


def test_cholesky_gradient_is_symmetric_although_only_the_lower_triangle_is_read():
    a = lgc.spd(3)
    garbage = np.tril(a) + np.triu(lgc.mat((3, 3), k=2.0), 1)
    (g1,) = _grad(lambda x: lgc.wsum(tf, tf.linalg.cholesky(x)), a)
    (g2,) = _grad(lambda x: lgc.wsum(tf, tf.linalg.cholesky(x)), garbage)
    np.testing.assert_allclose(g1.numpy(), g1.numpy().T)
    np.testing.assert_allclose(g1.numpy(), g2.numpy())


def test_degenerate_spectra_give_zero_not_nan_like_tf():
    """TF's Lorentz-broadened reciprocals: exactly repeated eigen/singular values contribute 0, not inf/NaN."""
    for f in (lambda x: tf.reduce_sum(tf.linalg.eigh(x)[1]), lambda x: tf.reduce_sum(tf.linalg.svd(x)[1]),
              lambda x: tf.math.real(tf.reduce_sum(tf.linalg.eig(x)[1]))):
        (g,) = _grad(f, np.eye(2))
        np.testing.assert_array_equal(g.numpy(), np.zeros((2, 2)))


def test_integer_norm_has_no_gradient():
    x = tf.constant([3, -4])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.norm(x, ord=1)
    assert tape.gradient(y, x) is None
