"""tf.sets programs run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/sets.json) and by
tensorlet (tests/io/test_sets.py)."""


def _a(tf):
    return tf.constant([[[1, 2, 3], [4, 5, 5]], [[7, 8, 9], [1, 1, 1]]])


def _b(tf):
    return tf.constant([[[3, 2, 0], [4, 0, 0]], [[9, 1, 2], [1, 3, 3]]])


def _sa(tf):
    return tf.sparse.SparseTensor([[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 1, 0], [1, 1, 2]], [1, 3, 4, 5, 6],
                                  [2, 2, 3])


CASES = {
    "intersection": lambda tf: tf.sets.intersection(_a(tf), _b(tf)),
    "union": lambda tf: tf.sets.union(_a(tf), _b(tf)),
    "difference": lambda tf: tf.sets.difference(_a(tf), _b(tf)),
    "difference_b_minus_a": lambda tf: tf.sets.difference(_a(tf), _b(tf), aminusb=False),
    "sparse_minus_dense": lambda tf: tf.sets.difference(_sa(tf), _a(tf)),
    "dense_minus_sparse": lambda tf: tf.sets.difference(_a(tf), _sa(tf)),
    "sparse_union_sparse": lambda tf: tf.sets.union(_sa(tf), _sa(tf)),
    "sparse_intersection_int64": lambda tf: tf.sets.intersection(
        tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([5, 7, 2], tf.int64), [2, 2]),
        tf.constant([[7, 5], [3, 3]], tf.int64)),
    "size": lambda tf: tf.sets.size(_sa(tf)),
    "strings": lambda tf: tf.sets.intersection(tf.constant([["a", "b", "c"]]), tf.constant([["c", "b", "d"]])),
    "in_function": lambda tf: tf.function(lambda x, y: tf.sparse.to_dense(tf.sets.union(x, y)))(_a(tf), _b(tf)),
    "size_of_dense_raises": lambda tf: tf.sets.size(_a(tf)),
    "rank1_raises": lambda tf: tf.sets.union(tf.constant([1, 2]), tf.constant([1])),
    "float_raises": lambda tf: tf.sets.union(tf.constant([[1.0]]), tf.constant([[1.0]])),
    "dtype_mismatch_raises": lambda tf: tf.sets.union(_a(tf), tf.constant([[1]], tf.int64)),
}
