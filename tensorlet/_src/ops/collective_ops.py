"""Cross-replica collectives: all-reduce, all-gather and the replica id, over the replicas of a strategy.

A multi-replica ``tf.distribute`` strategy runs its replica function as one SPMD program (jax ``shard_map`` over a
device mesh whose replica axis is named by ``axis_name``); there the collectives lower to XLA's all-reduce and
all-gather.  Everywhere else (eager code, the NumPy graph executor) there is one replica, and ``group_size`` must
be 1: all-reduce and all-gather are the identity and the replica id is 0.

Gradients follow TF's ``ReplicaContext.all_reduce``: the gradient of an all-reduce is the same all-reduce of the
upstream gradient; the gradient of an all-gather is each replica's slice of the summed upstream gradient.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, bind, defop

REDUCTIONS = ("sum", "mean", "max", "min")


def _one_replica(op_name, group_size):
    if group_size != 1:
        raise errors.InternalError(None, None, f"{op_name} over {group_size} replicas can only run inside a "
                                               "multi-replica strategy's compiled replica function")


def _reduce_kernel(xp, x, reduction, group_size, axis_name):
    _one_replica("CollectiveReduceV2", group_size)
    return x


def _reduce_jax(xp, x, reduction, group_size, axis_name):
    from jax import lax

    if group_size == 1:
        return x
    if reduction == "sum":
        return lax.psum(x, axis_name)
    if reduction == "mean":
        out = lax.psum(x, axis_name)
        return out / group_size if xp.issubdtype(out.dtype, xp.inexact) else out // group_size
    return (lax.pmax if reduction == "max" else lax.pmin)(x, axis_name)


def _reduce_grad(g, ans, x, reduction, group_size, axis_name):
    if reduction in ("sum", "mean"):
        return bind(ALL_REDUCE, g, reduction=reduction, group_size=group_size, axis_name=axis_name)
    return None  # max/min: no gradient (TF defines none for them either)


ALL_REDUCE = defop("CollectiveReduceV2", _reduce_kernel, jax_impl=_reduce_jax, shape=shapes.same,
                   grad=_reduce_grad)


def _gather_kernel(xp, x, group_size, axis_name):
    _one_replica("CollectiveGatherV2", group_size)
    return x


def _gather_jax(xp, x, group_size, axis_name):
    from jax import lax

    if group_size == 1:
        return x
    return lax.all_gather(x, axis_name, axis=0, tiled=True)


def _gather_shape(x, group_size, axis_name):
    from tensorlet._src.framework.tensor_shape import TensorShape

    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        return shapes.Spec(TensorShape(None), x.dtype)
    dims[0] = None if dims[0] is None else dims[0] * group_size
    return shapes.Spec(TensorShape(dims), x.dtype)


def _gather_grad(g, ans, x, group_size, axis_name):
    total = bind(ALL_REDUCE, g, reduction="sum", group_size=group_size, axis_name=axis_name)
    rid = bind(REPLICA_ID, group_size=group_size, axis_name=axis_name)
    from tensorlet._src.ops.array_shape import shape
    from tensorlet._src.ops.array_blocks import concat
    from tensorlet._src.ops.array_select import slice
    from tensorlet._src.ops.creation import zeros_like

    n = shape(x, out_type="int32")[:1]
    rest = zeros_like(shape(x, out_type="int32")[1:])
    return slice(total, concat([rid[None] * n, rest], 0), concat([n, rest - 1], 0))


ALL_GATHER = defop("CollectiveGatherV2", _gather_kernel, jax_impl=_gather_jax, shape=_gather_shape,
                   grad=_gather_grad)


def _replica_id_kernel(xp, group_size, axis_name):
    _one_replica("ReplicaId", group_size)
    return np.int32(0)


def _replica_id_jax(xp, group_size, axis_name):
    from jax import lax

    if group_size == 1:
        return xp.int32(0)
    return lax.axis_index(axis_name).astype(xp.int32)


def _replica_id_shape(group_size, axis_name):
    from tensorlet._src.framework import dtypes
    from tensorlet._src.framework.tensor_shape import TensorShape

    return shapes.Spec(TensorShape([]), dtypes.int32)


REPLICA_ID = defop("ReplicaId", _replica_id_kernel, jax_impl=_replica_id_jax, shape=_replica_id_shape,
                   grad=NONDIFF)


def _spmd_kernel(xp, *arrays, program, out_specs):
    return program.run_arrays(arrays)


def _spmd_jax(xp, *arrays, program, out_specs):
    return program.run_jax(arrays)


def _spmd_shape(*inputs, program, out_specs):
    return [shapes.Spec(shape, dtype) for shape, dtype in out_specs]


# A replicated program (a strategy's replica function compiled over a device mesh) called from a traced graph:
# ``program.run_arrays`` runs it from the NumPy executor, ``program.run_jax`` inside the graph's own XLA program.
SPMD_CALL = defop("SpmdCall", _spmd_kernel, jax_impl=_spmd_jax, shape=_spmd_shape, grad=NO_GRADIENT, n_out=None,
                  kind="graph", stateful=True, serializable=False)


def spmd_call(program, tensors, out_specs):
    """Bind one SpmdCall node; ``out_specs`` is ``[(TensorShape, DType), ...]`` of its outputs."""
    return list(bind(SPMD_CALL, *tensors, program=program, out_specs=tuple(out_specs)))


def all_reduce(x, reduction, group_size, axis_name):
    """All-reduce ``x`` over ``group_size`` replicas of mesh axis ``axis_name`` (``reduction`` in REDUCTIONS)."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    return bind(ALL_REDUCE, x, reduction=reduction, group_size=int(group_size), axis_name=axis_name)


def all_gather(x, group_size, axis_name):
    """Concatenate every replica's ``x`` along axis 0 (the same result on every replica)."""
    return bind(ALL_GATHER, x, group_size=int(group_size), axis_name=axis_name)


def replica_id(group_size, axis_name):
    """This replica's index in its group, as an int32 scalar tensor."""
    return bind(REPLICA_ID, group_size=int(group_size), axis_name=axis_name)
