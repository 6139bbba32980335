"""WAV codecs, feature crosses, legacy string hashing, segment joins, Sobol points and accumulate_n run by real TF
(tools/record_tf_goldens/op_extras.py -> tests/goldens/feature_ops.json) and by tensorlet
(tests/io/test_features.py)."""

AUDIO = [[0.0, 0.5], [-1.0, 1.0], [0.25, -0.3], [1.5, -2.0]]


def _wav(tf):
    return tf.audio.encode_wav(tf.constant(AUDIO), 16000)


CASES = {
    "encode_wav_bytes": lambda tf: _wav(tf),
    "encode_wav_mono": lambda tf: tf.audio.encode_wav(tf.constant([[0.1], [0.2], [-0.7]]), 44100),
    "decode_wav": lambda tf: tf.audio.decode_wav(_wav(tf)),
    "decode_wav_desired": lambda tf: tf.audio.decode_wav(_wav(tf), desired_channels=1, desired_samples=6),
    "decode_wav_mono_to_stereo": lambda tf: tf.audio.decode_wav(
        tf.audio.encode_wav(tf.constant([[0.1], [0.2]]), 8000), desired_channels=2, desired_samples=1),
    "decode_wav_garbage": lambda tf: tf.audio.decode_wav(tf.constant(b"RIFX....WAVEfmt ")),
    "decode_wav_truncated": lambda tf: tf.audio.decode_wav(tf.strings.substr(_wav(tf), 0, 30)),
    "to_hash_bucket": lambda tf: tf.strings.to_hash_bucket(["", "a", "hello", "tensorflow strings!!", "12345678"],
                                                           1000000007),
    "to_hash_bucket_2d": lambda tf: tf.strings.to_hash_bucket([["x", "yy"], ["zzz", "w"]], 10),
    "unsorted_segment_join": lambda tf: tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4,
                                                                         separator="-"),
    "unsorted_segment_join_2d": lambda tf: tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"], ["e", "f"]],
                                                                            [0, 1, 0], 2),
    "sparse_cross": lambda tf: tf.sparse.cross([tf.constant([["a"], ["b"]]), tf.sparse.SparseTensor(
        [[0, 0], [0, 1], [1, 0]], ["x", "y", "z"], [2, 2])]),
    "sparse_cross_three": lambda tf: tf.sparse.cross([tf.constant([["a", "b"]]), tf.constant([["x", "y"]]),
                                                      tf.constant([["1", "2"]])]),
    "sparse_cross_ints_separator": lambda tf: tf.sparse.cross([tf.constant([["a"], ["b"]]),
                                                               tf.constant([[1], [2]], tf.int64)], separator="#"),
    "sparse_cross_hashed": lambda tf: tf.sparse.cross_hashed([tf.constant([["a"], ["b"]]),
                                                              tf.constant([[1], [2]], tf.int64)], num_buckets=100),
    "sparse_cross_hashed_unbucketed": lambda tf: tf.sparse.cross_hashed([tf.constant([["a"], ["b"]]),
                                                                         tf.constant([[1], [2]], tf.int64)]),
    "sparse_cross_hashed_key": lambda tf: tf.sparse.cross_hashed([tf.constant([["a"]]), tf.constant([["b"]])],
                                                                 num_buckets=1000, hash_key=123),
    "ragged_cross": lambda tf: tf.ragged.cross([tf.ragged.constant([["a", "b"], ["c"]]), tf.constant([["x"], ["y"]])]),
    "ragged_cross_hashed": lambda tf: tf.ragged.cross_hashed([tf.ragged.constant([["a", "b"], ["c"]]),
                                                              tf.constant([["x"], ["y"]])], num_buckets=10),
    "sobol": lambda tf: tf.math.sobol_sample(3, 5),
    "sobol_skip_f64": lambda tf: tf.math.sobol_sample(2, 3, skip=4, dtype=tf.float64),
    "sobol_high_dim": lambda tf: tf.math.sobol_sample(40, 3, skip=100)[:, 30:],
    "accumulate_n": lambda tf: tf.math.accumulate_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]),
                                                     tf.constant([0.5, 0.5])]),
    "accumulate_n_mixed_raises": lambda tf: tf.math.accumulate_n([tf.constant([1.0]), tf.constant([1], tf.int32)]),
    "operator_not_allowed_is_type_error": lambda tf: issubclass(tf.errors.OperatorNotAllowedInGraphError, TypeError),
}
