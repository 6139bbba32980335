"""tf.DType and tf.TensorShape against TF 2.21's observable behaviour."""

import ml_dtypes
import numpy as np
import pytest

import tensorlet as tf


def test_dtype_identity_and_names():
    assert tf.as_dtype("float32") is tf.float32
    assert tf.as_dtype(np.float64) is tf.float64
    assert tf.as_dtype(np.dtype("int8")) is tf.int8
    assert tf.as_dtype(ml_dtypes.bfloat16) is tf.bfloat16
    assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(bool) is tf.bool
    assert tf.as_dtype("half") is tf.float16 is tf.half and tf.double is tf.float64
    assert tf.as_dtype(1) is tf.float32 and tf.as_dtype(7) is tf.string  # DataType enum values
    assert repr(tf.float32) == "tf.float32" and str(tf.float32) == "<dtype: 'float32'>"
    assert tf.float32 == "float32" and tf.float32 != tf.float64 and tf.float32 == np.float32
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: <class 'int'>"):
        tf.as_dtype(int)


def test_dtype_properties():
    assert tf.float16.is_floating and not tf.int32.is_floating
    assert tf.uint8.is_integer and tf.uint8.is_unsigned and not tf.int8.is_unsigned
    assert tf.complex64.is_complex and tf.complex64.real_dtype is tf.float32
    assert tf.bool.is_bool and tf.string.as_numpy_dtype is object
    assert tf.int8.min == -128 and tf.int8.max == 127 and tf.uint16.max == 65535
    assert tf.float32.max == np.finfo(np.float32).max
    assert tf.bfloat16.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert tf.float64.size == 8 and tf.bfloat16.size == 2
    assert tf.float32.as_datatype_enum == 1 and tf.int64.as_datatype_enum == 9
    assert tf.float32.as_numpy_dtype is np.float32
    assert {tf.float32: 1}[tf.as_dtype("float32")] == 1  # hashable


def test_tensor_shape_basics():
    s = tf.TensorShape([None, 3])
    assert repr(s) == "TensorShape([None, 3])" and str(s) == "(None, 3)"
    assert s.rank == 2 and s.as_list() == [None, 3] and s[1] == 3 and s[0] is None
    assert str(tf.TensorShape([2])) == "(2,)" and str(tf.TensorShape([])) == "()"
    u = tf.TensorShape(None)
    assert repr(u) == "TensorShape(None)" and str(u) == "<unknown>" and u.rank is None
    with pytest.raises(ValueError):
        u.as_list()
    assert s == (None, 3) and s == [None, 3] and s != (2, 3)
    assert s[1:] == tf.TensorShape([3])


def test_tensor_shape_compatibility():
    a = tf.TensorShape([None, 3])
    assert a.is_compatible_with([5, 3]) and not a.is_compatible_with([5, 4]) and not a.is_compatible_with([3])
    assert tf.TensorShape(None).is_compatible_with([1, 2, 3])
    assert a.merge_with([5, None]) == [5, 3]
    with pytest.raises(ValueError):
        a.merge_with([5, 4])
    assert a.concatenate([7]) == [None, 3, 7] and (a + [1]) == [None, 3, 1]
    assert tf.TensorShape([2, 3]).num_elements() == 6 and a.num_elements() is None
    assert tf.TensorShape([2, 3]).is_fully_defined() and not a.is_fully_defined()
    assert a.most_specific_compatible_shape([4, 3]) == [None, 3]
    assert tf.TensorShape([1, 2]).most_specific_compatible_shape([3, 2]) == [None, 2]
    with pytest.raises(ValueError):
        tf.TensorShape([1, 2]).with_rank(3)
    assert tf.TensorShape(None).with_rank(2) == [None, None]
    with pytest.raises(ValueError):
        tf.TensorShape([-1])


def test_tensor_shape_from_tensor_and_dims():
    assert tf.TensorShape(tf.constant([2, 3])) == [2, 3]
    assert tf.TensorShape(4) == [4]
    assert list(tf.TensorShape([2, None])) == [2, None]
    assert len(tf.TensorShape([1, 2, 3])) == 3
