"""Merge layers against Keras 3 (tests/goldens/keras_layers.json) plus functional forms, masks and errors."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.MERGE))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_functional_forms():
    a, b = C.det((2, 3)), C.det((2, 3), k=0.7)
    for fn, ref in ((L.add, a + b), (L.subtract, a - b), (L.multiply, a * b), (L.average, (a + b) / 2),
                    (L.maximum, np.maximum(a, b)), (L.minimum, np.minimum(a, b))):
        np.testing.assert_allclose(fn([a, b]).numpy(), ref, rtol=1e-6)
    np.testing.assert_array_equal(L.concatenate([a, b], axis=0).numpy(), np.concatenate([a, b], 0))
    np.testing.assert_allclose(L.dot([a, b], axes=1).numpy(), (a * b).sum(1, keepdims=True), rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="A `Subtract` layer should be called on exactly 2 inputs"):
        L.Subtract()([C.det((2, 3))] * 3)
    with pytest.raises(ValueError, match="Inputs have incompatible shapes"):
        L.Add()([C.det((2, 3)), C.det((2, 4))])
    with pytest.raises(ValueError, match="A merge layer should be called on a list of inputs"):
        L.Add()(C.det((2, 3)))
    with pytest.raises(ValueError, match="A `Concatenate` layer requires inputs with matching shapes except for the "
                                         "concatenation axis"):
        L.Concatenate(axis=1)([C.det((2, 3, 4)), C.det((2, 3, 5))])
    with pytest.raises(ValueError, match="Incompatible input shapes: axis values 3 \\(at axis 1\\) != 4"):
        L.Dot(axes=1)([C.det((2, 3)), C.det((2, 4))])
    with pytest.raises(TypeError, match="Invalid type for argument `axes`"):
        L.Dot(axes="1")


def test_masks_are_merged():
    a = tf.constant(C.det((2, 5, 3)))
    m1, m2 = C._M, np.ones((2, 5), bool)
    assert L.Add().compute_mask([a, a], [tf.constant(m1), tf.constant(m2)]).numpy().all()
    got = L.Concatenate(axis=1).compute_mask([a, a], [tf.constant(m1), None]).numpy()
    np.testing.assert_array_equal(got, np.concatenate([m1, m2], 1))


def test_output_shapes_and_config():
    assert L.Add().compute_output_shape([(None, 3, 4), (None, 1, 4)]) == (None, 3, 4)
    assert L.Concatenate(axis=1).compute_output_shape([(2, 3, 4), (2, None, 4)]) == (2, None, 4)
    assert L.Dot(axes=(1, 2)).compute_output_shape([(None, 3, 4), (None, 5, 3)]) == (None, 4, 5)
    d = L.Dot(axes=(1, 2), normalize=True)
    assert L.Dot.from_config(d.get_config()).get_config()["axes"] == (1, 2)


def test_concatenate_build_shapes_masks_match_keras():
    # Keras 3 compares every dimension but the concatenation axis (size-1 ones included, ``None`` matching
    # anything): [(None, 1, 1, 512), (None, 1, 1, 32)] on axis 3 builds (DenseNet at a 32x32 input).
    import json

    import keras_concat_cases as CC
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "goldens", "keras_concat.json")) as f:
        want = json.load(f)
    want.pop("keras_version")
    assert CC.run(tf.keras) == want
