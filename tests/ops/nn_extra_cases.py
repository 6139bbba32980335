"""tf.nn additions run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/nn_extra.json) and by
tensorlet (tests/ops/test_nn_extra.py)."""


def _img(tf):
    return tf.reshape(tf.constant([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0, 8.0, 9.0, 7.0, 9.0, 3.0,
                                   2.0, 3.0, 8.0, 4.0]), [1, 4, 5, 1])


def _dil_grad(tf):
    x = _img(tf)
    w = tf.constant([[[0.5], [0.0]], [[1.0], [0.2]]])
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.reduce_sum(tf.nn.dilation2d(x, w, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]))
    return tape.gradient(y, [x, w])


def _iso_grad(tf):
    x = tf.constant([[1.0, 3.0, 2.0, 4.0, 0.5]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.isotonic_regression(x)[0] * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
    return tape.gradient(y, x)



def _wstb(tf, rate, padding, filter_shape):
    x = tf.reshape(tf.range(2 * 7 * 7 * 1, dtype=tf.float32), [2, 7, 7, 1])
    w = tf.reshape(tf.range(9.0), [3, 3, 1, 1])
    return tf.nn.with_space_to_batch(x, rate, padding, lambda i, n, p: tf.nn.convolution(i, w, padding=p),
                                     filter_shape=filter_shape)


def _ctc_logits(tf):
    return tf.reshape(tf.math.sin(tf.range(50.0)), [5, 2, 5]) * 2.0


def _ctc_grad(tf):
    x = _ctc_logits(tf)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.ctc_loss(tf.constant([[1, 2, 2], [3, 0, 0]]), x, [3, 1], [5, 4]))
    return tape.gradient(loss, x)


W = [[[0.5], [0.0]], [[1.0], [0.2]]]
CASES = {
    "stateless_dropout": lambda tf: tf.nn.experimental.stateless_dropout(tf.ones([3, 4]), 0.4, seed=[1, 2]),
    "stateless_dropout_noise_shape": lambda tf: tf.nn.experimental.stateless_dropout(
        tf.ones([3, 4]), 0.5, seed=[7, 0], noise_shape=[3, 1]),
    "general_dropout": lambda tf: tf.nn.experimental.general_dropout(
        tf.ones([4]), 0.5, lambda shape, dtype: tf.constant([0.1, 0.6, 0.5, 0.9], dtype)),
    "dropout_rate_raises": lambda tf: tf.nn.experimental.stateless_dropout(tf.ones([2]), 1.5, seed=[1, 2]),
    "bn_global": lambda tf: tf.nn.batch_norm_with_global_normalization(
        tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1.0, 2.0]), tf.constant([4.0, 1.0]),
        tf.constant([0.5, 0.0]), tf.constant([2.0, 3.0]), 0.001, True),
    "bn_global_noscale": lambda tf: tf.nn.batch_norm_with_global_normalization(
        tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1.0, 2.0]), tf.constant([4.0, 1.0]),
        tf.constant([0.5, 0.0]), tf.constant([2.0, 3.0]), 0.001, False),
    "isotonic_int8": lambda tf: tf.nn.isotonic_regression(tf.constant([[1, 3, 2, 2]], tf.int8)),
    "isotonic_ties": lambda tf: tf.nn.isotonic_regression(tf.constant([[2.0, 2.0, 3.0, 1.0, 1.0]])),
    "dilation_valid": lambda tf: tf.nn.dilation2d(_img(tf), tf.constant(W), [1, 1, 1, 1], "VALID", "NHWC",
                                                  [1, 1, 1, 1]),
    "dilation_same_strided_rate2": lambda tf: tf.nn.dilation2d(_img(tf), tf.constant(W), [1, 2, 2, 1], "SAME",
                                                               "NHWC", [1, 2, 2, 1]),
    "dilation_grad": _dil_grad,
    "erosion_same": lambda tf: tf.nn.erosion2d(_img(tf), tf.constant(W), [1, 1, 1, 1], "SAME", "NHWC",
                                               [1, 1, 1, 1]),
    "collapse_repeated": lambda tf: tf.nn.collapse_repeated(tf.constant([[1, 1, 2, 2, 2, 3], [4, 4, 4, 5, 5, 0]]),
                                                            tf.constant([6, 4])),
    "ctc_unique_labels": lambda tf: tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 1, 1]])),
    "isotonic": lambda tf: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0, 2.0, 4.0, 0.5], [5.0, 4.0, 3.0, 2.0,
                                                                                            1.0]])),
    "isotonic_increasing": lambda tf: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0, 2.0, 4.0, 0.5]]),
                                                                decreasing=False),
    "isotonic_axis0": lambda tf: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0], [2.0, 1.0], [4.0, 0.0]]),
                                                           axis=0),
    "isotonic_int": lambda tf: tf.nn.isotonic_regression(tf.constant([[1, 3, 2]])),
    "isotonic_f64": lambda tf: tf.nn.isotonic_regression(tf.constant([[1.0, 3.0, 2.0]], tf.float64)),
    "isotonic_grad": _iso_grad,
    "ctc_loss": lambda tf: tf.nn.ctc_loss(tf.constant([[1, 2, 2], [3, 0, 0]]), _ctc_logits(tf), [3, 1], [5, 4]),
    "ctc_loss_blank_last": lambda tf: tf.nn.ctc_loss(tf.constant([[1, 2, 2], [3, 0, 0]]), _ctc_logits(tf), [3, 1],
                                                     [5, 4], blank_index=-1),
    "ctc_loss_batch_major": lambda tf: tf.nn.ctc_loss(tf.constant([[1, 2], [3, 3]]),
                                                      tf.transpose(_ctc_logits(tf), [1, 0, 2]), [2, 2], [5, 5],
                                                      logits_time_major=False, blank_index=4),
    "ctc_loss_sparse": lambda tf: tf.nn.ctc_loss(tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 3]),
                                                 _ctc_logits(tf), None, [5, 4], blank_index=0),
    "ctc_loss_grad": _ctc_grad,
    "with_space_to_batch_same": lambda tf: _wstb(tf, [2, 2], "SAME", [3, 3]),
    "with_space_to_batch_valid": lambda tf: _wstb(tf, [2, 3], "VALID", None),
    "with_space_to_batch_rate1": lambda tf: _wstb(tf, [1, 1], "SAME", [3, 3]),
}

