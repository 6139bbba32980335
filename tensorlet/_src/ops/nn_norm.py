"""``tf.nn`` normalization and friends: moments, batch_normalization, fused_batch_norm, bias_add, dropout,
embedding_lookup and local response normalization.
"""

from __future__ import annotations

import numbers

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import same_dtype, static, static_axis, t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt


def _is_tensor(x):
    return isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")


def _axes(axes):
    a = static_axis(axes)
    return (a,) if isinstance(a, int) else tuple(a)


def _like(v, dtype):
    """A tensor stays as it is; a Python/NumPy value becomes a ``dtype`` tensor (rounded once)."""
    return t(v) if _is_tensor(v) else const(v, dtype) if dtype.is_floating else t(v, dtype=dtype)


def _squeeze(x, axes):
    return array_shape.squeeze(x, list(axes)) if axes else x


# --- moments ---------------------------------------------------------------------------------

@tf_export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of ``x`` over ``axes``.  ``tf.nn.moments([1.0, 3.0], [0])`` -> ``(2.0, 1.0)``.

    float16 inputs are accumulated in float32.  ``shift`` is accepted and unused, as in TF.
    """
    x = t(x)
    axes = _axes(axes)
    y = mb.cast(x, D.float32) if x.dtype is D.float16 else x
    reduce_mean = reduce.reduce_mean
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(mb.squared_difference(y, array_identity.stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = _squeeze(mean, axes), _squeeze(variance, axes)
    if x.dtype is D.float16:
        return mb.cast(mean, D.float16), mb.cast(variance, D.float16)
    return mean, variance


@tf_export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Frequency-weighted (mean, variance) over ``axes``.

    ``tf.nn.weighted_moments([1.0, 3.0], [0], [1.0, 3.0])`` -> ``(2.5, 0.75)``.
    """
    x = t(x)
    w = t(frequency_weights)
    axes = _axes(axes)
    half = x.dtype is D.float16
    if half:
        x = mb.cast(x, D.float32)
    if w.dtype is not x.dtype:
        w = mb.cast(w, x.dtype)
    reduce_sum = reduce.reduce_sum
    weighted_sum = reduce_sum(mb.multiply(w, x), axes, keepdims=True)
    sum_of_weights = reduce_sum(mb.add(w, creation.zeros_like(x)), axes, keepdims=True)
    mean = mb.divide_no_nan(weighted_sum, sum_of_weights)
    distsq = reduce_sum(mb.multiply(w, mb.squared_difference(x, mean)), axes, keepdims=True)
    variance = mb.divide_no_nan(distsq, sum_of_weights)
    if not keepdims:
        mean, variance = _squeeze(mean, axes), _squeeze(variance, axes)
    if half:
        return mb.cast(mean, D.float16), mb.cast(variance, D.float16)
    return mean, variance


@tf_export("nn.sufficient_statistics")
def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum(x - shift), sum((x - shift)**2), shift) over ``axes``; see ``tf.nn.normalize_moments``.

    ``tf.nn.sufficient_statistics([1.0, 3.0], [0])`` -> ``(2.0, 4.0, 10.0, None)``.
    """
    x = t(x)
    axes = _axes(axes)
    dims = x.shape.as_list()
    count = 1
    for a in axes:
        count *= dims[a]
    counts = t(count, dtype=x.dtype)
    if shift is not None:
        shift = _like(shift, x.dtype)
        m_ss = mb.subtract(x, shift)
        v_ss = mb.squared_difference(x, shift)
    else:
        m_ss = x
        v_ss = mb.multiply(x, x)
    reduce_sum = reduce.reduce_sum
    return counts, reduce_sum(m_ss, axes, keepdims=keepdims), reduce_sum(v_ss, axes, keepdims=keepdims), shift


@tf_export("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics.

    ``tf.nn.normalize_moments(2.0, 4.0, 10.0, None)`` -> ``(2.0, 1.0)``.
    """
    mean_ss, variance_ss = same_dtype("Mul", mean_ss, variance_ss)
    d = mean_ss.dtype
    divisor = mb.truediv(const(1, d), _like(counts, d))
    shifted_mean = mb.multiply(mean_ss, divisor)
    mean = mb.add(shifted_mean, _like(shift, d)) if shift is not None else shifted_mean
    variance = mb.subtract(mb.multiply(variance_ss, divisor), mb.multiply(shifted_mean, shifted_mean))
    return mean, variance


@tf_export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """scale * (x - mean) / sqrt(variance + variance_epsilon) + offset (``offset``/``scale`` may be None).

    ``tf.nn.batch_normalization([1.0, 3.0], 2.0, 1.0, None, None, 0.0)`` -> ``[-1.0, 1.0]``.
    """
    x = t(x)
    params = [p for p in (variance, mean, scale, offset) if p is not None]
    first = next((p for p in params if _is_tensor(p)), None)
    pd = t(first).dtype if first is not None else x.dtype

    def conv(p):
        return None if p is None else _like(p, pd)

    mean, variance, offset, scale = conv(mean), conv(variance), conv(offset), conv(scale)
    inv = math_unary.rsqrt(mb.add(variance, _like(variance_epsilon, variance.dtype)))
    if scale is not None:
        inv = inv * scale
    shift = offset - mean * inv if offset is not None else -mean * inv
    return x * mb.cast(inv, x.dtype) + mb.cast(shift, x.dtype)


# --- fused batch norm ----------------------------------------------------------------------

_BN_T = (D.float16, D.bfloat16, D.float32)
_BN_U = (D.bfloat16, D.float32)


def _channel_axis(data_format):
    return 1 if data_format.startswith("NC") else len(data_format) - 1


def _fused_bn(xp, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format, is_training):
    c = _channel_axis(data_format)
    axes = tuple(i for i in range(x.ndim) if i != c)
    bshape = tuple(-1 if i == c else 1 for i in range(x.ndim))
    u = scale.dtype
    y = x.astype(np.float32)
    if is_training:
        n = x.size // max(x.shape[c], 1)
        if n:
            bm = xp.mean(y, axis=axes)
            bv = xp.mean(xp.square(y - bm.reshape(bshape)), axis=axes)
        else:  # no elements: TF reports NaN statistics
            bm = bv = xp.full((x.shape[c],), np.nan, np.float32)
        unbiased = bv * (n / max(n - 1, 1))
        f = exponential_avg_factor
        if f != 1.0:
            run_m = (1 - f) * mean.astype(np.float32) + f * bm
            run_v = (1 - f) * variance.astype(np.float32) + f * unbiased
        else:
            run_m, run_v = bm, unbiased
        use_m, use_v = bm, bv
    else:
        use_m, use_v = mean.astype(np.float32), variance.astype(np.float32)
        run_m, run_v = use_m, use_v
    inv = scale.astype(np.float32) / xp.sqrt(use_v + epsilon)
    out = (y - use_m.reshape(bshape)) * inv.reshape(bshape) + offset.astype(np.float32).reshape(bshape)
    return (out.astype(x.dtype), run_m.astype(u), run_v.astype(u), use_m.astype(u), use_v.astype(u),
            xp.zeros((0,), u))


def _fused_bn_check(x, scale, offset, mean, variance, *, data_format, is_training, exponential_avg_factor, **_):
    name = "FusedBatchNormV3"
    for i, p in enumerate((scale, offset, mean, variance), 1):
        if p.dtype not in _BN_U:
            raise errors.invalid_argument(name, f"Value for attr 'U' of {_word(p.dtype)} is not in the list of "
                                                "allowed values: bfloat16, float")
        if p.dtype is not scale.dtype:
            raise errors.invalid_argument(name, f"cannot compute {name} as input #{i}(zero-based) was expected "
                                                f"to be a {_word(scale.dtype)} tensor but is a {_word(p.dtype)} tensor")
    dims = x.shape.as_list()
    if len(dims) != len(data_format):
        raise errors.invalid_argument(name, f"input must be {len(data_format)}-dimensional{errors.shape_str(dims)}")
    channels = dims[_channel_axis(data_format)]
    checks = [("scale", scale), ("offset", offset)]
    if not is_training or exponential_avg_factor != 1.0:  # the running statistics are read
        checks += [("mean", mean), ("variance", variance)]
    for label, p in checks:
        if p.shape.rank != 1 or p.shape[0] != channels:
            when = "When is_training=false, " if label in ("mean", "variance") else ""
            raise errors.invalid_argument(name, f"{when}{label} must have the same number of elements as the "
                                                f"channels of x, got {p.shape.num_elements()} and {channels}")


def _word(d):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(d.name, d.name)


def _upcast(x):
    """Half-precision tensors as float32 for the gradient arithmetic (TF's kernels accumulate in float)."""
    return mb.cast(x, D.float32) if x.dtype in (D.float16, D.bfloat16) else x


def _fused_bn_grad(g, ans, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format,
                   is_training):
    """TF's FusedBatchNormGradV3 as a composite, so second derivatives come from the ops it is made of.

    Only the gradient of ``y`` is used and ``mean``/``variance`` get none (TF: the running statistics and the
    reserve spaces are not differentiated).  In training the batch statistics are recomputed from ``x``
    (rather than read from the op's outputs) so that derivatives of this gradient see their dependence on x.
    """
    dy = _upcast(g[0])
    xf = _upcast(x)
    rank = len(x.shape)
    c = _channel_axis(data_format)
    axes = [i for i in range(rank) if i != c]
    bshape = [-1 if i == c else 1 for i in range(rank)]
    reduce_mean, reduce_sum, reshape = reduce.reduce_mean, reduce.reduce_sum, array_shape.reshape
    if is_training:
        m = reduce_mean(xf, axes, keepdims=True)
        xc = xf - m
        v = reduce_mean(xc * xc, axes, keepdims=True)
    else:
        m = reshape(mb.cast(mean, xf.dtype), bshape)
        v = reshape(mb.cast(variance, xf.dtype), bshape)
        xc = xf - m
    inv = math_unary.rsqrt(v + mb.cast(epsilon, xf.dtype))
    xhat = xc * inv
    d_offset = reduce_sum(dy, axes)
    d_scale = reduce_sum(dy * xhat, axes)
    k = reshape(mb.cast(scale, xf.dtype), bshape) * inv
    if is_training:
        dx = k * (dy - reduce_mean(dy, axes, keepdims=True) - xhat * reduce_mean(dy * xhat, axes, keepdims=True))
    else:
        dx = dy * k
    return mb.cast(dx, x.dtype), mb.cast(d_scale, scale.dtype), mb.cast(d_offset, offset.dtype), None, None


FUSED_BATCH_NORM = defop("FusedBatchNormV3", _fused_bn, dtypes=_BN_T, n_out=6, check=_fused_bn_check, quiet=True,
                         grad=_fused_bn_grad)


@tf_export("compat.v1.nn.fused_batch_norm")
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """Batch normalization of a 4-D (or 5-D, "NDHWC"/"NCDHW") tensor in one kernel.

    Returns ``(y, mean, variance)``: in training the batch statistics (variance with Bessel's
    correction) blended into ``mean``/``variance`` by ``exponential_avg_factor``; otherwise the
    given ``mean``/``variance``.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}; expected NHWC, NCHW, NDHWC or NCDHW")
    x, scale, offset = t(x), t(scale), t(offset)
    mean = t(mean) if mean is not None else t(np.zeros((0,), scale.dtype.as_numpy_dtype))
    variance = t(variance) if variance is not None else t(np.zeros((0,), scale.dtype.as_numpy_dtype))
    epsilon = max(float(static(epsilon)), 1.001e-5)  # TF's (cuDNN's) minimum
    y, m, v, _, _, _ = bind(FUSED_BATCH_NORM, x, scale, offset, mean, variance, epsilon=epsilon,
                            exponential_avg_factor=float(static(exponential_avg_factor)),
                            data_format=data_format, is_training=bool(is_training))
    return y, m, v


# --- bias_add ------------------------------------------------------------------------------

def _bias_add(xp, value, bias, data_format):
    if data_format == "NCHW" and value.ndim > 2:
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_check(value, bias, data_format):
    name = "BiasAdd"
    vs, bs = value.shape.as_list(), bias.shape.as_list()
    if len(vs) < 2:
        raise errors.invalid_argument(name, f"Input tensor must be at least 2D: {errors.shape_str(vs)}")
    if len(bs) != 1:
        raise errors.invalid_argument(name, f"Biases must be 1D: {errors.shape_str(bs)}")
    channels = vs[1] if data_format == "NCHW" else vs[-1]
    if bs[0] != channels:
        raise errors.invalid_argument(name, "Must provide as many biases as the last dimension of the input tensor: "
                                            f"{errors.shape_str(bs)} vs. {errors.shape_str(vs)}")


def _bias_add_grad(g, ans, value, bias, data_format):
    # TF's BiasAddGrad: the gradient summed over every axis but the channel axis
    rank = len(g.shape)
    c = 1 if data_format == "NCHW" else rank - 1
    return g, reduce.reduce_sum(g, [i for i in range(rank) if i != c])


BIAS_ADD = defop("BiasAdd", _bias_add, dtypes=D.NUMERIC, check=_bias_check, shape=lambda v, b, **a: shapes.same(v),
                 grad=_bias_add_grad)


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """value + bias along the channel axis ("N...C": the last, "NC...": axis 1).

    ``tf.nn.bias_add([[1.0, 2.0]], [10.0, 20.0])`` -> ``[[11.0, 22.0]]``.
    """
    fmt = "NHWC"
    if data_format is not None:
        if data_format.startswith("NC"):
            fmt = "NCHW"
        elif not (data_format.startswith("N") and data_format.endswith("C")):
            raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: data_format="
                             f"{data_format}")
    value = t(value)
    if _is_tensor(bias):
        value, bias = same_dtype("BiasAdd", value, bias)
    else:
        bias = t(bias, dtype=value.dtype)
    return bind(BIAS_ADD, value, bias, data_format=fmt)


# --- dropout ---------------------------------------------------------------------------------

@tf_export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability ``rate`` and scale the rest by 1 / (1 - rate) (keeps E[x]).

    ``noise_shape`` broadcasts one keep/drop decision over axes of size 1.
    ``tf.nn.dropout(tf.ones([4]), 0.5, seed=1)`` -> a mix of 0.0 and 2.0.
    """
    is_number = isinstance(rate, numbers.Real) and not _is_tensor(rate)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = t(x)
    if not x.dtype.is_floating:
        raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype}")
    if is_number and rate == 0:
        return x
    if is_number:
        scaled = mb.multiply(x, const(1 / (1 - rate), x.dtype))
        rate_t = const(rate, x.dtype)
    elif _is_tensor(rate):
        rate_t = t(rate)
        if rate_t.shape.rank != 0:
            raise ValueError(f"Shape {rate_t.shape} must have rank 0")
        if rate_t.dtype is not x.dtype:
            raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype} and "
                             f"rate.dtype={rate_t.dtype}")
        scaled = mb.realdiv(x, mb.subtract(const(1, x.dtype), rate_t))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    shape = _noise_shape(x, noise_shape)
    keep = mb.greater_equal(_uniform(shape, x.dtype, seed), rate_t)
    return array_select.where(keep, scaled, t(0, dtype=x.dtype))


def _noise_shape(x, noise_shape):
    dims = x.shape.as_list()
    if noise_shape is None:
        return dims
    ns = static(noise_shape)
    if hasattr(ns, "as_list"):
        ns = ns.as_list()
    ns = list(ns)
    if len(ns) == len(dims):
        ns = [d if n is None else n for n, d in zip(ns, dims)]
    return [int(n) for n in ns]


def _uniform(shape, dtype, seed):
    """Uniform [0, 1) samples from tensorlet's random module (``tf.random.uniform``, global + op seeds)."""
    return random_gen.uniform(shape, dtype=dtype, seed=seed)


# --- embedding_lookup ------------------------------------------------------------------------

def _lookup(params, ids, partition_strategy, max_norm):
    if params is None:
        raise ValueError("params must be specified")
    plist = list(params) if isinstance(params, (list, tuple)) else [params]
    if not plist:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be one of either `mod` or "
                         "`div`.")
    gather = gather_scatter.gather
    plist = [t(p) for p in plist]
    ids = t(ids)
    if len(plist) == 1:
        result = gather(plist[0], ids)
    else:
        result = gather(array_blocks.concat(plist, 0), _partitioned_ids(plist, ids, partition_strategy))
    if max_norm is not None:
        result = _clip_rows(result, ids.shape.rank, max_norm)
    return result


def _partitioned_ids(plist, ids, strategy):
    """Row of the concatenated table for each id: partition p's rows start at offsets[p]."""
    n = len(plist)
    sizes = [int(p.shape[0]) for p in plist]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(ids.dtype.as_numpy_dtype)
    if strategy == "mod":
        part, row = mb.floormod(ids, n), mb.floordiv(ids, n)
    else:
        total = sum(sizes)
        per, extras = total // n, total % n
        big = mb.floordiv(ids, per + 1)
        part = mb.maximum(big, mb.floordiv(mb.subtract(ids, extras), per)) if per else big
        first = mb.cast(mb.less(part, extras), ids.dtype)
        rest = mb.floormod(mb.subtract(ids, extras), per) if per else mb.multiply(ids, 0)
        row = mb.add(mb.multiply(first, mb.floormod(ids, per + 1)), mb.multiply(mb.subtract(1, first), rest))
    if isinstance(part, EagerTensor):
        _check_partitions(part._v, row._v, n, sizes)
    return mb.add(gather_scatter.gather(t(offsets), part), row)


def _check_partitions(part, row, n, sizes):
    flat_p, flat_r = part.ravel(), row.ravel()
    bad = np.flatnonzero((flat_p < 0) | (flat_p >= n))
    if bad.size:
        i = int(bad[0])
        raise errors.invalid_argument("DynamicPartition", f"partitions[{i}] = {flat_p[i]} is not in [0, {n})")
    limit = np.asarray(sizes)[flat_p]
    bad = np.flatnonzero((flat_r < 0) | (flat_r >= limit))
    if bad.size:
        i = int(bad[0])
        raise errors.invalid_argument("GatherV2", f"indices[{i}] = {flat_r[i]} is not in [0, {limit[i]})")


def _clip_rows(x, ids_rank, max_norm):
    """Each looked-up embedding (the axes after the ids' axes) scaled down to L2 norm <= max_norm."""
    axes = list(range(ids_rank, x.shape.rank))
    sq = mb.multiply(x, x)
    if axes:
        sq = reduce.reduce_sum(sq, axes, keepdims=True)
    positive = mb.greater(sq, 0)
    where = array_select.where
    norm = where(positive, math_unary.sqrt(where(positive, sq, creation.ones_like(sq))), sq)
    clip = mb.cast(t(max_norm), x.dtype) if _is_tensor(max_norm) else const(max_norm, x.dtype)
    return mb.truediv(mb.multiply(x, clip), mb.maximum(norm, clip))


@tf_export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` for ``ids`` (``params`` may be a list of partitions, sharded "div"-style).

    ``tf.nn.embedding_lookup(tf.constant([[0.0, 1.0], [2.0, 3.0]]), [1, 1])`` -> ``[[2.0, 3.0], [2.0, 3.0]]``
    (a Python list of rows would be read as a list of partitions, as in TF).
    """
    return _lookup(params, ids, "div", max_norm)


@tf_export("compat.v1.nn.embedding_lookup")
def embedding_lookup_v1(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """TF1's ``embedding_lookup``: ``partition_strategy`` "mod" (id % n) or "div" (contiguous blocks)."""
    return _lookup(params, ids, partition_strategy, max_norm)


# --- local response normalization ----------------------------------------------------------

def _band(depth, depth_radius, dtype=np.float32):
    """The symmetric 0/1 matrix summing each channel's window: band[i, j] = |i - j| <= depth_radius."""
    idx = np.arange(depth)
    return (np.abs(idx[:, None] - idx[None, :]) <= depth_radius).astype(dtype)


def _lrn(xp, x, depth_radius, bias, alpha, beta):
    y = f32(x)
    sqr_sum = xp.matmul(y * y, _band(x.shape[-1], depth_radius))
    return (y * (bias + alpha * sqr_sum) ** (-beta)).astype(x.dtype, copy=False)


def _lrn_grad(g, ans, x, depth_radius, bias, alpha, beta):
    """TF's LRNGrad as a composite (so it has second derivatives; TF's LRNGrad has none).

    With n = bias + alpha * window_sum(x^2) and y = x * n^-beta:
    dx = g * n^-beta - 2 * alpha * beta * x * window_sum(g * x * n^(-beta - 1)).
    """
    xf, gf = _upcast(x), _upcast(g)
    shape = array_shape.shape(xf)
    depth = x.shape[-1]
    band = t(_band(depth, depth_radius, xf.dtype.as_numpy_dtype))

    def window_sum(v):  # over the last axis, as a 2-D matmul with the band
        return array_shape.reshape(matmul.matmul(array_shape.reshape(v, [-1, depth]), band), shape)

    n = window_sum(xf * xf) * mb.cast(alpha, xf.dtype) + mb.cast(bias, xf.dtype)
    f = mb.pow(n, mb.cast(-beta, xf.dtype))
    dx = gf * f - mb.cast(2 * alpha * beta, xf.dtype) * xf * window_sum(gf * xf * f / n)
    return mb.cast(dx, x.dtype)


def _lrn_check(x, depth_radius, **_):
    if x.shape.rank != 4:
        raise errors.invalid_argument("LRN", "in must be 4-dimensional")
    if depth_radius < 0:
        raise errors.invalid_argument("LRN", f"depth_radius = {depth_radius} must be non-negative")


LRN = defop("LRN", _lrn, dtypes=(D.float16, D.bfloat16, D.float32), check=_lrn_check, shape=shapes.same,
            grad=_lrn_grad)


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """x / (bias + alpha * sum of x**2 over channels within depth_radius) ** beta, for NHWC input.

    ``tf.nn.lrn(tf.ones([1, 1, 1, 2]))`` -> ``[[[[0.577, 0.577]]]]``.
    """
    return bind(LRN, t(input), depth_radius=int(static(depth_radius)), bias=float(static(bias)),
                alpha=float(static(alpha)), beta=float(static(beta)))


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import (  # noqa: E402
    array_identity,
    array_select,
    array_shape,
    array_blocks,
    creation,
    gather_scatter,
    math_unary,
    matmul,
    random_gen,
    reduce,
)
from tensorlet._src.ops import math_binary as mb  # noqa: E402
from tensorlet._src.ops.nn_activations import const, f32  # noqa: E402
