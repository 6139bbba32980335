"""``keras.ops.linalg`` (also ``keras.ops.*``): decompositions, solves, norms and ``jvp`` over tensorlet ops.

>>> float(det(np.eye(2, dtype="float32") * 3))
9.0
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.autodiff.forward import ForwardAccumulator
from tensorlet._src.keras.backend import floatx
from tensorlet._src.keras.ops._dtypes import cast, convert, float_of
from tensorlet._src.keras.ops.numpy_elementwise import export
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import linalg_decomp as ld
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import eye, zeros_like
from tensorlet._src.ops.linalg import adjoint
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.util import nest


def la_export(name):
    return export(name, "linalg")


def _f(x):
    x = convert(x)
    return cast(x, float_of(x.dtype)) if not (x.dtype.is_floating or x.dtype.is_complex) else x


@la_export("cholesky")
def cholesky(x, upper=False):
    """The Cholesky factor (lower, or upper with ``upper=True``)."""
    c = ld.cholesky(_f(x))
    return adjoint(c) if upper else c


@la_export("cholesky_inverse")
def cholesky_inverse(x, upper=False):
    """The inverse of ``A`` from its Cholesky factor."""
    x = _f(x)
    ident = eye(x.shape[-1], dtype=x.dtype)
    inv = ld.triangular_solve(x, ident, lower=not upper)
    if upper:
        return matmul(inv, inv, transpose_b=True)
    return matmul(inv, inv, transpose_a=True)


@la_export("det")
def det(x):
    """The determinant of square matrices."""
    return ld.det(_f(x))


@la_export("inv")
def inv(x):
    """The matrix inverse."""
    return ld.inv(_f(x))


@la_export("eig")
def eig(x):
    """Eigenvalues and eigenvectors (complex)."""
    return ld.eig(_f(x))


@la_export("eigh")
def eigh(x):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices."""
    return ld.eigh(_f(x))


@la_export("solve")
def solve(a, b):
    """``x`` with ``a @ x == b``."""
    a, b = _f(a), _f(b)
    if b.shape.rank == a.shape.rank - 1:
        return array_shape.squeeze(ld.solve(a, array_shape.expand_dims(b, -1)), axis=[-1])
    return ld.solve(a, b)


@la_export("solve_triangular")
def solve_triangular(a, b, lower=False):
    """``x`` with ``a @ x == b`` for triangular ``a``."""
    a, b = _f(a), _f(b)
    b = cast(b, a.dtype)
    if b.shape.rank == a.shape.rank - 1:
        return array_shape.squeeze(ld.triangular_solve(a, array_shape.expand_dims(b, -1), lower=lower), axis=[-1])
    return ld.triangular_solve(a, b, lower=lower)


@export("logdet")
def logdet(x):
    """``log(det(x))`` of Hermitian positive definite matrices."""
    return ld.logdet(_f(x))


@export("slogdet", "numpy")
def slogdet(x):
    """``(sign, log|det|)``."""
    return tuple(ld.slogdet(_f(x)))


@la_export("svd")
def svd(x, full_matrices=True, compute_uv=True):
    """``(u, s, vh)``, or just ``s`` when ``compute_uv`` is False."""
    x = _f(x)
    if not compute_uv:
        return ld.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = ld.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, adjoint(v)


@la_export("qr")
def qr(x, mode="reduced"):
    """``(q, r)``; ``mode`` is ``reduced`` or ``complete``."""
    if mode not in ("reduced", "complete"):
        raise ValueError("`mode` argument value not supported. Expected one of {'reduced', 'complete'}. "
                         f"Received: mode={mode}")
    return tuple(ld.qr(_f(x), full_matrices=mode == "complete"))


@la_export("pinv")
def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse."""
    return ld.pinv(_f(x), rcond=rcond)


@la_export("matrix_rank")
def matrix_rank(x, tol=None):
    """The number of singular values above ``tol`` (default: ``max(s) * max(m, n) * eps``), int32."""
    x = _f(x)
    s = ld.svd(x, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(x.dtype.as_numpy_dtype).eps)
        tol = mb.multiply(rd.reduce_max(s, axis=-1, keepdims=True), mb.cast(eps * max(x.shape[-2:]), s.dtype))
    else:
        tol = mb.cast(tol, s.dtype)
    return rd.reduce_sum(cast(mb.greater(s, tol), "int32"), axis=-1)


@la_export("lstsq")
def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b`` (via the SVD, NumPy's ``rcond``)."""
    a, b = _f(a), _f(b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vec = b.shape.rank == 1
    if vec:
        b = b[:, None]
    m, n = a.shape
    eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
    rcond = eps * max(n, m) if rcond is None else rcond
    s, u, v = ld.svd(a, full_matrices=False, compute_uv=True)
    keep = mb.greater_equal(s, mb.multiply(mb.cast(rcond, s.dtype), s[0]))
    safe = where(keep, s, mb.add(zeros_like(s), mb.cast(1, s.dtype)))
    inv_s = where(keep, mb.divide(mb.cast(1, s.dtype), safe), zeros_like(s))
    ub = matmul(u, b, transpose_a=True)
    x = matmul(v, mb.multiply(inv_s[:, None], ub))
    return x[:, 0] if vec else x


@la_export("lu_factor")
def lu_factor(x):
    """``(lu, pivots)``: the packed LU factors with partial pivoting and NumPy/SciPy-style row pivots."""
    a = _f(x)
    n = a.shape[-1]
    perm = list(range(n))
    rows = [a[i] for i in range(n)]
    piv = []
    for k in range(n):
        col = np.abs(np.asarray(array_blocks.stack([rows[i][k] for i in range(k, n)], 0)))
        p = k + int(np.argmax(col))
        piv.append(p)
        rows[k], rows[p] = rows[p], rows[k]
        perm[k], perm[p] = perm[p], perm[k]
        pivot = rows[k][k]
        for i in range(k + 1, n):
            f = mb.divide(rows[i][k], pivot)
            new = mb.subtract(rows[i], mb.multiply(f, rows[k]))
            mask = np.zeros(n, bool)
            mask[k] = True
            rows[i] = where(convert(mask), mb.add(zeros_like(new), f), new)
    return array_blocks.stack(rows, 0), convert(np.argsort(perm).astype(np.int32))


@la_export("norm")
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - Keras's name
    """Vector or matrix norms (NumPy's ``ord`` values)."""
    x = convert(x)
    nd = x.shape.rank
    if axis is None:
        axis = tuple(range(nd))
    elif isinstance(axis, int):
        axis = (axis,)
    axis = tuple(axis)
    x = cast(x, floatx() if x.dtype.name == "int64" else float_of(x.dtype))
    ax = axis[0] if len(axis) == 1 else axis
    if len(axis) == 1:
        if ord is None or ord == 2:
            return mu.sqrt(rd.reduce_sum(mu.real(mb.multiply(x, mu.conj(x))) if x.dtype.is_complex else
                                         mu.square(x), axis=ax, keepdims=keepdims))
        if ord == float("inf"):
            return rd.reduce_max(mu.abs(x), axis=ax, keepdims=keepdims)
        if ord == float("-inf"):
            return rd.reduce_min(mu.abs(x), axis=ax, keepdims=keepdims)
        if ord == 0:
            return rd.reduce_sum(cast(mb.not_equal(x, mb.cast(0, x.dtype)), x.dtype), axis=ax, keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
        o = mb.cast(ord, x.dtype)
        return mb.pow(rd.reduce_sum(mb.pow(mu.abs(x), o), axis=ax, keepdims=keepdims), mb.divide(mb.cast(1, o.dtype),
                                                                                               o))
    if len(axis) != 2:
        raise ValueError(f"Improper number of dimensions to norm. Received: axis={axis}")
    r, c = (a % nd for a in axis)
    if ord in (None, "fro"):
        return mu.sqrt(rd.reduce_sum(mu.square(mu.abs(x)), axis=(r, c), keepdims=keepdims))
    if ord in (1, -1):
        s = rd.reduce_sum(mu.abs(x), axis=r, keepdims=True)
        red = rd.reduce_max if ord == 1 else rd.reduce_min
        out = red(s, axis=c, keepdims=True)
    elif ord in (float("inf"), float("-inf")):
        s = rd.reduce_sum(mu.abs(x), axis=c, keepdims=True)
        red = rd.reduce_max if ord > 0 else rd.reduce_min
        out = red(s, axis=r, keepdims=True)
    elif ord in ("nuc", 2, -2):
        keep = [i for i in range(nd) if i not in (r, c)]
        xt = array_shape.transpose(x, keep + [r, c])
        sv = ld.svd(xt, compute_uv=False)
        out = rd.reduce_sum(sv, axis=-1) if ord == "nuc" else (rd.reduce_max(sv, axis=-1) if ord == 2 else
                                                                rd.reduce_min(sv, axis=-1))
        if keepdims:
            for a in sorted((r, c)):
                out = array_shape.expand_dims(out, a)
        return out
    else:
        raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")
    if not keepdims:
        out = array_shape.squeeze(out, axis=[r, c])
    return out


@la_export("jvp")
def jvp(fun, primals, tangents, has_aux=False):
    """``(primals_out, tangents_out[, aux])``: the Jacobian-vector product of ``fun`` at ``primals``."""
    pf = [convert(p) for p in nest.flatten(primals)]
    tf_ = [cast(t, p.dtype) for t, p in zip(nest.flatten(tangents), pf)]
    primals = nest.pack_sequence_as(primals, pf)
    with ForwardAccumulator(pf, tf_) as acc:
        if has_aux:
            out, aux = fun(*primals)
        else:
            out = fun(*primals)
        tout = nest.pack_sequence_as(out, [acc.jvp(o) for o in nest.flatten(out)])
    if has_aux:
        return out, tout, aux
    return out, tout

