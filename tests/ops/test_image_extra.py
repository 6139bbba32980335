"""tf.image additions against results recorded from real TF (tests/goldens/image_extra.json; cases
image_extra_cases.py)."""

import numpy as np
import pytest
import value_cases
from image_extra_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("image_extra.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)




# --- reference cases for the op table --------------------------------------------------------------------------
from opcheck import Case, compiled_tests, op_tests  # noqa: E402

_B = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6], [0, 5.2, 1, 6.2]], np.float32)
HOST = dict(jax=False,  # greedy loops with value-dependent output sizes run on the host, as TF's CPU kernels
            grad=False)  # integer indices / drawn pixels: no gradient (TF defines none)


def _nms_ref(boxes, scores, thr):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    keep = []
    for i in order:
        ok = True
        for j in keep:
            iy = max(0.0, min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]))
            ix = max(0.0, min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]))
            a = lambda k: (boxes[k, 2] - boxes[k, 0]) * (boxes[k, 3] - boxes[k, 1])  # noqa: E731
            if iy * ix / (a(i) + a(j) - iy * ix) > thr:
                ok = False
        if ok:
            keep.append(i)
    return np.array(keep, np.int32)


def _overlaps_ref(s):
    order = np.argsort(-s, kind="stable").tolist()  # boxes 0 and 1 overlap by 0.7: the lower-scored one goes
    return np.array([i for i in order if i == 2 or order.index(i) < order.index(1 - i)], np.int32)


def _draw_ref(img):
    out = img.copy()
    out[0, 0, :, 0] = out[0, -1, :, 0] = out[0, :, 0, 0] = out[0, :, -1, 0] = 0.5
    return out


def _crop_in_bounds(x):
    r = tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], [[[0.2, 0.2, 0.6, 0.7]]], seed=[5, 6],
                                                         min_object_covered=0.3, area_range=[0.2, 0.9])
    end = tf.cast(r.begin[:2] + r.size[:2], x.dtype)
    ok = tf.cast(tf.logical_and(end <= tf.constant([40.0, 60.0], x.dtype), r.begin[:2] >= 0), x.dtype)
    return x * ok


OP_CASES = [
    Case(_crop_in_bounds, lambda x: x, [((2,),)], ("float32",), ops=("SampleDistortedBoundingBoxV2",), **HOST),
    Case(lambda s: tf.image.non_max_suppression(_B, s, 4, 0.5), lambda s: _nms_ref(_B, s, 0.5), [((4,),)],
         ("float32",), ops=("NonMaxSuppressionV5",), domain=(0, 1), **HOST),
    Case(lambda s: tf.image.non_max_suppression_overlaps(np.array([[1, .7, 0], [.7, 1, 0], [0, 0, 1]]), s, 3),
         _overlaps_ref, [((3,),)], ("float32",), ops=("NonMaxSuppressionWithOverlaps",), domain=(0, 1), **HOST),
    Case(lambda s: tf.image.combined_non_max_suppression(_B[None, :, None] / 7, s[None], 4, 4).nmsed_scores[0],
         lambda s: np.pad(np.sort(s[_nms_ref(_B, s[:, 0], 0.5), 0])[::-1], (0, 2)), [((4, 1),)], ("float32",),
         ops=("CombinedNonMaxSuppression",), domain=(0, 1), **HOST),
    Case(lambda x: tf.image.draw_bounding_boxes(x, [[[0.0, 0.0, 1.0, 1.0]]], [[0.5]]), _draw_ref, [((1, 4, 5, 1),)],
         ("float32",), ops=("DrawBoundingBoxesV2",), **HOST),
]
CASES = OP_CASES
test_values, test_lowering, _ = op_tests(OP_CASES)
test_compiled = compiled_tests(OP_CASES)
