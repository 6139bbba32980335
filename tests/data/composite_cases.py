"""tf.data with composite elements (RaggedTensor, SparseTensor) run by real TF
(tools/record_tf_goldens/data_composite.py -> tests/goldens/data_composite.json) and by tensorlet
(tests/data/test_data_composite.py): slices, map, batch / ragged_batch / unbatch / rebatch, element_spec
printed forms, iteration inside tf.function."""


def _rt(tf):
    return tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])


def _st(tf):
    return tf.sparse.SparseTensor(indices=[[0, 0], [1, 2], [2, 1]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])


def _mapped(tf):
    return tf.data.Dataset.range(5).map(lambda x: tf.ragged.range(x))


def _spec_and_elements(ds):
    """The printed element_spec, then each element's components (tuples and dicts flattened)."""
    out = [repr(ds.element_spec)]
    for e in ds:
        out += list(e) if isinstance(e, tuple) else [e[k] for k in sorted(e)] if isinstance(e, dict) else [e]
    return out


CASES = {
    "ragged_slices": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_rt(tf))),
    "ragged_from_tensors": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensors(_rt(tf))),
    "ragged_rank2_slices": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(
        tf.ragged.constant([[[1, 2], [3]], [], [[4], [5, 6], []]]))),
    "ragged_inner_dense_slices": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(
        tf.ragged.constant([[[1.0], [2.0]], [[3.0]]], ragged_rank=1))),
    "ragged_map": lambda tf: _spec_and_elements(_mapped(tf)),
    "ragged_batch_of_ragged": lambda tf: _spec_and_elements(_mapped(tf).ragged_batch(2)),
    "ragged_batch_drop": lambda tf: _spec_and_elements(_mapped(tf).ragged_batch(2, drop_remainder=True)),
    "dense_to_ragged_batch": lambda tf: _spec_and_elements(tf.data.Dataset.range(5).map(lambda x: tf.range(x)).apply(
        tf.data.experimental.dense_to_ragged_batch(2))),
    "ragged_batch_keeps_full_shapes": lambda tf: _spec_and_elements(tf.data.Dataset.range(4).map(
        lambda x: (tf.fill([2], x), tf.range(x))).ragged_batch(3, row_splits_dtype=tf.int32)),
    "ragged_batch_slices": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_rt(tf)).batch(3)),
    "ragged_unbatch": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_rt(tf)).batch(2).unbatch()),
    "ragged_unbatch_rank2": lambda tf: _spec_and_elements(_mapped(tf).ragged_batch(2).unbatch()),
    "ragged_rebatch": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_rt(tf)).batch(2).rebatch(3)),
    "ragged_padded_batch": lambda tf: list(tf.data.Dataset.from_tensor_slices(_rt(tf)).padded_batch(2)),
    "ragged_dict": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(
        {"a": _rt(tf), "b": tf.range(4)}).batch(3)),
    "ragged_map_over_batch": lambda tf: list(_mapped(tf).ragged_batch(2).map(lambda r: r.row_lengths(axis=2))),
    "ragged_map_to_tensor": lambda tf: list(_mapped(tf).ragged_batch(2).map(lambda r: r.to_tensor())),
    "sparse_slices": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_st(tf))),
    "sparse_from_tensors": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensors(_st(tf))),
    "sparse_batch": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2)),
    "sparse_unbatch": lambda tf: _spec_and_elements(tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2).unbatch()),
    "sparse_map_to_dense": lambda tf: list(tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2).map(
        tf.sparse.to_dense)),
}


def _in_function(tf):
    ds = _mapped(tf).ragged_batch(2)

    @tf.function
    def total():
        s = tf.constant(0, tf.int64)
        n = tf.constant(0, tf.int64)
        for x in ds:
            s += tf.reduce_sum(x.flat_values)
            n += tf.reduce_sum(x.row_lengths(axis=2))
        return s, n

    return list(total())


def _sparse_in_function(tf):
    ds = tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2)

    @tf.function
    def total():
        s = tf.constant(0.0)
        for x in ds:
            s += tf.reduce_sum(tf.sparse.to_dense(x)) * tf.cast(x.dense_shape[0], tf.float32)
        return s

    return total()


CASES["ragged_in_function"] = _in_function
CASES["sparse_in_function"] = _sparse_in_function
