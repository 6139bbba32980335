"""The conv/pool gradient table shared by tests/autodiff/test_grad_conv.py and the recorder
tools/record_tf_goldens/nn_conv_grad.py (which runs it with real TF into tests/goldens/nn_conv_grad.json).

TF's CPU kernels lack NCHW, grouped-convolution gradients and dilated backprops, so those run against finite
differences only (tests/autodiff/test_op_gradients.py).
"""

import numpy as np

F64, F32 = "float64", "float32"
NO_SECOND = {"max_pool_with_argmax"}  # TF: LookupError, no gradient for MaxPoolGradWithArgmax


def table(tf):
    """name -> (fn(*inputs), input shapes, dtype), for ``tf`` = tensorflow or tensorlet."""
    return {
        "conv2d_same_s2": (lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), [(2, 5, 5, 3), (3, 3, 3, 4)], F64),
        "conv2d_valid_s21": (lambda x, w: tf.nn.conv2d(x, w, [2, 1], "VALID"), [(1, 5, 4, 9), (2, 3, 9, 2)], F64),
        "conv2d_explicit": (lambda x, w: tf.nn.conv2d(x, w, [1, 2], [[0, 0], [1, 2], [0, 1], [0, 0]]),
                            [(1, 5, 6, 4), (3, 2, 4, 3)], F64),
        "conv1d": (lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"), [(2, 9, 3), (3, 3, 4)], F64),
        "conv2d_transpose": (lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 6, 6, 2], 2, "SAME"),
                             [(1, 3, 3, 4), (3, 3, 2, 4)], F64),
        "conv3d": (lambda x, w: tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), [(1, 4, 4, 4, 2), (2, 2, 2, 2, 3)], F64),
        "conv3d_transpose": (lambda x, w: tf.nn.conv3d_transpose(x, w, [1, 4, 5, 4, 2], [1, 2, 1, 2, 1], "SAME"),
                             [(1, 2, 5, 2, 3), (2, 3, 2, 2, 3)], F64),
        "depthwise": (lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"), [(1, 5, 5, 3), (3, 3, 3, 2)],
                      F64),
        "depthwise_s2": (lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "VALID"), [(1, 6, 7, 3), (2, 3, 3, 2)],
                         F64),
        "depthwise_backprop_input": (lambda w, dy: tf.nn.depthwise_conv2d_backprop_input([1, 5, 6, 3], w, dy,
                                                                                          [1, 2, 2, 1], "SAME"),
                                     [(3, 3, 3, 2), (1, 3, 3, 6)], F64),
        "depthwise_backprop_filter": (lambda x, dy: tf.nn.depthwise_conv2d_backprop_filter(x, [3, 2, 3, 2], dy,
                                                                                            [1, 1, 1, 1], "VALID"),
                                      [(1, 5, 5, 3), (1, 3, 4, 6)], F64),
        "separable": (lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME"),
                      [(1, 5, 5, 2), (3, 3, 2, 2), (1, 1, 4, 3)], F64),
        "max_pool2d_same": (lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), [(2, 5, 5, 3)], F64),
        "max_pool2d_valid": (lambda x: tf.nn.max_pool2d(x, [2, 3], 1, "VALID"), [(1, 4, 5, 2)], F64),
        "max_pool1d": (lambda x: tf.nn.max_pool1d(x, 3, 2, "VALID"), [(2, 9, 3)], F64),
        "max_pool3d": (lambda x: tf.nn.max_pool3d(x, 2, [1, 2, 1], "SAME"), [(1, 3, 4, 4, 2)], F32),
        "avg_pool2d_same": (lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), [(2, 5, 5, 3)], F64),
        "avg_pool3d": (lambda x: tf.nn.avg_pool3d(x, 2, [1, 2, 1], "SAME"), [(1, 3, 4, 5, 2)], F32),
        "max_pool_with_argmax": (lambda x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")[0], [(2, 5, 5, 3)], F64),
    }


def det(shape, k=1.3, s=2.0, dtype=np.float64):
    """Deterministic inputs: ``s * sin(k * i + 0.4)`` over the flattened shape."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + 0.4) * s).reshape(shape).astype(dtype)


def first_and_second(tf, fn, shapes, dtype, second=True):
    """dL/dx_i and d/dx_i sum_j <dL/dx_j, v_j> for L = sum(y * u) + 0.05 * sum(y * y), inputs det(shape, 1.3 + i),
    u = det(y.shape, 0.7), v_j = det(x_j.shape, 0.9 + j); ``tf`` is tensorflow (the recorder) or tensorlet.
    With ``second=False`` the second order is not asked for (None), e.g. where TF has no second derivative."""
    xs = [tf.constant(det(s, k=1.3 + i, dtype=dtype)) for i, s in enumerate(shapes)]
    vs = [tf.constant(det(s, k=0.9 + j, dtype=dtype)) for j, s in enumerate(shapes)]
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = fn(*xs)
            u = tf.constant(det(y.shape, k=0.7, dtype=dtype))
            loss = tf.reduce_sum(y * u) + 0.05 * tf.reduce_sum(y * y)
        gs = inner.gradient(loss, xs)
        s = tf.add_n([tf.reduce_sum(g * v) for g, v in zip(gs, vs)])
    return gs, (outer.gradient(s, xs) if second else None)
