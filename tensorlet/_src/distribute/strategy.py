"""``tf.distribute`` strategies, single-replica for now.

tensorlet runs one replica per process: ``MirroredStrategy``/``MultiWorkerMirroredStrategy`` (with no cluster) and
the default strategy all have ``num_replicas_in_sync == 1`` and run ``fn`` once per step on the local device --
what TF does on a machine with one device.  Code written for strategies (``scope()``, ``run``, ``reduce``,
``experimental_distribute_dataset``, Keras ``fit`` under ``scope()``) runs unchanged.  Multi-device data
parallelism (replicas over several accelerators through jax) is a later piece of work; asking for a cluster or a
TPU raises a clear error.
"""

from __future__ import annotations

import contextlib
import enum
import os
import threading

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


@tf_export("distribute.ReplicaContext")
class ReplicaContext:
    def __init__(self, strategy):
        self.strategy = strategy
        self.replica_id_in_sync_group = 0
        self.num_replicas_in_sync = strategy.num_replicas_in_sync

    def all_reduce(self, reduce_op, value, options=None):
        return value

    def merge_call(self, merge_fn, args=(), kwargs=None):
        return merge_fn(self.strategy, *args, **(kwargs or {}))


@tf_export("distribute.Strategy")
class Strategy:
    """A single-replica strategy on the local device (see the module docstring)."""

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
        """Variables (and Keras models) created inside belong to this strategy."""
        stack = _stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on each replica (one here)."""
        with self.scope():
            return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        """Combine a per-replica value; with ``axis``, also reduce along it (TF's semantics)."""
        from tensorlet._src.autodiff import lazy as T

        op = ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp) else str(reduce_op).upper())
        if axis is None:
            return value
        return (T.reduce_sum if op is ReduceOp.SUM else T.reduce_mean)(value, axis=axis)

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
        return value_fn(type("ValueContext", (), {"replica_id_in_sync_group": 0, "num_replicas_in_sync": 1})())

    def __repr__(self):
        return f"<{type(self).__name__} (1 replica)>"


@tf_export("distribute.MirroredStrategy")
class MirroredStrategy(Strategy):
    """Synchronous data parallelism over local devices; one replica in tensorlet for now."""

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__()
        self._devices = tuple(devices) if devices is not None else None


@tf_export("distribute.MultiWorkerMirroredStrategy", "distribute.experimental.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(Strategy):
    """Multi-worker data parallelism; with no ``TF_CONFIG`` cluster, one worker with one replica (as TF)."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        tf_config = os.environ.get("TF_CONFIG")
        if cluster_resolver is not None or (tf_config and '"cluster"' in tf_config):
            raise NotImplementedError(
                "tensorlet does not implement multi-worker clusters yet (TF_CONFIG or a cluster_resolver was given); "
                "unset TF_CONFIG to train on this worker alone")
        super().__init__()


@tf_export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    def __init__(self, device):
        super().__init__()
        self._device = device


def _stack():
    s = getattr(_state, "stack", None)
    if s is None:
        s = _state.stack = []
    return s


_DEFAULT = Strategy()


@tf_export("distribute.get_strategy")
def get_strategy():
    """The strategy of the enclosing ``scope()``, or the default (single-replica) strategy."""
    s = _stack()
    return s[-1] if s else _DEFAULT


@tf_export("distribute.has_strategy")
def has_strategy():
    return bool(_stack())


@tf_export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    return True


@tf_export("distribute.get_replica_context")
def get_replica_context():
    return ReplicaContext(get_strategy())
