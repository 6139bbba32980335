"""tf.nn losses against NumPy references, plus TF's shape/dtype checks and errors."""

import math

import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops.nn_losses import SOFTMAX_XENT, SPARSE_SOFTMAX_XENT
from tensorlet._src.ops.registry import bind

FLOATS = ("float16", "bfloat16", "float32", "float64")


def _log_softmax(x):
    x = x.astype(np.float64)
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def _probs(rng, shape, dtype):
    p = rng.random(shape) + 0.1
    return (p / p.sum(-1, keepdims=True)).astype(dtype) if shape and shape[-1] else p.astype(dtype)


def _xent_gen(rng, shapes, dtype):
    return [_probs(rng, shapes[0], dtype), make(rng, shapes[1], dtype, (-5, 5))]


def _xent_ref(labels, logits):
    shape = np.broadcast_shapes(labels.shape, logits.shape)
    if shape[-1] == 0:
        return np.zeros(shape[:-1], logits.dtype)
    return (-(labels.astype(np.float64) * _log_softmax(logits)).sum(-1)).astype(logits.dtype)


def _xent_gen_axis0(rng, shapes, dtype):
    """Labels that are distributions along axis 0 (TF's gradient, softmax - labels, assumes they sum to 1)."""
    p = rng.random(shapes[0]) + 0.1
    return [(p / p.sum(0, keepdims=True)).astype(dtype), make(rng, shapes[1], dtype, (-5, 5))]


def _sparse_gen(label_dtype):
    def gen(rng, shapes, dtype):
        logits = make(rng, shapes[1], dtype, (-5, 5))
        labels = rng.integers(0, shapes[1][-1], size=shapes[0]).astype(label_dtype)
        return [labels, logits]
    return gen


def _sparse_ref(labels, logits):
    lp = _log_softmax(logits)
    return (-np.take_along_axis(lp, labels[..., None].astype(np.int64), -1)[..., 0]).astype(logits.dtype)


def _sigmoid_ref(labels, logits):
    x, z = logits.astype(np.float64), labels.astype(np.float64)
    return (np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))).astype(logits.dtype)


def _weighted_ref(pos_weight):
    def ref(labels, logits):
        x, z = logits.astype(np.float64), labels.astype(np.float64)
        lw = 1 + (pos_weight - 1) * z
        return ((1 - z) * x + lw * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))).astype(logits.dtype)
    return ref


def _poisson_ref(full):
    def ref(targets, log_input):
        z, c = targets.astype(np.float64), log_input.astype(np.float64)
        r = np.exp(c) - c * z
        if full:
            with np.errstate(all="ignore"):
                st = z * np.log(z) - z + 0.5 * np.log(2 * np.pi * z)
            r = r + np.where((z >= 0) & (z <= 1), 0.0, st)
        return r.astype(log_input.dtype)
    return ref


def _targets_gen(rng, shapes, dtype):
    return [rng.integers(0, 5, size=shapes[0]).astype(dtype), make(rng, shapes[1], dtype, (-2, 2))]


def _pair(dtype_labels=None):
    def gen(rng, shapes, dtype):
        return [make(rng, shapes[0], dtype, (0, 1)), make(rng, shapes[1], dtype, (-8, 8))]
    return gen


XENT = [((2, 5), (2, 5)), ((3,), (3,)), ((2, 3, 4), (2, 3, 4)), ((1, 4), (3, 4)), ((0, 3), (0, 3)),
        ((2, 0), (2, 0))]

CASES = [
    Case(tf.nn.softmax_cross_entropy_with_logits, _xent_ref, XENT, ("float32",), gen=_xent_gen,
         ops=("SoftmaxCrossEntropyWithLogits",)),
    Case(tf.nn.softmax_cross_entropy_with_logits, _xent_ref, XENT[:1], FLOATS, gen=_xent_gen,
         ops=("SoftmaxCrossEntropyWithLogits",), id="xent_dtypes"),
    Case(lambda lab, x: tf.nn.softmax_cross_entropy_with_logits(lab, x, axis=0),
         lambda lab, x: _xent_ref(np.moveaxis(lab, 0, -1), np.moveaxis(x, 0, -1)), [((4, 2, 3), (4, 2, 3))],
         ("float32", "float64"), gen=_xent_gen_axis0, ops=("SoftmaxCrossEntropyWithLogits", "Transpose"),
         id="xent_axis0"),
    Case(lambda lab, x: tf.nn.softmax_cross_entropy_with_logits(tf.cast(lab, tf.float64), x), _xent_ref,
         [((2, 3), (2, 3))], ("float32",), gen=_xent_gen, ops=("SoftmaxCrossEntropyWithLogits", "Cast"),
         id="xent_label_cast"),
    Case(tf.nn.softmax_cross_entropy_with_logits, _xent_ref, [((2, 2), (2, 2))], ("float32", "float64"),
         gen=lambda rng, s, d: [np.array([[0, 1], [0.5, 0.5]], d), np.array([[1000, -1000], [-1e4, 1e4]], d)],
         ops=("SoftmaxCrossEntropyWithLogits",), id="xent_large"),
    Case(tf.nn.sparse_softmax_cross_entropy_with_logits, _sparse_ref,
         [((2,), (2, 5)), ((), (3,)), ((2, 3), (2, 3, 4)), ((0,), (0, 3))], ("float32",), gen=_sparse_gen(np.int32),
         ops=("SparseSoftmaxCrossEntropyWithLogits",)),
    Case(tf.nn.sparse_softmax_cross_entropy_with_logits, _sparse_ref, [((2,), (2, 5))], FLOATS,
         gen=_sparse_gen(np.int32), ops=("SparseSoftmaxCrossEntropyWithLogits",), id="sparse_dtypes"),
    Case(tf.nn.sparse_softmax_cross_entropy_with_logits, _sparse_ref, [((4,), (4, 3))], ("float32",),
         gen=_sparse_gen(np.int64), ops=("SparseSoftmaxCrossEntropyWithLogits",), id="sparse_int64_labels"),
    Case(lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), _sigmoid_ref,
         [((2, 3), (2, 3)), ((), ()), ((0,), (0,))], ("float32",), gen=_pair(),
         ops=("Relu", "Softplus", "Abs", "Neg"), id="sigmoid_cross_entropy_with_logits"),
    Case(lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), _sigmoid_ref,
         [((2, 3), (2, 3))], ("float16", "bfloat16", "float64"), gen=_pair(), ops=("Softplus",),
         id="sigmoid_xent_dtypes"),
    Case(lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(z, x), _sigmoid_ref, [((5,), (5,))], ("float32",),
         gen=lambda rng, s, d: [np.array([0, 1, 0.5, 1, 0], d), np.array([100, -100, 0.3, 1e4, -1e4], d)],
         ops=("Softplus",), id="sigmoid_xent_extremes"),
    Case(lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5), _weighted_ref(2.5),
         [((2, 3), (2, 3)), ((), ())], ("float32", "float64"), gen=_pair(), ops=("Softplus", "Relu"),
         id="weighted_cross_entropy_with_logits"),
    Case(lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, tf.constant([1.0, 0.5, 3.0], x.dtype)),
         lambda z, x: np.stack([_weighted_ref(w)(z[:, i], x[:, i]) for i, w in enumerate([1.0, 0.5, 3.0])], 1),
         [((2, 3), (2, 3))], ("float32",), gen=_pair(), ops=("Softplus",), id="weighted_xent_vector_weight"),
    Case(tf.nn.l2_loss, lambda x: np.asarray((x.astype(np.float64) ** 2).sum() / 2).astype(x.dtype),
         [((2, 3),), ((),), ((0,),), ((3, 1, 2),)], FLOATS, ops=("L2Loss",)),
    Case(tf.nn.log_poisson_loss, _poisson_ref(False), [((2, 3), (2, 3)), ((0,), (0,))], ("float32", "float64"),
         gen=_targets_gen, ops=("Exp",)),
    # grad=False: integer targets sit where the Stirling term switches on (at 0 and 1), so finite differences in
    # the targets straddle a jump; log_poisson_loss_full_fractional checks the gradients away from it.
    Case(lambda z, c: tf.nn.log_poisson_loss(z, c, compute_full_loss=True), _poisson_ref(True),
         [((3, 4), (3, 4))], ("float32", "float64"), gen=_targets_gen, ops=("Exp", "Log", "SelectV2"),
         id="log_poisson_loss_full", grad=False),
    Case(lambda z, c: tf.nn.log_poisson_loss(z, c, compute_full_loss=True), _poisson_ref(True),
         [((3, 4), (3, 4))], ("float64",), ops=("Exp", "Log", "SelectV2"), id="log_poisson_loss_full_fractional",
         gen=lambda rng, s, d: [(rng.integers(0, 5, size=s[0]) + 0.25).astype(d), make(rng, s[1], d, (-2, 2))]),
    Case(tf.nn.compute_average_loss, lambda x: np.asarray(x.sum() / x.shape[0], x.dtype), [((4,),), ((2, 3),)],
         ("float32",), ops=("Sum", "DivNoNan")),
    Case(tf.nn.compute_average_loss, lambda x: np.asarray(x.sum() / x.shape[0], x.dtype), [((4,),)],
         ("float64", "float16"), ops=("Sum", "DivNoNan"), id="compute_average_loss_dtypes"),
    Case(lambda x, w: tf.nn.compute_average_loss(x, sample_weight=w, global_batch_size=8),
         lambda x, w: np.asarray((x * w).sum() / 8, x.dtype), [((4,), (4,)), ((4,), ())], ("float32",),
         ops=("Sum", "Mul", "DivNoNan"), id="compute_average_loss_weighted"),
    Case(lambda x, w: tf.nn.compute_average_loss(x, sample_weight=w),
         lambda x, w: np.asarray((x * w[:, None]).sum() / 2, x.dtype), [((2, 3), (2,))], ("float64",),
         ops=("Sum", "ExpandDims"), id="compute_average_loss_expand_weight"),
    Case(lambda x: tf.nn.compute_average_loss(x, global_batch_size=0), lambda x: np.asarray(0, x.dtype),
         [((3,),)], ("float32",), ops=("DivNoNan",), id="compute_average_loss_zero_batch"),
    Case(tf.nn.scale_regularization_loss, lambda x: np.asarray(x.sum(), x.dtype), [((),), ((3,),)],
         ("float32",), ops=("Sum",)),
]


ERRORS = [
    Err(lambda: tf.nn.softmax_cross_entropy_with_logits(tf.ones([2, 3]), tf.zeros([2, 4])),
        tf.errors.InvalidArgumentError,
        r"logits and labels must be broadcastable: logits_size=\[2,4\] labels_size=\[2,3\] "
        r"\[Op:SoftmaxCrossEntropyWithLogits\]"),
    Err(lambda: tf.nn.softmax_cross_entropy_with_logits(tf.ones([2, 3], tf.int32), tf.zeros([2, 3], tf.int32)),
        tf.errors.InvalidArgumentError, "Value for attr 'T' of int32 is not in the list of allowed values"),
    Err(lambda: tf.nn.softmax_cross_entropy_with_logits(1.0, 2.0), tf.errors.InvalidArgumentError,
        "logits must have >= 1 dimension"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([5, 0], tf.zeros([2, 3])),
        tf.errors.InvalidArgumentError,
        r"Received a label value of 5 which is outside the valid range of \[0, 3\)\.  Label values: 5 0"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([[1, 0], [7, 2]], tf.zeros([2, 2, 3])),
        tf.errors.InvalidArgumentError, r"label value of 7 .*Label values: 1 0 7 2"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([-1, 0], tf.zeros([2, 3])),
        tf.errors.InvalidArgumentError, "label value of -1"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([1.0, 0.0], tf.zeros([2, 3])),
        tf.errors.InvalidArgumentError, "Value for attr 'Tlabels' of float is not in the list of allowed values: "
                                        "int32, int64"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([1, 0, 1], tf.zeros([2, 3])), ValueError,
        r"`labels.shape` must equal `logits.shape` except for the last dimension. Received: labels.shape=\(3,\) "
        r"and logits.shape=\(2, 3\)"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([[1, 0]], tf.zeros([2, 3])), ValueError,
        r"`labels.shape.rank` must equal `logits.shape.rank - 1`"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(1, 2.0), ValueError, "`logits` cannot be a scalar"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([0, 0], tf.zeros([2, 0])),
        tf.errors.InvalidArgumentError, r"Must have at least one class, but got logits shape \[2,0\]"),
    Err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([1, 0], tf.zeros([2, 3], tf.int32)),
        tf.errors.InvalidArgumentError, "attr 'T' of int32"),
    Err(lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0], logits=[1.0, 2.0, 3.0]), ValueError,
        r"`logits` and `labels` must have the same shape, received \(\(3,\) vs \(2,\)\)"),
    Err(lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=None, logits=[1.0]), ValueError,
        "Both `labels` and `logits` must be provided"),
    Err(lambda: tf.nn.sigmoid_cross_entropy_with_logits(tf.zeros([3], tf.float64), tf.zeros([3])),
        tf.errors.InvalidArgumentError, r"cannot compute Mul as input #1\(zero-based\) was expected to be a float "
                                        "tensor but is a double tensor"),
    Err(lambda: tf.nn.weighted_cross_entropy_with_logits([0.0, 1.0], [1.0, 2.0, 3.0], 1.0), ValueError,
        "must have the same shape"),
    Err(lambda: tf.nn.l2_loss(tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of int32 .*\[Op:L2Loss\]"),
    Err(lambda: tf.nn.log_poisson_loss([0.0, 1.0, 2.0], [0.5, 0.1, -1.0, 2.0]), ValueError,
        r"`log_input` and `targets` must have the same shape, received \(\(4,\) vs \(3,\)\)"),
    Err(lambda: tf.nn.compute_average_loss(tf.constant(5.0)), ValueError, "Expected a tensor with at least rank 1"),
    Err(lambda: tf.nn.compute_average_loss([1.0, 2.0], global_batch_size=-1), tf.errors.InvalidArgumentError,
        "global_batch_size must be non-negative"),
    Err(lambda: tf.nn.compute_average_loss([1.0, 2.0], global_batch_size=2.5), TypeError,
        "global_batch_size must be an integer"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_fused_kernels_return_backprop():
    labels = tf.constant([[0.2, 0.8], [1.0, 0.0]])
    logits = tf.constant([[1.0, 2.0], [3.0, -1.0]])
    loss, backprop = bind(SOFTMAX_XENT, logits, labels)
    p = np.exp(_log_softmax(logits.numpy()))
    np.testing.assert_allclose(loss.numpy(), [0.5132617, 0.01814996], rtol=1e-6)  # TF's values
    np.testing.assert_allclose(backprop.numpy(), p - labels.numpy(), rtol=1e-5, atol=1e-7)
    loss, backprop = bind(SPARSE_SOFTMAX_XENT, logits, tf.constant([1, 0]))
    np.testing.assert_allclose(loss.numpy(), [0.31326166, 0.01814996], rtol=1e-6)
    np.testing.assert_allclose(backprop.numpy(), p - np.eye(2)[[1, 0]], rtol=1e-5, atol=1e-7)


def test_losses_keep_precision():
    r = tf.nn.sparse_softmax_cross_entropy_with_logits([0], tf.constant([[0.0, -200.0]], tf.float16))
    assert r.dtype == tf.float16 and np.isfinite(r.numpy()).all()
    r = tf.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[1000.0, -1000.0]])
    assert float(r.numpy()[0]) == 2000.0
    r = tf.nn.log_poisson_loss(tf.constant([2.0], tf.float64), tf.constant([0.0], tf.float64), True)
    np.testing.assert_allclose(r.numpy(), 1 + 2 * math.log(2) - 2 + 0.5 * math.log(4 * math.pi), rtol=1e-12)


def test_compute_average_loss_dtypes():
    assert tf.nn.compute_average_loss([1, 2]).dtype == tf.float64  # TF: integer losses divide to float64
    assert float(tf.nn.compute_average_loss([1.0, 2.0], global_batch_size=tf.constant(4))) == 0.75
    assert float(tf.nn.compute_average_loss(tf.zeros([0]))) == 0.0
test_compiled = compiled_tests(CASES)
