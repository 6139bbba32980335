"""Scans, top_k / in_top_k, sort / argsort and searchsorted against NumPy."""

import ml_dtypes
import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf

INTS = ("int8", "int32", "int64", "uint8")
BF16 = np.dtype(ml_dtypes.bfloat16)
SCAN_SHAPES = [((5,),), ((2, 3),), ((0, 3),), ((2, 3, 4),)]


def _acc(d):
    d = np.dtype(d)
    if d.kind == "c":
        return np.complex128
    if d.kind == "f" or d == BF16:
        return np.float64
    return d


def _scan_ref(accumulate, identity):
    """Inclusive forward scan ``accumulate(x, axis)`` turned into TF's exclusive/reverse variants (via roll)."""
    def ref(x, axis=0, exclusive=False, reverse=False):
        d = x.dtype
        y = np.flip(x, axis) if reverse else x
        y = accumulate(y.astype(_acc(d)), axis)
        if exclusive and y.shape[axis]:
            y = np.moveaxis(np.roll(y, 1, axis), axis, 0).copy()
            y[0] = identity
            y = np.moveaxis(y, 0, axis)
        if reverse:
            y = np.flip(y, axis)
        return np.asarray(y).astype(d)
    return ref


_cumsum = _scan_ref(lambda x, a: np.cumsum(x, a), 0)
_cumprod = _scan_ref(lambda x, a: np.cumprod(x, a), 1)
_cumlse = _scan_ref(lambda x, a: np.log(np.cumsum(np.exp(x), a)), -np.inf)


def _scan_cases(tf_fn, ref, dtypes, ops, domain=(-3.0, 3.0), grad_exclusive=True):
    """Shapes swept with the first dtype, dtypes swept on one shape, then the exclusive/reverse variants.

    ``grad_exclusive=False`` where an exclusive scan starts at an infinite identity (-inf for logsumexp), which
    finite differences cannot handle; such ops get separate gradient cases.
    """
    n = tf_fn.__name__
    main = dtypes[:1]
    return [
        Case(lambda x: tf_fn(x), lambda x: ref(x), SCAN_SHAPES, main, ops=ops, domain=domain, id=n),
        Case(lambda x: tf_fn(x, axis=1), lambda x: ref(x, 1), [((2, 3),)], dtypes, ops=ops, domain=domain,
             id=f"{n}_dtypes"),
        Case(lambda x: tf_fn(x, axis=-1, exclusive=True), lambda x: ref(x, x.ndim - 1, True),
             SCAN_SHAPES, main, ops=ops, domain=domain, id=f"{n}_exclusive", grad=grad_exclusive),
        Case(lambda x: tf_fn(x, axis=tf.constant(1), reverse=True), lambda x: ref(x, 1, False, True),
             SCAN_SHAPES[1:], main, ops=ops, domain=domain, id=f"{n}_reverse"),
        Case(lambda x: tf_fn(x, axis=-2, exclusive=True, reverse=True), lambda x: ref(x, x.ndim - 2, True, True),
             SCAN_SHAPES[1:], dtypes[-1:], ops=ops, domain=domain, id=f"{n}_exclusive_reverse",
             grad=grad_exclusive),
    ]


def _sweep(fn, ref, shapes, dtypes, one_shape, label, **kw):
    """Two cases: every shape with the first dtype, every dtype on ``one_shape``."""
    return [Case(fn, ref, shapes, dtypes[:1], id=label, **kw),
            Case(fn, ref, [one_shape], dtypes[1:], id=f"{label}_dtypes", **kw)]


def _desc_order(x, axis=-1):
    """Stable descending order (ties: lowest index first) by sorting the negated values widened to int64/f64."""
    w = x.astype(np.float64) if (x.dtype.kind == "f" or x.dtype == BF16) else x.astype(np.int64)
    return np.argsort(-w, axis=axis, kind="stable")


def _topk_ref(k):
    def ref(x):
        idx = _desc_order(x)[..., :k]
        return np.take_along_axis(x, idx, -1), idx.astype(np.int32)
    return ref


def _ties(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype, (-3, 3))
    if x.dtype.kind == "f" or x.dtype == BF16:
        x = np.round(x).astype(x.dtype)  # many ties
    return [x]


def _in_top_k_gen(rng, shapes, dtype):
    b, n = shapes[0]
    p = np.round(rng.uniform(-2, 2, (b, n))).astype(np.float32)  # ties straddling the boundary
    if b > 2:
        p[0, 0] = np.nan
        p[1, 1] = np.inf
    tg = rng.integers(-1, n + 1, b).astype(dtype)  # some out of range
    return [tg, p]


def _in_top_k_ref(k):
    def ref(tg, p):
        out = []
        for row, c in zip(p, tg):
            ok = 0 <= c < p.shape[1] and np.isfinite(row[c]) and np.sum(row > row[c]) < k
            out.append(bool(ok))
        return np.array(out, dtype=bool)
    return ref


def _sorted_gen(rng, shapes, dtype):
    seq = np.sort(make(rng, shapes[0], dtype, (-5, 5)), axis=-1)
    vals = make(rng, shapes[1], dtype, (-6, 6))
    return [seq, vals]


def _search_ref(side, out=np.int32):
    def ref(seq, vals):
        lead = int(np.prod(seq.shape[:-1]))
        s2 = seq.reshape(lead, seq.shape[-1])
        v2 = vals.reshape(lead, vals.shape[-1])
        r = np.array([np.searchsorted(s, v, side=side) for s, v in zip(s2, v2)], np.int64).reshape(vals.shape)
        return r.astype(out)
    return ref


CASES = (
    _scan_cases(tf.cumsum, _cumsum, ("float32", "float16", "bfloat16") + INTS + ("complex64", "uint16", "float64"),
                ("Cumsum",))
    + _scan_cases(tf.math.cumprod, _cumprod, ("float32", "int32", "complex128", "uint32", "float64"), ("Cumprod",),
                  domain=(0.5, 1.5))
    + _scan_cases(tf.math.cumulative_logsumexp, _cumlse, ("float32", "float16", "bfloat16", "float64"),
                  ("CumulativeLogsumexp",), grad_exclusive=False)
    # grad=False on the cases with rounded (tied) values: finite differences are undefined at ties; the
    # gradients are checked on distinct values below (*_grad) and for TF's tie rule in test_grad_reduce
    + _sweep(lambda x: tf.math.top_k(x, 3), _topk_ref(3), [((5,),), ((2, 4),), ((2, 3, 6),)],
             ("float32", "float16", "bfloat16", "float64") + INTS + ("uint64",), ((2, 4),), "top_k", gen=_ties,
             ops=("TopKV2",), grad=False)
    + _sweep(lambda x: tf.sort(x), lambda x: np.sort(x, -1), [((5,),), ((2, 4),), ((0, 3),), ((2, 3, 4),)],
             ("float32", "float16", "bfloat16", "float64") + INTS + ("uint64",), ((2, 4),), "sort", gen=_ties,
             ops=("Sort",), grad=False)
    + _sweep(lambda x: tf.argsort(x), lambda x: np.argsort(x, -1, kind="stable").astype(np.int32),
             [((6,),), ((3, 4),), ((2, 0),), ((2, 3, 4),)], ("float32", "float16", "bfloat16", "float64") + INTS
             + ("uint32",), ((3, 4),), "argsort", gen=_ties, ops=("ArgSort",))
    + _sweep(tf.searchsorted, _search_ref("left"), [((5,), (3,)), ((2, 5), (2, 3)), ((2, 2, 4), (2, 2, 3)),
                                                    ((2, 0), (2, 1)), ((3,), (0,))],
             ("float32", "int32", "float64", "uint8"), ((2, 5), (2, 3)), "searchsorted", gen=_sorted_gen,
             ops=("LowerBound",))
    + [
        Case(lambda x: tf.nn.top_k(x, k=tf.constant(0), index_type=tf.int64),
             lambda x: (x[..., :0], np.zeros(x.shape[:-1] + (0,), np.int64)), [((2, 3),), ((2, 0),)],
             ("float32",), ops=("TopKV2",), id="top_k_zero"),
        Case(lambda x: tf.math.top_k(x, x.shape[-1]), lambda x: _topk_ref(x.shape[-1])(x), [((7,),), ((3, 5),)],
             ("int32", "float64"), gen=_ties, ops=("TopKV2",), id="top_k_full", grad=False),  # ties
        Case(lambda tg, p: tf.math.in_top_k(tg, p, 2), _in_top_k_ref(2), [((5, 4),), ((3, 6),), ((0, 3),)],
             ("int32", "int64"), gen=_in_top_k_gen, ops=("InTopKV2",)),
        Case(lambda tg, p: tf.nn.in_top_k(tg, p, 0), _in_top_k_ref(0), [((4, 3),)], ("int32",),
             gen=_in_top_k_gen, ops=("InTopKV2",), id="in_top_k_k0"),
        Case(lambda x: tf.sort(x, axis=0, direction="DESCENDING"),
             lambda x: np.take_along_axis(x, _desc_order(x, 0), 0), [((5,),), ((4, 3),), ((3, 2, 2),)],
             ("float32", "int8", "uint8"), gen=_ties, ops=("Sort",), id="sort_descending_axis0", grad=False),  # ties
        Case(lambda x: tf.argsort(x, axis=tf.constant(-2), direction="DESCENDING", stable=True),
             lambda x: _desc_order(x, -2).astype(np.int32), [((6, 2),), ((3, 4, 2),)],
             ("float32", "int32", "uint8", "bfloat16"), gen=_ties, ops=("ArgSort",), id="argsort_descending"),
        # gradient checks on distinct values (no ties)
        Case(lambda x: tf.math.top_k(x, 2).values, lambda x: _topk_ref(2)(x)[0], [((2, 3, 5),)],
             ("float64",), ops=("TopKV2",), id="top_k_grad"),
        Case(lambda x: tf.sort(x, axis=1, direction="DESCENDING"), lambda x: np.flip(np.sort(x, 1), 1),
             [((2, 4, 3),)], ("float64",), ops=("Sort",), id="sort_grad_axis1"),
        Case(lambda x: tf.sort(x), lambda x: np.sort(x, -1), [((3, 4),)], ("float64",), ops=("Sort",),
             id="sort_grad"),
        # exclusive cumulative_logsumexp starts at -inf: drop that entry so finite differences stay finite
        Case(lambda x: tf.math.cumulative_logsumexp(x, axis=-1, exclusive=True)[..., 1:],
             lambda x: _cumlse(x, x.ndim - 1, True)[..., 1:], [((2, 4),)], ("float64",),
             ops=("CumulativeLogsumexp",), id="cumulative_logsumexp_exclusive_grad"),
        Case(lambda x: tf.math.cumulative_logsumexp(x, axis=0, exclusive=True, reverse=True)[:-1],
             lambda x: _cumlse(x, 0, True, True)[:-1], [((4, 2),)], ("float64",),
             ops=("CumulativeLogsumexp",), id="cumulative_logsumexp_exclusive_reverse_grad"),
        Case(lambda s, v: tf.searchsorted(s, v, side="right", out_type=tf.int64), _search_ref("right", np.int64),
             [((5,), (3,)), ((2, 5), (2, 3)), ((1, 4), (2,))], ("float32", "int64"), gen=_sorted_gen,
             ops=("UpperBound",), id="searchsorted_right"),
    ]
)

M = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

ERRORS = [
    Err(lambda: tf.cumsum(M, axis=2), tf.errors.InvalidArgumentError,
        r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2 \[Op:Cumsum\]"),
    Err(lambda: tf.cumsum(M, axis=-3), tf.errors.InvalidArgumentError, r"range \[-2, 2\), but got -1"),
    Err(lambda: tf.math.cumprod(tf.constant(1.0)), tf.errors.InvalidArgumentError,
        r"range \[0, 0\), but got 0 \[Op:Cumprod\]"),
    Err(lambda: tf.cumsum(M, axis=[1]), tf.errors.InvalidArgumentError, "ScanOp: axis must be a scalar"),
    Err(lambda: tf.cumsum(M, axis=1.0), TypeError, "Cannot convert 1.0 to EagerTensor of dtype int32"),
    Err(lambda: tf.cumsum(tf.constant([True])), tf.errors.InvalidArgumentError, r"attr 'T' of bool.*\[Op:Cumsum\]"),
    Err(lambda: tf.math.cumulative_logsumexp(tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32.*\[Op:CumulativeLogsumexp\]"),
    Err(lambda: tf.math.top_k(tf.constant([1, 3]), 3), tf.errors.InvalidArgumentError,
        r"input must have at least k columns. Had 2, needed 3 \[Op:TopKV2\]"),
    Err(lambda: tf.math.top_k(tf.constant([1, 3]), -1), tf.errors.InvalidArgumentError, "Need k >= 0, got -1"),
    Err(lambda: tf.math.top_k(tf.constant(1.0)), tf.errors.InvalidArgumentError,
        r"input must be >= 1-D, got shape \[\]"),
    Err(lambda: tf.math.top_k(tf.constant([True])), tf.errors.InvalidArgumentError, "attr 'T' of bool"),
    Err(lambda: tf.math.top_k(tf.constant([1.0]), index_type=tf.float32), tf.errors.InvalidArgumentError,
        "Value for attr 'index_type' of float32 is not in the list of allowed values: int16, int32, int64"),
    Err(lambda: tf.math.in_top_k([0], tf.constant([[1.0, 2.0]], tf.float64), 1), tf.errors.InvalidArgumentError,
        r"cannot compute InTopKV2 as input #0\(zero-based\) was expected to be a float tensor but is a double"),
    Err(lambda: tf.math.in_top_k([0, 1], [[1.0, 2.0]], 1), tf.errors.InvalidArgumentError,
        "First dimension of predictions 1 must match length of targets 2"),
    Err(lambda: tf.math.in_top_k([0], [1.0, 2.0], 1), tf.errors.InvalidArgumentError,
        "predictions must be 2-dimensional"),
    Err(lambda: tf.sort(M, direction="UP"), ValueError,
        "Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=UP"),
    Err(lambda: tf.argsort(M, direction="X"), ValueError, "direction=X"),
    Err(lambda: tf.sort(M, axis=2), tf.errors.InvalidArgumentError, "out of bounds"),
    Err(lambda: tf.sort(tf.constant(1.0)), tf.errors.InvalidArgumentError, "out of bounds"),
    Err(lambda: tf.sort(tf.constant([True, False])), tf.errors.InvalidArgumentError, "attr 'T' of bool"),
    Err(lambda: tf.argsort(tf.constant([1j])), tf.errors.InvalidArgumentError, "attr 'T' of complex128"),
    Err(lambda: tf.searchsorted([0.0, 3.0], [2.0], side="middle"), ValueError,
        "Argument `side` must be either 'right' or 'left'"),
    Err(lambda: tf.searchsorted([[0.0, 3.0, 9.0]], [[2.0], [1.0]]), tf.errors.InvalidArgumentError,
        r"Leading dim_size of both tensors must match. \[Op:LowerBound\]"),
    Err(lambda: tf.searchsorted([1, 2, 3], [2.5]), tf.errors.InvalidArgumentError,
        r"cannot compute LowerBound as input #1\(zero-based\) was expected to be a int32 tensor but is a float"),
    Err(lambda: tf.searchsorted([0.0, 3.0], [2.0], out_type=tf.float32), tf.errors.InvalidArgumentError,
        "Value for attr 'out_type' of float32 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.searchsorted([0.0, 3.0], 2.0), tf.errors.InvalidArgumentError, "rank >= 1"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_top_k_result_type_and_ties():
    r = tf.math.top_k(tf.constant([[1, 3, 3, 2]]), 2)
    assert type(r).__name__ == "TopKV2" and r._fields == ("values", "indices")
    np.testing.assert_array_equal(r.indices.numpy(), [[1, 2]])
    values, indices = r
    assert values.dtype == tf.int32 and indices.dtype == tf.int32
    assert tf.math.top_k(tf.constant([1, 2]), 1, index_type=tf.int16).indices.dtype == tf.int16


def test_sort_extremes_and_stability():
    np.testing.assert_array_equal(tf.sort(tf.constant([3, -2147483648, 5])).numpy(), [-2147483648, 3, 5])
    np.testing.assert_array_equal(tf.sort(tf.constant([3, 1, 200], tf.uint8), direction="DESCENDING").numpy(),
                                  [200, 3, 1])
    np.testing.assert_array_equal(tf.argsort(tf.constant([3, 1, 1, 3]), direction="DESCENDING").numpy(),
                                  [0, 3, 1, 2])
    np.testing.assert_array_equal(tf.sort(tf.constant([3.0, np.nan, 1.0])).numpy(), [1.0, 3.0, np.nan])
    assert tf.argsort([3, 1]).dtype == tf.int32


def test_in_top_k_ties_and_invalid_targets():
    p = tf.constant([[3.0, 2.0, 2.0], [3.0, 2.0, 2.0]])
    np.testing.assert_array_equal(tf.math.in_top_k([1, 2], p, 2).numpy(), [True, True])
    np.testing.assert_array_equal(tf.math.in_top_k([5, -1], p, 2).numpy(), [False, False])
    nan_inf = tf.constant([[np.nan, 2.0, 2.0], [3.0, np.inf, 2.0]])
    np.testing.assert_array_equal(tf.math.in_top_k([0, 1], nan_inf, 2).numpy(), [False, False])
    assert tf.math.in_top_k(tf.constant([0], tf.int64), [[1.0, 2.0]], 5).numpy()[0]


def test_cumulative_logsumexp_is_stable():
    r = tf.math.cumulative_logsumexp(tf.constant([1000.0, 1000.0, -np.inf]))
    np.testing.assert_allclose(r.numpy(), [1000.0, 1000.0 + np.log(2), 1000.0 + np.log(2)], rtol=1e-6)
    ex = tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0]), exclusive=True).numpy()
    assert ex[0] == -np.inf and ex[1] == 1.0


def test_integer_scans_wrap_in_their_dtype():
    np.testing.assert_array_equal(tf.cumsum(tf.constant([100, 100], tf.int8)).numpy(), [100, -56])
    assert tf.math.cumprod(tf.constant([2, 3], tf.uint32)).dtype == tf.uint32
test_compiled = compiled_tests(CASES)
