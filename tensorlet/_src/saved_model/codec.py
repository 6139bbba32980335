"""The error types of the SavedModel package.

``SavedModelError`` (an ``OSError`` and ``ValueError``, as TF's loader raises) is the base; damaged or
inconsistent files raise ``CorruptSavedModel`` (also ``tf.errors.DataLossError``), functions using an op
tensorlet lacks raise ``UnknownOp`` (also ``tf.errors.NotFoundError``, TF's "Op type not registered").
``Unsupported`` is raised while saving something a SavedModel cannot hold.
"""

from __future__ import annotations

from tensorlet._src.framework import errors as _errors


class SavedModelError(OSError, ValueError):
    """A SavedModel directory is missing, malformed, or uses something tensorlet refuses to load."""


class CorruptSavedModel(_errors.DataLossError, SavedModelError):
    """A SavedModel file that cannot be parsed or is inconsistent (``tf.errors.DataLossError``)."""

    def __init__(self, message, *args):
        _errors.DataLossError.__init__(self, None, None, message)


class UnknownOp(_errors.NotFoundError, SavedModelError):
    """A SavedModel function uses an op tensorlet does not have (``tf.errors.NotFoundError``, as TF's
    "Op type not registered")."""

    def __init__(self, message, *args):
        _errors.NotFoundError.__init__(self, None, None, message)


class Unsupported(ValueError):
    """A value that cannot be saved (a Python callable, an op TF has no kernel for)."""
