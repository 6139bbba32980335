"""tf.image.extract_glimpse programs run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/glimpse.json)
and by tensorlet (tests/ops/test_image_glimpse.py).  Windows partly outside the image use noise="zero" (the other
noises are random; their range is checked in the test)."""

import numpy as np

IMG = np.arange(2 * 6 * 7 * 2, dtype=np.float32).reshape(2, 6, 7, 2)
OFFSETS = {"center": [[0.0, 0.0], [0.3, -0.4]], "far": [[1.5, 2.2], [-3.0, 4.9]], "edge": [[0.9, 0.95], [-0.9, -1.2]],
           "pixels": [[2.6, 5.5], [-1.5, -2.7]]}
MODES = {"default": {}, "pixel_corner": {"centered": False, "normalized": False},
         "normalized_corner": {"centered": False}, "pixel_centered": {"normalized": False}}


def _case(off, kw, size=(3, 4)):
    return lambda tf: tf.image.extract_glimpse(IMG, list(size), OFFSETS[off], noise="zero", **kw)


CASES = {f"{m}_{o}": _case(o, kw) for m, kw in MODES.items() for o in OFFSETS}
CASES.update({
    "inside_uniform_noise_unused": lambda tf: tf.image.extract_glimpse(IMG, [2, 3], [[0.0, 0.0], [0.1, 0.2]]),
    "inside_gaussian_noise_unused": lambda tf: tf.image.extract_glimpse(IMG, [2, 3], [[0.0, 0.0], [0.1, 0.2]],
                                                                        noise="gaussian"),
    "bigger_than_image": _case("center", {}, (10, 12)),
    "empty_window": _case("center", {}, (0, 4)),
    "in_function": lambda tf: tf.function(lambda x, o: tf.image.extract_glimpse(x, [3, 3], o, noise="zero"))(
        tf.constant(IMG), tf.constant(OFFSETS["edge"])),
    "bad_noise": lambda tf: tf.image.extract_glimpse(IMG, [3, 4], OFFSETS["center"], noise="bogus"),
    "bad_rank": lambda tf: tf.image.extract_glimpse(IMG[0], [3, 4], [[0.0, 0.0]], noise="zero"),
    "bad_size": lambda tf: tf.image.extract_glimpse(IMG, [3], OFFSETS["center"], noise="zero"),
    "bad_batch": lambda tf: tf.image.extract_glimpse(IMG, [3, 4], [[0.0, 0.0]], noise="zero"),
    "bad_offsets": lambda tf: tf.image.extract_glimpse(IMG, [3, 4], [[0.0, 0.0, 0.0]] * 2, noise="zero"),
    "float64_refused": lambda tf: tf.image.extract_glimpse(tf.constant(IMG, tf.float64), [3, 4], OFFSETS["center"]),
    "gradient_lookup_error": lambda tf: _grad(tf),
})


def _grad(tf):
    x = tf.constant(IMG)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.image.extract_glimpse(x, [2, 2], OFFSETS["center"], noise="zero"))
    return tape.gradient(y, x)
