"""tf.Variable semantics."""

import numpy as np
import pytest

import tensorlet as tf


def test_variable_basics():
    v = tf.Variable([1.0, 2.0])
    assert v.dtype == tf.float32 and v.shape == (2,) and v.trainable and v.name == "Variable:0"
    assert tf.Variable(2.0).name == "Variable:0"  # eager TF does not uniquify
    assert tf.Variable(1.0, name="w").name == "w:0"
    assert not tf.Variable(1.0, trainable=False).trainable
    assert repr(v) == "<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(tf.Variable(1.0)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert tf.Variable([1, 2]).dtype == tf.int32
    assert tf.Variable(lambda: tf.constant(3.0)).numpy() == 3.0
    assert tf.Variable(1, dtype=tf.float64).dtype == tf.float64


def test_assign_returns_variable_and_reads_are_snapshots():
    v = tf.Variable(1.0)
    before = v.read_value()
    r = v.assign(2.0)
    assert r is v and v.numpy() == 2.0 and before.numpy() == 1.0
    assert v.assign_add(1.0) is v and float(v) == 3.0
    assert v.assign_sub(0.5) is v and float(v.value()) == 2.5
    assert v.assign(5.0, read_value=False) is None


def test_assign_shape_mismatch():
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match=r"Shape mismatch.*variable shape \(\), and the assigned value shape \(2,\)"):
        v.assign(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.Variable(1.0).assign(tf.constant(1, tf.int32))


def test_variable_operators_and_conversion():
    v = tf.Variable(1.0)
    assert (v + 1).numpy() == 2.0 and (v * tf.Variable(2.0)).numpy() == 2.0 and (-v).numpy() == -1.0
    assert isinstance(v + 1, tf.Tensor)
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert tf.matmul(w, w).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert w[1, 0].numpy() == 3.0
    assert np.asarray(w).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert tf.convert_to_tensor(w).dtype == tf.float32
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        tf.convert_to_tensor(w, tf.int32)
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1


def test_variable_options():
    c = lambda x: x  # noqa: E731
    v = tf.Variable(1.0, constraint=c, synchronization=tf.VariableSynchronization.ON_WRITE,
                    aggregation=tf.VariableAggregation.MEAN)
    assert v.constraint is c and v.aggregation == tf.VariableAggregation.MEAN
    assert not tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ).trainable
    with pytest.raises(ValueError, match="ON_READ only for non-trainable"):
        tf.Variable(1.0, trainable=True, synchronization=tf.VariableSynchronization.ON_READ)
    with pytest.raises(ValueError, match="initial_value"):
        tf.Variable()
    u = tf.Variable([1.0], shape=tf.TensorShape(None))
    u.assign([1.0, 2.0, 3.0])  # unknown shape accepts any
    assert u.shape == tf.TensorShape(None) and u.numpy().tolist() == [1.0, 2.0, 3.0]


def test_name_scope_prefixes_variable_names():
    with tf.name_scope("outer") as scope:
        assert scope == "outer/"
        with tf.name_scope("inner") as s2:
            assert s2 == "outer/inner/"
            assert tf.Variable(1.0).name == "outer/inner/Variable:0"
        assert tf.Variable(1.0, name="w").name == "outer/w:0"
    assert tf.Variable(1.0).name == "Variable:0"
