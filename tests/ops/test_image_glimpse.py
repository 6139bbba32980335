"""tf.image.extract_glimpse against results recorded from real TF (tests/goldens/glimpse.json; cases
glimpse_cases.py), plus the range of its random noise."""

import numpy as np
import pytest
import value_cases
from glimpse_cases import CASES as GOLDEN_CASES
from glimpse_cases import IMG, OFFSETS
from opcheck import Case, compiled_tests, op_tests

import tensorlet as tf

GOLDEN = value_cases.load("glimpse.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_noise_fills_outside_within_the_image_range(noise):
    g = tf.image.extract_glimpse(IMG, [3, 4], OFFSETS["edge"], noise=noise).numpy()
    zero = tf.image.extract_glimpse(IMG, [3, 4], OFFSETS["edge"], noise="zero").numpy()
    inside = zero != 0
    np.testing.assert_array_equal(g[inside], zero[inside])
    for i in range(2):
        lo, hi = IMG[i].min(), IMG[i].max()
        assert lo <= g[i].min() and g[i].max() <= hi


def _ref(x):  # a window fully inside: the slice at the truncated, centered corner
    h, w = x.shape[1:3]
    y0, x0 = int(h / 2 - 1.0), int(w / 2 - 1.5)
    return x[:, y0:y0 + 2, x0:x0 + 3]


CASES = [Case(lambda x: tf.image.extract_glimpse(x, [2, 3], np.zeros((x.shape[0], 2), np.float32)), _ref,
              [((2, 5, 6, 3),)], ("float32",), ops=("ExtractGlimpseV2",), grad=False, jax=False)]


# --- generate_bounding_box_proposals: TF has only a GPU kernel (CPU raises NotFoundError), so these are hand-worked
# cases of that kernel's algorithm rather than recorded values.
_ANCHORS = np.array([[[0, 0, 10, 10, 1, 1, 11, 11], [20, 20, 30, 30, 0, 0, 4, 4]]], np.float32)  # [h=1, w=2, 4a]
_SCORES = np.array([[[[0.9, 0.8], [0.7, 0.95]]]], np.float32)
_INFO = np.array([[32.0, 32.0, 1.0, 0.0, 0.0]], np.float32)


def _proposals(deltas=None, **kw):
    d = np.zeros((1, 1, 2, 8), np.float32) if deltas is None else deltas
    r = tf.image.generate_bounding_box_proposals(_SCORES, d, _INFO, _ANCHORS, min_size=5, post_nms_topn=4, **kw)
    return r.rois.numpy()[0], r.roi_probabilities.numpy()[0]


def test_proposals_size_filter_nms_and_padding():
    rois, probs = _proposals(nms_threshold=0.7)  # the 4x4 box is under min_size; IoU(A0, A1) = 81/119 < 0.7
    np.testing.assert_allclose(probs, [0.9, 0.8, 0.7, 0.0])
    np.testing.assert_allclose(rois, [[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 0, 0]])
    rois, probs = _proposals(nms_threshold=0.5)  # now A1 is suppressed by A0
    np.testing.assert_allclose(probs, [0.9, 0.7, 0.0, 0.0])
    rois, probs = _proposals(nms_threshold=0.7, pre_nms_topn=2)  # only the two best scores: 0.95 (too small), 0.9
    np.testing.assert_allclose(probs, [0.9, 0, 0, 0])


def test_proposals_decode_deltas_and_clip():
    d = np.zeros((1, 1, 2, 8), np.float32)
    d[0, 0, 0, :4] = [0.2, 0.1, 10.0, 0.0]  # anchor 0: dy=0.2, dx=0.1, dh clipped at log(1000/16), dw=0
    rois, _ = _proposals(d, nms_threshold=0.7)
    cy, h = 5.0 + 10 * 0.2, 10 * 1000 / 16
    np.testing.assert_allclose(rois[0], [max(cy - h / 2, 0), 1.0, min(cy + h / 2, 32), 11.0], rtol=1e-6)


def test_proposals_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="nms_threshold should be between 0 and 1"):
        _proposals(nms_threshold=1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="post_nms_topn can't be 0 or less"):
        tf.image.generate_bounding_box_proposals(_SCORES, np.zeros((1, 1, 2, 8), np.float32), _INFO, _ANCHORS,
                                                 post_nms_topn=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 3"):
        tf.image.generate_bounding_box_proposals(_SCORES, np.zeros((1, 1, 2, 8), np.float32), _INFO,
                                                 _ANCHORS[0])


def _prop_fn(s):
    anchors = np.array([[[0, 0, 2, 2, 3, 3, 5, 5], [6, 6, 8, 8, 9, 9, 11, 11]]], np.float32)  # disjoint boxes
    return tf.image.generate_bounding_box_proposals(s, np.zeros((1, 1, 2, 8), np.float32),
                                                    [[16.0, 16.0, 1.0, 0.0, 0.0]], anchors, min_size=1,
                                                    post_nms_topn=4).roi_probabilities


CASES.append(Case(_prop_fn, lambda s: -np.sort(-s.reshape(1, -1), axis=1), [((1, 1, 2, 2),)], ("float32",),
                  ops=("GenerateBoundingBoxProposals",), domain=(0.0, 1.0), grad=False, jax=False))
test_values, test_lowering, _ = op_tests(CASES)
test_compiled = compiled_tests(CASES)
