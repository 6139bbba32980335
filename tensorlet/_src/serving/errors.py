"""Serving errors: a canonical status code (TF's ``error::Code``) and TF Serving's message, mapped to HTTP
status codes the way TF Serving's REST server maps them and to gRPC status codes one to one."""

from __future__ import annotations

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED = 6, 7, 8, 9, 10
OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 11, 12, 13, 14, 15, 16

CODE_NAMES = {0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND",
              6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
              10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE",
              15: "DATA_LOSS", 16: "UNAUTHENTICATED"}

# TF Serving's http_server.cc ToHTTPStatusCode
HTTP_STATUS = {0: 200, 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400,
               12: 501, 13: 500, 14: 503, 15: 500, 16: 401}


class ServingError(Exception):
    """A request failed with canonical ``code`` and TF Serving's ``message``."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self):
        return self.message

    @property
    def http_status(self) -> int:
        return HTTP_STATUS.get(self.code, 500)


def invalid(message: str) -> ServingError:
    return ServingError(INVALID_ARGUMENT, message)


def from_exception(e: BaseException) -> ServingError:
    """A model function's exception as a serving error: tf.errors keep their code, anything else is INVALID_ARGUMENT
    for bad values (TypeError/ValueError) or INTERNAL."""
    if isinstance(e, ServingError):
        return e
    code = getattr(e, "error_code", None)
    if isinstance(code, int) and 0 < code <= 16:
        return ServingError(code, getattr(e, "message", None) or str(e))
    if isinstance(e, (TypeError, ValueError)):
        return ServingError(INVALID_ARGUMENT, str(e))
    return ServingError(INTERNAL, f"{type(e).__name__}: {e}")
