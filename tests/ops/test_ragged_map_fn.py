"""``tf.map_fn`` over a RaggedTensor (the ragged guide's example): each row is a dense slice; the results stack
to a Tensor for a dense output signature and to a RaggedTensor for a ``RaggedTensorSpec`` (or none)."""

import numpy as np

import tensorlet as tf

ROWS = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]


def test_map_fn_ragged_to_dense():
    rt = tf.ragged.constant(ROWS)
    out = tf.map_fn(lambda x: tf.reduce_sum(x), rt, fn_output_signature=tf.int32)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [np.sum(r, dtype=np.int32) for r in ROWS])


def test_map_fn_ragged_to_ragged():
    rt = tf.ragged.constant(ROWS)
    for sig in (tf.RaggedTensorSpec([None], tf.int32), None):
        out = tf.map_fn(lambda x: x * 2, rt, fn_output_signature=sig)
        assert isinstance(out, tf.RaggedTensor)
        assert out.to_list() == [[2 * v for v in r] for r in ROWS]


def test_map_fn_dense_unchanged():
    out = tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))
    np.testing.assert_array_equal(out.numpy(), [1, 4, 9])
