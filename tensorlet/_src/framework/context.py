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


class name_scope:
    """``with tf.name_scope("block"):`` -- prefixes the names of variables created inside (``block/w:0``).

    Entering yields the full scope string with a trailing slash (``"outer/block/"``), as TF does.
    """

    def __init__(self, name: str):
        if name is None or not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}.")
        self._name = name.rstrip("/")

    @property
    def name(self):
        return self._name

    def __enter__(self):
        ctx.name_scope.append(self._name)
        return "/".join(s for s in ctx.name_scope if s) + "/"

    def __exit__(self, *exc):
        ctx.name_scope.pop()
        return False


def get_current_name_scope() -> str:
    """The current name scope without a trailing slash (``""`` at top level), as ``tf.get_current_name_scope``."""
    return "/".join(s for s in ctx.name_scope if s)


def get_logger():
    """The logger tensorlet writes its notices to (``tf.get_logger().setLevel("ERROR")`` works as in TF)."""
    import logging

    return logging.getLogger("tensorlet")


@contextlib.contextmanager
def init_scope():
    """``tf.init_scope()``: run the block eagerly, outside any function being traced and outside tapes.

    Keras creates weights and optimizer slots inside it, so creating them while a train step is traced makes
    real variables (once), not graph values.
    """
    prev_interp, prev_tapes = ctx.interp, ctx.tapes
    lifted = getattr(prev_interp, "outer_interp", None)  # a trace nested in another trace lifts to the outermost
    ctx.interp, ctx.tapes = lifted() if lifted else None, ()
    try:
        yield
    finally:
        ctx.interp, ctx.tapes = prev_interp, prev_tapes
