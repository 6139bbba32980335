"""``tf.errors``: TF's exception classes, and the helpers that build their messages.

Messages name the op, the shapes and dtypes involved and the user's own source line
(the first stack frame outside tensorlet), e.g.::

    InvalidArgumentError: Incompatible shapes: [2,3] vs. [4,5] [Op:AddV2] (at train.py:12)
"""

from __future__ import annotations

import linecache
import os
import sys

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of errors raised while running an op (``tf.errors.OpError``)."""

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        if args:
            self.error_code = args[0]

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    def __str__(self):
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc, "error_code": code,
                                   "__module__": "tensorlet.errors"})


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "Unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an argument it cannot handle (bad shape, dtype or value).")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity (file, kernel, ...) was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "The entity to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of memory or quota.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation (e.g. uninitialized variable).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "Iterated past the valid range (end of a sequence).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented or supported.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is currently unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption (bad file).")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "The request lacks valid credentials.")

_BY_CODE = {c.error_code: c for c in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError, UnauthenticatedError)}


def exception_type_from_error_code(code):
    return _BY_CODE[code]


def error_code_from_exception_type(cls):
    return cls.error_code


# --- message helpers -----------------------------------------------------------

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _is_runtime_file(fn: str) -> bool:
    """Frames of the XLA runtime (jax) are not the user's code either."""
    return f"{os.sep}jax{os.sep}" in fn or f"{os.sep}jaxlib{os.sep}" in fn


def user_frame():
    """(filename, lineno, source line) of the innermost frame outside tensorlet, or None."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not fn.startswith("<frozen") and not _is_runtime_file(fn):
            line = linecache.getline(fn, f.f_lineno).strip()
            return fn, f.f_lineno, line
        f = f.f_back
    return None


def user_location() -> str:
    fr = user_frame()
    if fr is None:
        return ""
    fn, ln, src = fr
    where = f"{os.path.basename(fn)}:{ln}"
    return f" (at {where}: {src})" if src else f" (at {where})"


def shape_str(shape) -> str:
    """TF's shape spelling in messages: [2,3]."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def op_error(cls, op_name: str, message: str):
    """An ``OpError`` of class ``cls`` whose message ends like TF's, plus the user's line."""
    return cls(None, op_name, f"{message} [Op:{op_name}]{user_location()}")


def invalid_argument(op_name: str, message: str):
    return op_error(InvalidArgumentError, op_name, message)


def relocate(e: OpError, loc: str) -> OpError:
    """``e`` with its trailing "(at file:line: ...)" replaced by ``loc`` (where a graph op was created)."""
    if not loc or not e.op:
        return e
    msg = e.message
    tag = f"[Op:{e.op}]"
    cut = msg.find(tag)
    if cut < 0:
        return e
    return type(e)(None, e.op, msg[:cut + len(tag)] + loc)
