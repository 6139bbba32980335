"""Activation and noise layers against Keras 3 (tests/goldens/keras_layers.json) plus training behaviour."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.ACT))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_errors():
    with pytest.raises(ValueError, match="The negative_slope value of a Leaky ReLU layer cannot be None or negative"):
        L.LeakyReLU(-1.0)
    with pytest.raises(ValueError, match="max_value of a ReLU layer cannot be a negative value"):
        L.ReLU(max_value=-1.0)
    with pytest.raises(ValueError, match="Invalid value received for argument `rate`. Expected a float value "
                                         "between 0 and 1. Received: rate=1.5"):
        L.GaussianDropout(1.5)


def test_noise_layers_in_training():
    x = np.ones((200, 50), np.float32)
    y = L.GaussianNoise(0.5, seed=1)(x, training=True).numpy()
    assert abs(y.mean() - 1.0) < 0.02 and abs(y.std() - 0.5) < 0.02
    y = L.GaussianDropout(0.2, seed=1)(x, training=True).numpy()
    assert abs(y.mean() - 1.0) < 0.02 and abs(y.std() - 0.5) < 0.02
    y = L.AlphaDropout(0.3, seed=1)(x, training=True).numpy()
    assert len(np.unique(np.round(y, 5))) == 2  # kept values and the saturated value


def test_prelu_and_softmax_reference():
    x = C.det((2, 3, 4))
    p = L.PReLU(shared_axes=[1, 2], alpha_initializer="ones")
    p(x)
    assert tuple(p.alpha.shape) == (1, 1)
    np.testing.assert_allclose(p(x).numpy(), x, rtol=1e-6)
    s = L.Softmax(axis=(1, 2))(x).numpy()
    e = np.exp(x - x.max((1, 2), keepdims=True))
    np.testing.assert_allclose(s, e / e.sum((1, 2), keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("cls,kwargs,weights", [
    ("ReLU", {"max_value": 6.0, "negative_slope": 0.1, "threshold": 0.5}, 0), ("LeakyReLU", {"negative_slope": 0.2}, 0),
    ("ELU", {"alpha": 0.7}, 0), ("PReLU", {"shared_axes": [1]}, 1), ("Softmax", {"axis": 1}, 0),
    ("ActivityRegularization", {"l1": 0.1, "l2": 0.2}, 0), ("GaussianNoise", {"stddev": 0.3, "seed": 2}, 0),
    ("AlphaDropout", {"rate": 0.2}, 0)])
def test_layer_contract(cls, kwargs, weights):
    """Shapes, weights, config round trip, eager == tf.function and a training step (layer_test_utils)."""
    run_layer_test(getattr(L, cls), kwargs, input_shape=(2, 3, 4), expected_output_shape=(2, 3, 4),
                   expected_num_trainable_weights=weights, expected_num_non_trainable_weights=0)
