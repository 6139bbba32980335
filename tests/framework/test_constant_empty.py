"""Empty Python sequences convert to every dtype (TF: ``tf.constant([], tf.int32)`` is a (0,) int32 tensor).

``[]`` parses as a float64 array, so the float -> int/bool kind check used to reject it; TF accepts it, and so
does ``tf.zeros(tf.constant([], tf.int32))``, which TensorArray uses for scalar elements.
"""

import numpy as np
import pytest

import tensorlet as tf


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool", "float32", "string", "complex64"])
@pytest.mark.parametrize("value", [[], [[], []]])
def test_empty_sequence_takes_any_dtype(dtype, value):
    t = tf.constant(value, dtype)
    assert t.dtype.name == dtype
    assert t.shape == np.array(value).shape
    assert tf.convert_to_tensor(value, dtype).shape == np.array(value).shape


def test_empty_shape_vector_is_a_scalar_shape():
    assert tf.zeros(tf.constant([], tf.int32)).shape == ()


def test_float_into_int_still_rejected():
    with pytest.raises(TypeError):
        tf.constant([1.5], tf.int32)


def test_tensor_array_of_scalars_in_a_traced_loop():
    v = tf.Variable(1.0)

    @tf.function
    def acc(n):
        ta = tf.TensorArray(tf.float32, size=n)  # no element_shape: the scalar writes give it
        for i in tf.range(n):
            v.assign_add(1.0)
            ta = ta.write(i, v.read_value())
        return ta.stack()

    np.testing.assert_array_equal(acc(tf.constant(3)).numpy(), np.array([2.0, 3.0, 4.0], np.float32))
    assert v.numpy() == 4.0
