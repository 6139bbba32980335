"""Keras regularizers and constraints against Keras 3 / TF 2.21 values, get/serialize and argument errors."""

import numpy as np
import pytest

import tensorlet as tf
from tests.keras._k2_golden import basics, close, golden

R, C = tf.keras.regularizers, tf.keras.constraints


@pytest.mark.parametrize("kind", ["regularizers", "constraints"])
def test_values_match_keras(kind):
    want = golden("keras_optim_basics.json")[kind]
    for key in want:
        close(basics()[kind][key], want[key], rtol=3e-6, atol=1e-6)


def test_regularizer_api():
    assert type(R.get("l2")) is R.L2 and R.get("l2").l2 == 0.01
    assert type(R.get("l1l2")) is R.L1L2 and type(R.get("l1_l2")) is R.L1L2
    assert type(R.get("orthogonal_regularizer")) is R.OrthogonalRegularizer
    assert R.get(None) is None
    assert R.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert R.serialize(R.L2(0.5)) == {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.5},
                                      "registered_name": None}
    assert R.deserialize(R.serialize(R.L1(0.3))).l1 == 0.3
    with pytest.raises(ValueError, match="expected a non-negative float"):
        R.L2(-1.0)
    with pytest.raises(ValueError, match="rank 2"):
        R.OrthogonalRegularizer()(tf.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        R.get("l3")
    np.testing.assert_allclose(float(R.l2(0.1)(tf.constant([1.0, 2.0]))), 0.5, rtol=1e-6)


def test_constraint_api():
    assert type(C.get("non_neg")) is C.NonNeg and type(C.get("MaxNorm")) is C.MaxNorm
    assert C.get(None) is None
    assert C.MaxNorm(3, axis=1).get_config() == {"max_value": 3, "axis": 1}
    assert C.serialize(C.UnitNorm())["class_name"] == "UnitNorm"
    assert C.deserialize(C.serialize(C.MinMaxNorm(0.5, 2.0))).max_value == 2.0
    w = C.UnitNorm(axis=0)(tf.constant([[3.0], [4.0]])).numpy()
    np.testing.assert_allclose(w, [[0.6], [0.8]], rtol=1e-6)
    with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
        C.get("positive")
