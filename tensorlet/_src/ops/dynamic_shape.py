"""Ops whose output shape is known only at run time: the forms of ``tf.range``, ``tf.reshape``, ``tf.broadcast_to``,
``tf.fill`` and ``tf.slice`` that the public functions bind when a shape argument is a traced tensor.

They exist only inside traced graphs (``kind="graph"``; tests in tests/graph).  Under XLA the shape argument is a
concrete value while lowering (``_concrete_dims``); a ``tf.range`` whose length depends on run-time values cannot
be compiled at all.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import NONDIFF, bind, defop
from tensorlet._src.ops.shapes import Spec
from tensorlet._src.ops.tfdef import TFDef


def _concrete_dims(shape, what):
    import jax

    dims = jax.core.concrete_or_error(np.asarray, shape, what)
    return tuple(int(d) for d in np.asarray(dims).reshape(-1))


def _dyn_dims_spec(shape):
    n = shape.shape[0] if shape.shape.rank == 1 else None
    if n is None:
        return TensorShape(None)
    if shape._const is not None:
        return TensorShape([int(d) for d in np.asarray(shape._const).tolist()])
    return TensorShape([None] * n)


# --- DynamicRange: a range whose bounds are known only at run time (its length is value-dependent) ---------------

def _dyn_range_np(xp, start, limit, delta):
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


DYNAMIC_RANGE = defop(
    "DynamicRange", _dyn_range_np, shape=lambda start, limit, delta: [Spec(TensorShape([None]), start.dtype)],
    grad=NONDIFF, kind="graph", no_lowering=True,
    no_lowering_reason="is a tf.range whose length depends on run-time values (XLA needs static shapes; iterate it "
                       "in a `for` loop, which AutoGraph turns into a while loop)", tfdef=TFDef(op="Range"))


# --- ReshapeDyn: reshape to a shape computed at run time ---------------------------------------------------------

def _reshape_dyn_jax(jnp, x, shape):
    # shapes are static under XLA: a shape computed from tf.shape(...) is a concrete value while lowering
    return jnp.reshape(x, _concrete_dims(shape, "tf.reshape with a value-dependent shape"))


def _reshape_dyn_shape(x, shape):
    n = shape.shape[0] if shape.shape.rank == 1 else None
    dims = [None] * n if n is not None else None
    if dims is not None and shape._const is not None:
        dims = [None if d < 0 else int(d) for d in np.asarray(shape._const).tolist()]
    return [Spec(TensorShape(dims), x.dtype)]


def _reshape_dyn_grad(g, ans, x, shape):
    return [array_shape.reshape(g, array_shape.shape(x)), None]


RESHAPE_DYN = defop("ReshapeDyn", lambda xp, x, shape: xp.reshape(x, tuple(np.asarray(shape).tolist())),
                    jax_impl=_reshape_dyn_jax, shape=_reshape_dyn_shape, grad=_reshape_dyn_grad, kind="graph",
                    tfdef=TFDef(op="Reshape"))


# --- BroadcastToDyn ----------------------------------------------------------------------------------------------

def _broadcast_dyn_grad(g, ans, x, shape):
    xs = x.shape.as_list() if x.shape.rank is not None else None
    if xs is None or g.shape.rank is None:
        raise ValueError("the gradient of a tf.broadcast_to to a run-time shape needs the input's rank")
    lead = g.shape.rank - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs) if d == 1]
    r = reduce.reduce_sum(g, axis=axes, keepdims=True) if axes else g
    if lead:
        r = array_shape.reshape(r, array_shape.shape(x))
    return [r, None]


BROADCAST_TO_DYN = defop(
    "BroadcastToDyn", lambda xp, x, shape: xp.broadcast_to(x, tuple(np.asarray(shape).tolist())),
    jax_impl=lambda jnp, x, shape: jnp.broadcast_to(x, _concrete_dims(shape, "tf.broadcast_to")),
    shape=lambda x, shape: [Spec(_dyn_dims_spec(shape), x.dtype)], grad=_broadcast_dyn_grad, kind="graph",
                         tfdef=TFDef(op="BroadcastTo"))


# --- FillDyn -----------------------------------------------------------------------------------------------------

FILL_DYN = defop(
    "FillDyn", lambda xp, dims, value: xp.full(tuple(np.asarray(dims).tolist()), value, dtype=value.dtype),
    jax_impl=lambda jnp, dims, value: jnp.full(_concrete_dims(dims, "tf.fill"), value, dtype=value.dtype),
    shape=lambda dims, value: [Spec(_dyn_dims_spec(dims), value.dtype)], grad=NONDIFF, kind="graph",
                 tfdef=TFDef(op="Fill"))


# --- SliceDyn and its gradient SliceDynGrad: a slice starting at a run-time offset -------------------------------

def _slice_dyn_np(xp, x, begin, size):
    b = [int(v) for v in np.asarray(begin).reshape(-1)]
    bad = [i for i, (bi, si, d) in enumerate(zip(b, size, x.shape)) if not 0 <= bi <= d - si]
    if bad:
        i = bad[0]
        raise errors.invalid_argument("Slice", f"Expected size[{i}] in [0, {x.shape[i] - b[i]}], but got "
                                               f"{size[i]}")
    return x[tuple(slice(bi, bi + si) for bi, si in zip(b, size))]


def _slice_dyn_jax(jnp, x, begin, size):
    from jax import lax

    return lax.dynamic_slice(x, [begin[i] for i in range(len(size))], size)


def _slice_dyn_grad(g, ans, x, begin, size):
    return [bind(SLICE_DYN_GRAD, g, creation.zeros_like(x), begin, size=size), None]


def _slice_dyn_grad_np(xp, g, zeros, begin, size):
    out = np.array(zeros)
    b = [int(v) for v in np.asarray(begin).reshape(-1)]
    out[tuple(slice(bi, bi + si) for bi, si in zip(b, size))] = g
    return out


def _slice_dyn_grad_jax(jnp, g, zeros, begin, size):
    from jax import lax

    return lax.dynamic_update_slice(zeros, g, [begin[i] for i in range(len(size))])


SLICE_DYN = defop("SliceDyn", _slice_dyn_np, jax_impl=_slice_dyn_jax,
                  shape=lambda x, begin, size: [Spec(TensorShape(list(size)), x.dtype)], grad=_slice_dyn_grad,
                  kind="graph", tfdef=TFDef(op="Slice"))
SLICE_DYN_GRAD = defop("SliceDynGrad", _slice_dyn_grad_np, jax_impl=_slice_dyn_grad_jax,
                       shape=lambda g, zeros, begin, size: [zeros.spec], grad=NONDIFF, kind="graph")


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_shape, creation, reduce  # noqa: E402
