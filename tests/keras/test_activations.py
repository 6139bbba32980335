"""Keras activations against Keras 3 / TF 2.21 values, plus get/serialize/deserialize."""

import numpy as np
import pytest

import tensorlet as tf
from tests.keras._k2_golden import P, basics, close, golden

A = tf.keras.activations


@pytest.mark.parametrize("key", sorted(P.ACTIVATIONS) + P.PLAIN_ACTIVATIONS)
def test_values_match_keras(key):
    close(basics()["activations"][key], golden("keras_optim_basics.json")["activations"][key], rtol=2e-6, atol=1e-6)


def test_formulas_by_hand():
    x = np.array([-5.0, -1.0, 0.0, 1.0, 5.0], "float32")
    np.testing.assert_allclose(A.hard_sigmoid(x).numpy(), np.clip(x / 6 + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(A.relu(x, alpha=0.1).numpy(), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_allclose(A.softmax(x, axis=None).numpy(), np.exp(x) / np.exp(x).sum(), rtol=1e-6)
    assert A.linear(x) is x
    np.testing.assert_allclose(A.threshold(x, 0.5, -2.0).numpy(), np.where(x > 0.5, x, -2.0))


def test_gradients_flow():
    x = tf.Variable([-1.0, 0.5, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(A.gelu(x) + A.mish(x) + A.softmax(x))
    g = tape.gradient(y, x).numpy()
    assert g.shape == (3,) and np.all(np.isfinite(g))


def test_get_and_serialize():
    assert A.get("relu") is A.relu
    assert A.get("swish") is A.silu and A.swish is A.silu
    assert A.get("hard_swish") is A.hard_silu
    assert A.get(None) is A.linear
    assert A.serialize(A.relu) == "relu"
    assert A.serialize(A.swish) == "silu"
    assert A.deserialize("softmax") is A.softmax
    fn = lambda t: t  # noqa: E731
    assert A.get(fn) is fn
    with pytest.raises(ValueError, match="Could not interpret activation function identifier"):
        A.get("no_such_activation")
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(tf.ones((2, 3)))
