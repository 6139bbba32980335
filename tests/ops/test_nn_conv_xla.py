"""The compiled eager convolutions (nn_conv_xla) agree with the NumPy engine, and large eager convs use them."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.ops import nn_conv_kernels as K
from tensorlet._src.ops import nn_conv_xla as X

# (x shape NHWC / NWC / NDHWC, kernel sizes, out channels, strides, dilations, pads)
GEOMS = [
    ((4, 13, 11, 3), (3, 3), 5, (1, 1), (1, 1), ((0, 0), (0, 0))),
    ((2, 12, 12, 4), (3, 2), 6, (2, 1), (1, 2), ((1, 1), (0, 2))),
    ((3, 17, 5), (4,), 3, (3,), (1,), ((2, 1),)),
    ((1, 6, 7, 5, 2), (2, 3, 2), 3, (1, 2, 1), (2, 1, 1), ((1, 0), (1, 1), (0, 1))),
]


@pytest.fixture
def numpy_only(monkeypatch):
    """Calls a NumPy-engine kernel with the compiled path switched off (X.* below are called directly)."""
    monkeypatch.setattr(X, "MIN_MACS", float("inf"))
    return lambda fn, *a: fn(*a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMS)
def test_compiled_matches_numpy(geom, dtype, numpy_only):
    xs, ks, o, s, d, pads = geom
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ks + (xs[-1], o)).astype(dtype)
    y_ref = numpy_only(K._np_conv, x, w, s, d, pads, 1)
    y = X.conv(x, w, s, d, pads)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    assert y.dtype == dtype and y.shape == y_ref.shape
    np.testing.assert_allclose(y, y_ref, **tol)
    dy = rng.standard_normal(y.shape).astype(dtype)
    dx_ref = numpy_only(K._np_conv_input, dy, w, xs[1:-1], s, d, pads, 1)
    np.testing.assert_allclose(X.conv_input(dy, w, xs[1:-1], s, d, pads), dx_ref, **tol)
    dw_ref = numpy_only(K._np_conv_filter, x, dy, w.shape, s, d, pads, 1)
    np.testing.assert_allclose(X.conv_filter(x, dy, ks, s, d, pads), dw_ref, **tol)


def test_large_eager_conv_and_gradients_use_compiled_kernels():
    X._fns.clear()
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal((8, 20, 20, 8)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((3, 3, 8, 16)).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.conv2d(x, w, 1, "SAME")
        loss = tf.reduce_sum(y * y)
    dx, dw = tape.gradient(loss, [x, w])
    assert {k[0] for k in X._fns} == {"fwd", "input", "filter"}
    # against a float64 NumPy-engine reference (small enough to stay on NumPy: checked above to agree)
    xv, wv = x.numpy().astype(np.float64), w.numpy().astype(np.float64)
    pads = ((1, 1), (1, 1))
    y_ref = X.conv(xv, wv, (1, 1), (1, 1), pads)
    np.testing.assert_allclose(y.numpy(), y_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw.numpy(), X.conv_filter(xv, 2 * y_ref, (3, 3), (1, 1), (1, 1), pads),
                               rtol=1e-3, atol=1e-2)
    np.testing.assert_allclose(dx.numpy(), X.conv_input(2 * y_ref, wv, (20, 20), (1, 1), (1, 1), pads),
                               rtol=1e-3, atol=1e-2)


def test_small_convs_stay_on_numpy():
    assert not X.eligible(np.dtype(np.float32), 10, (3, 3), 4, 4, 1)
    assert not X.eligible(np.dtype(np.float32), 10**6, (3, 3), 4, 4, 2)  # grouped: NumPy engine
    assert not X.eligible(np.dtype(np.int32), 10**6, (3, 3), 4, 4, 1)
    assert X.eligible(np.dtype(np.float32), 32 * 24 * 24, (3, 3), 16, 16, 1)
