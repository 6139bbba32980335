"""``tf.linalg`` decompositions and solvers: inv, det, slogdet, cholesky, qr, svd, eig(h), solve, triangular_solve,
lstsq, expm, and the composites logdet, cholesky_solve, pinv.

Kernels use ``xp.linalg`` where NumPy and jax.numpy agree.  Where they differ, ``jax_impl`` gives the lowering:
TF's Cholesky and SelfAdjointEig read only the lower triangle (jax symmetrizes by default), and triangular solves
and ``expm`` come from scipy / jax.scipy.  float16 is computed in float32 (LAPACK has no half precision).
Gradients (TF's formulas) live in ``linalg_grad``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.linalg import matrix_check, silent
from tensorlet._src.ops.linalg_grad import (
    chol_grad,
    eig_grad,
    eigh_grad,
    expm_grad,
    inv_grad,
    lstsq_grad,
    qr_grad,
    solve_grad,
    svd_grad,
    trisolve_grad,
)
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


INV = defop("MatrixInverse", silent(_inv_kernel), dtypes=LAPACK, check=matrix_check("MatrixInverse"), quiet=True,
            grad=inv_grad)
# TF's g * det * A^-H (no conjugate on det, as TF); a singular matrix raises from the inverse, as in TF.
DET = defop("MatrixDeterminant", silent(lambda xp, x: xp.linalg.det(lapack_in(x)).astype(x.dtype)),
            dtypes=DET_TYPES, check=matrix_check("MatrixDeterminant"), quiet=True,
            grad=lambda g, ans, x: bcast_mat(g * ans, x.shape) * inv(x, adjoint=True))


def _slogdet_kernel(xp, x):
    sign, logabs = xp.linalg.slogdet(lapack_in(x))
    return sign.astype(x.dtype), logabs.astype(x.dtype)


SLOGDET = defop("LogMatrixDeterminant", silent(_slogdet_kernel), n_out=2, dtypes=DET_TYPES,
                check=matrix_check("LogMatrixDeterminant"), quiet=True,  # sign: no gradient (TF)
                grad=lambda g, ans, x: bcast_mat(g[1], x.shape) * inv(x, adjoint=True))


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


CHOLESKY = defop("Cholesky", silent(_chol_kernel), jax_impl=_chol_jax, dtypes=LAPACK, check=matrix_check("Cholesky"),
                 quiet=True, grad=chol_grad)


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


QR = defop("Qr", silent(_qr_kernel), n_out=2, dtypes=LAPACK, check=matrix_check("Qr", square=False), grad=qr_grad)


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


SVD = defop("Svd", silent(_svd_kernel), n_out=None, dtypes=LAPACK, check=matrix_check("Svd", square=False),
            grad=svd_grad)


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


EIGH = defop("SelfAdjointEigV2", silent(_eigh_kernel), jax_impl=_eigh_jax, n_out=None, dtypes=LAPACK,
             check=matrix_check("SelfAdjointEigV2"), grad=eigh_grad)


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


EIG = defop("Eig", silent(_eig_kernel), n_out=None, dtypes=EIG_TYPES, check=matrix_check("Eig"), grad=eig_grad)


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


SOLVE = defop("MatrixSolve", silent(_solve_kernel), dtypes=LAPACK, quiet=True,
              check=_same_outer("MatrixSolve", "First input (lhs) must be a square matrix."), grad=solve_grad)


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


TRISOLVE = defop("MatrixTriangularSolve", silent(_trisolve_kernel), jax_impl=_trisolve_jax, dtypes=TRISOLVE_TYPES,
                 check=_trisolve_check, quiet=True, grad=trisolve_grad)


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


LSTSQ = defop("MatrixSolveLs", silent(_lstsq_kernel), dtypes=LAPACK, check=_same_outer("MatrixSolveLs", None),
              grad=lstsq_grad)


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
    l2_zero = bool(np.all(np.asarray(static(l2_regularizer)) == 0))
    if matrix.dtype == D.complex128 and not l2_zero:
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due "
                                  "to poor accuracy.")
    if not fast:
        return bind(LSTSQ, matrix, rhs)
    d = dims(matrix)
    if d is not None and len(d) < 2:
        raise errors.invalid_argument("MatrixSolveLs", f"Input tensor 0 must have rank >= 2, got {len(d)}")
    regularize = not l2_zero
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


EXPM = defop("MatrixExponential", silent(_expm_kernel), jax_impl=_expm_jax, dtypes=LAPACK,
             check=matrix_check("MatrixExponential"), quiet=True, grad=expm_grad)


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


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops.linalg import diag_part, dims, lapack_in, set_diag  # noqa: E402
from tensorlet._src.ops.linalg_grad import bcast_mat  # noqa: E402
