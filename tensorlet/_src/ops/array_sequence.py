"""Array ops of TF's top level: ``reverse_sequence``, ``parallel_stack``, ``histogram_fixed_width_bins``,
``required_space_to_batch_paddings``, ``extract_volume_patches``, the ``approx_*_k`` family and the raw ``conv``.

``ReverseSequence`` is a primitive (an index gather written once for NumPy and jax, its own gradient); the rest are
composites of existing ops.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.registry import bind, defop, tf_export

ApproxTopK = namedtuple("ApproxTopK", ["values", "indices"])


# --- reverse_sequence ------------------------------------------------------------------------

def _rev_index(xp, x, lengths, seq_axis, batch_axis):
    n = x.shape[seq_axis]
    shape = [1] * x.ndim
    shape[seq_axis] = n
    ar = xp.arange(n).reshape(shape)
    lshape = [1] * x.ndim
    lshape[batch_axis] = x.shape[batch_axis]
    ln = lengths.astype(np.int64).reshape(lshape)
    idx = xp.where(ar < ln, ln - 1 - ar, ar)
    return xp.broadcast_to(idx, x.shape)


def _reverse_sequence_kernel(xp, x, lengths, seq_axis=1, batch_axis=0):
    return xp.take_along_axis(x, _rev_index(xp, x, lengths, seq_axis, batch_axis), axis=seq_axis)


def _reverse_sequence_check(x, lengths, seq_axis=1, batch_axis=0):
    if lengths.shape.rank != 1:
        raise errors.invalid_argument("ReverseSequence", f"seq_lengths must be 1-dim, not {lengths.shape.rank}")
    if x.shape[batch_axis] != lengths.shape[0]:
        raise errors.invalid_argument("ReverseSequence", f"Length of seq_lengths != input.dims({batch_axis}), "
                                                         f"({lengths.shape[0]} vs. {x.shape[batch_axis]})")
    if seq_axis == batch_axis:
        raise errors.invalid_argument("ReverseSequence", f"seq_dim == batch_dim == {seq_axis}")
    v = getattr(lengths, "_v", None)
    if v is not None:
        lv = np.asarray(v)
        for i, n in enumerate(lv.tolist()):
            if n > x.shape[seq_axis]:
                raise errors.invalid_argument("ReverseSequence", f"seq_lens({i}) > input.dims({seq_axis})")
            if n < 0:
                raise errors.invalid_argument("ReverseSequence", f"seq_lens({i}) < 0")


REVERSE_SEQUENCE = defop(
    "ReverseSequence", _reverse_sequence_kernel, check=_reverse_sequence_check,
    grad=lambda g, ans, x, lengths, seq_axis=1, batch_axis=0: (
        bind(REVERSE_SEQUENCE, g, lengths, seq_axis=seq_axis, batch_axis=batch_axis), None))


@tf_export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002 - TF's name
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b`` of ``batch_axis``.

    >>> tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).numpy()
    array([[2, 1, 3],
           [6, 5, 4]], dtype=int32)
    """
    x = t(input)
    lengths = t(seq_lengths, hint=D.int64)
    if lengths.dtype not in (D.int32, D.int64):
        raise errors.invalid_argument("ReverseSequence", f"Value for attr 'Tlen' of {lengths.dtype.name} is not in "
                                                         "the list of allowed values: int32, int64")
    rank = x.shape.rank
    seq_axis = 1 if seq_axis is None else int(seq_axis)
    batch_axis = 0 if batch_axis is None else int(batch_axis)
    seq_axis = seq_axis + rank if seq_axis < 0 else seq_axis
    batch_axis = batch_axis + rank if batch_axis < 0 else batch_axis
    if not (0 <= seq_axis < rank and 0 <= batch_axis < rank):
        raise errors.invalid_argument("ReverseSequence", f"Invalid seq_dim {seq_axis} or batch_dim {batch_axis} for "
                                                         f"input of rank {rank}")
    return bind(REVERSE_SEQUENCE, x, lengths, seq_axis=seq_axis, batch_axis=batch_axis)


# --- composites ------------------------------------------------------------------------------

@tf_export("parallel_stack")
def parallel_stack(values, name="parallel_stack"):
    """``tf.stack(values)`` inside graphs (TF copies the inputs in parallel; the result is the same).  Like TF, it
    refuses to run eagerly.

    >>> tf.function(lambda: tf.parallel_stack([1, 2]))().numpy()
    array([1, 2], dtype=int32)
    """
    from tensorlet._src.framework.context import executing_eagerly

    if executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return array_blocks.stack(values, axis=0)


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=D.int32, name=None):
    """The bin index (int32) of each of ``values`` among ``nbins`` equal bins over ``value_range``; values outside
    go to the end bins.

    >>> tf.histogram_fixed_width_bins([-1., 0., 1.5, 5., 15.], [0., 5.], nbins=5).numpy()
    array([0, 0, 1, 4, 4], dtype=int32)
    """
    # TF's own composite, step for step (so integer values fail as in TF: an int nbins times float64 bins)
    values = t(values)
    value_range = t(value_range, dtype=values.dtype)
    nb = math_binary.cast(t(nbins), values.dtype)
    scaled = math_binary.truediv(values - value_range[0], value_range[1] - value_range[0])
    idx = math_unary.floor(math_binary.multiply(nb, scaled))
    idx = math_clip.clip_by_value(idx, 0, nb - 1)
    return math_binary.cast(idx, D.int32)


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)`` making ``input_shape`` (plus ``base_paddings``) divisible by ``block_shape``.

    >>> [p.numpy().tolist() for p in tf.required_space_to_batch_paddings([5, 7], [2, 3])]
    [[[0, 1], [0, 2]], [[0, 1], [0, 2]]]
    """
    input_shape = t(input_shape, dtype=D.int32)
    block_shape = t(block_shape, dtype=D.int32)
    n = block_shape.shape[0]
    if base_paddings is None:
        base_paddings = creation.zeros([n, 2], D.int32)
    else:
        base_paddings = t(base_paddings, dtype=D.int32)
    pad_start = base_paddings[:, 0]
    orig_end = base_paddings[:, 1]
    full = input_shape + pad_start + orig_end
    extra = math_binary.floormod(block_shape - math_binary.floormod(full, block_shape), block_shape)
    pad_end = orig_end + extra
    paddings = array_blocks.stack([pad_start, pad_end], axis=1)
    crops = array_blocks.stack([creation.zeros_like(extra), extra], axis=1)
    return paddings, crops


def _same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2


@tf_export("extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002 - TF's name
    """3-D patches of a ``[batch, planes, rows, cols, depth]`` volume, flattened into the last dimension
    (``ksizes``/``strides`` are ``[1, p, r, c, 1]``, ``padding`` VALID or SAME).

    >>> tf.extract_volume_patches(tf.ones([1, 2, 2, 2, 1]), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID").shape
    TensorShape([1, 1, 1, 1, 8])
    """
    x = t(input)
    ks = [int(v) for v in static(ksizes)]
    st = [int(v) for v in static(strides)]
    if x.shape.rank != 5:
        raise errors.invalid_argument("ExtractVolumePatches", f"input must be 5-dimensional, got {x.shape.rank}")
    if len(ks) != 5 or ks[0] != 1 or ks[4] != 1 or len(st) != 5 or st[0] != 1 or st[4] != 1:
        raise errors.invalid_argument("ExtractVolumePatches", "Only support ksizes and strides across spatial "
                                                              "dimensions (the first and last must be 1).")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be VALID or SAME, got {padding!r}")
    dims = list(x.shape[1:4])
    outs, pads = [], [[0, 0]]
    for size, k, s in zip(dims, ks[1:4], st[1:4]):
        if padding == "SAME":
            o, a, b = _same_pads(size, k, s)
        else:
            o, a, b = (size - k) // s + 1, 0, 0
        outs.append(o)
        pads.append([a, b])
    xp = array_blocks.pad(x, pads + [[0, 0]]) if padding == "SAME" else x
    patches = []
    for i in range(ks[1]):
        for j in range(ks[2]):
            for m in range(ks[3]):
                patches.append(xp[:, i:i + (outs[0] - 1) * st[1] + 1:st[1], j:j + (outs[1] - 1) * st[2] + 1:st[2],
                                  m:m + (outs[2] - 1) * st[3] + 1:st[3], :])
    out = array_blocks.stack(patches, axis=4)  # [b, op, or, oc, k, depth]
    return array_shape.reshape(out, [x.shape[0] if x.shape[0] is not None else -1] + outs
                               + [len(patches) * x.shape[4]])


def _approx(operand, k, reduction_dimension, is_max):
    x = t(operand)
    rank = x.shape.rank
    dim = reduction_dimension + rank if reduction_dimension < 0 else reduction_dimension
    if not 0 <= dim < rank:
        raise errors.invalid_argument("ApproxTopK", f"Invalid reduction_dimension {reduction_dimension} for rank "
                                                    f"{rank}")
    if dim != rank - 1:
        perm = [i for i in range(rank) if i != dim] + [dim]
        back = list(np.argsort(perm))
        v, i = _approx(array_shape.transpose(x, perm), k, -1, is_max)
        return ApproxTopK(array_shape.transpose(v, back), array_shape.transpose(i, back))
    # exact top-k: a valid answer for any recall_target (the recall is 1)
    r = scan_sort.top_k(x if is_max else -x, k=k)
    return ApproxTopK(r.values if is_max else -r.values, r.indices)


@tf_export("approx_top_k")
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002 - TF's name
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The ``k`` largest (``is_max_k``) or smallest entries along ``reduction_dimension`` and their int32 indices.
    Computed exactly here (recall 1 >= any ``recall_target``).

    >>> tf.approx_top_k(tf.constant([[1., 5., 3., 4.]]), 2).indices.numpy()
    array([[1, 3]], dtype=int32)
    """
    return _approx(input, k, reduction_dimension, is_max_k)


@tf_export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``(values, indices)`` of the ``k`` largest entries along ``reduction_dimension`` (exact here).

    >>> tf.math.approx_max_k(tf.constant([1., 5., 3.]), 1)[0].numpy()
    array([5.], dtype=float32)
    """
    return tuple(_approx(operand, k, reduction_dimension, True))


@tf_export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``(values, indices)`` of the ``k`` smallest entries along ``reduction_dimension`` (exact here).

    >>> tf.math.approx_min_k(tf.constant([1., 5., 3.]), 1)[0].numpy()
    array([1.], dtype=float32)
    """
    return tuple(_approx(operand, k, reduction_dimension, False))


@tf_export("conv")
def conv(input, filter, strides, padding, explicit_paddings=(), data_format="CHANNELS_LAST",  # noqa: A002
         dilations=(), batch_dims=1, groups=1, name=None):
    """TF's raw N-D ``Conv`` op: ``strides``/``dilations`` list every dimension of ``input``; data_format is
    CHANNELS_LAST or CHANNELS_FIRST.

    >>> tf.conv(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), strides=[1, 1, 1, 1], padding="VALID").shape
    TensorShape([1, 3, 3, 1])
    """
    x, w = t(input), t(filter)
    if batch_dims != 1 or groups != 1:
        lead = list(x.shape[:batch_dims])
        if groups != 1:
            raise errors.UnimplementedError(None, None, "groups > 1 is not supported by the Conv op here [Op:Conv]")
        flat = array_shape.reshape(x, [-1] + list(x.shape[batch_dims:]))
        out = conv(flat, w, [1] + list(strides)[batch_dims:], padding, explicit_paddings, data_format,
                   [1] + list(dilations)[batch_dims:] if dilations else (), 1, 1)
        return array_shape.reshape(out, lead + list(out.shape[1:]))
    nd = w.shape.rank - 2
    last = data_format == "CHANNELS_LAST"
    if data_format not in ("CHANNELS_LAST", "CHANNELS_FIRST"):
        raise errors.invalid_argument("Conv", f"Invalid data format: {data_format}")
    sp = slice(1, 1 + nd) if last else slice(2, 2 + nd)
    s = list(strides)[sp]
    d = list(dilations)[sp] if dilations else None
    fmt = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[nd] if last else {1: "NCW", 2: "NCHW", 3: "NCDHW"}[nd]
    if padding == "EXPLICIT":
        x = array_blocks.pad(x, np.asarray(explicit_paddings, np.int64).reshape(-1, 2).tolist())
        padding = "VALID"
    return nn_conv.convolution(x, w, strides=s, padding=padding, data_format=fmt, dilations=d)


def _conv2d_attrs(strides, padding, explicit_paddings, data_format, dilations):
    cf = data_format.startswith("NC")
    pad = padding
    ep = list(explicit_paddings) if padding == "EXPLICIT" else []
    if padding == "EXPLICIT":
        pad, ep = nn_conv.padding_arg([list(p) for p in np.asarray(explicit_paddings).reshape(-1, 2).tolist()], 2,
                                      allow_explicit=True)
    return dict(strides=nn_conv.full_seq(strides, 2, "strides", cf), padding=pad, explicit_paddings=ep,
                data_format=data_format, dilations=nn_conv.full_seq(dilations, 2, "dilations", cf))


@tf_export("conv2d_backprop_filter_v2")
def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                              explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``conv2d(input, filter)`` with respect to ``filter`` for the upstream ``out_backprop``
    (``filter`` gives only its shape).

    >>> tf.conv2d_backprop_filter_v2(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), tf.ones([1, 2, 2, 1]),
    ...                              [1, 1, 1, 1], "VALID")[..., 0, 0].numpy()
    array([[4., 4.],
           [4., 4.]], dtype=float32)
    """
    x, w, dy = same_dtype("Conv2DBackpropFilterV2", input, filter, out_backprop)
    return bind(nn_conv.CONV2D_FILTER, x, dy, filter_sizes=tuple(w.shape),
                **_conv2d_attrs(strides, padding, explicit_paddings, data_format, dilations))


@tf_export("conv2d_backprop_input_v2")
def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                             explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``conv2d(input, filter)`` with respect to ``input`` for the upstream ``out_backprop``
    (``input`` gives only its shape).

    >>> tf.conv2d_backprop_input_v2(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), tf.ones([1, 2, 2, 1]),
    ...                             [1, 1, 1, 1], "VALID")[0, ..., 0].numpy()
    array([[1., 2., 1.],
           [2., 4., 2.],
           [1., 2., 1.]], dtype=float32)
    """
    x, w, dy = same_dtype("Conv2DBackpropInputV2", input, filter, out_backprop)
    return bind(nn_conv.CONV2D_INPUT, w, dy, input_sizes=tuple(x.shape),
                **_conv2d_attrs(strides, padding, explicit_paddings, data_format, dilations))


RaggedFillEmptyRows = namedtuple("RaggedFillEmptyRows", ["output_value_rowids", "output_values",
                                                         "empty_row_indicator", "reverse_index_map"])


@tf_export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """Gives each empty row of a ragged tensor (``value_rowids`` into ``nrows`` rows) one ``default_value``:
    ``(output_value_rowids, output_values, empty_row_indicator, reverse_index_map)``.

    >>> tf.ragged_fill_empty_rows(tf.constant([1, 1], tf.int64), [10, 20], tf.constant(3, tf.int64), 0
    ...                           ).output_values.numpy()
    array([ 0, 10, 20,  0], dtype=int32)
    """
    rowids = t(value_rowids, dtype=D.int64)
    values = t(values)
    default = t(default_value, dtype=values.dtype)
    n = int(static(nrows))
    counts = math_binary.cast(segment.unsorted_segment_sum(creation.ones_like(rowids), rowids, n), D.int64)
    empty = math_binary.equal(counts, 0)
    fill = math_binary.cast(empty, D.int64)
    # each original value moves down by the number of empty rows before (and at) its row
    empties_before = scan_sort.cumsum(fill, exclusive=False)
    reverse = creation.range(array_shape.shape(rowids, out_type=D.int64)[0], dtype=D.int64) + gather_scatter.gather(
        empties_before, rowids)
    total = array_shape.shape(rowids, out_type=D.int64)[0] + reduce.reduce_sum(fill)
    empty_rows = array_shape.reshape(array_select.where(empty), [-1])
    empty_pos = gather_scatter.gather(scan_sort.cumsum(counts + fill, exclusive=True), empty_rows)
    shape = array_shape.reshape(total, [1])
    out_rowids = gather_scatter.scatter_nd(array_shape.expand_dims(reverse, 1), rowids, shape) + \
        gather_scatter.scatter_nd(array_shape.expand_dims(empty_pos, 1), empty_rows, shape)
    filler = creation.fill(array_shape.shape(empty_rows), default)
    out_values = gather_scatter.scatter_nd(array_shape.expand_dims(reverse, 1), values, shape) + \
        gather_scatter.scatter_nd(array_shape.expand_dims(empty_pos, 1), filler, shape)
    return RaggedFillEmptyRows(out_rowids, out_values, empty, reverse)


@tf_export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The gradients of ``ragged_fill_empty_rows``: ``(d_values, d_default_value)``.

    >>> [v.numpy().tolist() for v in tf.ragged_fill_empty_rows_grad(tf.constant([1, 2], tf.int64),
    ...                                                               [1., 2., 3., 4.])]
    [[2.0, 3.0], 5.0]
    """
    rev = t(reverse_index_map, dtype=D.int64)
    g = t(grad_values)
    d_values = gather_scatter.gather(g, rev)
    return d_values, reduce.reduce_sum(g) - reduce.reduce_sum(d_values)


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    gather_scatter,
    reduce,
    segment,
    array_shape,
    creation,
    math_binary,
    math_clip,
    math_unary,
    nn_conv,
    scan_sort,
)
