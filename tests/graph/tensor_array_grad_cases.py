"""Gradients through a growing (``dynamic_size=True``) TensorArray written in a ``tf.while_loop``, run by real TF
(tools/record_tf_goldens/tensor_array_grad.py -> tests/goldens/tensor_array_grad.json) and by tensorlet
(tests/graph/test_tensor_array_grad.py)."""

import numpy as np

X = np.linspace(-1, 1, 12).reshape(4, 3).astype("float32")
W = np.linspace(-0.5, 0.7, 9).reshape(3, 3).astype("float32")


def _rnn(tf, x, w, maximum_iterations=None):
    """An RNN-style loop: the hidden state of each step written to a TensorArray that starts empty."""
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    n = tf.shape(x)[0]

    def body(i, h, ta):
        h = tf.tanh(tf.linalg.matvec(w, h) + x[i])
        return i + 1, h, ta.write(i, h)

    _, h, ta = tf.while_loop(lambda i, h, ta: i < n, body, [tf.constant(0), tf.zeros([3]), ta],
                             maximum_iterations=maximum_iterations)
    return tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(h)


def _grads(tf, f, calls=1):
    x, w = tf.constant(X), tf.constant(W)
    out = []
    for _ in range(calls):
        with tf.GradientTape() as t:
            t.watch([x, w])
            y = f(x, w)
        out = [y] + t.gradient(y, [x, w])
    return out


def _autograph(tf):
    @tf.function
    def f(x, w):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        h = tf.zeros([3])
        for i in tf.range(tf.shape(x)[0]):
            h = tf.tanh(tf.linalg.matvec(w, h) + x[i])
            ta = ta.write(i, h * h)
        return tf.reduce_sum(ta.stack()[1:])

    return _grads(tf, f, calls=2)


def _tape_inside(tf):
    @tf.function
    def f(x, w):
        with tf.GradientTape() as t:
            t.watch(w)
            y = _rnn(tf, x, w)
        return t.gradient(y, w)

    return f(tf.constant(X), tf.constant(W))


def _variable(tf):
    w = tf.Variable(W)

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            y = _rnn(tf, x, w)
        return y, t.gradient(y, w)

    return [*f(tf.constant(X)), *f(tf.constant(X[:2]))]


def _scatter_concat(tf):
    @tf.function
    def f(x, w):
        ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True, element_shape=[3])

        def body(i, ta):
            return i + 1, ta.write(i, x[i] * tf.reduce_sum(w))

        _, ta = tf.while_loop(lambda i, ta: i < 3, body, [tf.constant(0), ta])
        return tf.reduce_sum(ta.concat() * tf.range(9.0))

    return _grads(tf, f)


def _cond_in_body(tf):
    @tf.function
    def f(x, w):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        h = tf.zeros([3])
        for i in tf.range(tf.shape(x)[0]):
            h = tf.cond(i % 2 == 0, lambda: tf.tanh(tf.linalg.matvec(w, h) + x[i]), lambda: h * x[i])  # noqa: B023  (tf.cond runs its branches at once)
            ta = ta.write(i, h)
        return tf.reduce_sum(ta.stack() * tf.range(1.0, 13.0)[:, None][:4])

    return _grads(tf, f)


def _two_arrays(tf):
    @tf.function
    def f(x, w):
        a = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        b = tf.TensorArray(tf.float32, size=2, dynamic_size=True, clear_after_read=False)
        i = tf.constant(0)
        while i < tf.shape(x)[0]:
            a = a.write(i, x[i] * w[0])
            b = b.write(i + 1, tf.sin(x[i]) * w[1])
            i += 1
        return tf.reduce_sum(a.stack()) + tf.reduce_sum(b.stack() ** 2)

    return _grads(tf, f)


CASES = {
    "cond_in_body": _cond_in_body,
    "two_arrays_autograph_while": _two_arrays,
    "rnn_function": lambda tf: _grads(tf, tf.function(lambda x, w: _rnn(tf, x, w)), calls=3),
    "rnn_eager": lambda tf: _grads(tf, lambda x, w: _rnn(tf, x, w)),
    "rnn_maximum_iterations": lambda tf: _grads(tf, tf.function(lambda x, w: _rnn(tf, x, w, 3))),
    "autograph_for": _autograph,
    "tape_inside_function": _tape_inside,
    "variable_two_lengths": _variable,
    "concat_fixed_start": _scatter_concat,
}
