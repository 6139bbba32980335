"""Sparse extras (serialization, mask, bincount, sampled_addmm, edit_distance, embedding lookups, CTC greedy
decoding, TensorProtos, JSON examples) run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/sparse_extra.json) and by tensorlet (tests/io/test_sparse_extra.py)."""


def _sp(tf):
    return tf.sparse.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.5, 2.0, 3.0], [3, 3])


def _ids(tf):
    return tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], tf.constant([0, 2, 1, 3, -1], tf.int64),
                                  [5, 2])


def _params(tf):
    return tf.reshape(tf.range(8.0), [4, 2])


def _emb_grad(tf):
    p = tf.Variable(_params(tf))
    ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0, 2, 2], tf.int64), [2, 2])
    w = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1.0, 3.0, 0.5], [2, 2])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.embedding_lookup_sparse(p, ids, w, combiner="sqrtn") ** 2)
    return tf.convert_to_tensor(tape.gradient(y, p))


def _logits(tf):
    return tf.math.log(tf.constant([[[0.1, 0.7, 0.2], [0.6, 0.1, 0.3]], [[0.1, 0.7, 0.2], [0.2, 0.1, 0.7]],
                                    [[0.8, 0.1, 0.1], [0.2, 0.1, 0.7]], [[0.1, 0.1, 0.8], [0.1, 0.8, 0.1]]]))


CASES = {
    "serialize_roundtrip": lambda tf: tf.io.deserialize_many_sparse(tf.io.serialize_many_sparse(_sp(tf)),
                                                                    tf.float32),
    "serialize_sparse_parts": lambda tf: [tf.io.parse_tensor(s, d) for s, d in zip(
        tf.unstack(tf.io.serialize_sparse(_sp(tf))), (tf.int64, tf.float32, tf.int64))],
    "serialize_many_row1": lambda tf: tf.io.parse_tensor(tf.io.serialize_many_sparse(_sp(tf))[1, 0], tf.int64),
    "deserialize_stacked": lambda tf: tf.io.deserialize_many_sparse(tf.stack([
        tf.io.serialize_sparse(tf.sparse.SparseTensor([[0], [2]], [1, 2], [3])),
        tf.io.serialize_sparse(tf.sparse.SparseTensor([[4]], [7], [5]))]), tf.int32),
    "mask": lambda tf: tf.sparse.mask(tf.IndexedSlices(tf.reshape(tf.range(6.0), [3, 2]), tf.constant([0, 4, 9]),
                                                       tf.constant([10, 2])), tf.constant([4])),
    "sampled_addmm": lambda tf: tf.sparse.sampled_addmm(tf.constant([[0, 1], [1, 0]], tf.int64), [10.0, 20.0],
                                                        [2, 2], [[1.0, 2.0], [3.0, 4.0]], [[1.0, 5.0], [2.0, 1.0]],
                                                        beta=0.5, alpha=2.0),
    "bincount_dense": lambda tf: tf.sparse.bincount(tf.constant([1, 1, 4, 2])),
    "bincount_axis1": lambda tf: tf.sparse.bincount(tf.constant([[1, 1, 4], [2, 0, 2]]), axis=-1),
    "bincount_weights_minlength": lambda tf: tf.sparse.bincount(tf.constant([1, 3, 1]), weights=[0.5, 2.0, 1.0],
                                                                minlength=6),
    "bincount_binary_maxlength": lambda tf: tf.sparse.bincount(tf.constant([[1, 1, 4], [2, 0, 2]], tf.int64),
                                                               axis=-1, binary_output=True, maxlength=3),
    "bincount_sparse": lambda tf: tf.sparse.bincount(tf.sparse.SparseTensor([[0, 0], [1, 1], [1, 2]],
                                                                            tf.constant([3, 3, 1]), [2, 4]), axis=-1),
    "edit_distance": lambda tf: tf.edit_distance(
        tf.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], ["a", "b", "c", "a"], [2, 2, 2]),
        tf.sparse.SparseTensor([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "x", "c", "d", "b"],
                               [2, 2, 2])),
    "edit_distance_unnormalized": lambda tf: tf.edit_distance(
        tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2]], [1, 2, 3], [2, 3]),
        tf.sparse.SparseTensor([[0, 0], [0, 1]], [1, 3], [2, 2]), normalize=False),
    "embedding_sparse_mean": lambda tf: tf.nn.embedding_lookup_sparse(
        _params(tf), tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([0, 2, 1], tf.int64), [4, 2]),
        None),
    "embedding_sparse_weighted_sum": lambda tf: tf.nn.embedding_lookup_sparse(
        _params(tf), tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0, 2, 3], tf.int64), [2, 2]),
        tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1.0, 3.0, 0.5], [2, 2]), combiner="sum"),
    "embedding_sparse_grad": _emb_grad,
    "safe_embedding": lambda tf: tf.nn.safe_embedding_lookup_sparse(_params(tf), _ids(tf)),
    "safe_embedding_default_id": lambda tf: tf.nn.safe_embedding_lookup_sparse(_params(tf), _ids(tf),
                                                                               combiner="sum", default_id=3),
    "safe_embedding_weights": lambda tf: tf.nn.safe_embedding_lookup_sparse(
        _params(tf), _ids(tf), tf.sparse.SparseTensor(_ids(tf).indices, [2.0, 0.0, 1.0, 1.0, 5.0], [5, 2]),
        combiner="sqrtn"),
    "safe_embedding_3d": lambda tf: tf.nn.safe_embedding_lookup_sparse(
        _params(tf), tf.sparse.SparseTensor([[0, 0, 0], [1, 1, 0]], tf.constant([1, 2], tf.int64), [2, 2, 1])),
    "ctc_greedy": lambda tf: tf.nn.ctc_greedy_decoder(_logits(tf), tf.constant([4, 3])),
    "ctc_greedy_no_merge": lambda tf: tf.nn.ctc_greedy_decoder(_logits(tf), tf.constant([4, 4]),
                                                               merge_repeated=False),
    "ctc_greedy_blank0": lambda tf: tf.nn.ctc_greedy_decoder(_logits(tf), tf.constant([4, 4]), blank_index=0),
    "tensor_proto_roundtrip": lambda tf: tf.make_ndarray(tf.make_tensor_proto([[1.5, 2.0]], dtype=tf.float64)),
    "tensor_proto_shape_fill": lambda tf: tf.make_ndarray(tf.make_tensor_proto(7, shape=[2, 2])),
    "tensor_proto_strings": lambda tf: tf.make_ndarray(tf.make_tensor_proto(["a", "bc"])).tolist(),
    "tensor_proto_bytes": lambda tf: tf.make_tensor_proto([1, 2], dtype=tf.int32).SerializeToString(),
    "decode_json_example": lambda tf: str(tf.train.Example.FromString(tf.io.decode_json_example(
        ['{"features": {"feature": {"a": {"int64List": {"value": ["1", "2"]}}, '
         '"b": {"floatList": {"value": [0.5]}}}}}'])[0].numpy())),
    "decode_json_bad": lambda tf: tf.io.decode_json_example(["{not json"]),
}
