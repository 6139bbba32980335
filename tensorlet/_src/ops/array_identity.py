"""Ops whose output is their input: identity, identity_n, stop_gradient and ensure_shape (a shape check)."""

from __future__ import annotations

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

_sh = errors.shape_str


# Identity passes IndexedSlices through unchanged, as TF's gradient does.
IDENTITY = defop("Identity", lambda xp, x: x, shape=shapes.same, grad=lambda g, ans, x: g, sparse_grad=True)
IDENTITY_N = defop("IdentityN", lambda xp, *xs: tuple(xs), n_out=None, grad=lambda g, ans, *xs: tuple(g))
STOP_GRADIENT = defop("StopGradient", lambda xp, x: x, shape=shapes.same, grad=NONDIFF)


@tf_export("identity")
def identity(input, name=None):  # noqa: A002 - TF's argument name
    """A tensor with the same value as ``input`` (reads a variable's value)."""
    return bind(IDENTITY, t(input))


@tf_export("identity_n")
def identity_n(input, name=None):  # noqa: A002 - TF's argument name
    """``identity`` of each tensor of a list."""
    return list(bind(IDENTITY_N, *[t(x) for x in input]))


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002 - TF's argument name
    """``input`` unchanged, but gradients do not flow through it."""
    return bind(STOP_GRADIENT, t(input))


def _ensure_check(x, shape):
    dims = _dims(x)
    if shape is None or dims is None:
        return
    if len(dims) != len(shape) or any(e is not None and d is not None and d != e for d, e in zip(dims, shape)):
        raise errors.invalid_argument("EnsureShape", f"Shape of tensor input {_sh(dims)} is not compatible with "
                                                     f"expected shape {_sh(shape)}.")


ENSURE_SHAPE = defop("EnsureShape", lambda xp, x, shape: x, check=_ensure_check, grad=lambda g, ans, x, shape: g)


# ops whose output is their first input once a graph is frozen for inference (exporters alias them away)
PASSTHROUGH = frozenset((IDENTITY, STOP_GRADIENT, ENSURE_SHAPE))


@tf_export("ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x`` unchanged after checking that its shape is compatible with ``shape``."""
    s = TensorShape(shape)
    return bind(ENSURE_SHAPE, t(x), shape=None if s.rank is None else tuple(s.as_list()))


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops.array_shape import _dims  # noqa: E402
