"""Segment reductions (sorted and unsorted), bincount, histogram_fixed_width, unique and confusion_matrix.

The kernels scatter into a fresh output array: ``np.<ufunc>.at`` eagerly, ``x.at[ids].<op>``
(with out-of-range ids dropped) when lowered to jax.  Output sizes that depend on values (sorted
segment ops, bincount without a fixed length, unique) are computed inside the kernels from the
concrete arrays, so those ops run eagerly under jax too but cannot be jitted with unknown values.
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import constant, Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, bind, defop, tf_export

D = _dt
INDEX_TYPES = (D.int32, D.int64)

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _is_float(d) -> bool:
    return _dt.is_float_np(d)


# --- scatter primitives (NumPy / jax) ----------------------------------------------------

def _np_scatter(xp, kind, out, ids, vals):
    """``out`` (a fresh array) combined with ``vals`` at rows ``ids``; ids outside [0, len(out)) are dropped."""
    keep = (ids >= 0) & (ids < out.shape[0])
    if not keep.all():
        ids, vals = ids[keep], vals[keep]
    getattr(np, kind).at(out, ids, vals)
    return out


def _jax_scatter(xp, kind, out, ids, vals):
    ref = out.at[xp.where(ids < 0, out.shape[0], ids)]
    fn = {"add": ref.add, "multiply": ref.multiply, "maximum": ref.max, "minimum": ref.min}[kind]
    return fn(vals, mode="drop")


def _limit(d, lowest):
    if _is_float(d):
        info = _dt.finfo(d)
    else:
        info = np.iinfo(d)
    return info.min if lowest else info.max


_KIND = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum", "mean": "add"}


def _segment_kernel(reduction, is_sorted, scatter):
    kind = _KIND[reduction]

    def kernel(xp, data, ids, num_segments=None):
        n = (int(ids[-1]) + 1 if ids.shape[0] else 0) if is_sorted else num_segments
        rest = tuple(data.shape[ids.ndim:])
        d = data.dtype
        if reduction in ("max", "min"):
            init = _limit(d, reduction == "max")
        else:
            init = 1 if reduction == "prod" else 0
        acc = np.int64 if reduction == "mean" and d.kind in "iu" else d  # TF's integer means do not wrap
        out = scatter(xp, kind, xp.full((n,) + rest, np.array(init, acc)[()], dtype=acc), ids, data.astype(acc))
        if not is_sorted or reduction in ("sum", "prod"):
            return out
        # the sorted ops give 0 for an empty segment, and the mean divides by the segment size
        cnt = scatter(xp, "add", xp.zeros((n,), np.int64), ids, xp.ones(ids.shape, np.int64))
        cnt = cnt.reshape((n,) + (1,) * len(rest))
        if reduction == "mean":
            c = xp.maximum(cnt, 1)
            if d.kind in "iu":  # truncating division, as TF
                return (xp.sign(out) * (xp.abs(out) // c)).astype(d)
            return (out.astype(np.complex128 if d.kind == "c" else np.float64) / c).astype(d)
        return xp.where(cnt > 0, out, xp.zeros((), d))

    return kernel


def _unsorted_shape(data, ids, num_segments=0, **_):
    if data.shape.rank is None or ids.shape.rank is None:
        return shapes.Spec(TensorShape(None), data.dtype)
    return shapes.Spec(TensorShape([num_segments] + data.shape.as_list()[ids.shape.rank:]), data.dtype)


def _segment_op(name, reduction, is_sorted, dtypes, check, grad):
    # the sorted ops' output size depends on the ids' values: no static shape rule
    return defop(name, _segment_kernel(reduction, is_sorted, _np_scatter),
                 jax_impl=_segment_kernel(reduction, is_sorted, _jax_scatter), dtypes=dtypes, check=check,
                 quiet=True, shape=None if is_sorted else _unsorted_shape, grad=grad)


def _check_sorted_ids(name):
    def check(data, ids):
        v = np.asarray(ids._v)
        if v.size == 0:
            return
        if np.any(v[1:] < v[:-1]):
            raise errors.invalid_argument(name, "segment ids are not increasing")
        if v[0] < 0:
            raise errors.invalid_argument(name, f"Segment id {v[0]} out of range [0, {int(v[-1]) + 1}), possibly "
                                                "because 'segment_ids' input is not sorted.")
    return check


def _check_unsorted_ids(name):
    def check(data, ids, num_segments=0):
        v = np.asarray(ids._v).ravel()
        bad = np.flatnonzero(v >= num_segments)
        if bad.size:
            i = int(bad[0])
            raise errors.invalid_argument(name, f"segment_ids[{i}] = {v[i]} is out of range [0, {num_segments})")
    return check


# --- gradients (TF's rules; the sorted ops' ids are valid, the unsorted ones' negative ids get 0) -------

def _row_mask(mask, like):
    """A boolean ``mask`` shaped like the ids, reshaped to broadcast against ``like`` (ids.shape + rest)."""
    return array_shape.reshape(mask, tuple(mask.shape) + (1,) * (len(like.shape) - len(mask.shape)))


def _gather_rows(params, ids, clip):
    """``params[ids]``; with ``clip``, rows of negative ids are 0 instead."""
    if not clip:
        return gather_scatter.gather(params, ids)
    got = gather_scatter.gather(params, math_binary.maximum(ids, creation.zeros_like(ids)))
    return array_select.where(_row_mask(math_binary.greater_equal(ids, 0), got), got, creation.zeros_like(got))


def _segment_sum_of(sorted_, data, ids, n):
    return bind(SEGMENT_SUM, data, ids) if sorted_ else bind(UNSORTED_SUM, data, ids, num_segments=n)


def _sum_grad(sorted_):
    def grad(g, ans, data, ids, num_segments=None):
        return _gather_rows(g, ids, not sorted_), None
    return grad


def _mean_grad(g, ans, data, ids):
    ones = creation.ones(tuple(ids.shape) + (1,) * (len(data.shape) - 1), dtype=g.dtype)
    return gather_scatter.gather(g / bind(SEGMENT_SUM, ones, ids), ids), None


def _extreme_grad(sorted_):
    """The segment's gradient split evenly among the elements equal to its max/min."""
    def grad(g, ans, data, ids, num_segments=None):
        hit = math_binary.equal(data, _gather_rows(ans, ids, not sorted_))
        if not sorted_:
            hit = math_binary.logical_and(hit, _row_mask(math_binary.greater_equal(ids, 0), data))
        count = _segment_sum_of(sorted_, math_binary.cast(hit, g.dtype), ids, num_segments)
        share = _gather_rows(g / count, ids, not sorted_)
        return array_select.where(hit, share, creation.zeros_like(share)), None
    return grad


def _prod_grad(sorted_):
    """Product of the segment's other entries: exact when the segment holds one zero, 0 for two or more."""
    def grad(g, ans, data, ids, num_segments=None):
        is_zero = math_binary.equal(data, creation.zeros_like(data))
        zeros = _segment_sum_of(sorted_, math_binary.cast(is_zero, D.int32), ids, num_segments)
        g = array_select.where(math_binary.greater(zeros, 1), creation.zeros_like(g), g)
        nonzero = array_select.where(is_zero, creation.ones_like(data), data)
        if sorted_:
            nonzero_prod = bind(SEGMENT_PROD, nonzero, ids)
            rows = ids
        else:
            nonzero_prod = bind(UNSORTED_PROD, nonzero, ids, num_segments=num_segments)
            rows = math_binary.maximum(ids, creation.zeros_like(ids))
        others = array_select.where(is_zero, gather_scatter.gather(nonzero_prod, rows),
                                    gather_scatter.gather(ans, rows) / (nonzero if sorted_ else data))
        return _gather_rows(g, ids, not sorted_) * others, None
    return grad


SEGMENT_SUM = _segment_op("SegmentSum", "sum", True, D.NUMERIC, _check_sorted_ids("SegmentSum"), _sum_grad(True))
SEGMENT_MEAN = _segment_op("SegmentMean", "mean", True, D.NUMERIC, _check_sorted_ids("SegmentMean"), _mean_grad)
SEGMENT_PROD = _segment_op("SegmentProd", "prod", True, D.NUMERIC, _check_sorted_ids("SegmentProd"),
                           _prod_grad(True))
SEGMENT_MAX = _segment_op("SegmentMax", "max", True, D.REALS, _check_sorted_ids("SegmentMax"), _extreme_grad(True))
SEGMENT_MIN = _segment_op("SegmentMin", "min", True, D.REALS, _check_sorted_ids("SegmentMin"), _extreme_grad(True))
UNSORTED_SUM = _segment_op("UnsortedSegmentSum", "sum", False, D.NUMERIC, _check_unsorted_ids("UnsortedSegmentSum"),
                           _sum_grad(False))
UNSORTED_PROD = _segment_op("UnsortedSegmentProd", "prod", False, D.NUMERIC,
                            _check_unsorted_ids("UnsortedSegmentProd"), _prod_grad(False))
UNSORTED_MAX = _segment_op("UnsortedSegmentMax", "max", False, D.REALS, _check_unsorted_ids("UnsortedSegmentMax"),
                           _extreme_grad(False))
UNSORTED_MIN = _segment_op("UnsortedSegmentMin", "min", False, D.REALS, _check_unsorted_ids("UnsortedSegmentMin"),
                           _extreme_grad(False))


def _ids(op_name, segment_ids):
    ids = t(segment_ids, hint=D.int32)
    if ids.dtype not in INDEX_TYPES:
        raise errors.invalid_argument(op_name, f"Value for attr 'Tindices' of {ids.dtype.name} is not in the list "
                                               "of allowed values: int32, int64")
    return ids


def _sorted_segment(op, data, segment_ids):
    x = t(data)
    ids = _ids(op.name, segment_ids)
    if x.ndim < 1:
        raise errors.invalid_argument(op.name, "input must be at least rank 1")
    if ids.ndim != 1:
        raise errors.invalid_argument(op.name, "segment_ids should be a vector.")
    if ids.shape[0] != x.shape[0]:
        raise errors.invalid_argument(op.name, "segment_ids should be the same size as dimension 0 of input.")
    return bind(op, x, ids)


def _num_segments(op_name, num_segments) -> int:
    if isinstance(num_segments, Tensor) and num_segments.ndim != 0 or isinstance(num_segments, (list, tuple)):
        shape = num_segments.shape if isinstance(num_segments, Tensor) else np.shape(num_segments)
        raise errors.invalid_argument(op_name, f"num_segments should be a scalar, not shape "
                                               f"{errors.shape_str(shape)}")
    n = static(num_segments)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise errors.invalid_argument(op_name, f"Value for attr 'Tnumsegments' of {type(n).__name__} is not in "
                                               "the list of allowed values: int32, int64")
    n = int(n)
    if n < 0:
        raise errors.invalid_argument(op_name, f"Input num_segments == {n} must not be negative.")
    return n


def _unsorted_segment(op, data, segment_ids, num_segments):
    x = t(data)
    ids = _ids(op.name, segment_ids)
    n = _num_segments(op.name, num_segments)
    if tuple(x.shape)[:ids.ndim] != tuple(ids.shape):
        raise errors.invalid_argument(op.name, f"data.shape = {errors.shape_str(x.shape)} does not start with "
                                               f"segment_ids.shape = {errors.shape_str(ids.shape)}")
    return bind(op, x, ids, num_segments=n)


@tf_export("math.segment_sum")
def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of ``data`` per (sorted) segment id; absent ids give 0.

    >>> segment_sum([1., 2., 3.], [0, 0, 2])
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([3., 0., 3.], dtype=float32)>
    """
    return _sorted_segment(SEGMENT_SUM, data, segment_ids)


@tf_export("math.segment_mean")
def segment_mean(data, segment_ids, name=None):
    """Means per (sorted) segment id; integer means truncate, absent ids give 0.

    >>> segment_mean([1., 2., 3.], [0, 0, 1])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 3. ], dtype=float32)>
    """
    return _sorted_segment(SEGMENT_MEAN, data, segment_ids)


@tf_export("math.segment_prod")
def segment_prod(data, segment_ids, name=None):
    """Products per (sorted) segment id; absent ids give 1.

    >>> segment_prod([2., 3., 4.], [0, 0, 1])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([6., 4.], dtype=float32)>
    """
    return _sorted_segment(SEGMENT_PROD, data, segment_ids)


@tf_export("math.segment_max")
def segment_max(data, segment_ids, name=None):
    """Maxima per (sorted) segment id; absent ids give 0.

    >>> segment_max([2., 3., 4.], [0, 0, 1])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 4.], dtype=float32)>
    """
    return _sorted_segment(SEGMENT_MAX, data, segment_ids)


@tf_export("math.segment_min")
def segment_min(data, segment_ids, name=None):
    """Minima per (sorted) segment id; absent ids give 0.

    >>> segment_min([2., 3., 4.], [0, 0, 1])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
    """
    return _sorted_segment(SEGMENT_MIN, data, segment_ids)


@tf_export("math.unsorted_segment_sum")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums per segment id in [0, num_segments); negative ids are dropped, empty segments give 0.

    >>> unsorted_segment_sum([1., 2., 3.], [1, 0, 1], 3)
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([2., 4., 0.], dtype=float32)>
    """
    return _unsorted_segment(UNSORTED_SUM, data, segment_ids, num_segments)


@tf_export("math.unsorted_segment_prod")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products per segment id; empty segments give 1.

    >>> unsorted_segment_prod([2., 3., 4.], [1, 0, 1], 3)
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([3., 8., 1.], dtype=float32)>
    """
    return _unsorted_segment(UNSORTED_PROD, data, segment_ids, num_segments)


@tf_export("math.unsorted_segment_max")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Maxima per segment id; empty segments give the dtype's lowest finite value.

    >>> unsorted_segment_max([2, 3, 4], [1, 0, 1], 2)
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 4], dtype=int32)>
    """
    return _unsorted_segment(UNSORTED_MAX, data, segment_ids, num_segments)


@tf_export("math.unsorted_segment_min")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Minima per segment id; empty segments give the dtype's highest finite value.

    >>> unsorted_segment_min([2, 3, 4], [1, 0, 1], 2)
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 2], dtype=int32)>
    """
    return _unsorted_segment(UNSORTED_MIN, data, segment_ids, num_segments)


def _segment_sizes(x, ids, n):
    """Per-segment element counts shaped to broadcast against the segment sums, at least 1."""
    ones = creation.ones(tuple(ids.shape) + (1,) * (x.ndim - ids.ndim), dtype=x.dtype)
    from tensorlet._src.ops.math_binary import maximum

    return maximum(bind(UNSORTED_SUM, ones, ids, num_segments=n), t(np.ones((), x.dtype._np)))


@tf_export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Means per segment id (sum / max(count, 1)); integer data gives a float result as in TF.

    >>> unsorted_segment_mean([1., 2., 4.], [0, 0, 1], 3)
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([1.5, 4. , 0. ], dtype=float32)>
    """
    x = t(data)
    total = _unsorted_segment(UNSORTED_SUM, x, segment_ids, num_segments)
    ids = _ids("UnsortedSegmentSum", segment_ids)
    return total / _segment_sizes(x, ids, _num_segments("UnsortedSegmentSum", num_segments))


@tf_export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sums per segment id divided by sqrt(max(count, 1)).

    >>> unsorted_segment_sqrt_n([1., 3.], [0, 0], 1)
    <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.828427], dtype=float32)>
    """
    x = t(data)
    total = _unsorted_segment(UNSORTED_SUM, x, segment_ids, num_segments)
    ids = _ids("UnsortedSegmentSum", segment_ids)
    return total / math_unary.sqrt(_segment_sizes(x, ids, _num_segments("UnsortedSegmentSum", num_segments)))


# --- bincount ----------------------------------------------------------------------------

def _bincount_kernel(scatter):
    def kernel(xp, arr, weights, minlength=0, maxlength=None, per_row=False, binary_output=False):
        d = weights.dtype
        if not per_row or arr.ndim < 2:
            arr = arr.reshape(-1)
            weights = weights.reshape(-1) if weights.size else weights
        size = int(xp.max(arr)) + 1 if arr.size else 0
        size = max(size, minlength)
        if maxlength is not None:
            size = min(size, maxlength)
        if not weights.size or binary_output:
            weights = xp.ones(arr.shape, d)
        if arr.ndim == 2:  # one histogram per row
            rows = arr.shape[0]
            idx = xp.where(arr < size, arr + size * xp.arange(rows, dtype=arr.dtype)[:, None], rows * size)
            out = scatter(xp, "add", xp.zeros((rows * size,), d), idx, weights).reshape(rows, size)
        else:
            out = scatter(xp, "add", xp.zeros((size,), d), arr, weights)
        return (out > 0).astype(d) if binary_output else out

    return kernel


def _check_bincount(arr, weights, **attrs):
    if np.any(np.asarray(arr._v) < 0):
        raise errors.invalid_argument("DenseBincount", "Input arr must be non-negative!")


BINCOUNT = defop("DenseBincount", _bincount_kernel(_np_scatter), jax_impl=_bincount_kernel(_jax_scatter),
                 dtypes=INDEX_TYPES, check=_check_bincount, grad=NO_GRADIENT)


@tf_export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None, axis=None,
             binary_output=False):
    """Counts (or summed ``weights``) of each value of ``arr``; ``axis=-1`` counts each row of a 2-D arr.

    >>> bincount([1, 1, 3])
    <tf.Tensor: shape=(4,), dtype=int32, numpy=array([0, 2, 0, 1], dtype=int32)>
    """
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    a = t(arr)
    if not a.dtype.is_integer:
        from tensorlet._src.ops.math_binary import cast

        a = cast(a, D.int32)
    if a.dtype not in INDEX_TYPES:
        raise errors.invalid_argument("DenseBincount", f"Value for attr 'Tidx' of {a.dtype.name} is not in the list "
                                                       "of allowed values: int32, int64")
    if weights is None:
        w = t(np.zeros((0,), D.as_dtype(dtype)._np))
    else:
        w = t(weights)
        if tuple(w.shape) != tuple(a.shape):
            raise errors.invalid_argument(
                "DenseBincount", "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it "
                                 f"acts as all weights equal to 1. Received {errors.shape_str(w.shape)}")
    if w.dtype not in (D.int32, D.int64, D.float32, D.float64):
        raise errors.invalid_argument("DenseBincount", f"Value for attr 'T' of {w.dtype.name} is not in the list of "
                                                       "allowed values: int32, int64, float, double")
    axis = static(axis)
    per_row = axis is not None and axis != 0
    if per_row:
        if axis != -1:
            raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
        if a.ndim > 2:
            raise errors.invalid_argument("DenseBincount", f"Shape must be at most rank 2 but is rank {a.ndim}")
    minlength = 0 if minlength is None else int(static(minlength))
    maxlength = None if maxlength is None else max(int(static(maxlength)), 0)
    return bind(BINCOUNT, a, w, minlength=minlength, maxlength=maxlength, per_row=per_row,
                binary_output=bool(binary_output))


# --- unique ------------------------------------------------------------------------------

def _unique_core(xp, x, out_idx):
    if x.shape[0] == 0:
        e = xp.zeros((0,), out_idx)
        return x, e, e
    _, first, inv, counts = xp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                      equal_nan=False)
    order = xp.argsort(first)  # unique values in order of first occurrence, as TF
    rank = xp.argsort(order)
    return x[first[order]], rank[inv.reshape(-1)].astype(out_idx), counts[order].astype(out_idx)


UNIQUE = defop("Unique", lambda xp, x, out_idx=np.int32: _unique_core(xp, x, out_idx)[:2], n_out=2,
               grad=NO_GRADIENT)
UNIQUE_WITH_COUNTS = defop("UniqueWithCounts", _unique_core, n_out=3, grad=NO_GRADIENT)


def _unique_args(op_name, x, out_idx):
    x = t(x)
    oi = D.as_dtype(out_idx)
    if oi not in INDEX_TYPES:
        raise errors.invalid_argument(op_name, f"Value for attr 'out_idx' of {oi.name} is not in the list of "
                                               "allowed values: int32, int64")
    if x.ndim != 1:
        raise errors.invalid_argument(op_name, "unique expects a 1D vector.")
    return x, oi._np


@tf_export("unique")
def unique(x, out_idx=D.int32, name=None):
    """Unique values of a 1-D tensor in order of first occurrence, and each element's index into them.

    >>> unique([3, 1, 3]).y
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 1], dtype=int32)>
    """
    x, oi = _unique_args("Unique", x, out_idx)
    return Unique(*bind(UNIQUE, x, out_idx=oi))


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=D.int32, name=None):
    """Like ``unique``, plus how often each unique value occurs.

    >>> unique_with_counts([3, 1, 3]).count
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 1], dtype=int32)>
    """
    x, oi = _unique_args("UniqueWithCounts", x, out_idx)
    return UniqueWithCounts(*bind(UNIQUE_WITH_COUNTS, x, out_idx=oi))


# --- confusion matrix ----------------------------------------------------------------------

@tf_export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=D.int32, name=None):
    """``[num_classes, num_classes]`` counts (or summed weights) of (label, prediction) pairs.

    >>> confusion_matrix([1, 2], [2, 2], num_classes=3)[1:]
    <tf.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[0, 0, 1],
           [0, 0, 1]], dtype=int32)>
    """
    from tensorlet._src.ops.math_binary import cast, less, maximum
    from tensorlet._src.ops.reduce import reduce_any, reduce_max

    reshape = array_shape.reshape
    dtype = D.as_dtype(dtype)
    lab, pred = cast(t(labels), D.int64), cast(t(predictions), D.int64)
    if lab.ndim == pred.ndim + 1 and lab.shape[-1] == 1:
        lab = reshape(lab, tuple(lab.shape)[:-1])
    elif pred.ndim == lab.ndim + 1 and pred.shape[-1] == 1:
        pred = reshape(pred, tuple(pred.shape)[:-1])
    if tuple(lab.shape) != tuple(pred.shape):
        raise errors.invalid_argument("Pack", f"Shapes of all inputs must match: values[0].shape = "
                                              f"{errors.shape_str(lab.shape)} != values[1].shape = "
                                              f"{errors.shape_str(pred.shape)}")
    lab, pred = reshape(lab, (-1,)), reshape(pred, (-1,))
    from tensorlet._src.framework.context import executing_eagerly

    if not executing_eagerly():  # traced: the value checks become graph assertions
        if num_classes is None:
            raise ValueError("tf.math.confusion_matrix inside tf.function needs `num_classes` in tensorlet (its "
                             "output shape would otherwise depend on the label values)")
        n = int(static(num_classes))
        from tensorlet._src.ops.debugging import assert_less, assert_non_negative

        for what, v in (("labels", lab), ("predictions", pred)):
            assert_non_negative(v, message=f"`{what}` contains negative values")
            assert_less(v, constant(n, D.int64), message=f"`{what}` out of bound")
    else:
        for what, v in (("labels", lab), ("predictions", pred)):
            if bool(reduce_any(less(v, 0))):
                raise errors.invalid_argument("assert_non_negative", f"`{what}` contains negative values.  "
                                                                     "Condition x >= 0 did not hold element-wise")
        if num_classes is None:
            n = int(reduce_max(maximum(lab, pred))) + 1 if lab.shape[0] else 0
        else:
            n = int(static(num_classes))
            for what, v in (("labels", lab), ("predictions", pred)):
                if lab.shape[0] and int(reduce_max(v)) >= n:
                    raise errors.invalid_argument("assert_less", f"`{what}` out of bound  Condition x < y did not "
                                                                 "hold.")
    if weights is None:
        values = creation.ones((lab.shape[0],), dtype=dtype)
    else:
        values = cast(t(weights), dtype)
        if tuple(values.shape) != tuple(lab.shape):
            raise ValueError(f"Shapes {tuple(lab.shape)} and {tuple(values.shape)} are incompatible")
    flat = lab * n + pred
    return reshape(bind(UNSORTED_SUM, values, flat, num_segments=n * n), (n, n))


# --- histogram_fixed_width ------------------------------------------------------------------------

def _bins(xp, values, value_range, nbins):
    v = values.astype(np.float64)
    lo, hi = value_range[0].astype(np.float64), value_range[1].astype(np.float64)
    idx = xp.floor((v - lo) / ((hi - lo) / nbins))
    return xp.reshape(xp.clip(idx, 0, nbins - 1).astype(np.int64), (-1,))


def _hist_kernel(xp, values, value_range, nbins, dtype):
    return np.bincount(_bins(xp, values, value_range, nbins), minlength=nbins).astype(dtype)


def _hist_jax(xp, values, value_range, nbins, dtype):
    return xp.bincount(_bins(xp, values, value_range, nbins), length=nbins).astype(dtype)


def _hist_check(values, value_range, nbins, dtype):
    if tuple(value_range.shape) != (2,):
        raise errors.invalid_argument("HistogramFixedWidth", "value_range should be a vector of 2 elements.")
    r = getattr(value_range, "_v", None)  # None while tracing
    if r is not None and not r[0] < r[1]:
        raise errors.invalid_argument("HistogramFixedWidth", "value_range should satisfy value_range[0] < "
                                                             f"value_range[1], but got '[{r[0]}, {r[1]}]'")


HISTOGRAM_FIXED_WIDTH = defop("HistogramFixedWidth", _hist_kernel, jax_impl=_hist_jax,
                              dtypes=(D.int32, D.int64, D.float32, D.float64, D.float16, D.bfloat16),
                              check=_hist_check, grad=NONDIFF)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """Counts ``values`` in ``nbins`` equal bins over ``value_range`` (outliers go to the end bins).

    >>> tf.histogram_fixed_width([1., 2, 3, -5, 10], [0., 5.], nbins=3).numpy().tolist()
    [2, 2, 1]
    """
    dtype = D.as_dtype(dtype)
    if dtype not in (D.int32, D.int64):
        raise TypeError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: int32, int64")
    nbins = int(static(nbins))
    if nbins <= 0:
        raise errors.invalid_argument("HistogramFixedWidth", f"nbins should be a positive number, but got '{nbins}'")
    values, value_range = same_dtype("HistogramFixedWidth", values, value_range)
    return bind(HISTOGRAM_FIXED_WIDTH, values, value_range, nbins=nbins, dtype=dtype.as_numpy_dtype)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import ( # noqa: E402
    array_select,
    array_shape,
    creation,
    gather_scatter,
    math_binary,
    math_unary,
)
