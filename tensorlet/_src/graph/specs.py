"""``tf.TensorSpec`` for graph values."""

from __future__ import annotations

from tensorlet._src.framework.tensor_spec import TensorSpec


def spec_for(t):
    """The ``tf.TensorSpec`` describing graph tensor ``t`` (its placeholder name included)."""
    return TensorSpec(t.shape, t.dtype, name=t.node.name)

