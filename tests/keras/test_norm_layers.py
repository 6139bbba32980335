"""Normalization layers against Keras 3 (tests/goldens/keras_layers.json) plus moving statistics, freezing,
masks, errors and graph use."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers
pytestmark = pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`")


@pytest.mark.parametrize("name", sorted(C.NORM))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_batchnorm_moving_statistics_numpy():
    x = C.det((8, 3))
    bn = L.BatchNormalization(momentum=0.8, epsilon=1e-3)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.2 * x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.8 + 0.2 * x.var(0), rtol=1e-5)
    inf = bn(x, training=False).numpy()  # inference uses the moving statistics and leaves them alone
    mm, mv = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    np.testing.assert_allclose(inf, (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), mm)
    assert [w.name for w in bn.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert [w.name for w in bn.trainable_weights] == ["gamma", "beta"]


def test_batchnorm_frozen_runs_in_inference_mode():
    x = C.det((6, 2))
    bn = L.BatchNormalization()
    bn(x)
    bn.trainable = False
    before = bn.moving_mean.numpy()
    y = bn(x, training=True).numpy()
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    np.testing.assert_allclose(y, x / np.sqrt(1 + 1e-3), rtol=1e-5)


def test_batchnorm_mask_excludes_steps():
    x = C.det((2, 5, 3))
    m = C._M
    bn = L.BatchNormalization(momentum=0.0)
    bn(x, training=True, mask=tf.constant(m))
    sel = x[m]
    np.testing.assert_allclose(bn.moving_mean.numpy(), sel.mean(0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), sel.var(0), rtol=1e-4, atol=1e-6)


def test_layer_and_group_norm_numpy():
    x = C.det((2, 3, 4))
    y = L.LayerNormalization(axis=[1, 2], epsilon=1e-5)(x).numpy()
    mu, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-5)
    g = L.GroupNormalization(groups=2, epsilon=1e-3)(x).numpy()
    xg = x.reshape(2, 3, 2, 2)
    mu, var = xg.mean((1, 3), keepdims=True), xg.var((1, 3), keepdims=True)
    np.testing.assert_allclose(g, ((xg - mu) / np.sqrt(var + 1e-3)).reshape(x.shape), rtol=1e-5, atol=1e-5)
    u = L.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(u, x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)
    inst = L.GroupNormalization(groups=-1)
    inst(x)
    assert inst.groups == 4


@pytest.mark.parametrize("make, shape, msg", [
    (lambda: L.GroupNormalization(groups=0), None, "Received an invalid value for argument `groups`"),
    (lambda: L.GroupNormalization(groups=5), (1, 4), "Number of groups (5) cannot be more than the number of "
                                                     "channels (4)."),
    (lambda: L.GroupNormalization(groups=3), (1, 4), "Number of groups (3) must be a multiple of the number of "
                                                     "channels (4)."),
    (lambda: L.LayerNormalization(axis=3), (2, 3), "Axis 3 is out of bounds for input shape (2, 3)"),
])
def test_errors(make, shape, msg):
    with pytest.raises(ValueError) as e:
        layer = make()
        if shape is not None:
            layer.compute_output_shape(shape)
            layer.build(shape)
    assert msg in str(e.value)
    with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints for the argument 'axis'"):
        L.LayerNormalization(axis="x")


@pytest.mark.parametrize("cls, kwargs, shape, weights, n_trainable", [
    (L.BatchNormalization, {"axis": 1, "momentum": 0.9, "center": False}, (2, 3, 4),
     [("gamma", (3,)), ("moving_mean", (3,)), ("moving_variance", (3,))], 1),
    (L.LayerNormalization, {"axis": [1, 2], "epsilon": 1e-5}, (2, 3, 4), [("gamma", (3, 4)), ("beta", (3, 4))], 2),
    (L.GroupNormalization, {"groups": 4, "axis": 1}, (2, 4, 3), [("gamma", (4,)), ("beta", (4,))], 2),
    (L.UnitNormalization, {"axis": [1, 2]}, (2, 3, 4), [], 0),
])
def test_standard_layer_checks(cls, kwargs, shape, weights, n_trainable):
    """Output shape, weights, config round trip (same config and outputs), eager == tf.function, a training step."""
    run_layer_test(cls, kwargs, input_shape=shape, expected_output_shape=shape,
                   expected_num_trainable_weights=n_trainable,
                   expected_num_non_trainable_weights=len(weights) - n_trainable,
                   expected_weight_names=[n for n, _ in weights], expected_weight_shapes=[s for _, s in weights])


def test_batchnorm_in_tf_function_updates_statistics():
    if not C.graph_ready(tf):
        pytest.skip("tf.function is not available yet")
    x = tf.constant(C.det((4, 3)))
    bn = L.BatchNormalization(momentum=0.5)
    bn(x)
    step = tf.function(lambda v: bn(v, training=True))
    step(x)
    step(x)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.75 * C.det((4, 3)).mean(0), rtol=1e-5, atol=1e-6)
