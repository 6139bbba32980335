"""tf.function semantics against real TF (tests/goldens/function_semantics.json, cases function_semantics_cases.py)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from function_semantics_cases import CASES  # noqa: E402

GOLDEN = value_cases.load("function_semantics.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_ta_scatter_grows_in_graph_as_eager():
    f = tf.function(lambda: CASES["ta_scatter_grows_eager"](tf))
    for got, want in zip(f(), CASES["ta_scatter_grows_eager"](tf)):
        assert got.shape == want.shape and (got.numpy() == want.numpy()).all()


def test_dynamic_ta_under_xla_is_refused_by_name():
    # TF 2.21's XLA returns an empty (0, 2) array for this program; tensorlet refuses it, naming the op
    @tf.function(jit_compile=True)
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, x[i])
        return ta.stack()

    with pytest.raises(tf.errors.InvalidArgumentError, match="While"):
        f(tf.ones([3, 2]), tf.constant(2))


def test_fixed_size_ta_loop_compiles():
    @tf.function(jit_compile=True)
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    x = tf.reshape(tf.range(6.0), [3, 2])
    assert (f(x).numpy() == x.numpy() * 2).all()
    assert f.get_concrete_function(x)._compiled is not None


def test_gradient_through_growing_ta():
    # differentiated step by step (the loop's shapes change between iterations); more in test_tensor_array_grad
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * x[i])
        return tf.reduce_sum(ta.stack())

    x = tf.reshape(tf.range(6.0), [3, 2])
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(y) == 55.0
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), 2 * x.numpy())


def test_variable_argument_reuses_trace_and_compiled_executable():
    @tf.function
    def step(v, g):
        v.assign_sub(0.5 * g)
        return tf.reduce_sum(v)

    vs = [tf.Variable(tf.fill([64], float(i))) for i in range(4)]
    for _ in range(3):
        for v in vs:
            step(v, tf.ones([64]))
    assert step.experimental_get_tracing_count() == 1
    assert [float(v[0]) for v in vs] == [-1.5, -0.5, 0.5, 1.5]
