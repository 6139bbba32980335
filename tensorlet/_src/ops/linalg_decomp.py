"""``tf.linalg`` decompositions and solvers: inv, det, slogdet, cholesky, qr, svd, eig(h), solve, triangular_solve,
lstsq, expm, and the composites logdet, cholesky_solve, pinv.

Kernels use ``xp.linalg`` where NumPy and jax.numpy agree.  Where they differ, ``jax_impl`` gives the lowering:
TF's Cholesky and SelfAdjointEig read only the lower triangle (jax symmetrizes by default), and triangular solves
and ``expm`` come from scipy / jax.scipy.  float16 is computed in float32 (LAPACK has no half precision).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.autodiff import lazy as T
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.linalg import adjoint, band_part, diag, diag_part, dims, lapack_in, matrix_check, set_diag, \
    silent
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
# TF's allowed 'T' lists, in TF's order (they appear in the dtype error message).
LAPACK = (D.float64, D.float32, D.float16, D.complex64, D.complex128)
DET_TYPES = (D.float16, D.float32, D.float64, D.complex64, D.complex128)
TRISOLVE_TYPES = (D.bfloat16,) + LAPACK
EIG_TYPES = (D.float32, D.float64, D.complex64, D.complex128)

Qr = namedtuple("Qr", ["q", "r"])
LogMatrixDeterminant = namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def _ct(xp, x):
    """Conjugate transpose of the innermost matrices."""
    return xp.conj(xp.swapaxes(x, -1, -2))


def _real_dtype(x):
    return x.real.dtype


# --- gradient helpers (written in tensorlet ops, so they differentiate again) ------------------

def _mm(a, b, adjoint_a=False, adjoint_b=False):
    return T.linalg.matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _mat(v):
    """Batched diagonal matrices from vectors."""
    return diag(v)


def _safe_reciprocal(x, eps=1e-20):
    """TF's Lorentz-broadened 1/x: 0 instead of inf for degenerate eigen/singular values."""
    return x * T.math.reciprocal(x * x + eps)


def _gap_reciprocals(e):
    """f[..., i, j] = 1 / (e_j - e_i) off the diagonal, 0 on it."""
    return set_diag(_safe_reciprocal(e[..., None, :] - e[..., :, None]), T.zeros_like(e))


def _sum_to_batch(g, x):
    """Sum a gradient over the batch dimensions along which ``x`` was broadcast."""
    if tuple(g.shape) == tuple(x.shape):
        return g
    lead = len(g.shape) - len(x.shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(x.shape[:-2]) if d == 1 and g.shape[lead + i] != 1]
    if axes:
        g = T.reduce_sum(g, axis=axes)
    return T.reshape(g, x.shape)


def _bcast_mat(g, mat_shape):
    """``g`` (batch) reshaped to broadcast against batched matrices: (..., 1, 1)."""
    return T.reshape(g, list(mat_shape[:-2]) + [1, 1])


# --- inverse, determinants --------------------------------------------------------------

def _inv_kernel(xp, x, adjoint=False):
    a = lapack_in(x)
    if adjoint:
        a = _ct(xp, a)
    try:
        r = xp.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise errors.invalid_argument("MatrixInverse", "Input is not invertible.") from None
    return r.astype(x.dtype)


def _inv_grad(g, ainv, x, adjoint=False):
    """TF's: -A^-H g A^-H (for ``adjoint``: -A^-1 g^H A^-1, with ``ainv`` the output)."""
    if adjoint:
        return -_mm(ainv, _mm(g, ainv, adjoint_a=True))
    return -_mm(ainv, _mm(g, ainv, adjoint_b=True), adjoint_a=True)


INV = defop("MatrixInverse", silent(_inv_kernel), dtypes=LAPACK, check=matrix_check("MatrixInverse"), quiet=True,
            grad=_inv_grad)
# TF's g * det * A^-H (no conjugate on det, as TF); a singular matrix raises from the inverse, as in TF.
DET = defop("MatrixDeterminant", silent(lambda xp, x: xp.linalg.det(lapack_in(x)).astype(x.dtype)),
            dtypes=DET_TYPES, check=matrix_check("MatrixDeterminant"), quiet=True,
            grad=lambda g, ans, x: _bcast_mat(g * ans, x.shape) * inv(x, adjoint=True))


def _slogdet_kernel(xp, x):
    sign, logabs = xp.linalg.slogdet(lapack_in(x))
    return sign.astype(x.dtype), logabs.astype(x.dtype)


SLOGDET = defop("LogMatrixDeterminant", silent(_slogdet_kernel), n_out=2, dtypes=DET_TYPES,
                check=matrix_check("LogMatrixDeterminant"), quiet=True,  # sign: no gradient (TF)
                grad=lambda g, ans, x: _bcast_mat(g[1], x.shape) * inv(x, adjoint=True))


@tf_export("linalg.inv")
def inv(input, adjoint=False, name=None):  # noqa: A002 - TF's name
    """Inverse of each innermost square matrix (of its adjoint if ``adjoint``).

    >>> inv([[2., 0.], [0., 4.]]).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    return bind(INV, t(input), adjoint=bool(adjoint))


@tf_export("linalg.det")
def det(input, name=None):  # noqa: A002 - TF's name
    """Determinant of each innermost square matrix.

    >>> round(float(det([[1., 2.], [3., 4.]])), 4)
    -2.0
    """
    return bind(DET, t(input))


@tf_export("linalg.slogdet")
def slogdet(input, name=None):  # noqa: A002 - TF's name
    """``(sign, log_abs_determinant)`` of each innermost square matrix; complex inputs give complex outputs.

    >>> [round(float(v), 4) for v in slogdet([[0., 2.], [3., 0.]])]
    [-1.0, 1.7918]
    """
    return LogMatrixDeterminant(*bind(SLOGDET, t(input)))


@tf_export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, through their Cholesky factor.

    >>> round(float(logdet([[2., 0.], [0., 3.]])), 4)
    1.7918
    """
    from tensorlet._src.ops.math_binary import cast, multiply

    chol = cholesky(matrix)
    _, logabs = slogdet(chol)  # chol is triangular with a positive diagonal: log|det| = sum(log(diag))
    logabs = multiply(logabs, 2)
    if chol.dtype.is_complex:
        logabs = cast(logabs, chol.dtype.real_dtype)
    return logabs


# --- Cholesky ----------------------------------------------------------------------------

def _chol_each(a):
    """Per-matrix Cholesky where the batched call failed: a matrix that is not PD gives NaN (TF's result)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        try:
            out[i] = np.linalg.cholesky(flat[i])
        except np.linalg.LinAlgError:
            out[i] = np.tril(np.full_like(flat[i], np.nan))
    return out.reshape(a.shape)


def _chol_kernel(xp, x):
    a = lapack_in(x)
    try:
        r = np.linalg.cholesky(a)  # reads the lower triangle only, as TF does
    except np.linalg.LinAlgError:
        r = _chol_each(a)
    return r.astype(x.dtype)


def _chol_jax(xp, x):
    from jax.lax import linalg as lax_linalg

    return lax_linalg.cholesky(lapack_in(x), symmetrize_input=False).astype(x.dtype)


def _chol_grad(g, chol, x):
    """TF's: sym(L^-H Phi(L^H g) L^-1), Phi = lower triangle with a halved diagonal.  Like TF, the gradient is
    the symmetric (Hermitian) one, although the kernel reads only the lower triangle of its input."""
    n = chol.shape[-1]
    l_inv = triangular_solve(chol, T.eye(n, dtype=chol.dtype), lower=True)
    mid = _mm(chol, g, adjoint_a=True)
    mid = band_part(set_diag(mid, 0.5 * diag_part(mid)), -1, 0)
    ga = _mm(_mm(l_inv, mid, adjoint_a=True), l_inv)
    return 0.5 * (ga + adjoint(ga))


CHOLESKY = defop("Cholesky", silent(_chol_kernel), jax_impl=_chol_jax, dtypes=LAPACK, check=matrix_check("Cholesky"),
                 quiet=True, grad=_chol_grad)


@tf_export("linalg.cholesky")
def cholesky(input, name=None):  # noqa: A002 - TF's name
    """Lower Cholesky factor of each Hermitian positive definite matrix (only its lower triangle is read).
    A matrix that is not positive definite gives NaN, as TF does.

    >>> cholesky([[4., 2.], [2., 2.]]).numpy()
    array([[2., 0.],
           [1., 1.]], dtype=float32)
    """
    return bind(CHOLESKY, t(input))


@tf_export("linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name=None):
    """Solves ``A X = rhs`` given ``chol``, the Cholesky factor of ``A``.

    >>> cholesky_solve([[2., 0.], [0., 1.]], [[4.], [1.]]).numpy()
    array([[1.],
           [1.]], dtype=float32)
    """
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# --- QR, SVD, eigen-decompositions ------------------------------------------------------

def _qr_kernel(xp, x, full_matrices=False):
    q, r = xp.linalg.qr(lapack_in(x), mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _times_r_inv_h(x, r):
    """``x @ r^-H`` for upper-triangular ``r``, by a triangular solve."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False))


def _qr_grad_tall(q, r, dq, dr):
    """QR backprop for rows >= cols (reduced factors); see Roberts & Roberts, arXiv:2009.10071."""
    qdq = _mm(q, dq, adjoint_a=True)
    rdr = _mm(r, dr, adjoint_b=True)
    low = band_part(qdq - adjoint(qdq) + rdr - adjoint(rdr), -1, 0)
    grad = _mm(q, dr + _times_r_inv_h(low, r)) + _times_r_inv_h(dq - _mm(q, qdq), r)
    if q.dtype.is_complex:  # the imaginary part of diag(r dr^H - dq^H q) needs a correction term
        d = diag_part(rdr - adjoint(qdq))
        correction = _mat(d - T.cast(T.math.real(d), d.dtype))
        grad = grad + _times_r_inv_h(_mm(q, correction, adjoint_b=True), r)
    return grad


def _qr_grad(g, ans, a, full_matrices=False):
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
    return T.concat([dx, _mm(q, dv)], axis=-1)


QR = defop("Qr", silent(_qr_kernel), n_out=2, dtypes=LAPACK, check=matrix_check("Qr", square=False), grad=_qr_grad)


@tf_export("linalg.qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """QR decomposition ``input = q @ r`` of each innermost matrix; returns the namedtuple ``(q, r)``.

    >>> q, r = qr([[3., 0.], [4., 5.]]); (q @ r).numpy().round(4)
    array([[3., 0.],
           [4., 5.]], dtype=float32)
    """
    return Qr(*bind(QR, t(input), full_matrices=bool(full_matrices)))


def _svd_kernel(xp, x, full_matrices=False, compute_uv=True):
    a = lapack_in(x)
    sdt = _real_dtype(x)
    if not compute_uv:
        return (xp.linalg.svd(a, compute_uv=False).astype(sdt),)
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return s.astype(sdt), u.astype(x.dtype), _ct(xp, vh).astype(x.dtype)


def _svd_grad(g, ans, a, full_matrices=False, compute_uv=True):
    """TF's SVD gradient (Giles; Townsend for reduced factors; the complex phase term), via A^H when rows > cols.
    Singular vectors are defined up to sign/phase: the gradient assumes a loss invariant to it."""
    if not compute_uv:
        s, u, v = svd(a)
        return _mm(u * T.cast(g[0], a.dtype)[..., None, :], v, adjoint_b=True)
    (gs, gu, gv), (s, u, v) = g, ans
    m, n = a.shape[-2], a.shape[-1]
    flip = m > n
    if flip:  # differentiate A^H = V S U^H, then take the adjoint of the result
        m, n, u, v, gu, gv = n, m, v, u, gv, gu
    if full_matrices and n - m > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                  f"Received: m={m} and n={n} from op input with shape={tuple(a.shape)}.")
    s = T.cast(s, a.dtype)
    s_mat = _mat(s)
    s_inv = _mat(_safe_reciprocal(s))
    f = _gap_reciprocals(T.square(s))
    v1, gv1 = v[..., :, :m], gv[..., :, :m]
    f_u = f * _mm(u, gu, adjoint_a=True)
    v_gv = _mm(v1, gv1, adjoint_a=True)
    f_v = f * v_gv
    inner = _mat(T.cast(gs, a.dtype)) + _mm(f_u + adjoint(f_u), s_mat) + _mm(s_mat, f_v + adjoint(f_v))
    if a.dtype.is_complex:
        d = _mat(diag_part(v_gv))
        inner = inner + 0.5 * _mm(s_inv, adjoint(d) - d)
    grad = _mm(u, _mm(inner, v1, adjoint_b=True))
    if m != n:
        gv1_h = adjoint(gv1)
        rest = gv1_h - _mm(_mm(gv1_h, v1), v1, adjoint_b=True)
        if full_matrices:
            v2 = v[..., :, m:]
            rest = rest - _mm(_mm(v1, gv[..., :, m:], adjoint_a=True), v2, adjoint_b=True)
        grad = grad + _mm(_mm(u, s_inv), rest)
    return adjoint(grad) if flip else grad


SVD = defop("Svd", silent(_svd_kernel), n_out=None, dtypes=LAPACK, check=matrix_check("Svd", square=False),
            grad=_svd_grad)


@tf_export("linalg.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values ``s`` (descending) and, if ``compute_uv``, ``u`` and ``v`` with ``tensor = u diag(s) v^H``.
    Returns ``(s, u, v)`` -- ``v`` itself, not its adjoint -- or just ``s``.

    >>> svd([[3., 0.], [0., 4.]], compute_uv=False).numpy()
    array([4., 3.], dtype=float32)
    """
    out = bind(SVD, t(tensor), full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return out if compute_uv else out[0]


def _eigh_kernel(xp, x, compute_v=True):
    a = lapack_in(x)
    if not compute_v:
        return (np.linalg.eigvalsh(a).astype(x.dtype),)  # lower triangle, as TF
    e, v = np.linalg.eigh(a)
    return e.astype(x.dtype), v.astype(x.dtype)


def _eigh_jax(xp, x, compute_v=True):
    e, v = xp.linalg.eigh(lapack_in(x), symmetrize_input=False)
    return (e.astype(x.dtype), v.astype(x.dtype)) if compute_v else (e.astype(x.dtype),)


def _eigh_grad(g, ans, a, compute_v=True):
    """TF's: V (diag(ge) + F o V^H gv) V^H, folded onto the lower triangle the kernel reads (diagonal halved)."""
    if compute_v:
        (ge, gv), (e, v) = g, ans
        inner = _mat(ge) + _gap_reciprocals(e) * _mm(v, gv, adjoint_a=True)
    else:
        _, v = eigh(a)
        inner = _mat(g[0])
    ga = _mm(v, _mm(inner, v, adjoint_b=True))
    ga = band_part(ga + adjoint(ga), -1, 0)
    return set_diag(ga, 0.5 * diag_part(ga))


EIGH = defop("SelfAdjointEigV2", silent(_eigh_kernel), jax_impl=_eigh_jax, n_out=None, dtypes=LAPACK,
             check=matrix_check("SelfAdjointEigV2"), grad=_eigh_grad)


@tf_export("linalg.eigh")
def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of self-adjoint matrices (only the lower triangle is read).

    >>> eigh([[2., 0.], [0., 1.]])[0].numpy()
    array([1., 2.], dtype=float32)
    """
    return bind(EIGH, t(tensor), compute_v=True)


@tf_export("linalg.eigvalsh")
def eigvalsh(tensor, name=None):
    """Eigenvalues (ascending) of self-adjoint matrices.

    >>> eigvalsh([[2., 0.], [0., 1.]]).numpy()
    array([1., 2.], dtype=float32)
    """
    return bind(EIGH, t(tensor), compute_v=False)[0]


def _eig_kernel(xp, x, compute_v=True):
    ct = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    if not compute_v:
        return (xp.linalg.eigvals(x).astype(ct),)
    w, v = xp.linalg.eig(x)
    return w.astype(ct), v.astype(ct)


def _eig_grad(g, ans, a, compute_v=True):
    """TF's (Boeddeker et al., eq. 4.77; distinct eigenvalues): V^-H (diag(ge) + F o (...)) V^H, real part for
    real input.  Unit-norm eigenvectors have an arbitrary phase: the gradient assumes a loss invariant to it."""
    if compute_v:
        (ge, gv), (e, v) = g, ans
        vh = adjoint(v)
        vgv = _mm(vh, gv)
        f = T.math.conj(_gap_reciprocals(e))
        real_diag = _mat(diag_part(T.cast(T.math.real(vgv), vgv.dtype)))
        mid = _mat(ge) + f * (vgv - _mm(_mm(vh, v), real_diag))
    else:
        _, v = eig(a)
        vh = adjoint(v)
        mid = _mat(g[0])
    return T.cast(solve(vh, _mm(mid, vh)), a.dtype)


EIG = defop("Eig", silent(_eig_kernel), n_out=None, dtypes=EIG_TYPES, check=matrix_check("Eig"), grad=_eig_grad)


@tf_export("linalg.eig", "eig")
def eig(tensor, name=None):
    """Eigenvalues and (unit-norm) eigenvectors of general square matrices, as complex tensors.

    >>> eig([[2., 0.], [0., 1.]])[0].numpy()
    array([2.+0.j, 1.+0.j], dtype=complex64)
    """
    return bind(EIG, t(tensor), compute_v=True)


@tf_export("linalg.eigvals", "eigvals")
def eigvals(tensor, name=None):
    """Eigenvalues of general square matrices, as a complex tensor.

    >>> eigvals([[0., -1.], [1., 0.]]).numpy()
    array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return bind(EIG, t(tensor), compute_v=False)[0]


# --- solvers ------------------------------------------------------------------------------

def _solve_kernel(xp, matrix, rhs, adjoint=False):
    a = lapack_in(matrix)
    if adjoint:
        a = _ct(xp, a)
    try:
        r = xp.linalg.solve(a, lapack_in(rhs))
    except np.linalg.LinAlgError:
        raise errors.invalid_argument("MatrixSolve", "Input matrix is not invertible.") from None
    return r.astype(matrix.dtype)


def _same_outer(op_name, square_msg):
    def check(matrix, rhs, **attrs):
        dm, dr = dims(matrix), dims(rhs)
        if dm is None or dr is None:
            return
        for i, d in enumerate((dm, dr)):
            if len(d) < 2:
                raise errors.invalid_argument(op_name, f"Input tensor {i} must have rank >= 2, got {len(d)}")
        if len(dm) != len(dr):
            raise errors.invalid_argument(op_name, "All input tensors must have the same rank.")
        if any(a is not None and b is not None and a != b for a, b in zip(dm[:-2], dr[:-2])):
            raise errors.invalid_argument(op_name, "All input tensors must have the same outer dimensions.")
        if square_msg and None not in dm[-2:] and dm[-1] != dm[-2]:
            raise errors.invalid_argument(op_name, square_msg)
        if dm[-2] is not None and dr[-2] is not None and dm[-2] != dr[-2]:
            raise errors.invalid_argument(op_name, "Input matrix and rhs are incompatible.")

    return check


def _solve_grad(g, x, matrix, rhs, adjoint=False):
    """TF's: grad_rhs = solve(A^H, g); grad_A = -grad_rhs x^H (-x grad_rhs^H for ``adjoint``)."""
    grad_rhs = solve(matrix, g, adjoint=not adjoint)
    grad_a = -_mm(x, grad_rhs, adjoint_b=True) if adjoint else -_mm(grad_rhs, x, adjoint_b=True)
    return grad_a, grad_rhs


SOLVE = defop("MatrixSolve", silent(_solve_kernel), dtypes=LAPACK, quiet=True,
              check=_same_outer("MatrixSolve", "First input (lhs) must be a square matrix."), grad=_solve_grad)


@tf_export("linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """Solves ``matrix @ X = rhs`` (``adjoint(matrix) @ X = rhs`` if ``adjoint``); batch dims must match.

    >>> solve([[2., 0.], [0., 4.]], [[2.], [2.]]).numpy()
    array([[1. ],
           [0.5]], dtype=float32)
    """
    matrix, rhs = same_dtype("MatrixSolve", matrix, rhs)
    return bind(SOLVE, matrix, rhs, adjoint=bool(adjoint))


def _batch_broadcast(xp, a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:])


def _trsm_each(a, b, lower, adjoint):
    """Substitution without the singularity check (a zero pivot gives inf/nan, as in TF)."""
    from scipy.linalg import blas

    fa = a.reshape((-1,) + a.shape[-2:])
    fb = b.reshape((-1,) + b.shape[-2:])
    trsm = blas.get_blas_funcs("trsm", (fa, fb))
    out = np.empty(fb.shape, trsm.dtype)
    for i in range(fa.shape[0]):
        out[i] = trsm(1.0, fa[i], fb[i], lower=int(lower), trans_a=2 if adjoint else 0)
    return out.reshape(b.shape)


def _trisolve_kernel(xp, matrix, rhs, lower=True, adjoint=False):
    import scipy.linalg

    a, b = _batch_broadcast(np, lapack_in(matrix), lapack_in(rhs))
    if a.size == 0 or b.size == 0:
        return np.zeros(b.shape, matrix.dtype)
    try:
        r = scipy.linalg.solve_triangular(a, b, lower=lower, trans=2 if adjoint else 0, check_finite=False)
    except np.linalg.LinAlgError:
        r = _trsm_each(a, b, lower, adjoint)
    return r.astype(matrix.dtype)


def _trisolve_jax(xp, matrix, rhs, lower=True, adjoint=False):
    import jax.scipy.linalg as jsl

    a, b = _batch_broadcast(xp, lapack_in(matrix), lapack_in(rhs))
    return jsl.solve_triangular(a, b, lower=lower, trans=2 if adjoint else 0).astype(matrix.dtype)


def _trisolve_check(matrix, rhs, lower=True, adjoint=False):
    dm, dr = dims(matrix), dims(rhs)
    if dm is None or dr is None:
        return
    for i, d in enumerate((dm, dr)):
        if len(d) < 2:
            raise errors.invalid_argument("MatrixTriangularSolve", f"In[{i}] ndims must be >= 2: {len(d)}")
    if None not in dm[-2:] and dm[-1] != dm[-2]:
        raise errors.invalid_argument("MatrixTriangularSolve", f"In[0] matrices in the last dimensions must be "
                                                               f"square ({dm[-1]} =/= {dm[-2]})")
    if dm[-1] is not None and dr[-2] is not None and dm[-1] != dr[-2]:
        raise errors.invalid_argument("MatrixTriangularSolve", f"In[0] mismatch In[1] shape: {dm[-1]} vs. {dr[-2]}: "
                                                               f"{errors.shape_str(dm)} {errors.shape_str(dr)} "
                                                               f"{int(lower)} {int(adjoint)}")
    try:
        np.broadcast_shapes(tuple(d or 1 for d in dm[:-2]), tuple(d or 1 for d in dr[:-2]))
    except ValueError:
        raise errors.invalid_argument("MatrixTriangularSolve", f"In[0] and In[1] must have compatible batch "
                                                               f"dimensions: {errors.shape_str(dm)} vs. "
                                                               f"{errors.shape_str(dr)}") from None


def _trisolve_grad(g, x, matrix, rhs, lower=True, adjoint=False):
    """TF's: as MatrixSolve's, with grad_A kept to the triangle the kernel reads, summed over broadcast batches."""
    grad_rhs = triangular_solve(matrix, g, lower=lower, adjoint=not adjoint)
    grad_a = -_mm(x, grad_rhs, adjoint_b=True) if adjoint else -_mm(grad_rhs, x, adjoint_b=True)
    grad_a = band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1)
    return _sum_to_batch(grad_a, matrix), _sum_to_batch(grad_rhs, rhs)


TRISOLVE = defop("MatrixTriangularSolve", silent(_trisolve_kernel), jax_impl=_trisolve_jax, dtypes=TRISOLVE_TYPES,
                 check=_trisolve_check, quiet=True, grad=_trisolve_grad)


@tf_export("linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves ``matrix @ X = rhs`` for triangular ``matrix`` (only its ``lower``/upper triangle is read);
    batch dimensions broadcast.

    >>> triangular_solve([[2., 0.], [1., 1.]], [[2.], [2.]]).numpy()
    array([[1.],
           [1.]], dtype=float32)
    """
    matrix, rhs = same_dtype("MatrixTriangularSolve", matrix, rhs)
    return bind(TRISOLVE, matrix, rhs, lower=bool(lower), adjoint=bool(adjoint))


def _lstsq_kernel(xp, matrix, rhs):
    """Minimum-norm least squares through the SVD (TF's ``fast=False`` path; rank-deficient inputs allowed)."""
    a, b = lapack_in(matrix), lapack_in(rhs)
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return xp.zeros(a.shape[:-2] + (n, b.shape[-1]), matrix.dtype)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    keep = s > np.finfo(s.dtype).eps * max(m, n) * s[..., :1]
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(a.dtype)
    x = xp.matmul(_ct(xp, vh), s_inv[..., :, None] * xp.matmul(_ct(xp, u), b))
    return x.astype(matrix.dtype)


def _pinv_of(a):
    """The pseudo-inverse with the kernel's cutoff, in ops (complex allowed, unlike ``tf.linalg.pinv``)."""
    m, n = a.shape[-2], a.shape[-1]
    s, u, v = svd(a)
    cutoff = float(np.finfo(a.dtype.real_dtype.as_numpy_dtype).eps) * max(m, n) * s[..., :1]
    s_inv = T.math.divide_no_nan(T.cast(T.greater(s, cutoff), s.dtype), s)
    return _mm(v * T.cast(s_inv, a.dtype)[..., None, :], u, adjoint_b=True)


def _lstsq_grad(g, x, a, b):
    """Gradient of the minimum-norm solution x = A^+ b (for perturbations that keep A's rank).

    TF has no gradient for ``fast=False`` (it raises); this is the derivative of the pseudo-inverse
    (Golub & Pereyra): grad_b = A^+^H g, grad_A = -grad_b x^H + r (A^+ grad_b)^H + A^+^H x g^H (I - A^+ A),
    with r = b - A x.  For full-rank A it equals TF's fast-path formula with ``l2_regularizer=0``."""
    m, n = a.shape[-2], a.shape[-1]
    if m == 0 or n == 0:
        return T.zeros_like(a), T.zeros_like(b)
    ap = _pinv_of(a)
    grad_b = _mm(ap, g, adjoint_a=True)
    resid = b - _mm(a, x)
    xg = _mm(x, g, adjoint_b=True)
    grad_a = (-_mm(grad_b, x, adjoint_b=True) + _mm(resid, _mm(ap, grad_b), adjoint_b=True)
              + _mm(ap, xg - _mm(_mm(xg, ap), a), adjoint_a=True))
    return grad_a, grad_b


LSTSQ = defop("MatrixSolveLs", silent(_lstsq_kernel), dtypes=LAPACK, check=_same_outer("MatrixSolveLs", None),
              grad=_lstsq_grad)


def _add_to_diagonal(m, value):
    from tensorlet._src.ops.math_binary import add, cast

    return set_diag(m, add(diag_part(m), cast(t(value), m.dtype)))


@tf_export("linalg.lstsq")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions of ``matrix @ X = rhs``.  ``fast`` solves the (regularized) normal equations by
    Cholesky; ``fast=False`` gives the minimum-norm solution (and ignores ``l2_regularizer``, as TF does).

    >>> lstsq([[1., 0.], [0., 1.], [0., 0.]], [[1.], [2.], [3.]]).numpy()
    array([[1.],
           [2.]], dtype=float32)
    """
    from tensorlet._src.ops.matmul import matmul

    matrix, rhs = same_dtype("MatrixSolveLs", matrix, rhs)
    if not fast:
        return bind(LSTSQ, matrix, rhs)
    d = dims(matrix)
    if d is not None and len(d) < 2:
        raise errors.invalid_argument("MatrixSolveLs", f"Input tensor 0 must have rank >= 2, got {len(d)}")
    l2 = static(l2_regularizer)
    regularize = not (isinstance(l2, (int, float)) and l2 == 0)
    if d is None or None in d[-2:] or d[-2] >= d[-1]:  # overdetermined: (A^H A + l2 I) X = A^H rhs
        gram = matmul(matrix, matrix, adjoint_a=True)
        if regularize:
            gram = _add_to_diagonal(gram, l2_regularizer)
        return cholesky_solve(cholesky(gram), matmul(matrix, rhs, adjoint_a=True))
    gram = matmul(matrix, matrix, adjoint_b=True)  # underdetermined: X = A^H (A A^H + l2 I)^-1 rhs
    if regularize:
        gram = _add_to_diagonal(gram, l2_regularizer)
    return matmul(matrix, cholesky_solve(cholesky(gram), rhs), adjoint_a=True)


# --- matrix functions ---------------------------------------------------------------------------

def _expm_kernel(xp, x):
    import scipy.linalg

    if x.size == 0:
        return x
    return scipy.linalg.expm(lapack_in(x)).astype(x.dtype)


def _expm_jax(xp, x):
    import jax.scipy.linalg as jsl

    if x.size == 0:
        return x
    return jsl.expm(lapack_in(x)).astype(x.dtype)


def _expm_grad(g, ans, a):
    """The adjoint Frechet derivative: the upper-right block of expm([[A^H, g], [0, A^H]])."""
    n = a.shape[-1]
    ah = adjoint(a)
    block = T.concat([T.concat([ah, g], axis=-1), T.concat([T.zeros_like(ah), ah], axis=-1)], axis=-2)
    return bind(EXPM, block)[..., :n, n:]


EXPM = defop("MatrixExponential", silent(_expm_kernel), jax_impl=_expm_jax, dtypes=LAPACK,
             check=matrix_check("MatrixExponential"), quiet=True, grad=_expm_grad)


@tf_export("linalg.expm")
def expm(input, name=None):  # noqa: A002 - TF's name
    """Matrix exponential of each innermost square matrix.

    >>> expm([[0., 0.], [0., 0.]]).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    x = t(input)
    if x.dtype not in LAPACK:
        raise ValueError(f"tf.linalg.expm does not support matrices of type {x.dtype!r}")
    return bind(EXPM, x)


@tf_export("linalg.pinv")
def pinv(a, rcond=None, validate_args=False, name=None):
    """Moore-Penrose pseudo-inverse via the SVD; singular values below ``rcond * max(s)`` are dropped
    (default ``rcond``: ``10 * max(rows, cols) * eps``).

    >>> pinv([[2., 0.], [0., 0.]]).numpy()
    array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    from tensorlet._src.ops.math_binary import cast, divide_no_nan, greater, multiply
    from tensorlet._src.ops.matmul import matmul

    a = t(a)
    if not a.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    d = dims(a)
    if d is not None and len(d) < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {len(d)}).")
    if rcond is None:
        rcond = 10.0 * max(d[-2] or 0, d[-1] or 0) * float(np.finfo(a.dtype.as_numpy_dtype).eps)
    rcond = t(rcond, dtype=a.dtype)
    s, u, v = svd(a)
    cutoff = multiply(rcond, s[..., :1])  # s is sorted descending: s[..., 0] is the largest
    s_inv = divide_no_nan(cast(greater(s, cutoff), a.dtype), s)
    return matmul(multiply(v, s_inv[..., None, :]), u, adjoint_b=True)
