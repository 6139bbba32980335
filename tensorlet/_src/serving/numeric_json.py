"""Reading the common REST predict body fast: ``{"instances": <numbers>}`` or ``{"inputs": <numbers>}`` with a
regular nested list, without building the nested Python lists.

The text left after deleting the numbers and whitespace must be exactly the brackets and commas of one shape, and
the text left after deleting the brackets must parse as a flat JSON array of numbers. Anything else (other keys,
strings, ragged lists, NaN...) returns None and takes ``tensors``' general path, whose results and messages this
one reproduces for what it accepts.
"""

from __future__ import annotations

import math

import numpy as np
import orjson

from tensorlet._src.serving.tensors import _FAST_KINDS, np_dtype

_NUMBER_AND_SPACE = b" \t\n\r0123456789.eE+-"
_KEYS = {b'"instances"': "instances", b'"inputs"': "inputs"}
_PATTERNS: dict = {}
FAST_BODY_LIMIT = 1 << 24


def _pattern(shape) -> bytes:
    p = _PATTERNS.get(shape)
    if p is None:
        p = b"[" + b"," * (shape[-1] - 1) + b"]"
        for d in reversed(shape[:-1]):
            p = b"[" + b",".join([p] * d) + b"]"
        if len(_PATTERNS) > 64:
            _PATTERNS.clear()
        _PATTERNS[shape] = p
    return p


def _guess_shape(p: bytes):
    """The shape of the bracket-and-comma text ``p`` of a regular nested list (checked by the caller)."""
    rank = len(p) - len(p.lstrip(b"["))
    shape = []
    for k in range(rank):
        closing = b"]" * (rank - k)
        end = p.find(closing)
        if end < 0:
            return None
        shape.append(p.count(b"]" * (rank - k - 1) + b",", k, end + rank - k) + 1)
    return tuple(shape)


def fast_numeric_body(body: bytes):
    """``(key, flat list of numbers, shape)`` for a body that is one regular numeric array under ``instances`` or
    ``inputs``, else None (the caller parses the body in full)."""
    if len(body) > FAST_BODY_LIMIT:
        return None
    body = body.strip()
    if body[:1] != b"{" or body[-1:] != b"}":
        return None
    colon = body.find(b":")
    key = _KEYS.get(body[1:colon].strip()) if colon > 0 else None
    if key is None:
        return None
    value = body[colon + 1:-1].strip()
    if value[:1] != b"[":
        return None
    p = value.translate(None, _NUMBER_AND_SPACE)
    shape = _guess_shape(p)
    if not shape or 0 in shape or _pattern(shape) != p:
        return None
    try:
        flat = orjson.loads(b"[" + value.translate(None, b"[]") + b"]")
    except orjson.JSONDecodeError:
        return None
    if len(flat) != math.prod(shape):
        return None
    return key, flat, shape


def fast_numeric_array(flat, shape, enum: int):
    """``from_json``'s result for a regular numeric list given flat, or None where its checks need the full path."""
    kinds = _FAST_KINDS.get(enum)
    if kinds is None:
        return None
    try:
        arr = np.array(flat)
    except (ValueError, OverflowError):
        return None
    if arr.dtype.kind not in kinds:
        return None
    try:
        return arr.astype(np_dtype(enum), copy=False).reshape(shape)
    except OverflowError:
        return None
