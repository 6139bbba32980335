"""A TF user's program touching many op families; run with real TF (the recorder) and with tensorlet (the test).

``run(tf)`` returns {name: (dtype name, shape, values rounded to 4 places)} for a fixed set of computations.
"""

import numpy as np


def run(tf):
    out = {}

    def p(name, v):
        if isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                p(f"{name}[{i}]", x)
            return
        v = tf.convert_to_tensor(v)
        a = v.numpy()
        vals = 0 if v.dtype == tf.string else np.round(np.asarray(a, dtype=np.float64), 4).tolist()
        out[name] = [v.dtype.name, list(v.shape), vals]

    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    p("mean", tf.reduce_mean(x, axis=1))
    p("softmax", tf.nn.softmax(x))
    p("onehot", tf.one_hot([0, 2, -1], 3))
    p("concat_slice", tf.concat([x, x], axis=0)[::2, 1:3])
    p("argmax", tf.argmax(x, axis=1))
    p("topk", tf.math.top_k(x, 2).values)
    p("cast", tf.cast(x * 3, tf.int32))
    p("where", tf.where(x > 0.5))
    p("gather", tf.gather(x, [2, 0], axis=1))
    p("range", tf.range(1, 10, 3))
    p("linspace", tf.linspace(0.0, 1.0, 5))
    p("cumsum", tf.cumsum(x, axis=1, exclusive=True, reverse=True))
    p("matmul", tf.matmul(x, x, transpose_b=True))
    p("einsum", tf.einsum("ij,kj->ik", x, x))
    p("norm", tf.norm(x))
    p("sort", tf.sort(-x, axis=0))
    p("pad", tf.pad(x, [[1, 0], [0, 2]], mode="REFLECT"))
    p("tile", tf.tile(x[:1], [2, 2]))
    p("unique", tf.unique(tf.constant([3, 1, 3, 2])))
    p("segsum", tf.math.segment_sum(x, [0, 0, 1]))
    p("conv", tf.nn.conv2d(tf.reshape(x, [1, 3, 4, 1]), tf.ones([2, 2, 1, 1]), 1, "SAME"))
    p("pool", tf.nn.max_pool2d(tf.reshape(x, [1, 3, 4, 1]), 2, 2, "VALID"))
    p("xent", tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 3], logits=x))
    p("clip", tf.clip_by_value(x, 0.2, 0.9))
    p("sqdiff", tf.math.squared_difference(x, 1.0))
    p("resize", tf.image.resize(tf.reshape(x, [3, 4, 1]), [2, 2]))
    p("strlen", tf.strings.length(tf.constant(["ab", "cde"])))
    p("l2n", tf.math.l2_normalize(x, axis=1))
    p("moments", tf.nn.moments(x, axes=[0]))
    p("svdvals", tf.linalg.svd(x, compute_uv=False))
    p("bincount", tf.math.bincount(tf.constant([1, 1, 3])))
    p("stateless_uniform", tf.random.stateless_uniform([3], seed=[1, 2]))
    p("stateless_normal", tf.random.stateless_normal([2, 2], seed=[3, 4]))
    p("seq_mask", tf.sequence_mask([1, 3], 4))
    p("reduce_any", tf.reduce_any(x > 1.5))
    p("floordiv", tf.constant([7, -7]) // 2)
    p("truediv", tf.constant([7, -7]) / 2)
    p("space_to_depth", tf.nn.space_to_depth(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), 2))
    w = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.relu(w - 0.5) ** 2) + tf.reduce_max(w)
    p("grad", tape.gradient(y, w))
    with tf.GradientTape() as tape:
        e = tf.reduce_sum(tf.gather(w, [0, 2, 0]) * 2.0)
    g = tape.gradient(e, w)
    out["gather_grad_type"] = type(g).__name__
    p("gather_grad_dense", tf.convert_to_tensor(g))
    z = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(z)
        with tf.GradientTape() as t1:
            t1.watch(z)
            f = z ** 3
        d1 = t1.gradient(f, z)
    p("second_derivative", t2.gradient(d1, z))
    return out
