"""C-style (truncating) division: ``tf.truncatediv`` and ``tf.truncatemod``.

``floordiv``/``floormod`` round toward -inf (Python's ``//``, ``%``); these round toward zero, as C and TF's
``TruncateDiv``/``TruncateMod`` do: ``truncatediv(-7, 2) == -3``, ``truncatemod(-7, 2) == -1``.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import binary
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, defop, tf_export

D = _dt


def _divisor_check(op_name):
    def check(x, y):
        if y._v.dtype.kind in "iu" and not np.all(y._v):  # TF's kernel reports it as an internal error
            raise errors.InternalError(None, None, "Unexpected error in binary operator (only integer div and mod "
                                                   f"should have errors) [Op:{op_name}]")
    return check


def _truncdiv(xp, x, y):
    if x.dtype.kind in "iu":
        q = x // xp.where(y == 0, 1, y)
        fix = (x % xp.where(y == 0, 1, y) != 0) & ((x < 0) != (y < 0))
        return (q + fix.astype(q.dtype)).astype(x.dtype)
    return xp.trunc(x / y).astype(x.dtype)


def _truncmod(xp, x, y):
    if x.dtype.kind in "iu":
        return xp.fmod(x, xp.where(y == 0, 1, y)).astype(x.dtype)
    return xp.fmod(x, y)


# TF registers TruncateDiv's gradient as (None, None) and none for TruncateMod.
TRUNCATE_DIV = defop("TruncateDiv", _truncdiv, dtypes=D.NUMERIC, shape=shapes.broadcast, quiet=True,
                     check=_divisor_check("TruncateDiv"), grad=NONDIFF)
TRUNCATE_MOD = defop("TruncateMod", _truncmod, dtypes=D.REALS, shape=shapes.broadcast, quiet=True,
                     check=_divisor_check("TruncateMod"), grad=NO_GRADIENT)


@tf_export("truncatediv")
def truncatediv(x, y, name=None):
    """Division rounding toward zero: ``tf.truncatediv(-7, 2)`` -> ``-3``."""
    return binary(TRUNCATE_DIV, x, y)


@tf_export("truncatemod")
def truncatemod(x, y, name=None):
    """Remainder of truncating division (C's ``fmod``): ``tf.truncatemod(-7, 2)`` -> ``-1``."""
    return binary(TRUNCATE_MOD, x, y)
