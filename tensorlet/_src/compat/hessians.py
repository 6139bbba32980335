"""``tf.hessians``: second derivatives built as graph ops with ``tf.gradients`` (inside ``tf.function`` or TF1
graphs; eagerly TF raises, use nested ``GradientTape``s)."""

from __future__ import annotations

from tensorlet._src.compat.v1_graph import gradients
from tensorlet._src.ops import array_blocks, array_shape, creation
from tensorlet._src.ops.registry import tf_export


@tf_export("compat.v1.hessians", "hessians")
def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """For each ``x`` of ``xs``, the Hessian of ``sum(ys)``: shape ``x.shape + x.shape``.

    >>> f = tf.function(lambda x: tf.hessians(tf.reduce_sum(x ** 3), x)[0])
    >>> f(tf.constant([1., 2.])).numpy()
    array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)
    """
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    out = []
    for g, x in zip(gradients(ys, xs, aggregation_method=aggregation_method), xs):
        if g is None:
            out.append(None)
            continue
        flat = array_shape.reshape(g, [-1])
        n = int(flat.shape[0])
        rows = []
        for j in range(n):
            h = gradients(flat[j], x)[0]
            rows.append(creation.zeros_like(x) if h is None else h)
        out.append(array_shape.reshape(array_blocks.stack(rows), list(x.shape) + list(x.shape)))
    return out
