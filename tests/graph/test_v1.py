"""TF1 graph mode: Graph/as_default, placeholder, Session.run, variables and initializers, tf.gradients."""

import numpy as np
import pytest

import tensorlet as tf

v1 = tf.compat.v1


def test_session_runs_placeholder_graph():
    with tf.Graph().as_default():
        with v1.Session() as sess:
            x = v1.placeholder(dtype=tf.float32)
            y = tf.matmul(x, x)
            np.testing.assert_allclose(sess.run(y, feed_dict={x: [[2.0]]}), [[4.0]])
            assert not tf.executing_eagerly()
    assert tf.executing_eagerly()


def test_nested_fetches_variables_and_initializer():
    with tf.Graph().as_default():
        w = tf.Variable(3.0)
        step = w.assign_add(1.0)
        loss = w * w
        (g,) = v1.gradients(loss, [w])
        init = v1.global_variables_initializer()
        with v1.Session() as sess:
            sess.run(init)
            out = sess.run({"loss": loss, "pair": (g, w)})
            assert float(out["loss"]) == 9.0 and float(out["pair"][0]) == 6.0
            assert float(sess.run(step)) == 4.0
            assert float(sess.run(w)) == 4.0
            sess.run(init)  # re-initializing resets the value
            assert float(sess.run(w)) == 3.0


def test_missing_feed_and_bad_shape_errors():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, shape=[None, 2], name="x")
        y = x * 2
        with v1.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'x'"):
                sess.run(y)
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                sess.run(y, feed_dict={x: np.ones([2, 3])})
            np.testing.assert_allclose(sess.run(y, feed_dict={x: np.ones([1, 2])}), [[2.0, 2.0]])


def test_gradients_through_graph_match_numpy():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, shape=[3])
        w = tf.Variable([1.0, 2.0, 3.0])
        y = tf.reduce_sum(tf.sin(x * w))
        gx, gw = v1.gradients(y, [x, w])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            xv = np.array([0.1, 0.2, 0.3], np.float32)
            a, b = sess.run([gx, gw], feed_dict={x: xv})
    wv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a, wv * np.cos(xv * wv), rtol=1e-6)
    np.testing.assert_allclose(b, xv * np.cos(xv * wv), rtol=1e-6)


def test_gradients_inside_tf_function_and_error_eagerly():
    @tf.function
    def f(x):
        return tf.gradients(x * x * x, x)[0]

    assert float(f(tf.constant(2.0))) == pytest.approx(12.0)
    with pytest.raises(RuntimeError, match="GradientTape"):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))


def test_disable_eager_execution_default_graph():
    v1.disable_eager_execution()
    try:
        a = tf.constant(2.0)
        b = a * 3
        assert str(b).startswith('Tensor("')
        with v1.Session() as sess:
            assert float(sess.run(b)) == 6.0
    finally:
        v1.enable_eager_execution()
    assert float(tf.constant(1.0) + 1) == 2.0


def test_py_function_in_session(capsys):
    def my_py_func(x):
        x = tf.matmul(x, x)
        print(x)  # eager inside the graph
        return x

    with tf.Graph().as_default():
        with v1.Session() as sess:
            x = v1.placeholder(dtype=tf.float32)
            pf = tf.py_function(my_py_func, [x], tf.float32)
            np.testing.assert_allclose(sess.run(pf, feed_dict={x: [[2.0]]}), [[4.0]])
    assert "tf.Tensor([[4.]], shape=(1, 1), dtype=float32)" in capsys.readouterr().out


def test_variable_scope_and_get_variable_reuse():
    with tf.Graph().as_default():
        with v1.variable_scope("layer"):
            w = v1.get_variable("w", shape=[3, 4])
        with v1.variable_scope("layer", reuse=True):
            w2 = v1.get_variable("w")
        assert w2 is w and w.name == "layer/w:0" and w.shape == (3, 4)
        with pytest.raises(ValueError, match="already exists"):
            with v1.variable_scope("layer"):
                v1.get_variable("w", shape=[3, 4])
        with v1.variable_scope("other", reuse=v1.AUTO_REUSE):
            a = v1.get_variable("b", shape=[2], initializer=tf.zeros_initializer()) \
                if hasattr(tf, "zeros_initializer") else v1.get_variable("b", shape=[2], dtype=tf.int32)
            assert v1.get_variable("b") is a
        limit = np.sqrt(6.0 / 7)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            wv = sess.run(w)
        assert wv.shape == (3, 4) and np.all(np.abs(wv) <= limit)


def test_control_dependencies_run_first():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        inc = v.assign_add(1.0)
        with tf.control_dependencies([inc]):
            y = tf.identity(tf.constant(5.0)) * 1.0
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert float(sess.run(y)) == 5.0
            assert float(sess.run(v)) == 2.0  # running y ran the assignment first
    with tf.control_dependencies([tf.constant(1)]):  # eagerly: accepted, ops run in order anyway
        assert float(tf.constant(2.0) + 1) == 3.0
