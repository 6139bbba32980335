"""Gradient functions are written in tensorlet's public ops: ``from tensorlet._src.autodiff import lazy as T``.

``T.reduce_sum`` is ``tf.reduce_sum``, looked up when first used, so op families can
define gradients that use ops from families imported after them.  The helpers here
(``unbroadcast``, ``add_grads``) are themselves written in public ops, so gradients
of gradients work.
"""

from __future__ import annotations

import builtins
import importlib

from tensorlet._src.framework.tensor import EagerTensor

_tf = None


def __getattr__(name):
    global _tf
    if _tf is None:
        _tf = importlib.import_module("tensorlet")
    value = getattr(_tf, name)
    if not hasattr(builtins, name):  # cache, but never shadow a builtin (range, abs, ...) inside this module
        globals()[name] = value
    return value


def convert(x, dtype=None):
    from tensorlet._src.framework.tensor import convert_to_tensor

    return convert_to_tensor(x, dtype=dtype)


def _add(a, b):
    from tensorlet._src.ops.math_binary import add

    globals()["_add"] = add  # resolved once
    return add(a, b)


def add_grads(a, b):
    """Sum two gradients, densifying IndexedSlices when mixed with dense ones."""
    if a.__class__ is EagerTensor and b.__class__ is EagerTensor:
        return _add(a, b)
    from tensorlet._src.framework.indexed_slices import IndexedSlices, add_indexed

    if isinstance(a, IndexedSlices) or isinstance(b, IndexedSlices):
        return add_indexed(a, b)
    return __getattr__("add")(a, b)


def unbroadcast(g, x):
    """Sum ``g`` over the dimensions along which ``x`` was broadcast, giving ``x``'s shape."""
    gs = g._v.shape if g.__class__ is EagerTensor else tuple(g.shape)
    xs = x._v.shape if x.__class__ is EagerTensor else tuple(x.shape)
    if gs == xs:
        return g
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = __getattr__("reduce_sum")(g, axis=axes, keepdims=True)
    return __getattr__("reshape")(g, xs)


def unbroadcast_batch(g, x):
    """For batched matrix ops: sum ``g`` over the batch dimensions along which ``x`` was broadcast."""
    gs = tuple(g.shape)
    xs = tuple(x.shape)
    if gs == xs:
        return g
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs[:-2]) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = __getattr__("reduce_sum")(g, axis=axes)
    return __getattr__("reshape")(g, xs)
