"""tf.sparse functions against NumPy on the dense equivalents (values, shapes) and gradients to the values."""

import numpy as np

import tensorlet as tf

IDX = [[0, 1], [1, 0], [1, 2]]
VALS = [1.0, 2.0, 3.0]
DENSE = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], np.float32)


def _sp():
    return tf.sparse.SparseTensor(IDX, VALS, [2, 3])


def _d(sp):
    return tf.sparse.to_dense(sp).numpy()


def test_index_ops_match_numpy():
    unordered = tf.sparse.SparseTensor([[1, 2], [0, 1], [1, 0]], [3.0, 1.0, 2.0], [2, 3])
    assert tf.sparse.reorder(unordered).indices.numpy().tolist() == IDX
    np.testing.assert_array_equal(_d(tf.sparse.reshape(_sp(), [3, 2])), DENSE.reshape(3, 2))
    np.testing.assert_array_equal(_d(tf.sparse.reshape(_sp(), [-1])), DENSE.reshape(-1))
    np.testing.assert_array_equal(_d(tf.sparse.expand_dims(_sp(), 1)), DENSE[:, None])
    np.testing.assert_array_equal(_d(tf.sparse.transpose(_sp())), DENSE.T)
    assert tf.sparse.reset_shape(_sp(), [4, 5]).dense_shape.numpy().tolist() == [4, 5]
    np.testing.assert_array_equal(_d(tf.sparse.retain(_sp(), [True, False, True])), [[0, 1, 0], [0, 0, 3]])
    np.testing.assert_array_equal(_d(tf.sparse.map_values(tf.multiply, _sp(), 10.0)), DENSE * 10)
    np.testing.assert_array_equal(_d(tf.sparse.eye(3, 4)), np.eye(3, 4))
    filled, empty = tf.sparse.fill_empty_rows(tf.sparse.SparseTensor([[1, 1]], [5.0], [3, 2]), -1.0)
    np.testing.assert_array_equal(_d(filled), [[-1, 0], [0, 5], [-1, 0]])
    assert empty.numpy().tolist() == [True, False, True]
    np.testing.assert_array_equal(_d(tf.sparse.slice(_sp(), [1, 0], [1, 2])), DENSE[1:2, 0:2])
    np.testing.assert_array_equal(_d(tf.sparse.concat(0, [_sp(), _sp()])), np.concatenate([DENSE, DENSE], 0))
    np.testing.assert_array_equal(_d(tf.sparse.concat(1, [_sp(), _sp()])), np.concatenate([DENSE, DENSE], 1))
    parts = tf.sparse.split(sp_input=_sp(), num_split=2, axis=1)
    np.testing.assert_array_equal(_d(parts[0]), DENSE[:, :2])
    np.testing.assert_array_equal(_d(parts[1]), DENSE[:, 2:])


def test_value_ops_match_numpy():
    other = tf.sparse.SparseTensor([[0, 0], [0, 1]], [5.0, 6.0], [2, 3])
    np.testing.assert_array_equal(_d(tf.sparse.add(_sp(), other)), DENSE + _d(other))
    np.testing.assert_array_equal(tf.sparse.add(_sp(), tf.ones([2, 3])).numpy(), DENSE + 1)
    np.testing.assert_array_equal(_d(tf.sparse.maximum(_sp(), other)), np.maximum(DENSE, _d(other)))
    np.testing.assert_array_equal(_d(tf.sparse.minimum(_sp(), other)), np.minimum(DENSE, _d(other)))
    np.testing.assert_array_equal(tf.sparse.reduce_sum(_sp(), 1).numpy(), DENSE.sum(1))
    neg = tf.sparse.SparseTensor([[0, 1], [1, 0]], [-1.0, -2.0], [2, 3])
    np.testing.assert_array_equal(tf.sparse.reduce_max(neg, 1).numpy(), [-1.0, -2.0])  # missing is not zero
    b = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(_sp(), b).numpy(), DENSE @ b)
    b2 = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(_sp(), b2, adjoint_a=True).numpy(), DENSE.T @ b2)
    sm = tf.sparse.softmax(_sp()).values.numpy()
    np.testing.assert_allclose(sm, [1.0, np.exp(2) / (np.exp(2) + np.exp(3)), np.exp(3) / (np.exp(2) + np.exp(3))],
                               rtol=1e-6)
    ind = tf.sparse.to_indicator(tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 0, 3], tf.int64),
                                                        [2, 2]), 4).numpy()
    assert ind.tolist() == [[True, False, True, False], [False, False, False, True]]
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(tf.sparse.segment_sum(data, [0, 2, 1], [0, 0, 1]).numpy(), [[6, 8], [3, 4]])
    np.testing.assert_array_equal(tf.sparse.segment_mean(data, [0, 2, 1], [0, 0, 1]).numpy(), [[3, 4], [3, 4]])
    np.testing.assert_allclose(tf.sparse.segment_sqrt_n(data, [0, 2, 1], [0, 0, 1]).numpy(),
                               [[6 / np.sqrt(2), 8 / np.sqrt(2)], [3, 4]], rtol=1e-6)


def test_gradients_reach_values():
    v = tf.Variable(VALS)
    b = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(tf.sparse.SparseTensor(IDX, v * 1.0, [2, 3]), b))
    np.testing.assert_allclose(t.gradient(y, v).numpy(), [b[1].sum(), b[0].sum(), b[2].sum()])
