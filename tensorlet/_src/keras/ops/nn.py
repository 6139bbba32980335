"""``keras.ops.nn``: activations, normalization, losses, convolution and pooling, attention, CTC — Keras 3's
semantics over tensorlet ops (also exported at ``keras.ops.*``).

>>> float(relu6(7.0))
6.0
"""

from __future__ import annotations

import math as _math

import numpy as np

from tensorlet._src.keras.backend import epsilon as _epsilon, floatx, standardize_dtype
from tensorlet._src.keras.ops._dtypes import cast, convert, result_type
from tensorlet._src.keras.ops.numpy_elementwise import export
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import nn_activations as na
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.array_space import depth_to_space as _d2s, space_to_depth as _s2d
from tensorlet._src.ops.math_einsum import einsum
from tensorlet._src.ops.array_select import one_hot as _one_hot, where
from tensorlet._src.ops.creation import range as _range, zeros_like
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.nn_conv import convolution as _convolution
from tensorlet._src.ops.nn_conv_transpose import conv_transpose as _conv_transpose
from tensorlet._src.ops.nn_conv_transpose import depthwise_conv2d as _depthwise, separable_conv2d as _separable
from tensorlet._src.ops.nn_losses import sigmoid_cross_entropy_with_logits as _sce_logits
from tensorlet._src.ops.nn_pool import pool as _pool
from tensorlet._src.ops.segment import unsorted_segment_sum


def nn_export(name):
    return export(name, "nn")


def _f(x):
    x = convert(x)
    return cast(x, floatx()) if not (x.dtype.is_floating or x.dtype.is_complex) else x


def _const(v, x):
    return mb.cast(v, x.dtype)


# ---- activations -------------------------------------------------------------------------------------------------


@nn_export("relu")
def relu(x):
    """``max(x, 0)``."""
    return na.relu(convert(x))


@nn_export("relu6")
def relu6(x):
    """``min(max(x, 0), 6)``."""
    return na.relu6(convert(x))


@nn_export("sigmoid")
def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return mu.sigmoid(convert(x))


@nn_export("sparse_sigmoid")
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, linear in between."""
    x = _f(x)
    return where(mb.less_equal(x, _const(-1, x)), zeros_like(x),
                 where(mb.greater_equal(x, _const(1, x)), mb.add(zeros_like(x), _const(1, x)),
                       mb.multiply(_const(0.5, x), mb.add(x, _const(1, x)))))


@nn_export("softplus")
def softplus(x):
    """``log(1 + exp(x))``."""
    return na.softplus(convert(x))


@nn_export("softsign")
def softsign(x):
    """``x / (1 + |x|)``."""
    return na.softsign(convert(x))


@nn_export("silu")
def silu(x):
    """``x * sigmoid(x)``."""
    x = convert(x)
    return mb.multiply(x, mu.sigmoid(x))


@nn_export("swish")
def swish(x):
    """``x * sigmoid(x)`` (``silu``)."""
    return silu(x)


@nn_export("log_sigmoid")
def log_sigmoid(x):
    """``log(sigmoid(x))``."""
    return mu.log_sigmoid(convert(x))


@nn_export("hard_sigmoid")
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    x = _f(x)
    return mb.divide(na.relu6(mb.add(x, _const(3, x))), _const(6, x))


@nn_export("hard_silu")
def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x = _f(x)
    return mb.multiply(x, hard_sigmoid(x))


@nn_export("hard_swish")
def hard_swish(x):
    """``hard_silu``."""
    return hard_silu(x)


@nn_export("hard_tanh")
def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    x = convert(x)
    return clip_by_value(x, _const(-1, x), _const(1, x))


@nn_export("tanh_shrink")
def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _f(x)
    return mb.subtract(x, mu.tanh(x))


@nn_export("selu")
def selu(x):
    """Scaled ELU."""
    return na.selu(convert(x))


@nn_export("sparse_plus")
def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)^2 / 4`` in between."""
    x = _f(x)
    mid = mb.multiply(_const(0.25, x), mu.square(mb.add(x, _const(1, x))))
    return where(mb.less_equal(x, _const(-1, x)), zeros_like(x), where(mb.greater_equal(x, _const(1, x)), x, mid))


@nn_export("squareplus")
def squareplus(x, b=4):
    """``(x + sqrt(x^2 + b)) / 2``."""
    x = _f(x)
    return mb.divide(mb.add(x, mu.sqrt(mb.add(mu.square(x), _const(b, x)))), _const(2, x))


@nn_export("elu")
def elu(x, alpha=1.0):
    """``x`` for positives, ``alpha * (exp(x) - 1)`` below."""
    x = convert(x)
    if alpha == 1.0:
        return na.elu(x)
    return where(mb.greater(x, _const(0, x)), x, mb.multiply(_const(alpha, x), mu.expm1(x)))


@nn_export("celu")
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    x = _f(x)
    return mb.add(mb.maximum(x, _const(0, x)),
                  mb.multiply(_const(alpha, x), mu.expm1(mb.divide(mb.minimum(x, _const(0, x)), _const(alpha, x)))))


@nn_export("gelu")
def gelu(x, approximate=True):
    """Gaussian error linear unit (tanh approximation by default)."""
    return na.gelu(_f(x), approximate=approximate)


@nn_export("leaky_relu")
def leaky_relu(x, negative_slope=0.2):
    """``x`` for positives, ``negative_slope * x`` below."""
    return na.leaky_relu(convert(x), alpha=negative_slope)


@nn_export("hard_shrink")
def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    x = convert(x)
    return where(mb.greater(mu.abs(x), _const(threshold, x)), x, zeros_like(x))


@nn_export("soft_shrink")
def soft_shrink(x, threshold=0.5):
    """``x`` moved ``threshold`` towards 0 (0 inside the band)."""
    x = convert(x)
    t = _const(threshold, x)
    return where(mb.greater(x, t), mb.subtract(x, t), where(mb.less(x, mu.negative(t)), mb.add(x, t), zeros_like(x)))


@nn_export("threshold")
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = convert(x)
    return where(mb.greater(x, _const(threshold, x)), x, mb.add(zeros_like(x), _const(default_value, x)))


@nn_export("glu")
def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves of ``axis``."""
    x = convert(x)
    if x.shape[axis] is not None and x.shape[axis] % 2:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    a, b = array_blocks.split(x, 2, axis=axis)
    return mb.multiply(a, mu.sigmoid(b))


def _flat_axis(fn, x, axis):
    x = convert(x)
    if axis is None:
        return array_shape.reshape(fn(array_shape.reshape(x, [-1]), 0), _shape_of(x))
    if isinstance(axis, (tuple, list)):
        nd = x.shape.rank
        axes = sorted(a % nd for a in axis)
        keep = [i for i in range(nd) if i not in axes]
        xt = array_shape.transpose(x, keep + axes)
        shp = _shape_of(xt)
        flat = array_shape.reshape(xt, [d for d in [x.shape[i] for i in keep]] + [-1])
        r = array_shape.reshape(fn(flat, -1), shp)
        return array_shape.transpose(r, [(keep + axes).index(i) for i in range(nd)])
    return fn(x, axis)


def _shape_of(x):
    from tensorlet._src.ops.array_shape import shape

    return shape(x)


@nn_export("softmax")
def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (all axes when None)."""
    return _flat_axis(lambda v, a: na.softmax(v, axis=a), _f(x), axis)


@nn_export("log_softmax")
def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``."""
    return _flat_axis(lambda v, a: na.log_softmax(v, axis=a), _f(x), axis)


@nn_export("sparsemax")
def sparsemax(x, axis=-1):
    """Sparsemax along ``axis``, with the threshold Keras 3 computes (``(sum of the supported cumulative sums - 1)
    / k``), so outputs equal Keras's."""
    from tensorlet._src.ops.scan_sort import cumsum, sort

    x = convert(x)
    nd = x.shape.rank
    axis = axis % nd
    z = sort(x, axis=axis, direction="DESCENDING")
    cs = cumsum(z, axis=axis)
    shp = [1] * nd
    shp[axis] = -1
    r = array_shape.reshape(cast(_range(1, x.shape[axis] + 1), x.dtype.name), shp)
    support = mb.greater(mb.subtract(z, mb.divide(mb.subtract(cs, _const(1, x)), r)), _const(0, x))
    k = rd.reduce_sum(cast(support, x.dtype.name), axis=axis, keepdims=True)
    tau = mb.divide(mb.subtract(rd.reduce_sum(where(support, cs, zeros_like(cs)), axis=axis, keepdims=True),
                                _const(1, x)), k)
    return mb.maximum(mb.subtract(x, tau), _const(0, x))


# ---- encodings and normalization ---------------------------------------------------------------------------------


@nn_export("one_hot")
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot encoding (negative indices give all zeros)."""
    if sparse:
        raise ValueError("keras.ops.one_hot(sparse=True) needs sparse tensors, which tensorlet does not have yet")
    x = convert(x)
    return _one_hot(cast(x, "int64") if not x.dtype.is_integer else x, num_classes, axis=axis,
                    dtype=standardize_dtype(dtype or floatx()))


@nn_export("multi_hot")
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot encoding: the one-hot vectors of each row combined."""
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    x = convert(inputs)
    red = 1 if x.shape.rank > 1 else 0
    d = standardize_dtype(dtype or floatx())
    if d == "bool":
        return rd.reduce_any(one_hot(x, num_classes, axis=axis, dtype="bool"), axis=red)
    return rd.reduce_max(one_hot(x, num_classes, axis=axis, dtype=d), axis=red)


@nn_export("moments")
def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` over ``axes`` (float16 computed in float32)."""
    x = convert(x)
    orig = x.dtype.name
    if orig in ("float16", "bfloat16"):
        x = cast(x, "float32")
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    mean = rd.reduce_mean(x, axis=axes, keepdims=True)
    var = rd.reduce_mean(mu.square(mb.subtract(x, mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = array_shape.squeeze(mean, axis=axes)
        var = array_shape.squeeze(var, axis=axes)
    if orig in ("float16", "bfloat16"):
        lim = float(np.finfo(np.float16).max)
        mean = cast(clip_by_value(mean, -lim, lim), orig)
        var = cast(clip_by_value(var, -lim, lim), orig)
    return mean, var


@nn_export("batch_normalization")
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` with the statistics on ``axis``."""
    x = convert(x)
    nd = x.shape.rank

    def shaped(v):
        if v is None:
            return None
        v = cast(v, x.dtype)
        if axis % nd != nd - 1:
            shp = [1] * nd
            shp[axis] = -1
            v = array_shape.reshape(v, shp)
        return v

    m, v, o, s = shaped(mean), shaped(variance), shaped(offset), shaped(scale)
    inv = mu.rsqrt(mb.add(v, _const(epsilon, x)))
    if s is not None:
        inv = mb.multiply(inv, s)
    y = mb.multiply(mb.subtract(x, m), inv)
    return mb.add(y, o) if o is not None else y


@nn_export("layer_normalization")
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """Normalizes over ``axis`` then applies ``gamma`` and ``beta``."""
    x = convert(x)
    epsilon = _epsilon() if epsilon is None else epsilon
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    orig = x.dtype.name
    xc = cast(x, "float32") if orig in ("float16", "bfloat16") else x
    mean = rd.reduce_mean(xc, axis=axes, keepdims=True)
    var = rd.reduce_mean(mu.square(mb.subtract(xc, mean)), axis=axes, keepdims=True)
    y = mb.multiply(mb.subtract(xc, mean), mu.rsqrt(mb.add(var, _const(epsilon, xc))))
    if gamma is not None:
        y = mb.multiply(y, cast(gamma, y.dtype))
    if beta is not None:
        y = mb.add(y, cast(beta, y.dtype))
    return cast(y, orig)


@nn_export("rms_normalization")
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x^2) + epsilon) * scale`` over ``axis``."""
    x = _f(x)
    epsilon = _epsilon() if epsilon is None else epsilon
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    r = mu.rsqrt(mb.add(rd.reduce_mean(mu.square(x), axis=axes, keepdims=True), _const(epsilon, x)))
    y = mb.multiply(x, r)
    return mb.multiply(y, cast(scale, y.dtype)) if scale is not None else y


@nn_export("normalize")
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm along ``axis`` (at least ``epsilon``)."""
    x = _f(x)
    eps = _epsilon() if epsilon is None else epsilon
    if order == 2:
        sq = rd.reduce_sum(mu.square(x), axis=axis, keepdims=True)
        return mb.multiply(x, mu.rsqrt(mb.maximum(sq, _const(eps, x))))
    if order == 1:
        n = rd.reduce_sum(mu.abs(x), axis=axis, keepdims=True)
    else:
        n = mb.pow(rd.reduce_sum(mb.pow(mu.abs(x), _const(order, x)), axis=axis, keepdims=True),
                   _const(1.0 / order, x))
    return mb.divide(x, mb.maximum(n, _const(eps, x)))


@nn_export("psnr")
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio in dB."""
    a, b = convert(x1), convert(x2)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"Input shapes {a.shape} and {b.shape} must match for PSNR calculation. ")
    mv = convert(max_val, b.dtype)
    mse = rd.reduce_mean(mu.square(mb.subtract(a, b)))
    l10 = _const(_math.log(10.0), mse)
    return mb.subtract(mb.multiply(_const(20, mse), mb.divide(mu.log(mv), l10)),
                       mb.multiply(_const(10, mse), mb.divide(mu.log(mse), l10)))


# ---- losses ------------------------------------------------------------------------------------------------------


@nn_export("binary_crossentropy")
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy."""
    t, o = convert(target), convert(output)
    if len(t.shape) != len(o.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={t.shape}, output.shape={o.shape}")
    t = cast(t, o.dtype)
    if from_logits:
        return _sce_logits(labels=t, logits=o)
    eps = _epsilon()
    o = clip_by_value(o, _const(eps, o), _const(1.0 - eps, o))
    bce = mb.add(mb.multiply(t, mu.log(o)), mb.multiply(mb.subtract(_const(1, t), t), mu.log(mb.subtract(
        _const(1, o), o))))
    return mu.negative(bce)


@nn_export("categorical_crossentropy")
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between one-hot ``target`` and ``output`` along ``axis``."""
    t, o = convert(target), convert(output)
    if len(t.shape) != len(o.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={t.shape}, output.shape={o.shape}")
    t = cast(t, o.dtype)
    if from_logits:
        return mu.negative(rd.reduce_sum(mb.multiply(t, na.log_softmax(o, axis=axis)), axis=axis))
    o = mb.divide(o, rd.reduce_sum(o, axis=axis, keepdims=True))
    eps = _epsilon()
    o = clip_by_value(o, _const(eps, o), _const(1.0 - eps, o))
    return mu.negative(rd.reduce_sum(mb.multiply(t, mu.log(o)), axis=axis))


@nn_export("sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between integer ``target`` and ``output``."""
    o = convert(output)
    if axis != -1 and axis != len(o.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    t = cast(target, "int64")
    if len(t.shape) == len(o.shape) and t.shape[-1] == 1:
        t = array_shape.squeeze(t, axis=[-1])
    oh = _one_hot(t, o.shape[-1], dtype=o.dtype)
    return categorical_crossentropy(oh, o, from_logits=from_logits)


# ---- convolution and pooling -------------------------------------------------------------------------------------


def _fmt(nd_spatial, data_format):
    df = standardize_data_format(data_format)
    return df, {1: "NWC", 2: "NHWC", 3: "NDHWC"}[nd_spatial]


def standardize_data_format(data_format):
    from tensorlet._src.keras.backend import standardize_data_format as s

    return s(data_format)


def _to_last(x, df):
    if df == "channels_first":
        nd = x.shape.rank
        return array_shape.transpose(x, [0] + list(range(2, nd)) + [1])
    return x


def _from_last(x, df):
    if df == "channels_first":
        nd = x.shape.rank
        return array_shape.transpose(x, [0, nd - 1] + list(range(1, nd - 1)))
    return x


def _tuple(v, n):
    return [int(v)] * n if isinstance(v, (int, np.integer)) else [int(a) for a in v]


@nn_export("conv")
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (kernel ``spatial + (in, out)``)."""
    x, k = convert(inputs), convert(kernel)
    n = x.shape.rank - 2
    df, tf_fmt = _fmt(n, data_format)
    x = _to_last(x, df)
    y = _convolution(x, k, strides=_tuple(strides, n), padding=padding.upper(), dilations=_tuple(dilation_rate, n),
                     data_format=tf_fmt)
    return _from_last(y, df)


@nn_export("depthwise_conv")
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise 1-D/2-D convolution (kernel ``spatial + (in, multiplier)``)."""
    x, k = convert(inputs), convert(kernel)
    n = x.shape.rank - 2
    df = standardize_data_format(data_format)
    x = _to_last(x, df)
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    if n == 1:
        x = array_shape.expand_dims(x, 1)
        k = array_shape.expand_dims(k, 0)
        s, d = [1] + s, [1] + d
    y = _depthwise(x, k, strides=[1] + s + [1], padding=padding.upper(), dilations=d)
    if n == 1:
        y = array_shape.squeeze(y, axis=[1])
    return _from_last(y, df)


@nn_export("separable_conv")
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise then pointwise convolution."""
    x, dk, pk = convert(inputs), convert(depthwise_kernel), convert(pointwise_kernel)
    n = x.shape.rank - 2
    df = standardize_data_format(data_format)
    x = _to_last(x, df)
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    if n == 1:
        x, dk, pk = array_shape.expand_dims(x, 1), array_shape.expand_dims(dk, 0), array_shape.expand_dims(pk, 0)
        s, d = [1] + s, [1] + d
    y = _separable(x, dk, pk, strides=[1] + s + [1], padding=padding.upper(), dilations=d)
    if n == 1:
        y = array_shape.squeeze(y, axis=[1])
    return _from_last(y, df)


def _deconv_length(n, k, stride, padding, output_padding, dilation):
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return n * stride + max(k - stride, 0)
        return n * stride
    pad = k // 2 if padding == "same" else 0
    return (n - 1) * stride + k - 2 * pad + output_padding


@nn_export("conv_transpose")
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                   dilation_rate=1):
    """Transposed convolution (kernel ``spatial + (out, in)``)."""
    x, k = convert(inputs), convert(kernel)
    n = x.shape.rank - 2
    df, tf_fmt = _fmt(n, data_format)
    x = _to_last(x, df)
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    op = [None] * n if output_padding is None else _tuple(output_padding, n)
    spatial = [_deconv_length(x.shape[1 + i], k.shape[i], s[i], padding, op[i], d[i]) for i in range(n)]
    out_shape = [x.shape[0]] + spatial + [k.shape[-2]]
    y = _conv_transpose(x, k, out_shape, strides=s, padding=padding.upper(), data_format=tf_fmt, dilations=d)
    return _from_last(y, df)


def _pool_op(kind, inputs, pool_size, strides, padding, data_format):
    x = convert(inputs)
    n = x.shape.rank - 2
    df, tf_fmt = _fmt(n, data_format)
    x = _to_last(x, df)
    ps = _tuple(pool_size, n)
    st = ps if strides is None else _tuple(strides, n)
    y = _pool(x, ps, kind, strides=st, padding=padding.upper(), data_format=tf_fmt)
    return _from_last(y, df)


@nn_export("max_pool")
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling (strides default to the pool size)."""
    return _pool_op("MAX", inputs, pool_size, strides, padding, data_format)


@nn_export("average_pool")
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling (``same`` padding averages only the valid elements)."""
    return _pool_op("AVG", inputs, pool_size, strides, padding, data_format)


def _adaptive(red, inputs, output_size, data_format):
    x = convert(inputs)
    n = x.shape.rank - 2
    df = standardize_data_format(data_format)
    x = _to_last(x, df)
    out = _tuple(output_size, n)
    for i in range(n):
        L = x.shape[1 + i]
        pieces = []
        for j in range(out[i]):
            lo, hi = (j * L) // out[i], -((-(j + 1) * L) // out[i])
            sl = [slice(None)] * x.shape.rank
            sl[1 + i] = slice(lo, hi)
            pieces.append(red(x[tuple(sl)], axis=1 + i, keepdims=True))
        x = array_blocks.concat(pieces, 1 + i)
    return _from_last(x, df)


@nn_export("adaptive_average_pool")
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed output size (PyTorch's bin edges)."""
    return _adaptive(rd.reduce_mean, inputs, output_size, data_format)


@nn_export("adaptive_max_pool")
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed output size."""
    return _adaptive(rd.reduce_max, inputs, output_size, data_format)


@nn_export("depth_to_space")
def depth_to_space(x, block_size, data_format="channels_last"):
    """Moves depth blocks into spatial blocks."""
    return _d2s(convert(x), block_size, data_format="NHWC" if data_format == "channels_last" else "NCHW")


@nn_export("space_to_depth")
def space_to_depth(x, block_size, data_format="channels_last"):
    """Moves spatial blocks into depth."""
    return _s2d(convert(x), block_size, data_format="NHWC" if data_format == "channels_last" else "NCHW")


def _unfold_index(h, w, k, d, p, s):
    kh, kw = k
    oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1
    wp = w + 2 * p[1]
    ki, kj = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = ki.reshape(-1, 1) * d[0] + oi.reshape(1, -1) * s[0]
    cols = kj.reshape(-1, 1) * d[1] + oj.reshape(1, -1) * s[1]
    return (rows * wp + cols).astype(np.int32), oh * ow


@nn_export("unfold")
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a ``(N, C, H, W)`` tensor as ``(N, C * kh * kw, L)`` (PyTorch's ``unfold``)."""
    x = convert(x)
    nb, c, h, w = x.shape
    k, d, p, s = _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    xp = array_blocks.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    flat = array_shape.reshape(xp, [-1 if nb is None else nb, c, -1])
    idx, L = _unfold_index(h, w, k, d, p, s)  # [kh*kw, L]
    g = gather(flat, array_shape.reshape(idx, [-1]), axis=2)
    return array_shape.reshape(g, [-1 if nb is None else nb, c * k[0] * k[1], L])


@nn_export("fold")
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse of ``unfold``: sums ``(N, C * kh * kw, L)`` blocks into ``(N, C, H, W)``."""
    x = convert(x)
    nb, ckk, L = x.shape
    h, w = _tuple(output_size, 2)
    k, d, p, s = _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    c = ckk // (k[0] * k[1])
    idx, _ = _unfold_index(h, w, k, d, p, s)
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    v = array_shape.reshape(x, [-1 if nb is None else nb, c, k[0] * k[1] * L])
    v = array_shape.transpose(v, [2, 0, 1])
    summed = unsorted_segment_sum(v, convert(idx.reshape(-1)), hp * wp)
    img = array_shape.reshape(array_shape.transpose(summed, [1, 2, 0]), [-1 if nb is None else nb, c, hp, wp])
    return img[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


# ---- attention ---------------------------------------------------------------------------------------------------


def _large_negative(dtype):
    return (65500.0 if dtype == "float16" else 3.38953e38) * -0.7


@nn_export("dot_product_attention")
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False, flash_attention=None,
                          attn_logits_soft_cap=None):
    """Scaled dot-product attention over ``(batch, seq, heads, dim)`` tensors."""
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorlet.")
    q, k, v = convert(query), convert(key), convert(value)
    if q.shape.rank != 4:
        raise ValueError(f"`dot_product_attention` only supports 4D inputs. Received: query.shape={q.shape}, "
                         f"key.shape={k.shape}, value.shape={v.shape}.")
    dt = result_type(q.dtype.name, k.dtype.name, v.dtype.name)
    q, k, v = cast(q, dt), cast(k, dt), cast(v, dt)
    nq, nk = q.shape[2], k.shape[2]
    if nq is not None and nk is not None and nq > nk:
        rep = nq // nk
        k = array_shape.repeat(k, rep, axis=2)
        v = array_shape.repeat(v, rep, axis=2)
    scale = (1.0 / _math.sqrt(q.shape[-1])) if scale is None else scale
    ld = result_type(dt, "float32")
    logits = cast(einsum("BTNH,BSNH->BNTS", q, k), ld)
    logits = mb.multiply(logits, mb.cast(scale, ld))
    if attn_logits_soft_cap is not None:
        cap = mb.cast(attn_logits_soft_cap, ld)
        logits = mb.multiply(mu.tanh(mb.divide(logits, cap)), cap)
    if bias is not None:
        logits = mb.add(logits, cast(bias, ld))
    combined = None
    if mask is not None:
        combined = cast(mask, "bool")
    if is_causal:
        T, S = logits.shape[2], logits.shape[3]
        causal = mb.greater_equal(_range(T)[:, None] + (S - T), _range(S)[None, :])
        combined = causal if combined is None else mb.logical_and(combined, causal)
    if combined is not None:
        logits = where(combined, logits, mb.add(zeros_like(logits), mb.cast(_large_negative(ld), ld)))
    probs = cast(na.softmax(logits, axis=-1), k.dtype)
    return einsum("BNTS,BSNH->BTNH", probs, v)


# ---- CTC ---------------------------------------------------------------------------------------------------------


@nn_export("ctc_loss")
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC negative log-likelihood per batch element (``output`` are logits ``(batch, time, classes)``)."""
    logits = convert(output)
    logits = cast(logits, result_type(logits.dtype.name, "float32"))
    labels = np.asarray(convert(target, "int32"))
    lab_len = np.asarray(convert(target_length, "int32")).reshape(-1)
    log_len = np.asarray(convert(output_length, "int32")).reshape(-1)
    B, T, _ = logits.shape
    lp = na.log_softmax(logits, axis=-1)
    neg = mb.cast(-1e30, lp.dtype)
    losses = []
    for b in range(B):
        lab = labels[b, : lab_len[b]]
        ext = [mask_index]
        for c in lab:
            ext += [int(c), mask_index]
        S = len(ext)
        ext_t = convert(np.asarray(ext, np.int32))
        # allowed skip from s-2: ext[s] != blank and ext[s] != ext[s-2]
        skip = np.array([s >= 2 and ext[s] != mask_index and ext[s] != ext[s - 2] for s in range(S)])
        emit = gather(lp[b], ext_t, axis=1)  # [T, S]
        init = np.full(S, -1e30, np.float32)
        alpha = mb.add(mb.multiply(emit[0], mb.cast(0, lp.dtype)), cast(convert(init), lp.dtype))
        first = np.zeros(S, bool)
        first[:2] = True
        alpha = where(convert(first[:S]), emit[0], alpha)
        skip_t = convert(skip)
        for t in range(1, int(log_len[b])):
            a1 = array_blocks.concat([array_shape.reshape(neg, [1]), alpha[:-1]], 0)
            a2 = array_blocks.concat([array_shape.reshape(neg, [1]), array_shape.reshape(neg, [1]), alpha[:-2]], 0)[:S]
            a2 = where(skip_t, a2, mb.add(zeros_like(a2), neg))
            stacked = array_blocks.stack([alpha, a1, a2], 0)
            alpha = mb.add(rd.reduce_logsumexp(stacked, axis=0), emit[t])
        last = (alpha[S - 1] if S == 1
                else rd.reduce_logsumexp(array_blocks.stack([alpha[S - 1], alpha[S - 2]], 0), axis=0))
        losses.append(mu.negative(last))
    return array_blocks.stack(losses, 0)


@nn_export("ctc_decode")
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1, merge_repeated=True,
               mask_index=0):
    """Greedy CTC decoding: ``(decoded (1, batch, time) padded with -1, scores (batch, 1))``."""
    if strategy != "greedy":
        raise NotImplementedError("keras.ops.ctc_decode(strategy='beam_search') is not supported by tensorlet yet")
    x = convert(inputs)
    x = cast(x, result_type(x.dtype.name, "float32"))
    lens = np.asarray(convert(sequence_lengths, "int32")).reshape(-1)
    B, T, C = x.shape
    best = np.asarray(rd.argmax(x, axis=-1, output_type="int32"))
    top = rd.reduce_max(x, axis=-1)  # [B, T]
    steps = convert(np.arange(T)[None, :] < lens[:, None])
    score = mu.negative(rd.reduce_sum(where(steps, top, zeros_like(top)), axis=1, keepdims=True))
    out = np.full((B, T), -1, np.int32)
    blank = mask_index % C
    for b in range(B):
        seq, prev = [], None
        for t in range(int(lens[b])):
            c = int(best[b, t])
            if c != blank and not (merge_repeated and c == prev):
                seq.append(c)
            prev = c
        out[b, : len(seq)] = seq
    return array_shape.reshape(convert(out), [1, B, T]), score


