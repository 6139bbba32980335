"""Where TF defines no gradient for an op that tensorlet builds as a composite (``tf.image.adjust_hue`` is one TF
kernel, here a few ops), the composite's result passes through ``no_gradient_mark``: an identity whose gradient
is declared absent, so ``tape.gradient`` raises ``LookupError`` as TF does.
"""

from __future__ import annotations

from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop
from tensorlet._src.ops.shapes import same

NO_GRADIENT_MARK = defop("NoGradientMark", lambda xp, x, op_type="": x, shape=same, grad=NO_GRADIENT)


def no_gradient_mark(x, op_type):
    """``x``, with no gradient through it (``op_type``: the TF op whose gradient TF does not define)."""
    return bind(NO_GRADIENT_MARK, x, op_type=op_type)
