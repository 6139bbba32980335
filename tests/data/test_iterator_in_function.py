"""``next(iterator)`` inside ``tf.function`` fetches a new element on every call (TF's IteratorGetNext)."""

import numpy as np
import pytest

import tensorlet as tf


def test_next_runs_each_call_and_ends_with_out_of_range():
    it = iter(tf.data.Dataset.range(4))

    @tf.function
    def double(iterator):
        return next(iterator) * 2

    assert [int(double(it)) for _ in range(4)] == [0, 2, 4, 6]
    with pytest.raises(tf.errors.OutOfRangeError):
        double(it)


def test_structured_elements_keep_their_static_shapes():
    ds = tf.data.Dataset.from_tensor_slices(({"a": np.arange(6.0, dtype=np.float32)}, np.arange(6))).batch(
        2, drop_remainder=True)
    it = iter(ds)
    shapes = []

    @tf.function
    def step():
        x, y = next(it)
        shapes.append((x["a"].shape.as_list(), y.shape.as_list()))
        return tf.reduce_sum(x["a"]) + tf.cast(tf.reduce_sum(y), tf.float32)

    assert [float(step()) for _ in range(3)] == [2.0, 10.0, 18.0]
    assert shapes == [([2], [2])]  # traced once, with the dataset's static shapes
