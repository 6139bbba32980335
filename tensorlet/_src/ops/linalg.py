"""``tf.linalg`` structure ops: band parts, diagonals, trace, transposes, matvec, cross, norms.

Decompositions and solvers live in ``linalg_decomp``, the larger gradients (norms, decompositions) in
``linalg_grad``.  Shared helpers for both modules: ``matrix_check`` (rank >= 2, square) and ``lapack_in`` (LAPACK
has no half precision, so float16/bfloat16 are computed in float32 and cast back).
"""

from __future__ import annotations

import functools

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
NOT_STRING = tuple(d for d in D.ALL if d._kind not in "sr")


# --- shared helpers -----------------------------------------------------------------

def dims(x):
    """The static dims of ``x`` as a list (entries may be None), or None for unknown rank."""
    s = x.shape
    return None if s.rank is None else s.as_list()


def matrix_check(op_name, square=True, index=0):
    """A ``check=`` rule: input ``index`` has rank >= 2 (and, if ``square``, is square), TF's messages."""

    def check(*inputs, **attrs):
        d = dims(inputs[index])
        if d is None:
            return
        if len(d) < 2:
            raise errors.invalid_argument(op_name, f"Input tensor {index} must have rank >= 2, got {len(d)}")
        if square and d[-1] is not None and d[-2] is not None and d[-1] != d[-2]:
            raise errors.invalid_argument(op_name, "Input matrix must be square.")

    return check


def lapack_in(x):
    """float16/bfloat16 have no LAPACK kernels: compute them in float32 (results are cast back)."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(np.float32)
    return x


def silent(kernel):
    """Silence NumPy's floating-point warnings for a LAPACK kernel (NaN/inf input, singular matrices): NumPy's
    linalg warns from its own module, which the registry's tensorlet-only warnings filter does not cover."""

    @functools.wraps(kernel)
    def run(xp, *arrays, **attrs):
        with np.errstate(all="ignore"):
            return kernel(xp, *arrays, **attrs)

    return run


# --- band part ------------------------------------------------------------------------

def _band_kernel(xp, x, num_lower=-1, num_upper=-1):
    m, n = x.shape[-2:]
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = np.ones((m, n), bool)
    if num_lower >= 0:
        keep &= (i - j) <= num_lower
    if num_upper >= 0:
        keep &= (j - i) <= num_upper
    return xp.where(keep, x, xp.zeros((), x.dtype))


def _band_check(x, num_lower=-1, num_upper=-1):
    d = dims(x)
    if d is None:
        return
    if len(d) < 2:
        raise errors.invalid_argument("MatrixBandPart", f"input must be at least 2-dim, received shape: "
                                                        f"{errors.shape_str(d)}")
    if d[-2] is not None and num_lower > d[-2]:
        raise errors.invalid_argument("MatrixBandPart", f"num_lower must be negative or less or equal to number "
                                                        f"of rows ({d[-2]}) got: {num_lower}")
    if d[-1] is not None and num_upper > d[-1]:
        raise errors.invalid_argument("MatrixBandPart", f"num_upper must be negative or less or equal to number "
                                                        f"of columns ({d[-1]}) got: {num_upper}")


BAND_PART = defop("MatrixBandPart", _band_kernel, dtypes=NOT_STRING, check=_band_check,
                  grad=lambda g, ans, x, num_lower=-1, num_upper=-1: bind(BAND_PART, g, num_lower=num_lower,
                                                                          num_upper=num_upper))


def _static_int(v, op_name, what):
    v = static(v)
    if isinstance(v, (list, tuple)):
        raise errors.invalid_argument(op_name, f"{what} must be scalar, got shape [{len(v)}]")
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype int64")
    return int(v)


@tf_export("linalg.band_part")
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """Keeps a band around the diagonal of each innermost matrix; ``-1`` keeps a whole triangle.

    >>> band_part([[1., 2.], [3., 4.]], 0, -1).numpy()
    array([[1., 2.],
           [0., 4.]], dtype=float32)
    """
    lo = _static_int(num_lower, "MatrixBandPart", "num_lower")
    hi = _static_int(num_upper, "MatrixBandPart", "num_upper")
    return bind(BAND_PART, t(input), num_lower=lo, num_upper=hi)


# --- diagonals (MatrixDiagV3 family: k may be one diagonal or a range) ----------------------

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_len(m, n, d):
    return max(0, min(m + min(d, 0), n - max(d, 0)))


def _right_aligned(d, align):
    return align.startswith("RIGHT") if d >= 0 else align.endswith("RIGHT")


def _diag_layout(m, n, k_lo, k_hi, align):
    """Index arrays (num_diags, max_len) mapping slots of the packed diagonals to matrix entries."""
    ds = list(range(k_hi, k_lo - 1, -1))
    lens = [_diag_len(m, n, d) for d in ds]
    max_len = max(lens)
    p = np.arange(max_len)
    rows, cols, valid = [], [], []
    for d, ln in zip(ds, lens):
        q = p - (max_len - ln if _right_aligned(d, align) else 0)
        valid.append((q >= 0) & (q < ln))
        q = np.clip(q, 0, max(ln - 1, 0))
        rows.append(np.clip(q + max(-d, 0), 0, max(m - 1, 0)))
        cols.append(np.clip(q + max(d, 0), 0, max(n - 1, 0)))
    return np.array(rows).reshape(len(ds), max_len), np.array(cols).reshape(len(ds), max_len), \
        np.array(valid).reshape(len(ds), max_len), max_len


def _slots(m, n, k_lo, k_hi, max_len, align):
    """For each matrix entry: (packed-diagonal row, slot) it comes from and whether it is on a kept diagonal."""
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    d = j - i
    ok = (d >= k_lo) & (d <= k_hi)
    dd = np.clip(d, k_lo, k_hi)
    lens = np.maximum(0, np.minimum(m + np.minimum(dd, 0), n - np.maximum(dd, 0)))
    right = np.where(dd >= 0, align.startswith("RIGHT"), align.endswith("RIGHT"))
    p = np.minimum(i, j) + np.where(right, max_len - lens, 0)
    ok &= p < max_len
    return np.clip(k_hi - dd, 0, k_hi - k_lo), np.clip(p, 0, max(max_len - 1, 0)), ok


def _diag_part_kernel(xp, x, padding, k_lo=0, k_hi=0, align="RIGHT_LEFT"):
    m, n = x.shape[-2:]
    rows, cols, valid, max_len = _diag_layout(m, n, k_lo, k_hi, align)
    batch = x.shape[:-2]
    if max_len == 0:
        out = xp.zeros(batch + (k_hi - k_lo + 1, 0), x.dtype)
    else:
        out = xp.where(valid, x[..., rows, cols], padding)
    return out[..., 0, :] if k_lo == k_hi else out


def _diag_kernel(xp, diagonal, padding, k_lo=0, k_hi=0, num_rows=0, num_cols=0, align="RIGHT_LEFT"):
    v = diagonal if k_lo != k_hi else diagonal[..., None, :]
    batch, max_len = v.shape[:-2], v.shape[-1]
    if max_len == 0 or num_rows == 0 or num_cols == 0:
        return xp.full(batch + (num_rows, num_cols), padding, dtype=diagonal.dtype)
    r, p, ok = _slots(num_rows, num_cols, k_lo, k_hi, max_len, align)
    return xp.where(ok, v[..., r, p], padding)


def _set_diag_kernel(xp, x, diagonal, k_lo=0, k_hi=0, align="RIGHT_LEFT"):
    m, n = x.shape[-2:]
    v = diagonal if k_lo != k_hi else diagonal[..., None, :]
    max_len = v.shape[-1]
    if max_len == 0 or m == 0 or n == 0:
        return x
    r, p, ok = _slots(m, n, k_lo, k_hi, max_len, align)
    return xp.where(ok, v[..., r, p], x)


# The three diagonal ops are each other's transposes (TF's gradients); padding values get no gradient.
def _zero(x):
    return creation.zeros([], x.dtype)


def _diag_grad(g, ans, diagonal, padding, k_lo=0, k_hi=0, num_rows=0, num_cols=0, align="RIGHT_LEFT"):
    return bind(DIAG_PART, g, _zero(g), k_lo=k_lo, k_hi=k_hi, align=align), None


def _diag_part_grad(g, ans, x, padding, k_lo=0, k_hi=0, align="RIGHT_LEFT"):
    m, n = x.shape[-2:]
    return bind(DIAG, g, _zero(g), k_lo=k_lo, k_hi=k_hi, num_rows=m, num_cols=n, align=align), None


def _set_diag_grad(g, ans, x, diagonal, k_lo=0, k_hi=0, align="RIGHT_LEFT"):
    return (bind(SET_DIAG, g, creation.zeros_like(diagonal), k_lo=k_lo, k_hi=k_hi, align=align),
            bind(DIAG_PART, g, _zero(g), k_lo=k_lo, k_hi=k_hi, align=align))


DIAG = defop("MatrixDiagV3", _diag_kernel, dtypes=NOT_STRING, grad=_diag_grad)
DIAG_PART = defop("MatrixDiagPartV3", _diag_part_kernel, dtypes=NOT_STRING, grad=_diag_part_grad)
SET_DIAG = defop("MatrixSetDiagV3", _set_diag_kernel, dtypes=NOT_STRING, grad=_set_diag_grad)


def _k_range(k, op_name):
    k = static(k)
    if isinstance(k, (list, tuple)):
        if len(k) == 1:
            k = (k[0], k[0])
        elif len(k) != 2:
            raise errors.invalid_argument(op_name, f"diag_index must be a scalar or vector with at most 2 "
                                                   f"elements, got {len(k)}")
        lo, hi = int(k[0]), int(k[1])
    else:
        lo = hi = int(k)
    if lo > hi:
        raise errors.invalid_argument(op_name, f"lower_diag_index must not be larger than upper_diag_index: "
                                               f"{lo} > {hi}")
    return lo, hi


def _align(align, op_name):
    if align not in _ALIGNS:
        raise errors.invalid_argument(op_name, f"Attr align has value '{align}' not in list of allowed values: "
                                               f"{', '.join(_ALIGNS)}")
    return align


def _need_rank2(x, op_name):
    d = dims(x)
    if d is not None and len(d) < 2:
        raise errors.invalid_argument(op_name, f"input must be at least 2-dim, received shape: {errors.shape_str(d)}")
    return d


def _check_k_bounds(op_name, m, n, lo, hi):
    for which, k in (("lower", lo), ("upper", hi)):
        if m is not None and n is not None and not (-m < k < n or k == 0):
            raise errors.invalid_argument(op_name, f"{which}_diag_index is out of bound: {k}. It must be between "
                                                   f"{-m} and {n}")


def _padding(padding_value, dtype):
    if isinstance(padding_value, int) and padding_value == 0:  # the default: also fine for bool/complex
        return t(np.zeros((), dtype.as_numpy_dtype))
    return t(padding_value, dtype=dtype)


@tf_export("linalg.diag")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched diagonal matrices from their diagonals (``k`` picks the diagonal, or a range of them).

    >>> diag([1., 2.]).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    diagonal = t(diagonal)
    lo, hi = _k_range(k, "MatrixDiagV3")
    align = _align(align, "MatrixDiagV3")
    d = dims(diagonal)
    nd = hi - lo + 1
    if len(d) < (1 if nd == 1 else 2):
        raise errors.invalid_argument("MatrixDiagV3", f"diagonal must be at least {1 if nd == 1 else 2}-dim, "
                                                      f"received shape: {errors.shape_str(d)}")
    if nd > 1 and d[-2] != nd:
        raise errors.invalid_argument("MatrixDiagV3", "The number of diagonals provided in the input does not "
                                                      "match the lower_diag_index and upper_diag_index range.")
    max_len = d[-1]
    rows, cols = int(static(num_rows)), int(static(num_cols))
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows:
        raise errors.invalid_argument("MatrixDiagV3", "The number of rows is too small.")
    if cols < min_cols:
        raise errors.invalid_argument("MatrixDiagV3", "The number of columns is too small.")
    if rows != min_rows and cols != min_cols:
        raise errors.invalid_argument("MatrixDiagV3", "The number of rows or columns is not consistent with the "
                                                      "specified d_lower, d_upper, and diagonal.")
    return bind(DIAG, diagonal, _padding(padding_value, diagonal.dtype), k_lo=lo, k_hi=hi, num_rows=rows,
                num_cols=cols, align=align)


@tf_export("linalg.diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """The diagonal(s) of each innermost matrix; ``k=(lo, hi)`` stacks a range of diagonals.

    >>> diag_part([[1., 2.], [3., 4.]]).numpy()
    array([1., 4.], dtype=float32)
    """
    x = t(input)
    lo, hi = _k_range(k, "MatrixDiagPartV3")
    align = _align(align, "MatrixDiagPartV3")
    d = _need_rank2(x, "MatrixDiagPartV3")
    if d is not None:
        _check_k_bounds("MatrixDiagPartV3", d[-2], d[-1], lo, hi)
    return bind(DIAG_PART, x, _padding(padding_value, x.dtype), k_lo=lo, k_hi=hi, align=align)


@tf_export("linalg.set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its diagonal(s) replaced by ``diagonal``.

    >>> set_diag([[1., 2.], [3., 4.]], [0., 0.]).numpy()
    array([[0., 2.],
           [3., 0.]], dtype=float32)
    """
    x, v = same_dtype("MatrixSetDiagV3", input, diagonal)
    lo, hi = _k_range(k, "MatrixSetDiagV3")
    align = _align(align, "MatrixSetDiagV3")
    d = _need_rank2(x, "MatrixSetDiagV3")
    if d is not None and None not in d[-2:]:
        m, n = d[-2], d[-1]
        _check_k_bounds("MatrixSetDiagV3", m, n, lo, hi)
        max_len = max(_diag_len(m, n, kk) for kk in range(lo, hi + 1))
        want = d[:-2] + ([hi - lo + 1] if lo != hi else []) + [max_len]
        got = dims(v)
        if got is not None and [g if g is not None else w for g, w in zip(got, want)] != want or \
                (got is not None and len(got) != len(want)):
            raise errors.invalid_argument(
                "MatrixSetDiagV3", "Either first dimensions of diagonal don't match input.shape[:-2], or "
                "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                f"[lower_diag_index:upper_diag_index].\nInput shape: {errors.shape_str(d)}\nDiagonal shape: "
                f"{errors.shape_str(got)}\nExpected diagonal shape: {errors.shape_str(want)}")
    return bind(SET_DIAG, x, v, k_lo=lo, k_hi=hi, align=align)


# --- tensor_diag / tensor_diag_part (Diag, DiagPart) ------------------------------------------

DIAG_TYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int32, D.int64, D.complex64, D.complex128)


def _tensor_diag_kernel(xp, x):
    return xp.diag(xp.reshape(x, (-1,))).reshape(x.shape + x.shape)


def _tensor_diag_part_kernel(xp, x):
    half = x.shape[: x.ndim // 2]
    n = int(np.prod(half, dtype=np.int64))
    return xp.diagonal(xp.reshape(x, (n, n))).reshape(half)


def _tensor_diag_check(x):
    if x.shape.rank == 0:
        raise errors.invalid_argument("Diag", "Input must be at least rank 1, got 0")


def _tensor_diag_part_check(x):
    d = dims(x)
    if d is None:
        return
    if len(d) % 2:
        raise errors.invalid_argument("DiagPart", f"The rank of the tensor should be even and positive, got shape "
                                                  f"{errors.shape_str(d)}")
    half = len(d) // 2
    for i in range(half):
        if d[i] is not None and d[i + half] is not None and d[i] != d[i + half]:
            raise errors.invalid_argument("DiagPart", f"Invalid shape {errors.shape_str(d)}: dimensions {i} and "
                                                      f"{i + half} do not match.")


TENSOR_DIAG = defop("Diag", _tensor_diag_kernel, dtypes=DIAG_TYPES, check=_tensor_diag_check,
                    grad=lambda g, ans, x: bind(TENSOR_DIAG_PART, g))
TENSOR_DIAG_PART = defop("DiagPart", _tensor_diag_part_kernel, dtypes=DIAG_TYPES, check=_tensor_diag_part_check,
                         grad=lambda g, ans, x: bind(TENSOR_DIAG, g))


@tf_export("linalg.tensor_diag")
def tensor_diag(diagonal, name=None):
    """A rank-2k tensor with ``diagonal`` (rank k) on its diagonal: ``out[i, j, i, j] = diagonal[i, j]``.

    >>> tensor_diag([1., 2.]).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    return bind(TENSOR_DIAG, t(diagonal))


@tf_export("linalg.tensor_diag_part")
def tensor_diag_part(input, name=None):  # noqa: A002 - TF's name
    """The inverse of ``tensor_diag``: ``out[i, j] = input[i, j, i, j]``.

    >>> tensor_diag_part([[1., 2.], [3., 4.]]).numpy()
    array([1., 4.], dtype=float32)
    """
    x = t(input)
    if x.shape.rank == 0:
        return x
    return bind(TENSOR_DIAG_PART, x)


# --- trace, transposes, matvec, cross ----------------------------------------------------------

@tf_export("linalg.trace")
def trace(x, name=None):
    """Sum of the main diagonal of each innermost matrix.

    >>> float(trace([[1., 2.], [3., 4.]]))
    5.0
    """
    from tensorlet._src.ops.reduce import reduce_sum

    return reduce_sum(diag_part(x), axis=-1)


@tf_export("linalg.matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the two innermost dimensions (``conjugate=True`` also conjugates).

    >>> matrix_transpose([[1., 2.]]).numpy()
    array([[1.],
           [2.]], dtype=float32)
    """
    a = t(a)
    rank = a.shape.rank
    if rank is not None and rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with "
                         f"shape: {tuple(a.shape.as_list())}")
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    from tensorlet._src.ops.array_shape import transpose

    return transpose(a, perm, conjugate=conjugate)


@tf_export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of each innermost matrix.

    >>> adjoint([[1j, 2.]]).numpy()
    array([[0.-1.j],
           [2.-0.j]])
    """
    return matrix_transpose(matrix, conjugate=True)


@tf_export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product ``a @ b`` over the innermost dimensions (batch dimensions broadcast).

    >>> matvec([[1., 2.], [3., 4.]], [1., 1.]).numpy()
    array([3., 7.], dtype=float32)
    """
    from tensorlet._src.ops.matmul import matmul

    a, b = same_dtype("MatMul", a, b)
    return matmul(a, b[..., None], transpose_a=transpose_a, adjoint_a=adjoint_a)[..., 0]


CROSS_TYPES = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64, D.bfloat16, D.uint16, D.float16,
               D.uint32, D.uint64)


def _cross_kernel(xp, a, b):
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _cross_check(a, b):
    da, db = dims(a), dims(b)
    if da is None or db is None:
        return
    if len(da) < 1:
        raise errors.invalid_argument("Cross", f"Input must be at least 1D{errors.shape_str(da)}")
    if da != db:
        raise errors.invalid_argument("Cross", f"Both inputs must be of same shape: {errors.shape_str(da)} vs. "
                                               f"{errors.shape_str(db)}")
    if da[-1] is not None and da[-1] != 3:
        raise errors.op_error(errors.FailedPreconditionError, "Cross",
                              "Cross-products are only defined for 3-element vectors.")


CROSS = defop("Cross", _cross_kernel, dtypes=CROSS_TYPES, check=_cross_check, quiet=True,
              grad=lambda g, ans, a, b: (bind(CROSS, b, g), bind(CROSS, g, a)))  # TF's formula


@tf_export("linalg.cross")
def cross(a, b, name=None):
    """Pairwise cross product of 3-element vectors along the last dimension.

    >>> cross([1., 0., 0.], [0., 1., 0.]).numpy()
    array([0., 0., 1.], dtype=float32)
    """
    a, b = same_dtype("Cross", a, b)
    return bind(CROSS, a, b)


# --- norms ------------------------------------------------------------------------------

_MATRIX_ORDS = ["euclidean", "fro", 1, 2, np.inf]
_VECTOR_ORDS = ["euclidean", 1, 2, np.inf]
NORM_TYPES = D.FLOATS + D.COMPLEX + D.SIGNED_INTS


def _widen(xp, x):
    return x.astype(np.float32) if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else x


def _max(xp, a, axis):
    lo = -np.inf if a.dtype.kind in "fc" else np.iinfo(a.dtype).min
    return xp.max(a, axis=axis, keepdims=True, initial=lo)


def _norm_kernel(xp, x, order="euclidean", axis=None, keepdims=False):
    """``axis``: None (all elements as one vector), ``(a,)`` (vectors) or ``(a, b)`` (matrices), non-negative."""
    out_dtype = x.dtype
    is_matrix = axis is not None and len(axis) == 2
    x = _widen(xp, x)
    if order == "euclidean" or order == "fro" or (order == 2 and not is_matrix):
        r = xp.sqrt(xp.sum(x * xp.conj(x), axis=axis, keepdims=True))
    elif order == 2:  # matrix 2-norm: the largest singular value
        m = xp.moveaxis(lapack_in(x), axis, (-2, -1))
        if m.shape[-1] == 0 or m.shape[-2] == 0:
            s = xp.zeros(m.shape[:-2] + (0,), m.real.dtype)
        else:
            s = xp.linalg.svd(m, compute_uv=False)
        r = xp.expand_dims(xp.max(s, axis=-1, initial=-np.inf), tuple(sorted(axis)))
        if x.dtype.kind == "c":
            out_dtype = x.real.dtype
    else:
        a = xp.abs(x)
        if x.dtype.kind == "c":
            out_dtype = a.dtype
        if order == 1:
            r = xp.sum(a, axis=None if axis is None else axis[0], keepdims=True)
            if is_matrix:
                r = _max(xp, r, axis[1])
        elif order == np.inf:
            if is_matrix:
                a = xp.sum(a, axis=axis[1], keepdims=True)
            r = _max(xp, a, None if axis is None else axis[0])
        else:
            r = xp.power(xp.sum(xp.power(a, order), axis=axis, keepdims=True), 1.0 / order)
    if not keepdims:
        r = xp.reshape(r, ()) if axis is None else xp.squeeze(r, axis=axis)
    return r.astype(out_dtype)


# tensorlet's own primitive (TF composes norms from Sum/Max/Sqrt/Svd): one kernel eagerly.
NORM = defop("Norm", _norm_kernel, dtypes=NORM_TYPES, quiet=True,
             grad=lambda g, ans, *xs, **attrs: norm_grad(g, ans, *xs, **attrs))  # linalg_grad loads after this


def _norm_args(order, axis):
    """TF's validation of ``ord``/``axis``; returns (ord, axis tuple or None, is_matrix)."""
    axis = static(axis)
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        axis = tuple(axis)
        if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if isinstance(order, str) and order not in ("euclidean", "fro") or not isinstance(order, str) and \
                order not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_ORDS}, got {order}")
        return order, tuple(int(a) for a in axis), True
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    if isinstance(order, str):
        ok = order == "euclidean"
    else:
        ok = isinstance(order, (int, float, np.integer, np.floating)) and not isinstance(order, bool) and order > 0
    if not ok:
        raise ValueError(f"'ord' must be a supported vector norm, got {order}")
    return order, (None if axis is None else (int(axis),)), False


@tf_export("linalg.norm", "norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002 - TF's name
    """Vector norms (``ord`` 'euclidean' or any p > 0, including inf) over ``axis`` (None: all elements),
    or matrix norms ('euclidean'/'fro', 1, 2, inf) over an ``axis`` pair.

    >>> float(norm([3., 4.]))
    5.0
    """
    order, axis, is_matrix = _norm_args(ord, axis)
    x = t(tensor)
    rank = x.shape.rank
    if axis is not None and rank is not None:
        for a in axis:
            if not -rank <= a < rank:
                raise errors.invalid_argument("Norm", f"Invalid reduction dimension ({a} for input with {rank} "
                                                      "dimension(s)")
        axis = tuple(a % rank for a in axis)
    p = float(order) if not isinstance(order, str) else order
    if p == 2 and not is_matrix:
        p = "euclidean"
    if x.dtype.is_integer and p not in (1.0, np.inf):
        raise errors.invalid_argument(
            "Norm", f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: bfloat16, half, "
                    "float, double, complex64, complex128")
    return bind(NORM, x, order=p, axis=axis, keepdims=bool(keepdims))


@tf_export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept as broadcastable dims.

    >>> [v.numpy() for v in normalize([3., 4.])]
    [array([0.6, 0.8], dtype=float32), array([5.], dtype=float32)]
    """
    from tensorlet._src.ops.math_binary import cast, truediv

    x = t(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    n = cast(n, x.dtype)
    return truediv(x, n), n


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import creation  # noqa: E402
from tensorlet._src.ops.linalg_grad import norm_grad  # noqa: E402
