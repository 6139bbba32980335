"""The eager Tensor: construction and TF's dtype inference, printing, Python protocols, immutability."""

import copy
import pickle

import numpy as np
import pytest

import tensorlet as tf


def test_constant_dtype_inference():
    assert tf.constant(1).dtype == tf.int32
    assert tf.constant(1.0).dtype == tf.float32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant(1 + 2j).dtype == tf.complex128
    assert tf.constant("a").dtype == tf.string
    assert tf.constant([1, 2**40]).dtype == tf.int64 and tf.constant(2**40).dtype == tf.int64
    assert tf.constant([1.0, 2]).dtype == tf.float32
    assert tf.constant(np.array([1, 2])).dtype == tf.int64  # NumPy arrays keep their dtype
    assert tf.constant(np.float64(1.0)).dtype == tf.float64
    assert tf.constant([np.float64(1.0), 2.0]).dtype == tf.float64
    assert tf.constant([]).dtype == tf.float32 and tf.constant([[]]).shape == (1, 0)
    assert tf.constant([1, 2], dtype="int64").dtype == tf.int64


def test_constant_with_dtype_and_shape():
    assert tf.constant([1, 2], tf.float32).numpy().tolist() == [1.0, 2.0]
    assert tf.constant(np.array([1.5]), tf.int32).numpy().tolist() == [1]  # NumPy arrays are cast
    assert tf.constant(-1, tf.uint8).numpy() == 255  # TF wraps Python ints into unsigned types
    assert tf.constant(0, shape=[2, 3]).numpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert tf.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1.5, tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
        tf.constant(2.0, tf.int32)
    with pytest.raises(TypeError, match="unsupported shape"):
        tf.constant([1, 2], shape=[2, 2])


def test_conversion_errors():
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
        tf.constant(None)
    with pytest.raises(ValueError, match="out-of-range integer"):
        tf.constant(2**63)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor(tf.constant(1.0), tf.int32)
    with pytest.raises(TypeError, match="Expected tensor"):
        tf.constant(tf.constant(1.0), tf.int32)


def test_strings():
    s = tf.constant(["a", "bc"])
    assert s.numpy().tolist() == [b"a", b"bc"] and s.numpy().dtype == object
    assert tf.constant("x").numpy() == b"x"
    assert repr(tf.constant("x")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'x'>"
    assert str(s) == "tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)"
    assert tf.constant(np.array(["a", "b"])).dtype == tf.string


def test_printing_matches_tf():
    a = tf.constant([[1, 2], [3, 4]])
    assert str(a) == "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert repr(a) == ("<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], "
                       "dtype=int32)>")
    assert repr(tf.constant(4.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=4.0>"
    assert str(tf.constant(4.0)) == "tf.Tensor(4.0, shape=(), dtype=float32)"
    assert repr(tf.constant([1.5, 2.0])) == ("<tf.Tensor: shape=(2,), dtype=float32, "
                                            "numpy=array([1.5, 2. ], dtype=float32)>")
    assert repr(tf.constant(True)) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
    assert repr(tf.constant(1, tf.bfloat16)) == "<tf.Tensor: shape=(), dtype=bfloat16, numpy=1.0>"
    assert str(tf.constant(1, tf.bfloat16)) == "tf.Tensor(1, shape=(), dtype=bfloat16)"
    assert repr(tf.constant(0.1)) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>"
    assert str(tf.constant(0.1)) == "tf.Tensor(0.1, shape=(), dtype=float32)"
    assert str(tf.constant(123456789.0)) == "tf.Tensor(1.2345679e+08, shape=(), dtype=float32)"
    assert repr(tf.constant(1 + 2j, tf.complex64)) == "<tf.Tensor: shape=(), dtype=complex64, numpy=(1+2j)>"
    assert "{}".format(tf.constant([[4.0]])) == "[[4.]]"  # noqa: UP032 - str.format is what is under test
    assert "{:.2f}".format(tf.constant(4.0)) == "4.00"  # noqa: UP032
    big = np.zeros((3, 1000), np.float32)
    assert str(tf.constant(big)) == ("tf.Tensor(\n[[0. 0. 0. ... 0. 0. 0.]\n [0. 0. 0. ... 0. 0. 0.]\n"
                                     " [0. 0. 0. ... 0. 0. 0.]], shape=(3, 1000), dtype=float32)")


def test_python_protocols():
    a = tf.constant([[1, 2], [3, 4]])
    assert a.ndim == 2 and len(a) == 2 and a.shape == (2, 2) and a.get_shape() == [2, 2]
    assert [r.numpy().tolist() for r in a] == [[1, 2], [3, 4]]
    assert int(tf.constant(3.7)) == 3 and float(tf.constant(2)) == 2.0 and bool(tf.constant(1))
    assert [10, 20, 30][tf.constant(1)] == 20  # __index__
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(tf.constant(1))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="only 0-dimensional"):
        float(tf.constant([1.0, 2.0]))
    with pytest.raises(AttributeError, match="Tensor.name is undefined when eager execution is enabled"):
        a.name  # noqa: B018


def test_unhashable_and_ref():
    a = tf.constant(1)
    with pytest.raises(TypeError, match="Tensor is unhashable. Instead, use tensor.ref\\(\\) as the key."):
        hash(a)
    d = {a.ref(): "x"}
    assert d[a.ref()] == "x" and a.ref().deref() is a and a.ref() != tf.constant(1).ref()


def test_numpy_interop_and_immutability():
    src = np.array([1.0, 2.0], np.float32)
    t = tf.constant(src)
    src[0] = 99.0
    assert t.numpy()[0] == 1.0  # not aliased
    out = t.numpy()
    out[1] = -5.0
    assert t.numpy()[1] == 2.0  # numpy() is a copy
    view = np.asarray(t)
    with pytest.raises(ValueError):
        view[0] = 3.0  # read-only view of the tensor's value
    a, b = tf.constant([[1, 2], [3, 4]]), tf.constant([[2, 3], [4, 5]])
    c = np.multiply(a, b)  # seed 000: NumPy functions accept tensors and return arrays
    assert isinstance(c, np.ndarray) and c.tolist() == [[2, 6], [12, 20]]
    assert tf.constant(1.0).numpy().__class__ is np.float32


def test_device_and_type():
    t = tf.constant(1.0)
    assert t.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert isinstance(t, tf.Tensor) and tf.is_tensor(t) and not tf.is_tensor(1.0)
    assert type(t).__name__ == "EagerTensor"


def test_copy_and_pickle_roundtrip():
    t = tf.constant([1, 2])
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    r = pickle.loads(pickle.dumps(t))  # pickling the user's own objects in memory is theirs to do
    assert r.numpy().tolist() == [1, 2] and r.dtype == tf.int32


def test_set_shape():
    t = tf.constant([1.0, 2.0])
    t.set_shape([None])
    with pytest.raises(ValueError, match="not compatible"):
        tf.constant(1.0).set_shape([1])


def test_executing_eagerly():
    assert tf.executing_eagerly()


def test_python_floats_convert_exactly_to_float64():
    assert tf.constant(0.1, tf.float64).numpy() == 0.1
    assert tf.constant([0.1, 1 / 3], tf.float64).numpy().tolist() == [0.1, 1 / 3]
    x = tf.constant([1.0], tf.float64)
    assert (x * 0.1).numpy()[0] == 0.1 and (0.1 + x).numpy()[0] == 1.1
    assert tf.convert_to_tensor(1 / 3, dtype_hint=tf.float64).numpy() == 1 / 3
