"""``tf.distribute``: the strategy API, replica contexts, and the single-replica strategies.

A strategy owns a set of replicas.  Outside every ``scope()`` the default strategy is current, with its default
replica context (``in_cross_replica_context()`` is False there, as in TF); inside ``scope()`` the code is in
cross-replica context (``get_replica_context()`` is None); inside ``strategy.run(fn)`` each replica runs ``fn``
in a replica context whose ``all_reduce`` / ``merge_call`` combine values across replicas.  The multi-replica
strategy (``MirroredStrategy`` over several devices) lives in ``mirrored.py``; the others here run one replica.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from typing import NamedTuple

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

_state = threading.local()


@tf_export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"


@tf_export("distribute.InputContext")
class InputContext:
    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


def _reduce_op(reduce_op) -> ReduceOp:
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    name = getattr(reduce_op, "value", reduce_op)
    try:
        return ReduceOp(str(name).upper())
    except ValueError:
        raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN, got {reduce_op!r}") from None


@tf_export("distribute.experimental.ValueContext")
class ValueContext:
    """What ``experimental_distribute_values_from_function`` tells ``value_fn`` about the replica."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync

    def __repr__(self):
        return (f"tf.distribute.ValueContext(replica id {self.replica_id_in_sync_group}, "
                f" total replicas in sync: {self.num_replicas_in_sync})")


@tf_export("distribute.ReplicaContext")
class ReplicaContext:
    """The context of one replica inside ``strategy.run`` (or the default replica context)."""

    def __init__(self, strategy, replica_id_in_sync_group=0):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id

    @property
    def devices(self):
        return self._strategy.extended.worker_devices[:1]

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a nest of tensors) combined over all replicas; every replica gets the result."""
        _reduce_op(reduce_op)
        return value

    def all_gather(self, value, axis, options=None):
        """``value`` concatenated along ``axis`` over the replicas, in replica order."""
        return value

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Run ``merge_fn(strategy, *args)`` once in cross-replica context (per-replica args as PerReplica)."""
        with _in_cross_replica(self._strategy):
            return merge_fn(self._strategy, *args, **(kwargs or {}))

    def __repr__(self):
        return f"<{type(self).__name__} replica {self._replica_id} of {self.num_replicas_in_sync}>"


@tf_export("distribute.Strategy")
class Strategy:
    """A single-replica strategy on the local device (see the module docstring)."""

    _default = False

    def __init__(self, extended=None):
        self._extended = extended

    @property
    def num_replicas_in_sync(self):
        return 1

    @property
    def extended(self):
        return self

    @property
    def cluster_resolver(self):
        return None

    @property
    def worker_devices(self):
        return ("/job:localhost/replica:0/task:0/device:CPU:0",)

    parameter_devices = worker_devices

    @contextlib.contextmanager
    def scope(self):
        """Variables (and Keras models) created inside belong to this strategy (cross-replica context)."""
        current = _stack()
        outer = current[-1].strategy if current else None
        if outer is not None and outer is not self and not outer._default and not self._default:
            raise ValueError(f"Mixing different tf.distribute.Strategy objects: {self!r} is not {outer!r}")
        with _in_cross_replica(self):
            yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on each replica (one here)."""
        with in_replica(ReplicaContext(self)):
            return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        """Combine a per-replica value; with ``axis``, also reduce along it (TF's semantics)."""
        from tensorlet._src.ops.reduce import reduce_mean, reduce_sum

        op = _reduce_op(reduce_op)
        if axis is None:
            return value
        return (reduce_sum if op is ReduceOp.SUM else reduce_mean)(value, axis=axis)

    def gather(self, value, axis):
        return value

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_local_results(self, value):
        return tuple(nest.flatten(value)) if not nest.is_nested(value) else (value,)

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext(0, 1))

    def __repr__(self):
        return f"<{type(self).__name__} (1 replica)>"


@tf_export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    def __init__(self, device):
        super().__init__()
        self._device = device


def _stack():
    """The strategy scopes entered on this thread; each entry is (strategy, replica_context or None)."""
    s = getattr(_state, "stack", None)
    if s is None:
        s = _state.stack = []
    return s


class _Entry(NamedTuple):
    strategy: Strategy
    replica: ReplicaContext | None


@contextlib.contextmanager
def _in_cross_replica(strategy):
    stack = _stack()
    stack.append(_Entry(strategy, None))
    try:
        yield
    finally:
        stack.pop()


@contextlib.contextmanager
def in_replica(replica_context):
    """Run the body as one replica of ``replica_context.strategy`` (used by ``run``)."""
    stack = _stack()
    stack.append(_Entry(replica_context.strategy, replica_context))
    try:
        yield replica_context
    finally:
        stack.pop()


_DEFAULT = Strategy()
_DEFAULT._default = True
_DEFAULT_REPLICA = ReplicaContext(_DEFAULT)


@tf_export("distribute.get_strategy")
def get_strategy():
    """The strategy of the enclosing ``scope()`` or ``run``, or the default (single-replica) strategy."""
    s = _stack()
    return s[-1].strategy if s else _DEFAULT


@tf_export("distribute.has_strategy")
def has_strategy():
    return any(not e.strategy._default for e in _stack())


@tf_export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    """True inside ``strategy.scope()`` outside ``run`` (and inside ``merge_call``)."""
    s = _stack()
    return bool(s) and s[-1].replica is None


@tf_export("distribute.get_replica_context")
def get_replica_context():
    """The current replica's context; None in cross-replica context; the default one outside any scope."""
    s = _stack()
    if not s:
        return _DEFAULT_REPLICA
    return s[-1].replica


def current_multi_replica_context():
    """The replica context of a multi-replica ``run`` being traced, else None (for gradient aggregation)."""
    rc = get_replica_context()
    return rc if rc is not None and rc.num_replicas_in_sync > 1 else None


def all_reduce_sum_gradients(grads):
    """Sum gradients over the replicas when called inside a multi-replica ``run`` (optimizers call this)."""
    rc = current_multi_replica_context()
    if rc is None:
        return grads
    present = [i for i, g in enumerate(grads) if g is not None]
    reduced = rc.all_reduce(ReduceOp.SUM, [grads[i] for i in present])
    out = list(grads)
    for i, g in zip(present, reduced):
        out[i] = g
    return out
