"""``tf.image``: non-max suppression (plain, with scores / soft-NMS, over overlaps, padded, combined), crop_and_resize,
draw_bounding_boxes, SSIM and MS-SSIM.

The suppression ops are NumPy kernels that follow TF's greedy loop (candidates by descending score, ties by index;
a candidate is dropped when its IoU with a kept box exceeds the threshold).  ``crop_and_resize`` and the SSIMs are
composites, so their gradients (images and boxes) follow.
"""

from __future__ import annotations

import heapq
from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


# --- non-max suppression ---------------------------------------------------------------------

def _iou_matrix(boxes):
    b = np.asarray(boxes, np.float64)
    y1, y2 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x1, x2 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (y2 - y1) * (x2 - x1)
    iy = np.maximum(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0)
    ix = np.maximum(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0)
    inter = iy * ix
    union = area[:, None] + area[None] - inter
    with np.errstate(all="ignore"):
        iou = np.where((area[:, None] <= 0) | (area[None] <= 0), 0.0, inter / union)
    return iou


def _greedy(sim, scores, max_out, threshold, score_threshold, sigma=0.0):
    """TF's NonMaxSuppressionV5 loop: ``(selected indices, their (possibly soft-suppressed) scores)``."""
    scores = np.asarray(scores, np.float64)
    scale = -0.5 / sigma if sigma > 0 else 0.0
    heap = [(-s, i, 0) for i, s in enumerate(scores.tolist()) if s > score_threshold]
    heapq.heapify(heap)
    selected, sel_scores = [], []
    while len(selected) < max_out and heap:
        neg, i, begin = heapq.heappop(heap)
        score = original = -neg
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            s = sim[i, selected[j]]
            weight = np.exp(scale * s * s) if s <= threshold else 0.0
            score *= weight
            if sigma <= 0 and s > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(i)
            sel_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, i, len(selected)))
    return np.asarray(selected, np.int32), np.asarray(sel_scores)


def _nms_kernel(xp, boxes, scores, max_out, iou_threshold, score_threshold, soft_nms_sigma, pad=False):
    idx, sc = _greedy(_iou_matrix(boxes), scores, int(max_out), float(iou_threshold), float(score_threshold),
                      float(soft_nms_sigma))
    n = len(idx)
    if pad:
        idx = np.concatenate([idx, np.zeros(int(max_out) - n, np.int32)])
        sc = np.concatenate([sc, np.zeros(int(max_out) - n)])
    return idx, sc.astype(scores.dtype), np.int32(n)


def _overlaps_kernel(xp, overlaps, scores, max_out, overlap_threshold, score_threshold):
    idx, _ = _greedy(np.asarray(overlaps, np.float64), scores, int(max_out), float(overlap_threshold),
                     float(score_threshold))
    return idx


def _nms_shape(boxes, scores, max_out, *rest, pad=False):
    n = TensorShape([None])
    return Spec(n, D.int32), Spec(n, scores.dtype), Spec(TensorShape([]), D.int32)


NON_MAX_SUPPRESSION = defop("NonMaxSuppressionV5", _nms_kernel, n_out=3, shape=_nms_shape, grad=NONDIFF,
                            dtypes=(D.float16, D.float32), no_lowering=True,
                            no_lowering_reason="the number of kept boxes depends on the values")
NON_MAX_SUPPRESSION_OVERLAPS = defop(
    "NonMaxSuppressionWithOverlaps", _overlaps_kernel, grad=NONDIFF, dtypes=(D.float32,), no_lowering=True,
    no_lowering_reason="the number of kept boxes depends on the values",
    shape=lambda *a: Spec(TensorShape([None]), D.int32))


def _check_nms(boxes, scores, max_output_size):
    if boxes.shape.rank != 2 or boxes.shape[1] != 4:
        raise errors.invalid_argument("NonMaxSuppressionV5", f"boxes must be 2-D [num_boxes, 4], got shape "
                                                             f"{boxes.shape}")
    if scores.shape.rank != 1 or scores.shape[0] != boxes.shape[0]:
        raise errors.invalid_argument("NonMaxSuppressionV5", f"scores has incompatible shape {scores.shape} for "
                                                             f"{boxes.shape[0]} boxes")


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, pad=False):
    boxes = t(boxes)
    scores = t(scores, dtype=boxes.dtype)
    _check_nms(boxes, scores, max_output_size)
    f = boxes.dtype
    return bind(NON_MAX_SUPPRESSION, boxes, scores, t(max_output_size, dtype=D.int32), t(iou_threshold, dtype=f),
                t(score_threshold, dtype=f), t(soft_nms_sigma, dtype=f), pad=pad)


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices (int32) of at most ``max_output_size`` boxes ``[y1, x1, y2, x2]`` kept greedily by descending score,
    dropping any whose IoU with a kept box exceeds ``iou_threshold``.

    >>> tf.image.non_max_suppression([[0., 0., 1., 1.], [0., 0., .9, 1.], [2., 2., 3., 3.]], [.9, .8, .7], 3).numpy()
    array([0, 2], dtype=int32)
    """
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0)[0]


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """``(selected_indices, selected_scores)``; with ``soft_nms_sigma > 0``, overlapping boxes are down-weighted by
    ``exp(-iou^2 / (2 sigma))`` instead of dropped (Soft-NMS).

    >>> tf.image.non_max_suppression_with_scores([[0., 0., 1., 1.], [2., 2., 3., 3.]], [.9, .7], 2)[1].numpy()
    array([0.9, 0.7], dtype=float32)
    """
    idx, sc, _ = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma)
    return idx, sc


@tf_export("image.non_max_suppression_overlaps")
def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """As ``non_max_suppression`` with a given ``[n, n]`` overlap matrix in place of box IoUs.

    >>> tf.image.non_max_suppression_overlaps([[1., .8], [.8, 1.]], [.9, .8], 2).numpy()
    array([0], dtype=int32)
    """
    ov = t(overlaps, dtype=D.float32)
    sc = t(scores, dtype=D.float32)
    return bind(NON_MAX_SUPPRESSION_OVERLAPS, ov, sc, t(max_output_size, dtype=D.int32),
                t(overlap_threshold, dtype=D.float32), t(score_threshold, dtype=D.float32))


@tf_export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """``(selected_indices, valid_outputs)``; boxes may have batch dimensions; with ``pad_to_max_output_size`` the
    indices are zero-padded to ``max_output_size``.

    >>> idx, n = tf.image.non_max_suppression_padded([[0., 0., 1., 1.], [2., 2., 3., 3.]], [.9, .7], 4,
    ...                                               pad_to_max_output_size=True)
    >>> idx.numpy(), int(n)
    (array([0, 1, 0, 0], dtype=int32), 2)
    """
    boxes = t(boxes)
    scores = t(scores, dtype=boxes.dtype)
    if boxes.shape.rank == 2:
        idx, _, n = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                         pad=bool(pad_to_max_output_size))
        return idx, n
    lead = list(boxes.shape[:-2])
    fb = array_shape.reshape(boxes, [-1] + list(boxes.shape[-2:]))
    fs = array_shape.reshape(scores, [-1, scores.shape[-1]])
    idxs, ns = [], []
    for b, s in zip(array_blocks.unstack(fb), array_blocks.unstack(fs)):
        i, _, n = _nms(b, s, max_output_size, iou_threshold, score_threshold, 0.0, pad=True)
        idxs.append(i)
        ns.append(n)
    idx = array_shape.reshape(array_blocks.stack(idxs), lead + [int(max_output_size)])
    return idx, array_shape.reshape(array_blocks.stack(ns), lead)


CombinedNonMaxSuppression = namedtuple("CombinedNonMaxSuppression",
                                       ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


def _combined_kernel(xp, boxes, scores, max_per_class, max_total, iou_threshold, score_threshold,
                     pad_per_class=False, clip_boxes=True):
    batch, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    per_class, total = int(max_per_class), int(max_total)
    max_det = min(total, per_class * num_classes) if pad_per_class else total
    out_b = np.zeros((batch, max_det, 4), np.float32)
    out_s = np.zeros((batch, max_det), np.float32)
    out_c = np.zeros((batch, max_det), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(num_classes):
            bx = boxes[b, :, c if q > 1 else 0, :]
            idx, sc = _greedy(_iou_matrix(bx), scores[b, :, c], per_class, float(iou_threshold),
                              float(score_threshold))
            found.extend((float(s), c, int(i)) for i, s in zip(idx.tolist(), sc.tolist()))
        found.sort(key=lambda r: -r[0])  # stable: class order, then kept order, among equal scores
        found = found[:max_det]
        for k, (s, c, i) in enumerate(found):
            box = boxes[b, i, c if q > 1 else 0, :].astype(np.float32)
            out_b[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_s[b, k] = s
            out_c[b, k] = c
        valid[b] = len(found)
    return out_b, out_s, out_c, valid


COMBINED_NMS = defop("CombinedNonMaxSuppression", _combined_kernel, n_out=4, grad=NONDIFF, dtypes=(D.float32,),
                     no_lowering=True, no_lowering_reason="per-class greedy loops on the host")


@tf_export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class NMS over a batch: boxes ``[batch, num_boxes, q, 4]`` (q = 1 or num_classes), scores
    ``[batch, num_boxes, num_classes]``; returns the top ``max_total_size`` detections per image, zero-padded.

    >>> r = tf.image.combined_non_max_suppression(tf.constant([[[[0., 0., 1., 1.]]]]), tf.constant([[[0.9, 0.3]]]),
    ...                                           1, 2)
    >>> r.nmsed_classes.numpy(), r.valid_detections.numpy()
    (array([[0., 1.]], dtype=float32), array([2], dtype=int32))
    """
    boxes = t(boxes, dtype=D.float32)
    scores = t(scores, dtype=D.float32)
    if boxes.shape.rank != 4 or scores.shape.rank != 3:
        raise errors.invalid_argument("CombinedNonMaxSuppression", f"boxes must be 4-D and scores 3-D, got "
                                                                   f"{boxes.shape} and {scores.shape}")
    q = boxes.shape[2]
    if q != 1 and q != scores.shape[2]:
        raise errors.invalid_argument("CombinedNonMaxSuppression", "third dimension of boxes must be either 1 or "
                                                                   f"num classes, got {q}")
    out = bind(COMBINED_NMS, boxes, scores, t(max_output_size_per_class, dtype=D.int32),
               t(max_total_size, dtype=D.int32), t(iou_threshold, dtype=D.float32),
               t(score_threshold, dtype=D.float32), pad_per_class=bool(pad_per_class), clip_boxes=bool(clip_boxes))
    return CombinedNonMaxSuppression(*out)


# --- crop_and_resize ---------------------------------------------------------------------------

@tf_export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """Crops ``boxes`` (normalized ``[y1, x1, y2, x2]``) from ``image[box_indices]`` and resizes each crop to
    ``crop_size`` by bilinear or nearest sampling (float32; points outside the image get ``extrapolation_value``).

    >>> tf.image.crop_and_resize(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [[0., 0., 1., 1.]], [0], [2, 2])[0, ..., 0]
    <tf.Tensor: shape=(2, 2), dtype=float32, numpy=
    array([[ 0.,  3.],
           [12., 15.]], dtype=float32)>
    """
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    img = math_binary.cast(t(image), D.float32)
    boxes = t(boxes, dtype=D.float32)
    bidx = t(box_indices, dtype=D.int32)
    ch, cw = (int(v) for v in np.asarray(t(crop_size).numpy()).tolist())
    if img.shape.rank != 4:
        raise errors.invalid_argument("CropAndResize", f"input image must be 4-D, got shape {img.shape}")
    if ch <= 0 or cw <= 0:
        raise errors.invalid_argument("CropAndResize", "crop dimensions must be positive")
    h, w = img.shape[1], img.shape[2]
    if boxes.shape[0] == 0:
        return creation.zeros([0, ch, cw, img.shape[3]], D.float32)
    bv = getattr(bidx, "_v", None)
    if bv is not None and np.any((np.asarray(bv) < 0) | (np.asarray(bv) >= img.shape[0])):
        raise errors.invalid_argument("CropAndResize", f"box_index has values outside [0, {img.shape[0]})")

    def coords(lo, hi, size, n):
        i = math_binary.cast(creation.range(n), D.float32)
        if n > 1:
            return array_shape.expand_dims(lo, 1) * (size - 1) + array_shape.expand_dims(
                (hi - lo) * ((size - 1) / (n - 1)), 1) * i
        return array_shape.expand_dims(0.5 * (lo + hi) * (size - 1), 1) + i * 0

    ys = coords(boxes[:, 0], boxes[:, 2], h, ch)  # [nb, ch]
    xs = coords(boxes[:, 1], boxes[:, 3], w, cw)  # [nb, cw]
    vy = math_binary.logical_and(math_binary.greater_equal(ys, 0.0), math_binary.less_equal(ys, float(h - 1)))
    vx = math_binary.logical_and(math_binary.greater_equal(xs, 0.0), math_binary.less_equal(xs, float(w - 1)))
    nb = boxes.shape[0]
    b3 = array_shape.broadcast_to(array_shape.reshape(bidx, [-1, 1, 1]), [nb, ch, cw])

    def sample(yi, xi):
        yi = math_clip.clip_by_value(math_binary.cast(yi, D.int32), 0, h - 1)
        xi = math_clip.clip_by_value(math_binary.cast(xi, D.int32), 0, w - 1)
        idx = array_blocks.stack([b3, array_shape.broadcast_to(array_shape.expand_dims(yi, 2), [nb, ch, cw]),
                                  array_shape.broadcast_to(array_shape.expand_dims(xi, 1), [nb, ch, cw])], axis=-1)
        return gather_scatter.gather_nd(img, idx)  # [nb, ch, cw, C]

    if method == "nearest":
        out = sample(_round_half_away(ys), _round_half_away(xs))
    else:
        top, left = math_unary.floor(ys), math_unary.floor(xs)
        bottom, right = math_unary.ceil(ys), math_unary.ceil(xs)
        ly = array_shape.reshape(ys - top, [nb, ch, 1, 1])
        lx = array_shape.reshape(xs - left, [nb, 1, cw, 1])
        tl, tr = sample(top, left), sample(top, right)
        bl, br = sample(bottom, left), sample(bottom, right)
        top_v = tl + (tr - tl) * lx
        bot_v = bl + (br - bl) * lx
        out = top_v + (bot_v - top_v) * ly
    valid = math_binary.logical_and(array_shape.reshape(vy, [nb, ch, 1, 1]), array_shape.reshape(vx, [nb, 1, cw, 1]))
    fill = creation.zeros_like(out) + float(extrapolation_value)
    return array_select.where(array_shape.broadcast_to(valid, array_shape.shape(out)), out, fill)


def _round_half_away(x):
    return math_unary.sign(x) * math_unary.floor(math_unary.abs(x) + 0.5)


# --- draw_bounding_boxes -----------------------------------------------------------------------

def _draw_kernel(xp, images, boxes, colors):
    out = np.array(images, copy=True)
    bsz, h, w, depth = out.shape
    cols = np.asarray(colors, np.float64).reshape(-1, np.asarray(colors).shape[-1]) if np.asarray(colors).size else \
        np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                  [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]])
    for b in range(bsz):
        for k, box in enumerate(np.asarray(boxes[b], np.float64)):
            color = cols[k % len(cols)]
            y1, x1 = int(box[0] * (h - 1)), int(box[1] * (w - 1))
            y2, x2 = int(box[2] * (h - 1)), int(box[3] * (w - 1))
            if y1 > y2 or x1 > x2 or y1 >= h or x1 >= w or y2 < 0 or x2 < 0:
                continue
            cy1, cx1, cy2, cx2 = max(y1, 0), max(x1, 0), min(y2, h - 1), min(x2, w - 1)
            c = color[:depth] if len(color) >= depth else np.concatenate([color, np.ones(depth - len(color))])
            for y in (y1, y2):
                if 0 <= y < h:
                    out[b, y, cx1:cx2 + 1, :] = c
            for x in (x1, x2):
                if 0 <= x < w:
                    out[b, cy1:cy2 + 1, x, :] = c
    return out


DRAW_BOUNDING_BOXES = defop("DrawBoundingBoxesV2", _draw_kernel, dtypes=(D.float32, D.float16), grad=NO_GRADIENT,
                            no_lowering=True, no_lowering_reason="draws pixel by pixel on the host")


@tf_export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws the outlines of ``boxes`` (``[batch, num_boxes, 4]``, normalized ``[y1, x1, y2, x2]``) on ``images``
    (``[batch, h, w, depth]``), cycling through ``colors`` (RGBA rows).

    >>> tf.image.draw_bounding_boxes(tf.zeros([1, 3, 3, 1]), [[[0., 0., 1., 1.]]], [[1.]])[0, :, :, 0].numpy()
    array([[1., 1., 1.],
           [1., 0., 1.],
           [1., 1., 1.]], dtype=float32)
    """
    images = t(images)
    if images.dtype not in (D.float32, D.float16):
        images = math_binary.cast(images, D.float32)
    if images.shape.rank != 4:
        raise errors.invalid_argument("DrawBoundingBoxesV2", f"The rank of the images should be 4, got "
                                                             f"{images.shape.rank}")
    if images.shape[3] not in (1, 3, 4):
        raise errors.invalid_argument("DrawBoundingBoxesV2", "Channel depth should be either 1 (GRY), 3 (RGB), or "
                                                             "4 (RGBA)")
    return bind(DRAW_BOUNDING_BOXES, images, t(boxes, dtype=D.float32), t(colors, dtype=D.float32))


# --- SSIM ---------------------------------------------------------------------------------------

def _gauss(size, sigma):
    coords = math_binary.cast(creation.range(size), D.float32) - float(size - 1) / 2.0
    g = math_unary.square(coords) * (-0.5 / float(sigma) ** 2)
    g = array_shape.reshape(array_shape.reshape(g, [1, -1]) + array_shape.reshape(g, [-1, 1]), [1, -1])
    return array_shape.reshape(nn_activations.softmax(g), [size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map=False):
    h, w = img1.shape[-3], img1.shape[-2]
    if h < filter_size or w < filter_size:
        raise errors.invalid_argument("SSIM", f"images must be at least filter_size ({filter_size}) in height and "
                                              f"width, got {h}x{w}")
    kernel = array_shape.tile(_gauss(filter_size, filter_sigma), [1, 1, img1.shape[-1], 1])

    def reducer(x):
        lead = list(x.shape[:-3])
        y = nn_conv_transpose.depthwise_conv2d(array_shape.reshape(x, [-1] + list(x.shape[-3:])), kernel,
                                               strides=[1, 1, 1, 1], padding="VALID")
        return array_shape.reshape(y, lead + list(y.shape[1:]))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = math_unary.square(mean0) + math_unary.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(math_unary.square(img1) + math_unary.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        ssim_val = luminance * cs
    else:
        ssim_val = reduce.reduce_mean(luminance * cs, axis=[-3, -2])
    return ssim_val, reduce.reduce_mean(cs, axis=[-3, -2])


def _prepare(img1, img2, max_val):
    img1, img2 = t(img1), t(img2)
    if img1.dtype is not img2.dtype:
        raise errors.invalid_argument("SSIM", f"img1 and img2 must have the same dtype, got {img1.dtype.name} and "
                                              f"{img2.dtype.name}")
    if img1.shape.rank < 3 or img2.shape.rank < 3:
        raise ValueError("Both images must have at least 3 dimensions (height, width, channels)")
    if list(img1.shape[-3:]) != list(img2.shape[-3:]):
        raise errors.invalid_argument("SSIM", f"Image shapes are incompatible: {img1.shape} vs {img2.shape}")
    mv = image_ops.convert_image_dtype(math_binary.cast(t(max_val), img1.dtype), D.float32)
    return (image_ops.convert_image_dtype(img1, D.float32), image_ops.convert_image_dtype(img2, D.float32), mv)


@tf_export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity of two images (``[..., h, w, c]``, value range ``max_val``), averaged over channels.

    >>> float(tf.image.ssim(tf.ones([16, 16, 1]), tf.ones([16, 16, 1]), 1.0))
    1.0
    """
    a, b, mv = _prepare(img1, img2, max_val)
    val, _ = _ssim_per_channel(a, b, mv, int(filter_size), float(filter_sigma), k1, k2, return_index_map)
    return reduce.reduce_mean(val, axis=[-1])


@tf_export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: contrast-structure terms over ``len(power_factors)`` scales (each halving the image)
    and SSIM at the coarsest, combined with ``power_factors``.

    >>> float(tf.image.ssim_multiscale(tf.ones([1, 176, 176, 1]), tf.ones([1, 176, 176, 1]), 1.0)[0])
    1.0
    """
    a, b, mv = _prepare(img1, img2, max_val)
    imgs = [a, b]
    heads = [list(x.shape[:-3]) for x in imgs]
    mcs = []
    ssim_pc = None
    for k in range(len(power_factors)):
        if k > 0:
            flat = [array_shape.reshape(x, [-1] + list(x.shape[-3:])) for x in imgs]
            hh, ww = flat[0].shape[1], flat[0].shape[2]
            rh, rw = hh % 2, ww % 2
            if rh or rw:
                flat = [array_blocks.pad(x, [[0, 0], [0, rh], [0, rw], [0, 0]], mode="SYMMETRIC") for x in flat]
            down = [nn_pool.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID") for x in flat]
            imgs = [array_shape.reshape(x, hd + list(x.shape[1:])) for x, hd in zip(down, heads)]
        ssim_pc, cs = _ssim_per_channel(imgs[0], imgs[1], mv, int(filter_size), float(filter_sigma), k1, k2)
        mcs.append(nn_activations.relu(cs))
    mcs.pop()
    stacked = array_blocks.stack(mcs + [nn_activations.relu(ssim_pc)], axis=-1)
    ms = reduce.reduce_prod(math_binary.pow(stacked, t(np.asarray(power_factors, np.float32))), axis=[-1])
    return reduce.reduce_mean(ms, axis=[-1])


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_select,
    array_shape,
    creation,
    gather_scatter,
    image_ops,
    math_binary,
    math_clip,
    math_unary,
    nn_activations,
    nn_conv_transpose,
    nn_pool,
    reduce,
)


# --- sample_distorted_bounding_box ---------------------------------------------------------------

def _distorted_kernel(xp, u, image_size, boxes, min_object_covered, aspect_ratio_range=(0.75, 1.33),
                      area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False):
    h, w = int(image_size[0]), int(image_size[1])
    bx = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(bx) == 0:
        if not use_image_if_no_bounding_boxes:
            raise errors.invalid_argument("SampleDistortedBoundingBoxV2", "No bounding boxes provided as input. One "
                                          "must enable use_image_if_no_bounding_boxes if you wish to not provide "
                                          "any bounding boxes.")
        bx = np.array([[0.0, 0.0, 1.0, 1.0]])
    cover = float(min_object_covered)
    u = np.asarray(u, np.float64).reshape(-1, 4)
    lo_a, hi_a = (float(v) for v in area_range)
    lo_r, hi_r = (float(v) for v in aspect_ratio_range)
    found = None
    for k in range(int(max_attempts)):
        ratio = lo_r + (hi_r - lo_r) * u[k, 0]
        min_area, max_area = lo_a * h * w, hi_a * h * w
        min_h = int(round(np.sqrt(min_area / ratio)))
        max_h = int(round(np.sqrt(max_area / ratio)))
        if max_h * ratio > w:
            max_h = int((w + 0.5 - 1e-7) / ratio)
        max_h = min(max_h, h)
        min_h = min(min_h, max_h)
        ch = min_h + int(u[k, 1] * (max_h - min_h + 1))
        ch = min(ch, max_h)
        cw = int(round(ch * ratio))
        if ch <= 0 or cw <= 0 or cw > w or ch * cw < min_area or ch * cw > max_area:
            continue
        y = int(u[k, 2] * (h - ch + 1))
        x = int(u[k, 3] * (w - cw + 1))
        crop = np.array([y / h, x / w, (y + ch) / h, (x + cw) / w])
        iy = np.maximum(np.minimum(crop[2], bx[:, 2]) - np.maximum(crop[0], bx[:, 0]), 0)
        ix = np.maximum(np.minimum(crop[3], bx[:, 3]) - np.maximum(crop[1], bx[:, 1]), 0)
        area = (bx[:, 2] - bx[:, 0]) * (bx[:, 3] - bx[:, 1])
        with np.errstate(all="ignore"):
            covered = np.where(area > 0, iy * ix / area, 0.0)
        if np.any(covered >= cover):
            found = (y, x, ch, cw)
            break
    y, x, ch, cw = found if found is not None else (0, 0, h, w)  # TF falls back to the whole image
    dt = np.asarray(image_size).dtype
    return (np.array([y, x, 0], dt), np.array([ch, cw, -1], dt),
            np.array([[[y / h, x / w, (y + ch) / h, (x + cw) / w]]], np.float32))


SAMPLE_DISTORTED_BBOX = defop(
    "SampleDistortedBoundingBoxV2", _distorted_kernel, n_out=3, grad=NONDIFF, no_lowering=True,
    no_lowering_reason="rejection sampling on the host",
    shape=lambda u, size, boxes, cover, **a: (Spec(TensorShape([3]), size.dtype), Spec(TensorShape([3]), size.dtype),
                                             Spec(TensorShape([1, 1, 4]), D.float32)))

SampleDistortedBoundingBox = namedtuple("SampleDistortedBoundingBox", ["begin", "size", "bboxes"])


def _distorted(u, image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, max_attempts,
               use_image_if_no_bounding_boxes):
    size = t(image_size)
    if size.dtype not in (D.uint8, D.int8, D.int16, D.int32, D.int64):
        raise errors.invalid_argument("SampleDistortedBoundingBoxV2", f"Value for attr 'T' of {size.dtype.name} is "
                                                                      "not in the list of allowed values")
    boxes = t(bounding_boxes, dtype=D.float32)
    if boxes.shape.rank != 3 or boxes.shape[-1] != 4:
        raise errors.invalid_argument("SampleDistortedBoundingBoxV2", f"bounding_boxes must be 3-dimensional "
                                                                      f"[batch, num_boxes, coords]: {boxes.shape}")
    ar = tuple(float(v) for v in (aspect_ratio_range or (0.75, 1.33)))
    area = tuple(float(v) for v in (area_range or (0.05, 1.0)))
    if not (0 < area[0] <= area[1] <= 1):
        raise errors.invalid_argument("SampleDistortedBoundingBoxV2", f"area_range must be within (0, 1], got {area}")
    out = bind(SAMPLE_DISTORTED_BBOX, u, size, boxes, t(min_object_covered, dtype=D.float32), aspect_ratio_range=ar,
               area_range=area, max_attempts=int(max_attempts or 100),
               use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes))
    return SampleDistortedBoundingBox(*out)


@tf_export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop ``(begin, size, bboxes)`` of an image of ``image_size`` whose aspect ratio and area fraction
    lie in the given ranges and that covers at least ``min_object_covered`` of one of ``bounding_boxes``
    (the whole image if no attempt succeeds); use with ``tf.slice(image, begin, size)``.

    >>> r = tf.image.sample_distorted_bounding_box([40, 60, 3], [[[0., 0., 1., 1.]]], seed=1)
    >>> r.size.numpy()[2], r.bboxes.shape
    (np.int32(-1), TensorShape([1, 1, 4]))
    """
    n = int(max_attempts or 100)
    u = random_gen.uniform([n * 4], dtype=D.float64, seed=seed or None)
    return _distorted(u, image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, n,
                      use_image_if_no_bounding_boxes)


@tf_export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered=0.1,
                                            aspect_ratio_range=None, area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """As ``sample_distorted_bounding_box`` with a stateless ``seed`` (shape [2]): same seed, same crop.

    >>> a = tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], [[[0., 0., 1., 1.]]], seed=[1, 2])
    >>> b = tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], [[[0., 0., 1., 1.]]], seed=[1, 2])
    >>> bool(tf.reduce_all(a.begin == b.begin))
    True
    """
    n = int(max_attempts or 100)
    u = random_stateless.stateless_uniform([n * 4], seed, dtype=D.float64)
    return _distorted(u, image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, n,
                      use_image_if_no_bounding_boxes)


from tensorlet._src.ops import random_gen, random_stateless  # noqa: E402
