"""``tf.image.extract_glimpse`` (v2) and ``tf.image.generate_bounding_box_proposals``.

Glimpses follow TF's Eigen kernel (eigen_attention.h): each window's corner is the offset (un-normalized by the
image size, un-centered, less half the window when both ``normalized`` and ``centered``) truncated to integers;
the part of the window outside the image is noise -- uniform over the image's range, per-channel gaussian
(clipped to the channel's range), or zeros.  The kernel loops over windows in NumPy; it is not compiled and TF
defines no gradient for it.  Proposals: see the block below (TF has a GPU kernel only).
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, bind, defop, tf_export

F32 = np.float32
_NOISES = ("uniform", "gaussian", "zero")


def _corner(off, size, window, normalized, centered):
    v = F32(off)
    if normalized:
        v = F32(v * F32(size))
        if centered:
            v = F32(F32(v / F32(2.0)) + F32(F32(size) / F32(2.0)))
            v = F32(v - F32(F32(window) / F32(2.0)))
    elif centered:
        v = F32(v + F32(F32(size) / F32(2.0)))
    return int(v)  # C's (Index) cast truncates toward zero


def _span(corner, window, size):
    """(first input index, count, first output index) of the part of a window inside [0, size)."""
    if corner < 0:
        n = max(0, window + corner)
        return 0, min(size, n), window - n
    if corner + window >= size:
        return corner, min(size, max(0, size - corner)), 0
    return corner, window, 0


def _noise(img, gh, gw, noise, rng):
    c = img.shape[-1]
    if noise == "zero":
        return np.zeros((gh, gw, c), F32)
    if noise == "uniform":
        lo, hi = F32(img.min()), F32(img.max())
        return (lo + rng.random((gh, gw, c), dtype=F32) * F32(hi - lo)).astype(F32)
    mean = img.mean(axis=(0, 1), dtype=F32)
    sigma = np.sqrt(np.square(img - mean).mean(axis=(0, 1), dtype=F32))
    g = mean + rng.standard_normal((gh, gw, c), dtype=F32) * sigma
    return np.clip(g, img.min(axis=(0, 1)), img.max(axis=(0, 1))).astype(F32)


def _glimpse_kernel(xp, x, size, offsets, centered=True, normalized=True, noise="uniform"):
    gh, gw = int(size[0]), int(size[1])
    n, h, w, c = x.shape
    out = np.empty((n, gh, gw, c), F32)
    rng = np.random.default_rng()
    for i in range(n):
        y0 = _corner(offsets[i, 0], h, gh, normalized, centered)
        x0 = _corner(offsets[i, 1], w, gw, normalized, centered)
        ys, yn, yo = _span(y0, gh, h)
        xs, xn, xo = _span(x0, gw, w)
        if (yn, xn) == (gh, gw) and yo == xo == 0:
            out[i] = x[i, ys:ys + gh, xs:xs + gw]
            continue
        out[i] = _noise(x[i], gh, gw, noise, rng)
        if yn > 0 and xn > 0:
            out[i, yo:yo + yn, xo:xo + xn] = x[i, ys:ys + yn, xs:xs + xn]
    return out


def _glimpse_check(x, size, offsets, **attrs):
    name = "ExtractGlimpseV2"
    xs, ss, os_ = x.shape, size.shape, offsets.shape
    if xs.rank is not None and xs.rank != 4:
        raise errors.invalid_argument(name, f"input must be 4-dimensional (batch_size, height, width, depth)"
                                            f"{xs.as_list()}")
    if ss.rank is not None and (ss.rank != 1 or ss[0] != 2):
        raise errors.invalid_argument(name, f"input must be a vector of size 2 (height, width){ss.as_list()}")
    if os_.rank is not None and xs.rank == 4:
        if os_.rank != 2 or os_[0] != xs[0]:
            raise errors.invalid_argument(name, f"first dimension should be batch{os_.as_list()}")
        if os_[1] != 2:
            raise errors.invalid_argument(name, f"second dimension should be of size 2 (y,x){os_.as_list()}")


def _glimpse_shape(x, size, offsets, **attrs):
    s = getattr(size, "_const", None)
    gh, gw = (int(s[0]), int(s[1])) if s is not None else (None, None)
    if x.shape.rank is None:
        return shapes.Spec(TensorShape([None, gh, gw, None]), D.float32)
    return shapes.Spec(TensorShape([x.shape[0], gh, gw, x.shape[3]]), D.float32)


EXTRACT_GLIMPSE_V2 = defop("ExtractGlimpseV2", _glimpse_kernel, dtypes=(D.float32,), check=_glimpse_check,
                           shape=_glimpse_shape, grad=NO_GRADIENT, no_lowering=True,
                           no_lowering_reason="windows at run-time offsets, filled with host noise")


@tf_export("image.extract_glimpse")
def extract_glimpse(input, size, offsets, centered=True, normalized=True, noise="uniform",  # noqa: A002
                    name=None):
    """Windows of ``size`` ``[height, width]`` from ``[batch, h, w, c]`` float32 images at ``offsets`` (``[batch,
    2]`` as (y, x)); parts outside the image are ``noise`` ("uniform", "gaussian" or "zero").

    >>> x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    >>> tf.image.extract_glimpse(x, [2, 2], [[0.0, 0.0]], noise="zero")[0, ..., 0].numpy()
    array([[ 5.,  6.],
           [ 9., 10.]], dtype=float32)
    """
    x = t(input, dtype=D.float32)
    sz = t(size, dtype=D.int32)
    off = t(offsets, dtype=D.float32)
    noise = "gaussian" if noise == "" else noise
    if noise not in _NOISES:
        raise errors.invalid_argument("ExtractGlimpseV2", f"The noise could only be uniform, gaussian, or zero, got"
                                                          f"{noise}")
    return bind(EXTRACT_GLIMPSE_V2, x, sz, off, centered=bool(centered), normalized=bool(normalized), noise=noise)



# --- GenerateBoundingBoxProposals ------------------------------------------------------------------
# TF has only a GPU kernel (generate_box_proposals_op.cu.cc; on CPU it raises NotFoundError); this is that
# kernel's algorithm on the host: a stable descending sort of each image's scores, the top ``pre_nms_topn`` boxes
# decoded from their anchors (Faster R-CNN's deltas [dy, dx, dh, dw], dh/dw clipped at log(1000/16)), clipped to
# the image, those with a side under ``min_size * scale`` dropped, greedy NMS (IoU > threshold suppresses; empty
# boxes never do), and the first ``post_nms_topn`` written as [y1, x1, y2, x2], zero-padded.

_XFORM_CLIP = F32(np.log(1000.0 / 16.0))


def _decode_boxes(anchors, deltas, info):
    y1, x1, y2, x2 = (anchors[:, i] for i in range(4))
    dy, dx, dh, dw = (deltas[:, i] for i in range(4))
    dw, dh = np.minimum(dw, _XFORM_CLIP), np.minimum(dh, _XFORM_CLIP)
    w = x2 - x1
    cx = x1 + F32(0.5) * w + w * dx
    pw = w * np.exp(dw)
    h = y2 - y1
    cy = y1 + F32(0.5) * h + h * dy
    ph = h * np.exp(dh)
    img_h, img_w = info[0], info[1]
    bx1 = np.clip(cx - F32(0.5) * pw, 0, img_w)
    bx2 = np.clip(cx + F32(0.5) * pw, 0, img_w)
    by1 = np.clip(cy - F32(0.5) * ph, 0, img_h)
    by2 = np.clip(cy + F32(0.5) * ph, 0, img_h)
    return np.stack([by1, bx1, by2, bx2], 1).astype(F32)


def _nms(boxes, threshold, limit):
    y1, x1, y2, x2 = boxes.T
    area = (x2 - x1) * (y2 - y1)
    keep = []
    for i in range(len(boxes)):
        if len(keep) >= limit:
            break
        ok = True
        for j in keep:
            if area[i] == 0 or area[j] == 0:
                continue
            w = max(F32(0), min(x2[i], x2[j]) - max(x1[i], x1[j]))
            h = max(F32(0), min(y2[i], y2[j]) - max(y1[i], y1[j]))
            inter = F32(w * h)
            if inter > (area[j] + area[i] - inter) * threshold:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


def _proposals_kernel(xp, scores, deltas, info, anchors, nms_threshold, pre_nms_topn, min_size, post_nms_topn=300):
    n, h, w, a = scores.shape
    thr, top, min_sz = F32(nms_threshold), int(pre_nms_topn), F32(min_size)
    rois = np.zeros((n, post_nms_topn, 4), F32)
    probs = np.zeros((n, post_nms_topn), F32)
    flat_anchors = anchors.reshape(h * w * a, 4)
    for i in range(n):
        s = scores[i].reshape(-1)
        order = np.argsort(-s, kind="stable")[:min(top, s.size)]
        boxes = _decode_boxes(flat_anchors[order], deltas[i].reshape(-1, 4)[order], info[i])
        side = np.minimum(boxes[:, 3] - boxes[:, 1], boxes[:, 2] - boxes[:, 0])
        kept = side >= min_sz * info[i, 2]
        boxes, sel = boxes[kept], s[order][kept]
        keep = _nms(boxes, thr, post_nms_topn)
        rois[i, :len(keep)] = boxes[keep]
        probs[i, :len(keep)] = sel[keep]
    return rois, probs


def _proposals_check(scores, deltas, info, anchors, nms_threshold, pre_nms_topn, min_size, post_nms_topn=300):
    name = "GenerateBoundingBoxProposals"
    for v, nm, rank in ((scores, "scores", 4), (deltas, "bbox_deltas", 4), (info, "image_info", 2),
                        (anchors, "anchors", 3)):
        if v.shape.rank is not None and v.shape.rank != rank:
            raise errors.invalid_argument(name, f"Shape must be rank {rank} but is rank {v.shape.rank} for "
                                                f"'{nm}'")
    a = scores.shape[3] if scores.shape.rank == 4 else None
    if a and anchors.shape.rank == 3 and anchors.shape[2] is not None and anchors.shape[2] // a != 4:
        raise errors.op_error(errors.OutOfRangeError, name, "Box dimensions need to be 4")
    for v, nm in ((nms_threshold, 4), (pre_nms_topn, 5), (min_size, 6)):
        if v.shape.rank != 0:
            raise errors.invalid_argument(name, f"Expected a scalar in input {nm}but got shape {v.shape}")
    thr = getattr(nms_threshold, "_v", None)
    if thr is not None and not 0 <= float(thr) <= 1.0:
        raise errors.invalid_argument(name, f"nms_threshold should be between 0 and 1. Got {float(thr):g}")
    top = getattr(pre_nms_topn, "_v", None)
    if top is not None and int(top) <= 0:
        raise errors.invalid_argument(name, f"pre_nms_topn should be greater than 0{int(top)}")


def _proposals_shape(scores, deltas, info, anchors, *scalars, post_nms_topn=300):
    n = scores.shape[0] if scores.shape.rank == 4 else None
    return (shapes.Spec(TensorShape([n, post_nms_topn, 4]), D.float32),
            shapes.Spec(TensorShape([n, post_nms_topn]), D.float32))


GENERATE_PROPOSALS = defop("GenerateBoundingBoxProposals", _proposals_kernel, n_out=2, dtypes=(D.float32,),
                           check=_proposals_check, shape=_proposals_shape, grad=NONDIFF, no_lowering=True,
                           no_lowering_reason="sorting and greedy NMS with data-dependent counts")


@tf_export("image.generate_bounding_box_proposals")
def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold=0.7, pre_nms_topn=6000,
                                    min_size=16, post_nms_topn=300, name=None):
    """Region proposals (Faster R-CNN, arXiv:1506.01497) from per-anchor ``scores`` ``[n, h, w, a]``,
    ``bbox_deltas`` ``[n, h, w, 4a]`` ([dy, dx, dh, dw]), ``image_info`` ``[n, 5]`` (height, width, scale, ...)
    and ``anchors`` ``[h, w, 4a]`` ([y1, x1, y2, x2]): ``(rois [n, post_nms_topn, 4], roi_probabilities)``.

    >>> rois, probs = tf.image.generate_bounding_box_proposals(
    ...     tf.constant([[[[0.9]]]]), tf.zeros([1, 1, 1, 4]), tf.constant([[32.0, 32.0, 1.0, 0.0, 0.0]]),
    ...     tf.constant([[[0.0, 0.0, 20.0, 24.0]]]), post_nms_topn=2)
    >>> rois.numpy()[0]
    array([[ 0.,  0., 20., 24.],
           [ 0.,  0.,  0.,  0.]], dtype=float32)
    """
    post = int(post_nms_topn)
    if post <= 0:
        raise errors.invalid_argument("GenerateBoundingBoxProposals", "post_nms_topn can't be 0 or less")
    ins = [t(v, dtype=D.float32) for v in (scores, bbox_deltas, image_info, anchors)]
    return GenerateBoundingBoxProposalsResult(*bind(
        GENERATE_PROPOSALS, *ins, t(nms_threshold, dtype=D.float32), t(pre_nms_topn, dtype=D.int32),
        t(min_size, dtype=D.float32), post_nms_topn=post))


GenerateBoundingBoxProposalsResult = collections.namedtuple("GenerateBoundingBoxProposals",
                                                            ["rois", "roi_probabilities"])
