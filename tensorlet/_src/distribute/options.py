"""Distribution options and helpers: ``InputOptions``, ``RunOptions``, variable partitioners, termination config,
``experimental_set_strategy`` and the cluster resolvers that read their environment (Slurm, union of others).

The partitioners compute TF's shard counts (first axis only) from shapes and dtypes, so code that sizes
``ParameterServerStrategy`` variables gets TF's numbers.
"""

from __future__ import annotations

import collections
import enum
import math
import os
import re
from typing import NamedTuple

from tensorlet._src.distribute.cluster_resolver import ClusterResolver, ClusterSpec, SimpleClusterResolver
from tensorlet._src.distribute.cross_device_ops import CommunicationOptions
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor_shape import TensorShape

__all__ = ["InputOptions", "InputReplicationMode", "RunOptions", "Partitioner", "FixedShardsPartitioner",
           "MinSizePartitioner", "MaxSizePartitioner", "experimental_set_strategy"]


@tf_export("distribute.InputReplicationMode")
class InputReplicationMode(enum.Enum):
    """Whether each worker (``PER_WORKER``) or each replica (``PER_REPLICA``) gets its own input pipeline."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


_InputOptionsBase = collections.namedtuple("InputOptions", [
    "experimental_fetch_to_device", "experimental_replication_mode", "experimental_place_dataset_on_device",
    "experimental_per_replica_buffer_size"])


@tf_export("distribute.InputOptions")
class InputOptions(_InputOptionsBase):
    """How ``experimental_distribute_dataset(s_from_function)`` places and prefetches input."""

    __slots__ = ()

    def __new__(cls, experimental_fetch_to_device=None, experimental_replication_mode=InputReplicationMode.PER_WORKER,
                experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(cls, experimental_fetch_to_device, experimental_replication_mode,
                               experimental_place_dataset_on_device, experimental_per_replica_buffer_size)


@tf_export("distribute.RunOptions")
class RunOptions(NamedTuple):
    """Options of ``strategy.run`` (dynamic batch sizes, XLA options on TPUs)."""

    experimental_enable_dynamic_batch_size: bool = True
    experimental_bucketizing_dynamic_shape: bool = False
    experimental_xla_options: object = None


@tf_export("distribute.experimental.CollectiveHints")
class CollectiveHints(CommunicationOptions):
    """Deprecated in TF for ``CommunicationOptions``: hints for collective all-reduces."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None):
        super().__init__(bytes_per_pack=bytes_per_pack, timeout_seconds=timeout_seconds)


@tf_export("distribute.experimental.TerminationConfig")
class TerminationConfig:
    """How ``PreemptionCheckpointHandler`` learns of and reacts to a termination (watcher, exit, grace period)."""

    def __init__(self, termination_watcher_fn=None, exit_fn=None, grace_period=None, save_fn=None):
        self.termination_watcher_fn = termination_watcher_fn
        self.exit_fn = exit_fn
        self.grace_period = grace_period
        self.save_fn = save_fn


# --- partitioners ------------------------------------------------------------------------------------------------

@tf_export("distribute.experimental.partitioners.Partitioner")
class Partitioner:
    """Decides how many shards a variable of ``shape`` and ``dtype`` is split into, per axis."""

    def __call__(self, shape, dtype, axis=0):
        raise NotImplementedError("Partitioner is abstract: subclasses define __call__(shape, dtype, axis)")


def _elem_bytes(dtype, bytes_per_string):
    d = _dt.as_dtype(dtype)
    return bytes_per_string if d is _dt.string else d.size


@tf_export("distribute.experimental.partitioners.FixedShardsPartitioner")
class FixedShardsPartitioner(Partitioner):
    """Split the first axis into ``num_shards`` (at most its size)."""

    def __init__(self, num_shards):
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"`num_shards` must be a positive integer, got {num_shards}")
        self._num_shards = num_shards

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        out = [1] * shape.rank
        out[axis] = min(self._num_shards, shape.dims[axis])
        return out


@tf_export("distribute.experimental.partitioners.MinSizePartitioner")
class MinSizePartitioner(Partitioner):
    """Shards of at least ``min_shard_bytes`` each, at most ``max_shards`` of them."""

    def __init__(self, min_shard_bytes=256 << 10, max_shards=1, bytes_per_string=16):
        if min_shard_bytes < 1:
            raise ValueError(f"Argument `min_shard_bytes` must be positive. Received: {min_shard_bytes}")
        if max_shards < 1:
            raise ValueError(f"Argument `max_shards` must be positive. Received: {max_shards}")
        if bytes_per_string < 1:
            raise ValueError(f"Argument `bytes_per_string` must be positive. Received: {bytes_per_string}")
        self._min, self._max, self._bps = min_shard_bytes, max_shards, bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        dims = shape.as_list()
        per_slice = max(1, shape.num_elements() // dims[axis]) * _elem_bytes(dtype, self._bps)
        slices_per_shard = max(1, self._min // per_slice)
        out = [1] * len(dims)
        out[axis] = max(1, min(self._max, dims[axis], math.ceil(dims[axis] / slices_per_shard)))
        return out


@tf_export("distribute.experimental.partitioners.MaxSizePartitioner")
class MaxSizePartitioner(Partitioner):
    """Shards of at most ``max_shard_bytes`` each (and at most ``max_shards`` of them)."""

    def __init__(self, max_shard_bytes, max_shards=None, bytes_per_string=16):
        if max_shard_bytes < 1:
            raise ValueError(f"Argument `max_shard_bytes` must be positive. Received {max_shard_bytes}")
        if max_shards is not None and max_shards < 1:
            raise ValueError(f"Argument `max_shards` must be positive. Received {max_shards}")
        if bytes_per_string < 1:
            raise ValueError(f"Argument `bytes_per_string` must be positive. Received: {bytes_per_string}")
        self._max_bytes, self._max, self._bps = max_shard_bytes, max_shards, bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape)
        dims = shape.as_list()
        per_slice = shape.num_elements() / dims[axis] * _elem_bytes(dtype, self._bps)
        slices_per_shard = max(1, math.floor(self._max_bytes / per_slice))
        n = int(math.ceil(dims[axis] / slices_per_shard))
        if self._max is not None:
            n = min(self._max, n)
        out = [1] * len(dims)
        out[axis] = n
        return out


# --- the global strategy -----------------------------------------------------------------------------------------

_global_scope: list = [None]


@tf_export("distribute.experimental_set_strategy")
def experimental_set_strategy(strategy):
    """Make ``strategy`` current everywhere, as if inside its ``scope()`` for the rest of the program (``None``
    goes back to the default strategy)."""
    old = _global_scope[0]
    if old is not None:
        _global_scope[0] = None
        old.__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _global_scope[0] = scope


# --- cluster resolvers -------------------------------------------------------------------------------------------

def _expand_hostlist(spec):
    """Slurm's compressed host list (``node[01-03,07],gpu1``) as names."""
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", spec):
        m = re.match(r"^(.*)\[(.*)\]$", part)
        if not m:
            out.append(part)
            continue
        prefix, body = m.groups()
        for r in body.split(","):
            if "-" in r:
                a, b = r.split("-")
                out += [f"{prefix}{i:0{len(a)}d}" for i in range(int(a), int(b) + 1)]
            else:
                out.append(prefix + r)
    return out


@tf_export("distribute.cluster_resolver.SlurmClusterResolver")
class SlurmClusterResolver(ClusterResolver):
    """The cluster of a Slurm job step, from ``SLURM_*`` environment variables (one task per process)."""

    def __init__(self, jobs=None, port_base=8888, gpus_per_node=None, gpus_per_task=None, tasks_per_node=None,
                 auto_set_gpu=True, rpc_layer="grpc"):
        env = os.environ
        if "SLURM_PROCID" not in env:
            raise RuntimeError("SLURM_PROCID not found in environment. Not running inside a SLURM step?")
        self._rank = int(env["SLURM_PROCID"])
        hosts = _expand_hostlist(env.get("SLURM_STEP_NODELIST", env.get("SLURM_JOB_NODELIST", "localhost")))
        ntasks = int(env.get("SLURM_STEP_NUM_TASKS", env.get("SLURM_NTASKS", "1")))
        per_node = tasks_per_node or max(1, ntasks // max(1, len(hosts)))
        self._jobs = dict(jobs) if jobs else {"worker": ntasks}
        if sum(self._jobs.values()) != ntasks:
            raise ValueError(f"Total number of tasks in jobs ({sum(self._jobs.values())}) does not match the number "
                             f"of tasks in the Slurm step ({ntasks})")
        addrs = [f"{hosts[i // per_node]}:{port_base + i % per_node}" for i in range(ntasks)]
        spec, i = {}, 0
        for job, n in self._jobs.items():
            spec[job] = addrs[i:i + n]
            if i <= self._rank < i + n:
                self.task_type, self.task_id = job, self._rank - i
            i += n
        self._spec = ClusterSpec(spec)
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        addr = self._spec.task_address(task_type, task_id)
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{addr}" if layer else addr

    def get_task_info(self):
        return self.task_type, self.task_id


@tf_export("distribute.cluster_resolver.UnionResolver")
class UnionResolver(ClusterResolver):
    """The union of several resolvers' clusters (the first resolver names this task)."""

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for a in args:
            if not isinstance(a, ClusterResolver):
                raise TypeError(f"All arguments must be a sub-class of `ClusterResolver.` Received {a!r}")
        self._resolvers = args

    def cluster_spec(self):
        merged: dict = {}
        for r in self._resolvers:
            for job, tasks in r.cluster_spec().as_dict().items():
                if isinstance(tasks, dict):
                    dst = merged.setdefault(job, {})
                    if not isinstance(dst, dict):
                        dst = merged[job] = dict(enumerate(dst))
                    for k, v in tasks.items():
                        if k in dst:
                            raise KeyError(f"Duplicate keys detected when merging two ClusterSpecs: {job} {k}")
                        dst[k] = v
                else:
                    dst = merged.setdefault(job, [])
                    if isinstance(dst, dict):
                        dst.update({len(dst) + i: v for i, v in enumerate(tasks)})
                    else:
                        dst.extend(tasks)
        return ClusterSpec(merged)

    @property
    def task_type(self):
        return self._task_type or self._resolvers[0].task_type

    @property
    def task_id(self):
        return self._task_id if self._task_id is not None else self._resolvers[0].task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._resolvers[0].rpc_layer

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return self._resolvers[0].master(task_type, task_id, rpc_layer)


@tf_export("distribute.cluster_resolver.KubernetesExecutableLocation")
class KubernetesExecutableLocation(enum.Enum):
    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1


@tf_export("distribute.cluster_resolver.KubernetesClusterResolver")
class KubernetesClusterResolver(ClusterResolver):
    """The cluster from Kubernetes pods selected by label (needs the ``kubernetes`` client, as in TF)."""

    def __init__(self, job_to_label_mapping=None, tf_server_port=8470, rpc_layer="grpc", override_client=None,
                 executable_location=KubernetesExecutableLocation.WITHIN_CLUSTER):
        if override_client is None:
            try:
                from kubernetes import client as k8sclient
                from kubernetes import config as k8sconfig
            except ImportError:
                raise ImportError("The Kubernetes Python client must be installed before using the Kubernetes "
                                  "Cluster Resolver. To install the Kubernetes Python client, run `pip install "
                                  "kubernetes` on your command line.") from None
            if executable_location == KubernetesExecutableLocation.WITHIN_CLUSTER:
                k8sconfig.load_incluster_config()
            else:
                k8sconfig.load_kube_config()
            override_client = k8sclient.CoreV1Api()
        self._client = override_client
        self._mapping = job_to_label_mapping or {"worker": ["job-name=tensorflow"]}
        self._port = tf_server_port
        self.rpc_layer = rpc_layer
        self.task_type, self.task_id = None, None

    def cluster_spec(self):
        spec = {}
        for job, selectors in self._mapping.items():
            addrs = []
            for sel in selectors:
                pods = self._client.list_pod_for_all_namespaces(label_selector=sel)
                for pod in sorted(pods.items, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(f"Pod \"{pod.metadata.name}\" is not running; please wait.")
                    addrs.append(f"{pod.status.pod_ip}:{self._port}")
            spec[job] = addrs
        return ClusterSpec(spec)


@tf_export("distribute.cluster_resolver.GCEClusterResolver")
class GCEClusterResolver(ClusterResolver):
    """The cluster of a GCE managed instance group (needs Google's API client, as in TF)."""

    def __init__(self, project, zone, instance_group, port, task_type="worker", task_id=0, rpc_layer="grpc",
                 credentials="default", service=None):
        if service is None:
            try:
                from googleapiclient import discovery
            except ImportError:
                raise ImportError("googleapiclient must be installed before using the GCE cluster resolver") \
                    from None
            service = discovery.build("compute", "v1", credentials=None if credentials == "default" else credentials)
        self._project, self._zone, self._group, self._port = project, zone, instance_group, port
        self._service = service
        self.task_type, self.task_id, self.rpc_layer = task_type, task_id, rpc_layer

    def cluster_spec(self):
        req = self._service.instanceGroups().listInstances(project=self._project, zone=self._zone,
                                                            instanceGroups=self._group,
                                                            body={"instanceState": "RUNNING"})
        names = []
        while req is not None:
            resp = req.execute()
            for inst in resp.get("items", []):
                names.append(inst["instance"].rsplit("/", 1)[-1])
            req = self._service.instanceGroups().listInstances_next(previous_request=req, previous_response=resp)
        return ClusterSpec({self.task_type: [f"{n}:{self._port}" for n in sorted(names)]})

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        addr = self.cluster_spec().task_address(task_type, task_id)
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{addr}" if layer else addr


@tf_export("config.experimental_connect_to_host")
def experimental_connect_to_host(remote_host=None, job_name="worker"):
    """Connect to remote hosts for eager ops placed on them (refused with a clear error: tensorlet runs remote
    work through multi-worker strategies, not remote eager devices)."""
    if not remote_host:
        raise ValueError("Must provide at least one remote_host")
    hosts = [remote_host] if isinstance(remote_host, str) else list(remote_host)
    from tensorlet._src.distribute.multi_worker import experimental_connect_to_cluster

    experimental_connect_to_cluster(SimpleClusterResolver(ClusterSpec({job_name: hosts}), master=hosts[0]),
                                    job_name=job_name)
