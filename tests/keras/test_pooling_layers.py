"""Pooling layers against Keras 3 (tests/goldens/keras_layers.json) plus aliases, errors and shapes."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.POOL))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_aliases_and_defaults():
    assert L.MaxPool2D is L.MaxPooling2D and L.AvgPool1D is L.AveragePooling1D
    assert L.GlobalAvgPool2D is L.GlobalAveragePooling2D and L.GlobalMaxPool3D is L.GlobalMaxPooling3D
    p = L.MaxPooling2D()
    assert (p.pool_size, p.strides, p.padding) == ((2, 2), (2, 2), "valid")
    with pytest.raises(TypeError, match="pool_size"):
        L.AveragePooling2D()


def test_numpy_reference_max_and_average():
    x = C.det((2, 4, 6, 3))
    got = L.MaxPooling2D((2, 3))(x).numpy()
    want = x.reshape(2, 2, 2, 2, 3, 3).max(axis=(2, 4))
    np.testing.assert_array_equal(got, want)
    got = L.AveragePooling2D(2)(x).numpy()
    np.testing.assert_allclose(got, x.reshape(2, 2, 2, 3, 2, 3).mean(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(L.GlobalMaxPooling1D()(x[:, 0]).numpy(), x[:, 0].max(axis=1))


def test_output_shapes_and_errors():
    assert L.MaxPooling2D(3, strides=2, padding="same").compute_output_shape((None, 5, None, 2)) == (None, 3, None, 2)
    assert L.AveragePooling1D(2, data_format="channels_first").compute_output_shape((4, 3, 9)) == (4, 3, 4)
    assert L.GlobalAveragePooling3D(keepdims=True).compute_output_shape((2, 3, 4, 5, 6)) == (2, 1, 1, 1, 6)
    with pytest.raises(ValueError, match="The `pool_size` argument must be a tuple of 2 integers"):
        L.MaxPooling2D((2, 2, 2))
    with pytest.raises(ValueError, match="input_spec|expected ndim=4|ndim"):
        L.MaxPooling2D()(np.ones((2, 4, 4), np.float32))


def test_config_round_trip():
    layer, _ = run_layer_test(L.AveragePooling2D, {"pool_size": (2, 3), "strides": 1, "padding": "same",
                                                   "data_format": "channels_first"},
                              input_shape=(2, 3, 4, 5), expected_output_shape=(2, 3, 4, 5),
                              expected_num_trainable_weights=0, expected_num_non_trainable_weights=0)
    clone = L.AveragePooling2D.from_config(layer.get_config())
    assert (clone.pool_size, clone.strides, clone.padding, clone.data_format) == ((2, 3), (1, 1), "same",
                                                                                    "channels_first")


def test_global_average_mask_is_consumed():
    x = C.det((2, 5, 3))
    mask = tf.constant(C._M)
    y = L.GlobalAveragePooling1D()(x, mask=mask)
    want = (x * C._M[..., None]).sum(1) / C._M.sum(1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    assert getattr(y, "_keras_mask", None) is None
