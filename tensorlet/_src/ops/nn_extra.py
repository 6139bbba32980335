"""``tf.nn`` additions: stateless / general dropout, ``batch_norm_with_global_normalization``, morphological
``dilation2d`` / ``erosion2d``, CTC label helpers (``collapse_repeated``, ``ctc_unique_labels``) and
``isotonic_regression``.

``IsotonicRegression`` is a primitive (pool-adjacent-violators in NumPy; a host call when compiled; TF's
segment-mean gradient); the rest are composites of existing ops.
"""

from __future__ import annotations

import numbers

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec


# --- dropout with a given sampler --------------------------------------------------------------

def _dropout(x, rate, noise_shape, sampler):
    x = t(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype}")
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        if rate == 0:
            return x
    rate_t = t(rate, dtype=x.dtype)
    scale = 1 / (1 - rate_t)
    shape = nn_norm._noise_shape(x, noise_shape)
    keep = math_binary.greater_equal(sampler(shape, x.dtype), rate_t)
    return array_select.where(keep, x * scale, creation.zeros_like(x))


@tf_export("nn.experimental.stateless_dropout")
def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout whose mask comes from the stateless generator with ``seed`` (same seed, same mask; TF's bits).

    >>> tf.nn.experimental.stateless_dropout(tf.ones([4]), 0.5, seed=[1, 2]).shape
    TensorShape([4])
    """
    alg = "auto_select" if rng_alg is None else rng_alg
    return _dropout(x, rate, noise_shape,
                    lambda shape, dtype: random_stateless.stateless_uniform(shape, seed, dtype=dtype, alg=alg))


@tf_export("nn.experimental.general_dropout")
def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout with the mask drawn by ``uniform_sampler(shape, dtype)`` (values in ``[0, 1)``).

    >>> tf.nn.experimental.general_dropout(tf.ones([2]), 0.5, lambda shape, dtype: tf.ones(shape, dtype)).numpy()
    array([2., 2.], dtype=float32)
    """
    return _dropout(x, rate, noise_shape, uniform_sampler)


@tf_export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,  # noqa: A002
                                         scale_after_normalization, name=None):
    """``batch_normalization`` with ``gamma`` applied only if ``scale_after_normalization``.

    >>> tf.nn.batch_norm_with_global_normalization([2.], [1.], [4.], [0.], [3.], 0., True).numpy()
    array([1.5], dtype=float32)
    """
    return nn_norm.batch_normalization(input, mean, variance, beta, gamma if scale_after_normalization else None,
                                       variance_epsilon)


# --- morphology --------------------------------------------------------------------------------

def _pair(v, name):
    v = [int(a) for a in static(v)]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise errors.invalid_argument("Dilation2D", f"{name} must be [1, rows, cols, 1], got {v}")
    return v[1], v[2]


def _dilation(x, w, strides, rates, padding):
    sh, sw = strides
    rh, rw = rates
    kh, kw, _ = w.shape
    n, hin, win, c = x.shape
    ekh, ekw = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "SAME":
        oh, ow = -(-hin // sh), -(-win // sw)
        ph = max((oh - 1) * sh + ekh - hin, 0)
        pw = max((ow - 1) * sw + ekw - win, 0)
        low = float(np.finfo(x.dtype.as_numpy_dtype).min) if x.dtype.is_floating else int(x.dtype.min)
        x = array_blocks.pad(x, [[0, 0], [ph // 2, ph - ph // 2], [pw // 2, pw - pw // 2], [0, 0]],
                             constant_values=low)
    elif padding == "VALID":
        oh, ow = (hin - ekh) // sh + 1, (win - ekw) // sw + 1
    else:
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    if oh <= 0 or ow <= 0:
        raise errors.invalid_argument("Dilation2D", "The filter is larger than the input (VALID padding)")
    best = None
    for i in range(kh):
        for j in range(kw):
            win_ij = x[:, i * rh:i * rh + (oh - 1) * sh + 1:sh, j * rw:j * rw + (ow - 1) * sw + 1:sw, :] + w[i, j]
            best = win_ij if best is None else math_binary.maximum(best, win_ij)
    return best


@tf_export("nn.dilation2d")
def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """Grayscale morphological dilation: ``max_{dy,dx} input[y*s + dy*r, x*s + dx*r, c] + filters[dy, dx, c]``.

    >>> tf.nn.dilation2d(tf.reshape(tf.range(9.), [1, 3, 3, 1]), tf.zeros([2, 2, 1]), [1, 1, 1, 1], "VALID",
    ...                  "NHWC", [1, 1, 1, 1])[0, ..., 0].numpy()
    array([[4., 5.],
           [7., 8.]], dtype=float32)
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than NHWC are not yet supported")
    x = t(input)
    w = t(filters, dtype=x.dtype)
    if x.shape.rank != 4 or w.shape.rank != 3:
        raise errors.invalid_argument("Dilation2D", f"input must be 4-dimensional and filter 3-dimensional, got "
                                                    f"{x.shape.rank} and {w.shape.rank}")
    if x.shape[3] != w.shape[2]:
        raise errors.invalid_argument("Dilation2D", f"input and filter must have the same depth: {x.shape[3]} vs "
                                                    f"{w.shape[2]}")
    return _dilation(x, w, _pair(strides, "strides"), _pair(dilations or [1, 1, 1, 1], "rates"), padding)


@tf_export("nn.erosion2d")
def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion: ``-dilation2d(-value, reversed filters)``.

    >>> tf.nn.erosion2d(tf.reshape(tf.range(9.), [1, 3, 3, 1]), tf.zeros([2, 2, 1]), [1, 1, 1, 1], "VALID",
    ...                 "NHWC", [1, 1, 1, 1])[0, ..., 0].numpy()
    array([[-0.,  1.],
           [ 3.,  4.]], dtype=float32)
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than NHWC are not yet supported")
    value = t(value)
    filters = t(filters, dtype=value.dtype)
    return -dilation2d(-value, array_select.reverse(filters, [0, 1]), strides, padding, data_format, dilations)


# --- CTC label helpers ---------------------------------------------------------------------------

@tf_export("nn.collapse_repeated")
def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of equal labels: ``(collapsed [batch, new_maxlen], new_seq_length)``.

    >>> [v.numpy().tolist() for v in tf.nn.collapse_repeated([[1, 1, 2, 2, 3]], [5])]
    [[[1, 2, 3]], [3]]
    """
    labels = t(labels)
    seq_length = t(seq_length)
    first = creation.ones_like(labels[:, :1], dtype=D.bool)
    label_mask = array_blocks.concat([first, math_binary.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
    maxlen = labels.shape[1]
    label_mask = math_binary.logical_and(label_mask, array_select.sequence_mask(seq_length, maxlen=maxlen))
    new_len = reduce.reduce_sum(math_binary.cast(label_mask, D.int32), axis=1)
    new_maxlen = reduce.reduce_max(new_len)
    idx_mask = array_select.sequence_mask(new_len, maxlen=new_maxlen)
    flat_labels = array_shape.reshape(labels, [-1])
    flat_label_mask = array_shape.reshape(label_mask, [-1])
    flat_idx_mask = array_shape.reshape(idx_mask, [-1])
    idx = creation.range(array_shape.shape(flat_idx_mask)[0])
    flat = gather_scatter.scatter_nd(array_shape.expand_dims(gather_scatter.boolean_mask(idx, flat_idx_mask), 1),
                                     gather_scatter.boolean_mask(flat_labels, flat_label_mask),
                                     array_shape.shape(flat_idx_mask))
    out = array_shape.reshape(flat, array_blocks.stack([array_shape.shape(labels)[0], new_maxlen]))
    return out, math_binary.cast(new_len, seq_length.dtype)


@tf_export("nn.ctc_unique_labels")
def ctc_unique_labels(labels, name=None):
    """Per row of ``labels``, the unique labels (int64, first-appearance order, zero-padded) and each entry's
    index into them (int32).

    >>> [v.numpy().tolist() for v in tf.nn.ctc_unique_labels([[3, 4, 4, 3]])]
    [[[3, 4, 0, 0]], [[0, 1, 1, 0]]]
    """
    labels = t(labels)
    ys, idxs = [], []
    for row in array_blocks.unstack(labels, axis=0) if labels.shape[0] else []:
        u = segment.unique(row)
        pad = array_shape.shape(u.idx)[0] - array_shape.shape(u.y)[0]
        ys.append(math_binary.cast(array_blocks.pad(u.y, array_shape.reshape(
            array_blocks.stack([t(0), pad]), [1, 2])), D.int64))
        idxs.append(u.idx)
    if not ys:
        return creation.zeros([0, labels.shape[1]], D.int64), creation.zeros([0, labels.shape[1]], D.int32)
    return array_blocks.stack(ys), array_blocks.stack(idxs)


# --- isotonic regression -----------------------------------------------------------------------

def _pav_row(y):
    """Non-increasing least-squares fit of ``y`` (pool adjacent violators) and the segment id of each entry."""
    sums, counts = [], []
    for v in y.tolist():
        sums.append(float(v))
        counts.append(1)
        while len(sums) > 1 and sums[-2] / counts[-2] < sums[-1] / counts[-1]:  # equal means stay apart (TF)
            s, c = sums.pop(), counts.pop()
            sums[-1] += s
            counts[-1] += c
    out = np.repeat(np.asarray(sums) / np.asarray(counts), counts) if sums else np.zeros(0)
    seg = np.repeat(np.arange(len(counts), dtype=np.int32), counts) if counts else np.zeros(0, np.int32)
    return out, seg


def _iso_out_dtype(d):
    """TF's output type: floats keep theirs, int8/int16 give float32, int32/int64 float64."""
    if d.kind == "f" or d.name == "bfloat16":
        return d
    return np.dtype(np.float32) if d.itemsize <= 2 else np.dtype(np.float64)


def _iso_np(xp, x):
    n = x.shape[-1] if x.ndim else 1
    flat = np.asarray(x, np.float64).reshape(-1, n)
    out = np.zeros(flat.shape, np.float64)
    seg = np.zeros(flat.shape, np.int32)
    for i in range(flat.shape[0]):
        out[i], seg[i] = _pav_row(flat[i])
    return out.reshape(x.shape).astype(_iso_out_dtype(x.dtype)), seg.reshape(x.shape)


def _iso_jax(xp, x):
    import jax

    od = _iso_out_dtype(np.dtype(x.dtype))
    return jax.pure_callback(lambda a: _iso_np(np, np.asarray(a)),
                             (jax.ShapeDtypeStruct(x.shape, od), jax.ShapeDtypeStruct(x.shape, np.int32)), x)


def _iso_grad(g, ans, x):
    # TF: the gradient of each output is spread evenly over the inputs of its segment
    gy = g[0]
    seg = ans[1]
    n = x.shape[-1]
    onehot = array_select.one_hot(seg, n, dtype=gy.dtype)  # [..., n(entries), n(segments)]
    seg_sum = linalg.matvec(onehot, gy, transpose_a=True)
    counts = reduce.reduce_sum(onehot, axis=-2)
    mean = seg_sum / math_binary.maximum(counts, creation.ones_like(counts))
    r = linalg.matvec(onehot, mean)
    return math_binary.cast(r, x.dtype) if x.dtype.is_floating else None


ISOTONIC = defop("IsotonicRegression", _iso_np, jax_impl=_iso_jax, n_out=2, grad=_iso_grad,
                 dtypes=(D.float16, D.bfloat16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64),
                 shape=lambda x: (Spec(x.shape, D.as_dtype(_iso_out_dtype(np.dtype(x.dtype.as_numpy_dtype)))),
                                  Spec(x.shape, D.int32)))


@tf_export("nn.isotonic_regression")
def isotonic_regression(inputs, decreasing=True, axis=-1):
    """The closest (least squares) non-increasing sequence along ``axis`` (non-decreasing if not
    ``decreasing``), and the int32 segment id of each entry.

    >>> tf.nn.isotonic_regression([[1., 3., 2.]])[0].numpy()
    array([[2., 2., 2.]], dtype=float32)
    """
    x = t(inputs)
    rank = x.shape.rank
    ax = axis + rank if axis < 0 else axis
    if rank == 0:
        raise ValueError("Input must be at least 1-D")
    if ax != rank - 1:
        perm = list(range(rank))
        perm[ax], perm[-1] = perm[-1], perm[ax]
        out, seg = isotonic_regression(array_shape.transpose(x, perm), decreasing, -1)
        return array_shape.transpose(out, perm), array_shape.transpose(seg, perm)
    if not decreasing:
        out, seg = bind(ISOTONIC, -x)
        return -out, seg
    out, seg = bind(ISOTONIC, x)
    return out, seg


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    array_shape,
    creation,
    gather_scatter,
    linalg,
    math_binary,
    nn_norm,
    random_stateless,
    reduce,
    segment,
)


# --- with_space_to_batch ------------------------------------------------------------------------

@tf_export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """Runs ``op(converted, num_spatial_dims, "VALID")`` on ``space_to_batch_nd(input)`` and maps the result back
    with ``batch_to_space_nd``: an ``op`` written for rate 1 then acts with ``dilation_rate`` (atrous convolution).

    >>> op = lambda x, n, p: tf.nn.convolution(x, tf.ones([2, 2, 1, 1]), padding=p)
    >>> tf.nn.with_space_to_batch(tf.ones([1, 6, 6, 1]), [2, 2], "VALID", op).shape
    TensorShape([1, 4, 4, 1])
    """
    x = t(input)
    rate = [int(v) for v in np.asarray(static(dilation_rate)).reshape(-1)]
    n = len(rate)
    if any(r < 1 for r in rate):
        raise ValueError(f"dilation_rate must be positive, got {rate}")
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    dims = list(spatial_dims) if spatial_dims is not None else list(range(first, first + n))
    if dims != list(range(dims[0], dims[0] + n)):
        raise ValueError("spatial_dims must be consecutive here")
    if all(r == 1 for r in rate):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = [int(v) for v in np.asarray(static(filter_shape)).reshape(-1)]
        extra = [f + (f - 1) * (r - 1) - 1 for f, r in zip(fs, rate)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0] for _ in rate]
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    spatial = [x.shape[d] for d in dims]
    paddings, crops = array_sequence.required_space_to_batch_paddings(spatial, rate, base)
    if dims[0] != 1:  # channels first: space_to_batch_nd works on dims 1..n, so the channel dim rides along
        rate = [1] * (dims[0] - 1) + rate
        zero = creation.zeros([dims[0] - 1, 2], D.int32)
        paddings = array_blocks.concat([zero, paddings], 0)
        crops = array_blocks.concat([zero, crops], 0)
    converted = array_space.space_to_batch_nd(x, rate, paddings)
    result = op(converted, n, "VALID")
    return array_space.batch_to_space(result, rate, crops)


from tensorlet._src.ops import array_sequence, array_space  # noqa: E402
