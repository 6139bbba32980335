"""``tf.custom_gradient`` and ``tape.jacobian`` inside ``tf.function`` (they used to read eager arrays), and a
variable passed *as the argument* of a custom-gradient function (``tf.recompute_grad(f)(var)``), which gets its
gradient once, as an input, not again as a captured variable."""

import numpy as np

import tensorlet as tf


@tf.custom_gradient
def _clip_grad(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.5, 0.5)
    return tf.identity(x * 3.0), grad


def test_custom_gradient_in_function_with_tape():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(_clip_grad(x) * tf.constant([1.0, 0.1]))
        return y, t.gradient(y, x)

    x = np.array([1.0, 2.0], np.float32)
    y, g = f(tf.constant(x))
    np.testing.assert_allclose(y.numpy(), np.sum(3 * x * [1.0, 0.1]), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), np.clip([1.0, 0.1], -0.5, 0.5), rtol=1e-6)


def test_custom_gradient_with_variables_in_function():
    w = tf.Variable([2.0])

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * 2.0, [dy * 10.0]
        return x * w, grad

    @tf.function
    def g(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(scale(x))
        return t.gradient(y, [x, w])

    gx, gw = g(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(gw.numpy(), [10.0, 10.0])  # what grad_fn returns, as in TF


def test_hessian_by_jacobian_in_function():
    x = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def hess(x):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(x ** 3)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x)

    np.testing.assert_allclose(hess(x).numpy(), np.diag(6.0 * np.array([1.0, 2.0, 3.0])), rtol=1e-6)


def test_batch_jacobian_in_function():
    @tf.function
    def bj(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.batch_jacobian(y, x)

    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    expected = np.stack([np.diag(2 * row) for row in x])
    np.testing.assert_allclose(bj(tf.constant(x)).numpy(), expected, rtol=1e-6)


def test_recompute_grad_of_a_variable_argument():
    x = tf.Variable(2.0)
    blk = tf.recompute_grad(lambda v: tf.sin(v) * 2.0)
    with tf.GradientTape() as t:
        r = blk(x)
    np.testing.assert_allclose(t.gradient(r, x).numpy(), 2.0 * np.cos(np.float32(2.0)), rtol=1e-6)


def test_custom_gradient_variable_argument_and_captured_variable():
    x, w = tf.Variable(2.0), tf.Variable(3.0)

    @tf.custom_gradient
    def f(a):
        def grad(dy, variables=None):
            assert [v is w for v in variables] == [True]  # x is the argument, not a captured variable
            return dy * 10.0, [dy * 100.0]
        return a * w, grad

    with tf.GradientTape() as t:
        y = f(x)
    gx, gw = t.gradient(y, [x, w])
    assert (float(gx), float(gw)) == (10.0, 100.0)
