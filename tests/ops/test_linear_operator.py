"""tf.linalg.LinearOperator* against results recorded from real TF (tests/goldens/linear_operator.json; cases
linear_operator_cases.py)."""

import numpy as np
import pytest
import value_cases
from linear_operator_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("linear_operator.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_gradients_flow_through_operators():
    d = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.linalg.LinearOperatorDiag(d).solvevec([1.0, 1.0]))
    np.testing.assert_allclose(tape.gradient(y, d).numpy(), [-1.0, -0.25])
