"""What a tf.function returns for Python values, and static shapes of full reductions at unknown rank.

Recorded with real TF 2.21: Python ``str``/``bytes`` results come back as string tensors like numbers do
(``tf.function(lambda: 'abc')()`` is ``<tf.Tensor: shape=(), dtype=string, numpy=b'abc'>``), ``None`` stays ``None``;
``tf.reduce_sum`` of a variable of unknown shape has static shape ``()`` inside the trace (``keepdims=True``: unknown).
"""

import tensorlet as tf


def test_python_strings_are_returned_as_string_tensors():
    out = tf.function(lambda: "abc")()
    assert isinstance(out, tf.Tensor) and out.dtype == tf.string and out.numpy() == b"abc"
    x, s, b, n, k = tf.function(lambda x: (x, "k", b"z", None, 3))(tf.constant(1))
    assert s.dtype == tf.string and s.numpy() == b"k" and b.numpy() == b"z"
    assert n is None and k.dtype == tf.int32 and int(k) == 3


def test_full_reduction_of_unknown_rank_is_a_scalar():
    v = tf.Variable(tf.zeros([3]), shape=tf.TensorShape(None))
    seen = []

    @tf.function
    def f():
        r = tf.reduce_sum(v)
        seen.append((r.shape.as_list(), tf.reduce_max(v, keepdims=True).shape.rank))
        return r

    with tf.GradientTape() as tape:
        y = f()
    assert seen == [([], None)]
    assert float(y) == 0.0 and tape.gradient(y, v).numpy().tolist() == [1.0, 1.0, 1.0]
