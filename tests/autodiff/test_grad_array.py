"""TF's gradient conventions for the array families (creation, array_shape/blocks/select/identity, gather_scatter).

Expected values were computed with real TensorFlow 2.21; the finite-difference checks of every CASE live in
test_op_gradients.py.
"""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.ops.array_blocks import MIRROR_PAD_GRAD
from tensorlet._src.ops.registry import bind


def _grads(fn, *xs, output_gradients=None):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    return tape.gradient(y, xs, output_gradients=output_gradients)


def _np(g):
    return np.asarray(tf.convert_to_tensor(g).numpy())


# --- gather: IndexedSlices for variables (the embedding case), dense for tensors -------------------------


def test_gather_on_variable_gives_indexed_slices():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = tf.gather(v, [[2, 0], [2, 1]])
    g = tape.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.values.shape == (4, 2) and g.indices.shape == (4,) and g.indices.dtype == tf.int32
    assert g.dense_shape.dtype == tf.int32 and g.dense_shape.numpy().tolist() == [3, 2]
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0, 2, 1])
    np.testing.assert_array_equal(_np(g), [[1, 1], [1, 1], [2, 2]])


def test_gather_indexed_slices_keep_index_dtype():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = tf.gather(v, tf.constant([2, 0], tf.int64))
    g = tape.gradient(y, v)
    assert g.indices.dtype == tf.int64 and g.dense_shape.dtype == tf.int32


def test_gather_on_tensor_gives_dense_tensor():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.gather(x, [[2, 0], [2, 1]])
    g = tape.gradient(y, x)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[1, 1], [1, 1], [2, 2]])


def test_gather_gradient_through_other_ops():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        via_mul = tf.gather(v * 2.0, [2, 0])
        via_identity = tf.gather(tf.identity(v), [2, 0])
        via_reshape = tf.gather(tf.reshape(v, [3, 2]), [2, 0])
        two = [tf.gather(v, [[2, 0], [2, 1]]), tf.gather_nd(v, [[2], [0]])]
        axis1 = tf.gather(v, [1], axis=1)
    g = tape.gradient(via_mul, v)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[2, 2], [0, 0], [2, 2]])
    assert isinstance(tape.gradient(via_identity, v), tf.IndexedSlices)  # Identity passes slices through
    assert isinstance(tape.gradient(via_reshape, v), tf.Tensor)
    g = tape.gradient(two, v)
    assert isinstance(g, tf.IndexedSlices) and g.values.shape == (6, 2)
    np.testing.assert_array_equal(_np(g), [[2, 2], [1, 1], [3, 3]])
    g = tape.gradient(axis1, v)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[0, 1], [0, 1], [0, 1]])


def test_gather_nd_gradients():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        rows = tf.gather_nd(v, [[2], [0]])
        elems = tf.gather_nd(v, [[2, 1]])
    g = tape.gradient(rows, v)
    assert isinstance(g, tf.IndexedSlices)  # indices of shape [n, 1], as TF
    np.testing.assert_array_equal(_np(g), [[1, 1], [0, 0], [1, 1]])
    g = tape.gradient(elems, v)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [0, 0], [0, 1]])


def test_gather_batch_dims_gradient():
    p = np.arange(24.0).reshape(2, 3, 4)
    (g,) = _grads(lambda x: tf.gather(x, [[0, 3, 3], [1, 1, 2]], axis=2, batch_dims=1), p)
    np.testing.assert_array_equal(g.numpy(), [[[1, 0, 0, 2]] * 3, [[0, 2, 1, 0]] * 3])


def test_gather_second_order():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 2, 2]) ** 3)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [3, 0, 54])
    np.testing.assert_allclose(_np(outer.gradient(g, x)), [6, 0, 36])


# --- ops with no gradient, or none for some inputs ------------------------------------------------------


def test_none_gradients_like_tf():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    c = tf.constant(5.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        like = tf.zeros_like(x) + tf.ones_like(x)
        hot = tf.one_hot([0, 2], 3, on_value=c, off_value=tf.constant(0.5))
        padded = tf.pad(x, [[1, 0], [0, 1]], constant_values=c)
        stopped = tf.stop_gradient(x) * x
    assert tape.gradient(like, x) is None
    assert tape.gradient(hot, c) is None
    gx, gc = tape.gradient(padded, [x, c])
    assert gc is None
    np.testing.assert_array_equal(gx.numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(tape.gradient(stopped, x).numpy(), x.numpy())


def test_fill_and_linspace():
    (g,) = _grads(lambda v: tf.fill([2, 3], v), np.float32(5.0))
    assert g.numpy() == 6.0
    w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    ga, gb = _grads(lambda a, b: tf.reduce_sum(tf.linspace(a, b, 5) * w), np.float32(1.0), np.float32(3.0))
    assert (ga.numpy(), gb.numpy()) == (5.0, 10.0)
    ga, gb = _grads(lambda a, b: tf.linspace(a, b, 1), np.float32(1.0), np.float32(3.0))
    assert (ga.numpy(), gb.numpy()) == (1.0, 0.0)


# --- where, scatter ------------------------------------------------------------------------------------


def test_where_gradients():
    gx, gy = _grads(lambda x, y: tf.where([True, False], x, y), np.array([1.0, np.nan], np.float32),
                    np.array([2.0, 3.0], np.float32), output_gradients=tf.constant([np.nan, 1.0]))
    np.testing.assert_array_equal(gx.numpy(), [np.nan, 0.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 1.0])
    gx, gy = _grads(lambda x, y: tf.where([[True], [False]], x, y), np.array([1.0, 2.0, 3.0], np.float32),
                    np.float32(5.0))
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0, 1.0])
    assert gy.numpy() == 3.0


_T0 = np.array([1.0, 5.0, 3.0, 2.0], np.float32)
_U = np.array([4.0, 4.0, 1.0, 2.0], np.float32)
_OG = tf.constant([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("fn, out, gt, gu", [
    (tf.tensor_scatter_nd_max, [4, 5, 3, 2], [0, 2, 3, 2], [0.5, 0.5, 0, 2]),
    (tf.tensor_scatter_nd_min, [1, 1, 3, 2], [1, 0, 3, 2], [0, 0, 2, 2]),
])
def test_tensor_scatter_min_max_split_ties(fn, out, gt, gu):
    idx = [[0], [0], [1], [3]]
    np.testing.assert_array_equal(fn(_T0, idx, _U).numpy(), out)
    g_t, g_u = _grads(lambda t, u: fn(t, idx, u), _T0, _U, output_gradients=_OG)
    np.testing.assert_array_equal(g_t.numpy(), gt)
    np.testing.assert_array_equal(g_u.numpy(), gu)


def test_tensor_scatter_update_and_sub():
    idx = [[0], [0], [3]]
    g_t, g_u = _grads(lambda t, u: tf.tensor_scatter_nd_update(t, idx, u), _T0, _U[:3], output_gradients=_OG)
    np.testing.assert_array_equal(g_t.numpy(), [0, 2, 3, 0])
    np.testing.assert_array_equal(g_u.numpy(), [1, 1, 4])
    g_t, g_u = _grads(lambda t, u: tf.tensor_scatter_nd_sub(t, idx, u), _T0, _U[:3], output_gradients=_OG)
    np.testing.assert_array_equal(g_t.numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(g_u.numpy(), [-1, -1, -4])


# --- einsum ----------------------------------------------------------------------------------------------


def test_einsum_complex_conjugates_the_other_operand():
    p = np.array([[1 + 2j, 3 - 1j]])
    q = np.array([[2 - 1j], [1 + 1j]])
    gp, gq = _grads(lambda a, b: tf.einsum("ij,jk->ik", a, b), p, q)
    np.testing.assert_allclose(gp.numpy(), [[2 + 1j, 1 - 1j]])
    np.testing.assert_allclose(gq.numpy(), [[1 - 2j], [3 + 1j]])
    ga, gb = _grads(lambda a, b: tf.einsum("i,i->i", a, b), p[0], q[:, 0])
    np.testing.assert_allclose(ga.numpy(), [2 + 1j, 1 - 1j])
    np.testing.assert_allclose(gb.numpy(), [1 - 2j, 3 + 1j])


def test_einsum_traces_diagonals_and_reductions():
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([1.0, -1.0], np.float32)
    np.testing.assert_array_equal(_grads(lambda a: tf.einsum("ii", a), m)[0].numpy(), np.eye(2))
    (g,) = _grads(lambda a: tf.einsum("ii->i", a), m, output_gradients=tf.constant([5.0, 7.0]))
    np.testing.assert_array_equal(g.numpy(), [[5, 0], [0, 7]])
    np.testing.assert_array_equal(_grads(lambda a: tf.einsum("ij->", a), m)[0].numpy(), np.ones((2, 2)))
    ga, gb = _grads(lambda x, y: tf.einsum("ii,i->i", x, y), m, b, output_gradients=tf.constant([2.0, 3.0]))
    np.testing.assert_array_equal(ga.numpy(), [[2, 0], [0, -3]])
    np.testing.assert_array_equal(gb.numpy(), [2, 12])
    ga, gb = _grads(lambda x, y: tf.einsum("ij,j->", x, y), m, b)
    np.testing.assert_array_equal(ga.numpy(), [[1, -1], [1, -1]])
    np.testing.assert_array_equal(gb.numpy(), [4, 6])


def test_einsum_ellipsis_broadcast_sums_back():
    p = np.array([[[1.0, 2.0, 3.0]]])
    q = np.array([[[1.0, 0.0, 2.0]], [[3.0, 1.0, 1.0]]])
    gp, gq = _grads(lambda a, b: tf.einsum("...j,...j->...j", a, b), p, q)
    np.testing.assert_array_equal(gp.numpy(), [[[4, 1, 3]]])
    np.testing.assert_array_equal(gq.numpy(), [[[1, 2, 3]], [[1, 2, 3]]])


# --- shape ops -------------------------------------------------------------------------------------------


def test_mirror_pad_gradient_and_its_gradient():
    og = tf.constant(np.arange(30.0).reshape(5, 6))
    (g,) = _grads(lambda x: tf.pad(x, [[1, 1], [2, 0]], "REFLECT"), np.zeros((3, 4)), output_gradients=og)
    np.testing.assert_array_equal(g.numpy(), [[8, 16, 16, 11], [42, 84, 84, 51], [20, 40, 40, 23]])
    sym = bind(MIRROR_PAD_GRAD, og, paddings=((1, 1), (2, 0)), mode="SYMMETRIC")
    np.testing.assert_array_equal(sym.numpy(), [[18, 18, 14, 16], [27, 27, 16, 17], [90, 90, 50, 52]])
    (g,) = _grads(lambda x: bind(MIRROR_PAD_GRAD, x, paddings=((1, 1), (2, 0)), mode="REFLECT"), og.numpy())
    np.testing.assert_array_equal(g.numpy(), np.ones((5, 6)))


def test_conjugate_transpose_gradient():
    x = np.array([[1 + 2j, 3 - 1j, 0.5j], [2 + 0j, -1 + 1j, 4 - 2j]])
    og = tf.constant([[1 + 1j, 2], [3j, 4], [5, 6 - 1j]])
    (g,) = _grads(lambda a: tf.transpose(a, conjugate=True), x, output_gradients=og)
    np.testing.assert_allclose(g.numpy(), [[1 - 1j, -3j, 5], [2, 4, 6 + 1j]])


def test_tile_broadcast_unstack_identity_gradients():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    og = tf.reshape(tf.range(24.0), [4, 6])
    np.testing.assert_array_equal(_grads(lambda a: tf.tile(a, [2, 3]), x, output_gradients=og)[0].numpy(),
                                  [[48, 54], [84, 90]])
    np.testing.assert_array_equal(_grads(lambda a: tf.broadcast_to(a[:, :1], [3, 2, 2]), x)[0].numpy(),
                                  [[6, 0], [6, 0]])
    np.testing.assert_array_equal(_grads(lambda a: tf.unstack(a)[1], x)[0].numpy(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(_grads(lambda a: tf.identity_n([a, a * 2.0])[1], x)[0].numpy(),
                                  2 * np.ones((2, 2)))
    np.testing.assert_array_equal(_grads(lambda a: tf.ensure_shape(a, [2, None]), x)[0].numpy(), np.ones((2, 2)))
