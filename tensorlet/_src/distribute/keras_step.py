"""Keras ``fit`` / ``evaluate`` / ``predict`` under a multi-replica strategy: each batch split over the replicas.

As Keras on TF does, the model's step runs once per replica inside ``strategy.run`` (one SPMD program here): the
loss a replica differentiates is scaled by ``1 / num_replicas`` so that the optimizer's all-reduce SUM of the
gradients is the gradient of the global batch's mean loss; metric variables (``ON_READ``, aggregation SUM) add up
every replica's contribution when the step writes them back, and the logs are read from those variables after the
step, so they equal the single-device logs on the same global batch.  ``predict`` concatenates the replicas'
outputs in batch order.  A batch that does not split evenly (an epoch's last, smaller batch) runs as one replica.
"""

from __future__ import annotations

from tensorlet._src.distribute.input_lib import split_batch
from tensorlet._src.distribute.strategy import current_multi_replica_context
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.util import nest


def loss_scale_for_replicas() -> float:
    """1 / num_replicas inside a multi-replica step (Keras's ``scale_loss_for_distribution``), else 1."""
    rc = current_multi_replica_context()
    return 1.0 if rc is None else 1.0 / rc.num_replicas_in_sync


def _rows(data):
    for x in nest.flatten(data):
        if x is None:
            continue
        v = x._v if x.__class__ is EagerTensor else None
        shape = v.shape if v is not None else getattr(x, "shape", ())
        return shape[0] if len(shape) else None
    return None


def distributed_step(strategy, step, kind, model, single):
    """A step runner that splits each batch over ``strategy``'s replicas (``single`` runs uneven batches)."""
    n = strategy.num_replicas_in_sync

    def run(data):
        rows = _rows(data)
        if rows is None or rows % n:
            if strategy._multi_process:
                raise errors.InvalidArgumentError(
                    None, None, f"a batch of {rows} does not split evenly over the {n} replicas of "
                                f"{strategy._num_workers} workers; use a global batch size that is a multiple of "
                                f"{n} (and drop_remainder=True for datasets)")
            return single(data)
        out = strategy.run(step, args=(split_batch(data, n, strategy._local),))
        if kind == "predict":
            return nest.map_structure(lambda pr: strategy.gather(pr, axis=0), out)
        return model.get_metrics_result()

    run.python_function = step
    return run
