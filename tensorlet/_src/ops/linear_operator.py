"""``tf.linalg.LinearOperator`` and its structured subclasses.

An operator stands for a (batch of) matrices without necessarily storing them.  Every method has a generic
implementation through ``to_dense()``; subclasses override what their structure makes cheaper (diagonal and
triangular solves, determinants from diagonals, identity products).  Everything is written in tensorlet ops, so
operators work eagerly, inside ``tf.function`` and under a tape.  TF's hints (``is_non_singular``,
``is_self_adjoint``, ``is_positive_definite``, ``is_square``) are kept and checked as TF checks them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import tf_export


def _broadcast_batch(*shapes):
    out = ()
    for s in shapes:
        out = tuple(np.broadcast_shapes(out, tuple(s)))
    return out


@tf_export("linalg.LinearOperator")
class LinearOperator:
    """Base class of the linear operators: a ``[batch..., M, N]`` matrix behind ``matmul``/``solve``/....

    >>> op = tf.linalg.LinearOperatorDiag([1., 2.])
    >>> op.matvec([3., 4.]).numpy()
    array([3., 8.], dtype=float32)
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular and is_square is False:
            raise ValueError("A non-singular matrix is always square.")
        if is_non_singular:
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = D.as_dtype(dtype) if dtype is not None else None
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_set = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # --- properties ---------------------------------------------------------------------------
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    parameters = property(lambda self: dict(self._parameters))
    graph_parents = property(lambda self: [])
    is_non_singular = property(lambda self: self._is_non_singular)
    is_self_adjoint = property(lambda self: self._is_self_adjoint)
    is_positive_definite = property(lambda self: self._is_positive_definite)

    @property
    def is_square(self):
        if self._is_square_set is not None:
            return self._is_square_set
        m, n = self.shape[-2], self.shape[-1]
        return None if m is None or n is None else m == n

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._shape())

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    @property
    def tensor_rank(self):
        return self.shape.rank

    @property
    def domain_dimension(self):
        return self.shape.dims[-1] if hasattr(self.shape, "dims") else self.shape[-1]

    @property
    def range_dimension(self):
        return self.shape.dims[-2] if hasattr(self.shape, "dims") else self.shape[-2]

    def shape_tensor(self, name="shape_tensor"):
        return t(np.asarray(self._shape(), np.int32))

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return t(np.asarray(self._shape()[:-2], np.int32))

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return t(np.int32(len(self._shape())))

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return t(np.int32(self._shape()[-1]))

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return t(np.int32(self._shape()[-2]))

    def __repr__(self):
        return (f'<tf.linalg.{type(self).__name__} "{self.name}" batch_shape={self.batch_shape} '
                f"dtype={self.dtype.name}>")

    # --- generic implementations through the dense matrix --------------------------------------
    def _shape(self):
        raise NotImplementedError

    def _to_dense(self):
        raise NotImplementedError

    def to_dense(self, name="to_dense"):
        """The operator as a dense ``[batch..., M, N]`` tensor."""
        return self._to_dense()

    def _arg(self, x):
        return t(x, dtype=self.dtype)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``op @ x`` (``op^H`` if ``adjoint``; ``x^H`` if ``adjoint_arg``); ``x`` may be an operator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        return self._matmul(self._arg(x), adjoint, adjoint_arg)

    def _matmul(self, x, adjoint, adjoint_arg):
        return matmul_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``op @ x`` for vectors ``x`` (``[batch..., N]``)."""
        x = self._arg(x)
        return array_shape.squeeze(self._matmul(array_shape.expand_dims(x, -1), adjoint, False), -1)

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be "
                                      "square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``op @ X = rhs`` (``op^H`` if ``adjoint``); ``rhs`` may be an operator."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.inverse().adjoint() if adjoint else self.inverse()
            return left.matmul(rhs, adjoint_arg=adjoint_arg)
        rhs = self._arg(rhs)
        if adjoint_arg:
            rhs = linalg.adjoint(rhs)
        return self._solve(rhs, adjoint)

    def _solve(self, rhs, adjoint):
        m = self.to_dense()
        return linalg_decomp.solve(m, _bcast_rhs(rhs, m), adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``op @ x = rhs`` for vectors."""
        self._check_solvable()
        rhs = self._arg(rhs)
        return array_shape.squeeze(self._solve(array_shape.expand_dims(rhs, -1), adjoint), -1)

    def _check_square(self, what):
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is expected to not be square.")

    def determinant(self, name="det"):
        """The determinant of each matrix of the batch."""
        self._check_square("Determinant")
        return self._determinant()

    def _determinant(self):
        return linalg_decomp.det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """log |det| of each matrix of the batch."""
        self._check_square("Determinant")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return linalg_decomp.slogdet(self.to_dense())[1]

    def diag_part(self, name="diag_part"):
        """The main diagonal ``[batch..., min(M, N)]``."""
        return self._diag_part()

    def _diag_part(self):
        return linalg.diag_part(self.to_dense())

    def trace(self, name="trace"):
        """The sum of the main diagonal."""
        return reduce.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``to_dense() + x``."""
        return self.to_dense() + self._arg(x)

    def adjoint(self, name="adjoint"):
        """The adjoint operator (``self`` when it is self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        return LinearOperatorAdjoint(self)

    H = property(lambda self: self.adjoint())

    def inverse(self, name="inverse"):
        """The inverse operator."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor, as an operator."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition is only defined for self-adjoint positive definite operators "
                             "(set is_self_adjoint=True and is_positive_definite=True).")
        return LinearOperatorLowerTriangular(linalg_decomp.cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    def eigvals(self, name="eigvals"):
        """Eigenvalues of a self-adjoint operator, ascending."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return linalg_decomp.eigvalsh(self.to_dense())

    def cond(self, name="cond"):
        """The condition number ``max(s) / min(s)`` of the singular values."""
        s = linalg_decomp.svd(self.to_dense(), compute_uv=False)
        return reduce.reduce_max(s, axis=-1) / reduce.reduce_min(s, axis=-1)

    def _eager_check(self, ok, message):
        v = self.to_dense()
        if hasattr(v, "numpy") and not ok(np.asarray(v.numpy())):
            raise errors.InvalidArgumentError(None, None, message)

    def assert_non_singular(self, name="assert_non_singular"):
        """Raises ``InvalidArgumentError`` (eagerly) when a matrix of the batch is singular."""
        self._eager_check(lambda m: np.all(np.abs(np.linalg.det(m)) > 0) if m.size else True,
                          "Singular operator: a matrix of the batch has a zero determinant.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """Raises ``InvalidArgumentError`` (eagerly) when a matrix is not positive definite."""
        def ok(m):
            try:
                np.linalg.cholesky((m + np.conj(np.swapaxes(m, -1, -2))) / 2)
                return True
            except np.linalg.LinAlgError:
                return False
        self._eager_check(ok, "Cholesky decomposition was not successful. The input might not be valid.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """Raises ``InvalidArgumentError`` (eagerly) when a matrix is not self-adjoint."""
        self._eager_check(lambda m: np.allclose(m, np.conj(np.swapaxes(m, -1, -2))),
                          "Matrix was not equal to its adjoint.")


def _bcast_rhs(rhs, m):
    """Broadcast the batch dimensions of ``rhs`` and the matrix ``m`` (solve needs equal ones)."""
    lead = _broadcast_batch(m.shape[:-2], rhs.shape[:-2])
    if tuple(rhs.shape[:-2]) != lead:
        rhs = array_shape.broadcast_to(rhs, list(lead) + list(rhs.shape[-2:]))
    return rhs


def _float_check(x, allowed, cls):
    if x.dtype not in allowed:
        raise TypeError(f"Argument of {cls} must have dtype in {[d.name for d in allowed]}. Found: {x.dtype.name}")


_FLOATS = (D.float16, D.bfloat16, D.float32, D.float64, D.complex64, D.complex128)


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """An operator over a dense ``[batch..., M, N]`` matrix.

    >>> float(tf.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]).determinant())
    -2.0
    """

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = t(matrix)
        _float_check(self._matrix, _FLOATS, "LinearOperatorFullMatrix")
        super().__init__(self._matrix.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, {"matrix": matrix})

    def _shape(self):
        return tuple(self._matrix.shape)

    def _to_dense(self):
        return self._matrix


@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(LinearOperator):
    """The square diagonal operator ``diag(d)`` of a ``[batch..., N]`` diagonal.

    >>> tf.linalg.LinearOperatorDiag([2., 4.]).solvevec([2., 2.]).numpy()
    array([1. , 0.5], dtype=float32)
    """

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorDiag"):
        self._diag = t(diag)
        _float_check(self._diag, _FLOATS, "LinearOperatorDiag")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"diag": diag})

    diag = property(lambda self: self._diag)

    def _shape(self):
        s = tuple(self._diag.shape)
        return s + (s[-1],)

    def _to_dense(self):
        return linalg.diag(self._diag)

    def _d(self, adjoint):
        return math_unary.conj(self._diag) if adjoint and self.dtype.is_complex else self._diag

    def _matmul(self, x, adjoint, adjoint_arg):
        x = linalg.adjoint(x) if adjoint_arg else x
        return array_shape.expand_dims(self._d(adjoint), -1) * x

    def _solve(self, rhs, adjoint):
        return rhs / array_shape.expand_dims(self._d(adjoint), -1)

    def _determinant(self):
        return reduce.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        a = math_unary.abs(self._diag)
        return reduce.reduce_sum(math_unary.log(a), axis=-1)

    def _diag_part(self):
        return self._diag

    def inverse(self, name="inverse"):
        super().inverse()
        return LinearOperatorDiag(1 / self._diag, is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite)


def _eye_shape(num_rows, num_columns, batch_shape):
    n = int(t(num_rows).numpy()) if not isinstance(num_rows, (int, np.integer)) else int(num_rows)
    if n < 0:
        raise ValueError(f"Argument num_rows must be non-negative. Found: {n}")
    m = n if num_columns is None else int(num_columns if isinstance(num_columns, (int, np.integer))
                                          else t(num_columns).numpy())
    b = () if batch_shape is None else tuple(int(v) for v in np.asarray(
        batch_shape.numpy() if hasattr(batch_shape, "numpy") else batch_shape).reshape(-1))
    return n, m, b


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(LinearOperator):
    """The identity operator ``I`` of size ``num_rows`` (with an optional batch shape).

    >>> tf.linalg.LinearOperatorIdentity(2).matvec([1., 2.]).numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        for flag, what in ((is_non_singular, "non-singular"), (is_self_adjoint, "self-adjoint"),
                           (is_positive_definite, "positive definite"), (is_square, "square")):
            if not flag:
                raise ValueError(f"An identity operator is always {what}.")
        self._n, _, self._b = _eye_shape(num_rows, None, batch_shape)
        super().__init__(dtype or D.float32, None, True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return self._b + (self._n, self._n)

    def _to_dense(self):
        return creation.eye(self._n, batch_shape=list(self._b), dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = linalg.adjoint(x) if adjoint_arg else x
        lead = _broadcast_batch(self._b, x.shape[:-2])
        return array_shape.broadcast_to(x, list(lead) + list(x.shape[-2:])) if lead != tuple(x.shape[:-2]) else x

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, False, False)

    def _determinant(self):
        return creation.ones(list(self._b), self.dtype)

    def _log_abs_determinant(self):
        return creation.zeros(list(self._b), self.dtype)

    def _diag_part(self):
        return creation.ones(list(self._b) + [self._n], self.dtype)

    def inverse(self, name="inverse"):
        return self


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` (``multiplier`` has the batch shape).

    >>> float(tf.linalg.LinearOperatorScaledIdentity(2, 3.).determinant())
    9.0
    """

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        self._multiplier = t(multiplier)
        self._n, _, _ = _eye_shape(num_rows, None, None)
        if not self._multiplier.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"num_rows": num_rows, "multiplier": multiplier})

    multiplier = property(lambda self: self._multiplier)

    def _shape(self):
        return tuple(self._multiplier.shape) + (self._n, self._n)

    def _m(self, adjoint):
        m = math_unary.conj(self._multiplier) if adjoint and self.dtype.is_complex else self._multiplier
        return array_shape.expand_dims(array_shape.expand_dims(m, -1), -1)

    def _to_dense(self):
        return self._m(False) * creation.eye(self._n, dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._m(adjoint) * (linalg.adjoint(x) if adjoint_arg else x)

    def _solve(self, rhs, adjoint):
        return rhs / self._m(adjoint)

    def _determinant(self):
        return self._multiplier ** self._n

    def _log_abs_determinant(self):
        return self._n * math_unary.log(math_unary.abs(self._multiplier))

    def _diag_part(self):
        return array_shape.expand_dims(self._multiplier, -1) * creation.ones([self._n], self.dtype)


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(LinearOperator):
    """The all-zeros ``[batch..., num_rows, num_columns]`` operator.

    >>> tf.linalg.LinearOperatorZeros(2).to_dense().numpy()
    array([[0., 0.],
           [0., 0.]], dtype=float32)
    """

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is always not positive-definite.")
        self._n, self._m, self._b = _eye_shape(num_rows, num_columns, batch_shape)
        square = self._n == self._m
        super().__init__(dtype or D.float32, None, False, is_self_adjoint if square else None, False,
                         square, name, {"num_rows": num_rows, "num_columns": num_columns,
                                        "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return self._b + (self._n, self._m)

    def _to_dense(self):
        return creation.zeros(list(self._b) + [self._n, self._m], self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = linalg.adjoint(x) if adjoint_arg else x
        rows = self._m if adjoint else self._n
        lead = _broadcast_batch(self._b, x.shape[:-2])
        return creation.zeros(list(lead) + [rows, x.shape[-1]], self.dtype)

    def _determinant(self):
        return creation.zeros(list(self._b), self.dtype)

    def _diag_part(self):
        return creation.zeros(list(self._b) + [min(self._n, self._m)], self.dtype)


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """The square lower-triangular operator of ``tril`` (its strict upper triangle is ignored).

    >>> float(tf.linalg.LinearOperatorLowerTriangular([[2., 9.], [1., 4.]]).determinant())
    8.0
    """

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = linalg.band_part(t(tril), -1, 0)
        _float_check(self._tril, _FLOATS, "LinearOperatorLowerTriangular")
        super().__init__(self._tril.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"tril": tril})

    def _shape(self):
        return tuple(self._tril.shape)

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint):
        return linalg_decomp.triangular_solve(self._tril, _bcast_rhs(rhs, self._tril), lower=True, adjoint=adjoint)

    def _determinant(self):
        return reduce.reduce_prod(linalg.diag_part(self._tril), axis=-1)

    def _log_abs_determinant(self):
        return reduce.reduce_sum(math_unary.log(math_unary.abs(linalg.diag_part(self._tril))), axis=-1)


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(LinearOperator):
    """The adjoint ``A^H`` of another operator.

    >>> tf.linalg.LinearOperatorAdjoint(tf.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]])).to_dense().numpy()
    array([[1., 3.],
           [2., 4.]], dtype=float32)
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        pick = lambda mine, theirs: theirs if mine is None else mine  # noqa: E731
        super().__init__(operator.dtype, None, pick(is_non_singular, operator.is_non_singular),
                         pick(is_self_adjoint, operator.is_self_adjoint),
                         pick(is_positive_definite, operator.is_positive_definite),
                         pick(is_square, operator.is_square), name or operator.name + "_adjoint",
                         {"operator": operator})

    operator = property(lambda self: self._operator)

    def _shape(self):
        s = self._operator._shape()
        return tuple(s[:-2]) + (s[-1], s[-2])

    def _to_dense(self):
        return linalg.adjoint(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator._matmul(x, not adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator._solve(rhs, not adjoint)

    def _determinant(self):
        d = self._operator.determinant()
        return math_unary.conj(d) if self.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def adjoint(self, name="adjoint"):
        return self._operator


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(LinearOperator):
    """The inverse ``A^-1`` of a square, non-singular operator (products are its solves).

    >>> tf.linalg.LinearOperatorInversion(tf.linalg.LinearOperatorDiag([2., 4.])).to_dense().numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and supplied hints must have is_non_singular equal to True or None.")
        if operator.is_square is False or is_square is False:
            raise ValueError("operator and supplied hints must have is_square equal to True or None.")
        self._operator = operator
        pick = lambda mine, theirs: theirs if mine is None else mine  # noqa: E731
        super().__init__(operator.dtype, None, pick(is_non_singular, operator.is_non_singular),
                         pick(is_self_adjoint, operator.is_self_adjoint),
                         pick(is_positive_definite, operator.is_positive_definite), True,
                         name or operator.name + "_inv", {"operator": operator})

    operator = property(lambda self: self._operator)

    def _shape(self):
        return self._operator._shape()

    def _to_dense(self):
        return linalg_decomp.inv(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator._solve(linalg.adjoint(x) if adjoint_arg else x, adjoint)

    def _solve(self, rhs, adjoint):
        return self._operator._matmul(rhs, adjoint, False)

    def _determinant(self):
        return 1 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -self._operator.log_abs_determinant()

    def inverse(self, name="inverse"):
        return self._operator


def _same_dtype(operators, cls):
    d = operators[0].dtype
    for op in operators:
        if op.dtype != d:
            names = [o.name for o in operators]
            raise TypeError(f"Expected all operators to have the same dtype.  Found {[o.dtype.name for o in operators]}"
                            f" for {names} ({cls}).")
    return d


def _all_true(flags):
    return True if all(f is True for f in flags) else None


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(LinearOperator):
    """The product ``A1 @ A2 @ ... @ Ak`` of operators.

    >>> d = tf.linalg.LinearOperatorDiag([1., 2.])
    >>> tf.linalg.LinearOperatorComposition([d, d]).diag_part().numpy()
    array([1., 4.], dtype=float32)
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        d = _same_dtype(operators, "LinearOperatorComposition")  # shapes are checked when used, as TF
        self._operators = operators
        if is_non_singular is None:
            is_non_singular = _all_true(o.is_non_singular for o in operators)
        super().__init__(d, None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(o.name for o in operators), {"operators": operators})

    operators = property(lambda self: list(self._operators))

    def _shape(self):
        b = _broadcast_batch(*(o._shape()[:-2] for o in self._operators))
        return b + (self._operators[0]._shape()[-2], self._operators[-1]._shape()[-1])

    def _to_dense(self):
        out = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            out = op.matmul(out)
        return out

    def _matmul(self, x, adjoint, adjoint_arg):
        ops = self._operators
        if adjoint:
            out = ops[0]._matmul(x, True, adjoint_arg)
            for op in ops[1:]:
                out = op._matmul(out, True, False)
            return out
        out = ops[-1]._matmul(x, False, adjoint_arg)
        for op in reversed(ops[:-1]):
            out = op._matmul(out, False, False)
        return out

    def _solve(self, rhs, adjoint):
        ops = self._operators
        if adjoint:
            out = rhs
            for op in reversed(ops):
                out = op._solve(out, True)
            return out
        out = rhs
        for op in ops:
            out = op._solve(out, False)
        return out

    def _determinant(self):
        out = self._operators[0].determinant()
        for op in self._operators[1:]:
            out = out * op.determinant()
        return out

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = out + op.log_abs_determinant()
        return out


def _dense_batch(op, lead):
    d = op.to_dense()
    if tuple(d.shape[:-2]) != tuple(lead):
        d = array_shape.broadcast_to(d, list(lead) + list(d.shape[-2:]))
    return d


def _block_rows(rows, lead, widths, dtype):
    """A dense matrix from rows of blocks; a None block is zeros of its row's height and column's width."""
    out = []
    for row in rows:
        h = next(b.shape[-2] for b in row if b is not None)
        parts = [b if b is not None else creation.zeros(list(lead) + [h, w], dtype) for b, w in zip(row, widths)]
        out.append(array_blocks.concat(parts, -1))
    return array_blocks.concat(out, -2)


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator ``diag(A1, ..., Ak)``.

    >>> op = tf.linalg.LinearOperatorBlockDiag([tf.linalg.LinearOperatorDiag([1.]),
    ...                                         tf.linalg.LinearOperatorFullMatrix([[2., 3.], [4., 5.]])])
    >>> op.shape
    TensorShape([3, 3])
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        d = _same_dtype(operators, "LinearOperatorBlockDiag")
        self._operators = operators
        if is_non_singular is None:
            is_non_singular = _all_true(o.is_non_singular for o in operators)
        if is_self_adjoint is None:
            is_self_adjoint = _all_true(o.is_self_adjoint for o in operators)
        if is_positive_definite is None:
            is_positive_definite = _all_true(o.is_positive_definite for o in operators)
        super().__init__(d, None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_ds_".join(o.name for o in operators), {"operators": operators})

    operators = property(lambda self: list(self._operators))

    def _lead(self):
        return _broadcast_batch(*(o._shape()[:-2] for o in self._operators))

    def _shape(self):
        return self._lead() + (sum(o._shape()[-2] for o in self._operators),
                               sum(o._shape()[-1] for o in self._operators))

    def _to_dense(self):
        lead = self._lead()
        widths = [o._shape()[-1] for o in self._operators]
        rows = [[_dense_batch(o, lead) if i == j else None for j in range(len(self._operators))]
                for i, o in enumerate(self._operators)]
        return _block_rows(rows, lead, widths, self.dtype)

    def _determinant(self):
        out = self._operators[0].determinant()
        for op in self._operators[1:]:
            out = out * op.determinant()
        return out

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = out + op.log_abs_determinant()
        return out


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A square block lower-triangular operator: ``operators[i]`` lists the blocks of row ``i`` up to the diagonal.

    >>> d = tf.linalg.LinearOperatorDiag([2.])
    >>> tf.linalg.LinearOperatorBlockLowerTriangular([[d], [d, d]]).to_dense().numpy()
    array([[2., 0.],
           [2., 2.]], dtype=float32)
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        operators = [list(r) for r in operators]
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Found: {len(row)} "
                                 "blocks.")
        d = _same_dtype([o for r in operators for o in r], "LinearOperatorBlockLowerTriangular")
        self._operators = operators
        if is_non_singular is None:
            is_non_singular = _all_true(r[-1].is_non_singular for r in operators)
        super().__init__(d, None, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"operators": operators})

    operators = property(lambda self: [list(r) for r in self._operators])

    def _lead(self):
        return _broadcast_batch(*(o._shape()[:-2] for r in self._operators for o in r))

    def _shape(self):
        n = sum(r[-1]._shape()[-1] for r in self._operators)
        return self._lead() + (n, n)

    def _to_dense(self):
        lead = self._lead()
        widths = [r[-1]._shape()[-1] for r in self._operators]
        k = len(self._operators)
        rows = [[_dense_batch(r[j], lead) if j < len(r) else None for j in range(k)] for r in self._operators]
        return _block_rows(rows, lead, widths, self.dtype)

    def _determinant(self):
        out = self._operators[0][0].determinant()
        for r in self._operators[1:]:
            out = out * r[-1].determinant()
        return out

    def _log_abs_determinant(self):
        out = self._operators[0][0].log_abs_determinant()
        for r in self._operators[1:]:
            out = out + r[-1].log_abs_determinant()
        return out


def _kron(a, b):
    lead = _broadcast_batch(a.shape[:-2], b.shape[:-2])
    m, n = a.shape[-2], a.shape[-1]
    p, q = b.shape[-2], b.shape[-1]
    ea = array_shape.reshape(a, list(a.shape[:-2]) + [m, 1, n, 1])
    eb = array_shape.reshape(b, list(b.shape[:-2]) + [1, p, 1, q])
    return array_shape.reshape(ea * eb, list(lead) + [m * p, n * q])


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``A1 ⊗ A2 ⊗ ... ⊗ Ak``.

    >>> i2 = tf.linalg.LinearOperatorIdentity(2)
    >>> tf.linalg.LinearOperatorKronecker([i2, tf.linalg.LinearOperatorDiag([1., 3.])]).diag_part().numpy()
    array([1., 3., 1., 3.], dtype=float32)
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a list of >=1 operators. Found: {operators}")
        d = _same_dtype(operators, "LinearOperatorKronecker")
        self._operators = operators
        if is_non_singular is None:
            is_non_singular = _all_true(o.is_non_singular for o in operators)
        if is_self_adjoint is None:
            is_self_adjoint = _all_true(o.is_self_adjoint for o in operators)
        super().__init__(d, None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_x_".join(o.name for o in operators), {"operators": operators})

    operators = property(lambda self: list(self._operators))

    def _shape(self):
        b = _broadcast_batch(*(o._shape()[:-2] for o in self._operators))
        return b + (int(np.prod([o._shape()[-2] for o in self._operators])),
                    int(np.prod([o._shape()[-1] for o in self._operators])))

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            out = _kron(out, op.to_dense())
        return out

    def _determinant(self):
        n = self._shape()[-1]
        out = None
        for op in self._operators:
            term = op.determinant() ** (n // op._shape()[-1])
            out = term if out is None else out * term
        return out

    def _log_abs_determinant(self):
        n = self._shape()[-1]
        out = None
        for op in self._operators:
            term = op.log_abs_determinant() * float(n // op._shape()[-1])
            out = term if out is None else out + term
        return out


@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """``A + U diag(d) V^H`` for a base operator ``A`` (``V`` defaults to ``U``, ``d`` to ones).

    >>> u = tf.constant([[1.], [1.]])
    >>> tf.linalg.LinearOperatorLowRankUpdate(tf.linalg.LinearOperatorIdentity(2), u).to_dense().numpy()
    array([[2., 1.],
           [1., 2.]], dtype=float32)
    """

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        self._base = base_operator
        self._u = t(u, dtype=base_operator.dtype)
        self._v = self._u if v is None else t(v, dtype=base_operator.dtype)
        self._d = None if diag_update is None else t(diag_update, dtype=base_operator.dtype)
        self._is_diag_update_positive = is_diag_update_positive
        if is_self_adjoint is None and v is None and base_operator.is_self_adjoint and (
                diag_update is None or not self._d.dtype.is_complex):
            is_self_adjoint = True
        super().__init__(base_operator.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                                           "v": v})

    base_operator = property(lambda self: self._base)
    u = property(lambda self: self._u)
    v = property(lambda self: self._v)
    diag_update = property(lambda self: self._d)
    is_diag_update_positive = property(lambda self: self._is_diag_update_positive)

    def _shape(self):
        b = _broadcast_batch(self._base._shape()[:-2], tuple(self._u.shape[:-2]))
        return b + tuple(self._base._shape()[-2:])

    def _to_dense(self):
        u = self._u if self._d is None else self._u * array_shape.expand_dims(self._d, -2)
        return self._base.to_dense() + matmul_ops.matmul(u, self._v, adjoint_b=True)


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(LinearOperator):
    """The Householder reflection ``I - 2 v v^H / (v^H v)`` about the hyperplane orthogonal to ``reflection_axis``.

    >>> tf.linalg.LinearOperatorHouseholder([1., 0.]).to_dense().numpy()
    array([[-1.,  0.],
           [ 0.,  1.]], dtype=float32)
    """

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        self._axis = t(reflection_axis)
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is never positive-definite.")
        super().__init__(self._axis.dtype, None, is_non_singular, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    reflection_axis = property(lambda self: self._axis)

    def _shape(self):
        s = tuple(self._axis.shape)
        return s + (s[-1],)

    def _to_dense(self):
        v = array_shape.expand_dims(self._axis, -1)
        vv = matmul_ops.matmul(v, v, adjoint_b=True)
        norm = array_shape.expand_dims(array_shape.expand_dims(reduce.reduce_sum(
            self._axis * (math_unary.conj(self._axis) if self.dtype.is_complex else self._axis), axis=-1), -1), -1)
        return creation.eye(self._axis.shape[-1], dtype=self.dtype) - 2 * vv / norm

    def _determinant(self):
        return -creation.ones(list(self._axis.shape[:-1]), self.dtype)

    def _log_abs_determinant(self):
        return creation.zeros(list(self._axis.shape[:-1]), self.dtype)


@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P`` with ``P @ x = x[perm]``.

    >>> tf.linalg.LinearOperatorPermutation([1, 2, 0]).matvec([10., 20., 30.]).numpy()
    array([20., 30., 10.], dtype=float32)
    """

    def __init__(self, perm, dtype=D.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = t(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm.dtype}")
        if is_non_singular is False:
            raise ValueError(f"A Permutation operator is always non-singular. Expected argument `is_non_singular`"
                             f" to be True. Received: {is_non_singular}.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"perm": perm, "dtype": dtype})

    perm = property(lambda self: self._perm)

    def _shape(self):
        s = tuple(self._perm.shape)
        return s + (s[-1],)

    def _to_dense(self):
        return array_select.one_hot(self._perm, self._perm.shape[-1], dtype=self.dtype)


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is ignored).

    >>> tf.linalg.LinearOperatorToeplitz([1., 2.], [1., 3.]).to_dense().numpy()
    array([[1., 3.],
           [2., 1.]], dtype=float32)
    """

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        self._col = t(col)
        self._row = t(row, dtype=self._col.dtype)
        super().__init__(self._col.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"col": col, "row": row})

    col = property(lambda self: self._col)
    row = property(lambda self: self._row)

    def _shape(self):
        b = _broadcast_batch(self._col.shape[:-1], self._row.shape[:-1])
        n = self._col.shape[-1]
        return b + (n, n)

    def _to_dense(self):
        n = self._col.shape[-1]
        lead = _broadcast_batch(self._col.shape[:-1], self._row.shape[:-1])
        col = array_shape.broadcast_to(self._col, list(lead) + [n])
        row = array_shape.broadcast_to(self._row, list(lead) + [n])
        c = array_blocks.concat([array_select.reverse(row[..., 1:], [-1]), col], -1)  # c[n-1+k] = col[k]
        idx = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return gather_scatter.gather(c, idx, axis=-1, batch_dims=0) if not lead else gather_scatter.gather(
            c, np.broadcast_to(idx, lead + (n, n)), axis=-1, batch_dims=len(lead))


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(LinearOperator):
    """The square tridiagonal operator of ``diagonals`` (``compact`` [..., 3, N], ``sequence`` or ``matrix``).

    >>> tf.linalg.LinearOperatorTridiag([[1., 0.], [2., 2.], [0., 3.]]).to_dense().numpy()
    array([[2., 1.],
           [3., 2.]], dtype=float32)
    """

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError(f"Diagonals Format must be one of compact, matrix, sequence, got : {diagonals_format}")
        self._diagonals = diagonals if diagonals_format == "sequence" else t(diagonals)
        self._format = diagonals_format
        self._sup, self._main, self._sub = linalg_extra._diagonals(self._diagonals, diagonals_format)
        super().__init__(self._main.dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"diagonals": diagonals, "diagonals_format": diagonals_format})

    diagonals = property(lambda self: self._diagonals)
    diagonals_format = property(lambda self: self._format)

    def _shape(self):
        s = tuple(self._main.shape)
        return s + (s[-1],)

    def _to_dense(self):
        return linalg_extra._tridiag_dense(self._sup, self._main, self._sub)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = linalg.adjoint(x) if adjoint_arg else x
        if adjoint:
            return super()._matmul(x, True, False)
        return linalg_extra.tridiagonal_matmul((self._sup, self._main, self._sub), x, diagonals_format="sequence")

    def _diag_part(self):
        return self._main


class _BaseCirculant(LinearOperator):
    """Circulant operators of ``rank`` dimensions: ``F^H diag(spectrum) F`` for the rank-d DFT ``F``."""

    _rank = 1

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        spectrum = t(spectrum)
        allowed = (D.float16, D.float32, D.float64, D.complex64, D.complex128)
        if spectrum.dtype not in allowed:
            raise TypeError(f"Argument spectrum must have dtype in {[d.name for d in allowed]}. Found: "
                            f"{spectrum.dtype.name}")
        self._spectrum = spectrum
        cdt = D.complex128 if spectrum.dtype in (D.float64, D.complex128) else D.complex64
        self._cspectrum = spectrum if spectrum.dtype.is_complex else math_binary.cast(spectrum, cdt)
        if not spectrum.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(input_output_dtype, None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    spectrum = property(lambda self: self._spectrum)

    def _block_shape(self):
        return tuple(self._spectrum.shape[-self._rank:])

    def _shape(self):
        n = int(np.prod(self._block_shape()))
        return tuple(self._spectrum.shape[:-self._rank]) + (n, n)

    def convolution_kernel(self, name="convolution_kernel"):
        """The kernel ``h`` (inverse DFT of the spectrum): the operator convolves with it."""
        ifft = {1: signal_fft.ifft, 2: signal_fft.ifft2d, 3: signal_fft.ifft3d}[self._rank]
        h = ifft(self._cspectrum)
        return h if self.dtype.is_complex else math_binary.cast(math_unary.real(h), self.dtype)

    def _to_dense(self):
        dims = self._block_shape()
        h = self.convolution_kernel()
        lead = list(h.shape[:-self._rank])
        flat = array_shape.reshape(h, lead + [int(np.prod(dims))])
        grids = np.indices(dims).reshape(self._rank, -1)  # multi-index of each row/column
        diff = (grids[:, :, None] - grids[:, None, :]) % np.asarray(dims)[:, None, None]
        idx = np.ravel_multi_index(tuple(diff), dims)
        if not lead:
            return gather_scatter.gather(flat, idx, axis=-1)
        return gather_scatter.gather(flat, np.broadcast_to(idx, tuple(lead) + idx.shape), axis=-1,
                                     batch_dims=len(lead))

    def _determinant(self):
        d = reduce.reduce_prod(array_shape.reshape(self._cspectrum, list(self._spectrum.shape[:-self._rank]) + [-1]),
                               axis=-1)
        return d if self.dtype.is_complex else math_binary.cast(math_unary.real(d), self.dtype)

    def _log_abs_determinant(self):
        a = math_unary.abs(self._cspectrum)
        r = reduce.reduce_sum(array_shape.reshape(math_unary.log(a), list(self._spectrum.shape[:-self._rank])
                                                  + [-1]), axis=-1)
        return math_binary.cast(r, self.dtype) if self.dtype.is_complex else math_binary.cast(r, self.dtype)


@tf_export("linalg.LinearOperatorCirculant")
class LinearOperatorCirculant(_BaseCirculant):
    """The circulant operator with DFT ``spectrum`` ``[batch..., N]``.

    >>> tf.linalg.LinearOperatorCirculant([6., 0., 0.], input_output_dtype=tf.float32).to_dense().numpy()
    array([[2., 2., 2.],
           [2., 2., 2.],
           [2., 2., 2.]], dtype=float32)
    """

    _rank = 1

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)


@tf_export("linalg.LinearOperatorCirculant2D")
class LinearOperatorCirculant2D(_BaseCirculant):
    """The block-circulant operator with circulant blocks, from a 2-D ``spectrum`` ``[batch..., N0, N1]``.

    >>> tf.linalg.LinearOperatorCirculant2D(tf.ones([2, 2])).shape
    TensorShape([4, 4])
    """

    _rank = 2

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant2D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)


@tf_export("linalg.LinearOperatorCirculant3D")
class LinearOperatorCirculant3D(_BaseCirculant):
    """The nested block-circulant operator of a 3-D ``spectrum`` ``[batch..., N0, N1, N2]``.

    >>> tf.linalg.LinearOperatorCirculant3D(tf.ones([2, 2, 2])).shape
    TensorShape([8, 8])
    """

    _rank = 3

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant3D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)


CGState = namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


@tf_export("linalg.experimental.conjugate_gradient")
def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """Solves ``operator @ x = rhs`` for a self-adjoint positive definite operator by conjugate gradients; stops
    after ``max_iter`` steps or when every residual norm is below ``tol * |rhs|``.  Returns ``CGState(i, x, r, p,
    gamma)``.

    >>> op = tf.linalg.LinearOperatorFullMatrix([[4., 1.], [1., 3.]], is_self_adjoint=True,
    ...                                          is_positive_definite=True)
    >>> tf.linalg.experimental.conjugate_gradient(op, tf.constant([1., 2.])).x.numpy()
    array([0.09090909, 0.6363636 ], dtype=float32)
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    if preconditioner is not None and not (preconditioner.is_self_adjoint and preconditioner.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite preconditioner.")
    rhs = t(rhs, dtype=operator.dtype)

    def dot(a, b):
        return reduce.reduce_sum((math_unary.conj(a) if a.dtype.is_complex else a) * b, axis=-1)

    def norm(v):
        return linalg.norm(v, axis=-1)

    lead = _broadcast_batch(tuple(rhs.shape[:-1]), operator._shape()[:-2],
                            () if preconditioner is None else preconditioner._shape()[:-2])
    r0 = array_shape.broadcast_to(rhs, list(lead) + [rhs.shape[-1]])
    tol = tol * norm(r0)
    if x is None:
        x = creation.zeros(list(lead) + [rhs.shape[-1]], rhs.dtype)
    else:
        x = t(x, dtype=rhs.dtype)
        r0 = rhs - operator.matvec(x)
    p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
    state = CGState(t(np.int32(0)), x, r0, p0, dot(r0, p0))

    def running(s):
        return math_binary.logical_and(math_binary.less(s.i, max_iter),
                                       reduce.reduce_any(math_binary.greater(norm(s.r), tol)))

    def step(s):
        z = operator.matvec(s.p)
        alpha = array_shape.expand_dims(s.gamma / dot(s.p, z), -1)
        xn = s.x + alpha * s.p
        r = s.r - alpha * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = dot(r, q)
        p = q + array_shape.expand_dims(gamma / s.gamma, -1) * s.p
        return CGState(s.i + 1, xn, r, p, gamma)

    from tensorlet._src.framework import context

    if context.executing_eagerly():
        while bool(running(state)):
            state = step(state)
        return state
    for _ in range(int(max_iter)):  # traced: masked steps (the loop condition is one scalar, as TF's while_loop)
        go = running(state)
        new = step(state)
        state = CGState(*(array_select.where(go, a, b) for a, b in zip(new, state)))
    return state


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    array_shape,
    creation,
    gather_scatter,
    linalg,
    linalg_decomp,
    linalg_extra,
    math_binary,
    math_unary,
    reduce,
    signal_fft,
)
from tensorlet._src.ops import matmul as matmul_ops  # noqa: E402
