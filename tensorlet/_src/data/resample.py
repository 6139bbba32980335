"""``Dataset.rejection_resample``, ``Dataset.sparse_batch`` and ``Dataset.snapshot`` with their
``tf.data.experimental`` function forms (``rejection_resample``, ``dense_to_sparse_batch``, ``snapshot``).

``rejection_resample`` is TF's construction in tensorlet's ops: per-class acceptance probabilities
``a_i = (t_i/p_i - m) / (max_j t_j/p_j - m)`` with ``m = min_j t_j/p_j``, a filter that keeps an element of class
``i`` with probability ``a_i``, mixed with the untouched input with probability ``m``; without ``initial_dist`` the
class distribution is estimated on the fly (counts start at 10 per class, updated every 32 elements).

>>> ds = tf.data.Dataset.range(4).map(lambda x: tf.cast(x % 2, tf.int32))
>>> ds.rejection_resample(lambda x: x, [0.5, 0.5], [0.5, 0.5]).element_spec
(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None))
"""

from __future__ import annotations

import hashlib
import os
import threading
import types

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import DatasetV2, static_int
from tensorlet._src.data.transformations import UnaryDataset
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.ops.registry import tf_export

__all__ = ["rejection_resample", "dense_to_sparse_batch", "snapshot", "SparseBatchDataset", "SnapshotDataset"]

_ESTIMATION_BATCH = 32
_SMOOTHING = 10


# --- rejection_resample ------------------------------------------------------------------------------------------

def _acceptance(initial, target):
    """(per-class acceptance probabilities, probability of drawing from the original), float32 tensors."""
    from tensorlet._src.ops.math_binary import truediv
    from tensorlet._src.ops.reduce import reduce_max, reduce_min

    ratio = truediv(target, initial + np.finfo(np.float32).tiny)
    lo, hi = reduce_min(ratio), reduce_max(ratio)
    return (ratio - lo) / (hi - lo), lo


def _estimated_dist(class_ds, num_classes):
    """The running class distribution, one row per element: counts (from 10 each) updated every 32 elements."""
    from tensorlet._src.ops.array_select import one_hot
    from tensorlet._src.ops.array_shape import expand_dims, tile
    from tensorlet._src.ops.math_binary import cast
    from tensorlet._src.ops.reduce import reduce_sum

    def update(counts, c):
        counts = counts + reduce_sum(one_hot(c, num_classes, dtype=_dt.int64), 0)
        dist = cast(counts / reduce_sum(counts), _dt.float32)
        return counts, tile(expand_dims(dist, 0), [_ESTIMATION_BATCH, 1])

    start = convert_to_tensor(np.full([num_classes], _SMOOTHING, np.int64))
    return class_ds.batch(_ESTIMATION_BATCH).scan(start, update).unbatch()


def _resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    from tensorlet._src.ops.gather_scatter import gather
    from tensorlet._src.ops.math_binary import cast
    from tensorlet._src.ops.random_gen import uniform

    target = cast(convert_to_tensor(target_dist), _dt.float32)
    if target.shape.rank != 1:
        raise ValueError(f"`target_dist` must be a vector of class probabilities, got shape {target.shape}")

    def with_class(*x):
        return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

    if initial_dist is not None:
        initial = cast(convert_to_tensor(initial_dist), _dt.float32)
        accept, p_original = _acceptance(initial, target)
        m = float(p_original.numpy())
        if m == 1:
            return dataset.map(with_class)
        accept_ds = DatasetV2.from_tensors(accept).repeat()
        original_ds = DatasetV2.from_tensors(p_original).repeat()
    else:
        initial_ds = _estimated_dist(dataset.map(class_func), int(target.shape[0]))
        both = initial_ds.map(lambda p: _acceptance(p, target))
        accept_ds = both.map(lambda a, _: a)
        original_ds = both.map(lambda _, m: m)
        m = None

    def gather_prob(accept, data):
        labeled = with_class(*data) if isinstance(data, tuple) else with_class(data)
        return labeled[0], gather(accept, labeled[0]), labeled[1]

    filtered = (DatasetV2.zip((accept_ds, dataset)).map(gather_prob)
                .filter(lambda c, p, d: uniform([], seed=seed, dtype=p.dtype) < p)
                .map(lambda c, p, d: (c, d)).prefetch(3))
    if m == 0:
        return filtered
    weights = original_ds.map(lambda p: [(p, 1.0 - p)])
    return DatasetV2.sample_from_datasets([dataset.map(with_class), filtered], weights=weights, seed=seed,
                                          stop_on_empty_dataset=True)


@tf_export("data.experimental.rejection_resample")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation resampling to ``target_dist``: elements become ``(class, element)`` pairs."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


# --- sparse_batch -------------------------------------------------------------------------------------------------

class SparseBatchDataset(UnaryDataset):
    """Batches of dense elements as one ``SparseTensor`` of dense shape ``[batch, *row_shape]`` (a None in
    ``row_shape`` takes the batch's largest size)."""

    def __init__(self, input_dataset, batch_size, row_shape, name=None):
        from tensorlet._src.framework.tensor_shape import TensorShape
        from tensorlet._src.io.sparse import SparseTensorSpec

        super().__init__(input_dataset, name)
        self._batch = static_int(batch_size, "batch_size")
        if self._batch <= 0:
            raise errors.InvalidArgumentError(None, "DenseToSparseBatchDataset", f"Batch size must be greater "
                                                                               f"than zero, got {self._batch}")
        spec = input_dataset.element_spec
        if not isinstance(spec, S.TensorSpec):
            raise TypeError(f"DenseToSparseDataset requires an input whose elements are single tensors, got "
                            f"{spec}")
        rs = row_shape.numpy().tolist() if isinstance(row_shape, Tensor) else row_shape
        rs = TensorShape(rs).as_list() if not isinstance(rs, list) else rs
        for d in rs:
            if d is not None and int(d) < 0:
                raise ValueError(f"Dimension {int(d)} must be >= 0")
        self._row = [-1 if d is None else int(d) for d in rs]
        if spec.shape.rank is not None and spec.shape.rank != len(self._row):
            raise errors.InvalidArgumentError(None, "DenseToSparseBatchDataset", f"Input element had shape "
                                              f"{spec.shape} that does not match the rank of row_shape "
                                              f"{self._row}")
        self._dtype = spec.dtype
        self._set_spec(SparseTensorSpec([None] + [None if d == -1 else d for d in self._row], spec.dtype))

    def _card(self):
        n = self._input._card()
        return n if n < 0 else -(-n // self._batch)

    def _gen(self, ictx):
        batch = []
        for (x,) in self._input._gen(ictx):
            batch.append(np.asarray(x))
            if len(batch) == self._batch:
                yield (self._sparse(batch),)
                batch = []
        if batch:
            yield (self._sparse(batch),)

    def _sparse(self, batch):
        from tensorlet._src.io.sparse import SparseTensor

        rank = len(self._row)
        dense = list(self._row)
        for x in batch:
            if x.ndim != rank:
                raise errors.InvalidArgumentError(None, "DenseToSparseBatchDataset", f"Input element had shape "
                                                  f"{list(x.shape)} that does not match the rank of row_shape "
                                                  f"{self._row}")
            for j, d in enumerate(x.shape):
                if self._row[j] == -1:
                    dense[j] = max(dense[j], d)
                elif d > self._row[j]:
                    raise errors.DataLossError(None, "DenseToSparseBatchDataset", f"Input element had shape "
                                               f"{list(x.shape)} that is incompatible with the row shape "
                                               f"{self._row}.")
        dense = [max(d, 0) for d in dense]
        idx = [np.concatenate([np.full((x.size, 1), i, np.int64),
                               np.stack(np.unravel_index(np.arange(x.size), x.shape), 1).astype(np.int64)
                               if rank else np.zeros((x.size, 0), np.int64)], 1) for i, x in enumerate(batch)]
        vals = np.concatenate([x.reshape(-1) for x in batch])
        return SparseTensor(np.concatenate(idx).reshape(-1, rank + 1), vals.astype(self._dtype.as_numpy_dtype
                                                                                    if self._dtype is not _dt.string
                                                                                    else object),
                            [len(batch)] + dense)


@tf_export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape):
    """``ds.apply(dense_to_sparse_batch(2, [5]))``: ``Dataset.sparse_batch`` as a transformation."""
    return lambda dataset: dataset.sparse_batch(batch_size, row_shape)


# --- snapshot -----------------------------------------------------------------------------------------------------

def _fingerprint(dataset) -> str:
    """A digest of the pipeline: node types, their constant arguments, source data and functions' bytecode (TF
    hashes the dataset graph; a changed pipeline gets a new snapshot directory)."""
    h = hashlib.sha256()

    def feed(v, depth=0):
        if depth > 6:
            return
        if isinstance(v, DatasetV2):
            h.update(b"D" + type(v).__name__.encode())
            for k, x in sorted(vars(v).items()):
                if not k.startswith("_options"):
                    h.update(k.encode())
                    feed(x, depth + 1)
        elif isinstance(v, (bool, int, float, str, bytes, type(None))):
            h.update(repr(v).encode())
        elif isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + repr(v.shape).encode())
            h.update(v.tobytes() if v.dtype != object else repr(v.tolist()).encode())
        elif isinstance(v, Tensor):
            feed(np.asarray(v.numpy()), depth)
        elif isinstance(v, (tuple, list)):
            h.update(b"(")
            for x in v:
                feed(x, depth + 1)
            h.update(b")")
        elif isinstance(v, dict):
            for k in sorted(v, key=repr):
                h.update(repr(k).encode())
                feed(v[k], depth + 1)
        elif isinstance(v, types.FunctionType):
            h.update(v.__code__.co_code + repr(v.__code__.co_consts).encode())
        elif hasattr(v, "__dict__") and not isinstance(v, type):
            h.update(type(v).__name__.encode())
            for k, x in sorted(vars(v).items()):
                if isinstance(x, (DatasetV2, np.ndarray, Tensor, types.FunctionType, int, float, str, bytes)):
                    h.update(k.encode())
                    feed(x, depth + 1)

    feed(dataset)
    h.update(repr(dataset.element_spec).encode())
    return str(int.from_bytes(h.digest()[:8], "little"))


class SnapshotDataset(UnaryDataset):
    """The first complete pass writes the elements to ``path/<fingerprint>`` (TF's snapshot files, the layout
    ``Dataset.save`` writes); later passes, in this process or another, read them back."""

    def __init__(self, input_dataset, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        super().__init__(input_dataset, name)
        if isinstance(path, Tensor):
            path = path.numpy()
        self._path = os.fspath(path.decode() if isinstance(path, bytes) else path)
        self._compression = None if compression in ("AUTO", "NONE", "", None) else compression
        if reader_func is not None:
            raise errors.UnimplementedError(None, None, "Dataset.snapshot(reader_func=...) is not supported by "
                                            "tensorlet; shards are read interleaved as by TF's default reader_func")
        self._shard_func = shard_func
        self._lock = threading.Lock()
        self._set_spec(input_dataset.element_spec)

    def _dir(self):
        return os.path.join(self._path, _fingerprint(self._input))

    def _gen(self, ictx):
        from tensorlet._src.data import snapshot as _snap

        d = self._dir()
        if _snap.is_snapshot(d):
            return _snap.Snapshot(d, self._input.element_spec, self._compression).elements()
        return self._write_through(ictx, d)

    def _write_through(self, ictx, d):
        from tensorlet._src.data import snapshot as _snap

        got = []
        for leaves in self._input._gen(ictx):
            got.append(leaves)
            yield leaves
        shard = None
        if self._shard_func is not None:
            from tensorlet._src.data.dataset_ops import to_leaf
            from tensorlet._src.data.functions import DataFunction

            df = DataFunction(self._shard_func, self._input.element_spec, "shard_func")

            def shard(leaves):
                return int(to_leaf(df.call_structured(leaves)))
        with self._lock:
            if not _snap.is_snapshot(d):
                _snap.write(d, self._input.element_spec, iter(got), self._compression, shard)


@tf_export("data.experimental.snapshot")
def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation persisting the dataset to ``path`` on the first pass (``Dataset.snapshot``)."""
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)
