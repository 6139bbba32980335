"""Concatenate build/compute_output_shape/compute_mask cases, run on Keras 3 by
tools/record_tf_goldens/keras_concat.py (into tests/goldens/keras_concat.json) and on tensorlet by
tests/keras/test_merging_layers.py."""

import numpy as np

# (input shapes, axis): size-1 dimensions off the axis (DenseNet at 32x32), unknown dimensions, negative and
# positive axes, rank mismatches.
SHAPES = [
    ([(None, 1, 1, 512), (None, 1, 1, 32)], 3), ([(None, 1, 1, 512), (None, 1, 1, 32)], -1),
    ([(None, 1, 5), (None, 3, 5)], -1), ([(None, 1, 5), (None, 5)], -1), ([(None, None, 4), (None, 3, 4)], 1),
    ([(None, 3, None), (None, 3, 5)], -1), ([(2, 3, 4), (2, 3, 5)], 1), ([(None, 1, 4), (None, 2, 4)], 1),
    ([(None, 1, 4), (None, 2, 5)], 1), ([(None, 1, 4), (None, 2, 4)], 0), ([(None, 2, 3), (None, 2, 4, 5)], -1),
    ([(4, 3), (5, 3)], 0), ([(None, 3, 4), (None, 2, 4)], -2), ([(None, 2, 1, 3), (None, 2, 1, 3)], 1),
]


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # the error class is the recorded outcome
        return type(e).__name__
    return "ok" if out is None else [None if d is None else int(d) for d in out]


def run(keras):
    data = {}
    for i, (shapes, axis) in enumerate(SHAPES):
        layer = keras.layers.Concatenate(axis=axis)
        data[f"build_{i}"] = _outcome(lambda layer=layer, shapes=shapes: layer.build(shapes))
        data[f"shape_{i}"] = _outcome(lambda layer=layer, shapes=shapes: layer.compute_output_shape(shapes))
    # Masks: a rank-2 mask beside a rank-3 input, an unmasked input, axis 1 and -1.
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    b = np.ones((2, 2, 4), "float32")
    m = np.array([[True, False, True], [False, False, True]])
    for axis in (1, -1):
        bb = b if axis == 1 else np.ones((2, 3, 2), "float32")
        got = keras.layers.Concatenate(axis=axis).compute_mask([a, bb], [m, None])
        data[f"mask_axis{axis}"] = np.asarray(got).astype(int).tolist()
    data["mask_none"] = _outcome(lambda: keras.layers.Concatenate().compute_mask([a, a], [None, None]))
    data["mask_len"] = _outcome(lambda: keras.layers.Concatenate().compute_mask([a, a], [m]) and None)
    # In a functional model: the layer builds on symbolic shapes with an unknown spatial size.
    x1 = keras.Input((None, 1, 8))
    x2 = keras.Input((None, 1, 3))
    y = keras.layers.Concatenate()([x1, x2])
    data["symbolic"] = [None if d is None else int(d) for d in y.shape]
    return data
