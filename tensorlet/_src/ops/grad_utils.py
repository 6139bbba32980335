"""Helpers that gradient functions share: summing gradients (dense or ``IndexedSlices``) and undoing
broadcasting.  They are written in tensorlet ops, so gradients of gradients work."""

from __future__ import annotations

from tensorlet._src.framework.tensor import EagerTensor


def add_grads(a, b):
    """Sum two gradients, densifying IndexedSlices when mixed with dense ones."""
    if a.__class__ is EagerTensor and b.__class__ is EagerTensor:
        return math_binary.add(a, b)
    if isinstance(a, indexed_slices.IndexedSlices) or isinstance(b, indexed_slices.IndexedSlices):
        return indexed_slices.add_indexed(a, b)
    return math_binary.add(a, b)


def unbroadcast(g, x):
    """Sum ``g`` over the dimensions along which ``x`` was broadcast, giving ``x``'s shape."""
    gs = g._v.shape if g.__class__ is EagerTensor else tuple(g.shape)
    xs = x._v.shape if x.__class__ is EagerTensor else tuple(x.shape)
    if gs == xs:
        return g
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = reduce.reduce_sum(g, axis=axes, keepdims=True)
    if None in xs:  # (TF1 graphs: a placeholder's unknown batch dimension) x's run-time shape
        return array_shape.reshape(g, array_shape.shape(x))
    return array_shape.reshape(g, xs)


def unbroadcast_batch(g, x):
    """For batched matrix ops: sum ``g`` over the batch dimensions along which ``x`` was broadcast."""
    gs = tuple(g.shape)
    xs = tuple(x.shape)
    if gs == xs:
        return g
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs[:-2]) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = reduce.reduce_sum(g, axis=axes)
    return array_shape.reshape(g, xs)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_shape, indexed_slices, math_binary, reduce  # noqa: E402
