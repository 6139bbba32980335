"""Convolution layers against Keras 3 (tests/goldens/keras_layers.json) plus errors, configs and graph use."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.CONV))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_weight_names_shapes_and_order():
    layer = L.SeparableConv2D(3, 2, depth_multiplier=2, name="sep")
    layer(np.ones((1, 4, 4, 2), np.float32))
    assert [(w.path, tuple(w.shape)) for w in layer.weights] == [
        ("sep/depthwise_kernel", (2, 2, 2, 2)), ("sep/pointwise_kernel", (1, 1, 4, 3)), ("sep/bias", (3,))]
    t = L.Conv2DTranspose(5, 3, name="tr")
    t(np.ones((1, 4, 4, 2), np.float32))
    assert [tuple(w.shape) for w in t.weights] == [(3, 3, 5, 2), (5,)]
    g = L.Conv1D(4, 3, groups=2)
    g(np.ones((1, 6, 6), np.float32))
    assert tuple(g.kernel.shape) == (3, 3, 4)


@pytest.mark.parametrize("make, msg", [
    (lambda: L.Conv2D(0, 3), "Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             "filters=0."),
    (lambda: L.Conv2D(4, 3, groups=3), "The number of filters must be evenly divisible by the number of groups. "
                                       "Received: groups=3, filters=4."),
    (lambda: L.Conv2D(4, (3, 3, 3)), "The `kernel_size` argument must be a tuple of 2 integers. Received "
                                     "kernel_size=(3, 3, 3)"),
    (lambda: L.Conv2D(4, 3, padding="causal"), "The `padding` argument must be a list/tuple or one of"),
    (lambda: L.Conv2D(4, 3, strides=2, dilation_rate=2), "`strides > 1` not supported in conjunction with "
                                                         "`dilation_rate > 1`"),
    (lambda: L.Conv2D(4, 3, data_format="NHWC"), "The `data_format` argument must be one of"),
    (lambda: L.Conv2DTranspose(4, 3, strides=2, output_padding=2), "`output_padding` must be strictly less than "
                                                                   "`strides`"),
    (lambda: L.DepthwiseConv2D(3, depth_multiplier=0), "Invalid value for argument `depth_multiplier`"),
])
def test_argument_errors(make, msg):
    with pytest.raises(ValueError) as e:
        make()
    assert msg in str(e.value)


def test_build_errors():
    with pytest.raises(ValueError, match="The number of input channels must be evenly divisible by the number of "
                                         "groups. Received groups=2, but the input has 3 channels"):
        L.Conv2D(4, 2, groups=2)(np.ones((1, 4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="Computed output size would be zero or negative"):
        L.Conv2D(2, 5)(np.ones((1, 3, 3, 1), np.float32))


def test_compute_output_shape_with_unknown_dims():
    assert L.Conv2D(4, 3, strides=2, padding="same").compute_output_shape((None, None, 7, 3)) == (None, None, 4, 4)
    assert L.Conv1D(2, 3, padding="causal").compute_output_shape((None, 10, 1)) == (None, 10, 2)
    assert L.Conv2DTranspose(2, 3, strides=2).compute_output_shape((None, 4, None, 1)) == (None, 9, None, 2)
    assert L.DepthwiseConv2D(3, depth_multiplier=3).compute_output_shape((2, 5, 5, 2)) == (2, 3, 3, 6)


@pytest.mark.parametrize("cls,kwargs,out_shape,shapes", [
    ("Conv2D", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same", "activation": "relu", "groups": 1},
     (2, 3, 3, 4), [(3, 3, 3, 4), (4,)]),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": 1}, (2, 14, 14, 2),
     [(3, 3, 2, 3), (2,)]),
    ("DepthwiseConv2D", {"kernel_size": 2, "depth_multiplier": 2, "use_bias": False}, (2, 5, 5, 6), [(2, 2, 3, 2)]),
    ("SeparableConv2D", {"filters": 3, "kernel_size": 2, "padding": "same"}, (2, 6, 6, 3),
     [(2, 2, 3, 1), (1, 1, 3, 3), (3,)])])
def test_layer_contract(cls, kwargs, out_shape, shapes):
    """Shapes, weights, config round trip (same outputs), eager == tf.function, a training step."""
    run_layer_test(getattr(L, cls), kwargs, input_data=C.det((2, 6, 6, 3)), expected_output_shape=out_shape,
                   expected_weight_shapes=shapes, expected_num_non_trainable_weights=0)


def test_conv3d_channels_first_bias_per_channel():
    """channels_first == channels_last transposed (Keras 3.15 on TF CPU gets the bias wrong here)."""
    x = C.det((1, 2, 3, 3, 3))
    cf = L.Conv3D(2, 2, data_format="channels_first")
    cl = L.Conv3D(2, 2)
    xl = np.transpose(x, (0, 2, 3, 4, 1))
    cf(x)
    cl(xl)
    w = [C.wdet((2, 2, 2, 2, 2), 0), np.array([1.0, 5.0], np.float32)]
    cf.set_weights(w)
    cl.set_weights(w)
    np.testing.assert_allclose(cf(x).numpy(), np.transpose(cl(xl).numpy(), (0, 4, 1, 2, 3)), rtol=1e-5, atol=1e-5)


def test_depthwise_strides_with_dilation_matches_subsampling():
    """strides > 1 with dilation > 1 (TF's op refuses): the dilated stride-1 result, subsampled."""
    x = C.det((1, 9, 9, 2))
    a = L.DepthwiseConv2D(3, strides=2, dilation_rate=2, padding="valid", use_bias=False)
    a(x)
    b = L.DepthwiseConv2D(3, dilation_rate=2, padding="valid", use_bias=False)
    b(x)
    b.set_weights(a.get_weights())
    np.testing.assert_allclose(a(x).numpy(), b(x).numpy()[:, ::2, ::2, :], rtol=1e-6)


def test_in_tf_function():
    if not C.graph_ready(tf):
        pytest.skip("tf.function is not available yet")
    layer = L.Conv2D(3, 3, padding="same", activation="relu")
    x = C.det((2, 5, 5, 2))
    eager = layer(x)
    np.testing.assert_allclose(tf.function(layer)(tf.constant(x)).numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
