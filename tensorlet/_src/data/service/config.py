"""The records the tf.data service is configured with: ``ShardingPolicy``, ``DispatcherConfig``,
``WorkerConfig`` and ``CrossTrainerCache`` (TF 2.21's names, fields and defaults)."""

from __future__ import annotations

import collections
import enum

from tensorlet._src.ops.registry import tf_export

__all__ = ["ShardingPolicy", "DispatcherConfig", "WorkerConfig", "CrossTrainerCache", "sharding_policy",
           "validate_job_name", "validate_compression", "parse_service", "PROTOCOL"]

PROTOCOL = "grpc"  # the only protocol TF registers credentials for
COMPRESSIONS = ["AUTO", None, "SNAPPY"]


@tf_export("data.experimental.service.ShardingPolicy")
class ShardingPolicy(enum.IntEnum):
    """How a job's input is split between the workers: ``OFF`` (every worker produces the whole dataset),
    ``DYNAMIC`` (the dispatcher hands out splits of the source), or static sharding over a fixed worker list:
    ``FILE``, ``DATA``, ``FILE_OR_DATA``, ``HINT`` (``shard(SHARD_HINT, SHARD_HINT)`` placeholders)."""

    OFF = 0
    DYNAMIC = 1
    FILE = 2
    DATA = 3
    FILE_OR_DATA = 4
    HINT = 5


_DispatcherFields = collections.namedtuple("DispatcherConfig", [
    "port", "protocol", "work_dir", "fault_tolerant_mode", "worker_addresses", "job_gc_check_interval_ms",
    "job_gc_timeout_ms", "worker_timeout_ms", "worker_max_concurrent_snapshots"])


@tf_export("data.experimental.service.DispatcherConfig")
class DispatcherConfig(_DispatcherFields):
    """Configuration of a ``DispatchServer``: ``port`` (0 picks a free one), ``protocol`` ("grpc"),
    ``worker_addresses`` (the fixed worker list static sharding needs) and TF's timeouts (accepted; an
    in-process dispatcher has no remote workers to time out)."""

    def __new__(cls, port=0, protocol=None, work_dir=None, fault_tolerant_mode=False, worker_addresses=None,
                job_gc_check_interval_ms=None, job_gc_timeout_ms=None, worker_timeout_ms=None,
                worker_max_concurrent_snapshots=0):
        return super().__new__(cls, port, PROTOCOL if protocol is None else protocol, work_dir,
                               fault_tolerant_mode, worker_addresses, job_gc_check_interval_ms or 0,
                               job_gc_timeout_ms or 0, worker_timeout_ms, worker_max_concurrent_snapshots)


_WorkerFields = collections.namedtuple("WorkerConfig", [
    "dispatcher_address", "worker_address", "port", "protocol", "heartbeat_interval_ms", "dispatcher_timeout_ms",
    "data_transfer_protocol", "data_transfer_address"])


@tf_export("data.experimental.service.WorkerConfig")
class WorkerConfig(_WorkerFields):
    """Configuration of a ``WorkerServer``: ``dispatcher_address`` ("localhost:PORT", no protocol),
    ``worker_address`` (``%port%`` is replaced by the worker's port), ``port`` (0 picks a free one)."""

    def __new__(cls, dispatcher_address, worker_address=None, port=0, protocol=None, heartbeat_interval_ms=None,
                dispatcher_timeout_ms=None, data_transfer_protocol=None, data_transfer_address=None):
        return super().__new__(cls, dispatcher_address, worker_address or "localhost:%port%", port,
                               PROTOCOL if protocol is None else protocol, heartbeat_interval_ms or 0,
                               dispatcher_timeout_ms or 0, data_transfer_protocol,
                               data_transfer_address or "localhost:%dts_port%")


@tf_export("data.experimental.service.CrossTrainerCache")
class CrossTrainerCache:
    """Share one job's elements between trainers: each ``trainer_id`` reads the whole (infinite) sequence from a
    cache on the workers; readers with the same ``trainer_id`` split it between them."""

    def __init__(self, trainer_id):
        if not trainer_id:
            raise ValueError("tf.data service cross-trainer cache requires a non-empty trainer ID.")
        self.trainer_id = trainer_id


def sharding_policy(processing_mode) -> ShardingPolicy:
    if isinstance(processing_mode, ShardingPolicy):
        return processing_mode
    if processing_mode == "parallel_epochs":
        return ShardingPolicy.OFF
    if processing_mode == "distributed_epoch":
        return ShardingPolicy.DYNAMIC
    raise ValueError("tf.data service processing mode should be a `tf.data.experimental.service.ShardingPolicy`, "
                     f"`\"parallel_epochs\"`, or `\"distributed_epoch\"`. Got {processing_mode!r}.")


def validate_job_name(job_name):
    if job_name is None:
        return
    if not isinstance(job_name, str):
        raise ValueError(f"`job_name` must be a string, but `job_name` was of type {type(job_name)}. "
                         f"job_name={job_name}")
    if not job_name:
        raise ValueError("`job_name` must not be empty")


def validate_compression(compression):
    if compression not in COMPRESSIONS:
        raise ValueError(f"Invalid `compression` argument: {compression}. Must be one of {COMPRESSIONS}.")


def parse_service(service) -> tuple[str, str]:
    """``"grpc://localhost:5000"``, ``"localhost:5000"`` or ``("grpc", "localhost:5000")`` -> (protocol,
    address)."""
    if isinstance(service, tuple):
        protocol, address = service
        return protocol, address
    if not isinstance(service, str):
        raise ValueError(f"`service` must be a string, but `service` was of type {type(service)}. "
                         f"service={service}")
    if not service:
        raise ValueError("`service` must not be empty")
    parts = service.split("://")
    if len(parts) == 1:
        return PROTOCOL, parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"Malformed `service` string has multiple '://': {service}.")
