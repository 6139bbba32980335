"""``tf.nn.ctc_beam_search_decoder``: TF's CTC prefix beam search (util/ctc/ctc_beam_search.h, default scorer).

The beam is a prefix tree of entries, each with the log probabilities of its prefix ending in a blank, in a label,
and in total, at the previous and the current frame.  Per frame the inputs are normalized by their log-sum-exp
(a log-softmax), so the scores are log probabilities of the logits' softmax, as TF's.  The beam keeps
the ``beam_width`` best entries by current total (an entry pushed out is reset, and so inactive); every active
entry then proposes one child per non-blank class.  The blank is the last class.  Arithmetic is in the input dtype,
as TF's kernel computes.  It lives with the SparseTensor it returns (io layer) and is not differentiable (TF
declares it so).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import TensorShape
from tensorlet._src.io._op import io_op
from tensorlet._src.io.sparse import SparseTensor
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import bind, tf_export

_NEG_INF = float("-inf")


def _log_sum_exp(a, b, f):
    if a == _NEG_INF:
        return b
    if b == _NEG_INF:
        return a
    if a > b:
        return f(a + f(np.log1p(f(np.exp(f(b - a))))))
    return f(b + f(np.log1p(f(np.exp(f(a - b))))))


class _Entry:
    __slots__ = ("parent", "label", "children", "old", "new")

    def __init__(self, parent, label):
        self.parent = parent
        self.label = label
        self.children = {}
        self.old = [_NEG_INF, _NEG_INF, _NEG_INF]  # total, blank, label
        self.new = [_NEG_INF, _NEG_INF, _NEG_INF]

    def active(self):
        return self.new[0] != _NEG_INF

    def child(self, label):
        c = self.children.get(label)
        if c is None:
            c = self.children[label] = _Entry(self, label)
        return c

    def labels(self, merge_repeated=False):
        out, e, prev = [], self, -1
        while e.parent is not None:
            if not merge_repeated or e.label != prev:
                out.append(e.label)
            prev = e.label
            e = e.parent
        return out[::-1]


class _Beam:
    """gtl::TopN by ``new`` total: keeps the ``width`` best; a push into a full beam replaces its worst entry only
    when strictly better."""

    def __init__(self, width):
        self.width = width
        self.items = []

    def bottom(self):
        return min(self.items, key=lambda e: e.new[0])

    def push(self, e):
        if len(self.items) < self.width:
            self.items.append(e)
            return
        low = self.bottom()
        if e.new[0] > low.new[0]:
            self.items.remove(low)
            self.items.append(e)

    def extract(self):
        out = sorted(self.items, key=lambda e: -e.new[0])
        self.items = []
        return out


def _step(beam, x, f):
    """One frame ``x`` ([num_classes], the blank last) of TF's CTCBeamSearchDecoder::Step."""
    blank = len(x) - 1
    m = f(np.max(x))
    acc = f(0.0)
    for v in x:  # the softmax normalizer, summed in order as TF's loop does
        acc = f(acc + f(np.exp(f(v - m))))
    top = f(m + f(np.log(acc)))  # TF's norm_offset: scores are log-softmax probabilities
    branches = beam.extract()
    for b in branches:
        b.old = list(b.new)
    for b in branches:
        if b.parent is not None:
            if b.parent.active():
                prev = b.parent.old[1] if b.label == b.parent.label else b.parent.old[0]
                b.new[2] = _log_sum_exp(b.new[2], prev, f)
            b.new[2] = f(b.new[2] + f(x[b.label] - top))
        b.new[1] = f(f(b.old[0] + x[blank]) - top)  # (total + blank) - max, in TF's order
        b.new[0] = _log_sum_exp(b.new[1], b.new[2], f)
        beam.push(b)

    def candidate(total):
        return total > _NEG_INF and (len(beam.items) < beam.width or total > beam.bottom().new[0])

    for b in branches:
        if not candidate(b.old[0]):
            continue
        for label in range(blank):
            c = b.child(label)
            if c.active():
                continue
            prev = b.old[1] if label == b.label else b.old[0]
            c.new = [f(f(x[label] - top) + prev), _NEG_INF, f(f(x[label] - top) + prev)]
            if candidate(c.new[0]):
                if len(beam.items) == beam.width:
                    beam.bottom().new = [_NEG_INF, _NEG_INF, _NEG_INF]
                beam.push(c)
            else:
                c.old = [_NEG_INF, _NEG_INF, _NEG_INF]
                c.new = [_NEG_INF, _NEG_INF, _NEG_INF]


def _decode_kernel(xp, inputs, seq_len, beam_width=100, top_paths=1, merge_repeated=False):
    f = inputs.dtype.type
    max_time, batch, _ = inputs.shape
    paths = [[None] * top_paths for _ in range(batch)]
    log_probs = np.zeros((batch, top_paths), inputs.dtype)
    for b in range(batch):
        root = _Entry(None, -1)
        root.new = [f(0.0), f(0.0), _NEG_INF]
        beam = _Beam(beam_width)
        beam.push(root)
        for frame in range(int(seq_len[b])):
            _step(beam, inputs[frame, b], f)
        if top_paths > len(beam.items):
            raise errors.invalid_argument("CTCBeamSearchDecoder", "Less leaves in the beam search than requested.")
        best = sorted(beam.items, key=lambda e: -e.new[0])[:top_paths]
        for p, e in enumerate(best):
            paths[b][p] = e.labels(merge_repeated)
            log_probs[b, p] = e.new[0]
    out = []
    for p in range(top_paths):
        idx = [(b, k) for b in range(batch) for k in range(len(paths[b][p]))]
        vals = [v for b in range(batch) for v in paths[b][p]]
        width = max((len(paths[b][p]) for b in range(batch)), default=0)
        out += [np.asarray(idx, np.int64).reshape(-1, 2), np.asarray(vals, np.int64),
                np.asarray([batch, width], np.int64)]
    return tuple(out) + (log_probs,)


def _decode_check(inputs, seq_len, beam_width=100, top_paths=1, merge_repeated=False):
    x = getattr(inputs, "_v", None)
    s = getattr(seq_len, "_v", None)
    if x is None or s is None:
        return
    name = "CTCBeamSearchDecoder"
    if x.ndim != 3:
        raise errors.invalid_argument(name, "inputs is not a 3-Tensor")
    if x.size == 0:
        raise errors.invalid_argument(name, "inputs must not be empty")
    if s.ndim != 1:
        raise errors.invalid_argument(name, "sequence_length is not a vector")
    if s.shape[0] != x.shape[1]:
        raise errors.op_error(errors.FailedPreconditionError, name, f"len(sequence_length) != batch_size.  "
                              f"len(sequence_length):  {s.shape[0]} batch_size: {x.shape[1]}")
    for b, n in enumerate(s.tolist()):
        if not n <= x.shape[0]:
            raise errors.op_error(errors.FailedPreconditionError, name, f"sequence_length({b}) <= {x.shape[0]}")
    if top_paths > beam_width:
        raise errors.invalid_argument(name, "requested more paths than the beam width.")


def _decode_shape(inputs, seq_len, beam_width=100, top_paths=1, merge_repeated=False):
    i64 = D.int64
    batch = inputs.shape[1] if inputs.shape.rank == 3 else None
    per_path = [shapes.Spec(TensorShape([None, 2]), i64), shapes.Spec(TensorShape([None]), i64),
                shapes.Spec(TensorShape([2]), i64)]
    return per_path * top_paths + [shapes.Spec(TensorShape([batch, top_paths]), inputs.dtype)]


CTC_BEAM_SEARCH_DECODER = io_op("CTCBeamSearchDecoder", _decode_kernel, shape=_decode_shape, n_out=None,
                                check=_decode_check, dtypes=(D.float32, D.float64))


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search decoding of ``[max_time, batch, num_classes]`` logits (the blank is the last class):
    ``(decoded, log_probabilities)`` where ``decoded[j]`` is a SparseTensor ``[batch, max_len]`` of the j-th best
    paths and ``log_probabilities`` is ``[batch, top_paths]``.

    >>> logits = tf.math.log([[[.1, .8, .1]], [[.1, .8, .1]], [[.8, .1, .1]]])
    >>> decoded, _ = tf.nn.ctc_beam_search_decoder(logits, [3], beam_width=4)
    >>> tf.sparse.to_dense(decoded[0]).numpy()
    array([[1, 0]])
    """
    return _decode(inputs, sequence_length, beam_width, top_paths, False)


@tf_export("compat.v1.nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder_v1(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """TF1's beam search decoder: as ``tf.nn.ctc_beam_search_decoder``, but by default repeated labels of a decoded
    path are merged (TF 2 dropped the option: it can return low-probability paths)."""
    return _decode(inputs, sequence_length, beam_width, top_paths, bool(merge_repeated))


def _decode(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    x = t(inputs)
    seq = t(sequence_length, dtype=D.int32)
    for nm, v in (("beam_width", beam_width), ("top_paths", top_paths)):
        if int(v) < 1:
            raise errors.invalid_argument("CTCBeamSearchDecoder", f"Value for attr '{nm}' of {int(v)} must be at "
                                                                  "least minimum 1")
    outs = bind(CTC_BEAM_SEARCH_DECODER, x, seq, beam_width=int(beam_width), top_paths=int(top_paths),
                merge_repeated=merge_repeated)
    n = int(top_paths)
    decoded = [SparseTensor(outs[3 * p], outs[3 * p + 1], outs[3 * p + 2]) for p in range(n)]
    return decoded, outs[3 * n]
