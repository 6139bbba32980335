"""tf.image pipeline functions against outputs recorded from real TF 2.21 (tests/goldens/image_pipeline.json)."""

import numpy as np
import pytest
from _goldens import assert_value, load, recorder

import tensorlet as tf

G = load("image_pipeline.json")
F, U, BATCH = recorder("image_pipeline").inputs()
IMG, IMG_U8 = tf.constant(F), tf.constant(U)
SEED = (7, 11)
TOL = {"atol": 2e-6, "rtol": 1e-5}

CASES = {
    "rgb_to_hsv": lambda: tf.image.rgb_to_hsv(IMG),
    "hsv_to_rgb": lambda: tf.image.hsv_to_rgb(IMG),
    "rgb_to_yiq": lambda: tf.image.rgb_to_yiq(IMG),
    "yiq_to_rgb": lambda: tf.image.yiq_to_rgb(IMG),
    "rgb_to_yuv": lambda: tf.image.rgb_to_yuv(IMG),
    "yuv_to_rgb": lambda: tf.image.yuv_to_rgb(IMG),
    "stateless_random_brightness": lambda: tf.image.stateless_random_brightness(IMG, 0.3, SEED),
    "stateless_random_contrast": lambda: tf.image.stateless_random_contrast(IMG, 0.2, 1.8, SEED),
    "stateless_random_hue": lambda: tf.image.stateless_random_hue(IMG, 0.4, SEED),
    "stateless_random_saturation": lambda: tf.image.stateless_random_saturation(IMG, 0.3, 1.7, SEED),
    "sobel_edges": lambda: tf.image.sobel_edges(tf.constant(BATCH)),
}
for _d in (0.1, -0.35, 0.5):
    CASES[f"adjust_hue_{_d}"] = lambda d=_d: tf.image.adjust_hue(IMG, d)
    CASES[f"adjust_hue_u8_{_d}"] = lambda d=_d: tf.image.adjust_hue(IMG_U8, d)
for _s in (0.0, 0.4, 2.5):
    CASES[f"adjust_saturation_{_s}"] = lambda s=_s: tf.image.adjust_saturation(IMG, s)
    CASES[f"adjust_saturation_u8_{_s}"] = lambda s=_s: tf.image.adjust_saturation(IMG_U8, s)
for _s in ((1, 2), (3, 4), (5, 6)):
    CASES[f"stateless_random_flip_left_right_{_s[0]}"] = lambda s=_s: tf.image.stateless_random_flip_left_right(IMG, s)
    CASES[f"stateless_random_flip_up_down_{_s[0]}"] = lambda s=_s: tf.image.stateless_random_flip_up_down(IMG, s)
    CASES[f"stateless_random_flip_left_right_batch_{_s[0]}"] = \
        lambda s=_s: tf.image.stateless_random_flip_left_right(tf.constant(BATCH), s)
    CASES[f"stateless_random_crop_{_s[0]}"] = lambda s=_s: tf.image.stateless_random_crop(IMG, [3, 4, 3], s)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    assert_value(CASES[name](), G[name], name, **TOL)


@pytest.mark.parametrize("name,fn", [
    ("random_crop_set_seed_99_op_5", lambda: tf.image.random_crop(IMG, [2, 3, 3], seed=5)),
    ("random_hue_set_seed_99_op_5", lambda: tf.image.random_hue(IMG, 0.3, seed=5)),
    ("random_saturation_set_seed_99_op_5", lambda: tf.image.random_saturation(IMG, 0.5, 1.5, seed=5)),
])
def test_stateful_random_follows_tf_seeds(name, fn):
    tf.random.set_seed(99)
    assert_value(fn(), G[name], name, **TOL)


def test_jpeg_quality_matches_tf():
    # TF decodes with its fast IDCT by default, tensorlet (Pillow) with the accurate one: a few levels apart
    assert_value(tf.image.adjust_jpeg_quality(IMG_U8, 75), G["adjust_jpeg_quality_u8_75"], "jpeg75", atol=4)
    assert_value(tf.image.stateless_random_jpeg_quality(IMG_U8, 20, 90, SEED), G["stateless_random_jpeg_quality"],
                 "jpeg_random", atol=4)


def test_hsv_round_trip_and_hue_rotation():
    x = tf.constant(np.random.default_rng(0).random((8, 8, 3)).astype(np.float32))
    np.testing.assert_allclose(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)).numpy(), x.numpy(), atol=1e-6)
    red = tf.constant([[[1.0, 0.0, 0.0]]])
    np.testing.assert_allclose(tf.image.adjust_hue(red, 1 / 3).numpy(), [[[0, 1, 0]]], atol=1e-6)
    np.testing.assert_allclose(tf.image.adjust_saturation(red, 0.0).numpy(), [[[1, 1, 1]]], atol=1e-6)


def test_stateless_is_deterministic_and_seed_dependent():
    a = tf.image.stateless_random_crop(IMG, [2, 2, 3], seed=[1, 2]).numpy()
    b = tf.image.stateless_random_crop(IMG, [2, 2, 3], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, b)
    crops = {tf.image.stateless_random_crop(IMG, [2, 2, 3], seed=[i, 0]).numpy().tobytes() for i in range(20)}
    assert len(crops) > 3


def test_random_crop_covers_offsets():
    x = tf.reshape(tf.range(16), [4, 4])
    seen = {int(tf.image.random_crop(x, [2, 2])[0, 0]) for _ in range(200)}
    assert seen == {0, 1, 2, 4, 5, 6, 8, 9, 10}


def test_argument_errors():
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tf.image.random_hue(IMG, 0.6)
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_saturation(IMG, 1.0, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        tf.image.stateless_random_contrast(IMG, -1.0, 0.5, SEED)
    with pytest.raises(ValueError, match="Need value.shape >= size"):
        tf.image.random_crop(IMG, [9, 2, 3])
    with pytest.raises(ValueError, match="must be less than"):
        tf.image.random_jpeg_quality(IMG_U8, 50, 50)


def test_pipeline_functions_trace_into_a_graph():
    @tf.function
    def augment(x, seed):
        x = tf.image.stateless_random_flip_left_right(x, seed)
        x = tf.image.stateless_random_hue(x, 0.2, seed)
        return tf.image.stateless_random_crop(x, [3, 3, 3], seed)

    seed = tf.constant([4, 2])
    eager = tf.image.stateless_random_crop(tf.image.stateless_random_hue(
        tf.image.stateless_random_flip_left_right(IMG, seed), 0.2, seed), [3, 3, 3], seed)
    np.testing.assert_allclose(augment(IMG, seed).numpy(), eager.numpy(), atol=1e-6)
