"""Gradients of tf.image, tf.debugging and tf.strings ops: TF's conventions, checked against values
recorded from TensorFlow 2.21 (tests/goldens/image_grad.json, written by
tools/record_tf_goldens/image_grad.py).

The resize ops return float32 for every input dtype (as in TF), so the float64 finite-difference
checks of tests/autodiff/test_op_gradients.py cannot cover them; they are checked here against TF's
own gradients, and their gradient ops against the forward ops (a linear op's gradient is its
transpose, and the transpose's gradient is the op itself).
"""

import json
import pathlib

import numpy as np
import pytest

import image_grad_cases

import tensorlet as tf
from tensorlet._src.ops import debugging, image_ops, image_resize, strings_ops
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, Op, bind

GOLDENS = json.loads((pathlib.Path(__file__).parent.parent / "goldens" / "image_grad.json").read_text())
IMAGE = np.array(GOLDENS["image"], np.float32).reshape(GOLDENS["image_shape"])
SMALL = np.array(GOLDENS["small"], np.float32).reshape(GOLDENS["small_shape"])


def _upstream(size, dtype=np.float32):
    return np.array(GOLDENS["upstream"]["x".join(map(str, size))], dtype)


def _grad(fn, x, upstream):
    """d<fn(x), upstream>/dx, with ``upstream`` passed as output_gradients (one per output)."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        ys = tf.nest.flatten(fn(x))
    return tape.gradient(ys, x, output_gradients=[tf.constant(np.asarray(u, y.dtype.as_numpy_dtype).reshape(
        y.shape)) for u, y in zip(upstream, ys)])


def _resize_id(c):
    return f"{c['method']}{'_aa' if c['antialias'] else ''}_{c['size'][0]}x{c['size'][1]}_{c.get('input', 'float32')}"


@pytest.mark.parametrize("c", GOLDENS["resize"], ids=[_resize_id(c) for c in GOLDENS["resize"]])
def test_resize_gradient_matches_tf(c):
    dtype = c.get("input", "float32")
    y_dtype = dtype if c["method"] == "nearest" else "float32"  # nearest keeps the dtype; the rest return float32
    g = _grad(lambda v: tf.image.resize(v, c["size"], method=c["method"], antialias=c["antialias"]),
              IMAGE.astype(dtype), [_upstream(c["size"], y_dtype)])
    assert g.dtype.name == c["dtype"]
    np.testing.assert_allclose(g.numpy(), np.array(c["grad"]).reshape(IMAGE.shape), rtol=1e-5, atol=2e-6)


def test_resize_gradient_of_a_3d_image():
    for method in ("bilinear", "nearest", "bicubic", "lanczos3"):
        g4 = _grad(lambda v, m=method: tf.image.resize(v, [3, 11], method=m), IMAGE, [_upstream((3, 11))])
        g3 = _grad(lambda v, m=method: tf.image.resize(v, [3, 11], method=m), IMAGE[0], [_upstream((3, 11))[0]])
        assert g3.shape == (5, 7, 2)
        np.testing.assert_allclose(g3.numpy(), g4.numpy()[0], rtol=1e-6, atol=1e-6)


def test_resize_gradient_dtypes_follow_tf():
    x16 = IMAGE.astype(np.float16)
    up = [_upstream((3, 11))]
    assert _grad(lambda v: tf.image.resize(v, [3, 11]), x16, up).dtype == tf.float16
    assert _grad(lambda v: tf.image.resize(v, [3, 11], method="nearest"), x16, up).dtype == tf.float16
    bf = tf.cast(tf.constant(IMAGE), tf.bfloat16)
    with tf.GradientTape() as tape:
        tape.watch(bf)
        y = tf.image.resize(bf, [3, 11], method="nearest")
    assert tape.gradient(y, bf).dtype == tf.bfloat16
    # TF's ResizeBicubic gradient is None for images other than float32/float64
    assert _grad(lambda v: tf.image.resize(v, [3, 11], method="bicubic"), x16, up) is None
    # TF's ScaleAndTranslateGrad raises for a float64 image; tensorlet returns the gradient in float64
    g64 = _grad(lambda v: tf.image.resize(v, [3, 11], method="lanczos3"), IMAGE.astype(np.float64), up)
    g32 = _grad(lambda v: tf.image.resize(v, [3, 11], method="lanczos3"), IMAGE, up)
    assert g64.dtype == tf.float64
    np.testing.assert_allclose(g64.numpy(), g32.numpy(), rtol=1e-5, atol=1e-5)


def test_resize_area_has_no_gradient_as_in_tf():
    with pytest.raises(LookupError, match="gradient registry has no entry for: ResizeArea"):
        _grad(lambda v: tf.image.resize(v, [3, 11], method="area"), IMAGE, [_upstream((3, 11))])


def test_adjust_contrast_has_no_gradient_as_in_tf():
    # TF registers no gradient for AdjustContrastv2 (a TF guide relies on the LookupError)
    x = tf.constant(IMAGE)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.adjust_contrast(x, 1.5)
    with pytest.raises(LookupError, match="gradient registry has no entry for: AdjustContrastv2"):
        tape.gradient(y, x)


def _forward_matrix(fn, in_shape):
    """The matrix of a linear image map (NumPy, float64), from its values on basis images."""
    n = int(np.prod(in_shape))
    cols = [np.asarray(fn(np.eye(n)[i].reshape(in_shape)), np.float64).reshape(-1) for i in range(n)]
    return np.stack(cols, axis=1)


GRAD_OPS = [
    ("ResizeBilinearGrad", image_resize.RESIZE_BILINEAR, image_resize.RESIZE_BILINEAR_GRAD, {}),
    ("ResizeBicubicGrad", image_resize.RESIZE_BICUBIC, image_resize.RESIZE_BICUBIC_GRAD, {}),
    ("ScaleAndTranslateGrad", image_resize.SCALE_AND_TRANSLATE, image_resize.SCALE_AND_TRANSLATE_GRAD,
     {"kernel_type": "lanczos3", "antialias": True}),
    ("ResizeNearestNeighborGrad", image_resize.RESIZE_NEAREST, image_resize.RESIZE_NEAREST_GRAD, {}),
]


def _apply_grad_op(grad_op, fwd_attrs, g, x):
    if grad_op is image_resize.RESIZE_NEAREST_GRAD:
        return bind(grad_op, g, size=tuple(x.shape[-3:-1]))
    return bind(grad_op, g, x, **fwd_attrs)


@pytest.mark.parametrize("name,fwd,grad_op,attrs", GRAD_OPS, ids=[g[0] for g in GRAD_OPS])
@pytest.mark.parametrize("sizes", [((4, 5), (7, 3)), ((6, 2), (2, 9)), ((3, 3), (1, 1))])
def test_grad_op_is_the_transpose_and_differentiates_to_the_forward_op(name, fwd, grad_op, attrs, sizes):
    (h, w), (oh, ow) = sizes
    rng = np.random.default_rng(0)
    x = tf.constant(rng.uniform(-1, 1, (1, h, w, 1)).astype(np.float32))
    g = tf.constant(rng.uniform(-1, 1, (1, oh, ow, 1)).astype(np.float32))
    m = _forward_matrix(lambda b: bind(fwd, tf.constant(b.astype(np.float32)), size=(oh, ow), **attrs).numpy(),
                        (1, h, w, 1))
    got = _apply_grad_op(grad_op, attrs, g, x)
    assert got.dtype == tf.float32 and got.shape == (1, h, w, 1)
    np.testing.assert_allclose(got.numpy().reshape(-1), m.T @ g.numpy().reshape(-1), rtol=1e-5, atol=1e-5)
    # the gradient of the gradient op (with respect to the incoming gradient) is the forward op
    v = rng.uniform(-1, 1, (1, h, w, 1)).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(g)
        y = _apply_grad_op(grad_op, attrs, g, x)
    gg = tape.gradient(y, g, output_gradients=tf.constant(v))
    np.testing.assert_allclose(gg.numpy().reshape(-1), m @ v.reshape(-1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["bilinear", "bicubic", "nearest", "lanczos3", "mitchellcubic"])
def test_resize_second_order(method):
    """Hessian-vector product of sum(w * resize(x)**2) / 2: R^T diag(w) R v (TF drops it: its Grad ops are
    not differentiable)."""
    rng = np.random.default_rng(1)
    x0 = rng.uniform(-1, 1, (1, 4, 5, 1))
    w = rng.uniform(-1, 1, (1, 6, 3, 1)).astype(np.float32)
    v = rng.uniform(-1, 1, x0.shape)
    m = _forward_matrix(lambda b: tf.image.resize(b, [6, 3], method=method).numpy(), x0.shape)
    x = tf.constant(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.image.resize(x, [6, 3], method=method)
        gx = inner.gradient(y, x, output_gradients=y * tf.cast(w, y.dtype))
    hv = outer.gradient(gx, x, output_gradients=tf.constant(v))
    assert hv.dtype == tf.float64
    expected = m.T @ (w.reshape(-1) * (m @ v.reshape(-1)))
    np.testing.assert_allclose(hv.numpy().reshape(-1), expected, rtol=1e-5, atol=1e-5)


def test_grad_op_errors_match_tf():
    g = tf.zeros([1, 3, 4, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute ResizeBilinearGrad as input "
                       r"#0\(zero-based\) was expected to be a float tensor but is a double tensor"):
        bind(image_resize.RESIZE_BILINEAR_GRAD, tf.zeros([1, 3, 4, 1], tf.float64), tf.zeros([1, 2, 2, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of uint8 is not in the list of "
                       "allowed values: float, bfloat16, half, double"):
        bind(image_resize.RESIZE_BILINEAR_GRAD, g, tf.zeros([1, 2, 2, 1], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of half is not in the list of "
                       "allowed values: float, double"):
        bind(image_resize.RESIZE_BICUBIC_GRAD, g, tf.zeros([1, 2, 2, 1], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int64 is not in the list of "
                       "allowed values: uint8, int8, int32, half, float, double, bfloat16"):
        bind(image_resize.RESIZE_NEAREST_GRAD, tf.zeros([1, 3, 4, 1], tf.int64), size=(2, 2))


@pytest.mark.parametrize("c", GOLDENS["patches"], ids=[str(i) for i in range(len(GOLDENS["patches"]))])
def test_extract_patches_gradient_matches_tf(c):
    g = _grad(lambda v: tf.image.extract_patches(v, c["sizes"], c["strides"], c["rates"], c["padding"]), IMAGE,
              [c["upstream"]])
    assert g.dtype == tf.float32
    np.testing.assert_array_equal(g.numpy(), np.array(c["grad"], np.float32).reshape(IMAGE.shape))


COMPOSITES = image_grad_cases.composites(tf)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradient_matches_tf(name):
    c = GOLDENS["composites"][name]
    g = _grad(COMPOSITES[name], SMALL, c["upstream"])
    assert g.dtype.name == c["dtype"]
    np.testing.assert_allclose(g.numpy(), np.array(c["grad"]).reshape(SMALL.shape), rtol=2e-5, atol=2e-5)


def test_total_variation_gradient_at_ties_is_zero():
    ones = np.ones((1, 2, 2, 1), np.float32)  # |0|' = 0, as in TF
    np.testing.assert_array_equal(_grad(tf.image.total_variation, ones, [[1.0]]).numpy(), np.zeros_like(ones))


def test_per_image_standardization_of_a_constant_image_has_zero_gradient():
    # TF: the stddev is clamped by maximum(), so its gradient is 0, and TF's SqrtGrad returns 0 where the
    # upstream gradient is 0 (even at sqrt(0)), so no NaN appears
    x = np.full((1, 2, 2, 1), 0.5, np.float32)
    g = _grad(tf.image.per_image_standardization, x, [np.ones(4)])
    np.testing.assert_allclose(g.numpy(), np.zeros_like(x), atol=1e-6)


def test_check_numerics_gradient_is_the_checked_upstream():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.debugging.check_numerics(x, "hey")
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=tf.constant([3.0, -1.0])).numpy(), [3, -1])
    for bad, what in ((np.nan, "NaN"), (np.inf, "Inf")):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.debugging.check_numerics(x, "hey")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Not a number \(NaN\) or infinity \(Inf\) values detected in gradient\. b'hey' : "
                                 rf"Tensor had {what} values \[Op:CheckNumerics\]"):
            tape.gradient(y, x, output_gradients=tf.constant([bad, 1.0]))
    # second order: the gradient's own check is differentiable too
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.debugging.check_numerics(x * x, "sq")
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [2.0, 2.0])


def _ops_of(module):
    return [v for v in vars(module).values() if isinstance(v, Op)]


def test_string_and_debugging_ops_are_not_differentiable():
    ops = _ops_of(strings_ops)
    assert len(ops) >= 12
    for op in ops + [debugging.ASSERT, debugging.PRINT_V2]:
        assert op.grad is NONDIFF, op.name
    # every other op of these families has a gradient, except those TF has none for
    ops = _ops_of(image_ops) + _ops_of(image_resize) + _ops_of(debugging)
    assert not [op.name for op in ops if op.grad is None]
    assert {op.name for op in ops if op.grad is NO_GRADIENT} == {"ResizeArea", "AdjustContrastv2"}
