"""tf.linalg LU family, matrix_rank, sqrtm, logm, tridiagonal/banded solvers and eigh_tridiagonal against
NumPy/scipy."""

import numpy as np
import scipy.linalg as sl
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

F = ("float32", "float64")


def _wellcond(rng, shapes, dtype):
    s = shapes[0]
    a = rng.uniform(-1, 1, s) + 3 * np.eye(s[-1]) * rng.choice([-1, 1], size=s[:-1])[..., None]
    return [a.astype(dtype)] + [rng.uniform(-1, 1, r).astype(dtype) for r in shapes[1:]]


def _spd(rng, shapes, dtype):
    s = shapes[0]
    a = rng.uniform(-1, 1, s)
    return [(a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])).astype(dtype)]


def _lu_ref(a):
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        out[idx] = sl.lu_factor(a[idx].astype(np.float64))[0]
    return out.astype(a.dtype)


def _per_matrix(fn):
    def ref(a):
        out = np.empty_like(a)
        for idx in np.ndindex(*a.shape[:-2]):
            out[idx] = fn(a[idx].astype(np.complex128 if a.dtype.kind == "c" else np.float64))
        return out
    return ref


def _tri(d, rhs):
    sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    m = np.zeros(main.shape + (main.shape[-1],), d.dtype)
    for idx in np.ndindex(*main.shape[:-1]):
        m[idx] = np.diag(main[idx]) + np.diag(sup[idx][:-1], 1) + np.diag(sub[idx][1:], -1)
    return m


def _tri_gen(rng, shapes, dtype):
    d = rng.uniform(-1, 1, shapes[0])
    d[..., 1, :] += 4
    return [d.astype(dtype), rng.uniform(-1, 1, shapes[1]).astype(dtype)]


def _bands_gen(rng, shapes, dtype):
    b = rng.uniform(-1, 1, shapes[0])
    b[..., 0, :] = 2 + rng.uniform(0, 1, b[..., 0, :].shape)
    return [b.astype(dtype), rng.uniform(-1, 1, shapes[1]).astype(dtype)]


def _banded_ref(bands, rhs):
    k, m = bands.shape
    a = np.zeros((m, m))
    for i in range(k):  # lower: row i is the i-th subdiagonal, right-aligned
        a += np.diag(bands[i, i:], -i)
    return np.linalg.solve(a, rhs).astype(rhs.dtype)


def _eigh_tri_ref(alpha, beta):
    return np.linalg.eigvalsh(np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)).astype(alpha.dtype)


L = tf.linalg
CASES = [
    Case(lambda a: L.lu(a).lu, _lu_ref, [((3, 3),), ((2, 4, 4),)], F, ops=("Lu",), gen=_wellcond, id="lu"),
    Case(lambda a: L.lu_reconstruct(*L.lu(a)), lambda a: a, [((4, 4),), ((2, 3, 3),)], F, ops=("Lu",),
         gen=_wellcond, id="lu_reconstruct"),
    Case(lambda a, b: L.lu_solve(*L.lu(a), b), lambda a, b: np.linalg.solve(a, b), [((3, 3), (3, 2))], F,
         ops=("Lu", "MatrixTriangularSolve"), gen=_wellcond, id="lu_solve"),
    Case(lambda a: L.lu_matrix_inverse(*L.lu(a)), np.linalg.inv, [((2, 3, 3),)], F, ops=("Lu",), gen=_wellcond,
         id="lu_matrix_inverse"),
    Case(L.matrix_rank, lambda a: np.linalg.matrix_rank(a).astype(np.int32), [((3, 3),), ((2, 4, 3),)], F,
         ops=("Svd",), grad=False),  # an integer count
    Case(L.sqrtm, _per_matrix(lambda m: sl.sqrtm(m).real), [((3, 3),), ((2, 2, 2),)], F, ops=("MatrixSquareRoot",),
         gen=_spd, rtol=1e-4),
    Case(tf.linalg.logm, _per_matrix(sl.logm), [((3, 3),)], ("complex64", "complex128"), ops=("MatrixLogarithm",),
         gen=lambda rng, s, d: [_spd(rng, s, "float64")[0].astype(d)], rtol=1e-4,
         grad=False),  # TF registers no gradient for MatrixLogarithm
    Case(L.tridiagonal_matmul, lambda d, r: (_tri(d, r) @ r).astype(r.dtype),
         [((3, 4), (4, 2)), ((2, 3, 5), (2, 5, 1))], F, ops=("Mul",)),
    Case(L.tridiagonal_solve, lambda d, r: np.linalg.solve(_tri(d, r), r).astype(r.dtype),
         [((3, 4), (4, 2)), ((2, 3, 5), (2, 5, 1))], F, ops=("MatrixSolve",), gen=_tri_gen),
    Case(L.banded_triangular_solve, _banded_ref, [((2, 4), (4, 2)), ((3, 5), (5, 1))], F,
         ops=("MatrixTriangularSolve",), gen=_bands_gen),
    Case(L.eigh_tridiagonal, _eigh_tri_ref, [((4,), (3,))], F, ops=("SelfAdjointEigV2",)),
]

ERRORS = [
    Err(lambda: L.lu(tf.ones([2, 3])), tf.errors.InvalidArgumentError, "Input matrix must be square"),
    Err(lambda: L.lu(tf.ones([3], tf.int32)), tf.errors.InvalidArgumentError, "Lu"),
    Err(lambda: L.logm(tf.ones([2, 2])), tf.errors.InvalidArgumentError, "MatrixLogarithm"),
    Err(lambda: L.sqrtm(tf.ones([2, 3])), tf.errors.InvalidArgumentError, "Input matrix must be square"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)


def test_values_recorded_from_tf():
    # TF 2.21
    r = L.lu(tf.constant([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0], [0.0, 5.0, 6.0]]))
    assert r.p.dtype == tf.int32 and r.p.numpy().tolist() == [1, 2, 0]
    np.testing.assert_allclose(r.lu.numpy(), [[3, 4, 1], [0, 5, 6], [1 / 3, 2 / 15, -17 / 15]], rtol=1e-6)
    assert L.lu(tf.eye(2), output_idx_type=tf.int64).p.dtype == tf.int64
    w, v = L.eigh_tridiagonal([2.0, 2.0, 3.0], [1.0, 0.5], eigvals_only=False)
    np.testing.assert_allclose(w.numpy(), [0.9375573, 2.6816642, 3.3807786], rtol=1e-5)
    assert v.shape == (3, 3)
    np.testing.assert_allclose(L.eigh_tridiagonal([2.0, 2.0, 3.0], [1.0, 0.5], select="i",
                                                  select_range=[1, 2]).numpy(), [2.6816642, 3.3807786], rtol=1e-5)
    assert L.matrix_rank(tf.zeros([2, 3, 3])).numpy().tolist() == [0, 0]
    assert tf.matrix_square_root is L.sqrtm
