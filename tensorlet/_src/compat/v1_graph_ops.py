"""Graph-only ops for TF1 graphs imported from TensorFlow: the forms of TF ops whose shape arguments are computed
at run time, as TF's own gradient graphs build them (``Tile`` by ``Shape``-derived multiples, ``Sum`` over the
axes ``BroadcastGradientArgs`` returns, ...).  tensorlet's own ops take such arguments as static attrs; these
take them as inputs and exist only in compat.v1 graphs run by ``Session.run`` (NumPy kernels, no XLA lowering).
Each maps back to its TF op on export.  ``Switch`` / ``Merge`` are TF1's graph control flow (``tf.cond`` before
control flow v2), with TF's dead-tensor rule.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.compat.v1_graph import DEAD
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.ir import Spec
from tensorlet._src.ops.registry import NONDIFF, defop
from tensorlet._src.ops.tfdef import TFDef


def _int32():
    from tensorlet._src.framework import dtypes

    return dtypes.int32


def _axes(x, axis, op):
    nd = np.ndim(x)
    out = []
    for a in np.asarray(axis).reshape(-1).tolist():
        a = int(a)
        if not -max(nd, 1) <= a < max(nd, 1):
            raise errors.invalid_argument(op, f"Invalid reduction dimension ({a} for input with {nd} dimension(s)")
        out.append(a % max(nd, 1))
    return tuple(sorted(set(out)))


def _reduced_spec(x, axis, keep_dims):
    if x.shape.rank is None:
        return TensorShape(None)
    if axis._const is not None:
        axes = {int(a) % max(x.shape.rank, 1) for a in np.asarray(axis._const).reshape(-1).tolist()}
        dims = x.shape.as_list()
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)] if keep_dims else
                           [d for i, d in enumerate(dims) if i not in axes])
    return TensorShape([None] * x.shape.rank) if keep_dims else TensorShape(None)


def _reduction(name, fn):
    def impl(xp, x, axis, keep_dims=False):
        x = np.asarray(x)
        r = fn(x, axis=_axes(x, axis, name), keepdims=bool(keep_dims))
        return np.asarray(r).astype(x.dtype, copy=False)

    return defop(f"{name}Dyn", impl, shape=lambda x, axis, keep_dims=False: [
        Spec(_reduced_spec(x, axis, keep_dims), x.dtype)], grad=NONDIFF, kind="v1", no_lowering=True,
        no_lowering_reason="reduces over axes known only at run time (an imported TF1 graph)",
        tfdef=TFDef(op=name))


def _int_mean(x, axis, keepdims):
    if x.dtype.kind in "iu":
        n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        s = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        return (np.sign(s) * (np.abs(s) // max(n, 1))).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims)


SUM_DYN = _reduction("Sum", np.sum)
MEAN_DYN = _reduction("Mean", _int_mean)
PROD_DYN = _reduction("Prod", np.prod)
MAX_DYN = _reduction("Max", np.max)
MIN_DYN = _reduction("Min", np.min)


def _tile_np(xp, x, multiples):
    m = tuple(int(k) for k in np.asarray(multiples).reshape(-1).tolist())
    if len(m) != np.ndim(x):
        raise errors.invalid_argument("Tile", f"Expected multiples argument to be a vector of length {np.ndim(x)} "
                                              f"but got length {len(m)}")
    if any(k < 0 for k in m):
        raise errors.invalid_argument("Tile", f"Expected multiples[i] >= 0, but got {min(m)}")
    return np.tile(x, m)


TILE_DYN = defop("TileDyn", _tile_np, shape=lambda x, multiples: [
    Spec(TensorShape([None] * x.shape.rank) if x.shape.rank is not None else TensorShape(None), x.dtype)],
    grad=NONDIFF, kind="v1", no_lowering=True, no_lowering_reason="tiles by multiples known only at run time",
    tfdef=TFDef(op="Tile"))


def _broadcast_gradient_args(xp, s0, s1):
    """TF's BroadcastGradientArgs: the axes along which each of two broadcast inputs was expanded."""
    a = [int(d) for d in np.asarray(s0).reshape(-1).tolist()]
    b = [int(d) for d in np.asarray(s1).reshape(-1).tolist()]
    dt = np.asarray(s0).dtype
    if a == b:
        return np.zeros([0], dt), np.zeros([0], dt)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y == 1:
            r0.append(i)
            r1.append(i)
        elif x == y:
            continue
        elif x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
        else:
            raise errors.invalid_argument("BroadcastGradientArgs", f"Incompatible shapes: [{','.join(map(str, a))}] "
                                                                   f"vs. [{','.join(map(str, b))}]")
    return np.asarray(r0, dt), np.asarray(r1, dt)


BROADCAST_GRADIENT_ARGS = defop(
    "BroadcastGradientArgs", _broadcast_gradient_args, n_out=2,
    shape=lambda s0, s1: [Spec(TensorShape([None]), s0.dtype), Spec(TensorShape([None]), s0.dtype)],
    grad=NONDIFF, kind="v1", no_lowering=True, no_lowering_reason="computes reduction axes at run time")


# --- TF1 control flow: Switch / Merge (graphs built before control flow v2) ----------------------------------------
# A Switch forwards its data to one output; the other carries DEAD, which every op but Merge passes on (Session
# skips their kernels), and so do the ops ordered after a dead one.  Merge forwards its first live input.

def _switch_np(xp, data, pred):
    return (DEAD, data) if bool(np.asarray(pred)) else (data, DEAD)


def _merge_np(xp, *inputs):
    for i, x in enumerate(inputs):
        if x is not DEAD:
            return x, np.asarray(i, np.int32)
    return DEAD, DEAD


SWITCH = defop("Switch", _switch_np, n_out=2, shape=lambda data, pred: [Spec(data.shape, data.dtype)] * 2,
               grad=NONDIFF, kind="v1", stateful=True, no_lowering=True,
               no_lowering_reason="is TF1 graph control flow (Switch / Merge); build with tf.cond instead")
MERGE = defop("Merge", _merge_np, n_out=2, shape=lambda *inputs: [
    Spec(inputs[0].shape if all(t.shape == inputs[0].shape for t in inputs) else
         (TensorShape([None] * inputs[0].shape.rank) if inputs[0].shape.rank is not None else TensorShape(None)),
         inputs[0].dtype), Spec(TensorShape([]), _int32())],
    grad=NONDIFF, kind="v1", stateful=True, no_lowering=True,
    no_lowering_reason="is TF1 graph control flow (Switch / Merge); build with tf.cond instead")
