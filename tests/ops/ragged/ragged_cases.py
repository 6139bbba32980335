"""RaggedTensor programs, run by real TF (tools/record_tf_goldens/ragged.py -> tests/goldens/ragged.json) and
by tensorlet (tests/ops/ragged/test_ragged_goldens.py)."""

import numpy as np


def _rt(tf):
    return tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])


def _rtf(tf):
    return tf.ragged.constant([[1.5, -2.0], [3.25], [], [4.0, 5.0, -6.5]])


def _grad_flat(tf):
    x = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as t:
        rt = tf.RaggedTensor.from_row_lengths(x * 2.0, [3, 0, 1])
        y = tf.reduce_sum(tf.reduce_max(rt * rt, axis=1) + tf.reduce_sum(rt.to_tensor(), axis=1))
    return t.gradient(y, x)


def _grad_ops(tf):
    x = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as t:
        rt = tf.RaggedTensor.from_row_splits(x, [0, 1, 3])
        g = tf.gather(rt, [1, 0])
        c = tf.concat([g, rt], axis=1)
        y = tf.reduce_sum(tf.reduce_mean(tf.sin(c) * tf.constant([1.0, 2.0]), axis=1) * tf.constant([[1.0], [2.0]]))
    return t.gradient(y, x)


CASES = {
    # constructors
    "constant": lambda tf: _rt(tf),
    "constant_float": lambda tf: _rtf(tf),
    "constant_str": lambda tf: tf.ragged.constant([["a", "bc"], [], ["d"]]),
    "constant_nested": lambda tf: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]]),
    "constant_rr1_inner": lambda tf: tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1),
    "constant_inner_shape": lambda tf: tf.ragged.constant([[1, 2, 3, 4], [5, 6]], inner_shape=(2,)),
    "constant_dtype": lambda tf: tf.ragged.constant([[1, 2], [3]], dtype=tf.float64),
    "constant_splits32": lambda tf: tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32),
    "constant_empty_rows": lambda tf: tf.ragged.constant([[], []]),
    "constant_bad_depth": lambda tf: tf.ragged.constant([[1, [2]], [3]]),
    "from_row_splits": lambda tf: tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5]),
    "from_row_splits_bad": lambda tf: tf.RaggedTensor.from_row_splits([3, 1, 4], [0, 2, 2, 5]),
    "from_row_lengths": lambda tf: tf.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5], [2, 0, 3]),
    "from_value_rowids": lambda tf: tf.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5], [0, 0, 2, 2, 3], nrows=5),
    "from_row_starts": lambda tf: tf.RaggedTensor.from_row_starts([3, 1, 4, 1, 5], [0, 2, 2]),
    "from_row_limits": lambda tf: tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [2, 2, 5]),
    "from_uniform_row_length": lambda tf: tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2),
    "from_nested_row_splits": lambda tf: tf.RaggedTensor.from_nested_row_splits(
        [1, 2, 3, 4, 5], ([0, 2, 3], [0, 1, 3, 5])),
    "from_nested_row_lengths": lambda tf: tf.RaggedTensor.from_nested_row_lengths(
        [1, 2, 3, 4, 5], ([2, 1], [1, 2, 2])),
    "from_tensor": lambda tf: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
    "from_tensor_padding": lambda tf: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0]], padding=0),
    "from_tensor_lengths": lambda tf: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]),
    "from_tensor_rr2": lambda tf: tf.RaggedTensor.from_tensor(np.arange(12).reshape(2, 2, 3), ragged_rank=2),
    "from_tensor_3d_padding": lambda tf: tf.RaggedTensor.from_tensor(
        [[[1, 1], [0, 0]], [[2, 2], [3, 3]]], padding=[0, 0]),
    # components and shapes
    "values": lambda tf: _rt(tf).values,
    "row_splits": lambda tf: _rt(tf).row_splits,
    "row_lengths": lambda tf: _rt(tf).row_lengths(),
    "value_rowids": lambda tf: _rt(tf).value_rowids(),
    "nrows": lambda tf: _rt(tf).nrows(),
    "row_starts": lambda tf: _rt(tf).row_starts(),
    "row_limits": lambda tf: _rt(tf).row_limits(),
    "flat_values_nested": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).flat_values,
    "nested_row_splits": lambda tf: list(tf.ragged.constant([[[1, 2], [3]], [[4]]]).nested_row_splits),
    "nested_row_lengths": lambda tf: list(tf.ragged.constant([[[1, 2], [3]], [[4]]]).nested_row_lengths()),
    "ragged_rank": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).ragged_rank,
    "shape": lambda tf: repr(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).shape),
    "bounding_shape": lambda tf: _rt(tf).bounding_shape(),
    "bounding_shape_nested": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6, 7]]]).bounding_shape(),
    "spec": lambda tf: repr(tf.RaggedTensorSpec.from_value(_rt(tf))),
    "spec_ctor": lambda tf: repr(tf.RaggedTensorSpec([None, None, 3], tf.float32, 1)),
    "to_tensor": lambda tf: _rt(tf).to_tensor(),
    "to_tensor_default": lambda tf: _rtf(tf).to_tensor(default_value=9.0),
    "to_tensor_shape": lambda tf: _rt(tf).to_tensor(shape=[2, 5]),
    "to_tensor_nested": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_tensor(),
    "to_tensor_str": lambda tf: tf.ragged.constant([["a"], ["b", "c"]]).to_tensor(),
    "to_list": lambda tf: _rtf(tf).to_list(),
    "numpy_ragged": lambda tf: repr(_rt(tf).numpy()),
    "numpy_uniform": lambda tf: repr(tf.ragged.constant([[1, 2], [3, 4]]).numpy()),
    "merge_dims": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(0, 1),
    "merge_dims_all": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(0, 2),
    "merge_dims_inner": lambda tf: tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).merge_dims(1, 2),
    "with_flat_values": lambda tf: _rt(tf).with_flat_values(tf.range(6) * 10),
    "with_values": lambda tf: _rt(tf).with_values(tf.constant([1.0, 2, 3, 4, 5, 6])),
    "with_row_splits_dtype": lambda tf: _rt(tf).with_row_splits_dtype(tf.int32),
    "uniform_row_length": lambda tf: tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2).uniform_row_length,
    # printing
    "repr_uniform": lambda tf: repr(tf.ragged.constant([[1, 2], [3, 4]])),
    "repr_long": lambda tf: repr(tf.ragged.constant([[i] * (i % 3) for i in range(12)])),
    "str": lambda tf: str(_rtf(tf)),
    # elementwise dispatch
    "add_scalar": lambda tf: _rt(tf) + 1,
    "radd_scalar": lambda tf: 10 - _rt(tf),
    "mul_ragged": lambda tf: _rt(tf) * _rt(tf),
    "add_dense_col": lambda tf: _rt(tf) + tf.constant([[10], [20], [30], [40]]),
    "add_dense_inner": lambda tf: tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
    + tf.constant([10, 100]),
    "tf_add": lambda tf: tf.add(_rt(tf), 2),
    "tf_maximum": lambda tf: tf.maximum(_rt(tf), 3),
    "neg": lambda tf: -_rt(tf),
    "abs": lambda tf: tf.abs(_rtf(tf)),
    "exp": lambda tf: tf.exp(_rtf(tf)),
    "cast": lambda tf: tf.cast(_rt(tf), tf.float32),
    "equal": lambda tf: tf.equal(_rt(tf), 3),
    "greater": lambda tf: _rt(tf) > 2,
    "logical_not": lambda tf: tf.logical_not(_rt(tf) > 2),
    "sqrt": lambda tf: tf.math.sqrt(tf.cast(_rt(tf), tf.float32)),
    "ones_like": lambda tf: tf.ones_like(_rt(tf)),
    "mismatched_splits": lambda tf: _rt(tf) + tf.ragged.constant([[1], [2], [3], [4]]),
    "truediv": lambda tf: _rt(tf) / 2,
    "floordiv": lambda tf: _rt(tf) // 2,
    "map_flat_values": lambda tf: tf.ragged.map_flat_values(tf.multiply, _rt(tf), 3),
    "map_flat_values_two": lambda tf: tf.ragged.map_flat_values(tf.add, _rt(tf), _rt(tf)),
    # reductions
    "reduce_sum_1": lambda tf: tf.reduce_sum(_rt(tf), axis=1),
    "reduce_sum_0": lambda tf: tf.reduce_sum(_rt(tf), axis=0),
    "reduce_sum_all": lambda tf: tf.reduce_sum(_rt(tf)),
    "reduce_sum_both": lambda tf: tf.reduce_sum(_rt(tf), axis=[0, 1]),
    "reduce_max_1": lambda tf: tf.reduce_max(_rtf(tf), axis=1),
    "reduce_min_1": lambda tf: tf.reduce_min(_rt(tf), axis=1),
    "reduce_mean_1": lambda tf: tf.reduce_mean(_rtf(tf), axis=1),
    "reduce_mean_0": lambda tf: tf.reduce_mean(_rtf(tf), axis=0),
    "reduce_prod_1": lambda tf: tf.reduce_prod(_rt(tf), axis=1),
    "reduce_any_1": lambda tf: tf.reduce_any(_rt(tf) > 2, axis=1),
    "reduce_all_1": lambda tf: tf.reduce_all(_rt(tf) > 2, axis=1),
    "reduce_sum_neg": lambda tf: tf.reduce_sum(_rt(tf), axis=-1),
    "reduce_sum_nested_2": lambda tf: tf.reduce_sum(tf.ragged.constant([[[1, 2], [3]], [[4]]]), axis=2),
    "reduce_sum_inner_dense": lambda tf: tf.reduce_sum(
        tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1), axis=2),
    # array ops
    "concat_0": lambda tf: tf.concat([_rt(tf), tf.ragged.constant([[7], [8, 9]])], axis=0),
    "concat_1": lambda tf: tf.concat([_rt(tf), _rt(tf) * 10], axis=1),
    "concat_dense": lambda tf: tf.concat([tf.ragged.constant([[1, 2], [3]]), tf.constant([[4, 5], [6, 7]])], 0),
    "stack_0": lambda tf: tf.stack([_rt(tf), _rt(tf) + 1], axis=0),
    "stack_1": lambda tf: tf.stack([_rt(tf), _rt(tf) + 1], axis=1),
    "ragged_stack": lambda tf: tf.ragged.stack([tf.constant([1, 2]), tf.constant([3, 4, 5])]),
    "gather": lambda tf: tf.gather(_rt(tf), [3, 0, 0]),
    "gather_2d": lambda tf: tf.gather(_rt(tf), [[3, 0], [1, 2]]),
    "gather_ragged_indices": lambda tf: tf.gather(tf.constant([10, 20, 30]), tf.ragged.constant([[0, 2], [1]])),
    "gather_oob": lambda tf: tf.gather(_rt(tf), [7]),
    "boolean_mask_ragged": lambda tf: tf.ragged.boolean_mask(_rt(tf), tf.equal(_rt(tf) % 2, 0)),
    "boolean_mask_rows": lambda tf: tf.ragged.boolean_mask(_rt(tf), [True, False, True, True]),
    "where_3": lambda tf: tf.where(_rt(tf) > 2, _rt(tf), _rt(tf) * 0 - 1),
    "where_1": lambda tf: tf.where(_rt(tf) > 2),
    "size": lambda tf: tf.size(_rt(tf)),
    "rank": lambda tf: tf.rank(_rt(tf)),
    "expand_dims_0": lambda tf: tf.expand_dims(_rt(tf), 0),
    "expand_dims_1": lambda tf: tf.expand_dims(_rt(tf), 1),
    # indexing
    "getitem_row": lambda tf: _rt(tf)[0],
    "getitem_neg_row": lambda tf: _rt(tf)[-1],
    "getitem_rows": lambda tf: _rt(tf)[1:3],
    "getitem_col_slice": lambda tf: _rt(tf)[:, :2],
    "getitem_col_slice_neg": lambda tf: _rt(tf)[:, -1:],
    "getitem_col_start": lambda tf: _rt(tf)[:, 1:],
    "getitem_row_col": lambda tf: _rt(tf)[3, 1],
    "getitem_col_oob": lambda tf: _rt(tf)[:, 0],
    "getitem_nested": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]])[0],
    "getitem_nested_2": lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]])[0, 1],
    "iter_rows": lambda tf: [r for r in tf.ragged.constant([[1, 2], [3]])],
    # tf.ragged
    "ragged_range": lambda tf: tf.ragged.range([3, 5, 0], [5, 8, 0]),
    "ragged_range_delta": lambda tf: tf.ragged.range([0, 10], 6, [2, -3]),
    "ragged_range_float": lambda tf: tf.ragged.range([0.5, 1.0], [2.0, 2.5], 0.5),
    "ragged_range_scalar": lambda tf: tf.ragged.range(4),
    "row_splits_to_segment_ids": lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
    "segment_ids_to_row_splits": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2]),
    "segment_ids_to_row_splits_n": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 1], num_segments=4),
    "stack_dynamic_partitions": lambda tf: tf.ragged.stack_dynamic_partitions(
        ["a", "b", "c", "d", "e"], [2, 0, 2, 1, 0], 4),
    # gradients through flat_values
    "grad_flat": _grad_flat,
    "grad_ops": _grad_ops,
}
