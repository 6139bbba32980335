"""Keras masks on tensors (``x._keras_mask`` in Keras-on-TF).

Eager tensors have no attribute slots, so their masks live in a side table keyed by ``id`` and dropped when the
tensor dies; objects with a ``__dict__`` (symbolic tensors) carry the mask as an attribute.
"""

from __future__ import annotations

import weakref

from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.util import nest

_MASKS = {}


def _drop_mask(key):
    _MASKS.pop(key, None)


def get_keras_mask(x):
    """The Keras mask attached to tensor ``x``, or None."""
    if x is None:
        return None
    m = getattr(x, "__dict__", None)
    if m is not None:
        return m.get("_keras_mask")
    entry = _MASKS.get(id(x))
    if entry is not None and entry[0]() is x:
        return entry[1]
    return None


_tensor.KERAS_MASK_LOOKUP[0] = get_keras_mask  # ``tensor._keras_mask`` reads the side table


def set_keras_mask(x, mask):
    """Attaches ``mask`` to ``x`` (``None`` removes it)."""
    if x is None:
        return
    if hasattr(x, "__dict__"):
        x.__dict__["_keras_mask"] = mask
        return
    key = id(x)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(x, lambda _r, k=key: _drop_mask(k))
    except TypeError:
        return
    _MASKS[key] = (ref, mask)


def collect_mask(x):
    """The masks of ``x`` (a tensor or a structure of them), or None when none carries one."""
    if x is None:
        return None
    if isinstance(x, (list, tuple, dict)):
        masks = nest.map_structure(get_keras_mask, x)
        return None if all(m is None for m in nest.flatten(masks)) else masks
    return get_keras_mask(x)
