"""``tf.TensorSpec`` for graph values (the class itself lives with tf.data's structures)."""

from __future__ import annotations


def spec_for(t):
    """The ``tf.TensorSpec`` describing graph tensor ``t`` (its placeholder name included)."""
    try:
        from tensorlet._src.data.structure import TensorSpec
    except ImportError:  # tf.data not built yet: a minimal stand-in with the same repr
        return _Spec(t.shape, t.dtype, t.node.name)
    return TensorSpec(t.shape, t.dtype, name=t.node.name)


class _Spec:
    def __init__(self, shape, dtype, name=None):
        self.shape, self.dtype, self.name = shape, dtype, name

    def __repr__(self):
        dims = self.shape.as_list() if self.shape.rank is not None else None
        shape = "<unknown>" if dims is None else "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        return f"TensorSpec(shape={shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"
