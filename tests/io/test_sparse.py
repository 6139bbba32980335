"""tf.sparse.SparseTensor, SparseTensorSpec, to_dense (TF's checks and messages) and from_dense."""

import numpy as np
import pytest

import tensorlet as tf

ST = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])


def test_prints_like_tf():
    assert repr(ST) == str(ST) == (
        "SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), values=tf.Tensor([1. 2.], "
        "shape=(2,), dtype=float32), dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64))")
    assert tf.SparseTensor is tf.sparse.SparseTensor
    assert ST.shape == tf.TensorShape([3, 4]) and ST.dtype == tf.float32 and ST.indices.dtype == tf.int64


def test_to_dense_and_from_dense():
    np.testing.assert_array_equal(tf.sparse.to_dense(ST).numpy(), [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    st = tf.sparse.SparseTensor([[0, 1]], [7], [2, 2])
    assert tf.sparse.to_dense(st, default_value=-1).numpy().tolist() == [[-1, 7], [-1, -1]]
    strs = tf.sparse.to_dense(tf.sparse.SparseTensor([[1], [2]], ["a", "b"], [3]))
    assert strs.numpy().tolist() == [b"", b"a", b"b"]
    back = tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]]))
    assert back.indices.numpy().tolist() == [[0, 1], [1, 0]] and back.values.numpy().tolist() == [3, 4]
    assert back.dense_shape.numpy().tolist() == [2, 2]
    assert tf.sparse.from_dense(tf.constant(["", "a"])).values.numpy().tolist() == [b"a"]


@pytest.mark.parametrize("st,message", [
    (tf.sparse.SparseTensor([[5]], [1.0], [3]), "indices[0] = [5] is out of bounds: need 0 <= index < [3]"),
    (tf.sparse.SparseTensor([[1], [0]], [1, 2], [3]), "indices[1] = [0] is out of order. Many sparse ops require "
                                                      "sorted indices.\n    Use `tf.sparse.reorder` to create a "
                                                      "correctly ordered copy."),
])
def test_to_dense_checks_like_tf(st, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.sparse.to_dense(st)
    assert str(info.value).startswith(message) and "[Op:SparseToDense]" in str(info.value)
    tf.sparse.to_dense(st, validate_indices=False) if "order" in message else None


def test_construction_errors():
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        tf.sparse.SparseTensor(indices=[[0]], values=[1.0, 2.0], dense_shape=[3])
    with pytest.raises(ValueError, match=r"Shape \(1,\) must have rank 2"):
        tf.sparse.SparseTensor(indices=[0], values=[1.0], dense_shape=[3])


def test_elementwise_and_with_values():
    assert (ST * 2).values.numpy().tolist() == [2.0, 4.0]
    assert (ST / 2).values.numpy().tolist() == [0.5, 1.0]
    assert (ST * tf.constant([[1.0], [2.0], [3.0]])).values.numpy().tolist() == [1.0, 4.0]
    assert ST.with_values(tf.constant([5, 6])).dtype == tf.int32


def test_spec():
    spec = ST._type_spec
    assert repr(spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.float32)"
    assert repr(tf.SparseTensorSpec([None, 4], tf.int64)) == "SparseTensorSpec(TensorShape([None, 4]), tf.int64)"
    assert repr(spec._batch(5)) == "SparseTensorSpec(TensorShape([5, 3, 4]), tf.float32)"
    assert tf.SparseTensorSpec([None, 4]).is_compatible_with(ST) and spec == tf.SparseTensorSpec([3, 4], tf.float32)
    assert [repr(s) for s in spec._component_specs] == [
        "TensorSpec(shape=(None, 2), dtype=tf.int64, name=None)", "TensorSpec(shape=(None,), dtype=tf.float32, "
        "name=None)", "TensorSpec(shape=(2,), dtype=tf.int64, name=None)"]
    rebuilt = spec._from_components(spec._to_components(ST))
    assert rebuilt.shape == ST.shape and rebuilt.values is ST.values


def test_to_dense_gradient():
    x = tf.Variable([1.0, 2.0])
    w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as g:
        y = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.SparseTensor([[0, 0], [1, 1]], x, [2, 3])) * w)
    np.testing.assert_array_equal(g.gradient(y, x).numpy(), [1.0, 5.0])
