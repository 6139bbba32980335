"""Programs for TF's top-level misc ops (array_sequence.py, control_misc.py, initializers_v2.py) run by real TF
(tools/record_tf_goldens/op_extras.py -> tests/goldens/array_sequence.json) and by tensorlet
(tests/ops/test_array_sequence.py)."""


def _grad_pass(tf):
    x = tf.constant([1.3, 2.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.round)(x * 3.0)
    return y, tape.gradient(y, x)


def _reverse_grad(tf):
    x = tf.reshape(tf.range(6.0), [2, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reverse_sequence(x, [2, 3], seq_axis=1) * tf.constant([[1.0, 2.0, 3.0]])
    return tape.gradient(y, x)



class _Meters:
    def __init__(self, v):
        self.v = v


def _conversion(tf):
    tf.register_tensor_conversion_function(
        _Meters, lambda x, dtype=None, name=None, as_ref=False: tf.constant(x.v, dtype=dtype or tf.float32))
    return [tf.add(_Meters(2.0), 1.0), tf.convert_to_tensor(_Meters(3.0)), tf.reduce_sum(_Meters([1.0, 2.0]))]


CASES = {
    "histogram_bins": lambda tf: tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0],
                                                               nbins=5),
    "histogram_bins_int": lambda tf: tf.histogram_fixed_width_bins(tf.constant([1, 7, 3]), tf.constant([0, 10]),
                                                                   nbins=4),
    "space_to_batch_paddings": lambda tf: tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]]),
    "space_to_batch_paddings_default": lambda tf: tf.required_space_to_batch_paddings([4, 9], [3, 2]),
    "reverse_sequence": lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 3, 4], seq_axis=1,
                                                       batch_axis=0),
    "reverse_sequence_batch1": lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12.0), [4, 3]),
                                                              tf.constant([2, 0, 4], tf.int64), seq_axis=0,
                                                              batch_axis=1),
    "reverse_sequence_grad": _reverse_grad,
    "reverse_sequence_too_long": lambda tf: tf.reverse_sequence(tf.zeros([2, 3]), [4, 1], seq_axis=1),
    "reverse_sequence_in_function": lambda tf: tf.function(
        lambda x, n: tf.reverse_sequence(x, n, seq_axis=1))(tf.reshape(tf.range(8), [2, 4]), tf.constant([3, 2])),
    "approx_top_k": lambda tf: tf.approx_top_k(tf.constant([[1.0, 5.0, 3.0, 5.0], [2.0, 0.0, 9.0, 1.0]]), 2),
    "extract_volume_patches_same": lambda tf: tf.extract_volume_patches(
        tf.reshape(tf.range(2 * 3 * 3 * 2, dtype=tf.float32), [1, 2, 3, 3, 2]), [1, 1, 2, 2, 1], [1, 1, 2, 2, 1],
        "SAME"),
    "extract_volume_patches_valid": lambda tf: tf.extract_volume_patches(
        tf.reshape(tf.range(3 * 3 * 3, dtype=tf.float32), [1, 3, 3, 3, 1]), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1],
        "VALID"),
    "parallel_stack_eager_raises": lambda tf: tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])]),
    "parallel_stack": lambda tf: tf.function(lambda: tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])]))(),
    "conv_raw": lambda tf: tf.conv(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), tf.ones([2, 2, 1, 1]),
                                   strides=[1, 2, 2, 1], padding="VALID"),
    "conv_raw_same": lambda tf: tf.conv(tf.reshape(tf.range(20.0), [1, 5, 2, 2]), tf.ones([3, 2, 2, 1]),
                                        strides=[1, 1, 1, 1], padding="SAME"),
    "tuple": lambda tf: tf.tuple([tf.constant(1), None, tf.constant([2.0])]),
    "guarantee_const": lambda tf: tf.guarantee_const(tf.constant([1.5])),
    "no_op": lambda tf: tf.no_op(),
    "timestamp_dtype": lambda tf: tf.timestamp().dtype.name,
    "inside_function": lambda tf: [tf.inside_function(), tf.function(lambda: tf.constant(tf.inside_function()))()],
    "is_symbolic_tensor": lambda tf: [tf.is_symbolic_tensor(tf.constant(1)),
                                      tf.function(lambda x: tf.constant(tf.is_symbolic_tensor(x)))(tf.constant(1))],
    "grad_pass_through": _grad_pass,
    "aggregation_method": lambda tf: [tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT,
                                      tf.AggregationMethod.EXPERIMENTAL_TREE,
                                      tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N],
    "critical_section": lambda tf: tf.CriticalSection().execute(lambda: tf.constant(2) * 3),
    "batch_function": lambda tf: tf.nondifferentiable_batch_function(1, 4, 1000)(lambda x: x + 1)(
        tf.constant([1.0, 2.0])),
    "register_gradient_twice": lambda tf: tf.RegisterGradient("Square")(lambda op, g: g),
    "random_normal_init_seeded": lambda tf: tf.random_normal_initializer(seed=3)([2, 2]),
    "random_uniform_init_seeded": lambda tf: tf.random_uniform_initializer(-1.0, 1.0, seed=5)([3]),
    "random_normal_init_f64": lambda tf: tf.random_normal_initializer(1.0, 2.0, seed=7)([3], tf.float64),
    "constant_init": lambda tf: tf.constant_initializer([1, 2])([2]),
    "constant_init_scalar": lambda tf: tf.constant_initializer(3.0)([2, 2]),
    "constant_init_dtype": lambda tf: tf.constant_initializer([[1, 2], [3, 4]])([4], tf.float32),
    "constant_init_bad_size": lambda tf: tf.constant_initializer([1, 2, 3])([2]),
    "ones_init": lambda tf: tf.ones_initializer()([2], tf.int32),
    "zeros_init": lambda tf: tf.zeros_initializer()([1, 2]),
    "init_configs": lambda tf: [tf.zeros_initializer().get_config(), tf.random_normal_initializer().get_config(),
                                tf.random_uniform_initializer().get_config(), tf.constant_initializer(2).get_config()],
    "normal_init_int_raises": lambda tf: tf.random_normal_initializer()([2], tf.int32),
    "device_spec": lambda tf: [tf.DeviceSpec(job="worker", replica=0, task=1, device_type="GPU",
                                             device_index=2).to_string(),
                               repr(tf.DeviceSpec(job="w", device_type="CPU")),
                               tf.DeviceSpec.from_string("/job:ps/task:3/device:CPU:0").to_string(),
                               tf.DeviceSpec.from_string("/gpu:1").to_string(),
                               tf.DeviceSpec(job="a", task=1).replace(job="ps").to_string(),
                               tf.DeviceSpec(job="worker", device_type="GPU", device_index=2).make_merged_spec(
                                   tf.DeviceSpec(task=5, device_type="CPU")).to_string(),
                               tf.DeviceSpec.from_string("/device:GPU:*").to_string(),
                               tf.DeviceSpec().to_string(), tf.DeviceSpec.from_string("/job:x").job],
    "ragged_fill_empty_rows": lambda tf: tf.ragged_fill_empty_rows(
        tf.constant([1, 1, 3], tf.int64), tf.constant([10, 20, 30]), tf.constant(5, tf.int64), tf.constant(-1)),
    "ragged_fill_empty_rows_none_empty": lambda tf: tf.ragged_fill_empty_rows(
        tf.constant([0, 1], tf.int64), tf.constant([1.5, 2.5]), tf.constant(2, tf.int64), tf.constant(0.0)),
    "ragged_fill_empty_rows_grad": lambda tf: tf.ragged_fill_empty_rows_grad(tf.constant([1, 2, 4], tf.int64),
                                                                             tf.constant([1.0, 2, 3, 4, 5, 6])),
    "indexed_slices_spec": lambda tf: [repr(tf.IndexedSlicesSpec([None, 4], tf.float32)),
                                       tf.IndexedSlicesSpec([None, 4]) == tf.IndexedSlicesSpec([None, 4]),
                                       tf.IndexedSlicesSpec([None, 4]).is_compatible_with(tf.IndexedSlicesSpec([3, 4])),
                                       tf.IndexedSlicesSpec([None, 4]).is_compatible_with(
                                           tf.IndexedSlicesSpec([3, 4], tf.int32)),
                                       tf.IndexedSlicesSpec().value_type.__name__],
    "none_tensor_spec": lambda tf: [repr(tf.NoneTensorSpec()), tf.NoneTensorSpec() == tf.NoneTensorSpec(),
                                    tf.NoneTensorSpec().is_compatible_with(tf.NoneTensorSpec())],
    "tensor_conversion_function": _conversion,
    "hessians": lambda tf: tf.function(lambda x, y: tf.hessians(tf.reduce_sum(x ** 3) * y + x[0] * x[1] * y ** 2,
                                                                [x, y]))(tf.constant([1.0, 2.0]), tf.constant(3.0)),
    "hessians_eager_raises": lambda tf: tf.hessians(tf.constant(1.0), tf.constant(1.0)),
    "tensor_conversion_numeric_raises": lambda tf: tf.register_tensor_conversion_function(
        float, lambda x, dtype=None, name=None, as_ref=False: tf.constant(1.0)),
}

