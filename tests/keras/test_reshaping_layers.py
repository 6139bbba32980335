"""ZeroPadding / Cropping / UpSampling layers against Keras 3 (tests/goldens/keras_layers.json) plus errors."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.RESHAPE))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_numpy_references():
    x = C.det((1, 2, 3, 1))
    np.testing.assert_array_equal(L.ZeroPadding2D(((1, 0), (0, 2)))(x).numpy(),
                                  np.pad(x, ((0, 0), (1, 0), (0, 2), (0, 0))))
    np.testing.assert_array_equal(L.UpSampling2D((2, 3))(x).numpy(), x.repeat(2, 1).repeat(3, 2))
    np.testing.assert_array_equal(L.Cropping2D(((1, 0), (1, 1)))(x).numpy(), x[:, 1:, 1:2])


@pytest.mark.parametrize("make, exc, msg", [
    (lambda: L.ZeroPadding2D((1, 2, 3)), ValueError, "`padding` should have two elements. Received: "
                                                     "padding=(1, 2, 3)."),
    (lambda: L.ZeroPadding3D((1, 2)), ValueError, "`padding` should have 3 elements. Received: (1, 2)."),
    (lambda: L.Cropping2D(-1), ValueError, "`cropping` cannot be negative. Received: cropping=-1."),
    (lambda: L.UpSampling1D(2.0), TypeError, "Expected an integer value for `size`, got <class 'float'>."),
    (lambda: L.UpSampling1D(0), ValueError, "Argument `size` should be a positive integer. Received: size=0"),
    (lambda: L.ZeroPadding1D((1, -1)), ValueError, "that do not satisfy `value >= 0`"),
])
def test_argument_errors(make, exc, msg):
    with pytest.raises(exc) as e:
        make()
    assert msg in str(e.value)


def test_cropping_too_much():
    with pytest.raises(ValueError, match="Values in `cropping` argument should be smaller than the corresponding "
                                         "spatial dimension of the input"):
        L.Cropping2D(2)(np.ones((1, 4, 4, 1), np.float32))
    with pytest.raises(ValueError, match="`cropping` parameter of `Cropping1D` layer must be smaller than the "
                                         "input length"):
        L.Cropping1D((2, 2)).compute_output_shape((None, 4, 1))


_X4 = C.det((1, 2, 3, 4))
_X5 = C.det((1, 4, 4, 4, 2))


@pytest.mark.parametrize("cls, kwargs, x, out_shape, want", [
    (L.ZeroPadding2D, {"padding": ((1, 0), (2, 1)), "data_format": "channels_first"}, _X4, (1, 2, 4, 7),
     np.pad(_X4, ((0, 0), (0, 0), (1, 0), (2, 1)))),
    (L.Cropping3D, {"cropping": 1}, _X5, (1, 2, 2, 2, 2), _X5[:, 1:3, 1:3, 1:3]),
    (L.UpSampling2D, {"size": 2, "interpolation": "bilinear"}, _X4, (1, 4, 6, 4), None),
])
def test_standard_layer_checks(cls, kwargs, x, out_shape, want):
    """Output shape (and values where NumPy gives them), no weights, config round trip, eager == tf.function."""
    run_layer_test(cls, kwargs, input_data=x, expected_output_shape=out_shape, expected_output=want,
                   expected_num_trainable_weights=0, expected_num_non_trainable_weights=0)
