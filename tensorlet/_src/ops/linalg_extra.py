"""``tf.linalg``: LU and its solvers, matrix rank, square root and logarithm, tridiagonal and banded systems,
``eigh_tridiagonal``.

``Lu``, ``MatrixSquareRoot`` and ``MatrixLogarithm`` are primitives (LAPACK/scipy eagerly, jax.lax.linalg /
jax.scipy.linalg compiled); the rest are composites of existing ops, so their gradients follow.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.linalg import lapack_in, matrix_check, silent
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop, tf_export

Lu = namedtuple("Lu", ["lu", "p"])
LU_TYPES = (D.float64, D.float32, D.float16, D.complex64, D.complex128)


# --- LU ---------------------------------------------------------------------------------------

def _lu_np(xp, x, output_idx_type=np.int32):
    import scipy.linalg

    a = lapack_in(x)
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    lus = np.empty_like(flat)
    perms = np.empty((flat.shape[0], n), np.int64)
    for b in range(flat.shape[0]):
        lu, piv = scipy.linalg.lu_factor(flat[b], check_finite=False)
        perm = np.arange(n)
        for i, p in enumerate(piv):  # row swaps -> the permutation with a[perm] = L U
            perm[i], perm[p] = perm[p], perm[i]
        lus[b], perms[b] = lu, perm
    return lus.reshape(a.shape).astype(x.dtype), perms.reshape(a.shape[:-1]).astype(output_idx_type)


def _lu_jax(xp, x, output_idx_type=np.int32):
    import jax

    a = x.astype(np.float32) if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else x
    lu, _, perm = jax.lax.linalg.lu(a)
    return lu.astype(x.dtype), perm.astype(output_idx_type)


def _unit_lower(lu):
    return linalg.set_diag(linalg.band_part(lu, -1, 0), creation.ones_like(linalg.diag_part(lu)))


def _lu_grad(g, ans, x, output_idx_type=np.int32):
    # square LU (as TF): with P A = L U, dA = P^T L^-H [tril_strict(L^H dL) + triu(dU U^H)] U^-H
    lu, perm = ans
    glu = g[0]
    lower = _unit_lower(lu)
    upper = linalg.band_part(lu, 0, -1)
    gl = linalg.band_part(glu, -1, 0) - linalg.band_part(glu, 0, 0)
    gu = linalg.band_part(glu, 0, -1)
    phi = linalg.band_part(matmul.matmul(lower, gl, adjoint_a=True), -1, 0) - linalg.band_part(
        matmul.matmul(lower, gl, adjoint_a=True), 0, 0) + linalg.band_part(
        matmul.matmul(gu, upper, adjoint_b=True), 0, -1)
    left = linalg_decomp.triangular_solve(lower, phi, lower=True, adjoint=True)
    gp = linalg.adjoint(linalg_decomp.triangular_solve(upper, linalg.adjoint(left), lower=False))
    inv_perm = array_select.invert_permutation(perm) if perm.shape.rank == 1 else _batched_invert(perm)
    return gather_scatter.gather(gp, inv_perm, axis=-2, batch_dims=perm.shape.rank - 1)


def _batched_invert(perm):
    return sort_ops.argsort(perm, axis=-1)


LU = defop("Lu", silent(_lu_np), jax_impl=_lu_jax, n_out=2, dtypes=LU_TYPES, check=matrix_check("Lu"),
           quiet=True, grad=_lu_grad)


@tf_export("linalg.lu")
def lu(input, output_idx_type=D.int32, name=None):  # noqa: A002 - TF's name
    """LU decomposition with partial pivoting: ``(lu, p)`` with ``input[p] = L @ U`` (unit lower ``L``).

    >>> r = lu([[1., 2.], [3., 4.]])
    >>> r.p.numpy()
    array([1, 0], dtype=int32)
    """
    return Lu(*bind(LU, t(input), output_idx_type=D.as_dtype(output_idx_type)._np))


def _permute_rows(x, perm):
    return gather_scatter.gather(x, perm, axis=-2, batch_dims=perm.shape.rank - 1)


@tf_export("linalg.lu_reconstruct")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix ``A`` whose LU decomposition is ``(lower_upper, perm)``.

    >>> lu_reconstruct(*lu([[1., 2.], [3., 4.]])).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    lower_upper, perm = t(lower_upper), t(perm)
    x = matmul.matmul(_unit_lower(lower_upper), linalg.band_part(lower_upper, 0, -1))
    inv = array_select.invert_permutation(perm) if perm.shape.rank == 1 else _batched_invert(perm)
    return _permute_rows(x, inv)


@tf_export("linalg.lu_solve")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves ``A X = rhs`` given ``A``'s LU decomposition ``(lower_upper, perm)``.

    >>> lu_solve(*lu([[2., 0.], [0., 4.]]), [[2.], [8.]]).numpy()
    array([[1.],
           [2.]], dtype=float32)
    """
    lower_upper, perm = t(lower_upper), t(perm)
    rhs = t(rhs, dtype=lower_upper.dtype)
    if perm.shape.rank > 1 and tuple(rhs.shape[:-2]) != tuple(perm.shape[:-1]):
        shape = tuple(perm.shape[:-1]) + tuple(rhs.shape[-2:])
        rhs = array_shape.broadcast_to(rhs, shape)
    permuted = _permute_rows(rhs, perm)
    y = linalg_decomp.triangular_solve(_unit_lower(lower_upper), permuted, lower=True)
    return linalg_decomp.triangular_solve(linalg.band_part(lower_upper, 0, -1), y, lower=False)


@tf_export("linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of ``A`` from its LU decomposition.

    >>> lu_matrix_inverse(*lu([[2., 0.], [0., 4.]])).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    lower_upper = t(lower_upper)
    n = lower_upper.shape[-1]
    eye = creation.eye(n, batch_shape=list(lower_upper.shape[:-2]), dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, eye)


# --- rank, square root, logarithm -------------------------------------------------------------

@tf_export("linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """Number of singular values above ``tol`` (default ``eps * max(rows, cols) * max(s)``), as int32.

    >>> int(matrix_rank([[1., 2.], [2., 4.]]))
    1
    """
    a = t(a)
    s = linalg_decomp.svd(a, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(a.dtype.real_dtype.as_numpy_dtype).eps)
        tol = eps * float(max(a.shape[-2], a.shape[-1])) * reduce.reduce_max(s, axis=-1, keepdims=True)
    else:
        tol = t(tol, dtype=s.dtype)
    return reduce.reduce_sum(math_binary.cast(math_binary.greater(s, tol), D.int32), axis=-1)


def _batched(fn, a, out_dtype=None):
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    out = np.stack([fn(m) for m in flat]) if flat.shape[0] else np.zeros(flat.shape, a.dtype)
    return out.reshape(a.shape).astype(out_dtype or a.dtype)


def _sqrtm_np(xp, x):
    import scipy.linalg

    a = lapack_in(x)
    r = _batched(lambda m: scipy.linalg.sqrtm(m), a)
    if x.dtype.kind == "f":
        r = r.real if np.iscomplexobj(r) else r
    return np.asarray(r).astype(x.dtype)


def _sqrtm_jax(xp, x):
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    a = x.astype(jnp.float32) if x.dtype.itemsize == 2 else x
    fn = jsl.sqrtm
    for _ in range(a.ndim - 2):
        fn = jax.vmap(fn)
    r = fn(a)
    return (r.real if x.dtype.kind == "f" else r).astype(x.dtype)


def _kron_last2(a, b):
    """Batched Kronecker product of the innermost matrices."""
    n, m = a.shape[-1], b.shape[-1]
    lead = list(a.shape[:-2])
    k = array_shape.expand_dims(array_shape.expand_dims(a, -1), -3) * array_shape.expand_dims(
        array_shape.expand_dims(b, -3), -2)  # [..., n, m, n, m]: a[i, j] b[k, l] at [i, k, j, l]
    return array_shape.reshape(k, lead + [n * m, n * m])


def _sqrtm_grad(g, ans, x):
    # S S = A: dA = S dS + dS S, so the cotangent solves S^H X + X S^H = g (row-major vec, Kronecker form)
    n = x.shape[-1]
    sh = linalg.adjoint(ans)
    eye = creation.eye(n, dtype=x.dtype)
    k = _kron_last2(sh, eye) + _kron_last2(eye, linalg.matrix_transpose(sh))
    lead = list(x.shape[:-2])
    vec = array_shape.reshape(g, lead + [n * n, 1])
    return array_shape.reshape(linalg_decomp.solve(k, vec), lead + [n, n])


SQRTM = defop("MatrixSquareRoot", silent(_sqrtm_np), jax_impl=_sqrtm_jax, dtypes=LU_TYPES,
              check=matrix_check("MatrixSquareRoot"), quiet=True, grad=_sqrtm_grad)


@tf_export("linalg.sqrtm", "matrix_square_root")
def sqrtm(input, name=None):  # noqa: A002 - TF's name
    """The principal square root of each innermost square matrix.

    >>> sqrtm([[4., 0.], [0., 9.]]).numpy()
    array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    return bind(SQRTM, t(input))


def _logm_np(xp, x):
    import warnings

    import scipy.linalg

    with warnings.catch_warnings():  # scipy's accuracy estimate warns; TF's kernel is silent
        warnings.simplefilter("ignore", RuntimeWarning)
        return _batched(lambda m: scipy.linalg.logm(m), x)


def _logm_jax(xp, x):
    import jax

    return jax.pure_callback(lambda a: _logm_np(np, np.asarray(a)), jax.ShapeDtypeStruct(x.shape, x.dtype), x)


LOGM = defop("MatrixLogarithm", silent(_logm_np), jax_impl=_logm_jax, dtypes=(D.complex64, D.complex128),
             check=matrix_check("MatrixLogarithm"), quiet=True, grad=NO_GRADIENT)  # TF registers none


@tf_export("linalg.logm")
def logm(input, name=None):  # noqa: A002 - TF's name
    """The principal matrix logarithm of complex square matrices.

    >>> logm(tf.constant([[1., 0.], [0., 1.]], tf.complex64)).numpy().real
    array([[0., 0.],
           [0., 0.]], dtype=float32)
    """
    return bind(LOGM, t(input))


# --- tridiagonal and banded systems -----------------------------------------------------------

def _shift_down(x):
    """x[..., i, :] -> row i + 1 (a zero row first)."""
    return array_blocks.pad(x, [[0, 0]] * (x.shape.rank - 2) + [[1, 0], [0, 0]])[..., :-1, :]


def _shift_up(x):
    return array_blocks.pad(x, [[0, 0]] * (x.shape.rank - 2) + [[0, 1], [0, 0]])[..., 1:, :]


@tf_export("linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``T @ rhs`` for the tridiagonal ``T`` given by its diagonals (``compact`` [..., 3, M], ``sequence`` of
    three [..., M], or a full ``matrix``).  The superdiagonal's last and subdiagonal's first entries are ignored.

    >>> tridiagonal_matmul(tf.constant([[1., 1., 0.], [2., 2., 2.], [0., 1., 1.]]), tf.ones([3, 1])).numpy()
    array([[3.],
           [4.],
           [3.]], dtype=float32)
    """
    sup, main, sub = _diagonals(diagonals, diagonals_format)
    rhs = t(rhs, dtype=main.dtype)
    col = lambda v: array_shape.expand_dims(v, -1)  # noqa: E731
    return col(main) * rhs + col(sup) * _shift_up(rhs) + col(sub) * _shift_down(rhs)


def _diagonals(diagonals, fmt):
    if fmt == "compact":
        d = t(diagonals)
        if d.shape.rank is not None and (d.shape.rank < 2 or d.shape[-2] != 3):
            raise ValueError(f"Expected last two dimensions of diagonals to be [3, M], got {d.shape}")
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if fmt == "sequence":
        sup, main, sub = diagonals
        main = t(main)
        return t(sup, dtype=main.dtype), main, t(sub, dtype=main.dtype)
    if fmt == "matrix":
        m = t(diagonals)
        n = m.shape[-1]
        sup = array_blocks.pad(linalg.diag_part(m, k=1), [[0, 0]] * (m.shape.rank - 2) + [[0, 1]])
        sub = array_blocks.pad(linalg.diag_part(m, k=-1), [[0, 0]] * (m.shape.rank - 2) + [[1, 0]])
        del n
        return sup, linalg.diag_part(m), sub
    raise ValueError(f"Unrecognized diagonals_format: {fmt}")


def _tridiag_dense(sup, main, sub):
    n = main.shape[-1]
    eye = creation.eye(n, batch_shape=list(main.shape[:-1]), dtype=main.dtype)
    return tridiagonal_matmul((sup, main, sub), eye, diagonals_format="sequence")


@tf_export("linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """Solves ``T X = rhs`` for the tridiagonal ``T`` (formats as in ``tridiagonal_matmul``).

    >>> tridiagonal_solve(tf.constant([[1., 1., 0.], [2., 2., 2.], [0., 1., 1.]]), [[3.], [4.], [3.]]).numpy()
    array([[1.],
           [1.],
           [1.]], dtype=float32)
    """
    sup, main, sub = _diagonals(diagonals, diagonals_format)
    rhs = t(rhs, dtype=main.dtype)
    vec = rhs.shape.rank == main.shape.rank  # rhs [..., M]
    if transpose_rhs:
        rhs = linalg.matrix_transpose(rhs)
    if conjugate_rhs:
        rhs = math_extra_conj(rhs)
    if vec and not transpose_rhs:
        rhs = array_shape.expand_dims(rhs, -1)
    m = _tridiag_dense(sup, main, sub)
    try:
        x = linalg_decomp.solve(m, rhs)
    except errors.InvalidArgumentError:  # TF's pivoting kernel gives nan for a singular system
        x = rhs * float("nan")
    return x[..., 0] if vec and not transpose_rhs else x


def math_extra_conj(x):
    return math_unary.conj(x) if x.dtype.is_complex else x


@tf_export("linalg.banded_triangular_solve")
def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """Solves ``A X = rhs`` for the banded triangular ``A`` stored as its ``K`` diagonals (``[..., K, M]``,
    LEFT_RIGHT alignment: the diagonal first when ``lower``, last otherwise).

    >>> banded_triangular_solve([[1., 2.], [0., 1.]], [[1.], [3.]]).numpy()
    array([[1.],
           [1.]], dtype=float32)
    """
    bands = t(bands)
    rhs = t(rhs, dtype=bands.dtype)
    k, m = bands.shape[-2], bands.shape[-1]
    rng = (-(k - 1), 0) if lower else (0, k - 1)
    dense = linalg.diag(bands, k=rng, num_rows=m, num_cols=m, align="LEFT_RIGHT") if k > 1 else linalg.diag(
        bands[..., 0, :])
    return linalg_decomp.triangular_solve(dense, rhs, lower=lower, adjoint=adjoint)


@tf_export("linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """Eigenvalues (ascending; and eigenvectors unless ``eigvals_only``) of the Hermitian tridiagonal matrix with
    diagonal ``alpha`` and off-diagonal ``beta``; ``select`` 'a' (all), 'v' (values in ``select_range``) or
    'i' (indices ``select_range[0]..select_range[1]``).

    >>> eigh_tridiagonal([2., 2.], [1.]).numpy()
    array([1., 3.], dtype=float32)
    """
    alpha = t(alpha)
    beta = t(beta, dtype=alpha.dtype)
    if alpha.shape.rank != 1:
        raise ValueError(f"alpha must be a vector, got shape {alpha.shape}")
    n = alpha.shape[0]
    if beta.shape[0] != n - 1:
        raise ValueError(f"beta must have length n - 1 = {n - 1}, got {beta.shape[0]}")
    if select not in ("a", "v", "i"):
        raise ValueError(f"Invalid select: {select!r}, expected 'a', 'v' or 'i'")
    zero = creation.zeros([1], alpha.dtype)
    sup = array_blocks.concat([math_extra_conj(beta), zero], 0)
    sub = array_blocks.concat([zero, beta], 0)
    m = _tridiag_dense(sup, alpha, sub)
    if eigvals_only:
        w, v = linalg_decomp.eigvalsh(m), None
    else:
        w, v = linalg_decomp.eigh(m)
    if select == "i":
        lo, hi = (int(s) for s in select_range)
        w = w[lo:hi + 1]
        v = v[:, lo:hi + 1] if v is not None else None
    elif select == "v":
        lo, hi = (float(s) for s in select_range)
        wn = np.asarray(w.numpy())
        keep = np.nonzero((wn > lo) & (wn <= hi))[0]
        w = gather_scatter.gather(w, keep)
        v = gather_scatter.gather(v, keep, axis=1) if v is not None else None
    return w if eigvals_only else (w, v)


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    array_shape,
    creation,
    gather_scatter,
    linalg,
    linalg_decomp,
    math_binary,
    math_unary,
    matmul,
    reduce,
)
from tensorlet._src.ops import scan_sort as sort_ops  # noqa: E402
