"""Reductions: sum, mean, max/min, prod, any/all, euclidean norm, argmax/argmin, and the composites
logsumexp, variance, std and count_nonzero.

Axes are normalized in the public functions to a tuple of non-negative ints (or ``None`` for
"all"), so every kernel sees plain Python attrs.  Half-precision sums and means accumulate in
float32 as TF's kernels do; integer means truncate toward zero without overflowing, as TF's do.

One block per op (kernel, gradient, ``defop`` and public function), after the axis handling and the
broadcast-back rule the gradients share.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import constant, EagerTensor, Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import REDUCTION, TFDef, scalar_axis

D = _dt
MINMAX_TYPES = D.REALS
ARG_TYPES = D.REALS + (D.bool,)
ARG_OUT_TYPES = (D.int16, D.uint16, D.int32, D.int64)


def _is_float(d) -> bool:
    return _dt.is_float_np(d)


# --- axes, shapes and the shared gradient rule ------------------------------------------------

def _int_list(op_name, axis):
    if isinstance(axis, Tensor):
        if axis.dtype not in (D.int32, D.int64):
            raise errors.invalid_argument(
                op_name, f"Value for attr 'Tidx' of {axis.dtype.name} is not in the list of allowed values: "
                         "int32, int64")
    v = static(axis)
    flat = np.asarray(v, dtype=object).ravel().tolist() if isinstance(v, (list, tuple)) else [v]
    out = []
    for a in flat:
        a = static(a)
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype int32")
        out.append(int(a))
    return out


def norm_axes(op_name: str, rank: int, axis):
    """``axis`` (None, int, list, tensor) as a sorted-free tuple of non-negative ints, or None for all.

    Raises TF's InvalidArgumentError for an axis outside [-rank, rank) or a duplicate axis.  With ``rank`` None (a
    traced input of unknown rank) the axes are kept as given, negative ones included.
    """
    if axis is None:
        return None
    out = []
    for a in _int_list(op_name, axis):
        if rank is None:  # traced with an unknown rank: axes stay as given, the kernels see the real rank
            if a in out:
                raise errors.invalid_argument(
                    op_name, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
            out.append(a)
            continue
        if not -rank <= a < rank:
            raise errors.invalid_argument(op_name, f"Invalid reduction dimension ({a} for input with {rank} "
                                                   "dimension(s)")
        a %= rank
        if a in out:
            raise errors.invalid_argument(
                op_name, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
        out.append(a)
    return tuple(out)


def _count(shape, axis) -> int:
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    return int(np.prod([shape[a] for a in axis], dtype=np.int64))


def reduce_shape(x, axis=None, keepdims=False, **_):
    """Shape rule of a reduction: ``axis`` reduced (kept as 1 with ``keepdims``), dtype unchanged."""
    if x.shape.rank is None:  # all axes reduced away: a scalar whatever the rank (as TF's shape function)
        return shapes.Spec(TensorShape([] if axis is None and not keepdims else None), x.dtype)
    dims = x.shape.as_list()
    axes = range(len(dims)) if axis is None else axis
    if keepdims:
        out = [1 if i in axes else d for i, d in enumerate(dims)]
    else:
        out = [d for i, d in enumerate(dims) if i not in axes]
    return shapes.Spec(TensorShape(out), x.dtype)


def _kept_shape(x, axis):
    """``x``'s shape with the reduced axes kept as 1 (the ``keepdims=True`` output shape)."""
    shp = tuple(x.shape)
    if axis is None:
        return (1,) * len(shp)
    return tuple(1 if i in axis else d for i, d in enumerate(shp))


def _reduced_mask(x, shp, axis):
    """A bool vector over ``x``'s dims at run time (``shp = shape(x)``), true on the reduced ones; with an unknown
    rank, ``axis`` (as given, negative ones included) is resolved against ``size(shp)``."""
    if x.shape.rank is not None:
        mask = np.zeros(x.shape.rank, bool)
        mask[list(axis)] = True
        return constant(mask)
    axes = math_binary.floormod(constant(np.array(axis, np.int32)), array_shape.size(shp, out_type=_dt.int32))
    dims = scan_sort.cumsum(creation.ones_like(shp), exclusive=True)  # 0, 1, ...: no tf.range, XLA lowers it
    return reduce_any(math_binary.equal(array_shape.reshape(dims, [-1, 1]), array_shape.reshape(axes, [1, -1])),
                      axis=1)


def _kept(x, axis):
    """The ``keepdims=True`` output shape: a tuple for a static shape, else a shape tensor computed at run time
    (unknown dims, or an unknown rank with ``axis`` as given)."""
    if x.__class__ is EagerTensor or x.shape.is_fully_defined():
        return _kept_shape(x, axis)
    shp = array_shape.shape(x)
    if axis is None:
        return creation.ones_like(shp)
    return array_select.where(_reduced_mask(x, shp, axis), creation.ones_like(shp), shp)


def _expand(g, x, axis):
    """The reduction's upstream gradient ``g`` broadcast back to ``x``'s shape."""
    if x.__class__ is not EagerTensor and not x.shape.is_fully_defined():  # traced with run-time dims
        return array_shape.broadcast_to(array_shape.reshape(g, _kept(x, axis)), array_shape.shape(x))
    if axis is None and g.ndim == 0:  # a full reduction: the scalar broadcasts as it is
        return array_shape.broadcast_to(g, x._v.shape if x.__class__ is EagerTensor else tuple(x.shape))
    return array_shape.broadcast_to(array_shape.reshape(g, _kept_shape(x, axis)), tuple(x.shape))


def _reduce(op, input_tensor, axis, keepdims):
    x = t(input_tensor)
    if axis is None and keepdims is False:  # the common full reduction: nothing to normalize
        return bind(op, x, axis=None, keepdims=False)
    return bind(op, x, axis=norm_axes(op.name, x.ndim, axis), keepdims=bool(keepdims))


# --- Sum --------------------------------------------------------------------------------------

_BLAS_SUM_MIN = 1 << 14  # rows from which a leading-axes float sum runs as one BLAS vector-matrix product


def _leading_sum(x, axis, keepdims):
    """A float sum over leading axes (a bias gradient: [N, H, W, C] over N, H, W) as ``ones @ x`` -- BLAS runs it
    10-20x faster than ``np.add.reduce`` over non-contiguous axes, with blocked accumulation at least as accurate;
    None where it does not apply (``axis`` a non-empty tuple)."""
    if x.dtype.kind != "f" or not x.flags.c_contiguous or axis != tuple(range(len(axis))):
        return None
    k = len(axis)
    m = math.prod(x.shape[:k])
    if m < _BLAS_SUM_MIN or k == x.ndim:
        return None
    out = np.ones(m, x.dtype) @ x.reshape(m, -1)
    return out.reshape((1,) * k + x.shape[k:] if keepdims else x.shape[k:])


def _sum_kernel(xp, x, axis=None, keepdims=False):
    d = x.dtype
    if _dt.is_low_float_np(d):
        return xp.sum(x, axis=axis, dtype=np.float32, keepdims=keepdims).astype(d)
    if xp is np:  # the ufunc method directly: np.sum's Python wrapper costs about a microsecond
        if axis and x.size >= _BLAS_SUM_MIN:
            r = _leading_sum(x, axis, keepdims)
            if r is not None:
                return r
        return np.add.reduce(x, axis=axis, dtype=d, keepdims=keepdims)
    return xp.sum(x, axis=axis, dtype=d, keepdims=keepdims)


def _sum_grad(g, ans, x, axis=None, keepdims=False):
    return _expand(g, x, axis)


SUM = defop("Sum", _sum_kernel, dtypes=D.NUMERIC, shape=reduce_shape, quiet=True, grad=_sum_grad, tfdef=REDUCTION)


@tf_export("math.reduce_sum", "reduce_sum")
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum of elements over ``axis`` (all axes by default).

    >>> reduce_sum([[1, 2], [3, 4]], axis=0)
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([4, 6], dtype=int32)>
    """
    return _reduce(SUM, input_tensor, axis, keepdims)


# --- Mean -------------------------------------------------------------------------------------

def _mean_kernel(xp, x, axis=None, keepdims=False):
    d = x.dtype
    n = _count(x.shape, axis)
    if d.kind in "iu":  # TF: exact sum, truncating division, no overflow in between
        s = xp.sum(x, axis=axis, dtype=np.int64 if d.kind == "i" else np.uint64, keepdims=keepdims)
        n = max(n, 1)
        q = xp.sign(s) * (xp.abs(s) // n) if d.kind == "i" else s // n
        return q.astype(d)
    acc = np.float32 if _dt.is_low_float_np(d) else d
    return (xp.sum(x, axis=axis, dtype=acc, keepdims=keepdims) / n).astype(d)


def _mean_grad(g, ans, x, axis=None, keepdims=False):
    if x.__class__ is not EagerTensor and not x.shape.is_fully_defined():  # traced with run-time dims
        shp = array_shape.shape(x)
        if axis is not None:
            shp = array_select.where(_reduced_mask(x, shp, axis), shp, creation.ones_like(shp))
        n = reduce_prod(shp)
        return _expand(g / math_binary.cast(math_binary.maximum(n, 1), g.dtype), x, axis)
    return _expand(g / max(_count(tuple(x.shape), axis), 1), x, axis)


MEAN = defop("Mean", _mean_kernel, dtypes=D.NUMERIC, shape=reduce_shape, quiet=True, grad=_mean_grad, tfdef=REDUCTION)


@tf_export("math.reduce_mean", "reduce_mean")
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over ``axis``; integer means truncate toward zero as in TF.

    >>> reduce_mean([1, 2])
    <tf.Tensor: shape=(), dtype=int32, numpy=1>
    """
    return _reduce(MEAN, input_tensor, axis, keepdims)


# --- Max / Min --------------------------------------------------------------------------------

def _extreme(fname, lowest):
    def kernel(xp, x, axis=None, keepdims=False):
        d = x.dtype
        if _is_float(d):
            init = -np.inf if lowest else np.inf
        else:
            info = np.iinfo(d)
            init = info.min if lowest else info.max
        return getattr(xp, fname)(x, axis=axis, keepdims=keepdims, initial=np.array(init, d)[()])
    return kernel


def _extreme_grad(g, ans, x, axis=None, keepdims=False):
    """TF's rule for max/min: the gradient is split evenly among the elements equal to the result."""
    kept = _kept(x, axis)
    hits = math_binary.cast(math_binary.equal(array_shape.reshape(ans, kept), x), g.dtype)
    count = reduce_sum(hits, axis=axis, keepdims=True)
    return hits / count * array_shape.reshape(g, kept)


MAX = defop("Max", _extreme("max", True), dtypes=MINMAX_TYPES, shape=reduce_shape, grad=_extreme_grad, tfdef=REDUCTION)

MIN = defop("Min", _extreme("min", False), dtypes=MINMAX_TYPES, shape=reduce_shape, grad=_extreme_grad, tfdef=REDUCTION)


@tf_export("math.reduce_max", "reduce_max")
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over ``axis`` (``-inf`` / the dtype's lowest value for an empty reduction).

    >>> reduce_max([1., 5., 2.])
    <tf.Tensor: shape=(), dtype=float32, numpy=5.0>
    """
    return _reduce(MAX, input_tensor, axis, keepdims)


@tf_export("math.reduce_min", "reduce_min")
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum over ``axis`` (``inf`` / the dtype's highest value for an empty reduction).

    >>> reduce_min([1., 5., 2.])
    <tf.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return _reduce(MIN, input_tensor, axis, keepdims)


# --- Prod -------------------------------------------------------------------------------------

def _prod_kernel(xp, x, axis=None, keepdims=False):
    return xp.prod(x, axis=axis, dtype=x.dtype, keepdims=keepdims)


def _prod_grad(g, ans, x, axis=None, keepdims=False):
    """Product of all the other entries, from exclusive cumprods both ways (exact where x has zeros)."""
    shp = tuple(x.shape)
    rank = len(shp)
    reduced = list(range(rank)) if axis is None else sorted(axis)
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    inv = [perm.index(i) for i in range(rank)]
    permuted = array_shape.transpose(x, perm) if rank else x
    flat = array_shape.reshape(permuted, (_count(shp, tuple(reduced)), _count(shp, tuple(other))))
    left = scan_sort.cumprod(flat, axis=0, exclusive=True)
    right = scan_sort.cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = left * right
    if x.dtype.is_complex:
        others = math_unary.conj(others)
    others = array_shape.reshape(others, tuple(shp[i] for i in perm))
    if rank:
        others = array_shape.transpose(others, inv)
    return _expand(g, x, axis) * others


PROD = defop("Prod", _prod_kernel, dtypes=D.NUMERIC, shape=reduce_shape, quiet=True, grad=_prod_grad, tfdef=REDUCTION)


@tf_export("math.reduce_prod", "reduce_prod")
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over ``axis``.

    >>> reduce_prod([2, 3])
    <tf.Tensor: shape=(), dtype=int32, numpy=6>
    """
    return _reduce(PROD, input_tensor, axis, keepdims)


# --- Any / All --------------------------------------------------------------------------------

def _bool_input(op_name, x):
    if isinstance(x, Tensor) or hasattr(x, "__tf_tensor__"):
        x = t(x)
        if x.dtype is not D.bool:
            word = {"float32": "float", "float64": "double", "float16": "half"}.get(x.dtype.name, x.dtype.name)
            raise errors.invalid_argument(op_name, f"cannot compute {op_name} as input #0(zero-based) was expected "
                                                   f"to be a bool tensor but is a {word} tensor")
        return x
    return t(x, dtype=D.bool)


ANY = defop("Any", lambda xp, x, axis=None, keepdims=False: xp.any(x, axis=axis, keepdims=keepdims),
            dtypes=(D.bool,), shape=reduce_shape, grad=NONDIFF, tfdef=REDUCTION)

ALL = defop("All", lambda xp, x, axis=None, keepdims=False: xp.all(x, axis=axis, keepdims=keepdims),
            dtypes=(D.bool,), shape=reduce_shape, grad=NONDIFF, tfdef=REDUCTION)


@tf_export("math.reduce_any", "reduce_any")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or over ``axis``.

    >>> reduce_any([True, False])
    <tf.Tensor: shape=(), dtype=bool, numpy=True>
    """
    x = _bool_input("Any", input_tensor)
    return bind(ANY, x, axis=norm_axes("Any", x.ndim, axis), keepdims=bool(keepdims))


@tf_export("math.reduce_all", "reduce_all")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and over ``axis``.

    >>> reduce_all([True, False])
    <tf.Tensor: shape=(), dtype=bool, numpy=False>
    """
    x = _bool_input("All", input_tensor)
    return bind(ALL, x, axis=norm_axes("All", x.ndim, axis), keepdims=bool(keepdims))


# --- EuclideanNorm ----------------------------------------------------------------------------

def _euclid_kernel(xp, x, axis=None, keepdims=False):
    d = x.dtype
    if d.kind == "c":
        return xp.sqrt(xp.sum(x * xp.conj(x), axis=axis, keepdims=keepdims)).astype(d)
    if d.kind in "iu":  # squares and sum wrap in the integer type; the root truncates (TF)
        s = xp.sum(x * x, axis=axis, dtype=d, keepdims=keepdims)
        return xp.floor(xp.sqrt(s.astype(np.float64))).astype(d)
    sq = x * x  # squared in the input type (float16 overflows to inf as in TF)
    acc = np.float32 if _dt.is_low_float_np(d) else d
    return xp.sqrt(xp.sum(sq, axis=axis, dtype=acc, keepdims=keepdims)).astype(d)


def _euclid_grad(g, ans, x, axis=None, keepdims=False):
    """x * (g / norm): NaN where the norm is 0, as TF's x / (norm / g); no g in a denominator (finite JVPs)."""
    kept = _kept(x, axis)
    return x * (array_shape.reshape(g, kept) / array_shape.reshape(ans, kept))


EUCLIDEAN_NORM = defop("EuclideanNorm", _euclid_kernel, dtypes=D.NUMERIC, shape=reduce_shape, quiet=True,
                       grad=_euclid_grad, tfdef=REDUCTION)


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) over ``axis``; integer results truncate as in TF.

    >>> reduce_euclidean_norm([3., 4.])
    <tf.Tensor: shape=(), dtype=float32, numpy=5.0>
    """
    return _reduce(EUCLIDEAN_NORM, input_tensor, axis, keepdims)


# --- ArgMax / ArgMin --------------------------------------------------------------------------

def _arg_kernel(fname, fill):
    def kernel(xp, x, axis=0, output_type=np.int64):
        if _is_float(x.dtype):  # TF's argmax/argmin skip NaNs
            x = xp.where(xp.isnan(x), np.array(fill, x.dtype), x)
        return xp.asarray(getattr(xp, fname)(x, axis=axis)).astype(output_type)
    return kernel


def _arg_shape(x, axis=0, output_type=np.int64, **_):
    spec = reduce_shape(x, (axis,), False)
    return shapes.Spec(spec.shape, D.from_numpy(np.dtype(output_type)))


ARGMAX = defop("ArgMax", _arg_kernel("argmax", -np.inf), dtypes=ARG_TYPES, shape=_arg_shape, grad=NONDIFF,
               tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=scalar_axis))

ARGMIN = defop("ArgMin", _arg_kernel("argmin", np.inf), dtypes=ARG_TYPES, shape=_arg_shape, grad=NONDIFF,
               tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=scalar_axis))


def _arg(op, input, axis, output_type):  # noqa: A002 - TF's argument name
    x = t(input)
    out = D.as_dtype(output_type)
    if out not in ARG_OUT_TYPES:
        raise errors.invalid_argument(op.name, f"Value for attr 'output_type' of {out.name} is not in the list of "
                                               "allowed values: int16, uint16, int32, int64")
    if axis is None:
        axis = 0
    if isinstance(axis, Tensor):
        if axis.dtype not in (D.int32, D.int64):
            raise TypeError("axis must be int or Tensor with integer datatype")
        if axis.ndim != 0:
            raise errors.invalid_argument(op.name, "dim must be a scalar, but received tensor of shape: "
                                                   f"{errors.shape_str(axis.shape)}")
    a = static(axis)
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError("axis must be int or Tensor with integer datatype")
    a = int(a)
    rank = x.ndim
    if not -rank <= a < rank:
        raise errors.invalid_argument(op.name, f"Expected dimension in the range [{-rank}, {rank}), but got {a}")
    a %= rank
    n = x.shape[a]
    if n == 0:
        raise errors.invalid_argument(op.name, f"Reduction axis {a} is empty in shape {errors.shape_str(x.shape)}")
    return bind(op, x, axis=a, output_type=out._np)


@tf_export("math.argmax", "argmax")
def argmax(input, axis=None, output_type=D.int64, name=None):  # noqa: A002 - TF's argument name
    """Index of the largest value along ``axis`` (0 by default); ties give the lowest index.

    >>> argmax([[1, 5], [7, 2]])
    <tf.Tensor: shape=(2,), dtype=int64, numpy=array([1, 0])>
    """
    return _arg(ARGMAX, input, axis, output_type)


@tf_export("math.argmin", "argmin")
def argmin(input, axis=None, output_type=D.int64, name=None):  # noqa: A002 - TF's argument name
    """Index of the smallest value along ``axis`` (0 by default); ties give the lowest index.

    >>> argmin([[1, 5], [7, 2]])
    <tf.Tensor: shape=(2,), dtype=int64, numpy=array([0, 1])>
    """
    return _arg(ARGMIN, input, axis, output_type)


# --- composites -------------------------------------------------------------------------------

@tf_export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over ``axis``, computed stably by shifting by the (finite) maximum.

    >>> reduce_logsumexp([0., 0.])
    <tf.Tensor: shape=(), dtype=float32, numpy=0.6931471824645996>
    """
    x = t(input_tensor)
    raw_max = reduce_max(x, axis, keepdims=True)
    finite_max = array_select.where(math_unary.is_finite(raw_max), raw_max, creation.zeros_like(raw_max))
    shift = array_identity.stop_gradient(finite_max)
    out = math_unary.log(reduce_sum(math_unary.exp(x - shift), axis, keepdims=keepdims))
    if not keepdims:
        shift = array_shape.reshape(shift, out.shape)
    return out + shift


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Population variance over ``axis``; complex inputs give a real result.

    >>> reduce_variance([1., 2., 3., 4.])
    <tf.Tensor: shape=(), dtype=float32, numpy=1.25>
    """
    x = t(input_tensor)
    means = reduce_mean(x, axis, keepdims=True)
    if x.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
    diff = x - means
    if x.dtype.is_complex:
        sq = math_unary.real(diff * math_unary.conj(diff))
    else:
        sq = math_unary.square(diff)
    return reduce_mean(sq, axis, keepdims=keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Population standard deviation over ``axis``.

    >>> reduce_std([1., 3.])
    <tf.Tensor: shape=(), dtype=float32, numpy=1.0>
    """
    return math_unary.sqrt(reduce_variance(input_tensor, axis, keepdims))


@tf_export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=D.int64, name=None):  # noqa: A002 - TF's names
    """Number of non-zero elements over ``axis`` (empty string counts as zero for strings).

    >>> count_nonzero([1., 0., 2.])
    <tf.Tensor: shape=(), dtype=int64, numpy=2>
    """
    from tensorlet._src.ops.math_binary import cast, not_equal

    x = t(input)
    zero = t(np.array(b"", dtype=object) if x.dtype is D.string else np.zeros((), x.dtype._np))
    nz = cast(not_equal(x, zero), D.int64)
    return cast(reduce_sum(nz, axis, keepdims=bool(keepdims)), dtype)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import (  # noqa: E402
    array_identity,
    array_select,
    array_shape,
    creation,
    math_binary,
    math_unary,
    scan_sort,
)
