"""``cross_device_ops`` choices (``tf.distribute.NcclAllReduce()``, ...) and communication options.

TF lets a MirroredStrategy pick how gradients cross devices.  In tensorlet the replicas are one XLA program and
XLA picks the collective implementation for the devices (NCCL on GPUs, shared memory on CPU devices), so these
objects are accepted and recorded, and ``reduce`` / ``batch_reduce`` work on per-replica values in cross-replica
code.
"""

from __future__ import annotations

import enum

from tensorlet._src.distribute.mirrored import _reduce_components
from tensorlet._src.distribute.strategy import _reduce_op
from tensorlet._src.distribute.values import DistributedValues
from tensorlet._src.ops.registry import tf_export


@tf_export("distribute.CrossDeviceOps")
class CrossDeviceOps:
    """Base of the cross-device reduction choices."""

    def reduce(self, reduce_op, per_replica_value, destinations=None, options=None):
        if not isinstance(per_replica_value, DistributedValues):
            return per_replica_value
        return _reduce_components(_reduce_op(reduce_op), [v._v for v in per_replica_value.values], None)

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def __repr__(self):
        return f"<tf.distribute.{type(self).__name__}>"


@tf_export("distribute.NcclAllReduce")
class NcclAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs


@tf_export("distribute.HierarchicalCopyAllReduce")
class HierarchicalCopyAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        self.num_packs = num_packs


@tf_export("distribute.ReductionToOneDevice")
class ReductionToOneDevice(CrossDeviceOps):
    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


@tf_export("distribute.experimental.CommunicationImplementation",
           "distribute.experimental.CollectiveCommunication")
class CommunicationImplementation(enum.Enum):
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


@tf_export("distribute.experimental.CommunicationOptions")
class CommunicationOptions:
    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation
