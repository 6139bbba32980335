"""Gradients of the ``tf.linalg`` ops (``linalg`` and ``linalg_decomp``), following TF's linalg_grad.py formulas.

Written only in tensorlet's public ops (``T.*``, resolved at call time), so the backward pass is itself recorded by
outer tapes (higher-order derivatives) and will trace into compiled graphs.  Decomposition gradients assume distinct
eigen/singular values (TF's Lorentz-broadened reciprocals give 0, not NaN, where they repeat) and losses that do not
depend on the sign/phase of eigen/singular vectors.
"""

from __future__ import annotations

import numpy as np


# --- norms (tensorlet's fused Norm op: the gradient of TF's composite for each ord) ----------------------

def _abs_grad(ga, x):
    """TF's Abs/ComplexAbs gradient: ``ga * sign(x)``; ``ga * x / |x|`` (0 at 0) for complex."""
    if x.dtype.is_complex:
        scale = math_binary.divide_no_nan(ga, math_unary.abs(x))
        return math_binary_fn.complex(scale, creation.zeros_like(scale)) * x
    return ga * math_unary.sign(x)


def _split_ties(values, best, g, axis):
    """reduce_max's gradient: ``g`` shared evenly among the entries of ``values`` equal to ``best``."""
    hits = math_binary.cast(math_binary.equal(values, best), g.dtype)
    return hits / reduce.reduce_sum(hits, axis=axis, keepdims=True) * g


def _matrix2_norm_grad(g, x, axis, keepdims):
    """u diag(dg) v^H of the SVD over the axis pair (ties among top singular values share the gradient)."""
    rank = len(x.shape)
    perm = [i for i in range(rank) if i not in axis] + list(axis)
    xm = array_shape.transpose(x, perm)
    s, u, v = linalg_decomp.svd(xm)
    batch = list(xm.shape[:-2])
    gk = array_shape.reshape(g, batch + [1])
    gs = _split_ties(s, reduce.reduce_max(s, axis=-1, keepdims=True), gk, -1) * math_unary.sign(s)
    gm = matmul.matmul(u * math_binary.cast(gs, u.dtype)[..., None, :], v, adjoint_b=True)
    return array_shape.transpose(gm, [perm.index(i) for i in range(rank)])


def norm_grad(g, ans, x, order="euclidean", axis=None, keepdims=False):
    """The gradient of TF's composite for each norm, with its values where the norm is 0 (euclidean: NaN)."""
    is_matrix = axis is not None and len(axis) == 2
    if order == 2 and is_matrix:
        return _matrix2_norm_grad(g, x, axis, keepdims)
    kept = reduce._kept(x, axis)  # the keepdims shape (a shape tensor for run-time dims)
    gk = array_shape.reshape(g, kept)
    rk = array_shape.reshape(ans, kept)
    if order in ("euclidean", "fro"):  # sqrt(sum(x * conj(x))): Re(g) x / norm
        if x.dtype.is_complex:
            gk = math_binary.cast(math_unary.real(gk), x.dtype)
        return x * (gk / rk)
    a = math_unary.abs(x)
    if order == 1:
        if is_matrix:  # max over axis[1] of the column sums over axis[0]
            gk = _split_ties(reduce.reduce_sum(a, axis=axis[0], keepdims=True), rk, gk, axis[1])
        ga = array_shape.broadcast_to(gk, a.shape)
    elif order == np.inf:
        if is_matrix:  # max over axis[0] of the row sums over axis[1]
            ga = array_shape.broadcast_to(
                _split_ties(reduce.reduce_sum(a, axis=axis[1], keepdims=True), rk, gk, axis[0]), a.shape)
        else:
            ga = _split_ties(a, rk, gk, None if axis is None else axis[0])
    else:  # pow(sum(pow(|x|, p)), 1/p), differentiated as TF's Pow ops are
        p = float(order)
        total = reduce.reduce_sum(math_binary.pow(a, p), axis=axis, keepdims=True)
        gsum = gk * (1.0 / p) * math_binary.pow(total, 1.0 / p - 1.0)
        ga = gsum * p * math_binary.pow(a, p - 1.0)
    return _abs_grad(ga, x)


# --- shared helpers of the decomposition gradients ---------------------------------------------------

def _mm(a, b, adjoint_a=False, adjoint_b=False):
    return matmul.matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _adj(x):
    return linalg.adjoint(x)


def _mat(v):
    """Batched diagonal matrices from vectors."""
    return linalg.diag(v)


def _safe_reciprocal(x, eps=1e-20):
    """TF's Lorentz-broadened 1/x: 0 instead of inf for degenerate eigen/singular values."""
    return x * math_unary.reciprocal(x * x + eps)


def _gap_reciprocals(e):
    """f[..., i, j] = 1 / (e_j - e_i) off the diagonal, 0 on it."""
    return linalg.set_diag(_safe_reciprocal(e[..., None, :] - e[..., :, None]), creation.zeros_like(e))


def bcast_mat(g, mat_shape):
    """``g`` (batch) reshaped to broadcast against batched matrices: (..., 1, 1)."""
    return array_shape.reshape(g, list(mat_shape[:-2]) + [1, 1])


# --- inverse, determinants, Cholesky ----------------------------------------------------------------

def inv_grad(g, ainv, x, adjoint=False):
    """TF's: -A^-H g A^-H (for ``adjoint``: -A^-1 g^H A^-1, with ``ainv`` the output)."""
    if adjoint:
        return -_mm(ainv, _mm(g, ainv, adjoint_a=True))
    return -_mm(ainv, _mm(g, ainv, adjoint_b=True), adjoint_a=True)


def chol_grad(g, chol, x):
    """TF's: sym(L^-H Phi(L^H g) L^-1), Phi = lower triangle with a halved diagonal.  Like TF, the gradient is
    the symmetric (Hermitian) one, although the kernel reads only the lower triangle of its input."""
    n = chol.shape[-1]
    l_inv = linalg_decomp.triangular_solve(chol, creation.eye(n, dtype=chol.dtype), lower=True)
    mid = _mm(chol, g, adjoint_a=True)
    mid = linalg.band_part(linalg.set_diag(mid, 0.5 * linalg.diag_part(mid)), -1, 0)
    ga = _mm(_mm(l_inv, mid, adjoint_a=True), l_inv)
    return 0.5 * (ga + _adj(ga))


# --- QR, SVD, eigen-decompositions --------------------------------------------------------------------

def _times_r_inv_h(x, r):
    """``x @ r^-H`` for upper-triangular ``r``, by a triangular solve."""
    return _adj(linalg_decomp.triangular_solve(r, _adj(x), lower=False))


def _qr_grad_tall(q, r, dq, dr):
    """QR backprop for rows >= cols (reduced factors); see Roberts & Roberts, arXiv:2009.10071."""
    qdq = _mm(q, dq, adjoint_a=True)
    rdr = _mm(r, dr, adjoint_b=True)
    low = linalg.band_part(qdq - _adj(qdq) + rdr - _adj(rdr), -1, 0)
    grad = _mm(q, dr + _times_r_inv_h(low, r)) + _times_r_inv_h(dq - _mm(q, qdq), r)
    if q.dtype.is_complex:  # the imaginary part of diag(r dr^H - dq^H q) needs a correction term
        d = linalg.diag_part(rdr - _adj(qdq))
        correction = _mat(d - math_binary.cast(math_unary.real(d), d.dtype))
        grad = grad + _times_r_inv_h(_mm(q, correction, adjoint_b=True), r)
    return grad


def qr_grad(g, ans, a, full_matrices=False):
    (dq, dr), (q, r) = g, ans
    m, n = a.shape[-2], a.shape[-1]
    if m > n and full_matrices:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={tuple(r.shape)} with nrows={m}and ncols={n}.")
    if m >= n:
        return _qr_grad_tall(q, r, dq, dr)
    # wide: a = [x, y], r = [u, v] with x square; reduce to the square case
    y = a[..., :, m:]
    dv = dr[..., :, m:]
    dx = _qr_grad_tall(q, r[..., :, :m], dq + _mm(y, dv, adjoint_b=True), dr[..., :, :m])
    return array_blocks.concat([dx, _mm(q, dv)], axis=-1)


def svd_grad(g, ans, a, full_matrices=False, compute_uv=True):
    """TF's SVD gradient (Giles; Townsend for reduced factors; the complex phase term), via A^H when rows > cols.
    Singular vectors are defined up to sign/phase: the gradient assumes a loss invariant to it."""
    if not compute_uv:
        s, u, v = linalg_decomp.svd(a)
        return _mm(u * math_binary.cast(g[0], a.dtype)[..., None, :], v, adjoint_b=True)
    (gs, gu, gv), (s, u, v) = g, ans
    m, n = a.shape[-2], a.shape[-1]
    flip = m > n
    if flip:  # differentiate A^H = V S U^H, then take the adjoint of the result
        m, n, u, v, gu, gv = n, m, v, u, gv, gu
    if full_matrices and n - m > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                  f"Received: m={m} and n={n} from op input with shape={tuple(a.shape)}.")
    s = math_binary.cast(s, a.dtype)
    s_mat = _mat(s)
    s_inv = _mat(_safe_reciprocal(s))
    f = _gap_reciprocals(math_unary.square(s))
    v1, gv1 = v[..., :, :m], gv[..., :, :m]
    f_u = f * _mm(u, gu, adjoint_a=True)
    v_gv = _mm(v1, gv1, adjoint_a=True)
    f_v = f * v_gv
    inner = _mat(math_binary.cast(gs, a.dtype)) + _mm(f_u + _adj(f_u), s_mat) + _mm(s_mat, f_v + _adj(f_v))
    if a.dtype.is_complex:
        d = _mat(linalg.diag_part(v_gv))
        inner = inner + 0.5 * _mm(s_inv, _adj(d) - d)
    grad = _mm(u, _mm(inner, v1, adjoint_b=True))
    if m != n:
        gv1_h = _adj(gv1)
        rest = gv1_h - _mm(_mm(gv1_h, v1), v1, adjoint_b=True)
        if full_matrices:
            v2 = v[..., :, m:]
            rest = rest - _mm(_mm(v1, gv[..., :, m:], adjoint_a=True), v2, adjoint_b=True)
        grad = grad + _mm(_mm(u, s_inv), rest)
    return _adj(grad) if flip else grad


def eigh_grad(g, ans, a, compute_v=True):
    """TF's: V (diag(ge) + F o V^H gv) V^H, folded onto the lower triangle the kernel reads (diagonal halved)."""
    if compute_v:
        (ge, gv), (e, v) = g, ans
        inner = _mat(ge) + _gap_reciprocals(e) * _mm(v, gv, adjoint_a=True)
    else:
        _, v = linalg_decomp.eigh(a)
        inner = _mat(g[0])
    ga = _mm(v, _mm(inner, v, adjoint_b=True))
    ga = linalg.band_part(ga + _adj(ga), -1, 0)
    return linalg.set_diag(ga, 0.5 * linalg.diag_part(ga))


def eig_grad(g, ans, a, compute_v=True):
    """TF's (Boeddeker et al., eq. 4.77; distinct eigenvalues): V^-H (diag(ge) + F o (...)) V^H, real part for
    real input.  Unit-norm eigenvectors have an arbitrary phase: the gradient assumes a loss invariant to it."""
    if compute_v:
        (ge, gv), (e, v) = g, ans
        vh = _adj(v)
        vgv = _mm(vh, gv)
        f = math_unary.conj(_gap_reciprocals(e))
        real_diag = _mat(linalg.diag_part(math_binary.cast(math_unary.real(vgv), vgv.dtype)))
        mid = _mat(ge) + f * (vgv - _mm(_mm(vh, v), real_diag))
    else:
        _, v = linalg_decomp.eig(a)
        vh = _adj(v)
        mid = _mat(g[0])
    return math_binary.cast(linalg_decomp.solve(vh, _mm(mid, vh)), a.dtype)


# --- solvers, matrix exponential ---------------------------------------------------------------------

def solve_grad(g, x, matrix, rhs, adjoint=False):
    """TF's: grad_rhs = solve(A^H, g); grad_A = -grad_rhs x^H (-x grad_rhs^H for ``adjoint``)."""
    grad_rhs = linalg_decomp.solve(matrix, g, adjoint=not adjoint)
    grad_a = -_mm(x, grad_rhs, adjoint_b=True) if adjoint else -_mm(grad_rhs, x, adjoint_b=True)
    return grad_a, grad_rhs


def trisolve_grad(g, x, matrix, rhs, lower=True, adjoint=False):
    """TF's: as MatrixSolve's, with grad_A kept to the triangle the kernel reads, summed over broadcast batches."""
    grad_rhs = linalg_decomp.triangular_solve(matrix, g, lower=lower, adjoint=not adjoint)
    grad_a = -_mm(x, grad_rhs, adjoint_b=True) if adjoint else -_mm(grad_rhs, x, adjoint_b=True)
    grad_a = linalg.band_part(grad_a, -1, 0) if lower else linalg.band_part(grad_a, 0, -1)
    return unbroadcast_batch(grad_a, matrix), unbroadcast_batch(grad_rhs, rhs)


def _pinv_of(a):
    """The pseudo-inverse with the kernel's cutoff, in ops (complex allowed, unlike ``tf.linalg.pinv``)."""
    m, n = a.shape[-2], a.shape[-1]
    s, u, v = linalg_decomp.svd(a)
    cutoff = float(np.finfo(a.dtype.real_dtype.as_numpy_dtype).eps) * max(m, n) * s[..., :1]
    s_inv = math_binary.divide_no_nan(math_binary.cast(math_binary.greater(s, cutoff), s.dtype), s)
    return _mm(v * math_binary.cast(s_inv, a.dtype)[..., None, :], u, adjoint_b=True)


def lstsq_grad(g, x, a, b):
    """Gradient of the minimum-norm solution x = A^+ b (for perturbations that keep A's rank).

    TF has no gradient for ``fast=False`` (it raises); this is the derivative of the pseudo-inverse
    (Golub & Pereyra): grad_b = A^+^H g, grad_A = -grad_b x^H + r (A^+ grad_b)^H + A^+^H x g^H (I - A^+ A),
    with r = b - A x.  For full-rank A it equals TF's fast-path formula with ``l2_regularizer=0``."""
    m, n = a.shape[-2], a.shape[-1]
    if m == 0 or n == 0:
        return creation.zeros_like(a), creation.zeros_like(b)
    ap = _pinv_of(a)
    grad_b = _mm(ap, g, adjoint_a=True)
    resid = b - _mm(a, x)
    xg = _mm(x, g, adjoint_b=True)
    grad_a = (-_mm(grad_b, x, adjoint_b=True) + _mm(resid, _mm(ap, grad_b), adjoint_b=True)
              + _mm(ap, xg - _mm(_mm(xg, ap), a), adjoint_a=True))
    return grad_a, grad_b


def expm_grad(g, ans, a):
    """The adjoint Frechet derivative: the upper-right block of expm([[A^H, g], [0, A^H]])."""
    n = a.shape[-1]
    ah = _adj(a)
    block = array_blocks.concat([array_blocks.concat([ah, g], axis=-1),
                                 array_blocks.concat([creation.zeros_like(ah), ah], axis=-1)], axis=-2)
    return linalg_decomp.expm(block)[..., :n, n:]


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_shape,
    creation,
    linalg,
    linalg_decomp,
    math_binary,
    math_binary_fn,
    math_unary,
    matmul,
    reduce,
)
from tensorlet._src.ops.grad_utils import unbroadcast_batch  # noqa: E402
