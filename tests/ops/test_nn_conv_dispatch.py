"""The eager convolution's static kernel choices (nn_conv_xla.eligible / conv_filter; the autotuner, which may
override them, is off here) against sliding-window references.

Few input channels: the forward and dx stay on NumPy's im2col GEMM (col2im for dx; while the patch matrix is
small) and the filter gradient runs as one convolution with dy as the kernel (``_filter_by_conv``).  They are
checked in float32 and float64 against einsum over ``sliding_window_view`` (forward, dw), a strided scatter and
the adjoint identity <conv(x, w), dy> = <x, dx> (dx), with strides, dilations and padding, in 1-3 spatial dims.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tensorlet as tf
from tensorlet._src.ops import nn_conv_autotune as A
from tensorlet._src.ops import nn_conv_kernels as K
from tensorlet._src.ops import nn_conv_xla as X


@pytest.fixture(autouse=True)
def static_rule(monkeypatch):
    monkeypatch.setattr(A.TUNER, "enabled", False)

# (x shape channels-last, kernel sizes, out channels, strides, dilations, pads): input channels < 8 throughout
GEOMS = [
    ((32, 28, 28, 1), (3, 3), 16, (1, 1), (1, 1), ((0, 0), (0, 0))),  # the seed CNN's first layer
    ((6, 19, 17, 3), (3, 2), 9, (2, 1), (1, 2), ((1, 1), (0, 2))),
    ((5, 40, 2), (4,), 24, (3,), (2,), ((2, 1),)),
    ((2, 9, 10, 8, 1), (2, 3, 2), 32, (1, 2, 1), (2, 1, 1), ((1, 0), (1, 1), (0, 1))),
]
LETTERS = "ijk"  # kernel dims; upper case: output dims


def windows(x, ks, s, d, pads):
    """[N, *out, *ks, C]: the input each output position meets at each kernel position."""
    nd = len(ks)
    xp = np.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),))
    v = sliding_window_view(xp, tuple((k - 1) * di + 1 for k, di in zip(ks, d)), axis=tuple(range(1, nd + 1)))
    v = v[(slice(None),) + tuple(slice(None, None, si) for si in s) + (slice(None),)
          + tuple(slice(None, None, di) for di in d)]
    return np.moveaxis(v, 1 + nd, -1)  # channels after the kernel dims


def ref_conv(x, w, s, d, pads):
    sp = LETTERS[:len(s)]
    return np.einsum(f"n{sp.upper()}{sp}c,{sp}co->n{sp.upper()}o", windows(x, w.shape[:-2], s, d, pads), w)


def ref_filter(x, dy, ks, s, d, pads):
    sp = LETTERS[:len(s)]
    return np.einsum(f"n{sp.upper()}{sp}c,n{sp.upper()}o->{sp}co", windows(x, ks, s, d, pads), dy)


def ref_input(dy, w, in_sizes, s, d, pads):
    """dx by scattering dy @ w[k]^T onto each kernel position's strided window of the padded input."""
    nd = len(s)
    ks, c = w.shape[:nd], w.shape[-2]
    dxp = np.zeros((dy.shape[0],) + tuple(n + lo + hi for n, (lo, hi) in zip(in_sizes, pads)) + (c,))
    for k in np.ndindex(*ks):
        win = tuple(slice(ki * di, ki * di + si * (oi - 1) + 1, si) for ki, di, si, oi in zip(k, d, s, dy.shape[1:-1]))
        dxp[(slice(None),) + win] += dy @ w[k].T
    return dxp[(slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(in_sizes, pads))]


def _case(geom, dtype):
    xs, ks, o, s, d, pads = geom
    rng = np.random.default_rng(len(xs) * 7 + o)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ks + (xs[-1], o)).astype(dtype)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    return x, w, ks, s, d, pads, tol


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMS)
def test_few_channel_forward_is_numpy_im2col_and_is_right(geom, dtype):
    x, w, ks, s, d, pads, tol = _case(geom, dtype)
    X._fns.clear()
    y = K._np_conv(x, w, s, d, pads, 1)
    assert not any(k[0] == "fwd" for k in X._fns)  # NumPy's im2col GEMM, not a compiled kernel
    assert y.dtype == dtype
    np.testing.assert_allclose(y, ref_conv(x, w, s, d, pads), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMS)
def test_few_channel_input_gradient_is_numpy_col2im_and_is_right(geom, dtype):
    x, w, ks, s, d, pads, tol = _case(geom, dtype)
    y = ref_conv(x, w, s, d, pads)
    dy = np.random.default_rng(2).standard_normal(y.shape).astype(dtype)
    X._fns.clear()
    dx = K._np_conv_input(dy, w, x.shape[1:-1], s, d, pads, 1)
    assert not X._fns and dx.shape == x.shape and dx.dtype == dtype
    np.testing.assert_allclose(dx, ref_input(dy, w, x.shape[1:-1], s, d, pads), **tol)
    np.testing.assert_allclose(np.vdot(x, dx), np.vdot(y, dy), rtol=1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMS)
def test_filter_gradient_as_one_convolution(geom, dtype):
    x, w, ks, s, d, pads, tol = _case(geom, dtype)
    osz = ref_conv(x, w, s, d, pads).shape
    dy = np.random.default_rng(3).standard_normal(osz).astype(dtype)
    X._fns.clear()
    dw = X.conv_filter(x, dy, ks, s, d, pads)
    assert [k[-1] for k in X._fns if k[0] == "filter"] == [True]  # the by-convolution formulation
    assert dw.shape == w.shape and dw.dtype == dtype
    np.testing.assert_allclose(dw, ref_filter(x, dy, ks, s, d, pads), **tol)


def test_many_channels_keep_the_per_position_filter_gemms():
    x, w, ks, s, d, pads, tol = _case(((4, 12, 12, 8), (3, 3), 8, (1, 1), (1, 1), ((1, 1), (1, 1))), np.float64)
    dy = np.random.default_rng(4).standard_normal((4, 12, 12, 8))
    X._fns.clear()
    np.testing.assert_allclose(X.conv_filter(x, dy, ks, s, d, pads), ref_filter(x, dy, ks, s, d, pads), **tol)
    assert [k[-1] for k in X._fns if k[0] == "filter"] == [False]


def test_eligibility_rules():
    f32 = np.dtype(np.float32)
    assert not X.eligible(f32, 32 * 26 * 26, (3, 3), 1, 16, 1, im2col=True)  # few channels: NumPy im2col
    assert X.eligible(f32, 32 * 26 * 26, (3, 3), 1, 16, 1)  # ... but dw is compiled
    assert X.eligible(f32, 64 * 218 * 218, (7, 7), 3, 64, 1, im2col=True)  # patch matrix too big for im2col
    assert X.eligible(f32, 32 * 24 * 24, (3, 3), 16, 16, 1, im2col=True)
    assert not X.eligible(np.dtype(np.float16), 10**6, (3, 3), 16, 16, 1)  # refused: runs on NumPy in float32
    assert not X.eligible(f32, 10**6, (3, 3), 16, 16, 2)  # grouped: NumPy engine


def test_seed_cnn_first_layer_gradients_through_the_tape():
    rng = np.random.default_rng(5)
    xv = rng.random((32, 28, 28, 1)).astype(np.float32)
    wv = rng.standard_normal((3, 3, 1, 16)).astype(np.float32)
    x, w = tf.constant(xv), tf.Variable(wv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID"))
        loss = tf.reduce_sum(y * y)
    dx, dw = tape.gradient(loss, [x, w])
    pads = ((0, 0), (0, 0))
    y64 = np.maximum(ref_conv(xv.astype(np.float64), wv.astype(np.float64), (1, 1), (1, 1), pads), 0)
    np.testing.assert_allclose(y.numpy(), y64, rtol=1e-4, atol=1e-4)
    dw64 = ref_filter(xv.astype(np.float64), 2 * y64, (3, 3), (1, 1), (1, 1), pads)
    np.testing.assert_allclose(dw.numpy(), dw64, rtol=1e-4, atol=1e-3)
    dx64 = ref_input(2 * y64, wv.astype(np.float64), (28, 28), (1, 1), (1, 1), pads)
    np.testing.assert_allclose(dx.numpy(), dx64, rtol=1e-4, atol=1e-3)
