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


_LOGGER = []


class _RuntimeLevelFilter:
    """``TF_CPP_MIN_LOG_LEVEL`` (1 hides INFO, 2 also WARNING, 3 also ERROR) for tensorlet's own runtime notices
    -- the ones TF writes from C++; what user code logs through ``tf.get_logger()`` is not filtered."""

    def __init__(self, min_level: int):
        import logging

        self.below = {0: logging.DEBUG, 1: logging.WARNING, 2: logging.ERROR, 3: logging.CRITICAL}.get(
            min_level, logging.CRITICAL)

    def filter(self, record) -> bool:
        import os

        pkg = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # .../tensorlet
        if getattr(record, "user_output", False):  # Keras's progress output, not a runtime notice
            return True
        return not record.pathname.startswith(pkg + os.sep) or record.levelno >= self.below


def get_logger():
    """TF's logger: the ``tensorflow`` Python logger (``tf.get_logger().setLevel("ERROR")`` silences tensorlet's
    notices, retracing warnings included).  Configured as TF does: a stderr handler with logging's basic format
    unless the root logger already has handlers; ``TF_CPP_MIN_LOG_LEVEL`` filters tensorlet's runtime notices."""
    if _LOGGER:
        return _LOGGER[0]
    import logging
    import sys

    logger = logging.getLogger("tensorflow")
    if not logging.getLogger().handlers and not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
        logger.addHandler(handler)
    from tensorlet._src.framework import jax_runtime

    level = jax_runtime.user_min_log_level()  # not the "1" jax's import sets when the user set nothing
    if level.strip().isdigit() and int(level) > 0:
        logger.addFilter(_RuntimeLevelFilter(int(level)))
    _LOGGER.append(logger)
    return logger


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
