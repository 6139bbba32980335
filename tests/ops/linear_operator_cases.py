"""tf.linalg.LinearOperator programs run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/linear_operator.json) and by tensorlet (tests/ops/test_linear_operator.py)."""


def _m(tf):
    return tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _x(tf):
    return tf.constant([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])


def _all(tf, op):
    """Every method a user calls, on one operator."""
    out = {"dense": op.to_dense(), "shape": op.shape.as_list(), "matmul": op.matmul(_x(tf)),
           "matmul_adj": op.matmul(_x(tf), adjoint=True), "matvec": op.matvec(tf.constant([1.0, 2.0, 3.0])),
           "diag_part": op.diag_part(), "trace": op.trace(),
           "flags": [op.is_non_singular, op.is_self_adjoint, op.is_positive_definite, op.is_square],
           "dtype": op.dtype.name}
    if op.is_non_singular is not False:
        out.update(solve=op.solve(_x(tf)), solvevec=op.solvevec(tf.constant([1.0, 2.0, 3.0])),
                   det=op.determinant(), logdet=op.log_abs_determinant(), inverse=op.inverse().to_dense())
    return out


def _ops(tf):
    L = tf.linalg
    return {
        "full": L.LinearOperatorFullMatrix(_m(tf), is_self_adjoint=True, is_positive_definite=True),
        "diag": L.LinearOperatorDiag([1.0, 2.0, 4.0]),
        "identity": L.LinearOperatorIdentity(3),
        "scaled_identity": L.LinearOperatorScaledIdentity(3, 2.5),
        "zeros": L.LinearOperatorZeros(3),
        "lower_triangular": L.LinearOperatorLowerTriangular(_m(tf)),
        "adjoint": L.LinearOperatorAdjoint(L.LinearOperatorLowerTriangular(_m(tf))),
        "inversion": L.LinearOperatorInversion(L.LinearOperatorFullMatrix(_m(tf))),
        "composition": L.LinearOperatorComposition([L.LinearOperatorFullMatrix(_m(tf)),
                                                    L.LinearOperatorDiag([1.0, 2.0, 3.0])]),
        "block_diag": L.LinearOperatorBlockDiag([L.LinearOperatorDiag([2.0]),
                                                 L.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 3.0]])]),
        "block_lower_triangular": L.LinearOperatorBlockLowerTriangular(
            [[L.LinearOperatorDiag([2.0])],
             [L.LinearOperatorFullMatrix([[1.0], [2.0]]), L.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 3.0]])]]),
        "kronecker": L.LinearOperatorKronecker([L.LinearOperatorDiag([1.0]),
                                                L.LinearOperatorFullMatrix(_m(tf))]),
        "low_rank_update": L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag([1.0, 2.0, 3.0]),
                                                         tf.constant([[1.0], [0.5], [2.0]]), diag_update=[0.5]),
        "householder": L.LinearOperatorHouseholder([1.0, 2.0, 2.0]),
        "permutation": L.LinearOperatorPermutation([1, 2, 0]),
        "toeplitz": L.LinearOperatorToeplitz([3.0, 1.0, 0.5], [3.0, 2.0, 0.25]),
        "tridiag": L.LinearOperatorTridiag([[1.0, 0.5, 0.0], [3.0, 4.0, 5.0], [0.0, 0.5, 1.0]]),
        "circulant": L.LinearOperatorCirculant(tf.constant([6.0, 1.0, 1.0]), input_output_dtype=tf.float32),
    }


def _case(name):
    return lambda tf: _all(tf, _ops(tf)[name])


CASES = {f"{n}": _case(n) for n in (
    "full", "diag", "identity", "scaled_identity", "zeros", "lower_triangular", "adjoint", "inversion",
    "composition", "block_diag", "block_lower_triangular", "kronecker", "low_rank_update", "householder",
    "permutation", "toeplitz", "tridiag", "circulant")}

CASES.update({
    "circulant_complex": lambda tf: tf.linalg.LinearOperatorCirculant(
        tf.constant([3.0 + 0j, 1.0 - 1j, 2.0 + 0j, 1.0 + 1j], tf.complex64)).to_dense(),
    "circulant2d": lambda tf: tf.linalg.LinearOperatorCirculant2D(
        tf.constant([[4.0, 1.0], [2.0, 1.0]]), input_output_dtype=tf.float32).to_dense(),
    "circulant3d_shape": lambda tf: tf.linalg.LinearOperatorCirculant3D(tf.ones([2, 1, 2])).shape.as_list(),
    "batch_diag_solve": lambda tf: tf.linalg.LinearOperatorDiag([[1.0, 2.0], [4.0, 8.0]]).solve(tf.ones([2, 2, 1])),
    "operator_matmul_operator": lambda tf: (tf.linalg.LinearOperatorDiag([1.0, 2.0])
                                            @ tf.linalg.LinearOperatorDiag([3.0, 4.0])).to_dense(),
    "cholesky": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        _m(tf), is_self_adjoint=True, is_positive_definite=True).cholesky().to_dense(),
    "eigvals": lambda tf: tf.linalg.LinearOperatorFullMatrix(_m(tf), is_self_adjoint=True).eigvals(),
    "in_function": lambda tf: tf.function(lambda d: tf.linalg.LinearOperatorDiag(d).solvevec(tf.ones([2])))(
        tf.constant([2.0, 4.0])),
    "cg": lambda tf: tf.linalg.experimental.conjugate_gradient(
        tf.linalg.LinearOperatorFullMatrix(_m(tf), is_self_adjoint=True, is_positive_definite=True),
        tf.constant([1.0, 2.0, 3.0])),
    "cg_in_function": lambda tf: tf.function(lambda b: tf.linalg.experimental.conjugate_gradient(
        tf.linalg.LinearOperatorFullMatrix(_m(tf), is_self_adjoint=True, is_positive_definite=True), b,
        max_iter=2).x)(tf.constant([1.0, 2.0, 3.0])),
    "zeros_solve_raises": lambda tf: tf.linalg.LinearOperatorZeros(2).solve(tf.ones([2, 1])),
    "diag_not_self_adjoint_raises": lambda tf: tf.linalg.LinearOperatorDiag([1.0], is_self_adjoint=False),
    "composition_is_lazy": lambda tf: isinstance(tf.linalg.LinearOperatorComposition(
        [tf.linalg.LinearOperatorIdentity(2), tf.linalg.LinearOperatorIdentity(3)]), tf.linalg.LinearOperator),
    "householder_solve_raises_nothing": lambda tf: tf.linalg.LinearOperatorHouseholder([1.0, 1.0]).solvevec(
        [1.0, 2.0]),
    "inverse_of_singular_raises": lambda tf: tf.linalg.LinearOperatorZeros(2).inverse(),
    "mixed_dtypes_raise": lambda tf: tf.linalg.LinearOperatorComposition(
        [tf.linalg.LinearOperatorIdentity(2), tf.linalg.LinearOperatorIdentity(2, dtype=tf.float64)]),
})
