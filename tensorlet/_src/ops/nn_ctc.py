"""``tf.nn.ctc_loss``: connectionist temporal classification loss by the forward algorithm in log space.

A composite of tensorlet ops (one step per time frame over the blank-extended label sequence), so its gradient is
the exact derivative, the one TF's forward-backward kernel computes.  Impossible alignments (labels longer than
the frames allow) give ``inf``; TF's dense kernel returns a large finite number there.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import tf_export

_NEG = -1e30  # log(0) kept finite, so that gradients through unreachable states stay 0 (never inf * 0)


def _lse3(a, b, c):
    m = math_binary.maximum(math_binary.maximum(a, b), c)
    return m + math_unary.log(math_unary.exp(a - m) + math_unary.exp(b - m) + math_unary.exp(c - m))


def _shift(x, k):
    """x[:, s - k] (with log(0) shifted in)."""
    pad = creation.fill([array_shape.shape(x)[0], k], t(_NEG, dtype=x.dtype))
    return array_blocks.concat([pad, x[:, :-k]], axis=1)


def _dense_labels(labels):
    """(dense labels [batch, max_len], label_length) from a SparseTensor-like value."""
    idx = t(labels.indices)
    shape = t(labels.dense_shape)
    dense = gather_scatter.scatter_nd(idx, t(labels.values), shape)
    rows = math_binary.cast(idx[:, 0], D.int32)
    ones = creation.ones_like(rows)
    n = math_binary.cast(shape[0], D.int32)
    return dense, segment.unsorted_segment_sum(ones, rows, n)


@tf_export("nn.ctc_loss")
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """Per-example CTC negative log-likelihood of ``labels`` (dense ``[batch, max_label_len]`` with
    ``label_length``, or a ``SparseTensor``) under unnormalized ``logits`` ``[frames, batch, num_classes]``
    (``[batch, frames, classes]`` if not ``logits_time_major``).  The blank is class ``blank_index`` (0 for dense
    labels; required for sparse ones; negative counts from the end).

    >>> round(float(tf.nn.ctc_loss(tf.constant([[1]]), tf.zeros([2, 1, 2]), [1], [2], blank_index=0)[0]), 6)
    0.287682
    """
    logits = t(logits)
    if not logits.dtype.is_floating:
        raise TypeError(f"logits must be a floating point tensor, got {logits.dtype.name}")
    if not logits_time_major:
        logits = array_shape.transpose(logits, [1, 0, 2])
    num_classes = logits.shape[2]
    if hasattr(labels, "dense_shape") and hasattr(labels, "indices"):
        if blank_index is None:
            raise ValueError("blank_index must be given when using SparseTensor labels.")
        labels, label_length = _dense_labels(labels)
    elif blank_index is None:
        blank_index = 0
    blank = int(blank_index) + num_classes if int(blank_index) < 0 else int(blank_index)
    labels = math_binary.cast(t(labels), D.int32)
    label_length = math_binary.cast(t(label_length), D.int32)
    logit_length = math_binary.cast(t(logit_length), D.int32)
    n_frames, batch = logits.shape[0], logits.shape[1]
    lmax = labels.shape[1]
    s_len = 2 * lmax + 1
    logp = nn_activations.log_softmax(logits, axis=-1)  # [T, B, C]
    # the blank-extended labels [B, S]: blank, l1, blank, l2, ..., blank
    blanks = creation.fill([batch, lmax + 1], t(np.int32(blank)))
    ext = array_shape.reshape(array_blocks.stack([blanks[:, :lmax], labels], axis=2), [batch, 2 * lmax])
    ext = array_blocks.concat([ext, blanks[:, :1]], axis=1)
    s_idx = creation.range(s_len)
    valid = math_binary.less(array_shape.expand_dims(s_idx, 0), array_shape.expand_dims(2 * label_length + 1, 1))
    prev2 = array_blocks.concat([ext[:, :2], ext[:, :-2]], axis=1)
    skip = math_binary.logical_and(math_binary.not_equal(ext, blank), math_binary.not_equal(ext, prev2))
    skip = math_binary.logical_and(skip, math_binary.greater_equal(array_shape.expand_dims(s_idx, 0), 2))
    neg = creation.fill([batch, s_len], t(_NEG, dtype=logits.dtype))

    def emit(frame):
        return gather_scatter.gather(logp[frame], ext, axis=1, batch_dims=1)  # [B, S]

    first = math_binary.less(array_shape.expand_dims(s_idx, 0), 2)
    alpha = array_select.where(math_binary.logical_and(first, valid), emit(0), neg)
    for frame in range(1, n_frames):
        stay, step = alpha, _shift(alpha, 1)
        jump = array_select.where(skip, _shift(alpha, 2), neg)
        new = array_select.where(valid, _lse3(stay, step, jump) + emit(frame), neg)
        running = array_shape.expand_dims(math_binary.less(frame, logit_length), 1)
        alpha = array_select.where(running, new, alpha)
    last = array_shape.expand_dims(2 * label_length, 1)
    end_blank = gather_scatter.gather(alpha, last, axis=1, batch_dims=1)[:, 0]
    end_label = gather_scatter.gather(alpha, math_binary.maximum(last - 1, 0), axis=1, batch_dims=1)[:, 0]
    end_label = array_select.where(math_binary.greater(label_length, 0), end_label,
                                   creation.fill([batch], t(_NEG, dtype=logits.dtype)))
    m = math_binary.maximum(end_blank, end_label)
    ll = m + math_unary.log(math_unary.exp(end_blank - m) + math_unary.exp(end_label - m))
    loss = -ll
    return array_select.where(math_binary.greater(loss, 1e29), creation.fill([batch], t(np.inf, dtype=loss.dtype)),
                              loss)


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    array_shape,
    creation,
    gather_scatter,
    math_binary,
    math_unary,
    nn_activations,
    segment,
)
