"""GradientTape semantics (TF 2.x), custom gradients, higher order, jacobians, forward mode, seed 000's examples."""

import gc

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.ops.registry import Op, bind


def grad_fn(f):
    """Seed 000's tfe.gradients_function, written with a tape."""
    def g(*args):
        xs = [tf.convert_to_tensor(a) for a in args]
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return tape.gradient(y, xs)
    return g


def test_watch_and_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert g.gradient(y, x).numpy() == 6.0


def test_trainable_variables_watched_automatically():
    w = tf.Variable([[1.0]])
    with tf.GradientTape() as tape:
        loss = w * w
    assert tape.gradient(loss, w).numpy().tolist() == [[2.0]]  # seed 000: [[2.]]
    frozen = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as tape:
        y = frozen * 2.0
    assert tape.gradient(y, frozen) is None
    assert tape.watched_variables() == ()


def test_watch_accessed_variables_false():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy() == 2.0 and gb is None
    assert tape.watched_variables() == (a,)


def test_non_persistent_tape_used_twice_raises():
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"):
        g.gradient(y, x)


def test_persistent_tape():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    assert g.gradient(z, x).numpy() == 32.0 and g.gradient(y, x).numpy() == 4.0


def test_unconnected_and_integer_sources():
    x, u = tf.constant(1.0), tf.constant(5.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, u])
        y = x * 2.0
    assert g.gradient(y, u) is None
    assert g.gradient(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy() == 0.0
    i = tf.constant(3)
    with tf.GradientTape() as g2:
        g2.watch(i)
        j = i * i
    assert g2.gradient(j, i) is None


def test_multiple_targets_are_summed_and_nested_sources():
    x = tf.constant(1.0)
    w = tf.Variable(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y1, y2 = x * w, x * x
    grads = g.gradient([y1, y2], {"x": x, "w": [w]})
    assert grads["x"].numpy() == 5.0 and grads["w"][0].numpy() == 1.0


def test_output_gradients():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert g.gradient(y, x, output_gradients=tf.constant([10.0, 1.0])).numpy().tolist() == [20.0, 4.0]


def test_stop_recording_and_reset():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        with g.stop_recording():
            y = x * x
        z = x * 3.0
    assert g.gradient(y, x) is None and g.gradient(z, x).numpy() == 3.0
    with tf.GradientTape() as g2:
        g2.watch(x)
        a = x * x
        g2.reset()
        g2.watch(x)
        b = x * 5.0
        total = a + b
    assert g2.gradient(total, x).numpy() == 5.0  # what was recorded before reset() is forgotten


def test_higher_order_seed_000():
    square = lambda x: tf.multiply(x, x)  # noqa: E731
    grad = grad_fn(square)
    assert square(3.0).numpy() == 9.0 and grad(3.0)[0].numpy() == 6.0
    gradgrad = grad_fn(lambda x: grad(x)[0])
    assert gradgrad(3.0)[0].numpy() == 2.0
    gradgradgrad = grad_fn(lambda x: gradgrad(x)[0])
    assert gradgradgrad(3.0) == [None]


def test_flow_control_seed_000():
    def f(x):
        return x if x > 0.0 else -x
    grad = grad_fn(f)
    assert grad(3.0)[0].numpy() == 1.0 and grad(-3.0)[0].numpy() == -1.0


def test_custom_gradient_log1pexp_seed_000():
    def naive(x):
        return tf.math.log(1 + tf.exp(x))
    g = grad_fn(naive)
    assert g(0.0)[0].numpy() == 0.5 and np.isnan(g(100.0)[0].numpy())

    @tf.custom_gradient
    def stable(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    g = grad_fn(stable)
    assert g(0.0)[0].numpy() == 0.5 and g(100.0)[0].numpy() == 1.0


def test_custom_gradient_clip_by_norm_seed_000():
    @tf.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = tf.identity(x)

        def grad_fn_(dresult):
            return [tf.clip_by_norm(dresult, norm), None]
        return y, grad_fn_

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = clip_gradient_by_norm(x, 1.0) * 10.0
    np.testing.assert_allclose(g.gradient(y, x).numpy(), [np.sqrt(0.5), np.sqrt(0.5)], rtol=1e-6)


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        y = x * v

        def grad(dy, variables=None):
            return dy * 100.0, [dy * 7.0 for _ in variables]
        return y, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        out = f(x)
    gx, gv = g.gradient(out, [x, v])
    assert gx.numpy() == 100.0 and gv.numpy() == 7.0

    @tf.custom_gradient
    def bad(x):
        return x * v, lambda dy: dy
    with tf.GradientTape() as g:
        with pytest.raises(TypeError, match="variables"):
            bad(tf.constant(1.0))


def test_line_search_step_seed_000():
    def line_search_step(fn, init_x, rate=1.0):
        with tf.GradientTape() as tape:
            tape.watch(init_x)
            value = fn(init_x)
        grad = tape.gradient(value, init_x)
        grad_norm = tf.reduce_sum(grad * grad)
        init_value = value
        while value > init_value - rate * grad_norm:
            x = init_x - rate * grad
            value = fn(x)
            rate /= 2.0
        return x, value

    x, value = line_search_step(lambda t: tf.reduce_sum(t * t), tf.constant([1.0, 2.0]))
    assert x.numpy().tolist() == [0.0, 0.0] and value.numpy() == 0.0


def test_lookup_error_for_op_without_gradient():
    op = Op("TestOnlyNoGrad", lambda xp, x: x * 2)  # not registered: a test-local op
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = bind(op, x)
    with pytest.raises(LookupError, match="gradient registry has no entry for: TestOnlyNoGrad"):
        g.gradient(y, x)


def test_jacobian_and_batch_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    np.testing.assert_allclose(g.jacobian(y, x).numpy(), np.diag([2.0, 4.0, 6.0]))
    w = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    xb = tf.constant(np.ones((4, 2), np.float32))
    with tf.GradientTape() as g:
        g.watch(xb)
        yb = tf.matmul(xb, w)
    bj = g.batch_jacobian(yb, xb)
    assert bj.shape == (4, 3, 2)
    np.testing.assert_allclose(bj.numpy(), np.broadcast_to(w.numpy().T, (4, 3, 2)))


def test_forward_accumulator():
    x = tf.constant([1.0, 2.0])
    v = tf.constant([1.0, 0.5])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = x * x * 3.0
    np.testing.assert_allclose(acc.jvp(y).numpy(), 6.0 * x.numpy() * v.numpy())
    assert acc.jvp(tf.constant(1.0)) is None


def test_recompute_grad():
    f = tf.recompute_grad(lambda x: x * x * x)
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    assert y.numpy() == 8.0 and g.gradient(y, x).numpy() == 12.0


def test_no_recording_without_tape_and_no_growth():
    w = tf.Variable(np.ones((2, 2), np.float32))
    for _ in range(200):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
        tape.gradient(loss, w)
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(2000):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
        tape.gradient(loss, w)
    gc.collect()
    assert len(gc.get_objects()) - before < 200  # tapes release their records
