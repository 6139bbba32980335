"""Segment reductions, bincount, unique and confusion_matrix against plain-Python/NumPy references."""

import ml_dtypes
import numpy as np
import pytest
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf

BF16 = np.dtype(ml_dtypes.bfloat16)


def _is_float(d):
    return d.kind == "f" or d == BF16


def _limit(d, lowest):
    info = ml_dtypes.finfo(d) if _is_float(d) else np.iinfo(d)
    return info.min if lowest else info.max


def _reduce_rows(kind, rows, d):
    acc = np.complex128 if d.kind == "c" else np.float64 if _is_float(d) else d
    if kind == "sum":
        return np.sum(rows, 0, dtype=acc)
    if kind == "prod":
        return np.prod(rows, 0, dtype=acc)
    if kind == "max":
        return np.max(rows, 0)
    if kind == "min":
        return np.min(rows, 0)
    s = np.sum(rows, 0, dtype=np.float64 if d.kind in "iu" else acc) / rows.shape[0]  # mean
    return np.trunc(s) if d.kind in "iu" else s


def _segment_ref(kind, is_sorted, num=None):
    """Loop over segment ids; empty segments get TF's fill value."""
    def ref(data, ids):
        d = data.dtype
        n = (int(ids.max()) + 1 if ids.size else 0) if is_sorted else num
        rest = data.shape[ids.ndim:]
        flat_ids, flat = ids.reshape(-1), data.reshape((-1,) + rest)
        out = np.zeros((n,) + rest, d)
        for i in range(n):
            rows = flat[flat_ids == i]
            if rows.shape[0]:
                out[i] = np.asarray(_reduce_rows(kind, rows, d)).astype(d)
            elif kind == "prod":
                out[i] = 1
            elif kind in ("max", "min") and not is_sorted:
                out[i] = _limit(d, kind == "max")
        return out
    return ref


def _sorted_gen(rng, shapes, dtype):
    data = make(rng, shapes[0], dtype, (-4, 4))
    n = shapes[0][0]
    ids = np.sort(rng.integers(0, n // 2 + 3, n)).astype(np.int32)  # increasing, with gaps
    return [data, ids]


def _unsorted_gen(rng, shapes, dtype):
    data = make(rng, shapes[0], dtype, (-4, 4))
    ids = rng.integers(-1, 4, shapes[1]).astype(np.int64)  # -1 is dropped; num_segments=5 leaves gaps
    return [data, ids]


SORTED_SHAPES = [((6,),), ((7, 3),), ((0, 2),), ((5, 2, 2),)]
UNSORTED_SHAPES = [((6,), (6,)), ((7, 3), (7,)), ((2, 3, 2), (2, 3)), ((0,), (0,))]


def _sorted_case(fn, kind, dtypes, op):
    """Every shape with the first dtype, every dtype on one shape."""
    f = lambda d, i: fn(d, i)  # noqa: E731
    r = lambda d, i: _segment_ref(kind, True)(d, i)  # noqa: E731
    g = lambda rng, s, dt: _sorted_gen(rng, [s[0]], dt)  # noqa: E731
    return [Case(f, r, SORTED_SHAPES, dtypes[:1], gen=g, ops=(op,), id=fn.__name__),
            Case(f, r, SORTED_SHAPES[1:2], dtypes[1:], gen=g, ops=(op,), id=f"{fn.__name__}_dtypes")]


def _unsorted_case(fn, kind, dtypes, op):
    f = lambda d, i: fn(d, i, 5)  # noqa: E731
    r = lambda d, i: _segment_ref(kind, False, 5)(d, i)  # noqa: E731
    # empty segments of max/min hold the dtype's extreme value (~1e308 for float64), beyond finite differences:
    # those ops get gradient checks on all-nonempty segments in _unsorted_grad_case
    grad = kind not in ("max", "min")
    return [Case(f, r, UNSORTED_SHAPES, dtypes[:1], gen=_unsorted_gen, ops=(op,), id=fn.__name__, grad=grad),
            Case(f, r, UNSORTED_SHAPES[2:3], dtypes[1:], gen=_unsorted_gen, ops=(op,), id=f"{fn.__name__}_dtypes",
                 grad=grad)]


def _covering_gen(rng, shapes, dtype):
    """Ids covering every one of 4 segments, plus a dropped -1 (data distinct, so no ties)."""
    data = make(rng, shapes[0], dtype, (-4, 4))
    n = int(np.prod(shapes[1]))
    ids = np.concatenate([np.arange(4), [-1], rng.integers(-1, 4, n - 5)])
    return [data, rng.permutation(ids).reshape(shapes[1]).astype(np.int32)]


def _unsorted_grad_case(fn, kind, op):
    return Case(lambda d, i: fn(d, i, 4), lambda d, i: _segment_ref(kind, False, 4)(d, i),
                [((7, 2), (7,)), ((2, 4, 3), (2, 4))], ("float64",), gen=_covering_gen, ops=(op,),
                id=f"{fn.__name__}_grad")


def _unsorted_mean_ref(root):
    def ref(data, ids):
        d = data.dtype
        s = _segment_ref("sum", False, 5)(data.astype(np.float64 if d.kind in "iu" else d), ids)
        ones = np.ones(ids.shape + (1,) * (data.ndim - ids.ndim))
        cnt = np.maximum(_segment_ref("sum", False, 5)(ones, ids), 1)
        out = s / (np.sqrt(cnt) if root else cnt)
        return out.astype(np.float64 if d.kind in "iu" else d)
    return ref


def _bincount_gen(wdtype=None, hi=5):
    def gen(rng, shapes, dtype):
        arr = rng.integers(0, hi + 1, shapes[0]).astype(dtype)
        if wdtype is None:
            return [arr]
        return [arr, make(rng, shapes[0], wdtype, (-2, 2))]
    return gen


def _bincount_ref(minlength=0, maxlength=None, per_row=False, binary=False, dtype=np.int32):
    def ref(arr, weights=None):
        if not per_row or arr.ndim < 2:
            arr = arr.reshape(1, -1)
            weights = None if weights is None else weights.reshape(1, -1)
        size = int(arr.max()) + 1 if arr.size else 0
        size = max(size, minlength)
        if maxlength is not None:
            size = min(size, maxlength)
        d = dtype if weights is None else weights.dtype
        out = np.zeros((arr.shape[0], size), np.float64)
        for r in range(arr.shape[0]):
            for j, v in enumerate(arr[r]):
                if v < size:
                    out[r, v] += 1 if weights is None or binary else weights[r, j]
        if binary:
            out = (out > 0).astype(np.float64)
        out = out.astype(d)
        return out if per_row and arr.ndim == 2 and ref.rank == 2 else out[0]
    ref.rank = 1
    return ref


def _per_row_ref(**kw):
    r = _bincount_ref(per_row=True, **kw)
    r.rank = 2
    return r


def _unique_ref(counts):
    def ref(x):
        first = {}
        idx = []
        for v in x.tolist():
            key = v if not isinstance(v, float) or v == v else object()  # every NaN is its own value
            if key not in first:
                first[key] = (len(first), v)
            idx.append(first[key][0])
        y = np.array([v for _, v in first.values()], dtype=x.dtype)
        idx = np.array(idx, np.int32)
        if not counts:
            return y, idx
        return y, idx, np.bincount(idx, minlength=len(y)).astype(np.int32)
    return ref


def _confusion_gen(weighted):
    def gen(rng, shapes, dtype):
        n = shapes[0][0]
        lab = rng.integers(0, 4, n).astype(dtype)
        pred = rng.integers(0, 4, n).astype(dtype)
        return [lab, pred] + ([rng.uniform(0, 2, n).astype(np.float32)] if weighted else [])
    return gen


def _confusion_ref(num=None, dtype=np.int32):
    def ref(lab, pred, w=None):
        n = num if num is not None else int(max(lab.max(), pred.max())) + 1
        out = np.zeros((n, n), np.float64)
        for i, (a, b) in enumerate(zip(lab.astype(int), pred.astype(int))):
            out[a, b] += 1 if w is None else w[i].astype(dtype)
        return out.astype(dtype)
    return ref


CASES = (
    _sorted_case(tf.math.segment_sum, "sum", ("float32", "float16", "bfloat16", "float64", "int8", "int32", "int64",
                                              "uint8", "complex64"), "SegmentSum")
    + _sorted_case(tf.math.segment_mean, "mean", ("float32", "float64", "int32", "int8", "complex128"), "SegmentMean")
    + _sorted_case(tf.math.segment_prod, "prod", ("float32", "int32", "complex64"), "SegmentProd")
    + _sorted_case(tf.math.segment_max, "max", ("float32", "bfloat16", "int32", "uint8"), "SegmentMax")
    + _sorted_case(tf.math.segment_min, "min", ("float64", "float16", "int64"), "SegmentMin")
    + _unsorted_case(tf.math.unsorted_segment_sum, "sum", ("float32", "float16", "bfloat16", "float64", "int8",
                                                          "int32", "uint8", "complex64", "uint32"),
                     "UnsortedSegmentSum")
    + _unsorted_case(tf.math.unsorted_segment_prod, "prod", ("float32", "int32", "complex128"), "UnsortedSegmentProd")
    + _unsorted_case(tf.math.unsorted_segment_max, "max", ("float32", "bfloat16", "float64", "int8", "uint8"),
                     "UnsortedSegmentMax")
    + _unsorted_case(tf.math.unsorted_segment_min, "min", ("float32", "int32", "int64", "uint16"),
                     "UnsortedSegmentMin")
) + [
    _unsorted_grad_case(tf.math.unsorted_segment_max, "max", "UnsortedSegmentMax"),
    _unsorted_grad_case(tf.math.unsorted_segment_min, "min", "UnsortedSegmentMin"),
    _unsorted_grad_case(tf.math.unsorted_segment_prod, "prod", "UnsortedSegmentProd"),
    Case(lambda d, i: tf.math.segment_sum(d, i), lambda d, i: _segment_ref("sum", True)(d, i), [((5, 2),)],
         ("float32",), gen=lambda rng, s, dt: [make(rng, s[0], dt), np.array([0, 0, 1, 3, 3], np.int64)],
         ops=("SegmentSum",), id="segment_sum_int64_ids"),
    Case(lambda d, i: tf.math.unsorted_segment_mean(d, i, tf.constant(5)), _unsorted_mean_ref(False),
         UNSORTED_SHAPES, ("float32", "float64", "int32"), gen=_unsorted_gen,
         ops=("UnsortedSegmentSum", "Maximum", "RealDiv")),
    Case(lambda d, i: tf.math.unsorted_segment_sqrt_n(d, i, np.int64(5)), _unsorted_mean_ref(True),
         UNSORTED_SHAPES[1:3], ("float32", "float16"), gen=_unsorted_gen,
         ops=("UnsortedSegmentSum", "Maximum", "Sqrt", "RealDiv")),
    # bincount
    Case(tf.math.bincount, _bincount_ref(), [((7,),), ((3, 4),), ((0,),)], ("int32", "int64"),
         gen=_bincount_gen(), ops=("DenseBincount",)),
    Case(lambda a, w: tf.math.bincount(a, weights=w), lambda a, w: _bincount_ref()(a, w), [((7,),), ((2, 3),)],
         ("int32",), gen=_bincount_gen("float32"), ops=("DenseBincount",), id="bincount_weights_f32"),
    Case(lambda a, w: tf.math.bincount(a, weights=w, minlength=8), lambda a, w: _bincount_ref(8)(a, w), [((6,),)],
         ("int64",), gen=_bincount_gen("float64"), ops=("DenseBincount",), id="bincount_weights_f64_minlength"),
    Case(lambda a, w: tf.math.bincount(a, weights=w, maxlength=3), lambda a, w: _bincount_ref(0, 3)(a, w),
         [((9,),)], ("int32",), gen=_bincount_gen("int32"), ops=("DenseBincount",), id="bincount_int_weights_max"),
    Case(lambda a: tf.math.bincount(a, minlength=tf.constant(2), dtype=tf.float32),
         _bincount_ref(2, dtype=np.float32), [((0,),), ((5,),)], ("int32",), gen=_bincount_gen(),
         ops=("DenseBincount",), id="bincount_dtype_minlength"),
    Case(lambda a: tf.math.bincount(a, axis=-1), _per_row_ref(), [((3, 5),), ((2, 0),)], ("int32",),
         gen=_bincount_gen(), ops=("DenseBincount",), id="bincount_axis_last"),
    Case(lambda a, w: tf.math.bincount(a, w, axis=-1, minlength=7), lambda a, w: _per_row_ref(minlength=7)(a, w),
         [((3, 5),)], ("int64",), gen=_bincount_gen("float32"), ops=("DenseBincount",), id="bincount_axis_weights"),
    Case(lambda a: tf.math.bincount(a, binary_output=True, axis=-1, dtype=tf.int64),
         _per_row_ref(binary=True, dtype=np.int64), [((4, 6),)], ("int32",), gen=_bincount_gen(hi=3),
         ops=("DenseBincount",), id="bincount_binary"),
    # unique
    Case(tf.unique, _unique_ref(False), [((9,),), ((1,),), ((0,),)], ("int32",), domain=(-2, 2), ops=("Unique",)),
    # grad=False on float unique/bincount cases: TF registers no gradient for them (LookupError, as tensorlet)
    Case(tf.unique, _unique_ref(False), [((9,),)], ("float32", "bool"), domain=(-2, 2),
         ops=("Unique",), id="unique_dtypes", grad=False),
    Case(lambda x: tf.unique(x, out_idx=tf.int64),
         lambda x: tuple(np.asarray(a).astype(np.int64) if i else a for i, a in enumerate(_unique_ref(False)(x))),
         [((8,),)], ("float64",), gen=lambda rng, s, d: [np.round(rng.uniform(-2, 2, s[0])).astype(d)],
         ops=("Unique",), id="unique_int64_idx", grad=False),
    Case(tf.unique_with_counts, _unique_ref(True), [((9,),), ((0,),)], ("int32", "float16"), domain=(-2, 2),
         ops=("UniqueWithCounts",)),
    Case(tf.unique, _unique_ref(False), [((4,),)], ("float64",), ops=("Unique",), id="unique_nan_distinct",
         grad=False, jax=False,  # jnp.unique merges NaNs under jax's defaults; the NumPy kernel keeps each NaN (TF)
         gen=lambda rng, s, d: [np.array([np.nan, 1.0, np.nan, 1.0])]),
    Case(tf.unique, _unique_ref(False), [((5,),)], ("object",), ops=("Unique",), jax=False,  # strings: NumPy only
         gen=lambda rng, s, d: [np.array([b"b", b"a", b"b", b"c", b"a"], dtype=object)], id="unique_strings"),
    # confusion matrix
    Case(tf.math.confusion_matrix, _confusion_ref(), [((12,),), ((1,),)], ("int32", "int64"),
         gen=_confusion_gen(False), ops=("UnsortedSegmentSum", "Reshape"),
         graph=False),  # num_classes=None inside tf.function raises (tensorlet needs a static class count)
    Case(lambda a, b: tf.math.confusion_matrix(a, b, num_classes=6, dtype=tf.float64),
         _confusion_ref(6, np.float64), [((10,),)], ("int32",), gen=_confusion_gen(False),
         ops=("UnsortedSegmentSum",), id="confusion_matrix_num_classes"),
    Case(lambda a, b, w: tf.math.confusion_matrix(a, b, num_classes=4, weights=w, dtype=tf.float32),
         _confusion_ref(4, np.float32), [((10,),)], ("int64",), gen=_confusion_gen(True),
         ops=("UnsortedSegmentSum",), id="confusion_matrix_weights"),
    Case(lambda a, b, w: tf.math.confusion_matrix(a, b, weights=w), _confusion_ref(None, np.int32), [((10,),)],
         ("float32",), gen=_confusion_gen(True), ops=("UnsortedSegmentSum",), id="confusion_matrix_int_weights",
         grad=False, graph=False),  # class ids as floats (integer result); no num_classes: eager only
]

D4 = tf.constant([1.0, 2.0, 3.0, 4.0])

ERRORS = [
    Err(lambda: tf.math.segment_sum(D4, [0, 1, 0, 1]), tf.errors.InvalidArgumentError,
        r"segment ids are not increasing \[Op:SegmentSum\]"),
    Err(lambda: tf.math.segment_max(D4, [-1, 0, 0, 1]), tf.errors.InvalidArgumentError,
        r"Segment id -1 out of range \[0, 2\), possibly because 'segment_ids' input is not sorted."),
    Err(lambda: tf.math.segment_sum(D4, [0, 0, 1]), tf.errors.InvalidArgumentError,
        "segment_ids should be the same size as dimension 0 of input."),
    Err(lambda: tf.math.segment_mean(tf.ones([2, 2]), [[0, 0], [0, 1]]), tf.errors.InvalidArgumentError,
        "segment_ids should be a vector."),
    Err(lambda: tf.math.segment_sum(tf.constant(1.0), [0]), tf.errors.InvalidArgumentError,
        "input must be at least rank 1"),
    Err(lambda: tf.math.segment_sum(D4, [0.0, 0.0, 1.0, 1.0]), tf.errors.InvalidArgumentError,
        "Value for attr 'Tindices' of float32 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.math.segment_sum(D4, tf.constant([0, 0, 1, 1], tf.int16)), tf.errors.InvalidArgumentError,
        "attr 'Tindices' of int16"),
    Err(lambda: tf.math.segment_sum(tf.constant([True]), [0]), tf.errors.InvalidArgumentError,
        r"attr 'T' of bool.*\[Op:SegmentSum\]"),
    Err(lambda: tf.math.segment_max(tf.constant([1j]), [0]), tf.errors.InvalidArgumentError, "attr 'T' of complex128"),
    Err(lambda: tf.math.unsorted_segment_sum(D4, [5, 0, 0, 0], 5), tf.errors.InvalidArgumentError,
        r"segment_ids\[0\] = 5 is out of range \[0, 5\) \[Op:UnsortedSegmentSum\]"),
    Err(lambda: tf.math.unsorted_segment_max(D4, [0, 0, 0, 0], 0), tf.errors.InvalidArgumentError,
        r"segment_ids\[0\] = 0 is out of range \[0, 0\)"),
    Err(lambda: tf.math.unsorted_segment_sum(tf.ones([2, 3]), [0, 1, 1], 3), tf.errors.InvalidArgumentError,
        r"data.shape = \[2,3\] does not start with segment_ids.shape = \[3\]"),
    Err(lambda: tf.math.unsorted_segment_sum(D4, [0, 0, 0, 0], -1), tf.errors.InvalidArgumentError,
        "Input num_segments == -1 must not be negative."),
    Err(lambda: tf.math.unsorted_segment_prod(D4, [0, 0, 0, 0], [2]), tf.errors.InvalidArgumentError,
        r"num_segments should be a scalar, not shape \[1\]"),
    Err(lambda: tf.math.unsorted_segment_min(tf.constant([1j]), [0], 1), tf.errors.InvalidArgumentError,
        "attr 'T' of complex128"),
    Err(lambda: tf.math.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 1), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32.*\[Op:Sqrt\]"),
    Err(lambda: tf.math.unsorted_segment_mean(tf.constant([1j]), [0], 1), tf.errors.InvalidArgumentError,
        r"attr 'T' of complex128.*\[Op:Maximum\]"),
    Err(lambda: tf.math.bincount([1, -1, 3]), tf.errors.InvalidArgumentError,
        r"Input arr must be non-negative! \[Op:DenseBincount\]"),
    Err(lambda: tf.math.bincount(tf.zeros([2, 2, 2], tf.int32), axis=-1), tf.errors.InvalidArgumentError,
        "Shape must be at most rank 2 but is rank 3"),
    Err(lambda: tf.math.bincount([1, 1, 3], weights=[1.0, 2.0, 3.0], binary_output=True), ValueError,
        "Arguments `binary_output` and `weights` are mutually exclusive"),
    Err(lambda: tf.math.bincount([1, 1, 3], weights=[1.0, 2.0]), tf.errors.InvalidArgumentError,
        r"`weights` must be the same shape as `arr`.*Received \[2\]"),
    Err(lambda: tf.math.bincount(tf.constant([1], tf.uint8)), tf.errors.InvalidArgumentError,
        "Value for attr 'Tidx' of uint8 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.unique([[3, 1, 3]]), tf.errors.InvalidArgumentError, r"unique expects a 1D vector. \[Op:Unique\]"),
    Err(lambda: tf.unique_with_counts(3), tf.errors.InvalidArgumentError, "unique expects a 1D vector"),
    Err(lambda: tf.unique([3, 1], out_idx=tf.float32), tf.errors.InvalidArgumentError,
        "Value for attr 'out_idx' of float32 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.math.confusion_matrix([-1, 2], [2, 2]), tf.errors.InvalidArgumentError,
        "`labels` contains negative values"),
    Err(lambda: tf.math.confusion_matrix([1, 2], [-2, 2]), tf.errors.InvalidArgumentError,
        "`predictions` contains negative values"),
    Err(lambda: tf.math.confusion_matrix([1, 5], [2, 2], num_classes=3), tf.errors.InvalidArgumentError,
        "`labels` out of bound"),
    Err(lambda: tf.math.confusion_matrix([1, 1], [2, 7], num_classes=3), tf.errors.InvalidArgumentError,
        "`predictions` out of bound"),
    Err(lambda: tf.math.confusion_matrix([1, 1], [2, 2, 2]), tf.errors.InvalidArgumentError,
        r"Shapes of all inputs must match: values\[0\].shape = \[2\] != values\[1\].shape = \[3\]"),
    Err(lambda: tf.math.confusion_matrix([1, 1], [2, 2], weights=[1.0, 2.0, 3.0]), ValueError,
        r"Shapes \(2,\) and \(3,\) are incompatible"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_empty_segment_fill_values_match_tf():
    d = tf.constant([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(tf.math.segment_max(d, [0, 0, 2, 2]).numpy(), [2, 0, 4])
    np.testing.assert_array_equal(tf.math.segment_prod(d, [0, 0, 2, 2]).numpy(), [2, 1, 12])
    np.testing.assert_array_equal(tf.math.segment_mean(tf.constant([1, 2, -7, 0]), [0, 0, 1, 1]).numpy(), [1, -3])
    m = tf.math.unsorted_segment_max(d, [3, 0, 3, -1], 5).numpy()
    np.testing.assert_array_equal(m, [2, np.finfo(np.float32).min, np.finfo(np.float32).min, 3,
                                      np.finfo(np.float32).min])
    np.testing.assert_array_equal(tf.math.unsorted_segment_min(tf.constant([1], tf.int8), [0], 2).numpy(), [1, 127])
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(tf.constant([1], tf.uint8), [0], 2).numpy(), [1, 0])
    mean = tf.math.unsorted_segment_mean(tf.constant([1, 2, 4]), [0, 0, 1], 3)
    assert mean.dtype == tf.float64 and mean.numpy().tolist() == [1.5, 4.0, 0.0]


def test_result_types():
    u = tf.unique([3, 1, 3])
    assert type(u).__name__ == "Unique" and u._fields == ("y", "idx")
    y, idx = u
    assert idx.dtype == tf.int32
    c = tf.unique_with_counts([3, 1, 3])
    assert type(c).__name__ == "UniqueWithCounts" and c.count.numpy().tolist() == [2, 1]
    assert tf.unique([0.0, -0.0, 1.0]).y.numpy().tolist() == [0.0, 1.0]


def test_bincount_tf_details():
    assert tf.math.bincount([1, 1, 3], weights=[1.0, 2.0, 3.0], dtype=tf.int64).dtype == tf.float32  # weights win
    assert tf.math.bincount(tf.constant([1.0, 1.0, 3.0])).numpy().tolist() == [0, 2, 0, 1]  # floats cast
    assert tf.math.bincount([1, 1, 3], maxlength=0).shape == (0,)
    assert tf.math.bincount([1, 1, 3], minlength=-2).shape == (4,)
    assert tf.math.bincount(3).numpy().tolist() == [0, 0, 0, 1]
    assert tf.math.bincount([[1, 2], [0, 0]], axis=0).numpy().tolist() == [2, 1, 1]


def test_confusion_matrix_squeezes_and_casts():
    cm = tf.math.confusion_matrix([[1], [1]], [2, 2])
    assert cm.shape == (3, 3) and cm.numpy()[1, 2] == 2
    cm = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], weights=[0.5, 1.5, 2.5])
    assert cm.dtype == tf.int32 and cm.numpy()[2, 2] == 1 and cm.numpy()[4, 4] == 2 and cm.numpy()[1, 2] == 0
    assert tf.math.confusion_matrix([True], [False]).numpy().tolist() == [[0, 0], [1, 0]]


def test_segment_accumulation_matches_tf():
    zeros = tf.zeros([300], tf.int32)
    assert tf.math.segment_sum(tf.ones([300], tf.int8), zeros).numpy()[0] == 44  # sums wrap in the dtype
    assert tf.math.segment_mean(tf.ones([300], tf.int8), zeros).numpy()[0] == 1  # integer means do not
    assert tf.math.segment_mean(tf.ones([300], tf.bfloat16) * 3, zeros).numpy()[0] == 3.40625  # float: in dtype
    assert tf.math.unsorted_segment_sum(tf.ones([3000], tf.float16), tf.zeros([3000], tf.int32), 1).numpy()[0] == 2048
test_compiled = compiled_tests(CASES)


def test_confusion_matrix_traced_needs_num_classes():
    f = tf.function(lambda a, b: tf.math.confusion_matrix(a, b))
    with pytest.raises(ValueError, match="num_classes"):
        f(tf.constant([1, 2]), tf.constant([2, 2]))
    g = tf.function(lambda a, b: tf.math.confusion_matrix(a, b, num_classes=3))
    np.testing.assert_array_equal(g(tf.constant([1, 2]), tf.constant([2, 2])).numpy(),
                                  [[0, 0, 0], [0, 0, 1], [0, 0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
        g(tf.constant([1, 5]), tf.constant([2, 2]))
