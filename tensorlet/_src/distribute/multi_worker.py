"""``MultiWorkerMirroredStrategy`` across processes, ``TPUStrategy``, and the strategies tensorlet maps or refuses.

Several workers (TF_CONFIG's ``chief`` and ``worker`` tasks) join one jax distributed runtime: the chief (or
worker 0 when there is no chief) hosts the coordinator at its TF_CONFIG address, every task is one process, and
the replicas of all processes form one device mesh; collectives cross processes through gloo on CPUs and NCCL on
GPUs.  Each step is the same SPMD program as ``MirroredStrategy``'s: every worker calls ``run`` with its own
per-replica inputs (its slice of the global batch) and gets its local replicas' results.

A strategy must be created before anything compiles (as in TF, where it must come first in the program): the
distributed runtime can only join before jax starts its backend.
"""

from __future__ import annotations

from tensorlet._src.distribute.cluster_resolver import TFConfigClusterResolver, TPUClusterResolver
import numpy as np

from tensorlet._src.distribute.mirrored import AXIS, MirroredStrategy
from tensorlet._src.distribute.strategy import Strategy
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import tf_export

_joined = {}


def _tasks(spec):
    jobs = spec.as_dict()
    return [("chief", i) for i in range(len(jobs.get("chief", [])))] + \
        [("worker", i) for i in range(len(jobs.get("worker", [])))]


def _join(coordinator: str, num_processes: int, process_id: int, timeout_s: int):
    from tensorlet._src.graph.jaxrt import jax

    key = (coordinator, num_processes, process_id)
    if _joined:
        if key not in _joined:
            raise RuntimeError(f"this process already joined a cluster {next(iter(_joined))}; a second "
                               "MultiWorkerMirroredStrategy must use the same TF_CONFIG")
        return
    try:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                                   process_id=process_id, initialization_timeout=timeout_s,
                                   heartbeat_timeout_seconds=max(10, timeout_s))
    except Exception as e:  # the coordinator or a peer never came up
        raise errors.UnavailableError(None, None, f"MultiWorkerMirroredStrategy: could not join the cluster at "
                                                  f"{coordinator} as task {process_id} of {num_processes}: {e}") \
            from None
    _joined[key] = True


@tf_export("distribute.MultiWorkerMirroredStrategy", "distribute.experimental.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(MirroredStrategy):
    """Synchronous data parallelism across the workers of ``TF_CONFIG`` (or ``cluster_resolver``).

    With no cluster (or a cluster of one task) it is a MirroredStrategy over this machine's devices, as in TF.
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        resolver = cluster_resolver if cluster_resolver is not None else TFConfigClusterResolver()
        spec = resolver.cluster_spec()
        tasks = _tasks(spec)
        self._cluster_resolver = resolver
        self._communication_options = communication_options
        if len(tasks) <= 1:
            super().__init__()
            return
        me = (resolver.task_type, resolver.task_id)
        if me not in tasks:
            raise ValueError(f"this task {me[0]}:{me[1]} is not a chief or worker of the cluster {spec.as_dict()}")
        timeout = getattr(communication_options, "timeout_seconds", None) or 300
        _join(spec.task_address(*tasks[0]), len(tasks), tasks.index(me), int(timeout))
        from tensorlet._src.graph.jaxrt import jax

        devices = jax.devices()
        local = jax.local_devices()
        names = []
        for d in devices:
            job, index = tasks[d.process_index]
            names.append(f"/job:{job}/replica:0/task:{index}/device:{d.platform.upper()}:"
                         f"{[x.id for x in devices if x.process_index == d.process_index].index(d.id)}")
        Strategy.__init__(self)
        self._setup(names)
        self._mesh = jax.sharding.Mesh(np.array(devices), (AXIS,))
        first = [d.process_index for d in devices].index(jax.process_index())
        self._local = (first, len(local))
        self._multi_process = True
        self._num_workers, self._worker_index = len(tasks), tasks.index(me)

    @property
    def cluster_resolver(self):
        return self._cluster_resolver

    @property
    def extended(self):
        return self

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints (the chief, or worker 0 without a chief)."""
        return self._worker_index == 0

    should_save_summary = should_checkpoint

    def __repr__(self):
        return f"<MultiWorkerMirroredStrategy ({self._num_workers} workers, {self.num_replicas_in_sync} replicas)>"


@tf_export("distribute.TPUStrategy", "distribute.experimental.TPUStrategy")
class TPUStrategy(MirroredStrategy):
    """Data parallelism over the TPU cores attached to this host (jax's TPU backend)."""

    def __init__(self, tpu_cluster_resolver=None, experimental_device_assignment=None,
                 experimental_spmd_xla_partitioning=False):
        resolver = tpu_cluster_resolver if tpu_cluster_resolver is not None else TPUClusterResolver("local")
        devices = resolver.tpu_devices()
        super().__init__(devices=[d.name.replace("/physical_device:", "/device:") for d in devices])
        self._cluster_resolver = resolver

    @property
    def cluster_resolver(self):
        return self._cluster_resolver


@tf_export("tpu.experimental.initialize_tpu_system")
def initialize_tpu_system(cluster_resolver=None):
    """Checks that the TPUs of ``cluster_resolver`` exist (jax starts them); NotFoundError without TPUs."""
    resolver = cluster_resolver if cluster_resolver is not None else TPUClusterResolver("local")
    return resolver.tpu_devices()


@tf_export("tpu.experimental.shutdown_tpu_system")
def shutdown_tpu_system(cluster_resolver=None):
    return None


@tf_export("config.experimental_connect_to_cluster")
def experimental_connect_to_cluster(cluster_spec_or_resolver, job_name="localhost", task_index=0, protocol=None,
                                    make_master_device_default=True, cluster_device_filters=None):
    """Accepts a local TPU resolver (nothing to connect); a remote cluster is refused with a clear error."""
    master = getattr(cluster_spec_or_resolver, "master", lambda: "")()
    if master:
        raise errors.UnimplementedError(None, None, f"tensorlet does not connect to remote clusters ({master}); "
                                                    "run the program on the TPU host, or use "
                                                    "MultiWorkerMirroredStrategy with TF_CONFIG")


@tf_export("distribute.experimental.ParameterServerStrategy")
class ParameterServerStrategy(Strategy):
    def __init__(self, cluster_resolver=None, variable_partitioner=None):
        raise errors.UnimplementedError(
            None, None, "tensorlet does not implement ParameterServerStrategy (asynchronous training with "
                        "parameter servers); use tf.distribute.MultiWorkerMirroredStrategy for synchronous "
                        "training across workers, or MirroredStrategy on one machine")


@tf_export("distribute.experimental.CentralStorageStrategy")
class CentralStorageStrategy(MirroredStrategy):
    """Variables on one device, computation replicated over the local devices: as MirroredStrategy here (XLA
    keeps one replicated copy of each variable on the mesh)."""

    def __init__(self, compute_devices=None, parameter_device=None):
        super().__init__(devices=compute_devices)
        self._parameter_device = parameter_device
