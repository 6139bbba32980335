"""tf.quantization programs run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/quantization.json)
and by tensorlet (tests/ops/test_quantization.py)."""

X = [-7.0, -1.3, -0.2, 0.0, 0.26, 0.9, 2.5, 5.99, 6.5]


def _grads(tf, fn, *extra):
    x = tf.constant(X)
    ws = [tf.Variable(v) for v in extra]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(fn(x, *ws) * tf.range(1.0, 10.0))
    return [y, tape.gradient(y, [x] + ws)]


Q = "quantization"
CASES = {
    "args_default": lambda tf: tf.quantization.fake_quant_with_min_max_args(X),
    "args_bits4_narrow": lambda tf: tf.quantization.fake_quant_with_min_max_args(X, -1.0, 2.0, num_bits=4,
                                                                                 narrow_range=True),
    "args_nudged": lambda tf: tf.quantization.fake_quant_with_min_max_args(X, -0.1, 5.3, num_bits=3),
    "args_grad": lambda tf: _grads(tf, lambda x: tf.quantization.fake_quant_with_min_max_args(x, -1.0, 2.0)),
    "args_gradient_op": lambda tf: tf.quantization.fake_quant_with_min_max_args_gradient(
        tf.ones([9]), X, -1.0, 2.0),
    "args_bad_range": lambda tf: tf.quantization.fake_quant_with_min_max_args(X, 2.0, 1.0),
    "args_bad_bits": lambda tf: tf.quantization.fake_quant_with_min_max_args(X, num_bits=1),
    "vars": lambda tf: tf.quantization.fake_quant_with_min_max_vars(X, -1.5, 2.2, num_bits=5),
    "vars_grad": lambda tf: _grads(tf, lambda x, a, b: tf.quantization.fake_quant_with_min_max_vars(x, a, b),
                                   -1.0, 2.0),
    "vars_gradient_op": lambda tf: tf.quantization.fake_quant_with_min_max_vars_gradient(
        tf.range(1.0, 10.0), X, -1.0, 2.0),
    "per_channel": lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel(
        tf.reshape(X[:8], [4, 2]), [-1.0, 0.0], [1.0, 6.0], num_bits=3),
    "per_channel_gradient_op": lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
        tf.ones([4, 2]), tf.reshape(X[:8], [4, 2]), [-1.0, 0.0], [1.0, 6.0]),
    "per_channel_bad_size": lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel(
        tf.ones([4, 2]), [-1.0], [1.0]),
    "in_function": lambda tf: tf.function(lambda x: tf.quantization.fake_quant_with_min_max_vars(x, -2.0, 2.0))(
        tf.constant(X)),
    "qdq_data_range": lambda tf: tf.quantization.quantize_and_dequantize(X, 0.0, 0.0, num_bits=4),
    "qdq_given": lambda tf: tf.quantization.quantize_and_dequantize(X, -1.0, 2.0, range_given=True, num_bits=3),
    "qdq_unsigned_half_up": lambda tf: tf.quantization.quantize_and_dequantize(
        [0.0, 0.3, 0.5, 1.7, 3.0], 0.0, 3.0, signed_input=False, num_bits=3, range_given=True, round_mode="HALF_UP"),
    "qdq_narrow": lambda tf: tf.quantization.quantize_and_dequantize(X, -6.0, 6.0, range_given=True, num_bits=4,
                                                                     narrow_range=True),
    "qdq_axis": lambda tf: tf.quantization.quantize_and_dequantize(
        tf.reshape(X[:8], [4, 2]), [-1.0, -2.0], [1.0, 6.0], range_given=True, num_bits=3, axis=1),
    "qdq_v2_axis": lambda tf: tf.quantization.quantize_and_dequantize_v2(
        tf.reshape(X[:8], [4, 2]), [-1.0, -2.0], [1.0, 6.0], range_given=True, num_bits=3, axis=1),
    "qdq_v2_axis_data_range": lambda tf: tf.quantization.quantize_and_dequantize_v2(
        tf.reshape(X[:8], [4, 2]), [0.0, 0.0], [0.0, 0.0], num_bits=3, axis=1),
    "qdq_v2": lambda tf: tf.quantization.quantize_and_dequantize_v2(X, -1.0, 2.0, range_given=True, num_bits=3),
    "qdq_f64": lambda tf: tf.quantization.quantize_and_dequantize(tf.constant(X, tf.float64), 0.0, 0.0),
    "qdq_grad": lambda tf: _grads(tf, lambda x: tf.quantization.quantize_and_dequantize(x, -1.0, 2.0,
                                                                                        range_given=True)),
    "qdq_v2_grad": lambda tf: _grads(tf, lambda x: tf.quantization.quantize_and_dequantize_v2(x, -1.0, 2.0,
                                                                                              range_given=True)),
    "qdq_bad_round_mode": lambda tf: tf.quantization.quantize_and_dequantize(X, -1.0, 1.0, round_mode="UP"),
}
