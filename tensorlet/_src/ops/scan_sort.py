"""Scans (cumsum, cumprod, cumulative_logsumexp), top_k / in_top_k, sort / argsort and searchsorted.

Sorting is stable everywhere: ties keep the lowest index first, in ascending and in descending
order (TF's ``top_k`` rule).  A descending stable order is computed without negating the values
(which would overflow for the lowest integer and fail for unsigned types): sort the reversed
array ascending, stably, then reverse the resulting permutation.
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import constant, Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import mismatch, same_dtype, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, scalar_axis

D = _dt
SORT_TYPES = D.REALS  # TF's TopKV2 'T'

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


# --- scans -------------------------------------------------------------------------------

def _lse_accumulate(xp, x, axis):
    return np.logaddexp.accumulate(x, axis=axis)


def _lse_accumulate_jax(xp, x, axis):
    from jax import lax

    return lax.cumlogsumexp(x, axis=axis)


def _scan(core, identity):
    """A scan kernel from ``core(xp, x, axis)`` (inclusive, forward) and the op's identity value."""

    def kernel(xp, x, axis=0, exclusive=False, reverse=False):
        if reverse:
            x = xp.flip(x, axis)
        y = core(xp, x, axis)
        if exclusive and x.shape[axis]:
            head = [slice(None)] * x.ndim
            head[axis] = slice(0, -1)
            first = list(x.shape)
            first[axis] = 1
            y = xp.concatenate([xp.full(first, identity, dtype=x.dtype), y[tuple(head)]], axis=axis)
        if reverse:
            y = xp.flip(y, axis)
        return y

    return kernel


def _cumsum_grad(g, ans, x, axis=0, exclusive=False, reverse=False):
    return cumsum(g, axis, exclusive=exclusive, reverse=not reverse)


def _cumprod_grad(g, ans, x, axis=0, exclusive=False, reverse=False):
    """TF's rule: cumsum(y * g) the other way, divided by x with 0 where x is 0 (divide_no_nan)."""
    return math_binary.divide_no_nan(cumsum(ans * g, axis, exclusive=exclusive, reverse=not reverse), x)


def _cumlse_grad(g, ans, x, axis=0, exclusive=False, reverse=False):
    """exp(x) * reverse-cumsum(g * exp(-y)), with g split by sign so both parts can be scanned in log space."""
    lowest = constant(g.dtype.min, g.dtype)  # TF's stand-in for log(0)

    def part(mask, mag):
        log_g = array_select.where(mask, math_unary.log(mag), lowest)
        return math_unary.exp(cumulative_logsumexp(log_g - ans, axis, exclusive=exclusive,
                                                      reverse=not reverse) + x)

    return part(math_binary.greater(g, 0), g) - part(math_binary.less(g, 0), -g)


def _cumlse_jvp(tans, ans, x, axis=0, exclusive=False, reverse=False):
    """sum over the window of exp(x_j - y_i) * t_j, scanned in log space with t split by sign.

    A rule of its own: the gradient's log-space split is not differentiable in g at g = 0, so a JVP by
    transposition of the gradient at a zero cotangent would be wrong.
    """
    t = tans[0]
    ninf = constant(-np.inf, t.dtype)

    def part(mask, mag):
        log_t = array_select.where(mask, math_unary.log(array_select.where(mask, mag, creation.ones_like(mag))), ninf)
        return math_unary.exp(cumulative_logsumexp(log_t + x, axis, exclusive=exclusive, reverse=reverse) - ans)

    return part(math_binary.greater(t, 0), t) - part(math_binary.less(t, 0), -t)


CUMSUM = defop("Cumsum", _scan(lambda xp, x, axis: xp.cumsum(x, axis=axis, dtype=x.dtype), 0),
               dtypes=D.NUMERIC, shape=shapes.same, quiet=True, grad=_cumsum_grad,
               tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=scalar_axis))
CUMPROD = defop("Cumprod", _scan(lambda xp, x, axis: xp.cumprod(x, axis=axis, dtype=x.dtype), 1),
                dtypes=D.NUMERIC, shape=shapes.same, quiet=True, grad=_cumprod_grad,
                tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=scalar_axis))
CUMLSE = defop("CumulativeLogsumexp", _scan(_lse_accumulate, -np.inf),
               jax_impl=_scan(_lse_accumulate_jax, -np.inf), dtypes=D.FLOATS, shape=shapes.same, quiet=True,
               grad=_cumlse_grad, jvp=_cumlse_jvp)


def _scan_axis(op_name, x, axis) -> int:
    if isinstance(axis, Tensor) and axis.ndim != 0 or isinstance(axis, (list, tuple)):
        raise errors.invalid_argument(op_name, f"ScanOp: axis must be a scalar, not {static(axis)}")
    a = static(axis)
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"Cannot convert {a!r} to EagerTensor of dtype int32")
    a, rank = int(a), x.ndim
    if not -rank <= a < rank:
        shown = a + rank if a < 0 else a  # TF reports a negative axis after adding the rank
        raise errors.invalid_argument(op_name, f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), "
                                               f"but got {shown}")
    return a % rank


def _scan_call(op, x, axis, exclusive, reverse):
    x = t(x)
    return bind(op, x, axis=_scan_axis(op.name, x, axis), exclusive=bool(exclusive), reverse=bool(reverse))


@tf_export("math.cumsum", "cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis`` (``exclusive`` starts at 0, ``reverse`` runs backwards).

    >>> cumsum([1, 2, 3], exclusive=True)
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([0, 1, 3], dtype=int32)>
    """
    return _scan_call(CUMSUM, x, axis, exclusive, reverse)


@tf_export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along ``axis``.

    >>> cumprod([1, 2, 3])
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 6], dtype=int32)>
    """
    return _scan_call(CUMPROD, x, axis, exclusive, reverse)


@tf_export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative log(sum(exp(x))) along ``axis``, computed stably (exclusive starts at -inf).

    >>> cumulative_logsumexp([0., 0.])
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([0.       , 0.6931472], dtype=float32)>
    """
    return _scan_call(CUMLSE, x, axis, exclusive, reverse)


# --- stable orderings ----------------------------------------------------------------------

def _argsort_kernel(xp, x, axis=-1, descending=False):
    if not descending:
        return xp.argsort(x, axis=axis, stable=True).astype(np.int32)
    n = x.shape[axis]
    order = xp.argsort(xp.flip(x, axis), axis=axis, stable=True)
    return xp.flip(n - 1 - order, axis).astype(np.int32)


def _sort_kernel(xp, x, axis=-1, descending=False):
    y = xp.sort(x, axis=axis)
    return xp.flip(y, axis) if descending else y


def _topk_kernel(xp, x, k=1, sorted=True, index_type=np.int32):  # noqa: A002 - TF's attr name
    idx = _argsort_kernel(xp, x, -1, True)[..., :k]
    return xp.take_along_axis(x, idx, axis=-1), idx.astype(index_type)


def _topk_shape(x, k=1, index_type=np.int32, **_):
    if x.shape.rank is None:
        s = TensorShape(None)
    else:
        s = TensorShape(x.shape.as_list()[:-1] + [k])
    return shapes.Spec(s, x.dtype), shapes.Spec(s, D.from_numpy(np.dtype(index_type)))


def _in_top_k_kernel(xp, predictions, targets, k=1):
    b, n = predictions.shape
    if n == 0:
        return xp.zeros((b,), dtype=bool)
    valid = (targets >= 0) & (targets < n)
    safe = xp.where(valid, targets, 0).astype(np.int64)
    tp = xp.take_along_axis(predictions, safe[:, None], axis=1)
    greater = xp.sum(predictions > tp, axis=1)
    return valid & xp.isfinite(tp[:, 0]) & (greater < k)


def _scatter_last(g, idx, n):
    """``g`` [..., k] placed at positions ``idx`` [..., k] of a zero [..., n] tensor (indices distinct per row)."""
    lead = tuple(g.shape)[:-1]
    rows = int(np.prod(lead, dtype=np.int64))
    k = tuple(g.shape)[-1]
    base = array_shape.reshape(creation.range(rows, dtype=D.int64) * n, (rows, 1))
    flat = array_shape.reshape(math_binary.cast(array_shape.reshape(idx, (rows, k)), D.int64) + base, (-1, 1))
    out = gather_scatter.scatter_nd(flat, array_shape.reshape(g, (-1,)), constant([rows * n], D.int64))
    return array_shape.reshape(out, lead + (n,))


def _topk_grad(g, ans, x, k=1, sorted=True, index_type=np.int32):  # noqa: A002 - TF's attr name
    return _scatter_last(g[0], ans[1], tuple(x.shape)[-1])


def _sort_grad(g, ans, x, axis=-1, descending=False):
    """The sorted slots' gradients sent back to the elements that filled them (ties: stable order)."""
    rank = len(x.shape)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]  # a swap: its own inverse
    swap = (lambda v: array_shape.transpose(v, perm)) if axis != rank - 1 else (lambda v: v)
    order = bind(ARGSORT, swap(x), axis=rank - 1, descending=descending)
    return swap(_scatter_last(swap(g), order, tuple(x.shape)[axis]))


TOPK = defop("TopKV2", _topk_kernel, dtypes=SORT_TYPES, n_out=2, shape=_topk_shape, grad=_topk_grad,
             tfdef=TFDef(consts=[("k", 1, "int32")], from_tf=lambda a: {**a, "k": int(a["k"])}))
IN_TOPK = defop("InTopKV2", _in_top_k_kernel, dtypes=(D.float32,), grad=NONDIFF,
                shape=lambda p, tg, **_: shapes.Spec(tg.shape, D.bool))
# TF builds sort/argsort from TopKV2, Neg and transposes; one primitive each is simpler and faster here.
ARGSORT = defop("ArgSort", _argsort_kernel, dtypes=SORT_TYPES, grad=NONDIFF, shape=shapes.with_dtype(D.int32))
SORT = defop("Sort", _sort_kernel, dtypes=SORT_TYPES, shape=shapes.same, grad=_sort_grad)


@tf_export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=D.int32, name=None):  # noqa: A002 - TF's argument names
    """The ``k`` largest entries of the last axis and their indices (ties: lowest index first).

    >>> top_k([1, 3, 3, 2], 2).indices
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
    """
    x = t(input)
    it = D.as_dtype(index_type)
    if it not in (D.int16, D.int32, D.int64):
        raise errors.invalid_argument("TopKV2", f"Value for attr 'index_type' of {it.name} is not in the list of "
                                                "allowed values: int16, int32, int64")
    k = int(static(k))
    if k < 0:
        raise errors.invalid_argument("TopKV2", f"Need k >= 0, got {k}")
    if x.ndim < 1:
        raise errors.invalid_argument("TopKV2", f"input must be >= 1-D, got shape {errors.shape_str(x.shape)}")
    n = x.shape[-1]
    if n < k:
        raise errors.invalid_argument("TopKV2", f"input must have at least k columns. Had {n}, needed {k}")
    values, indices = bind(TOPK, x, k=k, sorted=bool(sorted), index_type=it._np)
    return TopKV2(values, indices)


@tf_export("math.in_top_k", "nn.in_top_k")
def in_top_k(targets, predictions, k, name=None):
    """Whether each target's prediction is among the ``k`` largest of its row (ties count as in).

    >>> in_top_k([1], [[0.1, 0.9]], 1)
    <tf.Tensor: shape=(1,), dtype=bool, numpy=array([ True])>
    """
    p = t(predictions, hint=D.float32)
    if p.dtype is not D.float32:
        raise mismatch("InTopKV2", 0, D.float32, p.dtype)
    tg = t(targets, hint=D.int32)
    if tg.dtype not in (D.int32, D.int64):
        raise errors.invalid_argument("InTopKV2", f"Value for attr 'T' of {tg.dtype.name} is not in the list of "
                                                  "allowed values: int32, int64")
    if p.ndim != 2:
        raise errors.invalid_argument("InTopKV2", "predictions must be 2-dimensional")
    if tg.ndim != 1:
        raise errors.invalid_argument("InTopKV2", "targets must be 1-dimensional")
    if p.shape[0] != tg.shape[0]:
        raise errors.invalid_argument("InTopKV2", f"First dimension of predictions {p.shape[0]} must match length "
                                                  f"of targets {tg.shape[0]}")
    return bind(IN_TOPK, p, tg, k=int(static(k)))


def _sort_args(values, axis, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                         f"direction={direction}")
    x = t(values)
    a = static(axis)
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"`axis` must be a scalar integer, got {a!r}")
    a, rank = int(a), x.ndim
    if not -rank <= a < rank:
        raise errors.invalid_argument("Sort", f"axis {a} is out of bounds for a tensor of rank {rank} "
                                              f"(shape {errors.shape_str(x.shape)})")
    return x, a % rank, direction == "DESCENDING"


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """Sorted copy of ``values`` along ``axis``.

    >>> sort([3, 1, 2])
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>
    """
    x, a, desc = _sort_args(values, axis, direction)
    return bind(SORT, x, axis=a, descending=desc)


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices (int32) that sort ``values`` along ``axis``; always stable (ties keep index order).

    >>> argsort([3, 1, 2])
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 0], dtype=int32)>
    """
    x, a, desc = _sort_args(values, axis, direction)
    return bind(ARGSORT, x, axis=a, descending=desc)


# --- searchsorted ------------------------------------------------------------------------

def _rows(seq, values):
    lead = int(np.prod(seq.shape[:-1], dtype=np.int64))
    return seq.reshape(lead, seq.shape[-1]), values.reshape(lead, values.shape[-1])


def _bound_kernel(side):
    def kernel(xp, seq, values, out_type=np.int32):
        if seq.ndim == 1:
            return xp.searchsorted(seq, values, side=side).astype(out_type)
        s2, v2 = _rows(seq, values)
        rows = [xp.searchsorted(s, v, side=side) for s, v in zip(s2, v2)]
        out = xp.stack(rows) if rows else xp.zeros(v2.shape, dtype=np.int64)
        return out.reshape(values.shape).astype(out_type)

    def jax_kernel(xp, seq, values, out_type=np.int32):
        import jax

        s2, v2 = _rows(seq, values)
        out = jax.vmap(lambda s, v: xp.searchsorted(s, v, side=side))(s2, v2)
        return out.reshape(values.shape).astype(out_type)

    return kernel, jax_kernel


def _bound_shape(seq, values, out_type=np.int32, **_):
    return shapes.Spec(values.shape, D.from_numpy(np.dtype(out_type)))


LOWER_BOUND = defop("LowerBound", _bound_kernel("left")[0], jax_impl=_bound_kernel("left")[1], dtypes=D.REALS,
                    grad=NONDIFF, shape=_bound_shape)
UPPER_BOUND = defop("UpperBound", _bound_kernel("right")[0], jax_impl=_bound_kernel("right")[1],
                    dtypes=D.REALS, grad=NONDIFF, shape=_bound_shape)


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=D.int32, name=None):
    """Insertion indices of ``values`` into the innermost rows of ``sorted_sequence``.

    >>> searchsorted([0., 3., 9.], [2., 10.])
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 3], dtype=int32)>
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side!r}.")
    op = LOWER_BOUND if side == "left" else UPPER_BOUND
    ot = D.as_dtype(out_type)
    if ot not in (D.int32, D.int64):
        raise errors.invalid_argument(op.name, f"Value for attr 'out_type' of {ot.name} is not in the list of "
                                               "allowed values: int32, int64")
    seq, vals = same_dtype(op.name, sorted_sequence, values)
    if seq.ndim < 1 or vals.ndim < 1:
        raise errors.invalid_argument(op.name, "sorted_sequence and values must have rank >= 1, got shapes "
                                               f"{errors.shape_str(seq.shape)} and {errors.shape_str(vals.shape)}")
    lead_s = int(np.prod(seq.shape.as_list()[:-1], dtype=np.int64))
    lead_v = int(np.prod(vals.shape.as_list()[:-1], dtype=np.int64))
    if lead_s != lead_v:
        raise errors.invalid_argument(op.name, "Leading dim_size of both tensors must match.")
    return bind(op, seq, vals, out_type=ot._np)


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
