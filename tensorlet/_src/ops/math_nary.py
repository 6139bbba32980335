"""Ops over a list of terms: add_n (a list of tensors of one shape) and polyval (Horner's rule)."""

from __future__ import annotations

import functools

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import mismatch, t as _t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
ADDN_TYPES = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.complex64, D.int64, D.bfloat16, D.uint16,
              D.complex128, D.float16, D.uint32, D.uint64)


# --- add_n ----------------------------------------------------------------------------------------

def _add_n_check(*xs):
    s0 = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != s0:
            raise errors.invalid_argument(
                "AddN", f"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: "
                        f"{errors.shape_str(s0.as_list())} != input {i}: {errors.shape_str(x.shape.as_list())}")


def _add_n_shape(*xs, **attrs):
    return shapes.Spec(xs[0].shape, xs[0].dtype)


ADD_N = defop("AddN", lambda xp, *xs: functools.reduce(xp.add, xs), dtypes=ADDN_TYPES, check=_add_n_check,
              shape=_add_n_shape, grad=lambda g, ans, *xs: [g] * len(xs))


@tf_export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """Sum of a list of tensors of one shape and dtype.  ``tf.add_n([[1, 2], [3, 4]])`` -> ``[4, 6]``."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    inputs = [_t(x) for x in inputs]
    if len(inputs) == 1:
        return inputs[0]
    d = inputs[0].dtype
    for i, x in enumerate(inputs):
        if x.dtype is not d:
            raise mismatch("AddN", i, d, x.dtype)
    return bind(ADD_N, *inputs)


# --- polyval --------------------------------------------------------------------------------------

@tf_export("math.polyval")
def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's rule; ``coeffs`` is a list.

    ``tf.math.polyval([1., 2., 3.], 2.)`` -> ``11.``.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = _t(x)
    if not coeffs:
        from tensorlet._src.ops.creation import zeros_like

        return zeros_like(x)
    coeffs = [_t(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = mb.add(c, mb.multiply(p, x))
    return p


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_binary as mb  # noqa: E402
