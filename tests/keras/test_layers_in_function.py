"""Every layer case of tests/keras/keras_layers_cases.py traced by tf.function gives its eager result (the layers
are graph-ready: no NumPy reads of tensors, no Python branches on tensor values)."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`")
NAMES = sorted(n for n, s in C.CASES.items() if not (s["cls"].startswith("Random") and s["call_kwargs"]))


@pytest.mark.parametrize("name", NAMES)
def test_traced_equals_eager(name):
    if not C.graph_ready(tf):
        pytest.skip("tf.function is not available yet")
    spec = C.CASES[name]
    layer = C.make_layer(tf.keras, spec)
    xs = [tf.constant(a) for a in C.inputs_for(spec)]
    kwargs = {k: C._as_tf(tf, v) for k, v in spec["call_kwargs"].items()}
    eager = C._call(layer, xs, spec, dict(kwargs))
    traced = tf.function(lambda *a: C._call(layer, list(a), spec, dict(kwargs)))(*xs)
    eager = list(eager) if isinstance(eager, (list, tuple)) else [eager]
    traced = list(traced) if isinstance(traced, (list, tuple)) else [traced]
    assert len(traced) == len(eager)
    for t, e in zip(traced, eager):
        assert t.dtype == e.dtype and tuple(t.shape) == tuple(e.shape)
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)


def test_random_layers_in_function_draw_new_values_each_call():
    if not C.graph_ready(tf):
        pytest.skip("tf.function is not available yet")
    x = tf.constant(C.det((4, 6, 6, 1)))
    layer = tf.keras.layers.RandomRotation(0.4, seed=2)
    f = tf.function(lambda v: layer(v, training=True))
    a, b = f(x).numpy(), f(x).numpy()
    assert a.shape == (4, 6, 6, 1) and not np.allclose(a, b)
