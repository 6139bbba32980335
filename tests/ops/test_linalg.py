"""tf.linalg against NumPy/SciPy: structure ops, norms, decompositions and solvers.

Decompositions are unique only up to signs/phases (and eigenvalue order for ``eig``), so their cases compare
sign-free invariants computed from tensorlet's outputs -- reconstruction, orthogonality, eigen-equations --
together with the parts that are unique (singular values, ``eigh`` eigenvalues, the canonical-sign QR).
"""

import dataclasses

import numpy as np
import pytest
import scipy.linalg
from opcheck import Case, Err, compiled_tests, op_tests, params, run_case

import tensorlet as tf

F = ("float32", "float64")
FC = ("float32", "float64", "complex64", "complex128")
LIN = dict(rtol=2e-4, atol=2e-5)  # float32 LAPACK vs LAPACK (and XLA) differ in the last bits


# --- generators ----------------------------------------------------------------------------

def _rand(rng, shape, dtype):
    d = np.dtype(dtype)
    a = rng.uniform(-1, 1, shape)
    if d.kind == "c":
        a = a + 1j * rng.uniform(-1, 1, shape)
    return a.astype(d)


def _wellcond(rng, shape, dtype):
    """Random matrices made diagonally dominant (well conditioned)."""
    a = _rand(rng, shape, dtype)
    n = shape[-1]
    return (a + (n + 1) * np.eye(n, dtype=a.dtype)).astype(a.dtype)


def _spd(rng, shape, dtype):
    a = _rand(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(a.dtype)


def gen_wellcond(rng, shapes, dtype):
    return [_wellcond(rng, shapes[0], dtype)] + [_rand(rng, s, dtype) for s in shapes[1:]]


def gen_spd(rng, shapes, dtype):
    return [_spd(rng, shapes[0], dtype)] + [_rand(rng, s, dtype) for s in shapes[1:]]


def gen_spd_garbage_upper(rng, shapes, dtype):
    """SPD matrices whose strict upper triangle is replaced by garbage: TF reads only the lower triangle."""
    a = _spd(rng, shapes[0], dtype)
    return [np.tril(a) + np.triu(_rand(rng, shapes[0], dtype) * 50, 1)]


def gen_rand(rng, shapes, dtype):
    return [_rand(rng, s, dtype) for s in shapes]


def _sym_lower(a):
    """The Hermitian matrix defined by ``a``'s lower triangle."""
    low = np.tril(a, -1)
    d = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    return (low + np.conj(np.swapaxes(low, -1, -2)) + d[..., None] * np.eye(a.shape[-1])).astype(a.dtype)


def _ct(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _eye_like(a, n):
    return np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape[:-2] + (n, n))


def _np(*ts):
    return [x.numpy() if hasattr(x, "numpy") else np.asarray(x) for x in ts]


def _c(*arrays):
    """Wrap NumPy results of tensorlet outputs back into tensors for the comparison."""
    out = tuple(tf.constant(np.asarray(a)) for a in arrays)
    return out if len(out) > 1 else out[0]


# --- independent references for the diagonal ops (plain loops) ------------------------------

def _ref_diag_part(x, lo, hi, pad=0, align="RIGHT_LEFT"):
    m, n = x.shape[-2:]
    lens = {d: max(0, min(m + min(d, 0), n - max(d, 0))) for d in range(lo, hi + 1)}
    L = max(lens.values())
    out = np.full(x.shape[:-2] + (hi - lo + 1, L), pad, x.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
        off = L - lens[d] if right else 0
        for q in range(lens[d]):
            i, j = (q, q + d) if d >= 0 else (q - d, q)
            out[..., r, q + off] = x[..., i, j]
    return out[..., 0, :] if lo == hi else out


def _ref_set_diag(x, v, lo, hi, align="RIGHT_LEFT"):
    out = x.copy()
    m, n = x.shape[-2:]
    v = v if lo != hi else v[..., None, :]
    lens = {d: max(0, min(m + min(d, 0), n - max(d, 0))) for d in range(lo, hi + 1)}
    L = v.shape[-1]
    for r, d in enumerate(range(hi, lo - 1, -1)):
        right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
        off = L - lens[d] if right else 0
        for q in range(lens[d]):
            i, j = (q, q + d) if d >= 0 else (q - d, q)
            out[..., i, j] = v[..., r, q + off]
    return out


def _ref_diag(v, lo, hi, rows, cols, pad=0, align="RIGHT_LEFT"):
    base = np.full(v.shape[:-1 if lo == hi else -2] + (rows, cols), pad, v.dtype)
    return _ref_set_diag(base, v, lo, hi, align)


def _ref_tensor_diag(d):
    n = d.size
    out = np.zeros((n, n), d.dtype)
    out[np.arange(n), np.arange(n)] = d.reshape(-1)
    return out.reshape(d.shape + d.shape)


def _ref_tensor_diag_part(x):
    half = x.shape[: x.ndim // 2]
    n = int(np.prod(half))
    return x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(half)


def _ref_band(x, lo, hi):
    out = x
    if lo >= 0:
        out = np.triu(out, -lo)
    if hi >= 0:
        out = np.tril(out, hi)
    return out


# --- norms -------------------------------------------------------------------------------

def _ref_norm(order, axis=None, keepdims=False):
    def ref(x):
        if order in ("euclidean", "fro") or (order == 2 and not isinstance(axis, tuple)):
            r = np.sqrt(np.sum(x * np.conj(x), axis=axis, keepdims=keepdims))  # TF keeps complex here
            return r.astype(x.dtype)
        r = np.linalg.norm(x if axis is not None else x.reshape(-1), order, axis=axis, keepdims=keepdims)
        if axis is None and keepdims:
            r = np.reshape(r, (1,) * x.ndim)
        return np.asarray(r).astype(np.real(x).dtype)
    return ref


def _norm_case(order, axis, shapes, dtypes=F, keepdims=False, **kw):
    return Case(lambda x: tf.norm(x, ord=order, axis=axis, keepdims=keepdims), _ref_norm(order, axis, keepdims),
                shapes, dtypes, ops=("Norm",), id=f"norm_{order}_{axis}_{keepdims}", **kw)


# --- decompositions: invariants ---------------------------------------------------------------

def _qr_canon(q, r):
    """Make diag(r) real non-negative (the QR factors are unique then, for full-rank input)."""
    k = min(r.shape[-2], r.shape[-1])
    d = np.diagonal(r, axis1=-2, axis2=-1)[..., :k]
    ph = np.where(np.abs(d) > 0, d / np.where(np.abs(d) > 0, np.abs(d), 1), 1).astype(q.dtype)
    q = q.copy()
    r = r.copy()
    q[..., :, :k] = q[..., :, :k] * ph[..., None, :]
    r[..., :k, :] = r[..., :k, :] * np.conj(ph)[..., :, None]
    return q, r


def _qr_fn(full):
    """Reduced: the factors with diag(r) made real non-negative (unique).  Full: sign-free invariants (the extra
    columns of q are not unique).  Written in tensorlet ops, so the gradient check differentiates them."""
    def fn(a):
        q, r = tf.linalg.qr(a, full_matrices=full)
        if full:
            return q @ r, tf.linalg.adjoint(q) @ q, r - tf.linalg.band_part(r, 0, -1)
        ph = tf.math.sign(tf.linalg.diag_part(r))
        return q * ph[..., None, :], r * tf.math.conj(ph)[..., :, None]
    return fn


def _qr_ref(full):
    def ref(a):
        q, r = np.linalg.qr(a, mode="complete" if full else "reduced")
        return _qr_canon(q, r) if not full else (a, _eye_like(a, a.shape[-2]), np.zeros_like(r))
    return ref


def _svd_fn(a):
    """Singular values and the sign/phase-free |u|^2, |v|^2 (unique for distinct singular values)."""
    s, u, v = tf.linalg.svd(a)
    return s, u * tf.math.conj(u), v * tf.math.conj(v)


def _svd_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    v = _ct(vh)
    return s, u * np.conj(u), v * np.conj(v)


def _svd_full_fn(a):
    s, u, v = tf.linalg.svd(a, full_matrices=True)
    k = s.shape[-1]
    us = u[..., :, :k] * tf.cast(s, u.dtype)[..., None, :]
    return s, us @ tf.linalg.adjoint(v[..., :, :k]), tf.linalg.adjoint(u) @ u, tf.linalg.adjoint(v) @ v


def _svd_full_ref(a):
    m, n = a.shape[-2:]
    return np.linalg.svd(a, compute_uv=False), a, _eye_like(a, m), _eye_like(a, n)


def _svd_full_abs_fn(a):
    """Full factors where |m - n| <= 1: the one extra singular vector is unique up to sign/phase."""
    s, u, v = tf.linalg.svd(a, full_matrices=True)
    return s, u * tf.math.conj(u), v * tf.math.conj(v)


def _svd_full_abs_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=True)
    v = _ct(vh)
    return s, u * np.conj(u), v * np.conj(v)


def _tf_sym_lower(a):
    """``_sym_lower`` in tensorlet ops."""
    low = tf.linalg.set_diag(tf.linalg.band_part(a, -1, 0), tf.zeros_like(tf.linalg.diag_part(a)))
    d = tf.cast(tf.math.real(tf.linalg.diag_part(a)), a.dtype)
    return low + tf.linalg.adjoint(low) + tf.linalg.diag(d)


def _eigh_fn(a):
    """Eigenvalues, the sign/phase-free |v|^2 and the eigen-equation residual (all differentiable)."""
    e, v = tf.linalg.eigh(a)
    return e, v * tf.math.conj(v), _tf_sym_lower(a) @ v - v * e[..., None, :], tf.linalg.adjoint(v) @ v


def _eigh_ref(a):
    e, v = np.linalg.eigh(_sym_lower(a))
    return e.astype(a.dtype), v * np.conj(v), np.zeros_like(a), _eye_like(a, a.shape[-1])


def _ctype(dtype):
    return np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128


def _sorted_eigs(w):
    return np.sort_complex(np.round(w, 4).astype(w.dtype)) if w.size else w


def _eig_fn(a):
    w, v = _np(*tf.linalg.eig(a))
    ac = a.numpy().astype(w.dtype)
    norms = np.sqrt(np.sum(np.abs(v) ** 2, axis=-2)).astype(w.dtype)
    return _c(_sorted_eigs(w), ac @ v - v * w[..., None, :], norms)


def _eig_sorted_fn(a):
    """For real, well-separated spectra: eigenvalues' real parts sorted, with the phase-free |v|^2 in the same
    order and the eigen-equation residual -- in tensorlet ops, so the gradient check differentiates them."""
    w, v = tf.linalg.eig(a)
    order = tf.argsort(tf.math.real(w), axis=-1)
    batch = len(a.shape) - 2
    w = tf.gather(w, order, axis=-1, batch_dims=batch)
    v = tf.gather(v, order, axis=-1, batch_dims=batch)
    resid = tf.cast(a, v.dtype) @ v - v * w[..., None, :]
    return tf.math.real(w), tf.math.real(v * tf.math.conj(v)), tf.math.abs(resid)


def _eig_sorted_ref(a):
    w, v = np.linalg.eig(a)
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w, order, -1)
    v = np.take_along_axis(v, order[..., None, :], -1)
    rt = np.real(w).dtype
    return w.real.astype(rt), np.abs(v).astype(rt) ** 2, np.zeros(a.shape, rt)


def gen_real_spectrum(rng, shapes, dtype):
    """P diag(lambda) P^-1 with real eigenvalues about 1 apart (distinct, so eig's gradient is defined)."""
    shape = shapes[0]
    n = shape[-1]
    lam = np.arange(1.0, n + 1) + rng.uniform(-0.2, 0.2, shape[:-1])
    p = _wellcond(rng, shape, dtype).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    return [(p @ (lam[..., :, None] * np.linalg.inv(p))).astype(dtype)]


def _eig_ref(a):
    ct = _ctype(a.dtype)
    w = np.linalg.eigvals(a).astype(ct)
    return _sorted_eigs(w), np.zeros(a.shape, ct), np.ones(a.shape[:-1], ct)


def _trisolve_ref(lower, adjoint):
    def ref(a, b):
        tri = np.tril(a) if lower else np.triu(a)
        if adjoint:
            tri = _ct(tri)
        batch = np.broadcast_shapes(tri.shape[:-2], b.shape[:-2])
        tri = np.broadcast_to(tri, batch + tri.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        return np.linalg.solve(tri, b).astype(a.dtype)
    return ref


def _lstsq_ref(l2):
    def ref(a, b):
        a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
        m, n = a.shape[-2:]
        if m >= n:
            x = np.linalg.solve(_ct(a64) @ a64 + l2 * np.eye(n), _ct(a64) @ b64)
        else:
            x = _ct(a64) @ np.linalg.solve(a64 @ _ct(a64) + l2 * np.eye(m), b64)
        return (x if a.dtype.kind == "c" else x.real).astype(a.dtype)
    return ref


def _minnorm_ref(a, b):
    x = np.linalg.pinv(a.astype(np.complex128)) @ b.astype(np.complex128)
    return (x if a.dtype.kind == "c" else x.real).astype(a.dtype)


def _expm_ref(a):
    return scipy.linalg.expm(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)).astype(a.dtype)


def _gen_rank_deficient(rng, shapes, dtype):
    a = _rand(rng, shapes[0][:-1] + (2,), dtype)
    a = np.concatenate([a, a[..., :1] + a[..., 1:]], axis=-1)  # third column = sum of the first two
    return [a, _rand(rng, shapes[1], dtype)]


SQ = [((3, 3),), ((2, 4, 4),), ((0, 0),)]
SQ_EDGE = SQ + [((1, 1),), ((0, 2, 2),)]
RECT = [((3, 5),), ((2, 5, 3),)]
FC2 = ("float32", "complex128")  # heavy cases: the lowering test compiles every shape x dtype

CASES = [
    # band part
    Case(lambda x: tf.linalg.band_part(x, 1, -1), lambda x: _ref_band(x, 1, -1), [((4, 4),), ((2, 3, 5),)],
         ("float32", "bool", "complex64"), ops=("MatrixBandPart",), id="band_1_-1"),
    Case(lambda x: tf.linalg.band_part(x, 0, 0), lambda x: _ref_band(x, 0, 0), [((4, 4),), ((0, 3),)],
         ("float64",), ops=("MatrixBandPart",), id="band_0_0"),
    Case(lambda x: tf.linalg.band_part(x, -1, 2), lambda x: _ref_band(x, -1, 2), [((5, 4),)],
         ("int64",), ops=("MatrixBandPart",), id="band_-1_2"),
    Case(lambda x: tf.linalg.band_part(x, tf.constant(2, tf.int64), tf.constant(1)), lambda x: _ref_band(x, 2, 1),
         [((2, 5, 5),)], ("float32",), ops=("MatrixBandPart",), id="band_tensor_args"),
    # diagonals
    Case(tf.linalg.diag, lambda v: _ref_diag(v, 0, 0, v.shape[-1], v.shape[-1]), [((3,),), ((2, 4),), ((0,),)],
         ("float32", "bool"), ops=("MatrixDiagV3",)),
    Case(lambda v: tf.linalg.diag(v, k=1), lambda v: _ref_diag(v, 1, 1, 3, 3), [((2, 2),)], ("float64",),
         ops=("MatrixDiagV3",), id="diag_k1"),
    Case(lambda v: tf.linalg.diag(v, k=-1, num_rows=3, num_cols=2, padding_value=9),
         lambda v: _ref_diag(v, -1, -1, 3, 2, pad=9), [((2,),)], ("float32",), ops=("MatrixDiagV3",),
         id="diag_padding"),
    Case(lambda v: tf.linalg.diag(v, k=(-1, 1)), lambda v: _ref_diag(v, -1, 1, 3, 3), [((3, 3),), ((2, 3, 3),)],
         ("float32",), ops=("MatrixDiagV3",), id="diag_k_range"),
    Case(lambda v: tf.linalg.diag(v, k=(-1, 0), align="LEFT_RIGHT"),
         lambda v: _ref_diag(v, -1, 0, 2, 2, align="LEFT_RIGHT"), [((2, 2),)], ("int32",), ops=("MatrixDiagV3",),
         id="diag_align"),
    Case(tf.linalg.diag_part, lambda x: _ref_diag_part(x, 0, 0), [((3, 3),), ((2, 3, 5),), ((4, 2),), ((0, 3),)],
         ("float32", "bool"), ops=("MatrixDiagPartV3",)),
    Case(lambda x: tf.linalg.diag_part(x, k=(-1, 2), padding_value=7), lambda x: _ref_diag_part(x, -1, 2, pad=7),
         [((3, 4),), ((2, 4, 3),)], ("float64",), ops=("MatrixDiagPartV3",), id="diag_part_range"),
    Case(lambda x: tf.linalg.diag_part(x, k=(-2, 1), align="LEFT_LEFT"),
         lambda x: _ref_diag_part(x, -2, 1, align="LEFT_LEFT"), [((4, 3),)], ("int32",),
         ops=("MatrixDiagPartV3",), id="diag_part_align"),
    Case(tf.linalg.set_diag, lambda x, v: _ref_set_diag(x, v, 0, 0), [((3, 3), (3,)), ((2, 3, 4), (2, 3)),
                                                                       ((4, 2), (2,))],
         ("int32", "complex64"), ops=("MatrixSetDiagV3",)),
    Case(lambda x, v: tf.linalg.set_diag(x, v, k=(0, 1)), lambda x, v: _ref_set_diag(x, v, 0, 1),
         [((3, 4), (2, 3))], ("float64",), ops=("MatrixSetDiagV3",), id="set_diag_range"),
    Case(tf.linalg.tensor_diag, _ref_tensor_diag, [((3,),), ((2, 3),), ((0,),)],
         ("float32", "int32", "complex64", "bfloat16"), ops=("Diag",)),
    Case(tf.linalg.tensor_diag_part, _ref_tensor_diag_part, [((3, 3),), ((2, 3, 2, 3),)], ("float64", "int64"),
         ops=("DiagPart",)),
    Case(tf.linalg.trace, lambda x: np.trace(x, axis1=-2, axis2=-1).astype(x.dtype), [((3, 3),), ((2, 3, 4),),
                                                                                       ((0, 0),)],
         ("int32", "complex128"), ops=("MatrixDiagPartV3",)),
    # transposes, matvec, cross
    Case(tf.linalg.matrix_transpose, lambda x: np.swapaxes(x, -1, -2), [((2, 3),), ((2, 3, 4),)],
         ("float32", "int32", "complex64")),
    Case(lambda x: tf.linalg.matrix_transpose(x, conjugate=True), lambda x: _ct(x), [((2, 3),)], ("complex64",),
         id="matrix_transpose_conj"),
    Case(tf.linalg.adjoint, _ct, [((2, 3),), ((2, 2, 3),)], ("float64", "complex128")),
    Case(tf.linalg.matvec, lambda a, b: np.einsum("...ij,...j->...i", a, b), [((2, 3), (3,)), ((4, 2, 3), (3,)),
                                                                              ((2, 3), (5, 3))],
         ("float32", "int32"), ops=("StridedSlice",)),
    Case(lambda a, b: tf.linalg.matvec(a, b, transpose_a=True), lambda a, b: np.swapaxes(a, -1, -2) @ b,
         [((2, 3), (2,))], ("float64",), ops=("MatMul",), id="matvec_transpose"),
    Case(lambda a, b: tf.linalg.matvec(a, b, adjoint_a=True), lambda a, b: _ct(a) @ b, [((2, 3), (2,))],
         ("complex64",), ops=("MatMul",), id="matvec_adjoint"),
    Case(tf.linalg.cross, lambda a, b: np.cross(a, b), [((3,), (3,)), ((2, 4, 3), (2, 4, 3)), ((0, 3), (0, 3))],
         ("float32", "int32", "float16"), ops=("Cross",)),
    # norms (vector ords over None / an axis; matrix ords over an axis pair)
    _norm_case("euclidean", None, [((2, 3, 4),), ((),), ((0, 3),)], ("float32", "complex64", "float16")),
    _norm_case("euclidean", -1, [((2, 3, 4),)], FC2),
    _norm_case(2, 0, [((3, 4),)]),
    _norm_case(1, None, [((2, 3, 4),)], FC2),
    _norm_case(1, 1, [((2, 3, 4),)], ("float32", "complex64")),
    _norm_case(np.inf, -1, [((2, 3, 4),), ((5,),)], ("float64", "complex128")),
    _norm_case(np.inf, None, [((2, 3),)], ("float32",)),
    _norm_case(3, -1, [((2, 3, 4),)], ("float32", "float64", "complex64")),
    _norm_case(0.5, 0, [((4, 2),)], ("float64",)),
    _norm_case("fro", (1, 2), [((2, 3, 4),)], FC2),
    _norm_case("euclidean", (-2, -1), [((2, 3, 4),)], ("float32",)),
    _norm_case(1, (0, 1), [((3, 4),), ((3, 4, 2),)], ("float32", "complex64")),
    _norm_case(1, (2, 0), [((2, 3, 4),)], ("float64",)),
    _norm_case(np.inf, (0, 1), [((3, 4),), ((3, 4, 2),)], ("float32", "float64")),
    _norm_case(2, (1, 2), [((2, 3, 4),), ((3, 1, 2),)], FC2, **LIN),
    _norm_case(2, (0, 2), [((2, 3, 4),)], ("float64",)),
    _norm_case(2, (0, 2), [((2, 3, 4),)], ("float32",), keepdims=True, **LIN),
    _norm_case(1, -1, [((2, 3),)], ("float32",), keepdims=True),
    _norm_case("euclidean", None, [((2, 3),)], ("float64",), keepdims=True),
    Case(lambda x: tf.norm(x, ord=1), lambda x: np.sum(np.abs(x)).astype(x.dtype), [((2, 3),)], ("int32",),
         ops=("Norm",), id="norm_int_ord1"),
    Case(lambda x: tf.linalg.normalize(x, axis=-1), lambda x: (x / np.linalg.norm(x, axis=-1, keepdims=True),
                                                               np.linalg.norm(x, axis=-1, keepdims=True)),
         [((2, 3),), ((4,),)], F, ops=("Norm", "RealDiv"), id="normalize"),
    Case(lambda x: tf.linalg.normalize(x, ord=1, axis=(0, 1)),
         lambda x: (x / np.linalg.norm(x, 1, axis=(0, 1), keepdims=True).astype(x.dtype),
                    np.linalg.norm(x, 1, axis=(0, 1), keepdims=True).astype(x.dtype)),
         [((3, 4),)], ("float32", "complex64"), ops=("Norm", "RealDiv"), id="normalize_ord1"),
    Case(lambda x: tf.linalg.normalize(x, ord=np.inf),
         lambda x: (x / np.max(np.abs(x)), np.max(np.abs(x)).reshape(1).astype(x.dtype)),
         [((4,),)], ("complex128",), ops=("Norm", "Cast", "RealDiv"), id="normalize_complex_real_norm"),
    # inverse and determinants
    Case(tf.linalg.inv, np.linalg.inv, SQ_EDGE, FC2, ops=("MatrixInverse",), gen=gen_wellcond, **LIN),
    Case(lambda x: tf.linalg.inv(x, adjoint=True), lambda x: np.linalg.inv(_ct(x)), SQ[:2], ("float64", "complex64"),
         ops=("MatrixInverse",), gen=gen_wellcond, id="inv_adjoint", **LIN),
    Case(tf.linalg.inv, lambda x: np.linalg.inv(x.astype(np.float32)).astype(np.float16), SQ[:2], ("float16",),
         ops=("MatrixInverse",), gen=gen_wellcond, id="inv_half"),
    Case(tf.linalg.det, np.linalg.det, SQ, FC2, ops=("MatrixDeterminant",), gen=gen_wellcond, **LIN),
    Case(tf.linalg.slogdet, lambda x: tuple(np.linalg.slogdet(x)[i].astype(x.dtype) for i in range(2)), SQ, FC2,
         ops=("LogMatrixDeterminant",), gen=gen_rand, **LIN),
    # grad=False: TF's Cholesky gradient is the symmetric one (the kernel reads only the lower triangle), so
    # finite differences of single entries cannot match it; tests/autodiff/test_grad_linalg.py checks it on
    # symmetrized inputs.
    Case(tf.linalg.logdet, lambda x: np.linalg.slogdet(x)[1], SQ[:2], FC2, ops=("Cholesky", "LogMatrixDeterminant"),
         gen=gen_spd, grad=False, **LIN),
    # Cholesky and solvers
    Case(tf.linalg.cholesky, lambda x: np.linalg.cholesky(_sym_lower(x)), SQ_EDGE, FC2, ops=("Cholesky",),
         gen=gen_spd_garbage_upper, grad=False, **LIN),  # grad=False: see logdet
    Case(tf.linalg.cholesky_solve, lambda c, b: np.linalg.solve(c @ _ct(c), b),
         [((3, 3), (3, 2)), ((2, 3, 3), (3, 2))], FC2, ops=("MatrixTriangularSolve",),
         gen=lambda rng, s, d: [np.linalg.cholesky(_spd(rng, s[0], d)), _rand(rng, s[1], d)], **LIN),
    Case(tf.linalg.solve, np.linalg.solve, [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((0, 0), (0, 3))], FC,
         ops=("MatrixSolve",), gen=gen_wellcond, **LIN),
    Case(lambda a, b: tf.linalg.solve(a, b, adjoint=True), lambda a, b: np.linalg.solve(_ct(a), b),
         [((3, 3), (3, 2))], ("float64", "complex128"), ops=("MatrixSolve",), gen=gen_wellcond, id="solve_adjoint"),
    Case(tf.linalg.triangular_solve, _trisolve_ref(True, False),
         [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((2, 3, 3), (3, 1)), ((3, 3), (2, 3, 2)), ((0, 0), (0, 2))],
         FC2, ops=("MatrixTriangularSolve",), gen=gen_wellcond, **LIN),
    Case(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), _trisolve_ref(False, True),
         [((3, 3), (3, 2)), ((2, 4, 4), (4, 1))], FC2, ops=("MatrixTriangularSolve",), gen=gen_wellcond,
         id="triangular_solve_upper_adjoint", **LIN),
    Case(tf.linalg.lstsq, _lstsq_ref(0.0), [((5, 3), (5, 2)), ((2, 4, 2), (4, 1))], FC2,
         ops=("Cholesky", "MatrixTriangularSolve"), gen=gen_rand, rtol=2e-3, atol=2e-4),
    Case(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5), _lstsq_ref(0.5), [((5, 3), (5, 2)),
                                                                                   ((2, 4), (2, 3))],
         ("float64", "complex64"), ops=("Cholesky", "MatrixSetDiagV3", "MatrixTriangularSolve"),
         gen=gen_rand, id="lstsq_l2", **LIN),
    Case(lambda a, b: tf.linalg.lstsq(a, b, fast=False), _minnorm_ref, [((5, 3), (5, 2)), ((2, 3, 4), (2, 3, 1))],
         FC2, ops=("MatrixSolveLs",), gen=gen_rand, id="lstsq_slow", **LIN),
    Case(lambda a, b: tf.linalg.lstsq(a, b, fast=False), _minnorm_ref, [((4, 3), (4, 2))], ("float64",),
         ops=("MatrixSolveLs",), gen=_gen_rank_deficient, id="lstsq_slow_rank_deficient",
         grad=False),  # finite differences change the rank, where the pseudo-inverse jumps
    # QR, SVD, eigen-decompositions (see the module docstring)
    Case(_qr_fn(False), _qr_ref(False), RECT + [((4, 4),), ((0, 3),), ((3, 0),)], FC2, ops=("Qr",), gen=gen_rand,
         id="qr", **LIN),
    Case(_qr_fn(True), _qr_ref(True), RECT, FC2, ops=("Qr",), gen=gen_rand, id="qr_full", **LIN),
    Case(_svd_fn, _svd_ref, RECT + [((4, 4),), ((0, 3),)], FC2, ops=("Svd",), gen=gen_rand, id="svd", **LIN),
    # grad=False: TF has no SVD gradient for full_matrices when |rows - cols| > 1 (NotImplementedError)
    Case(_svd_full_fn, _svd_full_ref, RECT, FC2, ops=("Svd",), gen=gen_rand, id="svd_full", grad=False, **LIN),
    Case(_svd_full_abs_fn, _svd_full_abs_ref, [((3, 4),), ((2, 4, 3),)], FC2, ops=("Svd",), gen=gen_rand,
         id="svd_full_near_square", **LIN),
    Case(lambda a: tf.linalg.svd(a, compute_uv=False), lambda a: np.linalg.svd(a, compute_uv=False), RECT, FC2,
         ops=("Svd",), gen=gen_rand, id="svd_values", **LIN),
    Case(_eigh_fn, _eigh_ref, SQ, FC2, ops=("SelfAdjointEigV2",), gen=gen_rand, id="eigh", **LIN),
    Case(tf.linalg.eigvalsh, lambda a: np.linalg.eigvalsh(_sym_lower(a)).astype(a.dtype), SQ[:2], FC2,
         ops=("SelfAdjointEigV2",), gen=gen_rand, **LIN),
    # grad=False on eig/eigvals: complex spectra are compared through NumPy (sorting complex values); the
    # gradients are checked on real, well-separated spectra by eig_sorted / eigvals_sorted.
    Case(_eig_fn, _eig_ref, SQ, ("float64", "complex64"), ops=("Eig",), gen=gen_rand, id="eig", rtol=1e-3, atol=1e-4,
         graph=False,  # sorts complex eigenvalues with NumPy inside the case
         grad=False),
    Case(lambda a: _c(_sorted_eigs(tf.linalg.eigvals(a).numpy())), lambda a: _eig_ref(a)[0], SQ[:2], FC2,
         ops=("Eig",), gen=gen_rand, id="eigvals", rtol=1e-3, atol=1e-4, grad=False, graph=False),
    Case(_eig_sorted_fn, _eig_sorted_ref, [((3, 3),), ((2, 4, 4),)], ("float64", "complex64"), ops=("Eig",),
         gen=gen_real_spectrum, id="eig_sorted", rtol=1e-3, atol=1e-4),
    Case(lambda a: tf.sort(tf.math.real(tf.linalg.eigvals(a))), lambda a: np.sort(np.linalg.eigvals(a).real),
         [((4, 4),), ((2, 3, 3),)], FC2, ops=("Eig",), gen=gen_real_spectrum, id="eigvals_sorted", rtol=1e-3,
         atol=1e-4),
    # matrix functions
    Case(tf.linalg.expm, _expm_ref, [((2, 3, 3),)], FC2, ops=("MatrixExponential",), gen=gen_rand, **LIN),
    Case(tf.linalg.pinv, lambda a: np.linalg.pinv(a).astype(a.dtype), RECT, ("float64",), ops=("Svd",), gen=gen_rand,
         **LIN),
    Case(lambda a: tf.linalg.pinv(a, rcond=1e-2), lambda a: np.diag([1.0, 0.0, 0.0]).astype(a.dtype), [((3, 3),)],
         ("float32",), ops=("Svd",), gen=lambda rng, s, d: [np.diag([1.0, 1e-3, 0.0]).astype(d)],
         id="pinv_rcond"),
]


def _m(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


IAE = tf.errors.InvalidArgumentError
ATTR_T = "Value for attr 'T' of int32 is not in the list of allowed values"

ERRORS = [
    Err(lambda: tf.linalg.inv(_m(2, 3)), IAE, r"Input matrix must be square. \[Op:MatrixInverse\]"),
    Err(lambda: tf.linalg.inv(np.array([[1.0, 2.0], [2.0, 4.0]])), IAE, r"Input is not invertible. \[Op:MatrixInv"),
    Err(lambda: tf.linalg.inv(_m(3)), IAE, "Input tensor 0 must have rank >= 2, got 1"),
    Err(lambda: tf.linalg.inv(_m(2, 2, dtype=np.int32)), IAE, ATTR_T + ": double, float, half, complex64"),
    Err(lambda: tf.linalg.det(_m(2, 3)), IAE, r"Input matrix must be square. \[Op:MatrixDeterminant\]"),
    Err(lambda: tf.linalg.det(_m(2, 2, dtype=np.int32)), IAE, ATTR_T + ": half, float, double"),
    Err(lambda: tf.linalg.slogdet(_m(3, 2)), IAE, "Input matrix must be square"),
    Err(lambda: tf.linalg.cholesky(_m(2, 3)), IAE, r"Input matrix must be square. \[Op:Cholesky\]"),
    Err(lambda: tf.linalg.cholesky(_m(2, 2, dtype=np.int32)), IAE, ATTR_T),
    Err(lambda: tf.linalg.logdet(_m(2, 3)), IAE, r"\[Op:Cholesky\]"),
    Err(lambda: tf.linalg.qr(_m(2, 2, dtype=np.int32)), IAE, ATTR_T),
    Err(lambda: tf.linalg.qr(_m(3)), IAE, "must have rank >= 2"),
    Err(lambda: tf.linalg.svd(_m(3)), IAE, r"must have rank >= 2, got 1 \[Op:Svd\]"),
    Err(lambda: tf.linalg.svd(tf.constant([[1.0]], tf.bfloat16)), IAE, "attr 'T' of bfloat16"),
    Err(lambda: tf.linalg.eigh(_m(2, 3)), IAE, r"square. \[Op:SelfAdjointEigV2\]"),
    Err(lambda: tf.linalg.eig(_m(2, 3)), IAE, r"square. \[Op:Eig\]"),
    Err(lambda: tf.linalg.eigvals(_m(2, 2, dtype=np.int32)), IAE, ATTR_T + ": float, double, complex64"),
    Err(lambda: tf.linalg.solve(_m(2, 2), _m(3, 1)), IAE, r"Input matrix and rhs are incompatible. \[Op:MatrixSolve"),
    Err(lambda: tf.linalg.solve(_m(2, 2), _m(2)), IAE, "All input tensors must have the same rank."),
    Err(lambda: tf.linalg.solve(_m(2, 2, 2), _m(3, 2, 1)), IAE, "must have the same outer dimensions"),
    Err(lambda: tf.linalg.solve(_m(2, 3), _m(2, 1)), IAE, "First input \\(lhs\\) must be a square matrix."),
    Err(lambda: tf.linalg.solve(np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones((2, 1))), IAE,
        "Input matrix is not invertible."),
    Err(lambda: tf.linalg.solve(tf.constant(_m(2, 2)), tf.constant(_m(2, 1, dtype=np.float64))), IAE,
        "expected to be a float tensor"),
    Err(lambda: tf.linalg.triangular_solve(_m(2, 2), _m(3, 1)), IAE, r"In\[0\] mismatch In\[1\] shape: 2 vs. 3"),
    Err(lambda: tf.linalg.triangular_solve(_m(2, 3), _m(2, 1)), IAE, "must be square \\(3 =/= 2\\)"),
    Err(lambda: tf.linalg.triangular_solve(_m(2, 2), _m(2)), IAE, r"In\[1\] ndims must be >= 2: 1"),
    Err(lambda: tf.linalg.triangular_solve(_m(2, 2, 2), _m(3, 2, 1)), IAE, "compatible batch dimensions"),
    Err(lambda: tf.linalg.triangular_solve(_m(2, 2, dtype=np.int32), _m(2, 1, dtype=np.int32)), IAE,
        ATTR_T + ": bfloat16, double"),
    Err(lambda: tf.linalg.cholesky_solve(_m(2, 2), _m(2)), IAE, r"ndims must be >= 2"),
    Err(lambda: tf.linalg.lstsq(_m(3, 2), _m(2, 1), fast=False), IAE, "Input matrix and rhs are incompatible"),
    Err(lambda: tf.linalg.lstsq(_m(2, 3, 2), _m(3, 3, 1), fast=False), IAE, "same outer dimensions"),
    Err(lambda: tf.linalg.lstsq(_m(3, 2, dtype=np.int32), _m(3, 1, dtype=np.int32)), IAE, ATTR_T),
    Err(lambda: tf.linalg.lstsq(_m(3), _m(3, 1)), IAE, "rank >= 2"),
    Err(lambda: tf.linalg.expm(_m(2, 2, dtype=np.int32)), ValueError, "tf.linalg.expm does not support matrices"),
    Err(lambda: tf.linalg.expm(_m(2, 3)), IAE, "square"),
    Err(lambda: tf.linalg.pinv(_m(2, 2, dtype=np.int32)), TypeError, "must have `float`-like `dtype` \\(saw int32\\)"),
    Err(lambda: tf.linalg.pinv(_m(2, 2, dtype=np.complex64)), TypeError, "float`-like"),
    Err(lambda: tf.linalg.pinv(_m(3)), ValueError, "at least 2 dimensions \\(saw: 1\\)"),
    # structure ops
    Err(lambda: tf.linalg.band_part(_m(3), 0, 0), IAE, r"input must be at least 2-dim, received shape: \[3\]"),
    Err(lambda: tf.linalg.band_part(_m(4, 4), 5, 0), IAE, r"num_lower must be negative or less or equal to number "
                                                          r"of rows \(4\) got: 5"),
    Err(lambda: tf.linalg.band_part(_m(4, 4), 0, 5), IAE, "num_upper must be negative"),
    Err(lambda: tf.linalg.band_part(_m(4, 4), 1.0, 0), TypeError, "Cannot convert 1.0"),
    Err(lambda: tf.linalg.band_part(_m(4, 4), [1], 0), IAE, "num_lower must be scalar"),
    Err(lambda: tf.linalg.diag(3.0), IAE, r"diagonal must be at least 1-dim, received shape: \[\]"),
    Err(lambda: tf.linalg.diag([1.0, 2.0], num_rows=1), IAE, "The number of rows is too small."),
    Err(lambda: tf.linalg.diag([1.0, 2.0], k=-1, num_rows=4, num_cols=3), IAE, "not consistent"),
    Err(lambda: tf.linalg.diag_part(_m(3)), IAE, r"input must be at least 2-dim, received shape: \[3\] "
                                                 r"\[Op:MatrixDiagPartV3\]"),
    Err(lambda: tf.linalg.diag_part(_m(3, 4), k=5), IAE, "lower_diag_index is out of bound: 5. It must be between "
                                                         "-3 and 4"),
    Err(lambda: tf.linalg.diag_part(_m(3, 4), k=(1, 0)), IAE, "lower_diag_index must not be larger"),
    Err(lambda: tf.linalg.set_diag(_m(2, 3, 3), [[1.0, 2.0], [4.0, 5.0]]), IAE,
        r"Either first dimensions of diagonal don't match(.|\n)*Expected diagonal shape: \[2,3\]"),
    Err(lambda: tf.linalg.set_diag(_m(3, 4), [1.0, 2.0, 3.0, 4.0]), IAE, "longests diagonal"),
    Err(lambda: tf.linalg.set_diag(_m(3), [1.0]), IAE, "input must be at least 2-dim"),
    Err(lambda: tf.linalg.tensor_diag(3.0), IAE, r"Input must be at least rank 1, got 0 \[Op:Diag\]"),
    Err(lambda: tf.linalg.tensor_diag([True]), IAE, "attr 'T' of bool"),
    Err(lambda: tf.linalg.tensor_diag_part(_m(3)), IAE, r"should be even and positive, got shape \[3\]"),
    Err(lambda: tf.linalg.tensor_diag_part(_m(2, 3)), IAE, r"Invalid shape \[2,3\]: dimensions 0 and 1 do not match"),
    Err(lambda: tf.linalg.tensor_diag_part(_m(2, 3, 2, 2)), IAE, "dimensions 1 and 3 do not match"),
    Err(lambda: tf.linalg.matrix_transpose(_m(3)), ValueError, "should be a \\(batch\\) matrix with rank >= 2"),
    Err(lambda: tf.linalg.adjoint(1.0), ValueError, "rank >= 2"),
    Err(lambda: tf.linalg.matvec(_m(2, 3), _m(2)), IAE, "Matrix size-incompatible"),
    Err(lambda: tf.linalg.cross(_m(2, 4), _m(2, 4)), tf.errors.FailedPreconditionError,
        r"Cross-products are only defined for 3-element vectors. \[Op:Cross\]"),
    Err(lambda: tf.linalg.cross(_m(2, 3), _m(3, 3)), IAE, r"Both inputs must be of same shape: \[2,3\] vs. \[3,3\]"),
    Err(lambda: tf.linalg.cross(_m(3, dtype=np.complex64), _m(3, dtype=np.complex64)), IAE,
        "attr 'T' of complex64 is not in the list of allowed values: float, double, int32"),
    Err(lambda: tf.linalg.cross(np.float32(1), np.float32(2)), IAE, r"Input must be at least 1D\[\]"),
    # norms: TF's ord/axis rules
    Err(lambda: tf.norm(_m(2, 3), ord="fro"), ValueError, "'ord' must be a supported vector norm, got fro"),
    Err(lambda: tf.norm(_m(2, 3), ord=0), ValueError, "'ord' must be a supported vector norm, got 0"),
    Err(lambda: tf.norm(_m(2, 3), ord=-1, axis=1), ValueError, "supported vector norm, got -1"),
    Err(lambda: tf.norm(_m(2, 3), ord=-np.inf), ValueError, "supported vector norm, got -inf"),
    Err(lambda: tf.norm(_m(2, 3), ord=3, axis=(0, 1)), ValueError,
        r"'ord' must be a supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got 3"),
    Err(lambda: tf.norm(_m(2, 3), ord="nuc", axis=(0, 1)), ValueError, "supported matrix norm"),
    Err(lambda: tf.norm(_m(2, 3), axis=(1,)), ValueError,
        r"'axis' must be None, an integer, or a tuple of 2 unique integers, got \(1,\)"),
    Err(lambda: tf.norm(_m(2, 3), axis=(0, 0)), ValueError, "tuple of 2 unique integers, got \\(0, 0\\)"),
    Err(lambda: tf.norm(_m(2, 3, 4), axis=(0, 1, 2)), ValueError, "tuple of 2 unique integers"),
    Err(lambda: tf.norm(_m(2, 3), axis=1.0), ValueError, "tuple of 2 unique integers, got 1.0"),
    Err(lambda: tf.norm(_m(2, 3, 4), axis=5), IAE, r"Invalid reduction dimension \(5 for input with 3 dimension"),
    Err(lambda: tf.norm(_m(2, 3), ord=2, axis=(0, 5)), IAE, "Invalid reduction dimension"),
    Err(lambda: tf.norm(np.array([3, 4], np.int32)), IAE, ATTR_T + ": bfloat16, half, float"),
    Err(lambda: tf.linalg.normalize(_m(3), ord=0), ValueError, "supported vector norm, got 0"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# The lowering test compiles every shape x dtype, so the heavier cases keep to FC2; eagerly (cheap) the same
# cases also run over every LAPACK dtype.
@params([c for c in CASES if c.dtypes == FC2])
def test_values_all_lapack_dtypes(case):
    run_case(dataclasses.replace(case, dtypes=FC))


# --- focused checks ----------------------------------------------------------------------------

def test_half_precision_is_computed_in_float32():
    r = _rand(np.random.default_rng(0), (3, 3), np.float64)
    a = (2 * np.eye(3) + 0.2 * r @ r.T).astype(np.float16)  # SPD, modest entries (expm stays in range)
    a32 = a.astype(np.float32)
    for fn in (tf.linalg.det, tf.linalg.cholesky, tf.linalg.eigvalsh, tf.linalg.inv, tf.linalg.expm,
               lambda m: tf.linalg.svd(m, compute_uv=False), lambda m: tf.linalg.qr(m).r,
               lambda m: tf.linalg.solve(m, m[:, :1])):
        got, want = fn(a), fn(a32)
        assert got.dtype == tf.float16
        np.testing.assert_allclose(got.numpy().astype(np.float32), want.numpy(), rtol=2e-3, atol=2e-3)


def test_result_types_and_names():
    q = tf.linalg.qr(np.ones((3, 2), np.float32))
    assert q._fields == ("q", "r") and q.q.shape == (3, 2) and q.r.shape == (2, 2)
    sl = tf.linalg.slogdet(np.eye(2, dtype=np.float32))
    assert sl._fields == ("sign", "log_abs_determinant")
    s = tf.linalg.svd(np.ones((3, 2), np.complex64))
    assert isinstance(s, tuple) and [x.dtype for x in s] == [tf.float32, tf.complex64, tf.complex64]
    assert [x.shape for x in tf.linalg.svd(np.ones((3, 4)), full_matrices=True)] == [(3,), (3, 3), (4, 4)]
    assert tf.linalg.svd(np.ones((3, 4)), compute_uv=False).shape == (3,)
    e, v = tf.linalg.eigh(np.eye(2, dtype=np.complex64))
    assert e.dtype == tf.complex64 and v.dtype == tf.complex64  # TF keeps the input's complex dtype
    w, v = tf.linalg.eig(np.eye(2, dtype=np.float64))
    assert w.dtype == tf.complex128 and v.dtype == tf.complex128
    assert tf.linalg.eigvals(np.eye(2, dtype=np.float32)).dtype == tf.complex64
    assert tf.linalg.logdet(np.eye(2, dtype=np.complex64) * 2).dtype == tf.float32
    assert tf.norm(np.array([3j, 4], np.complex64)).dtype == tf.complex64  # euclidean keeps complex
    assert tf.norm(np.array([3j, 4], np.complex64), ord=1).dtype == tf.float32
    assert tf.linalg.det(np.zeros((0, 0), np.float32)).numpy() == 1.0
    assert tf.eig is tf.linalg.eig and tf.eigvals is tf.linalg.eigvals and tf.norm is tf.linalg.norm


def test_cholesky_not_positive_definite_gives_nan_per_matrix():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]]).astype(np.float32)
    for backend in ("numpy", "jax"):
        r = _run(lambda: tf.linalg.cholesky(a), backend).numpy()
        np.testing.assert_array_equal(r[0], np.eye(2))
        assert np.isnan(r[1][np.tril_indices(2)]).all() and r[1][0, 1] == 0
    assert np.isnan(tf.linalg.logdet(a[1]).numpy())


def test_singular_triangular_solve_gives_inf_like_tf():
    r = tf.linalg.triangular_solve(np.array([[0.0, 0.0], [1.0, 1.0]], np.float32), np.ones((2, 1), np.float32))
    np.testing.assert_array_equal(r.numpy().ravel(), [np.inf, -np.inf])


def test_singular_inverse_in_batch_raises():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.inv(a)


def test_norm_shapes_and_keepdims():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
    assert tf.norm(x).shape == ()
    assert tf.norm(x, keepdims=True).shape == (1, 1, 1)
    assert tf.norm(x, axis=(0, 2), ord=1, keepdims=True).shape == (1, 3, 1)
    assert tf.norm(x, axis=(2, 0), ord=np.inf).shape == (3,)
    assert tf.norm(np.float32(-3)).numpy() == 3.0
    assert tf.norm(np.zeros((0, 3), np.float32), ord=np.inf).numpy() == -np.inf  # TF's max over nothing
    empty = np.zeros((3, 0, 2), np.float32)  # TF: matrix 2- and inf-norms of empty matrices are -inf, 1-norm 0
    np.testing.assert_array_equal(tf.norm(empty, ord=2, axis=(1, 2)).numpy(), [-np.inf] * 3)
    np.testing.assert_array_equal(tf.norm(empty, ord=np.inf, axis=(1, 2)).numpy(), [-np.inf] * 3)
    np.testing.assert_array_equal(tf.norm(empty, ord=1, axis=(1, 2)).numpy(), [0.0] * 3)


def test_lstsq_fast_matches_tf_on_singular_and_empty():
    assert np.isnan(tf.linalg.lstsq(np.ones((3, 2), np.float32), np.ones((3, 1), np.float32)).numpy()).all()
    r = tf.linalg.lstsq(np.zeros((0, 2), np.float32), np.zeros((0, 1), np.float32))
    assert r.shape == (2, 1) and not r.numpy().any()


def test_diag_defaults_follow_tf_shape_rules():
    assert tf.linalg.diag([1.0, 2.0], k=1).shape == (3, 3)
    assert tf.linalg.diag([1.0, 2.0], k=1, num_cols=4).shape == (2, 4)
    assert tf.linalg.diag([1.0, 2.0], k=-1, num_rows=3).shape == (3, 2)
    np.testing.assert_array_equal(tf.linalg.tensor_diag_part(3.0).numpy(), 3.0)


def _run(fn, backend):
    if backend == "numpy":
        return fn()
    from opcheck import JaxEager

    from tensorlet._src.framework.context import interpreter

    with interpreter(JaxEager()):
        return fn()
test_compiled = compiled_tests(CASES)
