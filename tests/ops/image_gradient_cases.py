"""Which tf.image functions TF differentiates (LookupError where TF defines no gradient, None where it declares
the op non-differentiable): run by real TF (tools/record_tf_goldens/image_gradients.py ->
tests/goldens/image_gradients.json) and by tensorlet (tests/ops/test_image_gradients.py)."""

import numpy as np


def _grad(tf, fn):
    x = tf.Variable(np.linspace(0.1, 0.9, 12).reshape(2, 2, 3).astype(np.float32))
    with tf.GradientTape() as t:
        y = tf.reduce_sum(fn(tf, x))
    g = t.gradient(y, x)
    return "None" if g is None else g


CASES = {
    "adjust_contrast": lambda tf: _grad(tf, lambda tf, v: tf.image.adjust_contrast(v, 2.0)),
    "adjust_hue": lambda tf: _grad(tf, lambda tf, v: tf.image.adjust_hue(v, 0.1)),
    "adjust_saturation": lambda tf: _grad(tf, lambda tf, v: tf.image.adjust_saturation(v, 0.5)),
    "adjust_brightness": lambda tf: _grad(tf, lambda tf, v: tf.image.adjust_brightness(v, 0.1)),
    "rgb_to_hsv": lambda tf: _grad(tf, lambda tf, v: tf.image.rgb_to_hsv(v)),
    "hsv_to_rgb": lambda tf: _grad(tf, lambda tf, v: tf.image.hsv_to_rgb(v)),
    "rgb_to_grayscale": lambda tf: _grad(tf, lambda tf, v: tf.image.rgb_to_grayscale(v)),
    "adjust_gamma": lambda tf: _grad(tf, lambda tf, v: tf.image.adjust_gamma(v, 2.0)),
    "per_image_standardization": lambda tf: _grad(tf, lambda tf, v: tf.image.per_image_standardization(v)),
}
