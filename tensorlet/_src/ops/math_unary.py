"""Elementwise unary math: negation, abs, sign, exp/log family, roots, trig, rounding, special functions."""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
SIGNED = D.FLOATS + D.SIGNED_INTS + D.COMPLEX

NEG = defop("Neg", lambda xp, x: xp.negative(x), dtypes=SIGNED, shape=shapes.same)
ABS = defop("Abs", lambda xp, x: xp.abs(x), dtypes=D.FLOATS + D.SIGNED_INTS, shape=shapes.same)
COMPLEX_ABS = defop("ComplexAbs", lambda xp, x: xp.abs(x), dtypes=D.COMPLEX)


@tf_export("math.negative", "negative")
def negative(x, name=None):
    return bind(NEG, t(x))


@tf_export("math.abs", "abs")
def abs(x, name=None):  # noqa: A001 - TF's name
    """|x|; for complex input the magnitude, as a real tensor."""
    x = t(x)
    if x.dtype.is_complex:
        return bind(COMPLEX_ABS, x)
    return bind(ABS, x)
