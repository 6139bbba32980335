"""DLPack exchange: zero-copy with NumPy, JAX and (when installed) PyTorch, both ways."""

import numpy as np
import pytest

import tensorlet as tf


def test_numpy_reads_tensor_in_place():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t._v) and a.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert t.__dlpack_device__() == (1, 0)


def test_capsule_round_trip_and_from_numpy():
    t = tf.constant(np.arange(6, dtype=np.int64).reshape(2, 3))
    back = tf.experimental.dlpack.from_dlpack(tf.experimental.dlpack.to_dlpack(t))
    assert back.dtype == tf.int64 and back.numpy().tolist() == t.numpy().tolist()
    src = np.arange(4.0)
    u = tf.experimental.dlpack.from_dlpack(src)
    assert np.shares_memory(u._v, src) and u.dtype == tf.float64


def test_jax_both_ways():
    import jax
    import jax.numpy as jnp

    t = tf.constant([1.5, 2.5])
    j = jax.dlpack.from_dlpack(t)
    assert np.asarray(j).tolist() == [1.5, 2.5]
    assert tf.experimental.dlpack.from_dlpack(jnp.arange(3)).numpy().tolist() == [0, 1, 2]


def test_torch_both_ways():
    torch = pytest.importorskip("torch")
    t = tf.constant([[1.0, 2.0]])
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t._v.ctypes.data and tt.tolist() == [[1.0, 2.0]]
    assert torch.tensor(t).tolist() == [[1.0, 2.0]]
    x = torch.arange(3.0)
    back = tf.experimental.dlpack.from_dlpack(x)
    assert back.numpy().tolist() == [0.0, 1.0, 2.0] and back._v.ctypes.data == x.data_ptr()
