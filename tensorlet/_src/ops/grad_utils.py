"""Helpers that gradient functions share: summing gradients (dense or ``IndexedSlices``) and undoing
broadcasting.  They are written in tensorlet ops, so gradients of gradients work."""

from __future__ import annotations

import threading

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor

# Ops whose gradient functions skip the input gradients no one wants (TF's ``skip_input_indices``): the eager tape
# sets ``wanted`` to one flag per input before calling such an op's gradient (per thread; None elsewhere: every
# gradient is computed, as graph-mode gradients and jacobians need).
SKIPS_UNWANTED: set = set()
_state = threading.local()


def wanted(i: int) -> bool:
    """Whether the gradient of input ``i`` is wanted by the tape running this gradient function."""
    mask = getattr(_state, "mask", None)
    return mask is None or mask[i]


def set_wanted(mask):
    _state.mask = mask


def add_grads(a, b):
    """Sum two gradients, densifying IndexedSlices when mixed with dense ones."""
    if a.__class__ is EagerTensor and b.__class__ is EagerTensor:
        return math_binary.add(a, b)
    if isinstance(a, indexed_slices.IndexedSlices) or isinstance(b, indexed_slices.IndexedSlices):
        return indexed_slices.add_indexed(a, b)
    return math_binary.add(a, b)


def unbroadcast(g, x, other=None):
    """Sum ``g`` over the dimensions along which ``x`` was broadcast (against ``other``), giving ``x``'s shape."""
    if g.__class__ is not EagerTensor and (g.shape.rank is None or x.shape.rank is None):  # traced, unknown rank
        if x.shape.rank == 0:  # a scalar: every dimension was broadcast
            return reduce.reduce_sum(g)
        if other is not None and other.shape.rank == 0:  # against a scalar: nothing was
            return g
        raise errors.op_error(errors.UnimplementedError, "BroadcastGradientArgs",
                              f"the gradient of a broadcasting op between shapes {g.shape} and {x.shape} needs both "
                              "ranks here; give the function's input_signature a rank (its dimensions may stay None)")
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
