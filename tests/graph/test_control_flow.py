"""Control flow (cond/case/switch_case/while_loop/TensorArray/map_fn/scan/fold/py_function) eagerly and traced,
values against NumPy and gradients against eager tapes."""

import numpy as np
import pytest

import tensorlet as tf


def both(fn):
    """The function eagerly and as tf.function, each called twice (NumPy executor, then XLA when lowerable)."""
    return [fn, tf.function(fn), tf.function(fn, jit_compile=True)]


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_cond_values_and_structures(mode):
    def f(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: (x * 2, {"n": x + 1}), lambda: (x - 1, {"n": x * 0}))

    g = both(f)[mode]
    for _ in range(2):
        a, d = g(tf.constant([1.0, 2.0]))
        np.testing.assert_allclose(a.numpy(), [2.0, 4.0])
        np.testing.assert_allclose(d["n"].numpy(), [2.0, 3.0])
        a, d = g(tf.constant([-1.0, -2.0]))
        np.testing.assert_allclose(a.numpy(), [-2.0, -3.0])


def test_cond_branch_mismatch_errors():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: (x, x))

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        f(tf.constant(1.0))

    @tf.function
    def g(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.int32))

    with pytest.raises(TypeError, match="int32"):
        g(tf.constant(1.0))


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_case_and_switch_case(mode):
    def f(i, x):
        a = tf.switch_case(i, [lambda: x * 10, lambda: x * 20, lambda: x * 30])
        b = tf.case([(x > 5, lambda: tf.constant(1)), (x > 2, lambda: tf.constant(2))], default=lambda: tf.constant(3))
        return a, b

    g = both(f)[mode]
    for i, x, ea, eb in [(0, 1.0, 10.0, 3), (2, 3.0, 90.0, 2), (7, 6.0, 180.0, 1)]:
        a, b = g(tf.constant(i), tf.constant(x))
        assert float(a) == ea and int(b) == eb


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_while_loop_values(mode):
    def f(n):
        i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a + tf.cast(i, tf.float32)),
                               [tf.constant(0), tf.constant(0.0)])
        capped = tf.while_loop(lambda k: k < 1000, lambda k: k + 1, tf.constant(0), maximum_iterations=7)
        return i, acc, capped

    g = both(f)[mode]
    for _ in range(2):
        i, acc, capped = g(tf.constant(5))
        assert int(i) == 5 and float(acc) == 10.0 and int(capped) == 7


def test_while_loop_shape_invariants():
    @tf.function
    def grow(n):
        return tf.while_loop(lambda x: tf.shape(x)[0] < n, lambda x: tf.concat([x, x], 0), [tf.ones([1])],
                             shape_invariants=[tf.TensorShape([None])])

    (out,) = grow(tf.constant(5))
    assert out.shape == (8,)

    @tf.function
    def bad(n):
        return tf.while_loop(lambda x: tf.shape(x)[0] < n, lambda x: tf.concat([x, x], 0), [tf.ones([1])])

    with pytest.raises(ValueError, match="shape_invariants"):
        bad(tf.constant(5))


def test_while_loop_assigns_variables():
    v = tf.Variable(0.0)

    @tf.function
    def f(n):
        def body(i):
            v.assign_add(2.0)
            return (i + 1,)

        tf.while_loop(lambda i: i < n, body, [0])
        return v.read_value()

    assert float(f(tf.constant(3))) == 6.0
    assert float(f(tf.constant(2))) == 10.0
    assert float(v.numpy()) == 10.0


def _grad_case(x_value, fn):
    x = tf.constant(x_value)
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x)
    return t.gradient(y, x).numpy()


@pytest.mark.parametrize("jit", [None, True])
def test_gradients_of_traced_cond_and_while_match_eager(jit):
    w = tf.Variable(1.5)

    def fn(x):
        y = tf.cond(x > 0, lambda: x * w, lambda: -x * x)
        _, z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * x + w), [0, y], maximum_iterations=10)
        return z

    @tf.function(jit_compile=jit)
    def traced(x):
        with tf.GradientTape() as t:
            t.watch(x)
            z = fn(x)
        return t.gradient(z, [x, w])

    for xv in (0.7, -0.4):
        x = tf.constant(xv)
        with tf.GradientTape() as t:
            t.watch(x)
            z = fn(x)
        ex, ew = t.gradient(z, [x, w])
        for _ in range(2):
            gx, gw = traced(x)
            np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-5)
            np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-5)


def test_gradient_of_while_without_bound_runs_on_numpy_executor():
    @tf.function
    def f(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
        return t.gradient(y, x)

    for _ in range(3):
        assert float(f(tf.constant(2.0), tf.constant(4))) == pytest.approx(4 * 2.0 ** 3)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_tensor_array(mode):
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
        for i in range(3):
            ta = ta.write(i, x * float(i))
        return ta.stack(), ta.read(1)

    g = both(f)[mode]
    s, r = g(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(s.numpy(), [[0, 0], [1, 2], [2, 4]])
    np.testing.assert_allclose(r.numpy(), [1.0, 2.0])


def test_tensor_array_in_while_loop():
    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.int32, size=5, element_shape=[])
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), [0, ta])
        return ta.stack()

    np.testing.assert_array_equal(squares(tf.constant(5)).numpy(), [0, 1, 4, 9, 16])


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_map_fn_scan_fold(mode):
    def f(x):
        return (tf.map_fn(lambda v: v * v, x), tf.scan(lambda a, v: a + v, x), tf.scan(lambda a, v: a * v, x, 1.0),
                tf.foldl(lambda a, v: a - v, x), tf.foldr(lambda a, v: a - v, x), tf.vectorized_map(tf.sin, x),
                tf.scan(lambda a, v: a + v, x, reverse=True))

    g = both(f)[mode]
    xv = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    m, s, p, fl, fr, vm, sr = g(tf.constant(xv))
    np.testing.assert_allclose(m.numpy(), xv ** 2)
    np.testing.assert_allclose(s.numpy(), np.cumsum(xv))
    np.testing.assert_allclose(p.numpy(), np.cumprod(xv))
    assert float(fl) == 1 - 2 - 3 - 4 and float(fr) == 4 - 3 - 2 - 1
    np.testing.assert_allclose(vm.numpy(), np.sin(xv), rtol=1e-6)
    np.testing.assert_allclose(sr.numpy(), np.cumsum(xv[::-1])[::-1])


def test_map_fn_gradient_traced_equals_eager():
    def loss(x):
        return tf.reduce_sum(tf.map_fn(lambda v: tf.sin(v) * v, x))

    xv = np.array([0.3, -1.2, 2.0], np.float32)
    expected = np.sin(xv) + xv * np.cos(xv)
    np.testing.assert_allclose(_grad_case(xv, loss), expected, rtol=1e-5)

    @tf.function
    def traced(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = loss(x)
        return t.gradient(y, x)

    for _ in range(2):
        np.testing.assert_allclose(traced(tf.constant(xv)).numpy(), expected, rtol=1e-5)


def test_py_function_and_numpy_function():
    @tf.function
    def f(x):
        a = tf.py_function(lambda t: t * t, [x], tf.float32)
        b = tf.numpy_function(lambda arr: (arr + 1).astype(np.float32), [x], tf.float32)
        return a, b

    for _ in range(3):
        a, b = f(tf.constant([1.0, 3.0]))
        np.testing.assert_allclose(a.numpy(), [1.0, 9.0])
        np.testing.assert_allclose(b.numpy(), [2.0, 4.0])
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)[0]
    assert float(t.gradient(y, x)) == pytest.approx(6.0)
