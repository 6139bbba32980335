"""What ``tensorflow.python.util.deprecation`` offers scripts under the ``tensorflow`` alias (``tensorlet run``).

TF programs and tools reach into this private module for two things: ``deprecation.silence()`` (TensorBoard's
event-file loader wraps its reads in it) and ``deprecation._PRINT_DEPRECATION_WARNINGS = False`` (a common idiom to
quiet TF's deprecation notices).  tensorlet prints no deprecation notices, so both are accepted and change nothing.
"""

from __future__ import annotations

import contextlib

_PRINT_DEPRECATION_WARNINGS = True


@contextlib.contextmanager
def silence():
    """Deprecation warnings are silenced inside the block (a fresh context manager per call, as TF's)."""
    global _PRINT_DEPRECATION_WARNINGS
    before, _PRINT_DEPRECATION_WARNINGS = _PRINT_DEPRECATION_WARNINGS, False
    try:
        yield
    finally:
        _PRINT_DEPRECATION_WARNINGS = before
