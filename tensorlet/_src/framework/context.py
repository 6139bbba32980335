"""Per-thread execution state: which interpreter runs ops, active tapes, device scope.

``interp is None`` means eager: ops run their NumPy kernels directly.  Tracing
(``tf.function``), TF1 graph building and other interpreters push themselves here.
"""

from __future__ import annotations

import contextlib
import threading


class _Context(threading.local):
    def __init__(self):
        self.interp = None  # None: eager; otherwise an object with .bind(op, inputs, attrs)
        self.tapes = ()  # active gradient tapes (tuple; empty = no recording cost)
        self.device_stack = []  # device names from `with tf.device(...)`
        self.name_scope = []


ctx = _Context()


def executing_eagerly() -> bool:
    """True when ops run immediately (not being traced into a graph)."""
    return ctx.interp is None or getattr(ctx.interp, "eager", False)


@contextlib.contextmanager
def interpreter(interp):
    """Run ops under ``interp`` for the duration of the block (used by tracing)."""
    prev = ctx.interp
    ctx.interp = interp
    try:
        yield interp
    finally:
        ctx.interp = prev
