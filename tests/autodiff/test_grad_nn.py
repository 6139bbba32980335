"""Gradients of tf.nn activations, losses and normalization: TF's conventions, checked against real TF 2.21.

The expected values below were computed with TensorFlow 2.21 on the same inputs.  Every op's gradient is also
checked against finite differences (first and second order, float64) by tests/autodiff/test_op_gradients.py;
FusedBatchNormV3 and LRN have no float64 kernel, so their gradient composites are checked here directly.
"""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.ops import nn_norm


def det(shape, k=1.3, s=2.0, dtype=np.float32):
    """Deterministic test values (the same expression produced TF's reference values)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + 0.4) * s).reshape(shape).astype(dtype)


def grads(f, *xs, up=None):
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return tape.gradient(y, ts, output_gradients=up)


def second(f, xs, v):
    """d/dx <d f/dx[0], v> by nested tapes, for each x in xs."""
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as outer:
        outer.watch(ts)
        with tf.GradientTape() as inner:
            inner.watch(ts)
            y = f(*ts)
        g = inner.gradient(y, ts[0])
        s = tf.reduce_sum(g * tf.constant(v, g.dtype))
    return outer.gradient(s, ts)


def numeric(f, x, eps=1e-6):
    """Central differences of the scalar function ``f`` at ``x`` (float64)."""
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        out[i] = (f(xp) - f(xm)) / (2 * eps)
    return out


def close(got, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), expected, rtol=rtol, atol=atol)


# --- activations ---------------------------------------------------------------------------

KINKS = np.array([-1.0, 0.0, 1.0, 6.0, 7.0], np.float32)
_SCALE = 1.0507009873554805


@pytest.mark.parametrize("fn, expected", [
    (tf.nn.relu, [0, 0, 1, 1, 1]),  # 0 at x == 0
    (tf.nn.relu6, [0, 0, 1, 0, 0]),  # 1 on (0, 6) only
    (tf.nn.leaky_relu, [0.2, 0.2, 1, 1, 1]),  # alpha at x == 0
    (lambda x: tf.nn.leaky_relu(x, alpha=2.0), [2, 2, 1, 1, 1]),
    (tf.nn.elu, [np.exp(-1.0), 1, 1, 1, 1]),  # 1 at x == 0
    (tf.nn.selu, [0.64676857, _SCALE, _SCALE, _SCALE, _SCALE]),
    (tf.nn.softsign, [0.25, 1, 0.25, 1 / 49, 1 / 64]),
], ids=["relu", "relu6", "leaky_relu", "leaky_relu_alpha2", "elu", "selu", "softsign"])
def test_activation_gradients_at_kinks_follow_tf(fn, expected):
    close(grads(fn, KINKS)[0], expected, rtol=1e-6)


@pytest.mark.parametrize("fn", [tf.nn.relu, tf.nn.relu6, tf.nn.leaky_relu, tf.nn.elu, tf.nn.selu])
def test_nan_upstream_gradient_propagates(fn):
    # TF's gradient kernels multiply by the mask, so a NaN upstream stays NaN where the unit is inactive
    up = tf.constant([np.nan, np.nan, 1.0, np.nan, np.nan])
    g = grads(fn, KINKS, up=up)[0].numpy()
    assert np.isnan(g[[0, 1, 3, 4]]).all() and g[2] != 0


def test_softplus_gradient_saturates():
    g = grads(tf.nn.softplus, np.array([-100, -20, 0, 20, 100], np.float32))[0]
    close(g, [0.0, 2.0611537e-09, 0.5, 1.0, 1.0], rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("fn, expected", [
    (tf.nn.relu, [0, 0, 0]),
    (tf.nn.relu6, [0, 0, 0]),
    (tf.nn.leaky_relu, [0, 0, 0]),
    (tf.nn.elu, [0, 0.60653067, 0]),
    (tf.nn.selu, [0, 1.0663412, 0]),
    (tf.nn.softplus, [0.23500371, 0.23500371, 0.25]),
], ids=["relu", "relu6", "leaky_relu", "elu", "selu", "softplus"])
def test_second_derivatives_match_tf(fn, expected):
    g2 = second(fn, [np.array([0.5, -0.5, 0.0], np.float32)], np.ones(3))[0]
    assert g2 is not None  # zeros, not None, as in TF
    close(g2, expected, rtol=1e-6)


def test_softsign_second_derivative():
    # TF registers no gradient for SoftsignGrad (LookupError); tensorlet gives -2 sign(x) / (1 + |x|)^3
    x = np.array([0.5, -0.5, 0.0, 3.0])
    close(second(tf.nn.softsign, [x], np.ones(4))[0], -2 * np.sign(x) / (1 + np.abs(x)) ** 3, rtol=1e-12)


@pytest.mark.parametrize("dtype, expected", [
    ("float16", [[0, 1, 1], [0.3681640625, 1, 1], [0.6474609375, 1.05078125, 1.05078125],
                 [0.268798828125, 0.62255859375, 0.880859375], [0.25, 0.4443359375, 0.111083984375],
                 [0.199951171875, 1, 1], [0, 1, 1]]),
    ("bfloat16", [[0, 1, 1], [0.3671875, 1, 1], [0.6484375, 1.046875, 1.046875], [0.26953125, 0.62109375, 0.87890625],
                  [0.25, 0.4453125, 0.111328125], [0.2001953125, 1, 1], [0, 1, 1]]),
])
def test_half_precision_gradients(dtype, expected):
    fns = [tf.nn.relu, tf.nn.elu, tf.nn.selu, tf.nn.softplus, tf.nn.softsign, tf.nn.leaky_relu, tf.nn.relu6]
    x = tf.constant([-1.0, 0.5, 2.0], dtype)
    for fn, e in zip(fns, expected):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        g = tape.gradient(y, x)
        assert g.dtype == x.dtype
        close(g, e, rtol=1e-2 if dtype == "bfloat16" else 2e-3)


def test_integer_relu_has_no_gradient():
    x = tf.constant([1, -1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(x)
    assert tape.gradient(y, x) is None


def test_softmax_gradients_match_tf():
    x = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], np.float32)
    w = tf.constant([[0.3, -1.0, 2.0], [1.0, 0.5, -0.5]])
    close(grads(lambda v: tf.reduce_sum(tf.nn.softmax(v) * w), x)[0],
          np.reshape([0.1338037, -0.4533751, 0.3195715, 0.0244814, 0.0432409, -0.0677223], (2, 3)))
    close(grads(lambda v: tf.reduce_sum(tf.nn.log_softmax(v) * w), x)[0],
          np.reshape([-0.000591, -1.8170912, 1.8176823, 0.9828522, 0.4533874, -1.4362395], (2, 3)), atol=1e-6)
    close(grads(lambda v: tf.reduce_sum(tf.nn.softmax(v, axis=0) * w), x)[0],
          np.reshape([-0.0734955, -0.1574904, 0.1752593, 0.0734955, 0.1574904, -0.1752593], (2, 3)))
    g = grads(tf.nn.softmax, np.zeros((2, 0), np.float32))[0]
    assert g.shape == (2, 0)


# --- losses ----------------------------------------------------------------------------------

LABELS = np.array([[0.2, 0.8], [1.0, 0.0]], np.float32)
LOGITS = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)


def test_softmax_cross_entropy_gradients_match_tf():
    g_labels, g_logits = grads(tf.nn.softmax_cross_entropy_with_logits, LABELS, LOGITS)
    close(g_labels, [[1.3132616, 0.31326166], [0.01814996, 4.01815]])
    close(g_logits, [[0.06894143, -0.06894141], [-0.01798624, 0.01798621]])


def test_softmax_cross_entropy_gradient_is_the_backprop_output():
    # TF's gradient is the fused kernel's backprop, softmax - labels, even for labels that do not sum to 1
    labels = np.array([[0.4, 0.8], [2.0, 0.0]], np.float32)
    g = grads(tf.nn.softmax_cross_entropy_with_logits, labels, LOGITS)[1]
    close(g, [[-0.13105857, -0.06894141], [-1.0179863, 0.01798621]])


def test_softmax_cross_entropy_second_derivatives():
    v = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
    g_logits, g_labels = second(lambda x, z: tf.nn.softmax_cross_entropy_with_logits(z, x), [LOGITS, LABELS], v)
    close(g_logits, [[-0.19661191, 0.196612], [0.02649407, -0.02649406]])
    # The logits gradient softmax(x) - z depends on z with slope -1.  TF's gradient leaves this out (it returns
    # zeros here); tensorlet returns the true derivative.
    close(g_labels, -v)


def test_sparse_softmax_cross_entropy_gradients():
    labels = tf.constant([1, 0])
    g = grads(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x), LOGITS)[0]
    close(g, [[0.26894143, -0.26894143], [-0.01798624, 0.01798621]])
    v = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
    g2 = second(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x), [LOGITS], v)[0]
    close(g2, [[-0.19661191, 0.196612], [0.02649407, -0.02649406]])
    x = tf.constant(LOGITS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x)
    assert tape.gradient(loss, labels) is None  # integer labels: no gradient


def test_softmax_cross_entropy_broadcast_labels():
    labels = np.array([[0.25, 0.75]])
    logits = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]])
    g_labels, g_logits = grads(tf.nn.softmax_cross_entropy_with_logits, labels, logits)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    close(g_labels, -logp.sum(0, keepdims=True), rtol=1e-12)
    close(g_logits, np.exp(logp) - labels, rtol=1e-12)


def test_l2_loss_gradient():
    close(grads(tf.nn.l2_loss, np.array([1.0, -2.0], np.float32))[0], [1.0, -2.0])


# --- batch norm --------------------------------------------------------------------------------

SCALE = np.array([0.5, 1.5, 2.0], np.float32)
OFFSET = np.array([0.1, -0.2, 0.3], np.float32)
MEAN = np.array([0.1, 0.2, -0.3], np.float32)
VAR = np.array([0.5, 1.0, 2.0], np.float32)
FBN_X, FBN_W = det((2, 2, 1, 3)), det((2, 2, 1, 3), 0.7, 1.0)


def _fbn_loss(is_training, data_format="NHWC", w=FBN_W):
    def f(x, scale, offset, mean, var):
        y = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, var, is_training=is_training,
                                             data_format=data_format)[0]
        return tf.reduce_sum(y * tf.cast(w, y.dtype))
    return f


@pytest.mark.parametrize("is_training, dx, dscale", [
    (True, [0.2007805, 0.0504109, 1.0482677, -0.0555735, 0.5435951, -1.5554219, -0.139995, -0.8999493, -0.1770263,
            -0.0052119, 0.3059432, 0.6841804], [-2.0944781, 2.1920838, 0.9906961]),
    (False, [0.2750854, 1.3361431, 1.3768845, 0.4227611, -0.0875175, -0.9724052, -0.7019441, -1.2477776, -0.3950544,
             0.2859863, 1.3473887, 1.3712887], [-4.3328948, 3.1157002, 1.3862213]),
], ids=["training", "inference"])
def test_fused_batch_norm_gradients_match_tf(is_training, dx, dscale):
    g = grads(_fbn_loss(is_training), FBN_X, SCALE, OFFSET, MEAN, VAR)
    close(g[0], np.reshape(dx, FBN_X.shape), rtol=2e-5, atol=2e-6)
    close(g[1], dscale, rtol=2e-5)
    close(g[2], [0.3990494, 0.8992738, 0.9765558], rtol=2e-5)
    assert g[3] is None and g[4] is None  # TF: no gradient for the running mean and variance


def test_fused_batch_norm_nchw_and_half():
    perm = [0, 3, 1, 2]
    g = grads(_fbn_loss(True, "NCHW", FBN_W.transpose(perm)), FBN_X.transpose(perm), SCALE, OFFSET, MEAN, VAR)
    ref = grads(_fbn_loss(True), FBN_X, SCALE, OFFSET, MEAN, VAR)
    close(g[0], ref[0].numpy().transpose(perm), rtol=1e-5, atol=1e-6)
    close(g[1], ref[1], rtol=1e-5)
    h = grads(_fbn_loss(True), FBN_X.astype(np.float16), SCALE, OFFSET, MEAN, VAR)
    assert h[0].dtype == tf.float16 and h[1].dtype == tf.float32 and h[2].dtype == tf.float32
    close(h[0], ref[0], rtol=1e-2, atol=1e-2)


def test_fused_batch_norm_second_derivatives_match_tf():
    def f(x, scale):
        return _fbn_loss(True)(x, scale, OFFSET, MEAN, VAR)

    ts = [tf.constant(FBN_X), tf.constant(SCALE)]
    with tf.GradientTape() as outer:
        outer.watch(ts)
        with tf.GradientTape() as inner:
            inner.watch(ts)
            loss = f(*ts)
        gx, gs = inner.gradient(loss, ts)
        s = tf.reduce_sum(gx * det((2, 2, 1, 3), 0.3, 1.0)) + tf.reduce_sum(gs * tf.constant([1.0, -1.0, 0.5]))
    g2x, g2s = outer.gradient(s, ts)
    close(g2x, np.reshape([0.3875442, -0.2447343, 0.2406539, -0.076452, -0.3091249, -0.5724275, -0.2279822,
                           0.4197005, -0.2859399, -0.08311, 0.1341587, 0.6177135], FBN_X.shape), rtol=1e-4, atol=1e-5)
    close(g2s, [-0.1775259, -0.027291, -0.5058072], rtol=1e-4, atol=1e-5)


def _fbn_np(x, scale, offset, mean, var, is_training, data_format, eps):
    c = 1 if data_format.startswith("NC") else x.ndim - 1
    axes = tuple(i for i in range(x.ndim) if i != c)
    shape = [-1 if i == c else 1 for i in range(x.ndim)]
    if is_training:
        mean, var = x.mean(axes), x.var(axes)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) + offset.reshape(shape)


@pytest.mark.parametrize("is_training", [True, False], ids=["training", "inference"])
@pytest.mark.parametrize("data_format, shape", [("NHWC", (2, 2, 1, 3)), ("NCHW", (2, 3, 1, 2)),
                                                ("NDHWC", (1, 2, 1, 2, 3))])
def test_fused_batch_norm_gradient_float64(is_training, data_format, shape):
    """The gradient composite, evaluated in float64, against finite differences (first and second order)."""
    rng = np.random.default_rng(1)
    x, w = rng.uniform(-2, 2, shape), rng.standard_normal(shape)
    scale, offset = rng.uniform(0.5, 2, 3), rng.uniform(-1, 1, 3)
    mean, var = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    attrs = dict(epsilon=1e-3, exponential_avg_factor=1.0, data_format=data_format, is_training=is_training)

    def analytic(x_, scale_):
        return nn_norm._fused_bn_grad((tf.constant(w),), None, x_, scale_, tf.constant(offset), tf.constant(mean),
                                      tf.constant(var), **attrs)

    gx, gs, go, gm, gv = analytic(tf.constant(x), tf.constant(scale))
    assert gm is None and gv is None

    def loss(x_, s_, o_):
        return float((w * _fbn_np(x_, s_, o_, mean, var, is_training, data_format, 1e-3)).sum())

    close(gx, numeric(lambda a: loss(a, scale, offset), x), rtol=1e-6, atol=1e-8)
    close(gs, numeric(lambda a: loss(x, a, offset), scale), rtol=1e-6, atol=1e-8)
    close(go, numeric(lambda a: loss(x, scale, a), offset), rtol=1e-6, atol=1e-8)

    vx, vs = rng.standard_normal(shape), rng.standard_normal(3)

    def dir_grad(x_, s_):
        gx_, gs_, _, _, _ = analytic(x_, s_)
        return tf.reduce_sum(gx_ * vx) + tf.reduce_sum(gs_ * vs)

    ts = [tf.constant(x), tf.constant(scale)]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        s = dir_grad(*ts)
    g2x, g2s = tape.gradient(s, ts)
    close(g2x, numeric(lambda a: float(dir_grad(tf.constant(a), ts[1])), x), rtol=1e-5, atol=1e-7)
    close(g2s, numeric(lambda a: float(dir_grad(ts[0], tf.constant(a))), scale), rtol=1e-5, atol=1e-7)


# --- bias_add ----------------------------------------------------------------------------------

def test_bias_add_gradients_match_tf():
    val = det((2, 3, 4))
    g = grads(lambda v, b: tf.reduce_sum(tf.square(tf.nn.bias_add(v, b, data_format="NCHW"))), val,
              np.array([1.0, 2.0, 3.0], np.float32))
    close(g[1], [15.7561188, 32.1288223, 48.3645897])
    g = grads(lambda v, b: tf.reduce_sum(tf.square(tf.nn.bias_add(v, b))), val,
              np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    close(g[1], [12.6190338, 24.7071342, 35.7592812, 47.1640816])
    close(g[0], 2 * (val + [1.0, 2.0, 3.0, 4.0]))


def test_bias_add_second_derivatives_match_tf():
    val, b = det((2, 3, 4)), np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    ts = [tf.constant(val), tf.constant(b)]
    with tf.GradientTape() as outer:
        outer.watch(ts)
        with tf.GradientTape() as inner:
            inner.watch(ts)
            y = tf.nn.bias_add(*ts)
            loss = tf.reduce_sum(y * y * y)
        gb = inner.gradient(loss, ts[1])
        s = tf.reduce_sum(gb * tf.constant([1.0, 2.0, -1.0, 0.5]))
    gv, gb2 = outer.gradient(s, ts)
    close(gv, np.reshape([10.6730204, 47.7999573, -19.6934395, 6.5030041, -1.5751998, 37.8825531, -29.2887669,
                          11.5490932, -5.7712345, 13.2084618, -26.8845119, 17.0744801, 2.5451603, 0.0054131,
                          -15.0363159, 17.205864, 14.5339336, 12.3078117, -6.338419, 11.8035879, 17.4514217,
                          37.0386124, -10.0363932, 6.6100903], (2, 3, 4)), rtol=1e-5, atol=1e-5)
    close(gb2, [37.8571014, 148.2428284, -107.2778473, 70.7461243], rtol=1e-5)


# --- LRN -----------------------------------------------------------------------------------------

LRN_X, LRN_W = det((1, 1, 2, 6)), det((1, 1, 2, 6), 0.9, 1.0)


@pytest.mark.parametrize("kw, expected", [
    (dict(depth_radius=2, bias=2.0, alpha=0.5, beta=0.75),
     [0.0630801, 0.0844356, 0.1571463, 0.1165461, -0.2254406, -0.2759074, 0.0208655, 0.0896747, 0.0326679, 0.0766494,
      0.1867289, -0.1013673]),
    ({}, [0.0714315, 0.1737578, 0.2192702, 0.109471, -0.1521703, -0.346193, 0.0449737, 0.0937408, 0.0810687,
          0.1310724, 0.1387354, -0.052205]),
], ids=["args", "defaults"])
def test_lrn_gradients_match_tf(kw, expected):
    g = grads(lambda x: tf.reduce_sum(tf.nn.lrn(x, **kw) * LRN_W), LRN_X)[0]
    close(g, np.reshape(expected, LRN_X.shape), rtol=1e-5, atol=1e-6)
    h = grads(lambda x: tf.reduce_sum(tf.cast(tf.nn.lrn(x, **kw), tf.float32) * LRN_W), LRN_X.astype(np.float16))[0]
    assert h.dtype == tf.float16
    close(h, np.reshape(expected, LRN_X.shape), rtol=1e-2, atol=2e-3)


def _lrn_np(x, depth_radius, bias, alpha, beta):
    out = np.empty_like(x)
    d = x.shape[-1]
    for c in range(d):
        lo, hi = max(0, c - depth_radius), min(d, c + depth_radius + 1)
        out[..., c] = x[..., c] / (bias + alpha * (x[..., lo:hi] ** 2).sum(-1)) ** beta
    return out


@pytest.mark.parametrize("kw", [dict(depth_radius=2, bias=2.0, alpha=0.5, beta=0.75),
                                dict(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5),
                                dict(depth_radius=0, bias=0.5, alpha=2.0, beta=1.5)])
def test_lrn_gradient_float64(kw):
    """The gradient composite, evaluated in float64, against finite differences (first and second order)."""
    rng = np.random.default_rng(2)
    x, w, v = rng.uniform(-2, 2, (2, 1, 2, 7)), rng.standard_normal((2, 1, 2, 7)), rng.standard_normal((2, 1, 2, 7))

    def analytic(x_):
        return nn_norm._lrn_grad(tf.constant(w), None, x_, **kw)

    close(analytic(tf.constant(x)), numeric(lambda a: float((w * _lrn_np(a, **kw)).sum()), x), rtol=1e-6, atol=1e-8)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        s = tf.reduce_sum(analytic(xt) * v)
    close(tape.gradient(s, xt), numeric(lambda a: float(tf.reduce_sum(analytic(tf.constant(a)) * v)), x),
          rtol=1e-5, atol=1e-7)


# --- composites -----------------------------------------------------------------------------------

def test_moments_gradients_match_tf():
    # TF's variance is taken around stop_gradient(mean): exact first derivatives, TF's second derivatives
    x = det((3, 4)).astype(np.float64)
    w = tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)

    def f(v):
        mean, var = tf.nn.moments(v, [0])
        return tf.reduce_sum(var * w) + tf.reduce_sum(mean)

    g1 = np.reshape([1.3960176, 1.981811, -1.5318219, -4.2940935, 0.0351043, 0.8798775, 1.6666204, 0.1913189,
                     -0.4311218, -1.8616885, 0.8652016, 5.1027746], (3, 4))
    close(grads(f, x)[0], g1, atol=1e-6)
    close(grads(f, x)[0], numeric(lambda a: float(f(tf.constant(a))), x), rtol=1e-6, atol=1e-8)
    g2 = second(f, [x], det((3, 4), 0.5, 1.0).astype(np.float64))[0]
    close(g2, np.reshape([0.2596122, 1.0444359, 1.9708995, 2.5234669, 0.4503088, 0.3189991, -0.5110822, -1.834043,
                          -0.6344014, -1.3099368, -1.545529, -0.9970044], (3, 4)), atol=1e-6)


def test_dropout_gradient_is_the_mask_scaled():
    x = tf.ones([200])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.25, seed=3)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(g, y.numpy())  # x == 1: the gradient is keep / (1 - rate), like y
    assert set(np.unique(g).tolist()) == {0.0, np.float32(1 / 0.75)}
