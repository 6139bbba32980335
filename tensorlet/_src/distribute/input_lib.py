"""Distributed datasets: each global batch split over the replicas, or one dataset element per replica.

``experimental_distribute_dataset(ds)``: every element of ``ds`` is a global batch; replica ``i`` gets the
``i``-th contiguous slice of its leading axis (TF's rebatching for one worker), as a ``PerReplica`` leaf whose
stacked form is a zero-copy reshape of the batch.  ``distribute_datasets_from_function``: the dataset already
yields per-replica batches, and each step takes one element per replica.

The replicas of a step run as one SPMD program, so every replica's slice must have the same shape: a global
batch that does not split evenly is an error that names the sizes (use ``drop_remainder=True``).
"""

from __future__ import annotations


from tensorlet._src.distribute.values import PerReplica, array_of, regroup
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest




def split_batch(element, n: int, local=None):
    """One global batch (a nest of tensors) -> the same nest of PerReplica values, contiguous slices.

    ``local=(first, count)``: only replicas ``first .. first+count-1`` (those of this worker) are kept.
    """
    first, count = local if local is not None else (0, n)

    def split(x):
        if isinstance(x, Tensor) and x.__class__ is not EagerTensor:  # traced (next() inside tf.function)
            from tensorlet._src.distribute.mirrored import per_replica_from_stacked_graph
            from tensorlet._src.ops.array_shape import reshape

            if count != n:
                raise errors.UnimplementedError(None, None, "distributed datasets across workers inside "
                                                            "tf.function are not supported yet")
            rest = x.shape.as_list()[1:]
            if None in rest:
                raise errors.InvalidArgumentError(None, None, "experimental_distribute_dataset inside "
                                                              "tf.function needs static inner dimensions")
            return per_replica_from_stacked_graph(reshape(x, [n, -1] + rest), n)
        a = array_of(x)
        if a.ndim == 0:
            raise errors.InvalidArgumentError(None, None, "experimental_distribute_dataset: dataset elements must "
                                                          "be batched (got a scalar component)")
        b = a.shape[0]
        if b % n:
            raise errors.InvalidArgumentError(
                None, None, f"experimental_distribute_dataset: a global batch of {b} does not split evenly over "
                            f"{n} replicas; batch the dataset with a multiple of {n} and drop_remainder=True")
        stacked = a.reshape((n, b // n) + a.shape[1:])[first:first + count]
        return PerReplica([_wrap(stacked[i]) for i in range(count)], stacked=stacked)

    return nest.map_structure(split, element)


@tf_export("distribute.DistributedDataset")
class DistributedDataset:
    """A dataset whose elements are per-replica values (iterate it, or pass it to Keras ``fit``)."""

    def __init__(self, dataset, num_replicas: int, split: bool, local=None):
        self._dataset = dataset
        self._n = num_replicas
        self._split = split
        self._local = local if local is not None else (0, num_replicas)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return DistributedIterator(iter(self._dataset), self._n, self._split, self._local)

    def __repr__(self):
        return f"<DistributedDataset over {self._n} replicas: {self._dataset!r}>"


@tf_export("distribute.DistributedIterator")
class DistributedIterator:
    def __init__(self, iterator, num_replicas: int, split: bool, local=None):
        self._it = iterator
        self._n = num_replicas
        self._split = split
        self._local = local if local is not None else (0, num_replicas)

    @property
    def element_spec(self):
        return getattr(self._it, "element_spec", None)

    def __iter__(self):
        return self

    def __next__(self):
        if self._n == 1:
            return next(self._it)
        if self._split:
            return split_batch(next(self._it), self._n, self._local)
        elements = [next(self._it) for _ in range(self._local[1])]
        return regroup(elements)

    def get_next(self):
        return next(self)
