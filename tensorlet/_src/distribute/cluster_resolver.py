"""Cluster descriptions: ``tf.train.ClusterSpec`` and the cluster resolvers (TF_CONFIG, simple, TPU).

``TFConfigClusterResolver`` reads the ``TF_CONFIG`` environment variable as TF does::

    {"cluster": {"chief": ["host:port"], "worker": ["host:port", ...]},
     "task": {"type": "worker", "index": 0}, "rpc_layer": "grpc"}
"""

from __future__ import annotations

import abc
import json
import os

from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import tf_export


@tf_export("train.ClusterSpec")
class ClusterSpec:
    """Jobs and their task addresses: ``ClusterSpec({"worker": ["a:1", "b:2"]})``."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to (i) a list of task "
                            "addresses, or (ii) a dictionary mapping task indices to addresses.")
        self._spec = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                self._spec[job] = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                self._spec[job] = {int(i): a for i, a in tasks.items()}
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to "
                                "strings.")

    @property
    def jobs(self):
        return list(self._spec)

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        job = self._job(job_name)
        if task_index not in job:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}")
        return job[task_index]

    def job_tasks(self, job_name):
        job = self._job(job_name)
        return [job.get(i) for i in range(max(job) + 1)] if job else []

    def as_dict(self):
        out = {}
        for job, tasks in self._spec.items():
            dense = sorted(tasks) == list(range(len(tasks)))
            out[job] = [tasks[i] for i in sorted(tasks)] if dense else dict(tasks)
        return out

    def _job(self, name):
        if name not in self._spec:
            raise ValueError(f"No such job in cluster: {name!r}")
        return self._spec[name]

    def __bool__(self):
        return bool(self._spec)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    __hash__ = None

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


@tf_export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver(abc.ABC):
    """Where this task sits in its cluster."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    @abc.abstractmethod
    def cluster_spec(self):
        """The ``tf.train.ClusterSpec`` of the cluster."""

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        from tensorlet._src.framework.device import list_physical_devices

        counts = {}
        for kind in ("GPU", "TPU"):
            n = len(list_physical_devices(kind))
            if n:
                counts[kind] = n
        return counts


@tf_export("distribute.cluster_resolver.SimpleClusterResolver")
class SimpleClusterResolver(ClusterResolver):
    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        self._cluster_spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment = environment
        self._num_accelerators = num_accelerators
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
            layer = rpc_layer or self.rpc_layer
            return f"{layer}://{address}" if layer else address
        return self._master

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        if self._num_accelerators is not None:
            return dict(self._num_accelerators)
        return super().num_accelerators(task_type, task_id, config_proto)


@tf_export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver(ClusterResolver):
    """The cluster described by the ``TF_CONFIG`` environment variable (read on every call, as TF)."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type, self._task_id = task_type, task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config():
        raw = os.environ.get("TF_CONFIG", "")
        if not raw:
            return {}
        try:
            conf = json.loads(raw)
        except json.JSONDecodeError as e:
            raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None
        if not isinstance(conf, dict):
            raise ValueError("TF_CONFIG must be a JSON object")
        return conf

    @property
    def task_type(self):
        return self._task_type if self._task_type is not None else self._config().get("task", {}).get("type")

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        index = self._config().get("task", {}).get("index")
        return None if index is None else int(index)

    @property
    def rpc_layer(self):
        return self._rpc_layer if self._rpc_layer is not None else self._config().get("rpc_layer")

    @property
    def environment(self):
        return self._environment if self._environment is not None else self._config().get("environment", "")

    def cluster_spec(self):
        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{address}" if layer else address


@tf_export("distribute.cluster_resolver.TPUClusterResolver")
class TPUClusterResolver(ClusterResolver):
    """A TPU to connect to: ``tpu="local"`` for TPUs attached to this host (jax's TPU backend)."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker", coordinator_name=None,
                 coordinator_address=None, credentials="default", service=None, discovery_url=None):
        if tpu is None:
            tpu = os.environ.get("TPU_NAME")
        if not tpu:
            raise ValueError("Please provide a TPU Name to connect to.")
        self._tpu = tpu
        self.task_type, self.task_id = job_name, 0

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return "" if self._tpu == "local" else self._tpu

    def cluster_spec(self):
        return ClusterSpec({})

    def tpu_devices(self):
        from tensorlet._src.framework.device import list_physical_devices

        devices = list_physical_devices("TPU")
        if not devices:
            raise errors.NotFoundError(None, None, "TPUs not found in the cluster. Failed in initialization: "
                                                   f"no TPU devices are attached to this host (tpu={self._tpu!r})")
        return devices
