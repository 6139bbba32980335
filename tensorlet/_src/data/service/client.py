"""Reading from the tf.data service: ``distribute``, ``register_dataset``, ``from_dataset_id``.

>>> svc = tf.data.experimental.service
>>> d = svc.DispatchServer()
>>> workers = [svc.WorkerServer(svc.WorkerConfig(d.target.split("://")[1])) for _ in range(2)]
>>> ds = tf.data.Dataset.range(4).apply(svc.distribute("distributed_epoch", d.target))
>>> sorted(int(x) for x in ds)
[0, 1, 2, 3]
>>> d.stop()
"""

from __future__ import annotations

import itertools

import numpy as np

from tensorlet._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2
from tensorlet._src.data.service import config as C
from tensorlet._src.data.service.servers import lookup_dispatcher
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.ops.registry import tf_export

__all__ = ["distribute", "register_dataset", "from_dataset_id"]


def _id_string(dataset_id) -> str:
    if isinstance(dataset_id, Tensor):
        v = dataset_id.numpy()
        v = v.item() if isinstance(v, np.ndarray) else v
        return v.decode() if isinstance(v, bytes) else str(v)
    return dataset_id.decode() if isinstance(dataset_id, bytes) else str(dataset_id)


class _DataServiceDatasetV2(DatasetV2):
    """Elements a job's workers produce; every iteration of this dataset object is a new repetition of a named
    job (so iterating it again reads another epoch), and readers of the same repetition share it."""

    def __init__(self, dataset_id, policy, address, element_spec, job_name, consumer_index, num_consumers,
                 cross_trainer_cache):
        self._dataset_id, self._policy, self._address = dataset_id, policy, address
        self._job_name, self._consumer_index, self._num_consumers = job_name, consumer_index, num_consumers
        self._ctc = cross_trainer_cache
        self._repetitions = itertools.count()
        self._set_spec(element_spec)

    def _card(self):
        try:
            reg = lookup_dispatcher(self._address)._dataset(self._dataset_id)
        except errors.OpError:
            return UNKNOWN
        return INFINITE if reg.cardinality == INFINITE else UNKNOWN

    def _gen(self, ictx):
        dispatcher = lookup_dispatcher(self._address)
        reg = dispatcher._dataset(self._dataset_id)
        if self._ctc is not None:
            if self._job_name is None:
                raise errors.InvalidArgumentError(None, "MakeIterator", "Cross-trainer caching requires named jobs. "
                                                                        "Got empty `job_name`.")
            if reg.cardinality != INFINITE:
                raise errors.InvalidArgumentError(None, "MakeIterator", f"Cross-trainer caching requires the input "
                                                                        f"dataset to be infinite. Got input with "
                                                                        f"cardinality {reg.cardinality}")
        coordinated = self._job_name is not None and None not in (self._num_consumers, self._consumer_index)
        num_consumers = self._num_consumers if coordinated else None
        if num_consumers is not None and not 0 <= self._consumer_index < num_consumers:
            raise errors.InvalidArgumentError(None, "MakeIterator", f"consumer_index must be in [0, {num_consumers})"
                                                                    f", got {self._consumer_index}")
        repetition = next(self._repetitions)
        iteration = dispatcher._iteration(reg, self._policy, self._job_name, repetition, num_consumers, self._ctc)
        reader = iteration.reader(None if self._ctc is None else self._ctc.trainer_id, self._consumer_index)
        ictx.on_close(reader.close)
        return self._read(iteration, reader, ictx)

    @staticmethod
    def _read(iteration, reader, ictx):
        try:
            while True:
                elem = iteration.get_next(reader, ictx.stop)
                if elem is None:
                    return
                yield elem
        finally:
            reader.close()


def _dispatcher_of(service):
    protocol, address = C.parse_service(service)
    if not isinstance(address, str):
        raise TypeError(f"Cannot convert {address!r} to EagerTensor of dtype string")
    if not address:
        raise errors.InvalidArgumentError(None, "RegisterDatasetV2", "address must be non-empty.")
    if protocol != C.PROTOCOL:
        raise errors.NotFoundError(None, None, f"No credentials factory has been registered for protocol "
                                               f"{protocol}. The available types are: [ {C.PROTOCOL} ]")
    return lookup_dispatcher(address), address


@tf_export("data.experimental.service.register_dataset")
def register_dataset(service, dataset, compression="AUTO", dataset_id=None):
    """Registers ``dataset`` with the dispatcher at ``service``; returns its id (a scalar string tensor).

    With ``dataset_id``, that id is used, and registering again under an existing id keeps the first dataset.
    """
    C.validate_compression(compression)
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`, got {type(dataset)}")
    dispatcher, _ = _dispatcher_of(service)
    did = dispatcher._register(dataset, compression, None if dataset_id is None else _id_string(dataset_id))
    return convert_to_tensor(did, _dt.string)


@tf_export("data.experimental.service.from_dataset_id")
def from_dataset_id(processing_mode, service, dataset_id, element_spec=None, job_name=None, consumer_index=None,
                    num_consumers=None, max_outstanding_requests=None, data_transfer_protocol=None,
                    cross_trainer_cache=None, target_workers="AUTO"):
    """A dataset reading the registered dataset ``dataset_id`` from the tf.data service at ``service``."""
    from tensorlet._src.data.options import AutoShardPolicy, Options

    C.validate_job_name(job_name)
    policy = C.sharding_policy(processing_mode)
    _check_consumers(job_name, consumer_index, num_consumers)
    dispatcher, address = _dispatcher_of(service)
    did = _id_string(dataset_id)
    if not element_spec:
        try:
            element_spec = dispatcher._dataset(did).element_spec
        except errors.NotFoundError:
            raise ValueError(f"Failed to fetch element spec for dataset id {did} from tf.data service. If the "
                             f"dataset was registered in graph mode or inside a tf.function, the `element_spec` "
                             f"must be specified as an argument to `from_dataset_id`.") from None
    ds = _DataServiceDatasetV2(did, policy, address, element_spec, job_name, consumer_index, num_consumers,
                             cross_trainer_cache)
    if job_name is not None:  # as TF: a shared job is never auto-sharded again
        opts = Options()
        opts.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
        ds = ds.with_options(opts)
    return ds


def _check_consumers(job_name, consumer_index, num_consumers):
    # (TF's check that both or neither of consumer_index/num_consumers are set never fires; one alone is ignored)
    if num_consumers is not None and job_name is None:
        raise ValueError(f"`job_name` must be set when setting `num_consumers`. num_consumers was set to "
                         f"{num_consumers}.")


@tf_export("data.experimental.service.distribute")
def distribute(processing_mode, service, job_name=None, consumer_index=None, num_consumers=None,
               max_outstanding_requests=None, data_transfer_protocol=None, compression="AUTO",
               cross_trainer_cache=None, target_workers="AUTO"):
    """A transformation (``ds.apply(...)``) that runs the dataset on the tf.data service's workers.

    ``processing_mode``: ``"parallel_epochs"`` (every worker produces the whole dataset), ``"distributed_epoch"``
    (the dispatcher splits the source between the workers: each element once), or a ``ShardingPolicy``.  Readers
    with the same ``job_name`` share one job; ``consumer_index``/``num_consumers`` read it round-robin;
    ``cross_trainer_cache`` lets trainers share an infinite job's elements.
    """
    C.validate_job_name(job_name)
    policy = C.sharding_policy(processing_mode)
    C.validate_compression(compression)

    def apply(dataset):
        did = register_dataset(service, dataset, compression)
        return from_dataset_id(policy, service, did, dataset.element_spec, job_name, consumer_index,
                               num_consumers, max_outstanding_requests, data_transfer_protocol,
                               cross_trainer_cache, target_workers)

    return apply
