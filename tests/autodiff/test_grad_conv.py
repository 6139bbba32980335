"""Gradients of the convolutions and poolings: TF's formulas and conventions, checked against real TF 2.21.

tests/goldens/nn_conv_grad.json (written by tools/record_tf_goldens/nn_conv_grad.py from conv_grad_cases.py)
holds TF's first- and second-order gradients for the TABLE below.  The other expected values were computed with
TensorFlow 2.21 on the same inputs.  Every op's gradient is also checked against finite differences (first and
second order, float64) by tests/autodiff/test_op_gradients.py; MaxPool3D and its gradient ops have no float64
kernels, so they are checked here in float32.
"""

import json
import pathlib

import numpy as np
import pytest

import conv_grad_cases

import tensorlet as tf
from tensorlet._src.ops import nn_pool
from tensorlet._src.ops.registry import bind

GOLDENS = json.loads((pathlib.Path(__file__).parent.parent / "goldens" / "nn_conv_grad.json").read_text())

F64, F32 = conv_grad_cases.F64, conv_grad_cases.F32
TABLE = conv_grad_cases.table(tf)


det = conv_grad_cases.det


def first_and_second(fn, shapes, dtype):
    return conv_grad_cases.first_and_second(tf, fn, shapes, dtype)


@pytest.mark.parametrize("name", list(TABLE))
def test_first_and_second_order_gradients_match_tf(name):
    fn, shapes, dtype = TABLE[name]
    rtol, atol = (1e-9, 1e-9) if dtype == F64 else (2e-5, 2e-5)
    gs, second = first_and_second(fn, shapes, dtype)
    want = GOLDENS[name]
    for i, (g, e) in enumerate(zip(gs, want["first"])):
        assert g.dtype == tf.as_dtype(dtype)
        np.testing.assert_allclose(g.numpy().reshape(-1), e, rtol=rtol, atol=atol, err_msg=f"{name}: d/dx{i}")
    if want["second"] is None:  # TF has no second derivative here (LookupError); tensorlet's is checked below
        return
    for i, (g, e) in enumerate(zip(second, want["second"])):
        np.testing.assert_allclose(g.numpy().reshape(-1), e, rtol=rtol, atol=atol, err_msg=f"{name}: d2/dx{i}")


# --- TF's conventions ------------------------------------------------------------------------

def _second(fn, x):
    """d/dx sum(d sum(3 * fn(x)) / dx): the loss is linear in fn, so only connectivity shows."""
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(fn(x) * 3.0)
        s = tf.reduce_sum(inner.gradient(loss, x))
    return outer.gradient(s, x)


def test_max_pool_second_derivative_is_zeros_not_none():
    # TF's MaxPoolGrad gradient returns zeros for orig_input/orig_output, so x stays connected
    for fn in (lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), lambda x: tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")[0]):
        g = _second(fn, det((1, 4, 4, 1)))
        assert g is not None
        np.testing.assert_array_equal(g.numpy(), np.zeros((1, 4, 4, 1)))
    g = _second(lambda x: tf.nn.max_pool3d(x, 2, 2, "VALID"), det((1, 2, 4, 4, 1), dtype=np.float32))
    np.testing.assert_array_equal(g.numpy(), np.zeros((1, 2, 4, 4, 1)))


def test_avg_pool_second_derivative_is_none():
    # AvgPoolGrad's first input is a shape: x is not connected to the gradient (TF: None)
    assert _second(lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"), det((1, 4, 4, 1))) is None
    assert _second(lambda x: tf.nn.conv2d(x, tf.ones([2, 2, 1, 1], tf.float64), 1, "SAME"), det((1, 3, 3, 1))) is None


TIES = np.array([[1, 3, 3, 0], [3, 2, 1, 5], [0, 0, 4, 4], [4, 1, 4, 2]], np.float32).reshape(1, 4, 4, 1)
UP = np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1)


def _attrs(k, s, padding, nd=2):
    return dict(ksize=(1,) + (k,) * nd + (1,), strides=(1,) + (s,) * nd + (1,), padding=padding)


def test_max_pool_grad_ties_go_to_the_first_maximum():
    x = tf.constant(TIES)
    y = tf.nn.max_pool2d(x, 3, 1, "SAME")
    g = bind(nn_pool.MAX_POOL_GRAD, x, y, tf.constant(UP), **_attrs(3, 1, "SAME"), explicit_paddings=(),
             data_format="NHWC")
    np.testing.assert_array_equal(g.numpy().ravel(), [0, 8, 0, 0, 0, 0, 0, 45, 0, 0, 61, 0, 22, 0, 0, 0])


def test_max_pool3d_grad_gives_every_value_within_1e_5_of_the_max():
    # TF's CPU MaxPool3DGrad selects |x - orig_output| < 1e-5: ties all receive the gradient
    x = tf.constant(TIES.reshape(1, 1, 4, 4, 1))
    y = tf.nn.max_pool3d(x, [1, 3, 3], 1, "SAME")
    g = bind(nn_pool.MAX_POOL3D_GRAD, x, y, tf.constant(UP.reshape(1, 1, 4, 4, 1)), ksize=(1, 1, 3, 3, 1),
             strides=(1,) * 5, padding="SAME", data_format="NDHWC")
    np.testing.assert_array_equal(g.numpy().ravel(), [0, 8, 2, 0, 8, 0, 0, 45, 0, 0, 61, 31, 46, 0, 55, 0])
    for vals, want in [([1.0, 1.0 + 5e-6, 1.0 - 5e-6, 1.0 + 2e-5], [0, 0, 0, 1]),
                       ([1.0, 1.0 + 5e-6, 1.0 - 5e-6, 0.5], [1, 1, 0, 0])]:
        x = tf.constant(np.array(vals, np.float32).reshape(1, 1, 2, 2, 1))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool3d(x, [1, 2, 2], [1, 2, 2], "VALID")
        np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), want)
    # orig_output is taken as given (not recomputed), and NaN never matches
    x = tf.constant(np.array([1.0, 1.0, 1.0, 0.5], np.float32).reshape(1, 1, 2, 2, 1))
    a = dict(ksize=(1, 1, 2, 2, 1), strides=(1, 1, 2, 2, 1), padding="VALID", data_format="NDHWC")
    g = bind(nn_pool.MAX_POOL3D_GRAD, x, tf.fill([1, 1, 1, 1, 1], 0.5), tf.ones([1, 1, 1, 1, 1]), **a)
    np.testing.assert_array_equal(g.numpy().ravel(), [0, 0, 0, 1])
    x = tf.constant(np.array([np.nan, 1, 1, 0], np.float32).reshape(1, 1, 2, 2, 1))
    g = bind(nn_pool.MAX_POOL3D_GRAD, x, tf.nn.max_pool3d(x, [1, 2, 2], [1, 2, 2], "VALID"), tf.ones([1, 1, 1, 1, 1]),
             **a)
    np.testing.assert_array_equal(g.numpy().ravel(), [0, 1, 1, 0])


@pytest.mark.parametrize("nd", [2, 3])
def test_max_pool_grad_grad_takes_the_first_element_equal_to_orig_output(nd):
    shape = (1, 4, 4, 1) if nd == 2 else (1, 1, 4, 4, 1)
    op = nn_pool.MAX_POOL_GRAD_GRAD if nd == 2 else nn_pool.MAX_POOL3D_GRAD_GRAD
    fmt = dict(data_format="NHWC", explicit_paddings=()) if nd == 2 else dict(data_format="NDHWC")
    full = (lambda v: (1,) + tuple(v) + (1,)) if nd == 2 else (lambda v: (1, 1) + tuple(v) + (1,))
    x, g = tf.constant(TIES.reshape(shape)), tf.constant(UP.reshape(shape))
    pool = (lambda v, k, s, p: tf.nn.max_pool2d(v, k, s, p)) if nd == 2 else \
        (lambda v, k, s, p: tf.nn.max_pool3d(v, [1, k, k], [1, s, s], p))
    cases = [(2, 2, "VALID", None, [2, 8, 13, 11]),
             (3, 1, "SAME", None, [2, 2, 8, 8, 2, 11, 8, 8, 13, 11, 8, 8, 13, 11, 11, 11]),
             (2, 2, "VALID", [9.0, 3.0, 0.0, 4.0], [0, 3, 9, 11])]  # an orig_output value no input has -> 0
    for k, s, p, y, want in cases:
        y = pool(x, k, s, p) if y is None else tf.constant(np.array(y, np.float32).reshape(pool(x, k, s, p).shape))
        out = bind(op, x, y, g, ksize=full((k, k)), strides=full((s, s)), padding=p, **fmt)
        np.testing.assert_array_equal(out.numpy().ravel(), want)


def test_max_pool_with_argmax_gradient_scatters_to_the_argmax():
    x = tf.constant(TIES)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out, _ = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")
    want = [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0]
    np.testing.assert_array_equal(tape.gradient(out, x).numpy().ravel(), want)
    x2 = tf.concat([x, x * 2], 0)
    for batch in (False, True):
        with tf.GradientTape() as tape:
            tape.watch(x2)
            out, _ = tf.nn.max_pool_with_argmax(x2, 3, 1, "SAME", include_batch_in_index=batch)
        want = [0, 3, 0, 0, 0, 0, 0, 6, 0, 0, 5, 0, 2, 0, 0, 0]
        np.testing.assert_array_equal(tape.gradient(out, x2).numpy().ravel(), want * 2)


def test_max_pool_with_argmax_second_order_matches_max_pool():
    # TF registers no gradient for MaxPoolGradWithArgmax (LookupError); tensorlet's equals max_pool2d's
    def run(fn):
        gs, second = first_and_second(fn, [(2, 5, 5, 3)], F64)
        return gs[0].numpy(), second[0].numpy()

    a = run(lambda x: tf.nn.max_pool_with_argmax(x, 3, 2, "SAME", include_batch_in_index=True)[0])
    b = run(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
    np.testing.assert_allclose(a[0], b[0], rtol=1e-12)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-12)
    assert np.abs(a[1]).sum() > 0


# --- float32-only ops against finite differences ------------------------------------------------

def _spread(shape, seed):
    """Distinct float32 values at least 0.05 apart: no ties, and finite differences of 1e-2 cross no kink."""
    rng = np.random.default_rng(seed)
    return (rng.permutation(int(np.prod(shape))) * 0.05 - 1.0).reshape(shape).astype(np.float32)


@pytest.mark.parametrize("fmt, k, s, p", [("NDHWC", [2, 3, 2], [1, 2, 2], "SAME"), ("NCDHW", 2, 1, "VALID")])
def test_max_pool3d_gradient_vs_finite_differences(fmt, k, s, p):
    x0 = _spread((2, 3, 4, 5, 2) if fmt == "NDHWC" else (1, 2, 3, 4, 5), 1)
    y0 = tf.nn.max_pool3d(x0, k, s, p, fmt)
    u = det(y0.shape, k=0.7, dtype=np.float32)

    def loss(v):
        return float(np.sum(tf.nn.max_pool3d(tf.constant(v), k, s, p, fmt).numpy().astype(np.float64) * u))

    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool3d(x, k, s, p, fmt)
    got = tape.gradient(y, x, output_gradients=tf.constant(u)).numpy()
    num = np.zeros(x0.size)
    for i in range(x0.size):
        xp, xm = x0.copy().reshape(-1), x0.copy().reshape(-1)
        xp[i] += 1e-2
        xm[i] -= 1e-2
        num[i] = (loss(xp.reshape(x0.shape)) - loss(xm.reshape(x0.shape))) / 2e-2
    np.testing.assert_allclose(got.reshape(-1), num, rtol=1e-4, atol=1e-4)


def test_max_pool3d_grad_and_grad_grad_are_adjoint():
    # without ties, MaxPool3DGradGrad (the gradient of MaxPool3DGrad wrt grad) is its transpose
    x = tf.constant(_spread((2, 3, 4, 5, 2), 2))
    a = dict(ksize=(1, 2, 2, 3, 1), strides=(1, 1, 2, 2, 1), padding="SAME", data_format="NDHWC")
    y = tf.nn.max_pool3d(x, [2, 2, 3], [1, 2, 2], "SAME")
    g1 = tf.constant(det(y.shape, dtype=np.float32))
    g2 = tf.constant(det(x.shape, k=0.4, dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(g1)
        dx = bind(nn_pool.MAX_POOL3D_GRAD, x, y, g1, **a)
    lhs = np.sum(dx.numpy().astype(np.float64) * g2.numpy())
    gg = bind(nn_pool.MAX_POOL3D_GRAD_GRAD, x, y, g2, **a)
    np.testing.assert_allclose(np.sum(g1.numpy().astype(np.float64) * gg.numpy()), lhs, rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(dx, g1, output_gradients=g2).numpy(), gg.numpy())


# --- the MNIST seed model's gradient path -------------------------------------------------------

def _mnist_batch(n=32):
    path = pathlib.Path(tf.__file__).parent / "_src" / "data" / "mnist_5k.npz"
    with np.load(path, allow_pickle=False) as f:
        return f["x"][:n].reshape(n, 28, 28, 1) / 255.0, f["y"][:n].astype(np.int32)


def _mnist_params(dtype):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((3, 3, 1, 16)) * 0.3).astype(dtype), np.zeros(16, dtype),
            (rng.standard_normal((3, 3, 16, 16)) * 0.1).astype(dtype), np.full(16, 0.01, dtype),
            (rng.standard_normal((16, 10)) * 0.3).astype(dtype), np.zeros(10, dtype)]


def mnist_loss(params, images, labels):
    """Conv2D 16 3x3 relu, Conv2D 16 3x3 relu, global average pooling (reduce_mean), Dense; mean cross-entropy."""
    w1, b1, w2, b2, w3, b3 = params
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, w1, 1, "VALID"), b1))
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, 1, "VALID"), b2))
    logits = tf.matmul(tf.reduce_mean(h, axis=[1, 2]), w3) + b3
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


def test_mnist_model_filter_gradients_match_finite_differences():
    images, labels = _mnist_batch()
    x, y = tf.constant(images), tf.constant(labels)
    params = _mnist_params(np.float64)
    ts = [tf.Variable(p) for p in params]
    with tf.GradientTape() as tape:
        loss = mnist_loss(ts, x, y)
    grads = tape.gradient(loss, ts)
    assert all(g is not None and g.shape == p.shape for g, p in zip(grads, params))
    rng = np.random.default_rng(3)
    for which in (0, 2):  # a few entries of each filter
        for _ in range(3):
            idx = tuple(int(rng.integers(n)) for n in params[which].shape)
            vals = []
            for sign in (1, -1):
                p = [a.copy() for a in params]
                p[which][idx] += sign * 1e-6
                vals.append(float(mnist_loss([tf.constant(a) for a in p], x, y)))
            num = (vals[0] - vals[1]) / 2e-6
            np.testing.assert_allclose(grads[which].numpy()[idx], num, rtol=1e-5, atol=1e-9,
                                       err_msg=f"filter {which} entry {idx}")


def test_conv_gradients_the_tape_does_not_want_are_not_computed(monkeypatch):
    # TF's skip_input_indices: a model's input image (not watched) gets no input backprop, a constant filter no
    # filter backprop; the gradients that are wanted are unchanged
    from tensorlet._src.ops import nn_conv

    ran = []
    bind = nn_conv.bind
    monkeypatch.setattr(nn_conv, "bind", lambda op, *a, **k: (ran.append(op.name), bind(op, *a, **k))[1])
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(2, 7, 7, 3)).astype(np.float32))
    w = tf.Variable(rng.normal(size=(3, 3, 3, 4)).astype(np.float32))

    def loss():
        return tf.reduce_sum(tf.nn.conv2d(x, w, 1, "VALID") ** 2)

    with tf.GradientTape() as tape:
        y = loss()
    ran.clear()
    gw = tape.gradient(y, w)
    assert ran == ["Conv2DBackpropFilter"]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loss()
    ran.clear()
    gx, gw_both = tape.gradient(y, [x, w])
    assert sorted(ran) == ["Conv2DBackpropFilter", "Conv2DBackpropInput"]
    np.testing.assert_array_equal(gw.numpy(), gw_both.numpy())
    with tf.GradientTape() as tape:  # a frozen filter: only the input backprop
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.conv2d(x, tf.constant(w.numpy()), 1, "VALID") ** 2)
    ran.clear()
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), gx.numpy())
    assert ran == ["Conv2DBackpropInput"]
