"""tf.nn normalization, bias_add, dropout, embedding_lookup and LRN against NumPy references and TF's errors."""

import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf

FLOATS = ("float16", "bfloat16", "float32", "float64")


def _moments_ref(axes, keepdims=False):
    def ref(x):
        y = x.astype(np.float64)
        m, v = y.mean(axis=axes, keepdims=keepdims), y.var(axis=axes, keepdims=keepdims)
        return np.asarray(m).astype(x.dtype), np.asarray(v).astype(x.dtype)
    return ref


def _weighted_ref(axes, keepdims=False):
    def ref(x, w):
        y, w = x.astype(np.float64), np.broadcast_to(w.astype(np.float64), x.shape)
        s = w.sum(axis=axes, keepdims=True)
        m = (w * y).sum(axis=axes, keepdims=True) / s
        v = (w * (y - m) ** 2).sum(axis=axes, keepdims=True) / s
        if not keepdims:
            m, v = m.squeeze(axes), v.squeeze(axes)
        return m.astype(x.dtype), v.astype(x.dtype)
    return ref


def _positive_weights(rng, shapes, dtype):
    return [make(rng, shapes[0], dtype), make(rng, shapes[1], dtype, (0.5, 2.0))]


def _bn_gen(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype)
    c = shapes[0][-1:]
    return [x, make(rng, c, dtype), make(rng, c, dtype, (0.5, 2)), make(rng, c, dtype), make(rng, c, dtype)]


def _bn_ref(x, mean, var, offset, scale, eps=1e-3):
    y = (x.astype(np.float64) - mean) / np.sqrt(var.astype(np.float64) + eps) * scale + offset
    return y.astype(x.dtype)


def _fbn_gen(channels_axis):
    def gen(rng, shapes, dtype):
        x = make(rng, shapes[0], dtype, (-2, 2))
        c = (shapes[0][channels_axis],)
        return [x, make(rng, c, "float32", (0.5, 2)), make(rng, c, "float32"), make(rng, c, "float32"),
                make(rng, c, "float32", (0.5, 2))]
    return gen


def _fbn_ref(data_format, is_training, factor=1.0, eps=1e-3):
    def ref(x, scale, offset, mean, var):
        c = 1 if data_format.startswith("NC") else x.ndim - 1
        axes = tuple(i for i in range(x.ndim) if i != c)
        shape = [1] * x.ndim
        shape[c] = -1
        y = x.astype(np.float64)
        if is_training:
            bm, bv = y.mean(axes), y.var(axes)
            n = y.size // y.shape[c]
            run_m = (1 - factor) * mean + factor * bm
            run_v = (1 - factor) * var + factor * bv * n / max(n - 1, 1)
        else:
            bm, bv, run_m, run_v = mean, var, mean, var
        out = (y - bm.reshape(shape)) / np.sqrt(bv.reshape(shape) + eps) * scale.reshape(shape) + offset.reshape(shape)
        return out.astype(x.dtype), run_m.astype(np.float32), run_v.astype(np.float32)
    return ref


def _bias_ref(nchw=False):
    def ref(x, b):
        if nchw and x.ndim > 2:
            b = b.reshape((-1,) + (1,) * (x.ndim - 2))
        return (x + b).astype(x.dtype)
    return ref


def _bias_gen(channel_axis):
    def gen(rng, shapes, dtype):
        return [make(rng, shapes[0], dtype, (0, 9)), make(rng, (shapes[0][channel_axis],), dtype, (0, 9))]
    return gen


def _lrn_ref(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    def ref(x):
        y = x.astype(np.float64)
        d = y.shape[-1]
        out = np.empty_like(y)
        for c in range(d):
            lo, hi = max(0, c - depth_radius), min(d, c + depth_radius + 1)
            s = (y[..., lo:hi] ** 2).sum(-1)
            out[..., c] = y[..., c] / (bias + alpha * s) ** beta
        return out.astype(x.dtype)
    return ref


def _ids_gen(n_rows, ids_shape):
    def gen(rng, shapes, dtype):
        return [make(rng, shapes[0], dtype), rng.integers(0, n_rows, size=ids_shape).astype(np.int32)]
    return gen


def _parts(sizes):
    """Split a table into partitions of the given sizes: "div" keeps rows contiguous."""
    def fn(table, ids, strategy="div"):
        parts, start = [], 0
        for s in sizes:
            parts.append(table[start:start + s])
            start += s
        return parts, ids
    return fn


def _mod_table(table, n):
    """The "mod" layout: id i lives in partition i % n at row i // n."""
    return [table[p::n] for p in range(n)]


def _clip_ref(max_norm, ids_rank):
    def ref(table, ids):
        r = table[ids].astype(np.float64)
        axes = tuple(range(ids_rank, r.ndim))
        norm = np.sqrt((r * r).sum(axis=axes, keepdims=True)) if axes else np.abs(r)
        return (r * max_norm / np.maximum(norm, max_norm)).astype(table.dtype)
    return ref


# grad=False below, for two reasons (tests/autodiff/test_grad_nn.py checks these gradients instead):
# * moments: TF computes the variance around stop_gradient(mean), so first derivatives are exact but second
#   derivatives are TF's (they ignore the mean's dependence on x) and differ from finite differences;
# * FusedBatchNormV3 and LRN have no float64 kernel (TF's 'T' is half, bfloat16, float), and the finite-difference
#   check runs in float64.
CASES = [
    Case(lambda x: tf.nn.moments(x, [0]), _moments_ref((0,)), [((3, 4),), ((5,),), ((2, 3, 4),)], ("float32",),
         ops=("Mean", "SquaredDifference", "StopGradient"), id="moments"),
    Case(lambda x: tf.nn.moments(x, [0]), _moments_ref((0,)), [((3, 4),)], ("float16", "bfloat16", "float64"),
         ops=("Mean", "SquaredDifference"), id="moments_dtypes", grad=False),
    Case(lambda x: tf.nn.moments(x, [0, 2], keepdims=True), _moments_ref((0, 2), True), [((2, 3, 4),)],
         ("float32", "float64"), ops=("Mean",), id="moments_keepdims", grad=False),
    Case(lambda x: tf.nn.moments(x, -1), _moments_ref((-1,)), [((3, 4),)], ("float32",), ops=("Mean", "Squeeze"),
         id="moments_int_axis", grad=False),
    Case(lambda x: tf.nn.moments(x, []), lambda x: (x, np.zeros_like(x)), [((1, 3),)], ("float32",),
         ops=("Mean",), id="moments_no_axes", grad=False),
    Case(lambda x, w: tf.nn.weighted_moments(x, [0], w), _weighted_ref((0,)), [((4, 3), (4, 1)), ((5,), (5,))],
         ("float32",), gen=_positive_weights, ops=("Sum", "DivNoNan"), id="weighted_moments"),
    Case(lambda x, w: tf.nn.weighted_moments(x, [0], w), _weighted_ref((0,)), [((4, 3), (4, 1))],
         ("float16", "float64"), gen=_positive_weights, ops=("Sum",), id="weighted_moments_dtypes"),
    Case(lambda x, w: tf.nn.weighted_moments(x, [1], w, keepdims=True), _weighted_ref((1,), True),
         [((2, 3), (3,))], ("float32",), gen=_positive_weights, ops=("Sum",), id="weighted_moments_keepdims"),
    Case(lambda x: tf.nn.sufficient_statistics(x, [0])[:3],
         lambda x: (np.asarray(x.shape[0], x.dtype), x.sum(0), (x.astype(np.float64) ** 2).sum(0).astype(x.dtype)),
         [((3, 4),)], ("float32", "float64"), ops=("Sum", "Mul"), id="sufficient_statistics"),
    Case(lambda x: tf.nn.sufficient_statistics(x, [1], shift=0.5, keepdims=True),
         lambda x: (np.asarray(x.shape[1], x.dtype), (x - 0.5).sum(1, keepdims=True),
                    ((x - 0.5) ** 2).sum(1, keepdims=True), np.asarray(0.5, x.dtype)),
         [((3, 4),)], ("float64",), ops=("Sum", "SquaredDifference"), id="sufficient_statistics_shift"),
    Case(lambda c, m, v: tf.nn.normalize_moments(c, m, v, None),
         lambda c, m, v: (m / c, v / c - (m / c) ** 2), [((), (3,), (3,))], ("float32", "float64"),
         domain=(1, 4), ops=("RealDiv", "Mul", "Sub"), id="normalize_moments"),
    Case(lambda c, m, v, s: tf.nn.normalize_moments(c, m, v, s),
         lambda c, m, v, s: (m / c + s, v / c - (m / c) ** 2), [((), (3,), (3,), (3,))], ("float64",),
         domain=(1, 4), ops=("AddV2",), id="normalize_moments_shift"),
    Case(lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3), _bn_ref, [((4, 3),), ((2, 2, 5),)],
         FLOATS[2:], gen=_bn_gen, ops=("Rsqrt", "Mul"), id="batch_normalization"),
    Case(lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, None, None, 1e-3),
         lambda x, m, v, o, s: _bn_ref(x, m, v, 0, 1), [((4, 3),)], ("float32",), gen=_bn_gen, ops=("Rsqrt",),
         id="batch_normalization_no_affine"),
    Case(lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3), _bn_ref, [((4, 3),)],
         ("float16",), gen=_bn_gen, ops=("Rsqrt",), id="batch_normalization_f16"),
    Case(lambda *a: tf.compat.v1.nn.fused_batch_norm(*a[:3]), lambda *a: _fbn_ref("NHWC", True)(*a),
         [((2, 3, 3, 4),), ((1, 1, 1, 2),)], ("float32", "float16", "bfloat16"), gen=_fbn_gen(-1),
         ops=("FusedBatchNormV3",), id="fused_batch_norm_train", grad=False),
    Case(lambda *a: tf.compat.v1.nn.fused_batch_norm(*a[:3], data_format="NCHW"), _fbn_ref("NCHW", True),
         [((2, 3, 2, 2),)], ("float32",), gen=_fbn_gen(1), ops=("FusedBatchNormV3",), id="fused_batch_norm_nchw",
         grad=False),
    Case(lambda x, s, o, m, v: tf.compat.v1.nn.fused_batch_norm(x, s, o, m, v, is_training=False),
         _fbn_ref("NHWC", False), [((2, 2, 2, 3),)], ("float32",), gen=_fbn_gen(-1), ops=("FusedBatchNormV3",),
         id="fused_batch_norm_inference", grad=False),
    Case(lambda x, s, o, m, v: tf.compat.v1.nn.fused_batch_norm(x, s, o, m, v, exponential_avg_factor=0.3),
         _fbn_ref("NHWC", True, 0.3), [((3, 2, 2, 3),)], ("float32",), gen=_fbn_gen(-1), ops=("FusedBatchNormV3",),
         id="fused_batch_norm_running_average", grad=False),
    Case(lambda *a: tf.compat.v1.nn.fused_batch_norm(*a[:3], data_format="NCDHW"), _fbn_ref("NCDHW", True),
         [((2, 3, 2, 2, 2),)], ("float32",), gen=_fbn_gen(1), ops=("FusedBatchNormV3",), id="fused_batch_norm_5d",
         grad=False),
    Case(tf.nn.bias_add, _bias_ref(), [((3, 4),), ((2, 2, 2, 3),), ((0, 4),)], ("float32",), gen=_bias_gen(-1),
         ops=("BiasAdd",)),
    Case(tf.nn.bias_add, _bias_ref(), [((3, 4),)], FLOATS + ("int32", "uint8", "complex64"), gen=_bias_gen(-1),
         ops=("BiasAdd",), id="bias_add_dtypes"),
    Case(lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"), _bias_ref(True), [((2, 3, 4, 5),), ((2, 3),)],
         ("float32", "int64"), gen=_bias_gen(1), ops=("BiasAdd",), id="bias_add_nchw"),
    Case(lambda x, b: tf.nn.bias_add(x, b, data_format="NCDHW"), _bias_ref(True), [((2, 3, 1, 1, 2),)],
         ("float32",), gen=_bias_gen(1), ops=("BiasAdd",), id="bias_add_ncdhw"),
    Case(lambda x, b: tf.nn.bias_add(x, b, data_format="NWC"), _bias_ref(), [((2, 3, 4),)],
         ("float64",), gen=_bias_gen(-1), ops=("BiasAdd",), id="bias_add_nwc"),
    Case(tf.nn.embedding_lookup, lambda p, i: p[i], [((6, 3), ()), ((5,), ())], ("float32", "int64"),
         gen=_ids_gen(5, (2, 3)), ops=("GatherV2",)),
    Case(lambda p, i: tf.nn.embedding_lookup(p, i, max_norm=1.0), _clip_ref(1.0, 1), [((6, 3), ())],
         ("float32", "float64"), gen=_ids_gen(6, (4,)), ops=("GatherV2", "Sqrt"), id="embedding_lookup_max_norm"),
    Case(lambda p, i: tf.nn.embedding_lookup(p, i, max_norm=0.5), _clip_ref(0.5, 1), [((6,), ())],
         ("float32",), gen=_ids_gen(6, (4,)), ops=("GatherV2",), id="embedding_lookup_max_norm_scalar_rows"),
    Case(lambda p, i: tf.nn.embedding_lookup([p[:3], p[3:5], p[5:]], i), lambda p, i: p[i], [((7, 2), ())],
         ("float32",), gen=_ids_gen(7, (3, 4)), ops=("ConcatV2", "GatherV2", "FloorDiv"),
         id="embedding_lookup_div_partitions"),
    Case(lambda p, i: tf.compat.v1.nn.embedding_lookup(_mod_table(p, 3), i), lambda p, i: p[i], [((8, 2), ())],
         ("float32",), as_tensors=False, gen=_ids_gen(8, (5,)), ops=("ConcatV2", "GatherV2", "FloorMod"),
         id="embedding_lookup_mod_partitions"),
    Case(lambda p, i: tf.compat.v1.nn.embedding_lookup([p[:4], p[4:]], i, partition_strategy="div"),
         lambda p, i: p[i], [((7, 2), ())], ("float64",), as_tensors=False, gen=_ids_gen(7, (6,)),
         ops=("GatherV2",), id="embedding_lookup_v1_div"),
    Case(tf.nn.lrn, _lrn_ref(), [((1, 2, 2, 7),), ((2, 1, 3, 12),), ((0, 1, 1, 3),)], ("float32",), ops=("LRN",),
         grad=False),
    Case(tf.nn.lrn, _lrn_ref(), [((1, 2, 2, 7),)], ("float16", "bfloat16"), ops=("LRN",), id="lrn_dtypes"),
    Case(lambda x: tf.nn.local_response_normalization(x, depth_radius=2, bias=2.0, alpha=0.5, beta=0.75),
         _lrn_ref(2, 2.0, 0.5, 0.75), [((1, 3, 2, 6),)], ("float32",), ops=("LRN",), id="lrn_args", grad=False),
    Case(lambda x: tf.nn.lrn(x, depth_radius=0), _lrn_ref(0), [((1, 1, 2, 3),)], ("float32",), ops=("LRN",),
         id="lrn_radius0", grad=False),
]


ERRORS = [
    Err(lambda: tf.nn.moments(tf.zeros([2, 3]), [2]), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)"),
    Err(lambda: tf.nn.batch_normalization(tf.constant([1, 2]), 1, 1, None, None, 0), tf.errors.InvalidArgumentError,
        "attr 'T' of int32"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([2, 2, 2]), tf.ones([2]), tf.zeros([2])),
        tf.errors.InvalidArgumentError, r"input must be 4-dimensional\[2,2,2\] \[Op:FusedBatchNormV3\]"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 2]), tf.ones([3]), tf.zeros([2])),
        tf.errors.InvalidArgumentError, "scale must have the same number of elements as the channels of x, got 3 "
                                        "and 2"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 2]), tf.ones([2]), tf.zeros([2]),
                                                 mean=tf.zeros([3]), variance=tf.ones([2]), is_training=False),
        tf.errors.InvalidArgumentError, "When is_training=false, mean must have the same number of elements"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 2], tf.float64), tf.ones([2], tf.float64),
                                                 tf.zeros([2], tf.float64)),
        tf.errors.InvalidArgumentError, "Value for attr 'T' of float64"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 2], tf.float16), tf.ones([2], tf.float16),
                                                 tf.zeros([2], tf.float16)),
        tf.errors.InvalidArgumentError, "Value for attr 'U' of half is not in the list of allowed values: bfloat16, "
                                        "float"),
    Err(lambda: tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 2]), tf.ones([2]), tf.zeros([2]),
                                                 is_training=False),
        ValueError, "Both `mean` and `variance` must be a 1D tensor when `is_training` is False"),
    Err(lambda: tf.nn.bias_add(tf.zeros([3]), [1.0, 2.0, 3.0]), tf.errors.InvalidArgumentError,
        r"Input tensor must be at least 2D: \[3\] \[Op:BiasAdd\]"),
    Err(lambda: tf.nn.bias_add(tf.zeros([3, 4]), [1.0, 2.0, 3.0]), tf.errors.InvalidArgumentError,
        r"Must provide as many biases as the last dimension of the input tensor: \[3\] vs. \[3,4\]"),
    Err(lambda: tf.nn.bias_add(tf.zeros([2, 3, 4]), [1.0] * 4, data_format="NCHW"), tf.errors.InvalidArgumentError,
        r"\[4\] vs. \[2,3,4\]"),
    Err(lambda: tf.nn.bias_add(tf.zeros([3, 4]), [[1.0] * 4]), tf.errors.InvalidArgumentError,
        r"Biases must be 1D: \[1,4\]"),
    Err(lambda: tf.nn.bias_add(tf.zeros([2, 3]), [1.0] * 3, data_format="XYZ"), ValueError,
        "`data_format` must be of the form `N...C` or `NC...`. Received: data_format=XYZ"),
    Err(lambda: tf.nn.bias_add(tf.zeros([3, 4]), tf.zeros([4], tf.float64)), tf.errors.InvalidArgumentError,
        r"cannot compute BiasAdd as input #1\(zero-based\) was expected to be a float tensor but is a double"),
    Err(lambda: tf.nn.bias_add(tf.constant([[True]]), [True]), tf.errors.InvalidArgumentError, "attr 'T' of bool"),
    Err(lambda: tf.nn.dropout(tf.ones([2]), 1.0), ValueError,
        r"`rate` must be a scalar tensor or a float in the range \[0, 1\). Received: rate=1.0"),
    Err(lambda: tf.nn.dropout(tf.ones([2]), -0.1), ValueError, r"in the range \[0, 1\)"),
    Err(lambda: tf.nn.dropout(tf.constant([1, 2]), 0.5), ValueError,
        "`x.dtype` must be a floating point tensor as `x` will be scaled"),
    Err(lambda: tf.nn.dropout(tf.ones([2]), tf.constant(0.5, tf.float64)), ValueError,
        "`x.dtype` must be compatible with `rate.dtype`"),
    Err(lambda: tf.nn.dropout(tf.ones([2]), [0.5]), ValueError, "`rate` must be a scalar or scalar tensor"),
    Err(lambda: tf.nn.embedding_lookup(tf.zeros([6, 2]), [6]), tf.errors.InvalidArgumentError,
        r"indices\[0\] = 6 is not in \[0, 6\)"),
    Err(lambda: tf.nn.embedding_lookup(tf.zeros([6, 2]), [1.0]), tf.errors.InvalidArgumentError, "Tindices"),
    Err(lambda: tf.nn.embedding_lookup([tf.zeros([3, 2]), tf.ones([2, 2])], [5]), tf.errors.InvalidArgumentError,
        r"partitions\[0\] = 2 is not in \[0, 2\)"),
    Err(lambda: tf.nn.embedding_lookup([tf.zeros([3, 1]), tf.ones([3, 1]), tf.ones([1, 1])], [0, 6]),
        tf.errors.InvalidArgumentError, r"indices\[1\] = 1 is not in \[0, 1\)"),
    Err(lambda: tf.nn.embedding_lookup([], [0]), ValueError, "Length of params is currently 0"),
    Err(lambda: tf.compat.v1.nn.embedding_lookup([tf.ones([2, 1])] * 2, [0], partition_strategy="xx"), ValueError,
        "Unrecognized partition strategy: xx"),
    Err(lambda: tf.nn.lrn(tf.zeros([2, 2, 2])), tf.errors.InvalidArgumentError, r"in must be 4-dimensional \[Op:LRN\]"),
    Err(lambda: tf.nn.lrn(tf.zeros([1, 1, 1, 2], tf.float64)), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of float64 is not in the list of allowed values: half, bfloat16, float"),
    Err(lambda: tf.nn.lrn(tf.zeros([1, 1, 1, 2]), depth_radius=-1), tf.errors.InvalidArgumentError, "depth_radius"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# --- dropout: random, so checked by its properties ------------------------------------------

def test_dropout_zeroes_and_rescales():
    x = tf.constant(np.arange(1, 2001, dtype=np.float32).reshape(40, 50))
    y = tf.nn.dropout(x, 0.3, seed=7).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x.numpy()[kept] / 0.7, rtol=1e-6)
    assert 0.6 < kept.mean() < 0.8
    assert y.dtype == np.float32


def test_dropout_keeps_expectation():
    y = tf.nn.dropout(tf.ones([200, 200], tf.float64), 0.5, seed=3).numpy()
    assert abs(y.mean() - 1.0) < 0.05
    assert set(np.unique(y)) <= {0.0, 2.0}


def test_dropout_rate_zero_is_identity():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, 0.0) is x
    assert tf.nn.dropout(x, 0) is x


def test_dropout_tensor_rate_and_dtypes():
    y = tf.nn.dropout(tf.ones([100], tf.float16), tf.constant(0.25, tf.float16), seed=1)
    assert y.dtype == tf.float16
    assert set(np.unique(y.numpy().astype(np.float64))) <= {0.0, np.float64(np.float16(1 / 0.75))}


def test_dropout_noise_shape_broadcasts():
    y = tf.nn.dropout(tf.ones([6, 40]), 0.5, noise_shape=[6, 1], seed=2).numpy()
    assert all(len(set(row)) == 1 for row in y)  # one decision per row
    y = tf.nn.dropout(tf.ones([6, 40]), 0.5, noise_shape=[None, 1], seed=2).numpy()
    assert all(len(set(row)) == 1 for row in y)
    y = tf.nn.dropout(tf.ones([6, 40]), 0.5, noise_shape=[40], seed=2).numpy()
    assert all(len(set(col)) == 1 for col in y.T)  # one decision per column


def test_dropout_seeded_is_reproducible():
    tf.random.set_seed(5)
    a = tf.nn.dropout(tf.ones([50]), 0.5, seed=11).numpy()
    tf.random.set_seed(5)
    b = tf.nn.dropout(tf.ones([50]), 0.5, seed=11).numpy()
    np.testing.assert_array_equal(a, b)


def test_fused_batch_norm_outputs_match_tf():
    x = tf.reshape(tf.range(16.0), [2, 2, 2, 2])
    y, m, v = tf.compat.v1.nn.fused_batch_norm(x, tf.ones([2]), tf.zeros([2]))
    np.testing.assert_allclose(y.numpy().ravel()[:4], [-1.527489, -1.527489, -1.0910635, -1.0910635], rtol=1e-5)
    np.testing.assert_allclose(m.numpy(), [7.0, 8.0])
    np.testing.assert_allclose(v.numpy(), [24.0, 24.0], rtol=1e-6)  # Bessel-corrected, as TF reports
    y, m, v = tf.compat.v1.nn.fused_batch_norm(tf.zeros([0, 1, 1, 2]), tf.ones([2]), tf.zeros([2]))
    assert y.shape == (0, 1, 1, 2) and np.isnan(m.numpy()).all()


def test_lrn_matches_tf():
    x = tf.ones([1, 1, 1, 2], tf.float16)
    np.testing.assert_allclose(tf.nn.lrn(x).numpy().astype(np.float64), [[[[0.577, 0.577]]]], rtol=1e-3)


def test_embedding_lookup_on_variable_and_strings():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tf.nn.embedding_lookup(v, [1]).numpy(), [[3.0, 4.0]])
    r = tf.nn.embedding_lookup(tf.constant(["a", "b"]), [1])
    assert r.numpy().tolist() == [b"b"]
test_compiled = compiled_tests(CASES)
