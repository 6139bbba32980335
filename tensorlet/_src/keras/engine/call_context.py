"""Per-thread state of a layer call: the outermost call's context (``training`` propagated to nested layers) and
whether layers are being called on placeholder values to infer output shapes (a "symbolic build")."""

from __future__ import annotations

import contextlib
import threading

_local = threading.local()


class CallContext:
    """The state of the outermost layer call in progress: which layer entered, and the ``training`` flag the nested
    calls inherit."""

    __slots__ = ("entry_layer", "training")

    def __init__(self, entry_layer, training=None):
        self.entry_layer = entry_layer
        self.training = training


def get_call_context():
    """The context of the outermost layer call in progress on this thread, or None."""
    return getattr(_local, "call_ctx", None)


def set_call_context(ctx):
    _local.call_ctx = ctx


@contextlib.contextmanager
def symbolic_build():
    """While active, layer calls run on placeholder values to find output shapes (no weights are kept)."""
    _local.symbolic = getattr(_local, "symbolic", 0) + 1
    try:
        yield
    finally:
        _local.symbolic -= 1


def in_symbolic_build():
    return getattr(_local, "symbolic", 0) > 0
