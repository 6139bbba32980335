"""tf.Variable's slice assignment and scatter methods, tf.Module's variable order and tf.function's tracing
counts, against results recorded from real TF (tests/goldens/variable_methods.json)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from variable_methods_cases import CASES  # noqa: E402

GOLDEN = value_cases.load("variable_methods.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_slice_assign_add_sub_extension():
    # TF's slices have only .assign; tensorlet's also take assign_add/assign_sub
    v = tf.Variable([1.0, 2.0, 3.0])
    v[1:].assign_add([1.0, 1.0])
    v[0].assign_sub(1.0)
    np.testing.assert_array_equal(v.numpy(), [0.0, 3.0, 4.0])


def test_scatter_inside_tf_function():
    v = tf.Variable([0.0, 0.0, 0.0])

    @tf.function
    def f(i, x):
        v.scatter_nd_update(tf.reshape(i, [1, 1]), tf.reshape(x, [1]))
        return v.sparse_read([0, 1])

    np.testing.assert_array_equal(f(tf.constant(1), tf.constant(5.0)).numpy(), [0.0, 5.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 5.0, 0.0])
