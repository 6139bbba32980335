"""Gradients of reductions, scans, sorting and segment ops: TF's conventions, checked against real TF 2.21.

The expected values below were computed with TensorFlow 2.21 on the same inputs (ties, zeros, NaN, empty and
negative segment ids: the cases finite differences cannot check).  Smooth behaviour is checked against finite
differences, first and second order, by tests/autodiff/test_op_gradients.py from the CASES tables.
"""

import numpy as np
import pytest

import tensorlet as tf

NAN = np.nan
IDS = np.array([0, 0, 1, 3, 3])
UIDS = np.array([1, -1, 0, 1, 3])  # -1 is dropped


def grads(f, *xs):
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return tape.gradient(y, ts)


# (id, function of the inputs (summed by the tape), inputs, TF 2.21's gradient wrt the first input)
TF_CASES = [
    ("max_ties", lambda x: tf.reduce_max(x), [[1.0, 3.0, 3.0, 2.0]], [0.0, 0.5, 0.5, 0.0]),
    ("max_ties_axis", lambda x: tf.reduce_max(x, axis=1) * [1.0, 2.0], [[[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]]],
     [[0.0, 0.5, 0.5], [2 / 3, 2 / 3, 2 / 3]]),
    ("min_ties_keepdims", lambda x: tf.reduce_min(x, axis=0, keepdims=True), [[[1.0, 3.0], [1.0, 2.0]]],
     [[0.5, 0.0], [0.5, 1.0]]),
    ("max_nan", lambda x: tf.reduce_max(x), [[1.0, NAN, 3.0]], [NAN, NAN, NAN]),
    ("max_all_neg_inf", lambda x: tf.reduce_max(x), [[-np.inf, -np.inf]], [0.5, 0.5]),
    ("prod_one_zero", lambda x: tf.reduce_prod(x), [[0.0, 2.0, 3.0]], [6.0, 0.0, 0.0]),
    ("prod_zeros_axis", lambda x: tf.reduce_prod(x, axis=1), [[[0.0, 2.0, 0.0], [1.0, 0.0, 4.0]]],
     [[0.0, 0.0, 0.0], [0.0, 4.0, 0.0]]),
    ("prod_axes_02", lambda x: tf.reduce_prod(x, axis=[0, 2]), [np.arange(12.0).reshape(2, 3, 2) - 3],
     [[[-24.0, -36.0], [0.0, -30.0], [112.0, 56.0]], [[24.0, 18.0], [0.0, 0.0], [16.0, 14.0]]]),
    ("prod_complex", lambda x: tf.math.real(tf.reduce_prod(x)), [[1 + 2j, 3 - 1j]], [3 + 1j, 1 - 2j]),
    ("prod_empty_axis", lambda x: tf.reduce_prod(x, axis=[]), [[2.0, 3.0]], [1.0, 1.0]),
    ("norm_zero", lambda x: tf.math.reduce_euclidean_norm(x), [[0.0, 0.0]], [NAN, NAN]),
    ("norm_zero_row", lambda x: tf.math.reduce_euclidean_norm(x, axis=1), [[[0.0, 0.0], [3.0, 4.0]]],
     [[NAN, NAN], [0.6, 0.8]]),
    ("norm_complex", lambda x: tf.math.reduce_euclidean_norm(x), [[3 + 4j, 1j]],
     [0.5883484054145521 + 0.7844645405527362j, 0.19611613513818404j]),
    ("sum_complex", lambda x: tf.math.real(tf.reduce_sum(x * x)), [[3 + 4j, 1j]], [6 - 8j, -2j]),
    ("mean_axes", lambda x: tf.reduce_mean(x, axis=[0, 2]), [np.ones((2, 3, 2))], np.full((2, 3, 2), 0.25)),
    ("max_empty", lambda x: tf.reduce_max(x, axis=1), [np.zeros((2, 0))], np.zeros((2, 0))),
    ("logsumexp", lambda x: tf.reduce_logsumexp(x), [[1.0, 2.0, 3.0]],
     [0.09003057317038045, 0.2447284710547976, 0.6652409557748218]),
    ("logsumexp_all_neg_inf", lambda x: tf.reduce_logsumexp(x), [[-np.inf, -np.inf]], [NAN, NAN]),
    ("logsumexp_inf", lambda x: tf.reduce_logsumexp(x), [[np.inf, 1.0]], [NAN, 0.0]),
    ("std_constant", lambda x: tf.math.reduce_std(x), [[2.0, 2.0, 2.0]], [NAN, NAN, NAN]),
    ("variance_complex", lambda x: tf.math.reduce_variance(x), [[1 + 1j, 2.0 + 0j, 4j]],
     [-0.4444444444444444j, 0.6666666666666666 - 1.1111111111111112j, -0.6666666666666666 + 1.5555555555555554j]),
    # scans
    ("cumprod_zero", lambda x: tf.math.cumprod(x), [[2.0, 0.0, 3.0, 4.0]], [1.0, 0.0, 0.0, 0.0]),
    ("cumprod_zero_exclusive_reverse",
     lambda x: tf.math.cumprod(x, exclusive=True, reverse=True) * [1.0, 2.0, 3.0, 4.0], [[2.0, 0.0, 3.0, 4.0]],
     [0.0, 0.0, 8.0, 9.0]),
    ("cumprod_complex", lambda x: tf.math.real(tf.math.cumprod(x)), [[1 + 2j, 3 - 1j]], [4 - 1j, 1 + 2j]),
    ("cumsum_exclusive_reverse", lambda x: tf.math.cumsum(x, exclusive=True, reverse=True) * [1.0, 2.0, 3.0, 4.0],
     [[2.0, 0.0, 3.0, 4.0]], [0.0, 1.0, 3.0, 6.0]),
    ("cumlse", lambda x: tf.math.cumulative_logsumexp(x) * [1.0, -2.0, 3.0, 0.0], [[2.0, 0.0, 3.0, 4.0]],
     [0.016895225071492437, -0.13304876316621594, 2.1161535380947227, 0.0]),
    ("cumlse_exclusive_with_neg_inf",
     lambda x: tf.math.cumulative_logsumexp(x, exclusive=True) * [1.0, -2.0, 3.0, 0.5], [[2.0, 0.0, 3.0, 4.0]],
     [0.772139464104856, 0.3751682795460224, 0.3526922563491205, 0.0]),
    # sorting: ties keep index order (lowest index first, ascending and descending)
    ("top_k_ties", lambda x: tf.math.top_k(x, 3).values * [1.0, 2.0, 3.0], [[1.0, 3.0, 3.0, 2.0, 3.0]],
     [0.0, 1.0, 2.0, 0.0, 3.0]),
    ("top_k_2d", lambda x: tf.math.top_k(x, 2).values * [[1.0, 2.0], [3.0, 4.0]],
     [[[1.0, 3.0, 2.0], [5.0, 4.0, 6.0]]], [[0.0, 1.0, 2.0], [4.0, 0.0, 3.0]]),
    ("sort_ties", lambda x: tf.sort(x) * [1.0, 2.0, 3.0, 4.0, 5.0], [[1.0, 3.0, 3.0, 2.0, 3.0]],
     [1.0, 3.0, 4.0, 2.0, 5.0]),
    ("sort_ties_descending", lambda x: tf.sort(x, direction="DESCENDING") * [1.0, 2.0, 3.0, 4.0, 5.0],
     [[1.0, 3.0, 3.0, 2.0, 3.0]], [5.0, 1.0, 2.0, 4.0, 3.0]),
    ("sort_axis0", lambda x: tf.sort(x, axis=0) * [[1.0, 2.0], [3.0, 4.0]], [[[3.0, 1.0], [2.0, 5.0]]],
     [[3.0, 2.0], [1.0, 4.0]]),
    # segments
    ("segment_sum", lambda x: tf.math.segment_sum(x, IDS) * [1.0, 2.0, 3.0, 4.0], [[1.0, 2.0, 3.0, 4.0, 5.0]],
     [1.0, 1.0, 2.0, 4.0, 4.0]),
    ("segment_mean", lambda x: tf.math.segment_mean(x, IDS) * [1.0, 2.0, 3.0, 4.0], [[1.0, 2.0, 3.0, 4.0, 5.0]],
     [0.5, 0.5, 2.0, 2.0, 2.0]),
    ("segment_max_ties", lambda x: tf.math.segment_max(x, IDS) * [1.0, 2.0, 3.0, 4.0], [[2.0, 2.0, 3.0, 4.0, 5.0]],
     [0.5, 0.5, 2.0, 0.0, 4.0]),
    ("segment_min_ties", lambda x: tf.math.segment_min(x, IDS) * [1.0, 2.0, 3.0, 4.0], [[2.0, 2.0, 3.0, 5.0, 5.0]],
     [0.5, 0.5, 2.0, 2.0, 2.0]),
    ("segment_prod_zeros", lambda x: tf.math.segment_prod(x, IDS) * [1.0, 2.0, 3.0, 4.0],
     [[0.0, 2.0, 0.0, 0.0, 0.0]], [2.0, 0.0, 2.0, 0.0, 0.0]),
    ("segment_prod", lambda x: tf.math.segment_prod(x, IDS) * [1.0, 2.0, 3.0, 4.0], [[1.5, 2.0, 3.0, 0.0, 5.0]],
     [2.0, 1.5, 2.0, 20.0, 0.0]),
    ("unsorted_sum_negative_id", lambda x: tf.math.unsorted_segment_sum(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[1.0, 2.0, 3.0, 4.0, 5.0]], [2.0, 0.0, 1.0, 2.0, 4.0]),
    ("unsorted_max_ties", lambda x: tf.math.unsorted_segment_max(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[5.0, 9.0, 3.0, 5.0, 5.0]], [1.0, 0.0, 1.0, 1.0, 4.0]),
    ("unsorted_min_ties", lambda x: tf.math.unsorted_segment_min(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[5.0, -9.0, 3.0, 5.0, 5.0]], [1.0, 0.0, 1.0, 1.0, 4.0]),
    ("unsorted_prod_zero", lambda x: tf.math.unsorted_segment_prod(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[0.0, 9.0, 3.0, 5.0, 5.0]], [10.0, 0.0, 1.0, 0.0, 4.0]),
    ("unsorted_prod_two_zeros", lambda x: tf.math.unsorted_segment_prod(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[0.0, 0.0, 3.0, 0.0, 5.0]], [0.0, 0.0, 1.0, 0.0, 4.0]),
    ("unsorted_mean", lambda x: tf.math.unsorted_segment_mean(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[1.0, 2.0, 3.0, 4.0, 5.0]], [1.0, 0.0, 1.0, 1.0, 4.0]),
    ("unsorted_sqrt_n", lambda x: tf.math.unsorted_segment_sqrt_n(x, UIDS, 4) * [1.0, 2.0, 3.0, 4.0],
     [[1.0, 2.0, 3.0, 4.0, 5.0]], [2 ** 0.5, 0.0, 1.0, 2 ** 0.5, 4.0]),
    ("unsorted_2d_ids", lambda x: tf.math.unsorted_segment_sum(x, [[0, -1], [1, 1]], 2) * [[1.0, 2.0], [3.0, 4.0]],
     [np.arange(8.0).reshape(2, 2, 2)], [[[1.0, 2.0], [0.0, 0.0]], [[3.0, 4.0], [3.0, 4.0]]]),
    ("confusion_matrix_weights", lambda w: tf.math.confusion_matrix([0, 1, 1], [1, 1, 0], num_classes=2, weights=w,
                                                                    dtype=tf.float64), [[1.0, 2.0, 3.0]],
     [1.0, 1.0, 1.0]),
]


@pytest.mark.parametrize("fn, inputs, expected", [pytest.param(*c[1:], id=c[0]) for c in TF_CASES])
def test_matches_tf(fn, inputs, expected):
    (g,) = grads(fn, *[np.asarray(x) for x in inputs])
    np.testing.assert_allclose(np.asarray(g), np.asarray(expected), rtol=1e-12, atol=1e-12)


def _second(f, x):
    """(gradient, d/dx sum(gradient)) by nested tapes."""
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g, outer.gradient(g, x)


def test_prod_second_order_at_zero_as_tf():
    # TF's reduce_prod gradient goes through exclusive cumprods whose own gradient divides with divide_no_nan, so
    # the second derivative at a zero entry is 0 (TF 2.21: [0, 3, 2]; the true value would be [5, 3, 2]).
    g, h = _second(tf.reduce_prod, np.array([0.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g.numpy(), [6.0, 0.0, 0.0])
    np.testing.assert_array_equal(h.numpy(), [0.0, 3.0, 2.0])
    g, h = _second(tf.reduce_prod, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(h.numpy(), [5.0, 4.0, 3.0])


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32])
def test_low_precision_dtypes(dtype):
    x = tf.constant([2.0, 3.0, 1.0], dtype)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s, m, mx = tf.reduce_sum(x), tf.reduce_mean(x), tf.reduce_max(x)
        c = tf.math.cumsum(x)
    for y, want in ((s, [1, 1, 1]), (m, [1 / 3] * 3), (mx, [0, 1, 0]), (c, [3, 2, 1])):
        g = tape.gradient(y, x)
        assert g.dtype == dtype
        np.testing.assert_allclose(g.numpy().astype(np.float64), want, rtol=1e-2)


def test_sum_gradient_of_integer_input_is_none():
    x = tf.constant([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x)
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("fn, name", [
    (lambda x: tf.unique(x).y, "Unique"),
    (lambda x: tf.unique_with_counts(x).y, "UniqueWithCounts"),
    (lambda x: tf.math.bincount([0, 1, 1], weights=x), "DenseBincount"),
])
def test_no_gradient_registered_as_tf(fn, name):
    # TF 2.21 registers no gradient for these: tape.gradient raises LookupError
    x = tf.constant([1.0, 3.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    with pytest.raises(LookupError, match=f"gradient registry has no entry for: {name}"):
        tape.gradient(y, x)


def test_unique_index_output_is_unconnected():
    # only the integer idx output is used: nothing flows back, as in TF
    x = tf.constant([1.0, 3.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.unique(x).idx, tf.float32) * 2.0
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("fn", [
    lambda x: tf.cast(tf.argmax(x), tf.float32),
    lambda x: tf.cast(tf.argsort(x), tf.float32),
    lambda x: tf.cast(tf.math.top_k(x, 2).indices, tf.float32),
    lambda x: tf.cast(tf.searchsorted(x, [2.0]), tf.float32),
    lambda x: tf.cast(tf.math.count_nonzero(x), tf.float32),
    lambda x: tf.cast(tf.reduce_any(x > 1.0), tf.float32),
])
def test_integer_outputs_have_no_gradient(fn):
    x = tf.constant([1.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    assert tape.gradient(y, x) is None


def test_variable_through_reductions():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.reduce_max(v, axis=1)) + tf.reduce_sum(tf.math.cumsum(v, axis=1))
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [[2.0, 1.5], [2.0, 1.5]])


# forward mode (ForwardAccumulator): TF 2.21's JVPs at X with tangent V
X = np.array([[1.0, 5.0, 3.0], [2.0, 0.0, 4.0]])
V = np.array([[0.5, -1.0, 2.0], [1.0, 3.0, -2.0]])
JVP_CASES = [
    ("sum", lambda x: tf.reduce_sum(x, axis=1), [1.5, 2.0]),
    ("max", lambda x: tf.reduce_max(x, axis=0), [1.0, -1.0, -2.0]),
    ("prod", lambda x: tf.reduce_prod(x, axis=1), [14.5, 24.0]),
    ("norm", lambda x: tf.math.reduce_euclidean_norm(x, axis=1), [0.2535462764, -1.3416407865]),
    ("norm_at_zero", lambda x: tf.math.reduce_euclidean_norm(x * 0.0, axis=1), [NAN, NAN]),
    ("cumprod_zero", lambda x: tf.math.cumprod(x, axis=1, reverse=True), [[14.5, 7.0, 2.0], [0.0, 0.0, -2.0]]),
    ("cumlse", lambda x: tf.math.cumulative_logsumexp(x, axis=1),
     [[0.5, -0.9730206851, -0.6242543566], [1.0, 1.238405844, -1.5686875166]]),
    ("cumlse_exclusive", lambda x: tf.math.cumulative_logsumexp(x, axis=0, exclusive=True),
     [[NAN, NAN, NAN], [0.5, -1.0, 2.0]]),
    ("top_k", lambda x: tf.math.top_k(x, 2).values, [[-1.0, 2.0], [-2.0, 1.0]]),
    ("sort", lambda x: tf.sort(x, axis=0), [[0.5, 3.0, 2.0], [1.0, -1.0, -2.0]]),
    ("segment_prod", lambda x: tf.math.segment_prod(x, [0, 0]), [[2.0, 15.0, 2.0]]),
    ("unsorted_min_empty_segment", lambda x: tf.math.unsorted_segment_min(x, [1, -1], 2),
     [[NAN, NAN, NAN], [0.5, -1.0, 2.0]]),
    ("std", lambda x: tf.math.reduce_std(x, axis=0), [0.25, -2.0, -2.0]),
]


@pytest.mark.parametrize("fn, expected", [pytest.param(*c[1:], id=c[0]) for c in JVP_CASES])
def test_forward_mode_matches_tf(fn, expected):
    x = tf.constant(X)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(V)) as acc:
        y = fn(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-9, atol=1e-9)
